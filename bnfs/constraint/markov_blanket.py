"""Local Markov-blanket learners (GS, IAMB, inter-IAMB, HITON-PC/MB, MMPC/MMMB) and the
whole-network learners built on blankets (bnlearn's ``gs`` and ``iamb``).

Every learner takes data (or a :class:`~bnfs.citests.CITest` / d-separation oracle), a
``target`` and a test; the local ones return a list of names in column order.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from tqdm.auto import tqdm

from bnfs._validate import check_int
from bnfs.citests import TestName, make_test
from bnfs.constraint._orient import orient
from bnfs.graph import PDAG

__all__ = ["grow_shrink_mb", "iamb_mb", "inter_iamb_mb", "hiton_pc", "hiton_mb", "mmpc",
           "mmmb", "grow_shrink", "iamb"]


def _target(tester, target) -> int:
    try:
        return tester.index(target)
    except ValueError:
        raise ValueError(f"target {target!r} is not a variable of the data") from None


def _subsets(pool, max_size):
    pool = sorted(pool)
    top = len(pool) if max_size is None else min(max_size, len(pool))
    for size in range(top + 1):
        yield from itertools.combinations(pool, size)


def _strength(result) -> tuple[float, float]:
    """Sort key of an association: smaller p-value first, then larger statistic."""
    return (result.p_value, -result.statistic)


# --- the algorithms on variable indices ---------------------------------------------------------

def _shrink(tester, t: int, mb: list[int]) -> list[int]:
    for x in list(mb):
        rest = [v for v in mb if v != x]
        if tester.test_indices(t, x, rest).independent:
            mb.remove(x)
    return mb


def _grow_shrink(tester, t: int) -> list[int]:
    mb: list[int] = []
    changed = True
    while changed:
        changed = False
        for x in range(len(tester.names)):
            if x != t and x not in mb and not tester.test_indices(t, x, mb).independent:
                mb.append(x)
                changed = True
    return _shrink(tester, t, mb)


def _iamb(tester, t: int, interleaved: bool = False) -> list[int]:
    mb: list[int] = []
    tried: set[tuple] = set()
    while True:
        best, best_key = None, None
        for x in range(len(tester.names)):
            if x == t or x in mb:
                continue
            result = tester.test_indices(t, x, mb)
            if result.independent:
                continue
            key = _strength(result)
            if best_key is None or key < best_key:
                best, best_key = x, key
        state = (best, tuple(sorted(mb)))
        if best is None or state in tried:
            break
        tried.add(state)
        mb.append(best)
        if interleaved:
            _shrink(tester, t, mb)
    return _shrink(tester, t, mb)


def _backward(tester, t: int, members: list[int], max_cond_size, sepsets) -> list[int]:
    """Drop each member that some subset of the other members separates from ``t``
    (the marginal tests were done by the forward phase)."""
    for x in list(members):
        rest = [v for v in members if v != x]
        for s in _subsets(rest, max_cond_size):
            if s and tester.test_indices(t, x, s).independent:
                members.remove(x)
                if sepsets is not None:
                    sepsets[x] = s
                break
    return members


def _hiton_pc(tester, t: int, max_cond_size, sepsets: dict[int, tuple] | None = None) -> list[int]:
    """HITON-PC with the symmetry correction: x stays only if t is in HITON-PC(x) too (a
    non-neighbour may be separable only by a subset of its own neighbours)."""
    pc = _hiton_pc_one_way(tester, t, max_cond_size, sepsets)
    return [x for x in pc if t in _hiton_pc_one_way(tester, x, max_cond_size)]


def _hiton_pc_one_way(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """Semi-interleaved HITON-PC: admit candidates by decreasing marginal association unless
    a subset of the current set separates them; then re-check each member."""
    n = len(tester.names)
    marginal = []
    for x in range(n):
        if x == t:
            continue
        result = tester.test_indices(t, x, ())
        if result.independent:
            if sepsets is not None:
                sepsets[x] = ()
        else:
            marginal.append((_strength(result), x))
    pc: list[int] = []
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


def _mmpc_forward_backward(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """MMPC without the symmetry correction: max-min heuristic forward, then backward."""
    n = len(tester.names)
    cpc: list[int] = []
    candidates = [x for x in range(n) if x != t]
    minimum: dict[int, tuple] = {}
    while True:
        best, best_key = None, None
        for x in candidates:
            if x in cpc:
                continue
            worst = None  # the weakest association over subsets of cpc
            for s in _subsets(cpc, max_cond_size):
                result = tester.test_indices(t, x, s)
                if result.independent:
                    worst = None
                    if sepsets is not None:
                        sepsets[x] = s
                    break
                key = _strength(result)
                worst = key if worst is None or key > worst else worst
            minimum[x] = worst
            if worst is not None and (best_key is None or worst < best_key):
                best, best_key = x, worst
        candidates = [x for x in candidates if minimum.get(x) is not None]
        if best is None:
            break
        cpc.append(best)
    return _backward(tester, t, cpc, max_cond_size, sepsets)


def _mmpc(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """MMPC with the symmetry correction: x stays only if t is in MMPC(x) too."""
    pc = _mmpc_forward_backward(tester, t, max_cond_size, sepsets)
    return [x for x in pc if t in _mmpc_forward_backward(tester, x, max_cond_size)]


def _spouses(tester, t: int, pc: list[int], pc_of: Callable[[int], list[int]],
             sepsets: dict[int, tuple]) -> list[int]:
    """Add x (in PC(y) for y in PC(t), x not adjacent to t) when t and x, separated by S,
    become dependent given S + y: the collider t -> y <- x."""
    found = []
    for y in pc:
        for x in pc_of(y):
            if x == t or x in pc or x in found:
                continue
            sep = sepsets.get(x)
            if sep is None:
                sep = next((s for s in _subsets([v for v in pc if v != x], None)
                            if tester.test_indices(t, x, s).independent), None)
                if sep is None:
                    continue
                sepsets[x] = sep
            if y in sep:
                continue
            if not tester.test_indices(t, x, tuple(sep) + (y,)).independent:
                found.append(x)
    return found


# --- public local learners -------------------------------------------------------------------------

def _local(fn, data, target, test, alpha, test_options):
    tester = make_test(data, test, alpha, **test_options)
    t = _target(tester, target)
    found = fn(tester, t)
    return [tester.names[i] for i in sorted(found)]


def grow_shrink_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05,
                   **test_options) -> list[str]:
    """Markov blanket of ``target`` by Grow-Shrink: add every variable dependent on the
    target given the current blanket (repeated until stable), then remove those
    independent given the rest.

    References
    ----------
    D. Margaritis and S. Thrun, "Bayesian network induction via local neighborhoods",
    NIPS 1999.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> grow_shrink_mb(DSeparation(datasets.network("asia")), "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return _local(_grow_shrink, data, target, test, alpha, test_options)


def iamb_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05,
            **test_options) -> list[str]:
    """Markov blanket of ``target`` by IAMB: add the most associated variable (smallest
    p-value given the current blanket) while it is dependent, then shrink.

    References
    ----------
    I. Tsamardinos, C. F. Aliferis and A. Statnikov, "Algorithms for large scale Markov
    blanket discovery", FLAIRS 2003.
    """
    return _local(_iamb, data, target, test, alpha, test_options)


