"""TPDA: exact recovery with the oracle, bounded error on sampled data."""

import pytest

import reference
from bnfs import datasets, shd, tpda
from bnfs.stats.citests import CITest, DSeparation
from bnfs.stats.metrics import skeleton_scores


@pytest.mark.parametrize("name", reference.NETWORKS)
def test_oracle_recovers_the_cpdag(name):
    truth = datasets.network(name)
    pdag = tpda(DSeparation(truth))
    assert pdag == truth.cpdag()
    learning = pdag.learning
    assert learning["algorithm"] == "tpda" and learning["n_tests"] > 0
    # drafting builds a forest, thickening only adds, thinning only removes
    assert learning["draft_edges"] <= learning["thickened_edges"]
    assert learning["final_edges"] == len(truth.arcs) <= learning["thickened_edges"]


def test_heuristic_cut_sets_alone_keep_an_i_map():
    truth = datasets.network("child")
    pdag = tpda(DSeparation(truth), max_cond_size=0)  # exact thinning cannot remove anything
    assert set(map(frozenset, truth.arcs)) <= set(map(frozenset, pdag.skeleton().edges))


@pytest.mark.parametrize("name, bound", [("asia", 3), ("alarm", 20)])
def test_sampled_quality(name, bound):
    frame = reference.data(name)
    truth = reference.true_dag(name)
    pdag = tpda(frame)
    assert shd(pdag, truth) <= bound
    assert skeleton_scores(pdag, truth)["precision"] >= 0.95
    with_g2 = tpda(frame, "g2", alpha=0.01)
    assert skeleton_scores(with_g2, truth)["f1"] >= 0.85


def test_threshold_controls_density():
    frame = reference.data("alarm")
    loose = tpda(frame, threshold=0.002)
    strict = tpda(frame, threshold=0.05)
    assert strict.n_arcs + strict.n_edges < loose.n_arcs + loose.n_edges


def test_tpda_errors():
    frame = reference.data("asia")
    with pytest.raises(ValueError, match="alpha"):
        tpda(frame, "g2", alpha=0)
    with pytest.raises(ValueError, match="max_cond_size"):
        tpda(frame, max_cond_size=-1)
    with pytest.raises(ValueError, match="every column is constant"):
        tpda(frame.assign(c="x").iloc[:1])
    tester = CITest(frame, "mi_threshold")
    assert tpda(tester).learning["n_tests"] == tester.n_tests
