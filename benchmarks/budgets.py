"""Time budgets on wide data: each learner's ``max_time`` against the seconds it took, and
its peak memory (issue 42.11: pc_stable on 10,000 columns x 200 rows with max_time=60 ran
136 s and hit MemoryError at 20 GB; hill_climbing on 3,000 columns with max_time=30 took
54.6 s, its first scoring of all pairs not budgeted).

Each case runs in a fresh interpreter (the peak resident memory is the process's own) on
binary noise with a few planted dependencies, after a small warm-up run that compiles the
kernels. Target: every run ends within 10% of its budget (plus the interpreter's start).

    python benchmarks/budgets.py [--columns 10000] [--rows 200] [--max-time 60]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASE = """
import json, resource, time, warnings
import numpy as np, pandas as pd
import bnfs
rng = np.random.default_rng(0)
def frame(p, n):
    x = rng.integers(0, 2, (n, p)).astype(np.int8)
    x[:, 1::7] ^= x[:, 0:1] & (rng.random((n, 1)) < 0.8)  # planted arcs
    return pd.DataFrame(x, columns=[f"v{{i}}" for i in range(p)]).astype(str)
warm = frame(30, {rows})
getattr(bnfs, "{learner}")(warm, progress=False)
data = frame({columns}, {rows})
start = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    graph = getattr(bnfs, "{learner}")(data, max_time={max_time}, progress=False)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps({{"seconds": seconds, "peak_gb": peak,
                   "stopped": graph.learning.get("stopped_early"),
                   "links": len(graph.arcs) + len(getattr(graph, "edges", []))}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, nargs="+", default=[3000, 10000])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--max-time", type=float, default=30.0)
    parser.add_argument("--learners", nargs="+", default=["pc_stable", "hill_climbing"])
    args = parser.parse_args()
    print(
        f"{'learner':<15}{'columns':>9}{'budget':>9}{'seconds':>9}{'ratio':>7}{'peak GB':>9}  stopped"
    )
    for learner in args.learners:
        for columns in args.columns:
            code = CASE.format(
                learner=learner, columns=columns, rows=args.rows, max_time=args.max_time
            )
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{learner:<15}{columns:>9}  failed: {done.stderr.strip()[-300:]}")
                continue
            out = json.loads(done.stdout.strip().splitlines()[-1])
            ratio = out["seconds"] / args.max_time
            print(
                f"{learner:<15}{columns:>9}{args.max_time:>8.0f}s{out['seconds']:>8.1f}s"
                f"{ratio:>7.2f}{out['peak_gb']:>9.2f}  {out['stopped']}"
                + ("" if ratio <= 1.1 else "   <- over the 10% allowance")
            )


if __name__ == "__main__":
    main()
