"""Feature selection on wide data: every bnfs selector on ARCENE, and HITON-MB / MMMB on
generated genotype data up to 100,000 features, beside the peers, in one process run.

1. **ARCENE** (``../shared/data/arcene``: 100 training rows x 10,000 mass-spectrometry
   features, cancer or not): each selector is fitted on the training set within
   ``--budget`` seconds (default 120; over it, reported as timed out), then a linear SVM on
   the kept features is scored by balanced accuracy on ARCENE's validation set (100 rows),
   against the SVM on all features. Peers: mRMR (``mrmr_selection``) at the size of the
   default bnfs selector's set, and pycausalfs's HITON-MB (G^2 at 0.05 on the columns cut
   into 3 quantile bins, as bnfs cuts them).
2. **Planted blanket** (:func:`bnfs.datasets.planted_blanket`: 500 rows, a known blanket of
   10 among 1,000 to 100,000 genotype features): bnfs's HITON-MB and MMMB through
   ``MarkovBlanketSelector`` (the selector's defaults), with the seconds of the first fit
   in a fresh process (loading the compiled kernels from numba's cache included) and of a
   second one (warm), the peak memory (the data included) and the blanket's F1;
   pycausalfs's HITON-MB and MMMB where they finish within the budget.

Targets (issue 32): every bnfs selector <= 30 s on ARCENE, the default <= 15 s, its
accuracy >= all features' - 2 points; HITON-MB and MMMB <= 5 min and <= 4 GB on 100,000
features, F1 >= 0.9.

    python benchmarks/wide_selection.py                       # both parts (~10 minutes)
    python benchmarks/wide_selection.py --part planted --widths 1000 10000
    python benchmarks/wide_selection.py --plot docs/wide_selection.png
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bnfs
from bnfs import datasets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from selection_league import time_limit  # noqa: E402

warnings.filterwarnings("ignore")

ARCENE = Path(__file__).resolve().parents[2] / "shared" / "data" / "arcene"

#: name -> make the selector (bnfs, fitted as a user would)
BNFS_SELECTORS = {
    "bnfs default (MarkovBlanketSelector())": lambda: bnfs.MarkovBlanketSelector(),
    "bnfs HITON-MB": lambda: bnfs.MarkovBlanketSelector("hiton_mb"),
    "bnfs MMMB": lambda: bnfs.MarkovBlanketSelector("mmmb"),
    "bnfs IAMB": lambda: bnfs.MarkovBlanketSelector("iamb_mb"),
    "bnfs stable blanket": lambda: bnfs.StableBlanketSelector(R=20, random_state=0),
    "bnfs FCBF": lambda: bnfs.FCBF(),
    "bnfs CFS": lambda: bnfs.CFS(),
    "bnfs information gain": lambda: bnfs.InformationGain(),
    "bnfs SRS": lambda: bnfs.SRS(),
    "bnfs SLFS": lambda: bnfs.SLFS(),
    "bnfs HSMB": lambda: bnfs.HSMB(random_state=0),
    "bnfs BAHSIC": lambda: bnfs.BAHSIC(),
    "bnfs hybrid (FCBF + causal)": lambda: bnfs.HybridSelector(),
}


def load_arcene():
    def read(part):
        X = pd.read_csv(ARCENE / f"arcene_{part}.data", sep=r"\s+", header=None)
        X.columns = [f"f{j:05d}" for j in range(X.shape[1])]
        y = pd.read_csv(ARCENE / f"arcene_{part}.labels", header=None)[0].to_numpy()
        return X.astype(float), (y > 0).astype(int)

    X, y = read("train")
    X_valid, y_valid = read("valid")
    varying = X.columns[X.nunique() > 1]
    return X[varying], y, X_valid[varying], y_valid


def svm_accuracy(X, y, X_valid, y_valid, columns) -> float:
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    if not columns:
        return 0.5
    model = make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=10_000))
    model.fit(X[columns], y)
    return float(balanced_accuracy_score(y_valid, model.predict(X_valid[columns])))


def _pycausalfs(algorithm: str):
    def select(X, y):
        if algorithm == "HITON-MB":
            from pyCausalFS.CBD.MBs.HITON.HITON_MB import HITON_MB as learn
        else:
            from pyCausalFS.CBD.MBs.MMMB.MMMB import MMMB as learn
        binned = pd.DataFrame(
            {
                c: pd.qcut(X[c], 3, labels=False, duplicates="drop")
                if X[c].dtype.kind == "f"
                else X[c]
                for c in X.columns
            }
        )
        codes = pd.concat([binned, pd.Series(y, index=X.index, name="__y")], axis=1)
        codes = codes.apply(lambda c: pd.factorize(c)[0]).to_numpy()
        found = learn(codes, codes.shape[1] - 1, 0.05, True)[0]
        return [X.columns[int(i)] for i in found]

    return select


def _mrmr(k: int):
    def select(X, y):
        from mrmr import mrmr_classif

        frame = X.astype(float).reset_index(drop=True)
        return list(mrmr_classif(X=frame, y=pd.Series(y), K=k, show_progress=False))

    return select


def _timed(select, X, y, budget):
    start = time.perf_counter()
    try:
        with time_limit(budget):
            columns = select(X, y)
    except ImportError as error:
        return None, f"not installed ({error.name})"
    except Exception as error:  # a selector over budget or failing is reported as such
        return None, f"{type(error).__name__}: {error}"[:80]
    return (list(columns), time.perf_counter() - start), None


def arcene_part(budget: float) -> pd.DataFrame:
    X, y, X_valid, y_valid = load_arcene()
    print(f"ARCENE: {X.shape[0]} training rows x {X.shape[1]} features; budget {budget:.0f} s")
    rows = [
        {
            "selector": "all features",
            "kept": X.shape[1],
            "accuracy": svm_accuracy(X, y, X_valid, y_valid, list(X.columns)),
            "seconds": 0.0,
        }
    ]
    print(f"  {'selector':<42}{'kept':>7}{'accuracy':>10}{'seconds':>9}")
    _print(rows[-1])
    default_size = None
    for name, make in BNFS_SELECTORS.items():
        select = _fitted(make)
        rows.append(_arcene_row(name, select, X, y, X_valid, y_valid, budget))
        if default_size is None:
            default_size = rows[-1]["kept"] or 10
    peers = {
        f"mRMR @{default_size}": _mrmr(int(default_size)),
        "pycausalfs HITON-MB": _pycausalfs("HITON-MB"),
        "pycausalfs MMMB": _pycausalfs("MMMB"),
    }
    for name, select in peers.items():
        rows.append(_arcene_row(name, select, X, y, X_valid, y_valid, budget))
    return pd.DataFrame(rows)


def _fitted(make):
    return lambda X, y: make().fit(X, y).selected_


def _arcene_row(name, select, X, y, X_valid, y_valid, budget) -> dict:
    done, failure = _timed(select, X, y, budget)
    if done is None:
        row = {"selector": name, "kept": np.nan, "accuracy": np.nan, "seconds": np.nan}
        print(f"  {name:<42}{failure}")
        return row
    columns, seconds = done
    row = {
        "selector": name,
        "kept": len(columns),
        "accuracy": svm_accuracy(X, y, X_valid, y_valid, columns),
        "seconds": seconds,
    }
    _print(row)
    return row


def _print(row) -> None:
    print(
        f"  {row['selector']:<42}{row['kept']:>7.0f}{row['accuracy']:>10.3f}{row['seconds']:>9.2f}",
        flush=True,
    )


# --- planted blanket: one fresh process per run, for its peak memory --------------------------

PLANTED = {
    "bnfs HITON-MB": "bnfs:hiton_mb",
    "bnfs MMMB": "bnfs:mmmb",
    "pycausalfs HITON-MB": "pycausalfs:HITON-MB",
    "pycausalfs MMMB": "pycausalfs:MMMB",
}


def planted_run(which: str, width: int, rows: int, seed: int) -> dict:
    """One selector on one generated set (run in a child process)."""
    import resource

    X, y, truth = datasets.planted_blanket(width, rows, seed=seed)
    kind, name = which.split(":")
    start = time.perf_counter()
    if kind == "bnfs":
        found = bnfs.MarkovBlanketSelector(name).fit(X, y).selected_
    else:
        found = _pycausalfs(name)(X, y)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # GB (kB on Linux)
    warm = seconds  # pycausalfs compiles nothing: its one run is its warm time
    if kind == "bnfs":  # the first fit loaded the compiled kernels from numba's cache
        start = time.perf_counter()
        bnfs.MarkovBlanketSelector(name).fit(X, y)
        warm = time.perf_counter() - start
    blanket, kept = set(truth["blanket"]), set(found)
    f1 = 2 * len(blanket & kept) / (len(blanket) + len(kept)) if kept else 0.0
    return {"seconds": seconds, "warm": warm, "peak_gb": peak, "f1": f1, "kept": len(kept)}


def planted_part(widths, rows: int, seeds, budget: float, selectors) -> pd.DataFrame:
    print(f"\nPlanted blanket: {rows} rows, a blanket of 10; budget {budget:.0f} s per run")
    print(
        f"  {'selector':<24}{'features':>9}{'seed':>5}{'seconds':>9}{'warm':>7}"
        f"{'peak GB':>9}{'F1':>7}"
    )
    table = []
    for which in selectors:
        spec = PLANTED[which]
        for width in widths:
            for seed in seeds:
                command = [
                    sys.executable,
                    __file__,
                    "--child",
                    spec,
                    str(width),
                    str(rows),
                    str(seed),
                ]
                try:
                    done = subprocess.run(
                        command, capture_output=True, text=True, timeout=budget, check=True
                    )
                except subprocess.TimeoutExpired:
                    print(f"  {which:<24}{width:>9}{seed:>5}  over the {budget:.0f} s budget")
                    table.append(
                        {"selector": which, "features": width, "seed": seed, "over": budget}
                    )
                    break
                except subprocess.CalledProcessError as error:
                    print(
                        f"  {which:<24}{width:>9}{seed:>5}  failed: {error.stderr.strip().splitlines()[-1][:60]}"
                    )
                    break
                row = {"selector": which, "features": width, "seed": seed}
                row.update(json.loads(done.stdout.strip().splitlines()[-1]))
                table.append(row)
                print(
                    f"  {which:<24}{width:>9}{seed:>5}{row['seconds']:>9.2f}"
                    f"{row['warm']:>7.2f}{row['peak_gb']:>9.2f}{row['f1']:>7.3f}",
                    flush=True,
                )
            else:
                continue
            break  # a width over budget: wider ones would be too
    return pd.DataFrame(table)


def plot(table: pd.DataFrame, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    over = table["over"] if "over" in table else pd.Series(np.nan, index=table.index)
    for selector, part in table[over.isna()].groupby("selector", sort=False):
        mean = part.groupby("features")["seconds"].mean()
        style = "-o" if selector.startswith("bnfs") else "--s"
        (line,) = ax.plot(mean.index, mean.values, style, label=selector)
        late = table[(table["selector"] == selector) & over.notna()]
        for _, row in late.iterrows():  # over budget: an open marker at the budget
            ax.plot(
                [mean.index[-1], row["features"]],
                [mean.values[-1], row["over"]],
                ":",
                color=line.get_color(),
            )
            ax.plot(row["features"], row["over"], "^", mfc="none", color=line.get_color())
            ax.annotate(
                f"> {row['over']:.0f} s",
                (row["features"], row["over"]),
                textcoords="offset points",
                xytext=(6, -4),
                fontsize=8,
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("features (500 rows, planted blanket of 10)")
    ax.set_ylabel("seconds to select (one core)")
    ax.set_title("Markov-blanket selection on wide data")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=["arcene", "planted", "both"], default="both")
    parser.add_argument("--widths", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--budget", type=float, default=120.0, help="ARCENE: seconds per selector")
    parser.add_argument(
        "--planted-budget", type=float, default=600.0, help="seconds per planted run"
    )
    parser.add_argument("--plot", help="write seconds against features here (PNG)")
    parser.add_argument("--selectors", nargs="+", choices=list(PLANTED), default=list(PLANTED))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        spec, width, rows, seed = args.child
        print(json.dumps(planted_run(spec, int(width), int(rows), int(seed))))
        return
    if args.part in ("arcene", "both"):
        arcene_part(args.budget)
    if args.part in ("planted", "both"):
        table = planted_part(
            args.widths, args.rows, args.seeds, args.planted_budget, args.selectors
        )
        finished = table[table["over"].isna()] if "over" in table else table
        summary = finished.groupby(["selector", "features"])[
            ["seconds", "warm", "peak_gb", "f1"]
        ].mean()
        print("\nMeans over the seeds:")
        print(summary.round(3).to_string())
        if args.plot:
            plot(table, args.plot)


if __name__ == "__main__":
    main()
