"""The local learners' conditional-independence searches, compiled (numba): for each of a
list of candidates x, the tests of the target t and x given the subsets of a pool of
variables, by increasing size and in lexicographic order within a size, until one separates
them (HITON-PC's and MMPC's forward and backward phases, the spouse search, IAMB's and the
marginal screens over all features), in one call with no Python between the tests.

Each test is :func:`bnfs._kernels.citests.discrete_statistic`'s, on the pair ordered as
:class:`bnfs.stats.citests.CITest` orders it (smaller index first), so a statistic is the same to
the last bit as the per-test path's, and a conditioning set's strata are counted once for
all the candidates tested given it.
"""

from collections import namedtuple

import numpy as np

import bnfs._kernels.configurations as _cfg
from bnfs._kernels._compile import njit
from bnfs._kernels.citests import (
    ADF_ROWS_PER_CELL,
    BY_P_VALUE_WITH_POWER,
    BY_THRESHOLD,
    chi2_sf,
    strata,
    strata_statistic,
)

#: the data and the decision rule of a discrete test: integer codes (rows x variables),
#: arities, statistic (``G2``/``X2``), whether degrees of freedom are adjusted, the decision
#: mode (``BY_P_VALUE``/``BY_THRESHOLD``/``BY_P_VALUE_WITH_POWER``), alpha and the
#: mutual-information threshold
Test = namedtuple("Test", ["codes", "arities", "which", "adjust_df", "mode", "alpha", "threshold"])

#: scratch: ``cfg`` (a stratum per row), ``counts`` (zeros, the dense table), ``z`` (the
#: subset under test), ``idx`` (its positions in the pool), ``last`` (the subset whose strata
#: ``cfg`` holds), ``state`` (``[size of last or -1, bound on cfg]``) and ``tested`` (the
#: mask of a :data:`Query`)
Scratch = namedtuple("Scratch", ["cfg", "counts", "z", "idx", "last", "state", "tested"])

#: what a search asks: subsets of the sorted pool (its first ``n_pool`` entries) from
#: ``min_size`` to ``max_size`` members (-1: no bound); with ``skip``, not those whose members
#: are all ``tested`` (a mask over the variables: subsets tested before); ``grow``: a
#: candidate no subset separates joins the pool (HITON-PC's forward phase)
Query = namedtuple("Query", ["pool", "min_size", "max_size", "skip", "tested", "grow"])

#: what :func:`_search_one` found for a candidate
DEPENDENT, SEPARATED, STOPPED = 0, 1, 2

#: per candidate: ``found`` (a subset separated it), its subset in ``flat[start[k]:start[k] +
#: size[k]]``, and the raw test (``stat``, ``df``, ``cells``) of its weakest association
#: (the largest p-value, ties to the smaller statistic) over the subsets tested; ``tests``
#: counts the tests run; ``pause`` (:data:`PAUSE_AT`, :data:`PAUSED`, :data:`AT_SIZE`) and
#: ``weakest`` (p-value, statistic) let a call stop after a number of tests and the next
#: call go on where it stopped
Outcomes = namedtuple(
    "Outcomes",
    ["found", "size", "start", "flat", "stat", "df", "cells", "tests", "pause", "weakest"],
)

#: slots of ``Outcomes.pause``: the test count at which a call stops, whether it stopped
#: there (1) and the subset size the paused candidate was at (-1: none; its subset is in
#: ``Scratch.idx``)
PAUSE_AT, PAUSED, AT_SIZE = 0, 1, 2


@njit(cache=True)
def outcome(test, stat, df, cells):
    """(p-value, statistic, independent) of a raw test as :class:`~bnfs.stats.citests.CITest`
    reports it: bnlearn's power rule for the adf tests (statistic 0, p-value 1 below 5 rows
    per cell), mutual information (statistic / 2n) against the threshold, or the p-value
    against alpha."""
    n = test.codes.shape[0]
    if test.mode == BY_P_VALUE_WITH_POWER and n < ADF_ROWS_PER_CELL * cells:
        return 1.0, 0.0, True
    p = chi2_sf(df, stat)
    if test.mode == BY_THRESHOLD:
        mi = stat / (2.0 * n)
        return p, mi, mi <= test.threshold
    return p, stat, p > test.alpha


@njit(cache=True)
def _test(test, scratch, t, x, n_z):
    """The raw test (statistic, df, cells) of t and x given ``scratch.z[:n_z]``, counting
    the strata only when the subset differs from the last one counted."""
    z, last, state = scratch.z, scratch.last, scratch.state
    same = state[0] == n_z
    for i in range(n_z):
        if not same:
            break
        same = last[i] == z[i]
    if not same:
        state[1] = strata(test.codes, test.arities, z, n_z, scratch.cfg)
        state[0] = n_z
        for i in range(n_z):
            last[i] = z[i]
    a, b = (t, x) if t < x else (x, t)
    q_true = _cfg.n_configurations(test.arities, z, n_z)
    stat, df, cells, q = strata_statistic(
        test.codes,
        test.arities,
        a,
        b,
        state[1],
        q_true,
        test.which,
        test.adjust_df,
        scratch.cfg,
        scratch.counts,
    )
    state[1] = q
    return stat, df, cells


