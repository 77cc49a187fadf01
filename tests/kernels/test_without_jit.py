"""The tests marked ``kernels`` once more with ``NUMBA_DISABLE_JIT=1``, under coverage.

Cases marked ``kernels_heavy`` as well (larger copies of paths a lighter case covers, minutes as
Python) are left to ``benchmarks/line_coverage.py``, which reruns every ``kernels`` case.

Run as Python, the kernels raise where compiled code would read out of bounds or overflow
silently, and coverage can see their lines. The rerun must pass and cover at least 90% of
the lines of ``bnfs/_kernels``; ``benchmarks/line_coverage.py`` adds this rerun to a coverage
run of the whole suite for the figure over all of ``bnfs/``.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# numpy warns where the hash kernels wrap around 2**64 on purpose; any other is an error
WARNINGS = [
    "-W",
    "error::RuntimeWarning",
    "-W",
    "ignore:overflow encountered in scalar:RuntimeWarning",
]


def run_kernels_without_jit(data_file: Path) -> subprocess.CompletedProcess:
    """pytest -m kernels with the JIT off, recording coverage of bnfs into ``data_file``."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "coverage",
        "run",
        f"--data-file={data_file}",
        "--source=bnfs",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "-m",
        "kernels and not slow and not kernels_heavy",  # the heavy: benchmarks/line_coverage.py
        *WARNINGS,
        "tests",
    ]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)


def kernel_coverage(data_file: Path, tmp_path: Path) -> dict:
    report = tmp_path / "coverage.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "coverage",
            "json",
            f"--data-file={data_file}",
            "-o",
            str(report),
            "--include=*/bnfs/_kernels/*",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return json.loads(report.read_text())


def test_kernels_pass_and_are_covered_as_python(tmp_path):
    pytest.importorskip("coverage")
    data_file = tmp_path / ".coverage"
    result = run_kernels_without_jit(data_file)
    tail = "\n".join(result.stdout.splitlines()[-15:])
    assert result.returncode == 0, f"{tail}\n{result.stderr[-2000:]}"
    assert " passed" in tail and "failed" not in tail
    report = kernel_coverage(data_file, tmp_path)
    files = {
        Path(name).name: entry["summary"]["percent_covered"]
        for name, entry in report["files"].items()
    }
    assert {
        "scores.py",
        "citests.py",
        "hill_climbing.py",
        "order.py",
        "screen.py",
        "random_search.py",
        "hsic.py",
    } <= set(files)
    assert report["totals"]["percent_covered"] >= 90.0, files