def inter_iamb_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05,
                  **test_options) -> list[str]:
    """Interleaved IAMB: the shrinking phase runs after every addition."""
    return _local(lambda tester, t: _iamb(tester, t, interleaved=True), data, target, test,
                  alpha, test_options)


def hiton_pc(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
             max_cond_size: int | None = None, **test_options) -> list[str]:
    """Parents and children of ``target`` by semi-interleaved HITON-PC (bnlearn's
    ``si.hiton.pc``).

    References
    ----------
    C. F. Aliferis, A. Statnikov, I. Tsamardinos, S. Mani and X. D. Koutsoukos, "Local causal
    and Markov blanket induction for causal discovery and feature selection for
    classification, part I", JMLR 11, 2010.
    """
    max_cond_size = check_int(max_cond_size, "max_cond_size", 0, allow_none=True)
    return _local(lambda tester, t: _hiton_pc(tester, t, max_cond_size), data, target, test,
                  alpha, test_options)


def hiton_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
             max_cond_size: int | None = None, **test_options) -> list[str]:
    """Markov blanket of ``target``: HITON-PC of the target and of each member, plus the
    spouses found through colliders (Aliferis et al. 2010)."""
    max_cond_size = check_int(max_cond_size, "max_cond_size", 0, allow_none=True)

    def run(tester, t):
        sepsets: dict[int, tuple] = {}
        pc = _hiton_pc(tester, t, max_cond_size, sepsets)
        return pc + _spouses(tester, t, pc, lambda y: _hiton_pc(tester, y, max_cond_size), sepsets)

    return _local(run, data, target, test, alpha, test_options)


