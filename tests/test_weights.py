"""A row of weight w counts as w rows everywhere (issue 59, item 1): in the CI tests and
every learner built on them, in the hybrids' restrict phase, in fitted parameters and in
held-out likelihoods; weights a routine cannot honour are refused by name, never dropped."""

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import Dataset, datasets
from bnfs.stats.metrics import log_likelihood


def _weighted(network, rows, seed, high=6):
    frame = datasets.sample(network, rows, seed=seed)
    frame = frame.loc[:, frame.nunique() > 1]
    counts = np.random.default_rng(seed).integers(1, high, len(frame))
    repeated = Dataset(frame).take(np.repeat(np.arange(len(frame)), counts))
    return Dataset(frame).with_weights(counts.astype(float)), repeated


CASES = [("asia", 300, 0), ("asia", 800, 5), ("child", 500, 2)]


@pytest.mark.parametrize("network, rows, seed", CASES)
@pytest.mark.parametrize("test", ["g2", "x2", "mi_adf", "mi_threshold"])
def test_a_ci_test_counts_a_row_of_weight_w_as_w_rows(network, rows, seed, test):
    weighted, repeated = _weighted(network, rows, seed)
    ours, theirs = bnfs.CITest(weighted, test), bnfs.CITest(repeated, test)
    names = list(weighted.names)
    rng = np.random.default_rng(seed)
    for _ in range(8):
        x, y, *z = rng.choice(names, int(rng.integers(2, 5)), replace=False)
        a, b = ours(x, y, z), theirs(x, y, z)
        assert a.statistic == pytest.approx(b.statistic, rel=1e-12, abs=1e-12)
        assert a.df == b.df
    unweighted = bnfs.CITest(Dataset(datasets.sample(network, rows, seed=seed)), test)
    assert any(
        ours(x, y, []).statistic != pytest.approx(unweighted(x, y, []).statistic)
        for x, y in zip(names, names[1:])
    )  # the weights change the answer: they are not dropped


@pytest.mark.parametrize("network, rows, seed", CASES[:2])
def test_the_constraint_and_local_learners_see_the_weights(network, rows, seed):
    weighted, repeated = _weighted(network, rows, seed)
    for learner in (bnfs.pc_stable, bnfs.tpda, bnfs.iamb, bnfs.fast_iamb):
        ours, theirs = learner(weighted), learner(repeated)
        assert set(ours.arcs) == set(theirs.arcs), learner.__name__
        assert set(map(frozenset, ours.edges)) == set(map(frozenset, theirs.edges))
    for method in ("hiton_mb", "pcmb", "mmmb", "iamb"):
        target = "either" if network == "asia" else weighted.names[0]
        assert bnfs.markov_blanket(weighted, target, method=method) == bnfs.markov_blanket(
            repeated, target, method=method
        ), method


@pytest.mark.parametrize("restrict", ["mmpc", "pc_stable"])
def test_the_hybrids_restrict_phase_sees_the_weights(restrict):
    weighted, repeated = _weighted("asia", 600, 3)
    ours = bnfs.rsmax2(weighted, restrict, score="bde")
    theirs = bnfs.rsmax2(repeated, restrict, score="bde")
    assert ours.learning["skeleton_edges"] == theirs.learning["skeleton_edges"]
    assert set(ours.arcs) == set(theirs.arcs)


def test_fractional_weights_are_refused_where_rows_are_counted():
    frame = datasets.sample("asia", 300, seed=1)
    data = Dataset(frame).with_weights(np.full(len(frame), 0.5))
    for call in (
        lambda: bnfs.CITest(data, "g2"),
        lambda: bnfs.pc_stable(data),
        lambda: bnfs.markov_blanket(data, "either", method="hiton_mb"),
        lambda: bnfs.mmhc(data),
    ):
        with pytest.raises(ValueError, match="whole-number row weights.*row 0 has weight 0.5"):
            call()
    assert bnfs.hill_climbing(data, "bde").n_arcs >= 0  # the score searches take any weights


