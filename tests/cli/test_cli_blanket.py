"""The command line through its real entry point: ``bnfs blanket``: local learners, node lists, undirected neighbours, continuous features."""

import subprocess
import sys

import pytest

from cli_support import _select_code


def test_a_local_learner_takes_node_lists_from_a_file(asia_file, monkeypatch, capsys):
    import bnfs
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    assert (
        cli.main(
            [
                "blanket",
                "asia.csv",
                "--target",
                "lung",
                "--algorithm",
                "iamb_mb",
                "--whitelist",
                "names.txt",
                "--quiet",
            ]
        )
        == 0
    )
    members = bnfs.constraint.iamb_mb(data, "lung", whitelist=["smoke"])
    assert "smoke" in members
    assert capsys.readouterr().out.strip().endswith(": " + ", ".join(members))


def test_blanket_lists_the_undirected_neighbours_of_a_pdag(asia_file, monkeypatch, capsys):
    import bnfs
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    pdag = bnfs.pc_stable(data)
    target = next(v for v in pdag.nodes if pdag.undirected(v))
    assert (
        cli.main(["blanket", "asia.csv", "--target", target, "--algorithm", "pc_stable", "--quiet"])
        == 0
    )
    rows = {
        line.split(None, 1)[0]: line.split(None, 1)[1].split(", ")
        for line in capsys.readouterr().out.splitlines()[1:]
    }
    assert rows["undirected"] == pdag.undirected(target)
    assert set(rows) == {"parents", "children", "undirected", "spouses"}
    from bnfs.graphs.report import network_report

    page = network_report(pdag, title="t", highlight=target)
    assert "<th>undirected</th><td>" + ", ".join(pdag.undirected(target)) in page


