"""Kernels of the permutation searches (BOSS, GRaSP): a node's parents given the nodes before
it in an order, by grow-shrink on the local score, the best place of one node in the order
(BOSS's move) and the tuck of one arc (GRaSP's move).

Grow-shrink of node w among the allowed nodes A adds, while one raises the score, the
allowed candidate whose addition raises it most, then drops, while one raises it, the parent
whose removal raises it most. Its grow-shrink tree (Andrews et al. 2023) remembers the work:
a tree node is a parent set grown so far, with every candidate that would raise its score
sorted best first (ties by name rank) and, per candidate, the tree node one step further.
Growing among A then walks down the tree taking the first allowed candidate at each level;
shrinking depends on the grown set only, so each tree node also keeps its shrunk result. A
search asks grow-shrink for the same node thousands of times with sets that differ by one
node, and nearly every call is a walk down paths already built.

Named bundles travel together (numba-compatible named tuples, built once by the search in
:mod:`bnfs.search.boss`):

- :class:`~bnfs._kernels.score_cache.Scoring`, read-only: what the local scores read (codes
  or the Gaussian statistics, arities, the score's kind and iss) and the graph prior's
  log-weights of arcs;
- :class:`Knowledge`, read-only: forbidden and required arcs as n-by-n masks, the largest
  parent set, and the nodes by name rank (``by_rank``) and each node's rank (``rank``),
  which break ties so that the result does not depend on the column order;
- :class:`Workspace`, written: the scoring kernels' scratch (the local-score cache and
  counters of :mod:`bnfs._kernels.score_cache`, shared with the other searches) and the
  searches' own scratch arrays;
- :class:`Trees`, written: the grow-shrink trees of all nodes, in pools that the caller
  grows (or empties) when a kernel reports :data:`TREES_FULL`, and the count of local
  scores at which a kernel pauses so that the caller can check its time budget;
- :class:`Placement`, written: an order and the DAG it gives, which GRaSP's tucks update in
  place; :class:`Frame`, written: one level of GRaSP's depth-first search.
"""

from collections import namedtuple

import numpy as np

import bnfs._kernels.dispatch as _g
import bnfs._kernels.score_cache as _c
from bnfs._kernels._compile import njit
from bnfs._kernels.score_cache import Scoring  # noqa: F401  (the searches build it)
from bnfs._kernels.sorting import argsort_stable

#: black- and whitelists as masks ``[parent, child]``, the parent bound, name ranks, and the
#: family bound: a candidate parent is not offered when the parent configurations would pass
#: ``max_configs`` (``arity``: each node's number of values as a parent, 1 for continuous)
Knowledge = namedtuple(
    "Knowledge", ["forbidden", "required", "max_parents", "by_rank", "rank", "arity", "max_configs"]
)
#: the scoring kernels' :class:`~bnfs._kernels.score_cache.Scratch` (cache, counters,
#: counting scratch; one row) and the searches' own scratch: ``par`` a parent list,
#: ``in_par`` its mask, ``allowed`` the candidate mask, ``gains`` and ``pick`` for sorting
#: candidates, the per-place scores of :func:`best_place` and each node's local score in
#: the current order (``placed``)
Workspace = namedtuple(
    "Workspace",
    [
        "scratch",
        "par",
        "in_par",
        "allowed",
        "gains",
        "pick",
        "without",
        "with_v",
        "own",
        "placed",
    ],
)
#: the grow-shrink trees: ``root[w]`` (-1: not built); per tree node its grown set
#: (``grown_start``/``grown_len`` into ``sets``), its candidates (``cand_start``/``cand_len``
#: into ``cand_u`` and ``cand_child``, the next tree node or -1) and its shrunk result
#: (``shrunk_start``/``shrunk_len`` into ``sets``, ``shrunk_score``); ``used`` counts the
#: tree nodes, candidates and set entries in use and holds the pause (slots below)
Trees = namedtuple(
    "Trees",
    [
        "root",
        "grown_start",
        "grown_len",
        "cand_start",
        "cand_len",
        "shrunk_start",
        "shrunk_len",
        "shrunk_score",
        "cand_u",
        "cand_child",
        "sets",
        "used",
    ],
)

