"""Reading and writing: data files (CSV, TSV, Parquet and ARFF) into DataFrames
(:func:`read_table`, in blocks with :func:`iter_blocks`) and straight into a
:class:`~bnfs.Dataset` (:func:`read_dataset`, block by block for files larger than memory);
networks to and from JSON, networkx and pgmpy (:mod:`bnfs.models.export`) and BIF files
(:mod:`bnfs.models.bif`), and network files by their suffix (:func:`write_network`,
:func:`read_network`: what ``bnfs learn --out`` writes and ``bnfs draw/score/compare``
read). The data readers live in :mod:`bnfs.tables._readers`, below :class:`~bnfs.Dataset`,
which reads files through them."""

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
from bnfs.tables._files import refuse_overwriting, replacing, write_atomically
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
    "NETWORK_FILES",
    "write_network",
    "read_network",
]

#: network files by suffix: what each holds, and whether :func:`read_network` reads it
NETWORK_FILES = {
    ".json": "the graph and its learning record (read and written)",
    ".dot": "Graphviz DOT, for drawing (written only)",
    ".bif": "a discrete network with tables fitted to the data (read and written)",
    ".graphml": "GraphML, the learning record as graph attributes (read and written)",
}


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


def write_network(graph, path, data=None) -> Path:
    """Write ``graph`` (a DAG or PDAG) to ``path`` by its suffix (:data:`NETWORK_FILES`);
    return the path. BIF holds a discrete network: its tables are fitted to ``data`` (a
    pseudo-count of 1 in each cell), which it therefore needs. A graph from a search that
    stopped before it finished says so in every format: JSON in ``learning``
    (``stopped_early``), DOT and BIF in a first comment line, GraphML in a ``partial``
    attribute. The file is written beside its path and renamed into place.

    Raises
    ------
    ValueError
        An unknown suffix; ``.bif`` without ``data``, or a graph whose tables BIF cannot
        hold (a PDAG with no DAG, a table past what bnfs keeps in memory).

    Examples
    --------
    >>> import os, tempfile
    >>> from bnfs import datasets
    >>> path = os.path.join(tempfile.mkdtemp(), "asia.graphml")
    >>> written = write_network(datasets.network("asia"), path)
    >>> read_network(written) == datasets.network("asia")
    True
    """
    from bnfs._budget import stopped_reason

    out = Path(path)
    suffix = _network_suffix(out)
    reason = stopped_reason(getattr(graph, "learning", None))
    note = "" if reason is None else f"// partial network: the search stopped early ({reason})\n"
    if suffix == ".json":
        to_json(graph, out)
    elif suffix == ".dot":
        write_atomically(out, note + graph.to_dot())
    elif suffix == ".bif":
        if data is None:
            raise ValueError(
                f"writing {out.name}: a .bif file holds tables fitted to data; pass data"
            )
        from bnfs.models.network import DiscreteNetwork

        network = DiscreteNetwork.fit(graph.to_dag(), data, pseudo_count=1.0, name=out.stem)
        write_atomically(out, note + write_bif(network))
    else:
        import json

        import networkx as nx

        nxgraph = to_networkx(graph)
        nxgraph.graph = {
            k: v if isinstance(v, (str, int, float, bool)) else json.dumps(v, default=str)
            for k, v in nxgraph.graph.items()
        }  # GraphML holds scalars only
        if reason is not None:
            nxgraph.graph["partial"] = reason
        with replacing(out) as temporary:
            nx.write_graphml(nxgraph, temporary)
    return out


def read_network(path):
    """The graph in a network file, by its suffix: JSON (with its learning record), BIF
    (the DAG of the discrete network) or GraphML (a pair joined both ways is an undirected
    edge). DOT files are for drawing and are not read."""
    source = Path(path)
    suffix = source.suffix.lower()
    if suffix == ".dot":
        raise ValueError(f"{source.name}: DOT files are written for drawing, not read; use .json")
    if suffix not in NETWORK_FILES:
        raise ValueError(
            f"a network file to read must end in .json, .bif or .graphml, got {source.name!r}"
        )
    if not source.exists():
        raise FileNotFoundError(f"no such file: {str(source)!r}")
    if suffix == ".bif":
        return read_bif(source).dag
    if suffix == ".json":
        return from_json(source.read_text())
    import json

    import networkx as nx

    graph = nx.read_graphml(source)
    record = graph.graph.get("learning")
    if isinstance(record, str):  # written as JSON text (GraphML holds scalars only)
        try:
            graph.graph["learning"] = json.loads(record)
        except ValueError:
            graph.graph.pop("learning")
    return from_networkx(graph)


def _network_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in NETWORK_FILES:
        raise ValueError(
            f"a network file must end in one of {', '.join(NETWORK_FILES)}, got {path.name!r}"
        )
    return suffix
