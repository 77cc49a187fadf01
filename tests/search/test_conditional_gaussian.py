"""Conditional-Gaussian networks for mixed data: the local scores against direct least
squares, the CG constraint (no continuous parent for a discrete node) in every search,
and hill climbing / tabu search against bnlearn-port's bic-cg."""

import math

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs.models.cg_network import random_cg_network

#: conditional-Gaussian scores in bnfs's variance convention
LOCAL_CG = ("loglik-cg", "bic-cg", "aic-cg")


@pytest.fixture(scope="module")
def mixed():
    net = random_cg_network(6, 8, seed=1)
    return net.sample(1500, seed=3), net


def _direct_loglik(frame, node, parents, bnlearn):
    """Per configuration of the discrete parents, an OLS fit on the continuous ones."""
    discrete = [p for p in parents if frame[p].dtype.name == "category"]
    continuous = [p for p in parents if p not in discrete]
    groups = frame.groupby(discrete, observed=True) if discrete else [((), frame)]
    total = 0.0
    for _, part in groups:
        X = np.column_stack([np.ones(len(part)), part[continuous].to_numpy()])
        y = part[node].to_numpy()
        rss = float(np.sum((y - X @ np.linalg.lstsq(X, y, rcond=None)[0]) ** 2))
        n = len(part)
        s2 = rss / (n - len(continuous) - 1) if bnlearn else rss / n
        total += -n / 2 * math.log(2 * math.pi * s2) - rss / (2 * s2)
    return total


@pytest.mark.kernels
@pytest.mark.parametrize("bnlearn", [False, True])
def test_cg_local_scores_are_per_configuration_regressions(mixed, bnlearn):
    frame, net = mixed
    suffix = "-bnlearn" if bnlearn else ""
    loglik = bnfs.Scorer(frame, "loglik-cg" + suffix)
    bic = bnfs.Scorer(frame, "bic-cg" + suffix)
    checked = 0
    for node in net.dag.nodes:
        if node in net.levels:
            continue
        parents = net.dag.parents(node)
        expected = _direct_loglik(frame, node, parents, bnlearn)
        assert loglik.local(node, parents) == pytest.approx(expected, rel=1e-9)
        q = math.prod(len(frame[p].cat.categories) for p in parents if p in net.levels)
        n_cont = sum(p not in net.levels for p in parents)
        penalty = 0.5 * math.log(len(frame)) * q * (n_cont + 2)
        assert loglik.local(node, parents) - bic.local(node, parents) == pytest.approx(penalty)
        checked += bool(parents)
    assert checked >= 3


@pytest.mark.kernels
def test_a_discrete_node_is_multinomial_given_discrete_parents(mixed):
    frame, net = mixed
    node = next(v for v in net.levels if net.dag.parents(v))
    parents = net.dag.parents(node)
    discrete_only = frame[[node, *parents]].copy()
    # the discrete score of the same family on the discrete columns alone
    expected = bnfs.Scorer(discrete_only, "bic").local(node, parents)
    assert bnfs.Scorer(frame, "bic-cg").local(node, parents) == pytest.approx(expected)


def test_a_discrete_node_with_a_continuous_parent_is_refused(mixed):
    frame, net = mixed
    with pytest.raises(ValueError, match="continuous parent"):
        bnfs.Scorer(frame, "bic-cg").local("d1", ["c1"])
    with pytest.raises(ValueError, match="continuous parent"):
        bnfs.hill_climbing(frame, "bic-cg", whitelist=[("c1", "d1")])


@pytest.mark.kernels
def test_a_small_cg_search_runs_through_the_kernels():
    """Small enough for the pure-Python rerun: a discrete parent shifting a regression."""
    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 400)
    x = rng.normal(size=400)
    y = 1.5 * x + 2.0 * g + rng.normal(size=400)
    h = np.where(rng.random(400) < 0.85, g, 1 - g)
    frame = pd.DataFrame({"g": pd.Categorical(g), "h": pd.Categorical(h), "x": x, "y": y})
    found = bnfs.tabu_search(frame, "bic-cg", tabu=3, progress=False)
    assert {("g", "y"), ("x", "y")} <= set(found.arcs)
    assert {frozenset(e) for e in found.arcs} == {
        frozenset(("g", "y")),
        frozenset(("x", "y")),
        frozenset(("g", "h")),
    }
    # one configuration with too few rows for its regression makes the model singular
    tiny = frame.iloc[:3].assign(g=pd.Categorical([0, 1, 1]), h=pd.Categorical([0, 1, 0]))
    assert bnfs.Scorer(tiny, "loglik-cg").local("y", ["g", "x"]) == -math.inf


