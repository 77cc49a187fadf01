"""Independent pieces of constraint-based work (one blanket per node, the edge tests of one
PC level) spread over joblib workers.

Every worker gets its own copy of the tester, so results never depend on ``n_jobs``: each
piece is a deterministic function of the tests it runs. The copies travel without the test
cache (pickling a cache of 10^5 results for every chunk cost more than the tests); the tests
they run are counted into the caller's tester and their results merged into its cache, so
later phases reuse them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from joblib import Parallel, delayed

from bnfs.parallel import check_n_jobs  # noqa: F401  (re-exported for the learners)


def _run_chunk(worker, fn, chunk):
    out = [fn(worker, item) for item in chunk]
    return out, worker.cached_results(), worker.n_tests


def map_tests(tester, fn: Callable, items: Sequence, n_jobs: int) -> list:
    """``[fn(tester, item) for item in items]``, over ``n_jobs`` joblib workers when > 1."""
    if n_jobs <= 1 or len(items) < 2:
        return [fn(tester, item) for item in items]
    n_chunks = min(len(items), 4 * n_jobs)
    chunks = [items[i::n_chunks] for i in range(n_chunks)]
    worker = tester.cacheless_copy()
    parts = Parallel(n_jobs=n_jobs)(delayed(_run_chunk)(worker, fn, c) for c in chunks)
    results: list = [None] * len(items)
    for i, (out, fresh, n_tests) in enumerate(parts):
        results[i::n_chunks] = out
        tester.merge_results(fresh, n_tests)
    return results
