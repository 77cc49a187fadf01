"""Structural EM's E-step on expected counts, compiled (numba): each incomplete row's
completions with their posterior weights under a discrete network
(:mod:`bnfs.em._completions` says what and why).

The network comes as a :data:`Network`: per node its parents (``parents[v, :n_par[v]]``),
its log conditional probability table flattened at ``offset[v]`` (configuration-major,
configurations as mixed-radix indices in parent order), the arities, and per variable the
nodes whose family holds it (``touch[touch_at[v]:touch_at[v + 1]]``).
"""

from collections import namedtuple

import numpy as np

from bnfs._kernels._compile import njit
from bnfs._kernels.covariance import cholesky_in_place

Network = namedtuple(
    "Network", ["arities", "parents", "n_par", "offset", "log_tables", "touch_at", "touch"]
)
#: what a call asks: a row's missing values are enumerated up to ``exact`` configurations,
#: else ``draws`` Gibbs draws after ``burn_in`` sweeps; exact weights below ``smallest``
#: are dropped; ``seed`` seeds the draws
Plan = namedtuple("Plan", ["exact", "draws", "burn_in", "smallest", "seed"])


@njit(cache=True)
def _family(network, row, v):
    """log P(row[v] | row's parents of v)."""
    config = 0
    for k in range(network.n_par[v]):
        p = network.parents[v, k]
        config = config * network.arities[p] + row[p]
    return network.log_tables[network.offset[v] + config * network.arities[v] + row[v]]


@njit(cache=True)
def _log_joint(network, row, nodes, n_nodes):
    """The sum of the families of ``nodes[:n_nodes]`` at ``row``."""
    total = 0.0
    for t in range(n_nodes):
        total += _family(network, row, nodes[t])
    return total


@njit(cache=True)
def _touched(network, columns, n_columns, mark, nodes):
    """The nodes whose family holds one of ``columns[:n_columns]`` into ``nodes``; return
    how many (``mark`` is left all False)."""
    m = 0
    for t in range(n_columns):
        c = columns[t]
        for at in range(network.touch_at[c], network.touch_at[c + 1]):
            v = network.touch[at]
            if not mark[v]:
                mark[v] = True
                nodes[m] = v
                m += 1
    for t in range(m):
        mark[nodes[t]] = False
    return m


@njit(cache=True)
def _draw(network, row, c, nodes, n_nodes, log_p, greedy):
    """A level of column ``c`` from its conditional given the rest of ``row`` (its most
    probable level when ``greedy``)."""
    r = network.arities[c]
    top = -np.inf
    best = 0
    for level in range(r):
        row[c] = level
        log_p[level] = _log_joint(network, row, nodes, n_nodes)
        if log_p[level] > top:
            top, best = log_p[level], level
    if greedy:
        return best
    total = 0.0
    for level in range(r):
        log_p[level] = np.exp(log_p[level] - top)
        total += log_p[level]
    u = np.random.random() * total
    for level in range(r):
        u -= log_p[level]
        if u < 0.0:
            return level
    return r - 1


@njit(cache=True)
def _store(out_codes, out_weights, out_rows, at, row, weight, source):
    for j in range(row.shape[0]):
        out_codes[at, j] = row[j]
    out_weights[at] = weight
    out_rows[at] = source


@njit(cache=True)
def _enumerate(network, plan, row, columns, n_columns, nodes, n_nodes, i, out, at):
    """Every completion of ``columns`` of ``row`` (row ``i``) with its posterior weight,
    stored from ``at``; return the next free slot."""
    out_codes, out_weights, out_rows = out
    k = 1
    for t in range(n_columns):
        k *= network.arities[columns[t]]
    log_p = np.empty(k)
    for t in range(n_columns):
        row[columns[t]] = 0
    top = -np.inf
    for s in range(k):
        log_p[s] = _log_joint(network, row, nodes, n_nodes)
        top = max(top, log_p[s])
        _advance(network, row, columns, n_columns)
    total = 0.0
    for s in range(k):
        log_p[s] = np.exp(log_p[s] - top)
        total += log_p[s]
    kept = 0.0
    for s in range(k):
        log_p[s] /= total
        if log_p[s] >= plan.smallest:
            kept += log_p[s]
    for s in range(k):  # the odometer is back at the first completion
        if log_p[s] >= plan.smallest:
            _store(out_codes, out_weights, out_rows, at, row, log_p[s] / kept, i)
            at += 1
        _advance(network, row, columns, n_columns)
    return at


@njit(cache=True)
def _advance(network, row, columns, n_columns):
    """The next completion of ``columns`` (the last column fastest), wrapping around."""
    for t in range(n_columns - 1, -1, -1):
        c = columns[t]
        row[c] += 1
        if row[c] < network.arities[c]:
            return
        row[c] = 0


