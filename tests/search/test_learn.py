"""bnfs.learn: candidates compared by held-out log-likelihood, the winner run on all rows;
and the held-out log-likelihood itself."""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import DAG, as_dataset, datasets
from bnfs.search.automatic import COMPARED
from bnfs.stats.metrics import log_likelihood


@pytest.fixture(scope="module")
def asia():
    return datasets.sample("asia", 3000, seed=7)


def _direct_log_likelihood(dag, train: pd.DataFrame, test: pd.DataFrame, levels, iss=1.0):
    """The BDeu predictive, counted with pandas (no shared code with bnfs)."""
    total = 0.0
    for v in dag.nodes:
        parents = list(dag.parents(v))
        r = len(levels[v])
        q = math.prod(len(levels[u]) for u in parents)
        a = iss / (q * r)
        for _, row in test.iterrows():
            match = np.ones(len(train), bool)
            for u in parents:
                match &= (train[u] == row[u]).to_numpy()
            n_j = match.sum()
            n_jk = (match & (train[v] == row[v]).to_numpy()).sum()
            total += math.log((n_jk + a) / (n_j + a * r))
    return total / len(test)


def test_log_likelihood_is_the_bdeu_predictive(asia):
    data = as_dataset(asia.iloc[:400])
    train, test = data.take(np.arange(300)), data.take(np.arange(300, 400))
    dag = datasets.network("asia")
    levels = {v: data.states[v] for v in data.names}
    frame = asia.iloc[:400].astype(str)
    expected = _direct_log_likelihood(dag, frame.iloc[:300], frame.iloc[300:], levels, iss=2.0)
    assert log_likelihood(dag, train, test, iss=2.0) == pytest.approx(expected, rel=1e-12)
    assert log_likelihood(dag, train, test) > log_likelihood(DAG(data.names), train, test)


def test_log_likelihood_refuses_mismatched_data(asia):
    data = as_dataset(asia)
    with pytest.raises(TypeError, match="train must be a Dataset"):
        log_likelihood(datasets.network("asia"), asia)
    with pytest.raises(ValueError, match="same columns and levels"):
        log_likelihood(datasets.network("asia"), data, as_dataset(asia[list(asia.columns)[::-1]]))
    with pytest.raises(ValueError, match="nodes must be the data's columns"):
        log_likelihood(DAG(["a", "b"]), data, data)
    assert log_likelihood(DAG(data.names), data) < 0  # test defaults to train


def test_learn_records_the_comparison_and_returns_the_winner(asia):
    dag = bnfs.learn(asia, candidates=["hc", "mmhc", "tabu"], folds=3, seed=1)
    learning = dag.learning
    assert learning["algorithm"] == "learn" and learning["folds"] == 3
    summary = learning["candidates"]
    assert set(summary) == {"hc", "mmhc", "tabu"}
    for found in summary.values():
        assert len(found["log_likelihood"]) == 3
        assert found["mean"] == pytest.approx(np.mean(found["log_likelihood"]))
        assert found["se"] >= 0 and found["arcs"] > 0
    best = max(summary, key=lambda c: summary[c]["mean"])
    chosen = learning["chosen"]
    assert summary[chosen]["mean"] >= summary[best]["mean"] - summary[best]["se"]
    assert summary[chosen]["arcs"] <= summary[best]["arcs"]
    again = {
        "hc": bnfs.hill_climbing,
        "mmhc": lambda d, **o: bnfs.mmhc(d, max_cond_size=3, **o),  # learn's bound
        "tabu": bnfs.tabu_search,
    }[chosen]
    assert set(dag.arcs) == set(again(asia, progress=False).arcs)
    plain = bnfs.learn(asia, candidates=["hc", "mmhc", "tabu"], folds=3, seed=1, one_se=False)
    assert plain.learning["chosen"] == best


