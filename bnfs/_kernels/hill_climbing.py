"""Greedy search over DAGs with cached score deltas and the Pearce-Kelly order (numba).

The search space is given per node by a *candidate-parent table* ``cand[v, :n_cand[v]]``
(all other nodes for plain hill climbing, k of them for the sparse-candidate restriction).
``delta[v, c]`` caches the score change of toggling candidate ``c`` in ``v``'s parent set
(adding it when absent, removing it when present); after a move only the rows of the nodes
whose parents changed are recomputed. Reversing ``u -> v`` costs the removal delta at ``v``
plus the addition delta of ``v`` at ``u`` (``rev[v, c]`` is ``v``'s column in ``u``'s row,
-1 when ``v`` is not a candidate parent of ``u``). Every insertion goes through the
Pearce-Kelly order; a move that would close a cycle is blocked for this step and the next
best move is taken.

Local scores are cached in a typed dict keyed by a Zobrist hash of (node, parent set):
64-bit keys, so two different families collide with probability about 2^-64 per pair.
The cache holds at most ``CACHE_ENTRIES`` scores (about 63 bytes each, so ~130 MB) and is
emptied when full: scores are recomputed, never changed, so only speed depends on it.
The cache is read and written by one thread; the scores it misses in a row are computed
together by :func:`score_families` on as many threads as there are scratch rows (the
``cfg2``, ``counts`` and ``tmp`` arguments are 2-D: one row per thread), each score on its
own, so the result does not depend on the thread count.

With ``tabu_len > 0`` the search is bnlearn's tabu search: it may take the best
non-improving move whose resulting graph is not among the last ``tabu_len`` graphs, up to
``max_tabu`` steps without improving on the best graph, which is returned in ``best_*``.
"""

import numpy as np
from numba import prange, types
from numba.typed import Dict

from bnfs._kernels import njit
from bnfs._kernels import order as _o
from bnfs._kernels import scores as _s

NEG_INF = -np.inf
EPS = 1e-9
CACHE_ENTRIES = 2_000_000  # local scores kept before the cache is emptied

# indices into the int64 ``counters`` array
N_SCORES, N_HITS, N_ITER, N_MOVES, STATUS, NON_IMPROVING, TABU_POS, N_TABU = range(8)
# ``STATUS``: 0 running, 1 converged (no improving move), 2 iteration limit, 3 arc pool
# full, 4 parent table full (the caller grows the array and calls again)


@njit(cache=True)
def mix64(x):
    """SplitMix64 finalizer: a well-spread 64-bit key of an integer."""
    x = (x + np.uint64(0x9E3779B97F4A7C15))
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.int64(x ^ (x >> np.uint64(31)))


@njit(cache=True)
def node_key(v):
    return mix64(np.uint64(2 * v + 1))


@njit(cache=True)
def parent_key(p):
    return mix64(np.uint64(2 * p + 2) * np.uint64(0x632BE59BD9B4E019))


@njit(cache=True)
def arc_key(u, v, n):
    return mix64(np.uint64(u * n + v) ^ np.uint64(0xD6E8FEB86659FD93))


def new_cache():
    """An empty local-score cache for the kernels."""
    return Dict.empty(key_type=types.int64, value_type=types.float64)


@njit(cache=True)
def store(cache, key, value):
    """``cache[key] = value``, emptying the cache first when it holds CACHE_ENTRIES."""
    if len(cache) >= CACHE_ENTRIES:
        cache.clear()
    cache[key] = value


@njit(cache=True)
def cached_score(codes, arities, v, par, npar, kind, iss, cfg, counts, cache, key, counters):
    """Local score of ``v`` with parents ``par[:npar]`` through the cache under ``key``."""
    if key in cache:
        counters[N_HITS] += 1
        return cache[key]
    value = _s.local_score(codes, arities, v, par, npar, kind, iss, cfg, counts)
    counters[N_SCORES] += 1
    store(cache, key, value)
    return value


@njit(cache=True)
def _family_score(codes, arities, kind, iss, v, u, removing, parents_v, k, cfg, q, cfg2, counts,
                  tmp):
    """Score of ``v`` with parents ``parents_v[:k]`` minus ``u`` (``removing``) or plus ``u``
    (``cfg`` holds the configurations of the current parents, ``q`` their bound)."""
    if removing:
        m = 0
        for t in range(k):
            if parents_v[t] != u:
                tmp[m] = parents_v[t]
                m += 1
        return _s.local_score(codes, arities, v, tmp, m, kind, iss, cfg2, counts)
    q2 = _s.extend_config(cfg, q, codes, arities, u, cfg2)
    q_true = _s.n_configurations(arities, parents_v, k) * arities[u]
    return _s.score_config(cfg2, q2, codes, v, arities[v], q_true, kind, iss, counts)


