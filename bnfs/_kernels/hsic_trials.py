"""Trial sets of the HSIC selectors, compiled: the dependence on the target of a set with
one feature added or removed, for many features in one call, without storing a Gram
matrix per trial (HSMB's exchange pass, BAHSIC's elimination rounds).

A set's squared distances between rows are the sum of its features', so a trial's are
the set's (``base``) plus or minus one feature's, computed from its columns. The kernel's
width comes from the median of the trial's distances over the pairs
:func:`bnfs._kernels.hsic.median_width2` samples.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from bnfs._kernels._compile import njit
from bnfs._kernels.hsic import median_pairs, squared_distances
from bnfs._kernels.sorting import sort_inplace

#: The features a trial adds or removes: feature ``f`` owns the columns
#: ``values[:, starts[f]:starts[f + 1]]`` of the (m, total) float64 array ``values``.
Columns = namedtuple("Columns", ["values", "starts"])

#: How a trial set's dependence on the target is measured: a Gaussian kernel
#: exp(-d2 / (width * median)) with ``median`` that of the squared distances of ``pairs``
#: (positions in the pair layout), and <K, target>, divided by ||HKH||_HS if
#: ``normalized``. ``target`` is the centred target Gram matrix, scaled by the caller
#: (by 1 / ||L||_HS for normalized HSIC, by 1 / (m - 1)^2 for HSIC), laid out as its
#: diagonal (m values) and then its pairs.
Measure = namedtuple("Measure", ["pairs", "target", "width", "normalized"])


def upper_pairs(matrix: np.ndarray) -> np.ndarray:
    """The entries (i, j), i < j, of a square matrix, row by row."""
    return np.ascontiguousarray(matrix[np.triu_indices(matrix.shape[0], 1)])


def pair_positions(flat: np.ndarray, m: int) -> np.ndarray:
    """Positions in :func:`upper_pairs`'s layout of flat indices row * m + col (row < col)."""
    rows, cols = np.divmod(flat, m)
    return rows * m - rows * (rows + 1) // 2 + cols - rows - 1


