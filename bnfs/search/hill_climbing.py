"""Greedy hill climbing and tabu search over DAGs (bnlearn's ``hc`` and ``tabu``)."""

from __future__ import annotations

import logging
import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from bnfs._budget import Budget, Pace
from bnfs._checkpoint import Checkpoint, fingerprint
from bnfs._kernels import hill_climbing as _hc
from bnfs._progress import tqdm
from bnfs._real_data import takes_real_data
from bnfs._validate import arc_list, check_int, check_seed
from bnfs.graphs.graph import DAG
from bnfs.parallel import compiled_threads
from bnfs.search._state import SearchState
from bnfs.stats.priors import graph_prior
from bnfs.stats.scores import ScoreName
from bnfs.tables._data import as_dataset

__all__ = ["hill_climbing", "tabu_search"]

logger = logging.getLogger("bnfs")

#: the longest tabu list (and tabu budget): the list holds one 8-byte hash per graph
MAX_TABU = 1_000_000

CHUNK = 64  # most moves per compiled call between progress-bar updates and budget checks
#: searches that also score continuous data with the linear-Gaussian scores (tabu_search,
#: the hybrids and learn run through hill_climbing)
GAUSSIAN_SEARCHES = ("hill_climbing", "sparse_candidate", "boss", "grasp")


def prepare(
    data, score, iss, max_parents, blacklist, whitelist, start, who, n_jobs=None, scan_order="names"
):
    """Validate the shared arguments of every score-based learner; return a SearchState."""
    threads = compiled_threads(n_jobs)
    data = as_dataset(data)
    if not data.is_discrete and who not in GAUSSIAN_SEARCHES:
        data.require_discrete(who)  # a search that counts tables
    names = data.names
    n = len(names)
    max_parents = check_int(max_parents, "max_parents", 0, allow_none=True)
    max_parents = n - 1 if max_parents is None else min(max_parents, n - 1)
    blacklist = arc_list(blacklist, "blacklist", names)
    whitelist = arc_list(whitelist, "whitelist", names)
    if start is not None:
        if not isinstance(start, DAG):
            raise TypeError(f"start must be a bnfs DAG, got {type(start).__name__}")
        if set(start.nodes) != set(names):
            raise ValueError("start must have exactly the data's columns as nodes")
    return SearchState(
        data, score, iss, max(max_parents, 0), blacklist, whitelist, start, threads, scan_order
    )


@dataclass
class Climb:
    """Where one climb stands: with the graph, enough to continue it from a checkpoint."""

    tabu_buf: np.ndarray  # hashes of the graphs a tabu search may not revisit
    #: (1,): the best score a tabu search has seen, in the kernel's units
    #: (:attr:`SearchState.kernel_total`, without the score offset)
    best_score: np.ndarray
    done: int = 0  # moves made

    @classmethod
    def start(cls, state: SearchState, tabu: int) -> Climb:
        """A climb from the state's current graph, which is also its best so far."""
        state.best_parents = state.parents.copy()
        state.best_npar = state.npar.copy()
        state.counters[[_hc.NON_IMPROVING, _hc.TABU_POS, _hc.N_TABU]] = 0
        return cls(np.zeros(tabu, dtype=np.int64), np.array([state.kernel_total]))


def climb(
    state: SearchState,
    *,
    tabu: int,
    max_tabu: int,
    max_iter: int | None,
    progress,
    desc: str,
    budget: Budget | None = None,
    resume: Climb | None = None,
    save=None,
) -> bool:
    """Run moves until no improving one is left (or the tabu budget, ``max_iter`` or the
    time ``budget`` ends); with ``tabu`` the best graph seen is restored at the end.

    ``resume`` continues a climb saved in a checkpoint; ``save(climb, stopping)`` is called
    after every chunk of moves and when the budget stops the climb (before the tabu best is
    restored). Returns False when the budget stopped the climb.
    """
    run = Climb.start(state, tabu) if resume is None else resume
    finished = True
    pace = Pace(CHUNK)  # on wide data one move scans millions of candidates
    with tqdm(desc=desc, unit=" moves", disable=progress, leave=False) as bar:
        while True:
            steps = pace.size if max_iter is None else min(pace.size, max_iter - run.done)
            if steps <= 0:
                break
            if budget is not None and budget.spent():
                finished = False
                if save is not None:
                    save(run, True)
                break
            before = state.moves
            with pace.timing():
                status = state.run(steps, run.tabu_buf, max_tabu, run.best_score)
            moved = state.moves - before
            run.done += moved
            bar.update(moved)
            bar.set_postfix(score=f"{state.total:.2f}", refresh=False)
            if status == _hc.CONVERGED:
                break
            if save is not None:
                save(run, False)
    if tabu and state.counters[_hc.NON_IMPROVING] > 0:  # bnlearn: the best graph seen
        state.set_parents(state.best_parents, state.best_npar)
    return finished


