"""The local learners' searches on variable indices (GS, IAMB and its variants, KIAMB,
HITON-PC, MMPC, PCMB's GetPC, spouses through colliders), shared by the local learners
(:mod:`bnfs.constraint.markov_blanket`), ``local_structure`` and the blanket-based network
learners. Each takes a :class:`~bnfs.constraint._sets.NodeLists` view of a tester and a
target index, and keeps what the view requires (``tester.required(t)``)."""

from __future__ import annotations

import math
from collections.abc import Callable

from bnfs.constraint._sets import NodeLists
from bnfs.constraint._sets import subsets as _subsets

__all__ = [
    "grow_shrink_search",
    "iamb_search",
    "fast_iamb_search",
    "kiamb_search",
    "hiton_pc_search",
    "hiton_pc_one_way_search",
    "mmpc_search",
    "mmpc_one_way_search",
    "pcmb_pc_search",
    "spouses",
    "blanket_through_pc",
    "on_tester",
    "PC_SEARCHES",
]


def _strength(result) -> tuple[float, float]:
    """Sort key of an association: smaller p-value first, then larger statistic."""
    return (result.p_value, -result.statistic)


def _shrink(tester, t: int, mb: list[int]) -> list[int]:
    keep = tester.required(t)
    for x in list(mb):
        if x in keep:
            continue
        rest = [v for v in mb if v != x]
        if tester.test_indices(t, x, rest).independent:
            mb.remove(x)
    return mb


def grow_shrink_search(tester, t: int) -> list[int]:
    mb = sorted(tester.required(t))
    changed = True
    while changed:
        changed = False
        for x in range(len(tester.names)):
            if x != t and x not in mb and not tester.test_indices(t, x, mb).independent:
                mb.append(x)
                changed = True
    return _shrink(tester, t, mb)


def _dependent(tester, t: int, mb: list[int]) -> list[tuple[tuple[float, float], int]]:
    """(strength, x) of every candidate dependent on t given mb, strongest first."""
    scored = []
    for x in range(len(tester.names)):
        if x != t and x not in mb:
            result = tester.test_indices(t, x, mb)
            if not result.independent:
                scored.append((_strength(result), x))
    return sorted(scored)


def iamb_search(tester, t: int, interleaved: bool = False) -> list[int]:
    mb = sorted(tester.required(t))
    tried: set[tuple] = set()
    while True:
        scored = _dependent(tester, t, mb)
        best = scored[0][1] if scored else None
        state = (best, tuple(sorted(mb)))
        if best is None or state in tried:
            break
        tried.add(state)
        mb.append(best)
        if interleaved:
            _shrink(tester, t, mb)
    return _shrink(tester, t, mb)


def fast_iamb_search(tester, t: int, rows_per_cell: float) -> list[int]:
    """Fast-IAMB: every round adds the dependent candidates by decreasing association (the
    strongest always, the others while the next test keeps ``rows_per_cell`` rows per
    table cell), then shrinks; it stops when no candidate is dependent or a state repeats."""
    mb = sorted(tester.required(t))
    tried: set[tuple] = set()
    while True:
        scored = _dependent(tester, t, mb)
        state = tuple(sorted(mb))
        if not scored or state in tried:
            break
        tried.add(state)
        mb.append(scored[0][1])
        for _, x in scored[1:]:
            if tester.rows_per_cell(t, x, mb) < rows_per_cell:
                break
            mb.append(x)
        _shrink(tester, t, mb)
    return mb


def kiamb_search(tester, t: int, k: float, rng) -> list[int]:
    """KIAMB: each step draws max(1, floor(k |candidates|)) of the dependent candidates at
    random and adds the most associated of them; k = 1 is IAMB, k = 0 a random walk
    over dependent variables (which finds the alternative blankets of non-faithful data)."""
    mb = sorted(tester.required(t))
    while True:
        scored = _dependent(tester, t, mb)
        if not scored:
            break
        size = max(1, math.floor(k * len(scored)))
        drawn = rng.choice(len(scored), size=size, replace=False)
        mb.append(min(scored[i] for i in drawn)[1])
    return _shrink(tester, t, mb)


