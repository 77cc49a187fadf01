"""Entropy of class counts and the cut points of supervised (MDL) and interval
discretization, used by :func:`bnfs.discretize` and the information-theoretic selectors."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["entropy_of_counts", "mdl_cuts", "interval_labels", "bin_columns"]


def entropy_of_counts(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of class counts."""
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / np.maximum(total, 1), 0.0)
        logs = np.where(p > 0, np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -(p * logs).sum(axis=-1)


def mdl_cuts(values: np.ndarray, labels: np.ndarray, n_classes: int) -> list[float]:
    """Fayyad & Irani (1993) recursive minimum-entropy splits with the MDL stopping rule."""
    order = np.argsort(values, kind="stable")
    v, y = values[order], labels[order]
    onehot_cum = np.zeros((v.size + 1, n_classes), dtype=np.int64)
    np.add.at(onehot_cum[1:], (np.arange(v.size), y), 1)
    np.cumsum(onehot_cum, axis=0, out=onehot_cum)
    cuts: list[float] = []
    stack = [(0, v.size)]
    while stack:
        lo, hi = stack.pop()
        n = hi - lo
        # candidate boundaries: between distinct consecutive values
        boundaries = np.flatnonzero(v[lo + 1 : hi] != v[lo : hi - 1]) + lo + 1
        if n < 2 or boundaries.size == 0:
            continue
        total = onehot_cum[hi] - onehot_cum[lo]
        left = onehot_cum[boundaries] - onehot_cum[lo]
        right = total - left
        n_left = boundaries - lo
        ent_left, ent_right = entropy_of_counts(left), entropy_of_counts(right)
        weighted = (n_left * ent_left + (n - n_left) * ent_right) / n
        best = int(np.argmin(weighted))
        ent = float(entropy_of_counts(total[None, :])[0])
        gain = ent - weighted[best]
        k = int((total > 0).sum())
        k1, k2 = int((left[best] > 0).sum()), int((right[best] > 0).sum())
        delta = math.log2(3**k - 2) - (k * ent - k1 * ent_left[best] - k2 * ent_right[best])
        if gain > (math.log2(n - 1) + delta) / n:
            cut = boundaries[best]
            cuts.append(float((v[cut - 1] + v[cut]) / 2))
            stack.append((lo, cut))
            stack.append((cut, hi))
    return sorted(cuts)


def interval_labels(cuts: np.ndarray) -> tuple[str, ...]:
    edges = [-np.inf, *cuts.tolist(), np.inf]
    return tuple(f"({edges[i]:.6g}, {edges[i + 1]:.6g}]" for i in range(len(edges) - 1))


def bin_columns(data, method: str, n_bins: int, target, columns):
    """The discretization of :func:`bnfs.discretize`, column by column: (codes, interval
    labels, the floats kept, the cut points) of each discretized column of ``data`` (a
    :class:`~bnfs.Dataset`), checked as that function documents."""
    if method not in ("quantile", "interval", "mdl"):
        raise ValueError(f"method must be 'quantile', 'interval' or 'mdl', got {method!r}")
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise ValueError(f"n_bins must be an integer >= 2, got {n_bins!r}")
    if n_bins > max(data.n_rows, 2):
        raise ValueError(f"n_bins={n_bins} is more than the {data.n_rows} rows; a bin needs a row")
    columns = list(data.continuous_names if columns is None else columns)
    for name in columns:
        data.check_name(name, "column")
        if name not in data.continuous_names:
            raise ValueError(f"column {name!r} is not continuous")
    labels = None
    if method == "mdl":
        if target is None:
            raise ValueError("method='mdl' needs a discrete target column")
        data.check_name(target, "target")
        if target not in data.discrete_names:
            raise ValueError(f"target {target!r} must be discrete for method='mdl'")
        labels = data.column(target).astype(np.int64)
        n_classes = data.arity(target)

    new_codes, new_states, raw, cut_points = {}, {}, {}, {}
    for name in columns:
        values = data.column(name)
        if method == "quantile":
            cuts = np.unique(np.quantile(values, np.linspace(0, 1, n_bins + 1)[1:-1]))
        elif method == "interval":
            share = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]  # max - min overflows past 1e308
            cuts = values.min() * (1.0 - share) + values.max() * share
        else:
            cuts = np.asarray(mdl_cuts(values, labels, n_classes))
            if cuts.size == 0:
                cuts = np.unique(np.quantile(values, [0.5]))
        top = values.max()
        cuts = cuts[cuts < top]
        if cuts.size == 0:  # (nearly) all mass on the maximum: split it off
            cuts = np.array([values[values < top].max()])
        codes = np.searchsorted(cuts, values, side="left")
        used = np.flatnonzero(np.bincount(codes, minlength=cuts.size + 1))
        # drop empty bins (a quantile cut at the maximum) by merging them with a neighbour
        keep = cuts[used[:-1]] if used.size < cuts.size + 1 else cuts
        codes = np.searchsorted(keep, values, side="left")
        new_codes[name] = codes
        cut_points[name] = keep
        new_states[name] = interval_labels(keep)
        raw[name] = values.copy()

    return new_codes, new_states, raw, cut_points
