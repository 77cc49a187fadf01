"""DAG and PDAG: invariants, blankets, CPDAGs and consistent extensions."""

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bnfs import DAG, PDAG, datasets
from strategies import equivalent_dag, random_dags


def test_edits_keep_the_graph_acyclic():
    g = DAG(["a", "b", "c"], [("a", "b")])
    g.add_arc("b", "c")
    with pytest.raises(ValueError, match="directed cycle"):
        g.add_arc("c", "a")
    assert g.arcs == [("a", "b"), ("b", "c")]
    g.add_arc("a", "c")
    with pytest.raises(ValueError, match="directed cycle"):
        g.reverse_arc("a", "c")  # c -> a closes a -> b -> c -> a
    assert g.has_arc("a", "c") and not g.has_arc("c", "a")  # failed reversal restored
    g.remove_arc("a", "c")
    g.reverse_arc("a", "b")
    assert g.has_arc("b", "a")
    with pytest.raises(ValueError, match="no arc"):
        g.remove_arc("a", "b")
    with pytest.raises(ValueError, match="unknown node 'zz'"):
        g.add_arc("a", "zz")
    with pytest.raises(ValueError, match="self-loop"):
        g.add_arc("a", "a")
    with pytest.raises(TypeError, match="unhashable"):
        g.parents(["a"])
    with pytest.raises(ValueError, match="directed cycle"):
        DAG(["a", "b"], [("a", "b"), ("b", "a")])
    with pytest.raises(TypeError, match="strings"):
        DAG([1, 2])
    with pytest.raises(ValueError, match="duplicate"):
        DAG(["a", "a"])


@given(random_dags(), st.data())
def test_order_and_queries_are_consistent(g, data):
    order = g.topological_order()
    pos = {v: i for i, v in enumerate(order)}
    assert all(pos[u] < pos[v] for u, v in g.arcs)
    reference = g.to_networkx()
    for v in g.nodes:
        assert g.parents(v) == sorted(reference.predecessors(v), key=g.nodes.index)
        assert set(g.children(v)) == set(reference.successors(v))
    # random extra insertions: accepted exactly when networkx stays acyclic
    for _ in range(5):
        u, v = data.draw(st.sampled_from(g.nodes)), data.draw(st.sampled_from(g.nodes))
        ok = u != v and not nx.has_path(reference, v, u)
        if ok:
            g.add_arc(u, v)
            reference.add_edge(u, v)
        else:
            with pytest.raises(ValueError):
                g.add_arc(u, v)
    assert nx.is_directed_acyclic_graph(g.to_networkx())


@pytest.mark.parametrize("name", datasets.available_networks())
def test_markov_blanket_equals_moral_neighbours(name):
    g = datasets.network(name)
    moral = nx.moral_graph(g.to_networkx())
    for v in g.nodes:
        assert set(g.markov_blanket(v)) == set(moral.neighbors(v)), v
    assert g.cpdag().markov_blanket(g.nodes[0]) == g.markov_blanket(g.nodes[0])


def _equivalent_by_brute_force(g: DAG) -> dict:
    """Orientation of each skeleton pair in every DAG of g's class (small graphs)."""
    skeleton = [tuple(sorted(a)) for a in g.arcs]
    vs = {(a, b, c) if a < c else (c, b, a) for a, b, c in g.v_structures()}
    seen = {pair: set() for pair in skeleton}
    for flips in itertools.product([False, True], repeat=len(skeleton)):
        arcs = [(b, a) if f else (a, b) for (a, b), f in zip(skeleton, flips)]
        graph = nx.DiGraph(arcs)
        graph.add_nodes_from(g.nodes)
        if not nx.is_directed_acyclic_graph(graph):
            continue
        other = DAG(g.nodes, arcs)
        if {(a, b, c) if a < c else (c, b, a) for a, b, c in other.v_structures()} != vs:
            continue
        for (a, b), f in zip(skeleton, flips):
            seen[(a, b)].add(f)
    return seen


@given(random_dags(max_nodes=6))
def test_cpdag_matches_brute_force_equivalence_class(g):
    cpdag = g.cpdag()
    seen = _equivalent_by_brute_force(g)
    compelled = {tuple(sorted(a)) for a in cpdag.arcs}
    reversible = {tuple(sorted(e)) for e in cpdag.edges}
    for pair, flips in seen.items():
        assert (pair in compelled) == (len(flips) == 1)
        assert (pair in reversible) == (len(flips) == 2)
    assert set(cpdag.arcs) <= set(g.arcs)


@given(random_dags(), st.data())
def test_equivalent_dags_share_their_cpdag(g, data):
    """Reversing a covered arc (pa(y) = pa(x) + x) gives a Markov-equivalent DAG."""
    assert equivalent_dag(g, data).cpdag() == g.cpdag()