@pytest.mark.parametrize("method", ["mle", "bayes"])
def test_fit_counts_the_weights(method):
    weighted, repeated = _weighted("asia", 400, 4)
    dag = datasets.network("asia")
    ours, theirs = bnfs.fit(dag, weighted, method), bnfs.fit(dag, repeated, method)
    for v in dag.nodes:
        np.testing.assert_allclose(ours.cpts[v], theirs.cpts[v], rtol=1e-12)
    # fractional weights: the tables are the weighted frequencies
    frame = datasets.sample("asia", 400, seed=4)
    w = np.random.default_rng(0).uniform(0.1, 2.0, len(frame))
    tables = bnfs.fit(dag, Dataset(frame).with_weights(w)).cpts["smoke"]
    share = w[(frame["smoke"] == "yes").to_numpy()].sum() / w.sum()
    states = list(bnfs.fit(dag, Dataset(frame)).states["smoke"])
    assert tables[states.index("yes")] == pytest.approx(share, rel=1e-12)


def test_fit_of_a_mixed_network_repeats_whole_weights_and_refuses_fractions():
    rng = np.random.default_rng(0)
    n = 300
    group = rng.choice(["a", "b"], n)
    x = rng.normal(size=n) + (group == "a")
    frame = pd.DataFrame({"group": group, "x": x, "y": 2 * x + rng.normal(size=n)})
    counts = rng.integers(1, 4, n)
    dag = bnfs.DAG(["group", "x", "y"], arcs=[("group", "x"), ("x", "y")])
    ours = bnfs.fit(dag, Dataset(frame).with_weights(counts.astype(float)))
    theirs = bnfs.fit(dag, Dataset(frame).take(np.repeat(np.arange(n), counts)))
    for v in ("x", "y"):
        np.testing.assert_allclose(ours.regressions[v], theirs.regressions[v], rtol=1e-10)
    with pytest.raises(ValueError, match="fit on continuous columns.*whole-number"):
        bnfs.fit(dag, Dataset(frame).with_weights(np.full(n, 1.5)))


def test_held_out_likelihood_counts_the_weights():
    weighted, repeated = _weighted("asia", 600, 6)
    dag = datasets.network("asia")
    train_w, test_w = weighted.take(np.arange(400)), weighted.take(np.arange(400, 600))
    counts = weighted.weights.astype(int)
    train_r = weighted.take(np.repeat(np.arange(400), counts[:400]))
    test_r = weighted.take(np.repeat(np.arange(400, 600), counts[400:]))
    train_r.weights = test_r.weights = None
    assert log_likelihood(dag, train_w, test_w) == pytest.approx(
        log_likelihood(dag, train_r, test_r), rel=1e-12
    )


@pytest.mark.parametrize(
    "weights, error, match",
    [
        (np.full(50, 1e308), ValueError, "finite positive total"),
        (np.ones(50) + 1j, TypeError, "real numbers"),
        (np.array([1 + 1j] * 50, dtype=object), TypeError, "real numbers"),
    ],
)
def test_weights_whose_total_or_type_cannot_be_used_are_refused(weights, error, match):
    data = Dataset(datasets.sample("asia", 50, seed=0))
    with pytest.raises(error, match=match):
        data.with_weights(weights)


@pytest.mark.parametrize("score", ["bds", "bde"])
@pytest.mark.parametrize("iss", [5e-324, 1e-300, 1e-11])
def test_an_iss_that_underflows_is_refused(score, iss):
    frame = datasets.sample("asia", 200, seed=0)
    with pytest.raises(ValueError, match="iss must be at least"):
        bnfs.hill_climbing(frame, score, iss=iss)
    with pytest.raises(ValueError, match="iss must be at least"):
        bnfs.score(datasets.network("asia"), frame, score, iss=iss)
    assert np.isfinite(bnfs.hill_climbing(frame, score, iss=1e-10).learning["score_value"])


@pytest.mark.parametrize("search", ["hill_climbing", "tabu_search", "boss", "grasp"])
@pytest.mark.parametrize("restarts", [10**12, 100_001])
def test_restarts_are_bounded(search, restarts):
    frame = datasets.sample("asia", 100, seed=0)
    with pytest.raises(ValueError, match="restarts=.* is more than the 100,000"):
        getattr(bnfs, search)(frame, restarts=restarts)