#: a change of score counts only above this (float noise of sums of log-gamma terms)
TOL = 1e-9
#: slots of ``Trees.used``: the tree nodes, candidates and set entries in use; the count of
#: local scores (``score_cache.N_SCORES``) at which a kernel pauses (0: never) and the flag
#: set when it did
TREE_NODES, CANDIDATES, SET_ENTRIES, PAUSE_AT, PAUSED = range(5)
USED_SLOTS = 5
#: what :func:`grow_shrink` returns as its parent count, and :func:`best_place` as its
#: position, when a pool is full or the kernel paused (``Trees.used[PAUSED]`` set): the
#: caller grows the pools (or empties the trees), or checks its time budget, and calls
#: again; the trees keep the work done, so the call goes on where it stopped
TREES_FULL = -1


@njit(cache=True)
def _prior(scoring, ws, v, npar):
    """The graph prior's weight of the arcs from ``ws.par[:npar]`` into ``v``."""
    return _c.parents_weight(scoring.prior, v, ws.par, npar)


@njit(cache=True)
def _family(scoring, ws, v, npar, key):
    """The local score of ``v`` with parents ``ws.par[:npar]`` (cached under ``key``), plus
    the graph prior of its parents."""
    return _prior(scoring, ws, v, npar) + _c.cached_score(scoring, ws.scratch, v, ws.par, npar, key)


@njit(cache=True)
def _shrink(scoring, know, ws, v, npar, key):
    """Drop from ``ws.par[:npar]`` (its mask ``ws.in_par`` set), while one raises the
    score, the parent whose removal raises it most (never a required one; ties to the lower
    rank); returns (score, parents left, key). ``ws.in_par`` is cleared."""
    par = ws.par
    current = _family(scoring, ws, v, npar, key)
    while npar > 0:
        best_t, best_gain = -1, TOL
        for t in range(npar):
            u = par[t]
            if know.required[u, v]:
                continue
            # the set without par[t]: swap it to the end and score the rest
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
        key ^= _c.parent_key(u)
        current = _family(scoring, ws, v, npar, key)
    for t in range(npar):
        ws.in_par[par[t]] = False
    for u in range(ws.in_par.shape[0]):
        ws.in_par[u] = False
    return current, npar, key


@njit(cache=True)
def _expand(scoring, know, ws, trees, v, npar, key):
    """A new tree node for ``v`` with the grown set ``ws.par[:npar]`` (mask ``ws.in_par``):
    its candidates sorted best first and its shrunk result; returns its index, or -1 when
    a pool is full or the local scores counted reached ``used[PAUSE_AT]`` (then
    ``used[PAUSED]`` is set): on wide data one call of a search's kernel can grow thousands
    of tree nodes, and the caller checks its time budget between calls."""
    n = know.rank.shape[0]
    used = trees.used
    if used[PAUSE_AT] > 0 and ws.scratch.counters[_c.N_SCORES] >= used[PAUSE_AT]:
        used[PAUSED] = 1
        return -1
    if (
        used[TREE_NODES] >= trees.grown_start.shape[0]
        or used[CANDIDATES] + n > trees.cand_u.shape[0]
        or used[SET_ENTRIES] + 2 * npar > trees.sets.shape[0]
    ):
        return -1
    t = used[TREE_NODES]
    used[TREE_NODES] += 1
    here = _family(scoring, ws, v, npar, key)
    here_fit = here - _prior(scoring, ws, v, npar)
    weights, scratch = scoring.prior, ws.scratch
    q = -1  # the grown set's configurations, counted at the first candidate not cached
    room = know.max_configs  # configurations a candidate may multiply the grown set's by
    for k in range(npar):
        room /= know.arity[ws.par[k]]
    m = 0
    for r in range(n):  # in rank order, so the stable sort below breaks ties by rank
        u = know.by_rank[r]
        if u == v or ws.in_par[u] or know.forbidden[u, v] or know.arity[u] > max(room, 1.0):
            continue
        child = key ^ _c.parent_key(u)
        if child in scratch.cache:
            scratch.counters[_c.N_HITS] += 1
            fit = scratch.cache[child]
        else:
            if q < 0:
                q = _g.configurations(scoring, scratch, ws.par, npar)
            fit = _g.toggled_score(scoring, scratch, 0, v, u, False, ws.par, npar, q)
            scratch.counters[_c.N_SCORES] += 1
            _c.store(scratch.cache, child, fit)
        gain = fit - here_fit + _c.arc_weight(weights, u, v)
        if gain > TOL:
            ws.gains[m] = -gain
            ws.pick[m] = u
            m += 1
    order = argsort_stable(ws.gains[:m])
    start = used[CANDIDATES]
    for k in range(m):
        trees.cand_u[start + k] = ws.pick[order[k]]
        trees.cand_child[start + k] = -1
    used[CANDIDATES] += m
    trees.cand_start[t], trees.cand_len[t] = start, m
    start = used[SET_ENTRIES]
    for k in range(npar):
        trees.sets[start + k] = ws.par[k]
    trees.grown_start[t], trees.grown_len[t] = start, npar
    used[SET_ENTRIES] += npar
    # the shrunk result depends on the grown set only
    score, kept, _ = _shrink(scoring, know, ws, v, npar, key)
    start = used[SET_ENTRIES]
    for k in range(kept):
        trees.sets[start + k] = ws.par[k]
    trees.shrunk_start[t], trees.shrunk_len[t] = start, kept
    trees.shrunk_score[t] = score
    used[SET_ENTRIES] += kept
    # leave the grown set in ws.par, as the caller had it
    for k in range(npar):
        ws.par[k] = trees.sets[trees.grown_start[t] + k]
        ws.in_par[ws.par[k]] = True
    return t


