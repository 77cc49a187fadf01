"""Reproduce Tables 1 and 2 of Lou & Obradovic (HSMB) on the synthetic Corral and
Regression data sets, ours beside the paper's.

Table 1: features selected by Grow-Shrink, FCBF, BAHSIC and HSMB on Corral-7, Corral-46,
Corral-rel-7 and Corral-rel-46 (optimal: A0, A1, B0, B1), with how often over several
samples each method returns exactly the paper's HSMB answer. Table 2: features selected
by BAHSIC and HSMB on Regression-22/38/138 (optimal: x1, x2) and the cross-validated R^2
of a Gaussian-kernel SVR on them.

    python examples/hsmb_tables.py [--rows 500] [--seeds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVR

from bnfs import BAHSIC, FCBF, HSMB, MarkovBlanketSelector, datasets

PAPER_TABLE_1 = {  # data set: (GS, FCBF, BAHSIC, HSMB)
    "Corral-7": ("R,B1,A0", "R,A0", "R,A0,A1,B0,B1", "R,A0,A1,B0,B1"),
    "Corral-46": ("B0,A0", "A0,A1,B0,B1", "A0,A0_1,B1,A1", "A0,A1,B0,B1"),
    "Corral-rel-7": ("R,A0,B1", "R,A0,B0", "R,A0,B0,A1,B1", "R,A0,A1,B0,B1"),
    "Corral-rel-46": ("A0,B1", "A0,B0", "A0,A0_1,B0,B0_1", "A0,A1,B0,B1"),
}
PAPER_TABLE_2 = {  # data set: (BAHSIC features, R^2, HSMB features, R^2)
    "Regression-22": ("x1,x2", 0.86, "x1,x2", 0.86),
    "Regression-38": ("x1,x1", 0.69, "x1,x2", 0.86),
    "Regression-138": ("12 features", 0.54, "12 features", 0.75),
}


def corral_sets():
    yield from [
        ("Corral-7", 7, False),
        ("Corral-46", 46, False),
        ("Corral-rel-7", 7, True),
        ("Corral-rel-46", 46, True),
    ]


def table_1(rows: int, seeds: int) -> None:
    print(
        f"Table 1: selected features ({rows} rows, seed 0; [k/{seeds}]: samples where the "
        "method returns the paper's HSMB set, the optimal set plus R on the 7-feature sets)"
    )
    header = f"{'data set':14} {'method':7} {'ours (seed 0)':34} {'paper':18} {'time s':>7}"
    print(header)
    print("-" * len(header))
    for name, n_features, related in corral_sets():
        hits = {method: 0 for method in ("GS", "FCBF", "BAHSIC", "HSMB")}
        expected = {"A0", "A1", "B0", "B1"} | ({"R"} if n_features == 7 else set())
        shown = {}
        for seed in range(seeds):
            frame = datasets.corral(n_features, related=related, n=rows, seed=seed)
            X, y = frame.drop(columns="Y"), frame["Y"]
            chosen, times = {}, {}
            for method, selector in [
                ("GS", MarkovBlanketSelector("grow_shrink_mb")),
                ("FCBF", FCBF()),
                ("HSMB", HSMB()),
            ]:
                start = time.perf_counter()
                selector.fit(X, y)
                times[method] = time.perf_counter() - start
                chosen[method] = list(X.columns[selector.get_support()])
            size = max(len(chosen[m]) for m in ("GS", "FCBF", "HSMB"))  # the paper's rule
            start = time.perf_counter()
            chosen["BAHSIC"] = list(X.columns[BAHSIC(size).fit(X, y).get_support()])
            times["BAHSIC"] = time.perf_counter() - start
            for method, features in chosen.items():
                hits[method] += set(features) == expected
            if seed == 0:
                shown = {m: (chosen[m], times[m]) for m in chosen}
        for i, method in enumerate(("GS", "FCBF", "BAHSIC", "HSMB")):
            features, seconds = shown[method]
            ours = ",".join(features) if len(features) <= 8 else f"{len(features)} features"
            ours += f"  [{hits[method]}/{seeds}]"
            print(
                f"{name if i == 0 else '':14} {method:7} {ours:34} "
                f"{PAPER_TABLE_1[name][i]:18} {seconds:7.2f}"
            )
    print()


def r_squared(X, y) -> float:
    values = X.to_numpy()
    d2 = ((values[:, None, :] - values[None, :, :]) ** 2).sum(-1)
    gamma = 1.0 / (2.0 * np.median(d2[d2 > 0]))  # Gaussian width: the median distance
    return float(cross_val_score(SVR(gamma=gamma), X, y, cv=5, scoring="r2").mean())


def table_2(rows: int) -> None:
    print(f"Table 2: regression ({rows} rows, seed 0; R^2 of an RBF SVR, 5-fold CV)")
    header = (
        f"{'data set':15} {'BAHSIC ours':16} {'R2':>5} {'paper':>15} {'R2':>5}   "
        f"{'HSMB ours':16} {'R2':>5} {'paper':>15} {'R2':>5} {'HSMB s':>7}"
    )
    print(header)
    print("-" * len(header))
    for n_features in (22, 38, 138):
        name = f"Regression-{n_features}"
        frame = datasets.regression(n_features, n=rows, seed=0)
        X, y = frame.drop(columns="y"), frame["y"]
        start = time.perf_counter()
        hsmb = list(X.columns[HSMB().fit(X, y).get_support()])
        seconds = time.perf_counter() - start
        bahsic = list(X.columns[BAHSIC(len(hsmb)).fit(X, y).get_support()])
        paper = PAPER_TABLE_2[name]

        def show(features):
            return ",".join(features) if len(features) <= 4 else f"{len(features)} features"

        print(
            f"{name:15} {show(bahsic):16} {r_squared(X[bahsic], y):5.2f} {paper[0]:>15} "
            f"{paper[1]:5.2f}   {show(hsmb):16} {r_squared(X[hsmb], y):5.2f} {paper[2]:>15} "
            f"{paper[3]:5.2f} {seconds:7.2f}"
        )
    best = datasets.regression(22, n=rows, seed=0)
    print(f"(x1, x2 together: R^2 {r_squared(best[['x1', 'x2']], best['y']):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    table_1(args.rows, args.seeds)
    table_2(args.rows)


if __name__ == "__main__":
    main()
