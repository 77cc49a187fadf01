"""The sparse-candidate algorithm (Friedman, Nachman & Pe'er 1999), as Shen et al. use it."""

from __future__ import annotations

import logging

import numpy as np

from bnfs._budget import Budget
from bnfs._kernels import hill_climbing as _hc
from bnfs._progress import tqdm
from bnfs._real_data import takes_real_data
from bnfs._validate import check_int, check_seed
from bnfs.graphs.graph import DAG
from bnfs.search._climbing import climb, prepare
from bnfs.search._state import SearchState
from bnfs.search.post_process import random_post_process
from bnfs.stats.scores import ScoreName

__all__ = ["sparse_candidate"]

logger = logging.getLogger("bnfs")


def select_candidates(state: SearchState, k: int, progress=None) -> list[np.ndarray]:
    """Per node: its current parents plus the best of the others by the score gain of
    adding them to the current graph, k in all (Friedman et al.'s restrict step)."""
    gains = np.empty(state.n)
    out = []
    for v in tqdm(
        range(state.n), desc="choosing candidates", unit=" nodes", disable=progress, leave=False
    ):
        _hc.add_gains(state.scoring, state.scratch, state.graph, v, gains)
        for u in range(state.n):
            if state.forbidden(u, v):
                gains[u] = -np.inf
        parents = state.current_parents(v)
        room = max(k - parents.size, 0)
        allowed = np.flatnonzero(np.isfinite(gains))
        if room and allowed.size:
            # best first, ties in scan order
            take = allowed[np.lexsort((state.rank[allowed], -gains[allowed]))][:room]
        else:
            take = np.zeros(0, dtype=np.int64)
        out.append(np.concatenate([parents, take]).astype(np.int64))
    return out


@takes_real_data()
def sparse_candidate(
    data,
    score: ScoreName = "bic",
    *,
    k: int = 10,
    max_parents: int | None = None,
    max_rounds: int = 10,
    blacklist=None,
    whitelist=None,
    start: DAG | None = None,
    iss: float = 1.0,
    prior: str = "uniform",
    beta=None,
    post_process: int = 0,
    seed=None,
    max_time: float | None = None,
    scan_order: str = "names",
    progress: bool | None = None,
    n_jobs: int | None = None,
) -> DAG:
    """Learn a DAG by the sparse-candidate algorithm: restrict, maximise, repeat.

    *Restrict*: each node gets k candidate parents, its current parents plus those whose
    addition to the current graph raises the score most. *Maximise*: hill climbing (with
    the Pearce-Kelly order for cycle checks) where each node's parents are drawn only from
    its candidates, at most ``max_parents`` of them. Rounds repeat until the score stops
    improving or ``max_rounds`` is reached; optional random post-processing follows.

    Parameters
    ----------
    data : Dataset, DataFrame, array with names, file path or dask DataFrame
        Discrete, continuous (linear-Gaussian scores) or mixed (conditional-Gaussian
        scores) data; the candidates are chosen by the same score's gains.
    score : {"bic", "bde", "bds", "qnml", "k2", "aic", "loglik"}
    k : int, default 10
        Candidate parents per node (Shen et al. use k = p = 15).
    max_parents : int, optional
        Largest parent set p (default k).
    max_rounds : int, default 10
    blacklist, whitelist, start, iss, prior, beta : as :func:`bnfs.hill_climbing` (the
        graph prior weighs the candidates' gains and every move, post-processing included)
    post_process : int, default 0
        Random hill-climbing operations afterwards (the paper runs 5,000,000);
        see :func:`bnfs.search.post_process.post_process`.
    seed : int or numpy.random.Generator
        Randomness of the post-processing.
    max_time : float, optional
        Seconds after which the search stops and returns the best graph so far with a
        RuntimeWarning. Ctrl-C does the same (a second Ctrl-C interrupts at once).
    scan_order : {"names", "scores", "columns"}, default "names"
        Breaks ties between candidates and between moves (see :func:`hill_climbing`): by
        name or by the nodes' own scores, so any order of the columns gives the same
        graph, or by column.
    progress : bool, optional
        A progress bar on stderr: None shows it where stderr is a terminal or a notebook
        (tqdm's widget with ipywidgets), True always, False never.
    n_jobs : int, optional
        Threads for the local scores of each step and of the restrict step (-1: every core);
        the result is the same for any value.

    Returns
    -------
    DAG
        ``learning`` records the rounds, local scores computed and cache hits.

    References
    ----------
    N. Friedman, I. Nachman and D. Pe'er, "Learning Bayesian network structure from massive
    datasets: the sparse candidate algorithm", UAI 1999. X. Shen, Y. Li and K. Wong, "Markov
    blanket feature selection for support vector machines", AAAI 2008.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("asia", 5000, seed=0)
    >>> dag = sparse_candidate(frame, k=3, progress=False)
    >>> dag.learning["algorithm"], all(len(dag.parents(v)) <= 3 for v in dag.nodes)
    ('sparse_candidate', True)
    """
    k = check_int(k, "k", 1)
    if max_parents is None:
        max_parents = k
    state = prepare(
        data,
        score,
        iss,
        max_parents,
        blacklist,
        whitelist,
        start,
        n_jobs,
        scan_order,
        prior=prior,
        beta=beta,
    )
    max_rounds = check_int(max_rounds, "max_rounds", 1)
    post_process = check_int(post_process, "post_process", 0)
    rng = check_seed(seed)
    disable = None if progress is None else not progress

    budget = Budget(max_time)
    kept = rounds = 0
    with budget.catching_interrupts():
        state.set_candidates([np.zeros(0, dtype=np.int64)] * state.n)
        previous = state.total
        for rounds in range(1, max_rounds + 1):
            if budget.spent():
                break
            state.set_candidates(select_candidates(state, k, disable), budget)
            climb(
                state,
                tabu=0,
                max_tabu=0,
                max_iter=None,
                progress=disable,
                desc=f"sparse candidate round {rounds}",
                budget=budget,
            )
            logger.info("sparse_candidate round %d: score %.4f", rounds, state.total)
            if state.total <= previous + 1e-9:
                break
            previous = state.total
        if post_process:
            kept = random_post_process(state, post_process, rng, progress=disable, budget=budget)
    budget.warn("sparse_candidate")
    learning = {
        "score": state.score,
        "arguments": {
            "k": k,
            "max_parents": state.max_parents,
            "max_rounds": max_rounds,
            "iss": state.iss,
            "prior": state.graph_prior.name,
            "beta": state.graph_prior.argument(),
            "post_process": post_process,
            "max_time": max_time,
            "scan_order": scan_order,
        },
        "n_jobs": state.threads,
        "stopped_early": budget.reason,
        "rounds": rounds,
        **state.work_done(),
        "post_process_kept": kept,
        "score_value": state.score_value,
    }
    return state.to_dag(learning)
