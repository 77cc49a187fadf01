"""How the command line reads and writes files (issue 71, items 4, 6 and 9): the cells
pandas reads as missing and bnfs keeps as states are named, ``--na-values`` reads them as
pandas does, every path the command may write is checked before the run, and a table's
suffix decides its separator whatever its case."""

import json

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs.cli import main


def call(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def with_none(tmp_path, seed=0, marker="None"):
    rng = np.random.default_rng(seed)
    n = 400
    a = rng.choice(["low", "high"], n)
    b = np.where(rng.random(n) < 0.8, a, rng.choice(["low", "high"], n)).astype(object)
    c = rng.choice(["x", "y", marker], n)
    path = tmp_path / "with_none.csv"
    pd.DataFrame({"a": a, "b": b, "c": c}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("marker", ["None", "n/a"])
def test_the_cells_pandas_reads_as_missing_are_named_and_can_be_read_so(tmp_path, capsys, marker):
    path = with_none(tmp_path, marker=marker)
    out = tmp_path / "net.json"
    code, _, err = call(["learn", path, "--out", out, "--algorithm", "pc_stable"], capsys)
    assert code == 0, err
    assert f"read as states, not missing: 'c' ('{marker}'" in err
    assert f"--na-values {marker}" in err
    learned = bnfs.io.read_network(out)
    assert "missing" not in learned.learning  # a state, no gap
    code, _, err = call(
        ["learn", path, "--out", out, "--algorithm", "pc_stable", "--na-values", marker], capsys
    )
    assert code == 0, err
    assert "read as states" not in err
    record = json.loads(out.read_text())["learning"]
    frame = pd.read_csv(path)  # what pandas reads: the marker is a gap
    assert record["missing"]["values"] == int(frame.isna().to_numpy().sum()) > 0


def test_the_json_fallback_of_a_bif_is_checked_against_every_path(tmp_path, capsys):
    data = tmp_path / "asia.csv"
    bnfs.datasets.sample("asia", 300, seed=0).to_csv(data, index=False)
    lists = tmp_path / "net.json"
    lists.write_text('[["asia", "tub"]]')
    before = lists.read_text()
    for flag in ("--blacklist", "--whitelist"):
        code, _, err = call(["learn", data, "--out", tmp_path / "net.bif", flag, lists], capsys)
        assert code == 2 and "JSON fallback" in err and "overwritten" in err
        assert lists.read_text() == before
    report = tmp_path / "r.json"
    code, _, err = call(["learn", data, "--out", tmp_path / "r.bif", "--report", report], capsys)
    assert code == 2 and "JSON fallback" in err and not report.exists()


def test_a_one_tier_file_naming_an_unknown_column_is_refused(tmp_path, capsys):
    data = tmp_path / "asia.csv"
    bnfs.datasets.sample("asia", 300, seed=0).to_csv(data, index=False)
    tiers = tmp_path / "tiers.txt"
    tiers.write_text("asia,smoke,nosuch\n")
    code, _, err = call(["learn", data, "--out", tmp_path / "n.json", "--tiers", tiers], capsys)
    assert code == 2 and "'nosuch'" in err
    with pytest.raises(ValueError, match="'nosuch'"):
        bnfs.blacklist_from(["a", "b"], tiers=[["a", "nosuch"]])
    with pytest.raises(ValueError, match="roots name 'z'"):
        bnfs.blacklist_from(["a", "b"], roots=["z"])


@pytest.mark.parametrize("suffix", [".TSV", ".Tsv"])
def test_a_strength_table_is_separated_by_its_suffix_in_any_case(tmp_path, capsys, suffix):
    data = tmp_path / "asia.csv"
    bnfs.datasets.sample("asia", 300, seed=0).to_csv(data, index=False)
    out = tmp_path / f"p{suffix}"
    argv = ["posterior", data, "--out", out, "--samples", "20", "--chains", "2", "--quiet"]
    code, _, err = call(argv, capsys)
    assert code == 0, err
    header = out.read_text().splitlines()[0]
    assert "\t" in header and "," not in header


@pytest.mark.parametrize("budget", ["1e-9", "1e-6"])
def test_a_selectors_budget_is_the_selections_not_each_resamples(tmp_path, capsys, budget):
    data = tmp_path / "asia.csv"
    bnfs.datasets.sample("asia", 400, seed=1).to_csv(data, index=False)
    argv = ["select", data, "--target", "either", "--method", "stable_blanket", "--quiet"]
    code, out, err = call([*argv, "--max-time", budget], capsys)
    assert code == 124, err
    warned = [line for line in err.splitlines() if "warning:" in line]
    assert len(warned) == 1 and "StableBlanketSelector" in warned[0]
    assert "partial" in err


@pytest.mark.parametrize("budget", ["0.0001", "0.001"])
def test_a_posterior_budget_spent_before_any_sample_exits_124(tmp_path, capsys, budget):
    data = tmp_path / "asia.csv"
    bnfs.datasets.sample("asia", 300, seed=0).to_csv(data, index=False)
    out = tmp_path / "p.csv"
    code, _, err = call(["posterior", data, "--out", out, "--max-time", budget], capsys)
    assert code == 124, err
    assert "internal error" not in err and "before any sample" in err
    assert not out.exists()
