"""How well ``bnfs.learn`` could pick among its candidates, beside the oracle, in one run:
the study behind its default (BOSS alone).

For each case of the quality suite (``benchmarks/quality.py``'s samples: columns shuffled),
every candidate of ``bnfs.search.automatic.COMPARED`` is run on all the rows as ``learn``
would run it as the winner (``boss``: what ``learn`` runs by default), and its CPDAG
compared with the true network. Printed per case: each
candidate's SHD, the candidate ``learn`` chose (by held-out log-likelihood) and its SHD, the
oracle (the candidate with the least SHD, which needs the truth) and the candidate with the
highest BDeu + vsp score on all the rows (the score the permutation searches maximise);
then the mean SHD of every rule and of each candidate alone.

    python benchmarks/learn_rule.py [--networks asia child ...] [--rows 1000 5000] [--seeds 0 1]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np
from quality import NETWORKS, sample

import bnfs
from bnfs.search import automatic


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=NETWORKS[:6])
    parser.add_argument("--rows", nargs="+", type=int, default=[1000, 5000])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    args = parser.parse_args(argv)
    candidates = list(automatic.COMPARED)
    shd: dict[str, list[float]] = defaultdict(list)
    seconds: dict[str, float] = defaultdict(float)
    print(
        f"{'case':<22}"
        + "".join(f"{c:>11}" for c in candidates)
        + "   learn picks   oracle   BDe picks"
    )
    for name in args.networks:
        for rows in args.rows:
            for seed in args.seeds:
                frame, truth = sample(name, rows, seed)
                data = bnfs.Dataset(frame)
                scorer = bnfs.Scorer(data, "bde", prior="vsp")
                found, value = {}, {}
                for candidate in candidates:
                    started = time.perf_counter()
                    dag = automatic._run(candidate, data, {}, seed=0, final=True)
                    seconds[candidate] += time.perf_counter() - started
                    found[candidate] = bnfs.shd(dag, truth)
                    value[candidate] = scorer.total(dag)
                    shd[candidate].append(found[candidate])
                started = time.perf_counter()
                chosen = bnfs.learn(data, candidates=candidates, progress=False)
                seconds["learn"] += time.perf_counter() - started
                picked = chosen.learning["chosen"]
                shd["learn (held-out likelihood)"].append(bnfs.shd(chosen, truth))
                oracle = min(found, key=found.get)
                shd["oracle"].append(found[oracle])
                by_score = max(value, key=value.get)
                shd["highest BDe + vsp"].append(found[by_score])
                case = f"{name}-{rows}-s{seed}"
                print(
                    f"{case:<22}"
                    + "".join(f"{found[c]:>11}" for c in candidates)
                    + f"   {picked:>9} {shd['learn (held-out likelihood)'][-1]:>3}"
                    + f"   {found[oracle]:>6}   {by_score:>9}",
                    flush=True,
                )
    print(f"\n{'rule or learner':<30}{'mean SHD':>9}{'seconds':>9}")
    for label, values in shd.items():
        key = "learn" if label.startswith("learn") else label
        print(f"{label:<30}{np.mean(values):>9.1f}{seconds.get(key, float('nan')):>9.1f}")


if __name__ == "__main__":
    main()
