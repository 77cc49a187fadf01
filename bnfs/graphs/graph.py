"""DAG and PDAG: the one result type every bnfs learner returns.

Nodes are strings; the structure is kept as adjacency sets over node indices (O(n + arcs)
memory, so 20,000-node graphs are cheap) plus a Pearce-Kelly online topological order
(:class:`bnfs.graphs.order.OnlineTopologicalOrder`) that rejects any arc closing a directed cycle.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

from bnfs.graphs._graph_base import GraphBase

__all__ = ["DAG", "PDAG"]


class DAG(GraphBase):
    """A directed acyclic graph over named nodes.

    Parameters
    ----------
    nodes : iterable of str
        Node names, unique.
    arcs : iterable of (str, str), optional
        Arcs ``(parent, child)``.
    learning : dict, optional
        Provenance: algorithm, arguments, score or test, counts of score evaluations or tests.

    Raises
    ------
    ValueError
        Unknown or duplicate nodes, self-loops, arcs forming a directed cycle.
    TypeError
        Non-string node names.

    Examples
    --------
    >>> g = DAG(["a", "b", "c"], arcs=[("a", "b")])
    >>> g.add_arc("b", "c")
    >>> g.add_arc("c", "a")
    Traceback (most recent call last):
    ...
    ValueError: arc 'c' -> 'a' would create a directed cycle
    >>> g.markov_blanket("a"), g.topological_order()
    (['b'], ['a', 'b', 'c'])
    """

    def __init__(
        self,
        nodes: Iterable[str],
        arcs: Iterable[tuple[str, str]] = (),
        learning: dict | None = None,
    ):
        super().__init__(nodes, learning)
        self._bulk_arcs(arcs)

    def __repr__(self) -> str:
        return f"DAG({self.n_nodes} nodes, {self.n_arcs} arcs)"

    def __eq__(self, other) -> bool:
        if not isinstance(other, DAG):
            return NotImplemented
        return set(self._nodes) == set(other._nodes) and set(self.arcs) == set(other.arcs)

    __hash__ = None  # mutable

    def copy(self) -> DAG:
        """An independent copy (the node list is shared, being immutable)."""
        new = DAG.__new__(DAG)
        new._nodes, new._index = self._nodes, self._index
        self._copy_into(new)
        return new

    # -- edits ----------------------------------------------------------------------------

    def to_dag(self) -> DAG:
        """A copy: a DAG is its own consistent extension (as :meth:`PDAG.to_dag`, so callers
        need not ask which one they hold)."""
        return self.copy()

    def add_arc(self, u: str, v: str) -> None:
        """Add ``u -> v``; raises ValueError if it would close a directed cycle (checked
        by the Pearce-Kelly order). Adding an arc that is present does nothing."""
        i, j = self._i(u), self._i(v)
        if i == j:
            raise ValueError(f"self-loop on {u!r}")
        if j not in self._ch[i]:
            self._link_arc(i, j)

    def reverse_arc(self, u: str, v: str) -> None:
        """Turn ``u -> v`` into ``v -> u``; raises ValueError (graph unchanged) when the arc
        is absent or the reversal would close a cycle."""
        self.remove_arc(u, v)
        try:
            self.add_arc(v, u)
        except ValueError:
            self.add_arc(u, v)
            raise

    # -- structure ------------------------------------------------------------------------
    def v_structures(self) -> list[tuple[str, str, str]]:
        """Triples ``(a, c, b)`` with ``a -> c <- b`` and ``a``, ``b`` not adjacent (a < b)."""
        out = []
        for c in range(self.n_nodes):
            pa = sorted(self._pa[c])
            for k, a in enumerate(pa):
                for b in pa[k + 1 :]:
                    if b not in self._ch[a] and a not in self._ch[b]:
                        out.append((self._nodes[a], self._nodes[c], self._nodes[b]))
        return out

    def subgraph(self, nodes: Iterable[str]) -> DAG:
        """The DAG induced on ``nodes`` (arcs between them only), in the given order."""
        keep = [self._nodes[self._i(v)] for v in nodes]
        inside = set(keep)
        return DAG(keep, [(u, v) for u, v in self.arcs if u in inside and v in inside])

    def skeleton(self) -> PDAG:
        """The undirected skeleton, as a PDAG with only edges."""
        return PDAG(self._nodes, edges=self.arcs)

    def cpdag(self) -> PDAG:
        """The completed PDAG (essential graph) of this DAG's Markov equivalence class.

        Arcs are *compelled* (the same in every equivalent DAG), edges are *reversible*.
        Markov-equivalent DAGs give equal CPDAGs.

        Notes
        -----
        Chickering's edge-labelling algorithm: arcs are visited child by child in
        topological order, parents in reverse order; O(arcs x max in-degree).

        References
        ----------
        D. M. Chickering, "A transformational characterization of equivalent Bayesian
        network structures", UAI 1995.

        Examples
        --------
        >>> DAG(["a", "b", "c"], [("a", "b"), ("b", "c")]).cpdag().edges
        [('a', 'b'), ('b', 'c')]
        >>> DAG(["a", "b", "c"], [("a", "c"), ("b", "c")]).cpdag().arcs
        [('a', 'c'), ('b', 'c')]
        """
        order = self._order.order()
        rank = np.empty(self.n_nodes, dtype=np.int64)
        rank[order] = np.arange(self.n_nodes)
        compelled: dict[tuple[int, int], bool] = {}
        for y in order:
            pa_y = self._pa[y]
            for x in sorted(pa_y, key=lambda p: -rank[p]):
                if (x, y) in compelled:
                    continue
                done = False
                for w in self._pa[x]:
                    if compelled.get((w, x)) is True:
                        if w not in pa_y:
                            for p in pa_y:
                                compelled[(p, y)] = True
                            done = True
                            break
                        compelled[(w, y)] = True
                if done:
                    continue
                label = any(z != x and z not in self._pa[x] for z in pa_y)
                for p in pa_y:
                    compelled.setdefault((p, y), label)
                compelled[(x, y)] = label
        nodes = self._nodes
        arcs = [(nodes[u], nodes[v]) for (u, v), c in compelled.items() if c]
        edges = [(nodes[u], nodes[v]) for (u, v), c in compelled.items() if not c]
        return PDAG(nodes, arcs=arcs, edges=edges, learning=self.learning)


class PDAG(GraphBase):
    """A partially directed acyclic graph: arcs (directed) and edges (undirected).

    Constraint-based learners return a PDAG (usually a CPDAG, the class of Markov
    equivalent DAGs); :meth:`to_dag` picks one DAG of the class.

    Parameters
    ----------
    nodes : iterable of str
    arcs : iterable of (str, str), optional
        Directed arcs ``(parent, child)``; they may not form a directed cycle.
    edges : iterable of (str, str), optional
        Undirected edges.
    learning : dict, optional
        Provenance, as for :class:`DAG`.

    Examples
    --------
    >>> p = PDAG(["a", "b", "c"], arcs=[("a", "c")], edges=[("b", "c")])
    >>> p.to_dag().arcs  # c -> b: b -> c would add the v-structure a -> c <- b
    [('c', 'b'), ('a', 'c')]
    """

    def __init__(
        self,
        nodes: Iterable[str],
        arcs: Iterable[tuple[str, str]] = (),
        edges: Iterable[tuple[str, str]] = (),
        learning: dict | None = None,
    ):
        super().__init__(nodes, learning)
        self._nb: list[set[int]] = [set() for _ in range(self.n_nodes)]
        for edge in edges:
            try:
                u, v = edge
            except (TypeError, ValueError):
                raise TypeError(f"an edge must be a pair of nodes, got {edge!r}") from None
            self.add_edge(u, v)
        self._bulk_arcs(arcs)

    def __repr__(self) -> str:
        return f"PDAG({self.n_nodes} nodes, {self.n_arcs} arcs, {self.n_edges} edges)"

    def __eq__(self, other) -> bool:
        if not isinstance(other, PDAG):
            return NotImplemented
        return (
            set(self._nodes) == set(other._nodes)
            and set(self.arcs) == set(other.arcs)
            and {frozenset(e) for e in self.edges} == {frozenset(e) for e in other.edges}
        )

    __hash__ = None

    def copy(self) -> PDAG:
        """An independent copy (the node list is shared, being immutable)."""
        new = PDAG.__new__(PDAG)
        new._nodes, new._index = self._nodes, self._index
        self._copy_into(new)
        new._nb = [set(s) for s in self._nb]
        return new

    def _check_pair_free(self, u: int, v: int) -> None:
        if v in self._nb[u]:
            raise ValueError(
                f"{self._nodes[u]!r} and {self._nodes[v]!r} are already joined "
                "by an undirected edge"
            )
        if u in self._ch[v]:
            raise ValueError(
                f"arc {self._nodes[v]!r} -> {self._nodes[u]!r} is present; "
                "an arc both ways would be a cycle"
            )

    def _nb_of(self, i: int) -> set[int]:
        return self._nb[i]

    # -- edits ----------------------------------------------------------------------------
    def add_edge(self, u: str, v: str) -> None:
        """Add the undirected edge ``u - v`` (not allowed on top of an arc)."""
        i, j = self._i(u), self._i(v)
        if i == j:
            raise ValueError(f"self-loop on {u!r}")
        if j in self._ch[i] or i in self._ch[j]:
            raise ValueError(f"{u!r} and {v!r} are already joined by an arc")
        self._nb[i].add(j)
        self._nb[j].add(i)

    def remove_edge(self, u: str, v: str) -> None:
        """Remove the undirected edge ``u - v``; raises ValueError where there is none."""
        i, j = self._i(u), self._i(v)
        if j not in self._nb[i]:
            raise ValueError(f"no edge {u!r} - {v!r}")
        self._nb[i].discard(j)
        self._nb[j].discard(i)

    def add_arc(self, u: str, v: str) -> None:
        """Add ``u -> v``; raises ValueError on a directed cycle or an existing edge."""
        i, j = self._i(u), self._i(v)
        if i == j:
            raise ValueError(f"self-loop on {u!r}")
        if j in self._ch[i]:
            return
        self._check_pair_free(i, j)
        self._link_arc(i, j)

    def orient(self, u: str, v: str) -> None:
        """Replace the edge ``u - v`` by the arc ``u -> v`` (raises on a cycle, edge kept)."""
        self.remove_edge(u, v)
        try:
            self.add_arc(u, v)
        except ValueError:
            self.add_edge(u, v)
            raise

    # -- structure ------------------------------------------------------------------------
    def skeleton(self) -> PDAG:
        """The undirected graph of every arc and edge."""
        return PDAG(self._nodes, edges=self.arcs + self.edges)

    def to_dag(self) -> DAG:
        """A consistent extension: a DAG with the same skeleton, the same arcs and no new
        v-structures, found by the Dor-Tarsi algorithm.

        Raises
        ------
        ValueError
            When the PDAG has no consistent extension.

        References
        ----------
        D. Dor and M. Tarsi, "A simple algorithm to construct a consistent extension of a
        partially oriented graph", Technical Report R-185, UCLA, 1992.

        Examples
        --------
        >>> PDAG(["a", "b", "c", "d"], edges=[("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")]).to_dag()
        Traceback (most recent call last):
        ...
        ValueError: the PDAG has no consistent extension (stuck at 4 nodes, e.g. ['a', 'b', 'c', 'd'])
        """
        n = self.n_nodes
        pa = [set(s) for s in self._pa]
        ch = [set(s) for s in self._ch]
        nb = [set(s) for s in self._nb]
        adj = [pa[i] | ch[i] | nb[i] for i in range(n)]
        alive = [True] * n
        oriented: list[tuple[int, int]] = []
        pending = deque(range(n))
        queued = [True] * n
        left = n

        def eligible(x: int) -> bool:
            if ch[x]:
                return False
            return all(adj[x] - {y} <= adj[y] for y in nb[x])

        while pending:
            x = pending.popleft()
            queued[x] = False
            if not alive[x] or not eligible(x):
                continue
            for y in nb[x]:
                oriented.append((y, x))
            for y in adj[x]:
                pa[y].discard(x)
                ch[y].discard(x)
                nb[y].discard(x)
                adj[y].discard(x)
                if not queued[y]:
                    queued[y] = True
                    pending.append(y)
            alive[x] = False
            left -= 1
        if left:
            stuck = [self._nodes[i] for i in range(n) if alive[i]]
            raise ValueError(
                f"the PDAG has no consistent extension (stuck at {left} nodes, e.g. {stuck[:5]})"
            )
        nodes = self._nodes
        arcs = self.arcs + [(nodes[u], nodes[v]) for u, v in oriented]
        return DAG(nodes, arcs, learning=self.learning)

    def cpdag(self) -> PDAG:
        """The CPDAG of the class this PDAG represents (via :meth:`to_dag`)."""
        return self.to_dag().cpdag()
