"""Structure learning from data with gaps, beside the same rows complete, in one run.

Samples of pgmpy's alarm, insurance, child and hailfinder (discrete), ecoli70 and
magic-niab (linear Gaussian) and two random conditional-Gaussian networks
(:func:`bnfs.random_cg_network`: ``cg-14``, 6 discrete and 8 continuous nodes; ``cg-40``, 15
and 25), with values removed three ways:

* ``mcar``: every cell of every column missing with probability ``rate``;
* ``mar``: half the columns (drawn per case) stay complete; each other column is missing
  four times as often where a complete "driver" column (drawn per column) is in its upper
  half as elsewhere, ``rate`` of its cells in all (missing at random: the gaps depend on
  observed values);
* ``mnar``: as ``mar``, but each column's gaps depend on its own value, three times as
  often in its upper half (mildly not at random).

Learners: ``bnfs.learn`` on the data with gaps (what it does by default), structural EM with
``learn``'s search inside and each E-step (``impute``: posterior modes; ``expected``:
expected counts or means and cross-products), ``bnfs.pc_stable`` on them (available-case tests), ``dropna`` + ``learn`` (only rows without gaps; "-" when fewer
than 50 remain), bnlearn's ``structural.em`` (bnlearn-port, its defaults: hc on bic with
likelihood-weighting imputation; "failed" when it stops with an error) and ``learn`` on the
same rows complete. Printed per case: CPDAG SHD to the true network, the held-out
log-likelihood per row of 2,000 fresh complete rows under each graph with parameters
fitted to the complete training rows (so that it scores the structure alone;
:func:`bnfs.stats.metrics.log_likelihood`), and seconds.

    python benchmarks/missing_data.py [--networks alarm child] [--rows 1000 5000]
        [--rates 0.05 0.1 0.3] [--mechanisms mcar mar mnar] [--seed 1] [--no-bnlearn]
        [--learners "learn (gaps)" "learn (complete)"]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import bnfs
from bnfs.stats.metrics import log_likelihood

NETWORKS = ["alarm", "insurance", "child", "hailfinder", "ecoli70", "magic-niab", "cg-14", "cg-40"]
GAUSSIAN = {"ecoli70", "magic-niab"}
#: conditional-Gaussian networks: name -> (discrete nodes, continuous nodes, seed)
MIXED = {"cg-14": (6, 8, 1), "cg-40": (15, 25, 2)}
HELD_OUT = 2000


def sample(name: str, rows: int, seed: int) -> tuple[pd.DataFrame, bnfs.DAG]:
    """``rows`` forward-sampled rows of network ``name`` and its DAG."""
    if name in MIXED:
        discrete, continuous, network_seed = MIXED[name]
        network = bnfs.random_cg_network(discrete, continuous, seed=network_seed)
        return network.sample(rows, seed=seed), network.dag
    if name not in GAUSSIAN:
        return bnfs.datasets.sample(name, rows, seed=seed), bnfs.datasets.network(name)
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = get_example_model(name)
        frame = model.simulate(n_samples=rows, seed=seed)
    return frame, bnfs.DAG(list(model.nodes()), list(model.edges()))


def _upper_half(column: pd.Series) -> np.ndarray:
    """Rows whose value is in the column's upper half (codes for a categorical column)."""
    values = column.cat.codes.to_numpy() if column.dtype.name == "category" else column
    values = np.asarray(values, dtype=float)
    return values > np.median(values)


