"""Greedy search over DAGs with cached score deltas and the Pearce-Kelly order (numba).

The search space is given per node by a *candidate-parent table* ``cand[v, :n_cand[v]]``
(all other nodes for plain hill climbing, k of them for the sparse-candidate restriction).
``delta[v, c]`` caches the score change of toggling candidate ``c`` in ``v``'s parent set
(adding it when absent, removing it when present); after a move only the rows of the nodes
whose parents changed are recomputed. Reversing ``u -> v`` costs the removal delta at ``v``
plus the addition delta of ``v`` at ``u`` (``rev[v, c]`` is ``v``'s column in ``u``'s row,
-1 when ``v`` is not a candidate parent of ``u``). Each step takes the move bnlearn's
``hc_opt_step`` / ``tabu_step`` takes (:func:`best_move`: parent-first scan, a tolerance of
sqrt(machine epsilon), exact ties between score-equivalent twins); cycle checks use the
Pearce-Kelly order, which also takes every insertion.

Local scores are cached in a typed dict keyed by a Zobrist hash of (node, parent set):
64-bit keys, so two different families collide with probability about 2^-64 per pair.
The cache holds at most ``CACHE_ENTRIES`` scores (about 63 bytes each, so ~130 MB) and is
emptied when full: scores are recomputed, never changed, so only speed depends on it.
The cache is read and written by one thread; the scores it misses in a row are computed
together by :func:`score_families` on as many threads as the :class:`Scratch` has rows
(one per thread), each score on its own, so the result does not depend on the thread
count.

With ``tabu_len > 0`` the search is bnlearn's tabu search (equal graphs tested against
bnlearn-port in ``tests/test_bnlearn_parity.py``): it may take the best
non-improving move whose resulting graph is not among the last ``tabu_len`` graphs, up to
``max_tabu`` steps without improving on the best graph, which is kept in ``best_*``.

The kernels take named bundles (numba-compatible named tuples) built once by
:class:`bnfs.search._state.SearchState`: :class:`Scoring` (read) and :class:`Scratch`
(cache, counters, scratch rows) of :mod:`bnfs._kernels.score_cache`; :class:`Graph` and
:class:`Candidates`, written by the moves; :class:`bnfs._kernels.order.Order`, the
Pearce-Kelly order; :class:`Tabu`, a tabu search's list and best graph.
"""

from collections import namedtuple

import numpy as np

import bnfs._kernels.order as _o
from bnfs._kernels._compile import njit
from bnfs._kernels.codes import (  # noqa: F401  (the searches' callers use these too)
    ADD,
    ARC_POOL_FULL,
    CONVERGED,
    ITERATION_LIMIT,
    N_COUNTERS,
    N_HITS,
    N_ITER,
    N_MOVES,
    N_SCORES,
    N_TABU,
    NO_MOVE,
    NON_IMPROVING,
    PARENT_TABLE_FULL,
    REMOVE,
    REVERSE,
    RUNNING,
    STATUS,
    TABU_POS,
)
from bnfs._kernels.score_cache import (  # noqa: F401  (the searches' callers use these too)
    CACHE_ENTRIES,
    Scoring,
    Scratch,
    arc_key,
    arc_weight,
    cached_families,
    cached_score,
    new_cache,
    new_scratch,
    node_key,
    parent_key,
    parents_weight,
    score_families,
    store,
)

NEG_INF = -np.inf