@njit(cache=True)
def grow_shrink(scoring, know, ws, trees, v):
    """(local score, number of parents) of ``v`` choosing its parents among the nodes that
    ``ws.allowed`` marks: its required parents, then the candidate whose addition raises the
    score most while one does (at most ``max_parents``; ties to the lower rank), then the
    parent whose removal raises it most while one does (never a required one). The parents
    are left in ``ws.par``. The parent count is :data:`TREES_FULL` when a pool is full."""
    n = know.rank.shape[0]
    npar = 0
    key = _c.node_key(v)
    t = trees.root[v]
    if t < 0:
        for u in range(n):
            if know.required[u, v]:
                ws.par[npar] = u
                ws.in_par[u] = True
                npar += 1
                key ^= _c.parent_key(u)
        t = _expand(scoring, know, ws, trees, v, npar, key)
        for k in range(npar):
            ws.in_par[ws.par[k]] = False
        if t < 0:
            return np.nan, TREES_FULL
        trees.root[v] = t
    depth = trees.grown_len[t]
    while depth < know.max_parents:
        chosen = -1
        for c in range(trees.cand_start[t], trees.cand_start[t] + trees.cand_len[t]):
            if ws.allowed[trees.cand_u[c]]:
                chosen = c
                break
        if chosen < 0:
            break
        child = trees.cand_child[chosen]
        if child < 0:  # first time down this branch: build the tree node
            npar = trees.grown_len[t]
            key = _c.node_key(v)
            for k in range(npar):
                u = trees.sets[trees.grown_start[t] + k]
                ws.par[k] = u
                ws.in_par[u] = True
                key ^= _c.parent_key(u)
            u = trees.cand_u[chosen]
            ws.par[npar] = u
            ws.in_par[u] = True
            child = _expand(scoring, know, ws, trees, v, npar + 1, key ^ _c.parent_key(u))
            for k in range(npar + 1):
                ws.in_par[ws.par[k]] = False
            if child < 0:
                return np.nan, TREES_FULL
            trees.cand_child[chosen] = child
        t = child
        depth = trees.grown_len[t]
    kept = trees.shrunk_len[t]
    for k in range(kept):
        ws.par[k] = trees.sets[trees.shrunk_start[t] + k]
    return trees.shrunk_score[t], kept


@njit(cache=True)
def order_parents(scoring, know, ws, trees, order, parents, npar, scores):
    """Each node's parents given the nodes before it in ``order`` (rows of ``parents``,
    counts in ``npar``, local scores in ``scores``); returns the order's score (NaN when a
    tree pool is full)."""
    ws.allowed[:] = False
    total = 0.0
    for k in range(order.shape[0]):
        v = order[k]
        scores[v], npar[v] = grow_shrink(scoring, know, ws, trees, v)
        if npar[v] == TREES_FULL:
            return np.nan
        for t in range(npar[v]):
            parents[v, t] = ws.par[t]
        total += scores[v]
        ws.allowed[v] = True
    return total


