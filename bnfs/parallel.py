"""Running bnfs's embarrassingly parallel work (bootstrap replicates, per-target blankets)
on a Dask cluster: joblib hands the tasks to the cluster's workers."""

from __future__ import annotations

import contextlib

import numba

__all__ = ["use_dask", "numba_threads"]


@contextlib.contextmanager
def numba_threads(n_jobs: int):
    """Run compiled parallel kernels on ``n_jobs`` threads (at most numba's pool size) in
    this block; yields the number used. Kernels deal work to threads so that results do
    not depend on it."""
    threads = max(1, min(int(n_jobs), numba.config.NUMBA_NUM_THREADS))
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
        raise ImportError("running on Dask needs dask.distributed: "
                          "pip install 'dask[distributed]'") from None
    options = {} if client is None else {"client": client}
    with parallel_backend("dask", **options):
        yield