def _without_levels(monkeypatch):
    """Score every family from the rows: no per-level statistics."""
    monkeypatch.setattr(
        "bnfs.stats.scores.level_statistics",
        lambda table, arities, kind, weights=None: np.zeros((0, 1, 1)),
    )
    monkeypatch.setattr(
        "bnfs.search._state.level_statistics",
        lambda table, arities, kind, weights=None: np.zeros((0, 1, 1)),
    )


@pytest.mark.kernels
@pytest.mark.parametrize("score", ["bic-cg", "loglik-cg-bnlearn"])
def test_families_with_one_discrete_parent_score_the_same_from_level_statistics(
    mixed, score, monkeypatch
):
    # the regressions within the levels of one discrete parent, from the levels' scatter
    # matrices (Cholesky), equal those from the rows (least squares on raw moments)
    frame, net = mixed
    frame = frame.copy()
    # a level with fewer rows than coefficients (singular), and an unobserved one
    frame["d1"] = frame["d1"].cat.add_categories(["never"])
    few = pd.Categorical(np.where(np.arange(len(frame)) < 3, "rare", "common"))
    frame["few"] = few
    continuous = [v for v in frame.columns if frame[v].dtype.kind == "f"]
    discrete = [v for v in frame.columns if v not in continuous]
    rng = np.random.default_rng(2)
    families = []
    for _ in range(40):
        node = str(rng.choice(continuous))
        others = [v for v in continuous if v != node]
        parents = [str(rng.choice(discrete)), *rng.choice(others, rng.integers(0, 5), False)]
        families.append((node, parents))
    families.append(("c1", ["few", "c2", "c3", "c4"]))
    with_levels = [bnfs.Scorer(frame, score).local(n, p) for n, p in families]
    _without_levels(monkeypatch)
    from_rows = [bnfs.Scorer(frame, score).local(n, p) for n, p in families]
    assert with_levels[-1] == from_rows[-1] == -math.inf
    assert with_levels == pytest.approx(from_rows, rel=1e-10)


def test_boss_finds_the_same_mixed_network_from_level_statistics(mixed, monkeypatch):
    frame, _ = mixed
    fast = bnfs.boss(frame, "bic-cg", seed=0)
    _without_levels(monkeypatch)
    slow = bnfs.boss(frame, "bic-cg", seed=0)
    assert set(fast.arcs) == set(slow.arcs) and len(fast.arcs) > 5
    assert fast.learning["score_value"] == pytest.approx(slow.learning["score_value"])


def test_scores_are_checked_against_the_kind_of_data(mixed):
    frame, _ = mixed
    with pytest.raises(ValueError, match="mixed discrete and continuous"):
        bnfs.Scorer(frame, "bde")
    discrete = frame.select_dtypes("category")
    with pytest.raises(ValueError, match="discrete"):
        bnfs.Scorer(discrete, "bic-cg")
    # "bic" means bic-cg on mixed data
    assert bnfs.Scorer(frame, "bic").score == "bic-cg"


@pytest.mark.parametrize("search", [bnfs.hill_climbing, bnfs.tabu_search])
def test_searches_keep_the_cg_constraint_and_find_the_network(mixed, search):
    frame, net = mixed
    dag = search(frame, "bic-cg")
    assert not [(u, v) for u, v in dag.arcs if v in net.levels and u not in net.levels]
    empty = bnfs.DAG(list(frame.columns))
    assert bnfs.shd(dag, net.dag) < 0.5 * bnfs.shd(empty, net.dag)
    assert bnfs.score(dag, frame, "bic-cg") >= bnfs.score(net.dag, frame, "bic-cg") - 1e-6


def test_the_mixed_search_does_not_depend_on_column_order(mixed):
    frame, _ = mixed
    shuffled = frame[list(np.random.default_rng(0).permutation(frame.columns))]
    assert set(bnfs.hill_climbing(frame, "bic-cg").arcs) == set(
        bnfs.hill_climbing(shuffled, "bic-cg").arcs
    )


