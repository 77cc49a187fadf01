"""Quality of the constraint-based answers users get by default, bnfs beside its peers.

For each network, rows and seed: rows sampled from pgmpy's shipped network, constant columns
dropped, columns shuffled (``quality.sample``). Everyone at their default alpha (0.05 unless
``--alpha``) and default test.

Networks: bnfs ``pc_stable`` (default: adjusted df, colliders by evidence), ``pc_stable`` with
``orientation="bnlearn"``, ``grow_shrink``, ``iamb`` and ``tpda``; causal-learn's PC (stable,
G^2); bnlearn-port's ``pc.stable`` with ``mi`` and ``mi-adf``, ``gs`` and ``iamb``. Printed per
case: CPDAG SHD to the true network, skeleton F1 and warm seconds; then the mean SHD per
learner and network, whether bnfs's default PC is at least as good as the best peer, and
causal-learn's seconds over bnfs's.

Blankets: the ``--targets`` nodes with the largest true blankets, bnfs's local learners
beside bnlearn's ``learn.mb`` (iamb, inter.iamb) and, unless ``--no-pycausalfs``, pycausalfs's
HITON-MB, IAMB and MMMB (in a subprocess, ``--peer-timeout`` seconds each): mean blanket F1
and seconds per learner and network.

    python benchmarks/constraint_quality.py [--networks asia child ...] [--rows 1000 5000]
        [--seeds 1 2] [--targets 5] [--no-pycausalfs]

``--tests-by-size`` instead measures what chose ``pc_stable``'s default test: total SHD of
pc_stable (alpha 0.01) with g2, g2 with adjusted df, mi_adf and x2 with adjusted df, summed
over the networks and seeds, per sample size (200 to 50,000 rows).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import defaultdict

import numpy as np
from constraint_based import pycausalfs_mb
from quality import _causallearn_pc, sample

import bnfs
from bnfs import shd
from bnfs.stats.metrics import blanket_scores, skeleton_scores

warnings.filterwarnings("ignore")  # the peers are noisy about their own deprecations

NETWORKS = ["asia", "child", "insurance", "alarm", "hailfinder", "hepar2", "win95pts", "andes"]


def _bnlearn(algorithm: str, test: str):
    import pybnlearn

    def learn(frame, alpha):
        learned = getattr(pybnlearn, algorithm)(frame.astype("category"), test=test, alpha=alpha)
        arcs = pybnlearn.arcs(learned)
        rows = arcs.itertuples(index=False) if hasattr(arcs, "itertuples") else arcs
        both = {tuple(map(str, r)) for r in rows}
        pdag = bnfs.PDAG(frame.columns)
        for u, v in sorted(both):
            if (v, u) in both:
                if not pdag.is_adjacent(u, v):
                    pdag.add_edge(u, v)
            else:
                pdag.add_arc(u, v)
        return pdag

    return learn


def network_learners() -> dict:
    return {
        "bnfs pc_stable": lambda f, a: bnfs.pc_stable(f, alpha=a),
        "bnfs pc_stable[bnlearn]": lambda f, a: bnfs.pc_stable(f, alpha=a, orientation="bnlearn"),
        "bnfs grow_shrink": lambda f, a: bnfs.grow_shrink(f, alpha=a),
        "bnfs iamb": lambda f, a: bnfs.iamb(f, alpha=a),
        "bnfs tpda": lambda f, a: bnfs.tpda(f),
        "causal-learn pc": lambda f, a: _causallearn_pc(f, a),
        "bnlearn pc.stable mi": _bnlearn("pc_stable", "mi"),
        "bnlearn pc.stable mi-adf": _bnlearn("pc_stable", "mi-adf"),
        "bnlearn gs": _bnlearn("gs", "mi"),
        "bnlearn iamb": _bnlearn("iamb", "mi"),
    }


def blanket_learners() -> dict:
    import pybnlearn

    def learn_mb(method):
        return lambda f, t, a: [
            str(v)
            for v in pybnlearn.learn_mb(f.astype("category"), t, method=method, test="mi", alpha=a)
        ]

    return {
        "bnfs hiton_mb": lambda f, t, a: bnfs.constraint.hiton_mb(f, t, alpha=a),
        "bnfs mmmb": lambda f, t, a: bnfs.constraint.mmmb(f, t, alpha=a),
        "bnfs iamb_mb": lambda f, t, a: bnfs.constraint.iamb_mb(f, t, alpha=a),
        "bnfs pcmb": lambda f, t, a: bnfs.constraint.pcmb(f, t, alpha=a),
        "bnlearn learn.mb iamb": learn_mb("iamb"),
        "bnlearn learn.mb inter.iamb": learn_mb("inter.iamb"),
    }


def timed(function, *args):
    function(*args)  # warm: JIT and the peers' caches
    start = time.perf_counter()
    out = function(*args)
    return time.perf_counter() - start, out


def tests_by_size(networks, seeds) -> None:
    options = {
        "g2": {"test": "g2", "adjust_df": False},
        "g2 adjusted": {"test": "g2"},
        "mi_adf": {"test": "mi_adf"},
        "x2 adjusted": {"test": "x2", "adjust_df": True},
    }
    print(f"{'rows':>6}" + "".join(f"{k:>14}" for k in options))
    for rows in (200, 500, 1000, 5000, 20000, 50000):
        total = defaultdict(int)
        for name in networks:
            for seed in seeds:
                frame, truth = sample(name, rows, seed)
                for label, kw in options.items():
                    total[label] += shd(bnfs.pc_stable(frame, alpha=0.01, **kw), truth)
        print(f"{rows:>6}" + "".join(f"{total[k]:>14}" for k in options), flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=NETWORKS)
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--targets", type=int, default=5)
    parser.add_argument("--no-pycausalfs", action="store_true")
    parser.add_argument("--peer-timeout", type=float, default=300)
    parser.add_argument("--tests-by-size", action="store_true")
    args = parser.parse_args(argv)
    if args.tests_by_size:
        networks = [n for n in args.networks if n not in ("asia", "andes")]
        return tests_by_size(networks, args.seeds)
    shds, seconds = defaultdict(list), defaultdict(list)
    f1s, mb_seconds = defaultdict(list), defaultdict(list)
    print(f"{'case':<22}{'learner':<28}{'SHD':>6}{'skelF1':>8}{'seconds':>9}")
    for name in args.networks:
        for rows in args.rows:
            for seed in args.seeds:
                frame, truth = sample(name, rows, seed)
                case = f"{name}-{rows}-{seed}"
                for learner, learn in network_learners().items():
                    took, pdag = timed(learn, frame, args.alpha)
                    shds[name, learner].append(shd(pdag, truth))
                    seconds[name, learner].append(took)
                    print(
                        f"{case:<22}{learner:<28}{shds[name, learner][-1]:>6}"
                        f"{skeleton_scores(pdag, truth)['f1']:>8.3f}{took:>9.3f}",
                        flush=True,
                    )
                targets = sorted(frame.columns, key=lambda v: (-len(truth.markov_blanket(v)), v))
                codes = bnfs.Dataset(frame).codes.astype(np.int64)
                for target in targets[: args.targets]:
                    for learner, learn in blanket_learners().items():
                        took, found = timed(learn, frame, target, args.alpha)
                        f1s[name, learner].append(blanket_scores(found, truth, target)["f1"])
                        mb_seconds[name, learner].append(took)
                    if args.no_pycausalfs:
                        continue
                    for learner in ("hiton_mb", "iamb_mb", "mmmb"):
                        out = pycausalfs_mb(
                            learner,
                            codes,
                            list(frame.columns).index(target),
                            args.alpha,
                            args.peer_timeout,
                        )
                        key = (name, f"pycausalfs {learner}")
                        if out is None:
                            f1s[key].append(float("nan"))
                            continue
                        found = [frame.columns[i] for i in out[1]]
                        f1s[key].append(blanket_scores(found, truth, target)["f1"])
                        mb_seconds[key].append(out[0])
    print("\nMean CPDAG SHD (seconds) per network")
    learners = list(network_learners())
    for name in args.networks:
        print(f"\n{name}")
        for learner in learners:
            print(
                f"  {learner:<28}{np.mean(shds[name, learner]):>8.1f}"
                f"{np.mean(seconds[name, learner]):>10.3f}s"
            )
        ours = np.mean(shds[name, "bnfs pc_stable"])
        peers = {
            p: np.mean(shds[name, p]) for p in learners if not p.startswith("bnfs") and "pc" in p
        }
        best = min(peers, key=peers.get)
        speed = np.mean(seconds[name, "causal-learn pc"]) / np.mean(seconds[name, "bnfs pc_stable"])
        print(
            f"  bnfs pc_stable {ours:.1f} vs best PC peer {best} {peers[best]:.1f}: "
            f"{'met' if ours <= peers[best] else 'MISSED'}; causal-learn/bnfs seconds "
            f"{speed:.1f}x"
        )
    print("\nMean blanket F1 (seconds) per network")
    for name in args.networks:
        print(f"\n{name}")
        keys = sorted({k for n, k in f1s if n == name})
        for learner in keys:
            values = np.asarray(f1s[name, learner], dtype=float)
            took = np.mean(mb_seconds[name, learner]) if mb_seconds[name, learner] else np.nan
            print(
                f"  {learner:<28}{np.nanmean(values):>8.3f}{took:>10.3f}s"
                f"{'' if not np.isnan(values).any() else '  (some timed out)'}"
            )


if __name__ == "__main__":
    main()