#: the current graph (written by the moves): each node's parents (rows of ``parents``,
#: counts ``npar``, Zobrist hashes ``phash``), its local score with the prior's weights
#: (``node_score``), and the bound on parents (``max_parents``)
Graph = namedtuple("Graph", ["parents", "npar", "phash", "node_score", "max_parents"])
#: the search space and its deltas: per node ``v``, candidate parents ``cand[v, :n_cand[v]]``,
#: their column in the candidate's own row (``rev``, -1: none), whitelisted arcs that stay
#: (``fixed``), which are parents now (``in_graph``, written) and the score change of
#: toggling each (``delta``, written); the scan order: ``by_node`` the nodes in it, ``rank``
#: each node's place, and per parent ``u`` the (child, column) pairs it is a candidate of,
#: ``by_v[by_ptr[u]:by_ptr[u + 1]]`` and ``by_c[...]``
Candidates = namedtuple(
    "Candidates",
    [
        "cand",
        "n_cand",
        "rev",
        "fixed",
        "in_graph",
        "delta",
        "rank",
        "by_node",
        "by_ptr",
        "by_v",
        "by_c",
    ],
)
#: a tabu search's list of the last graphs (``graphs``, Zobrist hashes; empty: hill
#: climbing), its patience ``max_tabu``, the current graph's hash (``ghash[0]``) and the best
#: graph seen (``best_parents``, ``best_npar``, ``best_score[0]``)
Tabu = namedtuple(
    "Tabu", ["graphs", "max_tabu", "ghash", "best_parents", "best_npar", "best_score"]
)


@njit(cache=True)
def refresh_rows(scoring, scratch, graph, cands, nodes):
    """Recompute ``graph.node_score[v]`` and ``cands.delta[v, :]`` for the current parents
    of each ``v`` of ``nodes``, in that order; both include the graph prior's arc weights
    (zero for the uniform prior). One call refreshes many rows: from Python, a call with
    bundles costs tens of microseconds in numba's dispatch.

    For a score-equivalent score (``scoring.equivalent``: all but K2 and BDs), adding ``u -> v`` with ``u`` after ``v`` in
    the scan order (``rank``) and neither node having a parent gains exactly what adding
    ``v -> u`` gains: that delta is copied from ``u``'s row (bnlearn's score cache does the
    same), so the two twins tie exactly, not up to rounding, and the tie is broken by scan
    order. Rows are refreshed from the last node to the first, so ``u``'s row is current
    when ``v``'s copies from it.
    """
    # every array a loop reads, out of its bundle once: numba takes a reference to each
    # array it reads out of a bundle, which is costly at a loop's rate
    prior, npar, delta, max_parents = scoring.prior, graph.npar, cands.delta, graph.max_parents
    in_graph, rev, rank, cand = cands.in_graph, cands.rev, cands.rank, cands.cand
    parents, phash, node_score, n_cand = graph.parents, graph.phash, graph.node_score, cands.n_cand
    # score-equivalent scores (bnfs._vocabulary.ScoreKind.equivalent) whose arcs weigh alike
    twins_possible = scoring.equivalent and prior.shape[0] == 1
    for r in range(nodes.shape[0]):
        v = nodes[r]
        parents_v = parents[v]
        k = npar[v]
        base_key = node_key(v) ^ phash[v]
        fit = cached_score(scoring, scratch, v, parents_v, k, base_key)
        node_score[v] = fit + parents_weight(prior, v, parents_v, k)
        width = n_cand[v]
        us = np.empty(width, dtype=np.int64)
        removing = np.empty(width, dtype=np.bool_)
        column = np.empty(width, dtype=np.int64)
        twins = twins_possible and k == 0
        m = 0
        for c in range(width):
            if not in_graph[v, c] and k >= max_parents:
                delta[v, c] = NEG_INF
                continue
            u = cand[v, c]
            if twins and rank[u] > rank[v] and rev[v, c] >= 0 and npar[u] == 0:
                delta[v, c] = delta[u, rev[v, c]]
                continue
            us[m] = u
            removing[m] = in_graph[v, c] != 0
            column[m] = c
            m += 1
        gains = np.empty(m)
        cached_families(scoring, scratch, v, us, removing, m, parents_v, k, base_key, fit, gains)
        for e in range(m):
            weight = arc_weight(prior, us[e], v)
            delta[v, column[e]] = gains[e] + (-weight if removing[e] else weight)