def test_random_cg_networks_are_reproducible():
    a, b = random_cg_network(3, 4, seed=5), random_cg_network(3, 4, seed=5)
    assert a.dag.arcs == b.dag.arcs
    pd.testing.assert_frame_equal(a.sample(50, seed=2), b.sample(50, seed=2))
    assert not a.sample(50, seed=2).equals(a.sample(50, seed=3))
    # discrete nodes only ever have discrete parents
    net = random_cg_network(seed=0)
    assert all(p in net.levels for v in net.levels for p in net.dag.parents(v))


@pytest.mark.parametrize("algorithm", ["hc", "tabu"])
def test_searches_equal_bnlearn_port_bic_cg(algorithm):
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = random_cg_network(seed=1).sample(1000, seed=11)
    search = bnfs.hill_climbing if algorithm == "hc" else bnfs.tabu_search
    ours = search(frame, "bic-cg-bnlearn", scan_order="columns")
    theirs = getattr(pybnlearn, algorithm)(frame, score="bic-cg")
    assert set(ours.arcs) == {tuple(a) for a in pybnlearn.arcs(theirs)}
    assert bnfs.score(ours, frame, "bic-cg-bnlearn") == pytest.approx(
        pybnlearn.score(theirs, frame, type="bic-cg"), rel=1e-9
    )


def test_mi_cg_is_calibrated_under_independence():
    """x discrete and y discrete given a continuous child of x: independent, so about
    alpha of the tests reject (the chain-rule case)."""
    rejected = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        d1, d2 = rng.integers(0, 3, 400), rng.integers(0, 2, 400)
        c = d1 + rng.normal(size=400)
        frame = pd.DataFrame({"d1": pd.Categorical(d1), "d2": pd.Categorical(d2), "c": c})
        rejected += not bnfs.CITest(frame, "mi_cg").independent("d1", "d2", ["c"])
    assert rejected <= 9  # 5% of 60 is 3; a binomial tail well above


def test_mi_cg_matches_bnlearn_where_their_definitions_agree(mixed):
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame, _ = mixed
    test = bnfs.CITest(frame, "mi_cg")
    for x, y, z in [("c1", "c2", []), ("c1", "d2", []), ("c3", "c4", ["d1"])]:
        ours = test(x, y, z)
        theirs = pybnlearn.ci_test(frame, x, y, z or None, test="mi-cg")
        assert ours.df == theirs["parameter"]["df"]
        # ML against bnlearn's unbiased variance: equal to a fraction of a percent
        assert ours.statistic == pytest.approx(theirs["statistic"]["mi-cg"], rel=0.02, abs=0.05)


def test_a_degenerate_fit_claims_no_dependence_as_in_bnlearn():
    """x an exact linear copy of y: the alternative's residual variance is 0 (an infinite
    log-likelihood), and both bnfs and bnlearn report statistic 0, p-value 1."""
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    rng = np.random.default_rng(0)
    y = rng.normal(size=200)
    z = pd.Categorical(rng.choice(["a", "b"], 200))
    for x, dependent in [(2 * y + 1, False), (2 * y + rng.normal(size=200), True)]:
        frame = pd.DataFrame({"x": x, "y": y, "z": z})
        ours = bnfs.CITest(frame, "mi_cg")("x", "y", ["z"])
        theirs = pybnlearn.ci_test(frame, "x", "y", ["z"], test="mi-cg")
        assert ours.df == theirs["parameter"]["df"]
        assert ours.statistic == pytest.approx(theirs["statistic"]["mi-cg"], rel=0.02)
        assert (ours.p_value < 0.01) == dependent == (theirs["p.value"] < 0.01)


def test_constraint_learners_take_mixed_data(mixed):
    frame, net = mixed
    assert bnfs.CITest(frame).test == "mi_cg"  # "g2" on mixed data is the CG likelihood ratio
    found = bnfs.pc_stable(frame)
    assert found.learning["test"] == "mi_cg"
    true_edges = {frozenset(a) for a in net.dag.arcs}
    edges = {frozenset(e) for e in found.skeleton().edges}
    assert len(edges & true_edges) >= 0.7 * len(true_edges)
    assert len(edges - true_edges) <= 3
    target = next(v for v in net.dag.nodes if len(net.dag.markov_blanket(v)) >= 3)
    blanket = set(bnfs.constraint.hiton_mb(frame, target))
    assert len(blanket & set(net.dag.markov_blanket(target))) >= 2
    hybrid = bnfs.mmhc(frame)
    assert not [(u, v) for u, v in hybrid.arcs if v in net.levels and u not in net.levels]


