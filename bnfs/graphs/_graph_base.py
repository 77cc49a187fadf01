"""What DAG and PDAG share (:mod:`bnfs.graphs.graph`): node names, the directed adjacency sets,
the Pearce-Kelly online order, the one vocabulary (``parents``, ``children``,
``neighbours``, ``markov_blanket``, ``arcs``, ``edges``) and the export methods."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

import bnfs.graphs.render as render
from bnfs._validate import check_names, near_match
from bnfs.graphs.order import OnlineTopologicalOrder

__all__ = ["GraphBase", "check_nodes", "kahn_order"]


def check_nodes(nodes) -> tuple[str, ...]:
    if isinstance(nodes, (str, bytes)):
        raise TypeError("nodes must be a sequence of names, not a single string")
    return check_names(nodes, "node")


class GraphBase:
    """Shared machinery: names, directed adjacency sets and the online order."""

    def __init__(self, nodes: Iterable[str], learning: dict | None = None):
        self._nodes = check_nodes(nodes)
        self._index = {node: i for i, node in enumerate(self._nodes)}
        n = len(self._nodes)
        self._pa: list[set[int]] = [set() for _ in range(n)]
        self._ch: list[set[int]] = [set() for _ in range(n)]
        self._order = OnlineTopologicalOrder(n)
        self.learning: dict[str, Any] = dict(learning or {})

    # -- names ----------------------------------------------------------------------------
    @property
    def nodes(self) -> tuple[str, ...]:
        return self._nodes

    @property
    def n_nodes(self) -> int:
        return len(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self):
        return iter(self._nodes)

    def __contains__(self, node) -> bool:
        try:
            return node in self._index
        except TypeError:
            return False

    def _i(self, node) -> int:
        try:
            return self._index[node]
        except TypeError:
            raise TypeError(
                f"node must be a string name, got unhashable {type(node).__name__}"
            ) from None
        except KeyError:
            raise ValueError(f"unknown node {node!r}{near_match(node, self._nodes)}") from None

    def _names(self, idx: Iterable[int]) -> list[str]:
        return [self._nodes[i] for i in sorted(idx)]

    # -- directed part --------------------------------------------------------------------
    @property
    def arcs(self) -> list[tuple[str, str]]:
        """Directed arcs ``(parent, child)``, by child then parent in node order."""
        return [
            (self._nodes[u], self._nodes[v])
            for v in range(self.n_nodes)
            for u in sorted(self._pa[v])
        ]

    @property
    def n_arcs(self) -> int:
        return self._order.n_arcs

    def has_arc(self, u: str, v: str) -> bool:
        return self._i(v) in self._ch[self._i(u)]

    def parents(self, node: str) -> list[str]:
        return self._names(self._pa[self._i(node)])

    def children(self, node: str) -> list[str]:
        return self._names(self._ch[self._i(node)])

    def undirected(self, node: str) -> list[str]:
        """Nodes joined to ``node`` by an undirected edge (none in a DAG)."""
        return self._names(self._nb_of(self._i(node)))

    def neighbours(self, node: str) -> list[str]:
        """Every node joined to ``node``: parents, children and undirected neighbours."""
        i = self._i(node)
        return self._names(self._pa[i] | self._ch[i] | self._nb_of(i))

    def blanket_parts(self, node: str) -> dict[str, list[str]]:
        """The Markov blanket of ``node`` by role: ``parents``, ``children``, ``undirected``
        neighbours (only when the graph has undirected edges) and ``spouses``.

        Examples
        --------
        >>> from bnfs import DAG, PDAG
        >>> PDAG(["a", "b", "c"], arcs=[("a", "c"), ("b", "c")]).blanket_parts("a")
        {'parents': [], 'children': ['c'], 'spouses': ['b']}
        """
        parts = {"parents": self.parents(node), "children": self.children(node)}
        if not self.is_directed:
            parts["undirected"] = self.undirected(node)
        parts["spouses"] = self.spouses(node)
        return parts

    def blanket_listing(self, node: str) -> dict[str, list[str]]:
        """:meth:`blanket_parts` for display: a spouse that is also a parent, a child or
        a neighbour of ``node`` says so, e.g. ``"b (also a child)"``.

        Examples
        --------
        >>> from bnfs import DAG
        >>> DAG(["a", "b", "c"], [("a", "b"), ("a", "c"), ("b", "c")]).blanket_listing("a")
        {'parents': [], 'children': ['b', 'c'], 'spouses': ['b (also a child)']}
        """
        parts = self.blanket_parts(node)
        role_of = {}
        for role, singular in (("parents", "parent"), ("children", "child")):
            role_of.update({name: singular for name in parts[role]})
        role_of.update({name: "neighbour" for name in parts.get("undirected", [])})
        parts["spouses"] = [
            f"{name} (also a {role_of[name]})" if name in role_of else name
            for name in parts["spouses"]
        ]
        return parts

    def is_adjacent(self, u: str, v: str) -> bool:
        """Whether an arc (either way) or an undirected edge joins ``u`` and ``v``."""
        i, j = self._i(u), self._i(v)
        return j in self._nb_of(i) or j in self._ch[i] or i in self._ch[j]

    def has_edge(self, u: str, v: str) -> bool:
        """Whether the undirected edge ``u - v`` is present (never in a DAG)."""
        return self._i(v) in self._nb_of(self._i(u))

    def renamed(self, mapping: dict[str, str]):
        """The same graph with nodes renamed by ``mapping`` (others keep their names).

        Examples
        --------
        >>> from bnfs import DAG, PDAG
        >>> DAG(["a", "b"], [("a", "b")]).renamed({"b": "class"}).arcs
        [('a', 'class')]
        """
        new = [mapping.get(v, v) for v in self.nodes]
        if len(set(new)) != len(new):
            raise ValueError(f"renaming by {mapping!r} would give two nodes one name")

        def pairs(links):
            return [(mapping.get(u, u), mapping.get(v, v)) for u, v in links]

        extra = {"edges": pairs(self.edges)} if self.edges else {}
        return type(self)(new, pairs(self.arcs), learning=dict(self.learning), **extra)

    def markov_blanket(self, node: str) -> list[str]:
        """Neighbours (parents, children, undirected) plus the other parents of the node's
        directed children (spouses).

        In a CPDAG this is exact: every member of the class has the same moral graph, and a
        spouse not adjacent to the node forms a v-structure, whose arcs are compelled.

        Examples
        --------
        >>> from bnfs import DAG, PDAG
        >>> DAG(["a", "b", "c", "d"], [("a", "c"), ("b", "c"), ("c", "d")]).markov_blanket("a")
        ['b', 'c']
        """
        i = self._i(node)
        out = self._pa[i] | self._ch[i] | self._nb_of(i)
        for c in self._ch[i]:
            out |= self._pa[c]
        out.discard(i)
        return self._names(out)

    @property
    def edges(self) -> list[tuple[str, str]]:
        """Undirected edges ``(u, v)`` with ``u`` before ``v`` in node order (none in a DAG)."""
        return [(self._nodes[u], self._nodes[v]) for u, v in self._edge_pairs()]

    @property
    def is_directed(self) -> bool:
        """True when there is no undirected edge (always, for a DAG)."""
        return self.n_edges == 0

    def _edge_pairs(self) -> list[tuple[int, int]]:
        return [(u, v) for u in range(self.n_nodes) for v in sorted(self._nb_of(u)) if u < v]

    @property
    def n_edges(self) -> int:
        return sum(len(self._nb_of(u)) for u in range(self.n_nodes)) // 2

    def _nb_of(self, i: int) -> set[int] | frozenset[int]:
        """Undirected neighbours of node ``i`` (a DAG has none)."""
        return frozenset()

    def spouses(self, node: str) -> list[str]:
        """Other parents of the node's children (through directed arcs)."""
        i = self._i(node)
        out: set[int] = set()
        for c in self._ch[i]:
            out |= self._pa[c]
        out.discard(i)
        return self._names(out)

    def _link_arc(self, u: int, v: int) -> None:
        if not self._order.try_add(u, v):
            raise ValueError(
                f"arc {self._nodes[u]!r} -> {self._nodes[v]!r} would create a directed cycle"
            )
        self._pa[v].add(u)
        self._ch[u].add(v)

    def remove_arc(self, u: str, v: str) -> None:
        """Remove ``u -> v``; raises ValueError when it is absent."""
        i, j = self._i(u), self._i(v)
        if j not in self._ch[i]:
            raise ValueError(f"no arc {u!r} -> {v!r}")
        self._unlink_arc(i, j)

    def _unlink_arc(self, u: int, v: int) -> None:
        self._order.remove(u, v)
        self._pa[v].discard(u)
        self._ch[u].discard(v)

    def _bulk_arcs(self, arcs) -> None:
        """Insert many arcs at once: one Kahn sort, then the order is built directly."""
        pairs = []
        for arc in arcs:
            try:
                u, v = arc
            except (TypeError, ValueError):
                raise TypeError(f"an arc must be a (parent, child) pair, got {arc!r}") from None
            u, v = self._i(u), self._i(v)
            if u == v:
                raise ValueError(f"self-loop on {self._nodes[u]!r}")
            if v in self._ch[u]:
                continue
            self._check_pair_free(u, v)
            self._pa[v].add(u)
            self._ch[u].add(v)
            pairs.append((u, v))
        order = kahn_order(self._pa, self._ch)
        if order is None:
            for u, v in pairs:
                self._pa[v].discard(u)
                self._ch[u].discard(v)
            raise ValueError("arcs contain a directed cycle")
        existing = [(u, v) for v in range(self.n_nodes) for u in self._pa[v]]
        self._order = OnlineTopologicalOrder.from_arcs(self.n_nodes, existing, order)

    def _check_pair_free(self, u: int, v: int) -> None:
        """Hook for PDAG: an arc may not sit on an undirected edge."""

    def topological_order(self) -> list[str]:
        """Nodes ordered so that every arc points forward (the Pearce-Kelly order)."""
        return [self._nodes[i] for i in self._order.order()]

    def _copy_into(self, other: GraphBase) -> None:
        other._pa = [set(s) for s in self._pa]
        other._ch = [set(s) for s in self._ch]
        other._order = OnlineTopologicalOrder.from_arcs(
            self.n_nodes,
            [(u, v) for v in range(self.n_nodes) for u in self._pa[v]],
            self._order.order(),
        )
        other.learning = dict(self.learning)

    def adjacency_matrix(self, sparse: bool = True):
        """``A[i, j] = 1`` for an arc ``i -> j`` (and both ways for an undirected edge),
        rows and columns in node order; a scipy CSR matrix unless ``sparse=False``."""
        from scipy.sparse import csr_matrix

        rows, cols = [], []
        for v in range(self.n_nodes):
            for u in self._pa[v]:
                rows.append(u)
                cols.append(v)
        for u, v in self._edge_pairs():
            rows += [u, v]
            cols += [v, u]
        mat = csr_matrix(
            (np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(self.n_nodes, self.n_nodes)
        )
        return mat if sparse else mat.toarray()

    # -- export (implemented in bnfs.graphs.render) -------------------------------------------------
    def to_networkx(self):
        """A :class:`networkx.DiGraph` (undirected edges as arcs both ways)."""
        return render.to_networkx(self)

    def to_dot(self, highlight: str | None = None) -> str:
        """Graphviz DOT text; ``highlight`` colours a node and its Markov blanket."""
        return render.to_dot(self, highlight=highlight)

    def to_json(self) -> str:
        return render.to_json(self)

    def draw(self, path=None, highlight: str | None = None, engine: str = "auto"):
        """Write a picture (SVG/PNG/PDF by extension), or return SVG text without a path;
        see :func:`bnfs.graphs.render.draw`."""
        return render.draw(self, path, highlight=highlight, engine=engine)

    def _repr_html_(self) -> str:
        """What a Jupyter notebook shows: size, how the graph was learned, the picture
        (:func:`bnfs.graphs.report.notebook_html`; over 150 nodes, the adjacency-matrix
        overview). The only rich form a graph offers: Jupyter saves every form an object
        has, and an ``_repr_svg_`` beside this stored each picture twice."""
        from bnfs.graphs.report import notebook_html

        return notebook_html(self)


def kahn_order(pa: Sequence[set[int]], ch: Sequence[set[int]]) -> list[int] | None:
    """Topological order by Kahn's algorithm (smallest index first), None on a cycle."""
    indeg = [len(p) for p in pa]
    queue = deque(i for i, d in enumerate(indeg) if d == 0)
    order = []
    while queue:
        u = queue.popleft()
        order.append(u)
        for v in sorted(ch[u]):
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    return order if len(order) == len(pa) else None
