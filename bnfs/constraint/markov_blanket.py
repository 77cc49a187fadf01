"""Local Markov-blanket learners of the Grow-Shrink family (GS, IAMB, inter-IAMB, fast-IAMB,
KIAMB), which condition on whole blankets; HITON, MMPC/MMMB and PCMB, which find parents
and children first, are in :mod:`bnfs.constraint.parents_children`.

Every learner takes data (or a :class:`~bnfs.stats.citests.CITest` / d-separation oracle), a
``target`` and a test, and returns a list of names in column order
(:class:`~bnfs.constraint.LocalResult`, with its ``learning`` provenance). The searches
themselves are in :mod:`bnfs.constraint.searches`.

The local learners take ``blacklist`` and ``whitelist`` as lists of variable names, with the
semantics of bnlearn's ``learn.mb`` and ``learn.nbr`` (tested against bnlearn-port): a
blacklisted variable is dropped from the search (never a candidate, never conditioned on, for
the target or any node a symmetry check or spouse search visits); a whitelisted one is in the
target's set from the start and never removed. The whole-network learners take (from, to)
pairs, as the score-based ones do.

Every local learner takes ``max_time`` (seconds; None, the default, is no limit): past it the
search stops at its next check (between compiled batches of tests: each node's search, each
round, each member checked) and returns the set found so far, with a RuntimeWarning and
``learning["stopped_early"]``; members it had no time to check are kept, candidates it had no time
to test are not.
"""

from __future__ import annotations

import functools

from bnfs._real_data import takes_real_data
from bnfs._validate import check_float, check_seed
from bnfs.constraint._sets import local_learner
from bnfs.constraint.searches import (
    fast_iamb_search,
    grow_shrink_search,
    iamb_search,
    kiamb_search,
)
from bnfs.graphs.local import LocalResult
from bnfs.stats.citests import TestName

__all__ = [
    "grow_shrink_mb",
    "iamb_mb",
    "inter_iamb_mb",
    "fast_iamb_mb",
    "kiamb_mb",
]


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=False)
def grow_shrink_mb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    **test_options,
) -> LocalResult:
    """Markov blanket of ``target`` by Grow-Shrink: add every variable dependent on the
    target given the current blanket (repeated until stable), then remove those
    independent given the rest.

    References
    ----------
    D. Margaritis and S. Thrun, "Bayesian network induction via local neighborhoods",
    NIPS 1999.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> grow_shrink_mb(DSeparation(datasets.network("asia")), "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return grow_shrink_search


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=False)
def iamb_mb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    **test_options,
) -> LocalResult:
    """Markov blanket of ``target`` by IAMB: add the most associated variable (smallest
    p-value given the current blanket) while it is dependent, then shrink.

    References
    ----------
    I. Tsamardinos, C. F. Aliferis and A. Statnikov, "Algorithms for large scale Markov
    blanket discovery", FLAIRS 2003.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> iamb_mb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return iamb_search


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=False)
def inter_iamb_mb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    **test_options,
) -> LocalResult:
    """Interleaved IAMB: the shrinking phase runs after every addition.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> inter_iamb_mb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return functools.partial(iamb_search, interleaved=True)


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=False)
def fast_iamb_mb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    rows_per_cell: float = 5.0,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    **test_options,
) -> LocalResult:
    """Markov blanket of ``target`` by fast-IAMB: each growing round admits several
    dependent candidates (strongest first) while the tests keep ``rows_per_cell`` rows per
    table cell, then shrinks; fewer rounds, so fewer tests than IAMB.

    References
    ----------
    S. Yaramakala and D. Margaritis, "Speculative Markov blanket discovery for optimal
    feature selection", ICDM 2005.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> fast_iamb_mb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    rows_per_cell = check_float(rows_per_cell, "rows_per_cell", 0.0)
    return functools.partial(fast_iamb_search, rows_per_cell=rows_per_cell)


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=False)
def kiamb_mb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    k: float = 0.8,
    seed=None,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    **test_options,
) -> LocalResult:
    """Markov blanket of ``target`` by KIAMB, the stochastic IAMB: each step adds the most
    associated of a random ``k`` fraction of the dependent candidates. ``k = 1`` is IAMB;
    smaller ``k`` with different seeds finds the alternative blankets of data that are not
    faithful to any DAG (Peña et al. recommend k around 0.8).

    References
    ----------
    J. M. Peña, R. Nilsson, J. Björkegren and J. Tegnér, "Towards scalable and data efficient
    learning of Markov boundaries", IJAR 45, 2007.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> kiamb_mb(DSeparation(datasets.network("asia")), "either", k=0.5, seed=1)
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    k = check_float(k, "k", 0.0, 1.0)
    rng = check_seed(seed)
    return lambda tester, t: kiamb_search(tester, t, k, rng)
