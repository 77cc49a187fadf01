"""The E-step of structural EM on mixed data: a conditional-Gaussian network's expected
sufficient statistics, as weighted rows (Friedman 1998, "The Bayesian structural EM
algorithm"; the CG distribution of Lauritzen & Wermuth 1989).

Given all discrete values of a row, the continuous variables of a conditional-Gaussian
network are jointly normal: each regresses on its continuous parents with the intercept,
coefficients and variance of its discrete parents' configuration, so x = c + B x + e with
e ~ N(0, D) and mean (I - B)^-1 c, covariance (I - B)^-1 D (I - B)^-T. An incomplete row
therefore stands for each completion d of its missing discrete values, weighted by the
posterior

    p(d | observed) proportional to p(discrete values) N(observed continuous; mean_d, cov_d),

the missing continuous values integrated out; given d they are normal, with the conditional
mean and covariance of that joint normal. Completions are enumerated while a row's missing
discrete values have at most :data:`EXACT_COMPLETIONS` joint configurations, and drawn
beyond (:data:`DRAWS` Gibbs draws, each missing value from its conditional given the others,
after :data:`BURN_IN` sweeps); completions below :data:`SMALLEST_WEIGHT` are dropped and the
rest renormalised, as for discrete data (:mod:`bnfs.search._completions`).

Rows carry these statistics exactly. A completion with k missing continuous values becomes
2k rows at its conditional mean plus and minus sqrt(k) times the columns of a square root of
its conditional covariance, each with 1/(2k) of its weight (the unscented transform's sigma
points, Julier & Uhlmann 1997): their weighted mean and second moments are the conditional
mean and mean square, and they share the completion's discrete values. So every family's
weighted counts, sums and cross-products, within every configuration of its discrete
parents, are the expected ones, and a search scoring the weighted rows
(:meth:`bnfs.Dataset.with_weights`, the conditional-Gaussian scores) scores the expected
sufficient statistics. Imputing the conditional mean alone would leave the covariance out
and make each imputed value a linear function of its blanket, which a search reads as arcs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bnfs.search._completions import BURN_IN, DRAWS, FLOOR, SMALLEST_WEIGHT, smoothed_log_table

__all__ = ["CGNetwork", "ExpectedRows", "expected_rows", "fit_network"]

#: a row's missing discrete values are enumerated when their configurations are at most
#: this many (all completions are weighed in one batch; Gibbs draws cost a batch per sweep
#: and variable)
EXACT_COMPLETIONS = 1024


class CGNetwork(NamedTuple):
    """A conditional-Gaussian network over discrete codes (columns ``0..n_d-1`` of ``codes``)
    and continuous values (columns of ``values``), with parents as column indices.

    ``tables[v]``: log P(discrete v | its discrete parents ``discrete_parents[v]``), one row
    per configuration (mixed radix, in parent order). For continuous node ``c``:
    ``beta[c]`` (configurations of ``cg_discrete[c]``, 1 + continuous parents): intercept and
    coefficients on ``cg_continuous[c]``; ``sd[c]`` the residual deviation per configuration.
    """

    arities: np.ndarray
    discrete_parents: list
    tables: list
    cg_discrete: list
    cg_continuous: list
    beta: list
    sd: list


class ExpectedRows(NamedTuple):
    """Weighted rows that hold a network's expected sufficient statistics: ``codes`` and
    ``values`` (completed), ``weights``, ``source`` (the data row each stands for), and per
    data row its most probable completion (``best_codes``, ``best_values``: the completion's
    conditional means)."""

    codes: np.ndarray
    values: np.ndarray
    weights: np.ndarray
    source: np.ndarray
    best_codes: np.ndarray
    best_values: np.ndarray


def _configurations(codes: np.ndarray, arities: np.ndarray, parents) -> np.ndarray:
    config = np.zeros(codes.shape[0], dtype=np.int64)
    for p in parents:
        config = config * arities[p] + codes[:, p]
    return config


def fit_network(
    codes: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    arities: np.ndarray,
    parents: list[tuple[list[int], list[int]]],
) -> CGNetwork:
    """Parameters from weighted rows: node j's ``parents[j]`` = (discrete parents, continuous
    parents), nodes numbered discrete first (the columns of ``codes``, then of ``values``).
    Tables lightly smoothed as in :func:`bnfs.search._completions.fit_tables`; regressions by
    weighted least squares in each configuration of the discrete parents with more weight
    than coefficients + 1, the pooled fit elsewhere; deviations floored."""
    n_d = codes.shape[1]
    tables = []
    for v in range(n_d):
        pa = parents[v][0]
        q = int(np.prod([arities[p] for p in pa])) if pa else 1
        r = int(arities[v])
        config = _configurations(codes, arities, pa)
        counts = np.bincount(config * r + codes[:, v], weights=weights, minlength=q * r)
        tables.append(smoothed_log_table(counts.reshape(q, r)))
    cg_discrete, cg_continuous, betas, sds = [], [], [], []
    for c in range(values.shape[1]):
        discrete, continuous = parents[n_d + c]
        q = int(np.prod([arities[p] for p in discrete])) if discrete else 1
        config = _configurations(codes, arities, discrete)
        X = np.column_stack([np.ones(len(values))] + [values[:, p] for p in continuous])
        y = values[:, c]
        pooled, pooled_sd = _weighted_fit(X, y, weights)
        beta = np.tile(pooled, (q, 1))
        sd = np.full(q, pooled_sd)
        mass = np.bincount(config, weights=weights, minlength=q)
        for j in np.flatnonzero(mass > X.shape[1] + 1):
            rows = config == j
            beta[j], sd[j] = _weighted_fit(X[rows], y[rows], weights[rows])
        cg_discrete.append(list(discrete))
        cg_continuous.append(list(continuous))
        betas.append(beta)
        sds.append(sd)
    return CGNetwork(
        np.asarray(arities),
        [p[0] for p in parents[:n_d]],
        tables,
        cg_discrete,
        cg_continuous,
        betas,
        sds,
    )


def _weighted_fit(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
    root = np.sqrt(w)
    beta = np.linalg.lstsq(X * root[:, None], y * root, rcond=None)[0]
    residual = y - X @ beta
    variance = float(w @ residual**2 / w.sum())
    return beta, max(np.sqrt(max(variance, 0.0)), np.sqrt(FLOOR))


def _joint_normal(network: CGNetwork, discrete: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The continuous variables' mean and covariance given the discrete codes ``discrete``."""
    p = len(network.beta)
    lifted = np.eye(p)
    intercept = np.empty(p)
    variance = np.empty(p)
    arities = network.arities
    for c in range(p):
        j = 0
        for d in network.cg_discrete[c]:
            j = j * arities[d] + discrete[d]
        beta = network.beta[c][j]
        intercept[c] = beta[0]
        for k, parent in enumerate(network.cg_continuous[c]):
            lifted[c, parent] -= beta[k + 1]
        variance[c] = network.sd[c][j] ** 2
    inverse = np.linalg.inv(lifted)  # unit lower triangular in a topological order
    return inverse @ intercept, (inverse * variance) @ inverse.T


