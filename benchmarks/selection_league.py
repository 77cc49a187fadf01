"""The selection league: bnfs's feature selectors beside what practitioners use instead, on
real classification data available offline, all inside the cross-validation folds.

Data: scikit-learn's bundled sets (breast cancer, wine, digits) and the public benchmark sets
in ``../shared/data`` (german, vote, spect, spectf, promoters, hepatitis, coil2000, madelon,
lucas0, BASEHOCK text). Integer columns with more than 20 values are treated as continuous.

Selectors, each fitted on the training part of every fold only (nested: the test fold never
reaches a selector):

* bnfs: ``MarkovBlanketSelector("hiton_mb")``, ``StableBlanketSelector`` (R = 20 subsamples),
  ``FCBF``, ``HSMB`` (HSIC; skipped beyond 200 features, where it takes minutes);
* peers: mRMR (``mrmr_selection``) and ``SelectKBest(mutual_info_classif)`` at the size the
  bnfs blanket has in the same fold (or the next bnfs selector's, if HITON-MB timed out); Boruta (random forest of 100 trees, depth 5, 50
  iterations); PyImpetus (``PPIMBC``);
  L1-regularised logistic regression (``SelectFromModel``, C = 0.1); pycausalfs's HITON-MB
  (G^2 at 0.05 on the columns binned as bnfs bins them). Boruta and PyImpetus are skipped
  beyond 500 features or 5,000 rows, pycausalfs beyond 200 features (each takes tens of
  minutes there).

A selector gets ``--budget`` seconds (default 120) per fold; one that takes longer, or fails,
is reported as such and left out on that data set.

Reported per data set and selector: features kept (mean over folds), balanced accuracy of a
linear SVM, a random forest and Gaussian naive Bayes on the kept features, stability (mean
pairwise Jaccard index of the folds' sets) and selection seconds; then per data set the
best bnfs selector against the all-features accuracy and the best peer at a comparable size.
``--plot PATH`` draws accuracy against features kept, one panel per data set.

    python benchmarks/selection_league.py --quick            # 6 small sets, 3 folds: minutes
    python benchmarks/selection_league.py --plot docs/selection_league.png   # all, 5 folds
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import signal
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bnfs

warnings.filterwarnings("ignore")

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
QUICK = ["breast", "wine", "vote", "spect", "lucas0", "german"]


# --- data -----------------------------------------------------------------------------------


def _pmlb(folder: str, name: str, drop=()):
    frame = pd.read_csv(SHARED / folder / name, sep="\t", compression="gzip")
    frame = frame.drop(columns=list(drop))
    return frame.drop(columns="target"), frame["target"]


def _sklearn(loader):
    def load():
        X, y = loader(return_X_y=True, as_frame=True)
        return X, y

    return load


def _arff_first_label(folder: str, names: tuple[str, ...]):
    from scipy.io import arff

    parts = []
    for name in names:
        values, _ = arff.loadarff(SHARED / folder / name)
        parts.append(pd.DataFrame(values))
    frame = pd.concat(parts, ignore_index=True)
    frame = frame.apply(lambda c: c.str.decode("utf-8") if c.dtype == object else c)
    label = frame.columns[0]
    return frame.drop(columns=label).apply(pd.to_numeric), frame[label]


def _madelon():
    X = pd.read_csv(SHARED / "madelon" / "madelon_train.data", sep=r"\s+", header=None)
    y = pd.read_csv(SHARED / "madelon" / "madelon_train.labels", header=None)[0]
    X.columns = [f"f{i}" for i in range(X.shape[1])]
    return X, y


def _lucas0():
    frame = pd.read_csv(SHARED / "lucas0" / "lucas0_train.csv")
    return frame.drop(columns="Lung_cancer"), frame["Lung_cancer"]


def _basehock():
    from scipy.io import loadmat

    mat = loadmat(SHARED / "text_20ng" / "BASEHOCK.mat")
    X = (np.asarray(mat["X"]) > 0).astype(np.int8)
    keep = X.sum(axis=0) >= 20  # terms in at least 20 documents
    X = pd.DataFrame(X[:, keep], columns=[f"t{i}" for i in np.flatnonzero(keep)])
    return X, pd.Series(np.asarray(mat["Y"]).ravel())


def datasets() -> dict:
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    return {
        "breast": _sklearn(load_breast_cancer),
        "wine": _sklearn(load_wine),
        "digits": _sklearn(load_digits),
        "german": lambda: _pmlb("german", "german.tsv.gz"),
        "vote": lambda: _pmlb("vote", "house_votes_84.tsv.gz"),
        "spect": lambda: _pmlb("spect", "spect.tsv.gz"),
        "spectf": lambda: _arff_first_label("spectf", ("spectf.train.arff", "spectf.test.arff")),
        "promoters": lambda: _pmlb("promoters", "molecular_biology_promoters.tsv.gz", ["instance"]),
        "hepatitis": lambda: _pmlb("hepatitis", "hepatitis.tsv.gz"),
        "coil2000": lambda: _pmlb("coil2000", "coil2000.tsv.gz"),
        "madelon": _madelon,
        "lucas0": _lucas0,
        "basehock": _basehock,
    }


def prepared(X: pd.DataFrame, y) -> tuple[pd.DataFrame, np.ndarray]:
    """Numeric columns; integers with more than 20 values as floats (continuous), constant
    columns dropped; labels as 0..k-1."""
    X = X.copy()
    X.columns = [str(c) for c in X.columns]
    for c in X.columns:
        if X[c].dtype.kind in "iub" and X[c].nunique() > 20:
            X[c] = X[c].astype(float)
    X = X.loc[:, X.nunique() > 1]
    return X, pd.factorize(pd.Series(y).astype(str), sort=True)[0]


# --- selectors --------------------------------------------------------------------------------


def _bnfs(make):
    def select(X, y, k):
        return list(make().fit(X, y).selected_)

    return select


def _kbest(X, y, k):
    from sklearn.feature_selection import SelectKBest, mutual_info_classif

    selector = SelectKBest(lambda a, b: mutual_info_classif(a, b, random_state=0), k=k)
    return list(X.columns[selector.fit(X, y).get_support()])


def _mrmr(X, y, k):
    from mrmr import mrmr_classif

    frame = X.astype(float).reset_index(drop=True)
    return list(mrmr_classif(X=frame, y=pd.Series(y), K=k, show_progress=False))


def _boruta(X, y, k):
    from boruta import BorutaPy
    from sklearn.ensemble import RandomForestClassifier

    forest = RandomForestClassifier(n_estimators=100, max_depth=5, n_jobs=1, random_state=0)
    # 100 trees: the "auto" forest (about 1,000 trees on digits) took 8 minutes a fold
    selector = BorutaPy(forest, n_estimators=100, random_state=0, max_iter=50)
    selector.fit(X.to_numpy(dtype=float), y)
    return list(X.columns[selector.support_])


def _pyimpetus(X, y, k):
    from PyImpetus import PPIMBC
    from sklearn.tree import DecisionTreeClassifier

    model = PPIMBC(
        DecisionTreeClassifier(random_state=0),
        p_val_thresh=0.05,
        num_simul=10,
        cv=0,
        random_state=0,
        n_jobs=1,
        verbose=0,
    )
    model.fit(X.astype(float), y)
    return [str(c) for c in model.MB]


def _l1(X, y, k):
    from sklearn.feature_selection import SelectFromModel
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaled = StandardScaler().fit_transform(X.astype(float))
    model = LogisticRegression(penalty="l1", C=0.1, solver="saga", max_iter=2000, random_state=0)
    return list(X.columns[SelectFromModel(model).fit(scaled, y).get_support()])


def _pycausalfs(X, y, k):
    from pyCausalFS.CBD.MBs.HITON.HITON_MB import HITON_MB

    binned = pd.DataFrame(
        {
            c: pd.qcut(X[c], 3, labels=False, duplicates="drop") if X[c].dtype.kind == "f" else X[c]
            for c in X.columns
        }
    )
    codes = pd.concat([binned, pd.Series(y, index=X.index, name="__y")], axis=1)
    codes = codes.apply(lambda c: pd.factorize(c)[0]).to_numpy()
    found, _ = HITON_MB(codes, codes.shape[1] - 1, 0.05, is_discrete=True)
    return [X.columns[int(i)] for i in found]


#: name -> (select(X, y, k), largest features, largest rows, is a bnfs selector)
SELECTORS = {
    "bnfs MB hiton": (_bnfs(lambda: bnfs.MarkovBlanketSelector("hiton_mb")), None, None, True),
    # the default: learn's network, or on wide data neighbourhood_mb (the whole network
    # once its tests pass one per pair of columns)
    "bnfs MB": (_bnfs(bnfs.MarkovBlanketSelector), None, None, True),
    "bnfs stable MB": (_bnfs(lambda: bnfs.StableBlanketSelector(R=20)), None, None, True),
    "bnfs FCBF": (_bnfs(bnfs.FCBF), None, None, True),
    "bnfs HSMB": (_bnfs(bnfs.HSMB), 200, 5000, True),
    "mRMR @k": (_mrmr, None, None, False),
    "KBest MI @k": (_kbest, None, None, False),
    "Boruta": (_boruta, 500, 5000, False),
    "PyImpetus": (_pyimpetus, 500, 5000, False),
    "L1 logistic": (_l1, None, None, False),
    "pycausalfs HITON-MB": (_pycausalfs, 200, None, False),
}


# --- evaluation -----------------------------------------------------------------------------


def classifiers() -> dict:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    return {
        "svm": lambda: make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=5000)),
        "rf": lambda: RandomForestClassifier(n_estimators=200, random_state=0, n_jobs=1),
        "nb": GaussianNB,
    }


def accuracy(X_train, y_train, X_test, y_test, columns) -> dict:
    from sklearn.metrics import balanced_accuracy_score

    out = {}
    for name, make in classifiers().items():
        if not columns:
            out[name] = balanced_accuracy_score(
                y_test, np.full(len(y_test), np.bincount(y_train).argmax())
            )
            continue
        model = make().fit(X_train[columns].astype(float), y_train)
        out[name] = balanced_accuracy_score(y_test, model.predict(X_test[columns].astype(float)))
    return out


def jaccard_stability(sets: list[list[str]]) -> float:
    pairs = list(itertools.combinations([set(s) for s in sets], 2))
    if not pairs:
        return float("nan")
    # two empty sets agree on nothing worth keeping: 0, not 1
    return float(np.mean([len(a & b) / len(a | b) if a | b else 0.0 for a, b in pairs]))


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Raise TimeoutError in the selector after ``seconds`` (SIGALRM; a compiled kernel
    finishes its call first)."""
    if not seconds:
        yield
        return

    def expire(signum, frame):
        raise TimeoutError(f"over the {seconds:.0f} s budget of a fold")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def league(
    name: str, X: pd.DataFrame, y: np.ndarray, folds: int, selectors, budget: float | None
) -> pd.DataFrame:
    from sklearn.model_selection import StratifiedKFold

    splits = list(StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y))
    rows = []
    everything = [accuracy(X.iloc[a], y[a], X.iloc[b], y[b], list(X.columns)) for a, b in splits]
    rows.append(_row(name, "all features", [list(X.columns)] * folds, everything, [0.0]))
    print(_line(rows[-1]), flush=True)
    sizes = [None] * folds  # the first bnfs selector's set size in each fold: the peers' k
    for selector in selectors:
        select, max_p, max_n, is_bnfs = SELECTORS[selector]
        if (max_p and X.shape[1] > max_p) or (max_n and len(X) > max_n):
            continue
        kept, scores, seconds = [], [], []
        for i, (a, b) in enumerate(splits):
            k = max(sizes[i] or 1, 1)
            start = time.perf_counter()
            try:
                with time_limit(budget):
                    columns = select(X.iloc[a], y[a], k)
            except Exception as error:  # a selector that fails or times out is reported
                print(f"  {selector} failed on {name}: {type(error).__name__}: {error}"[:200])
                break
            seconds.append(time.perf_counter() - start)
            if is_bnfs and sizes[i] is None:
                sizes[i] = len(columns)
            kept.append(columns)
            scores.append(accuracy(X.iloc[a], y[a], X.iloc[b], y[b], columns))
        else:
            rows.append(_row(name, selector, kept, scores, seconds))
            print(_line(rows[-1]), flush=True)
    return pd.DataFrame(rows)


