"""The command line through its real entry point: What every subcommand shares: help, errors on one line, every listed algorithm and option, knowledge files, progress and compile notices, the graph commands (score, compare, draw)."""

import logging
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from cli_support import OPTIONS, _choices, run


def test_help():
    result = run("example", "--help")
    assert result.returncode == 0 and "bnfs example --network asia" in result.stdout
    result = run("learn", "--help")  # what the BIF's tables are, where the option is
    assert "count of 1 per cell" in " ".join(result.stdout.split())


def test_blanket_select_score_compare_and_draw(files):
    import bnfs

    root, frame = files
    csv = str(root / "asia.csv")
    result = run("blanket", csv, "--target", "either", "--quiet")
    assert result.returncode == 0, result.stderr
    assert "Markov blanket of either" in result.stdout and "children" in result.stdout
    result = run("blanket", csv, "--target", "-1", "--algorithm", "hiton_mb")
    assert result.returncode == 0 and "Markov blanket of dysp by hiton_mb" in result.stdout
    result = run(
        "select",
        csv,
        "--target",
        "lung",
        "--method",
        "fcbf",
        "--cv",
        "3",
        "--classifier",
        "logistic",
    )
    assert result.returncode == 0, result.stderr
    assert (
        "fcbf kept" in result.stdout and result.stdout.count("accuracy") == 3
    )  # selected, all, majority
    net = root / "asia.csv.json"
    run("learn", csv, "--out", str(net), "--quiet")
    result = run("score", csv, str(net), "--score", "bde")
    expected = bnfs.score(bnfs.io.from_json(net.read_text()), frame, "bde")
    assert result.returncode == 0 and f"{expected:.4f}" in result.stdout
    result = run("compare", str(net), str(root / "truth.bif"))
    learned, truth = bnfs.io.from_json(net.read_text()), bnfs.datasets.network("asia")
    assert f"SHD {bnfs.shd(learned, truth)}" in result.stdout and "precision" in result.stdout
    picture = root / "asia.svg"
    result = run("draw", str(net), "--out", str(picture), "--highlight", "either")
    assert result.returncode == 0, result.stderr
    text = ET.tostring(ET.parse(picture).getroot(), encoding="unicode")
    assert all(node in text for node in frame.columns)


