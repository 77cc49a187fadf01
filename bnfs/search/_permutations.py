"""What the permutation searches (BOSS, GRaSP) share: the compiled bundles of
:mod:`bnfs._kernels.permutation` built once from a :class:`~bnfs.search._state.SearchState`,
grow-shrink trees that grow (or are emptied) as the kernels ask, orders scored into DAGs, and
random starting orders that keep every required arc pointing forward."""

from __future__ import annotations

import heapq
import logging
import time

import numpy as np

from bnfs._budget import Budget, Pace
from bnfs._kernels import entry_point
from bnfs._kernels import permutation as _p
from bnfs._kernels import score_cache as _c
from bnfs._kernels.score_cache import scoring_of
from bnfs._progress import tqdm
from bnfs._validate import check_float, check_int, check_seed
from bnfs._vocabulary import score_kind
from bnfs.graphs.graph import DAG
from bnfs.search._candidates import strongest_partners
from bnfs.search._climbing import MAX_RESTARTS, prepare
from bnfs.search._state import SearchState
from bnfs.stats.priors import graph_prior

__all__ = ["Orders", "TREE_BYTES", "learn_from_starts"]

logger = logging.getLogger("bnfs")

#: seconds between the progress bar's updates inside one long kernel call
SHOW_EVERY = 0.5

#: bytes the grow-shrink trees may take before they are emptied and rebuilt as needed
TREE_BYTES = 1 << 30


def _trees(n: int, nodes: int, candidates: int, entries: int) -> _p.Trees:
    """Empty grow-shrink trees with room for ``nodes`` tree nodes, ``candidates`` candidate
    slots and ``entries`` set entries."""
    index = lambda size: np.zeros(size, dtype=np.int64)
    return _p.Trees(
        np.full(n, -1, dtype=np.int64),
        *(index(nodes) for _ in range(6)),
        np.zeros(nodes),
        index(candidates),
        np.full(candidates, -1, dtype=np.int64),
        index(entries),
        index(_p.USED_SLOTS),
    )


def _tree_bytes(trees: _p.Trees) -> int:
    return sum(a.nbytes for a in trees)


