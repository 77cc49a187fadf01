"""Pictures without graphviz: on the drawing's own geometry (the boxes and paths matplotlib
draws), no link crosses a node box other than its two ends', and no two boxes overlap."""

import numpy as np
import pytest
from matplotlib.patches import FancyArrowPatch

import bnfs
from bnfs.graphs.render import figure


def _crosses(a, b, box, inset: float = 1.0) -> bool:
    """Whether segment a-b enters box (x0, y0, x1, y1) shrunk by ``inset`` (Liang-Barsky)."""
    x0, y0, x1, y1 = box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    low, high = 0.0, 1.0
    for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low > high:
            return False
    return True


def _geometry(graph, highlight=None):
    fig = figure(graph, highlight)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    boxes = {}
    for text in ax.texts:
        extent = text.get_bbox_patch().get_window_extent(renderer)
        boxes[text.get_gid().removeprefix("node-")] = (extent.x0, extent.y0, extent.x1, extent.y1)
    links = {}
    for patch in ax.patches:
        if isinstance(patch, FancyArrowPatch):
            # the drawn shape: the line and the arrowhead, as polylines
            parts = patch.get_path().to_polygons(closed_only=False)
            links[patch.get_gid()] = [ax.transData.transform(part) for part in parts]
    return boxes, links