@njit(parallel=True, cache=True)
def score_families(codes, arities, kind, iss, v, us, removing, m, parents_v, k, cfg, q, cfg2,
                   counts, tmp, out):
    """``out[e]`` = score of ``v``'s parents without / with ``us[e]`` for ``e < m``, dealt
    to ``cfg2.shape[0]`` threads (each with its scratch row)."""
    n_chunks = min(cfg2.shape[0], m)
    if n_chunks <= 1:  # no parallel region: idle threads would spin beside other workers
        for e in range(m):
            out[e] = _family_score(codes, arities, kind, iss, v, us[e], removing[e], parents_v,
                                   k, cfg, q, cfg2[0], counts[0], tmp[0])
        return
    for chunk in prange(n_chunks):
        for e in range(chunk, m, n_chunks):
            out[e] = _family_score(codes, arities, kind, iss, v, us[e], removing[e], parents_v,
                                   k, cfg, q, cfg2[chunk], counts[chunk], tmp[chunk])


@njit(cache=True)
def cached_families(codes, arities, kind, iss, v, us, removing, m, parents_v, k, base_key,
                    node_score_v, cfg, cfg2, counts, tmp, cache, counters, out):
    """``out[e]`` = score change of removing / adding ``us[e]`` for ``e < m``: cache hits
    first, then the misses in one parallel batch, stored in the cache."""
    miss = np.empty(m, dtype=np.int64)
    n_miss = 0
    need_config = False
    for e in range(m):
        key = base_key ^ parent_key(us[e])
        if key in cache:
            counters[N_HITS] += 1
            out[e] = cache[key] - node_score_v
        else:
            miss[n_miss] = e
            n_miss += 1
            need_config = need_config or not removing[e]
    if n_miss == 0:
        return
    q = _s.parent_config(codes, arities, parents_v, k, cfg) if need_config else 0
    miss_us = np.empty(n_miss, dtype=np.int64)
    miss_removing = np.empty(n_miss, dtype=np.bool_)
    for t in range(n_miss):
        miss_us[t] = us[miss[t]]
        miss_removing[t] = removing[miss[t]]
    values = np.empty(n_miss)
    score_families(codes, arities, kind, iss, v, miss_us, miss_removing, n_miss, parents_v, k,
                   cfg, q, cfg2, counts, tmp, values)
    for t in range(n_miss):
        store(cache, base_key ^ parent_key(miss_us[t]), values[t])
        counters[N_SCORES] += 1
        out[miss[t]] = values[t] - node_score_v


@njit(cache=True)
def refresh_row(codes, arities, kind, iss, v, cand, n_cand, in_graph, parents, npar,
                phash, max_parents, node_score, delta, cfg, cfg2, counts, tmp, cache, counters):
    """Recompute ``node_score[v]`` and ``delta[v, :]`` for the current parents of ``v``."""
    k = npar[v]
    base_key = node_key(v) ^ phash[v]
    node_score[v] = cached_score(codes, arities, v, parents[v], k, kind, iss, cfg, counts[0],
                                 cache, base_key, counters)
    width = n_cand[v]
    us = np.empty(width, dtype=np.int64)
    removing = np.empty(width, dtype=np.bool_)
    column = np.empty(width, dtype=np.int64)
    m = 0
    for c in range(width):
        if not in_graph[v, c] and k >= max_parents:
            delta[v, c] = NEG_INF
            continue
        us[m] = cand[v, c]
        removing[m] = in_graph[v, c] != 0
        column[m] = c
        m += 1
    gains = np.empty(m)
    cached_families(codes, arities, kind, iss, v, us, removing, m, parents[v], k, base_key,
                    node_score[v], cfg, cfg2, counts, tmp, cache, counters, gains)
    for e in range(m):
        delta[v, column[e]] = gains[e]


@njit(cache=True)
def _set_parent(v, u, c, add, parents, npar, in_graph, phash):
    if add:
        parents[v, npar[v]] = u
        npar[v] += 1
        in_graph[v, c] = 1
    else:
        k = npar[v]
        for t in range(k):
            if parents[v, t] == u:
                parents[v, t] = parents[v, k - 1]
                break
        npar[v] = k - 1
        in_graph[v, c] = 0
    phash[v] ^= parent_key(u)


TOP = 32  # moves kept per scan: when the best closes a cycle the next is tried at once


