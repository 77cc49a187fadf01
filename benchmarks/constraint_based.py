"""Constraint-based learning: bnfs beside causal-learn (and pgmpy) on the same data.

For each network (rows sampled from pgmpy's shipped network, constant columns dropped) and
each alpha, prints seconds, number of tests, SHD to the true CPDAG and skeleton F1 of
bnfs ``pc_stable`` (G^2; plain and with causal-learn's adjusted degrees of freedom, one and two
jobs), causal-learn's PC (gsq, stable) and, on small networks, pgmpy's PC (g_sq, stable); then
bnfs's ``tpda`` and whole-network gs / iamb / fast-iamb; then local blanket learners on selected
targets beside pycausalfs's IAMB, HITON-MB and MMMB (G^2 at the same alpha), with blanket F1
and the ratio of pycausalfs's seconds to bnfs's for the same algorithm.

    python benchmarks/constraint_based.py [--networks alarm win95pts andes] [--alpha 0.01 0.05]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time
import warnings

import numpy as np

import bnfs
from bnfs import Dataset, datasets, shd
from bnfs.stats.metrics import blanket_scores, skeleton_scores

warnings.filterwarnings("ignore")  # peers are noisy about their own deprecations

TARGETS = {
    "alarm": ["HYPOVOLEMIA", "LVFAILURE"],
    "win95pts": ["NetOK"],
    "andes": ["SNode_25"],
    "hailfinder": ["CombVerMo"],
}
# pycausalfs function for each bnfs local learner it also has
PYCAUSALFS = {
    "iamb_mb": ("pyCausalFS.CBD.MBs.IAMB", "IAMB"),
    "hiton_mb": ("pyCausalFS.CBD.MBs.HITON.HITON_MB", "HITON_MB"),
    "mmmb": ("pyCausalFS.CBD.MBs.MMMB.MMMB", "MMMB"),
}


def load(name, rows):
    frame = datasets.sample(name, rows, seed=0)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    return frame, datasets.network(name).subgraph(frame.columns)


def causallearn_pc(data: Dataset, alpha: float):
    from causallearn.search.ConstraintBased.PC import pc

    codes = data.codes.astype(np.int64)
    start = time.perf_counter()
    cg = pc(codes, alpha, indep_test="gsq", stable=True, show_progress=False)
    seconds = time.perf_counter() - start
    g = cg.G.graph
    names = data.names
    arcs, edges = [], []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if g[i, j] == -1 and g[j, i] == 1:
                arcs.append((names[i], names[j]))
            elif g[i, j] == 1 and g[j, i] == -1:
                arcs.append((names[j], names[i]))
            elif g[i, j] != 0 or g[j, i] != 0:
                edges.append((names[i], names[j]))
    pdag = bnfs.PDAG(names, edges=edges)
    for u, v in arcs:  # conflicting orientations are kept undirected
        try:
            pdag.add_arc(u, v)
        except ValueError:
            if not pdag.is_adjacent(u, v):
                pdag.add_edge(u, v)
    n_tests = "-"  # causal-learn does not report its number of tests
    return seconds, pdag, n_tests


def _pgmpy_worker(frame, alpha, queue):
    warnings.filterwarnings("ignore")
    from pgmpy.estimators import PC

    start = time.perf_counter()
    model = PC(frame.astype(str)).estimate(
        variant="stable",
        ci_test="g_sq",
        significance_level=alpha,
        return_type="cpdag",
        show_progress=False,
    )
    directed = [(u, v) for u, v in model.edges() if not model.has_edge(v, u)]
    undirected = {frozenset((u, v)) for u, v in model.edges() if model.has_edge(v, u)}
    queue.put((time.perf_counter() - start, directed, [tuple(e) for e in undirected]))


def in_subprocess(worker, args, timeout):
    """``worker(*args, queue)`` in its own process: what it puts, or None after ``timeout``."""
    queue = mp.Queue()
    proc = mp.Process(target=worker, args=(*args, queue))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        return None
    return queue.get() if not queue.empty() else None


def pgmpy_pc(frame, alpha, timeout):
    return in_subprocess(_pgmpy_worker, (frame, alpha), timeout)


def _pycausalfs_worker(module, function, codes, target, alpha, queue):
    import importlib

    warnings.filterwarnings("ignore")
    fn = getattr(importlib.import_module(module), function)
    start = time.perf_counter()
    found, n_tests = fn(codes, target, alpha, is_discrete=True)
    queue.put((time.perf_counter() - start, sorted(int(i) for i in found), n_tests))


def pycausalfs_mb(learner, codes, target, alpha, timeout):
    """(seconds, member indices, tests) of pycausalfs's version of ``learner``, or None."""
    return in_subprocess(_pycausalfs_worker, (*PYCAUSALFS[learner], codes, target, alpha), timeout)


