"""Linear-Gaussian local scores from the covariance matrix (numba), and the dispatchers that
let the compiled searches score discrete codes or Gaussian data with the same code.

A node regressed on its parents P (with an intercept) leaves the residual sum of squares
RSS = n (C_vv - C_vP C_PP^-1 C_Pv), with C the covariance matrix of the data (divided by
n), so a local score costs O(|P|^3) whatever the number of rows. Two conventions for the
residual variance:

* bnfs's, maximum likelihood: s^2 = RSS / n, log-likelihood -n/2 (log(2 pi s^2) + 1);
* bnlearn's (``loglik-g`` etc. in bnlearn), the unbiased s^2 = RSS / (n - |P| - 1) plugged
  into the normal density: -n/2 log(2 pi s^2) - (n - |P| - 1) / 2.

A regression whose residual standard deviation falls below bnlearn's MACHINE_TOL is
singular, its likelihood unbounded: the family scores -inf in both conventions and no search
takes it. bnlearn compares the raw residual deviation with that tolerance; bnfs compares it
relative to the node's (the columns are unit-scaled), so the rule does not depend on the
units: for columns of deviation near 1 the two agree (tested against bnlearn-port), while
bnlearn scores, e.g., a column of deviation 1e-3 fitted to within 1e-9 as -inf and bnfs
as a finite, very good fit. An exact fit in a
sample is a coincidence of rare values (two columns nonzero in the same row) or an exact
copy; a floored variance once scored such families far above every other, and the graphs
built on them predicted held-out rows with densities near zero.

BIC subtracts log(n) / 2 per parameter and AIC one per parameter; parameters = |P| + 2
(intercept, coefficients, variance), as bnlearn counts them (tests/test_gaussian.py checks the
scores and the searches' graphs against bnlearn-port).

The searches receive the data as ``codes`` and ``arities``: for Gaussian scores ``codes`` is
the covariance matrix (float64) and ``arities`` holds the number of rows; the kind says the
convention (``kind + BNLEARN_VARIANCE``); :mod:`bnfs._kernels.dispatch` routes them here.
"""

import math

import numpy as np

import bnfs._kernels.scores as _s
from bnfs._kernels._compile import njit
from bnfs._vocabulary import BGE, BNLEARN_VARIANCE  # the codes (bnfs._vocabulary)

#: bnlearn's MACHINE_TOL: a residual standard deviation below it makes a regression singular
SINGULAR_SD = 1.4901161193847656e-08
#: a Cholesky pivot below this share of its diagonal entry counts as singular
_PIVOT_TOLERANCE = 1e-9


@njit(cache=True)
def cholesky_in_place(a, k, original):
    """Overwrite the lower triangle of ``a[:k, :k]`` with its Cholesky factor; False (``a``
    left part-way) where a pivot falls to :data:`_PIVOT_TOLERANCE` of its diagonal entry
    in ``original`` or below: the matrix is (nearly) singular."""
    for j in range(k):
        pivot = a[j, j]
        for m in range(j):
            pivot -= a[j, m] * a[j, m]
        if pivot <= _PIVOT_TOLERANCE * original[j, j] or pivot <= 0.0:
            return False
        root = math.sqrt(pivot)
        a[j, j] = root
        for i in range(j + 1, k):
            value = a[i, j]
            for m in range(j):
                value -= a[i, m] * a[j, m]
            a[i, j] = value / root
    return True


@njit(cache=True)
def explained(a, b, k):
    """b' a^-1 b for the k-square scatter ``a`` of the regressors and their products ``b``
    with the response: the sum of squares the regression explains. By Cholesky (``a`` is
    overwritten); where a pivot shows ``a`` (nearly) singular, by least squares on a
    copy kept beforehand, as the rows' regressions solve."""
    original = a.copy()
    if not cholesky_in_place(a, k, original):
        return b @ np.linalg.lstsq(original, b)[0]
    y = b.copy()
    total = 0.0
    for j in range(k):
        value = y[j]
        for m in range(j):
            value -= a[j, m] * y[m]
        y[j] = value / a[j, j]
        total += y[j] * y[j]
    return total


@njit(cache=True)
def covariance_score(cov, aux, node, parents, n_par, kind, iss=1.0):
    """Gaussian local score of ``node`` given ``parents[:n_par]`` from the covariance
    (``aux``: rows, and for BGe the number of variables; ``iss``: BGe's alpha_mu)."""
    if kind == BGE:
        return bge_score(cov, aux, node, parents, n_par, iss)
    n = aux[0]
    k = n_par
    var = cov[node, node]
    if k > 0:
        a = np.empty((k, k))
        b = np.empty(k)
        for i in range(k):
            b[i] = cov[parents[i], node]
            for j in range(k):
                a[i, j] = cov[parents[i], parents[j]]
        var -= explained(a, b, k)
    rss = max(var, 0.0) * n
    base = kind % BNLEARN_VARIANCE
    if kind >= BNLEARN_VARIANCE:
        dof = n - k - 1
        s2 = rss / dof if dof > 0 else 0.0
        if s2 <= 1e-300 or (k > 0 and math.sqrt(s2) < SINGULAR_SD):
            return -np.inf
        ll = -0.5 * n * math.log(2.0 * math.pi * s2) - 0.5 * dof
    else:
        s2 = rss / n
        if k > 0 and math.sqrt(s2) < SINGULAR_SD:
            return -np.inf
        if s2 <= 1e-300:
            s2 = 1e-300
        ll = -0.5 * n * (math.log(2.0 * math.pi * s2) + 1.0)
    if base == _s.BIC:
        return ll - 0.5 * math.log(n) * (k + 2)
    if base == _s.AIC:
        return ll - (k + 2)
    return ll


@njit(cache=True)
def _log_det(a):
    sign, value = np.linalg.slogdet(a)
    return value if sign > 0 else -np.inf


@njit(cache=True)
def bge_score(cov, aux, node, parents, n_par, alpha_mu):
    """bnlearn's ``bge`` of ``node`` given ``parents[:n_par]``: the Wishart posterior with
    prior mean the sample mean (bnlearn's default ``nu``), ``alpha_mu`` and bnlearn's default
    alpha_w = variables + 2, from ``cov`` (the raw covariance, divided by the rows)."""
    n = float(aux[0])
    n_vars = float(aux[1])
    alpha_w = n_vars + 2.0
    p = float(n_par)
    t = alpha_mu * (alpha_w - n_vars - 1.0) / (alpha_mu + 1.0)
    logprob = 0.5 * (math.log(alpha_mu) - math.log(n + alpha_mu))
    logprob += math.lgamma(0.5 * (n + alpha_w - n_vars + p + 1.0)) - math.lgamma(
        0.5 * (alpha_w - n_vars + p + 1.0)
    )
    logprob -= 0.5 * n * math.log(math.pi)
    logprob += 0.5 * (alpha_w - n_vars + p + 1.0) * (p + 1.0) * math.log(t)
    logprob -= 0.5 * (alpha_w - n_vars + p) * p * math.log(t)
    k = n_par
    full = np.empty((k + 1, k + 1))
    members = np.empty(k + 1, dtype=np.int64)
    members[0] = node
    for i in range(k):
        members[i + 1] = parents[i]
    for i in range(k + 1):
        for j in range(k + 1):
            full[i, j] = cov[members[i], members[j]] * n
        full[i, i] += t
    if k > 0:
        logprob += 0.5 * (n + alpha_w - n_vars + p) * _log_det(full[1:, 1:].copy())
    logprob -= 0.5 * (n + alpha_w - n_vars + p + 1.0) * _log_det(full)
    return logprob