@njit(cache=True)
def _offer(top_gain, top_move, m, gain, v, c, kind):
    """Insert a move into the descending list (after equal gains: scan order breaks ties);
    return the new length (at most TOP)."""
    t = m if m < TOP else TOP - 1
    if m == TOP and gain <= top_gain[TOP - 1]:
        return m
    while t > 0 and top_gain[t - 1] < gain:
        top_gain[t] = top_gain[t - 1]
        top_move[t, 0], top_move[t, 1], top_move[t, 2] = \
            top_move[t - 1, 0], top_move[t - 1, 1], top_move[t - 1, 2]
        t -= 1
    top_gain[t] = gain
    top_move[t, 0], top_move[t, 1], top_move[t, 2] = v, c, kind
    return m + 1 if m < TOP else TOP


@njit(cache=True)
def _in_tabu(tabu, counters, h):
    for t in range(counters[N_TABU]):
        if tabu[t] == h:
            return True
    return False


@njit(cache=True)
def search(codes, arities, kind, iss, cand, n_cand, rev, fixed, in_graph, parents, npar,
           phash, max_parents, node_score, delta, pos, node_at, heads, arcs, meta, mark, work,
           cfg, cfg2, counts, tmp, cache, counters, max_steps, tabu, max_tabu, ghash,
           best_parents, best_npar, best_score):
    """Run up to ``max_steps`` moves of hill climbing (or tabu search); see module doc.

    State lives in the arrays, so the caller can call again to continue (progress bars).
    ``ghash[0]`` is the Zobrist hash of the current arc set, ``best_score[0]`` the best
    total score seen (with ``best_parents``/``best_npar`` its graph, kept when tabu > 0).
    """
    n = cand.shape[0]
    tabu_len = tabu.shape[0]
    # moves found to close a cycle in this step: bit 1 addition, bit 2 reversal of (v, c)
    blocked = np.zeros(cand.shape, dtype=np.uint8)
    touched = np.empty(cand.shape[0] * cand.shape[1], dtype=np.int64)
    n_blocked = 0
    top_gain = np.empty(TOP)
    top_move = np.empty((TOP, 3), dtype=np.int64)
    steps = 0
    while steps < max_steps:
        # -- the best legal moves, up to TOP of them, best first --------------------------
        m = 0
        for v in range(n):
            for c in range(n_cand[v]):
                d = delta[v, c]
                floor = top_gain[TOP - 1] if m == TOP else NEG_INF
                if in_graph[v, c]:
                    if fixed[v, c]:
                        continue
                    if d > floor:  # removal
                        ok = True
                        if tabu_len > 0:
                            u = cand[v, c]
                            ok = not _in_tabu(tabu, counters, ghash[0] ^ arc_key(u, v, n))
                        if ok:
                            m = _offer(top_gain, top_move, m, d, v, c, 1)
                            floor = top_gain[TOP - 1] if m == TOP else NEG_INF
                    rc = rev[v, c]
                    if rc >= 0:  # reversal
                        u = cand[v, c]
                        g = d + delta[u, rc]
                        if npar[u] < max_parents and g > floor and (blocked[v, c] & 2) == 0:
                            ok = True
                            if tabu_len > 0:
                                h = ghash[0] ^ arc_key(u, v, n) ^ arc_key(v, u, n)
                                ok = not _in_tabu(tabu, counters, h)
                            if ok:
                                m = _offer(top_gain, top_move, m, g, v, c, 2)
                elif d > floor and (blocked[v, c] & 1) == 0:  # addition
                    ok = True
                    if tabu_len > 0:
                        u = cand[v, c]
                        ok = not _in_tabu(tabu, counters, ghash[0] ^ arc_key(u, v, n))
                    if ok:
                        m = _offer(top_gain, top_move, m, d, v, c, 0)
        if m == 0 or top_gain[0] == NEG_INF:
            counters[STATUS] = 1
            return
        if top_gain[0] <= EPS and tabu_len == 0:
            counters[STATUS] = 1
            return
        if tabu_len > 0 and counters[NON_IMPROVING] >= max_tabu:
            counters[STATUS] = 1  # tabu search: max_tabu steps without a new best graph
            return
        # -- apply the first of them that closes no cycle ------------------------------------
        moved = False
        for t in range(m):
            if top_gain[t] == NEG_INF or (top_gain[t] <= EPS and tabu_len == 0):
                break
            v, c, best_kind = top_move[t, 0], top_move[t, 1], top_move[t, 2]
            u = cand[v, c]
            grows = v if best_kind == 0 else (cand[v, c] if best_kind == 2 else -1)
            if grows >= 0 and npar[grows] == parents.shape[1]:
                counters[STATUS] = 4  # parent table full: caller widens it and resumes
                return
            if best_kind == 0:
                if meta[_o.FREE] == -1:
                    counters[STATUS] = 3  # arc pool full: caller grows it and resumes
                    return
                if not _o.pk_try_add(pos, node_at, heads, arcs, meta, mark, work, u, v):
                    blocked[v, c] |= 1
                    touched[n_blocked] = v * cand.shape[1] + c
                    n_blocked += 1
                    continue
                _set_parent(v, u, c, True, parents, npar, in_graph, phash)
                ghash[0] ^= arc_key(u, v, n)
                refresh_row(codes, arities, kind, iss, v, cand, n_cand, in_graph, parents,
                            npar, phash, max_parents, node_score, delta, cfg, cfg2, counts,
                            tmp, cache, counters)
            elif best_kind == 1:
                _o.unlink(heads, arcs, meta, u, v)
                _set_parent(v, u, c, False, parents, npar, in_graph, phash)
                ghash[0] ^= arc_key(u, v, n)
                refresh_row(codes, arities, kind, iss, v, cand, n_cand, in_graph, parents,
                            npar, phash, max_parents, node_score, delta, cfg, cfg2, counts,
                            tmp, cache, counters)
            else:
                _o.unlink(heads, arcs, meta, u, v)
                if not _o.pk_try_add(pos, node_at, heads, arcs, meta, mark, work, v, u):
                    _o.link(heads, arcs, meta, u, v)
                    blocked[v, c] |= 2
                    touched[n_blocked] = v * cand.shape[1] + c
                    n_blocked += 1
                    continue
                rc = rev[v, c]
                _set_parent(v, u, c, False, parents, npar, in_graph, phash)
                _set_parent(u, v, rc, True, parents, npar, in_graph, phash)
                ghash[0] ^= arc_key(u, v, n) ^ arc_key(v, u, n)
                refresh_row(codes, arities, kind, iss, v, cand, n_cand, in_graph, parents,
                            npar, phash, max_parents, node_score, delta, cfg, cfg2, counts,
                            tmp, cache, counters)
                refresh_row(codes, arities, kind, iss, u, cand, n_cand, in_graph, parents,
                            npar, phash, max_parents, node_score, delta, cfg, cfg2, counts,
                            tmp, cache, counters)
            moved = True
            break
        if not moved:
            continue  # every listed move closes a cycle: they are blocked, look again
        for b in range(n_blocked):
            blocked[touched[b] // cand.shape[1], touched[b] % cand.shape[1]] = 0
        n_blocked = 0
        steps += 1
        counters[N_MOVES] += 1
        counters[N_ITER] += 1
        if tabu_len > 0:
            tabu[counters[TABU_POS]] = ghash[0]
            counters[TABU_POS] = (counters[TABU_POS] + 1) % tabu_len
            counters[N_TABU] = min(counters[N_TABU] + 1, tabu_len)
        total = 0.0
        for w in range(n):
            total += node_score[w]
        if total > best_score[0] + EPS:
            best_score[0] = total
            counters[NON_IMPROVING] = 0
            if tabu_len > 0:
                for w in range(n):
                    best_npar[w] = npar[w]
                    for t in range(npar[w]):
                        best_parents[w, t] = parents[w, t]
        else:
            counters[NON_IMPROVING] += 1
    counters[STATUS] = 2


@njit(cache=True)
def add_gains(codes, arities, kind, iss, v, parents, npar, phash, node_score_v, cfg, cfg2,
              counts, tmp, cache, counters, out):
    """``out[u]`` = score change of adding ``u`` to ``v``'s parents (-inf for ``v`` itself
    and current parents): the sparse-candidate selection measure."""
    n = out.shape[0]
    k = npar[v]
    for u in range(n):
        out[u] = 0.0
    out[v] = NEG_INF
    for t in range(k):
        out[parents[v, t]] = NEG_INF
    us = np.empty(n, dtype=np.int64)
    m = 0
    for u in range(n):
        if out[u] != NEG_INF:
            us[m] = u
            m += 1
    removing = np.zeros(m, dtype=np.bool_)
    gains = np.empty(m)
    cached_families(codes, arities, kind, iss, v, us, removing, m, parents[v], k,
                    node_key(v) ^ phash[v], node_score_v, cfg, cfg2, counts, tmp, cache,
                    counters, gains)
    for e in range(m):
        out[us[e]] = gains[e]
