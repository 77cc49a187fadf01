"""Random hill-climbing post-processing of a learned DAG (Shen, Li & Wong 2008)."""

from __future__ import annotations

import time

import numpy as np

from bnfs._budget import Budget
from bnfs._kernels import random_search as _rs
from bnfs._progress import tqdm
from bnfs._validate import check_float, check_int, check_seed
from bnfs.graphs.graph import DAG
from bnfs.search._state import SearchState
from bnfs.stats.scores import ScoreName
from bnfs.tables._data import as_dataset

__all__ = ["post_process", "random_post_process"]

CHUNK = 100_000  # operations per compiled call between progress-bar updates


def random_post_process(
    state: SearchState,
    n_ops: int,
    rng: np.random.Generator,
    p_add: float = 0.8,
    p_remove: float = 0.1,
    progress: bool | None = None,
    budget: Budget | None = None,
) -> int:
    """Run ``n_ops`` random operations on a search state (fewer when the ``budget`` runs
    out); return how many were kept.

    The state's node scores must be current (any ``set_candidates`` call makes them so);
    its candidate table is not used and is stale afterwards.
    """
    forbidden, fixed = state.arc_dicts()
    arc_slot = np.full(state.parents.shape, -1, dtype=np.int64)
    rank = state.rank  # arcs listed in scan order: a drawn slot is the same arc for any
    pairs = [
        (int(u), int(v))
        for v in state.by_node  # order of the columns
        for u in sorted(state.current_parents(v), key=lambda u: rank[u])
    ]
    n_arcs = len(pairs)
    arc_list = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    for i, (u, v) in enumerate(pairs):
        t = int(np.flatnonzero(state.parents[v, : state.npar[v]] == u)[0])
        arc_slot[v, t] = i
    rng_state = np.array([rng.integers(0, 2**63)], dtype=np.uint64)
    before = state.moves
    done = 0
    order = state.order
    with tqdm(
        total=n_ops,
        desc="random post-processing",
        unit=" ops",
        disable=progress,
        leave=False,
        unit_scale=True,
    ) as bar:
        while done < n_ops and not (budget is not None and budget.spent()):
            chunk = min(CHUNK, n_ops - done)
            if arc_list.shape[0] < n_arcs + chunk:  # room for every arc this chunk could add
                grown = np.zeros((n_arcs + chunk, 2), dtype=np.int64)
                grown[:n_arcs] = arc_list[:n_arcs]
                arc_list = grown
            while order.arcs.shape[0] - order.n_arcs <= chunk:
                order.grow(2 * order.arcs.shape[0])
            walk = _rs.Walk(
                forbidden, fixed, arc_list, arc_slot, p_add, p_remove, rng_state, state.by_node
            )
            n_arcs, ran = _rs.random_hill_climbing(
                state.scoring, state.scratch, state.graph, order.arrays, walk, n_arcs, chunk
            )
            if ran < chunk:  # a node needs more parent slots: widen and go on
                state.widen()
                slots = np.full(state.parents.shape, -1, dtype=np.int64)
                slots[:, : arc_slot.shape[1]] = arc_slot
                arc_slot = slots
                chunk = ran
            done += chunk
            bar.update(chunk)
            bar.set_postfix(score=f"{state.total:.2f}", refresh=False)
    return state.moves - before


def post_process(
    dag: DAG,
    data,
    n_ops: int = 5_000_000,
    score: ScoreName = "bic",
    *,
    iss: float = 1.0,
    prior: str = "uniform",
    beta=None,
    max_parents: int | None = None,
    blacklist=None,
    whitelist=None,
    p_add: float = 0.8,
    p_remove: float = 0.1,
    seed=None,
    max_time: float | None = None,
    progress: bool | None = None,
) -> DAG:
    """Improve a DAG by random hill climbing: random edits kept when the score rises.

    Each operation is the addition of a random arc (probability ``p_add``), the removal
    (``p_remove``) or else the reversal of a random existing arc; it is kept when the score
    improves and no cycle forms (Pearce-Kelly order). Runs in compiled code with the local-
    score cache.

    Parameters
    ----------
    dag : DAG
        Start graph (not modified); its nodes must be the data's columns.
    data : discrete data
    n_ops : int, default 5,000,000
        Number of random operations (the paper's default).
    score, iss, prior, beta, max_parents, blacklist, whitelist : as :func:`bnfs.hill_climbing`
    p_add, p_remove : float
        Probabilities of an addition and a removal (reversal gets the rest): 0.8 / 0.1.
    seed : int or numpy.random.Generator
    max_time : float, optional
        Seconds after which the remaining operations are skipped (with a RuntimeWarning);
        Ctrl-C does the same.
    progress : bool, optional
        A progress bar on stderr: None shows it where stderr is a terminal or a notebook
        (tqdm's widget with ipywidgets), True always, False never.

    Returns
    -------
    DAG
        With ``learning["post_process"]``: operations run and kept, score before and after.

    References
    ----------
    X. Shen, Y. Li and K. Wong, "Markov blanket feature selection for support vector
    machines", AAAI 2008.

    Examples
    --------
    >>> from bnfs import DAG, datasets
    >>> frame = datasets.sample("asia", 2000, seed=0)
    >>> better = post_process(DAG(frame.columns), frame, n_ops=20_000, seed=0, progress=False)
    >>> better.learning["post_process"]["score_after"] > better.learning["post_process"]["score_before"]
    True
    """
    from bnfs.search._climbing import prepare

    if not isinstance(dag, DAG):
        raise TypeError(f"dag must be a bnfs DAG, got {type(dag).__name__}")
    started = time.perf_counter()
    data = as_dataset(data)
    data.require_discrete("post_process")  # its moves are scored on counted tables
    state = prepare(
        data, score, iss, max_parents, blacklist, whitelist, dag, prior=prior, beta=beta
    )
    n_ops = check_int(n_ops, "n_ops", 0)
    p_add, p_remove = check_probabilities(p_add, p_remove)
    rng = check_seed(seed)
    state.set_candidates([np.zeros(0, dtype=np.int64)] * state.n)
    before = state.total
    budget = Budget(max_time)
    with budget.catching_interrupts():
        kept = random_post_process(
            state, n_ops, rng, p_add, p_remove, None if progress is None else not progress, budget
        )
    budget.warn("post_process")
    learning = dict(dag.learning)
    learning["post_process"] = {
        "n_ops": n_ops,
        "kept": kept,
        "score": state.score,
        "stopped_early": budget.reason,
        "score_before": before,
        "score_after": state.total,
        "seconds": time.perf_counter() - started,
    }
    learning["score_value"] = state.score_value
    return state.to_dag(learning)


def check_probabilities(p_add, p_remove) -> tuple[float, float]:
    """``p_add`` and ``p_remove`` as floats in [0, 1] whose sum is at most 1 (ValueError
    naming them otherwise)."""
    p_add = check_float(p_add, "p_add", 0.0, 1.0)
    p_remove = check_float(p_remove, "p_remove", 0.0, 1.0)
    if p_add + p_remove > 1.0 + 1e-12:
        raise ValueError(f"p_add + p_remove must be <= 1, got {p_add + p_remove}")
    return p_add, p_remove
