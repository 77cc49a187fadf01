"""Compile time and warm speed of the score-based, BOSS and PC kernels, for this installation of
bnfs and (``--compare PYTHON``) another one, in one sitting: the before/after check of a
change to the kernels (issue 34 allows neither to get worse by more than 5%).

Each case runs in a fresh interpreter. *Compile*: the first call of each learner on a small
sample (asia, 500 rows) with an empty numba cache folder, JIT included. *Warm*: the same
learners on alarm (20,000 rows; the random post-processing 1,000,000 operations, the PC
kernels through ``pc_stable``), each the best of ``--repeat`` calls after one warm-up call,
in a process whose cache is already filled. Installations alternate round by round, so
drifting machine load hits both alike.

    python benchmarks/kernel_speed.py [--compare /path/to/venv/bin/python] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CASES = {
    "hill_climbing": "bnfs.hill_climbing(data, 'bic')",
    "tabu_search": "bnfs.tabu_search(data, 'bde')",
    "hc + restarts": "bnfs.hill_climbing(data, 'bic', restarts=2, seed=1)",
    "post_process": "bnfs.post_process(bnfs.hill_climbing(data), data, n_ops=OPS, seed=1)",
    "screen_based": "bnfs.screen_based(data, 'bic', theta=4)",
    "pc_stable": "bnfs.pc_stable(data, 'g2', n_jobs=1)",
    "boss": "bnfs.boss(data, 'bde', seed=1)",
}

PROBE = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import bnfs
from bnfs import datasets
mode, repeat = sys.argv[1], int(sys.argv[2])
out = {}
if mode == "compile":
    data, OPS = datasets.sample("asia", 500, seed=0), 2000
else:
    data, OPS = datasets.sample("alarm", 20_000, seed=0), 1_000_000
for name, call in CASES.items():
    if mode == "compile":
        start = time.perf_counter()
        eval(call)
        out[name] = time.perf_counter() - start
    else:
        eval(call)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            eval(call)
            times.append(time.perf_counter() - start)
        out[name] = min(times)
print(json.dumps(out))
"""


def run(python: str, mode: str, repeat: int, cache: str) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "NUMBA_NUM_THREADS": "1"}
    code = f"CASES = {CASES!r}\n" + PROBE
    result = subprocess.run(
        [python, "-c", code, mode, str(repeat)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),  # the installed bnfs, not a source tree in the cwd
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-3000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", help="another installation's python (the baseline)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    pythons = {"this": sys.executable}
    if args.compare:
        pythons = {"baseline": args.compare, **pythons}
    compile_s = {label: {} for label in pythons}
    warm_s = {label: {} for label in pythons}
    with tempfile.TemporaryDirectory() as folder:
        for r in range(args.rounds):
            for label, python in pythons.items():
                cold = os.path.join(folder, f"{label}-{r}")
                for name, t in run(python, "compile", 1, cold).items():
                    compile_s[label][name] = min(compile_s[label].get(name, 1e9), t)
                for name, t in run(python, "warm", args.repeat, cold).items():
                    warm_s[label][name] = min(warm_s[label].get(name, 1e9), t)
    for title, table in (("compile (first call, JIT included)", compile_s), ("warm", warm_s)):
        print(f"\n{title}: seconds, best of {args.rounds} rounds")
        header = f"{'case':<16}" + "".join(f"{label:>12}" for label in pythons)
        print(header + ("       ratio" if args.compare else ""))
        totals = {label: 0.0 for label in pythons}
        for name in CASES:
            row = f"{name:<16}"
            for label in pythons:
                row += f"{table[label][name]:>12.3f}"
                totals[label] += table[label][name]
            if args.compare:
                row += f"{table['this'][name] / table['baseline'][name]:>12.3f}"
            print(row)
        row = f"{'total':<16}" + "".join(f"{totals[label]:>12.3f}" for label in pythons)
        if args.compare:
            row += f"{totals['this'] / totals['baseline']:>12.3f}"
        print(row)


if __name__ == "__main__":
    main()
