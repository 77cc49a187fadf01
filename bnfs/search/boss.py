"""Best-order score search (BOSS; Andrews, Ramsey, Sanchez-Romero, Camchong & Kummerfeld,
NeurIPS 2023): a search over orders of the variables, each order scored by the best parents
every node finds among the nodes before it."""

from __future__ import annotations

import logging

import numpy as np

from bnfs._kernels import permutation as _p
from bnfs._real_data import takes_real_data
from bnfs.graphs.graph import DAG
from bnfs.search._permutations import Orders, learn_from_starts
from bnfs.search.bes import backward_equivalence_search
from bnfs.stats.scores import ScoreName

__all__ = ["boss"]

logger = logging.getLogger("bnfs")


class _BestOrder(Orders):
    """BOSS's moves over orders."""

    def run_from(self, order: np.ndarray) -> tuple[np.ndarray, dict]:
        """BOSS from ``order`` (Andrews et al.'s loop): order moves until they stop raising
        the score, then a backward equivalence search from the order's DAG, whose order
        starts the next round while rounds raise the score; (order, its passes, moves and
        BES rounds that helped)."""
        budget = self.budget
        order, passes, moves = self.improve(order)
        total, parents, npar = self.score(order)
        helped = 0
        required = frozenset(
            frozenset((self.state.names[u], self.state.names[v]))
            for u, v in zip(*np.nonzero(self.required))
        )
        while not budget.spent():
            pruned = backward_equivalence_search(self.dag(parents, npar), self.local, required)
            candidate = self.order_of(pruned, order)
            if candidate is None:
                break
            found = self.score(candidate)[0]
            if found <= total + _p.TOL * max(1.0, abs(total)):
                break
            helped += 1
            order, more_passes, more_moves = self.improve(candidate)
            passes, moves = passes + more_passes, moves + more_moves
            total, parents, npar = self.score(order)
        return order, {"passes": passes, "moves": moves, "bes_rounds": helped}

    def improve(self, order: np.ndarray) -> tuple[np.ndarray, int, int]:
        """Move each node to its best place, in the order's order, until a whole pass
        leaves the score where it was (or the budget ends); (order, passes, moves).

        As in Tetrad's BOSS, a node moves to the latest of the places that tie for best even
        when its own place is among them: such plateau moves change the order, not the
        score, and let later moves find what a strict climb misses. Passes stop when one
        does not raise the score, so plateau moves cannot cycle."""
        budget, bar = self.budget, self.bar
        order = order.copy()
        passes = moves = 0
        total = self.score(order)[0]
        while not budget.spent():
            passes += 1
            start = total
            for v in order.copy():
                if budget.spent():
                    break
                i = int(np.flatnonzero(order == v)[0])
                found = self.run(_p.best_place, order, i)
                if found is None:  # the budget ran out inside the call
                    break
                j, best, here = found
                bar.update(1)
                if j != i and best >= here - _p.TOL * max(1.0, abs(here)):
                    rest = np.delete(order, i)
                    order = np.insert(rest, j, v)
                    moves += 1
                    total = best
            bar.set_postfix(passes=passes, moves=moves, **self.shown, refresh=False)
            if total <= start + _p.TOL * max(1.0, abs(start)):
                break
        return order, passes, moves


@takes_real_data(missing="structural_em")
def boss(
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
    restarts: int = 0,
    restart_work: float | None = None,
    seed=0,
    max_time: float | None = None,
    progress: bool | None = None,
) -> DAG:
    """Learn a DAG by best-order score search (BOSS).

    An order of the variables defines a DAG: each node takes as parents the nodes before it
    that grow-shrink on the local score picks (add the best while the score rises, then
    drop the worst while it rises). BOSS moves one node at a time to the place in the order
    where the DAG's score is highest, node after node, until a whole pass moves none; with
    ``restarts`` it starts again from random orders and keeps the best DAG. Searching orders
    escapes the local optima of arc-by-arc searches (hill climbing, tabu), whose graphs
    score lower on most samples.

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
        Forbidden and required arcs (tiers and roots through
        :func:`bnfs.blacklist_from`); every order keeps each required arc pointing forward.
    iss : float, default 1
        Imaginary sample size of BDeu.
    prior : {"uniform", "vsp", "marginal", "cs"}, default "uniform"
        Graph prior of the Bayesian scores (bde, bge), bnlearn's ``prior``
        (:mod:`bnfs.stats.priors`): ``"vsp"`` adds log(beta / (1 - beta)) per parent, which keeps
        BDeu from growing large parent sets on many-valued variables; ``"cs"`` takes
        beliefs about single arcs (soft knowledge, where black/whitelists are hard).
    beta : float or arcs, optional
        The prior's parameter, as in :class:`bnfs.Scorer`: the vsp probability of each arc
        (default 1 / (n - 1)), the marginal probability that two nodes are joined (default
        0.5), or the cs prior's beliefs about single arcs.
    restarts : int, default 0
        Further searches from random orders; the DAG with the best score is returned.
    restart_work : float, optional
        Run a further start only while the work so far plus one start's share of it stays
        within this many counted rows (local scores computed times rows; the same on every
        machine, unlike ``max_time``). ``learning["work"]`` reports the work done.
    seed : int or numpy.random.Generator, default 0
        Draws the starting orders (over the nodes sorted by name: the same graph for any
        order of the columns).
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
        ``learning`` records the best order (``order``: each node's parents are among the
        nodes before it), the score, passes, moves and helpful BES rounds of each start,
        the local scores computed and cache hits, and the DAG's score (``score_value``).

    Raises
    ------
    ValueError
        An unknown score or prior, lists that name unknown columns or form a cycle,
        ``restarts`` or ``max_parents`` below 0; the message names the parameter or the
        column.
    TypeError
        ``data`` of a type bnfs cannot read.

    See Also
    --------
    grasp : The other permutation search (tucks of single arcs).
    learn : Runs BOSS with the BDeu score and more starts.
    hill_climbing : bnlearn's greedy search.

    Notes
    -----
    A pass costs 3n grow-shrinks per node (n nodes), each a walk down the node's
    grow-shrink tree, all through the local-score cache. As in Andrews et al.'s BOSS, when
    order moves stop raising the score a backward equivalence search
    (:mod:`bnfs.search.bes`) prunes the order's DAG and, when the order of its result scores
    higher, the order search continues from there.

    References
    ----------
    B. Andrews, J. Ramsey, R. Sanchez-Romero, J. Camchong and E. Kummerfeld, "Fast scalable
    and accurate discovery of DAGs using the best order score search and grow-shrink trees",
    NeurIPS 2023.

    Examples
    --------
    >>> from bnfs import datasets
    >>> dag = boss(datasets.sample("asia", 5000, seed=0), progress=False)
    >>> dag.learning["algorithm"], dag.n_arcs > 4
    ('boss', True)
    """
    return learn_from_starts(
        "boss",
        _BestOrder,
        " moves tried",
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
        arguments={},
        restart_work=restart_work,
    )
