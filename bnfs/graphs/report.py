"""Self-contained HTML reports of a learned network or a feature selection: inline SVG,
no scripts, no network access needed to open them."""

from __future__ import annotations

import html
import io
import json
import re
import tempfile
from pathlib import Path

from bnfs.graphs.render import check_graph, overview_svg, save_figure

__all__ = ["network_report", "selection_report", "svg_of"]

_STYLE = """
body { font-family: Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; } td, th { padding: 0.25em 0.8em; text-align: left;
       border-bottom: 1px solid #ddd; vertical-align: top; }
.figure svg { width: 100%; height: auto; max-height: 90vh; } code { background: #f4f4f4; }
"""


def svg_of(graph, highlight: str | None = None) -> str:
    """The picture of ``graph`` as an inline ``<svg>`` element (no XML prolog).

    Examples
    --------
    >>> from bnfs import datasets
    >>> svg_of(datasets.network("asia"), highlight="either").startswith("<svg")
    True
    """
    check_graph(graph)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.svg"
        graph.draw(path, highlight=highlight)
        text = path.read_text(encoding="utf-8")
    return _inline(text)


#: past this many nodes or links (arcs and edges) a report draws the highlighted node's
#: blanket and puts the whole network behind a fold: wdbc's 197 arcs drew as a hairball
#: with 6-pixel labels
READABLE_NODES, READABLE_LINKS = 40, 80


def figure_of(graph, highlight: str | None = None) -> str:
    """The report's picture of ``graph``: the whole of it while it stays readable (up to
    :data:`READABLE_NODES` nodes and :data:`READABLE_LINKS` links); past that, the
    neighbourhood of ``highlight`` (it and its Markov blanket, with the links among them)
    with the links that make the blanket (to and from it, and into its children) drawn
    large, and the whole network in a fold below (opened on a click).

    Examples
    --------
    >>> from bnfs import DAG
    >>> star = DAG(["t", *map(str, range(50))], arcs=[("t", str(i)) for i in range(50)])
    >>> page = figure_of(star.subgraph(["t", "0", "1"]), "t")
    >>> "<details>" in page, "<details>" in figure_of(star, "t")
    (False, True)
    """
    links = graph.n_arcs + graph.n_edges
    if graph.n_nodes <= READABLE_NODES and links <= READABLE_LINKS:
        return f'<div class="figure">{svg_of(graph, highlight)}</div>'
    whole = (
        f"<details><summary>The whole network ({graph.n_nodes} nodes, {links} links)"
        f'</summary><div class="figure">{svg_of(graph, highlight)}</div></details>'
    )
    if highlight is None or highlight not in graph.nodes:
        note = (
            f"<p>{graph.n_nodes} nodes and {links} links are too many to read in one picture.</p>"
        )
        return note + whole
    kept = [highlight, *graph.markov_blanket(highlight)]
    children = set(graph.children(highlight))
    # the links that make the blanket: to and from the node, and into its children
    arcs = [(u, v) for u, v in graph.arcs if highlight in (u, v) or (v in children and u in kept)]
    edges = [(u, v) for u, v in graph.edges if highlight in (u, v)]
    which = "the links that make the blanket"
    if len(arcs) + len(edges) > READABLE_LINKS:  # a dense blanket: its own links only
        arcs = [(u, v) for u, v in arcs if highlight in (u, v)]
        which = "its own links (those of its spouses to its children are in the whole network)"
    part = type(graph)(kept, arcs, **({"edges": edges} if not graph.is_directed else {}))
    note = (
        f"<p>The neighbourhood of <code>{html.escape(highlight)}</code>: it and its Markov "
        f"blanket, {len(kept)} of {graph.n_nodes} nodes, with {which}; the whole network, "
        f"{links} links, is below.</p>"
    )
    return note + f'<div class="figure">{svg_of(part, highlight)}</div>' + whole


def _inline(svg: str) -> str:
    start = svg.find("<svg")
    if start < 0:
        raise ValueError("not an SVG document")
    return re.sub(r"<!--.*?-->", "", svg[start:], flags=re.S)


