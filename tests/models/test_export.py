"""Export and import round trips, BIF, pictures by both engines."""

import os
import re
import shutil
import stat
import sys
import xml.etree.ElementTree as ET

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given

import bnfs
from bnfs import DAG, PDAG, Dataset, datasets
from bnfs.io import from_json, from_networkx, from_pgmpy, to_pgmpy
from bnfs.models.bif import parse_bif, read_bif, write_bif
from bnfs.models.network import DiscreteNetwork
from strategies import random_dags


@given(random_dags())
def test_networkx_and_json_round_trip(g):
    g.learning = {"algorithm": "test", "n_scores": np.int64(3)}
    assert from_networkx(g.to_networkx()) == g
    back = from_json(g.to_json())
    assert back == g and back.learning == {"algorithm": "test", "n_scores": 3}
    cpdag = g.cpdag()
    assert from_json(cpdag.to_json()) == cpdag
    # a CPDAG without undirected edges comes back as a DAG: compare the arcs both ways
    assert set(from_networkx(cpdag.to_networkx()).to_networkx().edges) == set(
        cpdag.to_networkx().edges
    )


def test_networkx_errors_and_undirected():
    assert from_networkx(nx.Graph([("a", "b")])) == PDAG(["a", "b"], edges=[("a", "b")])
    with pytest.raises(ValueError, match="cycle"):
        from_networkx(nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")]))
    with pytest.raises(TypeError, match="strings"):
        from_networkx(nx.DiGraph([(1, 2)]))
    with pytest.raises(TypeError, match="networkx"):
        from_networkx([("a", "b")])
    with pytest.raises(ValueError, match="format"):
        from_json('{"nodes": []}')


def test_json_file_round_trip(tmp_path):
    g = datasets.network("asia")
    path = tmp_path / "asia.json"
    from bnfs.models.export import to_json

    to_json(g, path)
    assert from_json(path) == g


def test_pgmpy_round_trip_with_fitted_tables():
    model = datasets.network_model("asia")
    frame = model.sample(20_000, seed=3)
    pg = to_pgmpy(model.dag, data=frame)
    assert from_pgmpy(pg) == model.dag
    assert pg.check_model()
    cpd = pg.get_cpds("tub")
    # fitted P(tub = yes | asia = no) near the true 0.01
    table = cpd.values  # (tub, asia)
    yes, no = cpd.state_names["tub"].index("yes"), cpd.state_names["asia"].index("no")
    assert abs(table[yes, no] - 0.01) < 0.005
    assert from_pgmpy(to_pgmpy(model.dag)) == model.dag
    with pytest.raises(TypeError, match="to_dag"):
        to_pgmpy(model.dag.cpdag())
    # the true tables go across unchanged
    true_pg = model.to_pgmpy()
    assert true_pg.check_model()
    np.testing.assert_allclose(true_pg.get_cpds("asia").values, [0.01, 0.99])


@pytest.mark.parametrize("name", ["asia", "alarm", "insurance"])
def test_bif_round_trip(name, tmp_path):
    net = datasets.network_model(name)
    path = tmp_path / f"{name}.bif.gz"
    write_bif(net, path)
    back = read_bif(path)
    assert back.dag == net.dag and back.states == net.states
    for v in net.dag.nodes:
        np.testing.assert_allclose(back.cpts[v], net.cpts[v])


def test_bif_matches_pgmpy_reader():
    import gzip

    from pgmpy.readwrite import BIFReader

    from bnfs.datasets import _pgmpy_models_dir

    text = gzip.open(_pgmpy_models_dir() / "alarm.bif.gz", "rt").read()
    ours = parse_bif(text)
    theirs = BIFReader(string=text).get_model()
    assert ours.dag == from_pgmpy(theirs)
    for v in ["HR", "LVEDVOLUME", "CATECHOL"]:
        cpd = theirs.get_cpds(v)
        parents = cpd.variables[1:]
        # pgmpy: values[child state, parent configs...] in its evidence order
        values = cpd.values.reshape((cpd.variable_card, *cpd.cardinality[1:]))
        for index in np.ndindex(*values.shape):
            states = {var: cpd.state_names[var][i] for var, i in zip(cpd.variables, index)}
            ours_index = tuple(ours.states[p].index(states[p]) for p in ours.dag.parents(v))
            assert ours.cpts[v][ours_index + (ours.states[v].index(states[v]),)] == pytest.approx(
                values[index]
            )
        assert sorted(parents) == sorted(ours.dag.parents(v))


@pytest.mark.parametrize(
    "column, levels, message",
    [
        ("smoker status", ("a", "b"), "variable name 'smoker status'"),
        ("x", ('12"', "b"), "level '12\"' of 'x'"),
        ("x", ("a b", "c"), "level 'a b' of 'x'"),
        ("x", ("a,b", "c"), "level 'a,b' of 'x'"),
        ("x(1)", ("a", "b"), "variable name 'x(1)'"),
        ("x", ("{a}", "b"), "level '{a}' of 'x'"),
    ],
)
def test_bif_refuses_what_it_cannot_hold_before_writing(column, levels, message, tmp_path):
    frame = pd.DataFrame({column: list(levels) * 4, "y": ["u", "v", "v", "u"] * 2})
    network = DiscreteNetwork.fit(DAG([column, "y"], [(column, "y")]), frame)
    path = tmp_path / "net.bif"
    with pytest.raises(ValueError, match=re.escape(message)):
        write_bif(network, path)
    assert not path.exists()


def test_bif_holds_every_writable_name_for_bnfs_and_pgmpy(tmp_path):
    """Odd but writable names and levels (signs, dots, dashes, unicode) come back unchanged
    through bnfs's reader and pgmpy's."""
    from pgmpy.readwrite import BIFReader

    frame = pd.DataFrame(
        {
            "dose-mg.2": ["<5", ">=10", "5-10", "1/2"] * 3,
            "état": ["oui", "non", "non"] * 4,
            "_k": ["+1", "-1", "0"] * 4,
        }
    )
    dag = DAG(list(frame.columns), [("dose-mg.2", "état"), ("_k", "état")])
    network = DiscreteNetwork.fit(dag, frame, pseudo_count=1.0, name="my net")
    text = write_bif(network, tmp_path / "odd.bif")
    back = read_bif(tmp_path / "odd.bif")
    assert back.dag == dag and back.states == network.states
    theirs = BIFReader(string=text).get_model()
    assert from_pgmpy(theirs) == dag
    for v in dag.nodes:
        assert sorted(theirs.get_cpds(v).state_names[v]) == sorted(network.states[v])


def test_bif_errors():
    with pytest.raises(ValueError, match="undeclared variable"):
        parse_bif(
            "variable a { type discrete [ 2 ] { x, y }; } probability ( b ) { table 0.5, 0.5; }"
        )
    with pytest.raises(ValueError, match="misses some parent configurations"):
        parse_bif(
            "variable a { type discrete [ 2 ] { x, y }; } variable b { type discrete [ 2 ] { x, y }; }"
            "probability ( a ) { table 0.5, 0.5; } probability ( b | a ) { (x) 0.5, 0.5; }"
        )
    defaulted = parse_bif(
        "variable a { type discrete [ 2 ] { x, y }; } variable b { type discrete [ 2 ] { x, y }; }"
        "probability ( a ) { table 0.5, 0.5; } probability ( b | a ) { (x) 0.1, 0.9; default 0.3, 0.7; }"
    )
    np.testing.assert_allclose(defaulted.cpts["b"], [[0.1, 0.9], [0.3, 0.7]])


_AB = "variable a { type discrete [ 2 ] { x, y }; } variable b { type discrete [ 2 ] { x, y }; }"
_C = "variable c { type discrete [ 3 ] { u, v, w }; }"


@pytest.mark.parametrize(
    "blocks, message",
    [
        (
            "probability ( a ) { table 0.5, 0.5; }"
            "probability ( b | a ) { (x) 0.1, 0.9; (y) 0.5, 0.5; (x) 0.8, 0.2; }",
            r"parent configuration \(x\) of 'b' is given twice",
        ),
        (  # the same values twice is still a second row for one configuration
            "probability ( a ) { table 0.5, 0.5; }"
            "probability ( b | a ) { (y) 0.5, 0.5; (x) 0.1, 0.9; (y) 0.5, 0.5; }",
            r"parent configuration \(y\) of 'b' is given twice",
        ),
        (
            _C + "probability ( a ) { table 0.5, 0.5; } probability ( c ) { table 0.2, 0.3, 0.5; }"
            "probability ( b | a, c ) { (x, u) 0.1, 0.9; (x, v) 0.1, 0.9; (x, w) 0.1, 0.9;"
            "(y, u) 0.1, 0.9; (y, v) 0.1, 0.9; (y, w) 0.1, 0.9; (y, v) 0.9, 0.1; }",
            r"parent configuration \(y, v\) of 'b' is given twice",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; table 0.3, 0.7; }"
            "probability ( b ) { table 0.5, 0.5; }",
            "the table of 'a' is given twice",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; }"
            "probability ( b | a ) { default 0.5, 0.5; default 0.1, 0.9; }",
            "the default row of 'b' is given twice",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; }probability ( b | a, a ) { (x, x) 0.5, 0.5; }",
            "lists parent 'a' twice",
        ),
        ("probability ( a | a ) { (x) 0.5, 0.5; }", "lists it as a parent"),
    ],
)
def test_bif_refuses_a_table_entry_given_twice(blocks, message):
    with pytest.raises(ValueError, match=message):
        parse_bif(_AB + blocks)