@given(random_dags())
def test_to_dag_is_a_consistent_extension(g):
    cpdag = g.cpdag()
    ext = cpdag.to_dag()
    assert ext.cpdag() == cpdag
    assert set(cpdag.arcs) <= set(ext.arcs)


def test_pdag_without_extension_raises_and_edits():
    square = PDAG(["a", "b", "c", "d"], edges=[("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")])
    with pytest.raises(ValueError, match="no consistent extension"):
        square.to_dag()
    p = PDAG(["a", "b", "c"], arcs=[("a", "b")], edges=[("b", "c")])
    assert p.undirected("b") == ["c"] and p.neighbours("b") == ["a", "c"]
    with pytest.raises(ValueError, match="already joined"):
        p.add_arc("c", "b")
    p.orient("b", "c")
    assert p.is_directed and p.arcs == [("a", "b"), ("b", "c")]
    with pytest.raises(ValueError, match="directed cycle"):
        p.add_arc("c", "a")
    with pytest.raises(ValueError, match="no edge"):
        p.remove_edge("a", "c")


def test_skeleton_and_adjacency():
    g = DAG(["a", "b", "c"], [("a", "b"), ("c", "b")])
    assert g.skeleton().edges == [("a", "b"), ("b", "c")]
    mat = g.adjacency_matrix(sparse=False)
    assert mat.tolist() == [[0, 1, 0], [0, 0, 0], [0, 1, 0]]
    assert g.v_structures() == [("a", "b", "c")]


def test_twenty_thousand_nodes():
    """Graphs of 20,000 nodes build, edit and answer queries without dense matrices."""
    n = 20_000
    rng = np.random.default_rng(0)
    nodes = [f"x{i}" for i in range(n)]
    child = rng.integers(1, n, 40_000)
    parent = (rng.random(40_000) * child).astype(int)
    g = DAG(nodes, zip([nodes[i] for i in parent], [nodes[i] for i in child]))
    assert g.n_arcs == len({(p, c) for p, c in zip(parent, child)})
    with pytest.raises(ValueError, match="cycle"):
        g.add_arc(nodes[int(child[0])], nodes[int(parent[0])])
    g.add_arc(nodes[0], nodes[-1])
    cpdag = g.cpdag()
    assert cpdag.n_arcs + cpdag.n_edges == g.n_arcs
    assert set(g.markov_blanket(nodes[5])) == set(cpdag.markov_blanket(nodes[5]))


def test_subgraph_keeps_arcs_inside():
    g = DAG(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "d")])
    sub = g.subgraph(["a", "b", "d"])
    assert sub.nodes == ("a", "b", "d") and sub.arcs == [("a", "b")]
    with pytest.raises(ValueError, match="unknown node"):
        g.subgraph(["a", "zz"])


def test_one_interface_for_dag_and_pdag():
    """The same names mean the same things on both classes: neighbours are every adjacent
    node, undirected ones are listed apart (none in a DAG), blankets by role."""
    dag = DAG(["a", "b", "c", "d"], [("a", "c"), ("b", "c"), ("c", "d")])
    pdag = PDAG(["a", "b", "c", "d"], arcs=[("a", "c"), ("b", "c")], edges=[("c", "d")])
    for graph in (dag, pdag):
        assert graph.neighbours("c") == ["a", "b", "d"]
        assert graph.is_adjacent("c", "d") and not graph.is_adjacent("a", "b")
        assert set(graph.markov_blanket("a")) == {"b", "c"}
    assert dag.undirected("c") == [] and dag.edges == [] and dag.n_edges == 0
    assert dag.is_directed and not dag.has_edge("c", "d")
    assert pdag.undirected("c") == ["d"] and pdag.edges == [("c", "d")] and pdag.n_edges == 1
    assert dag.blanket_parts("c") == {"parents": ["a", "b"], "children": ["d"], "spouses": []}
    assert pdag.blanket_parts("c") == {
        "parents": ["a", "b"],
        "children": [],
        "undirected": ["d"],
        "spouses": [],
    }
    for name in (
        "neighbours",
        "undirected",
        "blanket_parts",
        "edges",
        "n_edges",
        "is_adjacent",
        "has_edge",
        "is_directed",
    ):
        assert hasattr(DAG, name) and hasattr(PDAG, name), name


def test_the_blanket_listing_says_when_a_spouse_has_another_role():
    dag = DAG(["t", "p", "c", "s"], [("p", "t"), ("p", "c"), ("t", "c"), ("s", "c")])
    assert dag.blanket_parts("t")["spouses"] == ["p", "s"]  # the plain sets stay
    assert dag.blanket_listing("t") == {
        "parents": ["p"],
        "children": ["c"],
        "spouses": ["p (also a parent)", "s"],
    }
    pdag = PDAG(["t", "n", "c"], arcs=[("t", "c"), ("n", "c")], edges=[("t", "n")])
    assert pdag.blanket_listing("t")["spouses"] == ["n (also a neighbour)"]
