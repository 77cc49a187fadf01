"""The neighbourhood of one target as a PDAG (parents, children, spouses and the arcs the
data orient among them)."""

from __future__ import annotations

import time

from bnfs.constraint._orient import colliders_from_sepsets, orient
from bnfs.constraint._sets import NodeLists
from bnfs.constraint._sets import cond_size as _cond_size
from bnfs.constraint._sets import target_index as _target
from bnfs.constraint.searches import PC_SEARCHES, spouses
from bnfs.graphs.graph import PDAG
from bnfs.stats.citests import TestName, make_test

__all__ = ["local_structure"]


def local_structure(
    data,
    target: str,
    method: str = "hiton",
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    **test_options,
) -> PDAG:
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
    >>> from bnfs.stats.citests import DSeparation
    >>> local = local_structure(DSeparation(datasets.network("asia")), "either")
    >>> sorted(local.arcs)
    [('bronc', 'dysp'), ('either', 'dysp'), ('either', 'xray'), ('lung', 'either'), ('tub', 'either')]
    >>> local.markov_blanket("either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    started = time.perf_counter()
    if method not in PC_SEARCHES:
        raise ValueError(f"method must be one of {sorted(PC_SEARCHES)}, got {method!r}")
    pc_of_node = PC_SEARCHES[method]
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
    found_spouses = spouses(tester, t, pc, pc_of, sepsets[t])
    members = sorted({t, *pc, *found_spouses})
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
                pair_sepsets.setdefault(
                    frozenset((local[v], local[x])), frozenset(local[w] for w in s if w in local)
                )
    learning = {
        "algorithm": "local_structure",
        "method": method,
        "target": target,
        "test": full.test,
        "alpha": full.alpha,
        "arguments": {"max_cond_size": max_cond_size, **tester.lists, **test_options},
    }
    colliders = colliders_from_sepsets(
        adjacency,
        {pair: [sep] for pair, sep in pair_sepsets.items()},
        lambda a, b, s: tester.test_indices(members[a], members[b], [members[w] for w in s]),
    )
    pdag = orient(
        [tester.names[v] for v in members],
        adjacency,
        colliders,
        learning,
        full.in_column_order(tester.names[v] for v in members),
    )
    pdag.learning["n_tests"] = full.n_tests
    pdag.learning["seconds"] = time.perf_counter() - started
    return pdag
