"""Parent configurations of discrete data (numba): each row's mixed-radix index of its
parents' values, built column by column from the Fortran-ordered code matrix and renumbered
before it would overflow, and the rows grouped by it. The scores
(:mod:`bnfs._kernels.scores`), the CI tests (:mod:`bnfs._kernels.citests`) and the
conditional-Gaussian kernels count on them."""

import numpy as np

from bnfs._kernels._compile import njit
from bnfs._kernels.sorting import argsort_stable

_COMPRESS_AT = 1 << 40  # renumber configurations before the mixed-radix index overflows


@njit(cache=True)
def compress(cfg, n):
    """Renumber ``cfg[:n]`` to ranks 0..distinct-1; return the number of distinct values."""
    order = argsort_stable(cfg[:n])
    rank = -1
    last = -1
    for t in range(n):
        i = order[t]
        if t == 0 or cfg[i] != last:
            rank += 1
            last = cfg[i]
        cfg[i] = rank
    return rank + 1


@njit(cache=True)
def parent_config(codes, arities, parents, n_par, cfg):
    """Fill ``cfg[:N]`` with the parent-configuration index of each row.

    Returns ``q``, an upper bound (exclusive) on the indices, which is the number of
    configurations unless indices were renumbered to avoid overflow.
    """
    n = codes.shape[0]
    for i in range(n):
        cfg[i] = 0
    q = 1
    for k in range(n_par):
        p = parents[k]
        rp = arities[p]
        if q > _COMPRESS_AT // rp:
            q = compress(cfg, n)
        for i in range(n):
            cfg[i] = cfg[i] * rp + codes[i, p]
        q *= rp
    return q


@njit(cache=True)
def n_configurations(arities, parents, n_par):
    """Number of parent configurations as a float (it may exceed int64)."""
    q = 1.0
    for k in range(n_par):
        q *= arities[parents[k]]
    return q


@njit(cache=True)
def extend_config(cfg, q, codes, arities, extra, out):
    """``out = cfg * r_extra + codes[:, extra]``; returns the new bound (renumbering
    first when it would overflow)."""
    n = codes.shape[0]
    r = arities[extra]
    if q > _COMPRESS_AT // r:
        for i in range(n):
            out[i] = cfg[i]
        q = compress(out, n)
        for i in range(n):
            out[i] = out[i] * r + codes[i, extra]
        return q * r
    for i in range(n):
        out[i] = cfg[i] * r + codes[i, extra]
    return q * r


@njit(cache=True)
def group_rows(cfg, n, groups):
    """The rows by parent configuration, for :func:`score_grouped`: ``groups[0, :n]`` the
    rows in ascending ``cfg[:n]`` (ties in row order), ``groups[1, :g + 1]`` where each of
    the ``g`` configurations seen starts, ``groups[0, n] = g``."""
    bound = 0
    for i in range(n):
        bound = max(bound, cfg[i] + 1)
    if bound <= 8 * n:  # a counting sort, linear in the rows
        start = np.zeros(bound + 1, dtype=np.int64)
        for i in range(n):
            start[cfg[i] + 1] += 1
        g = 0
        for j in range(bound):
            if start[j + 1] > 0:
                groups[1, g] = start[j]
                g += 1
            start[j + 1] += start[j]
        for i in range(n):
            groups[0, start[cfg[i]]] = i
            start[cfg[i]] += 1
        groups[1, g] = n
        groups[0, n] = g
        return
    order = argsort_stable(cfg[:n])
    g = 0
    for t in range(n):
        i = order[t]
        groups[0, t] = i
        if t == 0 or cfg[i] != cfg[order[t - 1]]:
            groups[1, g] = t
            g += 1
    groups[1, g] = n
    groups[0, n] = g
