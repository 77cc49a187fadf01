"""The local learners' searches on variable indices (GS, IAMB and its variants, KIAMB,
HITON-PC, MMPC, PCMB's GetPC, spouses through colliders), shared by the local learners
(:mod:`bnfs.constraint.markov_blanket`, :mod:`bnfs.constraint.parents_children`), ``local_structure`` and the blanket-based network
learners. Each takes a :class:`~bnfs.constraint._sets.NodeLists` view of a tester and a
target index, and keeps what the view requires (``tester.required(t)``)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from bnfs.constraint._sets import NodeLists
from bnfs.stats.citests import strength as _strength

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
    "by_rejections",
    "on_tester",
    "PC_SEARCHES",
]


def _shrink(tester, t: int, mb: list[int]) -> list[int]:
    keep = tester.required(t)
    for x in list(mb):
        if tester.budget.spent():
            break
        if x in keep:
            continue
        rest = [v for v in mb if v != x]
        if tester.test_indices(t, x, rest).independent:
            mb.remove(x)
    return mb


def grow_shrink_search(tester, t: int) -> list[int]:
    """Grow-shrink (Margaritis & Thrun 2000): add a dependent variable while one is, then
    drop those the rest separate from ``t``; returns the blanket's indices."""
    mb = sorted(tester.required(t))
    changed = True
    while changed and not tester.budget.spent():
        changed = False
        for x in range(len(tester.names)):
            if x != t and x not in mb and not tester.test_indices(t, x, mb).independent:
                mb.append(x)
                changed = True
    return _shrink(tester, t, mb)


def _dependent(tester, t: int, mb: list[int]) -> list[tuple[tuple[float, float], int]]:
    """(strength, x) of every candidate dependent on t given mb, strongest first (the
    tests in one batch)."""
    inside = set(mb)
    candidates = [x for x in range(len(tester.names)) if x != t and x not in inside]
    return tester.tests_given(t, candidates, mb).dependent(candidates)


def iamb_search(tester, t: int, interleaved: bool = False) -> list[int]:
    """IAMB (Tsamardinos et al. 2003): add the most dependent variable while it is
    dependent, then drop the false positives (after each addition when ``interleaved``);
    returns the blanket's indices."""
    mb = sorted(tester.required(t))
    tried: set[tuple] = set()
    while not tester.budget.spent():
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
    while not tester.budget.spent():
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
    while not tester.budget.spent():
        scored = _dependent(tester, t, mb)
        if not scored:
            break
        size = max(1, math.floor(k * len(scored)))
        drawn = rng.choice(len(scored), size=size, replace=False)
        mb.append(min(scored[i] for i in drawn)[1])
    return _shrink(tester, t, mb)


def _max_min_forward(tester, t: int, max_cond_size, sepsets, prune: bool) -> list[int]:
    """Max-min forward phase (MMPC, PCMB's GetPCD): drop candidates a subset of the current
    set separates from t, admit the one whose weakest association is strongest; with
    ``prune`` (PCMB) drop members now separable after every admission.

    Each candidate's weakest association over the subsets of the members is kept between
    rounds: after an admission only the subsets holding the new member are tested (those
    without it were, and none separated), and after a pruning every subset again."""
    members = sorted(tester.required(t))
    inside = set(members)
    candidates = [x for x in range(len(tester.names)) if x != t and x not in inside]
    weakest: dict[int, tuple[float, float]] = {}
    new = None  # the member admitted last round (None: test every subset)
    while candidates and not tester.budget.spent():
        tested = None if new is None else [v for v in members if v != new]
        found, _ = tester.separations(t, candidates, members, max_cond_size, tested=tested)
        kept = []
        for x, separation in zip(candidates, found, strict=True):
            if separation.subset is not None:
                if sepsets is not None:
                    sepsets[x] = separation.subset
                continue
            kept.append(x)
            if separation.weakest is not None:
                key = _strength(separation.weakest)
                if new is None or key > weakest[x]:
                    weakest[x] = key
        candidates = kept
        if not candidates:
            break
        best = min(candidates, key=lambda x: (weakest[x], x))
        members.append(best)
        candidates.remove(best)
        new = best
        if prune:
            before = len(members)
            _backward(tester, t, members, max_cond_size, sepsets, _since(members, best))
            if len(members) < before:
                new = None
    return members


def pcmb_pc_search(tester, t: int, max_cond_size, sepsets=None, memo=None) -> list[int]:
    """PCMB's GetPC: x in GetPCD(t) stays when t is in GetPCD(x) too (:func:`_symmetric`)."""
    return _symmetric(_pcd_search, tester, t, max_cond_size, sepsets, memo)


