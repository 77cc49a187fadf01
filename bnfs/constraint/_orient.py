"""From a skeleton to a CPDAG: which unshielded triples are colliders, in which order they are
applied (each whole or not at all), then Meek's rules.

Three ways to find the colliders, one per kind of learner:

- :func:`colliders_from_sepsets`: the centre of x - z - y is in none of the separating sets
  found for x and y (PC, TPDA, local structures);
- :func:`colliders_from_blankets`: x and y stay dependent given z plus every subset of the
  smaller of their blankets (bnlearn's rule for the blanket-based learners);
- both ordered by evidence, strongest first, so that where two colliders conflict the better
  supported one wins whole (see :func:`orient`).
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from bnfs.constraint._bnlearn_cpdag import IMMUTABLE, PRESENT
from bnfs.constraint._bnlearn_cpdag import propagate as bnlearn_propagate
from bnfs.constraint._sets import subsets
from bnfs.graphs.graph import DAG, PDAG

logger = logging.getLogger("bnfs")

#: (x, z, y): the unshielded triple x - z - y, x < y, a candidate collider x -> z <- y
Triple = tuple[int, int, int]
#: the test a finder calls: (x, y, conditioning indices) -> CIResult
TestIndices = Callable[[int, int, Sequence[int]], object]


def unshielded_triples(adjacency: Sequence[set[int]]) -> list[Triple]:
    """Every x - z - y with x, y not adjacent, by centre z, then (x, y) in index order (the
    order bnlearn's ``vstruct.detect`` visits them)."""
    return [
        (x, z, y)
        for z in range(len(adjacency))
        for x, y in itertools.combinations(sorted(adjacency[z]), 2)
        if y not in adjacency[x]
    ]


def _weakest_first(p: float) -> tuple[bool, float]:
    """Sort key on a p-value, smallest first; a test without a p-value (too few rows per
    cell: counted as dependent without evidence) goes last."""
    return (math.isnan(p), p)


def colliders_from_sepsets(
    adjacency: Sequence[set[int]],
    sepsets: Mapping[frozenset, Sequence[frozenset]],
    test: TestIndices,
    order: str = "evidence",
) -> list[Triple]:
    """The unshielded triples whose centre is in none of the pair's separating sets.

    Parameters
    ----------
    sepsets : the separating sets found for each non-adjacent pair, the first one the
        learner's own (a pair without any, e.g. blacklisted, gives no collider)
    test : runs one test on indices (a tester's ``test_indices``)
    order : {"evidence", "bnlearn"}
        ``"evidence"``: by the p-value of x, y given the first separating set plus z,
        smallest (the strongest dependence the collider creates) first. ``"bnlearn"``: by the
        p-value of the separating test itself, smallest first, as bnlearn's
        ``learn.arc.directions`` sorts them.
    """
    found = []
    for x, z, y in unshielded_triples(adjacency):
        seps = sepsets.get(frozenset((x, y)))
        if not seps or any(z in s for s in seps):
            continue
        given = seps[0] | {z} if order == "evidence" else seps[0]
        found.append((_weakest_first(test(x, y, tuple(sorted(given))).p_value), (x, z, y)))
    found.sort(key=lambda item: item[0])  # stable: ties keep the triples' order
    return [triple for _, triple in found]


def colliders_from_blankets(
    adjacency: Sequence[set[int]],
    blankets: Sequence[set[int]],
    test: TestIndices,
    max_cond_size: int | None,
) -> list[Triple]:
    """bnlearn's rule for the blanket-based learners: x - z - y is a collider when x and y
    stay dependent given z plus every subset of the smaller of MB(x) - {z, y} and
    MB(y) - {z, x}; ordered by the largest p-value of those tests, smallest first
    (``vstruct.detect`` and ``learn.arc.directions`` in bnlearn).

    Triples are visited by centre, then pair, in index order (the tester's: bnlearn's when
    it keeps the data's order; ties in the p-value keep it), and on a tie in size the
    blanket of the pair's later variable (y) is searched.
    """
    found = []
    for x, z, y in unshielded_triples(adjacency):
        a, b = blankets[x] - {z, y}, blankets[y] - {z, x}
        pool = a if len(a) < len(b) else b
        largest = -math.inf
        for s in subsets(pool, max_cond_size):
            result = test(x, y, tuple(sorted((*s, z))))
            if result.independent:
                break
            if not math.isnan(result.p_value):
                largest = max(largest, result.p_value)
        else:
            found.append((largest, (x, z, y)))
    found.sort(key=lambda item: item[0])
    return [triple for _, triple in found]


def all_separating_sets(
    test: TestIndices,
    pairs: Iterable[tuple[int, int]],
    sepsets: Mapping[frozenset, frozenset],
    snapshots: Sequence[Sequence[frozenset]],
) -> dict[frozenset, list]:
    """For PC: every separating set of each pair at the level its edge was removed, from
    either side's adjacencies as they stood at the start of that level (the first one the
    set PC removed the edge with). What makes the collider decision independent of which
    subset happened to be tried first: causal-learn's PC records the same sets."""
    out = {}
    for x, y in pairs:
        key = frozenset((x, y))
        if key in out or key not in sepsets:
            continue
        first = sepsets[key]
        level = len(first)
        found = [first]
        if level < len(snapshots):
            for a, b in ((x, y), (y, x)):
                for s in itertools.combinations(sorted(snapshots[level][a] - {b}), level):
                    if frozenset(s) not in found and test(a, b, s).independent:
                        found.append(frozenset(s))
        out[key] = found
    return out


def orient(
    names,
    adjacency: list[set[int]],
    colliders: Iterable[Triple],
    learning: dict,
    order=None,
    arcs=(),
    propagation: str = "meek",
    lists: bool = False,
    extend: bool = True,
) -> PDAG:
    """The PDAG of a skeleton: the lists' ``arcs`` first, then each collider x -> z <- y in
    the given order, whole or not at all (skipped when either edge already points out of z
    or the two arcs would close a cycle), then Meek's rules 1-3 until nothing changes
    (``propagation="meek"``) or bnlearn's own propagation (``"bnlearn"``, see
    :mod:`bnfs.constraint._bnlearn_cpdag`; ``lists`` says black- or whitelists were given,
    whose ``arcs`` it keeps immutable). With Meek's rules, a PDAG that has no consistent
    extension (conflicting colliders, or a chordless cycle no collider breaks) is replaced
    by the CPDAG of the closest DAG :func:`_closest_extension` finds, and ``learning``
    says so (``no_extension``, ``colliders_added``); ``extend=False`` leaves it as it is
    (a search stopped with a dense skeleton left undirected on purpose). Every step visits
    the nodes in the order of ``names`` (the tester's: by name), never in ``order``.

    Applying colliders whole and strongest first is what keeps a weak, conflicting collider
    from turning half of a strong one (bnlearn's ``vstruct.apply`` applies them whole too,
    in its own order). The PDAG lists its nodes in ``order`` (default: ``names``), the order
    of the user's columns, once it is oriented.

    References
    ----------
    C. Meek, "Causal inference and causal explanation with background knowledge", UAI 1995.
    D. Colombo and M. H. Maathuis, "Order-independent constraint-based causal structure
    learning", JMLR 15, 2014 (conflicting v-structures).
    """
    n = len(names)
    # every step below visits the nodes in the tester's order (by name, unless the caller
    # built the tester on its own order), so the graph does not depend on the column order;
    # only the finished PDAG lists its nodes in the user's order
    pdag = PDAG(
        names,
        edges=[(names[u], names[v]) for u in range(n) for v in adjacency[u] if u < v],
        learning=learning,
    )
    for u, v in sorted(arcs):
        if pdag.has_edge(names[u], names[v]):
            try:
                pdag.orient(names[u], names[v])
            except ValueError:  # the lists' arcs close a cycle: leave it undirected
                pass
    applied = 0
    for x, z, y in colliders:
        applied += _apply_collider(pdag, names[x], names[z], names[y])
    pdag.learning["colliders"] = applied
    if propagation == "bnlearn":
        pdag = _bnlearn_propagation(pdag, {(names[u], names[v]) for u, v in arcs}, lists)
    else:
        if pdag.n_arcs:  # Meek's rules start from arcs: with none, none fires
            meek(pdag)
        if extend and not _extends(pdag):  # conflicting colliders: the closest DAG's class
            record = pdag.learning
            pdag, added = _closest_extension(pdag)
            pdag.learning = {**record, "no_extension": True, "colliders_added": added}
    if order is not None and tuple(order) != tuple(names):
        pdag = PDAG(order, arcs=pdag.arcs, edges=pdag.edges, learning=pdag.learning)
    logger.info(
        "oriented after %d tests: %d adjacencies, %d arcs and %d undirected edges",
        learning.get("n_tests", 0),
        pdag.n_arcs + pdag.n_edges,
        pdag.n_arcs,
        pdag.n_edges,
    )
    return pdag


def _bnlearn_propagation(pdag: PDAG, fixed_arcs: set[tuple[str, str]], lists: bool) -> PDAG:
    """The PDAG after bnlearn's own propagation (:mod:`bnfs.constraint._bnlearn_cpdag`),
    its matrix in the PDAG's node order (the tester's: bnlearn's when the tester keeps the
    data's order)."""
    nodes = list(pdag.nodes)
    at = {v: i for i, v in enumerate(nodes)}
    a = np.zeros((len(nodes), len(nodes)), dtype=np.int8)
    for u, v in pdag.arcs:
        a[at[u], at[v]] = IMMUTABLE if (u, v) in fixed_arcs else PRESENT
    for u, v in pdag.edges:
        a[at[u], at[v]] = a[at[v], at[u]] = PRESENT
    a = bnlearn_propagate(a, lists)
    both = a & a.T
    return PDAG(
        nodes,
        arcs=[(nodes[i], nodes[j]) for i, j in zip(*np.nonzero(a & ~both))],
        edges=[(nodes[i], nodes[j]) for i, j in zip(*np.nonzero(np.triu(both)))],
        learning=pdag.learning,
    )


def _extends(pdag: PDAG) -> bool:
    """Whether ``pdag`` has a consistent extension (a DAG with its arcs, skeleton and
    colliders)."""
    try:
        pdag.to_dag()
    except ValueError:
        return False
    return True


def _closest_extension(pdag: PDAG) -> tuple[PDAG, int]:
    """For a PDAG without a consistent extension: (the CPDAG of the DAG that keeps every arc
    and the skeleton and adds the fewest new colliders this greedy order finds, how many it
    adds). Dor and Tarsi's procedure removes a sink whose undirected neighbours are adjacent
    to all its other neighbours; where no node qualifies (conflicting colliders from
    sampling noise, or tests on repeated rows, can force a pattern no DAG holds), the sink
    with the fewest non-adjacent pairs among its neighbours goes next, taking in its
    undirected edges. A PDAG without an extension has no CPDAG, no DAG and no blanket to
    read; the learner returns the class of the closest DAG instead, and says so."""
    alive = set(pdag.nodes)
    pa = {v: set(pdag.parents(v)) for v in alive}
    ch = {v: set(pdag.children(v)) for v in alive}
    nb = {v: set(pdag.undirected(v)) for v in alive}
    adj = {v: pa[v] | ch[v] | nb[v] for v in alive}
    arcs = list(pdag.arcs)

    def missing_pairs(x: str) -> int:  # the colliders orienting x's edges into x would add
        return sum(1 for y in nb[x] for w in adj[x] - {y} if w not in adj[y])

    while alive:
        sinks = [v for v in pdag.nodes if v in alive and not ch[v]]
        x = min(sinks, key=missing_pairs)  # ties: the first in the PDAG's order
        arcs += [(y, x) for y in nb[x]]
        for y in adj[x]:
            for links in (pa, ch, nb, adj):
                links[y].discard(x)
        alive.discard(x)
    dag = DAG(pdag.nodes, arcs, learning=pdag.learning)
    added = sum(
        1 for x, z, y in dag.v_structures() if not (pdag.has_arc(x, z) and pdag.has_arc(y, z))
    )
    return dag.cpdag(), added


def _apply_collider(pdag: PDAG, x: str, z: str, y: str) -> bool:
    """Orient x -> z <- y if neither edge points out of z and no cycle closes."""
    if pdag.has_arc(z, x) or pdag.has_arc(z, y):
        return False
    turned = []
    for a in (x, y):
        if pdag.has_edge(a, z):
            try:
                pdag.orient(a, z)
            except ValueError:  # would close a cycle: undo the other half
                for b in turned:
                    pdag.remove_arc(b, z)
                    pdag.add_edge(b, z)
                return False
            turned.append(a)
    return True


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
