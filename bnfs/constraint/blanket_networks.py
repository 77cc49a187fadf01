"""bnlearn's whole-network learners built on Markov blankets (``gs``, ``iamb``,
``inter.iamb``, ``fast.iamb``): the blanket of every node, the symmetry correction, the
neighbours among blanket members, bnlearn's collider rule and its propagation of directions."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

from bnfs._progress import tqdm
from bnfs._real_data import takes_real_data
from bnfs._validate import check_float
from bnfs.constraint._orient import colliders_from_blankets, orient
from bnfs.constraint._parallel import check_n_jobs, map_tests
from bnfs.constraint._sets import Knowledge
from bnfs.constraint._sets import cond_size as _cond_size
from bnfs.constraint._sets import subsets as _subsets
from bnfs.constraint.searches import fast_iamb_search, grow_shrink_search, iamb_search, on_tester
from bnfs.graphs.graph import PDAG
from bnfs.stats.citests import TestName, make_test, rows_report

__all__ = ["grow_shrink", "iamb", "inter_iamb", "fast_iamb"]


def _neighbours_among_blankets(tester, pair, mbs, max_cond_size):
    """Whether a blanket pair x, y stays adjacent, as bnlearn's ``neighbour`` decides it from
    both sides (then keeps the pair only if both do): each side searches the smaller of
    MB(x) - {y} and MB(y) - {x} for a separating set (the other side's blanket on a tie, so
    a tie searches both), and a node whose blanket has one member keeps it untested."""
    x, y = pair
    a, b = mbs[x] - {y}, mbs[y] - {x}
    pools = []
    if len(mbs[x]) > 1:
        pools.append(a if len(a) < len(b) else b)
    if len(mbs[y]) > 1:
        pools.append(b if len(b) < len(a) else a)
    for pool in dict.fromkeys(map(frozenset, pools)):
        if any(tester.test_indices(x, y, s).independent for s in _subsets(pool, max_cond_size)):
            return False
    return True


def _network_of_blankets(learner):
    """The setup of the whole-network blanket learners, one place: the decorated learner
    checks its own options and returns its blanket search (or ``(search, record)``, its
    own arguments for ``learning``); this runs the search for every node and assembles the
    PDAG (:func:`_from_blankets`) from the learner's ``data``, ``test``, ``alpha``,
    ``**test_options``, ``max_cond_size``, node lists, ``progress`` and ``n_jobs``. The
    learner's signature stays its own, for ``help()``, the docs and the registry."""
    signature = inspect.signature(learner)

    @functools.wraps(learner)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        made = learner(*bound.args, **bound.kwargs)
        search, record = made if isinstance(made, tuple) else (made, None)
        given = bound.arguments
        return _from_blankets(
            given["data"],
            given["test"],
            given["alpha"],
            given.get("test_options", {}),
            search,
            learner.__name__,
            given["progress"],
            given["max_cond_size"],
            given["n_jobs"],
            record,
            given["blacklist"],
            given["whitelist"],
        )

    return wrapper


def _from_blankets(
    data,
    test,
    alpha,
    test_options,
    blanket: Callable,
    algorithm: str,
    progress,
    max_cond_size,
    n_jobs,
    arguments=None,
    blacklist=None,
    whitelist=None,
) -> PDAG:
    """bnlearn's blanket-based network learners: the blanket of every node (in parallel),
    the symmetry correction, neighbours = blanket members no subset of the smaller blanket
    separates (in parallel), bnlearn's collider rule (:func:`colliders_from_blankets`),
    bnlearn's propagation of directions (:mod:`bnfs.constraint._bnlearn_cpdag`)."""
    tester = make_test(data, test, alpha, **test_options)
    max_cond_size = _cond_size(max_cond_size)
    known = Knowledge(tester, blacklist, whitelist)
    n_jobs = check_n_jobs(n_jobs)
    n = len(tester.names)
    nodes = list(range(n))
    if n_jobs == 1:
        disable = None if progress is None else not progress
        nodes = tqdm(nodes, desc=algorithm, unit=" nodes", disable=disable, leave=False)
    per_node = functools.partial(on_tester, search=blanket)
    mbs = [set(mb) for mb in map_tests(tester, per_node, nodes, n_jobs)]
    for x in range(n):  # symmetry correction: keep y in MB(x) only if x is in MB(y)
        mbs[x] = {y for y in mbs[x] if x in mbs[y]}
    pairs = [(x, y) for x in range(n) for y in sorted(mbs[x]) if x < y and known.testable(x, y)]
    found = map_tests(
        tester,
        functools.partial(_neighbours_among_blankets, mbs=mbs, max_cond_size=max_cond_size),
        pairs,
        n_jobs,
    )
    adjacency = [set() for _ in range(n)]
    for x, y in map(sorted, known.required):
        adjacency[x].add(y)
        adjacency[y].add(x)
    for (x, y), adjacent in zip(pairs, found):
        if adjacent:
            adjacency[x].add(y)
            adjacency[y].add(x)
    colliders = colliders_from_blankets(adjacency, mbs, tester.test_indices, max_cond_size)
    learning = {
        "test": tester.test,
        "alpha": tester.alpha,
        "arguments": {
            "max_cond_size": max_cond_size,
            **(arguments or {}),
            **known.lists,
            **test_options,
        },
        "n_tests": tester.n_tests,
        **rows_report(tester),
        "n_jobs": n_jobs,
    }
    pdag = orient(
        tester.names,
        adjacency,
        colliders,
        learning,
        tester.column_order,
        known.arcs,
        propagation="bnlearn",
        lists=bool(blacklist or whitelist),
    )
    return pdag


