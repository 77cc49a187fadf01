"""Hybrid Parents and Children (HPC; Gasse, Aussem & Elghazel 2014), the restrict phase of
H2PC: a parents-and-children superset from tests of order 0 and 1, a spouses superset, then
IAMB with a false-discovery-rate threshold on the union, filtered, and one more pass for
false negatives. It keeps more true neighbours than MMPC on small samples.
"""

from __future__ import annotations

from bnfs._real_data import takes_real_data
from bnfs.constraint._sets import NodeLists, cond_size, local_result, subsets, target_index
from bnfs.graphs.local import LocalResult
from bnfs.stats.citests import TestName, make_test

__all__ = ["hpc"]


def _first_separation(tester, x: int, y: int, pool, fixed=()) -> tuple[tuple | None, float]:
    """Test x, y given ``fixed`` + {s} for each s in ``pool`` in turn: (the separating set,
    its p-value) at the first independence, else (None, the largest p-value seen)."""
    largest = 0.0
    for s in pool:
        result = tester.test_indices(x, y, (*fixed, s))
        if result.independent:
            return (*fixed, s), result.p_value
        largest = max(largest, result.p_value)
    return None, largest


def _pc_superset(tester, x: int, nodes: list[int]) -> tuple[dict[int, float], dict[int, tuple]]:
    """DE-PCS: drop the nodes independent of x marginally, then those one other candidate
    separates (weakest first, tried against the strongest first). Returns the p-values of
    the superset and the separating sets found."""
    p_values, dsep = {}, {}
    for y in nodes:
        result = tester.test_indices(x, y, ())
        if result.independent:
            dsep[y] = ()
        else:
            p_values[y] = result.p_value
    if len(p_values) == 1:
        return p_values, dsep
    for y in sorted(p_values, key=lambda v: -p_values[v]):
        against = [v for v in sorted(p_values, key=p_values.get) if v != y]
        if not against:
            continue
        sep, p = _first_separation(tester, x, y, against)
        if sep is not None:
            del p_values[y]
            dsep[y] = sep
        else:
            p_values[y] = max(p_values[y], p)
    return p_values, dsep


def _spouse_superset(
    tester, x: int, nodes: list[int], pcs: list[int], dsep: dict, max_cond_size
) -> list[int]:
    """DE-SPS: for each candidate neighbour c, the nodes y (outside the superset) that c
    makes dependent on x again given y's separating set, less those another such node
    separates (given c)."""
    found: list[int] = []
    outside = [y for y in nodes if y not in pcs]
    for c in pcs:
        p_values = {}
        for y in outside:
            sep = dsep.get(y, ())
            if c in sep or (max_cond_size is not None and len(sep) + 1 > max_cond_size):
                continue
            result = tester.test_indices(x, y, (*sep, c))
            if not result.independent:
                p_values[y] = result.p_value
        for y in sorted(p_values, key=lambda v: -p_values[v]):
            rest = [v for v in p_values if v != y]
            if rest and _first_separation(tester, x, y, rest, fixed=(c,))[0] is not None:
                del p_values[y]
        found += [y for y in p_values if y not in found]
    return found


def _fdr_iamb(
    tester, target: int, nodes: list[int], start: list[int], max_cond_size, keep=frozenset()
) -> list[int]:
    """IAMB with the Benjamini-Yekutieli threshold (bnlearn's ``ia.fdr.markov.blanket``): the
    k-th smallest p-value counts as significant when p m H_m / k <= alpha; one node added or
    removed per round, a recurring blanket settled by freezing its last change; ``keep``
    (in ``start``) is never removed."""
    nodes = [v for v in nodes if v != target]
    m = len(nodes)
    harmonic = sum(1.0 / k for k in range(1, m + 1))
    factor = [m / k * harmonic for k in range(1, m + 1)]
    alpha = tester.alpha
    mb = [v for v in start if v != target]
    seen: list[set[int]] = []
    frozen = list(keep)
    last_added = last_removed = None
    while max_cond_size is None or len(mb) <= max_cond_size:
        if any(set(mb) == s for s in seen):
            if last_removed is not None:
                mb.append(last_removed)
                frozen.append(last_removed)
            elif last_added is not None:
                mb.remove(last_added)
                frozen.append(last_added)
            seen.pop()
        seen.append(set(mb))
        before = list(mb)
        p = {v: tester.test_indices(target, v, [w for w in mb if w != v]).p_value for v in nodes}
        ranked = sorted(nodes, key=p.get)  # stable: ties keep the scan order
        rank = {v: k for k, v in enumerate(ranked)}
        for v in reversed(ranked):
            if v in mb and v != last_added and v not in frozen and p[v] * factor[rank[v]] > alpha:
                mb.remove(v)
                last_added, last_removed = None, v
                break
        if mb != before:
            continue
        for v in ranked:
            if (
                v not in mb
                and v != last_removed
                and v not in frozen
                and p[v] * factor[rank[v]] <= alpha
            ):
                mb.append(v)
                last_added, last_removed = v, None
                break
        if mb == before:
            break
    return mb


