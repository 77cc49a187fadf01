"""PC-stable: order-independent skeleton search, then v-structures and Meek's rules."""

from __future__ import annotations

import itertools
import time

from tqdm.auto import tqdm

from bnfs._validate import check_int
from bnfs.citests import TestName, make_test
from bnfs.constraint._orient import orient
from bnfs.graph import PDAG

__all__ = ["pc_stable"]


def pc_stable(data, test: TestName = "g2", alpha: float = 0.05, *,
              max_cond_size: int | None = None, progress: bool | None = None,
              **test_options) -> PDAG:
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
    with tqdm(desc="pc_stable", unit="level", disable=disable, leave=False) as bar:
        while max_cond_size is None or level <= max_cond_size:
            snapshot = [frozenset(a) for a in adjacency]
            if all(len(a) - 1 < level for a in snapshot):
                break
            for x in range(n):
                for y in sorted(snapshot[x]):
                    if y not in adjacency[x] or len(snapshot[x]) - 1 < level:
                        continue
                    for s in itertools.combinations(sorted(snapshot[x] - {y}), level):
                        if tester.test_indices(x, y, s).independent:
                            adjacency[x].discard(y)
                            adjacency[y].discard(x)
                            sepsets[frozenset((x, y))] = frozenset(s)
                            break
            level += 1
            bar.update(1)
            bar.set_postfix(tests=tester.n_tests, refresh=False)
    learning = {"algorithm": "pc_stable", "test": tester.test, "alpha": tester.alpha,
                "arguments": {"max_cond_size": max_cond_size, **test_options},
                "n_tests": tester.n_tests, "max_level": level - 1,
                "seconds": time.perf_counter() - started}
    pdag = orient(names, adjacency, sepsets, learning)
    pdag.learning["seconds"] = time.perf_counter() - started
    return pdag
