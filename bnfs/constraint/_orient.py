"""From a skeleton and separating sets to a CPDAG: v-structures, then Meek's rules."""

from __future__ import annotations

import itertools
import logging

from bnfs.graph import PDAG

logger = logging.getLogger("bnfs")


def orient(names, adjacency: list[set[int]], sepsets: dict[frozenset, frozenset],
           learning: dict, order=None, arcs=()) -> PDAG:
    """Orient unshielded colliders ``x -> z <- y`` (z not in the separating set of x and y,
    visited in index order; an arc already pointing the other way wins), then apply Meek's
    rules 1-3 until nothing changes. The PDAG lists its nodes in ``order`` (default:
    ``names``), the order of the user's columns. ``arcs`` (index pairs the black- and
    whitelists fix) are oriented first, so colliders and Meek's rules never turn them.

    This is not bnlearn's orientation: bnlearn applies v-structures in p-value order and
    drops a conflicting v-structure whole, so graphs can differ where colliders conflict.

    References
    ----------
    C. Meek, "Causal inference and causal explanation with background knowledge", UAI 1995.
    """
    n = len(names)
    pdag = PDAG(names if order is None else order, edges=[(names[u], names[v]) for u in range(n) for v in adjacency[u] if u < v],
                learning=learning)
    for u, v in sorted(arcs):
        if pdag.has_edge(names[u], names[v]):
            try:
                pdag.orient(names[u], names[v])
            except ValueError:  # the lists' arcs close a cycle: leave it undirected
                pass
    for z in range(n):
        for x, y in itertools.combinations(sorted(adjacency[z]), 2):
            if y in adjacency[x]:
                continue
            sep = sepsets.get(frozenset((x, y)))
            if sep is None or z in sep:
                continue
            for a in (x, y):
                if pdag.has_edge(names[a], names[z]):
                    try:
                        pdag.orient(names[a], names[z])
                    except ValueError:  # would close a cycle: leave undirected
                        pass
    meek(pdag)
    logger.info("%s: %d tests, %d adjacencies: %d arcs and %d undirected edges",
                learning.get("algorithm"), learning.get("n_tests", 0), pdag.n_arcs + pdag.n_edges,
                pdag.n_arcs, pdag.n_edges)
    return pdag


def meek(pdag: PDAG) -> None:
    """Apply Meek's rules 1-3 in place until no undirected edge can be oriented."""
    changed = True
    while changed:
        changed = False
        for a, b in list(pdag.edges):
            for u, v in ((a, b), (b, a)):
                if pdag.has_edge(u, v) and _compelled(pdag, u, v):
                    try:
                        pdag.orient(u, v)
                        changed = True
                    except ValueError:
                        pass
                    break


def _compelled(pdag: PDAG, u: str, v: str) -> bool:
    """Does a Meek rule force the edge u - v to u -> v?"""
    # R1: w -> u - v with w, v not adjacent
    for w in pdag.parents(u):
        if not pdag.is_adjacent(w, v):
            return True
    # R2: u -> w -> v
    if set(pdag.children(u)) & set(pdag.parents(v)):
        return True
    # R3: u - w1 -> v, u - w2 -> v, w1 and w2 not adjacent
    candidates = [w for w in pdag.undirected(u) if pdag.has_arc(w, v)]
    for w1, w2 in itertools.combinations(candidates, 2):
        if not pdag.is_adjacent(w1, w2):
            return True
    return False
