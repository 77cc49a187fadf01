"""How bnfs types the columns of every real table in ``../shared/data``, read as a newcomer
reads them (``pandas.read_csv`` with its defaults, ``bnfs.io.read_table`` for ARFF; no
casting), and what ``bnfs.learn`` then does: per table, the kinds (discrete, continuous,
constant, identifier: columns set aside), the columns with gaps, the float columns read as
codes, learn's seconds (compiling apart) and arcs, or the refusal.

Run it from two checkouts to compare the typing rule before and after a change:

    PYTHONPATH=/path/to/old python benchmarks/typing_decisions.py > before.txt
    python benchmarks/typing_decisions.py > after.txt

    python benchmarks/typing_decisions.py [--datasets german hepatitis ...] [--no-learn]
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import Counter
from pathlib import Path

import pandas as pd

import bnfs

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: name -> (file, pandas.read_csv options beyond the defaults: only what the file's layout
#: needs, a separator or the absence of a header)
TABLES = {
    "coil2000": ("coil2000/coil2000.tsv.gz", {"sep": "\t"}),
    "german": ("german/german.tsv.gz", {"sep": "\t"}),
    "hepatitis": ("hepatitis/hepatitis.tsv.gz", {"sep": "\t"}),
    "lucas0": ("lucas0/lucas0_train.csv", {}),
    "lung_cancer": ("lung_cancer/lung-cancer.data", {"header": None}),
    "madelon": ("madelon/madelon_train.data", {"sep": " ", "header": None}),
    "promoters": ("promoters/molecular_biology_promoters.tsv.gz", {"sep": "\t"}),
    "spect": ("spect/spect.tsv.gz", {"sep": "\t"}),
    "spectf": ("spectf/spectf.train.arff", None),
    "vote": ("vote/house_votes_84.tsv.gz", {"sep": "\t"}),
    "wdbc": ("wdbc/wdbc.tsv.gz", {"sep": "\t"}),
}
#: tables small enough for learn in a comparison run
LEARNED = ("german", "hepatitis", "lucas0", "lung_cancer", "promoters", "spect", "vote", "wdbc")


def read(name: str) -> pd.DataFrame:
    path, options = TABLES[name]
    if options is None:
        return bnfs.io.read_table(SHARED / path)
    frame = pd.read_csv(SHARED / path, **options)
    frame.columns = [str(c) for c in frame.columns]
    return frame.dropna(axis=1, how="all")  # a trailing separator's empty column


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(TABLES))
    parser.add_argument("--no-learn", action="store_true")
    args = parser.parse_args(argv)
    for name in args.datasets:
        frame = read(name)
        gaps = int(frame.isna().any().sum())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                data = bnfs.Dataset(frame, constant="isolate", dropna=True)
                kinds = data.kinds
                coded = list(getattr(data, "float_codes", ()))
            except (ValueError, TypeError) as error:
                print(f"{name}: {frame.shape} refused: {str(error)[:160]}", flush=True)
                continue
        counts = Counter(kinds.values())
        aside = [n for n, k in kinds.items() if k == "identifier"]
        print(
            f"{name}: {frame.shape[0]} x {frame.shape[1]}, {gaps} columns with gaps; "
            f"{dict(sorted(counts.items()))}; float codes {len(coded)} {coded[:6]}; "
            f"set aside {aside[:6]}",
            flush=True,
        )
        if args.no_learn or name not in LEARNED:
            continue
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                dag = bnfs.learn(frame, progress=False)
            except (ValueError, TypeError) as error:
                print(f"  learn refused: {str(error)[:160]}", flush=True)
                continue
        learning = dag.learning
        compiling = learning.get("compile_seconds", 0.0)
        print(
            f"  learn: {len(dag.arcs)} arcs, {time.perf_counter() - started - compiling:.1f} s "
            f"(+ {compiling:.1f} s compiling); columns "
            f"{dict(sorted(Counter((learning.get('columns') or {}).values()).items()))}",
            flush=True,
        )


if __name__ == "__main__":
    main()
