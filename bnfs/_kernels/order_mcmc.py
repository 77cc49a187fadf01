"""Order MCMC over a restricted search space (Friedman & Koller 2003; the "plus1" space of
Kuipers, Suter & Moffa 2022, BiDAG), compiled.

Node ``v`` has ``k`` candidate parents ``cand[v, :k]``; an allowed parent set is a subset of
them, or a subset of them plus one node from outside (``extras``). Its scores sit in a block
of ``1 + n_extras[v]`` tables of ``2**k`` entries, indexed by the subset's bit mask: table 0
holds the subsets, table ``t`` the subsets plus ``extras[v, t - 1]`` (-inf where a set is not
allowed). :func:`log_zeta` turns each table into the log-sum over the subsets of each mask,
so the score of ``v`` given an order (the log-sum over every allowed set of its
predecessors) is a lookup per table whose outside node precedes ``v``.

Every chain carries its own random stream (SplitMix64 in ``rng``), so chains may run on any
threads and give the same draws.
"""

from collections import namedtuple

import numpy as np
from numba import prange

import bnfs._kernels.dispatch as _g
from bnfs._kernels._compile import njit
from bnfs._kernels.score_cache import mix64, parents_weight

NEG_INF = -np.inf


@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(parallel=True, cache=True)
def family_tables(scoring, scratch, v, cand, k, extras, n_extra, max_parents, required, out):
    """``out[t, mask]``: the local score of ``v`` (with the graph prior's arc weights) given
    the candidates ``cand[:k]`` in ``mask``, plus ``extras[t - 1]`` for ``t >= 1``; -inf for a
    set past ``max_parents`` or without every candidate in the mask ``required``. Dealt to as
    many threads as ``scratch`` has rows, each with its own row."""
    size = 1 << k
    total = (n_extra + 1) * size
    n_chunks = max(1, min(scratch.cfg2.shape[0], total))
    for chunk in prange(n_chunks):
        par = np.empty(k + 1, dtype=np.int64)
        for w in range(chunk, total, n_chunks):
            t = w // size
            mask = w - t * size
            m = _popcount(mask)
            if m + (1 if t > 0 else 0) > max_parents or (mask & required) != required:
                out[t, mask] = NEG_INF
                continue
            m = 0
            for c in range(k):
                if mask & (1 << c):
                    par[m] = cand[c]
                    m += 1
            if t > 0:
                par[m] = extras[t - 1]
                m += 1
            value = _g.family_score(scoring, v, par, m, scratch.cfg2[chunk], scratch.counts[chunk])
            out[t, mask] = value + parents_weight(scoring.prior, v, par, m)


@njit(cache=True)
def _logaddexp(a, b):
    if a == NEG_INF:
        return b
    if b == NEG_INF:
        return a
    if a > b:
        return a + np.log1p(np.exp(b - a))
    return b + np.log1p(np.exp(a - b))


@njit(cache=True)
def log_zeta(tables, k):
    """In place, each row ``r`` of ``tables`` (``2**k`` wide) becomes
    ``r'[A] = log sum_{S subset of A} exp(r[S])``."""
    size = 1 << k
    for r in range(tables.shape[0]):
        row = tables[r]
        for b in range(k):
            bit = 1 << b
            for mask in range(size):
                if mask & bit:
                    row[mask] = _logaddexp(row[mask], row[mask ^ bit])