def set_distances(blocks: list[np.ndarray], members) -> np.ndarray:
    """The squared distances between rows over the columns of ``members``, per pair."""
    m = blocks[0].shape[0]
    if len(members) == 0:
        return np.zeros(m * (m - 1) // 2)
    return upper_pairs(squared_distances(np.hstack([blocks[i] for i in members])))


def trial_columns(blocks: list[np.ndarray]) -> Columns:
    """The blocks (m, d_i) side by side, feature ``i`` owning ``blocks[i]``'s columns."""
    starts = np.cumsum([0] + [block.shape[1] for block in blocks]).astype(np.int64)
    return Columns(np.ascontiguousarray(np.hstack(blocks), dtype=np.float64), starts)


def trial_measure(target: np.ndarray, width: float, normalized: bool) -> Measure:
    """The :class:`Measure` of normalized HSIC (``normalized``) or HSIC with the centred
    target Gram matrix ``target`` (m, m), under a kernel of ``width`` times the median
    squared distance."""
    m = target.shape[0]
    scaled = target / ((np.sqrt(np.vdot(target, target)) or 1.0) if normalized else (m - 1) ** 2)
    laid_out = np.concatenate([np.diag(scaled), upper_pairs(scaled)])
    return Measure(pair_positions(median_pairs(m), m), laid_out, float(width), normalized)


@njit(cache=True, fastmath=True)
def trial_dependences(
    base: np.ndarray,
    sign: float,
    trials: np.ndarray,
    columns: Columns,
    measure: Measure,
    stop_above: float,
    out: np.ndarray,
) -> int:
    """Write into ``out`` the dependence on the target of each trial set, in order, until
    one exceeds ``stop_above``; return how many were written.

    Pairs of rows (i < j) are laid out flat, row by row (:func:`upper_pairs`). ``base``
    holds a set's squared distances per pair; trial ``t`` adds (``sign`` 1) or removes
    (``sign`` -1) feature ``trials[t]``'s. <K, L> needs no centred K when L is centred,
    and ||HKH||^2 = ||K||^2 - 2 ||K1||^2 / m + (1'K1)^2 / m^2."""
    n_pairs = base.shape[0]
    target = measure.target
    m = target.shape[0] - n_pairs
    pairs = measure.pairs
    values = columns.values
    trial = np.empty(n_pairs)
    sample = np.empty(pairs.shape[0])
    bins = np.empty(max(64, pairs.shape[0] // 16), dtype=np.int64)
    sums = np.empty(m)
    x = np.empty(m)
    diagonal = 0.0
    for i in range(m):
        diagonal += target[i]
    for position in range(trials.shape[0]):
        feature = trials[position]
        trial[:] = base
        for c in range(columns.starts[feature], columns.starts[feature + 1]):
            x[:] = values[:, c]
            p = 0
            for i in range(m):
                xi = x[i]
                for j in range(i + 1, m):
                    diff = xi - x[j]
                    trial[p] += sign * diff * diff
                    p += 1
        count = 0
        for p in range(pairs.shape[0]):
            d = trial[pairs[p]]
            if d > 0.0:
                sample[count] = d
                count += 1
        width2 = median(sample, count, bins) if count > 0 else 1.0
        scale = -1.0 / (measure.width * width2)
        kk = 0.0
        kl = 0.0
        for p in range(n_pairs):
            k = np.exp(scale * max(trial[p], 0.0))
            trial[p] = k
            kk += k * k
            kl += k * target[m + p]
        value = diagonal + 2.0 * kl
        if measure.normalized:
            sums[:] = 1.0  # the diagonal: exp(0)
            p = 0
            for i in range(m):
                for j in range(i + 1, m):
                    sums[i] += trial[p]
                    sums[j] += trial[p]
                    p += 1
            total = 0.0
            square = 0.0
            for i in range(m):
                total += sums[i]
                square += sums[i] * sums[i]
            norm2 = m + 2.0 * kk - 2.0 * square / m + total * total / (m * m)
            value = value / np.sqrt(norm2) if norm2 > 0.0 else 0.0
        out[position] = value
        if value > stop_above:
            return position + 1
    return trials.shape[0]


@njit(cache=True)
def median(values: np.ndarray, count: int, bins: np.ndarray) -> float:
    """np.median of ``values[:count]`` (count > 0), found by counting the values into
    ``bins`` equal bins between their extremes and sorting only the middle ones' values.
    Quickselect's branches on fresh data mispredict about half the time; this costs two
    branch-free passes (``values`` is reordered)."""
    upper = _ranked(values, count, count // 2, bins)
    if count % 2 == 1:
        return upper
    return (_ranked(values, count, count // 2 - 1, bins) + upper) / 2.0


@njit(cache=True)
def _ranked(values: np.ndarray, count: int, rank: int, bins: np.ndarray) -> float:
    """The value of 0-based ``rank`` in increasing order among ``values[:count]``."""
    low = values[0]
    high = values[0]
    for i in range(1, count):
        low = min(low, values[i])
        high = max(high, values[i])
    if low == high:
        return low
    n_bins = bins.shape[0]
    per_bin = n_bins / (high - low)
    bins[:] = 0
    for i in range(count):
        bins[min(int((values[i] - low) * per_bin), n_bins - 1)] += 1
    below = 0
    chosen = 0
    while below + bins[chosen] <= rank:
        below += bins[chosen]
        chosen += 1
    found = 0  # gather the chosen bin's values at the front, then sort them
    for i in range(count):
        if min(int((values[i] - low) * per_bin), n_bins - 1) == chosen:
            values[i], values[found] = values[found], values[i]
            found += 1
    sort_inplace(values[:found])
    return values[rank - below]