def test_mi_cg_without_a_fittable_configuration_claims_no_dependence():
    """Every configuration of the discrete conditioning variable has two rows: neither model
    can be compared there, so the test has no evidence (p = 1), never a NaN or a 0."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=12),
            "y": rng.normal(size=12),
            "d": pd.Categorical(np.arange(12) % 6),
            "e": pd.Categorical(np.arange(12) % 2),
        }
    )
    test = bnfs.CITest(frame, "mi_cg")
    for x, y in [("x", "y"), ("x", "e")]:
        result = test(x, y, ["d"])
        assert result.p_value == 1.0 and result.independent and result.df == 0


def test_an_exact_fit_in_one_level_is_singular_as_in_bnlearn():
    # a level where y is an exact linear function of x: bnlearn's loglik-cg is -Inf
    # (residual deviation below its MACHINE_TOL), and so is bnfs's, from the level
    # statistics and from the rows alike
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 200)
    x = rng.normal(size=200)
    y = np.where(g == 0, 2 * x + 1, x + rng.normal(size=200))
    frame = pd.DataFrame({"g": pd.Categorical(g), "x": x, "y": y})
    dag = bnfs.DAG(["g", "x", "y"], [("g", "y"), ("x", "y")])
    theirs = pybnlearn.score(pybnlearn.model2network("[g][x][y|g:x]"), frame, type="loglik-cg")
    assert theirs == -math.inf
    assert bnfs.score(dag, frame, "loglik-cg-bnlearn") == -math.inf
    noisy = frame.assign(y=y + 0.1 * rng.normal(size=200))
    ours = bnfs.score(dag, noisy, "loglik-cg-bnlearn")
    expected = pybnlearn.score(pybnlearn.model2network("[g][x][y|g:x]"), noisy, type="loglik-cg")
    assert ours == pytest.approx(expected, rel=1e-9)


@pytest.mark.kernels
@pytest.mark.parametrize(
    "label, levels",
    [
        # as Python, one score from the level statistics covers their path (20 s a case)
        *(pytest.param(label, True, marks=pytest.mark.kernels_heavy) for label in LOCAL_CG),
        ("bic-cg-bnlearn", True),
        *((label, False) for label in (*LOCAL_CG, "bic-cg-bnlearn")),
    ],
)
def test_a_mixed_row_of_weight_k_scores_as_k_rows(mixed, label, levels, monkeypatch):
    """Weighted mixed rows (structural EM's expected statistics) against the rows repeated,
    from the per-level statistics and from the rows; weights of one against none."""
    if not levels:
        monkeypatch.setattr(bnfs.stats.scores, "LEVEL_ENTRIES", 0)
    frame, _ = mixed
    counts = np.random.default_rng(0).integers(0, 4, len(frame))
    counts[:50] = 1  # every level kept by the repeated rows
    data = bnfs.Dataset(frame)
    repeated = data.take(np.repeat(np.arange(len(frame)), counts))
    weighted = data.with_weights(counts.astype(float))
    ones = data.with_weights(np.ones(len(frame)))
    rng = np.random.default_rng(1)
    discrete = [c for c in frame.columns if c.startswith("d")]
    checked = 0
    for _ in range(40):
        node = str(rng.choice(frame.columns))
        pool = discrete if node in discrete else list(frame.columns)
        pool = [c for c in pool if c != node]
        parents = list(rng.choice(pool, int(rng.integers(0, 4)), replace=False))
        expected = bnfs.Scorer(repeated, label).local(node, parents)
        got = bnfs.Scorer(weighted, label).local(node, parents)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-6)
        plain = bnfs.Scorer(data, label).local(node, parents)
        assert bnfs.Scorer(ones, label).local(node, parents) == pytest.approx(plain, rel=1e-12)
        checked += np.isfinite(expected)
    assert checked > 30


def test_searches_on_weighted_mixed_rows_find_the_graph_of_the_repeated_rows(mixed):
    frame, _ = mixed
    counts = np.random.default_rng(2).integers(1, 4, len(frame))
    data = bnfs.Dataset(frame)
    repeated = data.take(np.repeat(np.arange(len(frame)), counts))
    weighted = data.with_weights(counts.astype(float))
    for search in (bnfs.hill_climbing, bnfs.boss):
        ours = search(weighted, "bic-cg", progress=False)
        assert set(ours.arcs) == set(search(repeated, "bic-cg", progress=False).arcs)
        assert len(ours.arcs) >= 5
