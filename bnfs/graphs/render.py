"""Text and pictures of a graph: networkx, DOT, JSON, drawings, and the roles of a target's
blanket. They work on anything with the graph interface (``nodes``, ``arcs``, ``edges``,
``parents``, ``children``, ``undirected``, ``markov_blanket``, ``learning``), so
:mod:`bnfs.graphs.graph` offers them as methods without a cycle; :mod:`bnfs.models.export` re-exports
them beside the readers."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np

from bnfs.graphs._layout import layered_layout
from bnfs.tables._files import replacing, write_atomically

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
    >>> from bnfs.models.export import from_json
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
        shows: ``DAG._repr_html_``).
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
    dot = _graphviz(graph, highlight, engine)
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


#: matplotlib metadata set to None, so that none is written: no creation date (the same
#: graph gives the same bytes) and no RDF block with namespace URLs in an SVG
_NO_METADATA = {
    "svg": {"Creator": None, "Date": None, "Format": None, "Type": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    "png": {"Software": None},
}


#: pixels per inch of a PNG picture, and its least width in pixels
PNG_DPI = 200
PNG_WIDTH = 1200


def save_figure(figure, target, fmt: str, **options) -> None:
    """``figure.savefig`` without metadata; ``target`` is a path or a file object. PNGs at
    :data:`PNG_DPI` and at least :data:`PNG_WIDTH` pixels wide (matplotlib's 100 dots per
    inch made a small network 544 x 420 pixels)."""
    if fmt == "png":  # at least PNG_WIDTH pixels across, however few the nodes
        width = float(figure.get_size_inches()[0])
        options.setdefault("dpi", max(PNG_DPI, PNG_WIDTH / max(width, 0.1)))
    figure.savefig(target, format=fmt, metadata=_NO_METADATA.get(fmt), **options)


def _svg_text(graph, highlight: str | None, engine: str) -> str:
    """The picture as SVG text: graphviz's when ``dot`` is there (and allowed), else
    matplotlib's."""
    dot = _graphviz(graph, highlight, engine)
    if engine == "graphviz" or (engine == "auto" and dot is not None):
        done = subprocess.run(
            [dot, "-Tsvg"], input=to_dot(graph, highlight).encode(), capture_output=True
        )
        if done.returncode == 0:
            return done.stdout.decode()
    buffer = io.BytesIO()
    _draw_matplotlib(graph, buffer, "svg", highlight)
    return buffer.getvalue().decode()


def _graphviz(graph, highlight: str | None, engine: str) -> str | None:
    """The path of graphviz's ``dot`` program, or None when it is not on PATH, after the
    checks of ``engine`` and ``highlight`` (``engine="graphviz"`` needs ``dot``)."""
    if engine not in ("auto", "graphviz", "matplotlib"):
        raise ValueError(f"engine must be 'auto', 'graphviz' or 'matplotlib', got {engine!r}")
    if highlight is not None and highlight not in graph:
        raise ValueError(f"highlight {highlight!r} is not a node of the graph")
    dot = shutil.which("dot")
    if engine == "graphviz" and dot is None:
        raise RuntimeError("engine='graphviz' needs the graphviz 'dot' program on PATH")
    return dot


def _draw_matplotlib(graph, path, fmt: str, highlight: str | None) -> None:
    save_figure(figure(graph, highlight), path, fmt)


#: the labels' font size (points) and the padding of their boxes (in font sizes)
FONT_SIZE, PAD = 8, 0.3


