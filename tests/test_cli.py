"""The command line through its real entry point."""

import logging
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest


def run(*args, cwd=None):
    exe = shutil.which("bnfs")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "bnfs.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=600)


def test_example_learns_prints_and_draws(tmp_path):
    out = tmp_path / "asia.svg"
    result = run("example", "--network", "asia", "--rows", "3000", "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "Markov blanket of either:" in result.stdout
    assert "parents" in result.stdout and "precision" in result.stdout
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")


@pytest.mark.parametrize("args, message", [
    (["example", "--network", "nope"], "unknown network 'nope'"),
    (["example", "--network", "asia", "--target", "zz"], "target 'zz'"),
    (["example", "--rows", "0"], "positive integer"),
    (["example", "--out", "x.gif"], "format"),
])
def test_example_errors_are_one_line(args, message, tmp_path):
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_help():
    result = run("example", "--help")
    assert result.returncode == 0 and "bnfs example --network asia" in result.stdout


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    import bnfs
    root = tmp_path_factory.mktemp("cli")
    frame = bnfs.datasets.sample("asia", 3000, seed=4)
    frame.to_csv(root / "asia.csv", index=False)
    frame.to_csv(root / "asia.tsv", sep="\t", index=False)
    lines = ["@relation asia"] + [
        f"@attribute {c} {{{','.join(sorted(frame[c].unique()))}}}" for c in frame.columns]
    lines += ["@data"] + [",".join(row) for row in frame.astype(str).itertuples(index=False)]
    (root / "asia.arff").write_text("\n".join(lines) + "\n")
    holes = frame.copy()
    holes.loc[3, "tub"] = None
    holes.to_csv(root / "holes.csv", index=False)
    bnfs.write_bif(bnfs.DiscreteNetwork.fit(bnfs.datasets.network("asia"), frame,
                                            pseudo_count=1.0), root / "truth.bif")
    (root / "black.csv").write_text("from,to\nsmoke,lung\n")
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
        learned = bnfs.from_json(out.read_text())
        assert learned == bnfs.hill_climbing(frame, "bic", seed=0)
    for out, extra in (("pc.dot", ["--algorithm", "pc_stable", "--alpha", "0.01", "--n-jobs", "2"]),
                       ("hc2.json", ["--n-jobs", "-1"]),
                       ("hc.bif", ["--max-parents", "2"]), ("hc.graphml", [])):
        result = run("learn", str(root / "asia.csv"), "--out", str(root / out), "--quiet", *extra)
        assert result.returncode == 0, result.stderr
    assert '"smoke"' in (root / "pc.dot").read_text()
    assert bnfs.from_json((root / "hc2.json").read_text()) == bnfs.hill_climbing(frame, "bic")
    network = bnfs.read_bif(root / "hc.bif")
    assert max(len(network.dag.parents(v)) for v in network.dag.nodes) <= 2
    assert set(nx.read_graphml(root / "hc.graphml").nodes) == set(frame.columns)
    blacklisted = root / "black.json"
    result = run("learn", str(root / "asia.csv"), "--blacklist", str(root / "black.csv"),
                 "--out", str(blacklisted), "--quiet")
    assert result.returncode == 0, result.stderr
    assert ("smoke", "lung") not in bnfs.from_json(blacklisted.read_text()).arcs


def test_blanket_select_score_compare_and_draw(files):
    import bnfs
    root, frame = files
    csv = str(root / "asia.csv")
    result = run("blanket", csv, "--target", "either", "--quiet")
    assert result.returncode == 0, result.stderr
    assert "Markov blanket of either" in result.stdout and "children" in result.stdout
    result = run("blanket", csv, "--target", "-1", "--algorithm", "hiton_mb")
    assert result.returncode == 0 and "Markov blanket of dysp by hiton_mb" in result.stdout
    result = run("select", csv, "--target", "lung", "--method", "fcbf", "--cv", "3",
                 "--classifier", "logistic")
    assert result.returncode == 0, result.stderr
    assert "fcbf kept" in result.stdout and result.stdout.count("accuracy") == 2
    net = root / "asia.csv.json"
    run("learn", csv, "--out", str(net), "--quiet")
    result = run("score", csv, str(net), "--score", "bde")
    expected = bnfs.score(bnfs.from_json(net.read_text()), frame, "bde")
    assert result.returncode == 0 and f"{expected:.4f}" in result.stdout
    result = run("compare", str(net), str(root / "truth.bif"))
    learned, truth = bnfs.from_json(net.read_text()), bnfs.datasets.network("asia")
    assert f"SHD {bnfs.shd(learned, truth)}" in result.stdout and "precision" in result.stdout
    picture = root / "asia.svg"
    result = run("draw", str(net), "--out", str(picture), "--highlight", "either")
    assert result.returncode == 0, result.stderr
    text = ET.tostring(ET.parse(picture).getroot(), encoding="unicode")
    assert all(node in text for node in frame.columns)


@pytest.mark.parametrize("args, message", [
    (["learn", "missing.csv", "--out", "x.json"], "no such file: 'missing.csv'"),
    (["learn", "{root}/asia.csv", "--out", "x.txt"], "--out must end in one of"),
    (["learn", "{root}/asia.csv", "--out", "x.json", "--alpha", "2"], "expected a number in (0, 1)"),
    (["learn", "{root}/asia.csv", "--algorithm", "magic", "--out", "x.json"], "invalid choice"),
    (["learn", "{root}/asia.csv", "--algorithm", "pc_stable", "--blacklist", "{root}/black.csv",
      "--out", "x.json"], "apply to the score-based algorithms"),
    (["learn", "{root}/holes.csv", "--out", "x.json"], "pass --dropna"),
    (["blanket", "{root}/asia.csv", "--target", "nope"], "unknown column 'nope'"),
    (["blanket", "{root}/asia.csv", "--target", "12"], "out of range"),
    (["select", "{root}/asia.csv", "--target", "lung", "--cv", "1"], "integer >= 2, got 1"),
    (["learn", "{root}/asia.csv", "--out", "x.json", "--n-jobs", "0"], "non-zero integer"),
    (["draw", "{root}/asia.csv", "--out", "x.svg"], "must be .json or .bif"),
    (["score", "{root}/asia.csv", "{root}/missing.json"], "no such file"),
])
def test_errors_are_one_line_with_exit_code_2(files, args, message):
    root, _ = files
    result = run(*[a.format(root=root) for a in args], cwd=root)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("bnfs ")


def test_dropna_and_every_subcommand_has_help_with_examples(files):
    root, _ = files
    result = run("learn", str(root / "holes.csv"), "--dropna", "--out", str(root / "h.json"),
                 "--quiet")
    assert result.returncode == 0 and "2999 rows" in result.stdout
    for command in ("learn", "blanket", "select", "draw", "score", "compare", "example"):
        result = run(command, "--help")
        assert result.returncode == 0 and "examples:" in result.stdout, command


def _svgs(page: str):
    import re
    return [ET.fromstring(m) for m in re.findall(r"<svg.*?</svg>", page, flags=re.S)]


def test_learn_report_on_alarm(tmp_path):
    import bnfs
    frame = bnfs.datasets.sample("alarm", 2000, seed=3)
    frame.to_csv(tmp_path / "alarm.csv", index=False)
    report = tmp_path / "alarm.html"
    result = run("learn", str(tmp_path / "alarm.csv"), "--out", str(tmp_path / "alarm.json"),
                 "--report", str(report), "--highlight", "HYPOVOLEMIA", "--quiet")
    assert result.returncode == 0, result.stderr
    page = report.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "http://" not in \
        page.replace("http://www.w3.org", "")  # self-contained
    pictures = _svgs(page)
    assert len(pictures) == 1
    text = ET.tostring(pictures[0], encoding="unicode")
    assert all(node in text for node in frame.columns)
    assert "Provenance" in page and "hill_climbing" in page and "bic score" in page
    assert "Markov blanket of HYPOVOLEMIA" in page


def test_select_report_has_the_accuracy_curve(files):
    root, _ = files
    report = root / "select.html"
    result = run("select", str(root / "asia.csv"), "--target", "either", "--method",
                 "markov_blanket", "--algorithm", "hill_climbing", "--cv", "3",
                 "--report", str(report), "--quiet")
    assert result.returncode == 0, result.stderr
    page = report.read_text()
    assert "Accuracy against the number of features" in page and "Learned network" in page
    assert len(_svgs(page)) == 2 and "<code>tub</code>" in page


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
    assert run("learn", str(tmp_path / "asia.csv"), "--out", str(tmp_path / "a.json"),
               "--report", str(report), "--highlight", "either", "--quiet").returncode == 0
    flags = ["--headless", "--no-sandbox", "--disable-gpu"]
    dom = subprocess.run([browser, *flags, "--dump-dom", report.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    assert "<svg" in dom and "either" in dom and "Provenance" in dom
    shot = tmp_path / "shot.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1000,800",
                    report.as_uri()], capture_output=True, timeout=120)
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