def test_learn_is_deterministic_and_n_jobs_does_not_matter(asia):
    first = bnfs.learn(asia, candidates=["hc", "mmhc"], folds=2, seed=3)
    again = bnfs.learn(asia, candidates=["hc", "mmhc"], folds=2, seed=3, n_jobs=2)
    assert first == again
    for c, found in first.learning["candidates"].items():  # all but the seconds
        assert found["log_likelihood"] == again.learning["candidates"][c]["log_likelihood"]
        assert found["arcs"] == again.learning["candidates"][c]["arcs"]


def test_learn_keeps_knowledge_and_resumes_from_a_checkpoint(asia, tmp_path):
    white, black = [("asia", "dysp")], [("either", "xray")]
    path = tmp_path / "learn.json"
    dag = bnfs.learn(
        asia,
        candidates=["hc", "pc_tabu"],
        folds=2,
        whitelist=white,
        blacklist=black,
        max_parents=2,
        checkpoint=path,
    )
    assert ("asia", "dysp") in dag.arcs and ("either", "xray") not in dag.arcs
    assert max(len(dag.parents(v)) for v in dag.nodes) <= 2 and path.exists()
    again = bnfs.learn(
        asia,
        candidates=["hc", "pc_tabu"],
        folds=2,
        whitelist=white,
        blacklist=black,
        max_parents=2,
        checkpoint=path,
    )
    assert again.learning["candidates"] == dag.learning["candidates"]  # read back, not rerun
    with pytest.raises(ValueError, match="checkpoint"):  # other arguments: refused
        bnfs.learn(asia, candidates=["hc", "pc_tabu"], folds=3, checkpoint=path)


def test_a_damaged_learn_checkpoint_is_refused(asia, tmp_path):
    """A checkpoint bnfs wrote (valid digest) whose fold runs are not numbers."""
    from bnfs._checkpoint import Checkpoint

    path = tmp_path / "learn.json"
    bnfs.learn(asia, candidates=["hc", "tabu"], folds=2, checkpoint=path)
    written = json.loads(path.read_text())
    Checkpoint(path, "learn", written["fingerprint"]).save(
        {"folds": {"hc/0": ["not a number", 1, 2]}}
    )
    with pytest.raises(ValueError, match="damaged"):
        bnfs.learn(asia, candidates=["hc", "tabu"], folds=2, checkpoint=path)


def test_a_spent_budget_keeps_the_first_candidate(asia):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dag = bnfs.learn(asia, candidates=["hc", "tabu"], folds=2, max_time=0)
    assert dag.learning["chosen"] == "hc" and set(dag.learning["candidates"]) == {"hc"}
    assert dag.learning["skipped"] == ["tabu/0", "tabu/1"]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"candidates": ["magic"]}, ValueError, "candidates must be"),
        ({"candidates": []}, ValueError, "candidates must be"),
        ({"candidates": ["hc", "hc"]}, ValueError, "repeated"),
        ({"candidates": 3}, TypeError, "candidates must be a list"),
        ({"folds": 1}, ValueError, "folds"),
        ({"one_se": "yes"}, TypeError, "one_se"),
        ({"max_time": -1}, ValueError, "max_time"),
        ({"blacklist": [("asia", "nowhere")]}, ValueError, "nowhere"),
    ],
)
def test_bad_arguments_are_refused_by_name(asia, kwargs, error, match):
    with pytest.raises(error, match=match):
        bnfs.learn(asia, **kwargs)
    assert list(asia.columns) == list(datasets.sample("asia", 10, seed=7).columns)


def _forge(path, edit):
    """Rewrite a learn checkpoint's fold runs with ``edit`` and a valid digest, as a forger
    who knows the format would."""
    from bnfs._checkpoint import Checkpoint

    written = json.loads(path.read_text())
    folds = written["state"]["folds"]
    edit(folds)
    Checkpoint(path, "learn", written["fingerprint"]).save({"folds": folds})


