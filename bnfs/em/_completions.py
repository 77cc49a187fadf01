"""The E-step of structural EM on expected sufficient statistics (Friedman 1997, 1998): the
expected counts of discrete data, the expected means and cross-products of Gaussian data.

Under the current network, an incomplete row stands for every completion of its missing
values, weighted by that completion's posterior probability given the row's observed
values. Counting the completions with those weights gives, for every family at once, the
expected counts the M-step scores (:meth:`bnfs.Dataset.with_weights`): a search then
runs on expected sufficient statistics, not on one imputation.

The posterior of a row's missing values is computed exactly when their joint
configurations number at most :data:`EXACT_COMPLETIONS` (all of them enumerated, the log
joint of each completed row summed over the network's families); beyond, it is sampled
by Gibbs sampling (:data:`DRAWS` draws after :data:`BURN_IN` sweeps, each variable from
its conditional given the rest of the row), and the draws stand for the posterior with
equal weights. Completions of one row that coincide are merged, and exact completions
below :data:`SMALLEST_WEIGHT` are dropped (the rest renormalised), so a peaked posterior
costs one or a few rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bnfs._kernels import completions as _k

#: a row's missing values are enumerated when their configurations are at most this many
EXACT_COMPLETIONS = 64
#: Gibbs draws that stand for a larger posterior, and the sweeps before the first
DRAWS, BURN_IN = 16, 4
#: exact completions less probable than this are dropped
SMALLEST_WEIGHT = 1e-2


class DiscreteNetwork:
    """A discrete network's log conditional probability tables over integer codes: node
    ``v``'s parents ``parents[v]`` (indices) and ``log_tables[v]`` of shape (parent
    configurations, arity), configurations as mixed-radix indices in parent order."""

    def __init__(self, arities: np.ndarray, parents: list[list[int]], log_tables: list):
        self.arities = np.asarray(arities, dtype=np.int64)
        self.parents = parents
        self.log_tables = log_tables

    def configurations(self, codes: np.ndarray, v: int) -> np.ndarray:
        """Each row's configuration of ``v``'s parents."""
        return configurations(codes, self.arities, self.parents[v])

    def compiled(self) -> _k.Network:
        """The network as :mod:`bnfs._kernels.completions` reads it."""
        n = len(self.parents)
        width = max([len(pa) for pa in self.parents] + [1])
        parents = np.full((n, width), -1, dtype=np.int64)
        for v, pa in enumerate(self.parents):
            parents[v, : len(pa)] = pa
        sizes = [t.size for t in self.log_tables]
        offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        touching = [[v] for v in range(n)]
        for v, pa in enumerate(self.parents):
            for p in pa:
                touching[p].append(v)
        touch_at = np.concatenate([[0], np.cumsum([len(t) for t in touching])]).astype(np.int64)
        return _k.Network(
            self.arities,
            parents,
            np.array([len(pa) for pa in self.parents], dtype=np.int64),
            offset,
            np.concatenate([t.reshape(-1) for t in self.log_tables]).astype(np.float64),
            touch_at,
            np.concatenate([np.asarray(t, dtype=np.int64) for t in touching]),
        )


def configurations(codes: np.ndarray, arities: np.ndarray, parents) -> np.ndarray:
    """Each row's configuration of the columns ``parents`` of ``codes`` (mixed radix, in
    parent order)."""
    config = np.zeros(codes.shape[0], dtype=np.int64)
    for p in parents:
        config = config * arities[p] + codes[:, p]
    return config


def heaviest(weights: np.ndarray, source: np.ndarray) -> np.ndarray:
    """The index of each source row's heaviest completion, in source order."""
    order = np.lexsort((-weights, source))
    return order[np.r_[True, source[order][1:] != source[order][:-1]]]


def fit_tables(
    codes: np.ndarray, weights: np.ndarray, arities: np.ndarray, parents: list[list[int]]
) -> DiscreteNetwork:
    """Parameters from (expected) counts, lightly smoothed as in structural EM's fit: each
    table (counts + 1 / (q r)) / (N_j + 1 / q), q parent configurations, r the arity."""
    network = DiscreteNetwork(arities, parents, [])
    tables = []
    for v, pa in enumerate(parents):
        q = int(np.prod([arities[p] for p in pa])) if pa else 1
        r = int(arities[v])
        config = network.configurations(codes, v)
        counts = np.bincount(config * r + codes[:, v], weights=weights, minlength=q * r)
        tables.append(smoothed_log_table(counts.reshape(q, r)))
    network.log_tables = tables
    return network


