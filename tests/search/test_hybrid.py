"""Restrict-maximise hybrids: the search adds arcs only along the restrict phase's skeleton
(whitelisted arcs aside), and the per-node searches share one test cache."""

import numpy as np
import pytest

import bnfs
from bnfs import datasets
from bnfs.stats.citests import CITest


@pytest.fixture(scope="module")
def insurance():
    frame = datasets.sample("insurance", 3000, seed=4)
    return frame[[c for c in frame.columns if frame[c].nunique() > 1]]  # Theft may not vary


def _pairs(graph) -> set[frozenset]:
    return {frozenset(p) for p in graph.arcs + graph.edges}


@pytest.mark.parametrize(
    "restrict, maximize",
    [("pc_stable", "hc"), ("pc_stable", "tabu"), ("iamb", "hc"), ("tpda", "tabu")],
)
def test_arcs_follow_the_restrict_skeleton(insurance, restrict, maximize):
    white, black = [("Age", "Mileage")], [("Age", "DrivingSkill"), ("DrivQuality", "Accident")]
    skeleton = _pairs(
        getattr(bnfs, restrict)(insurance, progress=False, whitelist=white, blacklist=black)
    )  # the lists reach it too
    dag = bnfs.rsmax2(insurance, restrict, maximize, whitelist=white, blacklist=black)
    assert _pairs(dag) <= skeleton and frozenset(white[0]) in skeleton
    assert set(white) <= set(dag.arcs) and not set(black) & set(dag.arcs)
    assert dag.learning["skeleton_edges"] == len(skeleton) and dag.learning["n_tests"] > 0
    unrestricted = (bnfs.hill_climbing if maximize == "hc" else bnfs.tabu_search)(
        insurance, whitelist=white, blacklist=black, progress=False
    )
    assert dag.learning["score_value"] <= unrestricted.learning["score_value"] + 1e-6


def test_mmhc_is_mmpc_then_hill_climbing_with_shared_tests(insurance, monkeypatch):
    monkeypatch.setattr(CITest, "batched", False)  # the cache serves the per-test path
    dag = bnfs.mmhc(insurance)
    found = {v: set(bnfs.constraint.mmpc(insurance, v)) for v in insurance.columns}
    skeleton = {frozenset((u, v)) for v in found for u in found[v] if v in found[u]}
    assert _pairs(dag) <= skeleton and dag.learning["algorithm"] == "mmhc"
    separate = 0
    for v in insurance.columns:  # one test cache per node: tests repeated across nodes
        tester = CITest(insurance)
        bnfs.constraint.mmpc(tester, v)
        separate += tester.n_tests
    assert dag.learning["n_tests"] < separate


@pytest.mark.parametrize("restrict", ["pc_stable", "mmpc", "hpc", "grow_shrink"])
def test_the_hybrid_ignores_column_order(insurance, restrict):
    columns = list(insurance.columns)
    np.random.default_rng(3).shuffle(columns)
    assert set(bnfs.rsmax2(insurance[columns], restrict, "tabu").arcs) == set(
        bnfs.rsmax2(insurance, restrict, "tabu").arcs
    )


def test_h2pc_is_hpc_then_hill_climbing(insurance):
    dag = bnfs.h2pc(insurance)
    found = {v: set(bnfs.constraint.hpc(insurance, v)) for v in insurance.columns}
    skeleton = {frozenset((u, v)) for v in found for u in found[v] if v in found[u]}
    assert _pairs(dag) <= skeleton and dag.learning["algorithm"] == "h2pc"
    assert dag.learning["skeleton_edges"] == len(skeleton)


def test_hpc_finds_the_neighbourhood_from_an_oracle():
    truth = datasets.network("alarm")
    oracle = bnfs.DSeparation(truth)
    for v in truth.nodes[::4]:
        assert bnfs.constraint.hpc(oracle, v) == [
            u for u in truth.nodes if u in truth.neighbours(v)
        ], v


@pytest.mark.parametrize(
    "network, rows, node, missed",
    [
        ("asia", 2000, "lung", "smoke"),
        ("child", 1000, "HypDistrib", "LowerBodyO2"),
        ("insurance", 1000, "DrivQuality", "Accident"),
    ],
)
def test_hpc_matches_bnlearn_and_puts_back_what_bnlearn_misses(network, rows, node, missed):
    """bnlearn's false-negative search of its two strongest candidates starts from a set
    holding its own target and can never succeed; bnfs's can (the docstring of hpc)."""
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    from bnfs.constraint._sets import NodeLists
    from bnfs.constraint.hpc import hpc_indices

    frame = datasets.sample(network, rows, seed=3)
    frame = frame[sorted(c for c in frame.columns if frame[c].nunique() > 1)].astype(str)
    factors = frame.astype("category")
    tester = CITest(frame, "mi", 0.05)
    for i, v in enumerate(tester.names):
        theirs = sorted(
            map(str, pybnlearn.learn_nbr(factors, v, method="hpc", test="mi", alpha=0.05))
        )
        assert (
            sorted(tester.names[j] for j in hpc_indices(NodeLists(tester), i, bnlearn=True))
            == theirs
        ), v
    ours = bnfs.constraint.hpc(tester, node)
    assert missed in ours and missed in datasets.network(network).neighbours(node)
    assert missed not in pybnlearn.learn_nbr(factors, node, method="hpc", test="mi", alpha=0.05)


def test_bad_arguments_are_refused_by_name(insurance):
    with pytest.raises(ValueError, match="restrict must be one of"):
        bnfs.rsmax2(insurance, "magic")
    with pytest.raises(ValueError, match="maximize must be one of"):
        bnfs.rsmax2(insurance, "mmpc", "annealing")
    with pytest.raises(ValueError, match="alpha"):
        bnfs.mmhc(insurance, alpha=0)


@pytest.mark.parametrize("restrict", ["mmpc", "hiton_pc", "hpc", "pc_stable"])
def test_a_budget_bounds_both_phases(insurance, restrict):
    """Issue 59: rsmax2 (and so learn's restricted candidates) took no max_time."""
    with pytest.warns(RuntimeWarning, match="rsmax2 stopped early") as caught:
        dag = bnfs.rsmax2(insurance, restrict, max_time=0)
    assert caught[0].filename == __file__
    assert dag.learning["stopped_early"] == "max_time reached in the restrict phase"
    assert dag.n_arcs == 0 and dag.learning["arguments"]["max_time"] == 0
    whole = bnfs.rsmax2(insurance, restrict, max_time=600)
    assert whole.learning["stopped_early"] is None
    assert set(whole.arcs) == set(bnfs.rsmax2(insurance, restrict).arcs)


@pytest.mark.parametrize("restrict", ["grow_shrink", "iamb", "tpda"])
def test_a_restrict_without_a_budget_refuses_one(insurance, restrict):
    with pytest.raises(ValueError, match=f"restrict='{restrict}' takes no time budget"):
        bnfs.rsmax2(insurance, restrict, max_time=5)
