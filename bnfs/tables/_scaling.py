"""Numerics of continuous columns that stay finite near the ends of the float range: each
column divided by its largest magnitude before squares and products (values such as 1e200
or subnormals would overflow or underflow), the results returned in the columns' own
units. The Gaussian scores, tests, fitted regressions and imputations use them."""

from __future__ import annotations

import numpy as np

__all__ = ["unit_scaled", "standardized_columns", "scaled_lstsq", "spread", "least_squares"]


def unit_scaled(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(columns divided by their largest magnitude, the log of those magnitudes).

    Gaussian statistics are computed on the scaled columns: values near the ends of the
    float range (1e308, or subnormals such as 1e-310) would overflow or underflow in squares
    and products; once divided by their magnitude they lie in [-1, 1]. Correlations do not
    change; a Gaussian log-likelihood shifts by -n log(scale) of the modelled column.
    """
    scale = np.abs(values).max(axis=0) if values.size else np.ones(values.shape[1])
    scale = np.where(scale > 0, scale, 1.0)
    return np.ascontiguousarray(values / scale), np.log(scale)


def standardized_columns(values: np.ndarray) -> np.ndarray:
    """Each column centred and divided by its standard deviation (a column without spread
    stays centred at 0), computed on the unit-scaled columns (:func:`unit_scaled`)."""
    scaled, _ = unit_scaled(values)
    centred = scaled - scaled.mean(axis=0)
    deviation = np.sqrt((centred * centred).mean(axis=0))
    return centred / np.where(deviation > 0, deviation, 1.0)


def scaled_lstsq(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(coefficients in the columns' own units, residuals divided by ``y``'s magnitude, that
    magnitude) of the least-squares fit of ``y`` on the columns of ``X``, computed on
    columns divided by their largest magnitude (:func:`unit_scaled`): the same fit, without
    overflow in squares for values near the ends of the float range."""
    scaled_x, log_x = unit_scaled(np.asarray(X, dtype=np.float64))
    scaled_y, log_y = unit_scaled(np.asarray(y, dtype=np.float64)[:, None])
    b = np.linalg.lstsq(scaled_x, scaled_y[:, 0], rcond=None)[0]
    y_scale = float(np.exp(log_y[0]))
    return b * (y_scale / np.exp(log_x)), scaled_y[:, 0] - scaled_x @ b, y_scale


def spread(values: np.ndarray) -> float:
    """``np.std(values)`` computed on the values divided by their largest magnitude, so that
    values above 1e154 do not overflow in squares."""
    values = np.asarray(values, dtype=np.float64)
    scale = float(np.abs(values).max()) if values.size else 0.0
    if not scale > 0 or not np.isfinite(scale):
        return float(np.std(values)) if values.size else 0.0
    return float(np.std(values / scale)) * scale


def least_squares(y: np.ndarray, regressors: list[np.ndarray]) -> tuple[np.ndarray, float]:
    """(intercept and coefficients, residual standard deviation) of the least-squares
    regression of ``y`` on ``regressors``, in the columns' own units; the deviation is the
    maximum-likelihood one (residual sum of squares over the rows), at least 1e-150 of
    ``y``'s magnitude.

    Computed on columns divided by their largest magnitude (see :func:`unit_scaled`), so
    values near the ends of the float range (1e200) do not overflow in squares.

    Examples
    --------
    >>> x = np.array([0.0, 1.0, 2.0, 3.0]) * 1e200
    >>> beta, sd = least_squares(2 * x + 1e200, [x])
    >>> np.allclose(beta, [1e200, 2.0]), sd < 1e190
    (True, True)
    """
    y = np.asarray(y, dtype=np.float64)
    X = np.column_stack(regressors) if regressors else np.empty((y.shape[0], 0))
    scaled_y, log_y = unit_scaled(y[:, None])
    scaled_x, log_x = unit_scaled(X)
    y_scale, x_scale = float(np.exp(log_y[0])), np.exp(log_x)
    design = np.column_stack([np.ones(y.shape[0]), scaled_x])
    b = np.linalg.lstsq(design, scaled_y[:, 0], rcond=None)[0]
    residual = scaled_y[:, 0] - design @ b
    deviation = max(float(np.sqrt(residual @ residual / y.shape[0])), 1e-150)
    beta = np.concatenate([[b[0] * y_scale], b[1:] * (y_scale / x_scale)])
    return beta, deviation * y_scale
