"""Greedy relaxations of the sparsest permutation (GRaSP; Lam, Andrews & Ramsey, UAI 2022):
a depth-first search over orders of the variables by tucks, each order scored by the best
parents every node finds among the nodes before it."""

from __future__ import annotations

import functools
import logging

import numpy as np

from bnfs._budget import Budget
from bnfs._kernels import permutation as _p
from bnfs._kernels import tucks as _t
from bnfs._real_data import takes_real_data
from bnfs._validate import check_int
from bnfs.graphs.graph import DAG
from bnfs.search._permutations import Orders, learn_from_starts
from bnfs.stats.scores import ScoreName

__all__ = ["grasp"]

logger = logging.getLogger("bnfs")


#: tucks per compiled call between checks of the time budget and progress updates
SHARE = 256
#: the deepest depth-first search: each level costs up to (arcs) tucks, and a path of this
#: many levels is allocated
MAX_DEPTH = 64


class _Tucks(Orders):
    """GRaSP's depth-first search over tucks, on one placement updated in place."""

    def __init__(
        self,
        state,
        prior: np.ndarray,
        budget: Budget,
        bar,
        max_configurations,
        candidates=None,
        depth: int = 3,
    ):
        super().__init__(state, prior, budget, bar, max_configurations, candidates)
        n = state.n
        self.depth = depth  # levels of score-keeping tucks the search follows
        self.tucks_tried = 0
        index = lambda: np.empty(n, dtype=np.int64)
        self.placement = _t.Placement(
            index(),
            index(),
            np.full((n, max(state.max_parents, 1)), -1, dtype=np.int64),
            np.zeros(n, dtype=np.int64),
            np.zeros(n),
            np.zeros(n, dtype=np.bool_),
            index(),
            index(),
        )
        self.frames: list[_t.Frame] = []

    def _call(self, kernel, *args):
        """``kernel(scoring, knowledge, workspace, trees, placement, *args)`` through
        :meth:`run`."""
        return self.run(kernel, self.placement, *args)

    def place(self, order: np.ndarray) -> float | None:
        """Make ``order`` the current order; its score (None when the budget ran out before
        every node had its parents)."""
        self.placement.order[:] = order
        return self._call(_t.rescore, 0, order.size - 1)

    def _frame(self, level: int) -> _t.Frame:
        """A fresh frame for ``level`` (frames are kept for reuse), over the current order."""
        n = self.state.n
        while len(self.frames) < level:
            index = lambda: np.empty(n, dtype=np.int64)
            self.frames.append(
                _t.Frame(index(), index(), index(), np.zeros(_t.CURSOR_SLOTS, dtype=np.int64))
            )
        frame = self.frames[level - 1]
        frame.nodes[:] = self.placement.order
        frame.cursor[:] = 0
        frame.cursor[_t.Y_AT] = -1
        return frame

    def dfs(self, start: float, depths: np.ndarray) -> bool:
        """One depth-first search from the current order, scoring ``start`` (Lam et al.'s
        Algorithm 3, one level per :func:`_t.scan` frame): True when a tuck raised the score
        (the order is left there); False when none did or the budget ran out (the order is
        put back)."""
        path = np.zeros((int(depths[0]), 2), dtype=np.int64)
        fresh = []  # per open level: whether its tuck's pair joined the path there
        tucks: set = set()
        history: set = set()
        level = 1
        frame = self._frame(level)
        while True:
            if self.budget.spent():
                for f in reversed(self.frames[:level]):
                    if f.cursor[_t.PENDING] != _t.NOTHING:
                        self.placement.order[f.cursor[_t.LO] : f.cursor[_t.HI] + 1] = f.saved[
                            : f.cursor[_t.HI] - f.cursor[_t.LO] + 1
                        ]
                self.place(self.placement.order.copy())
                return False
            before = frame.cursor[_t.TUCKS]
            status = self._call(_t.scan, frame, start, level, depths, path, level - 1, SHARE)
            tried = int(frame.cursor[_t.TUCKS] - before)
            self.tucks_tried += tried
            self.bar.update(tried)
            if status == _t.IMPROVED:
                return True
            if status == _t.EXHAUSTED:
                if level == 1:
                    return False
                level -= 1
                frame = self.frames[level - 1]
                if fresh.pop():
                    tucks.discard(tuple(path[level - 1]))
                continue
            if status != _t.EQUAL:
                continue
            x, y = int(frame.cursor[_t.X]), int(frame.cursor[_t.Y])
            pair = (min(x, y), max(x, y))
            joined = pair not in tucks
            tucks.add(pair)
            if level > depths[1]:
                key = frozenset(tucks)
                if key in history:
                    if joined:
                        tucks.discard(pair)
                    continue  # the next scan undoes the tuck
                history.add(key)
            path[level - 1] = pair
            fresh.append(joined)
            level += 1
            frame = self._frame(level)

    def run_from(self, order: np.ndarray) -> tuple[np.ndarray, dict]:
        """GRaSP from ``order``: depth-first searches while one raises the score; (order,
        its rounds and tucks)."""
        before = self.tucks_tried
        total = self.place(order)
        depths = np.array([self.depth, 1, 1], dtype=np.int64)
        rounds = moves = 0
        while not self.budget.spent():
            rounds += 1
            if not self.dfs(total, depths):
                if not self.move_isolated():
                    break
                moves += 1
            total = _t.order_score(self.placement)
        counts = {"rounds": rounds, "tucks": self.tucks_tried - before, "isolated_moves": moves}
        return self.placement.order.copy(), counts

    def move_isolated(self) -> bool:
        """Move the first node without parents or children whose best place in the order
        (BOSS's move, :func:`~bnfs._kernels.permutation.best_place`) raises the score there;
        whether one moved. Tucks follow arcs, so without this such a node never moves: a
        believed arc into or out of it (a cs prior) could never be found."""
        pl, n = self.placement, self.state.n
        has_child = np.zeros(n, dtype=np.bool_)
        for v in range(n):
            has_child[pl.parents[v, : pl.npar[v]]] = True
        order = pl.order.copy()
        for i, v in enumerate(order.tolist()):
            if pl.npar[v] or has_child[v]:
                continue
            self.workspace.placed[:] = pl.scores
            found = self.run(_p.best_place, order, i)
            if found is None:  # the budget ran out inside the call
                return False
            j, best, here = found
            if j != i and best > here + _p.TOL * max(1.0, abs(here)):
                self.place(np.insert(np.delete(order, i), j, v))
                return True
        return False


