"""What every score-based search shares: the entry that checks the arguments and builds the
search state (:func:`prepare`), and hill climbing's compiled climb (:func:`climb`), random
perturbation and restarts with their checkpoint (:class:`Restarts`)."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from bnfs._budget import Budget, Pace
from bnfs._checkpoint import Checkpoint
from bnfs._kernels import hill_climbing as _hc
from bnfs._progress import tqdm
from bnfs._validate import arc_list, check_int
from bnfs.graphs.graph import DAG
from bnfs.parallel import compiled_threads
from bnfs.search._state import SearchState
from bnfs.stats.priors import graph_prior
from bnfs.tables._data import as_dataset

__all__ = [
    "prepare",
    "climb",
    "perturb",
    "Climb",
    "Restarts",
    "MAX_TABU",
    "MAX_RESTARTS",
    "CHUNK",
]

logger = logging.getLogger("bnfs")

#: the longest tabu list (and tabu budget): the list holds one 8-byte hash per graph
MAX_TABU = 1_000_000
#: the most random restarts a search takes (hill climbing, tabu, BOSS, GRaSP): more would
#: run for days on any network; ``max_time`` is the bound for a long search
MAX_RESTARTS = 100_000

CHUNK = 64  # most moves per compiled call between progress-bar updates and budget checks


def prepare(
    data,
    score,
    iss,
    max_parents,
    blacklist,
    whitelist,
    start=None,
    n_jobs=None,
    scan_order="names",
    *,
    prior=None,
    beta=None,
):
    """The setup every score search shares, one place: validate the shared arguments and
    return a SearchState, scoring with the graph ``prior`` (and ``beta``) when one is given
    (a search that counts tables only refuses continuous columns itself, before this)."""
    threads = compiled_threads(n_jobs)
    data = as_dataset(data)
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
    state = SearchState(
        data, score, iss, max(max_parents, 0), blacklist, whitelist, start, threads, scan_order
    )
    if prior is not None:
        state.set_prior(graph_prior(state.score, prior, beta, state.names))
    return state


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
