"""Pearce-Kelly order and DFS check against networkx on random edit sequences."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bnfs.graphs.order import DFSCycleCheck, OnlineTopologicalOrder

pytestmark = pytest.mark.kernels  # rerun without JIT by kernels/test_without_jit.py


def _assert_valid_order(order: OnlineTopologicalOrder, graph: nx.DiGraph):
    pos = {v: i for i, v in enumerate(order.order())}
    assert sorted(pos) == list(range(order.n_nodes))
    assert all(pos[u] < pos[v] for u, v in graph.edges)


edits = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove", "reverse"]), st.integers(0, 11), st.integers(0, 11)
    ),
    max_size=80,
)


@given(n=st.integers(1, 12), ops=edits)
def test_pk_and_dfs_agree_with_networkx(n, ops):
    pk, dfs = OnlineTopologicalOrder(n, capacity=1), DFSCycleCheck(n, capacity=1)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    for kind, x, y in ops:
        x, y = x % n, y % n
        if kind == "add":
            expected = x != y and (graph.has_edge(x, y) or not nx.has_path(graph, y, x))
            assert pk.try_add(x, y) == expected
            assert dfs.try_add(x, y) == expected
            if expected:
                graph.add_edge(x, y)
        elif kind == "remove":
            expected = graph.has_edge(x, y)
            assert pk.remove(x, y) == expected
            assert dfs.remove(x, y) == expected
            graph.remove_edges_from([(x, y)])
        else:
            expected = graph.has_edge(x, y)
            if expected:
                graph.remove_edge(x, y)
                expected = not nx.has_path(graph, x, y)
                graph.add_edge(*((y, x) if expected else (x, y)))
            assert pk.reverse(x, y) == expected
            assert dfs.reverse(x, y) == expected
        _assert_valid_order(pk, graph)
        assert pk.n_arcs == dfs.n_arcs == graph.number_of_edges()
        assert all(pk.has_arc(u, v) and dfs.has_arc(u, v) for u, v in graph.edges)


@pytest.mark.parametrize("n", [50, 300])
def test_batched_kernels_match_networkx(n):
    """Thousands of random edits run in compiled batches, checked against networkx."""
    rng = np.random.default_rng(n)
    m = 4000
    kinds = rng.choice(3, size=m, p=[0.8, 0.1, 0.1])
    ops = np.column_stack([kinds, rng.integers(0, n, m), rng.integers(0, n, m)])
    pk, dfs = OnlineTopologicalOrder(n, capacity=4), DFSCycleCheck(n, capacity=4)
    got_pk, got_dfs = pk.apply(ops), dfs.apply(ops)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    expected = np.zeros(m, dtype=bool)
    for i, (kind, x, y) in enumerate(ops):
        if kind == 0:
            if x != y and not graph.has_edge(x, y) and not nx.has_path(graph, y, x):
                graph.add_edge(x, y)
                expected[i] = True
        elif kind == 1:
            if graph.has_edge(x, y):
                graph.remove_edge(x, y)
                expected[i] = True
        elif graph.has_edge(x, y):
            graph.remove_edge(x, y)
            if not nx.has_path(graph, x, y):
                graph.add_edge(y, x)
                expected[i] = True
            else:
                graph.add_edge(x, y)
    np.testing.assert_array_equal(got_pk, expected)
    np.testing.assert_array_equal(got_dfs, expected)
    assert expected.sum() > m // 10  # the sequence really edits the graph
    _assert_valid_order(pk, graph)
    assert pk.n_arcs == graph.number_of_edges()


def test_from_arcs_checks_the_order():
    order = OnlineTopologicalOrder.from_arcs(3, [(0, 1), (1, 2)], order=[0, 1, 2])
    assert not order.try_add(2, 0)
    with pytest.raises(ValueError, match="not topological"):
        OnlineTopologicalOrder.from_arcs(3, [(0, 1)], order=[1, 0, 2])
    with pytest.raises(ValueError, match="cycle"):
        OnlineTopologicalOrder.from_arcs(2, [(0, 1), (1, 0)])


def test_bad_nodes_and_ops():
    order = OnlineTopologicalOrder(3)
    with pytest.raises(IndexError):
        order.try_add(0, 3)
    with pytest.raises(ValueError, match="shape"):
        order.apply(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=">= 0"):
        OnlineTopologicalOrder(-1)
    assert not order.try_add(1, 1)


@given(n=st.integers(1, 12), ops=edits)
def test_ordered_reachability_equals_networkx(n, ops):
    """The cycle query of hill climbing: paths found through the Pearce-Kelly order."""
    from bnfs._kernels.order import ordered_reachable

    pk = OnlineTopologicalOrder(n, capacity=1)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    for kind, x, y in ops:
        x, y = x % n, y % n
        if kind != "remove" and pk.try_add(x, y):
            graph.add_edge(x, y)
    pos, _, heads, arcs, _, mark, work = pk._state()
    for source in range(n):
        for target in range(n):
            assert ordered_reachable(pos, heads, arcs, mark, work, source, target) == nx.has_path(
                graph, source, target
            )
    assert not mark.any()