def test_network_validation_and_fit():
    g = DAG(["a", "b"], [("a", "b")])
    with pytest.raises(ValueError, match="shape"):
        DiscreteNetwork(g, {"a": "xy", "b": "xy"}, {"a": [0.5, 0.5], "b": [0.5, 0.5]})
    with pytest.raises(ValueError, match="not probability distributions"):
        DiscreteNetwork(g, {"a": "xy", "b": "xy"}, {"a": [0.5, 0.6], "b": [[1, 0], [0, 1]]})
    data = Dataset(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]), names=["a", "b"])
    fitted = DiscreteNetwork.fit(g, data)
    np.testing.assert_allclose(fitted.cpts["b"], [[0.5, 0.5], [0.0, 1.0]])
    smoothed = DiscreteNetwork.fit(g, data, pseudo_count=1)
    np.testing.assert_allclose(smoothed.cpts["b"], [[0.5, 0.5], [1 / 4, 3 / 4]])


def _svg_texts(path):
    root = ET.parse(path).getroot()
    return {"".join(el.itertext()).strip() for el in root.iter() if el.tag.endswith("text")} | {
        el.get("id", "") for el in root.iter()
    }


def test_draw_with_matplotlib(tmp_path):
    g = datasets.network("alarm")
    path = g.draw(tmp_path / "alarm.svg", highlight="HYPOVOLEMIA", engine="matplotlib")
    ids = _svg_texts(path)
    assert all(f"node-{v}" in ids for v in g.nodes)
    png = g.cpdag().draw(tmp_path / "alarm.png", engine="matplotlib")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="format"):
        g.draw(tmp_path / "alarm.gif")
    with pytest.raises(ValueError, match="highlight"):
        g.draw(tmp_path / "x.svg", highlight="nope")


