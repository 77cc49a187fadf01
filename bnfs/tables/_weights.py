"""Row weights where the statistics count rows: a row of whole-number weight w is w rows.

The score searches take any weights (the compiled scores sum them); the
conditional-independence tests, and what is built on them, count rows in integer tables.
There a weighted Dataset becomes the rows it stands for, each repeated its weight times,
which gives exactly the statistics of the repeated rows; weights with fractions (structural
EM's expected counts, survey weights) cannot be repeated and are refused by name.
"""

from __future__ import annotations

import numpy as np

#: the most rows a weighted Dataset may stand for where its rows are repeated (50 million
#: rows of 20 one-byte codes is 1 GB)
MAX_REPEATED_ROWS = 50_000_000


def checked_weights(weights, n_rows: int) -> np.ndarray:
    """``weights`` as float64, one per row, real, finite and non-negative with a finite
    positive total (:meth:`bnfs.Dataset.with_weights`); a TypeError or ValueError says
    which of these fails."""
    try:  # complex numbers are refused, not cut to their real parts
        if np.asarray(weights).dtype.kind not in "biufO":
            raise TypeError
        w = np.array(weights, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        kind = getattr(np.asarray(weights), "dtype", type(weights))
        raise TypeError(f"weights must be real numbers, one per row, got {kind}") from None
    if w.shape[0] != n_rows or np.ndim(weights) != 1:
        raise ValueError(f"weights must be one number per row ({n_rows}), got {w.shape}")
    with np.errstate(over="ignore"):  # each finite, the total may not be
        total = w.sum()
    if not np.isfinite(w).all() or (w < 0).any() or not 0 < total < np.inf:
        raise ValueError("weights must be finite and non-negative, with a finite positive total")
    return w


def row_mass(data) -> float:
    """The number of rows the statistics count: the weights' total on weighted rows."""
    return float(data.n_rows) if data.weights is None else float(data.weights.sum())


def repeated_rows(data, who: str):
    """``data`` itself when it has no row weights; otherwise a Dataset without weights in
    which each row appears as many times as its weight (whole numbers), for ``who``, a
    routine that counts rows. A row of weight 0 is left out.

    Raises
    ------
    ValueError
        Weights with fractions, or standing for more than :data:`MAX_REPEATED_ROWS` rows;
        the message names ``who`` and what takes such weights.

    Examples
    --------
    >>> import pandas as pd
    >>> from bnfs import Dataset
    >>> data = Dataset(pd.DataFrame({"a": ["x", "y", "x"]})).with_weights([2, 0, 1])
    >>> repeated = repeated_rows(data, "this example")
    >>> repeated.n_rows, repeated.weights is None
    (3, True)
    >>> repeated_rows(data.with_weights([0.5, 1, 1]), "this example")
    Traceback (most recent call last):
    ...
    ValueError: this example counts rows, so it takes whole-number row weights (a row of weight 2 counts as two rows); row 0 has weight 0.5. Round them, or use a score-based search (hill_climbing, tabu_search, boss, learn), which takes any weights
    """
    weights = data.weights
    if weights is None:
        return data
    whole = np.round(weights)
    fraction = np.flatnonzero(whole != weights)
    if fraction.size:
        i = int(fraction[0])
        raise ValueError(
            f"{who} counts rows, so it takes whole-number row weights (a row of weight 2 "
            f"counts as two rows); row {i} has weight {float(weights[i]):g}. Round them, or "
            "use a score-based search (hill_climbing, tabu_search, boss, learn), which takes "
            "any weights"
        )
    total = float(whole.sum())
    if total > MAX_REPEATED_ROWS:
        raise ValueError(
            f"{who} counts rows; these row weights stand for {total:.4g} rows, more than "
            f"{MAX_REPEATED_ROWS:,} it repeats. Use a score-based search (hill_climbing, "
            "tabu_search, boss, learn), which sums the weights instead"
        )
    repeated = data.take(np.repeat(np.arange(data.n_rows), whole.astype(np.int64)))
    repeated.weights = None
    return repeated