@pytest.mark.parametrize(
    "args, message",
    [
        (["learn", "missing.csv", "--out", "x.json"], "no such file: 'missing.csv'"),
        (["learn", "{root}/asia.csv", "--out", "x.txt"], "--out must end in one of"),
        (
            ["learn", "{root}/asia.csv", "--out", "x.json", "--alpha", "2"],
            "expected a number in (0, 1)",
        ),
        (["learn", "{root}/asia.csv", "--algorithm", "magic", "--out", "x.json"], "invalid choice"),
        (
            [
                "blanket",
                "{root}/asia.csv",
                "--target",
                "either",
                "--algorithm",
                "hiton_mb",
                "--blacklist",
                "{root}/black.csv",
            ],
            "lists variable names, one per line",
        ),
        (
            [
                "blanket",
                "{root}/asia.csv",
                "--target",
                "either",
                "--algorithm",
                "hiton_mb",
                "--blacklist",
                "{root}/asia.csv.names",
            ],
            "blacklist entry 'nope' is not a variable",
        ),
        (
            ["learn", "{root}/holes.csv", "--algorithm", "screen_based", "--out", "x.json"],
            "pass --dropna",
        ),
        (["blanket", "{root}/asia.csv", "--target", "nope"], "unknown column 'nope'"),
        (["blanket", "{root}/asia.csv", "--target", "12"], "out of range"),
        (["select", "{root}/asia.csv", "--target", "lung", "--cv", "1"], "integer >= 2, got 1"),
        (["learn", "{root}/asia.csv", "--out", "x.json", "--n-jobs", "0"], "non-zero integer"),
        (["draw", "{root}/asia.csv", "--out", "x.svg"], "must end in .json, .bif or .graphml"),
        (["score", "{root}/asia.csv", "{root}/missing.json"], "no such file"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(files, args, message):
    root, _ = files
    result = run(*[a.format(root=root) for a in args], cwd=root)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("bnfs ")


def test_dropna_and_every_subcommand_has_help_with_examples(files):
    root, _ = files
    result = run(
        "learn", str(root / "holes.csv"), "--dropna", "--out", str(root / "h.json"), "--quiet"
    )
    assert result.returncode == 0 and "2999 rows" in result.stdout
    for command in (
        "learn",
        "blanket",
        "select",
        "posterior",
        "draw",
        "score",
        "compare",
        "example",
    ):
        result = run(command, "--help")
        assert result.returncode == 0 and "examples:" in result.stdout, command


def test_internal_errors_are_one_line_without_verbose(monkeypatch, capsys):
    from bnfs import cli

    def broken(args):
        raise RuntimeError("boom\nsecond line")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser._subparsers._group_actions[0].choices["compare"].set_defaults(func=broken)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["compare", "a.json", "b.json"])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "internal error (RuntimeError: boom)" in err and "second line" not in err
    handlers = list(logging.getLogger("bnfs").handlers)
    with pytest.raises(RuntimeError):
        cli.main(["compare", "a.json", "b.json", "-v"])
    # -v's handler goes away with the call: a later call never logs to a closed stream
    assert logging.getLogger("bnfs").handlers == handlers


@pytest.mark.parametrize("command", ["learn", "blanket", "select"])
def test_every_listed_algorithm_runs_with_the_api_defaults(asia_file, command, monkeypatch, capsys):
    """Each algorithm the command lists runs with no option, and gives what the Python call
    with its defaults gives."""
    import bnfs
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    for algorithm in _choices(command):
        head = {
            "learn": ["learn", "asia.csv", "--out", f"{algorithm}.json"],
            "blanket": ["blanket", "asia.csv", "--target", "either"],
            "select": ["select", "asia.csv", "--target", "either"],
        }[command]
        assert cli.main(head + ["--algorithm", algorithm, "--quiet"]) == 0, algorithm
        out = capsys.readouterr().out
        learner = bnfs.learners.get(algorithm).function
        if command == "learn":
            learned = bnfs.io.from_json((root / f"{algorithm}.json").read_text())
            assert learned == learner(data), algorithm
        elif command == "select":
            selector = bnfs.MarkovBlanketSelector(algorithm, random_state=0, n_jobs=1)
            X = pd.read_csv(root / "asia.csv", keep_default_na=False)
            selector.fit(X.drop(columns="either"), X["either"])
            assert out.splitlines()[1].strip() == (", ".join(selector.selected_) or "-"), (
                algorithm,
                out,
            )
        elif bnfs.learners.get(algorithm).local:
            members = (
                learner(data, "either", seed=0)
                if algorithm == "kiamb_mb"
                else learner(data, "either")
            )
            assert out.strip().endswith(": " + (", ".join(members) or "-")), (algorithm, out)
        elif command == "blanket":
            blanket = learner(data).markov_blanket("either")
            listed = {
                name
                for line in out.splitlines()[1:]
                for name in line.split(None, 1)[1].split(", ")
                if name != "-"
            }
            listed = {name.split(" (also a ")[0] for name in listed}
            assert listed == set(blanket), (algorithm, out)


@pytest.mark.parametrize("command", ["learn", "blanket"])
def test_every_listed_algorithm_takes_or_refuses_every_option(
    asia_file, command, monkeypatch, capsys
):
    """Every option of the learning group, given to every algorithm the command lists, is
    either used (exit 0) or refused by name (exit 2): never ignored, never a crash; the
    options that define a family of learners are used by all of its members."""
    from bnfs import cli, learners

    root, _ = asia_file
    monkeypatch.chdir(root)
    families = {
        "--scan-order": ("hill_climbing", "tabu_search", "sparse_candidate"),
        "--score": learners.names("score", "hybrid"),
        "--max-parents": learners.names("score", "hybrid"),
        "--blacklist": learners.names(),
        "--test": learners.names("constraint", "blanket", "neighbours"),
        "--seed": learners.names(),
        "--discretize": learners.names(),
    }
    for algorithm in _choices(command):
        for flag, value in OPTIONS.items():
            if (root / "c.json").exists():
                (root / "c.json").unlink()
            head = (
                ["learn", "asia.csv", "--out", "o.json"]
                if command == "learn"
                else ["blanket", "asia.csv", "--target", "either"]
            )
            extra = {"--threshold": ["--test", "mi_threshold"], "--beliefs": ["--score", "bde"]}
            extra = extra.get(flag, [])
            if flag in ("--blacklist", "--whitelist") and algorithm in learners.names(
                "blanket", "neighbours"
            ):
                value = "names.txt"  # a local learner's lists are variable names
            else:
                value = OPTIONS[flag]
            try:
                code = cli.main(head + ["--algorithm", algorithm, flag, value, *extra, "--quiet"])
            except SystemExit as stop:
                code = stop.code
            err = capsys.readouterr().err
            assert code in (0, 2), (algorithm, flag, err)
            if code == 2:
                named = [
                    f for f in (flag, *extra[:1]) if f"{f} does not apply to {algorithm}" in err
                ]
                assert named or (flag == "--alpha" and "mi_threshold test of tpda" in err), (
                    algorithm,
                    err,
                )
                assert algorithm not in families.get(flag, ()), (algorithm, flag, err)


def test_what_a_new_user_sees_on_stderr(asia_file, monkeypatch, capsys):
    """-v logs the constraint learners; no progress bar when stderr is not a terminal;
    bars that are drawn name the search and count in words; example says where it wrote."""
    import bnfs
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    assert cli.main(["learn", "asia.csv", "--out", "p.json", "--algorithm", "pc_stable", "-v"]) == 0
    err = capsys.readouterr().err
    assert "bnfs: pc_stable level 0:" in err and "bnfs: pc_stable: " in err
    assert "levels" not in err.replace("pc_stable level", "")  # no bar on a non-terminal
    bnfs.tabu_search(data, progress=True)
    bar = capsys.readouterr().err
    assert "tabu search" in bar and " moves" in bar and "0move" not in bar
    assert cli.main(["example", "--network", "asia", "--rows", "300", "--out", "e.svg"]) == 0
    assert f"picture written to {root / 'e.svg'}" in capsys.readouterr().out


def test_warnings_are_one_line_on_the_command_line(tmp_path, monkeypatch, capsys):
    import bnfs
    from bnfs import cli

    bnfs.datasets.sample("alarm", 3000, seed=2).to_csv(tmp_path / "alarm.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert (
        cli.main(["learn", "alarm.csv", "--out", "a.json", "--max-time", "0.000001", "--quiet"])
        == 124  # a partial graph (see test_a_partial_graph_says_so_in_its_exit_code_and_file)
    )
    lines = [
        line
        for line in capsys.readouterr().err.splitlines()
        if line.strip() and not line.startswith("bnfs: compiling")  # a kernel's first use
    ]
    assert len(lines) == 2 and lines[0].startswith("bnfs learn: warning: boss stopped early")
    assert lines[1] == (
        "bnfs learn: the graph written is partial: it stopped early (max_time reached)"
    )


def test_the_cli_offers_every_score():
    from bnfs._vocabulary import SCORES
    from bnfs.cli.parser import build_parser

    parser = build_parser()
    for label in SCORES:
        argv = ["learn", "data.csv", "--out", "g.json", "--score", label]
        assert parser.parse_args(argv).score == label


def test_a_line_moves_while_the_kernels_compile(monkeypatch):
    """First use compiles (seconds to minutes): past 5 s a terminal sees the seconds move,
    and the line is wiped when compiling ends."""
    import io

    from bnfs import _kernels
    from bnfs._progress import CompileTicker

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    ticker = CompileTicker(stream, after=5.0)
    ticker.tick(3.0)
    assert stream.getvalue() == ""  # a short compile says nothing more
    ticker.tick(7.4)
    ticker.tick(8.6)
    from bnfs._progress import COMPILING

    assert stream.getvalue().split("\r")[1:] == [f"{COMPILING}: 7 s", f"{COMPILING}: 9 s"]
    ticker.tick(None)
    assert stream.getvalue().endswith("\r\033[K") and not ticker.shown

    # the listener's clock: runs of compiles of bnfs kernels, none of other packages'
    listener = _kernels._compile._FirstCompile()
    listener.said = True  # no log line here
    idle = []
    listener.on_idle = lambda: idle.append(True)
    clock = iter([10.0, 10.5, 11.2, 11.6, 11.9, 40.0])
    monkeypatch.setattr(_kernels._compile.time, "perf_counter", lambda: next(clock))

    class Event:
        def __init__(self, module):
            function = type("F", (), {"__module__": module})
            self.data = {"dispatcher": type("D", (), {"py_func": function})}

    listener.on_start(Event("bnfs._kernels.scores"))  # 10.0: a run begins
    listener.on_start(Event("numpy"))  # not ours: ignored, no clock read
    assert listener.compiling_for() == 0.5  # 10.5
    listener.on_end(Event("bnfs._kernels.scores"))  # 11.2: none compiling, the line goes
    assert idle == [True] and listener.compiling_for() is None
    listener.on_start(Event("bnfs._kernels.order"))  # 11.6: within a second, the same run
    assert listener.compiling_for() == pytest.approx(1.9)  # 11.9
    listener.on_end(Event("bnfs._kernels.order"))  # 40.0
    assert idle == [True, True] and listener.compiling_for() is None
