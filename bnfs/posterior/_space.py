"""The search space of the structure posterior and its score tables.

Each node's candidate parents come from a skeleton (PC-stable's by default, ``learn``'s, or
a graph given), at most ``max_candidates`` of them (the strongest by single-parent score
gain), with whitelisted parents always in; with ``plus1`` a parent set may also hold one
node from outside the candidates (Kuipers, Suter & Moffa 2022). Every allowed set's local
score is computed once, in the compiled tables of :mod:`bnfs._kernels.order_mcmc`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bnfs._kernels import order_mcmc as _om
from bnfs._validate import check_allocation
from bnfs.graphs.graph import DAG, PDAG

#: what ``space`` may name
SPACES = ("pc", "learn", "pc+learn", "full")
#: the most table entries (parent sets, scored or past max_parents) a search space may hold:
#: 2 GB of tables, hours of scoring on thousands of rows
MAX_SETS = 100_000_000


@dataclass
class SearchSpace:
    """Candidate parents and score tables of every node, as the chains read them.

    ``cand[v, :ncand[v]]`` are ``v``'s candidates and ``extras[v, :n_extras[v]]`` the nodes
    outside them that may be its one further parent; ``offset[v]`` is where ``v``'s block of
    ``1 + n_extras[v]`` tables of ``2**ncand[v]`` entries starts in ``raw`` (the local scores)
    and ``zeta`` (their log-sums over subsets)."""

    cand: np.ndarray
    ncand: np.ndarray
    extras: np.ndarray
    n_extras: np.ndarray
    offset: np.ndarray
    raw: np.ndarray
    zeta: np.ndarray
    max_parents: int

    @property
    def kernel_space(self) -> tuple:
        return (self.cand, self.ncand, self.extras, self.n_extras, self.zeta, self.offset)

    @property
    def n_sets(self) -> int:
        """Allowed parent sets (finite scores) over all nodes."""
        return int(np.isfinite(self.raw).sum())

    def candidates(self, names) -> dict[str, list[str]]:
        return {
            names[v]: [names[u] for u in self.cand[v, : self.ncand[v]]] for v in range(len(names))
        }


def skeleton_of(space, data, names, seed) -> list[set[int]]:
    """Each node's neighbours in the skeleton ``space`` names (or is)."""
    index = {v: i for i, v in enumerate(names)}
    if isinstance(space, (DAG, PDAG)):
        if set(space.nodes) != set(names):
            raise ValueError(
                "space must be a graph over exactly the data's columns "
                f"(missing {sorted(set(names) - set(space.nodes))[:5]}, "
                f"extra {sorted(set(space.nodes) - set(names))[:5]})"
            )
        graph = space
    elif space == "full":
        return [set(range(len(names))) - {v} for v in range(len(names))]
    elif space == "pc+learn":
        both = zip(skeleton_of("pc", data, names, seed), skeleton_of("learn", data, names, seed))
        return [a | b for a, b in both]
    elif space == "pc":
        from bnfs.constraint import pc_stable

        graph = pc_stable(data, progress=False)
    elif space == "learn":
        from bnfs.search.automatic import learn

        graph = learn(data, seed=seed, progress=False)
    else:
        raise ValueError(f"space must be one of {SPACES} or a bnfs DAG or PDAG, got {space!r}")
    neighbours = [set() for _ in names]
    for u, v in [*graph.arcs, *getattr(graph, "edges", [])]:
        neighbours[index[u]].add(index[v])
        neighbours[index[v]].add(index[u])
    return neighbours


def _single_gains(state, v: int, others: np.ndarray) -> np.ndarray:
    """The score gain of each node of ``others`` as ``v``'s only parent."""
    out = np.empty((others.size + 1, 1))
    _om.family_tables(
        state.scoring, state.scratch, v, np.zeros(0, np.int64), 0, others, others.size, 1, 0, out
    )
    return out[1:, 0] - out[0, 0]


def candidate_lists(state, neighbours, max_candidates: int) -> list[np.ndarray]:
    """Each node's candidate parents: its skeleton neighbours that may be its parents, the
    strongest ``max_candidates`` by single-parent score gain (whitelisted parents first and
    always kept), sorted."""
    forbidden, required = state.forbidden_arcs(), state.white
    lists = []
    for v in range(state.n):
        must = sorted(u for u, w in required if w == v)
        rest = np.array(
            sorted(u for u in neighbours[v] if (u, v) not in forbidden and u not in must),
            dtype=np.int64,
        )
        room = max(max_candidates - len(must), 0)
        if rest.size > room:
            gains = _single_gains(state, v, rest)
            rest = rest[np.argsort(-gains, kind="stable")[:room]]
        lists.append(np.array(sorted([*must, *rest.tolist()]), dtype=np.int64))
    return lists


def build(state, lists, plus1: bool, max_parents: int, budget, bar) -> SearchSpace | None:
    """The search space of ``lists`` (each node's candidates) with its score tables, or None
    when ``budget`` ran out while scoring."""
    n = state.n
    forbidden, required = state.forbidden_arcs(), state.white
    width = max((c.size for c in lists), default=0)
    cand = np.full((n, max(width, 1)), -1, dtype=np.int64)
    ncand = np.array([c.size for c in lists], dtype=np.int64)
    extras = np.full((n, n), -1, dtype=np.int64)
    n_extras = np.zeros(n, dtype=np.int64)
    offset = np.zeros(n + 1, dtype=np.int64)
    for v, c in enumerate(lists):
        cand[v, : c.size] = c
        if plus1:
            inside = set(c.tolist()) | {v}
            outside = [u for u in range(n) if u not in inside and (u, v) not in forbidden]
            extras[v, : len(outside)] = outside
            n_extras[v] = len(outside)
        offset[v + 1] = offset[v] + (1 + n_extras[v]) * (1 << int(ncand[v]))
    check_allocation(
        16.0 * offset[n],
        "the posterior's score tables",
        "lower max_candidates, or pass plus1=False",
    )
    if offset[n] > MAX_SETS:
        raise ValueError(
            f"the search space holds {offset[n]:,} parent sets to score, more than "
            f"{MAX_SETS:,}: lower max_candidates (now {width}), set max_parents, or pass "
            "plus1=False"
        )
    raw = np.empty(offset[n])
    for v, c in enumerate(lists):
        if budget.spent():
            return None
        k, size = int(ncand[v]), 1 << int(ncand[v])
        must = 0
        for i, u in enumerate(c.tolist()):
            if (u, v) in required:
                must |= 1 << i
        block = raw[offset[v] : offset[v + 1]].reshape(1 + n_extras[v], size)
        _om.family_tables(
            state.scoring, state.scratch, v, c, k, extras[v], n_extras[v], max_parents, must, block
        )
        bar.update(1)
    zeta = raw.copy()
    for v in range(n):
        k = int(ncand[v])
        _om.log_zeta(zeta[offset[v] : offset[v + 1]].reshape(-1, 1 << k), k)
    return SearchSpace(cand, ncand, extras, n_extras, offset[:n], raw, zeta, max_parents)
