"""What ``checkpoint=`` costs hill climbing, and what resuming saves (issue 8).

Hill climbing with restarts on sampled alarm rows runs without a checkpoint, with the
default one (a write every 30 s, after each restart and at the end) and with a write after
every chunk of 64 moves; then a run is killed (SIGKILL) in its fourth climb and resumed.
Each case runs in the same process on the same data; times are the fastest of five,
the cases interleaved.

    python benchmarks/checkpoint.py [--rows 200000]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import tempfile
import time
from pathlib import Path

import bnfs
import bnfs._checkpoint as checkpoint_module
from bnfs import datasets
from bnfs._checkpoint import data_digest
from bnfs._kernels.hill_climbing import N_MOVES


def fastest(cases: dict, repeat: int = 5) -> dict:
    """The fastest of ``repeat`` runs of each case, the cases interleaved."""
    times = {label: [] for label in cases}
    for _ in range(repeat):
        for label, run in cases.items():
            if label == "every chunk":
                checkpoint_module.CHECKPOINT_SECONDS = 0.0
            started = time.perf_counter()
            run()
            times[label].append(time.perf_counter() - started)
            checkpoint_module.CHECKPOINT_SECONDS = 30.0
    return {label: min(t) for label, t in times.items()}


def _child(frame, options, path):
    checkpoint_module.CHECKPOINT_SECONDS = 0.0
    bnfs.hill_climbing(frame, checkpoint=path, **options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    frame = datasets.sample("alarm", args.rows, seed=0)
    data = bnfs.Dataset(frame)
    options = {"restarts": 6, "perturb_moves": 5, "seed": 1, "progress": False}
    folder = Path(tempfile.mkdtemp())
    bnfs.hill_climbing(data, **options)  # compile
    started = time.perf_counter()
    digest_time = (data_digest(data), time.perf_counter() - started)[1]

    def with_checkpoint():
        path = folder / "hc.json"
        path.unlink(missing_ok=True)
        return bnfs.hill_climbing(data, checkpoint=path, **options)

    best = fastest(
        {
            "plain": lambda: bnfs.hill_climbing(data, **options),
            "default": with_checkpoint,
            "every chunk": with_checkpoint,
        }
    )
    plain, default, every_chunk = best["plain"], best["default"], best["every chunk"]
    size = (folder / "hc.json").stat().st_size
    print(f"alarm, {args.rows} rows, 6 restarts: {plain:.2f} s without a checkpoint")
    print(
        f"  fingerprint of the data (sha-256 of {data.codes.nbytes / 1e6:.0f} MB of codes): "
        f"{digest_time:.3f} s"
    )
    print(f"  default checkpoint: {default:.2f} s (x{default / plain:.3f})")
    print(
        f"  a write after every 64 moves: {every_chunk:.2f} s (x{every_chunk / plain:.3f}); "
        f"file {size / 1e3:.1f} kB"
    )

    # kill a run halfway, resume it
    path = folder / "killed.json"
    child = multiprocessing.get_context("spawn").Process(target=_child, args=(frame, options, path))
    child.start()
    while child.is_alive():  # kill it once it is into its fourth climb
        if path.exists() and json.loads(path.read_text())["state"]["climb"] >= 3:
            break
        time.sleep(0.01)
    os.kill(child.pid, signal.SIGKILL)
    child.join()
    state = json.loads(path.read_text())["state"]
    started = time.perf_counter()
    resumed = bnfs.hill_climbing(data, checkpoint=path, **options)
    seconds = time.perf_counter() - started
    reference = bnfs.hill_climbing(data, **options)
    print(
        f"  SIGKILL in climb {state['climb']} of 7, after {state['counters'][N_MOVES]} "
        f"moves; resuming took {seconds:.2f} s (x{seconds / plain:.2f} of a whole run); "
        f"same graph as uninterrupted: {resumed == reference}"
    )


if __name__ == "__main__":
    main()