def _layout(value) -> tuple:
    """What decides a kernel argument's numba type: an array's dtype, dimensions and
    contiguity, else the Python type (named tuples of arrays: their fields')."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.ndim, value.flags.c_contiguous, value.flags.f_contiguous)
    if isinstance(value, tuple):
        return (type(value), *(_layout(v) for v in value))
    return (type(value),)


def _topological(children: list[set[int]], place: np.ndarray) -> np.ndarray | None:
    """The nodes in an order where every arc ``u -> children[u]`` points forward, the ready
    node with the lowest ``place`` first (Kahn's algorithm); None on a directed cycle."""
    indegree = np.zeros(len(children), dtype=np.int64)
    for kids in children:
        for v in kids:
            indegree[v] += 1
    ready = [(int(place[v]), int(v)) for v in np.flatnonzero(indegree == 0)]
    heapq.heapify(ready)
    out = []
    while ready:
        _, v = heapq.heappop(ready)
        out.append(v)
        for w in children[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                heapq.heappush(ready, (int(place[w]), w))
    return np.array(out, dtype=np.int64) if len(out) == len(children) else None


class Orders:
    """The compiled bundles of one permutation search, and orders scored with them; a
    search (a subclass) runs from a starting order with :meth:`run_from` within ``budget``,
    counting its steps on the progress ``bar``."""

    def __init__(
        self,
        state: SearchState,
        prior: np.ndarray,
        budget: Budget,
        bar,
        max_configurations: float = np.inf,
        candidates: int | None = None,
    ):
        n = state.n
        self.state = state
        self.budget, self.bar = budget, bar
        self.scoring = scoring_of(
            state.codes,
            state.arities,
            state.kind,
            state.iss,
            prior,
            state.levels,
            state.weights,
            score_kind(state.score).equivalent,
        )
        forbidden = np.zeros((n, n), dtype=np.bool_)
        for u, v in state.forbidden_arcs():
            forbidden[u, v] = True
        required = np.zeros((n, n), dtype=np.bool_)
        for u, v in state.white:
            required[u, v] = True
        if candidates is not None:  # parents only among each node's strongest partners
            forbidden |= ~strongest_partners(state.data, state.names, candidates)
            forbidden &= ~required
        self.required = required
        self._locals: dict[tuple[int, tuple[int, ...]], float] = {}
        self._local_score = None  # its machine code once called (see entry_point)
        arity = np.ones(n)  # what a parent multiplies its child's configurations by
        for v in state.data.discrete_names:
            arity[state.index[v]] = state.data.arity(v)
        self.knowledge = _p.Knowledge(
            forbidden,
            required,
            state.max_parents,
            state.by_node,
            state.rank,
            arity,
            float(max_configurations),
        )
        scratch = state.scratch
        self.workspace = _p.Workspace(
            scratch._replace(  # one scoring row, parent lists up to n long
                cfg2=scratch.cfg2[:1],
                counts=scratch.counts[:1],
                tmp=np.empty((1, n + 1), dtype=np.int64),
            ),
            np.empty(n + 1, dtype=np.int64),
            np.zeros(n, dtype=np.bool_),
            np.zeros(n, dtype=np.bool_),
            np.empty(n),
            np.empty(n, dtype=np.int64),
            np.empty(n),
            np.empty(n),
            np.empty(n),
            np.empty(n),
        )
        self.trees = _trees(n, 16 * n, 64 * n, 64 * n)
        #: what the progress bar shows beside a pass's own counts (the best score so far)
        self.shown: dict = {}
        self.tree_resets = 0
        self._emptied = False  # the trees were emptied and no kernel call has finished since
        #: new local scores a kernel call may compute before it pauses for a budget check
        self.pace = Pace(1 << 40, first=1024)
        self._shown_at = time.perf_counter()  # when the bar last showed the work
        self._entries: dict = {}  # (kernel, argument layouts) -> machine code

    def _make_room(self) -> None:
        """A kernel found a tree pool full: double the pools, or empty the trees when they
        would pass :data:`TREE_BYTES` (they are rebuilt as the search needs them). Pools
        emptied that fill again before a kernel call finishes are too small for one call,
        and grow whatever the bound."""
        trees = self.trees
        if 2 * _tree_bytes(trees) > TREE_BYTES and not self._emptied:
            trees.root[:] = -1
            trees.used[:] = 0
            self.tree_resets += 1
            self._emptied = True
            return
        grown = []
        for field, array in zip(_p.Trees._fields, trees):
            if field in ("root", "used"):
                grown.append(array)
                continue
            bigger = np.full(2 * array.size, -1 if field == "cand_child" else 0, array.dtype)
            bigger[: array.size] = array
            grown.append(bigger)
        self.trees = _p.Trees(*grown)

    def run(self, kernel, *args):
        """``kernel(scoring, knowledge, workspace, trees, *args)``, again after making room
        whenever it reports a full tree pool (:data:`~bnfs._kernels.permutation.TREES_FULL`
        as its status or first value, or a NaN score). A call pauses after
        :attr:`pace` new local scores and goes on, the trees keeping its work, while the
        budget lasts; None when the budget ran out in a call (on wide data, one node's
        best place in the order is millions of scores)."""
        counters = self.workspace.scratch.counters
        while True:
            used = self.trees.used
            used[_p.PAUSE_AT] = counters[_c.N_SCORES] + self.pace.size
            with self.pace.timing():
                out = self._machine(kernel, args)
            used = self.trees.used
            first = out[0] if isinstance(out, tuple) else out
            full = np.isnan(first) if isinstance(first, float) else first == _p.TREES_FULL
            if not full:
                self._emptied = False
                used[_p.PAUSE_AT] = 0
                return out
            if used[_p.PAUSED]:
                used[_p.PAUSED] = 0
                self._show_work()
                if self.budget.spent():
                    used[_p.PAUSE_AT] = 0
                    return None
                continue
            self._make_room()

    def _show_work(self) -> None:
        """At a pause inside a kernel call, at most every :data:`SHOW_EVERY` seconds: the
        bar shows the local scores computed so far (and its clock moves), so a first pass
        that runs for a minute on wide data (coil2000: 46 s before its first move) is seen
        to work from its first seconds."""
        now = time.perf_counter()
        if now - self._shown_at < SHOW_EVERY:
            return
        self._shown_at = now
        scores = int(self.workspace.scratch.counters[_c.N_SCORES])
        self.bar.set_postfix({**self.shown, "scores": f"{scores:,}"})

    def _machine(self, kernel, args: tuple):
        """``kernel(scoring, knowledge, workspace, trees, *args)``, through its machine code
        once the kernel has run with arguments of these layouts (the bundles keep theirs:
        grown tree pools have the same types)."""
        every = (self.scoring, self.knowledge, self.workspace, self.trees, *args)
        key = (kernel, *(_layout(a) for a in args))
        entry = self._entries.get(key)
        if entry is None:
            out = kernel(*every)
            self._entries[key] = entry_point(kernel, every)
            return out
        return entry(*every)

    def score(self, order: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """(kernel total, parent table, counts) of the DAG an order gives. When the budget
        runs out first, the nodes not reached along the order have no parents (and the
        total counts them so)."""
        n = self.state.n
        parents = np.full((n, max(self.state.max_parents, 1)), -1, dtype=np.int64)
        npar = np.full(n, _p.TREES_FULL, dtype=np.int64)
        scores = np.empty(n)
        total = self.run(_p.order_parents, order, parents, npar, scores)
        if total is None:
            missing = np.flatnonzero(npar == _p.TREES_FULL)
            npar[missing] = 0
            _p.parentless(self.scoring, self.workspace, missing, scores)
            total = float(scores.sum())
        self.workspace.placed[:] = scores  # what best_place reads
        return total, parents, npar

    def local(self, node: str, parents: list[str]) -> float:
        """The local score (with the prior) of a node and parents given by name, kept for
        the search's later asks (backward equivalence search asks for the same families
        again at every step, and each compiled call costs a dispatch on its bundles)."""
        state = self.state
        index = tuple(sorted((state.index[p] for p in parents), key=lambda u: state.rank[u]))
        key = (state.index[node], index)
        value = self._locals.get(key)
        if value is None:
            args = (self.scoring, self.workspace, key[0], np.array(index, dtype=np.int64))
            if self._local_score is None:
                value = _p.local_score(*args)
                self._local_score = entry_point(_p.local_score, args)
            else:
                value = self._local_score(*args)
            self._locals[key] = value
        return value

    def dag(self, parents: np.ndarray, npar: np.ndarray, learning: dict | None = None) -> DAG:
        """The DAG of a parent table (rows of ``parents``, counts ``npar``)."""
        names = self.state.names
        return DAG(
            names,
            [(names[int(u)], names[v]) for v in range(self.state.n) for u in parents[v, : npar[v]]],
            learning=learning,
        )

    def order_of(self, dag: DAG, order: np.ndarray) -> np.ndarray | None:
        """A topological order of ``dag`` plus the required arcs that keeps the nodes of
        ``order`` where it can (None when the two conflict)."""
        state = self.state
        place = np.empty(state.n, dtype=np.int64)
        place[order] = np.arange(state.n)
        children = [set(np.flatnonzero(self.required[v]).tolist()) for v in range(state.n)]
        for u, v in dag.arcs:
            children[state.index[u]].add(state.index[v])
        return _topological(children, place)

    def start(self, rng: np.random.Generator) -> np.ndarray:
        """A random order of the nodes (drawn over the nodes sorted by name, so it does not
        depend on the column order) in which every required arc points forward."""
        by_name = self.state.by_node
        shuffled = by_name[rng.permutation(by_name.size)]
        place = np.empty(shuffled.size, dtype=np.int64)
        place[shuffled] = np.arange(shuffled.size)
        children = [set(np.flatnonzero(self.required[v]).tolist()) for v in range(by_name.size)]
        return _topological(children, place)  # the whitelist is acyclic (prepare checks)


def _work(state: SearchState) -> float:
    """A search's work so far, the same on every machine: local scores computed times the
    rows each one counts."""
    return float(state.counters[_c.N_SCORES]) * state.data.n_rows


def learn_from_starts(
    who: str,
    make_search,
    unit: str,
    data,
    score,
    *,
    max_parents,
    blacklist,
    whitelist,
    iss,
    prior,
    beta,
    restarts,
    seed,
    max_time,
    progress,
    arguments: dict,
    restart_work=None,
    max_configurations=None,
    candidates=None,
) -> DAG:
    """What BOSS and GRaSP share around their search: validate the arguments, run
    ``make_search(state, arc weights, budget, bar).run_from`` from ``restarts`` + 1 random
    starting orders (drawn by name, so the column order does not matter), keep the best DAG
    and record the provenance (``arguments``: the search's own). With ``restart_work``, a
    further start runs only while the work done so far and one more start's share of it
    stay within it (:func:`_work`: deterministic, unlike time). With
    ``max_configurations``, grow-shrink offers no candidate parent that would give a family
    more parent configurations than that; with ``candidates``, a node's parents come from
    its ``candidates`` strongest partners only (:mod:`bnfs.search._candidates`)."""
    state = prepare(data, score, iss, max_parents, blacklist, whitelist, None)
    restarts = check_int(restarts, "restarts", 0, maximum=MAX_RESTARTS, what="random starts")
    if restart_work is not None:
        restart_work = check_float(restart_work, "restart_work", 0.0)
    if max_configurations is not None:
        max_configurations = check_float(max_configurations, "max_configurations", 1.0)
    if candidates is not None:
        candidates = check_int(candidates, "candidates", 1)
    graph = graph_prior(state.score, prior, beta, state.names)
    offset = state.score_offset + graph.constant(learning=True)
    rng = check_seed(seed)
    budget = Budget(max_time)
    best, runs = None, []
    disable = None if progress is None else not progress
    with (
        budget.catching_interrupts(),
        tqdm(desc=who, unit=unit, disable=disable, leave=False) as bar,
    ):
        search = make_search(
            state,
            graph.weights(learning=True),
            budget,
            bar,
            np.inf if max_configurations is None else max_configurations,
            candidates,
        )
        for start in range(restarts + 1):
            if start and budget.spent():
                break
            work = _work(state)
            if start and restart_work is not None and work * (start + 1) / start > restart_work:
                break
            bar.set_description(f"{who} start {start + 1}/{restarts + 1}", refresh=False)
            order, counts = search.run_from(search.start(rng))
            total, parents, npar = search.score(order)
            runs.append({"score": total + offset, **counts})
            logger.info("%s start %d: score %.4f", who, start, runs[-1]["score"])
            if best is None or total > best[0] + _p.TOL * max(1.0, abs(best[0])):
                best = (total, parents, npar, order)
            search.shown = {"best": f"{best[0] + offset:.2f}"}  # shown by later passes too
            bar.set_postfix(search.shown)
    budget.warn(who)
    total, parents, npar, order = best
    names = state.names
    learning = {
        "score": state.score,
        "arguments": {
            "max_parents": state.max_parents,
            "max_configurations": max_configurations,
            "candidates": candidates,
            "iss": state.iss,
            "prior": graph.name,
            "beta": graph.argument(),
            **arguments,
            "restarts": restarts,
            "restart_work": restart_work,
            "max_time": max_time,
            "blacklist": sorted(state.blacklist),
            "whitelist": sorted(state.whitelist),
        },
        "order": [names[v] for v in order],
        "starts": runs,
        "work": _work(state),
        "stopped_early": budget.reason,
        "n_scores": int(state.counters[_c.N_SCORES]),
        "cache_hits": int(state.counters[_c.N_HITS]),
        "score_value": total
        + offset
        - graph.shrinking({v: parents[v, : npar[v]].tolist() for v in range(state.n)}),
    }
    return search.dag(parents, npar, learning)
