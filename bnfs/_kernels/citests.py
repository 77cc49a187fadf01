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

import bnfs._kernels.configurations as _cfg
from bnfs._kernels._compile import njit
from bnfs._kernels.sorting import argsort_stable

G2, X2 = 0, 1
# how a statistic becomes a decision (``decide``)
#: how a statistic becomes a decision: p-value, mutual-information threshold, or p-value
#: with bnlearn's power rule (mi-adf / x2-adf: independent below 5 rows per table cell)
BY_P_VALUE, BY_THRESHOLD, BY_P_VALUE_WITH_POWER = 0, 1, 2
#: rows per cell below which bnlearn's adf tests declare independence
ADF_ROWS_PER_CELL = 5.0


@njit(cache=True)
def discrete_statistic(codes, arities, x, y, z, n_z, which, adjust_df, cfg, counts):
    """Return (statistic, degrees of freedom, number of table cells) of one test.

    ``counts`` is int64 scratch, all zeros, left all zeros. A table ``[Z, x, y]`` is counted
    densely in it when it fits (after renumbering Z's configurations to the observed ones);
    otherwise the rows are sorted by cell instead (:func:`_sorted_statistic`), so no table
    larger than the scratch is ever written or allocated, whatever the arities.
    """
    q = strata(codes, arities, z, n_z, cfg)
    stat, df, cells, _ = strata_statistic(
        codes,
        arities,
        x,
        y,
        q,
        _cfg.n_configurations(arities, z, n_z),
        which,
        adjust_df,
        cfg,
        counts,
    )
    return stat, df, cells


@njit(cache=True)
def strata(codes, arities, z, n_z, cfg):
    """Fill ``cfg`` with each row's configuration of ``z[:n_z]``; return a bound on them."""
    if n_z == 0:
        for i in range(codes.shape[0]):
            cfg[i] = 0
        return 1
    return _cfg.parent_config(codes, arities, z, n_z, cfg)


@njit(cache=True)
def strata_statistic(codes, arities, x, y, q, q_true, which, adjust_df, cfg, counts):
    """:func:`discrete_statistic` on strata ``cfg`` (bound ``q``; ``q_true`` configurations
    in all) already filled by :func:`strata`: (statistic, df, cells, bound on ``cfg``).

    The strata are renumbered in place to the observed ones when the table does not fit,
    which keeps their order: a statistic counted on renumbered strata is the same, to the
    last bit, so one filling serves every test with the same conditioning set."""
    n = codes.shape[0]
    rx, ry = arities[x], arities[y]
    size = counts.shape[0]
    if q > 1 and not _fits(q, rx, ry, size):
        q = _cfg.compress(cfg, n)
    if _fits(q, rx, ry, size):
        stat, df_adj = _dense_statistic(codes, x, y, rx, ry, q, cfg, which, counts)
    else:
        stat, df_adj = _sorted_statistic(codes, x, y, rx, ry, cfg, which)
    if adjust_df:
        df = max(df_adj, 1.0)
    else:
        df = (rx - 1) * (ry - 1) * q_true
    return max(stat, 0.0), df, q_true * rx * ry, q


@njit(cache=True)
def _fits(q, rx, ry, size):
    """Whether a table of q x rx x ry cells fits ``size`` cells (no int64 overflow)."""
    return rx * ry <= size and q <= size // (rx * ry)


@njit(cache=True)
def _dense_statistic(codes, x, y, rx, ry, q, cfg, which, table):
    """(statistic, adjusted df) counted in ``table`` (zeros, at least q rx ry cells, left
    zeros) from the stratum index ``cfg`` of each row; only the strata some row falls in
    are scanned, so a mostly empty table costs little more than its rows."""
    n = codes.shape[0]
    seen = np.zeros(q, dtype=np.bool_)
    for i in range(n):
        table[(cfg[i] * rx + codes[i, x]) * ry + codes[i, y]] += 1
        seen[cfg[i]] = True
    stat = 0.0
    df_adj = 0.0
    nx = np.zeros(rx, dtype=np.int64)
    ny = np.zeros(ry, dtype=np.int64)
    for j in range(q):
        if not seen[j]:  # an empty stratum adds nothing: its cells are not scanned
            continue
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
    return stat, df_adj