@takes_real_data()
def grasp(
    data,
    score: ScoreName = "bic",
    *,
    max_parents: int | None = None,
    max_configurations: float | None = None,
    candidates: int | None = None,
    blacklist=None,
    whitelist=None,
    iss: float = 1.0,
    prior: str = "uniform",
    beta: float | None = None,
    depth: int = 3,
    restarts: int = 0,
    seed=0,
    max_time: float | None = None,
    progress: bool | None = None,
) -> DAG:
    """Learn a DAG by greedy relaxations of the sparsest permutation (GRaSP).

    An order of the variables defines a DAG: each node takes as parents the nodes before it
    that grow-shrink on the local score picks. GRaSP changes the order by *tucks*: for an
    arc ``x -> y`` of the order's DAG, ``y`` moves just before ``x``, taking along its
    ancestors that lie between them. A depth-first search tries every arc's tuck; the first
    that raises the score is kept and the search starts again, and tucks that keep the score
    (such as the reversal of a covered arc, which leaves the equivalence class alone) are
    followed up to ``depth`` levels deep to cross plateaus. Uncovered tucks, and tucks that
    also move a child of ``x`` (non-singular ones), are tried at the first level only;
    deeper levels follow covered tucks (Lam et al.'s GRaSP with Tetrad's defaults; running
    their tiers GRaSP0 and GRaSP1 first gave the same graphs on alarm samples, slower). Arcs
    are visited node by node in the order's order, parents by place, as Tetrad does. When no
    tuck helps, a node without arcs (which no tuck moves) is moved to its best place in the
    order if that raises the score, and the tucks start again (``isolated_moves``; Tetrad's
    GRaSP has no such move).

    Parameters
    ----------
    data : Dataset, DataFrame, array with names or file path
        Discrete, continuous (linear-Gaussian scores) or mixed (conditional-Gaussian
        scores) data.
    score : str, default "bic"
        Any score of :func:`bnfs.hill_climbing` (``"bde"`` is BDeu with ``iss``).
    max_parents : int, optional
        Largest parent set (default: no limit).
    max_configurations : float, optional
        Largest number of parent configurations of a family (the product of its discrete
        parents' numbers of values; continuous parents count 1): grow-shrink offers no
        candidate that would pass it, as it offers no forbidden one. Default: no bound;
        :func:`bnfs.learn` sets 300 times the rows (``CONFIGURATIONS_PER_ROW``, which says
        why).
    candidates : int, optional
        Restrict each node's parents to its ``candidates`` strongest partners (and the
        nodes of which it is one), by the log-likelihood gain of each as its only parent
        (mutual information, squared correlation, correlation ratio): the restrict step
        of the sparse-candidate algorithm (Friedman, Nachman & Pe'er 1999), for data too
        wide to score every pair in every family. Default: every node.
    blacklist, whitelist : list of (from, to) pairs, optional
        Forbidden and required arcs (tiers and roots through :func:`bnfs.blacklist_from`);
        every order keeps each required arc pointing forward.
    iss : float, default 1
        Imaginary sample size of BDeu.
    prior : {"uniform", "vsp", "marginal", "cs"}, default "uniform"
        Graph prior of the Bayesian scores (bde, bge), as in :func:`bnfs.boss`.
    beta : float or arcs, optional
        The prior's parameter, as in :class:`bnfs.Scorer`: the vsp probability of each arc
        (default 1 / (n - 1)), the marginal probability that two nodes are joined (default
        0.5), or the cs prior's beliefs about single arcs.
    depth : int, default 3
        Levels of score-keeping tucks the depth-first search follows (1: only tucks that
        raise the score; Tetrad's default is 3 or 4 by version).
    restarts : int, default 0
        Further searches from random orders; the DAG with the best score is returned.
    seed : int or numpy.random.Generator, default 0
        Draws the starting orders and the order in which arcs are tucked (over the nodes
        sorted by name: the same graph for any order of the columns).
    max_time : float, optional
        Seconds after which the search stops with the best DAG so far and a
        RuntimeWarning; Ctrl-C does the same. The budget is checked every ~0.1 s inside
        the compiled calls too: on data so wide that the first order's DAG is not
        finished in time, the nodes not reached along it have no parents.
    progress : bool, optional
        A progress bar on stderr: None shows it where stderr is a terminal or a notebook
        (tqdm's widget with ipywidgets), True always, False never.

    Returns
    -------
    DAG
        ``learning`` records the best order (``order``), the score, rounds and tucks of each
        start, the local scores computed and cache hits, and the DAG's score
        (``score_value``).

    Raises
    ------
    ValueError
        An unknown score or prior, ``depth`` below 1, lists that name unknown columns or form
        a cycle; the message names the parameter or the column.
    TypeError
        ``data`` of a type bnfs cannot read.

    See Also
    --------
    boss : The faster permutation search.
    learn : The most accurate learner by default.

    Notes
    -----
    A tuck rescores only the stretch of the order between ``x`` and ``y``, each node by a
    walk down its grow-shrink tree (Andrews et al. 2023) through the local-score cache. The
    search's cost grows with the number of plateau tucks, about (arcs)^depth per round in
    the worst case; ``depth`` and ``max_time`` bound it. :func:`bnfs.boss` is usually
    faster at the same accuracy.

    References
    ----------
    W.-Y. Lam, B. Andrews and J. Ramsey, "Greedy relaxations of the sparsest permutation
    algorithm", UAI 2022.

    Examples
    --------
    >>> from bnfs import datasets
    >>> dag = grasp(datasets.sample("asia", 5000, seed=0), progress=False)
    >>> dag.learning["algorithm"], dag.n_arcs > 4
    ('grasp', True)
    """
    depth = check_int(
        depth, "depth", 1, maximum=MAX_DEPTH, what="levels GRaSP follows (Tetrad's default: 3-4)"
    )
    return learn_from_starts(
        "grasp",
        functools.partial(_Tucks, depth=depth),
        " tucks",
        data,
        score,
        max_parents=max_parents,
        max_configurations=max_configurations,
        candidates=candidates,
        blacklist=blacklist,
        whitelist=whitelist,
        iss=iss,
        prior=prior,
        beta=beta,
        restarts=restarts,
        seed=seed,
        max_time=max_time,
        progress=progress,
        arguments={"depth": depth},
    )