def _discrete_log_joint(network: CGNetwork, codes: np.ndarray) -> np.ndarray:
    total = np.zeros(codes.shape[0])
    for v, table in enumerate(network.tables):
        config = _configurations(codes, network.arities, network.discrete_parents[v])
        total += table[config, codes[:, v]]
    return total


def _continuous_key(network: CGNetwork, codes: np.ndarray) -> np.ndarray:
    """A key of the discrete values that the continuous variables' distribution depends on."""
    used = sorted({d for parents in network.cg_discrete for d in parents})
    return _configurations(codes, network.arities, used)


class _Normals:
    """The continuous variables' joint normal under one network for each configuration of
    the discrete variables they depend on, computed once per configuration and kept as
    stacks (``means[i]``, ``covariances[i]``) for batched algebra."""

    def __init__(self, network: CGNetwork):
        self.network = network
        self.index: dict[int, int] = {}
        p = len(network.beta)
        self.means = np.zeros((0, p))
        self.covariances = np.zeros((0, p, p))

    def of(self, codes: np.ndarray) -> np.ndarray:
        """The stack index of each row's joint normal (computing the new ones)."""
        key = _continuous_key(self.network, codes)
        distinct, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        new = [(k, f) for k, f in zip(distinct.tolist(), first) if k not in self.index]
        if new:
            found = [_joint_normal(self.network, codes[f]) for _, f in new]
            for k, _ in new:
                self.index[k] = len(self.index)
            self.means = np.concatenate([self.means, [m for m, _ in found]])
            self.covariances = np.concatenate([self.covariances, [c for _, c in found]])
        return np.array([self.index[k] for k in distinct.tolist()])[inverse.reshape(-1)]


#: rows whose conditional matrices are gathered at once (bounds the memory of the batch)
_BATCH_ENTRIES = 4_000_000