def perturb(state: SearchState, n_moves: int, rng: np.random.Generator) -> None:
    """Apply ``n_moves`` random legal moves (add, remove or reverse), the kind of
    perturbation bnlearn's restarts apply. The moves are drawn by numpy's generator, not R's,
    so a restart does not reproduce bnlearn's graph for the same seed (the parity tests
    compare restart-free searches). Nodes and candidates are drawn in scan order, so unless
    ``scan_order="columns"`` the moves do not depend on the order of the columns."""
    done, tries = 0, 0
    while done < n_moves and tries < 100 * max(n_moves, 1):
        tries += 1
        v = int(state.by_node[rng.integers(state.n)])
        if state.n_cand[v] == 0:
            continue
        columns = np.argsort(state.rank[state.cand[v, : state.n_cand[v]]], kind="stable")
        c = int(columns[rng.integers(state.n_cand[v])])
        if state.in_graph[v, c] and rng.random() < 0.5:
            done += state.reverse(v, c)
        else:
            done += state.toggle(v, c)


class Restarts:
    """The first climb and the restarts of :func:`hill_climbing`, with their checkpoint.

    ``climb`` is 0 for the first climb and r for restart r; ``perturbed`` says whether
    restart r has made its random moves; ``run`` is a climb to continue; ``best`` the best
    (score, parents, npar) of the climbs finished so far.
    """

    def __init__(self, state: SearchState, rng: np.random.Generator, store: Checkpoint | None):
        self.state, self.rng, self.store = state, rng, store
        self.climb, self.perturbed, self.complete, self.resumed = 0, False, False, False
        self.run: Climb | None = None
        self.best: tuple | None = None

    def keep_best(self) -> None:
        """After a climb: remember its graph if it is the best so far, else go back to the
        best one."""
        state, self.run = self.state, None
        if self.best is None or state.total > self.best[0] + 1e-9:
            self.best = (state.total, state.parents.copy(), state.npar.copy())
        else:
            state.set_parents(self.best[1], self.best[2])

    def next_climb(self, restarts: int) -> None:
        """Move on to the next restart; complete once past ``restarts`` of them."""
        self.climb += 1
        self.perturbed = False
        self.complete = self.climb > restarts
        self.save()

    # -- checkpoint ---------------------------------------------------------------------------
    def snapshot(self, run: Climb | None) -> dict:
        """What a checkpoint holds: the climb, the graphs and counters, the random
        generator."""
        state = self.state
        saved = {
            "climb": self.climb,
            "perturbed": self.perturbed,
            "complete": self.complete,
            "parents": state.parent_lists(),
            "counters": state.counters.tolist(),
            "rng": self.rng.bit_generator.state,
            "best": None,
            "run": None,
        }
        if self.best is not None:
            score, parents, npar = self.best
            saved["best"] = {"score": score, "parents": state.parent_lists(parents, npar)}
        if run is not None:
            best = state.parent_lists(state.best_parents, state.best_npar)
            saved["run"] = {
                "tabu": run.tabu_buf.tolist(),
                "best_score": float(run.best_score[0]),
                "done": run.done,
                "best_parents": best,
            }
        return saved

    def save(self, run: Climb | None = None, force: bool = True) -> None:
        """Write a checkpoint (when one is due, unless ``force``)."""
        if self.store is not None and (force or self.store.due()):
            self.store.save(self.snapshot(run))

    def save_climb(self, run: Climb, stopping: bool) -> None:
        """Checkpoint after a move of ``run``: when due, or at once when ``stopping``."""
        self.save(run, force=stopping)

    def resume(self, restarts: int) -> None:
        """Continue from the checkpoint, if there is one. Its state is checked, not trusted:
        every saved graph must be a DAG this search could reach, every saved score must
        be the score of its graph, and the counters must be in range."""
        saved = None if self.store is None else self.store.load()
        if saved is None:
            return
        state = self.state
        try:
            self.climb, self.perturbed = int(saved["climb"]), bool(saved["perturbed"])
            self.complete = bool(saved["complete"])
            if not 0 <= self.climb <= restarts + 1 or self.complete != (self.climb > restarts):
                raise ValueError(
                    f"climb {self.climb} of {restarts} restarts, complete={self.complete}"
                )
            if saved["best"] is not None:
                table, npar = state.parent_table(saved["best"]["parents"])
                self.best = (self._checked_score(table, npar, saved["best"]["score"]), table, npar)
            current = state.parent_table(saved["parents"])
            if saved["run"] is not None:
                run = saved["run"]
                tabu = np.asarray(run["tabu"], dtype=np.int64)
                state.best_parents, state.best_npar = state.parent_table(run["best_parents"])
                best_score = float(run["best_score"])
                if tabu.size:  # a tabu climb keeps its best graph apart (a plain one no best)
                    best_score = self._checked_score(
                        state.best_parents, state.best_npar, best_score, kernel_units=True
                    )
                self.run = Climb(tabu, np.array([best_score]), int(run["done"]))
            state.set_parents(*current)
            counters = np.asarray(saved["counters"], dtype=np.int64)
            if counters.shape != state.counters.shape or (counters < 0).any():
                raise ValueError("counters out of range")
            state.counters[:] = counters
            self.rng.bit_generator.state = saved["rng"]
        except (KeyError, TypeError, ValueError, IndexError, RuntimeError, OverflowError) as error:
            raise ValueError(
                f"checkpoint {str(self.store.path)!r} is damaged ({error}); "
                "delete it to start afresh"
            ) from None
        self.resumed = True

    def _checked_score(
        self, parents: np.ndarray, npar: np.ndarray, saved, kernel_units: bool = False
    ) -> float:
        """The score of a saved graph, which must equal the score saved with it (the tabu
        best is saved in the kernel's units, without the score offset)."""
        self.state.set_parents(parents, npar)
        total = self.state.kernel_total if kernel_units else self.state.total
        if not isinstance(saved, (int, float)) or not math.isclose(
            float(saved), total, rel_tol=1e-9, abs_tol=1e-6
        ):
            raise ValueError(f"a saved score ({saved!r}) is not the score of its graph ({total!r})")
        return float(saved)


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
        stacklevel=3,
    )


