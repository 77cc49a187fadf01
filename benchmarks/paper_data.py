"""Loaders for the public data sets in ../shared/data that the papers use (benchmarks
only: the test suite never needs them). Set BNFS_SHARED_DATA to point elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(
    os.environ.get("BNFS_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)


def _pmlb(folder: str, name: str) -> tuple[pd.DataFrame, pd.Series]:
    frame = pd.read_csv(ROOT / folder / f"{name}.tsv.gz", sep="\t")
    return frame.drop(columns="target"), frame["target"]


def wdbc():
    """569 x 30 continuous features, target 0/1."""
    return _pmlb("wdbc", "wdbc")


def vote():
    """435 x 16 votes coded 0..2 (2 = missing, an extra category), target 0/1."""
    return _pmlb("vote", "house_votes_84")


def promoters():
    """106 x 57 nucleotides coded 0..3 (the 'instance' id dropped), target 0/1."""
    X, y = _pmlb("promoters", "molecular_biology_promoters")
    return X.drop(columns="instance"), y


def spect():
    """The original split: (X_train, y_train, X_test, y_test), 22 binary features."""

    def arff(path):
        rows = [
            line.strip() for line in open(path) if line.strip() and not line.startswith(("@", "%"))
        ]
        values = np.array([[int(v) for v in row.split(",")] for row in rows])
        names = [f"F{i}" for i in range(1, values.shape[1])]
        return pd.DataFrame(values[:, 1:], columns=names), pd.Series(values[:, 0], name="target")

    return (*arff(ROOT / "spect" / "spect.train.arff"), *arff(ROOT / "spect" / "spect.test.arff"))


def madelon():
    """The challenge split: (X_train 2000 x 500, y_train, X_valid 600 x 500, y_valid); the
    integer measurements (hundreds of distinct values) as floats, so they are discretized."""

    def read(part):
        X = pd.read_csv(ROOT / "madelon" / f"madelon_{part}.data", sep=r"\s+", header=None).astype(
            float
        )
        X.columns = [f"f{i}" for i in range(X.shape[1])]
        y = pd.read_csv(ROOT / "madelon" / f"madelon_{part}.labels", header=None)[0]
        return X, y.rename("target")

    return (*read("train"), *read("valid"))


def basehock():
    """1993 documents x 4862 terms binarized (present / absent), labels 1/2."""
    from scipy.io import loadmat

    mat = loadmat(ROOT / "text_20ng" / "BASEHOCK.mat")
    X = (np.asarray(mat["X"]) > 0).astype(np.int8)
    return pd.DataFrame(X, columns=[f"w{i}" for i in range(X.shape[1])]), pd.Series(
        np.asarray(mat["Y"]).ravel(), name="target"
    )