def test_an_ascii_terminal_gets_the_whole_blanket_of_a_unicode_target(tmp_path):
    """PYTHONIOENCODING=ascii: printing the name raised part way and the blanket was lost."""
    import os

    import bnfs

    frame = bnfs.datasets.sample("asia", 2000, seed=0).rename(columns={"either": "éither 🫁"})
    frame.to_csv(tmp_path / "u.csv", index=False)
    done = subprocess.run(
        [sys.executable, "-m", "bnfs.cli", "blanket", str(tmp_path / "u.csv")]
        + ["--target", "éither 🫁", "--quiet"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("ascii")
    assert "Markov blanket of \\xe9ither \\U0001fac1" in out
    parents = next(line for line in out.splitlines() if line.strip().startswith("parents"))
    assert "lung" in parents and "tub" in parents


def test_blanket_reads_learns_network_and_select_says_why_it_differs(
    continuous_file, monkeypatch, capsys
):
    """Issue 71, item 5: one target, one story. bnfs blanket gives the blanket in the
    network bnfs learn writes (continuous columns modelled as they are, the same default
    learner), and reads it off that file too; bnfs select and MarkovBlanketSelector() cut
    for the class (MDL), and select says so with learn's set beside its own. Told the same
    discretizer, blanket and select still agree (issue 44)."""
    import bnfs
    from bnfs import cli

    root, frame = continuous_file
    monkeypatch.chdir(root)
    X, y = frame.drop(columns="y"), frame["y"]

    def blanket(*flags, data="c.csv"):
        assert cli.main(["blanket", data, "--target", "y", *flags, "--quiet"]) == 0
        return _listed(capsys.readouterr().out)

    def select(*flags):
        argv = ["select", "c.csv", "--target", "y", *flags, "--quiet"]
        code, out, err = _select_code(cli, argv, capsys)
        assert code == 0, err
        return set(out.splitlines()[1].strip().split(", ")) - {"-"}, out

    assert cli.main(["learn", "c.csv", "--out", "net.json", "--quiet"]) == 0
    capsys.readouterr()
    network = bnfs.io.read_network(root / "net.json")
    learned = set(network.markov_blanket("y"))
    assert blanket() == learned == blanket(data="net.json")
    assert learned == set(bnfs.markov_blanket(frame, "y"))
    # the selector's default cuts where the class changes, and select says so
    default = bnfs.MarkovBlanketSelector().fit(X, y)
    assert default.discretizer == "mdl" and default.network_.learning["score"] == "bde"
    assert sorted(default.cut_features_) == sorted(c for c in X if frame[c].dtype.kind == "f")
    kept, out = select()
    assert kept == set(default.selected_) and "a" in kept
    note = next(line for line in out.splitlines() if "columns as they are:" in line)
    assert set(note.split(": ", 1)[1].split(", ")) - {"-"} == learned
    assert "cut" in out and "where the class changes (mdl)" in out
    # told one discretizer, the two agree (issue 44), and select has nothing to explain
    unbinned = bnfs.MarkovBlanketSelector(discretizer="auto").fit(X, y)
    assert unbinned.cut_features_ == [] and unbinned.network_.learning["score"] == "bic-cg"
    kept, out = select("--discretize", "auto")
    assert kept == set(unbinned.selected_) == blanket("--discretize", "auto") == learned
    assert "columns as they are" not in out
    binned = bnfs.MarkovBlanketSelector(discretizer="quantile").fit(X, y)
    bins = ("--discretize", "quantile", "--bins", "3")
    assert select(*bins)[0] == set(binned.selected_) == blanket(*bins)
    assert (
        select("--discretize", "mdl")[0] == set(default.selected_) == blanket("--discretize", "mdl")
    )
    for algorithm in ("hill_climbing", "hiton_mb"):  # a score learner and a CI-test one
        flags = ("--algorithm", algorithm, "--discretize", "mdl")
        assert select(*flags)[0] == blanket(*flags)


def test_a_network_file_gives_its_blanket_and_refuses_learning_options(
    asia_file, monkeypatch, capsys
):
    import bnfs
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    graph = bnfs.hill_climbing(data)
    for suffix in (".json", ".bif"):
        bnfs.io.write_network(graph, root / f"g{suffix}", data=data)
        assert cli.main(["blanket", f"g{suffix}", "--target", "either"]) == 0
        assert _listed(capsys.readouterr().out) == set(graph.markov_blanket("either"))
    assert cli.main(["blanket", "g.json", "--target", "-1"]) == 0
    assert f"blanket of {graph.nodes[-1]} " in capsys.readouterr().out
    for flags in (["--alpha", "0.1"], ["--algorithm", "iamb"], ["--dropna"], ["--target", "x"]):
        with pytest.raises(SystemExit) as stopped:
            cli.main(["blanket", "g.json", "--target", "either", *flags])
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        if flags[0] == "--target":  # the last --target: not a node
            assert "unknown column 'x'" in err
        else:
            assert f"{flags[0]} applies when learning from a data file" in err


def test_blanket_and_select_agree_on_mixed_features(tmp_path, monkeypatch, capsys):
    import numpy as np
    import pandas as pd

    from bnfs import cli

    rng = np.random.default_rng(5)
    n = 600
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "colour": np.where(rng.random(n) < 0.8, y, 1 - y).astype(str),
            "size": y * 1.5 + rng.normal(0, 1, n),
            "noise": rng.normal(0, 1, n),
            "shape": rng.choice(["round", "flat"], n),
            "y": y.astype(str),
        }
    )
    frame.to_csv(tmp_path / "m.csv", index=False)
    monkeypatch.chdir(tmp_path)
    for flags in ([], ["--algorithm", "hill_climbing"], ["--algorithm", "iamb"]):
        flags = [*flags, "--discretize", "mdl"]  # select's default, told to blanket
        assert cli.main(["blanket", "m.csv", "--target", "y", *flags, "--quiet"]) == 0
        found = _listed(capsys.readouterr().out)
        code, out, err = _select_code(
            cli, ["select", "m.csv", "--target", "y", *flags, "--quiet"], capsys
        )
        assert code == 0, err
        assert set(out.splitlines()[1].strip().split(", ")) - {"-"} == found, flags
        assert "size" in found and "colour" in found


def _listed(listing: str) -> set[str]:
    """The names bnfs blanket prints: a network's parents, children and spouses, one part a
    line; a local learner's set on its first line, after the colon."""
    lines = listing.splitlines()
    parts = [lines[0].split(": ", 1)[1]] if ": " in lines[0] else lines[1:]
    if len(lines) > 1:
        parts = [line.split(None, 1)[-1] for line in lines[1:]]
    return {
        name.strip().split(" (")[0]
        for part in parts
        for name in part.split(",")
        if name.strip() not in ("", "-")
    }


def test_a_parents_and_children_learner_says_so(asia_file, monkeypatch, capsys):
    """The heading comes from the registry's kind, not a list of names: HPC, HITON-PC and
    MMPC print parents and children, a blanket learner a Markov blanket."""
    import bnfs
    from bnfs import cli, learners

    root, data = asia_file
    monkeypatch.chdir(root)
    for name in learners.names("blanket")[:1] + learners.names("neighbours"):
        assert cli.main(["blanket", "asia.csv", "--target", "either", "--algorithm", name]) == 0
        out = capsys.readouterr().out.strip()
        found = (
            bnfs.neighbours(data, "either", method=name)
            if (learners.get(name).kind == "neighbours")
            else bnfs.markov_blanket(data, "either", method=name)
        )
        heading = (
            "parents and children" if learners.get(name).kind == "neighbours" else "Markov blanket"
        )
        assert out.startswith(f"{heading} of either by {name}: {', '.join(found)}"), out
