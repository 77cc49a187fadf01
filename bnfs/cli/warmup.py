"""``bnfs warmup``: compile the kernels of the call paths users meet, once, before the first
real call, a process per core.

``pip install .`` runs this in the package it builds (``bnfs warmup --into``), so that a
fresh install loads machine code instead of compiling it on the user's first call; ``bnfs
warmup`` does the same into the numba cache of the machine it runs on (a Docker image built
elsewhere, a Dask worker: ``client.run(warmup)``). Each call path runs a small learning
task on data of its kind in its own process, a process per core, so that the compiles run
side by side; what one process compiled the others load (the cache entries are written whole
and named by their contents, see :mod:`bnfs._kernels._compile`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

#: the call paths, by name: what a newcomer's first calls run, by kind of data. Each is
#: run by :func:`_run_path` in a process of its own; together they take the kernels of
#: ``bnfs example``, the README tour and the guide's first examples. The longest to
#: compile first (CHANGELOG, issue 72), so that processes side by side finish together.
PATHS = (
    "gaps",
    "mixed",
    "gaussian",
    "discrete",
    "weighted",
    "constraint",
    "posterior",
    "selectors",
)


def _discrete_frame(rows: int = 2000):
    """Sampled rows of alarm (a bundled network) when pgmpy's network files are there, else
    of the bundled LUCAS0 table: the same kernel signatures either way (one-byte codes)."""
    from bnfs import datasets

    try:
        return datasets.sample("alarm", rows, seed=0)
    except ImportError:  # pragma: no cover - pgmpy is a dependency
        return datasets.load_lucas0()


def _run_path(name: str) -> None:
    """Run call path ``name`` (:data:`PATHS`) once, quietly."""
    import numpy as np

    import bnfs
    from bnfs import datasets

    quiet = {"progress": False}
    if name == "discrete":
        frame = _discrete_frame()
        dag = bnfs.learn(frame, seed=0, **quiet)  # bnfs example's learner
        bnfs.hill_climbing(frame, score="bic")
        bnfs.hill_climbing(frame, score="bde")
        bnfs.tabu_search(frame)
        network = bnfs.fit(dag, frame, "bayes", iss=1)  # the README tour's next steps
        bnfs.predict(network, frame.columns[0], frame.head(), "blanket")
        for score in ("bic", "bde", "k2", "qnml"):
            bnfs.score(dag, frame, score)
    elif name == "gaussian":
        frame = datasets.regression(22, n=500, seed=0)
        bnfs.learn(frame, seed=0, **quiet)
        bnfs.hill_climbing(frame)
        bnfs.pc_stable(frame)
        bnfs.hill_climbing(frame, score="bge")
        bnfs.CITest(frame, "fisher_z")(frame.columns[0], frame.columns[1], [frame.columns[2]])
    elif name == "mixed":
        frame = datasets.load_survey().dropna()
        bnfs.learn(frame, seed=0, **quiet)
        bnfs.hill_climbing(frame)
        bnfs.pc_stable(frame)
    elif name == "gaps":
        frame = datasets.load_survey()
        bnfs.learn(frame, seed=0, **quiet)
        bnfs.pc_stable(frame)
        bnfs.structural_em(frame, return_imputed=True)
        discrete = _discrete_frame(1000)
        holes = np.random.default_rng(0).random(discrete.shape) < 0.02
        bnfs.learn(discrete.mask(holes), seed=0, **quiet)
    elif name == "weighted":
        frame = _discrete_frame(1000)
        weights = np.random.default_rng(0).integers(1, 4, len(frame)).astype(float)
        data = bnfs.Dataset(frame).with_weights(weights)
        bnfs.learn(data, seed=0, **quiet)
        bnfs.hill_climbing(data)
    elif name == "constraint":
        frame = _discrete_frame()
        bnfs.pc_stable(frame)
        for test in ("g2", "mi", "x2", "mi_adf", "x2_adf"):
            bnfs.CITest(frame, test)(frame.columns[0], frame.columns[1], [frame.columns[2]])
        target = frame.columns[-1]
        for method in ("hiton_mb", "iamb_mb", "neighbourhood_mb"):
            bnfs.markov_blanket(frame, target, method=method)
    elif name == "selectors":
        frame = _discrete_frame()
        target = frame.columns[0]
        X, y = frame.drop(columns=target), frame[target]
        bnfs.MarkovBlanketSelector().fit(X, y)
        bnfs.StableBlanketSelector(R=2, random_state=0).fit(X, y)  # the README tour's
        continuous = datasets.regression(22, n=400, seed=0)
        labels = np.where(continuous.iloc[:, 0] > continuous.iloc[:, 0].median(), "hi", "lo")
        bnfs.MarkovBlanketSelector().fit(continuous.iloc[:, 1:], labels)
    elif name == "posterior":
        for frame in (_discrete_frame(1000), datasets.regression(22, n=400, seed=0)):
            bnfs.structure_posterior(
                frame, chains=2, samples=50, steps=2000, seed=0, n_jobs=1, **quiet
            )
    else:
        raise ValueError(f"unknown call path {name!r}; the paths are {list(PATHS)}")


def warmup(
    paths=None,
    *,
    n_jobs: int | None = -1,
    into=None,
    portable: bool = False,
    timeout: float = 1800.0,
) -> dict[str, float]:
    """Compile (or load) the kernels of the call paths users meet, so that later calls on
    this machine start warm; return each path's seconds.

    Parameters
    ----------
    paths : list of str, optional
        Call paths among :data:`PATHS` (discrete, Gaussian, mixed, with gaps, weighted, CI
        tests, selectors, posterior); all of them by default.
    n_jobs : int, default -1
        Processes run side by side, one path each at a time (-1: one per core).
    into : path, optional
        Also copy the compiled entries into this folder, compressed (what ``pip install .``
        ships in ``bnfs/_kernels/_compiled``); by default they stay in this machine's numba
        cache, where every later process finds them.
    portable : bool, default False
        With ``into``: machine code for the generic CPU of this platform (numba's
        ``NUMBA_CPU_NAME=generic``), which loads on any CPU of it, for a wheel that travels;
        by default it is tuned to this machine's CPU and loads on that CPU only.
    timeout : float, default 1800
        Seconds a path may take before it is stopped (its kernels compiled so far kept).

    Examples
    --------
    In a Dockerfile, after ``pip install bnfs``: ``RUN bnfs warmup``. On a Dask cluster whose
    workers share no folder: ``from bnfs.cli.warmup import warmup; client.run(warmup)``.
    """
    from bnfs._kernels._compile import PORTABLE_CPU
    from bnfs.parallel import check_n_jobs

    chosen = list(PATHS) if paths is None else [paths] if isinstance(paths, str) else list(paths)
    unknown = [p for p in chosen if p not in PATHS]
    if unknown:
        raise ValueError(f"unknown call path {unknown[0]!r}; the paths are {list(PATHS)}")
    workers = min(len(chosen), check_n_jobs(n_jobs))
    if portable and into is None:
        raise ValueError("portable applies to the entries written into a folder: pass into")
    with tempfile.TemporaryDirectory(prefix="bnfs-warmup-") as folder:
        env = dict(os.environ)
        if into is not None:  # compile afresh, apart from this machine's cache
            env["NUMBA_CACHE_DIR"] = os.path.join(folder, "cache")
            env["BNFS_NO_SHIPPED_KERNELS"] = "1"
        if portable:
            env.update(NUMBA_CPU_NAME=PORTABLE_CPU, NUMBA_CPU_FEATURES="")
        env.setdefault("PYTHONWARNINGS", "ignore")
        seconds = _run_all(chosen, workers, env, timeout, Path(folder))
        if into is not None:
            _collect(Path(env["NUMBA_CACHE_DIR"]), Path(into), chosen, portable)
    return seconds


def _run_all(
    chosen: list[str], workers: int, env: dict, timeout: float, folder: Path
) -> dict[str, float]:
    """Run each path in a process of its own, ``workers`` at a time, its stderr in a file
    of ``folder`` (a pipe could fill and stall it); a path that fails or runs out of
    ``timeout`` is reported (its kernels compiled so far are kept)."""
    waiting, running, seconds = list(chosen), {}, {}
    code = "import sys; from bnfs.cli.warmup import _run_path; _run_path(sys.argv[1])"
    while waiting or running:
        while waiting and len(running) < workers:
            name = waiting.pop(0)
            err = open(folder / f"{name}.err", "wb")  # noqa: SIM115 - closed when it ends
            process = subprocess.Popen(
                [sys.executable, "-c", code, name], env=env, stdout=subprocess.DEVNULL, stderr=err
            )
            running[name] = (process, time.perf_counter(), err)
        for name, (process, began, err) in list(running.items()):
            took = time.perf_counter() - began
            if process.poll() is None and took > timeout:
                process.kill()
                process.wait()
            if process.poll() is None:
                continue
            del running[name]
            seconds[name] = took
            err.close()
            if process.returncode != 0:
                lines = (folder / f"{name}.err").read_text(errors="replace").strip().splitlines()
                last = lines[-1] if lines else f"exit {process.returncode}"
                if took > timeout:
                    last = f"stopped after timeout={timeout} s"
                warnings.warn(f"bnfs warmup: the {name} path failed ({last})", stacklevel=3)
        time.sleep(0.05)
    return seconds


def _collect(cache: Path, into: Path, paths: list[str], portable: bool = False) -> int:
    """Copy the kernels' entries under ``cache`` into ``into`` (one flat folder, each
    entry compressed) with a manifest of what they were built with; return how many.
    Entries are named by their contents, so a name found twice is one entry."""
    import json

    from bnfs._kernels._compile import MANIFEST, PORTABLE_CPU, build_facts, pack_entry

    into.mkdir(parents=True, exist_ok=True)
    count = 0
    for entry in sorted(cache.rglob("*.nbc")):
        target = into / entry.name
        if not target.exists():
            part = target.with_suffix(".part")
            part.write_bytes(pack_entry(entry.read_bytes()))
            os.replace(part, target)
        count += 1
    facts = build_facts()
    if portable:  # what the children compiled for (NUMBA_CPU_NAME=generic, no features)
        facts.update(cpu=PORTABLE_CPU, cpu_features=hashlib.sha256(b"").hexdigest()[:16])
    manifest = {"facts": facts, "paths": paths, "entries": count}
    (into / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.rmtree(cache, ignore_errors=True)
    return count


def warmup_command(args) -> int:
    """``bnfs warmup``: run :func:`warmup` and say what each path took."""
    from bnfs.parallel import check_n_jobs

    if not args.quiet:
        where = f"into {args.into}" if args.into else "into this machine's numba cache"
        jobs = min(len(args.paths), check_n_jobs(args.jobs))
        print(f"bnfs warmup: compiling {len(args.paths)} call paths {where}, {jobs} at a time")
    seconds = warmup(args.paths, n_jobs=args.jobs, into=args.into, portable=args.portable)
    for name in args.paths:
        print(f"  {name:<11} {seconds[name]:7.1f} s")
    return 0
