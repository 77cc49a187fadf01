"""One level of PC-stable's edge removal, compiled (numba): every remaining edge's pairs of
sides tested in parallel against the subsets of their adjacencies (as they stood at the
start of the level) with the discrete tests of :mod:`bnfs._kernels.citests`."""

import numpy as np
from numba import prange

from bnfs._kernels import njit
from bnfs._kernels.citests import decide, discrete_statistic


@njit(cache=True)
def _first_separating_set(
    codes,
    arities,
    x,
    y,
    pool,
    n_pool,
    level,
    which,
    adjust_df,
    mode,
    alpha,
    threshold,
    min_rows_per_cell,
    cfg,
    counts,
    z,
    sep,
    known,
    second_side,
):
    """Test x and y given each subset of ``pool[:n_pool]`` of size ``level`` in
    lexicographic order until one separates them; return (found, tests run) and leave the
    separating subset in ``sep``. On the ``second_side``, subsets whose members all have
    ``known`` set were already found not to separate (from the other side): skipped."""
    n = codes.shape[0]
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
                codes, arities, x, y, z, level, which, adjust_df, cfg, counts
            )
            tests += 1
            if decide(stat, df, cells, n, mode, alpha, threshold, min_rows_per_cell):
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
def pc_level(
    codes,
    arities,
    pairs,
    adj_ptr,
    adj_idx,
    level,
    which,
    adjust_df,
    mode,
    alpha,
    threshold,
    min_rows_per_cell,
    second_side,
    scratch,
    n_chunks,
    found,
    seps,
    n_tests,
):
    """One round of a PC-stable level: for every pair (x, y), the first subset of size
    ``level`` of x's adjacencies (``adj_idx[adj_ptr[x]:adj_ptr[x + 1]]``, sorted, without
    y) that separates x and y (``found``, ``seps``, ``n_tests`` per pair). In the
    ``second_side`` round the pairs survived the first from y's side, so subsets of y's
    adjacencies are not tested again.

    Pairs are dealt round-robin to ``n_chunks`` chunks run in parallel, each with its own
    scratch (the caller puts the costliest pairs first); every pair's answer depends on
    nothing else, so the result is the same for any thread count.
    """
    if n_chunks <= 1:  # no parallel region: idle threads would spin beside other workers
        _pc_pairs(
            codes,
            arities,
            pairs,
            adj_ptr,
            adj_idx,
            level,
            which,
            adjust_df,
            mode,
            alpha,
            threshold,
            min_rows_per_cell,
            second_side,
            scratch,
            found,
            seps,
            n_tests,
            0,
            1,
        )
        return
    for chunk in prange(n_chunks):
        _pc_pairs(
            codes,
            arities,
            pairs,
            adj_ptr,
            adj_idx,
            level,
            which,
            adjust_df,
            mode,
            alpha,
            threshold,
            min_rows_per_cell,
            second_side,
            scratch,
            found,
            seps,
            n_tests,
            chunk,
            n_chunks,
        )


@njit(cache=True)
def _pc_pairs(
    codes,
    arities,
    pairs,
    adj_ptr,
    adj_idx,
    level,
    which,
    adjust_df,
    mode,
    alpha,
    threshold,
    min_rows_per_cell,
    second_side,
    scratch,
    found,
    seps,
    n_tests,
    first,
    step,
):
    """:func:`pc_level` for pairs ``first, first + step, ...`` with scratch of their own."""
    p = adj_ptr.shape[0] - 1
    width = 1
    for v in range(p):
        width = max(width, adj_ptr[v + 1] - adj_ptr[v])
    cfg = np.empty(codes.shape[0], dtype=np.int64)
    counts = np.zeros(scratch, dtype=np.int64)
    pool = np.empty(width, dtype=np.int64)
    z = np.empty(max(level, 1), dtype=np.int64)
    known = np.zeros(p, dtype=np.bool_)
    for e in range(first, pairs.shape[0], step):
        _pc_pair(
            codes,
            arities,
            pairs,
            adj_ptr,
            adj_idx,
            level,
            which,
            adjust_df,
            mode,
            alpha,
            threshold,
            min_rows_per_cell,
            second_side,
            found,
            seps,
            n_tests,
            e,
            cfg,
            counts,
            pool,
            z,
            known,
        )


@njit(cache=True)
def _pc_pair(
    codes,
    arities,
    pairs,
    adj_ptr,
    adj_idx,
    level,
    which,
    adjust_df,
    mode,
    alpha,
    threshold,
    min_rows_per_cell,
    second_side,
    found,
    seps,
    n_tests,
    e,
    cfg,
    counts,
    pool,
    z,
    known,
):
    """:func:`pc_level` for pair ``e`` with the given scratch."""
    x, y = pairs[e, 0], pairs[e, 1]
    if second_side:
        for t in range(adj_ptr[y], adj_ptr[y + 1]):
            known[adj_idx[t]] = True
    k = 0
    for t in range(adj_ptr[x], adj_ptr[x + 1]):
        if adj_idx[t] != y:
            pool[k] = adj_idx[t]
            k += 1
    ok, tests = _first_separating_set(
        codes,
        arities,
        x,
        y,
        pool,
        k,
        level,
        which,
        adjust_df,
        mode,
        alpha,
        threshold,
        min_rows_per_cell,
        cfg,
        counts,
        z,
        seps[e],
        known,
        second_side,
    )
    found[e] = ok
    n_tests[e] = tests
    if second_side:
        for t in range(adj_ptr[y], adj_ptr[y + 1]):
            known[adj_idx[t]] = False
