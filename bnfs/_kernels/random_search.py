"""Random hill-climbing post-processing (Shen, Li & Wong 2008), entirely in numba.

Each operation picks a random edit: with probability ``p_add`` the addition of a random
ordered pair, with ``p_remove`` the removal of a random existing arc, otherwise the
reversal of a random existing arc; the edit is kept only when it raises the score (and
closes no cycle: Pearce-Kelly order). Local scores come from the shared Zobrist-keyed cache,
so after the first few thousand operations most proposals cost a dictionary lookup.

Existing arcs are kept in ``arc_list`` (pairs) with ``arc_slot[v, t]`` giving the slot of
the arc from ``parents[v, t]``, so a random arc is drawn in O(1) and removed by swapping.
The kernel takes the searches' bundles (:mod:`bnfs._kernels.hill_climbing`) and a
:class:`Walk`.
"""

from collections import namedtuple

import numpy as np

import bnfs._kernels.hill_climbing as _hc
import bnfs._kernels.order as _o
import bnfs._kernels.score_cache as _c
from bnfs._kernels._compile import njit

EPS = 1e-9

#: a random walk's rules and state: arcs it may not add (``forbidden``) or change
#: (``fixed``), typed dicts keyed by ``u * n + v``; the arcs now (``arc_list`` rows, and
#: ``arc_slot[v, t]`` the row of the arc from ``parents[v, t]``); the chances of an addition
#: and a removal (``p_add``, ``p_remove``; else a reversal); the generator's state (``rng``)
#: and the nodes in scan order (``by_node``)
Walk = namedtuple(
    "Walk", ["forbidden", "fixed", "arc_list", "arc_slot", "p_add", "p_remove", "rng", "by_node"]
)


@njit(cache=True)
def _splitmix_next(state):
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _uniform(state):
    return (_splitmix_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _below(state, n):
    return np.int64(_splitmix_next(state) % np.uint64(n))


@njit(cache=True)
def _drop_parent(v, u, parents, npar, phash, arc_list, arc_slot, n_arcs):
    """Remove ``u`` from ``v``'s parents and the arc list; return the new arc count."""
    k = npar[v]
    slot = -1
    for t in range(k):
        if parents[v, t] == u:
            slot = arc_slot[v, t]
            parents[v, t] = parents[v, k - 1]
            arc_slot[v, t] = arc_slot[v, k - 1]
            break
    npar[v] = k - 1
    phash[v] ^= _hc.parent_key(u)
    last = n_arcs - 1
    if slot != last:
        a, b = arc_list[last, 0], arc_list[last, 1]
        arc_list[slot, 0], arc_list[slot, 1] = a, b
        for t in range(npar[b]):
            if parents[b, t] == a:
                arc_slot[b, t] = slot
                break
    return last


@njit(cache=True)
def _add_parent(v, u, parents, npar, phash, arc_list, arc_slot, n_arcs):
    parents[v, npar[v]] = u
    arc_slot[v, npar[v]] = n_arcs
    npar[v] += 1
    phash[v] ^= _hc.parent_key(u)
    arc_list[n_arcs, 0], arc_list[n_arcs, 1] = u, v
    return n_arcs + 1


@njit(cache=True)
def random_hill_climbing(scoring, scratch, graph, order, walk, n_arcs, n_ops):
    """Run ``n_ops`` random operations; return (arcs afterwards, operations done).

    A drawn node number k means node ``walk.by_node[k]`` (the nodes in scan order), so the
    same draws make the same edits for any order of the columns.

    Stops early, before an addition that would overflow the parent table (width
    ``graph.parents.shape[1]`` < ``max_parents``), so the caller can widen it and resume.

    ``counters[N_MOVES]`` counts accepted operations. The arc pool (``order.arcs``) must
    have a free row for every arc the graph can hold; the caller sizes it.
    """
    parents, npar, phash, node_score = graph.parents, graph.npar, graph.phash, graph.node_score
    max_parents, forbidden, fixed = graph.max_parents, walk.forbidden, walk.fixed
    arc_list, arc_slot, rng_state, by_node = walk.arc_list, walk.arc_slot, walk.rng, walk.by_node
    pos, node_at, heads, arcs = order.pos, order.node_at, order.heads, order.arcs
    meta, mark, work = order.meta, order.mark, order.work
    # what the loop reads on every operation, out of the bundles once (see cached_with)
    prior, cache, counters, tmp = scoring.prior, scratch.cache, scratch.counters, scratch.tmp[0]
    p_add, p_remove = walk.p_add, walk.p_remove
    n = parents.shape[0]
    width = parents.shape[1]
    for op in range(n_ops):
        saved = rng_state[0]  # restored on an early stop, so the op is redrawn on resume
        r = _uniform(rng_state)
        if r < p_add or n_arcs == 0:
            u = by_node[_below(rng_state, n)]
            v = by_node[_below(rng_state, n)]
            if u == v or npar[v] >= max_parents or (u * n + v) in forbidden:
                continue
            if _o.find_arc(heads, arcs, u, v) != -1 or _o.find_arc(heads, arcs, v, u) != -1:
                continue
            cached, new = _c.cached_with(
                prior, cache, counters, tmp, v, parents, npar, phash, u, -1
            )
            if not cached:
                new = _c.score_with(scoring, scratch, v, parents, npar, phash, u, -1)
            if new - node_score[v] <= EPS:
                continue
            if npar[v] == width:
                rng_state[0] = saved
                return n_arcs, op
            if meta[_o.FREE] == -1:
                continue
            if not _o.pk_try_add(pos, node_at, heads, arcs, meta, mark, work, u, v):
                continue
            n_arcs = _add_parent(v, u, parents, npar, phash, arc_list, arc_slot, n_arcs)
            node_score[v] = new
            counters[_hc.N_MOVES] += 1
        else:
            slot = _below(rng_state, n_arcs)
            u, v = arc_list[slot, 0], arc_list[slot, 1]
            if (u * n + v) in fixed:
                continue
            cached, removed = _c.cached_with(
                prior, cache, counters, tmp, v, parents, npar, phash, -1, u
            )
            if not cached:
                removed = _c.score_with(scoring, scratch, v, parents, npar, phash, -1, u)
            if r < p_add + p_remove:
                if removed - node_score[v] <= EPS:
                    continue
                _o.unlink(heads, arcs, meta, u, v)
                n_arcs = _drop_parent(v, u, parents, npar, phash, arc_list, arc_slot, n_arcs)
                node_score[v] = removed
                counters[_hc.N_MOVES] += 1
            else:
                if npar[u] >= max_parents or (v * n + u) in forbidden:
                    continue
                cached, added = _c.cached_with(
                    prior, cache, counters, tmp, u, parents, npar, phash, v, -1
                )
                if not cached:
                    added = _c.score_with(scoring, scratch, u, parents, npar, phash, v, -1)
                if removed - node_score[v] + added - node_score[u] <= EPS:
                    continue
                if npar[u] == width:
                    rng_state[0] = saved
                    return n_arcs, op
                _o.unlink(heads, arcs, meta, u, v)
                if not _o.pk_try_add(pos, node_at, heads, arcs, meta, mark, work, v, u):
                    _o.link(heads, arcs, meta, u, v)
                    continue
                n_arcs = _drop_parent(v, u, parents, npar, phash, arc_list, arc_slot, n_arcs)
                n_arcs = _add_parent(u, v, parents, npar, phash, arc_list, arc_slot, n_arcs)
                node_score[v] = removed
                node_score[u] = added
                counters[_hc.N_MOVES] += 1
    return n_arcs, n_ops
