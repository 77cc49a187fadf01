"""The command line through its real entry point: ``bnfs example``: the README's first command."""

import xml.etree.ElementTree as ET

import pytest

from cli_support import run


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


def test_example_help_names_the_learner_that_runs(capsys):
    from bnfs import cli

    with pytest.raises(SystemExit):
        cli.main(["example", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "bnfs.learn" in text and "hill climbing" not in text
