"""Start-up costs a new user meets: ``import bnfs``, ``bnfs --help`` and the first
``bnfs example`` on an empty numba cache (JIT included) against a warm one, beside the import
of the peers that are installed (pgmpy always; pyAgrum and causal-learn with the bench extra).

Every case runs in a fresh interpreter; times are the best of ``--repeat`` runs (the cold
example runs once per installation, each time with a new empty cache folder). ``--compare
PYTHON`` times another installation of bnfs (e.g. a virtual environment holding an earlier
version) in the same run, so the before/after ratio comes from one sitting on one machine.

    python benchmarks/startup.py [--compare /path/to/other/venv/bin/python] [--repeat 5]

Targets: ``import bnfs`` <= 1 s warm, ``bnfs --help`` <= 1.5 s (issue 16); the first
``bnfs example`` on an empty numba cache <= 12 s (issue 33); a first ``bnfs.learn`` in Python
(alarm, 5,000 rows) on an empty cache at most 5 times the same call on a warm one (issue 42).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

PEERS = {
    "pgmpy": "import pgmpy",
    "pyAgrum": "import pyagrum",
    "causal-learn": "import causallearn.search.ConstraintBased.PC",
}


def seconds(command: list[str], env: dict | None = None, cwd: str | None = None) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    return elapsed


def best(command: list[str], repeat: int, **kwargs) -> float:
    return min(seconds(command, **kwargs) for _ in range(repeat))


def measure(python: str, repeat: int) -> dict[str, float]:
    """Start-up times of the bnfs installed for ``python``."""
    out = {
        "import bnfs": best([python, "-c", "import bnfs"], repeat),
        "bnfs --help": best([python, "-m", "bnfs.cli", "--help"], repeat),
    }
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(folder, "numba")}
        example = [
            python,
            "-m",
            "bnfs.cli",
            "example",
            "--quiet",
            "--out",
            os.path.join(folder, "example.svg"),
        ]
        out["bnfs example, empty cache"] = seconds(example, env=env, cwd=folder)
        out["bnfs example, warm cache"] = best(example, max(1, repeat // 2), env=env, cwd=folder)
    with tempfile.TemporaryDirectory() as folder:  # a first bnfs.learn in Python (issue 42.16)
        env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(folder, "numba")}
        first = [python, "-c", FIRST_LEARN]
        out["first bnfs.learn, empty cache"] = seconds(first, env=env, cwd=folder)
        out["first bnfs.learn, warm cache"] = best(first, max(1, repeat // 2), env=env, cwd=folder)
    return out


#: what a newcomer's first notebook cell does
FIRST_LEARN = "import bnfs; frame = bnfs.datasets.sample('alarm', 5000, seed=0); bnfs.learn(frame)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", help="python of another bnfs installation to time too")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    here = measure(sys.executable, args.repeat)
    other = measure(args.compare, args.repeat) if args.compare else None
    print(f"{'case':<30}{'this bnfs':>12}" + (f"{'compared':>12}{'ratio':>9}" if other else ""))
    for case, value in here.items():
        line = f"{case:<30}{value:>11.2f}s"
        if other:
            line += f"{other[case]:>11.2f}s{other[case] / value:>8.1f}x"
        print(line)
    for peer, statement in PEERS.items():
        try:
            value = best([sys.executable, "-c", statement], args.repeat)
        except RuntimeError:
            print(f"import {peer:<23}{'not installed':>12}")
            continue
        print(
            f"import {peer:<23}{value:>11.2f}s   (import bnfs is "
            f"{value / here['import bnfs']:.1f}x faster)"
        )
    cold, warm = here["first bnfs.learn, empty cache"], here["first bnfs.learn, warm cache"]
    verdict = "met" if cold <= 5 * warm else "NOT met"
    print(f"target first bnfs.learn empty / warm cache <= 5x: {verdict} ({cold / warm:.1f}x)")
    for case, target in (
        ("import bnfs", 1.0),
        ("bnfs --help", 1.5),
        ("bnfs example, empty cache", 12.0),
    ):
        verdict = "met" if here[case] <= target else "NOT met"
        print(f"target {case} <= {target} s: {verdict} ({here[case]:.2f} s)")


if __name__ == "__main__":
    main()
