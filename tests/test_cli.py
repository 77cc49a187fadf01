"""The command line through its real entry point."""

import logging
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pandas as pd
import pytest


def run(*args, cwd=None, env=None):
    exe = shutil.which("bnfs")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "bnfs.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=600, env=env)


def test_example_learns_prints_and_draws(tmp_path, drawing_env):
    out = tmp_path / "asia.svg"
    result = run(
        "example",
        "--network",
        "asia",
        "--rows",
        "3000",
        "--out",
        str(out),
        "--quiet",
        env=drawing_env,
    )
    assert result.returncode == 0, result.stderr
    assert "Markov blanket of either:" in result.stdout
    assert "parents" in result.stdout and "precision" in result.stdout
    assert "with bnfs.learn" in result.stdout and "learner: boss (bde, vsp prior" in result.stdout
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")


@pytest.mark.parametrize(
    "args, message",
    [
        (["example", "--network", "nope"], "unknown network 'nope'"),
        (["example", "--network", "asia", "--target", "zz"], "target 'zz'"),
        (["example", "--rows", "0"], "an integer >= 2"),
        (["example", "--out", "x.gif"], "format"),
    ],
)
def test_example_errors_are_one_line(args, message, tmp_path):
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_help():
    result = run("example", "--help")
    assert result.returncode == 0 and "bnfs example --network asia" in result.stdout
    result = run("learn", "--help")  # what the BIF's tables are, where the option is
    assert "count of 1 per cell" in " ".join(result.stdout.split())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    import bnfs

    root = tmp_path_factory.mktemp("cli")
    frame = bnfs.datasets.sample("asia", 3000, seed=4)
    frame.to_csv(root / "asia.csv", index=False)
    frame.to_csv(root / "asia.tsv", sep="\t", index=False)
    lines = ["@relation asia"] + [
        f"@attribute {c} {{{','.join(sorted(frame[c].unique()))}}}" for c in frame.columns
    ]
    lines += ["@data"] + [",".join(row) for row in frame.astype(str).itertuples(index=False)]
    (root / "asia.arff").write_text("\n".join(lines) + "\n")
    holes = frame.copy()
    holes.loc[3, "tub"] = None
    holes.to_csv(root / "holes.csv", index=False)
    bnfs.io.write_bif(
        bnfs.DiscreteNetwork.fit(bnfs.datasets.network("asia"), frame, pseudo_count=1.0),
        root / "truth.bif",
    )
    (root / "black.csv").write_text("from,to\nsmoke,lung\n")
    (root / "asia.csv.names").write_text("smoke\nnope\n")
    return root, frame