@njit(cache=True)
def _uniform(rng):
    """A uniform draw in [0, 1) from the chain's SplitMix64 stream (its state ``rng[0]``)."""
    x = np.uint64(mix64(rng[0]))
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    return float(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _below(rng, n):
    """A uniform integer in [0, n)."""
    return min(int(_uniform(rng) * n), n - 1)


@njit(cache=True)
def _mask_of(v, pos, cand, ncand):
    """The bit mask of ``v``'s candidates that precede it in the order."""
    a = 0
    for c in range(ncand[v]):
        if pos[cand[v, c]] < pos[v]:
            a |= 1 << c
    return a


@njit(cache=True)
def _sum_tables(v, pos, a, extras, n_extras, zeta, base, size):
    """log of the sum of exp(``zeta[base + t * size + a]``) over table 0 and each table
    ``t`` whose outside node precedes ``v``: one exponential per table."""
    top = zeta[base + a]
    for t in range(n_extras[v]):
        if pos[extras[v, t]] < pos[v]:
            top = max(top, zeta[base + (t + 1) * size + a])
    if top == NEG_INF:
        return NEG_INF
    total = np.exp(zeta[base + a] - top)
    for t in range(n_extras[v]):
        if pos[extras[v, t]] < pos[v]:
            total += np.exp(zeta[base + (t + 1) * size + a] - top)
    return top + np.log(total)


@njit(cache=True)
def node_score(v, pos, cand, ncand, extras, n_extras, zeta, offset):
    """The log-sum of the scores of every allowed parent set of ``v`` among its
    predecessors in the order ``pos`` (node -> place)."""
    a = _mask_of(v, pos, cand, ncand)
    return _sum_tables(v, pos, a, extras, n_extras, zeta, offset[v], 1 << ncand[v])


@njit(cache=True)
def _rescore(lo, hi, perm, pos, space, new):
    """``new[p - lo]`` = the node score of the node at place p, for lo <= p <= hi; their sum."""
    cand, ncand, extras, n_extras, zeta, offset = space
    total = 0.0
    for p in range(lo, hi + 1):
        new[p - lo] = node_score(perm[p], pos, cand, ncand, extras, n_extras, zeta, offset)
        total += new[p - lo]
    return total


@njit(cache=True)
def _move(perm, pos, kind, i, j):
    """Apply a move to the order: swap the nodes at places i and j (kinds 0 and 1), or take
    the node at place i to place j (kind 2)."""
    if kind < 2:
        a, b = perm[i], perm[j]
        perm[i], perm[j] = b, a
        pos[a], pos[b] = j, i
        return
    v = perm[i]
    if i < j:
        for p in range(i, j):
            perm[p] = perm[p + 1]
            pos[perm[p]] = p
    else:
        for p in range(i, j, -1):
            perm[p] = perm[p - 1]
            pos[perm[p]] = p
    perm[j] = v
    pos[v] = j


@njit(cache=True)
def _undo(perm, pos, kind, i, j):
    if kind < 2:
        _move(perm, pos, kind, i, j)
    else:
        _move(perm, pos, kind, j, i)


@njit(cache=True)
def arc_probabilities(perm, pos, scores, space, out):
    """Add to ``out[u, v]`` the probability of the arc u -> v given the order (its parent
    sets' share of ``v``'s node score): the Rao-Blackwellized arc posterior."""
    cand, ncand, extras, n_extras, zeta, offset = space
    for v in perm:
        size = 1 << ncand[v]
        a = _mask_of(v, pos, cand, ncand)
        total = scores[v]
        for c in range(ncand[v]):
            bit = 1 << c
            if not a & bit:
                continue
            # every allowed set without cand[v, c]
            s = _sum_tables(v, pos, a ^ bit, extras, n_extras, zeta, offset[v], size)
            out[cand[v, c], v] += -np.expm1(min(s - total, 0.0))
        for t in range(n_extras[v]):
            if pos[extras[v, t]] < pos[v]:
                out[extras[v, t], v] += np.exp(zeta[offset[v] + (t + 1) * size + a] - total)


@njit(cache=True)
def sample_parents(perm, pos, scores, space, raw, rng, parents, npar):
    """Draw each node's parents from its allowed sets given the order, in proportion to
    their scores (``raw``: the tables before :func:`log_zeta`); write them to
    ``parents[v, :npar[v]]`` and return the DAG's score."""
    cand, ncand, extras, n_extras, zeta, offset = space
    total_score = 0.0
    for v in perm:
        size = 1 << ncand[v]
        a = _mask_of(v, pos, cand, ncand)
        # the table: t = 0 (no outside parent) or an outside predecessor's, by its mass
        target = np.log(_uniform(rng)) + scores[v]
        table = 0
        acc = zeta[offset[v] + a]
        if acc < target:
            for t in range(n_extras[v]):
                mass_t = zeta[offset[v] + (t + 1) * size + a]
                if pos[extras[v, t]] < pos[v] and mass_t > NEG_INF:  # rounding: never empty
                    table = t + 1
                    acc = _logaddexp(acc, mass_t)
                    if acc >= target:
                        break
        base = offset[v] + table * size
        # the subset of a within the table, by its share of the table's mass
        u = _uniform(rng)
        mass = zeta[base + a]
        cum = 0.0
        chosen = -1
        last = -1
        s = a
        while True:
            value = raw[base + s]
            if value > NEG_INF:
                last = s
                cum += np.exp(value - mass)
                if cum > u:
                    chosen = s
                    break
            if s == 0:
                break
            s = (s - 1) & a
        if chosen < 0:  # rounding left u above the cumulative sum: the last set seen
            chosen = last
        m = 0
        for c in range(ncand[v]):
            if chosen & (1 << c):
                parents[v, m] = cand[v, c]
                m += 1
        if table > 0:
            parents[v, m] = extras[v, table - 1]
            m += 1
        npar[v] = m
        total_score += raw[base + chosen]
    return total_score


#: one chain's state, which :func:`run_chain` updates: the order ``perm``, its inverse
#: ``pos``, the node scores ``scores`` and the random stream ``rng``; what it keeps: the
#: summed arc probabilities ``arcs``, the sampled ``dags`` (samples by nodes by parent
#: slots, -1 padded) with their ``dag_scores`` and their orders' ``order_scores``; and
#: ``counters`` (steps so far, accepted moves, samples written)
Chain = namedtuple(
    "Chain",
    ["perm", "pos", "scores", "rng", "arcs", "dags", "dag_scores", "order_scores", "counters"],
)


@njit(cache=True, nogil=True)
def run_chain(space, raw, chain, n_steps, thin, record, moves):
    """``n_steps`` Metropolis-Hastings steps of order MCMC from the :class:`Chain`'s order,
    with the move probabilities ``moves`` (swap two neighbours, swap any two, move one node
    elsewhere: each proposal symmetric). Every ``thin``-th step (counting all so far) is a
    sample when ``record``: its Rao-Blackwellized arc probabilities are added to
    ``chain.arcs`` and a DAG drawn from the order is written with its score."""
    perm, pos, scores, rng = chain.perm, chain.pos, chain.scores, chain.rng
    arcs, dags, dag_scores, counters = chain.arcs, chain.dags, chain.dag_scores, chain.counters
    order_scores = chain.order_scores
    n = perm.shape[0]
    new = np.empty(n)
    parents = np.empty((n, dags.shape[2]), dtype=np.int64)
    npar = np.zeros(n, dtype=np.int64)
    for _ in range(n_steps):
        if n > 1:
            r = _uniform(rng)
            if r < moves[0]:
                kind = 0
                i = _below(rng, n - 1)
                j = i + 1
            elif r < moves[0] + moves[1]:
                kind = 1
                i = _below(rng, n)
                j = _below(rng, n - 1)
                j = j + 1 if j >= i else j
            else:
                kind = 2
                i = _below(rng, n)
                j = _below(rng, n - 1)
                j = j + 1 if j >= i else j
            lo, hi = min(i, j), max(i, j)
            old = 0.0
            for p in range(lo, hi + 1):
                old += scores[perm[p]]
            _move(perm, pos, kind, i, j)
            total = _rescore(lo, hi, perm, pos, space, new)
            delta = total - old
            if total > NEG_INF and (delta >= 0 or _uniform(rng) < np.exp(delta)):
                for p in range(lo, hi + 1):
                    scores[perm[p]] = new[p - lo]
                counters[1] += 1
            else:
                _undo(perm, pos, kind, i, j)
        counters[0] += 1
        if record and counters[0] % thin == 0 and counters[2] < dags.shape[0]:
            arc_probabilities(perm, pos, scores, space, arcs)
            dag_scores[counters[2]] = sample_parents(
                perm, pos, scores, space, raw, rng, parents, npar
            )
            order_score = 0.0
            for v in range(n):
                order_score += scores[v]
                for m in range(dags.shape[2]):
                    dags[counters[2], v, m] = parents[v, m] if m < npar[v] else -1
            order_scores[counters[2]] = order_score
            counters[2] += 1


@njit(cache=True)
def order_scores_of(perm, space, scores):
    """The node scores of every node in the order ``perm``; returns the inverse order."""
    n = perm.shape[0]
    pos = np.empty(n, dtype=np.int64)
    for p in range(n):
        pos[perm[p]] = p
    cand, ncand, extras, n_extras, zeta, offset = space
    for v in range(n):
        scores[v] = node_score(v, pos, cand, ncand, extras, n_extras, zeta, offset)
    return pos


@njit(cache=True)
def blanket_counts(dags, out):
    """``out[t, x]`` += the number of sampled DAGs (``dags``: samples by nodes by parent
    slots, -1 padded) in which x is in t's Markov blanket (a parent, a child or another
    parent of a child)."""
    n = dags.shape[1]
    member = np.zeros((n, n), dtype=np.bool_)
    for s in range(dags.shape[0]):
        member[:, :] = False
        for v in range(n):
            for a in range(dags.shape[2]):
                p = dags[s, v, a]
                if p < 0:
                    break
                member[v, p] = True
                member[p, v] = True
                for b in range(a + 1, dags.shape[2]):
                    q = dags[s, v, b]
                    if q < 0:
                        break
                    member[p, q] = True
                    member[q, p] = True
        for t in range(n):
            for x in range(n):
                if member[t, x]:
                    out[t, x] += 1
