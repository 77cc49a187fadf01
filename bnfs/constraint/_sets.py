"""Small helpers the local learners share: the target's index, conditioning subsets."""

from __future__ import annotations

import itertools

from bnfs._validate import check_int


def target_index(tester, target) -> int:
    """Index of ``target`` in the tester's variables, or a ValueError naming it."""
    try:
        return tester.index(target)
    except ValueError:
        raise ValueError(f"target {target!r} is not a variable of the data") from None


def subsets(pool, max_size):
    """Subsets of ``pool`` by increasing size (at most ``max_size``), each in index order."""
    pool = sorted(pool)
    top = len(pool) if max_size is None else min(max_size, len(pool))
    for size in range(top + 1):
        yield from itertools.combinations(pool, size)


def cond_size(max_cond_size):
    """The validated ``max_cond_size`` argument (None: no limit)."""
    return check_int(max_cond_size, "max_cond_size", 0, allow_none=True)
