"""TPDA: exact recovery with the oracle, bounded error on sampled data."""

import pytest

import bnfs
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


@pytest.mark.parametrize("repeat", [1, 2, 3])
def test_a_pdag_without_an_extension_becomes_the_closest_class(repeat):
    """Issue 59, item 8: on child (1,000 rows, seed 5), repeated or not, TPDA's colliders
    conflict and the PDAG had no consistent extension: .cpdag() and .to_dag() raised."""
    import pandas as pd

    frame = datasets.sample("child", 1000, seed=5)
    pdag = bnfs.tpda(pd.concat([frame] * repeat, ignore_index=True))
    assert pdag.learning["no_extension"] and pdag.learning["colliders_added"] >= 0
    dag = pdag.to_dag()
    assert pdag.cpdag().edges == pdag.edges and set(dag.arcs) >= set(pdag.arcs)


def test_a_chordless_cycle_without_colliders_is_given_one():
    from bnfs.constraint._orient import orient

    names = ["a", "b", "c", "d"]
    cycle = [{1, 3}, {0, 2}, {1, 3}, {0, 2}]  # a - b - c - d - a, no collider found
    pdag = orient(names, cycle, [], {})
    assert pdag.learning["no_extension"] and pdag.learning["colliders_added"] == 1
    assert len(pdag.to_dag().v_structures()) == 1
    oracle = bnfs.DSeparation(
        bnfs.DAG(names, arcs=[("a", "b"), ("b", "c"), ("a", "d"), ("d", "c")])
    )
    assert bnfs.shd(bnfs.tpda(oracle), oracle.dag.cpdag()) == 0  # an extendable one is kept
