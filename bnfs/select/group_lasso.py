"""Sparse group lasso by accelerated proximal gradient (FISTA), least-squares loss."""

from __future__ import annotations

import numpy as np

__all__ = ["sparse_group_lasso", "penalty_scale"]


def _prox(
    v: np.ndarray, groups: list[np.ndarray], weights: np.ndarray, l1: float, group: float
) -> np.ndarray:
    """Proximal map of l1 |x|_1 + group * sum_g w_g |x_g|_2: soft-threshold every entry,
    then shrink every group's norm (Friedman, Hastie & Tibshirani 2010)."""
    x = np.sign(v) * np.maximum(np.abs(v) - l1, 0.0)
    for members, weight in zip(groups, weights):
        norm = np.linalg.norm(x[members])
        x[members] *= max(0.0, 1.0 - group * weight / norm) if norm > 0.0 else 0.0
    return x


def penalty_scale(
    A: np.ndarray, Y: np.ndarray, groups: list[np.ndarray], l1_ratio: float, group_ratio: float
) -> tuple[float, float]:
    """Absolute penalties from ratios in [0, 1] as SLEP's ``sgLeastR`` reads them: the l1
    penalty is ``l1_ratio`` times the smallest one that zeroes every coefficient, and the
    group penalty ``group_ratio`` times the smallest that zeroes every group given it."""
    gradient = A.T @ Y
    l1 = l1_ratio * float(np.abs(gradient).max())
    shrunk = np.sign(gradient) * np.maximum(np.abs(gradient) - l1, 0.0)
    weights = _weights(groups)
    group_max = max(float(np.linalg.norm(shrunk[g])) / w for g, w in zip(groups, weights))
    return l1, group_ratio * group_max


def _weights(groups) -> np.ndarray:
    return np.sqrt([len(g) for g in groups]).astype(float)


def sparse_group_lasso(
    A: np.ndarray,
    Y: np.ndarray,
    groups: list,
    l1: float,
    group: float,
    *,
    max_iter: int = 5000,
    tol: float = 1e-8,
    return_n_iter: bool = False,
):
    """Minimize ``1/2 |Y - A B|_F^2 + l1 |B|_1 + group sum_g sqrt(|g|) |B_g|_F``.

    Parameters
    ----------
    A : ndarray of shape (m, p)
        Design matrix (centre it, and Y, to fit without an intercept).
    Y : ndarray of shape (m,) or (m, c)
        Responses; with several columns, a group's rows of B share one norm.
    groups : list of index arrays
        A partition of the p columns.
    l1, group : float
        Penalties on single coefficients and on whole groups (>= 0).
    max_iter, tol : int, float
        FISTA iterations and the relative change of B that stops them.

    return_n_iter : bool
        Also return the number of iterations run.

    Returns
    -------
    ndarray shaped like ``A.T @ Y``: the coefficients (and the iteration count).

    References
    ----------
    J. Friedman, T. Hastie and R. Tibshirani, "A note on the group lasso and a sparse group
    lasso", 2010. A. Beck and M. Teboulle, "A fast iterative shrinkage-thresholding
    algorithm", SIAM J. Imaging Sciences 2, 2009.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> A = rng.normal(size=(100, 4)); y = A[:, 0] - A[:, 1] + 0.1 * rng.normal(size=100)
    >>> beta = sparse_group_lasso(A, y, [np.array([0, 1]), np.array([2, 3])], 1.0, 5.0)
    >>> (beta[:2] != 0).all(), (beta[2:] == 0).all()
    (np.True_, np.True_)
    """
    A = np.ascontiguousarray(A, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    groups = [np.asarray(g, dtype=np.int64) for g in groups]
    weights = _weights(groups)
    lipschitz = float(np.linalg.norm(A, 2)) ** 2
    if lipschitz == 0.0:
        beta = np.zeros((A.shape[1],) + Y.shape[1:])
        return (beta, 0) if return_n_iter else beta
    step = 1.0 / lipschitz
    AtA, AtY = A.T @ A, A.T @ Y  # p x p: the representative sets keep p small
    beta = np.zeros_like(AtY)
    momentum, t = beta.copy(), 1.0
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (the count is reported after the loop)
        previous = beta
        beta = _prox(
            momentum - step * (AtA @ momentum - AtY), groups, weights, step * l1, step * group
        )
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        momentum = beta + ((t - 1.0) / t_next) * (beta - previous)
        t = t_next
        change = np.linalg.norm(beta - previous)
        if change <= tol * max(1.0, np.linalg.norm(beta)):
            break
    return (beta, n_iter) if return_n_iter else beta
