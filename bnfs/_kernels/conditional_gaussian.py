"""Conditional-Gaussian local scores and log-likelihoods for mixed data (numba).

In a conditional-Gaussian (CG) network, as bnlearn defines it (Lauritzen & Wermuth 1989;
bnlearn's ``loglik-cg``/``aic-cg``/``bic-cg``), a discrete node has only discrete parents and
a multinomial distribution per parent configuration; a continuous node regresses on its
continuous parents, with its own intercept, coefficients and residual variance in each
configuration of its discrete parents.

The data come as one float64 ``table`` of shape (variables, rows + variables): in the first
``rows`` columns each variable is a contiguous row (discrete codes 0..r-1 stored as floats,
continuous columns unit-scaled); the last ``variables`` columns hold the covariance matrix of
those rows, from which a continuous node without discrete parents is scored in O(|P|^3) as
in :mod:`bnfs._kernels.covariance`. ``arities`` holds each variable's number of levels, 0 for
a continuous one.

Parameters counted as bnlearn counts them: a discrete node q (r - 1), a continuous node
q (|continuous parents| + 2), with q the number of configurations of the discrete parents
(observed or not). A configuration with rows but no more rows than regression coefficients
makes the model singular (log-likelihood -inf, as in bnlearn), and so does a zero residual
variance.

Residual variance: maximum likelihood RSS/n_j (``kind`` < BNLEARN_VARIANCE) or bnlearn's
RSS/(n_j - |continuous parents| - 1) plugged into the normal density.
"""

import math

import numpy as np

from bnfs._kernels import njit
from bnfs._kernels import scores as _s
from bnfs._kernels.covariance import covariance_score

#: kind offset of the conditional-Gaussian scores (CG + LOGLIK/BIC/AIC [+ BNLEARN_VARIANCE])
CG = 100
_BNLEARN_VARIANCE = 10
#: bnlearn's MACHINE_TOL: a residual standard deviation below it makes the model singular
_SINGULAR_SD = 1.4901161193847656e-08


@njit(cache=True)
def discrete_configurations(table, arities, members, n_members, cfg):
    """Fill ``cfg`` with each row's configuration of the discrete ``members[:n_members]``
    and return a bound on the indices (at most the rows: indices are renumbered to the
    observed configurations when the product of the arities exceeds the rows)."""
    n = table.shape[1] - table.shape[0]
    if n_members == 0:
        for i in range(n):
            cfg[i] = 0
        return 1
    first = table[members[0]]
    for i in range(n):  # the first member sets the index, no clearing pass
        cfg[i] = np.int64(first[i])
    q = arities[members[0]]
    for k in range(1, n_members):
        p = members[k]
        r = arities[p]
        if q > (1 << 40) // r:
            q = _s.compress(cfg, n)
        column = table[p]
        for i in range(n):
            cfg[i] = cfg[i] * r + np.int64(column[i])
        q *= r
    if q > n:
        q = _s.compress(cfg, n)
    return q