def _weakest(tester, t: int, x: int, pool, max_cond_size):
    """The subset of ``pool`` that minimises the association of t and x: (subset, None) as
    soon as one separates them, else (subset, association key) of the weakest."""
    worst, worst_set = None, ()
    for s in _subsets(pool, max_cond_size):
        result = tester.test_indices(t, x, s)
        if result.independent:
            return s, None
        key = _strength(result)
        if worst is None or key > worst:
            worst, worst_set = key, s
    return worst_set, worst


def _max_min_forward(tester, t: int, max_cond_size, sepsets, prune: bool) -> list[int]:
    """Max-min forward phase (MMPC, PCMB's GetPCD): drop candidates a subset of the current
    set separates from t, admit the one whose weakest association is strongest; with
    ``prune`` (PCMB) drop members now separable after every admission."""
    members = sorted(tester.required(t))
    candidates = [x for x in range(len(tester.names)) if x != t and x not in members]
    while candidates:
        keys = {}
        for x in candidates:
            s, key = _weakest(tester, t, x, members, max_cond_size)
            if key is None:
                if sepsets is not None:
                    sepsets[x] = s
            else:
                keys[x] = key
        candidates = [x for x in candidates if x in keys]
        if not candidates:
            break
        best = min(candidates, key=lambda x: (keys[x], x))
        members.append(best)
        candidates.remove(best)
        if prune:
            _backward(tester, t, members, max_cond_size, sepsets)
    return members


def pcmb_pc_search(tester, t: int, max_cond_size, sepsets=None, memo=None) -> list[int]:
    """PCMB's GetPC: x in GetPCD(t) stays when t is in GetPCD(x) too (:func:`_symmetric`)."""
    return _symmetric(_pcd_search, tester, t, max_cond_size, sepsets, memo)


