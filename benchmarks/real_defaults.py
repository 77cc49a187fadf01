"""The defaults on every real data set: what ``bnfs.learn(data)`` and
``MarkovBlanketSelector().fit(X, y)`` do on the files of ``../shared/data`` (and the bundled
survey), as a user would call them: columns as read (continuous ones modelled as they are),
the class a column named ``class`` (survey: its column with fewest gaps, on the rows where
it is observed). Printed per data set: rows and columns, then learn's
seconds, arcs, starts and whether its budget stopped it, and the selector's seconds, learner
and features kept. A run gets ``--max-time`` seconds (``max_time``: past it the answer so far,
marked as stopped; incomplete data run inside structural EM, which takes none).

    python benchmarks/real_defaults.py [--datasets coil2000 german ...] [--max-time 300]
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
import warnings
from pathlib import Path

import bnfs

sys.path.insert(0, str(Path(__file__).parent))
import real_league  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--max-time", type=float, default=300.0)
    args = parser.parse_args(argv)
    sets = real_league.data_sets()
    bnfs.learn(bnfs.datasets.sample("asia", 500, seed=0), progress=False)  # compile first
    for name in args.datasets or list(sets):
        frame = sets[name]()
        frame = frame.loc[:, frame.nunique() > 1]
        print(f"{name}: {frame.shape[0]} rows x {frame.shape[1]} columns", flush=True)
        budget = {} if frame.isna().any().any() else {"max_time": args.max_time}  # EM: none
        target = "class" if "class" in frame.columns else frame.isna().sum().idxmin()
        rows = frame[target].notna()  # a class is observed
        X, y = frame.loc[rows].drop(columns=target), frame.loc[rows, target]
        for label, run in (
            ("learn", functools.partial(bnfs.learn, frame, progress=False, **budget)),
            ("selector", functools.partial(bnfs.MarkovBlanketSelector(**budget).fit, X, y)),
        ):
            started = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    found = run()
            except (ValueError, TypeError) as error:  # refused input is a result here
                print(f"  {label:<9} refused: {str(error)[:150]}", flush=True)
                continue
            print(
                f"  {label:<9} {time.perf_counter() - started:7.1f} s  {_what(found)}", flush=True
            )


def _what(found) -> str:
    """A learned DAG's arcs, starts, score and stop, or a selector's learner and set."""
    if isinstance(found, bnfs.DAG):
        learning = found.learning
        return (
            f"{found.n_arcs:5d} arcs  {len(learning.get('starts', []))} start(s)  "
            f"score {learning.get('score')}  stopped: {learning.get('stopped_early')}"
        )
    return (
        f"{found.learner_}  kept {len(found.selected_)} of {found.n_features_in_}  "
        f"stopped: {found.stopped_}"
    )


if __name__ == "__main__":
    main()