def with_gaps(frame: pd.DataFrame, rate: float, mechanism: str, rng) -> pd.DataFrame:
    """``frame`` with values removed by ``mechanism`` (see the module docstring)."""
    out = frame.copy()
    n = len(frame)
    if mechanism == "mcar":
        for c in frame.columns:
            out.loc[rng.random(n) < rate, c] = np.nan
        return out
    columns = list(frame.columns)
    gapped = set(rng.choice(columns, len(columns) // 2, replace=False).tolist())
    complete = [c for c in columns if c not in gapped]
    for c in columns:
        if c not in gapped:
            continue
        if mechanism == "mar":
            high, low = 1.6 * rate, 0.4 * rate
            driver = frame[complete[int(rng.integers(len(complete)))]]
        elif mechanism == "mnar":
            high, low = 1.5 * rate, 0.5 * rate
            driver = frame[c]
        else:
            raise ValueError(f"unknown mechanism {mechanism!r}")
        weight = np.where(_upper_half(driver), high, low)
        p = np.minimum(weight * rate / weight.mean(), 1.0)  # ``rate`` of the column's cells
        out.loc[rng.random(n) < p, c] = np.nan
    return out


def _bnlearn_em(frame: pd.DataFrame) -> bnfs.DAG:
    import pybnlearn

    found = pybnlearn.structural_em(frame)
    return bnfs.DAG(frame.columns, [tuple(map(str, a)) for a in pybnlearn.arcs(found)])


def learners(gaussian: bool) -> dict:
    """Label -> (function of (gapped, complete) returning a graph or None)."""
    out = {
        "learn (gaps)": lambda gaps, full: bnfs.learn(gaps, progress=False),
        "EM impute, learn": lambda gaps, full: bnfs.structural_em(
            gaps, maximize="learn", estep="impute"
        ),
    }
    out["EM expected, learn"] = lambda gaps, full: bnfs.structural_em(
        gaps, maximize="learn", estep="expected"
    )
    out |= {
        "pc_stable (gaps)": lambda gaps, full: bnfs.pc_stable(gaps),
        "dropna + learn": lambda gaps, full: (
            bnfs.learn(gaps.dropna(), progress=False) if len(gaps.dropna()) >= 50 else None
        ),
    }
    if not gaussian:
        try:
            import pybnlearn  # noqa: F401

            out["bnlearn structural.em"] = lambda gaps, full: _bnlearn_em(gaps)
        except ImportError:
            print("bnlearn-port not installed: pip install '.[test]'")
    out["learn (complete)"] = lambda gaps, full: bnfs.learn(full, progress=False)
    return out


def _held_out(graph, train: pd.DataFrame, test: pd.DataFrame) -> float:
    """Log-likelihood per row of ``test`` under ``graph`` (a CPDAG is extended to a DAG)
    with parameters fitted to ``train``."""
    dag = graph if isinstance(graph, bnfs.DAG) else graph.to_dag()
    data = bnfs.Dataset(pd.concat([train, test], ignore_index=True))
    rows = np.arange(len(train) + len(test))
    return log_likelihood(dag, data.take(rows[: len(train)]), data.take(rows[len(train) :]))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=NETWORKS)
    parser.add_argument("--rows", nargs="+", type=int, default=[1000, 5000])
    parser.add_argument("--rates", nargs="+", type=float, default=[0.05, 0.1, 0.3])
    parser.add_argument("--mechanisms", nargs="+", default=["mcar", "mar", "mnar"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-bnlearn", action="store_true", help="skip bnlearn's EM (slow)")
    parser.add_argument(
        "--learners", nargs="+", help="run only these learners (their labels, e.g. 'learn (gaps)')"
    )
    args = parser.parse_args(argv)
    _compile(args.networks)
    print(f"{'case':<34}{'learner':<24}{'SHD':>5}{'held-out':>10}{'seconds':>9}", flush=True)
    for name in args.networks:
        table = learners(name in GAUSSIAN or name in MIXED)
        if args.no_bnlearn:
            table.pop("bnlearn structural.em", None)
        if args.learners:
            unknown = sorted(set(args.learners) - set(table))
            if unknown:
                parser.error(f"unknown learner {unknown[0]!r}; the learners: {list(table)}")
            table = {label: table[label] for label in args.learners}
        for rows in args.rows:
            frame, truth = sample(name, rows + HELD_OUT, args.seed)
            frame = frame[sorted(frame.columns)]
            train, test = frame.iloc[:rows].reset_index(drop=True), frame.iloc[rows:]
            for mechanism in args.mechanisms:
                for rate in args.rates:
                    # not the sampler's stream: the same uniforms would remove exactly the
                    # rare levels that the sampler drew from them
                    rng = np.random.default_rng([args.seed, 1])
                    gaps = with_gaps(train, rate, mechanism, rng)
                    share = gaps.isna().to_numpy().mean()
                    case = f"{name}-{rows}-{mechanism}-{rate:g} ({share:.0%})"
                    for label, run in table.items():
                        _report(case, label, run, gaps, train, test, truth)


def _compile(networks) -> None:
    """Run every learner once on small samples with gaps, so that no timing holds the
    compilation of bnfs's kernels."""
    kinds = {
        ("gaussian" if name in GAUSSIAN else "mixed" if name in MIXED else ""): name
        for name in networks
    }
    for kind, name in kinds.items():
        frame, _ = sample(name if kind else "asia", 300, 0)
        gaps = with_gaps(frame, 0.1, "mcar", np.random.default_rng(0))
        for run in learners(bool(kind)).values():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run(gaps, frame)


def _report(case, label, run, gaps, train, test, truth) -> None:
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph = run(gaps, train)
    except Exception as error:  # noqa: BLE001  (a peer that fails is a result here)
        print(f"{case:<34}{label:<24}  failed: {str(error)[:60]}", flush=True)
        return
    seconds = time.perf_counter() - started
    if graph is None:
        print(f"{case:<34}{label:<24}{'-':>5}{'-':>10}{seconds:>9.1f}", flush=True)
        return
    shd = bnfs.shd(graph, truth)
    try:
        fit = f"{_held_out(graph, train, test):>10.3f}"
    except ValueError:  # a CPDAG of mixed data whose extension gives a discrete node a
        fit = f"{'-':>10}"  # continuous parent: no conditional-Gaussian network to fit
    print(f"{case:<34}{label:<24}{shd:>5}{fit}{seconds:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