def _pcd_search(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """PCMB's GetPCD: the max-min forward phase, pruning after every admission."""
    return _max_min_forward(tester, t, max_cond_size, sepsets, prune=True)


def _backward(tester, t: int, members: list[int], max_cond_size, sepsets) -> list[int]:
    """Drop each member that some subset of the other members separates from ``t``
    (the marginal tests were done by the forward phase)."""
    keep = tester.required(t)
    for x in list(members):
        if x in keep:
            continue
        rest = [v for v in members if v != x]
        for s in _subsets(rest, max_cond_size):
            if s and tester.test_indices(t, x, s).independent:
                members.remove(x)
                if sepsets is not None:
                    sepsets[x] = s
                break
    return members


def _symmetric(one_way, tester, t: int, max_cond_size, sepsets, memo=None) -> list[int]:
    """The symmetry correction of a one-way PC search: x in PC(t) stays if t is in PC(x) too
    (a non-neighbour may be separable only by a subset of its own neighbours), or if x and
    the set S separating t from x in x's search are information-equivalent for t: S screens
    x off from t and x screens off each member of S (Lemeire et al. 2012).

    Faithfulness rules the second case out: a path from t to x that S blocks passes some
    s in S, and its part from t to s avoids x, so x cannot block it. So with an exact oracle
    only the AND rule acts. It exists for near-deterministic copies (a feature and its
    noisy duplicates): each copy separates the others from t, the AND rule would drop every
    one of them, and t's own search keeps exactly one, which this keeps.

    ``memo`` (node -> its one-way set and separating sets) lets the searches of one
    blanket share each node's one-way search: the spouse phase asks for the PC set of every
    member, and each of those checks its own members."""
    pc, own = _one_way(one_way, tester, t, max_cond_size, memo)
    if sepsets is not None:
        sepsets.update(own)
    kept = []
    for x in pc:
        pc_x, own_x = _one_way(one_way, tester, x, max_cond_size, memo)
        if t in pc_x or _equivalent(tester, t, x, own_x.get(t)):
            kept.append(x)
    return kept


def _one_way(one_way, tester, v: int, max_cond_size, memo) -> tuple[list[int], dict]:
    """``one_way``'s set for ``v`` and its separating sets, from ``memo`` when there."""
    if memo is not None and v in memo:
        return memo[v]
    own: dict[int, tuple] = {}
    result = (one_way(tester, v, max_cond_size, own), own)
    if memo is not None:
        memo[v] = result
    return result


def _equivalent(tester, t: int, x: int, separating) -> bool:
    """x and the set ``separating`` (which separates t from x) screen each other off from
    t: every member s has t independent of s given x."""
    return bool(separating) and all(tester.test_indices(t, s, (x,)).independent for s in separating)


def hiton_pc_search(
    tester, t: int, max_cond_size, sepsets: dict[int, tuple] | None = None, memo=None
) -> list[int]:
    """HITON-PC with the symmetry correction (:func:`_symmetric`)."""
    return _symmetric(hiton_pc_one_way_search, tester, t, max_cond_size, sepsets, memo)


def hiton_pc_one_way_search(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """Semi-interleaved HITON-PC: admit candidates by decreasing marginal association unless
    a subset of the current set separates them; then re-check each member."""
    pc = sorted(tester.required(t))
    marginal = []
    for x in range(len(tester.names)):
        if x == t or x in pc:
            continue
        result = tester.test_indices(t, x, ())
        if result.independent:
            if sepsets is not None:
                sepsets[x] = ()
        else:
            marginal.append((_strength(result), x))
    for _, x in sorted(marginal):
        separated = False
        for s in _subsets(pc, max_cond_size):
            if tester.test_indices(t, x, s).independent:
                separated = True
                if sepsets is not None:
                    sepsets[x] = s
                break
        if not separated:
            pc.append(x)
    return _backward(tester, t, pc, max_cond_size, sepsets)


def mmpc_one_way_search(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """MMPC without the symmetry correction: max-min heuristic forward, then backward."""
    members = _max_min_forward(tester, t, max_cond_size, sepsets, prune=False)
    return _backward(tester, t, members, max_cond_size, sepsets)


def mmpc_search(tester, t: int, max_cond_size, sepsets=None, memo=None) -> list[int]:
    """MMPC with the symmetry correction (:func:`_symmetric`)."""
    return _symmetric(mmpc_one_way_search, tester, t, max_cond_size, sepsets, memo)


def spouses(
    tester, t: int, pc: list[int], pc_of: Callable[[int], list[int]], sepsets: dict[int, tuple]
) -> list[int]:
    """Add x (in PC(y) for y in PC(t), x not adjacent to t) when t and x, separated by S,
    become dependent given S + y: the collider t -> y <- x."""
    found = []
    for y in pc:
        for x in pc_of(y):
            if x == t or x in pc or x in found:
                continue
            sep = sepsets.get(x)
            if sep is None:
                sep = next(
                    (
                        s
                        for s in _subsets([v for v in pc if v != x], None)
                        if tester.test_indices(t, x, s).independent
                    ),
                    None,
                )
                if sep is None:
                    continue
                sepsets[x] = sep
            if y in sep:
                continue
            if not tester.test_indices(t, x, tuple(sep) + (y,)).independent:
                found.append(x)
    return found


def blanket_through_pc(tester, t: int, pc: Callable, max_cond_size) -> list[int]:
    """The blanket as ``pc`` of the target plus the spouses found through colliders."""
    sepsets: dict[int, tuple] = {}
    memo: dict[int, tuple] = {}  # one one-way search per node
    members = pc(tester, t, max_cond_size, sepsets, memo=memo)
    return members + spouses(
        tester, t, members, lambda y: pc(tester, y, max_cond_size, memo=memo), sepsets
    )


def on_tester(tester, v: int, search: Callable) -> list[int]:
    """``search`` for node ``v`` on a plain tester (no node lists): what the whole-network
    learners run per node."""
    return search(NodeLists(tester), v)


PC_SEARCHES = {"hiton": hiton_pc_search, "mmpc": mmpc_search, "pcmb": pcmb_pc_search}
