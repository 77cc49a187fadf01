"""Hostile input for every command of the command line: each case ends with one line on
stderr naming the problem and exit code 2 (never an internal error), and no input file
changes."""

import hashlib

import numpy as np
import pandas as pd
import pytest

import bnfs
import bnfs.cli.parser
from bnfs import cli


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    frame = bnfs.datasets.sample("asia", 500, seed=4)
    frame.to_csv(root / "asia.csv", index=False)
    (root / "empty.csv").write_text("")
    (root / "header.csv").write_text("a,b,c\n")
    frame.iloc[:1].to_csv(root / "onerow.csv", index=False)
    frame.assign(k="same").to_csv(root / "constant.csv", index=False)
    noise = np.r_[np.inf, np.random.default_rng(0).normal(size=499)]
    frame.assign(x=noise).to_csv(root / "inf.csv", index=False)
    # text with more levels than max_levels, short of an identifier's (nearly) all distinct
    many = pd.concat([frame] * 3, ignore_index=True)  # 400 levels of 3 rows: a category
    many.assign(id=[f"r{i % 400}" for i in range(len(many))]).to_csv(
        root / "unique.csv", index=False
    )
    pd.DataFrame({"a": [f"v{i % 5000}" for i in range(10_000)], "b": ["x", "y"] * 5000}).to_csv(
        root / "huge.csv", index=False
    )
    (root / "dup.csv").write_text("a,a,b\n1,2,1\n2,1,2\n1,1,1\n2,2,2\n")
    (root / "dup.tsv").write_text("a\ta\tb\n1\t2\t1\n2\t1\t2\n")
    holes = frame.astype(str)
    holes.loc[7, "tub"] = ""
    holes.to_csv(root / "holes.csv", index=False)
    (root / "garbage.csv").write_bytes(bytes(range(256)) * 10)
    (root / "bad.parquet").write_bytes(b"not parquet")
    (root / "bad.arff").write_text("@relation x\n@attribute a {x,y}\n@data\nx\nz\n")
    (root / "cycle.csv").write_text("from,to\nasia,tub\ntub,asia\n")
    (root / "beliefs.csv").write_text("from,to,prob\nsmoke,lung,0.9\n")
    (root / "unknown.csv").write_text("from,to\nasia,nope\n")
    (root / "three.csv").write_text("from,to,why\nasia,tub,x\n")
    frame.assign(lung="yes").to_csv(root / "oneclass.csv", index=False)
    (root / "corrupt.json").write_text("{not json")
    (root / "wrong.json").write_text('{"a": 1}')
    (root / "list.json").write_text("[1, 2]")
    (root / "noarcs.json").write_text(
        '{"format": "bnfs-graph", "type": "DAG", "nodes": ["a"], "arcs": [["a"]]}'
    )
    (root / "bad.bif").write_text(
        "network x {}\nvariable a {\n type discrete [ 2 ] { x, y };\n}"
        "\nprobability ( a ) {\n table 0.5;\n}\n"
    )
    (root / "net.json").write_text(bnfs.hill_climbing(frame).to_json())
    (root / "black.csv").write_text("from,to\nasia,tub\n")
    (root / "ctrl.csv").write_text("a\x01,b\nu,v\nv,u\nu,u\n")
    (root / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    parents = ", ".join(f"p{i}" for i in range(20))
    (root / "huge.bif").write_text(
        "network n {}\n"
        + "".join(f"variable p{i} {{ type discrete [ 4 ] {{ a, b, c, d }}; }}\n" for i in range(20))
        + f"variable x {{ type discrete [ 2 ] {{ u, v }}; }}\nprobability ( x | {parents} ) "
        "{ default 0.5, 0.5; }\n"
    )
    rng = np.random.default_rng(1)
    pd.DataFrame({f"c{i}": [f"v{k}" for k in rng.integers(0, 200, 3000)] for i in range(4)}).to_csv(
        root / "levels.csv", index=False
    )
    pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)}).to_csv(
        root / "floats.csv", index=False
    )
    (root / "link.csv").symlink_to(root / "asia.csv")
    frame.rename(columns={"smoke": "smoker status"}).to_csv(root / "spaced.csv", index=False)
    other = bnfs.hill_climbing(bnfs.datasets.sample("cancer", 500, seed=0))
    (root / "other.json").write_text(other.to_json())
    return root


