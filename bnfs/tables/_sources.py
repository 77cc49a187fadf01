"""Where a :class:`~bnfs.tables._data.Dataset` comes from besides a DataFrame, one
responsibility: files and dask frames read block by block, DataFrame blocks encoded one at
a time, integer codes wrapped as they are, sparse presence matrices, and the readers of
the inputs ``Dataset(...)`` takes (:func:`blocks_of`, :func:`frame_of`,
:func:`complete_rows`). The constructors are functions of the class they build
(``from_codes(cls, ...)``); :class:`~bnfs.tables._data.Dataset` lists them among its own
members as class methods, so they are called as ``Dataset.from_codes(...)``."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from bnfs._validate import check_int
from bnfs.tables._chunks import encode_chunks
from bnfs.tables._columns import MissingValueError, column_names, missing_message
from bnfs.tables._readers import format_of, iter_blocks, read_table

__all__ = [
    "DEFAULT_MAX_LEVELS",
    "blocks_of",
    "frame_of",
    "complete_rows",
    "from_chunks",
    "from_csv",
    "from_codes",
    "from_sparse",
]

#: the most levels a discrete column may have unless the caller allows more
DEFAULT_MAX_LEVELS = 256


def blocks_of(data, names):
    """Row blocks of a data file or a dask DataFrame, else None."""
    if isinstance(data, (str, os.PathLike)):
        if names is not None:
            raise ValueError("names cannot be given with a file path; it has a header")
        try:
            kind = format_of(pathlib.Path(data))
        except ValueError:
            kind = "csv"
        return iter_blocks(data, format=kind)
    if type(data).__module__.startswith("dask") and hasattr(data, "partitions"):
        if names is not None:
            raise ValueError("names cannot be given with a dask DataFrame")
        return (data.partitions[i].compute() for i in range(data.npartitions))
    return None


def from_chunks(
    cls,
    chunks,
    *,
    dropna: bool = False,
    max_levels: int = DEFAULT_MAX_LEVELS,
    discrete: Sequence[str] | None = None,
    continuous: Sequence[str] | None = None,
    memmap=None,
):
    """Encode DataFrames of consecutive rows (e.g. ``pandas.read_csv(...,
    chunksize=...)``) one at a time, so that only the integer codes are ever held in
    full (see :func:`bnfs.io.read_dataset` for files). Equals ``Dataset`` of the
    concatenated blocks. With ``memmap`` (a file path) the codes live in that file,
    memory-mapped, and memory holds about one block: data larger than memory.

    Examples
    --------
    >>> from bnfs import Dataset, datasets
    >>> frame = datasets.sample("asia", 1000, seed=0)
    >>> blocks = (frame.iloc[i:i + 300] for i in range(0, 1000, 300))
    >>> Dataset.from_chunks(blocks).shape
    (1000, 8)
    """
    names, parts = encode_chunks(
        chunks,
        dropna=dropna,
        max_levels=max_levels,
        discrete=discrete,
        continuous=continuous,
        memmap=memmap,
    )
    data = cls.__new__(cls)
    data.names = parts["columns"]
    data._set(**parts)
    return data


def frame_of(data, names) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        if names is not None:
            raise ValueError("names cannot be given with a DataFrame; rename its columns")
        return data
    if isinstance(data, np.ndarray):
        if data.ndim != 2:
            raise ValueError(f"a numpy array must be 2-D, got {data.ndim}-D")
        if names is None:
            raise ValueError("a numpy array needs names=[...] for its columns")
        names = list(names)
        if len(names) != data.shape[1]:
            raise ValueError(f"names has {len(names)} entries for {data.shape[1]} columns")
        column_names(names)
        return pd.DataFrame({n: data[:, j] for j, n in enumerate(names)}, copy=False)
    raise TypeError(
        "data must be a pandas DataFrame, a 2-D numpy array with names, a CSV "
        f"path or a Dataset, got {type(data).__name__}"
    )


def complete_rows(frame: pd.DataFrame, dropna: bool) -> pd.DataFrame:
    missing = frame.isna()
    if not missing.to_numpy().any():
        return frame
    if not dropna:
        name = missing.columns[missing.any().to_numpy()][0]
        raise MissingValueError(missing_message(name, missing[name].to_numpy()), name)
    frame = frame.loc[~missing.any(axis=1).to_numpy()]
    if frame.shape[0] == 0:
        raise ValueError("no rows left after dropna")
    return frame


def from_csv(
    cls,
    path,
    *,
    dropna: bool = False,
    max_levels: int = DEFAULT_MAX_LEVELS,
    discrete: Sequence[str] | None = None,
    continuous: Sequence[str] | None = None,
    **read_csv_kwargs,
):
    """Read a CSV with :func:`bnfs.io.read_table` (its missing-value markers, repeated
    column names refused; any :func:`pandas.read_csv` options, e.g. ``sep="\\t"``)."""
    frame = read_table(path, format="csv", **read_csv_kwargs)
    return cls(
        frame, dropna=dropna, max_levels=max_levels, discrete=discrete, continuous=continuous
    )


def from_codes(
    cls,
    codes: np.ndarray,
    names: Sequence[str],
    states: dict | None = None,
    *,
    max_levels: int = DEFAULT_MAX_LEVELS,
):
    """Wrap integer codes ``0..arity-1`` (one column per variable) without re-encoding.

    ``states`` maps a name to its level labels (default ``0..max code``); a column with
    more than ``max_levels`` levels is refused before anything is allocated for them.
    """
    max_levels = check_int(max_levels, "max_levels", 2)
    codes = np.asarray(codes)
    names = column_names(names)
    if codes.ndim != 2 or codes.shape[1] != len(names):
        raise ValueError(f"codes must have shape (n_rows, {len(names)}), got {codes.shape}")
    if codes.shape[0] == 0:
        raise ValueError("data has no rows")
    if not np.issubdtype(codes.dtype, np.integer) or (codes.size and codes.min() < 0):
        raise TypeError("codes must be non-negative integers")
    states = dict(states or {})
    for j, name in enumerate(names):
        levels = len(states[name]) if name in states else int(codes[:, j].max()) + 1
        if levels > max_levels:
            raise ValueError(
                f"column {name!r} has {levels} levels (codes up to "
                f"{int(codes[:, j].max())}), more than max_levels={max_levels}; pass a "
                "larger max_levels if that many are meant"
            )
        if name not in states:
            states[name] = tuple(range(int(codes[:, j].max()) + 1))
        if codes[:, j].max() >= len(states[name]):
            raise ValueError(f"column {name!r} has codes beyond its {len(states[name])} states")
    self = cls.__new__(cls)
    self.names = names
    self._set(
        n_rows=codes.shape[0],
        disc_names=names,
        disc_codes=[codes[:, j] for j in range(len(names))],
        states=states,
        cont_names=(),
        floats=(),
    )
    return self


def from_sparse(cls, matrix, names: Sequence[str] | None = None, *, drop_constant: bool = False):
    """Binary presence data (``X != 0``) from a scipy sparse matrix (rows x variables),
    e.g. term counts; states are ``(0, 1)``.

    Columns that are all zero or all non-zero carry no information: they raise, or
    are dropped with ``drop_constant=True``.
    """
    import scipy.sparse as sp

    if not sp.issparse(matrix):
        raise TypeError(f"expected a scipy sparse matrix, got {type(matrix).__name__}")
    matrix = sp.csc_matrix(matrix)
    n_rows, n_cols = matrix.shape
    if n_rows == 0 or n_cols == 0:
        raise ValueError(f"data has shape {matrix.shape}; it needs rows and columns")
    names = column_names(names if names is not None else [f"x{j}" for j in range(n_cols)])
    if len(names) != n_cols:
        raise ValueError(f"names has {len(names)} entries for {n_cols} columns")
    matrix.eliminate_zeros()
    if matrix.data.size and not np.isfinite(matrix.data).all():
        raise ValueError("sparse data has NaN or infinite entries")
    on = np.diff(matrix.indptr)
    constant = (on == 0) | (on == n_rows)
    if constant.any() and not drop_constant:
        bad = [names[j] for j in np.flatnonzero(constant)[:5]]
        raise ValueError(
            f"{int(constant.sum())} columns are constant (e.g. {bad}); "
            "pass drop_constant=True to drop them"
        )
    keep = np.flatnonzero(~constant)
    if keep.size == 0:
        raise ValueError("every column is constant")
    codes = np.zeros((n_rows, keep.size), dtype=np.uint8, order="F")
    for t, j in enumerate(keep):
        codes[matrix.indices[matrix.indptr[j] : matrix.indptr[j + 1]], t] = 1
    kept = [names[j] for j in keep]
    self = cls.__new__(cls)
    self.names = tuple(kept)
    self._set(
        n_rows=n_rows,
        disc_names=kept,
        disc_codes=[],
        states={n: (0, 1) for n in kept},
        cont_names=(),
        floats=(),
    )
    self.codes = codes
    return self
