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
neighbourhood); beside them pycausalfs's HITON-MB (G^2 at 0.05, its own settings; up to
:data:`PYCAUSALFS_WIDTH` features). ``--planted 1000 10000`` adds planted wide data
(:func:`bnfs.datasets.planted_blanket`, the class's blanket of 10 among that many
features, ``--planted-rows`` rows) for the selectors that scale to it.

Seconds per fit are warm: each selector's first fit in this process (compiling the kernels
where numba's cache is empty, starting the JVM) is timed apart and reported as "first fit".

    python benchmarks/blanket_quality.py [--networks asia child ...] [--rows 2000 5000]
                                         [--seeds 1] [--targets 12] [--no-whole]
                                         [--planted 1000 10000] [--planted-rows 500]
    python benchmarks/blanket_quality.py --networks --planted 1000 10000 --seeds 1 2 3
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

import bnfs

sys.path.insert(0, str(Path(__file__).parent))
import quality  # noqa: E402
import tetrad  # noqa: E402

PYCAUSALFS = "pycausalfs"
NETWORKS = ["asia", "child", "insurance", "alarm", "hailfinder", "win95pts"]
SELECTORS = {
    "default (auto)": "auto",
    "hill_climbing": "hill_climbing",
    "hiton_mb": "hiton_mb",
    "mmmb": "mmmb",
    "iamb_mb": "iamb_mb",
    "neighbourhood_mb": "neighbourhood_mb",
    "pycausalfs HITON-MB": PYCAUSALFS,
}
#: planted wide data (datasets.planted_blanket): the blanket selectors that scale to it
WIDE_SELECTORS = ["auto", "hiton_mb", "mmmb", "neighbourhood_mb", PYCAUSALFS]
#: pycausalfs (pure Python) runs up to this many features
PYCAUSALFS_WIDTH = 1000


def select(learner: str, X, y) -> list:
    """The features ``learner`` selects: a ``MarkovBlanketSelector`` learner, or pycausalfs's
    HITON-MB on the columns' codes."""
    if learner != PYCAUSALFS:
        return bnfs.MarkovBlanketSelector(learner).fit(X, y).selected_
    from pyCausalFS.CBD.MBs.HITON.HITON_MB import HITON_MB

    codes = pd.concat([X, pd.Series(np.asarray(y), index=X.index, name="__y")], axis=1)
    codes = codes.apply(lambda c: pd.factorize(c)[0]).to_numpy()
    found, _ = HITON_MB(codes, codes.shape[1] - 1, 0.05, is_discrete=True)
    return [X.columns[int(i)] for i in found]


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
    parser.add_argument("--networks", nargs="*", default=NETWORKS)
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
    first = {}  # label -> seconds of its first fit in this process
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
                        if label not in first:  # the first run compiles (or starts the JVM)
                            started = time.perf_counter()
                            learn(frame)
                            first[label] = time.perf_counter() - started
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
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            if label not in first:  # the first fit compiles
                                started = time.perf_counter()
                                select(learner, X, y)
                                first[label] = time.perf_counter() - started
                            started = time.perf_counter()
                            selected = select(learner, X, y)
                        seconds[label].append(time.perf_counter() - started)
                        line[label].append(f1(selected, truth.markov_blanket(t)))
                for label, values in line.items():
                    per_target[label] += values
                shown = "  ".join(f"{label} {np.mean(v):.3f}" for label, v in line.items())
                print(f"{name} {rows} seed {seed}: {shown}", flush=True)
    print(
        "\nlearner              blanket F1 (targets)   over every node   seconds per fit"
        "   first fit"
    )
    for label in [*whole, *SELECTORS]:
        if not seconds[label]:
            continue
        nodes = f"{np.mean(every_node[label]):.3f}" if every_node[label] else "  -  "
        print(
            f"{label:<20} {np.mean(per_target[label]):10.3f}             {nodes:>8}"
            f"          {np.mean(seconds[label]):8.2f}      {first[label]:6.2f}"
        )

    for width in args.planted:
        planted(width, args.planted_rows, args.seeds)


def planted(width: int, rows: int, seeds) -> None:
    """Blanket F1 and seconds of the wide selectors on planted data, per seed and mean."""
    scores, seconds = defaultdict(list), defaultdict(list)
    learners = [s for s in WIDE_SELECTORS if s != PYCAUSALFS or width <= PYCAUSALFS_WIDTH]
    first = {}
    for seed in seeds:
        X, y, truth = bnfs.datasets.planted_blanket(width, rows, seed=seed)
        for learner in learners:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if learner not in first:  # warm: the first fit compiles (on 1,000 features)
                    small, labels, _ = bnfs.datasets.planted_blanket(1000, rows, seed=seed)
                    started = time.perf_counter()
                    select(learner, small, labels)
                    first[learner] = time.perf_counter() - started
                started = time.perf_counter()
                selected = select(learner, X, y)
            seconds[learner].append(time.perf_counter() - started)
            scores[learner].append(f1(selected, truth["blanket"]))
    print(f"\nplanted blanket, {width} features x {rows} rows, seeds {list(seeds)}")
    for learner in learners:
        print(
            f"{learner:<20} F1 {np.mean(scores[learner]):.3f}   "
            f"{np.mean(seconds[learner]):7.2f} s per fit (warm; first fit on 1,000 features "
            f"{first[learner]:.2f} s)"
        )


if __name__ == "__main__":
    main()