def test_dot_text_colours_the_blanket():
    g = DAG(["a", "t", "c", "s", "o"], [("a", "t"), ("t", "c"), ("s", "c"), ("o", "a")])
    dot = g.to_dot(highlight="t")
    assert '"t" [fillcolor="#f58518", tooltip="target"]' in dot
    assert 'tooltip="parent"' in dot and 'tooltip="child"' in dot and 'tooltip="spouse"' in dot
    assert '"o";' in dot and '"a" -> "t";' in dot
    assert "dir=none" in PDAG(["a", "b"], edges=[("a", "b")]).to_dot()


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz 'dot' not installed")
def test_draw_with_graphviz(tmp_path):
    g = datasets.network("asia")
    path = g.draw(tmp_path / "asia.svg", highlight="either", engine="graphviz")
    texts = _svg_texts(path)
    assert set(g.nodes) <= texts


def test_draw_calls_dot_when_present(tmp_path, monkeypatch):
    """The graphviz path, with a stand-in ``dot`` that records what it is given."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "dot"
    fake.write_text(
        f"#!{sys.executable}\nimport sys\nopen(sys.argv[-1], 'w').write(sys.stdin.read())\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ["PATH"])
    g = DAG(["a", "b"], [("a", "b")])
    out = g.draw(tmp_path / "g.svg", highlight="a")
    assert out.read_text() == g.to_dot(highlight="a")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(RuntimeError, match="graphviz"):
        g.draw(tmp_path / "g2.svg", engine="graphviz")
    assert g.draw(tmp_path / "g3.svg").exists()  # auto falls back to matplotlib


def test_names_that_xml_cannot_hold_are_refused_where_they_enter():
    """A control character in a name made GraphML and SVG that are not well-formed XML:
    names are refused when a Dataset or a graph is made; a level is refused by BIF."""
    with pytest.raises(
        ValueError,
        match=r"column name 'a\\x01' holds the control character "
        "U\\+0001",
    ):
        Dataset(pd.DataFrame({"a\x01": ["u", "v"], "b": ["u", "v"]}))
    with pytest.raises(ValueError, match="node name 'x\\\\ty' holds the control character"):
        DAG(["x\ty", "z"])
    frame = pd.DataFrame({"x": ["a\x02", "b"] * 4, "y": ["u", "v", "v", "u"] * 2})
    with pytest.raises(ValueError, match="BIF cannot hold the level"):
        write_bif(DiscreteNetwork.fit(DAG(["x", "y"], [("x", "y")]), frame))


def test_a_second_probability_block_for_a_node_is_refused():
    text = (
        "network n {}\nvariable a { type discrete [ 2 ] { x, y }; }\n"
        "probability ( a ) { table 0.5, 0.5; }\nprobability ( a ) { table 0.1, 0.9; }\n"
    )
    with pytest.raises(ValueError, match="a second probability block for 'a'"):
        parse_bif(text)


def test_a_graph_shows_itself_in_a_notebook_without_graphviz(tmp_path, monkeypatch):
    """``draw()`` without a path returns SVG text; on a fresh machine (no ``dot``) it is
    matplotlib's, with every node. A notebook gets one picture a graph (issue 71, item 15:
    ``_repr_svg_`` beside ``_repr_html_`` saved each twice)."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    g = datasets.network("asia")
    assert [m for m in dir(g) if m.startswith("_repr_")] == ["_repr_html_"]
    assert g._repr_html_().count("<svg") == 1
    svg = g.draw()
    (tmp_path / "shown.svg").write_text(svg)
    assert all(f"node-{v}" in _svg_texts(tmp_path / "shown.svg") for v in g.nodes)
    assert g.cpdag().draw(highlight="either").startswith("<?xml")
    with pytest.raises(ValueError, match="highlight"):
        g.draw(highlight="nope")
    with pytest.raises(RuntimeError, match="graphviz"):
        g.draw(engine="graphviz")
    big = DAG([f"v{i}" for i in range(151)], [("v3", "v7")])
    overview = big._repr_html_()  # the adjacency-matrix overview: one dot per arc
    assert "<svg" in overview and "151 nodes" in overview and "1 arcs" in overview


