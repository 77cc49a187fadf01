"""Fuzz the BIF, ARFF and CSV readers for longer than CI does (issue 8).

Mutated valid documents must parse or raise ValueError / TypeError; anything else is a
defect, reported with hypothesis's smallest failing input.

    python benchmarks/fuzz_readers.py [--examples 5000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_fuzz_readers import (  # noqa: E402
    ALPHABET,
    _seed_arff,
    _seed_bif,
    _seed_csv,
    check_arff,
    check_bif,
    check_csv,
    mutated,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000, help="inputs per reader")
    args = parser.parse_args()
    options = settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    folder = Path(tempfile.mkdtemp())
    targets = {
        "BIF": given(mutated(_seed_bif()))(check_bif),
        "ARFF": given(st.one_of(mutated(_seed_arff()), st.text(ALPHABET, max_size=300)))(
            check_arff
        ),
        "CSV": given(mutated(_seed_csv()))(lambda text: check_csv(text, folder)),
    }
    for label, target in targets.items():
        start = time.perf_counter()
        options(target)()
        print(
            f"{label:5} {args.examples} inputs, no defect, {time.perf_counter() - start:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
