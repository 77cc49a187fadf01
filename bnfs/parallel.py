"""Where bnfs's parallel work runs.

Two kinds: compiled kernels that deal independent pieces (the local scores of a search
step, the edge tests of a PC level, pair gains) to numba threads, sized by ``n_jobs``
(:func:`numba_threads`, :func:`compiled_threads`); and whole tasks (bootstrap replicates,
per-node blankets, per-target searches) sent to joblib workers, which :func:`use_dask`
moves to a Dask cluster. Either way each piece's answer depends on nothing else, so
results never depend on ``n_jobs``.
"""

from __future__ import annotations

import contextlib
import os

import numba

from bnfs._validate import check_int

__all__ = ["use_dask", "numba_threads", "check_n_jobs"]


def check_n_jobs(n_jobs) -> int:
    """joblib's convention: None is 1, -1 is every core, -2 all but one, ..."""
    if n_jobs is None:
        return 1
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs == 0:
        raise ValueError("n_jobs must not be 0 (use 1, or -1 for every core)")
    cores = os.cpu_count() or 1
    return max(1, cores + 1 + n_jobs) if n_jobs < 0 else n_jobs


def compiled_threads(n_jobs) -> int:
    """Threads a compiled kernel uses for ``n_jobs`` (at most numba's pool)."""
    return max(1, min(check_n_jobs(n_jobs), numba.config.NUMBA_NUM_THREADS))


@contextlib.contextmanager
def numba_threads(n_jobs: int):
    """Run compiled parallel kernels on ``n_jobs`` threads (at most numba's pool size) in
    this block; yields the number used. Kernels deal work to threads so that results do
    not depend on it."""
    threads = compiled_threads(n_jobs)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        numba.set_num_threads(previous)


@contextlib.contextmanager
def use_dask(client=None):
    """Inside this block, bnfs's joblib work runs on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client, optional
        The cluster to use (default: the current client, as joblib's "dask" backend finds
        it).

    Examples
    --------
    >>> from distributed import Client, LocalCluster                     # doctest: +SKIP
    >>> with LocalCluster(n_workers=2) as cluster, Client(cluster) as client:  # doctest: +SKIP
    ...     with use_dask(client):
    ...         strength = bnfs.boot_strength(data, R=200)
    """
    try:
        import distributed  # noqa: F401  (registers joblib's "dask" backend)
        from joblib import parallel_backend
    except ImportError:
        raise ImportError(
            "running on Dask needs dask.distributed: pip install 'dask[distributed]'"
        ) from None
    if client is not None and not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a distributed.Client, got {type(client).__name__}")
    options = {} if client is None else {"client": client}
    with parallel_backend("dask", **options):
        yield
