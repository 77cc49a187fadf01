"""Reading data tables from files: CSV, TSV, Parquet and ARFF (Weka)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from bnfs.tables._files import read_once

__all__ = [
    "read_table",
    "iter_blocks",
    "parse_arff",
    "format_of",
    "FORMATS",
    "MISSING_VALUES",
    "PANDAS_ONLY_MISSING",
]

FORMATS = ("csv", "tsv", "parquet", "arff")

#: The cells a CSV or TSV file marks as missing, for every reader of bnfs (the API, the
#: command line, files read in blocks): empty, or exactly one of these. Not "None", "n/a" or
#: "-", which are real states in some data (child, insurance); ARFF marks missing as "?",
#: Parquet by its own nulls.
MISSING_VALUES = ("", "NA", "N/A", "NaN", "nan", "NULL", "null", "#N/A")
#: The texts :func:`pandas.read_csv` reads as missing by default and bnfs keeps as states: a
#: frame read by pandas and the same file read by bnfs differ in these cells, which the
#: command line names when it meets them (``--na-values`` reads them as missing)
PANDAS_ONLY_MISSING = (
    "None", "n/a", "<NA>", "#NA", "#N/A N/A", "-NaN", "-nan", "1.#IND", "-1.#IND", "1.#QNAN",
    "-1.#QNAN",
)  # fmt: skip


def format_of(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zip"):
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    for name, endings in (
        ("csv", (".csv",)),
        ("tsv", (".tsv", ".tab", ".txt")),
        ("parquet", (".parquet", ".pq")),
        ("arff", (".arff",)),
    ):
        if last in endings:
            return name
    raise ValueError(
        f"cannot tell the format of {str(path)!r} from its name; use one of "
        ".csv, .tsv, .parquet or .arff (optionally .gz)"
    )


def read_table(path, *, format: str | None = None, **read_csv_kwargs) -> pd.DataFrame:
    """A data file as a DataFrame, the format taken from the file name (``.csv``, ``.tsv``
    or ``.tab``, ``.parquet``, ``.arff``; CSV and TSV may be compressed, e.g. ``.csv.gz``).

    A CSV/TSV cell is missing (NaN) when empty or one of :data:`MISSING_VALUES`, in ARFF
    when "?"; every reader of bnfs (``Dataset(path)``, :func:`read_dataset`, the command
    line) uses these. This differs from :func:`pandas.read_csv`, which also reads the
    texts of :data:`PANDAS_ONLY_MISSING` (``None``, ``n/a``, ...) as missing: bnfs keeps
    them as states, because real data use them so (the child and insurance networks have a
    state ``None``), and a state read as a gap would change the counts silently. Pass
    ``na_values=[...]`` (``--na-values`` on the command line, which names such cells when it
    reads them) to read them as missing. A repeated column name is refused. ``read_csv_kwargs`` go to
    :func:`pandas.read_csv` (e.g. ``na_values=[...]`` for other markers). Parquet needs
    pyarrow.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.arff")
    >>> _ = open(path, "w").write("@relation t\\n@attribute a {x,y}\\n@attribute b numeric\\n"
    ...                           "@data\\nx,1.5\\ny,?\\n")
    >>> read_table(path)
       a    b
    0  x  1.5
    1  y  NaN
    """
    path = _checked_path(path)
    kind = format or format_of(path)
    if kind not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {kind!r}")
    with read_once(path) as readable:
        return _read_table(readable, path, kind, read_csv_kwargs)


def _read_table(readable: Path, path: Path, kind: str, read_csv_kwargs: dict) -> pd.DataFrame:
    """:func:`read_table` of a regular file ``readable`` (``path``'s content, named in
    errors)."""
    if kind == "parquet":
        try:
            return pd.read_parquet(readable)
        except ImportError:
            raise ImportError("reading Parquet needs pyarrow: pip install pyarrow") from None
    if kind == "arff":
        opener = _open_text(readable)
        with opener as handle:
            return parse_arff(handle.read())
    options = _csv_options(kind, read_csv_kwargs)
    try:
        frame = pd.read_csv(readable, **options)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{str(path)!r} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot parse {str(path)!r} as {kind.upper()}: {err}") from None
    if not {"header", "names"} & set(read_csv_kwargs):
        _check_header(readable, options["sep"], path)
    return _spelled(frame, readable, options)


def _spelled(frame: pd.DataFrame, readable: Path, options: dict) -> pd.DataFrame:
    """``frame`` with the columns pandas read as booleans (TRUE/False/true...) read again
    as text, so that their values keep the file's spelling (a model's states, and a query
    with the file's own value, must match the file). A caller's ``dtype`` wins."""
    chosen = options.get("dtype")
    logical = [
        name
        for name, dtype in frame.dtypes.items()
        if pd.api.types.is_bool_dtype(dtype) and not (isinstance(chosen, dict) and name in chosen)
    ]
    if not logical or (chosen is not None and not isinstance(chosen, dict)):
        return frame
    text = pd.read_csv(readable, **{**options, "usecols": logical, "dtype": str})
    for name in logical:
        frame[name] = text[name]
    return frame


def _csv_options(kind: str, read_csv_kwargs: dict) -> dict:
    """pandas.read_csv options of every bnfs reader: the separator of the format and the
    missing-value markers :data:`MISSING_VALUES`, unless the caller says otherwise."""
    return {
        "sep": "," if kind == "csv" else "\t",
        "keep_default_na": False,
        "na_values": list(MISSING_VALUES),
        **read_csv_kwargs,
    }


def _check_header(readable: Path, sep: str, path: Path) -> None:
    """Refuse a repeated column name (pandas would silently rename the second 'a' 'a.1')."""
    header = (
        pd.read_csv(readable, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False)
        .iloc[0]
        .tolist()
    )
    seen = set()
    for name in header:
        if name in seen:
            raise ValueError(
                f"{str(path)!r} names column {name!r} twice; column names must be unique"
            )
        seen.add(name)


def _checked_path(path) -> Path:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise IsADirectoryError(f"{str(path)!r} is a directory, not a data file")
    return path


def iter_blocks(
    path, *, chunksize: int = 1_000_000, format: str | None = None, **read_csv_kwargs
) -> Iterator[pd.DataFrame]:
    """The rows of a data file as DataFrames of at most ``chunksize`` rows.

    CSV/TSV are read with :func:`pandas.read_csv` in chunks, every chunk with the column
    types pandas infers from the first (integers as nullable ``Int64``, so a later missing
    value stays missing); Parquet is read by record batches (pyarrow); ARFF is one block.
    A cell is missing when empty or one of :data:`MISSING_VALUES`.
    """
    from bnfs._validate import check_int

    path = _checked_path(path)
    chunksize = check_int(chunksize, "chunksize", 1)
    kind = format or format_of(path)
    if kind not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {kind!r}")
    with read_once(path) as readable:
        yield from _blocks(readable, path, kind, chunksize, read_csv_kwargs)


def _blocks(readable: Path, path: Path, kind: str, chunksize: int, read_csv_kwargs: dict):
    """:func:`iter_blocks` of a regular file ``readable`` (``path``'s content, named in
    errors)."""
    if kind == "arff":
        with _open_text(readable) as handle:
            yield parse_arff(handle.read())
        return
    if kind == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("reading Parquet needs pyarrow: pip install pyarrow") from None
        for batch in pq.ParquetFile(readable).iter_batches(batch_size=chunksize):
            yield batch.to_pandas()
        return
    options = _csv_options(kind, read_csv_kwargs)
    try:
        first = pd.read_csv(readable, nrows=chunksize, **options)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{str(path)!r} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot parse {str(path)!r} as {kind.upper()}: {err}") from None
    if not {"header", "names"} & set(read_csv_kwargs):
        _check_header(readable, options["sep"], path)
    dtypes = {}
    for name, dtype in first.dtypes.items():
        if pd.api.types.is_bool_dtype(dtype):
            dtypes[name] = str  # TRUE/False/... keep the file's spelling, as read_table's
        elif pd.api.types.is_integer_dtype(dtype):
            dtypes[name] = "Int64"
        elif pd.api.types.is_float_dtype(dtype):
            dtypes[name] = "float64"
        else:
            dtypes[name] = object
    options.setdefault("dtype", dtypes)
    rows = 0
    try:
        with pd.read_csv(readable, chunksize=chunksize, **options) as reader:
            for block in reader:
                rows += block.shape[0]
                yield block
    except (ValueError, TypeError, pd.errors.ParserError) as err:
        raise ValueError(
            f"cannot read {str(path)!r} after row {rows}: {err}; the first "
            f"{chunksize} rows set each column's type (int, float or text), "
            "pass dtype={column: ...} to choose it"
        ) from None


def _open_text(path: Path):
    if path.suffix.lower() == ".gz":
        import gzip

        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def parse_arff(text: str) -> pd.DataFrame:
    """The data section of an ARFF document as a DataFrame: numeric attributes as floats,
    nominal and string attributes as strings (nominal as categoricals with the declared
    levels), "?" as missing. Sparse ARFF ({index value, ...} rows) is read too.

    Examples
    --------
    >>> parse_arff("@relation r\\n@attribute 'a b' {u,v}\\n@data\\nu\\n?\\n")["a b"].tolist()
    ['u', nan]
    """
    names: list[str] = []
    kinds: list[object] = []
    if not isinstance(text, str):
        raise TypeError(f"parse_arff takes the text of an ARFF file, got {type(text).__name__}")
    lines = iter(text.splitlines())
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        lowered = line.lower()
        if lowered.startswith("@relation"):
            continue
        if lowered.startswith("@attribute"):
            name, kind = _attribute(line[len("@attribute") :].strip(), number)
            if name in names:
                raise ValueError(f"ARFF line {number}: attribute {name!r} is declared twice")
            names.append(name)
            kinds.append(kind)
            continue
        if lowered.startswith("@data"):
            break
        raise ValueError(
            f"ARFF line {number}: expected @relation, @attribute or @data, got {line[:40]!r}"
        )
    else:
        raise ValueError("ARFF text has no @data section")
    if not names:
        raise ValueError("ARFF text declares no attributes")
    # an omitted sparse value is 0: a nominal attribute's first declared level (Weka)
    omitted = [(kind[0] if isinstance(kind, list) else "0", True) for kind in kinds]
    rows = []
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if line.startswith("{"):
            row = list(omitted)
            for item in _split_row(line.strip("{}")):
                text = item[0].strip()
                if not text:
                    continue
                parts = text.split(None, 1)
                if len(parts) != 2 or not parts[0].isdigit() or int(parts[0]) >= len(names):
                    raise ValueError(
                        f"ARFF sparse row item {text!r} is not 'index value' "
                        f"with an index below {len(names)}"
                    )
                value = parts[1].strip()
                quoted = value[:1] in ("'", '"') and value[-1:] == value[:1] and len(value) > 1
                row[int(parts[0])] = (value[1:-1] if quoted else value, quoted or item[1])
        else:
            row = _split_row(line)
        if len(row) != len(names):
            raise ValueError(
                f"ARFF data row has {len(row)} values for {len(names)} attributes: {line[:60]!r}"
            )
        rows.append(row)
    columns = {}
    for j, (name, kind) in enumerate(zip(names, kinds)):
        # "?" is missing unless quoted: '?' is a value (a declared level, say)
        values = [None if (row[j][0] == "?" and not row[j][1]) else row[j][0] for row in rows]
        if kind == "numeric":
            try:
                columns[name] = np.array([np.nan if v is None else float(v) for v in values])
            except ValueError as err:
                raise ValueError(f"ARFF attribute {name!r} is numeric but holds {err}") from None
        elif isinstance(kind, list):
            unknown = sorted({v for v in values if v is not None} - set(kind))
            if unknown:
                raise ValueError(
                    f"ARFF attribute {name!r} holds {unknown[:3]}, not among its "
                    f"declared levels {kind[:5]}"
                )
            columns[name] = pd.Categorical(values, categories=kind)
        else:
            columns[name] = pd.Series(values, dtype=object)
    return pd.DataFrame(columns)


def _split_row(line: str) -> list[tuple[str, bool]]:
    """The comma-separated values of an ARFF data line as (text, quoted) pairs: quotes (' or
    ") and backslash escapes inside them removed, spaces around unquoted values stripped."""
    fields: list[tuple[str, bool]] = []
    text, quoted, quote, escaped = [], False, None, False
    for char in line:
        if quote is not None:
            if escaped:
                text.append(char)
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            else:
                text.append(char)
        elif char in ("'", '"') and not "".join(text).strip():
            quote, quoted, text = char, True, []
        elif char == ",":
            fields.append(("".join(text) if quoted else "".join(text).strip(), quoted))
            text, quoted = [], False
        else:
            text.append(char)
    if quote is not None:
        raise ValueError(f"ARFF data row has an unclosed quote: {line[:60]!r}")
    fields.append(("".join(text) if quoted else "".join(text).strip(), quoted))
    return fields


def _attribute(spec: str, number: int) -> tuple[str, object]:
    if spec.startswith(("'", '"')):
        quote = spec[0]
        end = spec.find(quote, 1)
        if end < 0:
            raise ValueError(f"ARFF line {number}: the attribute name's quote is not closed")
        name, rest = spec[1:end], spec[end + 1 :].strip()
    else:
        parts = spec.split(None, 1)
        if len(parts) != 2:
            raise ValueError(f"ARFF line {number}: an attribute needs a name and a type")
        name, rest = parts
    lowered = rest.lower()
    if rest.startswith("{"):
        inside = rest.strip()[1:-1]
        if not rest.strip().endswith("}") or not inside.strip():
            raise ValueError(
                f"ARFF line {number}: nominal attribute {name!r} needs levels in {{...}}"
            )
        levels = [
            v.strip().strip('"')
            for v in next(csv.reader(io.StringIO(inside), quotechar="'", skipinitialspace=True))
        ]
        if len(set(levels)) != len(levels):
            raise ValueError(f"ARFF line {number}: attribute {name!r} repeats a level")
        return name, levels
    if lowered in ("numeric", "real", "integer") or lowered.startswith(("numeric", "real")):
        return name, "numeric"
    if lowered.startswith(("string", "date")):
        return name, "string"
    raise ValueError(f"ARFF line {number}: unknown type {rest!r} of attribute {name!r}")