def _losing_candidate_wins(folds):
    """Raise every fold of the candidate that lost above the winner's best: a plausible
    log-probability that no bound can tell from a real one."""
    means = {}
    for key, value in folds.items():
        means.setdefault(key.split("/")[0], []).append(value[0])
    loser = min(means, key=lambda c: sum(means[c]))
    top = max(max(v) for v in means.values())
    for key in folds:
        if key.startswith(loser + "/"):
            folds[key][0] = top / 2 if top < 0 else top * 2 + 1
            folds[key][1] = 0


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda f: f["hc/0"].__setitem__(0, 1e6), "log-probability of 1000000.0"),
        (lambda f: f["hc/1"].__setitem__(0, 0.5), "log-probability of 0.5"),
        (lambda f: f["hc/0"].__setitem__(1, float("nan")), "not finite"),
        (lambda f: f["pc_tabu/1"].__setitem__(0, float("-inf")), "not finite"),
        (lambda f: f["hc/0"].__setitem__(1, 2.5), "2.5 arcs"),
        (lambda f: f["hc/0"].__setitem__(1, -1), "-1.0 arcs"),
        (lambda f: f["hc/0"].__setitem__(1, 10**6), "1000000.0 arcs"),
        (lambda f: f["hc/0"].__setitem__(2, -3), "-3.0 seconds"),
        (_losing_candidate_wins, "fold run .* saved"),
    ],
)
def test_a_forged_learn_checkpoint_is_refused(asia, tmp_path, edit, message):
    """A checkpoint whose digest a forger recomputed: its fold runs are bounded (finite,
    whole arcs a DAG can have, a log-probability on discrete data) and the runs the choice
    rests on are spot-checked by running one of their folds again."""
    path = tmp_path / "learn.json"
    options = {"candidates": ["hc", "pc_tabu"], "folds": 2, "checkpoint": path}
    bnfs.learn(asia, **options)
    _forge(path, edit)
    with pytest.raises(ValueError, match=f"damaged .*{message}"):
        bnfs.learn(asia, **options)


def test_a_forged_checkpoint_on_continuous_data_is_caught_by_the_recheck(tmp_path):
    rng = np.random.default_rng(2)
    x = rng.normal(size=300)
    frame = pd.DataFrame({"x": x, "y": x + rng.normal(size=300), "z": rng.normal(size=300)})
    path = tmp_path / "learn.json"
    options = {"candidates": ["hc", "pc_tabu"], "folds": 2, "checkpoint": path}
    bnfs.learn(frame, progress=False, **options)
    _forge(path, _losing_candidate_wins)
    with pytest.raises(ValueError, match="damaged .*fold run"):
        bnfs.learn(frame, progress=False, **options)


def test_learn_runs_boss_by_default_with_further_starts():
    """The default is BOSS alone (BDeu and the vsp prior on discrete data, more starts on
    all the rows), which lies nearer the true network than tabu search."""
    frame = datasets.sample("insurance", 1000, seed=0)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    truth = datasets.network("insurance").subgraph(list(frame.columns))
    dag = bnfs.learn(frame, seed=2, progress=False)
    run = bnfs.boss(frame, "bde", prior="vsp", restarts=4, seed=2, progress=False)
    assert dag == run and dag.learning["chosen"] == "boss" and dag.learning["learner"] == "boss"
    assert dag.learning["candidates"] == {} and dag.learning["folds"] == 0
    assert len(dag.learning["starts"]) == 5
    tabu = bnfs.tabu_search(frame, progress=False)
    assert bnfs.shd(dag, truth) < bnfs.shd(tabu, truth)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stopped = bnfs.learn(frame, max_time=0, progress=False)
    assert stopped.learning["stopped_early"] == "max_time reached"
    assert any("boss" in str(w.message) for w in caught)


