"""Structural EM on many rows: the imputation loop that gives EM its start on at most
``WARM_START_ROWS`` rows (the default) against the same loop on every row, beside ``learn``
on the same rows complete, in one process.

    python benchmarks/em_warm_start.py [--network alarm] [--rows 300000] [--rate 0.1]

Prints seconds, the ratio to the complete rows' time and the SHD to the true CPDAG of each.
"""

from __future__ import annotations

import argparse
import importlib
import time
import warnings

import numpy as np

import bnfs
from bnfs import datasets


def _timed(frame):
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "runs inside structural EM"
        dag = bnfs.learn(frame, progress=False)
    return dag, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", default="alarm")
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--rate", type=float, default=0.1, help="MCAR rate per cell")
    args = parser.parse_args()
    frame = datasets.sample(args.network, args.rows, seed=1)
    truth = datasets.network(args.network).cpdag()
    rng = np.random.default_rng(2)
    holes = frame.mask(rng.random(frame.shape) < args.rate)
    bnfs.learn(frame.head(2000), progress=False)  # compile first: warm times only
    _timed(holes.head(2000))  # and structural EM's kernels
    complete, base = _timed(frame)
    print(f"complete rows: {base:.1f} s, SHD {bnfs.shd(complete, truth)}")
    em = importlib.import_module("bnfs.em.rounds")
    for label, rows in (
        ("start on a subset (default)", em.WARM_START_ROWS),
        ("start on every row", None),
    ):
        saved = em.WARM_START_ROWS
        em.WARM_START_ROWS = rows if rows is not None else 1 << 62
        try:
            dag, seconds = _timed(holes)
        finally:
            em.WARM_START_ROWS = saved
        print(
            f"{label}: {seconds:.1f} s ({seconds / base:.2f}x the complete rows), "
            f"SHD {bnfs.shd(dag, truth)}; {dag.learning['estep']}"
        )


if __name__ == "__main__":
    main()