def _pcd_search(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """PCMB's GetPCD: the max-min forward phase, pruning after every admission."""
    return _max_min_forward(tester, t, max_cond_size, sepsets, prune=True)


def _backward(tester, t: int, members: list[int], max_cond_size, sepsets, tested) -> list[int]:
    """Drop each member that some subset of the other members separates from ``t``
    (the marginal tests were done by the forward phase). ``tested(x)``: the members every
    subset of which was tested with x before, separating nothing; only subsets holding
    another member are tested."""
    keep = tester.required(t)
    for x in list(members):
        if tester.budget.spent():
            break
        if x in keep:
            continue
        rest = [v for v in members if v != x]
        (separation,), _ = tester.separations(
            t, [x], rest, max_cond_size, min_size=1, tested=tested(x)
        )
        if separation.subset is not None:
            members.remove(x)
            if sepsets is not None:
                sepsets[x] = separation.subset
    return members


def _before(members: list[int]):
    """``tested`` for :func:`_backward` after a forward phase that admitted ``members`` in
    this order, each tested against every subset of those before it."""
    order = list(members)  # _backward removes from members as it goes
    position = {v: i for i, v in enumerate(order)}
    return lambda x: order[: position[x]]


def _since(members: list[int], new: int):
    """``tested`` for :func:`_backward` right after ``new`` joined ``members``: each other
    member survived every subset of the rest without ``new`` (the last backward phase), and
    ``new`` every subset of the others (the forward round that admitted it)."""
    others = list(members)
    return lambda x: [v for v in others if v != x and (x == new or v != new)]


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
        if tester.budget.spent():  # no time to check x: kept
            kept.append(x)
            continue
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
    required = sorted(tester.required(t))
    inside = set(required)
    candidates = [x for x in range(len(tester.names)) if x != t and x not in inside]
    screen = tester.tests_given(t, candidates)
    if sepsets is not None:
        for k in np.flatnonzero(screen.independent).tolist():
            sepsets[candidates[k]] = ()
    order = [x for _, x in screen.dependent(candidates)]
    found, pc = tester.separations(t, order, required, max_cond_size, grow=True)
    if sepsets is not None:
        for x, separation in zip(order, found, strict=True):
            if separation.subset is not None:
                sepsets[x] = separation.subset
    admitted = set(pc)
    members = [*required, *(x for x in order if x in admitted)]
    return _backward(tester, t, members, max_cond_size, sepsets, _before(members))


def mmpc_one_way_search(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """MMPC without the symmetry correction: max-min heuristic forward, then backward."""
    members = _max_min_forward(tester, t, max_cond_size, sepsets, prune=False)
    return _backward(tester, t, members, max_cond_size, sepsets, _before(members))


def mmpc_search(tester, t: int, max_cond_size, sepsets=None, memo=None) -> list[int]:
    """MMPC with the symmetry correction (:func:`_symmetric`)."""
    return _symmetric(mmpc_one_way_search, tester, t, max_cond_size, sepsets, memo)


def spouses(
    tester,
    t: int,
    pc: list[int],
    pc_of: Callable[[int], list[int]],
    sepsets: dict[int, tuple],
    fdr: bool = False,
) -> list[int]:
    """Add x (in PC(y) for y in PC(t), x not adjacent to t) when t and x, separated by S,
    become dependent given S + y: the collider t -> y <- x.

    With ``fdr`` the collider tests are decided together, by the Benjamini-Yekutieli
    step-up procedure at the tester's alpha (:func:`by_rejections`): among thousands of
    candidate spouses some noise passes each test at alpha, while the procedure bounds the
    expected share of false spouses among those found (Tsamardinos & Brown 2008 bound local
    learning's false discoveries the same way)."""
    found, tests = [], []
    for y in pc:
        if tester.budget.spent():
            break
        for x in pc_of(y):
            if x == t or x in pc or x in found:
                continue
            sep = sepsets.get(x)
            if sep is None:
                (separation,), _ = tester.separations(t, [x], [v for v in pc if v != x])
                sep = separation.subset
                if sep is None:
                    continue
                sepsets[x] = sep
            if y in sep:
                continue
            result = tester.test_indices(t, x, tuple(sep) + (y,))
            if fdr:
                # a test without enough rows per cell counts as dependent, as it does alone
                tests.append((0.0 if math.isnan(result.p_value) else result.p_value, x))
            elif not result.independent:
                found.append(x)
    if fdr:
        for x in by_rejections(tests, tester.alpha):
            if x not in found:
                found.append(x)
    return found


def by_rejections(tests: list[tuple[float, int]], alpha: float) -> list[int]:
    """The hypotheses the Benjamini-Yekutieli step-up procedure rejects at false discovery
    rate ``alpha`` (valid under any dependence between the tests; Benjamini & Yekutieli,
    Annals of Statistics 29, 2001), in the order given: with the m p-values sorted, the
    largest k with p_(k) <= k alpha / (m H_m), H_m = 1 + 1/2 + ... + 1/m, and every test
    up to it. ``tests`` holds (p-value, label) pairs."""
    m = len(tests)
    if not m:
        return []
    harmonic = sum(1.0 / i for i in range(1, m + 1))
    ranked = sorted(range(m), key=lambda i: tests[i][0])
    k = 0
    for rank, i in enumerate(ranked, start=1):
        if tests[i][0] <= rank * alpha / (m * harmonic):
            k = rank
    kept = set(ranked[:k])
    return [label for i, (_, label) in enumerate(tests) if i in kept]


def blanket_through_pc(tester, t: int, pc: Callable, max_cond_size, fdr: bool = False):
    """The blanket as ``pc`` of the target plus the spouses found through colliders (with
    ``fdr``, decided together: see :func:`spouses`)."""
    sepsets: dict[int, tuple] = {}
    memo: dict[int, tuple] = {}  # one one-way search per node
    members = pc(tester, t, max_cond_size, sepsets, memo=memo)
    return members + spouses(
        tester, t, members, lambda y: pc(tester, y, max_cond_size, memo=memo), sepsets, fdr
    )


def on_tester(tester, v: int, search: Callable) -> list[int]:
    """``search`` for node ``v`` on a plain tester (no node lists): what the whole-network
    learners run per node."""
    return search(NodeLists(tester), v)


PC_SEARCHES = {"hiton": hiton_pc_search, "mmpc": mmpc_search, "pcmb": pcmb_pc_search}
