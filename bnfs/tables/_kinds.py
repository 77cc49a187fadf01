"""Which kind each column of a table is: the typing rule at bnfs's door.

pandas reads a file's whole-number columns as integers whether they hold a code (a Likert
answer, a genotype 0/1/2, a flag) or a measurement (an area in pixels, a daily rate, a
number of calls). Every reader of bnfs (:class:`~bnfs.Dataset` of a frame, an array, a file
or its blocks; so every learner, selector, ``fit`` and the command line) types columns by
one rule:

- bool, string, object and categorical columns are discrete;
- an integer column is discrete when it has few distinct values: two, or at most
  :data:`INTEGER_LEVELS` with at least :data:`ROWS_PER_LEVEL` rows per value on average
  (the classic floor of five expected counts a cell); with more values it is a
  measurement, and continuous. This differs from bnlearn, which scores every integer
  column as a number (Gaussian; ``tests/test_bnlearn_parity.py`` checks it against
  bnlearn-port): there a code 0/1/2 is a regression on numbers. pyAgrum reads every integer
  as a label; Tetrad's mixed-data reader, like this rule, calls a column discrete when it has
  at most a given number of values;
- a float column is continuous unless it holds that few distinct values, each a whole
  number or on a grid of hundredths: then it is a code by the integer rule (pandas stores a column of 0/1 flags or 1-4 stages as float64 as soon
  as one value is missing; a measurement has many values). Its states are whole numbers
  when its values are (``1.0`` reads as state ``1``);
- a string or integer column with a distinct value on (nearly) every row — at least
  :data:`IDENTIFIER_SHARE` of at least :data:`IDENTIFIER_MIN_ROWS` rows — is an identifier
  (a name, a customer number) and is set aside with a warning that names it. An integer
  column counts only when its values also form a run (their range at most twice the rows)
  or rise or fall with the rows: other integers distinct on every row are measurements. A
  float column of whole numbers is judged so too (a row number with gaps is stored as floats).
  Text past ``max_levels`` levels (car names, job titles) is set aside the same way rather
  than refusing the table (name it in ``discrete=`` and raise ``max_levels`` to keep it);
- dates, times and durations are refused with a message saying what to derive from them,
  text that reads as dates (``2021-03-04``) too, however few its days;
- a text column whose values are all numbers or missing markers (:data:`NUMBER_GAPS`: a
  lab table's ``"."``), one marker at least, is a column of numbers with gaps, typed as
  numbers are (numerals with no marker stay text: ``df.astype(str)`` asks for labels).

``discrete=[...]`` and ``continuous=[...]`` override the rule column by column. The
decision is kept as :attr:`Dataset.kinds <bnfs.Dataset>` and in a learned graph's
``learning["columns"]``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd

from bnfs._validate import check_names
from bnfs._warn import user_stacklevel

__all__ = [
    "INTEGER_LEVELS",
    "ROWS_PER_LEVEL",
    "IDENTIFIER_SHARE",
    "IDENTIFIER_MIN_ROWS",
    "KINDS",
    "integer_is_discrete",
    "float_codes",
    "is_identifier",
    "integer_identifier",
    "whole_identifier",
    "text_identifier",
    "column_kind",
    "refuse_dates",
    "numbers_in_text",
    "with_numbers_read",
    "NUMBER_GAPS",
    "date_hint",
    "overrides",
    "warn_identifiers",
    "describe",
]

#: an integer column with at most this many distinct values may be discrete
INTEGER_LEVELS = 10
#: ... when it has at least this many rows per value on average
ROWS_PER_LEVEL = 5
#: a column distinct on at least this share of the rows is an identifier ...
IDENTIFIER_SHARE = 0.95
#: ... in a table of at least this many rows
IDENTIFIER_MIN_ROWS = 20
#: what ``Dataset.kinds`` says of a column
KINDS = ("discrete", "continuous", "constant", "identifier")


def integer_is_discrete(levels: int, n_rows: int, max_levels: int) -> bool:
    """Whether an integer column with ``levels`` distinct values on ``n_rows`` rows is
    discrete by the rule (at most ``max_levels`` too: a number is never refused for its
    values, it becomes continuous)."""
    if levels > max_levels:
        return False
    return levels <= 2 or (levels <= INTEGER_LEVELS and n_rows >= ROWS_PER_LEVEL * levels)


def float_codes(values: np.ndarray, max_levels: int):
    """``(codes, states)`` of a float column ``values`` (finite, complete) that holds few
    distinct values, each on a grid of hundredths (0/1, 1-4, 0/0.5/1, 2.25), a code by the
    integer rule (:func:`integer_is_discrete`), else None (a measurement: a column zero but
    for a few readings of 3.27159... is one). The states are ints when every value is
    whole."""
    n = values.size
    if n == 0 or np.unique(values[:4096]).size > min(INTEGER_LEVELS, max_levels):
        return None  # the first rows already hold too many values: a measurement
    levels, codes = np.unique(values, return_inverse=True)
    if levels.size < 2 or not integer_is_discrete(levels.size, n, max_levels):
        return None
    hundredths = levels * 100
    if (np.abs(hundredths - np.round(hundredths)) > 1e-6 * np.maximum(1, np.abs(hundredths))).any():
        return None  # values off a grid of hundredths (3.27159...): a measurement, seldom varied
    whole = bool((levels == np.round(levels)).all() and np.abs(levels).max() < 2.0**53)
    states = tuple(int(v) for v in levels) if whole else tuple(float(v) for v in levels)
    return codes.astype(np.int64, copy=False), states


def is_identifier(levels: int, n_rows: int) -> bool:
    """Whether a column with ``levels`` distinct values on ``n_rows`` rows is distinct on
    (nearly) every row."""
    return n_rows >= IDENTIFIER_MIN_ROWS and levels >= IDENTIFIER_SHARE * n_rows


def column_kind(col: pd.Series) -> str:
    """``"discrete"`` or ``"continuous"``: the rule for one column of a frame that may have
    gaps, judged on its observed values (identifiers and dates are left to
    :class:`~bnfs.Dataset`, which names them)."""
    if pd.api.types.is_bool_dtype(col.dtype) or not pd.api.types.is_numeric_dtype(col.dtype):
        return "discrete"
    if isinstance(col.dtype, pd.CategoricalDtype):
        return "discrete"
    observed = col.dropna()
    if pd.api.types.is_float_dtype(col.dtype):
        values = observed.to_numpy(dtype=np.float64)
        values = values[np.isfinite(values)]
        return "discrete" if float_codes(values, INTEGER_LEVELS) is not None else "continuous"
    levels = observed.nunique()
    return "discrete" if integer_is_discrete(levels, observed.size, levels) else "continuous"


def text_identifier(levels: int, n_rows: int, max_levels: int) -> bool:
    """Whether a text column with ``levels`` distinct values on ``n_rows`` rows is set aside
    as an identifier: distinct on (nearly) every row, or past ``max_levels`` levels (names
    that repeat now and then, 4,741 job titles: a category no count can learn from; set
    aside with a warning that says how to keep it, rather than refusing the table)."""
    if levels > max_levels:
        return True
    return n_rows >= IDENTIFIER_MIN_ROWS and is_identifier(levels, n_rows)


def integer_identifier(values: np.ndarray, levels: int) -> bool:
    """Whether whole numbers ``values`` (``levels`` distinct) are an identifier: distinct
    on nearly every row and either a run of numbers or ordered with the rows."""
    n = values.size
    if not is_identifier(levels, n):
        return False
    low, high = values.min(), values.max()
    if high - low + 1 <= 2 * n:
        return True
    steps = np.diff(values)
    return bool((steps >= 0).all() or (steps <= 0).all())


def whole_identifier(values: np.ndarray) -> bool:
    """Whether float ``values`` (finite) are whole numbers that form an identifier by
    :func:`integer_identifier` (a row number that pandas stores as floats because it has
    gaps)."""
    if values.size < IDENTIFIER_MIN_ROWS or not (values == np.round(values)).all():
        return False
    return integer_identifier(values, np.unique(values).size)


def refuse_dates(name: str, col: pd.Series, text: bool = True) -> None:
    """TypeError for a column of dates, times or durations, saying what to do; with
    ``text``, for text that reads as dates too (not for a column named discrete)."""
    dtype = col.dtype
    timed = (
        pd.api.types.is_datetime64_any_dtype(dtype)
        or pd.api.types.is_timedelta64_dtype(dtype)
        or isinstance(dtype, pd.PeriodDtype)
    )
    if not timed and isinstance(dtype, pd.ArrowDtype):  # pyarrow's own dates and durations
        import pyarrow as pa

        kind = dtype.pyarrow_dtype
        timed = any(
            test(kind)
            for test in (pa.types.is_temporal, pa.types.is_duration, pa.types.is_interval)
        )
    if not timed and dtype.kind == "O":
        timed = pd.api.types.infer_dtype(col.head(1000), skipna=True) in (
            "datetime",
            "datetime64",
            "date",
            "time",
            "timedelta",
            "timedelta64",
            "period",
        )
    shown = ""
    if text and not timed and (dtype.kind == "O" or pd.api.types.is_string_dtype(dtype)):
        if not isinstance(dtype, pd.CategoricalDtype):
            sample = col.head(5000).dropna().drop_duplicates().head(200)
            timed = bool(date_hint(sample.tolist()))  # text that reads as dates
            if timed:
                shown = f"text such as {sample.iloc[0]!r}"
                dates = f"pandas.to_datetime(frame[{name!r}])"
    if timed:
        raise TypeError(
            f"column {name!r} holds dates or times ({shown or dtype}); bnfs learns from "
            "numbers and categories: drop it, or derive what matters from it, e.g. "
            f"{dates if shown else f'frame[{name!r}]'}.dt.year or .dt.dayofweek (a "
            "category), or the days since a start (a number)"
        )


_DATE = re.compile(r"^\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}([ T]\d{1,2}:\d{2}(:\d{2})?.*)?\s*$")


def date_hint(states) -> str:
    """``"; it looks like dates (e.g. '2021-03-04') ..."`` when most text ``states``
    read as dates, else an empty string: for the messages that set such a column aside
    or refuse it."""
    sample = [s for s in list(states)[:200] if isinstance(s, str)]
    if not sample or sum(bool(_DATE.match(s)) for s in sample) < 0.9 * len(sample):
        return ""
    return (
        f"; it looks like dates (e.g. {sample[0]!r}): to use them, read it with "
        "pandas.to_datetime and derive a year, a weekday or the days since a start"
    )


#: what marks a missing number in a column of numbers stored as text (a lab table's ".",
#: a survey's "?"): read as a gap there, and only there (in text it is a state)
NUMBER_GAPS = frozenset({"", ".", "?", "-", "NA", "N/A", "n/a", "NaN", "nan", "NULL", "null",
                         "None", "#N/A"})  # fmt: skip


def numbers_in_text(col: pd.Series) -> pd.Series | None:
    """A text column whose every value is a number or a common missing marker
    (:data:`NUMBER_GAPS`), with at least one marker, as float64, the markers as gaps; None
    for any other column (text with one word in it, numerals with no marker, which is how
    ``df.astype(str)`` asks for categories, a column already of numbers, booleans,
    categories). Decided on the content, so ``"3.5"`` and ``"."`` are a measurement with a
    gap, not two labels."""
    if col.dtype.kind not in "OSU" and not pd.api.types.is_string_dtype(col.dtype):
        return None
    if isinstance(col.dtype, pd.CategoricalDtype):
        return None
    observed = col.dropna()
    # decided on the distinct values (a column of codes holds a handful), rows read once
    try:
        first = pd.Series(pd.unique(observed.head(1000).to_numpy(dtype=object)), dtype=object)
    except TypeError:  # unhashable cells (lists): not text; the typing names the column
        return None
    if observed.empty or not all(isinstance(v, str) for v in first):
        return None
    head = first.str.strip()
    if pd.to_numeric(head[~head.isin(NUMBER_GAPS)], errors="coerce").isna().any():
        return None  # words among the first rows: text (the common case, decided cheaply)
    try:
        values = pd.Series(pd.unique(observed.to_numpy(dtype=object)), dtype=object)
    except TypeError:  # an unhashable cell past the first rows: not numbers
        return None
    distinct = values.astype(str).str.strip()
    marked = distinct.isin(NUMBER_GAPS)
    if marked.all() or not marked.any():
        return None  # no marker: numerals as text are a caller's choice (df.astype(str))
    if pd.to_numeric(distinct[~marked], errors="coerce").isna().any():
        return None
    text = observed.astype(str).str.strip()
    gaps = text.isin(NUMBER_GAPS)
    parsed = pd.to_numeric(text[~gaps], errors="coerce")
    out = pd.Series(np.nan, index=col.index, dtype=np.float64, name=col.name)
    out[parsed.index] = parsed.to_numpy(dtype=np.float64)
    return out


def with_numbers_read(frame: pd.DataFrame, keep=()) -> pd.DataFrame:
    """``frame`` with its columns of numbers stored as text (:func:`numbers_in_text`) as
    numbers, but those named in ``keep`` (asked to be discrete); a copy, or the caller's
    frame itself when there are none."""
    found = {}
    keep = set(() if keep is None else keep)
    for j in range(frame.shape[1]):
        if str(frame.columns[j]) in keep:
            continue
        numbers = numbers_in_text(frame.iloc[:, j])
        if numbers is not None:
            found[j] = numbers
    if not found:
        return frame
    out = frame.copy()
    for j, numbers in found.items():
        out.isetitem(j, numbers)
    return out


def overrides(discrete, continuous, names) -> tuple[set, set]:
    """The ``discrete=`` and ``continuous=`` column sets, checked against ``names``."""
    sets = []
    for what, given in (("discrete", discrete), ("continuous", continuous)):
        if isinstance(given, str):
            raise TypeError(f"{what} must be a list of column names, got the string {given!r}")
        if given is not None and not isinstance(given, Iterable):
            raise TypeError(
                f"{what} must be a list of column names, got {given!r} ({type(given).__name__})"
            )
        # any sequence of names: a list, a pandas Index (df.columns[:2]), a numpy array
        chosen = set(check_names(() if given is None else list(given), "column"))
        unknown = chosen - set(names)
        if unknown:
            raise ValueError(f"{what} names unknown columns: {sorted(unknown)}")
        sets.append(chosen)
    both = sets[0] & sets[1]
    if both:
        raise ValueError(f"columns {sorted(both)} are named both discrete and continuous")
    return sets[0], sets[1]


def numeric_or_refuse(name: str, col: pd.Series) -> np.ndarray:
    """A column asked to be continuous as float64, refused by name when it is not
    numbers."""
    kind = col.dtype.kind if isinstance(col.dtype, np.dtype) else ""
    if kind in "biuf" and kind:
        return col.to_numpy(dtype=np.float64)
    if pd.api.types.is_numeric_dtype(col.dtype) and not isinstance(col.dtype, pd.CategoricalDtype):
        return col.to_numpy(dtype=np.float64, na_value=np.nan)
    raise TypeError(
        f"column {name!r} is named continuous but holds {col.dtype} values, not numbers; "
        "convert it first (e.g. pandas.to_numeric) or leave it discrete"
    )


def warn_identifiers(identifiers: dict, n_columns: int) -> None:
    """One warning naming the columns set aside as identifiers (name -> why); a
    ValueError when they are all ``n_columns`` of the data."""
    if not identifiers:
        return
    names = list(identifiers)
    if len(names) == n_columns:
        raise ValueError(
            f"every column is set aside: a distinct value on (nearly) every row, or text "
            f"past max_levels ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''}): "
            "identifiers, nothing to learn from; name the ones that are measurements or "
            "categories in continuous=[...] or discrete=[...]"
        )
    shown = "; ".join(f"{n!r} ({identifiers[n]})" for n in names[:5])
    more = f"; and {len(names) - 5} more" if len(names) > 5 else ""
    warnings.warn(
        f"{len(names)} column(s) with a distinct value on (nearly) every row, or text with "
        f"more levels than max_levels, set aside as identifiers: {shown}{more}. Pass "
        "discrete=[...] (with a larger max_levels for many levels) or continuous=[...] "
        "naming them (--discrete/--continuous on the command line) to keep them",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def describe(kinds: dict, whole_numbers=(), codes=()) -> str:
    """One line on how the columns were typed, for ``bnfs learn``'s summary: how many of
    each kind, naming the float columns read as codes, the integer columns read as
    continuous and the columns set aside."""
    counts = {k: [n for n, v in kinds.items() if v == k] for k in KINDS}
    parts = [f"{len(counts['discrete'])} discrete", f"{len(counts['continuous'])} continuous"]
    coded = [n for n in codes if kinds.get(n) == "discrete"]
    if coded:
        shown = ", ".join(coded[:6]) + (", ..." if len(coded) > 6 else "")
        parts[0] += f" ({len(coded)} of them float columns holding few values: {shown})"
    whole = [n for n in whole_numbers if kinds.get(n) == "continuous"]
    if whole:
        shown = ", ".join(whole[:6]) + (", ..." if len(whole) > 6 else "")
        parts[-1] += f" ({len(whole)} of them integer columns with many values: {shown})"
    for kind in ("constant", "identifier"):
        if counts[kind]:
            shown = ", ".join(counts[kind][:6]) + (", ..." if len(counts[kind]) > 6 else "")
            parts.append(f"{len(counts[kind])} {kind} set aside ({shown})")
    return "columns: " + "; ".join(parts)