@takes_real_data
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
        "hill_climbing",
        n_jobs,
        scan_order,
    )
    graph = graph_prior(state.score, prior, beta, state.names)
    state.set_prior(graph)
    how = _How.checked(tabu, max_tabu, restarts, perturb_moves, max_iter, max_time, scan_order)
    rng = check_seed(seed)
    store = _search_store(checkpoint, state, graph, start, how, seed)
    search = Restarts(state, rng, store)
    budget = Budget(max_time)
    with budget.catching_interrupts():
        _climb_and_restart(state, search, budget, rng, how, progress)
    budget.warn("hill_climbing")
    learning = _record(state, graph, how, budget, store, search)
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
            restarts=check_int(restarts, "restarts", 0),
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


@takes_real_data
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
        raise ValueError("tabu must be >= 1")
    return hill_climbing(
        data,
        score,
        tabu=tabu,
        max_tabu=max_tabu,
        max_parents=max_parents,
        blacklist=blacklist,
        whitelist=whitelist,
        start=start,
        iss=iss,
        prior=prior,
        beta=beta,
        restarts=restarts,
        perturb_moves=perturb_moves,
        max_iter=max_iter,
        max_time=max_time,
        checkpoint=checkpoint,
        seed=seed,
        scan_order=scan_order,
        progress=progress,
        n_jobs=n_jobs,
    )
