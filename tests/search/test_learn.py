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