def test_a_notebook_shows_how_a_graph_was_learned(tmp_path, monkeypatch):
    """``_repr_html_``: size, learner, score, seconds, the picture (matplotlib's without
    dot), the whole record folded away; past 150 nodes the adjacency-matrix overview and the
    best-connected nodes instead."""
    import bnfs

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    dag = bnfs.hill_climbing(datasets.sample("asia", 1000, seed=0), "bic")
    page = dag._repr_html_()
    assert page.startswith(f"<div><strong>DAG</strong>: 8 nodes, {dag.n_arcs} arcs")
    assert "<th>algorithm</th><td>hill_climbing</td>" in page and "<th>score</th>" in page
    assert f"<td>{dag.learning['seconds']:.2f} s</td>" in page
    assert "<svg" in page and "<details><summary>learning</summary>" in page
    pdag = dag.cpdag()
    if pdag.n_edges:
        assert f"{pdag.n_edges} undirected edges" in pdag._repr_html_()
    hub = DAG([f"v{i}" for i in range(151)], [("v0", f"v{i}") for i in range(1, 12)])
    page = hub._repr_html_()
    assert "151 nodes are too many to draw one by one here" in page
    assert page.count("<svg") == 1 and "11 arcs" in page  # the overview
    assert "<tr><th>v0</th><td>11</td></tr>" in page


