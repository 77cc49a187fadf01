"""Text and pictures of a graph: networkx, DOT, JSON, drawings, and the roles of a target's
blanket. They work on anything with the graph interface (``nodes``, ``arcs``, ``edges``,
``parents``, ``children``, ``undirected``, ``markov_blanket``, ``learning``), so
:mod:`bnfs.graph` offers them as methods without a cycle; :mod:`bnfs.export` re-exports
them beside the readers."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np

from bnfs._files import replacing, write_atomically

__all__ = [
    "to_networkx",
    "to_dot",
    "to_json",
    "draw",
    "blanket_roles",
    "check_graph",
    "save_figure",
    "ROLE_COLOURS",
]

ROLE_COLOURS = {
    "target": "#f58518",
    "parent": "#9ecae9",
    "child": "#a1d99b",
    "spouse": "#fdd0a2",
    "neighbour": "#d4b9da",
    "other": "#ffffff",
}


_INTERFACE = ("nodes", "arcs", "edges", "parents", "children", "markov_blanket", "learning")


def check_graph(graph) -> None:
    """TypeError unless ``graph`` is a bnfs DAG or PDAG (has the graph interface)."""
    if isinstance(graph, type) or not all(hasattr(graph, a) for a in _INTERFACE):
        raise TypeError(f"graph must be a bnfs DAG or PDAG, got {type(graph).__name__}")


def to_networkx(graph):
    """A :class:`networkx.DiGraph`; a PDAG's undirected edges become arcs both ways, and
    ``graph.graph["learning"]`` carries the provenance.

    Examples
    --------
    >>> from bnfs import datasets
    >>> to_networkx(datasets.network("asia"))
    <networkx.classes.digraph.DiGraph object at ...>
    """
    import networkx as nx

    check_graph(graph)
    out = nx.DiGraph(learning=dict(graph.learning))
    out.add_nodes_from(graph.nodes)
    out.add_edges_from(graph.arcs)
    out.add_edges_from(graph.edges)
    out.add_edges_from((v, u) for u, v in graph.edges)
    return out


# --- roles for highlighting ------------------------------------------------------------------


def blanket_roles(graph, target: str) -> dict[str, str]:
    """Role of each node relative to ``target``: target, parent, child, spouse, neighbour
    (undirected, in a PDAG) or other.

    Examples
    --------
    >>> from bnfs import datasets
    >>> roles = blanket_roles(datasets.network("asia"), "either")
    >>> roles["tub"], roles["bronc"], roles["xray"], roles["asia"]
    ('parent', 'spouse', 'child', 'other')
    """
    check_graph(graph)
    roles = dict.fromkeys(graph.nodes, "other")
    for node in graph.markov_blanket(target):
        roles[node] = "spouse"
    for node in graph.undirected(target):
        roles[node] = "neighbour"
    for node in graph.children(target):
        roles[node] = "child"
    for node in graph.parents(target):
        roles[node] = "parent"
    roles[target] = "target"
    return roles


# --- DOT and JSON --------------------------------------------------------------------------


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph, highlight: str | None = None) -> str:
    """Graphviz DOT text; with ``highlight``, the node and its Markov blanket are filled
    by role (see :data:`ROLE_COLOURS`).

    Examples
    --------
    >>> from bnfs import DAG
    >>> print(to_dot(DAG(["a", "b"], [("a", "b")])))
    digraph bnfs {
      node [shape=ellipse, style=filled, fillcolor="#ffffff", fontname="Helvetica"];
      "a";
      "b";
      "a" -> "b";
    }
    """
    check_graph(graph)
    roles = blanket_roles(graph, highlight) if highlight is not None else {}
    lines = [
        "digraph bnfs {",
        '  node [shape=ellipse, style=filled, fillcolor="#ffffff", fontname="Helvetica"];',
    ]
    for node in graph.nodes:
        role = roles.get(node, "other")
        attrs = "" if role == "other" else f' [fillcolor="{ROLE_COLOURS[role]}", tooltip="{role}"]'
        lines.append(f"  {_quote(node)}{attrs};")
    for u, v in graph.arcs:
        lines.append(f"  {_quote(u)} -> {_quote(v)};")
    for u, v in graph.edges:
        lines.append(f"  {_quote(u)} -> {_quote(v)} [dir=none];")
    lines.append("}")
    return "\n".join(lines)


def _jsonable(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (set, frozenset, tuple, np.ndarray)):
        return list(value)
    return str(value)


def to_json(graph, path=None) -> str:
    """JSON text ``{"type", "nodes", "arcs", "edges", "learning"}``; written to ``path``
    too when given. Provenance values that JSON cannot hold are stored as strings.

    Examples
    --------
    >>> from bnfs import datasets
    >>> dag = datasets.network("asia")
    >>> from bnfs.export import from_json
    >>> from_json(to_json(dag)) == dag
    True
    """
    check_graph(graph)
    doc = {
        "format": "bnfs-graph",
        "version": 1,
        "type": type(graph).__name__,
        "nodes": list(graph.nodes),
        "arcs": [list(a) for a in graph.arcs],
        "edges": [list(e) for e in graph.edges],
        "learning": graph.learning,
    }
    text = json.dumps(doc, indent=1, default=_jsonable)
    if path is not None:
        write_atomically(path, text)
    return text


# --- pictures ------------------------------------------------------------------------------


def draw(graph, path=None, highlight: str | None = None, engine: str = "auto"):
    """Write a picture of the graph; the format follows the extension (.svg, .png, .pdf).

    Parameters
    ----------
    graph : DAG or PDAG
    path : str or os.PathLike, optional
        Where to write; without it the picture is returned as SVG text (what a notebook
        shows: ``DAG._repr_svg_``).
    highlight : str, optional
        A node whose Markov blanket is coloured by role (parents, children, spouses).
    engine : {"auto", "graphviz", "matplotlib"}
        ``"graphviz"`` runs the ``dot`` program; ``"matplotlib"`` draws a layered layout
        with matplotlib alone; ``"auto"`` uses graphviz when ``dot`` is installed.

    Returns
    -------
    pathlib.Path or str
        The file written, or the SVG text when no ``path`` is given.

    Examples
    --------
    >>> import os, tempfile
    >>> from bnfs import datasets
    >>> path = draw(datasets.network("asia"), os.path.join(tempfile.mkdtemp(), "asia.svg"),
    ...             highlight="either")
    >>> path.suffix, path.stat().st_size > 1000
    ('.svg', True)
    """
    check_graph(graph)
    if path is None:
        return _svg_text(graph, highlight, engine)
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("svg", "png", "pdf"):
        raise ValueError(f"picture format must be .svg, .png or .pdf, got {path.suffix!r}")
    if not path.parent.is_dir():
        raise ValueError(f"cannot write {str(path)!r}: folder {str(path.parent)!r} does not exist")
    if engine not in ("auto", "graphviz", "matplotlib"):
        raise ValueError(f"engine must be 'auto', 'graphviz' or 'matplotlib', got {engine!r}")
    if highlight is not None and highlight not in graph:
        raise ValueError(f"highlight {highlight!r} is not a node of the graph")
    dot = shutil.which("dot")
    if engine == "graphviz" and dot is None:
        raise RuntimeError("engine='graphviz' needs the graphviz 'dot' program on PATH")
    with replacing(path) as temporary:  # a failed drawing keeps the previous picture
        if engine == "graphviz" or (engine == "auto" and dot is not None):
            done = subprocess.run(
                [dot, f"-T{fmt}", "-o", str(temporary)],
                input=to_dot(graph, highlight).encode(),
                capture_output=True,
            )
            if done.returncode != 0:
                message = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
                raise OSError(f"graphviz dot could not write {str(path)!r}: {message}")
        else:
            _draw_matplotlib(graph, temporary, fmt, highlight)
    return path


def _layers(graph) -> list[list[int]]:
    """Layer index of each node: longest path from a root (undirected edges ignored for
    layering, then placed between layers as they fall)."""
    index = {v: i for i, v in enumerate(graph.nodes)}
    depth = np.zeros(graph.n_nodes, dtype=np.int64)
    order = graph.topological_order()
    for v in order:
        for c in graph.children(v):
            depth[index[c]] = max(depth[index[c]], depth[index[v]] + 1)
    for v in reversed(order):  # pull roots down next to their first child
        kids = [depth[index[c]] for c in graph.children(v)]
        if kids:
            depth[index[v]] = max(depth[index[v]], min(kids) - 1)
    for u, v in graph.edges:  # push undirected neighbours apart for readability
        if depth[index[u]] == depth[index[v]]:
            depth[index[v]] += 1
    layers: list[list[int]] = [[] for _ in range(int(depth.max()) + 1 if graph.n_nodes else 0)]
    for i, d in enumerate(depth):
        layers[d].append(i)
    return [layer for layer in layers if layer]


def _layout(graph) -> np.ndarray:
    """(x, y) per node: layers top to bottom, order within layers by barycentre sweeps."""
    layers = _layers(graph)
    index = {v: i for i, v in enumerate(graph.nodes)}
    nbrs = [[] for _ in graph.nodes]
    pairs = list(graph.arcs) + list(graph.edges)
    for u, v in pairs:
        nbrs[index[u]].append(index[v])
        nbrs[index[v]].append(index[u])
    x = np.zeros(graph.n_nodes)
    for layer in layers:
        x[layer] = np.arange(len(layer)) - (len(layer) - 1) / 2
    for _ in range(4):
        for layer in layers:
            bary = [np.mean(x[nbrs[i]]) if nbrs[i] else x[i] for i in layer]
            order = [layer[k] for k in np.argsort(bary, kind="stable")]
            x[order] = np.arange(len(order)) - (len(order) - 1) / 2
    pos = np.zeros((graph.n_nodes, 2))
    for depth, layer in enumerate(layers):
        pos[layer, 0] = x[layer]
        pos[layer, 1] = -depth
    return pos


#: matplotlib metadata set to None, so that none is written: no creation date (the same
#: graph gives the same bytes) and no RDF block with namespace URLs in an SVG
_NO_METADATA = {
    "svg": {"Creator": None, "Date": None, "Format": None, "Type": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    "png": {"Software": None},
}


def save_figure(figure, target, fmt: str, **options) -> None:
    """``figure.savefig`` without metadata; ``target`` is a path or a file object."""
    figure.savefig(target, format=fmt, metadata=_NO_METADATA.get(fmt), **options)


def _svg_text(graph, highlight: str | None, engine: str) -> str:
    """The picture as SVG text: graphviz's when ``dot`` is there (and allowed), else
    matplotlib's."""
    if engine not in ("auto", "graphviz", "matplotlib"):
        raise ValueError(f"engine must be 'auto', 'graphviz' or 'matplotlib', got {engine!r}")
    if highlight is not None and highlight not in graph:
        raise ValueError(f"highlight {highlight!r} is not a node of the graph")
    dot = shutil.which("dot")
    if engine == "graphviz" and dot is None:
        raise RuntimeError("engine='graphviz' needs the graphviz 'dot' program on PATH")
    if engine == "graphviz" or (engine == "auto" and dot is not None):
        done = subprocess.run(
            [dot, "-Tsvg"], input=to_dot(graph, highlight).encode(), capture_output=True
        )
        if done.returncode == 0:
            return done.stdout.decode()
    buffer = io.BytesIO()
    _draw_matplotlib(graph, buffer, "svg", highlight)
    return buffer.getvalue().decode()