@njit(cache=True)
def index_candidates(cand, n_cand, by_node):
    """The candidate table ``cand[v, :n_cand[v]]`` by parent and by reverse, in time linear
    in its size: ``by_v[by_ptr[u]:by_ptr[u + 1]]`` are the children ``u`` is a candidate
    of, in the scan order ``by_node``, and ``by_c`` its columns there; ``rev[v, c]`` is the
    column of ``v`` in the row of its candidate ``cand[v, c]`` (-1: none)."""
    n = cand.shape[0]
    by_ptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        for c in range(n_cand[v]):
            by_ptr[cand[v, c] + 1] += 1
    for u in range(n):
        by_ptr[u + 1] += by_ptr[u]
    by_v = np.empty(by_ptr[n], dtype=np.int64)
    by_c = np.empty(by_ptr[n], dtype=np.int64)
    fill = by_ptr[:n].copy()
    for r in range(n):
        v = by_node[r]
        for c in range(n_cand[v]):
            u = cand[v, c]
            by_v[fill[u]] = v
            by_c[fill[u]] = c
            fill[u] += 1
    rev = np.full(cand.shape, -1, dtype=np.int64)
    column_of = np.full(n, -1, dtype=np.int64)
    for u in range(n):
        for c in range(n_cand[u]):
            column_of[cand[u, c]] = c
        for t in range(by_ptr[u], by_ptr[u + 1]):
            rev[by_v[t], by_c[t]] = column_of[by_v[t]]
        for c in range(n_cand[u]):
            column_of[cand[u, c]] = -1
    return by_ptr, by_v, by_c, rev


@njit(cache=True)
def set_parent(v, u, c, add, parents, npar, in_graph, phash):
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


#: bnlearn's MACHINE_TOL, sqrt(DBL_EPSILON): a move must improve on the best one by more
TOL = 1.4901161193847656e-08


@njit(cache=True)
def best_move(graph, order, cands, tabu, counters, baseline):
    """The move one step of bnlearn's ``hc`` or ``tabu`` takes (``hc_opt_step``,
    ``tabu_step``): (child, column, kind), kind :data:`ADD`, :data:`REMOVE` or
    :data:`REVERSE`, or :data:`NO_MOVE` when no move gains more than ``baseline`` (0: an
    improving move; -inf: any move).

    Moves are scanned parent first, parents in the scan order ``cands.by_node`` (for each
    parent ``u``, the children ``v`` it is a candidate of and its column there, in scan
    order): additions, then removals, then reversals. A move replaces the best so far only
    when it gains more than it by :data:`TOL` (so the first of tied moves wins), closes no
    cycle and, in a tabu search, leads to no graph of the tabu list (both checked for such
    moves only).
    """
    rev, in_graph, delta, fixed = cands.rev, cands.in_graph, cands.delta, cands.fixed
    by_ptr, by_v, by_c = cands.by_ptr, cands.by_v, cands.by_c
    npar, max_parents, by_node = graph.npar, graph.max_parents, cands.by_node
    pos, heads, arcs, mark, work = order.pos, order.heads, order.arcs, order.mark, order.work
    graphs, ghash = tabu.graphs, tabu.ghash
    n = by_ptr.shape[0] - 1
    n_tabu = counters[N_TABU] if graphs.shape[0] > 0 else 0
    best_v, best_c, best_kind = -1, -1, NO_MOVE
    top = baseline
    for kind in (ADD, REMOVE, REVERSE):
        for r in range(n):
            u = by_node[r]
            for t in range(by_ptr[u], by_ptr[u + 1]):
                v, c = by_v[t], by_c[t]
                rc = rev[v, c]
                if kind == ADD:
                    if in_graph[v, c] or npar[v] >= max_parents or (rc >= 0 and in_graph[u, rc]):
                        continue
                    gain = delta[v, c]
                elif kind == REMOVE:
                    if not in_graph[v, c] or fixed[v, c]:
                        continue
                    gain = delta[v, c]
                else:
                    if not in_graph[v, c] or rc < 0 or npar[u] >= max_parents:
                        continue
                    gain = delta[v, c] + delta[u, rc]
                    if abs(gain) < TOL:  # as bnlearn: no small values, no negative zeros
                        gain = 0.0
                if not gain - top > TOL:
                    continue
                if kind == ADD and _o.ordered_reachable(pos, heads, arcs, mark, work, v, u):
                    continue  # u -> v would close a cycle
                if kind == REVERSE and _reaches_indirectly(pos, heads, arcs, mark, work, u, v):
                    continue  # v -> u closes a cycle when u reaches v other than directly
                if n_tabu > 0:
                    h = ghash[0] ^ arc_key(u, v, n)
                    if kind == REVERSE:
                        h ^= arc_key(v, u, n)
                    if _in_tabu(graphs, n_tabu, h):
                        continue
                best_v, best_c, best_kind = v, c, kind
                top = gain
    return best_v, best_c, best_kind


