"""Reproduce the LUCAS row of Table 3 of Duangsoithong & Windeatt (hybrid correlation and
causal feature selection) and its bagging evaluation: features kept by FCBF, CFS, PC,
TPDA, GS, IAMB and the four hybrids on LUCAS0, then accuracy, AUC and false-negative
rate of bagged naive Bayes, MLP, SVM and decision trees on each selection, by repeated
10-fold cross-validation with selection inside every fold.

    python examples/hybrid_lucas0.py [--repeats 1] [--ensembles 1 10] [--quick]
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from bnfs import CFS, FCBF, HybridSelector, datasets
from bnfs.select import bagging_scores, paper_classifiers

PAPER_COUNTS = {
    "FCBF": 3,
    "CFS": 3,
    "PC": 9,
    "TPDA": 10,
    "GS": 9,
    "IAMB": 11,
    "H-PC": 2,
    "H-TPDA": 3,
    "H-GS": 2,
    "H-IAMB": 2,
}


def selectors() -> dict:
    chosen = {"all": None, "FCBF": FCBF(), "CFS": CFS()}
    for causal in ("pc", "tpda", "gs", "iamb"):
        chosen[causal.upper()] = HybridSelector(causal, fcbf_threshold=None)
    for causal in ("pc", "tpda", "gs", "iamb"):
        chosen[f"H-{causal.upper()}"] = HybridSelector(causal)
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="the paper: 10")
    parser.add_argument(
        "--ensembles", type=int, nargs="+", default=[1, 10], help="the paper: 1 5 10 25 50"
    )
    parser.add_argument(
        "--quick", action="store_true", help="3 folds, ensembles 1 and 10, no MLP (a smoke run)"
    )
    args = parser.parse_args()
    frame = datasets.load_lucas0()
    X, y = frame.drop(columns="Lung_cancer"), frame["Lung_cancer"]
    classifiers = paper_classifiers()
    folds, ensembles = 10, args.ensembles
    if args.quick:
        folds, ensembles = 3, [1, 10]
        classifiers.pop("mlp")

    print(f"LUCAS0 ({len(X)} rows, {X.shape[1]} features): features kept on all rows")
    print(f"{'method':8} {'ours':>4} {'paper':>5}  features")
    for name, selector in selectors().items():
        if selector is None:
            continue
        start = time.perf_counter()
        kept = list(X.columns[selector.fit(X, y).get_support()])
        print(
            f"{name:8} {len(kept):4d} {PAPER_COUNTS[name]:5d}  {', '.join(kept)} "
            f"({time.perf_counter() - start:.2f} s)"
        )

    print(
        f"\nBagging, {folds}-fold CV x {args.repeats}, mean over the classifiers "
        f"({', '.join(classifiers)}); positive class 1 (lung cancer)"
    )
    rows = []
    for name, selector in selectors().items():
        start = time.perf_counter()
        tables = [
            bagging_scores(
                X,
                y,
                selector,
                classifier,
                n_estimators=ensembles,
                cv=folds,
                n_repeats=args.repeats,
                seed=0,
            ).assign(classifier=label)
            for label, classifier in classifiers.items()
        ]
        table = pd.concat(tables).groupby("n_estimators")[["accuracy", "auc", "fnr"]].mean()
        for size, row in table.iterrows():
            rows.append(
                {
                    "method": name,
                    "bagged": size,
                    "accuracy %": 100 * row.accuracy,
                    "AUC": row.auc,
                    "FNR %": 100 * row.fnr,
                }
            )
        print(f"  {name}: {time.perf_counter() - start:.1f} s", flush=True)
    result = pd.DataFrame(rows).pivot(index="method", columns="bagged")
    result = result.reindex(list(selectors()))
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        print(result.round(2).to_string())
    print(
        "\nThe paper (Figures 3-5, averages over five data sets): FCBF and CFS give the best "
        "accuracy, the hybrids beat the causal learners alone, H-PC has the lowest FNR, and "
        "bagging helps a little, saturating after 5-10 members."
    )


if __name__ == "__main__":
    main()
