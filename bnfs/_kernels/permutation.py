"""Kernels of the permutation searches (BOSS): a node's parents given the nodes before it in
an order, by grow-shrink on the local score, and the best place of one node in the order.

Three named bundles travel together (numba-compatible named tuples, built once by the
search in :mod:`bnfs.search.boss`):

- :class:`Scoring`, read-only: what the local scores read (codes or the Gaussian statistics,
  arities, the score's kind and iss) and the graph prior's log-weight per parent;
- :class:`Knowledge`, read-only: forbidden and required arcs as n-by-n masks, the largest
  parent set, and each node's rank by name, which breaks ties so that the result does not
  depend on the column order;
- :class:`Workspace`, written: the local-score cache (shared with the other searches'
  convention, :mod:`bnfs._kernels.score_cache`), the counters and the scratch arrays.

A parent set is scored once: the cache is keyed by the Zobrist hash of (node, parents), and
every grow or shrink step asks it first.
"""

from collections import namedtuple

import numpy as np

from bnfs._kernels import njit
from bnfs._kernels import score_cache as _c

#: what the local scores read, and the graph prior's log-weight per parent (0: uniform)
Scoring = namedtuple("Scoring", ["codes", "arities", "kind", "iss", "prior"])
#: black- and whitelists as masks ``[parent, child]``, the parent bound, ranks by name
Knowledge = namedtuple("Knowledge", ["forbidden", "required", "max_parents", "rank"])
#: cache and counters (shared with :mod:`bnfs._kernels.score_cache`) and scratch: ``cfg``
#: and ``counts`` for the counting kernels, ``par`` a parent list, ``in_par`` its mask,
#: ``allowed`` the candidate mask, and the per-place scores of :func:`best_place`
Workspace = namedtuple(
    "Workspace",
    ["cache", "counters", "cfg", "counts", "par", "in_par", "allowed", "without", "with_v", "own"],
)

#: a change of score counts only above this (float noise of sums of log-gamma terms)
TOL = 1e-9


@njit(cache=True)
def _family(scoring, ws, v, npar, key):
    """The local score of ``v`` with parents ``ws.par[:npar]`` (cached under ``key``), plus
    the graph prior of its parents."""
    return npar * scoring.prior + _c.cached_score(
        scoring.codes,
        scoring.arities,
        v,
        ws.par,
        npar,
        scoring.kind,
        scoring.iss,
        ws.cfg,
        ws.counts,
        ws.cache,
        key,
        ws.counters,
    )


@njit(cache=True)
def grow_shrink(scoring, know, ws, v):
    """(local score, number of parents) of ``v`` choosing its parents among the nodes that
    ``ws.allowed`` marks: its required parents, then the candidate whose addition raises the
    score most while one does (at most ``max_parents``), then the parent whose removal
    raises it most while one does (never a required one). Ties go to the lower rank. The
    parents are left in ``ws.par`` (in the order they were added)."""
    n = know.rank.shape[0]
    par, in_par = ws.par, ws.in_par
    npar = 0
    key = _c.node_key(v)
    for u in range(n):
        if know.required[u, v]:
            par[npar] = u
            in_par[u] = True
            npar += 1
            key ^= _c.parent_key(u)
    current = _family(scoring, ws, v, npar, key)
    while npar < know.max_parents:
        best_u, best_gain = -1, TOL
        for u in range(n):
            if u == v or in_par[u] or not ws.allowed[u] or know.forbidden[u, v]:
                continue
            par[npar] = u
            gain = _family(scoring, ws, v, npar + 1, key ^ _c.parent_key(u)) - current
            if gain > best_gain or (
                best_u >= 0 and gain == best_gain and know.rank[u] < know.rank[best_u]
            ):
                best_u, best_gain = u, gain
        if best_u < 0:
            break
        par[npar] = best_u
        in_par[best_u] = True
        npar += 1
        key ^= _c.parent_key(best_u)
        current += best_gain
    while npar > 0:
        best_t, best_gain = -1, TOL
        for t in range(npar):
            u = par[t]
            if know.required[u, v]:
                continue
            # the set without par[t], kept in order: swap it to the end and score the rest
            par[t], par[npar - 1] = par[npar - 1], par[t]
            gain = _family(scoring, ws, v, npar - 1, key ^ _c.parent_key(u)) - current
            par[t], par[npar - 1] = par[npar - 1], par[t]
            if gain > best_gain or (
                best_t >= 0 and gain == best_gain and know.rank[u] < know.rank[par[best_t]]
            ):
                best_t, best_gain = t, gain
        if best_t < 0:
            break
        u = par[best_t]
        for t in range(best_t, npar - 1):
            par[t] = par[t + 1]
        npar -= 1
        in_par[u] = False
        key ^= _c.parent_key(u)
        current += best_gain
    for t in range(npar):
        in_par[par[t]] = False
    # the score of the final set, exactly (the running sum of gains drifts in the last bits)
    return _family(scoring, ws, v, npar, key), npar


@njit(cache=True)
def order_parents(scoring, know, ws, order, parents, npar, scores):
    """Each node's parents given the nodes before it in ``order`` (rows of ``parents``,
    counts in ``npar``, local scores in ``scores``); returns the order's score."""
    ws.allowed[:] = False
    total = 0.0
    for k in range(order.shape[0]):
        v = order[k]
        scores[v], npar[v] = grow_shrink(scoring, know, ws, v)
        for t in range(npar[v]):
            parents[v, t] = ws.par[t]
        total += scores[v]
        ws.allowed[v] = True
    return total


@njit(cache=True)
def best_place(scoring, know, ws, order, i):
    """(best position, the order's score with the node there, its score where it is) of the
    node at ``order[i]`` moved anywhere in the order (BOSS's move).

    With the node v taken out, the rest keep their relative order o. For v placed before
    o[j], node o[k] chooses its parents among o[:k], plus v when k >= j; v among o[:j]. So
    each o[k] is grown and shrunk twice (with and without v) and v once per place: 3n
    grow-shrinks score every place. Places that would put v after a required child or
    before a required parent are skipped. Ties go to the earliest place."""
    n = order.shape[0]
    v = order[i]
    without, with_v, own = ws.without, ws.with_v, ws.own
    ws.allowed[:] = False
    lo, hi = 0, n - 1  # the places v may take
    k = 0
    for t in range(n):
        w = order[t]
        if w == v:
            continue
        without[k] = grow_shrink(scoring, know, ws, w)[0]
        if know.forbidden[v, w]:
            with_v[k] = without[k]
        else:
            ws.allowed[v] = True
            with_v[k] = grow_shrink(scoring, know, ws, w)[0]
            ws.allowed[v] = False
        if know.required[w, v]:
            lo = max(lo, k + 1)
        if know.required[v, w]:
            hi = min(hi, k)
        ws.allowed[w] = True
        k += 1
    ws.allowed[:] = False
    for j in range(n):
        own[j] = grow_shrink(scoring, know, ws, v)[0]
        if j < n - 1:
            w = order[j] if j < i else order[j + 1]
            ws.allowed[w] = True
    # total(j) = sum_{k<j} without[k] + sum_{k>=j} with_v[k] + own[j]
    suffix = 0.0
    for k in range(n - 1):
        suffix += with_v[k]
    prefix = 0.0
    best_j, best_total, here = -1, -np.inf, -np.inf
    for j in range(n):
        total = prefix + suffix + own[j]
        if j == i:
            here = total
        if lo <= j <= hi and total > best_total:
            best_j, best_total = j, total
        if j < n - 1:
            prefix += without[j]
            suffix -= with_v[j]
    return best_j, best_total, here