@njit(cache=True)
def best_place(scoring, know, ws, trees, order, i):
    """(best position, the order's score with the node there, its score where it is) of the
    node at ``order[i]`` moved anywhere in the order (BOSS's move); position :data:`TREES_FULL`
    when a tree pool is full. ``ws.placed`` must hold each node's local score in ``order``;
    when the best position is not ``i`` it is left holding those of the order with the
    node moved there.

    With the node v taken out, the rest keep their relative order o. For v placed before
    o[j], node o[k] chooses its parents among o[:k], plus v when k >= j; v among o[:j]. So
    each o[k] is grown and shrunk twice (with and without v) and v once per place: 3n
    grow-shrinks score every place. Where v may not be a parent of o[k] (forbidden, as
    outside its candidates), o[k]'s parents do not depend on v's place: its score is the one
    it has (``ws.placed``); where o[j - 1] may not be a parent of v, v's best parents among
    o[:j] are those among o[:j - 1]. Places that would put v after a required child or
    before a required parent are skipped. Ties (within :data:`TOL`) go to the latest
    place, as Tetrad's BOSS breaks them."""
    n = order.shape[0]
    v = order[i]
    without, with_v, own, placed = ws.without, ws.with_v, ws.own, ws.placed
    ws.allowed[:] = False
    lo, hi = 0, n - 1  # the places v may take
    k = 0
    for t in range(n):
        w = order[t]
        if w == v:
            continue
        if know.forbidden[v, w]:
            without[k] = with_v[k] = placed[w]
        else:
            without[k], got = grow_shrink(scoring, know, ws, trees, w)
            if got == TREES_FULL:
                return TREES_FULL, np.nan, np.nan
            ws.allowed[v] = True
            with_v[k], got = grow_shrink(scoring, know, ws, trees, w)
            ws.allowed[v] = False
            if got == TREES_FULL:
                return TREES_FULL, np.nan, np.nan
        if know.required[w, v]:
            lo = max(lo, k + 1)
        if know.required[v, w]:
            hi = min(hi, k)
        ws.allowed[w] = True
        k += 1
    ws.allowed[:] = False
    added = -1  # the node the last place added to v's predecessors
    for j in range(n):
        if added >= 0 and know.forbidden[added, v]:
            own[j] = own[j - 1]
        else:
            own[j], got = grow_shrink(scoring, know, ws, trees, v)
            if got == TREES_FULL:
                return TREES_FULL, np.nan, np.nan
        if j < n - 1:
            added = order[j] if j < i else order[j + 1]
            ws.allowed[added] = True
    # total(j) = sum_{k<j} without[k] + sum_{k>=j} with_v[k] + own[j]
    suffix = 0.0
    for k in range(n - 1):
        suffix += with_v[k]
    prefix = 0.0
    best_j, best_total, here = i, -np.inf, -np.inf  # i is a valid place
    for j in range(n):
        total = prefix + suffix + own[j]
        if j == i:
            here = total
        if lo <= j <= hi and total >= best_total - TOL * max(1.0, abs(best_total)):
            best_j, best_total = j, total
        if j < n - 1:
            prefix += without[j]
            suffix -= with_v[j]
    if best_j != i:
        k = 0
        for t in range(n):
            w = order[t]
            if w != v:
                placed[w] = without[k] if k < best_j else with_v[k]
                k += 1
        placed[v] = own[best_j]
    return best_j, best_total, here


@njit(cache=True)
def parentless(scoring, ws, nodes, scores):
    """The local score (with the graph prior) of each of ``nodes`` without parents, into
    ``scores``."""
    for k in range(nodes.shape[0]):
        v = nodes[k]
        scores[v] = _family(scoring, ws, v, 0, _c.node_key(v))


@njit(cache=True)
def local_score(scoring, ws, v, parents):
    """The local score of ``v`` with ``parents`` (through the cache), plus the graph prior."""
    key = _c.node_key(v)
    for t in range(parents.shape[0]):
        ws.par[t] = parents[t]
        key ^= _c.parent_key(parents[t])
    return _family(scoring, ws, v, parents.shape[0], key)
