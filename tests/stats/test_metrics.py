"""SHD as bnlearn counts it, skeleton and blanket scores, against hand-computed cases."""

import pytest

from bnfs import DAG, PDAG, datasets
from bnfs.stats.metrics import arc_scores, blanket_scores, shd, skeleton_scores

NODES = ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    "learned, true, expected",
    [
        # identical DAGs
        ([("a", "b"), ("b", "c")], [("a", "b"), ("b", "c")], 0),
        # equivalent DAGs (chains) have equal CPDAGs
        ([("b", "a"), ("b", "c")], [("a", "b"), ("b", "c")], 0),
        # one missing edge
        ([("a", "b")], [("a", "b"), ("b", "c")], 1),
        # one extra edge in an otherwise empty graph
        ([("c", "d")], [], 1),
        # collider vs chain: the two CPDAG pairs differ in their marks
        ([("a", "b"), ("c", "b")], [("a", "b"), ("b", "c")], 2),
        # true a->c<-b<-... with d->c; learned c->d (compelled by Meek's rule 1): only the
        # c-d pair differs
        ([("a", "c"), ("b", "c"), ("c", "d")], [("a", "c"), ("b", "c"), ("d", "c")], 1),
        # everything missing
        ([], [("a", "c"), ("b", "c"), ("c", "d")], 3),
    ],
)
def test_shd_hand_computed(learned, true, expected):
    assert shd(DAG(NODES, learned), DAG(NODES, true)) == expected
    assert shd(DAG(NODES, true), DAG(NODES, learned)) == expected


def test_shd_on_pdags_and_errors():
    true = DAG(NODES, [("a", "b"), ("b", "c")])
    assert shd(true.cpdag(), true) == 0
    assert shd(PDAG(NODES, edges=[("a", "b")]), true) == 1
    with pytest.raises(ValueError, match="different nodes"):
        shd(DAG(["a"]), true)
    with pytest.raises(TypeError):
        shd([("a", "b")], true)


def test_shd_of_a_network_with_itself_and_a_perturbation():
    g = datasets.network("alarm")
    assert shd(g, g.copy()) == 0
    h = g.copy()
    u, v = h.arcs[0]
    h.remove_arc(u, v)
    assert 1 <= shd(h, g) <= 1 + len(g.arcs)  # removing an arc can change other marks


def test_skeleton_and_arc_scores():
    true = DAG(NODES, [("a", "b"), ("b", "c"), ("c", "d")])
    learned = DAG(NODES, [("b", "a"), ("b", "c"), ("a", "d")])
    s = skeleton_scores(learned, true)
    assert (s["tp"], s["fp"], s["fn"]) == (2, 1, 1)
    assert s["precision"] == pytest.approx(2 / 3) and s["f1"] == pytest.approx(2 / 3)
    assert arc_scores(true, true)["f1"] == 1.0


def test_blanket_scores():
    truth = DAG(["t", "a", "b", "c", "d"], [("a", "t"), ("t", "b"), ("c", "b"), ("d", "a")])
    s = blanket_scores(["a", "b", "d"], truth, "t")
    assert (s["tp"], s["fp"], s["fn"]) == (2, 1, 1)
    assert blanket_scores(truth, truth, "t")["f1"] == 1.0
    assert blanket_scores([], truth, "t")["recall"] == 0.0
    with pytest.raises(ValueError, match="target 'zz'"):
        blanket_scores([], truth, "zz")
    with pytest.raises(ValueError, match="not in the true network"):
        blanket_scores(["q"], truth, "t")
    with pytest.raises(TypeError):
        blanket_scores("a", truth, "t")
