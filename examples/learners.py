"""Every structure learner on one sampled network: time, SHD against the true network and
the blanket of a target, so the learners can be compared at a glance.

    python examples/learners.py [--network alarm] [--rows 5000] [--target HYPOVOLEMIA]
"""

from __future__ import annotations

import argparse
import time

import bnfs
from bnfs.stats.metrics import blanket_scores

NETWORK_LEARNERS = {
    "hill_climbing": lambda d: bnfs.hill_climbing(d, "bic"),
    "tabu_search": lambda d: bnfs.tabu_search(d, "bic"),
    "sparse_candidate": lambda d: bnfs.sparse_candidate(d, "bic", k=10),
    "screen_based": lambda d: bnfs.screen_based(d, "bic", theta=4, post_process=100_000, seed=0),
    "pc_stable": lambda d: bnfs.pc_stable(d, "g2", 0.01),
    "tpda": lambda d: bnfs.tpda(d),
    "grow_shrink": lambda d: bnfs.grow_shrink(d, "g2", 0.01),
    "iamb": lambda d: bnfs.iamb(d, "g2", 0.01),
    "inter_iamb": lambda d: bnfs.inter_iamb(d, "g2", 0.01),
    "fast_iamb": lambda d: bnfs.fast_iamb(d, "g2", 0.01),
}
LOCAL_LEARNERS = (
    "grow_shrink_mb",
    "iamb_mb",
    "inter_iamb_mb",
    "fast_iamb_mb",
    "kiamb_mb",
    "hiton_mb",
    "mmmb",
    "pcmb",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", default="alarm")
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--target", default="HYPOVOLEMIA")
    args = parser.parse_args()
    truth = bnfs.datasets.network(args.network)
    data = bnfs.Dataset(bnfs.datasets.sample(args.network, args.rows, seed=0))
    print(
        f"{args.network}: {args.rows} rows, {truth.n_nodes} nodes, {truth.n_arcs} arcs; "
        f"blanket of {args.target}: {truth.markov_blanket(args.target)}"
    )
    print("(the first call of each kernel includes numba compilation unless cached)")
    print(f"{'learner':18} {'seconds':>8} {'SHD':>5} {'blanket F1':>10}")
    for name, learn in NETWORK_LEARNERS.items():
        start = time.perf_counter()
        graph = learn(data)
        seconds = time.perf_counter() - start
        f1 = blanket_scores(graph, truth, args.target)["f1"]
        print(f"{name:18} {seconds:8.2f} {bnfs.shd(graph, truth):5d} {f1:10.2f}", flush=True)
    for name in LOCAL_LEARNERS:
        start = time.perf_counter()
        found = bnfs.learners.get(name).function(data, args.target, "g2", 0.01)
        seconds = time.perf_counter() - start
        f1 = blanket_scores(found, truth, args.target)["f1"]
        print(f"{name:18} {seconds:8.2f} {'-':>5} {f1:10.2f}", flush=True)


if __name__ == "__main__":
    main()
