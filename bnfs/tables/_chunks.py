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
from bnfs.tables._kinds import (
    INTEGER_LEVELS,
    date_hint,
    float_codes,
    integer_identifier,
    integer_is_discrete,
    is_identifier,
    numbers_in_text,
    numeric_or_refuse,
    overrides,
    refuse_dates,
    text_identifier,
    warn_identifiers,
    whole_identifier,
)

__all__ = ["encode_chunks"]


class _Column:
    """Levels of one discrete column seen so far, in order of first appearance.

    Under the typing rule (``free``; not named in ``discrete=``) an integer column
    (``integer``) is promoted to continuous when its values outnumber ``limit``: its rows
    from then on are kept as floats (``tail``), the earlier ones are decoded from their
    codes at the end (``promoted_at`` rows); a text column past ``max_levels`` levels that
    is distinct on (nearly) every row so far is an identifier and stops being encoded."""

    def __init__(self, name: str, max_levels: int, integer: bool = False, free: bool = True):
        self.name = name
        self.max_levels = max_levels
        self.code: dict = {}
        self.categories: list | None = None  # a categorical column keeps this order
        self.integer = integer and free
        self.free = free
        self.limit = min(INTEGER_LEVELS, max_levels)
        self.rows = 0
        self.promoted_at: int | None = None
        self.tail: list[np.ndarray] = []
        self.identifier: str | None = None

    def encode(self, col: pd.Series, dtype) -> np.ndarray:
        zeros = np.zeros(len(col), dtype=dtype)
        if self.identifier is not None:
            self.rows += len(col)
            return zeros
        if self.integer and not pd.api.types.is_numeric_dtype(col.dtype):
            raise TypeError(
                f"column {self.name!r} mixes value types [int, {col.dtype}] across blocks; "
                "convert it to one type (e.g. str) first"
            )
        if self.promoted_at is None and self.integer:
            uniques = pd.unique(col)
            new = (v.item() if isinstance(v, np.generic) else v for v in uniques)
            if (
                len(uniques) > self.limit
                or len(self.code) + sum(v not in self.code for v in new) > self.limit
            ):
                self.promoted_at = self.rows
        if self.promoted_at is not None:
            self.tail.append(col.to_numpy(dtype=np.float64))
            self.rows += len(col)
            return zeros
        self.rows += len(col)
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
                    return self._too_many(zeros, uniques)
            lookup[i] = code
        return lookup[raw].astype(dtype, copy=False) if len(uniques) else zeros

    def _too_many(self, zeros: np.ndarray, uniques) -> np.ndarray:
        """A text column past ``max_levels`` levels: an identifier when it is distinct on
        nearly every row so far (this block's ``uniques`` included), else refused."""
        hint = date_hint(list(self.code))
        seen = set(self.code).union(v.item() if isinstance(v, np.generic) else v for v in uniques)
        if (
            self.free
            and self.categories is None
            and text_identifier(len(seen), self.rows, self.max_levels)
        ):
            self.identifier = (
                f"more than max_levels={self.max_levels} levels in the first {self.rows} rows{hint}"
            )
            self.code = {}
            return zeros
        raise ValueError(
            f"column {self.name!r} has more than max_levels={self.max_levels} levels; raise "
            f"max_levels, drop the column or, if it holds numbers, name it in "
            f"continuous=[...]{hint}"
        )

    def settle(self, n_rows: int, max_levels: int) -> None:
        """At the end: an integer column with too many values for its rows becomes
        continuous, a text column distinct on nearly every row an identifier."""
        if self.identifier is not None or self.promoted_at is not None:
            return
        levels = len(self.code)
        if self.integer and levels >= 2 and not integer_is_discrete(levels, n_rows, max_levels):
            self.promoted_at = n_rows
        elif (
            self.free
            and not self.integer
            and self.categories is None
            and is_identifier(levels, n_rows)
            and not all(isinstance(v, bool) for v in self.code)
        ):
            hint = date_hint(list(self.code))
            self.identifier = f"{levels} distinct values on {n_rows} rows{hint}"

    def values_of(self, codes: np.ndarray) -> np.ndarray:
        """The numbers of provisional ``codes`` of a promoted integer column."""
        return np.array(list(self.code), dtype=np.float64)[codes]

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
    continuous: Sequence[str] | None = None,
    memmap=None,
    constant: str = "raise",
) -> tuple[tuple[str, ...], dict]:
    """(column names, the fields of ``Dataset._set``) of DataFrames holding consecutive rows
    (same columns).

    Columns are typed by :mod:`bnfs.tables._kinds` (by their type in the first block; an
    integer column's values are counted over every block) unless ``discrete`` or
    ``continuous`` names them. The result equals ``Dataset`` of the concatenated blocks.
    ``memmap`` names a file for the codes (created or overwritten; continuous columns stay
    in memory). ``constant="isolate"`` sets constant columns aside (named in the
    ``isolated`` field) instead of refusing them.
    """
    target = None if memmap is None else Path(memmap)
    if target is not None and target.is_dir():
        raise ValueError(f"memmap must be a file path, {str(target)!r} is a directory")
    blocks = _Blocks(None if target is None else target.with_name(target.name + ".partial"))
    try:
        return _encode(chunks, dropna, max_levels, (discrete, continuous), target, blocks, constant)
    finally:
        blocks.close()


