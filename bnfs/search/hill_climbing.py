"""Greedy hill climbing and tabu search over DAGs (bnlearn's ``hc`` and ``tabu``)."""

from __future__ import annotations

import logging
import numbers
import warnings
from dataclasses import dataclass

from bnfs._budget import Budget
from bnfs._checkpoint import Checkpoint, fingerprint
from bnfs._real_data import takes_real_data, variant_of
from bnfs._validate import check_int, check_seed
from bnfs._warn import user_stacklevel
from bnfs.graphs.graph import DAG
from bnfs.search._climbing import MAX_RESTARTS, MAX_TABU, Restarts, climb, perturb, prepare
from bnfs.stats.scores import ScoreName

__all__ = ["hill_climbing", "tabu_search"]


logger = logging.getLogger("bnfs")

#: variables from which hill climbing over every pair says up front what it will cost
WIDE = 1000


def _say_the_cost(n: int) -> None:
    """Warn that a search over every pair of ``n`` variables is quadratic per move."""
    warnings.warn(
        f"hill climbing over {n:,} variables with every pair a candidate: each move scans "
        f"{n * (n - 1):,} candidate arcs and each change rescores up to {n - 1:,} families, "
        "so thousands of variables take minutes to hours. sparse_candidate(data, k=10) or "
        "screen_based(data) restrict the candidates; max_parents bounds the families",
        RuntimeWarning,
        stacklevel=user_stacklevel(),
    )


