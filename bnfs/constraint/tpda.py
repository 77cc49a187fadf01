"""Three-Phase Dependency Analysis (TPDA, "PowerConstructor"): drafting, thickening,
thinning, then orientation.

Cheng, Bell & Liu learn the network with conditional mutual information and a threshold: a
draft forest from the pairwise information, thickening adds an edge between every pair no
cut-set separates, thinning removes each edge some cut-set separates once the others are in
place. Cut-sets are the neighbours of one endpoint that lie on an adjacency path to the other,
shrunk greedily while the dependence falls (``EdgeNeeded_H``); a final thinning pass with an
exact search over the subsets of those neighbours (our ``EdgeNeeded``) removes what the
heuristic missed, so the result is exact under an independence oracle.
"""

from __future__ import annotations

import itertools

from bnfs._progress import tqdm
from bnfs._real_data import takes_real_data
from bnfs._validate import check_int
from bnfs.constraint._orient import colliders_from_sepsets, orient
from bnfs.constraint._sets import Knowledge
from bnfs.graphs.graph import PDAG
from bnfs.stats.citests import TestName, make_test, rows_report

__all__ = ["tpda"]


@takes_real_data(missing="available_cases")
def tpda(
    data,
    test: TestName = "mi_threshold",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    progress: bool | None = None,
    **test_options,
) -> PDAG:
    """Learn a CPDAG by Cheng, Bell & Liu's three-phase dependency analysis.

    1. **Drafting**: pairs dependent at the empty set, strongest first, join the graph when
       no adjacency path links them yet (a maximum-information spanning forest).
    2. **Thickening**: every other dependent pair, strongest first, gets an edge unless a
       cut-set separates it (``EdgeNeeded_H``); the result is an I-map.
    3. **Thinning**: each edge with an alternative path is removed when a cut-set in the
       graph without it separates its ends: once with the heuristic, once with the exact
       subset search.
    4. **Orientation**: colliders from the separating sets, then Meek's rules.

    Parameters
    ----------
    data : discrete data, continuous data (with ``test="fisher_z"``), or a
        :class:`~bnfs.stats.citests.CITest` / :class:`~bnfs.stats.citests.DSeparation` oracle
    test : {"mi_threshold", "g2", "mi", "x2", "fisher_z"}, default "mi_threshold"
        TPDA's own test is ``"mi_threshold"``: dependent when conditional mutual information
        exceeds ``threshold`` (default 0.01 nats, as in the hybrid paper).
    alpha : float in (0, 1)
        Significance level of the p-value tests.
    max_cond_size : int, optional
        Largest cut-set of the exact thinning search (default: no limit). The heuristic
        cut-sets are never larger than the neighbourhoods they start from.
    blacklist, whitelist : list of (from, to) pairs, optional
        As :func:`bnfs.pc_stable`: a pair blacklisted both ways is never tested or drawn,
        one with a whitelisted arc is in the graph from the start and never thinned.
    progress : bool, optional
        A progress bar on stderr: None shows it where stderr is a terminal or a notebook
        (tqdm's widget with ipywidgets), True always, False never.
    **test_options
        ``threshold``, ``adjust_df``, ``min_rows_per_cell`` of :class:`~bnfs.stats.citests.CITest`.

    Returns
    -------
    PDAG
        ``learning`` counts the edges of each phase and the tests.

    References
    ----------
    J. Cheng, R. Greiner, J. Kelly, D. Bell and W. Liu, "Learning Bayesian networks from
    data: an information-theory based approach", Artificial Intelligence 137, 2002.
    T. Duangsoithong and T. Windeatt, "Hybrid correlation and causal feature selection for
    ensemble classifiers", 2010 (threshold 0.01).

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> truth = datasets.network("asia")
    >>> tpda(DSeparation(truth)) == truth.cpdag()
    True
    """
    tester = make_test(data, test, alpha, **test_options)
    max_cond_size = check_int(max_cond_size, "max_cond_size", 0, allow_none=True)
    n = len(tester.names)
    known = Knowledge(tester, blacklist, whitelist)
    mutual = getattr(tester, "kind", None) is not None and tester.kind.decision == "threshold"

    def strength(result) -> tuple[float, float]:
        """Larger is more dependent: information for the threshold test, else -p."""
        if mutual:
            return (result.statistic, 0.0)
        p = result.p_value
        return (-(p if p == p else 0.0), result.statistic)

    graph = _Skeleton(n)
    disable = None if progress is None else not progress
    sepsets, marginal, remaining = _draft(tester, known, graph, strength, disable)
    n_draft = graph.n_edges

    def separate(x: int, y: int, exact: bool) -> frozenset | None:
        sep = _edge_needed_heuristic(tester, graph, x, y, strength)
        if sep is None and exact:
            sep = _edge_needed_exact(tester, graph, x, y, max_cond_size)
        return sep

    # Phase 2: thickening, an edge wherever no cut-set separates the pair.
    for x, y in tqdm(
        remaining, desc="tpda thickening", unit=" pairs", disable=disable, leave=False
    ):
        sep = separate(x, y, exact=False)
        if sep is None:
            graph.add(x, y)
        else:
            sepsets[frozenset((x, y))] = sep
    n_thick = graph.n_edges

    # Phase 3: thinning, weakest edges first, heuristic then exact cut-sets.
    for exact in (False, True):
        edges = sorted(
            (p for p in graph.edges() if known.testable(*p)), key=lambda p: (marginal[p], p)
        )
        for x, y in tqdm(edges, desc="tpda thinning", unit=" edges", disable=disable, leave=False):
            graph.remove(x, y)
            sep = separate(x, y, exact) if graph.connected(x, y) else None
            if sep is None:
                graph.add(x, y)
            else:
                sepsets[frozenset((x, y))] = sep
    adjacency = [set(a) for a in graph.adjacency]
    colliders = colliders_from_sepsets(
        adjacency, {pair: [sep] for pair, sep in sepsets.items()}, tester.test_indices
    )
    learning = {
        "test": tester.test,
        "alpha": tester.alpha,
        "arguments": {"max_cond_size": max_cond_size, **known.lists, **test_options},
        "n_tests": tester.n_tests,
        **rows_report(tester),
        "draft_edges": n_draft,
        "thickened_edges": n_thick,
        "final_edges": graph.n_edges,
    }
    pdag = orient(tester.names, adjacency, colliders, learning, tester.column_order, known.arcs)
    return pdag