def _first_block(frame: pd.DataFrame, chosen, max_levels: int):
    """(names, the continuous columns (name -> whether the typing rule may still read it as
    a code: False when named in ``continuous=``, ``"text"`` for numbers stored as text),
    the discrete columns' encoders) from the first block's types."""
    names = column_names(frame.columns)
    if not names:
        raise ValueError("data has no columns")
    discrete, continuous = overrides(*chosen, names)
    floats, columns = {}, {}
    for name in names:
        col = frame[name]
        refuse_dates(name, col, text=name not in discrete)
        if name in continuous:
            numeric_or_refuse(name, col.head(0))
            floats[name] = False
        elif pd.api.types.is_float_dtype(col.dtype) and name not in discrete:
            floats[name] = True
        elif name not in discrete and numbers_in_text(col) is not None:
            floats[name] = "text"  # numbers stored as text: read as numbers block by block
        else:
            integer = pd.api.types.is_integer_dtype(col.dtype) and not pd.api.types.is_bool_dtype(
                col.dtype
            )
            columns[name] = _Column(name, int(max_levels), integer, free=name not in discrete)
    return names, floats, columns


def _encode(chunks, dropna, max_levels, chosen, target, blocks, constant) -> tuple[tuple, dict]:
    if isinstance(max_levels, bool) or not isinstance(max_levels, (int, np.integer)):
        raise TypeError(f"max_levels must be an integer, got {max_levels!r}")
    if max_levels < 2:
        raise ValueError(f"max_levels must be >= 2, got {max_levels}")
    block_dtype = code_dtype(int(max_levels))
    names, continuous, columns, floats, offset = _read(
        chunks, dropna, max_levels, chosen, blocks, block_dtype
    )
    return _finish(
        names,
        continuous,
        columns,
        floats,
        offset,
        blocks,
        block_dtype,
        max_levels,
        target,
        constant,
    )


def _read(chunks, dropna, max_levels, chosen, blocks, block_dtype):
    """Encode the blocks as they come: (names, continuous columns, the discrete columns'
    encoders, the continuous columns' values a block at a time, rows read)."""
    names: tuple[str, ...] | None = None
    continuous: dict[str, bool] = {}
    columns: dict[str, _Column] = {}
    floats: list[np.ndarray] = []
    offset = 0  # rows read so far (before dropping)
    for frame in chunks:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"each block must be a pandas DataFrame, got {type(frame).__name__}")
        if names is None:
            names, continuous, columns = _first_block(frame, chosen, max_levels)
        elif tuple(frame.columns) != names:
            raise ValueError(
                f"a block at row {offset} has columns {list(frame.columns)[:5]}..., "
                f"not the first block's {list(names)[:5]}..."
            )
        frame = _numbers_read(frame, continuous, offset)
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
    return names, continuous, columns, floats, offset


def _numbers_read(frame: pd.DataFrame, continuous: dict, offset: int) -> pd.DataFrame:
    """A block with the columns the first block held as numbers stored as text read as
    numbers (:func:`~bnfs.tables._kinds.numbers_in_text`; a missing marker is a gap)."""
    found = {}
    for name, kind in continuous.items():
        col = frame[name]
        if kind != "text" or pd.api.types.is_numeric_dtype(col.dtype) or col.isna().all():
            continue
        numbers = numbers_in_text(col)
        if numbers is None:
            raise ValueError(
                f"column {name!r} holds numbers in the first block but other text at rows "
                f"from {offset}; pass discrete=[{name!r}] or fix the file"
            )
        found[name] = numbers
    return frame.assign(**found) if found else frame


