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
local learners, conditioning sets bounded at 3 as in feature selection), and
``neighbourhood_mb`` (the blanket in ``learn``'s network on the target's two-step HITON-PC
neighbourhood). ``--planted 1000 10000`` adds planted wide data
(:func:`bnfs.datasets.planted_blanket`, the class's blanket of 10 among that many
features, ``--planted-rows`` rows) for the selectors that scale to it.

    python benchmarks/blanket_quality.py [--networks asia child ...] [--rows 2000 5000]
                                         [--seeds 1] [--targets 12] [--no-whole]
                                         [--planted 1000 10000] [--planted-rows 500]
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
    "neighbourhood_mb": "neighbourhood_mb",
}
#: planted wide data (datasets.planted_blanket): the blanket selectors that scale to it
WIDE_SELECTORS = ["auto", "hiton_mb", "mmmb", "neighbourhood_mb"]


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
    parser.add_argument("--no-whole", action="store_true", help="skip whole-network learners")
    parser.add_argument("--planted", nargs="*", type=int, default=[])
    parser.add_argument("--planted-rows", type=int, default=500)
    args = parser.parse_args(argv)
    whole = {} if args.no_whole else networks()
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

    for width in args.planted:
        planted(width, args.planted_rows, args.seeds)


def planted(width: int, rows: int, seeds) -> None:
    """Blanket F1 and seconds of the wide selectors on planted data, per seed and mean."""
    scores, seconds = defaultdict(list), defaultdict(list)
    for seed in seeds:
        X, y, truth = bnfs.datasets.planted_blanket(width, rows, seed=seed)
        for learner in WIDE_SELECTORS:
            selector = bnfs.MarkovBlanketSelector(learner)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                started = time.perf_counter()
                selector.fit(X, y)
            seconds[learner].append(time.perf_counter() - started)
            scores[learner].append(f1(selector.selected_, truth["blanket"]))
    print(f"\nplanted blanket, {width} features x {rows} rows, seeds {list(seeds)}")
    for learner in WIDE_SELECTORS:
        print(
            f"{learner:<20} F1 {np.mean(scores[learner]):.3f}   "
            f"{np.mean(seconds[learner]):7.2f} s per fit"
        )


if __name__ == "__main__":
    main()
