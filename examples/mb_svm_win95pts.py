"""Reproduce Figure 1 (right) of Shen, Li & Wong (AAAI 2008): F1 of a linear SVM (C = 1)
predicting NetOK in the win95pts network from all features, from the Markov blanket of
a network learned by BIC sparse-candidate hill climbing (p = k = 15), from Grow-Shrink's
blanket (chi-square, alpha = 0.05), and from the same number of information-gain features,
for training sizes from 100 to 2,000, each averaged over many trials and evaluated on
10,000 fresh rows.

    python examples/mb_svm_win95pts.py [--trials 20] [--sizes 100 200 500 1000 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.metrics import f1_score

from bnfs import datasets
from bnfs.select import mb_svm_pipeline

TARGET, POSITIVE = "NetOK", "No"  # F1 of detecting the failure (the minority state)
METHODS = ("all", "sparse_candidate", "grow_shrink", "information_gain")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 500, 1000, 2000])
    parser.add_argument("--test-rows", type=int, default=10_000)
    args = parser.parse_args()

    test = datasets.sample("win95pts", args.test_rows, seed=10_000)
    X_test, y_test = test.drop(columns=TARGET), test[TARGET]
    print(
        f"win95pts, target {TARGET}, F1 of '{POSITIVE}' on {args.test_rows} test rows, "
        f"mean ± 95% CI over {args.trials} trials (features kept in brackets)"
    )
    header = f"{'rows':>5}  " + "  ".join(f"{m:>24}" for m in METHODS) + f"  {'s/trial':>8}"
    print(header)
    print("-" * len(header))
    for size in args.sizes:
        scores = {m: [] for m in METHODS}
        counts = {m: [] for m in METHODS}
        start = time.perf_counter()
        for trial in range(args.trials):
            train = datasets.sample("win95pts", size, seed=1000 * size + trial)
            X, y = train.drop(columns=TARGET), train[TARGET]
            if y.nunique() < 2:
                continue
            n_blanket = None
            for method in METHODS:
                pipe = mb_svm_pipeline(method, n_features=n_blanket or 1, seed=trial)
                pipe.fit(X, y)
                kept = (
                    pipe.named_steps["select"].get_support().sum()
                    if "select" in pipe.named_steps
                    else X.shape[1]
                )
                if method == "sparse_candidate":
                    n_blanket = max(1, int(kept))
                counts[method].append(kept)
                scores[method].append(f1_score(y_test, pipe.predict(X_test), pos_label=POSITIVE))
        per_trial = (time.perf_counter() - start) / args.trials
        cells = []
        for method in METHODS:
            values = np.array(scores[method])
            half = 1.96 * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
            cells.append(f"{values.mean():.3f}±{half:.3f} [{np.mean(counts[method]):5.1f}]")
        print(f"{size:5d}  " + "  ".join(f"{c:>24}" for c in cells) + f"  {per_trial:8.2f}")
    print(
        "\nThe paper (Figure 1, 1000 trials): the learned network's blanket beats all features "
        "when data are scarce and matches them as data grow; Grow-Shrink is unreliable with "
        "little data; information gain trails because NetOK's parents interact (noisy-AND)."
    )


if __name__ == "__main__":
    main()