CASES = [
    # learn: the data file
    (["learn", "missing.csv", "--out", "o.json"], "no such file"),
    (["learn", "empty.csv", "--out", "o.json"], "'empty.csv' is empty"),
    (["learn", "header.csv", "--out", "o.json"], "holds no data (0 rows, 3 columns)"),
    (["learn", "onerow.csv", "--out", "o.json"], "every column is constant"),
    (["learn", "inf.csv", "--out", "o.json"], "column 'x' has infinite values"),
    # text past max_levels is set aside with a warning; asked for as discrete, refused
    (["learn", "unique.csv", "--out", "o.json", "--discrete", "id"], "column 'id' has 400 levels"),
    (["learn", "huge.csv", "--out", "o.json", "--discrete", "a"], "column 'a' has 5000 levels"),
    (["learn", "dup.csv", "--out", "o.json"], "names column 'a' twice"),
    (["learn", "dup.tsv", "--out", "o.json"], "names column 'a' twice"),
    (["learn", "holes.csv", "--algorithm", "mmhc", "--out", "o.json"], "pass --dropna"),
    (["learn", "garbage.csv", "--out", "o.json"], "cannot parse 'garbage.csv' as CSV"),
    (["learn", "bad.parquet", "--out", "o.json"], "Parquet"),
    (["learn", "bad.arff", "--out", "o.json"], "not among its declared levels"),
    # learn: options and the files they name
    (["learn", "asia.csv", "--out", "o.txt"], "--out must end in one of"),
    (["learn", "asia.csv", "--out", "nodir/o.json"], "nodir/o.json"),
    (["learn", "asia.csv", "--out", "o.json", "--whitelist", "cycle.csv"], "directed cycle"),
    (
        ["learn", "asia.csv", "--out", "o.json", "--blacklist", "unknown.csv"],
        "blacklist names unknown node 'nope'",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--blacklist", "three.csv"],
        "needs 2 columns (from, to); row 1 has 3",
    ),
    (["learn", "asia.csv", "--out", "o.json", "--blacklist", "missing.csv"], "no such file"),
    (
        ["learn", "asia.csv", "--out", "o.json", "--max-parents", "0"],
        "--max-parents: expected a positive integer, got 0",
    ),
    (["learn", "asia.csv", "--out", "o.json", "--max-parents", "two"], "--max-parents"),
    (["learn", "asia.csv", "--out", "o.json", "--alpha", "0"], "--alpha: expected a number"),
    (["learn", "asia.csv", "--out", "o.json", "--alpha", "nan"], "--alpha: expected a number"),
    (
        ["learn", "asia.csv", "--out", "o.json", "--seed", "-3"],
        "--seed: expected a non-negative integer, got -3",
    ),
    (["learn", "asia.csv", "--out", "o.json", "--seed", "1.5"], "--seed"),
    (["learn", "asia.csv", "--out", "o.json", "--bins", "1"], "--bins: expected an integer >= 2"),
    (["learn", "asia.csv", "--out", "o.json", "--n-jobs", "0"], "non-zero integer"),
    (["learn", "asia.csv", "--out", "o.json", "--algorithm", "magic"], "invalid choice"),
    (
        ["learn", "asia.csv", "--out", "o.json", "--max-time", "0"],
        "--max-time: expected a positive number, got 0.0",
    ),
    (["learn", "asia.csv", "--out", "o.json", "--max-time", "inf"], "--max-time"),
    (
        [
            "learn",
            "asia.csv",
            "--out",
            "o.json",
            "--algorithm",
            "pc_stable",
            "--checkpoint",
            "c.json",
        ],
        "--checkpoint does not apply to pc_stable",
    ),
    (
        [
            "learn",
            "asia.csv",
            "--out",
            "o.json",
            "--algorithm",
            "sparse_candidate",
            "--checkpoint",
            "c.json",
        ],
        "--checkpoint does not apply to sparse_candidate",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--checkpoint", "nodir/c.json"],
        "folder 'nodir' does not exist",
    ),
    (
        [
            "learn",
            "asia.csv",
            "--out",
            "o.json",
            "--algorithm",
            "tabu_search",
            "--checkpoint",
            "net.json",
        ],
        "not a bnfs checkpoint",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--checkpoint", "c.json"],
        "--checkpoint does not apply to learn",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--report", "r.html", "--highlight", "nope"],
        "unknown column 'nope'",
    ),
    # learn: outputs never overwrite an input (nor each other), through links too
    (
        ["learn", "asia.csv", "--out", "o.json", "--report", "asia.csv"],
        "--report 'asia.csv' is also the data file",
    ),
    (["learn", "asia.csv", "--out", "./sub/../asia.csv"], "does not exist"),
    (["learn", "asia.csv", "--out", "././asia.csv"], "is also the data file"),
    (["learn", "net.json", "--out", "net.json"], "--out 'net.json' is also the data file"),
    (
        ["learn", "asia.csv", "--out", "o.json", "--report", "o.json"],
        "--report 'o.json' is also the --out file",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--checkpoint", "asia.csv"],
        "--checkpoint 'asia.csv' is also the data file",
    ),
    (
        [
            "learn",
            "asia.csv",
            "--out",
            "o.json",
            "--report",
            "black.csv",
            "--blacklist",
            "black.csv",
        ],
        "--report 'black.csv' is also the blacklist",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--report", "link.csv"],
        "--report 'link.csv' is also the data file",
    ),
    (
        ["select", "asia.csv", "--target", "lung", "--report", "asia.csv"],
        "--report 'asia.csv' is also the data file",
    ),
    (["draw", "net.json", "--out", "net.json"], "--out 'net.json' is also the network file"),
    (
        ["learn", "asia.csv", "--out", "o.json", "--report", "beliefs.csv"]
        + ["--beliefs", "beliefs.csv"],
        "--report 'beliefs.csv' is also the beliefs file",
    ),
    (
        ["select", "asia.csv", "--target", "lung", "--beliefs", "beliefs.csv"]
        + ["--report", "./beliefs.csv"],
        "--report 'beliefs.csv' is also the beliefs file",
    ),
    (["learn", "ctrl.csv", "--out", "o.graphml"], "holds the control character U+0001"),
    # sizes computed from the input are bounded before anything is allocated
    (["draw", "deep.json", "--out", "x.svg"], "nested too deeply"),
    (["draw", "huge.bif", "--out", "x.svg"], "has 2,199,023,255,552 cells, more than the"),
    (
        ["learn", "levels.csv", "--score", "loglik", "--max-parents", "3", "--out", "x.bif"],
        "with --max-parents 3: the table of 'c0' (200 x 200 x 200 x 200) has 1,600,000,000",
    ),
    (
        [
            "learn",
            "floats.csv",
            "--out",
            "o.json",
            "--discretize",
            "quantile",
            "--bins",
            "1000000000000",
        ],
        "n_bins=1000000000000 is more than the 300 rows",
    ),
    (
        [
            "learn",
            "asia.csv",
            "--out",
            "o.json",
            "--algorithm",
            "hill_climbing",
            "--checkpoint",
            "/dev/zero",
        ],
        "is not a regular file",
    ),
    # learn: options a learner does not take, BIF that cannot hold the names
    (
        ["learn", "asia.csv", "--out", "o.json", "--test", "x2"],
        "--test does not apply to learn",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--algorithm", "pc_stable", "--score", "bde"],
        "--score does not apply to pc_stable",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--algorithm", "tpda", "--alpha", "0.01"],
        "--alpha does not apply to the mi_threshold test of tpda",
    ),
    (
        ["learn", "asia.csv", "--out", "o.json", "--algorithm", "pc_stable", "--threshold", "0.1"],
        "--threshold applies to the mi_threshold test only",
    ),
    (["learn", "asia.csv", "--out", "o.json", "--algorithm", "hiton_mb"], "invalid choice"),
    (
        ["learn", "spaced.csv", "--out", "o.bif"],
        "BIF cannot hold the variable name 'smoker status'",
    ),
    (
        ["select", "asia.csv", "--target", "lung", "--method", "hsmb", "--alpha", "0.1"],
        "--alpha applies to --method markov_blanket or stable_blanket, not hsmb",
    ),
    # blanket
    (["blanket", "asia.csv", "--target", ""], "unknown column ''"),
    (["blanket", "asia.csv", "--target", "-9"], "column index -9 is out of range"),
    (["blanket", "empty.csv", "--target", "a"], "is empty"),
    (["blanket", "asia.csv", "--target", "either", "--algorithm", "nope"], "invalid choice"),
    # select
    (["select", "oneclass.csv", "--target", "lung"], "y has a single class"),
    (["select", "asia.csv", "--target", "nope"], "unknown column 'nope'"),
    (["select", "asia.csv", "--target", "lung", "--cv", "1"], "--cv: expected an integer >= 2"),
    (
        ["select", "asia.csv", "--target", "lung", "--cv", "1000"],
        "--cv 1000 asks for more folds than the 500 rows",
    ),
    (["select", "onerow.csv", "--target", "lung"], "at least 2 samples"),
    (["select", "huge.csv", "--target", "b", "--discrete", "a"], "column 'a' has 5000 levels"),
    (["select", "asia.csv", "--target", "lung", "--report", "nodir/x.html"], "nodir/x.html"),
    # draw
    (["draw", "corrupt.json", "--out", "x.svg"], "not a bnfs JSON graph"),
    (["draw", "wrong.json", "--out", "x.svg"], "missing format='bnfs-graph'"),
    (["draw", "list.json", "--out", "x.svg"], "missing format='bnfs-graph'"),
    (["draw", "noarcs.json", "--out", "x.svg"], "not a pair"),
    (["draw", "bad.bif", "--out", "x.svg"], "the table of 'a' needs 2 values"),
    (["draw", "net.json", "--out", "x.svg", "--highlight", "nope"], "'nope' is not a node"),
    (["draw", "net.json", "--out", "x.gif"], "picture format must be"),
    (["draw", "net.json", "--out", "nodir/x.svg"], "folder 'nodir' does not exist"),
    (["draw", "asia.csv", "--out", "x.svg"], "must end in .json, .bif or .graphml"),
    # score
    (["score", "asia.csv", "other.json"], "nodes that are not columns of the data"),
    (["score", "asia.csv", "corrupt.json"], "not a bnfs JSON graph"),
    (["score", "asia.csv", "net.json", "--iss", "-1"], "iss must be a positive number"),
    (["score", "asia.csv", "net.json", "--iss", "inf"], "iss must be a positive number"),
    (["score", "empty.csv", "net.json"], "is empty"),
    (["score", "asia.csv", "net.json", "--bins", "0"], "--bins"),
    # compare
    (["compare", "net.json", "other.json"], "graphs have different nodes"),
    (["compare", "net.json", "corrupt.json"], "not a bnfs JSON graph"),
    (["compare", "missing.json", "net.json"], "no such file"),
    # example
    (["example", "--rows", "-5"], "--rows: expected an integer >= 2, got -5"),
    (["example", "--network", ""], "unknown network ''"),
    (["example", "--seed", "x"], "--seed: expected a non-negative integer"),
    (
        ["example", "--network", "asia", "--rows", "200", "--out", "nodir/x.svg"],
        "folder 'nodir' does not exist",
    ),
    (["example", "--network", "asia", "--rows", "1"], "--rows: expected an integer >= 2"),
]