@takes_real_data(missing="structural_em")
def hill_climbing(
    data,
    score: ScoreName = "bic",
    *,
    max_parents: int | None = None,
    blacklist=None,
    whitelist=None,
    start: DAG | None = None,
    iss: float = 1.0,
    prior: str = "uniform",
    beta=None,
    tabu: int = 0,
    max_tabu: int | None = None,
    restarts: int = 0,
    perturb_moves: int = 1,
    max_iter: int | None = None,
    max_time: float | None = None,
    checkpoint=None,
    seed=None,
    scan_order: str = "names",
    progress: bool | None = None,
    n_jobs: int | None = None,
) -> DAG:
    """Learn a DAG by greedy hill climbing on a decomposable score: bnlearn's ``hc``.

    Each step takes the arc addition, removal or reversal that raises the score most (only
    the rows of nodes whose parents changed are rescored), as bnlearn 5.2.1's
    ``hc_opt_step`` does move for move: the same scan, tolerance and score-equivalent twins.
    With ``scan_order="columns"`` the graph is bnlearn's on the same data (tested against
    bnlearn-port for bic, bde, bds, qnml, k2 and aic, with lists and ``max_parents``); two differences
    remain: bnfs counts the levels a column shows, bnlearn a factor's declared levels, and
    restarts draw from numpy, not R. Cycle checks use the Pearce-Kelly online order.

    Parameters
    ----------
    data : Dataset, DataFrame, array with names, file path or dask DataFrame
        Discrete, continuous (linear-Gaussian scores) or mixed (conditional-Gaussian). An
        incomplete DataFrame is learned inside :func:`bnfs.structural_em` (with ``score``,
        ``iss``, ``max_parents``, the lists, ``seed`` and ``progress``; other options are
        refused by name), with a warning. A constant column is an isolated node.
    score : {"bic", "bde", "bds", "qnml", "k2", "aic", "loglik"} for discrete data (bnlearn's
        labels; "bds" is BDeu over the parent configurations seen, "qnml" the quotient
        normalized maximum likelihood, which has no ``iss``); for continuous data {"bic-g", "aic-g", "loglik-g"} (maximum-likelihood residual variance RSS/n) or
        {"bic-g-bnlearn", "aic-g-bnlearn", "loglik-g-bnlearn"} (bnlearn's RSS/(n - k - 1),
        whose graphs and score values equal bnlearn's ``bic-g`` etc.; "bic" means "bic-g").
        or "bge" (bnlearn's BGe, prior mean the sample means, alpha_mu = ``iss``, alpha_w =
        variables + 2). Gaussian local scores come from the covariance matrix, O(|parents|^3)
        each.
    max_parents : int, optional
        Largest parent set (default: no limit).
    blacklist, whitelist : list of (from, to) pairs or DataFrame with columns from/to
        Arcs never added / always present (a whitelisted arc's reverse is never added).
    start : DAG, optional
        Initial graph (default empty).
    iss : float
        Imaginary sample size of BDeu.
    prior : {"uniform", "vsp", "marginal", "cs"}, default "uniform"
        Graph prior of the Bayesian scores (bde, bge), bnlearn's ``prior`` (see
        :mod:`bnfs.stats.priors`). Graphs equal bnlearn's ``hc`` with each prior and its ``tabu``
        with vsp; bnlearn's ``tabu`` with marginal or cs keeps stale node scores, so there
        bnfs's graph may differ, scoring no lower (tested).
    beta : float or arcs, optional
        The prior's parameter, as in :class:`bnfs.Scorer`.
    tabu : int, default 0
        Length of the tabu list; > 0 turns the search into tabu search, bnlearn's ``tabu``
        move for move: the best improving move that leads to none of the last ``tabu``
        graphs, else (up to ``max_tabu`` times without a new best graph) the best such
        move whatever its gain; the best graph seen is returned.
    max_tabu : int, optional
        Non-improving steps allowed before tabu search stops (default ``tabu``; bnlearn
        5.2.1 parses ``max.tabu`` but always uses ``tabu``).
    restarts : int, default 0
        Random restarts: the best graph is perturbed by ``perturb_moves`` random moves and
        climbed again; the best result is kept.
    max_iter : int, optional
        Largest number of moves per climb.
    max_time : float, optional
        Seconds after which the search stops and returns the best graph so far with a
        RuntimeWarning. Ctrl-C does the same (a second Ctrl-C interrupts at once). Both are
        checked about every 0.1 s, also while every candidate arc is scored first; a
        single move on thousands of columns may take longer. Encoding the data comes
        before and is not counted.
    checkpoint : str or os.PathLike, optional
        Where the search saves its state (every 30 s, after each restart, on stopping) and
        resumes from, reaching the uninterrupted search's graph; a file written for other
        data or arguments is refused (``max_time``, ``n_jobs``, ``progress`` may change).
    seed : int or numpy.random.Generator, optional
        Randomness of the restarts.
    scan_order : {"names", "scores", "columns"}, default "names"
        The order moves are scanned in, which decides between tied moves: the nodes by
        name, or by their own score (Kitson & Constantinou's Tabu-Stable order), both the
        same graph for any column order; ``"columns"``: the data's order (bnlearn's).
    progress : bool, optional
        Show a progress bar (default: when writing to a terminal).
    n_jobs : int, optional
        Threads that compute the local scores of a step together (-1: every core). Each
        score is computed on its own and the moves are chosen by one thread, so the result
        is the same for any value.

    Returns
    -------
    DAG
        With ``learning``: algorithm, score, arguments, ``n_scores`` (local scores
        computed), ``cache_hits``, ``moves``, ``score_value``, ``seconds``,
        ``stopped_early``, ``checkpoint`` and ``resumed``. Resumed searches count the work
        of every run.

    Raises
    ------
    ValueError
        An unknown score or prior, a start graph or whitelist with a cycle or a blacklisted
        arc, ``max_parents`` below what the whitelist needs, data with no rows; the message
        names the parameter, the arc or the column.
    TypeError
        ``data`` of a type bnfs cannot read.

    Warns
    -----
    UserWarning
        Constant columns, incomplete data (learned inside :func:`~bnfs.structural_em`).
    RuntimeWarning
        ``max_time`` reached: the graph so far is returned.

    See Also
    --------
    tabu_search : The same search escaping local optima by a tabu list.
    boss : A permutation search that stops in better optima.
    sparse_candidate : Hill climbing restricted to candidate parents.
    learn : The most accurate learner by default.

    References
    ----------
    M. Scutari, "Learning Bayesian networks with the bnlearn R package", J. Stat. Softw.
    35(3), 2010. X. Shen, Y. Li and K. Wong, "Markov blanket feature selection for support
    vector machines", AAAI 2008 (Pearce-Kelly order inside the search).

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("asia", 5000, seed=0)
    >>> dag = hill_climbing(frame, "bic", progress=False)
    >>> dag.learning["algorithm"], dag.n_arcs >= 5
    ('hill_climbing', True)
    """
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
    how = _How.checked(tabu, max_tabu, restarts, perturb_moves, max_iter, max_time, scan_order)
    rng = check_seed(seed)
    store = _search_store(checkpoint, state, state.graph_prior, start, how, seed)
    search = Restarts(state, rng, store)
    budget = Budget(max_time)
    with budget.catching_interrupts():
        _climb_and_restart(state, search, budget, rng, how, progress)
    budget.warn("hill_climbing")
    learning = _record(state, state.graph_prior, how, budget, store, search)
    logger.info(
        "%s: %d moves, %d local scores, score %.4f",
        how.name,
        learning["moves"],
        learning["n_scores"],
        state.total,
    )
    return state.to_dag(learning)


@dataclass(frozen=True)
class _How:
    """How a hill-climbing or tabu search runs: its options, checked."""

    tabu: int
    max_tabu: int
    restarts: int
    perturb_moves: int
    max_iter: int | None
    max_time: float | None
    scan_order: str

    @classmethod
    def checked(cls, tabu, max_tabu, restarts, perturb_moves, max_iter, max_time, scan_order):
        why = "graphs a tabu list holds (bnlearn's default is 10)"
        tabu = check_int(tabu, "tabu", 0, maximum=MAX_TABU, what=why)
        return cls(
            tabu=tabu,
            max_tabu=tabu
            if max_tabu is None
            else check_int(max_tabu, "max_tabu", 0, maximum=MAX_TABU, what="non-improving moves"),
            restarts=check_int(
                restarts, "restarts", 0, maximum=MAX_RESTARTS, what="random restarts"
            ),
            perturb_moves=check_int(perturb_moves, "perturb_moves", 1),
            max_iter=check_int(max_iter, "max_iter", 0, allow_none=True),
            max_time=max_time,
            scan_order=scan_order,
        )

    @property
    def name(self) -> str:
        return "tabu_search" if self.tabu else "hill_climbing"


