"""One target, one story (issue 71, item 5): on every labelled real table in
``../shared/data``, read as a newcomer reads it (``pandas.read_csv`` defaults, see
``typing_decisions.py``) and written to CSV, run ``bnfs learn`` and ``bnfs blanket`` on the
file, and print the class's blanket in learn's network, blanket's set, whether they agree,
and blanket's time (learning, compiling apart) as the command prints it.

Run it from two checkouts to compare a change of ``bnfs blanket``'s default:

    PYTHONPATH=/path/to/old python benchmarks/blanket_story.py > before.txt
    python benchmarks/blanket_story.py > after.txt
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from typing_decisions import read  # noqa: E402

import bnfs  # noqa: E402

#: labelled tables and their class column
TARGETS = {
    "german": "target",
    "hepatitis": "target",
    "lucas0": "Lung_cancer",
    "lung_cancer": "0",
    "promoters": "target",
    "spect": "target",
    "spectf": "OVERALL_DIAGNOSIS",
    "vote": "target",
    "wdbc": "target",
    "coil2000": "target",
}


def run(*argv: str) -> tuple[str, float]:
    """The command's stdout and its wall seconds."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bnfs.cli", *argv, "--quiet"],
        capture_output=True,
        text=True,
        env=os.environ,
        timeout=3600,
    )
    if done.returncode != 0:
        return f"rc {done.returncode}: {done.stderr.strip().splitlines()[-1]}", 0.0
    return done.stdout, time.perf_counter() - started


def listed(out: str) -> set[str]:
    names = set()
    for line in out.splitlines()[1:]:
        part = line.split(None, 1)
        if len(part) == 2 and part[0] in ("parents", "children", "spouses", "undirected"):
            names |= {n.split(" (")[0] for n in part[1].split(", ") if n != "-"}
    return names


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(TARGETS))
    args = parser.parse_args(argv)
    print(f"bnfs from {Path(bnfs.__file__).parent}")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.datasets:
            path = Path(folder) / f"{name}.csv"
            read(name).to_csv(path, index=False)
            target = TARGETS[name]
            out, _ = run("learn", str(path), "--out", str(Path(folder) / f"{name}.json"))
            learned = (
                set(bnfs.io.read_network(Path(folder) / f"{name}.json").markov_blanket(target))
                if not out.startswith("rc ")
                else None
            )
            out, wall = run("blanket", str(path), "--target", target)
            found = listed(out) if not out.startswith("rc ") else out
            head = out.splitlines()[0] if out else ""
            seconds = re.search(r"\(([\d.]+) s", head)
            same = "same" if found == learned else "DIFFERENT"
            print(
                f"{name:12} learn's network: {sorted(learned) if learned is not None else '-'}\n"
                f"{'':12} bnfs blanket:    {sorted(found) if isinstance(found, set) else found}"
                f"  [{same}; {seconds.group(1) if seconds else '?'} s learning, "
                f"{wall:.1f} s wall]",
                flush=True,
            )


if __name__ == "__main__":
    main()
