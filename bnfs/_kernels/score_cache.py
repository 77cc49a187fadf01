"""The local-score cache of the searches (numba): a typed dict keyed by a Zobrist hash of
(node, parent set), 64-bit keys from SplitMix64, so two different families collide with
probability about 2^-64 per pair. It holds at most ``CACHE_ENTRIES`` scores (about 63 bytes
each, so ~130 MB) and is emptied when full: scores are recomputed, never changed, so only
speed depends on it. The scores a row misses are computed together by
:func:`score_families` on as many threads as there are scratch rows, each on its own, so
results do not depend on the thread count."""

from collections import namedtuple

import numpy as np
from numba import prange, types
from numba.typed import Dict

import bnfs._kernels.dispatch as _g
from bnfs._kernels._compile import njit
from bnfs._kernels.codes import N_COUNTERS, N_HITS, N_SCORES  # noqa: F401  (re-exported)
from bnfs._kernels.conditional_gaussian import CG

CACHE_ENTRIES = 2_000_000  # local scores kept before the cache is emptied

#: what the local scores read (read-only): the discrete ``codes`` and their ``arities``, or
#: the Gaussian statistics (:mod:`bnfs._kernels.dispatch`), the score's ``kind`` and
#: ``iss``, and the graph prior's log-weight of each arc ``[u, v]`` (``prior``, 1-by-1 when
#: every arc weighs the same; :meth:`bnfs.stats.priors.GraphPrior.weights`) and the
#: conditional-Gaussian ``levels`` statistics
#: (:func:`bnfs._kernels.conditional_gaussian.level_scatter`; None or empty for other data)
#: and the discrete rows' ``weights`` (:func:`bnfs._kernels.scores.weighted_local_score`;
#: None or empty: every row counts once; :func:`scoring_of` sets the Nones), and whether
#: the score is score-equivalent (``equivalent``, :attr:`bnfs._vocabulary.ScoreKind.equivalent`)
Scoring = namedtuple(
    "Scoring", ["codes", "arities", "kind", "iss", "prior", "levels", "weights", "equivalent"]
)


def scoring_of(codes, arities, kind, iss, prior, levels, weights, equivalent) -> Scoring:
    """A :class:`Scoring` of these parts, with those no score of these data reads left
    None: ``levels`` unless the score is conditional-Gaussian, ``weights`` when every row
    counts once or the data are linear-Gaussian (their weights are in the covariance). The
    compiled scores then leave out the paths that would read them
    (:mod:`bnfs._kernels.dispatch`), so a first search compiles only what its data need.
    The same values either way."""
    if kind < CG:
        levels = None
        if codes.dtype.kind == "f" or (weights is not None and weights.shape[0] == 0):
            weights = None
    return Scoring(codes, arities, kind, iss, prior, levels, weights, equivalent)


#: what scoring writes: the local-score ``cache`` and the int64 ``counters`` (slots in
#: :mod:`bnfs._kernels.codes`), and scratch: ``cfg`` (one per row of data) for the current
#: parent configurations, and one row per scoring thread of ``cfg2`` (rows of data),
#: ``counts`` (:func:`bnfs.stats.scores.counts_scratch_size`) and ``tmp`` (a parent list); the
#: single-threaded kernels use row 0. ``groups`` (2 by rows + 1) holds the rows grouped by
#: the configurations in ``cfg`` when :func:`bnfs._kernels.dispatch.configurations` made
#: them (``groups[0, rows]`` -1 otherwise; :func:`bnfs._kernels.configurations.group_rows`)
Scratch = namedtuple("Scratch", ["cache", "counters", "cfg", "cfg2", "counts", "tmp", "groups"])


@njit(cache=True)
def mix64(x):
    """SplitMix64 finalizer: a well-spread 64-bit key of an integer."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
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


@njit(cache=True)
def new_cache():
    """An empty local-score cache for the kernels, built in a cached kernel: a typed dict
    made from Python compiles numba's own constructor again in every process."""
    return Dict.empty(key_type=types.int64, value_type=types.float64)


@njit(cache=True)
def key_set(keys):
    """A typed dict holding 1 at each of ``keys`` (int64), built in a cached kernel (see
    :func:`new_cache`): the searches' sets of forbidden and kept arcs."""
    out = Dict.empty(key_type=types.int64, value_type=types.int64)
    for k in keys:
        out[k] = 1
    return out


def new_scratch(rows: int, counts_size: int, width: int, threads: int = 1) -> Scratch:
    """A :class:`Scratch` with an empty cache, zero counters and ``threads`` scratch rows
    for data of ``rows`` rows and parent lists up to ``width`` long."""
    return Scratch(
        new_cache(),
        np.zeros(N_COUNTERS, dtype=np.int64),
        np.empty(rows, dtype=np.int64),
        np.empty((threads, rows), dtype=np.int64),
        np.zeros((threads, counts_size), dtype=np.int64),
        np.empty((threads, width + 1), dtype=np.int64),
        np.full((2, rows + 1), -1, dtype=np.int64),
    )


@njit(cache=True)
def store(cache, key, value):
    """``cache[key] = value``, emptying the cache first when it holds CACHE_ENTRIES."""
    if len(cache) >= CACHE_ENTRIES:
        cache.clear()
    cache[key] = value