def test_notebook_svg_comes_from_dot_when_present(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "dot"
    fake.write_text(
        f"#!{sys.executable}\nimport sys\nsys.stdout.write('<svg>' + sys.stdin.read())\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ["PATH"])
    g = DAG(["a", "b"], [("a", "b")])
    assert g.draw() == "<svg>" + g.to_dot()


def _doc(**fields):
    import json

    return json.dumps({"format": "bnfs-graph", "nodes": ["a", "b", "c"], **fields})


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"type": "DAG", "edges": [["b", "c"]]}, "a DAG has no undirected edges"),
        ({"type": "CPDAG", "edges": [["b", "c"]]}, "'type' must be 'DAG' or 'PDAG'"),
        ({"type": "pdag", "arcs": [["a", "b"]]}, "'type' must be 'DAG' or 'PDAG'"),
        ({"type": None, "edges": [["b", "c"]]}, "'type' must be 'DAG' or 'PDAG'"),
        ({"type": "PDAG", "nodes": None}, "'nodes' must be a list"),
        ({"type": "DAG", "nodes": "abc"}, "'nodes' must be a list"),
    ],
)
def test_from_json_refuses_what_it_cannot_read_faithfully(fields, message):
    with pytest.raises(ValueError, match=message):
        bnfs.io.from_json(_doc(**fields))


def test_from_json_without_a_type_keeps_every_edge():
    pdag = bnfs.io.from_json(_doc(arcs=[["a", "b"]], edges=[["b", "c"]]))
    assert isinstance(pdag, bnfs.PDAG) and pdag.edges == [("b", "c")] and pdag.arcs == [("a", "b")]
    dag = bnfs.io.from_json(_doc(arcs=[["a", "b"]]))
    assert isinstance(dag, bnfs.DAG) and dag.arcs == [("a", "b")]
    for graph in (pdag, dag):  # and what to_json writes reads back the same
        assert bnfs.io.from_json(graph.to_json()) == graph


@pytest.mark.parametrize("graph", ["asia", "alarm"])
def test_network_files_with_a_byte_order_mark_are_read(tmp_path, graph):
    """Notepad and PowerShell start UTF-8 files with a byte-order mark: from_json took the
    text for a path ("File name too long", then the whole file)."""
    import bnfs

    dag = bnfs.datasets.network(graph)
    text = dag.to_json()
    path = tmp_path / "net.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert bnfs.io.from_json(path) == dag
    assert bnfs.io.from_json(str(path)) == dag
    assert bnfs.io.from_json("\ufeff" + text) == dag
    assert bnfs.io.from_json(path.read_bytes()) == dag
    frame = bnfs.datasets.sample(graph, 500, seed=0)
    bif = tmp_path / "net.bif"
    bnfs.io.write_bif(bnfs.fit(dag, frame, "bayes"), bif)
    bif.write_bytes(b"\xef\xbb\xbf" + bif.read_bytes())
    assert bnfs.io.read_bif(bif).dag == dag