def test_learns_further_starts_stop_at_their_work_budget(monkeypatch):
    """Issue 43: a further start runs only while the work (local scores times rows, the
    same on every machine) and one more start's share stay within FINAL_RESTART_WORK, so
    that data of many rows and levels get one start, not five."""
    from bnfs.search import automatic

    frame = datasets.sample("insurance", 1000, seed=0)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    five = bnfs.learn(frame, seed=2, progress=False)
    per_start = five.learning["work"] / 5
    assert five.learning["work"] <= automatic.FINAL_RESTART_WORK
    monkeypatch.setattr(automatic, "FINAL_RESTART_WORK", 2.5 * per_start)
    fewer = bnfs.learn(frame, seed=2, progress=False)
    assert 1 <= len(fewer.learning["starts"]) < 5
    assert fewer.learning["arguments"]["restart_work"] == 2.5 * per_start
    assert fewer.learning["stopped_early"] is None  # a rule of learn, not a partial answer
    monkeypatch.setattr(automatic, "FINAL_RESTART_WORK", 0.0)
    one = bnfs.learn(frame, seed=2, progress=False)
    assert len(one.learning["starts"]) == 1
    assert one == bnfs.boss(frame, "bde", prior="vsp", seed=2, progress=False)
    with pytest.raises(ValueError, match="restart_work"):
        bnfs.boss(frame, restart_work=-1.0)


def test_learn_compares_boss_with_the_others_and_picks_it_where_it_predicts_best():
    """On insurance (1,000 rows) BOSS predicts the held-out rows best: compared with the
    candidates learn used to compare by default, it wins."""
    frame = datasets.sample("insurance", 1000, seed=0)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    dag = bnfs.learn(frame, candidates=COMPARED, folds=3, progress=False)
    summary = dag.learning["candidates"]
    assert set(summary) == set(COMPARED)
    assert dag.learning["chosen"] == "boss" and dag.learning["learner"] == "boss"
    assert dag.learning["arguments"]["prior"] == "vsp" and dag.learning["score"] == "bde"
    assert summary["boss"]["mean"] > summary["tabu"]["mean"]


def test_learns_boss_candidate_takes_the_given_score_on_continuous_data():
    from bnfs.models.cg_network import random_cg_network

    frame = random_cg_network(0, 6, seed=2).sample(600, seed=2)
    dag = bnfs.learn(frame, score="bic-g", candidates=["boss"], folds=2, seed=3, progress=False)
    run = bnfs.boss(frame, restarts=4, seed=3, progress=False)  # the winner's final run
    assert dag.learning["score"] == run.learning["score"] == "bic-g"
    assert dag == run and dag.learning["chosen"] == "boss"
    assert dag.learning["standardized"] is False
    both = bnfs.learn(frame, candidates=["boss", "tabu"], folds=2, progress=False)
    assert set(both.learning["candidates"]) == {"boss", "tabu"}


def test_learn_scores_continuous_data_by_bge_with_the_vsp_prior_on_standardized_columns():
    """Without a score, BOSS scores continuous data as it scores discrete data, by a
    Bayesian score with the vsp prior: BGe, on the standardized columns, so a column's unit
    does not change the graph (BGe itself is not scale-free). It is BOSS's graph under BGe
    on the standardized frame."""
    from bnfs.models.cg_network import random_cg_network

    frame = random_cg_network(0, 6, seed=2).sample(600, seed=2)
    dag = bnfs.learn(frame, seed=3, progress=False)
    assert dag.learning["score"] == "bge" and dag.learning["standardized"] is True
    assert dag.learning["arguments"]["prior"] == "vsp"
    standard = (frame - frame.mean()) / frame.std(ddof=0)
    assert dag == bnfs.boss(standard, "bge", prior="vsp", restarts=4, seed=3, progress=False)
    rescaled = frame.assign(**{frame.columns[0]: frame.iloc[:, 0] * 1e4 - 7.0})
    assert bnfs.learn(rescaled, seed=3, progress=False) == dag
    # on the raw columns BGe's graph follows the units: y in thousandths loses its parent
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    pair = pd.DataFrame({"x": x, "y": 0.5 * x + rng.normal(size=300)})
    thousandths = pair.assign(y=pair["y"] * 1e-3)
    assert bnfs.boss(pair, "bge", prior="vsp", progress=False).n_arcs == 1
    assert bnfs.boss(thousandths, "bge", prior="vsp", progress=False).n_arcs == 0
    assert bnfs.learn(pair, progress=False) == bnfs.learn(thousandths, progress=False)
    assert bnfs.learn(thousandths, progress=False).n_arcs == 1


