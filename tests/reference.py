"""Access to the golden bnlearn files in tests/data/bnlearn (see its README)."""

from pathlib import Path

import pandas as pd

from bnfs import DAG

HERE = Path(__file__).parent / "data" / "bnlearn"
NETWORKS = ["asia", "child", "insurance", "alarm"]


def data(name: str) -> pd.DataFrame:
    # child has a state called "None": only empty cells are missing
    return pd.read_csv(HERE / f"{name}-5000.csv.gz", keep_default_na=False, na_values=[""])


def true_dag(name: str) -> DAG:
    arcs = pd.read_csv(HERE / f"{name}.arcs.tsv", sep="\t", header=None)
    return DAG(data(name).columns, arcs.itertuples(index=False, name=None))


def table(name: str, file: str) -> pd.DataFrame:
    return pd.read_csv(HERE / f"{name}-5000" / file, sep="\t")
