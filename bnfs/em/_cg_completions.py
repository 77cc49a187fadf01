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
rest renormalised, as for discrete data (:mod:`bnfs.em._completions`).

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

from bnfs.em._completions import (
    BURN_IN,
    DRAWS,
    FLOOR,
    SMALLEST_WEIGHT,
    configurations,
    heaviest,
    smoothed_log_table,
)

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


def fit_network(
    codes: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    arities: np.ndarray,
    parents: list[tuple[list[int], list[int]]],
) -> CGNetwork:
    """Parameters from weighted rows: node j's ``parents[j]`` = (discrete parents, continuous
    parents), nodes numbered discrete first (the columns of ``codes``, then of ``values``).
    Tables lightly smoothed as in :func:`bnfs.em._completions.fit_tables`; regressions by
    weighted least squares in each configuration of the discrete parents with more weight
    than coefficients + 1, the pooled fit elsewhere; deviations floored."""
    n_d = codes.shape[1]
    tables = []
    for v in range(n_d):
        pa = parents[v][0]
        q = int(np.prod([arities[p] for p in pa])) if pa else 1
        r = int(arities[v])
        config = configurations(codes, arities, pa)
        counts = np.bincount(config * r + codes[:, v], weights=weights, minlength=q * r)
        tables.append(smoothed_log_table(counts.reshape(q, r)))
    cg_discrete, cg_continuous, betas, sds = [], [], [], []
    for c in range(values.shape[1]):
        discrete, continuous = parents[n_d + c]
        q = int(np.prod([arities[p] for p in discrete])) if discrete else 1
        config = configurations(codes, arities, discrete)
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


def _joint_normals(network: CGNetwork, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The continuous variables' means (rows, p) and covariances (rows, p, p) given each
    row of discrete ``codes``, in one batch."""
    n, p = codes.shape[0], len(network.beta)
    lifted = np.broadcast_to(np.eye(p), (n, p, p)).copy()
    intercept = np.empty((n, p))
    variance = np.empty((n, p))
    for c in range(p):
        j = configurations(codes, network.arities, network.cg_discrete[c])
        beta = network.beta[c][j]
        intercept[:, c] = beta[:, 0]
        for k, parent in enumerate(network.cg_continuous[c]):
            lifted[:, c, parent] -= beta[:, k + 1]
        variance[:, c] = network.sd[c][j] ** 2
    inverse = np.linalg.inv(lifted)  # unit triangular in a topological order
    mean = np.einsum("rij,rj->ri", inverse, intercept)
    return mean, (inverse * variance[:, None, :]) @ np.swapaxes(inverse, 1, 2)


def _discrete_log_joint(network: CGNetwork, codes: np.ndarray) -> np.ndarray:
    total = np.zeros(codes.shape[0])
    for v, table in enumerate(network.tables):
        config = configurations(codes, network.arities, network.discrete_parents[v])
        total += table[config, codes[:, v]]
    return total


def _continuous_key(network: CGNetwork, codes: np.ndarray) -> np.ndarray:
    """A key of the discrete values that the continuous variables' distribution depends on."""
    used = sorted({d for parents in network.cg_discrete for d in parents})
    return configurations(codes, network.arities, used)


#: rows whose conditional matrices are gathered at once (bounds the memory of the batch)
_BATCH_ENTRIES = 4_000_000


def _evidence(network, codes, values, missing_c, moments: bool = True):
    """For completions (``codes`` complete, ``values`` with missing continuous cells marked
    by ``missing_c``): log N(observed continuous values), ``values`` with the conditional
    means filled in, and each completion's sigma directions (rows, p, p): sqrt(k) times
    the columns of a square root of its conditional covariance (k its missing columns),
    the k in use last (``directions[i, p - k:]``).

    Batched over every completion whatever its pattern: with M the missing columns,
    S~ = S restricted to the observed block plus the identity on M factors as the observed
    block's Cholesky factor beside the identity, so log N(x_o) is read off S~ and the
    deviations with missing entries zeroed, and S - S (I-M) S~^-1 (I-M) S is the conditional
    covariance, zero outside the M block; its eigenvectors give the root (those of nonzero
    eigenvalues lie in the M block, and there are at most k). Without ``moments``, the
    log-likelihoods alone (``filled`` and ``directions`` None)."""
    n, p = codes.shape[0], values.shape[1]
    loglik = np.zeros(n)
    filled = values.copy() if moments else None
    directions = np.zeros((n, p, p)) if moments else None
    if p == 0:
        return loglik, filled, directions
    key = _continuous_key(network, codes)
    step = max(1, _BATCH_ENTRIES // (4 * p * p))
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        _, first, which = np.unique(key[rows], return_index=True, return_inverse=True)
        mean, cov = _joint_normals(network, codes[rows][first])
        mean, cov = mean[which.reshape(-1)], cov[which.reshape(-1)]
        gone = missing_c[rows]
        kept = (~gone).astype(float)
        deviation = np.where(gone, 0.0, values[rows] - mean)
        observed_block = cov * kept[:, :, None] * kept[:, None, :]
        observed_block[:, np.arange(p), np.arange(p)] += gone  # identity on the missing
        factor = _cholesky(observed_block)
        z = np.linalg.solve(factor, deviation[:, :, None])[:, :, 0]
        loglik[rows] = (
            -0.5 * (z**2).sum(axis=1)
            - np.log(np.diagonal(factor, axis1=1, axis2=2)).sum(axis=1)
            - 0.5 * kept.sum(axis=1) * np.log(2 * np.pi)
        )
        if not moments or not gone.any():
            continue
        # S~^-1 restricted to the observed block, zero elsewhere
        inverse = np.linalg.inv(observed_block) * kept[:, :, None] * kept[:, None, :]
        filled[rows] = np.where(
            gone, mean + np.einsum("rij,rjk,rk->ri", cov, inverse, deviation), values[rows]
        )
        conditional = cov - cov @ inverse @ cov
        conditional = (conditional + np.swapaxes(conditional, 1, 2)) / 2
        conditional = conditional * gone[:, :, None] * gone[:, None, :]
        eigenvalues, vectors = np.linalg.eigh(conditional)  # ascending
        root = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))[:, None, :]
        k = gone.sum(axis=1)
        directions[rows] = np.swapaxes(root, 1, 2) * np.sqrt(k)[:, None, None]
    return loglik, filled, directions


