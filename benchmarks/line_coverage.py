"""Line coverage of ``bnfs/`` by the whole test suite (issue 8's target: at least 90%).

Compiled kernels are invisible to coverage, so the suite runs twice: once as CI runs it
(JIT on), and once for the tests marked ``kernels`` with ``NUMBA_DISABLE_JIT=1`` (what
``tests/kernels/test_without_jit.py`` does in CI). The two are combined and reported per file.

    python benchmarks/line_coverage.py [--fail-under 90]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(command: list[str], env: dict | None = None) -> None:
    started = time.perf_counter()
    result = subprocess.run(
        command, cwd=ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True
    )
    tail = result.stdout.strip().splitlines()[-1:] or [""]
    print(
        f"  {' '.join(command[3:8])} ... -> {tail[0]} ({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    if result.returncode != 0:
        sys.exit(f"failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fail-under", type=float, default=90.0)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    coverage = [sys.executable, "-m", "coverage"]
    # subprocesses (the CLI tests run the installed ``bnfs``) are measured too, and the
    # installed package's files are mapped back onto bnfs/
    rcfile = folder / "coveragerc"
    rcfile.write_text(
        f"[run]\nsource = bnfs\nparallel = true\npatch = subprocess\n"
        f"data_file = {folder / '.coverage'}\n"
        "[paths]\nsource =\n    bnfs/\n    */site-packages/bnfs/\n"
    )
    common = [f"--rcfile={rcfile}"]
    print("the suite with the JIT on, then the kernels marker with NUMBA_DISABLE_JIT=1:")
    run(coverage + ["run", *common, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0"])
    run(
        coverage
        + [
            "run",
            *common,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "-m",
            "kernels and not slow",
            "-W",
            "error::RuntimeWarning",
            "-W",
            "ignore:overflow encountered in scalar:RuntimeWarning",
            "tests",
        ],
        env={"NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)},
    )
    data = f"--rcfile={rcfile}"
    subprocess.run(coverage + ["combine", data], cwd=ROOT, check=True, capture_output=True)
    report = folder / "coverage.json"
    subprocess.run(
        coverage + ["json", data, "-o", str(report)], cwd=ROOT, check=True, capture_output=True
    )
    files = json.loads(report.read_text())
    print(f"\n{'file':42} {'lines':>6} {'missed':>6} {'cover':>7}")
    for name, entry in sorted(files["files"].items()):
        s = entry["summary"]
        print(
            f"{os.path.relpath(name, ROOT):42} {s['num_statements']:6d} "
            f"{s['missing_lines']:6d} {s['percent_covered']:6.1f}%"
        )
    total = files["totals"]["percent_covered"]
    print(
        f"{'TOTAL bnfs/':42} {files['totals']['num_statements']:6d} "
        f"{files['totals']['missing_lines']:6d} {total:6.1f}%"
    )
    if total < args.fail_under:
        sys.exit(f"coverage {total:.1f}% is below {args.fail_under}%")


if __name__ == "__main__":
    main()
