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

A continuous node whose one discrete parent has its level statistics in ``levels`` (see
:func:`level_scatter`) is scored from them in O(levels x |P|^3), not from the rows.

Rows may carry ``weights`` (empty: each row counts once): every count, sum and cross-product
is then a sum of weights (structural EM's expected sufficient statistics, Friedman 1998),
and the number of rows in the penalties is their total. bnlearn's scores take no row
weights; without them (an empty array) these are its values, as above.
"""

import math

import numpy as np

import bnfs._kernels.configurations as _cfg
import bnfs._kernels.scores as _s
from bnfs._kernels._compile import njit
from bnfs._kernels.covariance import SINGULAR_SD, covariance_score, explained
from bnfs._vocabulary import BNLEARN_VARIANCE, CG  # the codes (bnfs._vocabulary)


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
            q = _cfg.compress(cfg, n)
        column = table[p]
        for i in range(n):
            cfg[i] = cfg[i] * r + np.int64(column[i])
        q *= r
    if q > n:
        q = _cfg.compress(cfg, n)
    return q


@njit(cache=True)
def regression_loglik(table, y, xs, n_x, cfg, q, bnlearn_variance, weights):
    """Log-likelihood of ``table[y]`` regressed (with an intercept) on ``table[xs[:n_x]]``
    separately in each configuration ``cfg`` (indices below ``q``; a row with a negative
    index is left out), rows counted ``weights`` times (empty: once); -inf when singular.

    One pass accumulates each configuration's moments of (1, x, y); the columns are centred
    and unit-scaled beforehand (``bnfs.stats.scores.cg_statistics``), so the raw moments lose no
    precision that matters."""
    n = table.shape[1] - table.shape[0]
    d = n_x + 2  # intercept, regressors, response
    moments = np.zeros((q, d, d))
    weighted = weights.shape[0] > 0
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
            w = weights[i] if weighted else 1.0
            count[j] += w
            sy[j] += w * v
            syy[j] += w * v * v
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
            w = weights[i] if weighted else 1.0
            count[j] += w
            sx[j] += w * u
            sy[j] += w * v
            sxx[j] += w * u * u
            sxy[j] += w * u * v
            syy[j] += w * v * v
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
            w = weights[i] if weighted else 1.0
            for a in range(d):
                za = w * z[a]
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
        loglik += _gaussian_loglik(rss, nj, n_x, bnlearn_variance)
    return loglik


@njit(cache=True)
def _gaussian_loglik(rss, nj, n_x, bnlearn_variance):
    """The log-likelihood of ``nj`` rows regressed on ``n_x`` regressors with residual sum
    of squares ``rss`` (-inf when the residual deviation is below bnlearn's tolerance)."""
    s2 = rss / (nj - n_x - 1) if bnlearn_variance else rss / nj
    if math.sqrt(s2) < SINGULAR_SD:
        return -np.inf
    return -0.5 * nj * math.log(2.0 * math.pi * s2) - 0.5 * rss / s2


@njit(cache=True)
def multinomial_loglik(table, arities, node, cfg, q, weights):
    """sum_jk N_jk log(N_jk / N_j) of discrete ``node`` given configurations ``cfg`` (rows
    with a negative index left out), N counting each row ``weights`` times (empty: once)."""
    n = table.shape[1] - table.shape[0]
    r = arities[node]
    weighted = weights.shape[0] > 0
    counts = np.zeros(q * r)  # integers unless weighted, exactly
    totals = np.zeros(q)
    for i in range(n):
        if cfg[i] < 0:
            continue
        w = weights[i] if weighted else 1.0
        counts[cfg[i] * r + np.int64(table[node, i])] += w
        totals[cfg[i]] += w
    loglik = 0.0
    for j in range(q):
        for k in range(r):
            c = counts[j * r + k]
            if c > 0:
                loglik += c * math.log(c / totals[j])
    return loglik


@njit(cache=True)
def level_scatter(table, arities, levels, weights):
    """Fill ``levels`` (one (V + 1)-square block per level of each discrete variable, in
    variable order; V variables) with each level's rows' scatter matrix about their means,
    ``levels[b, V, V]`` holding the number of rows: what a regression on continuous
    parents within the levels of one discrete parent needs. With ``weights`` (empty: none)
    the scatter about the weighted means and the rows' total weight."""
    n_vars = table.shape[0]
    n = table.shape[1] - n_vars
    weighted = weights.shape[0] > 0
    levels[:] = 0.0
    b = 0
    for d in range(n_vars):
        r = arities[d]
        if r == 0:
            continue
        codes = table[d]
        for level in range(r):
            rows = np.flatnonzero(codes[:n] == level)
            block = levels[b + level]
            block[n_vars, n_vars] = rows.shape[0]
            if weighted and rows.shape[0] > 0:
                _weighted_scatter(table, rows, weights, block)
            elif rows.shape[0] > 0:
                x = np.empty((rows.shape[0], n_vars))
                for a in range(n_vars):
                    column = table[a]
                    for i in range(rows.shape[0]):
                        x[i, a] = column[rows[i]]
                for a in range(n_vars):
                    m = x[:, a].mean()
                    for i in range(rows.shape[0]):
                        x[i, a] -= m
                block[:n_vars, :n_vars] = x.T @ x
        b += r
    return levels


@njit(cache=True)
def _weighted_scatter(table, rows, weights, block):
    """``block`` (V + 1 square) := the scatter of ``rows`` about their weighted means, each
    row counted its weight, and their total weight in the corner."""
    n_vars = table.shape[0]
    w = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        w[i] = weights[rows[i]]
    total = w.sum()
    block[n_vars, n_vars] = total
    if total <= 0.0:
        return
    x = np.empty((rows.shape[0], n_vars))
    for a in range(n_vars):
        column = table[a]
        m = 0.0
        for i in range(rows.shape[0]):
            x[i, a] = column[rows[i]]
            m += w[i] * x[i, a]
        m /= total
        for i in range(rows.shape[0]):
            x[i, a] -= m
    block[:n_vars, :n_vars] = x.T @ (x * w.reshape(-1, 1))


@njit(cache=True)
def _level_block(arities, d):
    """The first block of discrete variable ``d`` in :func:`level_scatter`'s ``levels``."""
    b = 0
    for v in range(d):
        b += arities[v]
    return b


@njit(cache=True)
def level_regression_loglik(levels, first, r, y, xs, n_x, bnlearn_variance):
    """:func:`regression_loglik` within the ``r`` levels of a discrete parent whose blocks
    start at ``first`` in ``levels`` (:func:`level_scatter`)."""
    n_vars = levels.shape[1] - 1
    a_mat = np.empty((n_x, n_x))
    b_vec = np.empty(n_x)
    loglik = 0.0
    for level in range(r):
        block = levels[first + level]
        nj = block[n_vars, n_vars]
        if nj == 0:
            continue
        if nj <= n_x + 1:
            return -np.inf
        rss = block[y, y]
        if n_x > 0:
            for a in range(n_x):
                b_vec[a] = block[xs[a], y]
                for b in range(n_x):
                    a_mat[a, b] = block[xs[a], xs[b]]
            rss -= explained(a_mat, b_vec, n_x)
        loglik += _gaussian_loglik(max(rss, 0.0), nj, n_x, bnlearn_variance)
    return loglik


@njit(cache=True)
def cg_score(table, arities, levels, weights, node, parents, n_par, kind):
    """Conditional-Gaussian local score of ``node`` given ``parents[:n_par]``
    (``kind`` = CG + LOGLIK/BIC/AIC, plus BNLEARN_VARIANCE for bnlearn's variance), from
    the ``levels`` statistics (:func:`level_scatter`; empty: none) where they serve, rows
    counted ``weights`` times (empty: once)."""
    n_vars = table.shape[0]
    n = table.shape[1] - n_vars
    mass = weights.sum() if weights.shape[0] > 0 else float(n)  # the rows' total weight
    base = (kind - CG) % BNLEARN_VARIANCE
    bnlearn_variance = kind - CG >= BNLEARN_VARIANCE
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
        aux = np.empty(2)
        aux[0] = mass
        aux[1] = n_vars
        return covariance_score(table[:, n:], aux, node, continuous, n_c, kind - CG, 1.0)
    if arities[node] == 0 and n_d == 1 and levels.shape[0] > 0:
        d = discrete[0]
        first = _level_block(arities, d)
        loglik = level_regression_loglik(
            levels, first, arities[d], node, continuous, n_c, bnlearn_variance
        )
        n_params = configurations * (n_c + 2)
        return _penalised(loglik, n_params, mass, base)
    cfg = np.empty(n, dtype=np.int64)
    q = discrete_configurations(table, arities, discrete, n_d, cfg)
    if arities[node] > 0:
        if n_c > 0:  # a discrete node cannot have a continuous parent
            return -np.inf
        loglik = multinomial_loglik(table, arities, node, cfg, q, weights)
        n_params = configurations * (arities[node] - 1)
    else:
        loglik = regression_loglik(table, node, continuous, n_c, cfg, q, bnlearn_variance, weights)
        n_params = configurations * (n_c + 2)
    return _penalised(loglik, n_params, mass, base)


@njit(cache=True)
def _penalised(loglik, n_params, n, base):
    """The log-likelihood with the penalty of score ``base`` (BIC, AIC or none)."""
    if base == _s.BIC:
        return loglik - 0.5 * math.log(n) * n_params
    if base == _s.AIC:
        return loglik - n_params
    return loglik