def figure(graph, highlight: str | None = None):
    """The matplotlib ``Figure`` of the drawing without graphviz: a layered layout
    (:func:`bnfs.graphs._layout.layered_layout`) whose links never cross a node's box. Node labels
    carry ``gid="node-<name>"``, links ``gid="link-<u>-<v>"``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.patches import FancyArrowPatch, Patch
    from matplotlib.path import Path as Polyline

    check_graph(graph)
    roles = blanket_roles(graph, highlight) if highlight is not None else {}
    fig = Figure()
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    font = FontProperties(size=FONT_SIZE)
    pad = 2 * PAD * FONT_SIZE / 72  # inches, both sides
    widths = {}
    for node in graph.nodes:
        w, _, _ = renderer.get_text_width_height_descent(node, font, ismath=False)
        widths[node] = w / fig.dpi + pad + 0.04
    _, h, _ = renderer.get_text_width_height_descent("Ag", font, ismath=False)
    layout = layered_layout(graph, widths, h / fig.dpi + pad + 0.04)
    ys = [y for _, y in layout.centres.values()] or [0.0]
    left = min(x - widths[v] / 2 for v, (x, _) in layout.centres.items()) if widths else -1
    right = max(x + widths[v] / 2 for v, (x, _) in layout.centres.items()) if widths else 1
    for points in layout.routes.values():
        left = min([left, *(p[0] for p in points)])
        right = max([right, *(p[0] for p in points)])
    margin = 0.3
    size = (min(right - left + 2 * margin, 200.0), max(ys) - min(ys) + 2 * layout.band + 2 * margin)
    fig.set_size_inches(max(size[0], 3.0), max(size[1], 2.0))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    width_in, height_in = fig.get_size_inches()
    centre_x = (left + right) / 2
    centre_y = (max(ys) + min(ys)) / 2
    ax.set_xlim(centre_x - width_in / 2, centre_x + width_in / 2)  # one unit = one inch
    ax.set_ylim(centre_y - height_in / 2, centre_y + height_in / 2)
    undirected = {tuple(e) for e in graph.edges}
    for (u, v), points in layout.routes.items():
        codes = [Polyline.MOVETO] + [Polyline.LINETO] * (len(points) - 1)
        ax.add_patch(
            FancyArrowPatch(
                path=Polyline(points, codes),
                arrowstyle="-" if (u, v) in undirected else "-|>",
                mutation_scale=11,
                color="#555555",
                lw=0.9,
                shrinkA=0,
                shrinkB=0,
                gid=f"link-{u}-{v}",
            )
        )
    for node, (x, y) in layout.centres.items():
        ax.text(
            x,
            y,
            node,
            ha="center",
            va="center",
            fontsize=FONT_SIZE,
            parse_math=False,  # names are drawn literally: "$x$" is not mathtext
            gid=f"node-{node}",
            bbox=dict(
                boxstyle=f"round,pad={PAD}",
                fc=ROLE_COLOURS[roles.get(node, "other")],
                ec="#333333",
                lw=0.8,
            ),
        )
    if highlight is not None:
        present = [r for r in ROLE_COLOURS if r != "other" and r in roles.values()]
        ax.legend(
            handles=[Patch(fc=ROLE_COLOURS[r], ec="#333333", label=r) for r in present],
            loc="upper right",
            fontsize=7,
            frameon=False,
        )
    return fig


#: hubs named on the overview's axes
OVERVIEW_HUBS = 10


def overview_svg(graph) -> str:
    """A picture of a graph too large to draw node by node: its adjacency matrix with the
    nodes in topological order, a dot per arc (row: parent, column: child; undirected
    edges both ways, in another colour), the best-connected nodes named on the axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    check_graph(graph)
    order = graph.topological_order()
    place = {v: k for k, v in enumerate(order)}
    fig = Figure(figsize=(6.5, 6.5))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.2, 0.2, 0.75, 0.72))
    for links, colour, label in (
        (graph.arcs, "#1f4e79", f"{graph.n_arcs} arcs"),
        ([*graph.edges, *((v, u) for u, v in graph.edges)], "#c55a11", f"{graph.n_edges} edges"),
    ):
        if links:
            ax.scatter(
                [place[v] for _, v in links],
                [place[u] for u, _ in links],
                s=4,
                c=colour,
                marker="s",
                linewidths=0,
                label=label,
            )
    n = max(graph.n_nodes, 1)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_aspect("equal")
    hubs = sorted(graph.nodes, key=lambda v: (-len(graph.neighbours(v)), v))[:OVERVIEW_HUBS]
    ticks = []
    for k in sorted(place[v] for v in hubs):  # names at least 1/40 of the axis apart
        if not ticks or k - ticks[-1] >= n / 40:
            ticks.append(k)
    names = [order[k] for k in ticks]
    ax.set_xticks(ticks, names, rotation=90, fontsize=6, parse_math=False)
    ax.set_yticks(ticks, names, fontsize=6, parse_math=False)
    ax.set_xlabel("child (nodes in topological order)", fontsize=8)
    ax.set_ylabel("parent", fontsize=8)
    ax.set_title(f"{graph.n_nodes} nodes; best-connected ones named", fontsize=9)
    if graph.n_arcs or graph.n_edges:
        ax.legend(loc="lower left", fontsize=7, markerscale=3, frameon=False)
    buffer = io.BytesIO()
    save_figure(fig, buffer, "svg")
    return buffer.getvalue().decode()