def mmpc(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
         max_cond_size: int | None = None, **test_options) -> list[str]:
    """Parents and children of ``target`` by Max-Min Parents and Children, with the
    symmetry correction.

    References
    ----------
    I. Tsamardinos, C. F. Aliferis and A. Statnikov, "Time and sample efficient discovery of
    Markov blankets and direct causal relations", KDD 2003.
    """
    max_cond_size = check_int(max_cond_size, "max_cond_size", 0, allow_none=True)
    return _local(lambda tester, t: _mmpc(tester, t, max_cond_size), data, target, test,
                  alpha, test_options)


def mmmb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
         max_cond_size: int | None = None, **test_options) -> list[str]:
    """Markov blanket of ``target`` by MMMB: MMPC of the target and of its members, plus
    spouses through colliders (Tsamardinos et al. 2003)."""
    max_cond_size = check_int(max_cond_size, "max_cond_size", 0, allow_none=True)

    def run(tester, t):
        sepsets: dict[int, tuple] = {}
        pc = _mmpc(tester, t, max_cond_size, sepsets)
        return pc + _spouses(tester, t, pc, lambda y: _mmpc(tester, y, max_cond_size), sepsets)

    return _local(run, data, target, test, alpha, test_options)


# --- whole networks from blankets ----------------------------------------------------------------

def _from_blankets(tester, blanket: Callable[[int], list[int]], algorithm: str,
                   progress, max_cond_size) -> PDAG:
    started = time.perf_counter()
    n = len(tester.names)
    mbs = [set(blanket(v)) for v in tqdm(range(n), desc=algorithm, unit="node",
                                          disable=progress, leave=False)]
    for x in range(n):  # symmetry correction: keep y in MB(x) only if x is in MB(y)
        mbs[x] = {y for y in mbs[x] if x in mbs[y]}
    adjacency = [set() for _ in range(n)]
    sepsets: dict[frozenset, frozenset] = {}
    for x in range(n):
        for y in mbs[x]:
            if y < x:
                continue
            a, b = mbs[x] - {y}, mbs[y] - {x}
            pool = a if len(a) <= len(b) else b
            sep = next((s for s in _subsets(pool, max_cond_size)
                        if tester.test_indices(x, y, s).independent), None)
            if sep is None:
                adjacency[x].add(y)
                adjacency[y].add(x)
            else:
                sepsets[frozenset((x, y))] = frozenset(sep)
    learning = {"algorithm": algorithm, "test": tester.test, "alpha": tester.alpha,
                "arguments": {"max_cond_size": max_cond_size}, "n_tests": tester.n_tests}
    pdag = orient(tester.names, adjacency, sepsets, learning)
    pdag.learning["seconds"] = time.perf_counter() - started
    return pdag


def grow_shrink(data, test: TestName = "g2", alpha: float = 0.05, *,
                max_cond_size: int | None = None, progress: bool | None = None,
                **test_options) -> PDAG:
    """Whole-network Grow-Shrink (bnlearn's ``gs``): the blanket of every node,
    symmetry correction, neighbours among blanket members (no subset of the smaller
    blanket separates them), colliders from the separating sets, Meek's rules."""
    tester = make_test(data, test, alpha, **test_options)
    max_cond_size = check_int(max_cond_size, "max_cond_size", 0, allow_none=True)
    return _from_blankets(tester, lambda v: _grow_shrink(tester, v), "grow_shrink",
                          None if progress is None else not progress, max_cond_size)


def iamb(data, test: TestName = "g2", alpha: float = 0.05, *,
         max_cond_size: int | None = None, progress: bool | None = None,
         **test_options) -> PDAG:
    """Whole-network IAMB (bnlearn's ``iamb``), as :func:`grow_shrink` with IAMB blankets."""
    tester = make_test(data, test, alpha, **test_options)
    max_cond_size = check_int(max_cond_size, "max_cond_size", 0, allow_none=True)
    return _from_blankets(tester, lambda v: _iamb(tester, v), "iamb",
                          None if progress is None else not progress, max_cond_size)
