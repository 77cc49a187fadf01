"""Network files by suffix (bnfs.io.write_network / read_network): every format the command
line writes reads back as the same graph, a partial search says so in each, and a file it
cannot write or read is refused by name."""

import pytest

import bnfs
from bnfs import datasets, io


@pytest.fixture(scope="module")
def graphs():
    frame = datasets.sample("asia", 1000, seed=0)
    return frame, datasets.network("asia"), bnfs.pc_stable(frame)


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".bif"])
def test_each_readable_format_reads_back_the_graph_written(graphs, tmp_path, suffix):
    frame, dag, pdag = graphs
    assert set(io.NETWORK_FILES) == {".json", ".dot", ".bif", ".graphml"}
    written = io.write_network(dag, tmp_path / f"dag{suffix.upper()}", data=frame)
    assert io.read_network(written) == dag
    if suffix != ".bif":  # BIF holds a DAG with tables; a PDAG keeps its links elsewhere
        back = io.read_network(io.write_network(pdag, tmp_path / f"pdag{suffix}"))
        assert back == pdag and back.edges and back.learning["algorithm"] == "pc_stable"


def test_a_partial_search_says_so_in_every_format(graphs, tmp_path):
    frame, dag, _ = graphs
    partial = bnfs.DAG(dag.nodes, dag.arcs, learning={"stopped_early": "max_time reached"})
    for suffix in (".dot", ".bif"):
        text = io.write_network(partial, tmp_path / f"p{suffix}", data=frame).read_text()
        assert text.startswith("// partial network: the search stopped early (max_time")
    graphml = io.write_network(partial, tmp_path / "p.graphml").read_text()
    assert '"partial"' in graphml and "max_time reached" in graphml
    saved = io.read_network(io.write_network(partial, tmp_path / "p.json"))
    assert saved.learning["stopped_early"] == "max_time reached"


def test_what_cannot_be_written_or_read_is_refused_by_name(graphs, tmp_path):
    frame, dag, pdag = graphs
    with pytest.raises(ValueError, match=r"must end in one of \.json, \.dot, \.bif, \.graphml"):
        io.write_network(dag, tmp_path / "net.txt")
    with pytest.raises(ValueError, match="holds tables fitted to data; pass data"):
        io.write_network(dag, tmp_path / "net.bif")
    io.write_network(dag, tmp_path / "net.dot")
    with pytest.raises(ValueError, match="DOT files are written for drawing, not read"):
        io.read_network(tmp_path / "net.dot")
    with pytest.raises(FileNotFoundError, match="no such file"):
        io.read_network(tmp_path / "absent.json")
    assert not (tmp_path / "net.txt").exists() and not (tmp_path / "net.bif").exists()