def _digests(root):
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in root.iterdir() if p.is_file()
    }


@pytest.mark.parametrize("args, message", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_hostile_input_is_one_line_with_exit_code_2(folder, monkeypatch, capsys, args, message):
    monkeypatch.chdir(folder)
    before = _digests(folder)
    quiet = ["--quiet"] if args[0] in ("learn", "blanket", "select", "example") else []
    with pytest.raises(SystemExit) as stop:
        cli.main(args + quiet)
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2, err
    assert message in err
    assert "Traceback" not in err and "internal error" not in err
    assert err.startswith(f"bnfs {args[0]}") or err.startswith("usage:")
    after = _digests(folder)
    assert {k: v for k, v in after.items() if k in before} == before  # inputs untouched


def test_checkpoint_and_max_time_on_the_command_line(folder, monkeypatch, capsys):
    monkeypatch.chdir(folder)
    args = [
        "learn",
        "asia.csv",
        "--algorithm",
        "tabu_search",
        "--checkpoint",
        "tabu.json",
        "--max-time",
        "600",
        "--quiet",
    ]
    assert cli.main(args + ["--out", "first.json"]) == 0
    assert (folder / "tabu.json").exists()
    assert cli.main(args + ["--out", "again.json"]) == 0  # resumes a finished search
    first, again = (
        bnfs.io.from_json(folder / "first.json"),
        bnfs.io.from_json(folder / "again.json"),
    )
    assert first == again == bnfs.tabu_search(pd.read_csv(folder / "asia.csv"), seed=0)
    assert again.learning["resumed"] and not first.learning["resumed"]


def test_odd_but_valid_cli_input(folder, monkeypatch, capsys):
    """Unicode column names, a from/to file with its columns swapped, a network whose
    states differ from the data's (scoring reads only the structure)."""
    monkeypatch.chdir(folder)
    frame = pd.read_csv("asia.csv")
    frame.rename(columns={"asia": "âsïa 🫁", "tub": "tub,erc"}).to_csv("unicode.csv", index=False)
    assert cli.main(["blanket", "unicode.csv", "--target", "âsïa 🫁", "--quiet"]) == 0
    assert "Markov blanket of âsïa 🫁" in capsys.readouterr().out
    (folder / "swapped.csv").write_text("to,from\nlung,smoke\nbronc,smoke\n")
    assert (
        cli.main(
            [
                "learn",
                "asia.csv",
                "--out",
                "swapped.json",
                "--algorithm",
                "hill_climbing",
                "--blacklist",
                "swapped.csv",
                "--quiet",
            ]
        )
        == 0
    )
    learned = bnfs.io.from_json(folder / "swapped.json")
    by_name = bnfs.hill_climbing(frame, blacklist=[("smoke", "lung"), ("smoke", "bronc")])
    by_position = bnfs.hill_climbing(frame, blacklist=[("lung", "smoke"), ("bronc", "smoke")])
    assert learned == by_name and by_name != by_position


def test_argument_errors_are_one_line_without_the_usage(capsys):
    """argparse prints the whole usage (fifteen lines for learn) before its message; bnfs
    prints the message and where the usage is."""
    for argv, message in (
        (["learn", "asia.csv"], "bnfs learn: error: the following arguments are required: --out"),
        (["lern"], "bnfs: error: argument COMMAND: invalid choice: 'lern'"),
        (["select", "a.csv", "--target", "t", "--cv", "1"], "bnfs select: error: argument --cv"),
    ):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1, err
        assert err.startswith(message) and "usage:" not in err, err


#: each command that writes, with an output option to aim at an input
_WRITERS = {
    "learn": ["learn", "data.csv", "--out", "o.json", "--report", "r.html"]
    + ["--algorithm", "tabu_search", "--checkpoint", "c.json"],
    "select": ["select", "data.csv", "--target", "lung", "--report", "r.html"],
    "draw": ["draw", "net.json", "--out", "x.svg"],
    "posterior": ["posterior", "data.csv", "--out", "s.csv", "--median", "m.json"]
    + ["--report", "r.html"],
}


def _input_options():
    """(command, dest, option or None for a positional, label) of every file the parser
    says a writing command reads: the list the output check is derived from."""
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name in _WRITERS:
        for action in commands[name]._actions:
            kind = action.type
            if isinstance(kind, cli.parser.FileArgument) and kind.reads:
                option = action.option_strings[-1] if action.option_strings else None
                yield name, action.dest, option, kind.label


def test_every_argument_naming_a_file_is_typed_as_read_or_written():
    """A path argument typed plainly would escape the check that no output is an input."""
    from pathlib import Path

    parser = cli.build_parser()
    for name, command in parser._subparsers._group_actions[0].choices.items():
        for action in command._actions:
            assert action.type is not Path, (name, action.dest)
    assert {(c, d) for c, d, _, _ in _input_options()} >= {
        ("learn", "beliefs"),
        ("select", "beliefs"),
        ("learn", "whitelist"),
        ("select", "tiers"),
    }


@pytest.mark.parametrize("command, dest, option, label", list(_input_options()))
def test_no_output_option_writes_over_any_input_option(
    folder, tmp_path, monkeypatch, capsys, command, dest, option, label
):
    """Every input the parser knows, aimed at by every output option of the command."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.csv").write_bytes((folder / "asia.csv").read_bytes())
    (tmp_path / "net.json").write_text(bnfs.datasets.network("asia").to_json())
    (tmp_path / "shared.csv").write_text("from,to,prob\nsmoke,lung,0.9\n")
    base = list(_WRITERS[command])
    outputs = [k for k, a in enumerate(base) if a in ("--out", "--report", "--checkpoint")]
    for at in outputs:
        args = list(base)
        if option is None:  # the positional input: the first path after the command
            args[1] = "shared.csv"
        else:
            args += [option, "shared.csv"]
        args[at + 1] = "shared.csv"
        before = (tmp_path / "shared.csv").read_bytes()
        with pytest.raises(SystemExit) as stop:
            cli.main(args + (["--quiet"] if command != "draw" else []))
        err = capsys.readouterr().err
        assert stop.value.code == 2, err
        assert f"{args[at]} 'shared.csv' is also the {label}" in err
        assert (tmp_path / "shared.csv").read_bytes() == before
