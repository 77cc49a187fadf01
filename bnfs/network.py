"""A discrete Bayesian network (DAG + conditional probability tables): BIF I/O and sampling.

This is what :mod:`bnfs.datasets` reads the classic networks into; its :meth:`sample`
draws reproducible data with vectorized forward sampling (no per-row Python loop).
"""

from __future__ import annotations

import gzip
import math
import os
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from bnfs._validate import check_seed
from bnfs.graph import DAG

__all__ = ["DiscreteNetwork", "read_bif", "write_bif", "parse_bif"]


def pgmpy_model_class():
    """pgmpy's discrete network class (renamed from ``BayesianNetwork`` in pgmpy 1.0)."""
    try:
        from pgmpy.models import DiscreteBayesianNetwork
    except ImportError:  # pgmpy < 1.0
        from pgmpy.models import BayesianNetwork as DiscreteBayesianNetwork
    return DiscreteBayesianNetwork


class DiscreteNetwork:
    """A DAG over discrete variables with one conditional probability table per node.

    Parameters
    ----------
    dag : DAG
    states : mapping of str to sequence of str
        Level names of each node.
    cpts : mapping of str to numpy.ndarray
        ``cpts[v]`` has shape ``(arity of p1, ..., arity of pk, arity of v)`` with
        parents ``p1..pk`` as listed by ``dag.parents(v)``; each last-axis slice sums to 1.
    name : str, optional

    Raises
    ------
    ValueError
        Missing states or tables, wrong table shapes, rows that are not distributions.

    Examples
    --------
    >>> from bnfs import datasets
    >>> datasets.network_model("asia")
    DiscreteNetwork('asia', 8 nodes, 8 arcs)
    """

    def __init__(self, dag: DAG, states: Mapping, cpts: Mapping, name: str = "network"):
        if not isinstance(dag, DAG):
            raise TypeError(f"dag must be a bnfs.DAG, got {type(dag).__name__}")
        self.dag = dag
        self.name = name
        self.states = {v: tuple(str(s) for s in states[v]) for v in dag.nodes if v in states}
        missing = [v for v in dag.nodes if v not in self.states]
        if missing:
            raise ValueError(f"no states for nodes {missing[:10]}")
        self.cpts: dict[str, np.ndarray] = {}
        for v in dag.nodes:
            if v not in cpts:
                raise ValueError(f"no probability table for node {v!r}")
            table = np.asarray(cpts[v], dtype=np.float64)
            shape = tuple(len(self.states[p]) for p in dag.parents(v)) + (len(self.states[v]),)
            if table.shape != shape:
                raise ValueError(
                    f"table of {v!r} has shape {table.shape}, expected {shape} "
                    f"(parents {dag.parents(v)})"
                )
            if (table < 0).any() or not np.allclose(table.sum(axis=-1), 1.0, atol=1e-6):
                raise ValueError(f"table of {v!r} has rows that are not probability distributions")
            self.cpts[v] = table

    @classmethod
    def fit(
        cls, dag: DAG, data, pseudo_count: float = 0.0, name: str = "network"
    ) -> DiscreteNetwork:
        """Estimate the tables of ``dag`` from discrete data.

        Maximum likelihood when ``pseudo_count`` is 0; otherwise each cell gets
        ``pseudo_count`` added (a Dirichlet prior). Parent configurations never seen in
        the data get a uniform distribution.
        """
        from bnfs._data import as_dataset

        data = as_dataset(data)
        data.require_discrete("DiscreteNetwork.fit")
        missing = [v for v in dag.nodes if v not in data]
        if missing:
            raise ValueError(f"nodes {missing[:10]} are not columns of the data")
        if pseudo_count < 0:
            raise ValueError(f"pseudo_count must be >= 0, got {pseudo_count}")
        cpts = {}
        for v in dag.nodes:
            parents = dag.parents(v)
            shape = tuple(data.arity(p) for p in parents) + (data.arity(v),)
            check_table_size(v, shape)
            index = np.zeros(data.n_rows, dtype=np.int64)
            for u in (*parents, v):
                index = index * data.arity(u) + data.column(u)
            counts = np.bincount(index, minlength=int(np.prod(shape))).reshape(shape)
            counts = counts + float(pseudo_count)
            totals = counts.sum(axis=-1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                cpts[v] = np.where(
                    totals > 0, counts / np.where(totals > 0, totals, 1), 1.0 / shape[-1]
                )
        states = {v: tuple(str(s) for s in data.states[v]) for v in dag.nodes}
        return cls(dag, states, cpts, name=name)

    def __repr__(self) -> str:
        return f"DiscreteNetwork({self.name!r}, {self.dag.n_nodes} nodes, {self.dag.n_arcs} arcs)"

    @property
    def n_parameters(self) -> int:
        """Free parameters: sum over nodes of (arity - 1) x parent configurations."""
        return int(sum(t.size // t.shape[-1] * (t.shape[-1] - 1) for t in self.cpts.values()))

    def sample(self, n: int, seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
        """Draw ``n`` rows by forward sampling, reproducible for a given ``seed``.

        Returns a DataFrame of categorical columns (all declared levels as categories), in
        node order.

        Examples
        --------
        >>> from bnfs import datasets
        >>> frame = datasets.network_model("asia").sample(5, seed=1)
        >>> frame.shape, frame.equals(datasets.network_model("asia").sample(5, seed=1))
        ((5, 8), True)
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        rng = check_seed(seed)
        codes: dict[str, np.ndarray] = {}
        for v in self.dag.topological_order():
            table = self.cpts[v]
            parents = self.dag.parents(v)
            config = np.zeros(n, dtype=np.int64)
            for p in parents:
                config = config * len(self.states[p]) + codes[p]
            cumulative = np.cumsum(table.reshape(-1, table.shape[-1]), axis=1)
            cumulative[:, -1] = 1.0
            draws = rng.random(n)
            # one searchsorted per parent configuration present, all rows at once
            out = np.empty(n, dtype=np.int64)
            if parents:
                order = np.argsort(config, kind="stable")
                bounds = np.flatnonzero(np.diff(config[order])) + 1
                for block in np.split(order, bounds):
                    out[block] = np.searchsorted(
                        cumulative[config[block[0]]], draws[block], side="right"
                    )
            else:
                out[:] = np.searchsorted(cumulative[0], draws, side="right")
            codes[v] = np.minimum(out, table.shape[-1] - 1)
        return pd.DataFrame(
            {
                v: pd.Categorical.from_codes(codes[v], categories=list(self.states[v]))
                for v in self.dag.nodes
            }
        )

    def to_pgmpy(self):
        """A pgmpy ``DiscreteBayesianNetwork`` with these tables."""
        from pgmpy.factors.discrete import TabularCPD

        model = pgmpy_model_class()(self.dag.arcs)
        model.add_nodes_from(self.dag.nodes)
        for v in self.dag.nodes:
            parents = self.dag.parents(v)
            table = self.cpts[v]
            values = table.reshape(-1, table.shape[-1]).T
            model.add_cpds(
                TabularCPD(
                    v,
                    table.shape[-1],
                    values,
                    evidence=parents or None,
                    evidence_card=[len(self.states[p]) for p in parents] or None,
                    state_names={u: list(self.states[u]) for u in [v, *parents]},
                )
            )
        return model


#: most cells of one conditional probability table (1 GiB of float64)
MAX_TABLE_CELLS = 1 << 27


def check_table_size(node: str, shape, prefix: str = "") -> None:
    """Refuse, before allocating, a table of ``node`` with more than MAX_TABLE_CELLS cells."""
    cells = math.prod(int(k) for k in shape)
    if cells > MAX_TABLE_CELLS:
        raise ValueError(
            f"{prefix}the table of {node!r} ({' x '.join(map(str, shape))}) has "
            f"{cells:,} cells, more than the {MAX_TABLE_CELLS:,} bnfs holds in "
            "memory; fewer parents (max_parents) or fewer levels make it fit"
        )


# --- BIF -----------------------------------------------------------------------------------

_TOKEN = re.compile(r'"[^"]*"|[{}()\[\],;|]|[^\s{}()\[\],;|"]+')


def _tokens(text: str) -> list[str]:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return _TOKEN.findall(text)


def _numbers(tokens: list[str], child: str, count: int) -> np.ndarray:
    """``count`` probabilities of ``child``'s table, or a ValueError saying what is wrong."""
    try:
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        raise ValueError(
            f"BIF: non-numeric probability in the table of {child!r}: {tokens[:5]}"
        ) from None
    if values.size != count:
        raise ValueError(
            f"BIF: the table of {child!r} needs {count} values here, got {values.size}"
        )
    return values


def parse_bif(text: str, name: str = "network") -> DiscreteNetwork:
    """Parse BIF text (the interchange format of bnlearn, pgmpy, Hugin's tools).

    Supports ``variable`` blocks of discrete type, ``probability`` blocks with ``table``
    (root nodes) or one row per parent configuration and an optional ``default`` row;
    ``property`` lines are ignored. Malformed text raises ValueError.
    """
    if not isinstance(text, str):
        raise TypeError(f"BIF text must be a string, got {type(text).__name__}")
    try:
        return _parse_bif(_tokens(text), name)
    except IndexError:  # a token was expected where the text ends
        raise ValueError("BIF: unexpected end of file") from None


def _parse_bif(toks: list[str], name: str) -> DiscreteNetwork:
    pos = 0

    def expect(tok: str) -> None:
        nonlocal pos
        if pos >= len(toks) or toks[pos] != tok:
            got = toks[pos] if pos < len(toks) else "end of file"
            raise ValueError(f"BIF: expected {tok!r}, got {got!r} (token {pos})")
        pos += 1

    def skip_block() -> None:
        nonlocal pos
        depth = 0
        while pos < len(toks):
            tok = toks[pos]
            pos += 1
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if depth == 0:
                    return
        raise ValueError("BIF: unbalanced braces")

    def until(stop: str) -> list[str]:
        nonlocal pos
        out = []
        while toks[pos] != stop:
            if toks[pos] != ",":
                out.append(toks[pos])
            pos += 1
        pos += 1
        return out

    states: dict[str, tuple[str, ...]] = {}
    order: list[str] = []
    tables: dict[str, tuple[list[str], np.ndarray]] = {}
    while pos < len(toks):
        tok = toks[pos]
        if tok == "network":
            pos += 1
            if toks[pos] != "{":
                declared = toks[pos].strip('"')
                name = name if declared == "unknown" else declared
                pos += 1
            skip_block()
        elif tok == "variable":
            var = toks[pos + 1]
            pos += 2
            expect("{")
            while toks[pos] != "}":
                if toks[pos] == "type":
                    pos += 1
                    if toks[pos] != "discrete":
                        raise ValueError(f"BIF: variable {var!r} is not discrete")
                    pos += 1
                    expect("[")
                    if not toks[pos].isdigit():
                        raise ValueError(f"BIF: variable {var!r} has level count {toks[pos]!r}")
                    k = int(toks[pos])
                    pos += 1
                    expect("]")
                    expect("{")
                    levels = until("}")
                    expect(";")
                    if len(levels) != k:
                        raise ValueError(
                            f"BIF: variable {var!r} declares {k} levels, lists {len(levels)}"
                        )
                    if var in states:
                        raise ValueError(f"BIF: variable {var!r} is declared twice")
                    if len(set(levels)) != len(levels):
                        raise ValueError(f"BIF: variable {var!r} repeats a level")
                    states[var] = tuple(levels)
                    order.append(var)
                else:  # property ... ;
                    until(";")
            pos += 1
        elif tok == "probability":
            pos += 1
            expect("(")
            head = until(")")
            child, parents = head[0], [t for t in head[1:] if t != "|"]
            for v in (child, *parents):
                if v not in states:
                    raise ValueError(f"BIF: probability block names undeclared variable {v!r}")
            k = len(states[child])
            shape = tuple(len(states[p]) for p in parents) + (k,)
            check_table_size(child, shape, "BIF: ")
            table = np.full(shape, np.nan)
            expect("{")
            default = None
            while toks[pos] != "}":
                if toks[pos] == "table":
                    pos += 1
                    values = _numbers(until(";"), child, table.size)
                    if parents:
                        raise ValueError(
                            f"BIF: 'table' form with parents (node {child!r}) is "
                            "not supported; list one row per parent configuration"
                        )
                    table[...] = values
                elif toks[pos] == "default":
                    pos += 1
                    default = _numbers(until(";"), child, k)
                elif toks[pos] == "(":
                    pos += 1
                    config = until(")")
                    values = _numbers(until(";"), child, k)
                    try:
                        index = tuple(
                            states[p].index(s) for p, s in zip(parents, config, strict=True)
                        )
                    except ValueError:
                        raise ValueError(
                            f"BIF: bad parent configuration {config} for {child!r}"
                        ) from None
                    table[index] = values
                else:  # property ... ;
                    until(";")
            pos += 1
            if default is not None:
                unset = np.isnan(table[..., 0])
                table[unset] = default
            if np.isnan(table).any():
                raise ValueError(f"BIF: table of {child!r} misses some parent configurations")
            if child in tables:
                raise ValueError(f"BIF: a second probability block for {child!r}")
            tables[child] = (parents, table)
        else:
            raise ValueError(f"BIF: unexpected token {tok!r}")

    if not order:
        raise ValueError("BIF: no variables")
    arcs = [(p, v) for v in order if v in tables for p in tables[v][0]]
    dag = DAG(order, arcs)
    cpts = {}
    for v in order:
        if v not in tables:
            raise ValueError(f"BIF: no probability block for {v!r}")
        parents, table = tables[v]
        # reorder axes to dag.parents(v) (node order)
        want = dag.parents(v)
        cpts[v] = np.transpose(table, [parents.index(p) for p in want] + [len(parents)])
    return DiscreteNetwork(dag, states, cpts, name=name)


def read_bif(path) -> DiscreteNetwork:
    """Read a ``.bif`` or ``.bif.gz`` file.

    Examples
    --------
    >>> import os, tempfile
    >>> from bnfs import datasets
    >>> path = os.path.join(tempfile.mkdtemp(), "asia.bif")
    >>> _ = write_bif(datasets.network_model("asia"), path)
    >>> read_bif(path).dag == datasets.network("asia")
    True
    """
    path = os.fspath(path)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        text = fh.read()
    name = os.path.basename(path).split(".")[0]
    return parse_bif(text, name=name)


def _fmt(x: float) -> str:
    return repr(float(x))


#: what BIF can hold so that bnfs and pgmpy read it back unchanged: variable names are words
#: (letters, digits, "_", "-", "."), levels have no space, quote or BIF punctuation
_BIF_NAME = re.compile(r"[\w.-]+\Z")
_BIF_LEVEL_FORBIDDEN = set('{}()[],;|"') | {"/*", "//"}


def check_bif_names(names, states: Mapping) -> None:
    """Raise ValueError naming the first variable or level that BIF cannot hold (see
    :func:`write_bif`); BIF has no quoting that its readers agree on."""
    for v in names:
        if not isinstance(v, str) or not _BIF_NAME.match(v):
            suggestion = re.sub(r"[^\w.-]+", "_", str(v))
            raise ValueError(
                f"BIF cannot hold the variable name {v!r}: use letters, digits, "
                f"'_', '-' and '.' only (rename it, e.g. {suggestion!r})"
            )
        for level in states[v]:
            text = str(level)
            if (
                not text
                or any(c.isspace() or not c.isprintable() for c in text)
                or any(bad in text for bad in _BIF_LEVEL_FORBIDDEN)
            ):
                raise ValueError(
                    f"BIF cannot hold the level {text!r} of {v!r}: a level has "
                    "no spaces or control characters and none of { } ( ) [ ] , ; "
                    '| " // /* (recode it)'
                )


def write_bif(network: DiscreteNetwork, path=None) -> str:
    """BIF text of ``network``; written to ``path`` too when given (``.gz`` compresses).

    BIF has no quoting its readers agree on (pgmpy reads names as words), so a variable name
    must be letters, digits, "_", "-" and "."; a level must have no spaces and none of
    ``{}()[],;|"``: anything else is refused with a ValueError before a byte is written,
    and what is written reads back (with bnfs or pgmpy) to the same network.

    Examples
    --------
    >>> from bnfs import datasets
    >>> write_bif(datasets.network_model("asia")).splitlines()[0]
    'network asia {'
    """
    if not isinstance(network, DiscreteNetwork):
        raise TypeError(
            f"write_bif needs a DiscreteNetwork (a DAG with its tables, e.g. "
            f"DiscreteNetwork.fit(dag, data)), got {type(network).__name__}"
        )
    check_bif_names(network.dag.nodes, network.states)
    name = re.sub(r"[^\w.-]+", "_", network.name) or "network"
    lines = [f"network {name} {{", "}"]
    for v in network.dag.nodes:
        levels = ", ".join(network.states[v])
        lines += [
            f"variable {v} {{",
            f"  type discrete [ {len(network.states[v])} ] {{ {levels} }};",
            "}",
        ]
    for v in network.dag.nodes:
        parents = network.dag.parents(v)
        table = network.cpts[v]
        if not parents:
            lines += [
                f"probability ( {v} ) {{",
                "  table " + ", ".join(_fmt(x) for x in table) + ";",
                "}",
            ]
            continue
        lines.append(f"probability ( {v} | {', '.join(parents)} ) {{")
        for index in np.ndindex(*table.shape[:-1]):
            config = ", ".join(network.states[p][i] for p, i in zip(parents, index))
            lines.append(f"  ({config}) " + ", ".join(_fmt(x) for x in table[index]) + ";")
        lines.append("}")
    text = "\n".join(lines) + "\n"
    if path is not None:
        path = os.fspath(path)
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    return text
