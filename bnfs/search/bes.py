"""Backward equivalence search (Chickering 2002, the second phase of GES): from a DAG's
equivalence class, delete the edge whose removal raises the score most, as an operator on the
CPDAG, until none does. BOSS alternates it with its order search (Andrews et al. 2023)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from bnfs.graphs.graph import DAG, PDAG

__all__ = ["backward_equivalence_search"]

#: the largest set H a delete operator tries (the subsets of NA_{Y,X} grow exponentially)
MAX_SUBSET = 6


def _delete_gain(cpdag: PDAG, x: str, y: str, score: Callable, tol: float):
    """(best gain, H) of Delete(x, y, H): remove the edge x - y (or arc x -> y) and orient
    y -> h (and x -> h where x - h) for h in H, over the H that leave NA_{y,x} \\ H a clique
    (Chickering 2002, Theorem 17); gain = s(y | rest + Pa_y - x) - s(y | rest + Pa_y + x)."""
    na = [z for z in cpdag.undirected(y) if cpdag.is_adjacent(z, x) and z != x]
    parents = [p for p in cpdag.parents(y) if p != x]
    best, best_h = tol, None
    for size in range(min(len(na), MAX_SUBSET) + 1):
        for h in itertools.combinations(na, size):
            rest = [z for z in na if z not in h]
            if any(not cpdag.is_adjacent(a, b) for a, b in itertools.combinations(rest, 2)):
                continue
            base = rest + parents
            gain = score(y, base) - score(y, base + [x])
            if gain > best:
                best, best_h = gain, h
    return best, best_h


def backward_equivalence_search(
    dag: DAG, score: Callable, required=frozenset(), tol: float = 1e-9
) -> DAG:
    """A DAG of the class BES reaches from ``dag``'s: each step deletes the edge (with its
    best H) that raises ``score(node, parents)`` most, never a pair in ``required`` (pairs of
    names, either direction), until no delete raises it by more than ``tol``.

    Candidates are visited in the order of the nodes' names, so the result does not depend
    on the order of the columns.

    References
    ----------
    D. M. Chickering, "Optimal structure identification with greedy search", JMLR 3, 2002.
    """
    cpdag = dag.cpdag()
    blocked: set = set()  # operators whose result had no consistent extension
    while True:
        best = (tol, None, None, None)
        pairs = [(u, v) for u, v in cpdag.arcs] + [
            pair for u, v in cpdag.edges for pair in ((u, v), (v, u))
        ]
        for x, y in sorted(pairs):
            if frozenset((x, y)) in required or (x, y) in blocked:
                continue
            gain, h = _delete_gain(cpdag, x, y, score, best[0])
            if h is not None and gain > best[0]:
                best = (gain, x, y, h)
        gain, x, y, h = best
        if x is None:
            return cpdag.to_dag()
        try:
            cpdag = _deleted(cpdag, x, y, h)
        except ValueError:  # guarded against, not expected of a valid operator
            blocked.add((x, y))


def _deleted(cpdag: PDAG, x: str, y: str, h) -> PDAG:
    """The CPDAG after Delete(x, y, h)."""
    out = cpdag.copy()
    undirected_x = set(out.undirected(x))
    if out.has_arc(x, y):
        out.remove_arc(x, y)
    else:
        out.remove_edge(x, y)
    for z in h:
        out.orient(y, z)
        if z in undirected_x:
            out.orient(x, z)
    return out.to_dag().cpdag()
