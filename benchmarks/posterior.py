"""How sure each arc is: ``bnfs.structure_posterior`` (order MCMC) against the bootstrap
(``bnfs.boot_strength`` with ``learn``), on samples of pgmpy's networks, side by side.

For each case (network, rows, seed) both run on the same rows; each gives every ordered pair
of nodes a probability of the arc ``u -> v`` (the posterior's; the bootstrap's strength times
direction) and every unordered pair a probability of being linked (strength). Printed:

- calibration, pooled over the cases: pairs whose probability falls in each 0.1-wide bin, and
  the share of them that are linked (or arcs) in the true network;
- ranking: the average precision (area under the precision-recall curve) of the true arcs
  and the true links among all pairs ranked by probability, per case and pooled;
- time: seconds of each, warm (a first run of each compiles the kernels, not timed), and the
  posterior's timing of its search space, tables and chains;
- the median-probability graph's SHD to the true CPDAG beside ``learn``'s.

Targets (issue 62): calibration within 0.1 of each bin; a higher average precision than
``boot_strength(R=100)`` with ``learn`` at >= 10 times less time.

    python benchmarks/posterior.py [--networks asia child ...] [--rows 1000] [--R 100]
    python benchmarks/posterior.py --scale win95pts --rows 5000   # one 76-node case, timed
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.metrics import average_precision_score

import bnfs
from bnfs import datasets

NETWORKS = ["asia", "sachs", "child", "insurance", "alarm"]
BINS = np.linspace(0.0, 1.0, 11)


def probabilities(frame, method: str, R: int, seed: int, n_jobs: int):
    """(arc probabilities n x n, link probabilities n x n, seconds, details) in frame's
    column order."""
    names = list(frame.columns)
    index = {v: i for i, v in enumerate(names)}
    start = time.perf_counter()
    details = {}
    if method == "posterior":
        post = bnfs.structure_posterior(frame, seed=seed, n_jobs=n_jobs, progress=False)
        arcs = post.probabilities[
            np.ix_([post.nodes.index(v) for v in names], [post.nodes.index(v) for v in names])
        ]
        details = {
            "timing": {k: round(v, 2) for k, v in post.learning["timing"].items()},
            "max_difference": post.learning["max_difference"],
            "median": post.median_graph(),
        }
    else:
        strength = bnfs.boot_strength(
            frame, "learn", R=R, seed=seed, n_jobs=n_jobs, learner_options={"progress": False}
        )
        arcs = np.zeros((len(names), len(names)))
        for u, v, s, d in strength[["from", "to", "strength", "direction"]].itertuples(index=False):
            arcs[index[u], index[v]] = s * d
    seconds = time.perf_counter() - start
    return arcs, np.clip(arcs + arcs.T, 0, 1), seconds, details


def truth_matrices(truth, names):
    index = {v: i for i, v in enumerate(names)}
    arcs = np.zeros((len(names), len(names)), dtype=bool)
    for u, v in truth.arcs:
        arcs[index[u], index[v]] = True
    return arcs, arcs | arcs.T


def calibration(predicted: np.ndarray, actual: np.ndarray) -> list[dict]:
    rows = []
    which = np.clip(np.digitize(predicted, BINS[1:-1]), 0, 9)
    for b in range(10):
        inside = which == b
        if inside.sum():
            rows.append(
                {
                    "bin": f"{BINS[b]:.1f}-{BINS[b + 1]:.1f}",
                    "pairs": int(inside.sum()),
                    "mean": float(predicted[inside].mean()),
                    "true": float(actual[inside].mean()),
                }
            )
    return rows


def run_cases(networks, rows, seeds, R, n_jobs):
    results = []
    warmed = set()
    for name in networks:
        for seed in seeds:
            frame = datasets.sample(name, rows, seed=seed)
            frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
            names = list(frame.columns)
            truth = datasets.network(name).subgraph(names)
            true_arcs, true_links = truth_matrices(truth, names)
            off = ~np.eye(len(names), dtype=bool)
            upper = np.triu(off)
            case = {"case": f"{name}/{rows}/{seed}", "nodes": len(names)}
            for method in ("posterior", "bootstrap"):
                if method not in warmed:  # compile outside the timing
                    small = datasets.sample("asia", 300, seed=0)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        probabilities(small, method, 2, 0, n_jobs)
                    warmed.add(method)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    arcs, links, seconds, details = probabilities(frame, method, R, seed, n_jobs)
                case[method] = {
                    "seconds": round(seconds, 2),
                    "ap_arcs": float(average_precision_score(true_arcs[off], arcs[off])),
                    "ap_links": float(average_precision_score(true_links[upper], links[upper])),
                    "arcs": arcs[off].tolist(),
                    "links": links[upper].tolist(),
                    "true_arcs": true_arcs[off].tolist(),
                    "true_links": true_links[upper].tolist(),
                }
                if "median" in details:
                    case[method]["median_shd"] = int(bnfs.shd(details.pop("median"), truth))
                    case["learn_shd"] = int(bnfs.shd(bnfs.learn(frame, progress=False), truth))
                case[method].update(details)
            results.append(case)
            p, b = case["posterior"], case["bootstrap"]
            print(
                f"{case['case']:<22} {case['nodes']:>3} nodes | AP arcs {p['ap_arcs']:.3f} vs "
                f"{b['ap_arcs']:.3f}, links {p['ap_links']:.3f} vs {b['ap_links']:.3f} | "
                f"{p['seconds']:.1f} s vs {b['seconds']:.1f} s ({b['seconds'] / p['seconds']:.1f}x) | "
                f"median SHD {p['median_shd']} (learn {case['learn_shd']}) | chains within "
                f"{p['max_difference']:.3f}",
                flush=True,
            )
    return results


def summary(results) -> None:
    for method in ("posterior", "bootstrap"):
        for kind in ("arcs", "links"):
            predicted = np.concatenate([r[method][kind] for r in results])
            actual = np.concatenate([r[method][f"true_{kind}"] for r in results]).astype(float)
            pooled = average_precision_score(actual, predicted)
            rows = calibration(predicted, actual)
            ece = sum(r["pairs"] * abs(r["true"] - r["mean"]) for r in rows) / len(predicted)
            middle = [r for r in rows if 0.1 <= r["mean"] < 0.9]
            mid = sum(r["pairs"] * abs(r["true"] - r["mean"]) for r in middle) / max(
                sum(r["pairs"] for r in middle), 1
            )
            print(
                f"\n{method}, {kind}: pooled average precision {pooled:.3f}; calibration error "
                f"{ece:.4f} over all pairs, {mid:.3f} over the pairs between 0.1 and 0.9"
            )
            print(f"  {'bin':<8} {'pairs':>7} {'mean p':>7} {'true':>6} {'gap':>6}")
            for row in rows:
                gap = row["true"] - row["mean"]
                flag = "" if abs(gap) <= 0.1 else "  <- off by more than 0.1"
                print(
                    f"  {row['bin']:<8} {row['pairs']:>7} {row['mean']:>7.3f} {row['true']:>6.3f} "
                    f"{gap:>+6.3f}{flag}"
                )
    post = sum(r["posterior"]["seconds"] for r in results)
    boot = sum(r["bootstrap"]["seconds"] for r in results)
    print(f"\ntime: posterior {post:.1f} s, bootstrap {boot:.1f} s: {boot / post:.1f}x")
    ap = [(r["posterior"]["ap_arcs"], r["bootstrap"]["ap_arcs"]) for r in results]
    wins = sum(p > b for p, b in ap)
    print(f"arc AP: posterior higher on {wins} of {len(ap)} cases")
    shd = sum(r["posterior"]["median_shd"] for r in results)
    learn = sum(r["learn_shd"] for r in results)
    print(f"median-probability graph SHD total {shd} against learn's {learn}")


def scale(name: str, rows: int, n_jobs: int) -> None:
    """One large case: the posterior's time, warm, by phase."""
    frame = datasets.sample(name, rows, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bnfs.structure_posterior(datasets.sample("asia", 300, seed=0), progress=False)
        start = time.perf_counter()
        post = bnfs.structure_posterior(frame, seed=0, n_jobs=n_jobs, progress=False)
    seconds = time.perf_counter() - start
    print(
        f"{name}, {rows} rows, {frame.shape[1]} nodes, n_jobs={n_jobs}: {seconds:.1f} s "
        f"({', '.join(f'{k} {v:.1f} s' for k, v in post.learning['timing'].items())}); "
        f"{post.learning['arguments']['chains']} chains x {post.learning['arguments']['steps']:,} "
        f"steps; {post.learning['parent_sets']:,} parent sets scored; chains within "
        f"{post.learning['max_difference']:.3f}"
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=NETWORKS)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--seeds", nargs="+", type=int, default=[1])
    parser.add_argument("--R", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--scale", help="time one network instead (e.g. win95pts)")
    parser.add_argument("--json", help="write the per-case results here")
    args = parser.parse_args(argv)
    if args.scale:
        scale(args.scale, args.rows, args.n_jobs)
        return
    results = run_cases(args.networks, args.rows, args.seeds, args.R, args.n_jobs)
    summary(results)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle)


if __name__ == "__main__":
    main()
