"""Export and import of DAG/PDAG: networkx, pgmpy, graphviz DOT, JSON, pictures.

BIF (structure with probability tables) lives in :mod:`bnfs.models.network`; the writers of text
and pictures in :mod:`bnfs.graphs.render`, re-exported here.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from bnfs.graphs.graph import DAG, PDAG
from bnfs.graphs.render import ROLE_COLOURS, blanket_roles, draw, to_dot, to_json, to_networkx
from bnfs.models.network import DiscreteNetwork, pgmpy_model_class
from bnfs.tables._data import as_dataset
from bnfs.tables._scaling import least_squares

__all__ = [
    "to_networkx",
    "from_networkx",
    "to_pgmpy",
    "from_pgmpy",
    "to_dot",
    "to_json",
    "from_json",
    "draw",
    "blanket_roles",
    "ROLE_COLOURS",
]

# --- networkx ----------------------------------------------------------------------------


def from_networkx(graph) -> DAG | PDAG:
    """A DAG from a :class:`networkx.DiGraph`; a PDAG when some pair is joined both ways
    (read as an undirected edge) or the graph is undirected.

    Raises
    ------
    TypeError
        Not a networkx graph, a multigraph, or node names that are not strings.
    ValueError
        A directed cycle or a self-loop.

    Examples
    --------
    >>> from bnfs import datasets
    >>> dag = datasets.network("asia")
    >>> from_networkx(to_networkx(dag)) == dag
    True
    """
    import networkx as nx

    if not isinstance(graph, nx.Graph):
        raise TypeError(f"expected a networkx graph, got {type(graph).__name__}")
    if graph.is_multigraph():
        raise TypeError(
            f"a {type(graph).__name__} can hold parallel arcs, which a Bayesian network "
            "cannot: convert it with networkx.DiGraph(graph) first"
        )
    loops = list(nx.selfloop_edges(graph))
    if loops:
        raise ValueError(f"node {loops[0][0]!r} has a self-loop, which a network cannot hold")
    nodes = list(graph.nodes)
    learning = graph.graph.get("learning")
    if not graph.is_directed():
        return PDAG(nodes, edges=graph.edges, learning=learning)
    both = {frozenset((u, v)) for u, v in graph.edges if graph.has_edge(v, u)}
    if not both:
        return DAG(nodes, graph.edges, learning=learning)
    arcs = [(u, v) for u, v in graph.edges if frozenset((u, v)) not in both]
    return PDAG(nodes, arcs=arcs, edges=[tuple(e) for e in both], learning=learning)


# --- pgmpy -------------------------------------------------------------------------------


def to_pgmpy(graph: DAG, data=None, pseudo_count: float = 0.0):
    """A pgmpy ``DiscreteBayesianNetwork``; with ``data`` its tables are fitted too
    (maximum likelihood, plus ``pseudo_count`` per cell; see
    :meth:`bnfs.models.network.DiscreteNetwork.fit`). With continuous ``data``, a pgmpy
    ``LinearGaussianBayesianNetwork``: each node regressed on its parents by least squares
    (intercept and coefficients) with the maximum-likelihood residual standard deviation,
    sqrt(RSS / n), the variance of bnfs's ``bic-g``.

    Examples
    --------
    >>> from bnfs import datasets
    >>> model = to_pgmpy(datasets.network("asia"), data=datasets.sample("asia", 500, seed=0))
    >>> len(model.get_cpds())
    8
    """
    if isinstance(graph, PDAG):
        raise TypeError("pgmpy needs a DAG: call pdag.to_dag() first")
    if not isinstance(graph, DAG):
        raise TypeError(f"expected a bnfs DAG, got {type(graph).__name__}")
    if data is not None:
        data = as_dataset(data)
        if not data.is_discrete and not data.discrete_names:
            return _linear_gaussian(graph, data)
        if not data.is_discrete:
            continuous = [v for v in data.names if v not in set(data.discrete_names)]
            raise ValueError(
                f"pgmpy has no network for mixed data (continuous: {continuous[:5]}"
                f"{', ...' if len(continuous) > 5 else ''}; discrete: "
                f"{list(data.discrete_names)[:5]}): bnfs.fit(dag, data) fits the "
                "conditional-Gaussian network bnfs.predict uses, or to_pgmpy(dag, "
                "bnfs.discretize(data)) exports a discrete one"
            )
        return DiscreteNetwork.fit(graph, data, pseudo_count=pseudo_count).to_pgmpy()
    model = pgmpy_model_class()(graph.arcs)
    model.add_nodes_from(graph.nodes)
    return model


def _linear_gaussian(graph: DAG, data):
    """pgmpy's linear-Gaussian network of ``graph`` fitted to continuous ``data``."""
    from pgmpy.factors.continuous import LinearGaussianCPD
    from pgmpy.models import LinearGaussianBayesianNetwork

    missing = sorted(set(graph.nodes) - set(data.names))
    if missing:
        raise ValueError(f"the data have no column for node(s) {missing[:5]}")
    model = LinearGaussianBayesianNetwork(graph.arcs)
    model.add_nodes_from(graph.nodes)
    cpds = []
    for node in graph.nodes:
        parents = graph.parents(node)
        beta, std = least_squares(data.column(node), [data.column(p) for p in parents])
        cpds.append(LinearGaussianCPD(node, [float(b) for b in beta], std, parents))
    model.add_cpds(*cpds)
    return model