def _random_dag(n: int, p: float, seed: int) -> bnfs.DAG:
    rng = np.random.default_rng(seed)
    names = [f"{'variable_' * int(rng.integers(0, 3))}v{i}" for i in range(n)]
    arcs = [(names[i], names[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < p]
    return bnfs.DAG(names, arcs)


GRAPHS = {
    "alarm": lambda: bnfs.datasets.network("alarm"),
    "survey PDAG": lambda: bnfs.pc_stable(bnfs.datasets.load_survey().dropna()),
    "random long labels": lambda: _random_dag(30, 0.12, 1),
    "random dense": lambda: _random_dag(18, 0.3, 2),
    "undirected chain": lambda: bnfs.PDAG(
        ["a", "b", "c", "d"], edges=[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
    ),
}


@pytest.mark.parametrize("name", GRAPHS)
def test_no_link_crosses_a_box(name):
    graph = GRAPHS[name]()
    boxes, links = _geometry(graph, highlight=graph.nodes[0])
    assert len(boxes) == graph.n_nodes and len(links) == graph.n_arcs + graph.n_edges
    names = sorted(boxes)
    for i, u in enumerate(names):  # boxes apart
        for v in names[i + 1 :]:
            a, b = boxes[u], boxes[v]
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (u, v)
    ends = {f"link-{u}-{v}": (u, v) for u, v in [*graph.arcs, *graph.edges]}
    for gid, parts in links.items():
        u, v = ends[gid]
        for points in parts:
            for a, b in zip(points, points[1:]):
                crossed = [w for w, box in boxes.items() if w not in (u, v) and _crosses(a, b, box)]
                assert not crossed, f"{u} - {v} crosses {crossed}"
    # each link starts at its first end's box and ends at its second's
    for gid, parts in links.items():
        u, v = ends[gid]
        for end, point in ((u, parts[0][0]), (v, parts[0][-1])):
            x0, y0, x1, y1 = boxes[end]
            assert x0 - 5 <= point[0] <= x1 + 5 and y0 - 5 <= point[1] <= y1 + 5  # at its edge


def test_the_crossing_check_sees_a_crossing():
    assert _crosses((0, 0), (10, 10), (4, 4, 6, 6))
    assert not _crosses((0, 0), (10, 0), (4, 4, 6, 6))
    assert not _crosses((0, 0), (3, 3), (4, 4, 6, 6))


_DOLLARS = ["$x$", "y", r"$\frac{$", "a$b$c", "$"]


def _glyphs(svg: str) -> set[str]:
    import re

    return set(re.findall(r'id="(DejaVu[^"]+)"', svg))


def test_names_with_dollars_are_drawn_literally_everywhere(tmp_path, monkeypatch):
    """matplotlib read "$x$" as mathtext (an italic x: a silent mislabel) and failed on an
    unbalanced "$\\frac{$"; every picture of a graph now draws names as they are."""
    from bnfs import cli
    from bnfs.graphs.render import overview_svg
    from bnfs.graphs.report import network_report

    dag = bnfs.DAG(_DOLLARS, [("$x$", "y"), (r"$\frac{$", "y"), ("a$b$c", "$")])
    for svg in (
        dag.draw(engine="matplotlib"),
        dag._repr_html_(),
        overview_svg(dag),
        network_report(dag, title="t", highlight="y"),
    ):
        assert not any("Oblique" in g for g in _glyphs(svg))  # no mathtext italics
        assert len(_glyphs(svg)) >= len(set("".join(_DOLLARS)))  # every character drawn
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "")  # no graphviz: matplotlib draws the report
    rng = np.random.default_rng(0)
    frame = {name: rng.integers(0, 2, 300) for name in _DOLLARS}
    frame["y"] = frame["$x$"] ^ (rng.random(300) < 0.1)
    import pandas as pd

    pd.DataFrame(frame).to_csv("d.csv", index=False)
    assert cli.main(["learn", "d.csv", "--out", "o.json", "--report", "r.html", "--quiet"]) == 0
    assert "Oblique" not in (tmp_path / "r.html").read_text()
    assert cli.main(["draw", "o.json", "--out", "x.png"]) == 0


def test_pictures_and_reports_are_readable(tmp_path):
    """Item 20 of issue 42: a small network's PNG was 544 x 420 px and its report picture
    523 px on a 1,280 px page; provenance printed JSON with 17 digits; the accuracy axis
    spanned 0.9397-0.9403, so two majority-rate classifiers looked different."""
    import re

    from PIL import Image

    from bnfs.graphs.report import curve_figure, network_report, readable, selection_report

    lucas = bnfs.DAG(
        ["Smoking", "Genetics", "Lung_cancer", "Coughing", "Fatigue"],
        [("Smoking", "Lung_cancer"), ("Genetics", "Lung_cancer"), ("Lung_cancer", "Coughing")]
        + [("Lung_cancer", "Fatigue"), ("Coughing", "Fatigue")],
        learning={"score_value": -1234.567890123456, "arguments": {"iss": 1.0, "beta": None}},
    )
    path = lucas.draw(tmp_path / "x.png", engine="matplotlib")
    assert Image.open(path).size[0] >= 1000
    page = network_report(lucas, title="t")
    assert ".figure svg { width: 100%" in page
    assert "-1234.57" in page and "1234.567890" not in page
    assert "{" not in page.split("<h2>Provenance</h2>")[1]
    assert readable([("a", "b"), ("c", "d")]) == "a -> b, c -> d"
    assert readable({"x": 0.1 + 0.2, "y": [1, 2]}) == "x: 0.3; y: 1, 2"
    curve = [(1, 0.9397), (2, 0.9400), (3, 0.9403)]
    assert curve_figure(curve, 0.94).axes[0].get_ylim() == (0.0, 1.0)
    page = selection_report(title="t", features=["a"], facts={}, curve=curve, baseline=0.94)
    assert len(re.findall(r'id="ytick_\d+"', page)) == 6  # 0, 0.2, ..., 1


@pytest.mark.parametrize("n, extra", [(60, 0), (30, 120)])
def test_a_large_network_is_drawn_as_the_targets_neighbourhood(n, extra):
    """Issue 59, item 17: wdbc (197 arcs) and coil2000 (243) drew as hairballs; past a size
    the report draws the target's blanket large and folds the whole network below."""
    import re

    from bnfs.graphs.report import READABLE_LINKS, READABLE_NODES, network_report

    rng = np.random.default_rng(n)
    names = [f"v{i}" for i in range(n)]
    arcs = {(names[i], names[i + 1]) for i in range(n - 1)}
    while len(arcs) < n - 1 + extra:
        i, j = sorted(rng.choice(n, 2, replace=False))
        arcs.add((names[i], names[j]))
    dag = bnfs.DAG(names, sorted(arcs))
    assert dag.n_nodes > READABLE_NODES or dag.n_arcs > READABLE_LINKS
    target = "v5"
    page = network_report(dag, title="big", highlight=target)
    pictures = re.findall(r"<svg.*?</svg>", page, flags=re.S)
    assert len(pictures) == 2 and "<details><summary>The whole network" in page
    first, whole = pictures
    blanket = set(dag.markov_blanket(target))
    outside = [v for v in names if v not in blanket and v != target]
    assert f"node-{target}" in first and all(f"node-{v}<" not in first for v in outside[:5])
    assert all(f"node-{v}" in whole for v in names[:5])
    small = network_report(
        dag.subgraph([target, *sorted(blanket)][:10]), title="s", highlight=target
    )
    assert "<details>" not in small


def test_a_report_lists_the_strongest_links_of_a_strength_frame():
    import pandas as pd

    from bnfs.graphs.report import STRENGTH_ROWS, network_report

    names = [f"n{i}" for i in range(12)]
    rows = [
        (u, v, (i * 12 + j) / 200, 0.8 if i < j else 0.2)
        for i, u in enumerate(names)
        for j, v in enumerate(names)
        if u != v
    ]
    strength = pd.DataFrame(rows, columns=["from", "to", "strength", "direction"])
    page = network_report(bnfs.DAG(names), title="t", strength=strength)
    listed = page[page.index("Strongest links") :]
    assert listed.count("<tr><td>") == STRENGTH_ROWS  # one row per pair, the strongest
    assert "<td>n10</td><td>n11</td>" in listed and "<td>n11</td><td>n10</td>" not in listed
    with pytest.raises(TypeError, match="columns from, to, strength, direction"):
        network_report(bnfs.DAG(names), title="t", strength=pd.DataFrame({"a": [1]}))