def _draft(tester, known: Knowledge, graph: _Skeleton, strength, disable):
    """TPDA's phase 1 on ``graph``: the required edges, then a spanning forest of the
    strongest marginal dependencies. Returns (separating sets of the marginally
    independent pairs, each dependent pair's strength, the dependent pairs left out)."""
    n = len(tester.names)
    for x, y in sorted(map(sorted, known.required)):  # in every phase, never thinned
        graph.add(x, y)
    sepsets: dict[frozenset, frozenset] = {}
    marginal: dict[tuple[int, int], tuple] = {}
    pairs = [(x, y) for x, y in itertools.combinations(range(n), 2) if known.testable(x, y)]
    for x, y in tqdm(pairs, desc="tpda drafting", unit=" pairs", disable=disable, leave=False):
        result = tester.test_indices(x, y, ())
        if result.independent:
            sepsets[frozenset((x, y))] = frozenset()
        else:
            marginal[x, y] = strength(result)
    ranked = sorted(marginal, key=lambda p: (tuple(-v for v in marginal[p]), p))
    component = list(range(n))

    def root(v: int) -> int:
        while component[v] != v:
            component[v] = component[component[v]]
            v = component[v]
        return v

    for x, y in map(sorted, known.required):  # whitelisted pairs join their trees first
        component[root(x)] = root(y)
    remaining = []
    for x, y in ranked:
        rx, ry = root(x), root(y)
        if rx != ry:
            component[rx] = ry
            graph.add(x, y)
        else:
            remaining.append((x, y))
    return sepsets, marginal, remaining


class _Skeleton:
    """TPDA's working skeleton on variable indices: undirected adjacency sets with the path
    queries its edge tests ask (the public graphs, on names, are in :mod:`bnfs.graphs.graph`)."""

    def __init__(self, n: int):
        self.adjacency = [set() for _ in range(n)]
        self.n_edges = 0

    def add(self, x: int, y: int) -> None:
        self.adjacency[x].add(y)
        self.adjacency[y].add(x)
        self.n_edges += 1

    def remove(self, x: int, y: int) -> None:
        self.adjacency[x].discard(y)
        self.adjacency[y].discard(x)
        self.n_edges -= 1

    def edges(self) -> list[tuple[int, int]]:
        return [(x, y) for x, a in enumerate(self.adjacency) for y in a if x < y]

    def reachable(self, source: int, avoid: int) -> set[int]:
        """Nodes joined to ``source`` by a path that does not pass through ``avoid``."""
        seen = {source}
        stack = [source]
        while stack:
            for w in self.adjacency[stack.pop()]:
                if w != avoid and w not in seen:
                    seen.add(w)
                    stack.append(w)
        return seen

    def connected(self, x: int, y: int) -> bool:
        return y in self.reachable(x, -1)

    def on_paths(self, x: int, y: int) -> list[int]:
        """Neighbours of x on an adjacency path from x to y (not counting an x - y edge)."""
        linked = self.reachable(y, x)
        return sorted(w for w in self.adjacency[x] if w != y and w in linked)


def _edge_needed_heuristic(tester, graph: _Skeleton, x: int, y: int, strength) -> frozenset | None:
    """Cheng et al.'s ``EdgeNeeded_H``: start from the smaller of the two on-path
    neighbourhoods; test; drop the member whose removal weakens the dependence most while
    that helps; then the same from the other side. A separating set, or None."""
    first, second = graph.on_paths(x, y), graph.on_paths(y, x)
    if len(first) > len(second):
        first, second = second, first
    for cut in (first, second) if set(second) != set(first) else (first,):
        cut = list(cut)
        result = tester.test_indices(x, y, cut)
        if result.independent:
            return frozenset(cut)
        current = strength(result)
        while len(cut) > 1:
            trials = []
            for c in cut:
                smaller = [v for v in cut if v != c]
                trials.append((tester.test_indices(x, y, smaller), smaller))
            best, smaller = min(trials, key=lambda t: strength(t[0]))
            if best.independent:
                return frozenset(smaller)
            if strength(best) > current:
                break
            cut, current = smaller, strength(best)
    return None


def _edge_needed_exact(tester, graph: _Skeleton, x: int, y: int, max_cond_size) -> frozenset | None:
    """Every subset of the on-path neighbours of x, then of y, smallest first: exact when the
    graph contains the true skeleton (a parent set lies among the neighbours)."""
    for a, b in ((x, y), (y, x)):
        pool = graph.on_paths(a, b)
        top = len(pool) if max_cond_size is None else min(max_cond_size, len(pool))
        for size in range(top + 1):
            for s in itertools.combinations(pool, size):
                if tester.test_indices(x, y, s).independent:
                    return frozenset(s)
    return None
