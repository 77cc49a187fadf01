"""Reading and writing: data files (CSV, TSV, Parquet and ARFF) into DataFrames
(:func:`read_table`, in blocks with :func:`iter_blocks`) and straight into a
:class:`~bnfs.Dataset` (:func:`read_dataset`, block by block for files larger than memory);
networks to and from JSON, networkx and pgmpy (:mod:`bnfs.models.export`) and BIF files
(:mod:`bnfs.models.bif`). The data readers live in :mod:`bnfs.tables._readers`, below
:class:`~bnfs.Dataset`, which reads files through them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bnfs.models.bif import read_bif, write_bif
from bnfs.models.export import (
    from_json,
    from_networkx,
    from_pgmpy,
    to_json,
    to_networkx,
    to_pgmpy,
)
from bnfs.tables._data import Dataset
from bnfs.tables._files import refuse_overwriting
from bnfs.tables._readers import FORMATS, MISSING_VALUES, iter_blocks, parse_arff, read_table

__all__ = [
    "read_table",
    "read_dataset",
    "iter_blocks",
    "parse_arff",
    "FORMATS",
    "MISSING_VALUES",
    "to_json",
    "from_json",
    "to_networkx",
    "from_networkx",
    "to_pgmpy",
    "from_pgmpy",
    "read_bif",
    "write_bif",
]


def read_dataset(
    path,
    *,
    chunksize: int = 1_000_000,
    format: str | None = None,
    dropna: bool = False,
    max_levels: int = 256,
    discrete: Sequence[str] | None = None,
    continuous: Sequence[str] | None = None,
    memmap=None,
    **read_csv_kwargs,
):
    """A :class:`~bnfs.Dataset` from a file too large for a DataFrame: the file is read in
    blocks of ``chunksize`` rows (:func:`iter_blocks`), each encoded and dropped, so memory
    holds the integer codes (one byte per cell up to 256 levels), about twice over at the
    end, plus one block. The result equals ``Dataset(read_table(path))`` when the first
    block shows each column's type. With ``memmap`` (a file path) the codes are written to
    that file and memory-mapped, so memory holds about one block: for data larger than
    memory, the counting kernels then read the codes through the operating system's page
    cache. The memmap file is written beside its path and renamed into place, and may not
    be the data file itself.

    Examples
    --------
    >>> import os, tempfile
    >>> from bnfs import datasets
    >>> path = os.path.join(tempfile.mkdtemp(), "asia.csv")
    >>> datasets.sample("asia", 2500, seed=0).to_csv(path, index=False)
    >>> data = read_dataset(path, chunksize=1000)
    >>> data.shape, data.codes.dtype.name
    ((2500, 8), 'uint8')
    """
    if memmap is not None:
        target = Path(memmap)
        refuse_overwriting(target, "memmap", [("data file", path)])
        refuse_overwriting(
            target.with_name(target.name + ".partial"),
            "memmap's scratch file",
            [("data file", path)],
        )
    blocks = iter_blocks(path, chunksize=chunksize, format=format, **read_csv_kwargs)
    return Dataset.from_chunks(
        blocks,
        dropna=dropna,
        max_levels=max_levels,
        discrete=discrete,
        continuous=continuous,
        memmap=memmap,
    )
