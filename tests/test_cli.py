"""The command line through its real entry point."""

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