@njit(cache=True)
def _fresh(query, idx, size):
    """Whether the subset at pool positions ``idx[:size]`` is to be tested."""
    if not query.skip:
        return True
    for i in range(size):
        if not query.tested[query.pool[idx[i]]]:
            return True
    return False


@njit(cache=True)
def _next_subset(idx, size, n_pool):
    """Advance ``idx[:size]`` to the next combination of ``range(n_pool)`` in lexicographic
    order; False when there is none."""
    i = size - 1
    while i >= 0 and idx[i] == n_pool - size + i:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for j in range(i + 1, size):
        idx[j] = idx[j - 1] + 1
    return True


@njit(cache=True)
def _search_one(test, scratch, t, x, query, n_pool, out, k):
    """Test t and x given the subsets ``query`` asks for, in order, until one separates
    them: record the outcome of candidate ``k`` (the separating subset is left in
    ``scratch.z``); return :data:`SEPARATED`, :data:`DEPENDENT`, or :data:`STOPPED` when the
    test count reached ``out.pause[PAUSE_AT]`` first (a call with the same state goes on
    from the subset it stopped at)."""
    pool, idx, z, pause = query.pool, scratch.idx, scratch.z, out.pause
    top = n_pool if query.max_size < 0 else min(query.max_size, n_pool)
    first = query.min_size
    weak_p, weak_stat = -1.0, 0.0
    resumed = pause[AT_SIZE] >= 0
    if resumed:
        first = pause[AT_SIZE]
        weak_p, weak_stat = out.weakest[0], out.weakest[1]
        pause[AT_SIZE] = -1
    for size in range(first, top + 1):
        if not resumed:
            for i in range(size):
                idx[i] = i
        resumed = False
        more = True
        while more:
            if _fresh(query, idx, size):
                if out.tests[0] >= pause[PAUSE_AT]:
                    pause[PAUSED], pause[AT_SIZE] = 1, size
                    out.weakest[0], out.weakest[1] = weak_p, weak_stat
                    return STOPPED
                for i in range(size):
                    z[i] = pool[idx[i]]
                stat, df, cells = _test(test, scratch, t, x, size)
                out.tests[0] += 1
                p, key_stat, independent = outcome(test, stat, df, cells)
                if p > weak_p or (p == weak_p and key_stat < weak_stat):
                    weak_p, weak_stat = p, key_stat
                    out.stat[k], out.df[k], out.cells[k] = stat, df, cells
                if independent:
                    out.found[k] = True
                    out.size[k] = size
                    return SEPARATED
            more = _next_subset(idx, size, n_pool)
    out.found[k] = False
    out.size[k] = 0
    return DEPENDENT


@njit(cache=True)
def separate(test, scratch, t, candidates, first, query, n_pool, out):
    """Run :func:`_search_one` for ``candidates[first:]`` in order, filling ``out``; with
    ``query.grow`` a candidate no subset separates is inserted into the pool (kept sorted)
    before the next is tested.

    Returns (the next candidate, ``n_pool``): ``len(candidates)`` when all were searched,
    else ``first`` of the call to make next: after a pause (``out.pause[PAUSED]``) or once
    ``out.flat`` has been grown (it was too short for the next separating subset)."""
    flat, start = out.flat, out.start
    pool = query.pool
    for k in range(first, candidates.shape[0]):
        x = candidates[k]
        found = _search_one(test, scratch, t, x, query, n_pool, out, k)
        if found == STOPPED:
            return k, n_pool
        if found == SEPARATED:
            size = out.size[k]
            if start[k] + size > flat.shape[0]:
                return k, n_pool
            for i in range(size):
                flat[start[k] + i] = scratch.z[i]
            start[k + 1] = start[k] + size
            continue
        start[k + 1] = start[k]
        if query.grow:
            at = n_pool
            while at > 0 and pool[at - 1] > x:
                pool[at] = pool[at - 1]
                at -= 1
            pool[at] = x
            n_pool += 1
    return candidates.shape[0], n_pool


def scratch_for(n_rows: int, n_vars: int, counts_size: int) -> Scratch:
    """Scratch for tests on ``n_rows`` rows of ``n_vars`` variables."""
    return Scratch(
        np.empty(n_rows, dtype=np.int64),
        np.zeros(counts_size, dtype=np.int64),
        np.zeros(max(n_vars, 1), dtype=np.int64),
        np.zeros(max(n_vars, 1), dtype=np.int64),
        np.zeros(max(n_vars, 1), dtype=np.int64),
        np.array([-1, 1], dtype=np.int64),
        np.zeros(max(n_vars, 1), dtype=np.bool_),
    )
