"""Local Markov-blanket learners (GS, IAMB, inter-IAMB, fast-IAMB, KIAMB, HITON-PC/MB,
MMPC/MMMB, PCMB), the target's local structure as a PDAG, and the whole-network learners built
on blankets (bnlearn's ``gs``, ``iamb``, ``fast.iamb``, ``inter.iamb``).

Every learner takes data (or a :class:`~bnfs.citests.CITest` / d-separation oracle), a
``target`` and a test; the local ones return a list of names in column order
(:class:`~bnfs.constraint.LocalResult`, with its ``learning`` provenance).

The local learners take ``blacklist`` and ``whitelist`` as lists of variable names, with the
semantics of bnlearn's ``learn.mb`` and ``learn.nbr`` (tested against bnlearn-port): a
blacklisted variable is dropped from the search (never a candidate, never conditioned on, for
the target or any node a symmetry check or spouse search visits); a whitelisted one is in the
target's set from the start and never removed. The whole-network learners take (from, to)
pairs, as the score-based ones do.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable

from tqdm.auto import tqdm

from bnfs._validate import check_float, check_seed
from bnfs.citests import TestName, make_test
from bnfs.constraint._orient import colliders_from_blankets, colliders_from_sepsets, orient
from bnfs.constraint._parallel import check_n_jobs, map_tests
from bnfs.constraint._sets import Knowledge, LocalResult, NodeLists
from bnfs.constraint._sets import cond_size as _cond_size
from bnfs.constraint._sets import subsets as _subsets
from bnfs.constraint._sets import target_index as _target
from bnfs.graph import PDAG

__all__ = ["grow_shrink_mb", "iamb_mb", "inter_iamb_mb", "fast_iamb_mb", "kiamb_mb", "hiton_pc",
           "hiton_mb", "mmpc", "mmmb", "pcmb", "local_structure", "grow_shrink", "iamb",
           "inter_iamb", "fast_iamb"]


def _strength(result) -> tuple[float, float]:
    """Sort key of an association: smaller p-value first, then larger statistic."""
    return (result.p_value, -result.statistic)


# --- the algorithms on variable indices ---------------------------------------------------------

def _shrink(tester, t: int, mb: list[int]) -> list[int]:
    keep = tester.required(t)
    for x in list(mb):
        if x in keep:
            continue
        rest = [v for v in mb if v != x]
        if tester.test_indices(t, x, rest).independent:
            mb.remove(x)
    return mb


def _grow_shrink(tester, t: int) -> list[int]:
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


def _iamb(tester, t: int, interleaved: bool = False) -> list[int]:
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


def _fast_iamb(tester, t: int, rows_per_cell: float) -> list[int]:
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


def _kiamb(tester, t: int, k: float, rng) -> list[int]:
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


def _pcmb_pc(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """PCMB's GetPC: x in GetPCD(t) stays when t is in GetPCD(x) too."""
    pcd = _max_min_forward(tester, t, max_cond_size, sepsets, prune=True)
    return [x for x in pcd if t in _max_min_forward(tester, x, max_cond_size, None, prune=True)]


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


def _hiton_pc(tester, t: int, max_cond_size, sepsets: dict[int, tuple] | None = None) -> list[int]:
    """HITON-PC with the symmetry correction: x stays only if t is in HITON-PC(x) too (a
    non-neighbour may be separable only by a subset of its own neighbours)."""
    pc = _hiton_pc_one_way(tester, t, max_cond_size, sepsets)
    return [x for x in pc if t in _hiton_pc_one_way(tester, x, max_cond_size)]


