"""SLFS (structure learning for feature selection) on vote and wdbc: 10-fold CV accuracy
of a linear SVM and of kNN (k = 3, 5, 7) on the features SLFS keeps, on all features and
on as many chi-square-ranked features (one of the paper's baselines); and the TBN itself
as a classifier (BNSLFS) beside naive Bayes on all features. Selection runs inside each
fold. Needs ../shared/data.

    python benchmarks/slfs_reproduction.py [--max-depth 2] [--lam 1.0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import paper_data
from sklearn.base import clone
from sklearn.feature_selection import SelectKBest, chi2
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import SVC

from bnfs import SLFS, TBNClassifier

CLASSIFIERS = {
    "SVM": make_pipeline(StandardScaler(), SVC(kernel="linear")),
    **{f"{k}-NN": make_pipeline(StandardScaler(), KNeighborsClassifier(k)) for k in (3, 5, 7)},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-depth", type=int, default=2)
    parser.add_argument("--lam", type=float, default=1.0)
    args = parser.parse_args()
    print(
        f"SLFS (MAXDEPTH {args.max_depth}, lambda {args.lam}, NCH 15, MDL discretization), "
        "10-fold CV accuracy %"
    )
    print(
        f"{'data':6} {'features':16} {'#':>5} "
        + " ".join(f"{c:>6}" for c in CLASSIFIERS)
        + f" {'BN':>6} {'s/fold':>7}"
    )
    for name in ("vote", "wdbc"):
        X, y = getattr(paper_data, name)()
        folds = list(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y))
        rows = {"all": [], "SLFS": [], "chi-square": []}
        bn = {"all": [], "SLFS": []}
        seconds = 0.0
        for train, test in folds:
            Xtr, ytr, Xte, yte = X.iloc[train], y.iloc[train], X.iloc[test], y.iloc[test]
            start = time.perf_counter()
            slfs = SLFS(args.lam, max_depth=args.max_depth).fit(Xtr, ytr)
            seconds += time.perf_counter() - start
            chosen = list(X.columns[slfs.get_support()])
            ranked = SelectKBest(chi2, k=len(chosen)).fit(MinMaxScaler().fit_transform(Xtr), ytr)
            subsets = {
                "all": list(X.columns),
                "SLFS": chosen,
                "chi-square": list(X.columns[ranked.get_support()]),
            }
            for label, columns in subsets.items():
                rows[label].append(
                    [len(columns)]
                    + [
                        np.mean(clone(m).fit(Xtr[columns], ytr).predict(Xte[columns]) == yte)
                        for m in CLASSIFIERS.values()
                    ]
                )
            tbn = TBNClassifier(args.lam, max_depth=args.max_depth).fit(Xtr, ytr)
            bn["SLFS"].append(tbn.score(Xte, yte))
            nb = (
                CategoricalNB(min_categories=int(X.max().max()) + 1)
                if name == "vote"
                else GaussianNB()
            )
            bn["all"].append(nb.fit(Xtr, ytr).score(Xte, yte))
        for label, values in rows.items():
            mean = np.mean(values, axis=0)
            bn_cell = f"{100 * np.mean(bn[label]):6.2f}" if label in bn else f"{'':6}"
            timing = f"{seconds / len(folds):7.2f}" if label == "SLFS" else ""
            print(
                f"{name:6} {label:16} {mean[0]:5.1f} "
                + " ".join(f"{100 * v:6.2f}" for v in mean[1:])
                + f" {bn_cell} {timing}",
                flush=True,
            )
    print("\nBN: naive Bayes on all features, the TBN classifier (BNSLFS) on SLFS's features.")


if __name__ == "__main__":
    main()
