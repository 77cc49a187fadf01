"""The array state of a score-based search, shared by every search front end.

Holds the parent sets, the Pearce-Kelly order, the candidate table with its delta cache
and the local-score cache; moves run in :mod:`bnfs._kernels.hill_climbing`.
"""

from __future__ import annotations

import numpy as np

from bnfs._budget import Budget, Pace
from bnfs._kernels import hill_climbing as _hc
from bnfs._kernels.score_cache import key_set, scoring_of
from bnfs._validate import cycle_text, directed_cycle
from bnfs._vocabulary import score_kind
from bnfs.graphs.graph import DAG
from bnfs.graphs.order import OnlineTopologicalOrder
from bnfs.search._knowledge import arc_knowledge, check_parent_lists
from bnfs.stats.scores import (
    counts_scratch_size,
    level_statistics,
    model_statistics,
    resolve_score,
    row_mass,
    row_weights,
)
from bnfs.tables._data import Dataset

INITIAL_WIDTH = 8  # parent slots per node before the table is widened
SCAN_ORDERS = ("names", "columns", "scores")


class SearchState:
    """Parents, order, candidates and caches of one search over discrete data.

    Parameters
    ----------
    data : Dataset (discrete)
    score, iss : as :class:`bnfs.stats.scores.Scorer`
    max_parents : int
    blacklist, whitelist : list of (from, to) name pairs (already validated)
    start : DAG or None
    threads : int
        Scratch rows for the compiled scoring threads (see :mod:`bnfs._kernels.hill_climbing`).
    scan_order : {"names", "columns", "scores"}
        The order in which moves are scanned, which breaks ties: the nodes sorted by name
        (the same graph for any order of the columns), in column order (bnlearn's), or by
        their scores without and with one parent (:meth:`_score_order`).
    """

    def __init__(
        self,
        data: Dataset,
        score: str,
        iss: float,
        max_parents: int,
        blacklist,
        whitelist,
        start: DAG | None,
        threads: int = 1,
        scan_order: str = "names",
    ):
        self.data = data
        self.names = data.names
        self.index = {v: i for i, v in enumerate(self.names)}
        if scan_order not in SCAN_ORDERS:
            raise ValueError(f"scan_order must be one of {SCAN_ORDERS}, got {scan_order!r}")
        # nodes in scan order, and each node's place in it
        self.by_node = (
            np.arange(len(self.names))
            if scan_order == "columns"
            else np.argsort(np.array(self.names, dtype=object), kind="stable")
        ).astype(np.int64)  # "scores": by name until the candidates are set
        self.rank = np.empty(len(self.names), dtype=np.int64)
        self.rank[self.by_node] = np.arange(len(self.names))
        self.score, self.kind, self.iss = resolve_score(data, score, iss)
        n = self.n = len(self.names)
        #: what the kernels score: discrete codes and arities; for Gaussian scores the
        #: covariance of the unit-scaled columns and [rows] (see bnfs._kernels.covariance);
        #: for conditional-Gaussian ones the variables-by-rows table and the arities
        self.codes, self.arities, log_scale = model_statistics(data, self.kind)
        #: the rows' weights in the discrete and conditional-Gaussian scores (empty: each
        #: row counts once)
        self.weights = row_weights(data)
        self.levels = level_statistics(self.codes, self.arities, self.kind, self.weights)
        self.score_offset = -row_mass(data) * float(log_scale.sum())
        self.max_parents = max_parents
        self.blacklist, self.whitelist = list(blacklist), list(whitelist)  # names, as given
        known = arc_knowledge(data, self.index, blacklist, whitelist, start)
        #: index pairs no arc may take (blacklisted, reverses of whitelisted, continuous ->
        #: discrete) and those every graph has (whitelisted)
        self._black, self.white = set(known.forbidden), set(known.required)
        arcs = known.arcs
        self.order = OnlineTopologicalOrder(n, capacity=max(2 * n, 16))
        for u, v in arcs:
            if not self.order.try_add(u, v):
                named = [(self.names[a], self.names[b]) for a, b in arcs]
                cycle = directed_cycle(named, both_ways_undirected=False)
                alone = directed_cycle(whitelist, both_ways_undirected=False)
                where = "whitelist forms" if alone else "whitelist and start graph form"
                raise ValueError(f"the {where} a directed cycle: {cycle_text(cycle)}")
        indeg = np.bincount([v for _, v in arcs], minlength=n) if arcs else np.zeros(n, int)
        if indeg.max(initial=0) > max_parents:
            v = int(np.argmax(indeg))
            raise ValueError(
                f"start graph and whitelist give {self.names[v]!r} {indeg[v]} "
                f"parents, more than max_parents={max_parents}"
            )
        # the parent table starts narrow and is widened on demand (PARENT_TABLE_FULL)
        width = max(1, min(max_parents, max(INITIAL_WIDTH, int(indeg.max(initial=0)))))
        self.parents = np.full((n, width), -1, dtype=np.int64)
        self.npar = np.zeros(n, dtype=np.int64)
        self.phash = np.zeros(n, dtype=np.int64)
        for u, v in arcs:
            self.parents[v, self.npar[v]] = u
            self.npar[v] += 1
            self.phash[v] ^= _hc.parent_key(u)
        self.ghash = np.zeros(1, dtype=np.int64)
        for u, v in arcs:
            self.ghash[0] ^= _hc.arc_key(u, v, n)
        self.threads = threads
        #: the cache, counters and scratch rows (one per scoring thread) of the kernels
        self.scratch = _hc.new_scratch(
            data.n_rows, counts_scratch_size(data.n_rows), width, threads
        )
        self.node_score = np.zeros(n)
        #: the graph prior's arc weights (:meth:`bnfs.stats.priors.GraphPrior.weights`), in every
        #: node score and delta; set before the candidates, by :meth:`set_prior`
        self.prior_weights = np.zeros((1, 1))
        self.graph_prior = None
        self.scoring = scoring_of(
            self.codes,
            self.arities,
            self.kind,
            self.iss,
            self.prior_weights,
            self.levels,
            self.weights,
            score_kind(self.score).equivalent,
        )
        self.best_parents = None  # the best graph a tabu search has seen (see climb)
        self.best_npar = None
        #: "scores": the scan order waits for the first candidate lists (set_candidates)
        self._order_by_scores = scan_order == "scores"

    def _score_order(self, candidates: list[np.ndarray], budget: Budget | None) -> np.ndarray:
        """The nodes by their local score without parents, highest first, ties by their
        mean score with one of their ``candidates`` as parent (highest first), then by
        name: Kitson & Constantinou's data-derived order (Tabu-Stable), the same for any
        order of the columns. Earlier nodes win tied moves, so low-entropy variables become
        the parents of score-equivalent twins. The single-parent scores go to the cache,
        where the search's first deltas find them. Once the ``budget`` is spent, the nodes
        left are ordered by their score without parents and their name only."""
        n = self.n
        empty = np.full(1, -1, dtype=np.int64)
        alone, with_one = np.empty(n), np.empty(n)
        for v in range(n):
            key = _hc.node_key(v)
            alone[v] = _hc.cached_score(self.scoring, self.scratch, v, empty, 0, key)
            with_one[v] = alone[v]
            if budget is not None and budget.spent():
                continue  # out of time: the remaining ties go by name
            us = np.asarray(candidates[v], dtype=np.int64)
            gains = np.zeros(max(us.size, 1))
            removing = np.zeros(us.size, dtype=np.bool_)
            _hc.cached_families(
                self.scoring, self.scratch, v, us, removing, us.size, empty, 0, key, alone[v], gains
            )
            with_one[v] = alone[v] + (gains[: us.size].mean() if us.size else 0.0)
        by_name = np.empty(n, dtype=np.int64)
        by_name[np.argsort(np.array(self.names, dtype=object), kind="stable")] = np.arange(n)
        return np.lexsort((by_name, -with_one, -alone)).astype(np.int64)

    def widen(self) -> None:
        """Double the parent table (up to max_parents columns)."""
        old = self.parents.shape[1]
        width = min(max(2 * old, 1), max(self.max_parents, 1))
        if width <= old:  # pragma: no cover - kernels only ask below max_parents
            raise RuntimeError("internal error: parent table already at max_parents")
        grown = np.full((self.n, width), -1, dtype=np.int64)
        grown[:, :old] = self.parents
        self.parents = grown
        self.scratch = self.scratch._replace(
            tmp=np.empty((self.threads, width + 1), dtype=np.int64)
        )
        if self.best_parents is not None:
            best = np.full((self.n, width), -1, dtype=np.int64)
            best[:, :old] = self.best_parents
            self.best_parents = best

    @property
    def counters(self) -> np.ndarray:
        """The kernels' int64 counters (slots in :mod:`bnfs._kernels.codes`)."""
        return self.scratch.counters

    @property
    def graph(self) -> _hc.Graph:
        """The current graph, for the kernels (the parent table may be widened: fetch it
        again after :meth:`widen`)."""
        return _hc.Graph(self.parents, self.npar, self.phash, self.node_score, self.max_parents)

    @property
    def candidates(self) -> _hc.Candidates:
        """The candidate table and its deltas, for the kernels (after :meth:`set_candidates`)."""
        return _hc.Candidates(
            self.cand,
            self.n_cand,
            self.rev,
            self.fixed,
            self.in_graph,
            self.delta,
            self.rank,
            self.by_node,
            self.by_ptr,
            self.by_v,
            self.by_c,
        )

    def tabu(self, graphs: np.ndarray, max_tabu: int, best_score: np.ndarray) -> _hc.Tabu:
        """A tabu search's bundle: the list ``graphs`` (empty: hill climbing), its patience
        and the best graph (``best_parents``/``best_npar`` must be set, ``best_score[0]``)."""
        return _hc.Tabu(graphs, max_tabu, self.ghash, self.best_parents, self.best_npar, best_score)

    # -- candidates ---------------------------------------------------------------------------
    def forbidden(self, u: int, v: int) -> bool:
        return (u, v) in self._black

    def forbidden_arcs(self) -> set[tuple[int, int]]:
        """Every arc the search may not add: the blacklist, the reverses of whitelisted
        arcs and, on mixed data, continuous parents of discrete nodes."""
        return set(self._black)

    def arc_dicts(self):
        """Typed dicts keyed by ``u * n + v`` for the kernels: (forbidden arcs, whitelisted
        arcs that may not be removed or reversed)."""

        def to_dict(pairs):
            keys = [int(u) * self.n + int(v) for u, v in pairs]
            return key_set(np.array(keys, dtype=np.int64))

        return to_dict(self._black), to_dict(self.white)

    def all_candidates(self) -> list[np.ndarray]:
        """Every other node that the blacklist allows, per node."""
        nodes = np.arange(self.n, dtype=np.int64)
        black = self._pair_keys(self._black)
        return [nodes[self._allowed(nodes, v, black)] for v in range(self.n)]

    def _pair_keys(self, pairs) -> np.ndarray:
        """The arcs ``pairs`` as sorted keys ``u * n + v``."""
        keys = np.fromiter((u * self.n + v for u, v in pairs), dtype=np.int64, count=len(pairs))
        keys.sort()
        return keys

    def _allowed(self, us: np.ndarray, v: int, black: np.ndarray) -> np.ndarray:
        """Which of the nodes ``us`` may be parents of ``v``: not ``v``, arc not in ``black``
        (sorted keys, :meth:`_pair_keys`)."""
        keep = us != v
        if black.size:
            keep &= ~_sorted_contains(black, us * self.n + v)
        return keep

    def current_parents(self, v: int) -> np.ndarray:
        return self.parents[v, : self.npar[v]].copy()

    def set_candidates(self, candidates: list[np.ndarray], budget: Budget | None = None) -> bool:
        """Restrict each node's parents to ``candidates[v]`` (current parents are always
        kept) and recompute all deltas; False when the ``budget`` ran out first (see
        :meth:`refresh_all`)."""
        n = self.n
        black = self._pair_keys(self._black)
        lists = []
        for v in range(n):
            us = np.asarray(candidates[v], dtype=np.int64).reshape(-1)
            us = us[self._allowed(us, v, black)]
            parents = self.parents[v, : self.npar[v]]
            lists.append(np.concatenate([us, parents[~np.isin(parents, us)]]))
        if self._order_by_scores and any(c.size for c in lists):  # once, from the first lists
            self.by_node = self._score_order(lists, budget)
            self.rank[self.by_node] = np.arange(n)
            self._order_by_scores = False
        self.n_cand = np.array([c.size for c in lists], dtype=np.int64)
        width = max(1, int(self.n_cand.max(initial=0)))
        self.cand = np.full((n, width), -1, dtype=np.int64)
        self.in_graph = np.zeros((n, width), dtype=np.uint8)
        for v, cands in enumerate(lists):
            self.cand[v, : cands.size] = cands
            if self.npar[v]:
                self.in_graph[v, : cands.size] = np.isin(cands, self.parents[v, : self.npar[v]])
        del lists
        self.fixed = np.zeros((n, width), dtype=np.uint8)
        for u, v in self.white:
            self.fixed[v, np.flatnonzero(self.cand[v, : self.n_cand[v]] == u)] = 1
        # the same table by parent, children in scan order (the scan of hc_opt_step; see
        # tests/test_bnlearn_parity.py), and each arc's reverse
        self.by_ptr, self.by_v, self.by_c, self.rev = _hc.index_candidates(
            self.cand, self.n_cand, self.by_node
        )
        self.delta = np.zeros((n, width))
        return self.refresh_all(budget)

    def set_prior(self, graph) -> None:
        """Score with the graph prior ``graph`` (a :class:`bnfs.stats.priors.GraphPrior`): its arc
        weights enter every node score and delta, its constant the reported total. Call it
        before the candidates are set."""
        self.graph_prior = graph
        self.prior_weights = graph.weights(learning=True)
        self.scoring = self.scoring._replace(prior=self.prior_weights)
        self.score_offset += graph.constant(learning=True)

    def refresh(self, *nodes: int) -> None:
        """Recompute the score and deltas of ``nodes``, in that order."""
        rows = np.array(nodes, dtype=np.int64)
        _hc.refresh_rows(self.scoring, self.scratch, self.graph, self.candidates, rows)

    def refresh_all(self, budget: Budget | None = None) -> bool:
        """Recompute every node's score and deltas, the last in scan order first (see
        :func:`bnfs._kernels.hill_climbing.refresh_rows`), in calls between which the
        ``budget`` is checked: on wide data this first scoring of every candidate arc is
        most of a search. When the budget runs out, the nodes not reached get their score
        only and no move (deltas of -inf), so the total stays that of the graph, and False
        is returned."""
        rows = np.ascontiguousarray(self.by_node[::-1], dtype=np.int64)
        if budget is None:  # one call
            _hc.refresh_rows(self.scoring, self.scratch, self.graph, self.candidates, rows)
            return True
        pace, done = Pace(rows.size), 0
        while done < rows.size:
            if budget.spent():
                rest = rows[done:]
                no_candidates = self.candidates._replace(n_cand=np.zeros_like(self.n_cand))
                _hc.refresh_rows(self.scoring, self.scratch, self.graph, no_candidates, rest)
                self.delta[rest] = -np.inf
                return False
            with pace.timing():
                chunk = rows[done : done + pace.size]
                _hc.refresh_rows(self.scoring, self.scratch, self.graph, self.candidates, chunk)
            done += chunk.size
        return True

    # -- moves --------------------------------------------------------------------------------
    def run(self, max_steps: int, tabu: np.ndarray, max_tabu: int, best_score) -> int:
        """Run the compiled search for up to ``max_steps`` moves; return its status.
        ``best_parents``/``best_npar`` must be set (the tabu search keeps its best there)."""
        while True:
            _hc.search(
                self.scoring,
                self.scratch,
                self.graph,
                self.order.arrays,
                self.candidates,
                self.tabu(tabu, max_tabu, best_score),
                max_steps,
            )
            status = int(self.counters[_hc.STATUS])
            if status == _hc.ARC_POOL_FULL:
                self.order.reserve()
            elif status == _hc.PARENT_TABLE_FULL:
                self.widen()
            else:
                return status

    def toggle(self, v: int, c: int) -> bool:
        """Add or remove candidate ``c`` of ``v`` (outside the compiled loop); False when
        the move is not allowed (cycle, whitelist, max_parents)."""
        u = int(self.cand[v, c])
        if self.in_graph[v, c]:
            if self.fixed[v, c]:
                return False
            self.order.remove(u, v)
            _hc.set_parent(v, u, c, False, self.parents, self.npar, self.in_graph, self.phash)
        else:
            if self.npar[v] >= self.max_parents or not self.order.try_add(u, v):
                return False
            _hc.set_parent(v, u, c, True, self.parents, self.npar, self.in_graph, self.phash)
        self.ghash[0] ^= _hc.arc_key(u, v, self.n)
        self.refresh(v)
        return True

    def reverse(self, v: int, c: int) -> bool:
        """Reverse the arc from candidate ``c`` into ``v``; False when not allowed."""
        u, rc = int(self.cand[v, c]), int(self.rev[v, c])
        if (
            not self.in_graph[v, c]
            or self.fixed[v, c]
            or rc < 0
            or self.npar[u] >= self.max_parents
        ):
            return False
        if not self.order.reverse(u, v):
            return False
        _hc.set_parent(v, u, c, False, self.parents, self.npar, self.in_graph, self.phash)
        _hc.set_parent(u, v, rc, True, self.parents, self.npar, self.in_graph, self.phash)
        self.ghash[0] ^= _hc.arc_key(u, v, self.n) ^ _hc.arc_key(v, u, self.n)
        self.refresh(*sorted((u, v), key=lambda w: -self.rank[w]))  # last first: see refresh_rows
        return True

    def set_parents(self, parents: np.ndarray, npar: np.ndarray) -> None:
        """Replace the whole graph (e.g. by the best one a tabu search saw)."""
        for v in range(self.n):
            for u in self.current_parents(v):
                self.order.remove(int(u), v)
        self.parents[:] = -1
        self.npar[:] = 0
        self.phash[:] = 0
        self.ghash[0] = 0
        self.in_graph[:] = 0
        for v in range(self.n):
            for u in parents[v, : npar[v]]:
                if not self.order.try_add(int(u), v):  # pragma: no cover - parents come from a DAG
                    raise RuntimeError("internal error: stored graph is cyclic")
                self.parents[v, self.npar[v]] = u
                self.npar[v] += 1
                self.phash[v] ^= _hc.parent_key(int(u))
                self.ghash[0] ^= _hc.arc_key(int(u), v, self.n)
                c = np.flatnonzero(self.cand[v, : self.n_cand[v]] == u)
                self.in_graph[v, c] = 1
        self.refresh_all()

    def parent_lists(self, parents=None, npar=None) -> list[list[int]]:
        """Each node's parents in table order (what a checkpoint stores), of the current
        graph or of the (parents, npar) table given."""
        if parents is None:
            parents, npar = self.parents, self.npar
        return [parents[v, : npar[v]].tolist() for v in range(self.n)]

    def parent_table(self, lists) -> tuple[np.ndarray, np.ndarray]:
        """``parent_lists`` back as a (parents, npar) pair of the table's current width,
        widening the table when a list is longer. A ValueError says what is wrong with lists
        that are not a DAG this search could reach (unknown or repeated parents, a cycle,
        more than ``max_parents``, a blacklisted arc, a whitelisted arc missing)."""
        check_parent_lists(lists, self.names, self.max_parents, self._black, self.white)
        npar = np.array([len(p) for p in lists], dtype=np.int64)
        while self.parents.shape[1] < npar.max(initial=0):
            self.widen()
        table = np.full_like(self.parents, -1)
        for v, p in enumerate(lists):
            table[v, : len(p)] = p
        return table, npar

    # -- results ------------------------------------------------------------------------------
    @property
    def moves(self) -> int:
        """Moves applied so far (by every kernel)."""
        return int(self.counters[_hc.N_MOVES])

    def work_done(self) -> dict[str, int]:
        """Provenance counts: local scores computed, cache hits, moves."""
        return {
            "n_scores": int(self.counters[_hc.N_SCORES]),
            "cache_hits": int(self.counters[_hc.N_HITS]),
            "moves": self.moves,
        }

    @property
    def total(self) -> float:
        """The graph's score (on Gaussian data, of the unscaled columns)."""
        return self.kernel_total + self.score_offset

    @property
    def score_value(self) -> float:
        """The graph's score as :func:`bnfs.score` gives it: :attr:`total` under the exact
        graph prior, where the search scores "cs" certainties shrunk a hair toward 1/3
        (:meth:`bnfs.stats.priors.GraphPrior.shrinking`)."""
        if self.graph_prior is None:
            return self.total
        parents = {v: self.current_parents(v).tolist() for v in range(self.n)}
        return self.total - self.graph_prior.shrinking(parents)

    @property
    def kernel_total(self) -> float:
        """The sum of the local scores the kernels hold: :attr:`total` less the constant
        :attr:`score_offset` (the unit scaling of continuous columns). Every score a kernel
        compares with its own sums (the tabu search's best) must be in these units."""
        return float(self.node_score.sum())

    def arcs(self) -> list[tuple[str, str]]:
        return [
            (self.names[int(u)], self.names[v])
            for v in range(self.n)
            for u in sorted(self.current_parents(v))
        ]

    def to_dag(self, learning: dict) -> DAG:
        return DAG(self.names, self.arcs(), learning=learning)


def _sorted_contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each of ``keys`` is in ``sorted_keys`` (ascending)."""
    if sorted_keys.size == 0:
        return np.zeros(keys.shape, dtype=np.bool_)
    at = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[at] == keys