def _search_store(checkpoint, state, graph, start, how: _How, seed) -> Checkpoint | None:
    """The checkpoint of a hill-climbing or tabu search, keyed by everything its graph
    depends on (not ``max_time``, ``n_jobs`` or ``progress``)."""
    if checkpoint is None:
        return None
    return Checkpoint(
        checkpoint,
        "hill_climbing",
        fingerprint(
            state.data,
            score=state.score,
            iss=state.iss,
            prior=graph.name,
            beta=graph.argument(),
            max_parents=state.max_parents,
            black=sorted(state.forbidden_arcs()),
            white=sorted(state.white),
            start=None if start is None else sorted(start.arcs),
            tabu=how.tabu,
            max_tabu=how.max_tabu,
            restarts=how.restarts,
            perturb_moves=how.perturb_moves,
            max_iter=how.max_iter,
            scan_order=how.scan_order,
            seed=int(seed) if how.restarts and isinstance(seed, numbers.Integral) else None,
        ),
    )


def _climb_and_restart(state, search, budget, rng, how: _How, progress) -> None:
    """The first climb, then each restart's perturbation and climb, until the restarts are
    done, the budget is spent or a climb stops early; the best graph is kept in ``search``."""
    if state.n >= WIDE:
        _say_the_cost(state.n)
    state.set_candidates(state.all_candidates(), budget)
    search.resume(how.restarts)
    while not search.complete:
        if search.climb > 0:
            if budget.spent():
                break
            if not search.perturbed:
                perturb(state, how.perturb_moves, rng)
                search.perturbed = True
        desc = (
            ("tabu search" if how.tabu else "hill climbing")
            if search.climb == 0
            else f"restart {search.climb}/{how.restarts}"
        )
        finished = climb(
            state,
            tabu=how.tabu,
            max_tabu=how.max_tabu,
            max_iter=how.max_iter,
            progress=None if progress is None else not progress,
            desc=desc,
            budget=budget,
            resume=search.run,
            save=search.save_climb,
        )
        search.keep_best()
        if not finished:
            break
        search.next_climb(how.restarts)


def _record(state, graph, how: _How, budget, store, search) -> dict:
    """The ``learning`` record of a hill-climbing or tabu search."""
    return {
        "score": state.score,
        "arguments": {
            "max_parents": state.max_parents,
            "iss": state.iss,
            "prior": graph.name,
            "beta": graph.argument(),
            "tabu": how.tabu,
            "scan_order": how.scan_order,
            "max_tabu": how.max_tabu,
            "restarts": how.restarts,
            "perturb_moves": how.perturb_moves,
            "max_iter": how.max_iter,
            "max_time": how.max_time,
        },
        "stopped_early": budget.reason,
        "checkpoint": None if store is None else str(store.path),
        "resumed": search.resumed,
        "n_jobs": state.threads,
        **state.work_done(),
        "score_value": state.score_value,
    }


@takes_real_data(missing="structural_em")
@variant_of(hill_climbing)
def tabu_search(
    data,
    score: ScoreName = "bic",
    *,
    tabu: int = 10,
    max_tabu: int | None = None,
    max_parents: int | None = None,
    blacklist=None,
    whitelist=None,
    start: DAG | None = None,
    iss: float = 1.0,
    prior: str = "uniform",
    beta=None,
    restarts: int = 0,
    perturb_moves: int = 1,
    max_iter: int | None = None,
    max_time: float | None = None,
    checkpoint=None,
    seed=None,
    scan_order: str = "names",
    progress: bool | None = None,
    n_jobs: int | None = None,
) -> DAG:
    """Tabu search, bnlearn's ``tabu`` move for move: :func:`hill_climbing` (whose other
    parameters it takes) with a tabu list of the last ``tabu`` graphs and up to
    ``max_tabu`` non-improving steps (default ``tabu``).

    See Also
    --------
    hill_climbing : Every option, and the greedy search it extends.
    learn : The most accurate learner by default.

    Examples
    --------
    >>> from bnfs import datasets
    >>> tabu_search(datasets.sample("asia", 2000, seed=0))
    DAG(8 nodes, 7 arcs)
    """
    if check_int(tabu, "tabu", 1, maximum=MAX_TABU, what="graphs a tabu list holds") < 1:
        raise ValueError("tabu must be >= 1")  # hill climbing's tabu=0 is plain climbing