def _row(data, selector, kept, scores, seconds) -> dict:
    row = {"data": data, "selector": selector, "features": float(np.mean([len(k) for k in kept]))}
    for classifier in scores[0]:
        row[classifier] = float(np.mean([s[classifier] for s in scores]))
    row["best"] = max(row[c] for c in scores[0])
    row["stability"] = jaccard_stability(kept)
    row["seconds"] = float(np.mean(seconds))
    return row


def _line(row) -> str:
    return (
        f"{row['data']:<10}{row['selector']:<22}{row['features']:>8.1f}{row['svm']:>7.3f}"
        f"{row['rf']:>7.3f}{row['nb']:>7.3f}{row['stability']:>7.2f}{row['seconds']:>9.2f}"
    )


def summary(table: pd.DataFrame) -> None:
    print("\nper data set: best bnfs selector (by its best classifier) against all features and")
    print("the best peer keeping at most max(1.5 x its features, its features + 2)")
    wins = within = third = compared = 0
    sets = table["data"].unique()
    for data in sets:
        part = table[table["data"] == data]
        full = part[part["selector"] == "all features"].iloc[0]
        ours = part[part["selector"].str.startswith("bnfs")]
        peers = part[
            ~part["selector"].str.startswith("bnfs") & (part["selector"] != "all features")
        ]
        if ours.empty:
            continue
        best = ours.sort_values(["best", "features"], ascending=[False, True]).iloc[0]
        size = max(1.5 * best["features"], best["features"] + 2)
        near = peers[peers["features"] <= size]
        peer = near.sort_values("best", ascending=False).iloc[0] if len(near) else None
        within += best["best"] >= full["best"] - 0.01
        third += best["features"] <= full["features"] / 3
        if peer is not None:
            compared += 1
            wins += best["best"] >= peer["best"]
        print(
            f"{data:<10} {best['selector']:<16} {best['best']:.3f} with {best['features']:.1f} of "
            f"{full['features']:.0f} features (all: {full['best']:.3f}); best peer "
            + (
                f"{peer['selector']} {peer['best']:.3f} with {peer['features']:.1f}"
                if peer is not None
                else "-"
            )
        )
    stable = table[table["selector"] == "bnfs stable MB"].set_index("data")["stability"]
    others = table[~table["selector"].isin(["bnfs stable MB", "all features"])]
    most = sum(
        stable.get(d, -1) >= others[others["data"] == d]["stability"].max() for d in stable.index
    )
    print(
        f"\nwithin 1 point of all features: {within}/{len(sets)}; with <= 1/3 of the features: "
        f"{third}/{len(sets)}; >= the best comparable peer: {wins}/{compared}; stable MB the "
        f"most stable: {most}/{len(stable)}"
    )


