"""Entropy of class counts and the cut points of supervised (MDL) and interval
discretization, used by :func:`bnfs.discretize` and the information-theoretic selectors."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["entropy_of_counts", "mdl_cuts", "interval_labels"]


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
