"""The command line through its real entry point: ``bnfs blanket``: local learners, node lists, undirected neighbours, continuous features."""

import subprocess
import sys

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


def test_blanket_and_select_agree_on_continuous_features(continuous_file, monkeypatch, capsys):
    """Issue 44: bnfs select and MarkovBlanketSelector() cut continuous features into the
    same bins, and so does bnfs blanket told to. Issue 59: one default for both commands.
    Issue 60: that default is the selector's, cuts supervised by the class (MDL), for the
    three; bnfs blanket takes it for a discrete target."""
    import bnfs
    from bnfs import cli

    root, frame = continuous_file
    monkeypatch.chdir(root)
    X, y = frame.drop(columns="y"), frame["y"]

    def blanket(*flags):
        assert cli.main(["blanket", "c.csv", "--target", "y", *flags, "--quiet"]) == 0
        return _listed(capsys.readouterr().out)

    def select(*flags):
        argv = ["select", "c.csv", "--target", "y", *flags, "--quiet"]
        code, out, err = _select_code(cli, argv, capsys)
        assert code == 0, err
        return set(out.splitlines()[1].strip().split(", ")) - {"-"}

    # issue 60: one default for the three, cuts where the class changes (MDL)
    default = bnfs.MarkovBlanketSelector().fit(X, y)
    assert default.discretizer == "mdl" and default.network_.learning["score"] == "bde"
    assert select() == set(default.selected_) == blanket() and "a" in default.selected_
    # and each discretizer told to the three
    kept = bnfs.MarkovBlanketSelector(discretizer="auto").fit(X, y)
    assert kept.network_.learning["score"] == "bic-cg"
    assert select("--discretize", "auto") == set(kept.selected_) == blanket("--discretize", "auto")
    binned = bnfs.MarkovBlanketSelector(discretizer="quantile").fit(X, y)
    bins = ("--discretize", "quantile", "--bins", "3")
    assert select(*bins) == set(binned.selected_) == blanket(*bins)
    for algorithm in ("hill_climbing", "hiton_mb"):  # a score learner and a CI-test one
        assert select("--algorithm", algorithm) == blanket("--algorithm", algorithm)


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
