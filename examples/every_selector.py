"""Every feature selector on LUCAS0 (bundled): the features it keeps, its time, and the
10-fold accuracy of a linear SVM on them (selection inside each fold).

    python examples/every_selector.py
"""

from __future__ import annotations

import time

from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.svm import LinearSVC

import bnfs

SELECTORS = {
    "all features": None,
    "MarkovBlanketSelector(hill_climbing)": bnfs.MarkovBlanketSelector("hill_climbing"),
    "MarkovBlanketSelector(hiton_mb)": bnfs.MarkovBlanketSelector("hiton_mb"),
    "HSMB": bnfs.HSMB(),
    "BAHSIC(4)": bnfs.BAHSIC(4),
    "SRS": bnfs.SRS(),
    "SLFS": bnfs.SLFS(),
    "FCBF": bnfs.FCBF(),
    "CFS": bnfs.CFS(),
    "InformationGain(4)": bnfs.InformationGain(4),
    "HybridSelector(pc)": bnfs.HybridSelector("pc"),
}


def main() -> None:
    frame = bnfs.datasets.load_lucas0()
    X, y = frame.drop(columns="Lung_cancer"), frame["Lung_cancer"]
    print(
        f"LUCAS0: {len(X)} rows, {X.shape[1]} features; true blanket of Lung_cancer: "
        f"{bnfs.datasets.lucas0_network().markov_blanket('Lung_cancer')}"
    )
    print(f"{'selector':38} {'s':>6} {'SVM acc':>8}  features")
    for name, selector in SELECTORS.items():
        svm = make_pipeline(OneHotEncoder(handle_unknown="ignore"), LinearSVC(C=1.0))
        if selector is None:
            kept, seconds, model = list(X.columns), 0.0, svm
        else:
            start = time.perf_counter()
            kept = list(X.columns[selector.fit(X, y).get_support()])
            seconds = time.perf_counter() - start
            model = make_pipeline(selector, svm)
        accuracy = cross_val_score(model, X, y, cv=10).mean()
        print(f"{name:38} {seconds:6.2f} {accuracy:8.3f}  {', '.join(kept)}", flush=True)
    tbn = cross_val_score(bnfs.TBNClassifier(), X, y, cv=10).mean()
    print(f"{'TBNClassifier (SLFS tree as classifier)':38} {'':6} {tbn:8.3f}")


if __name__ == "__main__":
    main()
