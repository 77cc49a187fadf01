"""The real-data league: networks learned from real files, judged without a true network by
how well they predict rows they never saw (issue 43).

Every data set of ``../shared/data`` (the loaders of ``selection_league.py``; the class is
one more node) and the bundled survey. Columns a discrete learner cannot model are cut once,
for every learner alike: floats (and integers of more than 20 values) into quantile bins
(4 equal-frequency bins), constant columns dropped. Each learner runs on four of five
folds; its graph, with BDeu-posterior parameters from those folds (iss 1), is scored by the
log-likelihood per row of the fifth (:func:`bnfs.stats.metrics.log_likelihood`, the same
scorer for every learner). Printed per data set and learner: the mean over the folds, arcs,
seconds; then per data set the best learner and ``learn``'s distance to it in percent.

Learners: bnfs ``learn`` (its default), ``boss`` (BIC; BDeu and BDs with the vsp prior),
``tabu_search`` (BIC, BDeu), ``hill_climbing`` (BIC); bnlearn's ``tabu`` (bnlearn-port, BIC);
pyAgrum's greedy hill climbing and tabu list (BIC, one thread); pgmpy's ``HillClimbSearch``
(BIC); Tetrad's BOSS and GRaSP (BDeu, structure prior 1, one thread; ``tetrad.py``). A run
longer than ``--limit`` seconds (SIGALRM; a compiled call finishes first) is reported as
such and leaves its learner out of that data set's ranking. Data sets wider than
``--max-columns`` are skipped and named: most peers cannot learn a whole network there.

    python benchmarks/real_league.py [--datasets coil2000 german ...] [--learners learn tabu]
                                     [--folds 5] [--limit 600] [--max-columns 600]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bnfs
from bnfs.stats.metrics import log_likelihood

sys.path.insert(0, str(Path(__file__).parent))
import quality  # noqa: E402
import selection_league  # noqa: E402
import tetrad  # noqa: E402


def data_sets() -> dict:
    """name -> () -> discrete DataFrame (the class a column named ``class``)."""

    def joined(load):
        def frame():
            X, y = load()
            X = X.copy()
            X.columns = [str(c) for c in X.columns]
            X["class"] = pd.Series(np.asarray(y)).astype(str).to_numpy()
            return X

        return frame

    out = {name: joined(load) for name, load in selection_league.datasets().items()}
    out["lung_cancer"] = joined(_lung_cancer)
    out["arcene"] = joined(_arcene)
    out["survey"] = bnfs.datasets.load_survey
    return out


def _lung_cancer():
    frame = pd.read_csv(
        selection_league.SHARED / "lung_cancer" / "lung-cancer.data", header=None, na_values="?"
    )
    frame.columns = [f"a{i}" for i in range(frame.shape[1])]
    return frame.drop(columns="a0").astype("Int64").astype(str), frame["a0"]


def _arcene():
    folder = selection_league.SHARED / "arcene"
    X = pd.read_csv(folder / "arcene_train.data", sep=r"\s+", header=None)
    X.columns = [f"f{i}" for i in range(X.shape[1])]
    return X.astype(float), pd.read_csv(folder / "arcene_train.labels", header=None)[0]


def discrete(frame: pd.DataFrame) -> pd.DataFrame:
    """The one shared cut: rows with gaps dropped, floats and integers of more than 20
    values into 4 quantile bins, constant columns dropped, every column as text."""
    frame = frame.dropna().reset_index(drop=True)
    wide = [
        c
        for c in frame.columns
        if frame[c].dtype.kind == "f" or (frame[c].dtype.kind in "iu" and frame[c].nunique() > 20)
    ]
    for c in wide:  # equal-frequency bins, as bnfs.discretize's "quantile"
        frame[c] = pd.qcut(frame[c].astype(float), 4, labels=False, duplicates="drop")
    frame = frame.loc[:, frame.nunique() > 1]
    return frame.astype(str)


def _pgmpy(frame: pd.DataFrame) -> bnfs.DAG:
    from pgmpy.estimators import HillClimbSearch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = HillClimbSearch(frame).estimate(scoring_method="bic-d", show_progress=False)
    return bnfs.DAG(list(frame.columns), [(str(u), str(v)) for u, v in model.edges()])


def learners() -> dict:
    quiet = {"progress": False}
    out = {
        "bnfs learn": lambda f: bnfs.learn(f, **quiet),
        "bnfs boss bic": lambda f: bnfs.boss(f, "bic", **quiet),
        "bnfs boss bde-vsp": lambda f: bnfs.boss(f, "bde", prior="vsp", **quiet),
        "bnfs boss bds-vsp": lambda f: bnfs.boss(f, "bds", prior="vsp", **quiet),
        "bnfs tabu bic": lambda f: bnfs.tabu_search(f, "bic", **quiet),
        "bnfs tabu bde": lambda f: bnfs.tabu_search(f, "bde", **quiet),
        "bnfs hill_climbing bic": lambda f: bnfs.hill_climbing(f, "bic", **quiet),
    }
    try:
        import pybnlearn  # noqa: F401

        out["bnlearn tabu"] = quality._bnlearn("tabu")
    except ImportError:
        print("bnlearn-port not installed: pip install '.[test]'")
    try:
        import pyagrum  # noqa: F401

        out.update(
            {"pyAgrum greedy": quality._pyagrum(False), "pyAgrum tabu": quality._pyagrum(True)}
        )
    except ImportError:
        print("pyAgrum not installed: pip install '.[bench]'")
    try:
        import pgmpy  # noqa: F401

        out["pgmpy HillClimbSearch"] = _pgmpy
    except ImportError:
        print("pgmpy not installed")
    out.update(tetrad.dag_learners(" sp1"))
    return out


def held_out(frame: pd.DataFrame, learn, folds: int, limit: float) -> dict:
    """Mean held-out log-likelihood per row over ``folds`` folds, mean arcs, total seconds;
    ``{"error": ...}`` when a run fails or passes ``limit`` seconds."""
    data = bnfs.as_dataset(frame)
    assignment = np.random.default_rng(0).permutation(data.n_rows) % folds
    values, arcs, seconds = [], [], 0.0
    for k in range(folds):
        train_rows, test_rows = np.flatnonzero(assignment != k), np.flatnonzero(assignment == k)
        train = frame.iloc[train_rows].reset_index(drop=True)
        started = time.perf_counter()
        try:
            with selection_league.time_limit(limit), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                dag = learn(train)
        except Exception as error:  # a peer's failure is a result of the league
            return {"error": f"{type(error).__name__}: {str(error)[:80]}"}
        seconds += time.perf_counter() - started
        dag = dag.to_dag() if isinstance(dag, bnfs.PDAG) else dag
        values.append(log_likelihood(dag, data.take(train_rows), data.take(test_rows)))
        arcs.append(dag.n_arcs)
    return {"loglik": float(np.mean(values)), "arcs": float(np.mean(arcs)), "seconds": seconds}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--learners", nargs="+", default=None, help="labels containing these")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--max-columns", type=int, default=600)
    args = parser.parse_args(argv)
    table = {
        label: learn
        for label, learn in learners().items()
        if args.learners is None or any(part in label for part in args.learners)
    }
    sets = data_sets()
    names = args.datasets or list(sets)
    summary, every = [], {}
    for name in names:
        frame = discrete(sets[name]())
        if frame.shape[1] > args.max_columns:
            print(f"{name}: {frame.shape[1]} columns, over --max-columns; skipped")
            continue
        print(f"\n{name}: {frame.shape[0]} rows x {frame.shape[1]} columns")
        results = {}
        for label, learn in table.items():
            results[label] = held_out(frame, learn, args.folds, args.limit)
            r = results[label]
            line = (
                r["error"]
                if "error" in r
                else f"{r['loglik']:10.4f} per row {r['arcs']:7.1f} arcs {r['seconds']:8.1f} s"
            )
            print(f"  {label:<24} {line}", flush=True)
        done = {k: v for k, v in results.items() if "error" not in v}
        every[name] = results
        if done:
            best = max(done, key=lambda k: done[k]["loglik"])
            mine = done.get("bnfs learn")
            gap = (
                float("nan")
                if mine is None
                else 100 * (done[best]["loglik"] - mine["loglik"]) / abs(done[best]["loglik"])
            )
            summary.append((name, best, done[best]["loglik"], gap))
    print("\ndata set        best learner              its log-lik   learn behind it")
    for name, best, value, gap in summary:
        print(f"{name:<15} {best:<25} {value:11.4f}   {gap:6.2f}%")
    ties = sum(1 for *_, gap in summary if gap <= 0.0 + 1e-9)
    within = sum(1 for *_, gap in summary if gap <= 1.0)
    print(f"learn best or tied on {ties} of {len(summary)}, within 1% on {within}")
    _per_learner(table, every)


def _per_learner(table: dict, every: dict) -> None:
    """Per learner: on how many data sets it came within 1% of the best (of those where
    some learner answered), its mean distance to the best, and where it gave no answer."""
    print("\nlearner                   within 1% of the best   mean behind   no answer")
    for label in table:
        gaps, failed = [], 0
        for results in every.values():
            done = {k: v["loglik"] for k, v in results.items() if "error" not in v}
            if not done:
                continue
            if label not in done:
                failed += 1
                continue
            best = max(done.values())
            gaps.append(100 * (best - done[label]) / abs(best))
        within = sum(g <= 1.0 for g in gaps)
        mean = f"{np.mean(gaps):6.2f}%" if gaps else "   -  "
        print(
            f"{label:<25} {within:3d} of {len(gaps) + failed:<3d}            {mean}     {failed:3d}"
        )


if __name__ == "__main__":
    main()