#: smallest probability a fitted table holds
FLOOR = 1e-12


def smoothed_log_table(counts: np.ndarray) -> np.ndarray:
    """The log conditional probabilities of a (configurations q, arity r) table of
    (expected) counts, structural EM's light smoothing: (counts + 1 / (q r)) / (N_j + 1 / q)."""
    q, r = counts.shape
    table = (counts + 1.0 / (q * r)) / (counts.sum(axis=1, keepdims=True) + 1.0 / q)
    return np.log(np.maximum(table, FLOOR))


def expected_rows(
    codes: np.ndarray, missing: np.ndarray, network: DiscreteNetwork, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every row's completions and their posterior weights under ``network``.

    Parameters
    ----------
    codes : (rows, variables) int64
        The data, any level in a missing cell.
    missing : (rows, variables) bool
    network : DiscreteNetwork
    seed : int
        Seeds the Gibbs draws of rows with many missing configurations.

    Returns
    -------
    (completed codes, weights, source row of each completion), in row order; each row's
    weights sum to 1, a complete row has one completion of weight 1.
    """
    log_arity = np.log(network.arities.astype(float))
    configurations = np.exp(missing @ log_arity)
    room = np.where(
        ~missing.any(axis=1),
        1,
        np.where(configurations <= EXACT_COMPLETIONS + 0.5, np.round(configurations), DRAWS),
    )
    capacity = int(room.sum())
    out_codes = np.empty((capacity, codes.shape[1]), dtype=np.int64)
    out_weights = np.empty(capacity)
    out_rows = np.empty(capacity, dtype=np.int64)
    plan = _k.Plan(EXACT_COMPLETIONS, DRAWS, BURN_IN, SMALLEST_WEIGHT, int(seed))
    used = _k.expected_rows(
        np.ascontiguousarray(codes, dtype=np.int64),
        np.ascontiguousarray(missing),
        network.compiled(),
        plan,
        out_codes,
        out_weights,
        out_rows,
    )
    return out_codes[:used], out_weights[:used], out_rows[:used]


# -- Gaussian data -------------------------------------------------------------------------
#
# A linear-Gaussian network is a multivariate normal N(mean, precision^-1); given a row's
# observed values its missing ones are normal, with the conditional mean and covariance of
# :func:`bnfs._kernels.completions.gaussian_moments`. The expected sufficient statistics are
# the mean of the completed rows and E[sum (x - m)(x - m)'] = the completed rows' scatter plus
# the summed conditional covariances. Imputing the means alone leaves the second term out:
# each imputed value is then an exact linear function of its blanket, which a search reads
# as arcs.


class GaussianNetwork(NamedTuple):
    """A linear-Gaussian network as the normal distribution it defines."""

    mean: np.ndarray
    precision: np.ndarray


def gaussian_network(
    mean: np.ndarray, covariance: np.ndarray, parents: list[list[int]]
) -> GaussianNetwork:
    """The linear-Gaussian network fitted by maximum likelihood to (expected) moments: each
    node regressed on ``parents[v]`` (indices) with an intercept, so x = c + B x + e with
    e ~ N(0, D) and the precision (I - B)' D^-1 (I - B); its mean is the data's."""
    scale = np.diag(covariance)
    n_vars = len(mean)
    coefficients = np.zeros((n_vars, n_vars))
    variance = scale.copy()
    for v, pa in enumerate(parents):
        if pa:
            beta = np.linalg.lstsq(covariance[np.ix_(pa, pa)], covariance[pa, v], rcond=None)[0]
            coefficients[v, pa] = beta
            variance[v] = covariance[v, v] - covariance[v, pa] @ beta
    variance = np.maximum(variance, FLOOR * scale)
    lifted = np.eye(n_vars) - coefficients
    return GaussianNetwork(mean, lifted.T @ (lifted / variance[:, None]))


def expected_moments(
    values: np.ndarray, missing: np.ndarray, network: GaussianNetwork
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows completed by their conditional means, the expected mean, the expected
    covariance matrix, divided by the rows) under ``network``."""
    filled = np.empty_like(values)
    beyond = np.zeros((values.shape[1], values.shape[1]))
    _k.gaussian_moments(
        np.ascontiguousarray(values, dtype=np.float64),
        np.ascontiguousarray(missing),
        np.ascontiguousarray(network.mean, dtype=np.float64),
        np.ascontiguousarray(network.precision, dtype=np.float64),
        filled,
        beyond,
    )
    mean = filled.mean(axis=0)
    centred = filled - mean
    return filled, mean, (centred.T @ centred + beyond) / len(values)


def independent_network(values: np.ndarray, missing: np.ndarray) -> GaussianNetwork:
    """The empty network fitted to each column's observed values, the first E-step's
    (bnlearn 5.2.1's ``structural.em`` starts from the empty graph too: with the same seed
    its default start gives the graph of ``start = empty.graph``, tested against
    bnlearn-port; its E-step draws, so its graphs differ from these). Under BIC,
    starting from the saturated Gaussian fitted by EM gave denser, further graphs (ecoli70
    at 30% missing: SHD 62 against 25); learn's BGe starts there (see
    :mod:`bnfs.search.structural_em`)."""
    observed = np.where(missing, np.nan, values)
    variance = np.maximum(np.nanvar(observed, axis=0), FLOOR)
    return GaussianNetwork(np.nanmean(observed, axis=0), np.diag(1.0 / variance))


def saturated_network(
    values: np.ndarray, missing: np.ndarray, steps: int = 100, tolerance: float = 1e-8
) -> GaussianNetwork:
    """The multivariate normal fitted to the observed values by EM (every pair of columns
    dependent), from the empty network: the maximum-likelihood mean and covariance of
    incomplete Gaussian data, without assuming a graph. Stops when no entry of the
    covariance moves by more than ``tolerance`` of the largest variance."""
    network = independent_network(values, missing)
    covariance = None
    for _ in range(steps):
        _, mean, updated = expected_moments(values, missing, network)
        scale = np.diag(updated).max()
        updated = updated + np.eye(len(mean)) * FLOOR * scale  # stays invertible
        network = GaussianNetwork(mean, np.linalg.inv(updated))
        if covariance is not None and np.abs(updated - covariance).max() <= tolerance * scale:
            break
        covariance = updated
    return network


def moment_rows(filled: np.ndarray, mean: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    """Rows whose mean and covariance (divided by the rows) are exactly ``mean`` and
    ``covariance``: ``filled`` centred and mapped linearly (C_a^-T C_t', C the Cholesky
    factors of its scatter and of the target's), so they stay close to the completed rows.
    Every Gaussian score reads data through these two moments and the number of rows
    alone, so any search run on these rows scores the expected statistics."""
    n = len(filled)
    centred = filled - filled.mean(axis=0)
    target = _root(covariance * n)
    try:
        own = np.linalg.cholesky(centred.T @ centred)
        mapped = centred @ np.linalg.solve(own.T, target.T)
    except np.linalg.LinAlgError:  # completed rows of deficient rank: any orthonormal basis
        basis = np.linalg.qr(np.column_stack([np.ones(n), centred]))[0][:, 1:]
        mapped = basis @ target.T
    return mean + mapped


def _root(matrix: np.ndarray) -> np.ndarray:
    """A factor F with F F' = ``matrix`` (symmetric, positive semi-definite): its Cholesky
    factor, or where it is singular (columns observed in full that are exact linear
    functions of each other) from its eigen-decomposition."""
    try:
        return np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(matrix)
        return vectors * np.sqrt(np.clip(values, 0.0, None))


def collapsed(filled: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct completed rows, each with the sum of its weights: the same counts,
    from as few rows as the data have distinct values."""
    span = filled.max(axis=0).astype(float) + 1
    if np.log2(span).sum() < 62:  # one mixed-radix key per row: a fast 1-D unique
        key = np.zeros(len(filled), dtype=np.int64)
        for j in range(filled.shape[1]):
            key = key * int(span[j]) + filled[:, j]
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        distinct = filled[first]
    else:
        distinct, inverse = np.unique(filled, axis=0, return_inverse=True)
    return distinct, np.bincount(inverse.reshape(-1), weights=weights, minlength=len(distinct))
