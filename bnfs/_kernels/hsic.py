"""Gram matrices and the empirical HSIC (Gretton et al. 2005), on dense float64 arrays.

These are BLAS-bound (one matrix product per Gram matrix, one dot product per HSIC), so
they stay numpy: a numba loop would be slower than the BLAS call it replaced.
"""

from __future__ import annotations

import functools

import numpy as np

#: Rows used to estimate the median distance; beyond this a fixed, evenly spaced subset.
MEDIAN_ROWS = 1000


def squared_distances(values: np.ndarray) -> np.ndarray:
    """(m, m) squared Euclidean distances between the rows of ``values`` (m, d)."""
    sq = np.einsum("ij,ij->i", values, values)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (values @ values.T)
    np.maximum(d2, 0.0, out=d2)
    return d2


def median_width2(d2: np.ndarray) -> float:
    """Squared median distance between distinct rows, from their squared distances (the
    median heuristic); 1 if all rows are equal."""
    positive = d2.ravel()[median_pairs(d2.shape[0])]
    positive = positive[positive > 0.0]
    return float(np.median(positive)) if positive.size else 1.0


@functools.lru_cache(maxsize=4)
def median_pairs(m: int) -> np.ndarray:
    """Flat indices (row * m + col, row < col) of the pairs of an m x m distance matrix
    whose median gives the width: all pairs up to ``MEDIAN_ROWS`` rows, beyond that the
    pairs of an evenly spaced subset of rows (kept for reuse)."""
    rows = np.arange(m) if m <= MEDIAN_ROWS else np.linspace(0, m - 1, MEDIAN_ROWS).astype(np.int64)
    upper, lower = np.triu_indices(len(rows), 1)
    return rows[upper] * m + rows[lower]


def gaussian_gram(values: np.ndarray) -> np.ndarray:
    """exp(-||a - b||^2 / (2 s^2)) with s the median distance between distinct rows."""
    d2 = squared_distances(values)
    d2 *= -0.5 / median_width2(d2)
    return np.exp(d2, out=d2)


def delta_gram(labels: np.ndarray) -> np.ndarray:
    """1 where two labels are equal, 0 elsewhere: the kernel of a class variable."""
    return (labels[:, None] == labels[None, :]).astype(np.float64)


def centre(gram: np.ndarray) -> np.ndarray:
    """H K H with H = I - 11'/m (a new array)."""
    column_means = gram.mean(axis=0)
    return gram - column_means[None, :] - column_means[:, None] + column_means.mean()


def hsic(centred_a: np.ndarray, centred_b: np.ndarray) -> float:
    """Biased empirical HSIC, tr(H K H L) / (m - 1)^2, from two centred Gram matrices."""
    m = centred_a.shape[0]
    return float(np.vdot(centred_a, centred_b)) / (m - 1) ** 2