@takes_real_data(missing="available_cases")
@_network_of_blankets
def grow_shrink(
    data,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    progress: bool | None = None,
    n_jobs: int | None = None,
    **test_options,
) -> PDAG:
    """Whole-network Grow-Shrink (bnlearn's ``gs``; Margaritis & Thrun 1999).

    The Grow-Shrink blanket of every node, the symmetry correction, neighbours among blanket
    members, colliders by bnlearn's rule (x - z - y is one when x and y stay dependent given
    z plus every subset of the smaller of their blankets; applied whole, strongest first),
    then bnlearn's propagation of directions, which is Meek's rules where the colliders
    agree. :func:`iamb`, :func:`inter_iamb` and :func:`fast_iamb` differ only in the blanket.

    The steps after the blankets are bnlearn 5.2.1's (its R sources): adjacency decided from
    both sides, each searching the smaller blanket (both on a tie); the collider search in
    the blanket of the pair's later column on a tie (R's ``smaller()``; bnlearn-port's
    Python port takes the earlier one, so the two can differ by a collider). The blankets
    themselves differ from bnlearn's in one deliberate way: where candidates tie on the
    p-value (at 0 for strong associations in large samples), IAMB admits the one with the
    larger statistic, bnlearn the first column. On bnlearn's parity data the graphs are
    equal; on alarm-3000 samples a few blankets differ for that reason. bnlearn's collider
    search and propagation scan the columns in the data's order; bnfs scans them sorted by
    name (the graph is the same for any column order), so the graph is bnlearn's on the
    columns in that order, or on the data's order with a :class:`~bnfs.stats.citests.CITest` built
    on the data.

    Parameters
    ----------
    data : discrete data, continuous data (with ``test="fisher_z"``), or a
        :class:`~bnfs.stats.citests.CITest` / :class:`~bnfs.stats.citests.DSeparation` oracle
    test : {"g2", "mi", "x2", "mi_adf", "x2_adf", "mi_threshold", "fisher_z"}
    alpha : float in (0, 1)
    max_cond_size : int, optional
        Largest separating set tried between blanket members (default: no limit).
    blacklist, whitelist : list of (from, to) pairs, optional
        As :func:`bnfs.pc_stable`: a pair blacklisted both ways is never adjacent, one with
        a whitelisted arc always is (neither is tested); the lists' arcs are oriented first.
    progress : bool, optional
        A progress bar on stderr: None shows it where stderr is a terminal or a notebook
        (tqdm's widget with ipywidgets), True always, False never.
    n_jobs : int, optional
        joblib workers for the per-node blankets and the per-pair separation tests
        (-1: every core). The result is the same for any value.
    **test_options
        ``threshold``, ``adjust_df``, ``min_rows_per_cell`` of :class:`~bnfs.stats.citests.CITest`.

    Returns
    -------
    PDAG

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> truth = datasets.network("asia")
    >>> grow_shrink(DSeparation(truth)) == truth.cpdag()
    True
    """
    return grow_shrink_search


@takes_real_data(missing="available_cases")
@_network_of_blankets
def iamb(
    data,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    progress: bool | None = None,
    n_jobs: int | None = None,
    **test_options,
) -> PDAG:
    """Whole-network IAMB (bnlearn's ``iamb``; Tsamardinos et al. 2003): as
    :func:`grow_shrink`, whose parameters it takes, with IAMB blankets.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> iamb(DSeparation(datasets.network("asia")))  # the CPDAG of asia
    PDAG(8 nodes, 5 arcs, 3 edges)
    """
    return iamb_search


@takes_real_data(missing="available_cases")
@_network_of_blankets
def inter_iamb(
    data,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    progress: bool | None = None,
    n_jobs: int | None = None,
    **test_options,
) -> PDAG:
    """Whole-network interleaved IAMB (bnlearn's ``inter.iamb``): as :func:`grow_shrink`,
    whose parameters it takes, with blankets shrunk after every addition.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> inter_iamb(DSeparation(datasets.network("asia"))).n_arcs
    5
    """
    return functools.partial(iamb_search, interleaved=True)


@takes_real_data(missing="available_cases")
@_network_of_blankets
def fast_iamb(
    data,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    rows_per_cell: float = 5.0,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    progress: bool | None = None,
    n_jobs: int | None = None,
    **test_options,
) -> PDAG:
    """Whole-network fast-IAMB (bnlearn's ``fast.iamb``; Yaramakala & Margaritis 2005): as
    :func:`grow_shrink`, whose parameters it takes, with fast-IAMB blankets;
    ``rows_per_cell`` as in :func:`~bnfs.constraint.fast_iamb_mb`.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> fast_iamb(DSeparation(datasets.network("asia"))).n_edges
    3
    """
    rows_per_cell = check_float(rows_per_cell, "rows_per_cell", 0.0)
    return functools.partial(fast_iamb_search, rows_per_cell=rows_per_cell), {
        "rows_per_cell": rows_per_cell
    }