def _finish(
    names, continuous, columns, floats, offset, blocks, block_dtype, max_levels, target, constant
):
    """The fields of ``Dataset._set`` once every block is read: levels sorted, integer
    columns with many values and identifiers settled, codes renumbered (into ``target``'s
    file with memmap)."""
    if names is None:
        raise ValueError("data has no rows")
    n_rows = blocks.n_rows
    if n_rows == 0:
        raise ValueError("no rows left after dropna" if offset else "data has no rows")
    for column in columns.values():
        column.settle(n_rows, int(max_levels))
    promoted = {n: c for n, c in columns.items() if c.promoted_at is not None}
    identifiers = {n: c.identifier for n, c in columns.items() if c.identifier is not None}
    isolated = {}  # constant columns set aside (constant="isolate") and their values
    orders = {}
    for name, column in columns.items():
        if name in promoted or name in identifiers:
            continue
        try:
            orders[name] = column.final_order()
        except ConstantColumnError:
            if constant != "isolate":
                raise
            isolated[name] = next(iter(column.code), None)
    values = np.concatenate(floats) if floats else np.empty((n_rows, 0))
    kept_values, coded = [], {}  # coded: float columns of few values, codes by the rule
    for j, name in enumerate(n for n in names if n in continuous):
        if values[:, j].min() < values[:, j].max():
            found = float_codes(values[:, j], int(max_levels)) if continuous[name] else None
            if found is not None:
                coded[name] = found
            elif continuous[name] and whole_identifier(values[:, j]):
                identifiers[name] = (
                    f"whole numbers, {np.unique(values[:, j]).size} distinct on {n_rows} rows"
                )
            else:
                kept_values.append(j)
        elif constant == "isolate":
            isolated[name] = float(values[0, j])
        else:
            raise ConstantColumnError(
                f"column {name!r} is constant ({values[0, j]!r}): {CONSTANT_ADVICE}", name
            )
    values = values[:, kept_values]
    # provisional code columns of the kept discrete columns, in block order
    position = {n: j for j, n in enumerate(columns)}
    disc_names = [n for n in names if n in orders or n in coded]
    kept_codes = [position[n] for n in disc_names if n in orders]
    heads = {n: np.empty(n_rows) for n in promoted}

    states = {n: orders[n][0] if n in orders else coded[n][1] for n in disc_names}
    final_dtype = code_dtype(max((len(s) for s in states.values()), default=2))
    remaps = [orders[n][1].astype(final_dtype) for n in disc_names if n in orders]
    width = len(disc_names)
    # each kept column's place among the final columns: block-encoded ones, then codes
    block_place = [k for k, n in enumerate(disc_names) if n in orders]
    coded_place = {k: n for k, n in enumerate(disc_names) if n in coded}

    def decode_heads(start: int, part: np.ndarray) -> None:
        for name, column in promoted.items():
            stop = min(start + part.shape[0], column.promoted_at)
            if stop > start:
                heads[name][start:stop] = column.values_of(part[: stop - start, position[name]])

    if target is None:
        codes = np.empty((n_rows, width), dtype=final_dtype, order="F")
        for start, part in blocks.slices(len(columns), block_dtype):
            decode_heads(start, part)
            for k, j, remap in zip(block_place, kept_codes, remaps):
                codes[start : start + part.shape[0], k] = remap[part[:, j]]
        for k, name in coded_place.items():
            codes[:, k] = coded[name][0]
    else:  # column-major file written with plain writes, then mapped without touching it
        size = np.dtype(final_dtype).itemsize
        with replacing(target, regular_only=True) as temporary, open(temporary, "wb") as out:
            out.truncate(n_rows * max(width, 1) * size)
            for start, part in blocks.slices(len(columns), block_dtype):
                decode_heads(start, part)
                for k, j, remap in zip(block_place, kept_codes, remaps):
                    out.seek((k * n_rows + start) * size)
                    out.write(remap[part[:, j]].tobytes())
            for k, name in coded_place.items():
                out.seek(k * n_rows * size)
                out.write(coded[name][0].astype(final_dtype).tobytes())
        codes = np.memmap(
            target, dtype=final_dtype, mode="r+", shape=(n_rows, max(width, 1)), order="F"
        )[:, :width]

    whole = {}
    for name, column in promoted.items():
        full = heads[name]
        if column.tail:
            full[column.promoted_at :] = np.concatenate(column.tail)
        levels = np.unique(full).size
        if integer_identifier(full, levels):
            identifiers[name] = f"integers, {levels} distinct on {n_rows} rows"
        else:
            whole[name] = full
    warn_identifiers(identifiers, len(names))
    plain = iter(values[:, j] for j in range(values.shape[1]))
    cont_names = [
        n
        for n in names
        if (n in continuous and n not in isolated and n not in coded and n not in identifiers)
        or n in whole
    ]
    kinds = {}
    for name in names:
        if name in identifiers:
            kinds[name] = "identifier"
        elif name in isolated:
            kinds[name] = "constant"
        else:
            kinds[name] = "discrete" if name in orders or name in coded else "continuous"
    return names, dict(
        isolated=isolated,
        columns=tuple(n for n in names if n not in identifiers),
        n_rows=n_rows,
        disc_names=disc_names,
        disc_codes=(),
        states=states,
        cont_names=cont_names,
        floats=[whole[n] if n in whole else next(plain) for n in cont_names],
        codes=codes,
        kinds=kinds,
        whole_numbers=tuple(whole),
        float_codes=tuple(coded),
    )
