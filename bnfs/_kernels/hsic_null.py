"""Permutation draws of HSMB's dependence test, fused: the Gram matrix of a blanket joined
by a permuted feature is never stored (m^2 exponentials, upper triangle only)."""

from __future__ import annotations

import numpy as np

from bnfs._kernels._compile import njit


@njit(cache=True, fastmath=True)
def permuted_dependence(
    joint_d2: np.ndarray,
    feature: np.ndarray,
    rows: np.ndarray,
    scale: float,
    target: np.ndarray,
) -> tuple[float, float]:
    """(<K, L>, ||HKH||^2) for K = exp(scale (D + E)), D the blanket's squared distances
    (m, m), E those of ``feature`` (m, d) with its rows taken in the order ``rows``, and
    L the target's centred Gram matrix.

    <K, L> = <HKH, L> for centred L, and ||HKH||^2 = ||K||^2 - 2 ||K1||^2 / m
    + (1'K1)^2 / m^2, so K needs no centring."""
    m = joint_d2.shape[0]
    d = feature.shape[1]
    sums = np.zeros(m)
    kk = 0.0
    kl = 0.0
    for i in range(m):
        a = rows[i]
        for j in range(i, m):
            b = rows[j]
            e = 0.0
            for c in range(d):
                diff = feature[a, c] - feature[b, c]
                e += diff * diff
            k = np.exp(scale * (joint_d2[i, j] + e))
            if i == j:
                kk += k * k
                kl += k * target[i, j]
                sums[i] += k
            else:
                kk += 2.0 * k * k
                kl += 2.0 * k * target[i, j]
                sums[i] += k
                sums[j] += k
    total = 0.0
    square = 0.0
    for i in range(m):
        total += sums[i]
        square += sums[i] * sums[i]
    return kl, kk - 2.0 * square / m + total * total / (m * m)