def _hiton_pc_one_way(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
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


def _mmpc_forward_backward(tester, t: int, max_cond_size, sepsets=None) -> list[int]:
    """MMPC without the symmetry correction: max-min heuristic forward, then backward."""
    members = _max_min_forward(tester, t, max_cond_size, sepsets, prune=False)
    return _backward(tester, t, members, max_cond_size, sepsets)


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

#: local learners that condition on whole blankets: their tests stay unadjusted by default
_WHOLE_BLANKET = ("grow_shrink_mb", "iamb_mb", "inter_iamb_mb", "fast_iamb_mb", "kiamb_mb")


def _local(algorithm, fn, data, target, test, alpha, test_options, blacklist,
           whitelist) -> LocalResult:
    started = time.perf_counter()
    tester = make_test(data, test, alpha, adjust_by_default=algorithm not in _WHOLE_BLANKET,
                       **test_options)
    _target(tester, target)
    view = NodeLists(tester, target, blacklist, whitelist)
    before = tester.n_tests
    found = tester.in_column_order(view.names[i] for i in fn(view, view.target))
    return LocalResult(found, tester, algorithm, target, tester.n_tests - before,
                       time.perf_counter() - started, {**view.lists, **test_options})


def _on_tester(tester, v: int, search: Callable) -> list[int]:
    """``search`` for node ``v`` on a plain tester (no node lists): what the whole-network
    learners run per node."""
    return search(NodeLists(tester), v)


def grow_shrink_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
                   blacklist=None, whitelist=None, **test_options) -> LocalResult:
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
    return _local("grow_shrink_mb", _grow_shrink, data, target, test, alpha, test_options,
                  blacklist, whitelist)


def iamb_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
            blacklist=None, whitelist=None, **test_options) -> LocalResult:
    """Markov blanket of ``target`` by IAMB: add the most associated variable (smallest
    p-value given the current blanket) while it is dependent, then shrink.

    References
    ----------
    I. Tsamardinos, C. F. Aliferis and A. Statnikov, "Algorithms for large scale Markov
    blanket discovery", FLAIRS 2003.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> iamb_mb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return _local("iamb_mb", _iamb, data, target, test, alpha, test_options, blacklist, whitelist)


def inter_iamb_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
                  blacklist=None, whitelist=None, **test_options) -> LocalResult:
    """Interleaved IAMB: the shrinking phase runs after every addition.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> inter_iamb_mb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return _local("inter_iamb_mb", functools.partial(_iamb, interleaved=True), data, target,
                  test, alpha, test_options, blacklist, whitelist)


def hiton_pc(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
             max_cond_size: int | None = None, symmetry: bool = True,
             blacklist=None, whitelist=None, **test_options) -> LocalResult:
    """Parents and children of ``target`` by semi-interleaved HITON-PC (bnlearn's
    ``si.hiton.pc``).

    With ``symmetry`` (the default) x stays only if ``target`` is in HITON-PC(x) too,
    which removes non-neighbours that only their own neighbours separate. Without it,
    the one-way set of GLL-PC without symmetry correction (Aliferis et al. 2010), which
    feature selection uses: with near-copies of features (not faithful) the symmetric
    version can empty the set, because each copy separates the others from the target.

    References
    ----------
    C. F. Aliferis, A. Statnikov, I. Tsamardinos, S. Mani and X. D. Koutsoukos, "Local causal
    and Markov blanket induction for causal discovery and feature selection for
    classification, part I", JMLR 11, 2010.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> hiton_pc(oracle, "either")
    ['tub', 'lung', 'xray', 'dysp']
    """
    if not isinstance(symmetry, bool):
        raise TypeError(f"symmetry must be True or False, got {symmetry!r}")
    search = _hiton_pc if symmetry else _hiton_pc_one_way
    return _local("hiton_pc", functools.partial(search, max_cond_size=_cond_size(max_cond_size)),
                  data, target, test, alpha, test_options, blacklist, whitelist)


