"""Encoding data that arrive in row blocks (a CSV or Parquet file read piece by piece, the
partitions of a dask DataFrame) into what one :class:`~bnfs.Dataset` holds (the Dataset
builds itself from it: this module sits below it).

Counts are additive over rows, so the learners only need every row's codes, not the table
they came from: each block is validated and encoded as it arrives (levels get provisional
codes in order of appearance), the block itself is dropped, and at the end the codes are
renumbered so that levels are sorted exactly as :class:`Dataset` sorts them. Peak memory
is about twice the final code matrix (one byte per cell for up to 256 levels) plus one
block, whatever the size of the file's text. With ``memmap`` the provisional codes are
appended to a scratch file and the final ones written to a file that is then memory-mapped,
so memory holds about one block; the counting kernels read the codes through the page
cache, whose pages the operating system can drop (they still show in the resident size).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from bnfs.tables._columns import (
    CONSTANT_ADVICE,
    ConstantColumnError,
    MissingValueError,
    check_one_type,
    code_dtype,
    column_names,
    observed_categories,
)
from bnfs.tables._files import replacing

__all__ = ["encode_chunks"]


class _Column:
    """Levels of one discrete column seen so far, in order of first appearance."""

    def __init__(self, name: str, max_levels: int):
        self.name = name
        self.max_levels = max_levels
        self.code: dict = {}
        self.categories: list | None = None  # a categorical column keeps this order

    def encode(self, col: pd.Series, dtype) -> np.ndarray:
        if isinstance(col.dtype, pd.CategoricalDtype):
            if self.categories is None:
                self.categories = []
            known = set(self.categories)
            self.categories += [c for c in col.cat.categories if c not in known]
            raw, uniques = observed_categories(col)
        else:
            check_one_type(self.name, col)
            try:
                raw, uniques = pd.factorize(col)
            except TypeError as err:
                raise TypeError(f"column {self.name!r} holds unhashable values: {err}") from None
        lookup = np.empty(len(uniques), dtype=np.int64)
        for i, value in enumerate(uniques):
            value = value.item() if isinstance(value, np.generic) else value
            code = self.code.get(value)
            if code is None:
                code = self.code[value] = len(self.code)
                if code >= self.max_levels:
                    raise ValueError(
                        f"column {self.name!r} has more than max_levels={self.max_levels} "
                        "levels; raise max_levels, drop the column (an identifier?) or "
                        "treat it as continuous"
                    )
            lookup[i] = code
        return (
            lookup[raw].astype(dtype, copy=False)
            if len(uniques)
            else np.zeros(len(col), dtype=dtype)
        )

    def final_order(self) -> tuple[tuple, np.ndarray]:
        """The sorted states and the map from provisional codes to their positions."""
        seen = list(self.code)
        if len(seen) < 2:
            shown = seen[0] if seen else None
            raise ConstantColumnError(
                f"column {self.name!r} has a single level ({shown!r}); a "
                f"constant column carries no information: {CONSTANT_ADVICE}",
                self.name,
            )
        if self.categories is not None:
            rank = {c: i for i, c in enumerate(self.categories)}
            states = sorted(seen, key=rank.__getitem__)
        else:
            try:
                states = sorted(seen)
            except TypeError:
                types = sorted({type(v).__name__ for v in seen})
                raise TypeError(
                    f"column {self.name!r} mixes value types {types} across "
                    "blocks; convert it to one type (e.g. str) first"
                ) from None
        position = {v: i for i, v in enumerate(states)}
        remap = np.array([position[v] for v in seen], dtype=np.int64)
        return tuple(states), remap


class _Blocks:
    """Provisional code blocks, in memory or appended to a scratch file."""

    def __init__(self, scratch: Path | None):
        self.scratch = scratch
        self.parts: list[np.ndarray] = []
        self.handle = open(scratch, "wb") if scratch is not None else None
        self.n_rows = 0

    def append(self, codes: np.ndarray) -> None:
        self.n_rows += codes.shape[0]
        if self.handle is None:
            self.parts.append(codes)
        else:
            self.handle.write(np.ascontiguousarray(codes).tobytes())

    def slices(self, width: int, dtype, rows: int = 1 << 20):
        """(start, provisional codes of rows start:start + len) in order."""
        if self.handle is None:
            start = 0
            for i, part in enumerate(self.parts):
                self.parts[i] = None  # released once written, so memory falls as we go
                yield start, part
                start += part.shape[0]
            return
        self.handle.close()
        if self.n_rows == 0 or width == 0:
            return
        itemsize = np.dtype(dtype).itemsize
        with open(self.scratch, "rb") as stored:  # plain reads: no mapped pages stay resident
            for start in range(0, self.n_rows, rows):
                count = min(rows, self.n_rows - start)
                stored.seek(start * width * itemsize)
                part = np.fromfile(stored, dtype=dtype, count=count * width)
                yield start, part.reshape(count, width)

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            if self.scratch.exists():
                os.remove(self.scratch)


def encode_chunks(
    chunks: Iterable[pd.DataFrame],
    *,
    dropna: bool = False,
    max_levels: int = 256,
    discrete: Sequence[str] | None = None,
    memmap=None,
    constant: str = "raise",
) -> tuple[tuple[str, ...], dict]:
    """(column names, the fields of ``Dataset._set``) of DataFrames holding consecutive rows
    (same columns).

    A column is continuous when it is float in the first block and not named in
    ``discrete``; every other column is discrete. The result equals ``Dataset`` of the
    concatenated blocks. ``memmap`` names a file for the codes (created or overwritten;
    continuous columns stay in memory). ``constant="isolate"`` sets constant columns aside
    (named in the ``isolated`` field) instead of refusing them.
    """
    target = None if memmap is None else Path(memmap)
    if target is not None and target.is_dir():
        raise ValueError(f"memmap must be a file path, {str(target)!r} is a directory")
    blocks = _Blocks(None if target is None else target.with_name(target.name + ".partial"))
    try:
        return _encode(chunks, dropna, max_levels, discrete, target, blocks, constant)
    finally:
        blocks.close()


def _encode(chunks, dropna, max_levels, discrete, target, blocks, constant) -> tuple[tuple, dict]:
    if isinstance(max_levels, bool) or not isinstance(max_levels, (int, np.integer)):
        raise TypeError(f"max_levels must be an integer, got {max_levels!r}")
    if max_levels < 2:
        raise ValueError(f"max_levels must be >= 2, got {max_levels}")
    block_dtype = code_dtype(int(max_levels))
    names: tuple[str, ...] | None = None
    continuous: set[str] = set()
    columns: dict[str, _Column] = {}
    floats: list[np.ndarray] = []
    offset = 0  # rows read so far (before dropping)
    for frame in chunks:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"each block must be a pandas DataFrame, got {type(frame).__name__}")
        if names is None:
            names = column_names(frame.columns)
            if not names:
                raise ValueError("data has no columns")
            wanted = set(column_names(discrete or ()))
            unknown = wanted - set(names)
            if unknown:
                raise ValueError(f"discrete names unknown columns: {sorted(unknown)}")
            continuous = {
                n for n in names if pd.api.types.is_float_dtype(frame[n].dtype) and n not in wanted
            }
            columns = {n: _Column(n, int(max_levels)) for n in names if n not in continuous}
        elif tuple(frame.columns) != names:
            raise ValueError(
                f"a block at row {offset} has columns {list(frame.columns)[:5]}..., "
                f"not the first block's {list(names)[:5]}..."
            )
        missing = frame.isna().to_numpy()
        if missing.any():
            if not dropna:
                row, col = np.argwhere(missing)[0]
                raise MissingValueError(
                    f"column {names[col]!r} has a missing value (row "
                    f"{offset + row}); remove it or pass dropna=True",
                    names[col],
                )
            frame = frame.loc[~missing.any(axis=1)]
        offset += missing.shape[0]
        if frame.shape[0] == 0:
            continue
        codes = np.empty((frame.shape[0], len(columns)), dtype=block_dtype)
        for j, (name, column) in enumerate(columns.items()):
            col = frame[name]
            if pd.api.types.is_complex_dtype(col.dtype):
                raise TypeError(f"column {name!r} has complex values")
            codes[:, j] = column.encode(col, block_dtype)
        blocks.append(codes)
        if continuous:
            part = np.empty((frame.shape[0], len(continuous)))
            for j, name in enumerate(n for n in names if n in continuous):
                try:
                    part[:, j] = frame[name].to_numpy(dtype=np.float64)
                except (TypeError, ValueError):
                    first_row = offset - missing.shape[0]
                    raise ValueError(
                        f"column {name!r} is float in the first block but holds "
                        f"{frame[name].dtype} values at rows {first_row}-{offset}; "
                        f"pass discrete=[{name!r}] or fix the file"
                    ) from None
                if not np.isfinite(part[:, j]).all():
                    raise ValueError(f"column {name!r} has infinite values")
            floats.append(part)
    if names is None:
        raise ValueError("data has no rows")
    n_rows = blocks.n_rows
    if n_rows == 0:
        raise ValueError("no rows left after dropna" if offset else "data has no rows")
    isolated = {}  # constant columns set aside (constant="isolate") and their values
    orders = {}
    for name in (n for n in names if n not in continuous):
        try:
            orders[name] = columns[name].final_order()
        except ConstantColumnError:
            if constant != "isolate":
                raise
            isolated[name] = next(iter(columns[name].code), None)
    values = np.concatenate(floats) if floats else np.empty((n_rows, 0))
    kept_values = []
    for j, name in enumerate(n for n in names if n in continuous):
        if values[:, j].min() < values[:, j].max():
            kept_values.append(j)
        elif constant == "isolate":
            isolated[name] = float(values[0, j])
        else:
            raise ConstantColumnError(
                f"column {name!r} is constant ({values[0, j]!r}): {CONSTANT_ADVICE}", name
            )
    # provisional code columns of the kept discrete columns, in block order
    kept_codes = [j for j, n in enumerate(columns) if n in orders]
    disc_names = [n for n in names if n in orders]
    cont_names = [n for n in names if n in continuous and n not in isolated]
    values = values[:, kept_values]

    final_dtype = code_dtype(max((len(orders[n][0]) for n in disc_names), default=2))
    remaps = [orders[n][1].astype(final_dtype) for n in disc_names]
    width = len(disc_names)
    if target is None:
        codes = np.empty((n_rows, width), dtype=final_dtype, order="F")
        for start, part in blocks.slices(len(columns), block_dtype):
            for k, (j, remap) in enumerate(zip(kept_codes, remaps)):
                codes[start : start + part.shape[0], k] = remap[part[:, j]]
    else:  # column-major file written with plain writes, then mapped without touching it
        size = np.dtype(final_dtype).itemsize
        with replacing(target, regular_only=True) as temporary, open(temporary, "wb") as out:
            out.truncate(n_rows * max(width, 1) * size)
            for start, part in blocks.slices(len(columns), block_dtype):
                for k, (j, remap) in enumerate(zip(kept_codes, remaps)):
                    out.seek((k * n_rows + start) * size)
                    out.write(remap[part[:, j]].tobytes())
        codes = np.memmap(
            target, dtype=final_dtype, mode="r+", shape=(n_rows, max(width, 1)), order="F"
        )[:, :width]

    return names, dict(
        isolated=isolated,
        n_rows=n_rows,
        disc_names=disc_names,
        disc_codes=(),
        states={n: orders[n][0] for n in disc_names},
        cont_names=cont_names,
        floats=[values[:, j] for j in range(len(cont_names))],
        codes=codes,
    )
