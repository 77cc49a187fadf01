"""Acyclicity for graphs under edits: the Pearce-Kelly online topological order.

Every cycle check in bnfs goes through :class:`OnlineTopologicalOrder` (the graph
classes and, in compiled form, the searches). :class:`DFSCycleCheck` answers the same
questions with a plain depth-first search per insertion and is kept for comparison
(``benchmarks/cycle_check.py``). Both hold the graph as an arc pool of arrays
(see :mod:`bnfs._kernels.order`), O(nodes + arcs) memory.

References
----------
D. J. Pearce and P. H. J. Kelly, "A dynamic topological sort algorithm for directed
acyclic graphs", ACM J. Exp. Algorithmics 11, 2006.
X. Shen, Y. Li and K. Wong, "Markov blanket feature selection for support vector
machines", AAAI 2008 (Pearce-Kelly order inside hill climbing).
"""

from __future__ import annotations

import numpy as np

from bnfs._kernels import order as _k

__all__ = ["OnlineTopologicalOrder", "DFSCycleCheck"]


class _ArcPool:
    """Arc storage shared by both cycle checkers; nodes are integers ``0..n-1``."""

    def __init__(self, n_nodes: int, capacity: int | None = None):
        n_nodes = int(n_nodes)
        if n_nodes < 0:
            raise ValueError(f"n_nodes must be >= 0, got {n_nodes}")
        self.n_nodes = n_nodes
        capacity = max(16, 2 * n_nodes if capacity is None else int(capacity))
        self.heads = np.full((n_nodes, 2), -1, dtype=np.int64)
        self.arcs = np.full((0, 6), -1, dtype=np.int64)
        self.meta = np.array([-1, 0], dtype=np.int64)
        self.mark = np.zeros(n_nodes, dtype=np.uint8)
        self.grow(capacity)

    def grow(self, capacity: int) -> None:
        """Make room for ``capacity`` arcs (the compiled searches call it when full)."""
        old = self.arcs.shape[0]
        if capacity <= old:
            return
        arcs = np.full((capacity, 6), -1, dtype=np.int64)
        arcs[:old] = self.arcs
        # chain the new rows onto the free list
        arcs[old:-1, _k.OUT_NEXT] = np.arange(old + 1, capacity)
        arcs[capacity - 1, _k.OUT_NEXT] = self.meta[_k.FREE]
        self.meta[_k.FREE] = old
        self.arcs = arcs

    def reserve(self) -> None:
        """Make sure one more arc fits."""
        if self.meta[_k.FREE] == -1:
            self.grow(2 * self.arcs.shape[0])

    def _check(self, x: int, y: int) -> tuple[int, int]:
        x, y = int(x), int(y)
        if not (0 <= x < self.n_nodes and 0 <= y < self.n_nodes):
            raise IndexError(f"arc ({x}, {y}) names a node outside 0..{self.n_nodes - 1}")
        return x, y

    @property
    def n_arcs(self) -> int:
        return int(self.meta[_k.N_ARCS])

    def has_arc(self, x: int, y: int) -> bool:
        x, y = self._check(x, y)
        return _k.find_arc(self.heads, self.arcs, x, y) != -1

    def remove(self, x: int, y: int) -> bool:
        """Remove arc ``x -> y``; False when it was absent. Removal never breaks an order."""
        x, y = self._check(x, y)
        return bool(_k.unlink(self.heads, self.arcs, self.meta, x, y))

    def reverse(self, x: int, y: int) -> bool:
        """Turn ``x -> y`` into ``y -> x`` (remove + add). False, graph unchanged, when the
        arc is absent or the reversal would close a cycle."""
        if not self.remove(x, y):
            return False
        if self.try_add(y, x):
            return True
        self.reserve()
        _k.link(self.heads, self.arcs, self.meta, x, y)
        return False

    def try_add(self, x: int, y: int) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def apply(self, ops: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _state(self) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def _apply(self, kernel, ops: np.ndarray) -> np.ndarray:
        ops = np.ascontiguousarray(ops, dtype=np.int64)
        if ops.ndim != 2 or ops.shape[1] != 3:
            raise ValueError(f"ops must have shape (m, 3), got {ops.shape}")
        if ops.size and (ops[:, 1:].min() < 0 or ops[:, 1:].max() >= self.n_nodes):
            raise IndexError("ops name a node outside the graph")
        accepted = np.zeros(ops.shape[0], dtype=np.uint8)
        done = 0
        while done < ops.shape[0]:
            self.reserve()  # may replace self.arcs: fetch the state after it
            done += kernel(*self._state(), ops[done:], accepted[done:])
        return accepted.astype(bool)


class OnlineTopologicalOrder(_ArcPool):
    """A DAG over nodes ``0..n-1`` that keeps a topological order under arc edits.

    Parameters
    ----------
    n_nodes : int
        Number of nodes.
    capacity : int, optional
        Initial size of the arc pool (it grows by doubling).

    Notes
    -----
    Inserting ``x -> y`` when ``x`` already precedes ``y`` costs O(out-degree of x).
    Otherwise only the affected region between ``y`` and ``x`` in the order is searched
    and reordered (Pearce & Kelly 2006), instead of a search of everything reachable
    from ``y``. Removals never invalidate the order.

    Examples
    --------
    >>> order = OnlineTopologicalOrder(3)
    >>> order.try_add(0, 1), order.try_add(1, 2), order.try_add(2, 0)
    (True, True, False)
    >>> order.order().tolist()
    [0, 1, 2]
    """

    def __init__(self, n_nodes: int, capacity: int | None = None):
        super().__init__(n_nodes, capacity)
        self.pos = np.arange(self.n_nodes, dtype=np.int64)
        self.node_at = np.arange(self.n_nodes, dtype=np.int64)
        self.work = np.zeros((3, max(self.n_nodes, 1)), dtype=np.int64)

    @classmethod
    def from_arcs(cls, n_nodes: int, arcs, order=None) -> OnlineTopologicalOrder:
        """Build from arcs known to be acyclic, with ``order`` a topological order of them
        (checked); without ``order`` the arcs are inserted one by one."""
        self = cls(n_nodes, capacity=2 * max(len(arcs), n_nodes))
        if order is None:
            for x, y in arcs:
                if not self.try_add(x, y):
                    raise ValueError(f"arc ({x}, {y}) closes a cycle")
            return self
        order = np.asarray(order, dtype=np.int64)
        self.node_at[:] = order
        self.pos[order] = np.arange(self.n_nodes)
        for x, y in arcs:
            if self.pos[x] >= self.pos[y]:
                raise ValueError(f"order is not topological for arc ({x}, {y})")
            self.reserve()
            _k.link(self.heads, self.arcs, self.meta, x, y)
        return self

    def try_add(self, x: int, y: int) -> bool:
        """Add arc ``x -> y`` and return True, or return False (graph unchanged) when it
        would close a cycle. Adding an arc already present returns True."""
        x, y = self._check(x, y)
        self.reserve()
        return bool(
            _k.pk_try_add(
                self.pos, self.node_at, self.heads, self.arcs, self.meta, self.mark, self.work, x, y
            )
        )

    def apply(self, ops: np.ndarray) -> np.ndarray:
        """Run edit operations ``(kind, x, y)`` in compiled code (kind 0 add, 1 remove,
        2 reverse); return which of them changed the graph."""
        return self._apply(_k.pk_apply, ops)

    def _state(self) -> tuple:
        return self.arrays

    @property
    def arrays(self) -> _k.Order:
        """The order's arrays as the search kernels take them (the arc pool may grow:
        fetch them again after :meth:`reserve` or :meth:`grow`)."""
        return _k.Order(
            self.pos, self.node_at, self.heads, self.arcs, self.meta, self.mark, self.work
        )

    def order(self) -> np.ndarray:
        """Nodes in a topological order (a copy)."""
        return self.node_at.copy()

    def position(self, node: int) -> int:
        """``node``'s place in the current topological order."""
        return int(self.pos[node])


class DFSCycleCheck(_ArcPool):
    """The same interface as :class:`OnlineTopologicalOrder`, checking every insertion
    ``x -> y`` with a depth-first search from ``y`` for ``x``; kept for comparison.

    Examples
    --------
    >>> check = DFSCycleCheck(3)
    >>> check.try_add(0, 1), check.try_add(1, 2), check.try_add(2, 0)  # the last closes a cycle
    (True, True, False)
    """

    def __init__(self, n_nodes: int, capacity: int | None = None):
        super().__init__(n_nodes, capacity)
        self.work = np.zeros((2, max(self.n_nodes, 1)), dtype=np.int64)

    def try_add(self, x: int, y: int) -> bool:
        """Add ``x -> y`` unless it closes a directed cycle; whether it was added."""
        x, y = self._check(x, y)
        self.reserve()
        return bool(_k.dfs_try_add(self.heads, self.arcs, self.meta, self.mark, self.work, x, y))

    def apply(self, ops: np.ndarray) -> np.ndarray:
        """Apply a batch of moves (as :meth:`OnlineTopologicalOrder.apply`); which were
        applied."""
        return self._apply(_k.dfs_apply, ops)

    def _state(self) -> tuple:
        return (self.heads, self.arcs, self.meta, self.mark, self.work)

    def has_path(self, source: int, target: int) -> bool:
        """Whether a directed path leads from ``source`` to ``target``."""
        source, target = self._check(source, target)
        return bool(_k.reachable(self.heads, self.arcs, self.mark, self.work, source, target))