def test_learn_adds_no_chance_arcs_on_wide_thin_continuous_data():
    """120 independent Gaussian columns, 40 rows: bic-g's penalty does not grow with the
    number of candidate parents, so BOSS under bic-g links hundreds of pairs by chance;
    learn's BGe with the vsp prior (each parent a priori 1 / 119 likely) keeps the graph
    nearly empty."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 120)), columns=[f"x{i}" for i in range(120)])
    dag = bnfs.learn(frame, progress=False)
    assert dag.n_arcs <= 10
    chance = bnfs.boss(frame.iloc[:, :40], "bic-g", progress=False)
    assert chance.n_arcs > 40  # the same rows under bic-g, on a third of the columns


@pytest.mark.parametrize("max_time", [0.0, 0.5])
def test_learn_honours_its_budget_on_high_arity_data(max_time):
    """Issue 43: on many rows of 10-level columns (coil2000's shape, smaller) learn answers
    within max_time: the provenance records the budget and whether it ended the search, and
    the graph it returns is a DAG whose recorded score is its score."""
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 10, (3000, 12))
    codes[:, 1] = (codes[:, 0] + rng.integers(0, 2, 3000)) % 10  # some structure
    codes[:, 2] = (codes[:, 1] * 3 + codes[:, 3]) % 10
    frame = pd.DataFrame(codes, columns=[f"x{i}" for i in range(12)]).astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        dag = bnfs.learn(frame, max_time=max_time, progress=False)
    learning = dag.learning
    assert learning["arguments"]["max_time"] == max_time
    if max_time == 0.0:
        assert learning["stopped_early"] == "max_time reached"
    assert learning["stopped_early"] in (None, "max_time reached")
    value = bnfs.score(dag, frame, "bde", prior="vsp")
    assert learning["score_value"] == pytest.approx(value, rel=1e-9)


def test_learn_bounds_a_familys_configurations_by_the_rows(monkeypatch):
    """Issue 43: learn's BOSS offers no parent that would give a family more than
    CONFIGURATIONS_PER_ROW parent configurations per row (coil2000's time went to growing
    such families on sparse tables); the bound is recorded."""
    from bnfs.search import automatic

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, (2000, 5))
    codes[:, 4] = codes[:, 0] + codes[:, 1] + codes[:, 2]  # a family of 64 configurations
    frame = pd.DataFrame(codes, columns=[f"x{i}" for i in range(5)]).astype(str)
    configurations = lambda dag, v: math.prod(frame[p].nunique() for p in dag.parents(v))
    free = bnfs.learn(frame, progress=False)
    assert free.learning["arguments"]["max_configurations"] == 2000 * (
        automatic.CONFIGURATIONS_PER_ROW
    )
    assert max(configurations(free, v) for v in free.nodes) == 64
    monkeypatch.setattr(automatic, "CONFIGURATIONS_PER_ROW", 0.01)
    bounded = bnfs.learn(frame, progress=False)
    assert bounded.learning["arguments"]["max_configurations"] == 20
    assert max(configurations(bounded, v) for v in bounded.nodes) == 16
    assert bounded.learning["score_value"] < free.learning["score_value"]


def test_learn_restricts_candidates_on_data_too_wide_to_score_every_pair(monkeypatch):
    from bnfs.search import automatic

    frame = bnfs.datasets.sample("alarm", 500, seed=3)
    assert bnfs.learn(frame).learning["arguments"]["candidates"] is None
    pairs = frame.shape[1] * (frame.shape[1] - 1) / 2 * len(frame)
    monkeypatch.setattr(automatic, "WIDE_WORK", pairs - 1)
    dag = bnfs.learn(frame)
    assert dag.learning["arguments"]["candidates"] == automatic.CANDIDATE_PARTNERS
    assert dag == bnfs.boss(
        frame,
        "bde",
        prior="vsp",
        candidates=automatic.CANDIDATE_PARTNERS,
        max_configurations=automatic.CONFIGURATIONS_PER_ROW * len(frame),
        restarts=automatic.FINAL_BOSS_RESTARTS,
        restart_work=automatic.FINAL_RESTART_WORK,
        progress=False,
    )


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
