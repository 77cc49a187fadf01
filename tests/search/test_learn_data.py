"""learn on mixed, continuous and hostile data: the mixed log-likelihood, the door crossed once, scores checked against the data, checkpoints and budgets with one candidate, small samples, progress."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import DAG, as_dataset, datasets
from bnfs.stats.metrics import log_likelihood


@pytest.fixture(scope="module")
def asia():
    return datasets.sample("asia", 3000, seed=7)


def test_log_likelihood_of_mixed_data_is_the_conditional_gaussian_density():
    """Held-out rows under a conditional-Gaussian network: a discrete node's BDeu
    predictive, a continuous node's normal density from the least-squares regression on
    its continuous parents fitted in its discrete parents' configuration, a configuration
    seen too rarely in training borrowing the regression on all the rows."""
    from scipy.stats import norm

    rng = np.random.default_rng(4)
    n = 400
    g = rng.choice(["a", "b", "c"], size=n, p=[0.45, 0.45, 0.1])
    x = rng.normal(size=n)
    y = np.where(g == "a", 1.0 + 2.0 * x, -1.0 - x) + rng.normal(scale=0.5, size=n)
    frame = pd.DataFrame({"g": g, "x": x, "y": y})
    data = as_dataset(frame)
    rare = np.flatnonzero(g == "c")
    train_rows = np.setdiff1d(np.arange(300), rare[2:])  # "c" in two training rows only
    test_rows = np.arange(300, 400)
    train, test = data.take(train_rows), data.take(test_rows)
    dag = DAG(["g", "x", "y"], [("g", "y"), ("x", "y")])
    found = log_likelihood(dag, train, test)
    tr, te = frame.iloc[train_rows], frame.iloc[test_rows]
    expected = 0.0
    levels = sorted(set(g))
    for level in levels:  # g: the BDeu predictive with iss 1
        count = (tr["g"] == level).sum()
        p = (count + 1 / 3) / (len(tr) + 1)
        expected += (te["g"] == level).sum() * np.log(p)
    sd = tr["x"].std(ddof=0)
    expected += norm.logpdf(te["x"], tr["x"].mean(), sd).sum()
    pooled = np.polyfit(tr["x"], tr["y"], 1)
    for level in levels:
        fit_rows = tr[tr["g"] == level] if level != "c" else tr
        slope, intercept = np.polyfit(fit_rows["x"], fit_rows["y"], 1)
        if level == "c":
            slope, intercept = pooled
        residual = fit_rows["y"] - (intercept + slope * fit_rows["x"])
        held = te[te["g"] == level]
        expected += norm.logpdf(
            held["y"], intercept + slope * held["x"], np.sqrt(np.mean(residual**2))
        ).sum()
    assert found == pytest.approx(expected / len(te), rel=1e-9)
    assert found > log_likelihood(DAG(["g", "x", "y"], [("x", "y")]), train, test)
    with pytest.raises(ValueError, match="discrete node 'g' has continuous parents"):
        log_likelihood(DAG(["g", "x", "y"], [("x", "g")]), train, test)


def test_mixed_log_likelihood_against_bnlearns_cross_validation():
    """bnlearn-port's bn.cv "logl" loss with "mle-cg" parameters fits the same
    per-configuration regressions; its residual deviation divides by the rows less the
    coefficients and its discrete nodes take maximum-likelihood frequencies, where bnfs
    uses the maximum-likelihood deviation and the BDeu predictive. Swapping those two in by
    hand, bnfs's terms give bnlearn's loss on both folds."""
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    from scipy.stats import norm

    from bnfs.stats.metrics import _regressions_log_likelihood

    rng = np.random.default_rng(4)
    g = rng.choice(["a", "b"], size=400)
    x = rng.normal(size=400)
    y = np.where(g == "a", 1 + 2 * x, -1 - x) + rng.normal(scale=0.5, size=400)
    frame = pd.DataFrame({"g": pd.Categorical(g), "x": x, "y": y})
    first, second = np.arange(200), np.arange(200, 400)
    cv = pybnlearn.bn_cv(
        frame,
        pybnlearn.model2network("[g][x][y|g:x]"),
        loss="logl",
        method="custom-folds",
        folds=[first + 1, second + 1],
        fit_method="mle-cg",
    )
    data = as_dataset(frame.astype({"g": str}))
    dag = DAG(["g", "x", "y"], [("g", "y"), ("x", "y")])
    for fold, (train, test) in zip(cv.folds, ((second, first), (first, second))):
        ours = log_likelihood(dag, data.take(train), data.take(test))
        T, E = data.take(train), data.take(test)
        gaussian = _regressions_log_likelihood("x", [], [], T, E)
        gaussian += _regressions_log_likelihood("y", ["g"], ["x"], T, E)
        shares = pd.Series(g[train]).value_counts()
        bdeu = np.log((shares[g[test]].to_numpy() + 0.5) / (len(train) + 1)).sum()
        assert ours == pytest.approx((gaussian + bdeu) / len(test), rel=1e-12)
        # bnlearn's conventions: ML frequencies, deviation over rows less coefficients
        theirs = np.log(shares[g[test]].to_numpy() / len(train)).sum()
        residual = x[train] - x[train].mean()
        theirs += norm.logpdf(
            x[test], x[train].mean(), np.sqrt(residual @ residual / (len(train) - 1))
        ).sum()
        for level in ("a", "b"):
            i, j = train[g[train] == level], test[g[test] == level]
            coefficients = np.polyfit(x[i], y[i], 1)
            residual = y[i] - np.polyval(coefficients, x[i])
            deviation = np.sqrt(residual @ residual / (len(i) - 2))
            theirs += norm.logpdf(y[j], np.polyval(coefficients, x[j]), deviation).sum()
        assert -theirs / len(test) == pytest.approx(fold["loss"], rel=1e-9)


def test_learn_encodes_checks_and_crosses_the_door_once(monkeypatch):
    """Issue 46's walk of ``learn(data)``: the frame is encoded once, each arc list checked
    once (BOSS and its search state take the checked lists as they are) and the door
    crossed once (BOSS, called by learn on the data learn's door checked, does not cross it
    again): the record still says which learner ran."""
    import collections

    import bnfs._real_data as door
    import bnfs._validate as validate
    from bnfs.tables._data import Dataset

    counts = collections.Counter()

    def counting(name, function):
        def counted(*args, **kwargs):
            counts[name(*args)] += 1
            return function(*args, **kwargs)

        return counted

    monkeypatch.setattr(Dataset, "__init__", counting(lambda *a: "encode", Dataset.__init__))
    checked = validate._checked_pairs
    monkeypatch.setattr(validate, "_checked_pairs", counting(lambda a, n, k: n, checked))
    monkeypatch.setattr(door, "_run", counting(lambda learner, b: learner.__name__, door._run))
    frame = datasets.sample("asia", 1000, seed=0)
    dag = bnfs.learn(frame, blacklist=[("asia", "tub")], whitelist=[("smoke", "lung")], seed=0)
    assert counts == {"encode": 1, "blacklist": 1, "whitelist": 1, "learn": 1}
    assert dag.learning["algorithm"] == "learn" and dag.learning["learner"] == "boss"
    assert ("smoke", "lung") in dag.arcs and ("asia", "tub") not in dag.arcs
    counts.clear()  # a learner on its own still crosses its door and checks its lists
    bnfs.boss(frame, blacklist=[("asia", "tub")], seed=0, progress=False)
    assert counts == {"encode": 1, "blacklist": 1, "boss": 1}


# issue 59, items 2 and 3: a score, a checkpoint and a budget are used or refused by name


@pytest.mark.parametrize(
    "score, error, match",
    [
        ("bogus", ValueError, "bogus"),
        (3, TypeError, "score must be a string"),
        ("bge", ValueError, "for continuous data"),
        ("bic-cg", ValueError, "for continuous data"),
    ],
)
def test_an_unknown_or_misplaced_score_is_refused(asia, score, error, match):
    with pytest.raises(error, match=match):
        bnfs.learn(asia, score=score)
    with pytest.raises(error, match=match):  # the same through the funnel
        bnfs.markov_blanket(asia, "either", method="learn", score=score)
    with pytest.raises(error, match=match):
        bnfs.neighbours(asia, "either", method="learn", score=score)


def test_a_score_for_continuous_data_is_checked_against_them():
    rng = np.random.default_rng(0)
    x = rng.normal(size=400)
    gauss = pd.DataFrame({"x": x, "y": x + rng.normal(size=400), "z": rng.normal(size=400)})
    with pytest.raises(ValueError, match="continuous data must be one of"):
        bnfs.learn(gauss, score="bde")
    assert bnfs.learn(gauss, score="bic").learning["score"] == "bic-g"


@pytest.mark.parametrize("score", ["k2", "bic", "bds"])
def test_a_valid_score_is_the_one_learn_runs(asia, score):
    """BOSS used to run BDeu with the vsp prior on discrete data whatever ``score`` said."""
    dag = bnfs.learn(asia, score=score)
    assert dag.learning["score"] == score
    alone = bnfs.boss(
        asia,
        score=score,
        restarts=4,
        restart_work=5e9,
        seed=0,
        max_configurations=10 * asia.shape[0],
    )
    assert set(dag.arcs) == set(alone.arcs)
    assert bnfs.learn(asia).learning["score"] == "bde"  # the default stays BDeu + vsp


@pytest.mark.parametrize(
    "checkpoint, error, match",
    [
        (3, TypeError, "checkpoint must be a file path"),
        ("/no/such/folder/learn.json", ValueError, "does not exist"),
    ],
)
def test_a_checkpoint_is_checked_with_one_candidate_too(asia, checkpoint, error, match):
    with pytest.raises(error, match=match):
        bnfs.learn(asia, checkpoint=checkpoint)


def test_one_candidate_uses_the_checkpoint_or_refuses_it(asia, tmp_path):
    with pytest.raises(ValueError, match="one candidate \\('boss'\\)"):
        bnfs.learn(asia, checkpoint=tmp_path / "boss.json")
    assert not (tmp_path / "boss.json").exists()
    for candidate in ("hc", "tabu"):
        path = tmp_path / f"{candidate}.json"
        bnfs.learn(asia, candidates=[candidate], checkpoint=path)
        assert json.loads(path.read_text())["who"] in ("hill_climbing", "tabu_search")


@pytest.mark.parametrize("candidates", [["boss", "hc", "mmhc"], ["hc", "pc_tabu"]])
def test_a_comparison_cut_short_says_so(asia, candidates):
    with pytest.warns(RuntimeWarning, match="learn stopped early") as caught:
        dag = bnfs.learn(asia, candidates=candidates, max_time=1e-9)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    learning = dag.learning
    assert learning["stopped_early"] == "max_time reached"
    assert "max_time reached" in learning["reason"] and learning["skipped"]
    assert "highest mean" not in learning["reason"].split(";")[-1]


@pytest.mark.parametrize("candidate", ["tabu", "hc", "mmhc", "pc_tabu", "h2pc", "mmpc_tabu"])
def test_one_candidate_honours_the_budget(asia, candidate):
    with pytest.warns(RuntimeWarning, match="stopped early"):
        dag = bnfs.learn(asia, candidates=[candidate], max_time=0)
    assert dag.learning["stopped_early"].startswith("max_time reached")
    assert dag.n_arcs == 0  # no time: the search's start
    finished = bnfs.learn(asia, candidates=[candidate])
    assert finished.learning["stopped_early"] is None and finished.n_arcs > 0


@pytest.mark.parametrize(
    "rows, columns, warned", [(155, 20, True), (199, 20, True), (200, 20, False)]
)
def test_learn_says_when_the_rows_are_few_for_the_network(rows, columns, warned):
    """Issue 59, item 18: 155 rows for 20 variables (hepatitis) gave no hint."""
    rng = np.random.default_rng(rows)
    frame = pd.DataFrame({f"c{j}": rng.choice(["a", "b"], rows) for j in range(columns)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bnfs.learn(frame)
    thin = [w for w in caught if "too few to see most dependences" in str(w.message)]
    assert bool(thin) == warned
    if warned:
        assert f"{rows} rows for {columns} variables" in str(thin[0].message)
        assert thin[0].filename == __file__


def test_every_learner_describes_progress():
    import inspect

    from bnfs import learners

    for name in learners.names():
        function = learners.get(name).function
        if "progress" not in inspect.signature(function).parameters:
            continue
        doc = inspect.getdoc(function)
        if "\nParameters\n" not in doc:  # iamb, mmhc, tabu_search: as the learner they name
            continue
        lines = doc.splitlines()
        at = [i for i, line in enumerate(lines) if line.startswith("progress :")]
        shared = [line for line in lines if "progress" in line and "," in line.split(":")[0]]
        assert shared or (at and lines[at[0] + 1].startswith("    ")), name
