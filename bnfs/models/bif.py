"""BIF, the Bayesian Interchange Format of the classic networks (bnlearn's repository,
pgmpy's bundled files): :func:`read_bif`, :func:`parse_bif` and :func:`write_bif`, for
:class:`~bnfs.models.network.DiscreteNetwork`."""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Mapping

import numpy as np

from bnfs.graphs.graph import DAG
from bnfs.models.network import DiscreteNetwork, check_table_size
from bnfs.tables._files import replacing, write_atomically

__all__ = ["read_bif", "write_bif", "parse_bif", "check_bif_names"]


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
    return _BifParser(toks, name).network()


class _BifParser:
    """A recursive-descent reader of BIF tokens: ``network``, ``variable`` and
    ``probability`` blocks, each error naming what it met and where."""

    def __init__(self, toks: list[str], name: str):
        self.toks, self.name, self.pos = toks, name, 0
        self.states: dict[str, tuple[str, ...]] = {}
        self.order: list[str] = []
        self.tables: dict[str, tuple[list[str], np.ndarray]] = {}

    def expect(self, tok: str) -> None:
        toks, pos = self.toks, self.pos
        if pos >= len(toks) or toks[pos] != tok:
            got = toks[pos] if pos < len(toks) else "end of file"
            raise ValueError(f"BIF: expected {tok!r}, got {got!r} (token {pos})")
        self.pos += 1

    def skip_block(self) -> None:
        depth = 0
        while self.pos < len(self.toks):
            tok = self.toks[self.pos]
            self.pos += 1
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if depth == 0:
                    return
        raise ValueError("BIF: unbalanced braces")

    def until(self, stop: str) -> list[str]:
        out = []
        while self.toks[self.pos] != stop:
            if self.toks[self.pos] != ",":
                out.append(self.toks[self.pos])
            self.pos += 1
        self.pos += 1
        return out

    def network(self) -> DiscreteNetwork:
        toks = self.toks
        while self.pos < len(toks):
            tok = toks[self.pos]
            if tok == "network":
                self.pos += 1
                if toks[self.pos] != "{":
                    declared = toks[self.pos].strip('"')
                    self.name = self.name if declared == "unknown" else declared
                    self.pos += 1
                self.skip_block()
            elif tok == "variable":
                self.variable()
            elif tok == "probability":
                self.probability()
            else:
                raise ValueError(f"BIF: unexpected token {tok!r}")
        return self.assembled()

    def variable(self) -> None:
        toks = self.toks
        var = toks[self.pos + 1]
        self.pos += 2
        self.expect("{")
        while toks[self.pos] != "}":
            if toks[self.pos] != "type":  # property ... ;
                self.until(";")
                continue
            self.pos += 1
            if toks[self.pos] != "discrete":
                raise ValueError(f"BIF: variable {var!r} is not discrete")
            self.pos += 1
            self.expect("[")
            if not toks[self.pos].isdigit():
                raise ValueError(f"BIF: variable {var!r} has level count {toks[self.pos]!r}")
            k = int(toks[self.pos])
            self.pos += 1
            self.expect("]")
            self.expect("{")
            levels = self.until("}")
            self.expect(";")
            if len(levels) != k:
                raise ValueError(f"BIF: variable {var!r} declares {k} levels, lists {len(levels)}")
            if var in self.states:
                raise ValueError(f"BIF: variable {var!r} is declared twice")
            if len(set(levels)) != len(levels):
                raise ValueError(f"BIF: variable {var!r} repeats a level")
            self.states[var] = tuple(levels)
            self.order.append(var)
        self.pos += 1

    def probability(self) -> None:
        states = self.states
        self.pos += 1
        self.expect("(")
        head = self.until(")")
        child, parents = head[0], [t for t in head[1:] if t != "|"]
        for v in (child, *parents):
            if v not in states:
                raise ValueError(f"BIF: probability block names undeclared variable {v!r}")
        if child in parents:
            raise ValueError(f"BIF: the probability block of {child!r} lists it as a parent")
        twice = [p for i, p in enumerate(parents) if p in parents[:i]]
        if twice:
            raise ValueError(
                f"BIF: the probability block of {child!r} lists parent {twice[0]!r} twice"
            )
        shape = tuple(len(states[p]) for p in parents) + (len(states[child]),)
        check_table_size(child, shape, "BIF: ")
        table = np.full(shape, np.nan)
        self.expect("{")
        default = None
        while self.toks[self.pos] != "}":
            default = self.entry(child, parents, table, default)
        self.pos += 1
        if default is not None:
            unset = np.isnan(table[..., 0])
            table[unset] = default
        if np.isnan(table).any():
            raise ValueError(f"BIF: table of {child!r} misses some parent configurations")
        if child in self.tables:
            raise ValueError(f"BIF: a second probability block for {child!r}")
        self.tables[child] = (parents, table)

    def entry(self, child: str, parents: list[str], table: np.ndarray, default):
        """One line of a probability block (``table``, ``default``, a parent configuration
        or a property) into ``table``; returns the default row so far."""
        k = table.shape[-1]
        tok = self.toks[self.pos]
        if tok == "table":
            self.pos += 1
            values = _numbers(self.until(";"), child, table.size)
            if parents:
                raise ValueError(
                    f"BIF: 'table' form with parents (node {child!r}) is "
                    "not supported; list one row per parent configuration"
                )
            if not np.isnan(table).all():
                raise ValueError(f"BIF: the table of {child!r} is given twice")
            table[...] = values
        elif tok == "default":
            self.pos += 1
            if default is not None:
                raise ValueError(f"BIF: the default row of {child!r} is given twice")
            default = _numbers(self.until(";"), child, k)
        elif tok == "(":
            self.pos += 1
            config = self.until(")")
            values = _numbers(self.until(";"), child, k)
            try:
                index = tuple(self.states[p].index(s) for p, s in zip(parents, config, strict=True))
            except ValueError:
                raise ValueError(f"BIF: bad parent configuration {config} for {child!r}") from None
            if not np.isnan(table[index]).all():
                raise ValueError(
                    f"BIF: parent configuration ({', '.join(config)}) of {child!r} is given twice"
                )
            table[index] = values
        else:  # property ... ;
            self.until(";")
        return default

    def assembled(self) -> DiscreteNetwork:
        if not self.order:
            raise ValueError("BIF: no variables")
        tables = self.tables
        arcs = [(p, v) for v in self.order if v in tables for p in tables[v][0]]
        dag = DAG(self.order, arcs)
        cpts = {}
        for v in self.order:
            if v not in tables:
                raise ValueError(f"BIF: no probability block for {v!r}")
            parents, table = tables[v]
            # reorder axes to dag.parents(v) (node order)
            want = dag.parents(v)
            cpts[v] = np.transpose(table, [parents.index(p) for p in want] + [len(parents)])
        return DiscreteNetwork(dag, self.states, cpts, name=self.name)


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
    with opener(path, "rt", encoding="utf-8-sig") as fh:  # a byte-order mark is skipped
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
        if path.endswith(".gz"):
            with replacing(path) as temporary, gzip.open(temporary, "wt", encoding="utf-8") as fh:
                fh.write(text)
        else:
            write_atomically(path, text)
    return text