def row(name, alpha, learner, seconds, pdag, truth, n_tests, base=None):
    ratio = "" if base is None else f"{seconds / base:8.1f}x"
    sk = skeleton_scores(pdag, truth)
    print(
        f"{name:<11}{alpha:<6}{learner:<24}{seconds:>9.3f}{str(n_tests):>9}"
        f"{shd(pdag, truth):>6}{sk['f1']:>7.3f}{ratio:>9}",
        flush=True,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=["alarm", "win95pts", "andes"])
    parser.add_argument("--alpha", type=float, nargs="+", default=[0.01, 0.05])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--pgmpy-timeout", type=float, default=600)
    parser.add_argument("--pgmpy-networks", nargs="*", default=["alarm"])
    parser.add_argument(
        "--peer-timeout",
        type=float,
        default=600,
        help="seconds before a pycausalfs run is reported as a timeout",
    )
    args = parser.parse_args(argv)
    # warm the kernels
    bnfs.pc_stable(datasets.sample("asia", 500, seed=0))
    print(
        f"{'network':<11}{'alpha':<6}{'learner':<24}{'seconds':>9}{'tests':>9}{'SHD':>6}"
        f"{'skelF1':>7}{'vs bnfs':>9}"
    )
    for name in args.networks:
        frame, truth = load(name, args.rows)
        data = Dataset(frame)
        for alpha in args.alpha:
            start = time.perf_counter()
            ours = bnfs.pc_stable(data, "g2", alpha)
            base = time.perf_counter() - start
            row(name, alpha, "bnfs pc_stable", base, ours, truth, ours.learning["n_tests"])
            start = time.perf_counter()
            adjusted = bnfs.pc_stable(data, "g2", alpha, adjust_df=True)
            row(
                name,
                alpha,
                "bnfs pc_stable adj. df",
                time.perf_counter() - start,
                adjusted,
                truth,
                adjusted.learning["n_tests"],
                base,
            )
            seconds, theirs, n_tests = causallearn_pc(data, alpha)
            row(name, alpha, "causal-learn pc (gsq)", seconds, theirs, truth, n_tests, base)
            if name in args.pgmpy_networks:
                result = pgmpy_pc(frame, alpha, args.pgmpy_timeout)
                if result is None:
                    print(f"{name:<11}{alpha:<6}{'pgmpy PC (g_sq)':<24}{'timeout':>9}")
                else:
                    pg = bnfs.PDAG(frame.columns, arcs=result[1], edges=result[2])
                    row(name, alpha, "pgmpy PC (g_sq)", result[0], pg, truth, "-", base)
            start = time.perf_counter()
            parallel = bnfs.pc_stable(data, "g2", alpha, n_jobs=2)
            row(
                name,
                alpha,
                "bnfs pc_stable n_jobs=2",
                time.perf_counter() - start,
                parallel,
                truth,
                parallel.learning["n_tests"],
                base,
            )
            for learner, test in (
                (bnfs.tpda, "mi_threshold"),
                (bnfs.tpda, "g2"),
                (bnfs.grow_shrink, "g2"),
                (bnfs.iamb, "g2"),
                (bnfs.fast_iamb, "g2"),
            ):
                start = time.perf_counter()
                pdag = learner(data, test, alpha)
                label = f"bnfs {learner.__name__}" + (" (MI>0.01)" if test != "g2" else "")
                row(
                    name,
                    alpha,
                    label,
                    time.perf_counter() - start,
                    pdag,
                    truth,
                    pdag.learning["n_tests"],
                    base,
                )
            for target in TARGETS.get(name, []):
                if target in data:
                    local_learners(name, alpha, data, truth, target, args.peer_timeout)


def local_learners(name, alpha, data, truth, target, timeout):
    codes = np.ascontiguousarray(data.codes.astype(np.int64))
    t = data.names.index(target)
    for learner in (
        bnfs.constraint.iamb_mb,
        bnfs.constraint.fast_iamb_mb,
        bnfs.constraint.hiton_mb,
        bnfs.constraint.mmmb,
        bnfs.constraint.pcmb,
    ):
        start = time.perf_counter()
        mb = learner(data, target, "g2", alpha)
        ours = time.perf_counter() - start
        f1 = blanket_scores(mb, truth, target)["f1"]
        print(
            f"{name:<11}{alpha:<6}{'bnfs ' + learner.__name__ + ' ' + target:<34}"
            f"{ours:>9.3f}   MB F1 {f1:.2f}",
            flush=True,
        )
        if learner.__name__ not in PYCAUSALFS:
            continue
        result = pycausalfs_mb(learner.__name__, codes, t, alpha, timeout)
        label = f"pycausalfs {PYCAUSALFS[learner.__name__][1]} {target}"
        if result is None:
            print(
                f"{name:<11}{alpha:<6}{label:<34}{'timeout':>9} (> {timeout:.0f} s, "
                f"> {timeout / ours:.0f}x)",
                flush=True,
            )
            continue
        seconds, found, n_tests = result
        f1 = blanket_scores([data.names[i] for i in found], truth, target)["f1"]
        print(
            f"{name:<11}{alpha:<6}{label:<34}{seconds:>9.3f}   MB F1 {f1:.2f}  "
            f"{n_tests} tests  {seconds / ours:.0f}x bnfs's time",
            flush=True,
        )


if __name__ == "__main__":
    main()
