"""Ctrl-C, repeated warnings and the first second on the command line (issue 71, items 11,
15 and 16): PC-stable writes the flagged graph so far as the score searches do, an
interrupt before the command starts is one line and exit 130, a warning raised every EM
round is shown once, and a terminal hears at once that the command is starting."""

import json
import os
import signal

import pytest

import bnfs
from bnfs import cli
from bnfs.constraint import pc


@pytest.mark.parametrize("out", ["o.json", "o.graphml"])
def test_pc_stable_writes_the_graph_so_far_at_ctrl_c(tmp_path, monkeypatch, capsys, out):
    bnfs.datasets.sample("asia", 1500, seed=3).to_csv(tmp_path / "asia.csv", index=False)
    monkeypatch.chdir(tmp_path)
    skeleton = pc._skeleton

    def interrupted(*args):
        os.kill(os.getpid(), signal.SIGINT)  # the learner's handler only marks its budget
        return skeleton(*args)

    monkeypatch.setattr(pc, "_skeleton", interrupted)
    argv = ["learn", "asia.csv", "--out", out, "--algorithm", "pc_stable", "--quiet"]
    assert cli.main(argv) == 130
    assert "partial: it stopped early (interrupted)" in capsys.readouterr().err
    if out.endswith(".json"):
        assert json.loads((tmp_path / out).read_text())["learning"]["stopped_early"] == (
            "interrupted"
        )
    else:
        assert (tmp_path / out).stat().st_size > 0


@pytest.mark.parametrize("where", ["build_parser", "_printable_streams"])
def test_ctrl_c_before_the_command_runs_is_one_line(monkeypatch, capsys, where):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, where, interrupt)
    assert cli.main(["learn", "x.csv", "--out", "o.json"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "bnfs: interrupted"


def test_a_warning_repeated_each_round_is_shown_once(capsys):
    seen = set()
    for _ in range(9):  # structural EM's rounds
        cli._one_line_warning("learn", seen, UserWarning("few rows for 12 columns"), None, "", 0)
    cli._one_line_warning("learn", seen, UserWarning("another"), None, "", 0)
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["bnfs learn: warning: few rows for 12 columns", "bnfs learn: warning: another"]


def test_a_terminal_hears_at_once_what_the_command_does(tmp_path):
    """Under load the imports take seconds before a command's first line: on a terminal a
    line says so at once, and is wiped when they are done (issue 71, item 16)."""
    import pty
    import subprocess
    import sys

    bnfs.datasets.sample("asia", 200, seed=0).to_csv(tmp_path / "asia.csv", index=False)
    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "bnfs.cli", "learn", "asia.csv", "--out", "a.json"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    process.communicate(timeout=600)
    os.close(leader)
    assert process.returncode == 0
    assert seen.startswith(b"bnfs learn: starting (loading numpy, pandas and numba)...\r\x1b[K")
    piped = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert piped.returncode == 0 and "starting" not in piped.stderr  # a pipe: no such line