@njit(cache=True)
def _sample(network, plan, row, columns, n_columns, i, out, at, scratch):
    """``plan.draws`` Gibbs draws of ``columns`` of ``row``, equal weights, coinciding
    draws merged; stored from ``at``; return the next free slot."""
    out_codes, out_weights, out_rows = out
    nodes, mark, log_p = scratch
    for t in range(n_columns):  # start from each value's most probable level alone
        c = columns[t]
        m = _touched(network, columns[t : t + 1], 1, mark, nodes)
        row[c] = _draw(network, row, c, nodes, m, log_p, True)
    first = at
    weight = 1.0 / plan.draws
    for sweep in range(plan.burn_in + plan.draws):
        for t in range(n_columns):
            c = columns[t]
            m = _touched(network, columns[t : t + 1], 1, mark, nodes)
            row[c] = _draw(network, row, c, nodes, m, log_p, False)
        if sweep < plan.burn_in:
            continue
        same = -1
        for s in range(first, at):
            equal = True
            for t in range(n_columns):
                if out_codes[s, columns[t]] != row[columns[t]]:
                    equal = False
                    break
            if equal:
                same = s
                break
        if same >= 0:
            out_weights[same] += weight
        else:
            _store(out_codes, out_weights, out_rows, at, row, weight, i)
            at += 1
    return at


@njit(cache=True)
def expected_rows(codes, missing, network, plan, out_codes, out_weights, out_rows):
    """Fill the ``out_*`` arrays (room for every row's completions: 1 for a complete row,
    its configurations up to ``plan.exact``, else ``plan.draws``) with each row's
    completions, weights and source row, in row order; return how many."""
    np.random.seed(plan.seed)
    n, n_vars = codes.shape
    row = np.empty(n_vars, dtype=np.int64)
    columns = np.empty(n_vars, dtype=np.int64)
    nodes = np.empty(n_vars, dtype=np.int64)
    mark = np.zeros(n_vars, dtype=np.bool_)
    log_p = np.empty(max(network.arities.max(), 1))
    out = (out_codes, out_weights, out_rows)
    at = 0
    for i in range(n):
        n_columns = 0
        k = 1.0
        for j in range(n_vars):
            row[j] = codes[i, j]
            if missing[i, j]:
                columns[n_columns] = j
                n_columns += 1
                k *= network.arities[j]
        if n_columns == 0:
            _store(out_codes, out_weights, out_rows, at, row, 1.0, i)
            at += 1
        elif k <= plan.exact:
            n_nodes = _touched(network, columns, n_columns, mark, nodes)
            at = _enumerate(network, plan, row, columns, n_columns, nodes, n_nodes, i, out, at)
        else:
            at = _sample(network, plan, row, columns, n_columns, i, out, at, (nodes, mark, log_p))
    return at


@njit(cache=True)
def _invert_in_place(a, m, out, original):
    """``out[:m, :m]`` = the inverse of the symmetric positive-definite ``a[:m, :m]``, by
    Cholesky (``a`` overwritten by its factor, ``original`` by a copy); by
    pseudo-inverse where a pivot shows it (nearly) singular."""
    original[:m, :m] = a[:m, :m]
    if not cholesky_in_place(a, m, original):
        out[:m, :m] = np.linalg.pinv(np.ascontiguousarray(original[:m, :m]))
        return
    for c in range(m):  # solve L L' x = e_c, column c of the inverse
        for i in range(m):
            value = 1.0 if i == c else 0.0
            for k in range(i):
                value -= a[i, k] * out[k, c]
            out[i, c] = value / a[i, i]
        for i in range(m - 1, -1, -1):
            value = out[i, c]
            for k in range(i + 1, m):
                value -= a[k, i] * out[k, c]
            out[i, c] = value / a[i, i]


@njit(cache=True)
def gaussian_moments(values, missing, mean, precision, filled, covariance):
    """The Gaussian E-step: each row's missing values to their conditional mean given its
    observed values under N(``mean``, ``precision``^-1), written to ``filled`` (observed
    values copied), and the sum over rows of their conditional covariances added into
    ``covariance`` at the missing cells' positions -- what E[x x'] holds beyond the
    completed rows' own products. With M a row's missing and O its observed columns, the
    conditional covariance is (Q_MM)^-1 and the mean mu_M - (Q_MM)^-1 Q_MO (x_O - mu_O)."""
    n, n_vars = values.shape
    columns = np.empty(n_vars, dtype=np.int64)
    block = np.empty((n_vars, n_vars))
    spread = np.empty((n_vars, n_vars))
    original = np.empty((n_vars, n_vars))
    pull = np.empty(n_vars)
    for i in range(n):
        m = 0
        for j in range(n_vars):
            filled[i, j] = values[i, j]
            if missing[i, j]:
                columns[m] = j
                m += 1
        if m == 0:
            continue
        for s in range(m):
            a = columns[s]
            for t in range(m):
                block[s, t] = precision[a, columns[t]]
            total = 0.0
            for j in range(n_vars):
                if not missing[i, j]:
                    total += precision[a, j] * (values[i, j] - mean[j])
            pull[s] = total
        _invert_in_place(block, m, spread, original)
        for s in range(m):
            shift = 0.0
            for t in range(m):
                shift += spread[s, t] * pull[t]
                covariance[columns[s], columns[t]] += spread[s, t]
            filled[i, columns[s]] = mean[columns[s]] - shift