def _filter(tester, x: int, mb: list[int], max_cond_size) -> list[int]:
    """The members of ``mb`` that no subset of the others (up to ``max_cond_size``)
    separates from x, and those x requires."""
    keep = tester.required(x)
    return [
        y
        for y in mb
        if y in keep
        or not any(
            tester.test_indices(x, y, s).independent
            for s in subsets([v for v in mb if v != y], max_cond_size)
        )
    ]


def _neighbour_search(tester, x: int, nodes, start, max_cond_size, looking_for=None) -> list[int]:
    keep = tester.required(x)
    mb = _fdr_iamb(
        tester, x, nodes, [*keep, *(v for v in start if v not in keep)], max_cond_size, keep
    )
    if looking_for is not None and looking_for not in mb:
        return []
    return _filter(tester, x, mb, max_cond_size)


def hpc_indices(tester, x: int, max_cond_size=None, bnlearn: bool = False) -> list[int]:
    """HPC on variable indices, candidates scanned in index order. ``bnlearn=True`` skips
    the false-negative search of the two strongest candidates, which is what bnlearn's
    search (started from a set holding its own target) amounts to. Nodes ``x`` requires
    (``tester.required``) are candidates throughout and in the result."""
    nodes = [v for v in range(len(tester.names)) if v != x]
    p_values, dsep = _pc_superset(tester, x, nodes)
    for v in tester.required(x):
        p_values.setdefault(v, 0.0)
        dsep.pop(v, None)
    pcs = sorted(p_values, key=lambda v: -p_values[v])  # weakest first, ties in scan order
    if len(pcs) < 2:
        return pcs
    sps = _spouse_superset(tester, x, nodes, pcs, dsep, max_cond_size)
    if len(pcs) == 2 and not sps:
        return pcs
    start = sorted(pcs, key=p_values.get)[:2]
    pool = [x, *pcs, *sps]
    pc = _neighbour_search(tester, x, pool, start, max_cond_size)
    for y in pcs:
        if bnlearn and y in start:
            continue
        if y not in pc and x in _neighbour_search(
            tester, y, pool, [v for v in start if v != y], max_cond_size, looking_for=x
        ):
            pc.append(y)
    return pc


@takes_real_data(missing="available_cases")
def hpc(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    **test_options,
) -> LocalResult:
    """Parents and children of ``target`` by Hybrid Parents and Children (bnlearn's ``hpc``
    in ``learn.nbr``, the restrict phase of ``h2pc``), one-way: the union with the other
    nodes' sets is taken by :func:`bnfs.h2pc`.

    Steps: DE-PCS (drop nodes independent of the target marginally or given one other
    candidate), DE-SPS (spouse candidates: nodes that a candidate neighbour makes dependent
    again), IAMB with a false-discovery-rate threshold on their union (starting from the two
    most associated candidates), the members no subset of the others separates, and one
    more search from each dropped candidate that puts it back when it finds the target.

    Differs from bnlearn 5.2.1 in one detail: bnlearn starts the false-negative search of a
    candidate from the target's two strongest candidates even when one is the candidate
    itself, so that search conditions on its own target, finds every test independent and
    never puts the two strongest candidates back; here the candidate is left out of its own
    start. On asia, child, insurance and alarm samples this recovers three true neighbours
    bnlearn misses and changes nothing else (``tests/test_hybrid.py`` checks both against
    bnlearn-port).

    ``blacklist`` and ``whitelist`` are lists of variable names, as for the other local
    learners (:mod:`bnfs.constraint.markov_blanket`): blacklisted variables are dropped,
    whitelisted ones start every search and are never removed.

    References
    ----------
    M. Gasse, A. Aussem and H. Elghazel, "A hybrid algorithm for Bayesian network structure
    learning with application to multi-label learning", Expert Systems with Applications
    41(15), 2014.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> hpc(DSeparation(datasets.network("asia")), "either")
    ['tub', 'lung', 'xray', 'dysp']
    """
    tester = make_test(data, test, alpha, **test_options)
    target_index(tester, target)
    view = NodeLists(tester, target, blacklist, whitelist)
    before = tester.n_tests
    found = hpc_indices(view, view.target, cond_size(max_cond_size))
    return local_result(
        tester.in_column_order(view.names[i] for i in found),
        tester,
        target,
        tester.n_tests - before,
        {"max_cond_size": max_cond_size, **view.lists, **test_options},
    )
