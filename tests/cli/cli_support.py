"""Helpers the command-line tests share."""

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def run(*args, cwd=None, env=None):
    exe = shutil.which("bnfs")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "bnfs.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=600, env=env)


def _svgs(page: str):
    import re

    return [ET.fromstring(m) for m in re.findall(r"<svg.*?</svg>", page, flags=re.S)]


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


def _select_code(cli, argv, capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err