@njit(cache=True)
def _sorted_statistic(codes, x, y, rx, ry, cfg, which):
    """(statistic, adjusted df) from the rows sorted by (stratum ``cfg``, x, y): only the
    observed cells are visited. Pearson's X^2 over the cells with positive margins is
    sum c^2 / e - n_z per stratum (the unobserved cells add their expected counts)."""
    n = codes.shape[0]
    key = np.empty(n, dtype=np.int64)
    for i in range(n):  # (stratum, x), renumbered so that appending y cannot overflow
        key[i] = cfg[i] * rx + codes[i, x]
    _cfg.compress(key, n)
    for i in range(n):
        key[i] = key[i] * ry + codes[i, y]
    order = argsort_stable(key)
    ny = np.zeros(ry, dtype=np.int64)
    stat = 0.0
    df_adj = 0.0
    start = 0
    while start < n:  # one stratum: rows order[start:stop]
        stratum = cfg[order[start]]
        stop = start
        seen_x = 0
        seen_y = 0
        while stop < n and cfg[order[stop]] == stratum:
            i = order[stop]
            if ny[codes[i, y]] == 0:
                seen_y += 1
            ny[codes[i, y]] += 1
            if stop == start or codes[i, x] != codes[order[stop - 1], x]:
                seen_x += 1
            stop += 1
        nz = stop - start
        if seen_x > 1 and seen_y > 1:
            df_adj += (seen_x - 1) * (seen_y - 1)
        t = start
        while t < stop:  # one x level: rows order[t:end_x]
            a = codes[order[t], x]
            end_x = t
            while end_x < stop and codes[order[end_x], x] == a:
                end_x += 1
            n_xz = end_x - t
            while t < end_x:  # one cell (a, b): rows order[t:end_y]
                b = codes[order[t], y]
                end_y = t
                while end_y < end_x and codes[order[end_y], y] == b:
                    end_y += 1
                c = end_y - t
                expected = n_xz * ny[b] / nz
                if which == G2:
                    stat += 2.0 * c * math.log(c / expected)
                else:
                    stat += c * (c / expected)
                t = end_y
        if which != G2:
            stat -= nz
        for t in range(start, stop):
            ny[codes[order[t], y]] = 0
        start = stop
    return stat, df_adj


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


@njit(cache=True)
def gammaincc(a, x):
    """Regularized upper incomplete gamma function Q(a, x), a > 0: the series for P when
    x < a + 1, else Lentz's continued fraction (Numerical Recipes, section 6.2)."""
    if x <= 0.0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = 1.0 / a
        total = term
        ap = a
        for _ in range(10_000_000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-17:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return math.exp(log_front) * h


@njit(cache=True)
def chi2_sf(df, x):
    """Upper tail of the chi-square distribution (scipy's ``chdtrc``)."""
    return gammaincc(0.5 * df, 0.5 * x)


@njit(cache=True)
def decide(stat, df, cells, n, mode, alpha, threshold, min_rows_per_cell):
    """Whether a test counts as independent, as :class:`bnfs.stats.citests.CITest` decides:
    dependent without enough rows per cell; else mutual information (stat / 2n) at most
    ``threshold``, or a p-value above ``alpha`` (with ``BY_P_VALUE_WITH_POWER``: independent
    too when there are fewer than 5 rows per cell, as bnlearn's mi-adf and x2-adf)."""
    if min_rows_per_cell > 0.0 and n / cells < min_rows_per_cell:
        return False
    if mode == BY_P_VALUE_WITH_POWER and n < ADF_ROWS_PER_CELL * cells:
        return True
    if mode == BY_THRESHOLD:
        return stat / (2.0 * n) <= threshold
    return chi2_sf(df, stat) > alpha
