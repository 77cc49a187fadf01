"""One level of PC-stable's edge removal, compiled (numba): every remaining edge's pairs of
sides tested in parallel against the subsets of their adjacencies (as they stood at the
start of the level) with the discrete tests of :mod:`bnfs._kernels.citests`."""

from collections import namedtuple

import numpy as np
from numba import prange

from bnfs._kernels._compile import njit
from bnfs._kernels.citests import decide, discrete_statistic

#: one round of a level: the ``pairs`` (x, y) to test, each node's adjacencies at the start
#: of the level (``adj_idx[adj_ptr[x]:adj_ptr[x + 1]]``, sorted), the subset size
#: ``level``, and whether this is the ``second_side`` round (pairs seen from y's side)
Round = namedtuple("Round", ["pairs", "adj_ptr", "adj_idx", "level", "second_side"])
#: per pair: whether a subset separated it (``found``), the subset (a row of ``seps``) and
#: the tests run (``n_tests``)
Found = namedtuple("Found", ["found", "seps", "n_tests"])
#: one thread's scratch: ``cfg`` (a stratum per row of data), ``counts`` (zeros, the dense
#: table), ``pool`` (x's adjacencies without y), ``z`` (the subset under test) and ``known``
#: (a mask of y's adjacencies, on the second side)
PairScratch = namedtuple("PairScratch", ["cfg", "counts", "pool", "z", "known"])


@njit(cache=True)
def _first_separating_set(test, min_rows_per_cell, x, y, n_pool, level, second_side, work, sep):
    """Test x and y given each subset of ``work.pool[:n_pool]`` of size ``level`` in
    lexicographic order until one separates them; return (found, tests run) and leave the
    separating subset in ``sep``. On the ``second_side``, subsets whose members all have
    ``work.known`` set were already found not to separate (from the other side): skipped."""
    pool, z, known = work.pool, work.z, work.known
    n = test.codes.shape[0]
    if n_pool < level:
        return False, 0
    idx = np.arange(level)
    tests = 0
    while True:
        seen = second_side
        for t in range(level):
            z[t] = pool[idx[t]]
            seen = seen and known[z[t]]
        if not seen:
            stat, df, cells = discrete_statistic(
                test.codes,
                test.arities,
                x,
                y,
                z,
                level,
                test.which,
                test.adjust_df,
                work.cfg,
                work.counts,
            )
            tests += 1
            if decide(stat, df, cells, n, test.mode, test.alpha, test.threshold, min_rows_per_cell):
                for t in range(level):
                    sep[t] = z[t]
                return True, tests
        t = level - 1  # next combination
        while t >= 0 and idx[t] == n_pool - level + t:
            t -= 1
        if t < 0:
            return False, tests
        idx[t] += 1
        for s in range(t + 1, level):
            idx[s] = idx[s - 1] + 1


@njit(parallel=True, cache=True)
def pc_level(test, min_rows_per_cell, round_, out, scratch, n_chunks):
    """One round of a PC-stable level: for every pair (x, y) of ``round_``, the first subset
    of size ``level`` of x's adjacencies (without y) that separates x and y under ``test`` (a
    :class:`bnfs._kernels.separation.Test`; with ``min_rows_per_cell`` > 0, too few rows per
    cell count as dependent), written to ``out`` (a :class:`Found`). In the
    ``second_side`` round the pairs survived the first from y's side, so subsets of y's
    adjacencies are not tested again.

    Pairs are dealt round-robin to ``n_chunks`` chunks run in parallel, each with its own
    scratch (``scratch`` cells of counts; the caller puts the costliest pairs first); every
    pair's answer depends on nothing else, so the result is the same for any thread count.
    """
    if n_chunks <= 1:  # no parallel region: idle threads would spin beside other workers
        _pc_pairs(test, min_rows_per_cell, round_, out, scratch, 0, 1)
        return
    for chunk in prange(n_chunks):  # prange counts in uint64: one signature, not two
        _pc_pairs(test, min_rows_per_cell, round_, out, scratch, np.int64(chunk), n_chunks)


@njit(cache=True)
def _pc_pairs(test, min_rows_per_cell, round_, out, scratch, first, step):
    """:func:`pc_level` for pairs ``first, first + step, ...`` with scratch of their own."""
    adj_ptr = round_.adj_ptr
    p = adj_ptr.shape[0] - 1
    width = 1
    for v in range(p):
        width = max(width, adj_ptr[v + 1] - adj_ptr[v])
    work = PairScratch(
        np.empty(test.codes.shape[0], dtype=np.int64),
        np.zeros(scratch, dtype=np.int64),
        np.empty(width, dtype=np.int64),
        np.empty(max(round_.level, 1), dtype=np.int64),
        np.zeros(p, dtype=np.bool_),
    )
    for e in range(first, round_.pairs.shape[0], step):
        _pc_pair(test, min_rows_per_cell, round_, out, e, work)


@njit(cache=True)
def _pc_pair(test, min_rows_per_cell, round_, out, e, work):
    """:func:`pc_level` for pair ``e`` with the given scratch."""
    adj_ptr, adj_idx, second_side = round_.adj_ptr, round_.adj_idx, round_.second_side
    x, y = round_.pairs[e, 0], round_.pairs[e, 1]
    if second_side:
        for t in range(adj_ptr[y], adj_ptr[y + 1]):
            work.known[adj_idx[t]] = True
    k = 0
    for t in range(adj_ptr[x], adj_ptr[x + 1]):
        if adj_idx[t] != y:
            work.pool[k] = adj_idx[t]
            k += 1
    ok, tests = _first_separating_set(
        test, min_rows_per_cell, x, y, k, round_.level, second_side, work, out.seps[e]
    )
    out.found[e] = ok
    out.n_tests[e] = tests
    if second_side:
        for t in range(adj_ptr[y], adj_ptr[y + 1]):
            work.known[adj_idx[t]] = False
