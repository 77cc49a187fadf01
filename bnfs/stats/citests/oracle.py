"""The exact d-separation oracle, with the testers' interface."""

from __future__ import annotations

from bnfs.graphs.graph import DAG
from bnfs.stats.citests.base import (
    CIResult,
    Tester,
)


class DSeparation(Tester):
    """Exact independence oracle: ``x`` and ``y`` are independent given ``z`` exactly when
    they are d-separated in ``dag``. Learners accept it in place of data, so tests can check
    exact recovery free of sampling noise.

    Examples
    --------
    >>> oracle = DSeparation(DAG(["a", "b", "c"], [("a", "c"), ("b", "c")]))
    >>> oracle.independent("a", "b"), oracle.independent("a", "b", ["c"])
    (True, False)
    """

    def __init__(self, dag: DAG):
        if not isinstance(dag, DAG):
            raise TypeError(f"DSeparation needs a DAG, got {type(dag).__name__}")
        self.dag = dag
        self._setup_names(dag.nodes)
        self._pa = [[self._index[p] for p in dag.parents(v)] for v in dag.nodes]
        self._ch = [[self._index[c] for c in dag.children(v)] for v in dag.nodes]
        self.test = "d-separation"
        self.alpha = 0.5

    def _run(self, x: int, y: int, z: tuple[int, ...]) -> CIResult:
        length = self._trail_length(x, set(z), y)
        if length is None:
            return CIResult(0.0, 0.0, 1.0, True)
        return CIResult(1.0 / length, 0.0, 0.0, False)

    def _trail_length(self, source: int, given: set[int], target: int) -> int | None:
        """Length of the shortest active trail source ~ target given ``given`` (Bayes-ball,
        Koller & Friedman, Algorithm 3.1, run breadth first), or None when d-separated.

        Its inverse is the oracle's statistic, so learners that rank candidates by
        association meet nearer variables first, as they would on data."""
        ancestors = set()
        stack = list(given)
        while stack:
            w = stack.pop()
            if w not in ancestors:
                ancestors.add(w)
                stack.extend(self._pa[w])
        seen = {(source, True)}
        frontier = [(source, True)]  # (node, arrived from a child, i.e. moving up)
        length = 0
        while frontier:
            following = []
            for w, up in frontier:
                if w == target and w not in given:
                    return length
                moves = []
                if up and w not in given:
                    moves += [(p, True) for p in self._pa[w]]
                    moves += [(c, False) for c in self._ch[w]]
                elif not up:
                    if w not in given:
                        moves += [(c, False) for c in self._ch[w]]
                    if w in ancestors:
                        moves += [(p, True) for p in self._pa[w]]
                for move in moves:
                    if move not in seen:
                        seen.add(move)
                        following.append(move)
            frontier = following
            length += 1
        return None
