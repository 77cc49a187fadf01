"""Real data: continuous, mixed and incomplete, bnfs beside bnlearn-port (R bnlearn 5.2.1's
code) and pgmpy in one process.

``gaussian``: linear-Gaussian hill climbing and tabu search on samples of the Gaussian
networks pgmpy ships; bnfs with bnlearn's variance convention (``bic-g-bnlearn``, bnlearn's
tie order) against bnlearn's ``hc``/``tabu`` with ``bic-g``.

``mixed``: conditional-Gaussian hill climbing and tabu search (``bic-cg-bnlearn`` against
bnlearn's ``bic-cg``) on random CG networks of 15 discrete and 25 continuous nodes
(:func:`bnfs.random_cg_network`), then PC-stable with ``mi_cg`` (bnlearn-port's pc.stable
has no mi-cg) and pgmpy's hill climbing with its ``bic-cg`` on the 10-node survey network.

For both: whether the arcs are equal, both scores (bnfs's scorer, which equals bnlearn's
``score``), CPDAG SHD to the true network, bnfs cold (first call, JIT compilation included)
and warm seconds, the peer's seconds and the ratio peer / bnfs warm.

``missing``: alarm with 10% and 30% of the values removed completely at random (MCAR) and at
random given VENTLUNG (MAR): bnfs's structural EM against bnlearn's ``structural.em`` (hc,
its defaults), hill climbing after dropna, hill climbing on the complete sample, PC-stable
with available-case tests against PC-stable after dropna: SHD, seconds, rows used.

    python benchmarks/real_data.py [--parts gaussian mixed missing]
                                   [--networks ecoli70 magic-niab magic-irri arth150]
                                   [--rows 1000 5000] [--seed 1] [--repeat 3]
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings

import numpy as np

import bnfs


def _sample(name: str, rows: int, seed: int):
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = get_example_model(name)
        frame = model.simulate(n_samples=rows, seed=seed)
    return frame[sorted(frame.columns)], bnfs.DAG(list(model.nodes()), list(model.edges()))


def _best(run, repeat: int):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return result, best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--parts", nargs="+", default=["gaussian", "mixed", "missing"], choices=PARTS
    )
    parser.add_argument(
        "--networks", nargs="+", default=["ecoli70", "magic-niab", "magic-irri", "arth150"]
    )
    parser.add_argument("--rows", nargs="+", type=int, default=[1000, 5000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    for part in args.parts:
        print(f"\n== {part} ==")
        PARTS[part](args)


def _their_dag(pybnlearn, fitted, columns) -> bnfs.DAG:
    arcs = pybnlearn.arcs(fitted)
    rows_ = arcs.itertuples(index=False) if hasattr(arcs, "itertuples") else arcs
    return bnfs.DAG(list(columns), sorted({tuple(map(str, r)) for r in rows_}))


def _score_searches(cases, ours_score: str, their_score: str, repeat: int) -> None:
    """hc and tabu, bnfs (bnlearn's convention and tie order) beside bnlearn-port."""
    import pybnlearn

    print(
        f"{'case':<17}{'search':<6}{'same':>6}{'bnfs score':>14}"
        f"{'bnlearn score':>15}{'SHD':>5}{'cold s':>8}{'warm s':>8}{'bnlearn s':>10}"
        f"{'ratio':>7}"
    )
    ratios = []
    for label, frame, truth in cases:
        for search in ("hc", "tabu"):
            learner = bnfs.hill_climbing if search == "hc" else bnfs.tabu_search
            ours = functools.partial(
                learner, frame, ours_score, scan_order="columns", progress=False
            )
            start = time.perf_counter()
            ours()
            cold = time.perf_counter() - start
            dag, warm = _best(ours, repeat)
            fitted, seconds = _best(
                functools.partial(getattr(pybnlearn, search), frame, score=their_score), repeat
            )
            their_dag = _their_dag(pybnlearn, fitted, frame.columns)
            ratio = seconds / warm
            ratios.append(ratio)
            print(
                f"{label:<17}{search:<6}{str(set(dag.arcs) == set(their_dag.arcs)):>6}"
                f"{bnfs.score(dag, frame, ours_score):>14.3f}"
                f"{bnfs.score(their_dag, frame, ours_score):>15.3f}"
                f"{bnfs.shd(dag.cpdag(), truth.cpdag()):>5}{cold:>8.3f}{warm:>8.3f}"
                f"{seconds:>10.3f}{ratio:>6.1f}x",
                flush=True,
            )
    print(f"bnlearn-port / bnfs warm seconds: min {min(ratios):.1f}x, max {max(ratios):.1f}x")


def gaussian_part(args) -> None:
    cases = []
    for name in args.networks:
        for rows in args.rows:
            frame, truth = _sample(name, rows, args.seed)
            cases.append((f"{name}-{rows}", frame, truth))
    _score_searches(cases, "bic-g-bnlearn", "bic-g", args.repeat)


def mixed_part(args) -> None:
    cases = []
    for network_seed in (0, 1):
        net = bnfs.random_cg_network(seed=network_seed)
        for rows in args.rows:
            frame = net.sample(rows, seed=args.seed + 10 * network_seed)
            cases.append((f"cg40/{network_seed}-{rows}", frame, net.dag))
    _score_searches(cases, "bic-cg-bnlearn", "bic-cg", args.repeat)
    print(f"\n{'case':<17}{'learner':<24}{'SHD':>5}{'seconds':>9}")
    for label, frame, truth in cases:
        start = time.perf_counter()
        pdag = bnfs.pc_stable(frame, "mi_cg")
        seconds = time.perf_counter() - start
        print(
            f"{label:<17}{'bnfs pc_stable mi_cg':<24}{bnfs.shd(pdag, truth.cpdag()):>5}"
            f"{seconds:>9.2f}",
            flush=True,
        )
    # pgmpy's conditional-Gaussian hill climbing takes minutes on 40 nodes: the survey
    from pgmpy.estimators import HillClimbSearch

    net = bnfs.datasets.survey_network()
    frame = net.sample(1000, seed=args.seed)
    bnfs.hill_climbing(frame, "bic-cg", progress=False)
    ours, warm = _best(lambda: bnfs.hill_climbing(frame, "bic-cg", progress=False), args.repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model = HillClimbSearch(frame).estimate(scoring_method="bic-cg", show_progress=False)
        seconds = time.perf_counter() - start
    theirs = bnfs.DAG(list(frame.columns), [tuple(map(str, e)) for e in model.edges()])
    print(
        f"survey-1000      bnfs hc bic-cg {bnfs.shd(ours.cpdag(), net.dag.cpdag())} SHD "
        f"{warm:.4f} s; pgmpy hc bic-cg {bnfs.shd(theirs.cpdag(), net.dag.cpdag())} SHD "
        f"{seconds:.2f} s; ratio {seconds / warm:.0f}x",
        flush=True,
    )


def _holes(frame, rate: float, pattern: str, seed: int):
    """MCAR: each value missing with probability ``rate``; MAR: twice as often when
    VENTLUNG is at its first level, half as often otherwise (VENTLUNG always observed)."""
    rng = np.random.default_rng(seed)
    if pattern == "mcar":
        return frame.mask(rng.random(frame.shape) < rate)
    first = (frame["VENTLUNG"] == frame["VENTLUNG"].cat.categories[0]).to_numpy()
    holes = rng.random(frame.shape) < np.where(first, 2 * rate, 0.5 * rate)[:, None]
    holes[:, list(frame.columns).index("VENTLUNG")] = False
    return frame.mask(holes)


def missing_part(args) -> None:
    import pybnlearn

    truth = bnfs.datasets.network("alarm").cpdag()
    frame = bnfs.datasets.sample("alarm", 5000, seed=args.seed)
    complete = bnfs.shd(bnfs.hill_climbing(frame, progress=False).cpdag(), truth)
    complete_pc = bnfs.shd(bnfs.pc_stable(frame, progress=False), truth)
    print(f"alarm-5000 complete: hc SHD {complete}, pc_stable SHD {complete_pc}")
    print(
        f"{'case':<10}{'dropna rows':>12}{'bnfs SEM':>9}{'s':>7}{'bnlearn SEM':>12}{'s':>8}"
        f"{'dropna hc':>10}{'pc avail':>9}{'s':>7}{'rows/test':>10}{'pc dropna':>10}"
    )
    for pattern in ("mcar", "mar"):
        for rate in (0.1, 0.3):
            holes = _holes(frame, rate, pattern, args.seed)
            kept = holes.dropna()
            start = time.perf_counter()
            ours = bnfs.structural_em(holes, progress=False)
            sem_s = time.perf_counter() - start
            start = time.perf_counter()
            try:
                theirs = _their_dag(pybnlearn, pybnlearn.structural_em(holes), frame.columns)
                theirs_shd = str(bnfs.shd(theirs.cpdag(), truth))
            except Exception as error:  # bnlearn-port's likelihood weighting can fail
                theirs_shd = type(error).__name__[:11]
            bn_s = time.perf_counter() - start
            try:
                drop_hc = str(bnfs.shd(bnfs.hill_climbing(kept, progress=False).cpdag(), truth))
            except ValueError:  # too few rows left: an empty or constant column
                drop_hc = "-"
            start = time.perf_counter()
            pc = bnfs.pc_stable(holes, progress=False)
            pc_s = time.perf_counter() - start
            try:
                drop_pc = str(bnfs.shd(bnfs.pc_stable(kept, progress=False), truth))
            except ValueError:  # too few rows left: a constant column
                drop_pc = "-"
            print(
                f"{pattern} {int(rate * 100)}%  {len(kept):>10}"
                f"{bnfs.shd(ours.cpdag(), truth):>9}{sem_s:>7.2f}{theirs_shd:>12}{bn_s:>8.1f}"
                f"{drop_hc:>10}{bnfs.shd(pc, truth):>9}{pc_s:>7.1f}"
                f"{pc.learning['rows_used']['median']:>10.0f}{drop_pc:>10}",
                flush=True,
            )


PARTS = {"gaussian": gaussian_part, "mixed": mixed_part, "missing": missing_part}


if __name__ == "__main__":
    main()
