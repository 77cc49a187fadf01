"""Independent pieces of constraint-based work (one blanket per node, the edge tests of one
PC level) spread over joblib workers.

Every worker gets its own copy of the tester, so results never depend on ``n_jobs``: each
piece is a deterministic function of the tests it runs. Test counts are summed back into the
caller's tester; the workers' caches are merged into it too, so later phases reuse them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from joblib import Parallel, delayed

from bnfs._validate import check_int


def check_n_jobs(n_jobs) -> int:
    """joblib's convention: None is 1, -1 is every core, -2 all but one, ..."""
    if n_jobs is None:
        return 1
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs == 0:
        raise ValueError("n_jobs must not be 0 (use 1, or -1 for every core)")
    cores = os.cpu_count() or 1
    return max(1, cores + 1 + n_jobs) if n_jobs < 0 else n_jobs


def _run_chunk(tester, fn, chunk):
    before = dict(tester._cache)
    out = [fn(tester, item) for item in chunk]
    fresh = {k: v for k, v in tester._cache.items() if k not in before}
    return out, fresh, tester.n_tests


def map_tests(tester, fn: Callable, items: Sequence, n_jobs: int) -> list:
    """``[fn(tester, item) for item in items]``, over ``n_jobs`` joblib workers when > 1."""
    if n_jobs <= 1 or len(items) < 2:
        return [fn(tester, item) for item in items]
    n_chunks = min(len(items), 4 * n_jobs)
    chunks = [items[i::n_chunks] for i in range(n_chunks)]
    base = tester.n_tests
    parts = Parallel(n_jobs=n_jobs)(delayed(_run_chunk)(tester, fn, c) for c in chunks)
    results: list = [None] * len(items)
    for i, (out, fresh, n_tests) in enumerate(parts):
        results[i::n_chunks] = out
        tester._cache.update(fresh)
        tester.n_tests += n_tests - base
    return results
