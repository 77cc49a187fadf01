"""Table 2 of Shen, Li & Wong (AAAI 2008) on BASEHOCK (baseball vs hockey, 20 Newsgroups,
binarized words): F1 of a linear SVM (C = 1) and the number of features for all words,
Grow-Shrink (chi-square, 0.05), information gain (as many words as the screen-based
blanket), sparse candidate (k=10, p=5 and k=20, p=10) and screen-based (theta = 4), with
the structure-learning time (no post-processing, as in the paper's timing table).

One stratified half/half split (seed 0): a sparse-candidate search takes minutes here, so
cross-validation is out of reach. Needs ../shared/data (or BNFS_SHARED_DATA).

    python benchmarks/basehock_svm.py [--skip-sparse-candidate]
"""

from __future__ import annotations

import argparse
import time

import paper_data
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

from bnfs.select import mb_svm_pipeline

PAPER = {  # method: (F1 x 100, features, CPU seconds)
    "all": (90.97, 9483, None),
    "grow_shrink": (83.68, 7, None),
    "information_gain": (91.94, None, None),
    "sc_10_5": (90.92, 119, 8189),
    "sc_20_10": (92.62, 128, 12515),
    "screen_based": (93.81, 849, 337),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-sparse-candidate", action="store_true")
    args = parser.parse_args()
    X, y = paper_data.basehock()
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=0
    )
    print(
        f"BASEHOCK: {X.shape[1]} words, {len(X_train)} training and {len(X_test)} test "
        "documents; F1 of class 2 (hockey)"
    )
    runs = [
        ("screen_based", dict(method="screen_based", theta=4)),
        ("all", dict(method="all")),
        ("grow_shrink", dict(method="grow_shrink", alpha=0.05)),
    ]
    if not args.skip_sparse_candidate:
        runs += [
            ("sc_10_5", dict(method="sparse_candidate", k=10, max_parents=5)),
            ("sc_20_10", dict(method="sparse_candidate", k=20, max_parents=10)),
        ]
    print(
        f"{'method':18} {'F1 ours':>8} {'paper':>6} {'#feat ours':>10} {'paper':>6} "
        f"{'select s':>9} {'paper s':>8}"
    )
    n_screen = None
    for name, options in runs + [("information_gain", None)]:
        if name == "information_gain":
            options = dict(method="information_gain", n_features=n_screen)
        start = time.perf_counter()
        pipe = mb_svm_pipeline(**options, seed=0).fit(X_train, y_train)
        seconds = time.perf_counter() - start
        kept = (
            int(pipe.named_steps["select"].get_support().sum())
            if "select" in pipe.named_steps
            else X.shape[1]
        )
        if name == "screen_based":
            n_screen = kept
        f1 = 100 * f1_score(y_test, pipe.predict(X_test), pos_label=2)
        paper_f1, paper_n, paper_s = PAPER[name]
        print(
            f"{name:18} {f1:8.2f} {paper_f1:6.2f} {kept:10d} {paper_n or '-':>6} "
            f"{seconds:9.1f} {paper_s or '-':>8}",
            flush=True,
        )


if __name__ == "__main__":
    main()
