"""Each node's candidate partners, for the permutation searches on data too wide to score
every pair of nodes in every family: the restrict step of the sparse-candidate algorithm
(Friedman, Nachman & Pe'er, UAI 1999), whose first round ranks the candidates of a node by
their mutual information with it. Here the measure is the log-likelihood gain per row of
a single parent, by maximum likelihood, for each kind of pair:

- two discrete columns: their mutual information;
- a continuous child and a continuous parent: -log(1 - r^2) / 2, r their correlation;
- a continuous child and a discrete parent: -log(1 - eta^2) / 2, eta^2 the share of the
  child's variance between the parent's groups (the R^2 of the regression on the group);
- a discrete child has no continuous candidate (conditional-Gaussian networks have no
  such arcs).

Correlations are computed a block of columns at a time with one matrix product, so the
screen of 10,000 continuous columns takes seconds where scoring every pair would take
minutes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bnfs._kernels import screen as _k
from bnfs.tables._data import Dataset

__all__ = ["strongest_partners"]

#: continuous children correlated per matrix product (memory: columns x BLOCK floats)
BLOCK = 256


def _strongest(gains: np.ndarray, k: int, rank: np.ndarray) -> np.ndarray:
    """The ``k`` entries of ``gains`` with the largest finite values, ties to the lower
    ``rank`` (so the choice does not depend on the column order)."""
    finite = np.flatnonzero(np.isfinite(gains))
    if finite.size <= k:
        return finite
    kth = np.partition(gains[finite], finite.size - k)[finite.size - k]
    above = finite[gains[finite] > kth]
    tied = finite[gains[finite] == kth]
    tied = tied[np.argsort(rank[tied], kind="stable")][: k - above.size]
    return np.concatenate([above, tied])


def _gain(share: np.ndarray) -> np.ndarray:
    """-log(1 - share) / 2: the Gaussian log-likelihood gain per row of explaining that
    share of a variance."""
    return -0.5 * np.log1p(-np.minimum(share, 1.0 - 1e-12))


def strongest_partners(data: Dataset, names: Sequence[str], k: int) -> np.ndarray:
    """``allowed[u, v]``: ``u`` is among the ``k`` strongest single parents of ``v`` (see
    the module) or ``v`` among those of ``u``; nodes indexed as in ``names``, ranked by
    name for ties."""
    n = len(names)
    index = {name: i for i, name in enumerate(names)}
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(np.array(names, dtype=object), kind="stable")] = np.arange(n)
    disc = np.array([index[v] for v in data.discrete_names], dtype=np.int64)
    cont = np.array([index[v] for v in data.continuous_names], dtype=np.int64)
    allowed = np.zeros((n, n), dtype=np.bool_)
    gains = np.full(n, -np.inf)
    if disc.size:
        information = np.zeros((disc.size, disc.size))
        _k.mutual_information(np.ascontiguousarray(data.codes), data.arities, information)
        for j, v in enumerate(disc):
            gains[:] = -np.inf
            gains[disc] = information[j]
            gains[v] = -np.inf
            allowed[_strongest(gains, k, rank), v] = True
    if cont.size:
        values = data.values
        spread = values.std(axis=0)
        z = np.where(
            spread > 0, (values - values.mean(axis=0)) / np.where(spread > 0, spread, 1), 0
        )
        between = np.zeros((disc.size, cont.size))
        for j in range(disc.size):
            _k.correlation_ratio(
                np.ascontiguousarray(data.codes[:, j]).astype(np.int64),
                int(data.arities[j]),
                values,
                between[j],
            )
        between = _gain(between)
        for start in range(0, cont.size, BLOCK):
            block = slice(start, min(start + BLOCK, cont.size))
            within = _gain((z.T @ z[:, block] / data.n_rows) ** 2)
            for t, j in enumerate(range(block.start, block.stop)):
                v = cont[j]
                gains[:] = -np.inf
                gains[cont] = within[:, t]
                gains[disc] = between[:, j]
                gains[v] = -np.inf
                allowed[_strongest(gains, k, rank), v] = True
    return allowed | allowed.T
