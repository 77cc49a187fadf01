"""PC-stable: order-independent skeleton search, then v-structures and Meek's rules."""

from __future__ import annotations

import functools
import itertools
import time

from tqdm.auto import tqdm

from bnfs._validate import check_int
from bnfs.citests import TestName, make_test
from bnfs.constraint._orient import orient
from bnfs.constraint._parallel import check_n_jobs, map_tests
from bnfs.graph import PDAG

__all__ = ["pc_stable"]


def pc_stable(data, test: TestName = "g2", alpha: float = 0.05, *,
              max_cond_size: int | None = None, progress: bool | None = None,
              n_jobs: int | None = None, **test_options) -> PDAG:
    """Learn a CPDAG by the PC algorithm with the order-independent ("stable") skeleton.

    Level by level (conditioning sets of size 0, 1, ...), every edge x - y is tested
    against subsets of the adjacencies of x (then of y) *as they stood at the start of the
    level*, so the result does not depend on the column order; an independence removes the
    edge and records the separating set. Unshielded colliders are oriented from the
    separating sets, then Meek's rules.

    Parameters
    ----------
    data : discrete data, continuous data (with ``test="fisher_z"``), or a
        :class:`~bnfs.citests.CITest` / :class:`~bnfs.citests.DSeparation` oracle
    test : {"g2", "mi", "x2", "mi_threshold", "fisher_z"}
    alpha : float in (0, 1)
    max_cond_size : int, optional
        Largest conditioning set (default: no limit).
    progress : bool, optional
    n_jobs : int, optional
        joblib workers for the edge tests of each level (-1: every core). Each level runs
        in two rounds (every edge x - y, x < y, from x's side; then the survivors from y's
        side), which is the sequential order, so the result is the same for any value.
    **test_options
        ``threshold``, ``adjust_df``, ``min_rows_per_cell`` of :class:`~bnfs.citests.CITest`.

    Returns
    -------
    PDAG
        ``learning`` holds the test, alpha, ``n_tests`` and the separating sets' count.

    References
    ----------
    D. Colombo and M. H. Maathuis, "Order-independent constraint-based causal structure
    learning", JMLR 15, 2014. P. Spirtes, C. Glymour and R. Scheines, *Causation,
    Prediction, and Search*, 2000.

    Examples
    --------
    >>> from bnfs import DAG
    >>> from bnfs.citests import DSeparation
    >>> truth = DAG(["a", "b", "c", "d"], [("a", "c"), ("b", "c"), ("c", "d")])
    >>> pdag = pc_stable(DSeparation(truth))
    >>> pdag.arcs
    [('a', 'c'), ('b', 'c'), ('c', 'd')]
    """
    started = time.perf_counter()
    tester = make_test(data, test, alpha, **test_options)
    max_cond_size = check_int(max_cond_size, "max_cond_size", 0, allow_none=True)
    names = tester.names
    n = len(names)
    adjacency = [set(range(n)) - {v} for v in range(n)]
    sepsets: dict[frozenset, frozenset] = {}
    level = 0
    disable = None if progress is None else not progress
    n_jobs = check_n_jobs(n_jobs)
    with tqdm(desc="pc_stable", unit="level", disable=disable, leave=False) as bar:
        while max_cond_size is None or level <= max_cond_size:
            snapshot = [frozenset(a) for a in adjacency]
            if all(len(a) - 1 < level for a in snapshot):
                break
            if n_jobs == 1:
                for x in range(n):
                    for y in sorted(snapshot[x]):
                        if y in adjacency[x]:
                            _test_edge(tester, (x, y), snapshot, level, adjacency, sepsets)
            else:
                for side in (0, 1):  # x < y from x's side, then the survivors from y's side
                    pairs = [(x, y) if side == 0 else (y, x)
                             for x in range(n) for y in sorted(adjacency[x]) if x < y]
                    found = map_tests(tester, functools.partial(
                        _separating_set, snapshot=snapshot, level=level), pairs, n_jobs)
                    for (x, y), sep in zip(pairs, found):
                        if sep is not None:
                            _remove(x, y, sep, adjacency, sepsets)
            level += 1
            bar.update(1)
            bar.set_postfix(tests=tester.n_tests, refresh=False)
    learning = {"algorithm": "pc_stable", "test": tester.test, "alpha": tester.alpha,
                "arguments": {"max_cond_size": max_cond_size, **test_options},
                "n_tests": tester.n_tests, "max_level": level - 1, "n_jobs": n_jobs,
                "seconds": time.perf_counter() - started}
    pdag = orient(names, adjacency, sepsets, learning)
    pdag.learning["seconds"] = time.perf_counter() - started
    return pdag


def _separating_set(tester, pair, snapshot, level) -> frozenset | None:
    """The first subset of size ``level`` of x's adjacencies at the start of the level
    (without y) that separates x and y, or None."""
    x, y = pair
    if len(snapshot[x]) - 1 < level:
        return None
    for s in itertools.combinations(sorted(snapshot[x] - {y}), level):
        if tester.test_indices(x, y, s).independent:
            return frozenset(s)
    return None


def _test_edge(tester, pair, snapshot, level, adjacency, sepsets) -> None:
    sep = _separating_set(tester, pair, snapshot, level)
    if sep is not None:
        _remove(*pair, sep, adjacency, sepsets)


def _remove(x, y, sep, adjacency, sepsets) -> None:
    adjacency[x].discard(y)
    adjacency[y].discard(x)
    sepsets[frozenset((x, y))] = sep