def _draw_matplotlib(graph, path, fmt: str, highlight: str | None) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch, Patch

    pos = _layout(graph)
    check_graph(graph)
    roles = blanket_roles(graph, highlight) if highlight is not None else {}
    width = max(4.0, 1.3 * (np.ptp(pos[:, 0]) + 1)) if graph.n_nodes else 4.0
    height = max(3.0, 1.1 * (np.ptp(pos[:, 1]) + 1)) if graph.n_nodes else 3.0
    fig = Figure(figsize=(min(width, 60), min(height, 60)))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    index = {v: i for i, v in enumerate(graph.nodes)}
    undirected = graph.edges
    for pairs, style in ((graph.arcs, "-|>"), (undirected, "-")):
        for u, v in pairs:
            ax.add_patch(
                FancyArrowPatch(
                    pos[index[u]],
                    pos[index[v]],
                    arrowstyle=style,
                    mutation_scale=12,
                    color="#555555",
                    lw=0.9,
                    shrinkA=14,
                    shrinkB=14,
                )
            )
    for node, (x, y) in zip(graph.nodes, pos):
        role = roles.get(node, "other")
        ax.text(
            x,
            y,
            node,
            ha="center",
            va="center",
            fontsize=8,
            gid=f"node-{node}",
            bbox=dict(boxstyle="round,pad=0.3", fc=ROLE_COLOURS[role], ec="#333333", lw=0.8),
        )
    if highlight is not None:
        present = [r for r in ROLE_COLOURS if r != "other" and r in roles.values()]
        ax.legend(
            handles=[Patch(fc=ROLE_COLOURS[r], ec="#333333", label=r) for r in present],
            loc="upper right",
            fontsize=7,
            frameon=False,
        )
    if graph.n_nodes:
        ax.set_xlim(pos[:, 0].min() - 1, pos[:, 0].max() + 1)
        ax.set_ylim(pos[:, 1].min() - 0.7, pos[:, 1].max() + 0.7)
    save_figure(fig, path, fmt)
