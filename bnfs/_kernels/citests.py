"""Conditional-independence statistics of discrete and Gaussian data (numba).

For discrete x, y and a conditioning set Z the rows are counted into a table
``[z configuration, x, y]`` (configurations of Z renumbered to the observed ones when the
full table would not fit the scratch space), and

* G^2 (bnlearn's ``mi``): 2 sum n_xyz log(n_xyz n_z / (n_xz n_yz))
* Pearson's X^2 (``x2``): sum (n_xyz - e)^2 / e with e = n_xz n_yz / n_z, over strata and
  cells with e > 0
* degrees of freedom as bnlearn counts them, (r_x - 1)(r_y - 1) prod r_Z, or adjusted for
  empty cells: sum over observed strata of (x levels seen - 1)(y levels seen - 1), at least 1.

Fisher's z for Gaussian data uses the partial correlation from the inverse of the
correlation matrix of (x, y, Z).
"""

import math

import numpy as np
from numba import njit

from bnfs._kernels import scores as _s

G2, X2 = 0, 1


@njit(cache=True)
def discrete_statistic(codes, arities, x, y, z, n_z, which, adjust_df, cfg, counts):
    """Return (statistic, degrees of freedom, number of table cells) of one test.

    ``counts`` is int64 scratch, all zeros, left all zeros; a larger table is allocated.
    """
    n = codes.shape[0]
    rx, ry = arities[x], arities[y]
    q = _s.parent_config(codes, arities, z, n_z, cfg)
    q_true = _s.n_configurations(arities, z, n_z)
    cells = q * rx * ry
    if cells > counts.shape[0]:
        q = _s._compress(cfg, n)
        cells = q * rx * ry
    table = counts if cells <= counts.shape[0] else np.zeros(cells, dtype=np.int64)
    for i in range(n):
        table[(cfg[i] * rx + codes[i, x]) * ry + codes[i, y]] += 1
    stat = 0.0
    df_adj = 0.0
    nx = np.zeros(rx, dtype=np.int64)
    ny = np.zeros(ry, dtype=np.int64)
    for j in range(q):
        base = j * rx * ry
        nz = 0
        for a in range(rx):
            nx[a] = 0
        for b in range(ry):
            ny[b] = 0
        for a in range(rx):
            for b in range(ry):
                c = table[base + a * ry + b]
                nx[a] += c
                ny[b] += c
                nz += c
        if nz == 0:
            continue
        seen_x = 0
        seen_y = 0
        for a in range(rx):
            if nx[a] > 0:
                seen_x += 1
        for b in range(ry):
            if ny[b] > 0:
                seen_y += 1
        if seen_x > 1 and seen_y > 1:
            df_adj += (seen_x - 1) * (seen_y - 1)
        for a in range(rx):
            if nx[a] == 0:
                continue
            for b in range(ry):
                if ny[b] == 0:
                    continue
                c = table[base + a * ry + b]
                expected = nx[a] * ny[b] / nz
                if which == G2:
                    if c > 0:
                        stat += 2.0 * c * math.log(c / expected)
                else:
                    stat += (c - expected) ** 2 / expected
        for a in range(rx):
            for b in range(ry):
                table[base + a * ry + b] = 0
    if adjust_df:
        df = max(df_adj, 1.0)
    else:
        df = (rx - 1) * (ry - 1) * q_true
    return max(stat, 0.0), df, q_true * rx * ry


@njit(cache=True)
def partial_correlation(corr, x, y, z, n_z):
    """Partial correlation of x and y given z from a correlation matrix."""
    k = n_z + 2
    sub = np.empty((k, k))
    idx = np.empty(k, dtype=np.int64)
    idx[0], idx[1] = x, y
    for t in range(n_z):
        idx[t + 2] = z[t]
    for a in range(k):
        for b in range(k):
            sub[a, b] = corr[idx[a], idx[b]]
    if n_z == 0:
        r = sub[0, 1]
    else:
        prec = np.linalg.pinv(sub)
        denom = math.sqrt(abs(prec[0, 0] * prec[1, 1]))
        r = -prec[0, 1] / denom if denom > 0 else 0.0
    return min(max(r, -1.0 + 1e-12), 1.0 - 1e-12)