def hiton_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
             max_cond_size: int | None = None, blacklist=None, whitelist=None,
             **test_options) -> LocalResult:
    """Markov blanket of ``target``: HITON-PC of the target and of each member, plus the
    spouses found through colliders (Aliferis et al. 2010).

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> hiton_mb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return _local("hiton_mb", functools.partial(_blanket_through_pc, pc=_hiton_pc,
                                                max_cond_size=_cond_size(max_cond_size)),
                  data, target, test, alpha, test_options, blacklist, whitelist)


def mmpc(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
         max_cond_size: int | None = None, symmetry: bool = True,
         blacklist=None, whitelist=None, **test_options) -> LocalResult:
    """Parents and children of ``target`` by Max-Min Parents and Children, with the
    symmetry correction (x stays only if ``target`` is in MMPC(x) too) unless
    ``symmetry=False``: the one-way set, which is what bnlearn's ``learn.nbr`` returns.

    References
    ----------
    I. Tsamardinos, C. F. Aliferis and A. Statnikov, "Time and sample efficient discovery of
    Markov blankets and direct causal relations", KDD 2003.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> mmpc(oracle, "either")
    ['tub', 'lung', 'xray', 'dysp']
    """
    if not isinstance(symmetry, bool):
        raise TypeError(f"symmetry must be True or False, got {symmetry!r}")
    search = _mmpc if symmetry else _mmpc_forward_backward
    return _local("mmpc", functools.partial(search, max_cond_size=_cond_size(max_cond_size)),
                  data, target, test, alpha, test_options, blacklist, whitelist)


def mmmb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
         max_cond_size: int | None = None, blacklist=None, whitelist=None,
         **test_options) -> LocalResult:
    """Markov blanket of ``target`` by MMMB: MMPC of the target and of its members, plus
    spouses through colliders (Tsamardinos et al. 2003).

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> mmmb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return _local("mmmb", functools.partial(_blanket_through_pc, pc=_mmpc,
                                            max_cond_size=_cond_size(max_cond_size)),
                  data, target, test, alpha, test_options, blacklist, whitelist)


def fast_iamb_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
                 rows_per_cell: float = 5.0, blacklist=None, whitelist=None,
                 **test_options) -> LocalResult:
    """Markov blanket of ``target`` by fast-IAMB: each growing round admits several
    dependent candidates (strongest first) while the tests keep ``rows_per_cell`` rows per
    table cell, then shrinks; fewer rounds, so fewer tests than IAMB.

    References
    ----------
    S. Yaramakala and D. Margaritis, "Speculative Markov blanket discovery for optimal
    feature selection", ICDM 2005.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> fast_iamb_mb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    rows_per_cell = check_float(rows_per_cell, "rows_per_cell", 0.0)
    return _local("fast_iamb_mb", functools.partial(_fast_iamb, rows_per_cell=rows_per_cell),
                  data, target, test, alpha, test_options, blacklist, whitelist)


def kiamb_mb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *, k: float = 0.8,
             seed=None, blacklist=None, whitelist=None, **test_options) -> LocalResult:
    """Markov blanket of ``target`` by KIAMB, the stochastic IAMB: each step adds the most
    associated of a random ``k`` fraction of the dependent candidates. ``k = 1`` is IAMB;
    smaller ``k`` with different seeds finds the alternative blankets of data that are not
    faithful to any DAG (Peña et al. recommend k around 0.8).

    References
    ----------
    J. M. Peña, R. Nilsson, J. Björkegren and J. Tegnér, "Towards scalable and data efficient
    learning of Markov boundaries", IJAR 45, 2007.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> kiamb_mb(DSeparation(datasets.network("asia")), "either", k=0.5, seed=1)
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    k = check_float(k, "k", 0.0, 1.0)
    rng = check_seed(seed)
    return _local("kiamb_mb", lambda tester, t: _kiamb(tester, t, k, rng), data, target,
                  test, alpha, test_options, blacklist, whitelist)