def plot(table: pd.DataFrame, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = list(table["data"].unique())
    cols = 4
    rows = int(np.ceil(len(sets) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, data in zip(axes.ravel(), sets):
        part = table[table["data"] == data]
        for _, row in part.iterrows():
            bnfs_one = row["selector"].startswith("bnfs")
            marker = "*" if bnfs_one else ("s" if row["selector"] == "all features" else "o")
            ax.scatter(row["features"], row["best"], marker=marker, s=80 if bnfs_one else 40)
            ax.annotate(
                row["selector"].replace("bnfs ", ""), (row["features"], row["best"]), fontsize=6
            )
        ax.set_xscale("symlog")
        ax.set_title(data)
        ax.set_xlabel("features kept")
        ax.set_ylabel("balanced accuracy")
    for ax in axes.ravel()[len(sets) :]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"picture written to {path}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="6 small data sets, 3 folds")
    parser.add_argument("--data", nargs="+", help="data sets (default: all, or --quick's)")
    parser.add_argument("--selectors", nargs="+", default=list(SELECTORS), choices=list(SELECTORS))
    parser.add_argument("--folds", type=int, help="default 5, or 3 with --quick")
    parser.add_argument("--plot", help="write the accuracy-against-features picture here")
    parser.add_argument("--csv", help="write the table here")
    parser.add_argument(
        "--budget",
        type=float,
        default=120.0,
        help="seconds a selector may take on one fold; over it, it is reported as timed out "
        "on that data set (default 120; 0: no limit)",
    )
    args = parser.parse_args(argv)
    loaders = datasets()
    names = args.data or (QUICK if args.quick else list(loaders))
    folds = args.folds or (3 if args.quick else 5)
    selectors = ["bnfs MB hiton"] + [s for s in args.selectors if s != "bnfs MB hiton"]
    print(
        f"{'data':<10}{'selector':<22}{'kept':>8}{'svm':>7}{'rf':>7}{'nb':>7}{'stab':>7}{'sel s':>9}"
    )
    tables = []
    for name in names:
        X, y = prepared(*loaders[name]())
        print(f"-- {name}: {X.shape[0]} rows, {X.shape[1]} features, {len(np.unique(y))} classes")
        tables.append(league(name, X, y, folds, selectors, args.budget))
    table = pd.concat(tables, ignore_index=True)
    summary(table)
    if args.csv:
        table.to_csv(args.csv, index=False)
    if args.plot:
        plot(table, args.plot)


if __name__ == "__main__":
    main()