def _evidence(network, codes, values, missing_c, normals: _Normals):
    """For completions (``codes`` complete, ``values`` with missing continuous cells marked
    by ``missing_c``): log N(observed continuous values), ``values`` with the conditional
    means filled in, and the sigma directions of the completions with missing continuous
    values: (completion indices, missing columns, per completion F with F F' = k times
    its conditional covariance, k the missing columns). Batched by pattern of missing
    columns, over the joint normals the completions use."""
    n = codes.shape[0]
    loglik = np.zeros(n)
    filled = values.copy()
    spreads = []
    if values.shape[1] == 0:
        return loglik, filled, spreads
    which_normal = normals.of(codes)
    patterns, pattern = np.unique(missing_c, axis=0, return_inverse=True)
    pattern = pattern.reshape(-1)
    for p, gone in enumerate(patterns):
        rows = np.flatnonzero(pattern == p)
        seen, lost = np.flatnonzero(~gone), np.flatnonzero(gone)
        used, which = np.unique(which_normal[rows], return_inverse=True)
        which = which.reshape(-1)
        mean, cov = normals.means[used], normals.covariances[used]
        conditional = cov[:, lost][:, :, lost]
        if seen.size:
            factor = np.linalg.cholesky(cov[:, seen][:, :, seen])
            unfactor = np.linalg.inv(factor)  # (used, seen, seen)
            log_det = np.log(np.diagonal(factor, axis1=1, axis2=2)).sum(axis=1)
            cross = cov[:, seen][:, :, lost]
            gain = np.swapaxes(unfactor, 1, 2) @ (unfactor @ cross)  # Sigma_ss^-1 Sigma_sg
            conditional = conditional - np.swapaxes(cross, 1, 2) @ gain
        step = max(1, _BATCH_ENTRIES // (seen.size * (seen.size + lost.size) + 1))
        for start in range(0, rows.size, step):
            part, at = rows[start : start + step], which[start : start + step]
            x = values[np.ix_(part, seen)] - mean[at][:, seen]
            if seen.size:
                z = np.einsum("rij,rj->ri", unfactor[at], x)
                loglik[part] = (
                    -0.5 * (z**2).sum(axis=1) - log_det[at] - 0.5 * seen.size * np.log(2 * np.pi)
                )
            if lost.size:
                shift = np.einsum("rj,rjk->rk", x, gain[at]) if seen.size else 0.0
                filled[np.ix_(part, lost)] = mean[at][:, lost] + shift
        if lost.size:
            conditional = (conditional + np.swapaxes(conditional, 1, 2)) / 2
            spreads.append((rows, lost, _roots(conditional)[which] * np.sqrt(lost.size)))
    return loglik, filled, spreads


def _log_weights(network, codes, values, missing_c, normals: _Normals):
    loglik, filled, spreads = _evidence(network, codes, values, missing_c, normals)
    return _discrete_log_joint(network, codes) + loglik, filled, spreads


def _all_completions(codes: np.ndarray, missing_d: np.ndarray, arities: np.ndarray):
    """(completed codes, source rows) of every row whose missing discrete values have at
    most :data:`EXACT_COMPLETIONS` configurations (a complete row is its own), and the rows
    left to draw."""
    patterns, inverse = np.unique(missing_d, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    parts, owners, drawn = [], [], []
    for k, pattern in enumerate(patterns):
        rows = np.flatnonzero(inverse == k)
        gone = np.flatnonzero(pattern)
        count = int(np.prod([arities[v] for v in gone])) if gone.size else 1
        if count > EXACT_COMPLETIONS:
            drawn.extend(rows.tolist())
            continue
        grid = (
            np.stack(
                [
                    g.reshape(-1)
                    for g in np.meshgrid(*[np.arange(arities[v]) for v in gone], indexing="ij")
                ],
                axis=1,
            )
            if gone.size
            else np.zeros((1, 0), dtype=np.int64)
        )
        block = np.repeat(codes[rows], count, axis=0)
        block[:, gone] = np.tile(grid, (len(rows), 1))
        parts.append(block)
        owners.append(np.repeat(rows, count))
    return parts, owners, drawn


def _drawn_completions(rows, codes, values, missing_d, missing_c, network, rng, normals):
    """(completions, source rows): :data:`DRAWS` Gibbs draws of the missing discrete values
    of each of ``rows``, after :data:`BURN_IN` sweeps, each value from its conditional given
    the row's others (all rows at once, variable by variable)."""
    arities = network.arities
    current = codes[rows].copy()
    gaps, observed, unseen = missing_d[rows], values[rows], missing_c[rows]
    draws = []
    for sweep in range(BURN_IN + DRAWS):
        for v in range(codes.shape[1]):
            who = np.flatnonzero(gaps[:, v])
            if who.size == 0:
                continue
            r = int(arities[v])
            options = np.repeat(current[who], r, axis=0)
            options[:, v] = np.tile(np.arange(r), who.size)
            logw = _log_weights(
                network,
                options,
                np.repeat(observed[who], r, axis=0),
                np.repeat(unseen[who], r, axis=0),
                normals,
            )[0].reshape(who.size, r)
            p = np.exp(logw - logw.max(axis=1, keepdims=True))
            cumulative = np.cumsum(p / p.sum(axis=1, keepdims=True), axis=1)
            u = rng.random(who.size)[:, None]
            current[who, v] = np.minimum((cumulative < u).sum(axis=1), r - 1)
        if sweep >= BURN_IN:
            draws.append(current.copy())
    stacked = np.stack(draws, axis=1)  # (rows, draws, discrete)
    return stacked.reshape(-1, codes.shape[1]), np.repeat(rows, DRAWS)


def expected_rows(
    codes: np.ndarray,
    values: np.ndarray,
    missing_d: np.ndarray,
    missing_c: np.ndarray,
    network: CGNetwork,
    seed: int,
) -> ExpectedRows:
    """Every row's completions under ``network``, as weighted sigma-point rows (module
    notes). ``codes`` and ``values`` hold any value in a missing cell; ``missing_d`` and
    ``missing_c`` mark them. A complete row stays one row of weight 1."""
    n = codes.shape[0]
    parts, owners, drawn = _all_completions(codes, missing_d, network.arities)
    enumerated = sum(len(o) for o in owners)
    normals = _Normals(network)
    if drawn:
        rng = np.random.default_rng(seed)
        found, owner = _drawn_completions(
            np.array(drawn), codes, values, missing_d, missing_c, network, rng, normals
        )
        parts.append(found)
        owners.append(owner)
    whole, source = np.concatenate(parts), np.concatenate(owners)
    exact = np.arange(len(source)) < enumerated
    order = np.argsort(source, kind="stable")
    whole, source, exact = whole[order], source[order], exact[order]
    logw, filled, spreads = _log_weights(network, whole, values[source], missing_c[source], normals)
    weights = _normalised(logw, source, n)
    # unlikely enumerated completions are dropped, the rest renormalised (a row's most
    # likely completion weighs at least 1 / EXACT_COMPLETIONS, above SMALLEST_WEIGHT)
    kept = ~(exact & (weights < SMALLEST_WEIGHT))
    weights = np.where(kept, weights, 0.0)
    weights = weights / np.bincount(source, weights=weights, minlength=n)[source]
    heaviest = np.lexsort((-weights, source))
    first = heaviest[np.r_[True, source[heaviest][1:] != source[heaviest][:-1]]]
    rows = ExpectedRows(whole, filled, weights, source, whole[first], filled[first])
    return _sigma_points(rows, spreads, kept)


def _normalised(logw: np.ndarray, source: np.ndarray, n: int) -> np.ndarray:
    """exp(logw) divided by its sum over each source row."""
    top = np.full(n, -np.inf)
    np.maximum.at(top, source, logw)
    weights = np.exp(logw - top[source])
    return weights / np.bincount(source, weights=weights, minlength=n)[source]


def _sigma_points(rows: ExpectedRows, spreads, kept: np.ndarray) -> ExpectedRows:
    """``rows`` (those ``kept``) with each completion that has missing continuous values
    replaced by its 2k sigma points, each with 1/(2k) of its weight."""
    single = kept.copy()
    codes, values, weights, source = [], [], [], []
    for members, columns, root in spreads:
        root = root[kept[members]]
        members = members[kept[members]]
        single[members] = False
        k = len(columns)
        points = np.repeat(rows.values[members], 2 * k, axis=0)
        directions = np.swapaxes(root, 1, 2)  # (members, k directions, k columns)
        offsets = np.concatenate([directions, -directions], axis=1)  # (members, 2k, k)
        points[:, columns] += offsets.reshape(-1, k)
        codes.append(np.repeat(rows.codes[members], 2 * k, axis=0))
        values.append(points)
        weights.append(np.repeat(rows.weights[members] / (2 * k), 2 * k))
        source.append(np.repeat(rows.source[members], 2 * k))
    return ExpectedRows(
        np.concatenate([rows.codes[single], *codes]),
        np.concatenate([rows.values[single], *values]),
        np.concatenate([rows.weights[single], *weights]),
        np.concatenate([rows.source[single], *source]),
        rows.best_codes,
        rows.best_values,
    )


def _roots(matrices: np.ndarray) -> np.ndarray:
    """F with F F' = M for each of a stack of symmetric, positive semi-definite matrices:
    Cholesky factors, or from the eigen-decomposition where one is singular."""
    try:
        return np.linalg.cholesky(matrices)
    except np.linalg.LinAlgError:
        eigenvalues, vectors = np.linalg.eigh(matrices)
        return vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))[:, None, :]