@pytest.mark.parametrize(
    "source, message",
    [
        ("garbage\n{}", r"the text starts with 'garbage\\n\{\}', not '\{'"),
        ("\ufeffnot json at all\n" + "x" * 100_000, "the text starts with 'not json at all"),
        ("y" * 5000, "the text starts with 'yyyy"),
        ("missing.json", "no such file: 'missing.json'"),
        (b"\xff\xfe{}", "is not UTF-8 text"),
    ],
)
def test_text_is_never_taken_for_a_path(source, message):
    import bnfs

    with pytest.raises(ValueError, match=message) as error:
        bnfs.io.from_json(source)
    assert len(str(error.value)) < 300  # never the whole file


def test_export_is_symmetric_in_bnfs_io():
    """bnfs.from_networkx once existed without bnfs.to_networkx (and to_json); both
    directions now live in bnfs.io."""
    import bnfs

    for name in ("json", "networkx", "pgmpy"):
        assert callable(getattr(bnfs.io, f"to_{name}")) and callable(
            getattr(bnfs.io, f"from_{name}")
        )
        assert f"to_{name}" in bnfs.io.__all__ and f"from_{name}" in bnfs.io.__all__
    dag = bnfs.datasets.network("asia")
    assert bnfs.io.from_networkx(bnfs.io.to_networkx(dag)) == dag
    assert bnfs.io.from_json(bnfs.io.to_json(dag)) == dag
    assert bnfs.io.to_json(dag) == dag.to_json()


def test_to_pgmpy_on_mixed_data_says_what_works():
    import bnfs

    survey = bnfs.datasets.load_survey().dropna()
    dag = bnfs.learn(survey)
    with pytest.raises(ValueError, match="pgmpy has no network for mixed data") as error:
        bnfs.io.to_pgmpy(dag, survey)
    assert "bnfs.learn" not in str(error.value)  # the user had already used it
    assert "bnfs.fit(dag, data)" in str(error.value)
    model = bnfs.io.to_pgmpy(dag, bnfs.discretize(survey))  # what the message offers works
    assert len(model.get_cpds()) == len(survey.columns)
    assert bnfs.fit(dag, survey).dag == dag


@pytest.mark.parametrize("levels", [[0, 1], [1, 2, 3], [-1, 0, 5]])
def test_pgmpy_keeps_integer_states_as_integers(levels):
    """Issue 59, item 15: a CSV of integers gave pgmpy the states '0'/'1', so
    evidence={"Smoking": 0} failed."""
    from pgmpy.inference import VariableElimination

    rng = np.random.default_rng(len(levels))
    smoking = rng.choice(levels, 800)
    frame = pd.DataFrame(
        {
            "Smoking": smoking,
            "Cancer": np.where(rng.random(800) < 0.8, smoking, rng.choice(levels, 800)),
            "Town": rng.choice(["north", "south"], 800),
        }
    )
    dag = bnfs.DAG(list(frame.columns), arcs=[("Smoking", "Cancer")])
    for model in (bnfs.io.to_pgmpy(dag, frame), bnfs.fit(dag, frame).to_pgmpy()):
        assert model.get_cpds("Smoking").state_names["Smoking"] == sorted(levels)
        assert model.get_cpds("Town").state_names["Town"] == ["north", "south"]
        answer = VariableElimination(model).query(["Cancer"], evidence={"Smoking": levels[0]})
        assert answer.values.argmax() == 0  # mostly the smoking level itself
    assert bnfs.fit(dag, frame).states["Smoking"] == tuple(map(str, sorted(levels)))