def test_learn_writes_every_format(files):
    import networkx as nx

    import bnfs

    root, frame = files
    for data in ("asia.csv", "asia.tsv", "asia.arff"):
        out = root / f"{data}.json"
        result = run("learn", str(root / data), "--out", str(out), "--quiet")
        assert result.returncode == 0, result.stderr
        assert "8 variables" in result.stdout
        learned = bnfs.io.from_json(out.read_text())
        assert learned == bnfs.learn(frame, seed=0)  # the default learner
    for out, extra in (
        ("pc.dot", ["--algorithm", "pc_stable", "--alpha", "0.01", "--n-jobs", "2"]),
        ("hc2.json", ["--algorithm", "hill_climbing", "--n-jobs", "-1"]),
        ("hc.bif", ["--max-parents", "2"]),
        ("hc.graphml", []),
    ):
        result = run("learn", str(root / "asia.csv"), "--out", str(root / out), "--quiet", *extra)
        assert result.returncode == 0, result.stderr
    assert '"smoke"' in (root / "pc.dot").read_text()
    assert bnfs.io.from_json((root / "hc2.json").read_text()) == bnfs.hill_climbing(frame, "bic")
    network = bnfs.io.read_bif(root / "hc.bif")
    assert max(len(network.dag.parents(v)) for v in network.dag.nodes) <= 2
    assert set(nx.read_graphml(root / "hc.graphml").nodes) == set(frame.columns)
    blacklisted = root / "black.json"
    result = run(
        "learn",
        str(root / "asia.csv"),
        "--blacklist",
        str(root / "black.csv"),
        "--out",
        str(blacklisted),
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    assert ("smoke", "lung") not in bnfs.io.from_json(blacklisted.read_text()).arcs


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
    assert "fcbf kept" in result.stdout and result.stdout.count("accuracy") == 2
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
        (["draw", "{root}/asia.csv", "--out", "x.svg"], "must be .json or .bif"),
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
    for command in ("learn", "blanket", "select", "draw", "score", "compare", "example"):
        result = run(command, "--help")
        assert result.returncode == 0 and "examples:" in result.stdout, command


def _svgs(page: str):
    import re

    return [ET.fromstring(m) for m in re.findall(r"<svg.*?</svg>", page, flags=re.S)]


def test_learn_report_on_alarm(tmp_path, drawing_env):
    import bnfs

    frame = bnfs.datasets.sample("alarm", 2000, seed=3)
    frame.to_csv(tmp_path / "alarm.csv", index=False)
    report = tmp_path / "alarm.html"
    result = run(
        "learn",
        str(tmp_path / "alarm.csv"),
        "--out",
        str(tmp_path / "alarm.json"),
        "--report",
        str(report),
        "--highlight",
        "HYPOVOLEMIA",
        "--quiet",
        env=drawing_env,
    )
    assert result.returncode == 0, result.stderr
    page = report.read_text()
    assert (
        page.startswith("<!DOCTYPE html>")
        and "<script" not in page
        and "http://" not in page.replace("http://www.w3.org", "")
    )  # self-contained
    pictures = _svgs(page)
    assert len(pictures) == 1
    text = ET.tostring(pictures[0], encoding="unicode")
    assert all(node in text for node in frame.columns)
    assert "Provenance" in page and "<td>learn</td>" in page and "bde score" in page
    learned = bnfs.io.from_json((tmp_path / "alarm.json").read_text())  # one learning time
    assert f"<td>{learned.learning['seconds']:.2f} s</td>" in page
    assert "Markov blanket of HYPOVOLEMIA" in page


def test_select_report_has_the_accuracy_curve(files, drawing_env):
    root, _ = files
    report = root / "select.html"
    result = run(
        "select",
        str(root / "asia.csv"),
        "--target",
        "either",
        "--method",
        "markov_blanket",
        "--algorithm",
        "hill_climbing",
        "--cv",
        "3",
        "--report",
        str(report),
        "--quiet",
        env=drawing_env,
    )
    assert result.returncode == 0, result.stderr
    page = report.read_text()
    assert "http://" not in page.replace("http://www.w3.org", "")  # no metadata URLs
    assert "Accuracy against the number of features" in page and "Learned network" in page
    assert len(_svgs(page)) == 2 and "<code>tub</code>" in page
    assert "<th>learner</th><td>hill_climbing</td>" in page  # the learner is named
    assert "all features" in page  # the accuracy of all features, a line on the curve
    network = ET.tostring(_svgs(page)[1], encoding="unicode")
    assert "node-either" in network  # the class by its own name, not the selector's


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.slow
@pytest.mark.skipif(BROWSER is None, reason="chromium is not installed")
def test_report_renders_in_headless_chromium(tmp_path):
    """Open the report in a real browser (Debian's chromium): the DOM keeps the SVG and a
    screenshot is drawn. Slow and needs chromium, so it runs outside CI."""
    browser = BROWSER
    import bnfs

    bnfs.datasets.sample("asia", 2000, seed=0).to_csv(tmp_path / "asia.csv", index=False)
    report = tmp_path / "asia.html"
    assert (
        run(
            "learn",
            str(tmp_path / "asia.csv"),
            "--out",
            str(tmp_path / "a.json"),
            "--report",
            str(report),
            "--highlight",
            "either",
            "--quiet",
        ).returncode
        == 0
    )
    flags = ["--headless", "--no-sandbox", "--disable-gpu"]
    dom = subprocess.run(
        [browser, *flags, "--dump-dom", report.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "<svg" in dom and "either" in dom and "Provenance" in dom
    shot = tmp_path / "shot.png"
    subprocess.run(
        [browser, *flags, f"--screenshot={shot}", "--window-size=1000,800", report.as_uri()],
        capture_output=True,
        timeout=120,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


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


@pytest.fixture(scope="module")
def asia_file(tmp_path_factory):
    import bnfs

    root = tmp_path_factory.mktemp("every")
    frame = bnfs.datasets.sample("asia", 600, seed=5)
    frame.to_csv(root / "asia.csv", index=False)
    (root / "black.csv").write_text("from,to\nsmoke,lung\n")
    (root / "names.txt").write_text("# one variable per line\nsmoke\n")
    (root / "beliefs.csv").write_text("from,to,prob\nlung,smoke,0.7\n")
    (root / "tiers.txt").write_text("asia, smoke\ntub, lung, bronc\neither, xray, dysp\n")
    return root, bnfs.Dataset(root / "asia.csv")


def _choices(command: str) -> tuple[str, ...]:
    from bnfs import cli

    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    action = next(a for a in sub.choices[command]._actions if a.dest == "algorithm")
    return tuple(action.choices)


# every option of the learning group, with a value that changes nothing for asia's errors
OPTIONS = {
    "--score": "bde",
    "--test": "x2",
    "--alpha": "0.01",
    "--threshold": "0.02",
    "--prior": "uniform",
    "--beliefs": "beliefs.csv",
    "--max-parents": "2",
    "--blacklist": "black.csv",
    "--whitelist": "black.csv",
    "--max-time": "60",
    "--checkpoint": "c.json",
    "--seed": "3",
    "--n-jobs": "2",
    "--discretize": "interval",
    "--bins": "2",
    "--scan-order": "columns",
    "--tiers": "tiers.txt",
    "--roots": "asia",
    "--leaves": "dysp",
}


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
        elif algorithm in cli.LOCAL_LEARNERS:
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
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    families = {
        "--scan-order": ("hill_climbing", "tabu_search", "sparse_candidate"),
        "--score": cli.SCORE_LEARNERS,
        "--max-parents": cli.SCORE_LEARNERS,
        "--blacklist": cli.SCORE_LEARNERS + cli.CONSTRAINT_LEARNERS + cli.LOCAL_LEARNERS,
        "--test": cli.CONSTRAINT_LEARNERS + cli.LOCAL_LEARNERS,
        "--seed": cli.NETWORK_LEARNERS + cli.LOCAL_LEARNERS,
        "--discretize": cli.NETWORK_LEARNERS + cli.LOCAL_LEARNERS,
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
            if flag in ("--blacklist", "--whitelist") and algorithm in cli.LOCAL_LEARNERS:
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


def test_learn_takes_beliefs_about_single_arcs(asia_file, monkeypatch, capsys):
    """--beliefs is the cs prior's parameter, read from a CSV (from, to, prob)."""
    import bnfs
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    argv = ["learn", "asia.csv", "--algorithm", "boss", "--score", "bde", "--quiet"]
    assert cli.main([*argv, "--out", "b.json", "--beliefs", "beliefs.csv"]) == 0
    learned = bnfs.io.from_json((root / "b.json").read_text())
    beliefs = [("lung", "smoke", 0.7)]
    assert learned == bnfs.boss(data, "bde", prior="cs", beta=beliefs, seed=0, progress=False)
    for extra, message in [
        (["--prior", "vsp"], "--beliefs are the cs prior's, not --prior vsp's"),
        (["--beta", "0.2"], "--beta and --beliefs both set"),
    ]:
        with pytest.raises(SystemExit) as stop:
            cli.main([*argv, "--out", "c.json", "--beliefs", "beliefs.csv", *extra])
        assert stop.value.code == 2 and message in capsys.readouterr().err
    (root / "bad.csv").write_text("from,to,prob\nlung,smoke,often\n")
    with pytest.raises(SystemExit) as stop:
        cli.main([*argv, "--out", "c.json", "--beliefs", "bad.csv"])
    assert stop.value.code == 2 and "'often', not a number" in capsys.readouterr().err


def test_learn_takes_tiers_roots_and_leaves(asia_file, monkeypatch):
    import bnfs
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    argv = ["learn", "asia.csv", "--out", "k.json", "--tiers", "tiers.txt", "--roots", "asia"]
    assert cli.main([*argv, "--leaves", "dysp", "--quiet"]) == 0
    learned = bnfs.io.from_json((root / "k.json").read_text())
    tiers = [["asia", "smoke"], ["tub", "lung", "bronc"], ["either", "xray", "dysp"]]
    black = bnfs.blacklist_from(data.names, tiers=tiers, roots=["asia"], leaves=["dysp"])
    assert learned == bnfs.hill_climbing(data, blacklist=black, seed=0, progress=False)
    assert not any(learned.has_arc(u, v) for u, v in black)
    assert (
        cli.main(
            [
                "blanket",
                "asia.csv",
                "--target",
                "lung",
                "--algorithm",
                "pc_stable",
                "--tiers",
                "tiers.txt",
                "--quiet",
            ]
        )
        == 0
    )


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


def test_tpda_threshold_and_defaults_are_the_apis(asia_file, monkeypatch, capsys):
    import bnfs
    from bnfs import cli

    root, data = asia_file
    monkeypatch.chdir(root)
    assert (
        cli.main(
            [
                "learn",
                "asia.csv",
                "--out",
                "t.json",
                "--algorithm",
                "tpda",
                "--threshold",
                "0.05",
                "--quiet",
            ]
        )
        == 0
    )
    learned = bnfs.io.from_json((root / "t.json").read_text())
    assert learned == bnfs.tpda(data, threshold=0.05) != bnfs.tpda(data)
    assert learned.learning["test"] == "mi_threshold"


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


def test_a_bad_output_path_is_refused_before_learning(asia_file, monkeypatch, capsys):
    import bnfs
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    monkeypatch.setattr(bnfs, "hill_climbing", lambda *a, **k: pytest.fail("it learned"))
    with pytest.raises(SystemExit) as stop:
        cli.main(["learn", "asia.csv", "--out", "o.json", "--report", "nodir/r.html", "--quiet"])
    assert stop.value.code == 2
    assert (
        "cannot write --report 'nodir/r.html': folder 'nodir' does not exist"
        in capsys.readouterr().err
    )


def test_warnings_are_one_line_on_the_command_line(tmp_path, monkeypatch, capsys):
    import bnfs
    from bnfs import cli

    bnfs.datasets.sample("alarm", 3000, seed=2).to_csv(tmp_path / "alarm.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert (
        cli.main(["learn", "alarm.csv", "--out", "a.json", "--max-time", "0.000001", "--quiet"])
        == 124  # a partial graph (see test_a_partial_graph_says_so_in_its_exit_code_and_file)
    )
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 2 and lines[0].startswith("bnfs learn: warning: boss stopped early")
    assert lines[1] == (
        "bnfs learn: the graph written is partial: it stopped early (max_time reached)"
    )


@pytest.mark.parametrize("out", ["g.json", "g.dot", "g.bif", "g.graphml"])
def test_a_partial_graph_says_so_in_its_exit_code_and_file(tmp_path, monkeypatch, capsys, out):
    """Issue 43.4: a search stopped by --max-time (exit 124) or Ctrl-C (exit 130) writes its
    graph, which says it is partial in every format; a finished one exits 0 and does not."""
    import json
    import os
    import signal

    import networkx as nx

    import bnfs
    from bnfs import cli
    from bnfs.search._state import SearchState

    bnfs.datasets.sample("asia", 2000, seed=2).to_csv(tmp_path / "asia.csv", index=False)
    monkeypatch.chdir(tmp_path)
    argv = ["learn", "asia.csv", "--out", out, "--algorithm", "hill_climbing", "--quiet"]

    def partial_note():
        if out.endswith(".json"):
            return json.loads((tmp_path / out).read_text())["learning"]["stopped_early"]
        if out.endswith(".graphml"):
            return nx.read_graphml(tmp_path / out).graph.get("partial")
        first = (tmp_path / out).read_text().splitlines()[0]
        return first if first.startswith("// partial network") else None

    assert cli.main(argv) == 0 and partial_note() is None
    assert "partial" not in capsys.readouterr().err
    assert cli.main([*argv, "--max-time", "0.000001"]) == 124
    assert "max_time reached" in partial_note()
    assert "partial: it stopped early (max_time reached)" in capsys.readouterr().err
    run = SearchState.run

    def interrupted_run(self, *args):
        os.kill(os.getpid(), signal.SIGINT)  # the search's handler only marks its budget
        return run(self, *args)

    monkeypatch.setattr(SearchState, "run", interrupted_run)
    assert cli.main(argv) == 130
    assert "interrupted" in partial_note()
    assert "partial: it stopped early (interrupted)" in capsys.readouterr().err
    monkeypatch.setattr(SearchState, "run", run)
    for algorithm in ("hiton_mb", "hill_climbing"):  # a local learner, a network
        blanket = ["blanket", "asia.csv", "--target", "either", "--algorithm", algorithm]
        assert cli.main([*blanket, "--quiet"]) == 0
        assert cli.main([*blanket, "--max-time", "0.000001", "--quiet"]) == 124
        assert "the blanket is partial" in capsys.readouterr().err
    if out.endswith((".bif", ".dot")):  # the note is a comment every reader skips
        read = bnfs.io.read_bif if out.endswith(".bif") else None
        if read is not None:
            assert set(read(tmp_path / out).dag.nodes) == set(bnfs.datasets.network("asia").nodes)


def test_learn_takes_a_mixed_survey_with_missing_values(tmp_path):
    """The bundled survey: categorical answers, float measurements, a few NaN."""
    from bnfs import datasets, shd
    from bnfs.io import from_json

    data = tmp_path / "survey.csv"
    datasets.load_survey().to_csv(data, index=False)
    truth = datasets.survey_network().dag
    out = tmp_path / "survey.json"
    result = run("learn", str(data), "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "by structural EM" in result.stdout and "all 800 rows used" in result.stdout
    learned = from_json(out.read_text())
    assert learned.learning["algorithm"] == "structural_em"
    assert learned.learning["search"]["score"] == "bic-cg"
    assert shd(learned.cpdag(), truth.cpdag()) <= 5
    result = run("learn", str(data), "--algorithm", "pc_stable", "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "available-case tests" in result.stdout
    assert from_json(out.read_text()).learning["test"] == "mi_cg"
    result = run("blanket", str(data), "--target", "sbp", "--algorithm", "hiton_mb", "--quiet")
    assert result.returncode == 0 and "bmi" in result.stdout and "smoker" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--algorithm", "sparse_candidate"], "pass --dropna"),
        (["--algorithm", "mmhc"], "needs complete rows"),
        (["--discretize", "quantile"], "discretizing needs complete rows"),
        (["--max-time", "5"], "does not take max_time"),
        (["--out-bif"], "writes discrete networks"),
    ],
)
def test_learn_says_what_to_do_with_missing_or_continuous_values(tmp_path, args, message):
    from bnfs import datasets

    data = tmp_path / "survey.csv"
    datasets.load_survey().to_csv(data, index=False)
    out = tmp_path / ("g.bif" if args == ["--out-bif"] else "g.json")
    extra = [] if args == ["--out-bif"] else args
    result = run("learn", str(data), "--out", str(out), *extra)
    assert result.returncode == 2, result.stdout
    assert message in result.stderr and "Traceback" not in result.stderr


def test_the_cli_offers_every_score():
    from bnfs._vocabulary import SCORES
    from bnfs.cli.parser import build_parser

    parser = build_parser()
    for label in SCORES:
        argv = ["learn", "data.csv", "--out", "g.json", "--score", label]
        assert parser.parse_args(argv).score == label


def _select_code(cli, argv, capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_select_takes_or_refuses_every_option_for_every_method(asia_file, monkeypatch, capsys):
    """Every learning option given to every selection method is used (exit 0) or refused by
    name (exit 2), never ignored: tiers, roots and leaves (even naming an unknown node, or a
    directory as the tiers file) are refused by every method, the discretizing options by
    the methods that do not discretize."""
    from bnfs import cli
    from bnfs.cli.select import DISCRETIZING, SELECT_METHODS

    root, _ = asia_file
    monkeypatch.chdir(root)
    (root / "a_directory").mkdir(exist_ok=True)
    options = {
        **OPTIONS,
        "--tiers": "a_directory",
        "--roots": "no_such_node",
    }
    for method in SELECT_METHODS:
        for flag, value in options.items():
            if (root / "c.json").exists():
                (root / "c.json").unlink()
            extra = {"--threshold": ["--test", "mi_threshold"], "--beliefs": ["--score", "bde"]}
            extra = extra.get(flag, [])
            # the default learner on asia's 7 features is learn's network
            argv = ["select", "asia.csv", "--target", "either", "--method", method]
            code, _, err = _select_code(cli, [*argv, flag, value, *extra, "--quiet"], capsys)
            assert code in (0, 2), (method, flag, err)
            if flag in ("--tiers", "--roots", "--leaves") or (
                flag in ("--discretize", "--bins") and method not in DISCRETIZING
            ):
                assert code == 2 and f"{flag} does not apply to --method {method}" in err, (
                    method,
                    flag,
                    err,
                )
            elif code == 2:
                assert any(
                    f"{f} applies to --method markov_blanket, not {method}" in err
                    or f"{f} does not apply to learn" in err
                    or f"{f} does not apply to --method {method}" in err
                    for f in (flag, *extra[:1])
                ), (method, flag, err)
                assert not (flag in ("--discretize", "--bins") and method in DISCRETIZING)


@pytest.fixture(scope="module")
def continuous_file(tmp_path_factory):
    """A class with two informative continuous features and two noise ones."""
    import numpy as np

    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "a": y + rng.normal(0, 0.8, n),
            "b": -y + rng.normal(0, 1.5, n),
            "c": rng.normal(0, 1, n),
            "d": rng.exponential(1, n),
            "y": np.where(y == 1, "yes", "no"),
        }
    )
    root = tmp_path_factory.mktemp("continuous")
    frame.to_csv(root / "c.csv", index=False)
    return root, frame


def test_select_discretizes_as_told(continuous_file, monkeypatch, capsys):
    """--discretize and --bins reach every selector that discretizes: its selection is the
    Python selector's with the same discretizer and bins."""
    import bnfs
    from bnfs import cli
    from bnfs.cli.select import DISCRETIZING

    root, frame = continuous_file
    monkeypatch.chdir(root)
    X, y = frame.drop(columns="y"), frame["y"]
    selectors = {
        "markov_blanket": lambda **o: bnfs.MarkovBlanketSelector(
            "hiton_mb", random_state=0, n_jobs=1, **o
        ),
        "srs": lambda **o: bnfs.SRS(n_jobs=1, **o),
        "slfs": bnfs.SLFS,
        "hybrid": lambda **o: bnfs.HybridSelector(n_jobs=1, **o),
        "fcbf": bnfs.FCBF,
        "cfs": bnfs.CFS,
        "information_gain": bnfs.InformationGain,
    }
    assert set(selectors) == set(DISCRETIZING)
    outputs = set()
    for method, make in selectors.items():
        for flags, params in [
            ([], {}),
            (["--discretize", "interval", "--bins", "5"], {"discretizer": "interval", "n_bins": 5}),
            (["--bins", "2"], {"n_bins": 2}),
        ]:
            argv = ["select", "c.csv", "--target", "y", "--method", method, *flags, "--quiet"]
            code, out, err = _select_code(cli, argv, capsys)
            assert code == 0, (method, flags, err)
            selector = make(**params).fit(X, y)
            expected = [] if selector.empty_ else list(X.columns[selector.get_support()])
            assert out.splitlines()[1].strip() == (", ".join(expected) or "-"), (method, flags)
            outputs.add((method, out.splitlines()[1]))
    # the options change some selection: the comparison above can tell them apart
    assert len(outputs) > len(selectors)


def test_blanket_and_select_agree_on_continuous_features(continuous_file, monkeypatch, capsys):
    """Issue 44: bnfs select and MarkovBlanketSelector() cut continuous features into the
    same bins, and so does bnfs blanket told to; with discretizer="auto" the selector gives
    bnfs blanket's default, learn modelling the features as they are."""
    import bnfs
    from bnfs import cli

    root, frame = continuous_file
    monkeypatch.chdir(root)
    X, y = frame.drop(columns="y"), frame["y"]

    def blanket(*flags):
        assert cli.main(["blanket", "c.csv", "--target", "y", *flags, "--quiet"]) == 0
        listing = capsys.readouterr().out
        return {
            name.strip()
            for line in listing.splitlines()[1:]
            for name in line.split(None, 1)[-1].split(",")
            if name.strip() not in ("", "-")
        }

    code, out, err = _select_code(cli, ["select", "c.csv", "--target", "y", "--quiet"], capsys)
    assert code == 0, err
    selected = set(out.splitlines()[1].strip().split(", ")) - {"-"}
    binned = bnfs.MarkovBlanketSelector().fit(X, y)
    assert binned.learner_ == "learn" and binned.network_.learning["score"] == "bde"
    assert selected == set(binned.selected_) == blanket("--discretize", "quantile", "--bins", "3")
    kept = bnfs.MarkovBlanketSelector(discretizer="auto").fit(X, y)
    assert kept.network_.learning["score"] == "bic-cg"
    assert set(kept.selected_) == blanket() and "a" in kept.selected_


@pytest.mark.parametrize(
    "method", ["markov_blanket", "hsmb", "srs", "slfs", "fcbf", "cfs", "information_gain"]
)
def test_select_report_for_every_method(asia_file, method, monkeypatch, capsys):
    """The report needs no network: local learners and filters write one without a
    picture of a network; SLFS shows its tree."""
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    for extra in ([], ["--algorithm", "iamb_mb"]) if method == "markov_blanket" else ([],):
        report = root / f"{method}.html"
        argv = ["select", "asia.csv", "--target", "either", "--method", method, *extra]
        code, out, err = _select_code(cli, [*argv, "--report", str(report), "--quiet"], capsys)
        assert code == 0, (method, extra, err)
        page = report.read_text()
        assert "bnfs select" in page and f"<td>{method}</td>" in page, method
        assert "report written" in out


def test_select_stops_on_time_with_the_set_so_far(asia_file, monkeypatch, capsys):
    """--max-time reaches the local learner: over it, the set found so far and a warning."""
    import warnings

    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    argv = ["select", "asia.csv", "--target", "either", "--algorithm", "hiton_mb", "--quiet"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = _select_code(cli, [*argv, "--max-time", "0.000001"], capsys)
    shown = err + " ".join(str(w.message) for w in caught)
    assert code == 124 and "hiton_mb stopped early (max_time reached)" in shown
    assert "kept" in out and "either" in out
    for method, selector in (("fcbf", "FCBF"), ("hsmb", "HSMB"), ("hybrid", "HybridSelector")):
        argv = ["select", "asia.csv", "--target", "either", "--method", method, "--quiet"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, out, err = _select_code(cli, [*argv, "--max-time", "0.000001"], capsys)
        shown = err + " ".join(str(w.message) for w in caught)
        assert code == 124 and f"{selector} stopped early (max_time reached)" in shown, method
        assert "the selection is partial" in err, method
    argv = ["select", "asia.csv", "--target", "either", "--method", "information_gain"]
    code, out, err = _select_code(cli, [*argv, "--max-time", "5"], capsys)
    assert code == 2 and "--max-time does not apply to --method information_gain" in err


def test_binning_that_was_not_asked_for_is_said(tmp_path):
    """A learner that needs discrete data cuts the continuous columns: one line on stderr
    says so (not only with -v); asked for with --discretize, or with --quiet, it is quiet."""
    from bnfs import datasets

    data = tmp_path / "survey.csv"
    datasets.load_survey().to_csv(data, index=False)
    argv = [
        "learn",
        str(data),
        "--dropna",
        "--algorithm",
        "tpda",
        "--out",
        str(tmp_path / "t.json"),
    ]
    result = run(*argv)
    assert result.returncode == 0, result.stderr
    assert "bnfs: discretizing 6 continuous columns (age, income" in result.stderr
    assert "into 3 quantile bins: tpda needs discrete data here" in result.stderr
    for extra in (["--discretize", "quantile"], ["--quiet"]):
        result = run(*argv, *extra)
        assert result.returncode == 0 and "discretizing" not in result.stderr, extra


def test_a_line_moves_while_the_kernels_compile(monkeypatch):
    """First use compiles for up to a minute: past 5 s a terminal sees the seconds move,
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
    assert stream.getvalue().split("\r")[1:] == [
        "bnfs: compiling the numba kernels (first use): 7 s",
        "bnfs: compiling the numba kernels (first use): 9 s",
    ]
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


def test_cross_validation_folds_match_scikit_learn_and_show_progress():
    import io
    import time as clock

    import numpy as np
    from sklearn.model_selection import StratifiedKFold, cross_validate
    from sklearn.naive_bayes import BernoulliNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    import bnfs
    from bnfs.cli._status import StatusLine
    from bnfs.cli.select import fold_scores

    frame = bnfs.datasets.sample("asia", 400, seed=3)
    X, y = frame.drop(columns="lung"), frame["lung"]
    model = make_pipeline(OneHotEncoder(handle_unknown="ignore"), BernoulliNB())
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    stream = io.StringIO()
    status = StatusLine(stream, every=0.01)
    status.start()
    ours = fold_scores(model, X, y, folds, status, "all features")
    clock.sleep(0.05)
    status.stop()
    theirs = cross_validate(
        model, X, y, cv=folds, scoring={"accuracy": "accuracy", "f1": "f1_macro"}
    )
    assert np.allclose(ours["test_accuracy"], theirs["test_accuracy"])
    assert np.allclose(ours["test_f1"], theirs["test_f1"])
    written = stream.getvalue()
    assert "cross-validating with all features, fold 4 of 4:" in written
    assert written.endswith("\r\033[K")  # wiped at the end


_NODES = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp", "NA"]


@pytest.mark.parametrize(
    "text, arcs",
    [
        ("asia,dysp\nxray,smoke\n", [("asia", "dysp"), ("xray", "smoke")]),  # no header
        ("asia,dysp\n", [("asia", "dysp")]),  # one line, no header
        ("from,to\nasia,dysp\n", [("asia", "dysp")]),
        ("to,from\ndysp,asia\n", [("asia", "dysp")]),  # a header in another order
        ("FROM,TO\r\nasia,dysp\r\n", [("asia", "dysp")]),
        ("parent,child\nasia,dysp\n", [("asia", "dysp")]),  # a header of other names
        ("\ufefffrom,to\nasia,dysp\n", [("asia", "dysp")]),  # Notepad's byte-order mark
        ("# forbidden\n\nasia , dysp\n", [("asia", "dysp")]),
        ("asia\tdysp\nNA\tsmoke\n", [("asia", "dysp"), ("NA", "smoke")]),  # tabs; NA a name
        ("NA,asia\n", [("NA", "asia")]),
        ("from,to\n", []),
    ],
)
def test_knowledge_files_keep_their_first_arc(tmp_path, text, arcs):
    from bnfs.cli._inputs import arc_file

    path = tmp_path / "arcs.csv"
    path.write_text(text)
    assert arc_file(path, "whitelist", _NODES) == arcs


@pytest.mark.parametrize(
    "text",
    [
        "asia,dysp,0.7\nNA,smoke,0.7\n",
        "from,to,prob\nasia,dysp,0.7\nNA,smoke,0.7\n",
        "prob,to,from\n0.7,dysp,asia\n0.7,smoke,NA\n",
        "\ufeffa,b,p\nasia,dysp,0.7\nNA,smoke,0.7\n",
    ],
)
def test_belief_files_keep_their_first_belief(tmp_path, text):
    from bnfs.cli._inputs import belief_file

    path = tmp_path / "beliefs.csv"
    path.write_text(text)
    assert belief_file(path, _NODES) == [("asia", "dysp", 0.7), ("NA", "smoke", 0.7)]


@pytest.mark.parametrize(
    "raw, message",
    [
        (
            b"asai,dysp\nxray,smoke\n",
            "the first row of the blacklist file .* \\(asai, dysp\\) is "
            "neither a header \\(from, to\\) nor an arc between nodes of the data: 'asai'",
        ),
        (b"asai,dsyp\n", r"'asai' is not a column \(did you mean 'asia'\?\)"),  # both mistyped
        (b"asia,dysp,xray\n", "needs 2 columns \\(from, to\\); row 1 has 3"),
        (b"from,to\nasia\n", "row 1 has 1"),
        (b"asia,d\xfcsp\n", "the blacklist file .* is not UTF-8 text \\(byte 0xfc at offset 6\\)"),
    ],
)
def test_knowledge_files_that_cannot_be_read_as_arcs_are_refused_by_name(tmp_path, raw, message):
    from bnfs.cli._inputs import arc_file

    path = tmp_path / "arcs.csv"
    path.write_bytes(raw)
    with pytest.raises(ValueError, match=message):
        arc_file(path, "blacklist", _NODES)


def test_a_headerless_whitelist_keeps_its_first_arc_on_the_command_line(
    asia_file, monkeypatch, capsys
):
    import bnfs
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    (root / "wl.csv").write_text("asia,dysp\n")
    (root / "bl.csv").write_text("smoke,lung\n")
    args = ["learn", "asia.csv", "--out", "wl.json", "--algorithm", "hill_climbing", "--quiet"]
    assert cli.main(args + ["--whitelist", "wl.csv", "--blacklist", "bl.csv"]) == 0
    learned = bnfs.io.from_json((root / "wl.json").read_text())
    assert learned.has_arc("asia", "dysp")
    assert not learned.has_arc("smoke", "lung")


def test_an_ascii_terminal_gets_the_whole_blanket_of_a_unicode_target(tmp_path):
    """PYTHONIOENCODING=ascii: printing the name raised part way and the blanket was lost."""
    import os
    import subprocess

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


def test_example_help_names_the_learner_that_runs(capsys):
    from bnfs import cli

    with pytest.raises(SystemExit):
        cli.main(["example", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "bnfs.learn" in text and "hill climbing" not in text


def test_help_loads_no_data_library():
    """bnfs --help took 0.4 s: bnfs.cli.learn imported pandas (and numpy) at import."""
    import subprocess

    code = (
        "import sys\nfrom bnfs.cli import main\ntry:\n    main(['--help'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'numba', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_version_and_near_matches(asia_file, monkeypatch, capsys):
    import bnfs
    from bnfs import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"bnfs {bnfs.__version__}"
    root, data = asia_file
    monkeypatch.chdir(root)
    for typed, meant in (("Lung", "lung"), ("SMOKE", "smoke"), ("dyspn", "dysp"), ("xrey", "xray")):
        with pytest.raises(SystemExit):
            cli.main(["blanket", "asia.csv", "--target", typed, "--quiet"])
        assert f"unknown column {typed!r} (did you mean {meant!r}?)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["blanket", "asia.csv", "--target", "zzzz", "--quiet"])
    assert "did you mean" not in capsys.readouterr().err  # nothing close: no guess
    frame = data.to_pandas()
    for call, message in (
        (lambda: bnfs.constraint.iamb_mb(frame, "Lung"), "target 'Lung' is not a variable"),
        (lambda: bnfs.hill_climbing(frame, blacklist=[("smoke", "lunq")]), "node 'lunq'"),
        (lambda: bnfs.CITest(frame)("Tub", "lung"), "'Tub' is not a variable"),
        (lambda: data.check_name("Either"), "target 'Either' is not a column"),
    ):
        with pytest.raises(ValueError, match=message + r".*\(did you mean '\w+'\?\)"):
            call()


@pytest.mark.parametrize("widgets", [False, True])
def test_a_notebook_without_ipywidgets_gets_the_text_bar_without_a_warning(monkeypatch, widgets):
    """tqdm.auto warned "IProgress not found" on the first learn cell of such a notebook."""
    import importlib.util
    import types
    import warnings

    import tqdm.std

    from bnfs import _progress

    class ZMQInteractiveShell:
        pass

    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: ZMQInteractiveShell()
    monkeypatch.setitem(sys.modules, "IPython", fake)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (
            (object() if widgets else None) if name == "ipywidgets" else real_find_spec(name, *a)
        ),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bar = _progress.progress_bar_class()
    assert (bar is not tqdm.std.tqdm) == widgets
    monkeypatch.delitem(sys.modules, "IPython")
    assert _progress.progress_bar_class() is tqdm.std.tqdm  # a plain session


@pytest.mark.parametrize("where", ["terminal", "notebook", "pipe"])
def test_python_sessions_see_the_compile_line_too(monkeypatch, where):
    """Issue 42.16: in Python and notebooks the first learn compiled for 15-20 s with no sign
    of life; the line now starts with the first compile wherever stderr is a terminal or a
    notebook's (no logging set up), and is silent in a pipe."""
    import io
    import time as clock
    import types

    from bnfs import _kernels, _progress

    class Terminal(io.StringIO):
        def isatty(self):
            return where == "terminal"

    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    if where == "notebook":

        class ZMQInteractiveShell:
            pass

        fake = types.ModuleType("IPython")
        fake.get_ipython = lambda: ZMQInteractiveShell()
        monkeypatch.setitem(sys.modules, "IPython", fake)
    seconds = [7.0]
    monkeypatch.setattr(_kernels, "compiling_for", lambda: seconds[0])
    progress = _progress._CompileProgress()
    progress.busy()  # a kernel starts compiling
    if where == "pipe":
        assert progress.ticker is None and stream.getvalue() == ""
        return
    deadline = clock.monotonic() + 20
    while "7 s" not in stream.getvalue() and clock.monotonic() < deadline:
        clock.sleep(0.05)
    assert stream.getvalue() == "\rbnfs: compiling the numba kernels (first use): 7 s"
    seconds[0] = None
    progress.idle()  # compiling ends: the line goes before the caller prints
    wiped = stream.getvalue().split("\r")[-1]
    assert wiped == ("\033[K" if where == "terminal" else "")
    progress.ticker.join(5)
    assert not progress.ticker.is_alive()  # the ticker ends with the compiling


def test_select_learns_the_blanket_from_gaps_and_cross_validates(tmp_path, monkeypatch, capsys):
    """Issue 45: bnfs select keeps the rows with missing values for the blanket selector (its
    learner runs inside structural EM, as bnfs blanket's), fills them for the --cv
    classifier inside each fold, and names --dropna for the methods that need complete rows
    and for a target with gaps."""
    import numpy as np

    import bnfs
    from bnfs import cli

    frame = bnfs.datasets.sample("asia", 800, seed=3)
    holes = frame.mask(np.random.default_rng(0).random(frame.shape) < 0.1)
    holes["either"] = frame["either"]
    holes.to_csv(tmp_path / "gaps.csv", index=False)
    monkeypatch.chdir(tmp_path)
    argv = ["select", "gaps.csv", "--target", "either", "--cv", "3", "--quiet"]
    code, out, err = _select_code(cli, argv, capsys)
    assert code == 0, err
    lines = out.splitlines()
    X = bnfs.io.read_table(tmp_path / "gaps.csv").drop(columns="either")
    selector = bnfs.MarkovBlanketSelector().fit(X, frame["either"])
    assert selector.missing_["how"] == "structural EM"
    assert lines[1].strip() == ", ".join(selector.selected_)
    assert "missing values: structural EM" in lines[2]
    accuracy = [float(line.split("accuracy")[1].split()[0]) for line in lines if "accuracy" in line]
    assert len(accuracy) == 2 and min(accuracy) > 0.9
    code, out, err = _select_code(cli, [*argv[:4], "--method", "fcbf", "--quiet"], capsys)
    assert code == 2 and "--dropna" in err
    holes.loc[0, "either"] = np.nan
    holes.to_csv(tmp_path / "gaps.csv", index=False)
    code, out, err = _select_code(cli, argv, capsys)
    assert code == 2 and "target 'either'" in err and "--dropna" in err