@njit(cache=True)
def arc_weight(prior, u, v):
    """The graph prior's log-weight of the arc ``u -> v`` (``prior``: 1-by-1 when every arc
    weighs the same, else n-by-n; :meth:`bnfs.stats.priors.GraphPrior.weights`)."""
    return prior[0, 0] if prior.shape[0] == 1 else prior[u, v]


@njit(cache=True)
def parents_weight(prior, v, parents_v, k):
    """The graph prior's log-weight of the arcs from ``parents_v[:k]`` into ``v``."""
    if prior.shape[0] == 1:
        return k * prior[0, 0]
    total = 0.0
    for t in range(k):
        total += prior[parents_v[t], v]
    return total


@njit(cache=True)
def cached_score(scoring, scratch, v, par, npar, key):
    """Local score of ``v`` with parents ``par[:npar]`` through the cache under ``key``."""
    if key in scratch.cache:
        scratch.counters[N_HITS] += 1
        return scratch.cache[key]
    value = _g.family_score(scoring, v, par, npar, scratch.cfg, scratch.counts[0])
    scratch.counters[N_SCORES] += 1
    store(scratch.cache, key, value)
    return value


@njit(parallel=True, cache=True)
def score_families(scoring, scratch, v, us, removing, m, parents_v, k, q, out):
    """``out[e]`` = score of ``v``'s parents without / with ``us[e]`` for ``e < m``, dealt
    to as many threads as ``scratch`` has rows (each with its own row)."""
    n_chunks = min(scratch.cfg2.shape[0], m)
    if n_chunks <= 1:  # no parallel region: idle threads would spin beside other workers
        for e in range(m):
            out[e] = _g.toggled_score(scoring, scratch, 0, v, us[e], removing[e], parents_v, k, q)
        return
    for chunk in prange(n_chunks):
        for e in range(chunk, m, n_chunks):
            out[e] = _g.toggled_score(
                scoring, scratch, chunk, v, us[e], removing[e], parents_v, k, q
            )


@njit(cache=True)
def cached_families(scoring, scratch, v, us, removing, m, parents_v, k, base_key, fit, out):
    """``out[e]`` = score change of removing / adding ``us[e]`` for ``e < m`` (``fit``: the
    score of ``v`` with ``parents_v[:k]``, cached under ``base_key``): cache hits first,
    then the misses in one parallel batch, stored in the cache."""
    cache, counters = scratch.cache, scratch.counters
    miss = np.empty(m, dtype=np.int64)
    n_miss = 0
    need_config = False
    for e in range(m):
        key = base_key ^ parent_key(us[e])
        if key in cache:
            counters[N_HITS] += 1
            out[e] = cache[key] - fit
        else:
            miss[n_miss] = e
            n_miss += 1
            need_config = need_config or not removing[e]
    if n_miss == 0:
        return
    q = _g.configurations(scoring, scratch, parents_v, k) if need_config else 0
    miss_us = np.empty(n_miss, dtype=np.int64)
    miss_removing = np.empty(n_miss, dtype=np.bool_)
    for t in range(n_miss):
        miss_us[t] = us[miss[t]]
        miss_removing[t] = removing[miss[t]]
    values = np.empty(n_miss)
    score_families(scoring, scratch, v, miss_us, miss_removing, n_miss, parents_v, k, q, values)
    for t in range(n_miss):
        store(cache, base_key ^ parent_key(miss_us[t]), values[t])
        counters[N_SCORES] += 1
        out[miss[t]] = values[t] - fit


@njit(cache=True, inline="always")
def _family_key(v, parents, npar, phash, extra, skip, tmp):
    """(key, m): the cache key of ``v`` with its parents (rows of ``parents``, counts
    ``npar``, parent hashes ``phash``) plus ``extra`` (>= 0) and minus ``skip``, and those
    parents in ``tmp[:m]``."""
    key = node_key(v) ^ phash[v]
    m = 0
    for t in range(npar[v]):
        p = parents[v, t]
        if p == skip:
            key ^= parent_key(p)
        else:
            tmp[m] = p
            m += 1
    if extra >= 0:
        tmp[m] = extra
        m += 1
        key ^= parent_key(extra)
    return key, m


@njit(cache=True)
def cached_with(prior, cache, counters, tmp, v, parents, npar, phash, extra, skip):
    """(found, score): the local score of ``v`` with its parents plus ``extra`` (>= 0) and
    minus ``skip``, and the graph prior's weights of those arcs, when the cache holds it;
    else (False, 0), and :func:`score_with` computes it.

    The random post-processing and the screen ask once per operation, so this takes plain
    arrays (fields of :class:`Scoring` and :class:`Scratch` its caller unpacks once, before
    its loop): numba takes a reference to every array it reads out of a bundle, and at this
    rate those references cost a fifth of the post-processing's time (measured)."""
    key, m = _family_key(v, parents, npar, phash, extra, skip, tmp)
    if key in cache:
        counters[N_HITS] += 1
        return True, cache[key] + parents_weight(prior, v, tmp, m)
    return False, 0.0


@njit(cache=True)
def score_with(scoring, scratch, v, parents, npar, phash, extra, skip):
    """The score :func:`cached_with` gives, computed (and cached) when it is not cached."""
    tmp = scratch.tmp[0]
    key, m = _family_key(v, parents, npar, phash, extra, skip, tmp)
    weight = parents_weight(scoring.prior, v, tmp, m)
    return cached_score(scoring, scratch, v, tmp, m, key) + weight