def from_pgmpy(model) -> DAG:
    """The structure of a pgmpy Bayesian network (or DAG) as a bnfs DAG.

    Examples
    --------
    >>> from bnfs import datasets
    >>> dag = datasets.network("asia")
    >>> from_pgmpy(to_pgmpy(dag)) == dag
    True
    """
    if not (hasattr(model, "nodes") and hasattr(model, "edges")):
        raise TypeError(f"expected a pgmpy model, got {type(model).__name__}")
    return DAG(list(model.nodes()), list(model.edges()))


def _decoded(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{what} is not UTF-8 text (byte 0x{raw[error.start]:02x} at offset {error.start})"
        ) from None


def _json_file(source) -> str:
    """The text of the JSON file ``source`` names; text that cannot be a path (several
    lines, or longer than a path can be) is refused as what it is, never opened."""
    if isinstance(source, str) and ("\n" in source or len(source) > 1024):
        start = source.lstrip()[:40]
        raise ValueError(
            f"not a bnfs JSON graph: the text starts with {start!r}, not '{{'; "
            "pass JSON text or a path"
        )
    path = Path(source)
    if not path.is_file():
        raise ValueError(f"no such file: {str(path)!r} (from_json takes JSON text or a path)")
    return _decoded(path.read_bytes(), f"the network file {str(path)!r}")


def from_json(source) -> DAG | PDAG:
    """Read what :func:`to_json` wrote: JSON text or a path to a file.

    ``type`` is ``"DAG"`` or ``"PDAG"`` (without one: a PDAG when ``edges`` holds any, else
    a DAG); anything that cannot be read faithfully (another type, undirected edges in a
    DAG, nodes that are not a list) is refused.

    Examples
    --------
    >>> from bnfs import DAG
    >>> from_json(to_json(DAG(["a", "b"], arcs=[("a", "b")]))).arcs
    [('a', 'b')]
    """
    if isinstance(source, bytes):
        source = _decoded(source, "from_json's bytes")
    if isinstance(source, str):
        source = source.removeprefix("\ufeff")  # a byte-order mark (Notepad, PowerShell)
        if not source.strip():
            raise ValueError("from_json got an empty string: pass JSON text or a path")
    if isinstance(source, os.PathLike) or (
        isinstance(source, str) and not source.lstrip().startswith(("{", "["))
    ):
        source = _json_file(source)
    if not isinstance(source, str):
        raise TypeError(f"from_json takes JSON text or a path, got {type(source).__name__}")
    try:
        doc = json.loads(source)
    except json.JSONDecodeError as err:
        raise ValueError(f"not a bnfs JSON graph: {err}") from None
    except RecursionError:
        raise ValueError("not a bnfs JSON graph: nested too deeply") from None
    except ValueError:  # json raises it past Python's limit on an integer's digits
        raise ValueError(
            f"not a bnfs JSON graph: it holds an integer longer than Python reads "
            f"({sys.get_int_max_str_digits():,} digits)"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != "bnfs-graph":
        raise ValueError("not a bnfs JSON graph (missing format='bnfs-graph')")
    for key, kind in (("nodes", list), ("arcs", list), ("edges", list), ("learning", dict)):
        if key in doc and not isinstance(doc[key], kind) and doc[key] is not None:
            raise ValueError(f"not a bnfs JSON graph: {key!r} must be a {kind.__name__}")
    if not isinstance(doc.get("nodes"), list):
        raise ValueError("not a bnfs JSON graph: 'nodes' must be a list of names")
    for key in ("arcs", "edges"):
        for pair in doc.get(key) or []:
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError(f"not a bnfs JSON graph: {key!r} holds {pair!r}, not a pair")
    arcs = [tuple(a) for a in doc.get("arcs") or []]
    edges = [tuple(e) for e in doc.get("edges") or []]
    kind = doc.get("type", "PDAG" if edges else "DAG")  # without a type: what the lists say
    if kind not in ("DAG", "PDAG"):
        raise ValueError(f"not a bnfs JSON graph: 'type' must be 'DAG' or 'PDAG', got {kind!r}")
    if kind == "PDAG":
        return PDAG(doc["nodes"], arcs=arcs, edges=edges, learning=doc.get("learning"))
    if edges:
        raise ValueError(
            f"not a bnfs JSON graph: a DAG has no undirected edges, and 'edges' holds "
            f"{len(edges)} (first {list(edges[0])!r}); write 'type': 'PDAG' to read them"
        )
    return DAG(doc["nodes"], arcs, learning=doc.get("learning"))