def _rows(pairs) -> str:
    return "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in pairs
    )


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def readable(value, depth: int = 0) -> str:
    """A provenance value as a person reads it: numbers to 6 significant digits, lists
    joined by commas, records as ``key: value`` pairs (JSON printed 17 digits and braces)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (int, str)):
        return str(value)
    if depth > 4:  # deep records are rare; JSON keeps them whole
        return json.dumps(value, default=str)
    if isinstance(value, dict):
        if not value:
            return "-"
        return "; ".join(f"{k}: {readable(v, depth + 1)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        if not value:
            return "-"
        inner = [readable(v, depth + 1) for v in value]
        if all(isinstance(v, (list, tuple)) and len(v) == 2 for v in value):  # arcs
            inner = [" -> ".join(readable(x, depth + 1) for x in v) for v in value]
        return (" | " if any(isinstance(v, dict) for v in value) else ", ").join(inner)
    return str(value)


def _provenance(learning: dict) -> str:
    pairs = [(k, readable(v)) for k, v in learning.items()]
    return f"<h2>Provenance</h2><table>{_rows(pairs)}</table>"


#: nodes beyond which a notebook shows the best-connected nodes instead of a picture
NOTEBOOK_DRAWN = 150

#: what a notebook's summary of a graph shows from ``learning``, when present
NOTEBOOK_FACTS = (
    "algorithm",
    "chosen",
    "score",
    "score_value",
    "test",
    "alpha",
    "seconds",
    "compile_seconds",
    "n_scores",
    "n_tests",
    "stopped_early",
)


def notebook_html(graph) -> str:
    """What a notebook shows for a graph (``_repr_html_``): its size and how it was learned,
    the picture (up to :data:`NOTEBOOK_DRAWN` nodes; beyond, the adjacency-matrix overview
    of :func:`bnfs.graphs.render.overview_svg` and the best-connected nodes with their numbers of
    neighbours), and the whole ``learning`` record folded away.

    Examples
    --------
    >>> from bnfs import datasets
    >>> page = notebook_html(datasets.network("asia"))
    >>> "8 nodes" in page and "<svg" in page
    True
    """
    kind = type(graph).__name__
    size = f"{graph.n_nodes} nodes, {graph.n_arcs} arcs"
    if getattr(graph, "n_edges", 0):
        size += f", {graph.n_edges} undirected edges"
    learning = getattr(graph, "learning", {}) or {}
    facts = [
        (key, _short(key, learning[key]))
        for key in NOTEBOOK_FACTS
        if learning.get(key) is not None and not (key == "compile_seconds" and not learning[key])
    ]  # compile seconds only when the call compiled kernels (their first use)
    parts = [f"<div><strong>{kind}</strong>: {html.escape(size)}"]
    if facts:
        parts.append(f"<table>{_rows(facts)}</table>")
    if graph.n_nodes <= NOTEBOOK_DRAWN:
        parts.append(svg_of(graph))
    else:
        degree = sorted(graph.nodes, key=lambda v: (-len(graph.neighbours(v)), v))[:10]
        parts.append(
            f"<p>{graph.n_nodes} nodes are too many to draw one by one here "
            "(graph.draw(path) writes that picture): the adjacency matrix instead, and the "
            "best-connected nodes with their numbers of neighbours.</p>"
            f"{_inline(overview_svg(graph))}"
            f"<table>{_rows((v, len(graph.neighbours(v))) for v in degree)}</table>"
        )
    if learning:
        parts.append(f"<details><summary>learning</summary>{_provenance(learning)}</details>")
    return "".join(parts) + "</div>"


def _short(key: str, value):
    """A learning value as a notebook's summary shows it."""
    if key in ("seconds", "compile_seconds") and isinstance(value, float):
        return f"{value:.2f} s"
    return format(value, ".6g") if isinstance(value, float) else value


#: the most node pairs a report lists from a strength table
STRENGTH_ROWS = 40


def network_report(
    graph,
    *,
    title: str,
    highlight: str | None = None,
    facts: dict | None = None,
    strength=None,
) -> str:
    """HTML page: the graph (with ``highlight``'s blanket coloured), its blanket by role,
    ``facts`` (data, scores, timings), the strongest pairs of ``strength`` (a frame in
    :func:`bnfs.boot_strength`'s shape: the bootstrap's or
    :attr:`bnfs.posterior.StructurePosterior.strength`) and the learning provenance
    (``graph.learning``).

    Examples
    --------
    >>> from bnfs import datasets
    >>> page = network_report(datasets.network("asia"), title="asia", highlight="either")
    >>> page.startswith("<!DOCTYPE html>"), "Markov blanket of either" in page
    (True, True)
    """
    body = [figure_of(graph, highlight)]
    if facts:
        body.append(f"<h2>Summary</h2><table>{_rows(facts.items())}</table>")
    if highlight is not None:
        roles = graph.blanket_listing(highlight).items()
        body.append(
            f"<h2>Markov blanket of {html.escape(highlight)}</h2><table>"
            + _rows((role, ", ".join(names) or "-") for role, names in roles)
            + "</table>"
        )
    if strength is not None:
        body.append(_strength_table(strength))
    body.append(_provenance(getattr(graph, "learning", {}) or {}))
    return _page(title, "".join(body))