@njit(cache=True)
def _reaches_indirectly(pos, heads, arcs, mark, work, source, target):
    """Whether a directed path ``source -> ... -> target`` other than the arc itself exists:
    a search from every child of ``source`` except ``target``."""
    e = heads[source, 0]
    while e != -1:
        z = arcs[e, _o.DST]
        if z != target and _o.ordered_reachable(pos, heads, arcs, mark, work, z, target):
            return True
        e = arcs[e, _o.OUT_NEXT]
    return False


@njit(cache=True)
def _in_tabu(graphs, n_tabu, h):
    for t in range(n_tabu):
        if graphs[t] == h:
            return True
    return False


@njit(cache=True)
def search(scoring, scratch, graph, order, cands, tabu, max_steps):
    """Run up to ``max_steps`` moves of bnlearn's ``hc`` (``tabu.graphs`` empty) or
    ``tabu``; see the module doc and :func:`best_move`.

    Tabu search, as bnlearn's ``tabu.search``: each iteration first keeps the current graph
    as the best when it beats the best by more than :data:`TOL` and enters it in the tabu
    list (the last ``tabu_len`` graphs, as Zobrist hashes); it takes the best improving move
    that leads out of the list; without one, after ``max_tabu`` iterations without a new
    best it stops (the caller restores the best graph), otherwise it takes the best move
    whatever its gain. State lives in the arrays, so the caller can call again to continue.
    """
    # every array the loop reads, out of its bundle once (see refresh_rows)
    counters, delta, rank, in_graph = scratch.counters, cands.delta, cands.rank, cands.in_graph
    cand, rev = cands.cand, cands.rev
    parents, npar, phash, node_score = graph.parents, graph.npar, graph.phash, graph.node_score
    pos, node_at, heads, arcs = order.pos, order.node_at, order.heads, order.arcs
    meta, mark, work, ghash, graphs = order.meta, order.mark, order.work, tabu.ghash, tabu.graphs
    n = npar.shape[0]
    tabu_len = graphs.shape[0]
    one, two = np.empty(1, dtype=np.int64), np.empty(2, dtype=np.int64)  # rows to refresh
    steps = 0
    while steps < max_steps:
        # resource stops (status 3, 4) repeat the iteration: undo its bookkeeping then
        saved_pos, saved_n, saved_loss = (
            counters[TABU_POS],
            counters[N_TABU],
            counters[NON_IMPROVING],
        )
        if tabu_len > 0:  # keep the graph as the best if it is, enter it in the list
            total = node_score.sum()
            if total - tabu.best_score[0] >= TOL:
                tabu.best_score[0] = total
                best_parents, best_npar = tabu.best_parents, tabu.best_npar
                for w in range(n):
                    best_npar[w] = npar[w]
                    for t in range(npar[w]):
                        best_parents[w, t] = parents[w, t]
            graphs[counters[TABU_POS]] = ghash[0]
            counters[TABU_POS] = (counters[TABU_POS] + 1) % tabu_len
            counters[N_TABU] = min(counters[N_TABU] + 1, tabu_len)
        v, c, move = best_move(graph, order, cands, tabu, counters, 0.0)
        if move == NO_MOVE:
            if tabu_len == 0 or counters[NON_IMPROVING] >= tabu.max_tabu:
                counters[STATUS] = CONVERGED
                return
            counters[NON_IMPROVING] += 1
            v, c, move = best_move(graph, order, cands, tabu, counters, NEG_INF)
            if move == NO_MOVE:
                counters[STATUS] = CONVERGED
                return
        u = cand[v, c]
        grows = v if move == ADD else (u if move == REVERSE else -1)
        status = RUNNING
        if grows >= 0 and npar[grows] == parents.shape[1]:
            status = PARENT_TABLE_FULL  # the caller widens it and resumes
        elif move == ADD and meta[_o.FREE] == -1:
            status = ARC_POOL_FULL  # the caller grows it and resumes
        if status != RUNNING:
            counters[STATUS] = status
            counters[TABU_POS], counters[N_TABU], counters[NON_IMPROVING] = (
                saved_pos,
                saved_n,
                saved_loss,
            )
            return
        if tabu_len > 0 and counters[NON_IMPROVING] == saved_loss:  # an improving move
            gain = delta[v, c] + (delta[u, rev[v, c]] if move == REVERSE else 0.0)
            if node_score.sum() + gain - tabu.best_score[0] >= TOL:
                counters[NON_IMPROVING] = 0
        if move == ADD:
            _o.pk_try_add(pos, node_at, heads, arcs, meta, mark, work, u, v)
            set_parent(v, u, c, True, parents, npar, in_graph, phash)
            ghash[0] ^= arc_key(u, v, n)
        elif move == REMOVE:
            _o.unlink(heads, arcs, meta, u, v)
            set_parent(v, u, c, False, parents, npar, in_graph, phash)
            ghash[0] ^= arc_key(u, v, n)
        else:
            _o.unlink(heads, arcs, meta, u, v)
            _o.pk_try_add(pos, node_at, heads, arcs, meta, mark, work, v, u)
            set_parent(v, u, c, False, parents, npar, in_graph, phash)
            set_parent(u, v, rev[v, c], True, parents, npar, in_graph, phash)
            ghash[0] ^= arc_key(u, v, n) ^ arc_key(v, u, n)
        if move != REVERSE:
            one[0] = v
            refresh_rows(scoring, scratch, graph, cands, one)
        else:  # the later target in scan order first, so that a twin the earlier one
            # copies is current (see refresh_rows)
            two[0], two[1] = (u, v) if rank[u] > rank[v] else (v, u)
            refresh_rows(scoring, scratch, graph, cands, two)
        steps += 1
        counters[N_MOVES] += 1
        counters[N_ITER] += 1
    counters[STATUS] = ITERATION_LIMIT


@njit(cache=True)
def add_gains(scoring, scratch, graph, v, out):
    """``out[u]`` = score change of adding ``u`` to ``v``'s parents (-inf for ``v`` itself
    and current parents): the sparse-candidate selection measure."""
    parents_v, prior = graph.parents[v], scoring.prior
    n = out.shape[0]
    k = graph.npar[v]
    for u in range(n):
        out[u] = 0.0
    out[v] = NEG_INF
    for t in range(k):
        out[parents_v[t]] = NEG_INF
    us = np.empty(n, dtype=np.int64)
    m = 0
    for u in range(n):
        if out[u] != NEG_INF:
            us[m] = u
            m += 1
    removing = np.zeros(m, dtype=np.bool_)
    gains = np.empty(m)
    key = node_key(v) ^ graph.phash[v]
    fit = graph.node_score[v] - parents_weight(prior, v, parents_v, k)
    cached_families(scoring, scratch, v, us, removing, m, parents_v, k, key, fit, gains)
    for e in range(m):
        out[us[e]] = gains[e] + arc_weight(prior, us[e], v)
