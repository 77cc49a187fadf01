"""What the permutation searches (BOSS, GRaSP) share: the compiled bundles of
:mod:`bnfs._kernels.permutation` built once from a :class:`~bnfs.search._state.SearchState`,
grow-shrink trees that grow (or are emptied) as the kernels ask, orders scored into DAGs, and
random starting orders that keep every required arc pointing forward."""

from __future__ import annotations

import heapq

import numpy as np

from bnfs._kernels import permutation as _p
from bnfs.graph import DAG
from bnfs.search._state import SearchState

__all__ = ["Orders", "TREE_BYTES"]

#: bytes the grow-shrink trees may take before they are emptied and rebuilt as needed
TREE_BYTES = 1 << 30


def _trees(n: int, nodes: int, candidates: int, entries: int) -> _p.Trees:
    """Empty grow-shrink trees with room for ``nodes`` tree nodes, ``candidates`` candidate
    slots and ``entries`` set entries."""
    index = lambda size: np.zeros(size, dtype=np.int64)
    return _p.Trees(
        np.full(n, -1, dtype=np.int64),
        *(index(nodes) for _ in range(6)),
        np.zeros(nodes),
        index(candidates),
        np.full(candidates, -1, dtype=np.int64),
        index(entries),
        index(3),
    )


def _tree_bytes(trees: _p.Trees) -> int:
    return sum(a.nbytes for a in trees)


def _topological(children: list[set[int]], place: np.ndarray) -> np.ndarray | None:
    """The nodes in an order where every arc ``u -> children[u]`` points forward, the ready
    node with the lowest ``place`` first (Kahn's algorithm); None on a directed cycle."""
    indegree = np.zeros(len(children), dtype=np.int64)
    for kids in children:
        for v in kids:
            indegree[v] += 1
    ready = [(int(place[v]), int(v)) for v in np.flatnonzero(indegree == 0)]
    heapq.heapify(ready)
    out = []
    while ready:
        _, v = heapq.heappop(ready)
        out.append(v)
        for w in children[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                heapq.heappush(ready, (int(place[w]), w))
    return np.array(out, dtype=np.int64) if len(out) == len(children) else None


class Orders:
    """The compiled bundles of one permutation search, and orders scored with them."""

    def __init__(self, state: SearchState, prior: np.ndarray):
        n = state.n
        self.state = state
        self.scoring = _p.Scoring(state.codes, state.arities, state.kind, state.iss, prior)
        forbidden = np.zeros((n, n), dtype=np.bool_)
        for u, v in state.forbidden_arcs():
            forbidden[u, v] = True
        required = np.zeros((n, n), dtype=np.bool_)
        for u, v in state.white:
            required[u, v] = True
        self.required = required
        self.knowledge = _p.Knowledge(
            forbidden, required, state.max_parents, state.by_node, state.rank
        )
        self.workspace = _p.Workspace(
            state.cache,
            state.counters,
            state.cfg,
            np.empty_like(state.cfg),
            state.counts,
            np.empty(n + 1, dtype=np.int64),
            np.empty(n + 1, dtype=np.int64),
            np.zeros(n, dtype=np.bool_),
            np.zeros(n, dtype=np.bool_),
            np.empty(n),
            np.empty(n, dtype=np.int64),
            np.empty(n),
            np.empty(n),
            np.empty(n),
        )
        self.trees = _trees(n, 16 * n, 64 * n, 64 * n)
        self.tree_resets = 0

    def _make_room(self) -> None:
        """A kernel found a tree pool full: double the pools, or empty the trees when they
        would pass :data:`TREE_BYTES` (they are rebuilt as the search needs them)."""
        trees = self.trees
        if 2 * _tree_bytes(trees) > TREE_BYTES:
            trees.root[:] = -1
            trees.used[:] = 0
            self.tree_resets += 1
            return
        grown = []
        for field, array in zip(_p.Trees._fields, trees):
            if field in ("root", "used"):
                grown.append(array)
                continue
            bigger = np.full(2 * array.size, -1 if field == "cand_child" else 0, array.dtype)
            bigger[: array.size] = array
            grown.append(bigger)
        self.trees = _p.Trees(*grown)

    def run(self, kernel, *args):
        """``kernel(scoring, knowledge, workspace, trees, *args)``, again after making room
        whenever it reports a full tree pool."""
        while True:
            out = kernel(self.scoring, self.knowledge, self.workspace, self.trees, *args)
            full = (out[0] == _p.TREES_FULL) if isinstance(out, tuple) else np.isnan(out)
            if not full:
                return out
            self._make_room()

    def score(self, order: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """(kernel total, parent table, counts) of the DAG an order gives."""
        n = self.state.n
        parents = np.full((n, max(self.state.max_parents, 1)), -1, dtype=np.int64)
        npar = np.zeros(n, dtype=np.int64)
        scores = np.empty(n)
        total = self.run(_p.order_parents, order, parents, npar, scores)
        return total, parents, npar

    def local(self, node: str, parents: list[str]) -> float:
        """The local score (with the prior) of a node and parents given by name."""
        state = self.state
        index = sorted((state.index[p] for p in parents), key=lambda u: state.rank[u])
        return _p.local_score(
            self.scoring, self.workspace, state.index[node], np.array(index, dtype=np.int64)
        )

    def dag(self, parents: np.ndarray, npar: np.ndarray, learning: dict | None = None) -> DAG:
        """The DAG of a parent table (rows of ``parents``, counts ``npar``)."""
        names = self.state.names
        return DAG(
            names,
            [(names[int(u)], names[v]) for v in range(self.state.n) for u in parents[v, : npar[v]]],
            learning=learning,
        )

    def order_of(self, dag: DAG, order: np.ndarray) -> np.ndarray | None:
        """A topological order of ``dag`` plus the required arcs that keeps the nodes of
        ``order`` where it can (None when the two conflict)."""
        state = self.state
        place = np.empty(state.n, dtype=np.int64)
        place[order] = np.arange(state.n)
        children = [set(np.flatnonzero(self.required[v]).tolist()) for v in range(state.n)]
        for u, v in dag.arcs:
            children[state.index[u]].add(state.index[v])
        return _topological(children, place)

    def start(self, rng: np.random.Generator) -> np.ndarray:
        """A random order of the nodes (drawn over the nodes sorted by name, so it does not
        depend on the column order) in which every required arc points forward."""
        by_name = self.state.by_node
        shuffled = by_name[rng.permutation(by_name.size)]
        place = np.empty(shuffled.size, dtype=np.int64)
        place[shuffled] = np.arange(shuffled.size)
        children = [set(np.flatnonzero(self.required[v]).tolist()) for v in range(by_name.size)]
        return _topological(children, place)  # the whitelist is acyclic (prepare checks)