def _strength_table(strength) -> str:
    """The strongest :data:`STRENGTH_ROWS` pairs of a strength frame, one row per pair."""
    try:
        rows = list(
            zip(strength["from"], strength["to"], strength["strength"], strength["direction"])
        )
    except (KeyError, TypeError):
        raise TypeError(
            "strength must be a frame with columns from, to, strength, direction "
            "(boot_strength's, or a StructurePosterior's .strength)"
        ) from None
    rows = [r for r in rows if r[2] > 0]
    rows.sort(key=lambda r: (-r[2], str(r[0]), str(r[1])))
    seen, shown = set(), []
    for u, v, s, d in rows:
        if frozenset((u, v)) in seen:
            continue
        seen.add(frozenset((u, v)))
        shown.append((u, v, s, d) if d >= 0.5 else (v, u, s, 1.0 - d))
        if len(shown) == STRENGTH_ROWS:
            break
    head = "<tr><th>from</th><th>to</th><th>strength</th><th>direction</th></tr>"
    cells = "".join(
        f"<tr><td>{html.escape(str(u))}</td><td>{html.escape(str(v))}</td>"
        f"<td>{s:.3f}</td><td>{d:.3f}</td></tr>"
        for u, v, s, d in shown
    )
    return (
        f"<h2>Strongest links</h2><p>The {len(shown)} strongest of {len(seen)} linked pairs: "
        "strength is the probability that the two are linked, direction the share of it "
        f"pointing from -> to.</p><table>{head}{cells}</table>"
    )


def selection_report(
    *,
    title: str,
    features: list[str],
    facts: dict,
    curve: list[tuple[int, float]] | None = None,
    baseline: float | None = None,
    graph=None,
    highlight: str | None = None,
) -> str:
    """HTML page of a selection: the features, ``facts`` (method, timings, scores), a plot
    of accuracy against the number of features (``curve``, with the accuracy of all
    features, ``baseline``, as a line) and, when the selector learned one, the network.

    Examples
    --------
    >>> page = selection_report(title="t", features=["a"], facts={"method": "fcbf"},
    ...                         curve=[(1, 0.8), (2, 0.9)])
    >>> "Accuracy against the number of features" in page
    True
    """
    body = [
        f"<h2>Selected features ({len(features)})</h2><p>"
        + (", ".join(f"<code>{html.escape(str(f))}</code>" for f in features) or "none")
        + "</p>",
        f"<h2>Summary</h2><table>{_rows(facts.items())}</table>",
    ]
    if curve:
        body.append(
            "<h2>Accuracy against the number of features</h2>"
            f'<div class="figure">{_curve_svg(curve, baseline)}</div>'
        )
    if graph is not None:
        body.append(f"<h2>Learned network</h2>{figure_of(graph, highlight)}")
        body.append(_provenance(getattr(graph, "learning", {}) or {}))
    return _page(title, "".join(body))


def _curve_svg(curve: list[tuple[int, float]], baseline: float | None = None) -> str:
    buffer = io.StringIO()
    save_figure(curve_figure(curve, baseline), buffer, "svg", bbox_inches="tight")
    return _inline(buffer.getvalue())


def curve_figure(curve: list[tuple[int, float]], baseline: float | None = None):
    """The figure of accuracy against the number of features, the axis from 0 to 1."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(6, 3.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    counts, scores = zip(*curve)
    axes.plot(counts, scores, marker="o", label="selected features, in order")
    if baseline is not None:
        axes.axhline(baseline, color="#888888", linestyle="--", label="all features")
        axes.legend(loc="lower right", frameon=False)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("number of features (in the selector's order)")
    axes.set_ylabel("cross-validated accuracy")
    axes.set_ylim(0.0, 1.0)  # anchored: equal accuracies look equal, whatever their spread
    axes.grid(alpha=0.3)
    return figure
