"""Restrict-maximise hybrids: the search adds arcs only along the restrict phase's skeleton
(whitelisted arcs aside), and the per-node searches share one test cache."""

import numpy as np
import pytest

import bnfs
from bnfs import datasets
from bnfs.citests import CITest


@pytest.fixture(scope="module")
def insurance():
    frame = datasets.sample("insurance", 3000, seed=4)
    return frame[[c for c in frame.columns if frame[c].nunique() > 1]]  # Theft may not vary


def _pairs(graph) -> set[frozenset]:
    return {frozenset(p) for p in graph.arcs + graph.edges}


@pytest.mark.parametrize("restrict, maximize", [("pc_stable", "hc"), ("pc_stable", "tabu"),
                                                ("iamb", "hc"), ("tpda", "tabu")])
def test_arcs_follow_the_restrict_skeleton(insurance, restrict, maximize):
    skeleton = _pairs(getattr(bnfs, restrict)(insurance, progress=False))
    white, black = [("Age", "Mileage")], [("Age", "DrivingSkill"), ("DrivQuality", "Accident")]
    dag = bnfs.rsmax2(insurance, restrict, maximize, whitelist=white, blacklist=black)
    assert _pairs(dag) <= skeleton | {frozenset(white[0])}
    assert set(white) <= set(dag.arcs) and not set(black) & set(dag.arcs)
    assert dag.learning["skeleton_edges"] == len(skeleton) and dag.learning["n_tests"] > 0
    unrestricted = (bnfs.hill_climbing if maximize == "hc" else bnfs.tabu_search)(
        insurance, whitelist=white, blacklist=black, progress=False)
    assert dag.learning["score_value"] <= unrestricted.learning["score_value"] + 1e-6


def test_mmhc_is_mmpc_then_hill_climbing_with_shared_tests(insurance):
    dag = bnfs.mmhc(insurance)
    found = {v: set(bnfs.mmpc(insurance, v)) for v in insurance.columns}
    skeleton = {frozenset((u, v)) for v in found for u in found[v] if v in found[u]}
    assert _pairs(dag) <= skeleton and dag.learning["algorithm"] == "mmhc"
    separate = 0
    for v in insurance.columns:  # one test cache per node: tests repeated across nodes
        tester = CITest(insurance)
        bnfs.mmpc(tester, v)
        separate += tester.n_tests
    assert dag.learning["n_tests"] < separate


def test_the_hybrid_ignores_column_order(insurance):
    columns = list(insurance.columns)
    np.random.default_rng(3).shuffle(columns)
    assert set(bnfs.rsmax2(insurance[columns], "pc_stable", "tabu").arcs) == set(
        bnfs.rsmax2(insurance, "pc_stable", "tabu").arcs)


def test_bad_arguments_are_refused_by_name(insurance):
    with pytest.raises(ValueError, match="restrict must be one of"):
        bnfs.rsmax2(insurance, "magic")
    with pytest.raises(ValueError, match="maximize must be one of"):
        bnfs.rsmax2(insurance, "mmpc", "annealing")
    with pytest.raises(ValueError, match="alpha"):
        bnfs.mmhc(insurance, alpha=0)