@njit(cache=True)
def regression_loglik(table, y, xs, n_x, cfg, q, bnlearn_variance):
    """Log-likelihood of ``table[y]`` regressed (with an intercept) on ``table[xs[:n_x]]``
    separately in each configuration ``cfg`` (indices below ``q``; a row with a negative
    index is left out); -inf when singular.

    One pass accumulates each configuration's moments of (1, x, y); the columns are centred
    and unit-scaled beforehand (``bnfs.stats.scores.cg_statistics``), so the raw moments lose no
    precision that matters."""
    n = table.shape[1] - table.shape[0]
    d = n_x + 2  # intercept, regressors, response
    moments = np.zeros((q, d, d))
    if n_x == 0:  # the common case: a mean per configuration (sums kept apart, as below)
        count = np.zeros(q)
        sy = np.zeros(q)
        syy = np.zeros(q)
        ycol = table[y]
        for i in range(n):
            j = cfg[i]
            if j < 0:
                continue
            v = ycol[i]
            count[j] += 1.0
            sy[j] += v
            syy[j] += v * v
        for j in range(q):
            moments[j, 0, 0] = count[j]
            moments[j, 0, 1] = sy[j]
            moments[j, 1, 1] = syy[j]
    elif n_x == 1:  # one regressor: six sums per configuration, each its own array, so
        # consecutive rows of one configuration do not wait on each other's stores
        sx = np.zeros(q)
        sy = np.zeros(q)
        sxx = np.zeros(q)
        sxy = np.zeros(q)
        syy = np.zeros(q)
        count = np.zeros(q)
        xcol = table[xs[0]]
        ycol = table[y]
        for i in range(n):
            j = cfg[i]
            if j < 0:
                continue
            u = xcol[i]
            v = ycol[i]
            count[j] += 1.0
            sx[j] += u
            sy[j] += v
            sxx[j] += u * u
            sxy[j] += u * v
            syy[j] += v * v
        for j in range(q):
            moments[j, 0, 0] = count[j]
            moments[j, 0, 1] = sx[j]
            moments[j, 0, 2] = sy[j]
            moments[j, 1, 1] = sxx[j]
            moments[j, 1, 2] = sxy[j]
            moments[j, 2, 2] = syy[j]
    else:
        z = np.empty(d)
        z[0] = 1.0
        for i in range(n):
            j = cfg[i]
            if j < 0:
                continue
            for a in range(n_x):
                z[a + 1] = table[xs[a], i]
            z[d - 1] = table[y, i]
            for a in range(d):
                za = z[a]
                for b in range(a, d):
                    moments[j, a, b] += za * z[b]
    loglik = 0.0
    a_mat = np.empty((d - 1, d - 1))
    b_vec = np.empty(d - 1)
    for j in range(q):
        nj = moments[j, 0, 0]
        if nj == 0:
            continue
        if nj <= n_x + 1:
            return -np.inf
        for a in range(d - 1):
            b_vec[a] = moments[j, a, d - 1]
            for b in range(d - 1):
                a_mat[a, b] = moments[j, min(a, b), max(a, b)]
        coef = np.linalg.lstsq(a_mat, b_vec)[0]
        rss = max(moments[j, d - 1, d - 1] - b_vec @ coef, 0.0)
        s2 = rss / (nj - n_x - 1) if bnlearn_variance else rss / nj
        if math.sqrt(s2) < _SINGULAR_SD:
            return -np.inf
        loglik += -0.5 * nj * math.log(2.0 * math.pi * s2) - 0.5 * rss / s2
    return loglik


@njit(cache=True)
def multinomial_loglik(table, arities, node, cfg, q):
    """sum_jk N_jk log(N_jk / N_j) of discrete ``node`` given configurations ``cfg`` (rows
    with a negative index left out)."""
    n = table.shape[1] - table.shape[0]
    r = arities[node]
    counts = np.zeros(q * r, dtype=np.int64)
    totals = np.zeros(q, dtype=np.int64)
    for i in range(n):
        if cfg[i] < 0:
            continue
        counts[cfg[i] * r + np.int64(table[node, i])] += 1
        totals[cfg[i]] += 1
    loglik = 0.0
    for j in range(q):
        for k in range(r):
            c = counts[j * r + k]
            if c > 0:
                loglik += c * math.log(c / totals[j])
    return loglik


@njit(cache=True)
def cg_score(table, arities, node, parents, n_par, kind):
    """Conditional-Gaussian local score of ``node`` given ``parents[:n_par]``
    (``kind`` = CG + LOGLIK/BIC/AIC, plus BNLEARN_VARIANCE for bnlearn's variance)."""
    n_vars = table.shape[0]
    n = table.shape[1] - n_vars
    base = (kind - CG) % _BNLEARN_VARIANCE
    bnlearn_variance = kind - CG >= _BNLEARN_VARIANCE
    discrete = np.empty(max(n_par, 1), dtype=np.int64)
    continuous = np.empty(max(n_par, 1), dtype=np.int64)
    n_d = 0
    n_c = 0
    configurations = 1.0
    for k in range(n_par):
        p = parents[k]
        if arities[p] > 0:
            discrete[n_d] = p
            n_d += 1
            configurations *= arities[p]
        else:
            continuous[n_c] = p
            n_c += 1
    if arities[node] == 0 and n_d == 0:  # a linear-Gaussian node: from the covariance
        aux = np.empty(2, dtype=np.int64)
        aux[0] = n
        aux[1] = n_vars
        return covariance_score(table[:, n:], aux, node, continuous, n_c, kind - CG, 1.0)
    cfg = np.empty(n, dtype=np.int64)
    q = discrete_configurations(table, arities, discrete, n_d, cfg)
    if arities[node] > 0:
        if n_c > 0:  # a discrete node cannot have a continuous parent
            return -np.inf
        loglik = multinomial_loglik(table, arities, node, cfg, q)
        n_params = configurations * (arities[node] - 1)
    else:
        loglik = regression_loglik(table, node, continuous, n_c, cfg, q, bnlearn_variance)
        n_params = configurations * (n_c + 2)
    if base == _s.BIC:
        return loglik - 0.5 * math.log(n) * n_params
    if base == _s.AIC:
        return loglik - n_params
    return loglik
