"""Constant columns: every structure learner keeps them as isolated nodes, with a warning."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import Dataset, learners
from bnfs.cli import main


@pytest.fixture(scope="module")
def frame():
    data = bnfs.datasets.sample("asia", 600, seed=1)
    data.insert(0, "site", "A")  # a discrete constant, first
    data["dose"] = 2.5  # a continuous constant, last
    return data


def _quick(name: str) -> dict:
    """Options that keep a learner fast on 600 rows."""
    options = {"learn": {"candidates": ["hc"]}, "boss": {"restarts": 0}, "grasp": {"restarts": 0}}
    return options.get(name, {})


@pytest.mark.parametrize("name", learners.names("score", "hybrid", "constraint"))
def test_every_graph_learner_keeps_constant_columns_as_isolated_nodes(frame, name):
    before = frame.copy()
    data = frame.drop(columns="dose") if name in learners.DISCRETE_ONLY else frame
    if name in learners.NOT_MIXED:
        data = data.drop(columns="dose")
    expected = [c for c in ("site", "dose") if c in data]
    with pytest.warns(UserWarning, match=f"{name}: {len(expected)} constant column"):
        graph = learners.get(name)(data, **_quick(name))
    assert graph.nodes == tuple(data.columns)  # the data's order, constants in place
    for node in expected:
        assert graph.neighbours(node) == [] and graph.markov_blanket(node) == []
    assert graph.learning["isolated"] == expected
    # the rest is what the learner finds without the constant columns
    plain = learners.get(name)(data.drop(columns=expected), **_quick(name))
    assert set(graph.arcs) == set(plain.arcs) and set(graph.edges) == set(plain.edges)
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize("name", learners.names("blanket", "neighbours"))
def test_local_learners_leave_constant_columns_out(frame, name):
    data = frame.drop(columns="dose")
    with pytest.warns(UserWarning, match="they are in no blanket"):
        found = learners.get(name)(data, "either")
    assert found == learners.get(name)(data.drop(columns="site"), "either")
    with pytest.warns(UserWarning, match="constant column"):
        assert learners.get(name)(data, "site") == []  # a constant target has no blanket


def test_lists_naming_a_constant_column(frame):
    with pytest.warns(UserWarning):
        dag = bnfs.hill_climbing(frame, blacklist=[("site", "lung"), ("smoke", "lung")])
    assert not dag.has_arc("smoke", "lung") and dag.neighbours("site") == []
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="constant column 'site'"):
        bnfs.hill_climbing(frame, whitelist=[("site", "lung")])
    start = bnfs.DAG(list(frame.columns), [("site", "lung"), ("smoke", "lung")])
    with pytest.warns(UserWarning):
        dag = bnfs.hill_climbing(frame, start=start)
    assert dag.neighbours("site") == []


def test_files_and_datasets(frame, tmp_path):
    path = tmp_path / "constant.csv"
    frame.to_csv(path, index=False)
    with pytest.warns(UserWarning, match="2 constant column"):
        from_file = bnfs.hill_climbing(str(path))
    with pytest.warns(UserWarning):
        assert from_file == bnfs.hill_climbing(frame)
    data = Dataset(frame, constant="isolate")
    assert data.isolated == {"site": "A", "dose": 2.5}
    assert data.columns == tuple(frame.columns) and "site" not in data.names
    streamed = Dataset(path, constant="isolate")
    assert streamed.isolated == data.isolated and streamed.names == data.names
    for j, name in enumerate(data.names):  # the same values (level order may differ)
        decoded = np.asarray(data.states[name], dtype=object)[data.codes[:, j]]
        assert list(np.asarray(streamed.states[name])[streamed.codes[:, j]]) == list(decoded)
    with pytest.raises(ValueError, match="column 'site' has a single level.*constant='isolate'"):
        Dataset(frame)
    with pytest.raises(ValueError, match="constant must be"):
        Dataset(frame, constant="drop")


def test_every_column_constant_is_refused(frame):
    with pytest.raises(ValueError, match="every column is constant"):
        bnfs.pc_stable(frame[["site", "dose"]])


def test_without_constant_columns_nothing_is_said(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dag = bnfs.hill_climbing(frame.drop(columns=["site", "dose"]))
    assert "isolated" not in dag.learning


def test_the_command_line_writes_the_constant_node(frame, tmp_path, capsys):
    path = tmp_path / "constant.csv"
    frame.drop(columns="dose").to_csv(path, index=False)
    out = tmp_path / "net.bif"
    assert main(["learn", str(path), "--out", str(out), "--algorithm", "hill_climbing"]) == 0
    assert "constant column(s) ('site')" in capsys.readouterr().err
    network = bnfs.read_bif(out)
    assert network.states["site"] == ("A",) and network.dag.neighbours("site") == []
    assert np.allclose(network.cpts["site"], [1.0])
    assert main(["blanket", str(path), "--target", "site"]) == 0
    assert "parents    -" in capsys.readouterr().out