def _cholesky(matrices: np.ndarray) -> np.ndarray:
    """Cholesky factors of a stack of covariance matrices, each nudged by a jitter of
    :data:`FLOOR` times its largest variance where rounding leaves one not quite positive
    definite (variances floored at ``FLOOR`` can be that close to singular)."""
    try:
        return np.linalg.cholesky(matrices)
    except np.linalg.LinAlgError:
        scale = np.diagonal(matrices, axis1=1, axis2=2).max(axis=1)
        jitter = np.eye(matrices.shape[1]) * (FLOOR * scale)[:, None, None]
        return np.linalg.cholesky(matrices + jitter)


def _log_weights(network, codes, values, missing_c) -> np.ndarray:
    """log p(discrete values, observed continuous values) of each completion."""
    loglik = _evidence(network, codes, values, missing_c, moments=False)[0]
    return _discrete_log_joint(network, codes) + loglik


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


def _drawn_completions(rows, codes, values, missing_d, missing_c, network, rng):
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
            ).reshape(who.size, r)
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
    if drawn:
        rng = np.random.default_rng(seed)
        found, owner = _drawn_completions(
            np.array(drawn), codes, values, missing_d, missing_c, network, rng
        )
        parts.append(found)
        owners.append(owner)
    whole, source = np.concatenate(parts), np.concatenate(owners)
    exact = np.arange(len(source)) < enumerated
    order = np.argsort(source, kind="stable")
    whole, source, exact = whole[order], source[order], exact[order]
    weights = _normalised(
        _log_weights(network, whole, values[source], missing_c[source]), source, n
    )
    # unlikely enumerated completions are dropped (each row keeps its most likely one),
    # the rest renormalised; the conditional moments only of those kept
    kept = ~(exact & (weights < SMALLEST_WEIGHT))
    kept[heaviest(weights, source)] = True
    whole, source, weights = whole[kept], source[kept], weights[kept]
    weights = weights / np.bincount(source, weights=weights, minlength=n)[source]
    _, filled, directions = _evidence(network, whole, values[source], missing_c[source])
    first = heaviest(weights, source)
    rows = ExpectedRows(whole, filled, weights, source, whole[first], filled[first])
    return _sigma_points(rows, directions, missing_c[source])


def _normalised(logw: np.ndarray, source: np.ndarray, n: int) -> np.ndarray:
    """exp(logw) divided by its sum over each source row."""
    top = np.full(n, -np.inf)
    np.maximum.at(top, source, logw)
    weights = np.exp(logw - top[source])
    return weights / np.bincount(source, weights=weights, minlength=n)[source]


def _sigma_points(rows: ExpectedRows, directions, missing) -> ExpectedRows:
    """``rows`` with each completion that has k missing continuous values replaced by its
    2k sigma points, each with 1/(2k) of its weight."""
    k = missing.sum(axis=1)
    single = k == 0
    spread = np.flatnonzero(k > 0)
    # every (completion, direction) in use, plus then minus: the last k
    p = directions.shape[1]
    owner, axis = np.nonzero(np.arange(p)[None, :] >= p - k[spread][:, None])
    step = directions[spread[owner], axis]
    owner = spread[owner]
    share = rows.weights[owner] / (2 * k[owner])
    return ExpectedRows(
        np.concatenate([rows.codes[single], rows.codes[owner], rows.codes[owner]]),
        np.concatenate([rows.values[single], rows.values[owner] + step, rows.values[owner] - step]),
        np.concatenate([rows.weights[single], share, share]),
        np.concatenate([rows.source[single], rows.source[owner], rows.source[owner]]),
        rows.best_codes,
        rows.best_values,
    )
