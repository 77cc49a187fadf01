"""Blankets as feature sets (issue 44): how close each learner's Markov blanket of a target
comes to the true one, on samples of the networks pgmpy ships, in one run.

For each network, rows and seed: a sample (columns shuffled, constant ones dropped), then
``--targets`` targets drawn at random. Per target, each selector is fitted on the other
columns and the class (``MarkovBlanketSelector`` with the learner named; seconds are per
fit, warm) and its selected features are compared with the true blanket: F1, then the mean
over targets. The whole-network learners (bnfs ``learn``, Tetrad BOSS and GRaSP with BDeu and
structure prior 1, ``benchmarks/tetrad.py``) run once per sample; their blankets are scored
for the same targets and, beside them, over every node.

Selectors: the default (``"auto"``: ``learn``'s network where it is affordable, HITON-MB
past it), hill climbing (BIC; the default before issue 44), HITON-MB, MMMB and IAMB (the
local learners, conditioning sets bounded at 3 as in feature selection).

    python benchmarks/blanket_quality.py [--networks asia child ...] [--rows 2000 5000]
                                         [--seeds 1] [--targets 12]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

import bnfs

sys.path.insert(0, str(Path(__file__).parent))
import quality  # noqa: E402
import tetrad  # noqa: E402

NETWORKS = ["asia", "child", "insurance", "alarm", "hailfinder", "win95pts"]
SELECTORS = {
    "default (auto)": "auto",
    "hill_climbing": "hill_climbing",
    "hiton_mb": "hiton_mb",
    "mmmb": "mmmb",
    "iamb_mb": "iamb_mb",
}


def f1(found, true) -> float:
    found, true = set(found), set(true)
    if not found and not true:
        return 1.0
    hits = len(found & true)
    return 2 * hits / (len(found) + len(true)) if hits else 0.0


def networks() -> dict:
    """Whole-network learners: label -> frame -> DAG."""
    return {"bnfs learn": lambda f: bnfs.learn(f, progress=False), **tetrad.dag_learners()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=NETWORKS)
    parser.add_argument("--rows", nargs="+", type=int, default=[2000, 5000])
    parser.add_argument("--seeds", nargs="+", type=int, default=[1])
    parser.add_argument("--targets", type=int, default=12)
    args = parser.parse_args(argv)
    whole = networks()
    per_target = defaultdict(list)  # label -> F1 per target
    every_node = defaultdict(list)  # label -> mean F1 over every node, per sample
    seconds = defaultdict(list)  # label -> seconds per fit
    for name in args.networks:
        for rows in args.rows:
            for seed in args.seeds:
                frame, truth = quality.sample(name, rows, seed)
                rng = np.random.default_rng(seed)
                k = min(args.targets, frame.shape[1])
                targets = [str(t) for t in rng.choice(sorted(frame.columns), k, replace=False)]
                line = defaultdict(list)
                for label, learn in whole.items():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if not seconds[label]:
                            learn(frame)  # warm: the first run compiles (or starts the JVM)
                        started = time.perf_counter()
                        dag = learn(frame)
                    seconds[label].append(time.perf_counter() - started)
                    for t in targets:
                        line[label].append(f1(dag.markov_blanket(t), truth.markov_blanket(t)))
                    every_node[label].append(
                        np.mean(
                            [f1(dag.markov_blanket(v), truth.markov_blanket(v)) for v in dag.nodes]
                        )
                    )
                for label, learner in SELECTORS.items():
                    for t in targets:
                        X, y = frame.drop(columns=t), frame[t]
                        selector = bnfs.MarkovBlanketSelector(learner)
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            if not seconds[label]:
                                selector.fit(X, y)  # warm: the first fit compiles
                            started = time.perf_counter()
                            selector.fit(X, y)
                        seconds[label].append(time.perf_counter() - started)
                        line[label].append(f1(selector.selected_, truth.markov_blanket(t)))
                for label, values in line.items():
                    per_target[label] += values
                shown = "  ".join(f"{label} {np.mean(v):.3f}" for label, v in line.items())
                print(f"{name} {rows} seed {seed}: {shown}", flush=True)
    print("\nlearner              blanket F1 (targets)   over every node   seconds per fit")
    for label in [*whole, *SELECTORS]:
        nodes = f"{np.mean(every_node[label]):.3f}" if every_node[label] else "  -  "
        print(
            f"{label:<20} {np.mean(per_target[label]):10.3f}             {nodes:>8}"
            f"          {np.mean(seconds[label]):8.2f}"
        )


if __name__ == "__main__":
    main()
