"""Contingency counts and decomposable local scores of discrete data (numba).

A node's parent configuration is a mixed-radix index per row, built column by column from
the Fortran-ordered code matrix. Counts go into a dense scratch table when
``configurations x arity`` fits in it, otherwise rows are sorted by their cell key and the
runs are counted (the sparse path, cost O(N log N) whatever the number of configurations).
Only observed cells contribute to every score, so both paths give the same value.

Scores (natural log, higher is better, as bnlearn reports them), for a node with arity r,
q parent configurations, counts N_jk and N_j = sum_k N_jk over N rows:

* ``LOGLIK``  sum_jk N_jk log(N_jk / N_j)
* ``BIC``     loglik - log(N) / 2 * q (r - 1)
* ``AIC``     loglik - q (r - 1)
* ``BDE``     BDeu with imaginary sample size ``iss``:
              sum_j [lgamma(iss/q) - lgamma(iss/q + N_j)] + sum_jk [lgamma(iss/qr + N_jk) - lgamma(iss/qr)]
* ``K2``      sum_j [lgamma(r) - lgamma(N_j + r)] + sum_jk lgamma(N_jk + 1)
"""

import math

import numpy as np

from bnfs._kernels import njit
from bnfs._kernels.sorting import argsort_stable, sort_inplace

LOGLIK, BIC, AIC, BDE, K2 = 0, 1, 2, 3, 4

_COMPRESS_AT = 1 << 40  # renumber configurations before the mixed-radix index overflows
_MAX_KEY = 1 << 62  # largest cell key (configuration * arity + state) the sorting path forms


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
def _cell_term(kind, n_jk, a_jk):
    if kind == BDE:
        return math.lgamma(a_jk + n_jk) - math.lgamma(a_jk)
    if kind == K2:
        return math.lgamma(n_jk + 1.0)
    return n_jk * math.log(n_jk)


@njit(cache=True)
def _config_term(kind, n_j, a_j, r):
    if kind == BDE:
        return math.lgamma(a_j) - math.lgamma(a_j + n_j)
    if kind == K2:
        return math.lgamma(r) - math.lgamma(n_j + r)
    return -n_j * math.log(n_j)


@njit(cache=True)
def score_config(cfg, q, codes, node, r, q_true, kind, iss, counts):
    """Local score of ``node`` given parent configurations ``cfg`` (from
    :func:`parent_config`, ``q`` its bound, ``q_true`` the true number of configurations).
    ``counts`` is int64 scratch, all zeros, left all zeros; a table larger than it is
    counted by sorting the rows' cell keys (``cfg`` may be renumbered in place first)."""
    n = codes.shape[0]
    a_j = iss / q_true
    a_jk = a_j / r
    total = 0.0
    if q <= counts.shape[0] // r:  # q * r cells fit (the product could overflow)
        for i in range(n):
            counts[cfg[i] * r + codes[i, node]] += 1
        for j in range(q):
            n_j = 0
            base = j * r
            for k in range(r):
                c = counts[base + k]
                if c > 0:
                    n_j += c
                    total += _cell_term(kind, float(c), a_jk)
                    counts[base + k] = 0
            if n_j > 0:
                total += _config_term(kind, float(n_j), a_j, float(r))
    else:
        if q > _MAX_KEY // r:  # cfg * r could overflow: renumber to the observed configurations
            q = compress(cfg, n)
        keys = np.empty(n, dtype=np.int64)
        for i in range(n):
            keys[i] = cfg[i] * r + codes[i, node]
        sort_inplace(keys)
        start = 0
        n_j = 0
        for i in range(1, n + 1):
            if i == n or keys[i] != keys[start]:
                c = i - start
                n_j += c
                total += _cell_term(kind, float(c), a_jk)
                if i == n or keys[i] // r != keys[start] // r:
                    total += _config_term(kind, float(n_j), a_j, float(r))
                    n_j = 0
                start = i
    if kind == BIC:
        total -= 0.5 * math.log(n) * q_true * (r - 1)
    elif kind == AIC:
        total -= q_true * (r - 1)
    return total


@njit(cache=True)
def local_score(codes, arities, node, parents, n_par, kind, iss, cfg, counts):
    """Local score of ``node`` with ``parents[:n_par]`` (scratch ``cfg``: int64 of N)."""
    q = parent_config(codes, arities, parents, n_par, cfg)
    q_true = n_configurations(arities, parents, n_par)
    return score_config(cfg, q, codes, node, arities[node], q_true, kind, iss, counts)


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
def score_table(table, kind, iss, n_total):
    """Local score from a (configurations x arity) count table (all configurations listed)."""
    q, r = table.shape
    a_j = iss / q
    a_jk = a_j / r
    total = 0.0
    for j in range(q):
        n_j = 0.0
        for k in range(r):
            c = table[j, k]
            if c > 0:
                n_j += c
                total += _cell_term(kind, float(c), a_jk)
        if n_j > 0:
            total += _config_term(kind, n_j, a_j, float(r))
    if kind == BIC:
        total -= 0.5 * math.log(n_total) * q * (r - 1)
    elif kind == AIC:
        total -= q * (r - 1)
    return total