def pcmb(data, target: str, test: TestName = "g2", alpha: float = 0.05, *,
         max_cond_size: int | None = None, blacklist=None, whitelist=None,
         **test_options) -> LocalResult:
    """Markov blanket of ``target`` by PCMB: GetPCD (max-min forward with pruning after
    every admission), the symmetry check GetPC, and spouses through colliders.

    References
    ----------
    J. M. Peña, R. Nilsson, J. Björkegren and J. Tegnér, "Towards scalable and data efficient
    learning of Markov boundaries", IJAR 45, 2007.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> pcmb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return _local("pcmb", functools.partial(_blanket_through_pc, pc=_pcmb_pc,
                                            max_cond_size=_cond_size(max_cond_size)),
                  data, target, test, alpha, test_options, blacklist, whitelist)


def _blanket_through_pc(tester, t: int, pc: Callable, max_cond_size) -> list[int]:
    sepsets: dict[int, tuple] = {}
    members = pc(tester, t, max_cond_size, sepsets)
    return members + _spouses(tester, t, members, lambda y: pc(tester, y, max_cond_size),
                              sepsets)


_PC_METHODS = {"hiton": _hiton_pc, "mmpc": _mmpc, "pcmb": _pcmb_pc}


def local_structure(data, target: str, method: str = "hiton", test: TestName = "g2",
                    alpha: float = 0.05, *, max_cond_size: int | None = None,
                    blacklist=None, whitelist=None, **test_options) -> PDAG:
    """The neighbourhood of ``target`` as a PDAG: the target, its parents and children
    (by ``method``), their own parents and children among the blanket, and the spouses;
    colliders oriented from the separating sets found on the way, then Meek's rules.

    Its ``markov_blanket(target)`` is what :func:`hiton_mb` / :func:`mmmb` / :func:`pcmb`
    return, and arcs into or out of the target say which members are parents and which
    are children where the data decide it (edges stay undirected where they do not).

    Parameters
    ----------
    method : {"hiton", "mmpc", "pcmb"}
        The parents-and-children learner run on the target and each member.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> local = local_structure(DSeparation(datasets.network("asia")), "either")
    >>> sorted(local.arcs)
    [('bronc', 'dysp'), ('either', 'dysp'), ('either', 'xray'), ('lung', 'either'), ('tub', 'either')]
    >>> local.markov_blanket("either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    started = time.perf_counter()
    if method not in _PC_METHODS:
        raise ValueError(f"method must be one of {sorted(_PC_METHODS)}, got {method!r}")
    pc_of_node = _PC_METHODS[method]
    max_cond_size = _cond_size(max_cond_size)
    full = make_test(data, test, alpha, adjust_by_default=True, **test_options)
    _target(full, target)
    tester = NodeLists(full, target, blacklist, whitelist)
    t = tester.target
    sepsets: dict[int, dict[int, tuple]] = {}
    pcs: dict[int, list[int]] = {}

    def pc_of(v: int) -> list[int]:
        if v not in pcs:
            sepsets[v] = {}
            pcs[v] = pc_of_node(tester, v, max_cond_size, sepsets[v])
        return pcs[v]

    pc = pc_of(t)
    spouses = _spouses(tester, t, pc, pc_of, sepsets[t])
    members = sorted({t, *pc, *spouses})
    local = {v: i for i, v in enumerate(members)}
    adjacency = [set() for _ in members]
    for y in pc:
        for x in [t, *pc_of(y)]:
            if x in local:
                adjacency[local[x]].add(local[y])
                adjacency[local[y]].add(local[x])
    pair_sepsets = {}
    for v, found in sepsets.items():
        for x, s in found.items():
            if x in local:
                pair_sepsets.setdefault(frozenset((local[v], local[x])),
                                        frozenset(local[w] for w in s if w in local))
    learning = {"algorithm": "local_structure", "method": method, "target": target,
                "test": full.test, "alpha": full.alpha,
                "arguments": {"max_cond_size": max_cond_size, **tester.lists, **test_options}}
    colliders = colliders_from_sepsets(
        adjacency, {pair: [sep] for pair, sep in pair_sepsets.items()},
        lambda a, b, s: tester.test_indices(members[a], members[b], [members[w] for w in s]))
    pdag = orient([tester.names[v] for v in members], adjacency, colliders, learning,
                  full.in_column_order(tester.names[v] for v in members))
    pdag.learning["n_tests"] = full.n_tests
    pdag.learning["seconds"] = time.perf_counter() - started
    return pdag


# --- whole networks from blankets ----------------------------------------------------------------

def _neighbours_among_blankets(tester, pair, mbs, max_cond_size):
    """Whether a blanket pair x, y stays adjacent, as bnlearn's ``neighbour`` decides it from
    both sides (then keeps the pair only if both do): each side searches the smaller of
    MB(x) - {y} and MB(y) - {x} for a separating set (the other side's blanket on a tie, so
    a tie searches both), and a node whose blanket has one member keeps it untested."""
    x, y = pair
    a, b = mbs[x] - {y}, mbs[y] - {x}
    pools = []
    if len(mbs[x]) > 1:
        pools.append(a if len(a) < len(b) else b)
    if len(mbs[y]) > 1:
        pools.append(b if len(b) < len(a) else a)
    for pool in dict.fromkeys(map(frozenset, pools)):
        if any(tester.test_indices(x, y, s).independent
               for s in _subsets(pool, max_cond_size)):
            return False
    return True


def _from_blankets(data, test, alpha, test_options, blanket: Callable, algorithm: str,
                   progress, max_cond_size, n_jobs, arguments=None, blacklist=None,
                   whitelist=None) -> PDAG:
    """bnlearn's blanket-based network learners: the blanket of every node (in parallel),
    the symmetry correction, neighbours = blanket members no subset of the smaller blanket
    separates (in parallel), bnlearn's collider rule (:func:`colliders_from_blankets`),
    bnlearn's propagation of directions (:mod:`bnfs.constraint._bnlearn_cpdag`)."""
    started = time.perf_counter()
    tester = make_test(data, test, alpha, **test_options)
    max_cond_size = _cond_size(max_cond_size)
    known = Knowledge(tester, blacklist, whitelist)
    n_jobs = check_n_jobs(n_jobs)
    n = len(tester.names)
    nodes = list(range(n))
    if n_jobs == 1:
        disable = None if progress is None else not progress
        nodes = tqdm(nodes, desc=algorithm, unit=" nodes", disable=disable, leave=False)
    per_node = functools.partial(_on_tester, search=blanket)
    mbs = [set(mb) for mb in map_tests(tester, per_node, nodes, n_jobs)]
    for x in range(n):  # symmetry correction: keep y in MB(x) only if x is in MB(y)
        mbs[x] = {y for y in mbs[x] if x in mbs[y]}
    pairs = [(x, y) for x in range(n) for y in sorted(mbs[x]) if x < y and known.testable(x, y)]
    found = map_tests(tester, functools.partial(_neighbours_among_blankets, mbs=mbs,
                                                max_cond_size=max_cond_size), pairs, n_jobs)
    adjacency = [set() for _ in range(n)]
    for x, y in map(sorted, known.required):
        adjacency[x].add(y)
        adjacency[y].add(x)
    for (x, y), adjacent in zip(pairs, found):
        if adjacent:
            adjacency[x].add(y)
            adjacency[y].add(x)
    rank = [tester.column_order.index(v) for v in tester.names]
    colliders = colliders_from_blankets(adjacency, mbs, tester.test_indices, max_cond_size,
                                        rank)
    learning = {"algorithm": algorithm, "test": tester.test, "alpha": tester.alpha,
                "arguments": {"max_cond_size": max_cond_size, **(arguments or {}),
                              **known.lists, **test_options},
                "n_tests": tester.n_tests, "n_jobs": n_jobs}
    pdag = orient(tester.names, adjacency, colliders, learning, tester.column_order, known.arcs,
                  propagation="bnlearn", lists=bool(blacklist or whitelist))
    pdag.learning["seconds"] = time.perf_counter() - started
    return pdag


_GLOBAL_PARAMETERS = """
    Parameters
    ----------
    data : discrete data, continuous data (with ``test="fisher_z"``), or a
        :class:`~bnfs.citests.CITest` / :class:`~bnfs.citests.DSeparation` oracle
    test : {"g2", "mi", "x2", "mi_adf", "x2_adf", "mi_threshold", "fisher_z"}
    alpha : float in (0, 1)
    max_cond_size : int, optional
        Largest separating set tried between blanket members (default: no limit).
    blacklist, whitelist : list of (from, to) pairs, optional
        As :func:`bnfs.pc_stable`: a pair blacklisted both ways is never adjacent, one with
        a whitelisted arc always is (neither is tested); the lists' arcs are oriented first.
    progress : bool, optional
    n_jobs : int, optional
        joblib workers for the per-node blankets and the per-pair separation tests
        (-1: every core). The result is the same for any value.
    **test_options
        ``threshold``, ``adjust_df``, ``min_rows_per_cell`` of :class:`~bnfs.citests.CITest`.

    Returns
    -------
    PDAG
"""


def grow_shrink(data, test: TestName = "g2", alpha: float = 0.05, *,
                max_cond_size: int | None = None, blacklist=None, whitelist=None,
                progress: bool | None = None, n_jobs: int | None = None,
                **test_options) -> PDAG:
    return _from_blankets(data, test, alpha, test_options, _grow_shrink, "grow_shrink",
                          progress, max_cond_size, n_jobs, None, blacklist, whitelist)


def iamb(data, test: TestName = "g2", alpha: float = 0.05, *,
         max_cond_size: int | None = None, blacklist=None, whitelist=None,
         progress: bool | None = None, n_jobs: int | None = None, **test_options) -> PDAG:
    return _from_blankets(data, test, alpha, test_options, _iamb, "iamb", progress,
                          max_cond_size, n_jobs, None, blacklist, whitelist)


def inter_iamb(data, test: TestName = "g2", alpha: float = 0.05, *,
               max_cond_size: int | None = None, blacklist=None, whitelist=None,
               progress: bool | None = None, n_jobs: int | None = None,
               **test_options) -> PDAG:
    return _from_blankets(data, test, alpha, test_options,
                          functools.partial(_iamb, interleaved=True), "inter_iamb", progress,
                          max_cond_size, n_jobs, None, blacklist, whitelist)


def fast_iamb(data, test: TestName = "g2", alpha: float = 0.05, *,
              rows_per_cell: float = 5.0, max_cond_size: int | None = None,
              blacklist=None, whitelist=None, progress: bool | None = None,
              n_jobs: int | None = None, **test_options) -> PDAG:
    rows_per_cell = check_float(rows_per_cell, "rows_per_cell", 0.0)
    return _from_blankets(data, test, alpha, test_options,
                          functools.partial(_fast_iamb, rows_per_cell=rows_per_cell),
                          "fast_iamb", progress, max_cond_size, n_jobs,
                          {"rows_per_cell": rows_per_cell}, blacklist, whitelist)


grow_shrink.__doc__ = """Whole-network Grow-Shrink (bnlearn's ``gs``): the Grow-Shrink
    blanket of every node, symmetry correction, neighbours among blanket members,
    colliders by bnlearn's rule (x - z - y is one when x and y stay dependent given z plus
    every subset of the smaller of their blankets; applied whole, strongest first), then
    bnlearn's propagation of directions, which is Meek's rules where the colliders agree
    (Margaritis & Thrun 1999).

    The steps after the blankets are bnlearn 5.2.1's (its R sources): adjacency decided from
    both sides, each searching the smaller blanket (both on a tie); the collider search in
    the blanket of the pair's later column on a tie (R's ``smaller()``; bnlearn-port's
    Python port takes the earlier one, so the two can differ by a collider). The blankets
    themselves differ from bnlearn's in one deliberate way: where candidates tie on the
    p-value (at 0 for strong associations in large samples), IAMB admits the one with the
    larger statistic, bnlearn the first column. On bnlearn's parity data the graphs are
    equal; on alarm-3000 samples a few blankets differ for that reason.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> iamb(oracle)  # the CPDAG of asia
    PDAG(8 nodes, 5 arcs, 3 edges)
    """ + _GLOBAL_PARAMETERS + """
    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.citests import DSeparation
    >>> truth = datasets.network("asia")
    >>> grow_shrink(DSeparation(truth)) == truth.cpdag()
    True
"""
iamb.__doc__ = """Whole-network IAMB (bnlearn's ``iamb``): as :func:`grow_shrink` with
    IAMB blankets (Tsamardinos et al. 2003).
""" + _GLOBAL_PARAMETERS
inter_iamb.__doc__ = """Whole-network interleaved IAMB (bnlearn's ``inter.iamb``).
""" + _GLOBAL_PARAMETERS
fast_iamb.__doc__ = """Whole-network fast-IAMB (bnlearn's ``fast.iamb``); ``rows_per_cell`` as
    in :func:`fast_iamb_mb` (Yaramakala & Margaritis 2005).
""" + _GLOBAL_PARAMETERS
