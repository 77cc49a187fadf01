"""Encoding one column of data: names, level codes and the errors that name the column.
Shared by :class:`~bnfs.Dataset` and the block-by-block encoder (:mod:`bnfs.tables._chunks`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnfs._validate import check_names
from bnfs.tables._kinds import date_hint

__all__ = [
    "continuous_values",
    "column_names",
    "code_dtype",
    "missing_message",
    "observed_categories",
    "check_one_type",
    "encode_column",
    "ConstantColumnError",
    "MissingValueError",
    "CONSTANT_ADVICE",
]

#: how a constant column is handled, said in every error that refuses one
CONSTANT_ADVICE = (
    "drop it, or set it aside with Dataset(..., constant='isolate') (the structure "
    "learners keep it as an isolated node)"
)


class ConstantColumnError(ValueError):
    """A column with a single observed value; ``column`` names it."""

    def __init__(self, message: str, column: str):
        super().__init__(message)
        self.column = column


def column_names(names) -> tuple[str, ...]:
    """``names`` checked as column names (strings, unique)."""
    return check_names(names, "column")


def code_dtype(max_arity: int) -> np.dtype:
    for dtype in (np.uint8, np.uint16, np.uint32):
        if max_arity - 1 <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)  # pragma: no cover - more than 4e9 levels


class MissingValueError(ValueError):
    """A column with a missing value where complete data are needed; ``column`` names it.
    The learners catch it for a data file, which they then read whole and learn from as an
    incomplete frame (see :func:`bnfs._real_data.takes_real_data`)."""

    def __init__(self, message: str, column: str):
        super().__init__(message)
        self.column = column


def missing_message(name: str, missing: np.ndarray) -> str:
    rows = np.flatnonzero(missing)
    shown = ", ".join(str(r) for r in rows[:5]) + (", ..." if rows.size > 5 else "")
    return (
        f"column {name!r} has {rows.size} missing value(s) (rows {shown}); "
        "remove them or pass dropna=True (the learners take data with gaps as they are: "
        "pass them the file or frame, not a Dataset)"
    )


def observed_categories(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes of a categorical column renumbered to its observed categories (in category
    order), and those categories."""
    raw = col.cat.codes.to_numpy(dtype=np.int64)
    used = np.flatnonzero(np.bincount(raw, minlength=len(col.cat.categories)))
    remap = np.full(len(col.cat.categories), -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    return remap[raw], col.cat.categories[used]


def check_one_type(name: str, col: pd.Series) -> None:
    """TypeError when an object column mixes value types (numbers and strings, say)."""
    if col.dtype == object:
        kind = pd.api.types.infer_dtype(col, skipna=False)
        if kind.startswith("mixed") and kind != "mixed-integer-float":
            types = sorted({type(v).__name__ for v in col})
            raise TypeError(
                f"column {name!r} mixes value types {types}; "
                "convert it to one type (e.g. str) first"
            )


def encode_column(name: str, col: pd.Series, max_levels: int, identifier=None):
    """Return (codes as int64, states tuple) for one discrete column; with ``identifier``
    (a test ``identifier(levels, rows)``), (None, states) for a column of text or numbers
    (not a categorical one) that it calls an identifier."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes, observed = observed_categories(col)
        states = tuple(observed)
    else:
        check_one_type(name, col)
        try:
            raw, uniques = pd.factorize(col, sort=True)
        except TypeError as err:
            raise TypeError(
                f"column {name!r} holds unhashable or unorderable values: {err}"
            ) from None
        codes = raw.astype(np.int64, copy=False)
        states = tuple(v.item() if isinstance(v, np.generic) else v for v in uniques)
        if identifier is not None and identifier(len(states), len(col)):
            return None, states
    if len(states) > max_levels:
        raise ValueError(
            f"column {name!r} has {len(states)} levels, more than max_levels="
            f"{max_levels}; raise max_levels, drop the column or, if it holds numbers, "
            f"name it in continuous=[...]{date_hint(states)}"
        )
    if len(states) < 2:
        raise ConstantColumnError(
            f"column {name!r} has a single level ({states[0]!r}); a constant "
            f"column carries no information: {CONSTANT_ADVICE}",
            name,
        )
    return codes, states


#: integer columns encoded together by :func:`integer_codes`: at most this many, and at most
#: :data:`INTEGER_BLOCK_CELLS` values (128 MB as int64) at a time
INTEGER_BLOCK = 2048
INTEGER_BLOCK_CELLS = 1 << 24


def continuous_values(name: str, col: pd.Series) -> np.ndarray:
    """A float column's values, refused when infinite or constant."""
    values = col.to_numpy(dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"column {name!r} has infinite values")
    if values.min() == values.max():
        raise ConstantColumnError(
            f"column {name!r} is constant ({values[0]!r}): {CONSTANT_ADVICE}", name
        )
    return values


def integer_codes(frame: pd.DataFrame, names, max_levels: int) -> dict:
    """Codes and states of the frame's integer columns, encoded a block of columns at a
    time (wide genotype or count data: :func:`encode_column` per column costs a pandas
    factorize each): ``{name: (codes, states)}`` exactly as :func:`encode_column` gives
    them, for the columns with 2 to ``max_levels`` levels and at most 4,096 between their
    smallest and largest value. The others are left to :func:`encode_column`, which names
    what is wrong with them."""
    integer = [
        j
        for j, dtype in enumerate(frame.dtypes)
        # uint64 past int64's range is left to encode_column (its values would wrap)
        if pd.api.types.is_integer_dtype(dtype)
        and isinstance(dtype, np.dtype)
        and dtype != np.uint64
    ]
    found = {}
    step = max(1, min(INTEGER_BLOCK, INTEGER_BLOCK_CELLS // max(len(frame), 1)))
    for start in range(0, len(integer), step):
        block = integer[start : start + step]
        values = frame.iloc[:, block].to_numpy(dtype=np.int64)
        low, high = values.min(axis=0), values.max(axis=0)
        span = high - low + 1
        narrow = span <= 4096
        if not narrow.any():
            continue
        width = int(span[narrow].max())
        shifted = values[:, narrow] - low[narrow]
        columns = np.arange(shifted.shape[1])
        present = np.zeros((shifted.shape[1], width), dtype=bool)
        present[columns[None, :], shifted] = True
        rank = np.cumsum(present, axis=1) - 1
        levels = present.sum(axis=1)
        for k, j in enumerate(np.asarray(block)[narrow].tolist()):
            if not 2 <= levels[k] <= max_levels:
                continue
            states = tuple((np.flatnonzero(present[k]) + low[narrow][k]).tolist())
            codes = rank[k][shifted[:, k]].astype(code_dtype(len(states)))
            found[names[j]] = (codes, states)
    return found
