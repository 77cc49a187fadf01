"""Answers on a fixed set of calls, written to JSON and compared: a refactor changes none.

    python benchmarks/answers.py --out before.json            # on the old commit
    python benchmarks/answers.py --out after.json --compare before.json

Each call's answer is what a user reads: a graph's arcs and undirected links, a blanket,
a selector's features, a strength table (rounded), a CI test's statistic, and the keys of
``learning`` that describe the answer (never seconds). Warnings are recorded by category
and text so that a route (structural EM, available-case tests) shows when it changes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import warnings

import numpy as np
import pandas as pd

import bnfs
from bnfs import datasets

KEEP = ("learner", "stopped_early", "stopped", "test", "alpha", "n_tests", "rounds", "missing")


def _graph(graph) -> dict:
    return {
        "arcs": sorted(map(list, graph.arcs)),
        "edges": sorted(sorted(e) for e in getattr(graph, "edges", [])),
        "learning": {k: repr(graph.learning.get(k)) for k in KEEP if k in graph.learning},
    }


def _frame():
    return datasets.sample("alarm", 2000, seed=1)


def _gappy():
    frame = datasets.sample("asia", 800, seed=2)
    rng = np.random.default_rng(0)
    values = frame.astype(object).to_numpy()
    values[rng.random(values.shape) < 0.03] = None
    gappy = pd.DataFrame(values, columns=frame.columns)
    return gappy.assign(either=frame["either"])  # the selectors' class stays complete


def calls():
    """name -> zero-argument call returning a JSON-able answer."""
    alarm = _frame()
    asia = datasets.sample("asia", 1000, seed=3)
    gappy = _gappy()
    target = "HYPOVOLEMIA"
    X, y = alarm.drop(columns=target), alarm[target]
    out = {}
    for name in bnfs.learners.names("score", "hybrid", "constraint"):
        options = {"seed": 0} if bnfs.learners.get(name).seeded else {}
        out[f"learn:{name}"] = lambda n=name, o=options: _graph(bnfs.learners.get(n)(asia, **o))
    for name in bnfs.learners.names("blanket", "neighbours"):
        options = {"seed": 0} if bnfs.learners.get(name).seeded else {}
        out[f"local:{name}"] = lambda n=name, o=options: list(
            bnfs.learners.get(n)(alarm, target, **o)
        )
    for method in ("auto", "hiton_mb", "pc_stable", "hill_climbing"):
        out[f"markov_blanket:{method}"] = lambda m=method: list(
            bnfs.markov_blanket(alarm, target, method=m)
        )
    out["neighbours:auto"] = lambda: list(bnfs.neighbours(alarm, target))
    out["neighbours:hpc"] = lambda: list(bnfs.neighbours(alarm, target, method="hpc"))
    out["gaps:learn"] = lambda: _graph(bnfs.learn(gappy, seed=0))
    out["gaps:hill_climbing"] = lambda: _graph(bnfs.hill_climbing(gappy))
    out["gaps:pc_stable"] = lambda: _graph(bnfs.pc_stable(gappy))
    out["gaps:hiton_mb"] = lambda: list(bnfs.learners.get("hiton_mb")(gappy, "either"))
    out["gaps:selector:learn"] = lambda: _selector(
        bnfs.MarkovBlanketSelector(random_state=0), *_xy(gappy, "either")
    )
    out["gaps:selector:hiton_mb"] = lambda: _selector(
        bnfs.MarkovBlanketSelector("hiton_mb"), *_xy(gappy, "either")
    )
    for learner in ("auto", "hiton_mb", "iamb_mb", "mmhc", "pc_stable", "hiton_pc"):
        kw = {"parents_and_children": True} if learner == "hiton_pc" else {}
        out[f"selector:{learner}"] = lambda a=learner, k=kw: _selector(
            bnfs.MarkovBlanketSelector(a, random_state=0, **k), X, y
        )
    out["selector:stable"] = lambda: _selector(
        bnfs.StableBlanketSelector(R=8, random_state=0), X, y
    )
    for cls in (bnfs.FCBF, bnfs.CFS, bnfs.InformationGain, bnfs.HybridSelector, bnfs.SRS):
        out[f"selector:{cls.__name__}"] = lambda c=cls: _selector(c(), X, y)
    out["blanket_frequency"] = lambda: _series(bnfs.blanket_frequency(asia, "either", R=6, seed=1))
    out["blanket_frequency:learn"] = lambda: _series(
        bnfs.blanket_frequency(asia, "either", "hill_climbing", R=4, seed=1)
    )
    out["boot_strength"] = lambda: _frame_json(
        bnfs.boot_strength(asia, "hill_climbing", R=6, seed=1)
    )
    out["boot_strength:gaps"] = lambda: _frame_json(
        bnfs.boot_strength(gappy, "hill_climbing", R=3, seed=1)
    )
    for test in ("g2", "mi", "x2", "fisher_z", "mi_cg"):
        out[f"citest:{test}"] = lambda t=test: _citest(t)
    out["posterior"] = lambda: _frame_json(
        bnfs.structure_posterior(asia, seed=0, chains=2, samples=200).strength
    )
    for command in (
        ["blanket", "ALARM", "--target", "HYPOVOLEMIA", "--algorithm", "hpc"],
        ["blanket", "ALARM", "--target", "HYPOVOLEMIA", "--algorithm", "hiton_mb"],
        ["blanket", "ALARM", "--target", "HYPOVOLEMIA"],
        ["select", "ALARM", "--target", "HYPOVOLEMIA", "--method", "fcbf"],
        ["learn", "ALARM", "--algorithm", "pc_stable", "--out", "OUT"],
    ):
        out["cli:" + " ".join(command)] = lambda c=command: _cli(c, alarm)
    return out


def _xy(frame, target):
    return frame.drop(columns=target), frame[target]


def _selector(selector, X, y):
    selector.fit(X, y)
    return {
        "selected": list(getattr(selector, "selected_", [])),
        "missing": repr(getattr(selector, "missing_", None)),
    }


def _series(series):
    return {str(k): round(float(v), 6) for k, v in series.items()}


def _frame_json(frame):
    return json.loads(frame.round(6).to_json(orient="records"))


def _citest(test):
    frame = datasets.sample("sachs", 500, seed=4)
    codes = frame.apply(lambda column: column.astype("category").cat.codes).astype(float)
    noisy = codes + np.random.default_rng(1).normal(size=frame.shape)
    if test == "fisher_z":
        frame = noisy
    if test == "mi_cg":
        frame = frame.assign(Akt=noisy["Akt"], PKA=noisy["PKA"])
    tester = bnfs.CITest(frame, test=test, adjust_df=test == "g2")
    names = list(frame.columns)
    return [repr(tester(names[0], names[1], names[2:k])) for k in (2, 3, 4)]


def _cli(command, frame):
    import tempfile
    from pathlib import Path

    from bnfs.cli import main

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "alarm.csv"
        frame.to_csv(path, index=False)
        files = {"ALARM": str(path), "OUT": str(Path(folder) / "net.json")}
        args = [files.get(a, a) for a in command]
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
            code = main(args)
        lines = [
            line
            for line in stdout.getvalue().splitlines()
            if " s" not in line and folder not in line
        ]
        return {"exit": code, "stdout": lines}


def run() -> dict:
    answers = {}
    for name, call in calls().items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                answer = call()
            except (Exception, SystemExit) as error:  # a refusal must not change either
                answer = {"error": f"{type(error).__name__}: {error}"}
        answers[name] = {
            "answer": answer,
            "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught}),
        }
        print(name, file=sys.stderr)
    return answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--compare")
    args = parser.parse_args()
    answers = json.loads(json.dumps(run(), default=str))
    with open(args.out, "w") as handle:
        json.dump(answers, handle, indent=1, sort_keys=True)
    if not args.compare:
        return 0
    with open(args.compare) as handle:
        before = json.load(handle)
    changed = [k for k in sorted(set(before) | set(answers)) if before.get(k) != answers.get(k)]
    for name in changed:
        print(f"CHANGED {name}:\n  before {before.get(name)}\n  after  {answers.get(name)}")
    print(f"{len(answers) - len(changed)} of {len(answers)} calls answer as before")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
