"""The command line through its real entry point: ``bnfs posterior``: the strength table, the
median graph, the report, a target's blanket membership, knowledge files and errors."""

import numpy as np
import pandas as pd
import pytest

import bnfs
from cli_support import _select_code

pytestmark = pytest.mark.filterwarnings("ignore:structure_posterior:RuntimeWarning")

QUICK = ["--chains", "2", "--samples", "200", "--steps", "20000", "--quiet"]


def test_posterior_writes_what_the_python_call_gives(asia_file, monkeypatch, capsys):
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    argv = ["posterior", "asia.csv", "--out", "s.csv", "--median", "m.json", "--report", "r.html"]
    code, out, _ = _select_code(cli, [*argv, "--target", "either", "--seed", "2", *QUICK], capsys)
    assert code == 0, out
    post = bnfs.structure_posterior(
        data, chains=2, samples=200, steps=20000, seed=2, progress=False
    )
    written = pd.read_csv(root / "s.csv")
    expected = post.strength
    assert list(written.columns) == ["from", "to", "strength", "direction"]
    assert np.allclose(written["strength"], expected["strength"])
    assert list(written["from"]) == list(expected["from"])
    assert bnfs.averaged_network(written).n_nodes == 8  # the bootstrap's readers take it
    median = bnfs.io.from_json(root / "m.json")
    assert sorted(median.arcs) == sorted(post.median_graph().arcs)
    page = (root / "r.html").read_text()
    assert "Strongest links" in page and "Markov blanket of either" in page
    line = next(x for x in out.splitlines() if "P(in the Markov blanket of either)" in x)
    top = post.blanket("either")
    assert f"{top.index[0]} {top.iloc[0]:.2f}" in line
    # issue 71, item 5: one graph's set beside the probabilities, and why it may differ
    inside = next(x for x in out.splitlines() if "median-probability graph:" in x)
    shown = inside.split("graph: ", 1)[1].split(" (")[0]
    assert shown == (", ".join(post.median_graph().markov_blanket("either")) or "-")
    assert "bnfs blanket reads one learned network" in inside
    assert "400 sampled orders" in out
    assert post.learning["compile_seconds"] >= 0.0 and post.learning["seconds"] > 0.0


def test_knowledge_files_reach_the_sampler(asia_file, monkeypatch, capsys):
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    argv = ["posterior", "asia.csv", "--out", "k.csv", "--tiers", "tiers.txt"]
    code, out, err = _select_code(cli, [*argv, "--whitelist", "white.csv", *QUICK], capsys)
    assert code == 2 and "white.csv" in err  # a missing file, named
    (root / "white.csv").write_text("from,to\ntub,either\n")
    code, out, err = _select_code(cli, [*argv, "--whitelist", "white.csv", *QUICK], capsys)
    assert code == 0, err
    table = pd.read_csv(root / "k.csv")
    arc = table[(table["from"] == "tub") & (table["to"] == "either")].iloc[0]
    assert arc.strength == 1.0 and arc.direction == 1.0
    # tiers: nothing from a later tier into an earlier one
    late = table[(table["from"] == "dysp") & (table["to"] == "smoke")].iloc[0]
    assert late.strength == 0.0 or late.direction == 0.0


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--out", "s.json"], "--out must end in .csv or .tsv"),
        (["--out", "s.csv", "--median", "m.txt"], "--median must end in one of"),
        (["--out", "s.csv", "--target", "nope"], "nope"),
        (["--out", "s.csv", "--score", "bic-g"], "score 'bic-g' is for continuous data"),
        (["--out", "s.csv", "--beliefs", "beliefs.csv", "--prior", "vsp"], "--beliefs are the cs"),
    ],
)
def test_posterior_errors_are_one_line(asia_file, monkeypatch, capsys, extra, message):
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    code, _, err = _select_code(cli, ["posterior", "asia.csv", *extra, *QUICK], capsys)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_posterior_refuses_incomplete_rows_unless_dropped(asia_file, monkeypatch, capsys):
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    frame = pd.read_csv(root / "asia.csv")
    frame.loc[[2, 7], "lung"] = None
    frame.to_csv(root / "holes.csv", index=False)
    code, _, err = _select_code(cli, ["posterior", "holes.csv", "--out", "h.csv", *QUICK], capsys)
    assert code == 2 and "2 of 600 have missing values" in err
    code, out, _ = _select_code(
        cli, ["posterior", "holes.csv", "--out", "h.csv", "--dropna", *QUICK], capsys
    )
    assert code == 0 and "598 rows" in out
