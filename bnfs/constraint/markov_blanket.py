"""Local Markov-blanket learners (GS, IAMB, inter-IAMB, fast-IAMB, KIAMB, HITON-PC/MB,
MMPC/MMMB, PCMB): the blanket, or the parents and children, of one target.

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
``learning["stopped"]``; members it had no time to check are kept, candidates it had no time
to test are not.

HITON-MB, MMMB and PCMB admit spouses through colliders; by default (``spouse_fdr=True``)
those tests are decided together at a false discovery rate of ``alpha`` by the
Benjamini-Yekutieli procedure (:func:`bnfs.constraint.searches.spouses`), as Tsamardinos &
Brown (AAAI 2008) bound the false discoveries of local learning, not each at ``alpha``:
among thousands of candidate spouses some noise passes every single test. On planted
blankets with 10,000 features (``datasets.planted_blanket``, 500 rows, three seeds)
HITON-MB's F1 rises from 0.857 to 0.930; on 120 targets of child, insurance, alarm,
hailfinder and win95pts (2,000 and 5,000 rows) from 0.781 to 0.784. ``spouse_fdr=False``
tests each spouse at ``alpha``, as Aliferis et al. and Tsamardinos et al. describe them.
"""

from __future__ import annotations

import functools

from bnfs._budget import Budget
from bnfs._real_data import takes_real_data
from bnfs._validate import check_float, check_seed
from bnfs.constraint._sets import NodeLists, local_result
from bnfs.constraint._sets import cond_size as _cond_size
from bnfs.constraint._sets import target_index as _target
from bnfs.constraint.searches import (
    blanket_through_pc,
    fast_iamb_search,
    grow_shrink_search,
    hiton_pc_one_way_search,
    hiton_pc_search,
    iamb_search,
    kiamb_search,
    mmpc_one_way_search,
    mmpc_search,
    pcmb_pc_search,
)
from bnfs.graphs.local import LocalResult
from bnfs.stats.citests import TestName, make_test

__all__ = [
    "grow_shrink_mb",
    "iamb_mb",
    "inter_iamb_mb",
    "fast_iamb_mb",
    "kiamb_mb",
    "hiton_pc",
    "hiton_mb",
    "mmpc",
    "mmmb",
    "pcmb",
]


#: local learners that condition on whole blankets: their tests stay unadjusted by default
_WHOLE_BLANKET = ("grow_shrink_mb", "iamb_mb", "inter_iamb_mb", "fast_iamb_mb", "kiamb_mb")


def _local(
    algorithm, fn, data, target, test, alpha, test_options, blacklist, whitelist, max_time
) -> LocalResult:
    budget = Budget(max_time)
    tester = make_test(
        data, test, alpha, adjust_by_default=algorithm not in _WHOLE_BLANKET, **test_options
    )
    _target(tester, target)
    view = NodeLists(tester, target, blacklist, whitelist)
    view.budget = budget
    before = tester.n_tests
    found = tester.in_column_order(view.names[i] for i in fn(view, view.target))
    result = local_result(
        found,
        tester,
        target,
        tester.n_tests - before,
        {**view.lists, **({} if max_time is None else {"max_time": max_time}), **test_options},
    )
    if budget.reason is not None:
        result.learning["stopped"] = budget.reason
        budget.warn(algorithm, "the set")
    return result


@takes_real_data
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
    return _local(
        "grow_shrink_mb",
        grow_shrink_search,
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )


@takes_real_data
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
    return _local(
        "iamb_mb",
        iamb_search,
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )


@takes_real_data
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
    return _local(
        "inter_iamb_mb",
        functools.partial(iamb_search, interleaved=True),
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )


@takes_real_data
def hiton_pc(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    symmetry: bool = True,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    **test_options,
) -> LocalResult:
    """Parents and children of ``target`` by semi-interleaved HITON-PC (bnlearn's
    ``si.hiton.pc``).

    With ``symmetry`` (the default) x stays only if ``target`` is in HITON-PC(x) too,
    which removes non-neighbours that only their own neighbours separate. Without it,
    the one-way set of GLL-PC without symmetry correction (Aliferis et al. 2010).

    **Near-copies** (not faithful: each copy of a feature separates the others from the
    target) would make the plain AND rule empty the set. So x also stays when the set
    that separates the target from x in x's own search and x screen each other off from
    the target (information equivalence, Lemeire et al. 2012): one representative of the
    copies is kept, the one the target's search found. Under faithfulness this never
    happens, so with an exact oracle the result is the AND rule's.

    References
    ----------
    C. F. Aliferis, A. Statnikov, I. Tsamardinos, S. Mani and X. D. Koutsoukos, "Local causal
    and Markov blanket induction for causal discovery and feature selection for
    classification, part I", JMLR 11, 2010.
    J. Lemeire, S. Meganck, F. Cartella and T. Liu, "Conservative independence-based causal
    structure learning in absence of adjacency faithfulness", IJAR 53, 2012.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> hiton_pc(oracle, "either")
    ['tub', 'lung', 'xray', 'dysp']
    """
    if not isinstance(symmetry, bool):
        raise TypeError(f"symmetry must be True or False, got {symmetry!r}")
    search = hiton_pc_search if symmetry else hiton_pc_one_way_search
    return _local(
        "hiton_pc",
        functools.partial(search, max_cond_size=_cond_size(max_cond_size)),
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )


@takes_real_data
def hiton_mb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    spouse_fdr: bool = True,
    **test_options,
) -> LocalResult:
    """Markov blanket of ``target``: HITON-PC of the target and of each member, plus the
    spouses found through colliders (Aliferis et al. 2010).

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> hiton_mb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    if not isinstance(spouse_fdr, bool):
        raise TypeError(f"spouse_fdr must be True or False, got {spouse_fdr!r}")
    result = _local(
        "hiton_mb",
        functools.partial(
            blanket_through_pc,
            pc=hiton_pc_search,
            max_cond_size=_cond_size(max_cond_size),
            fdr=spouse_fdr,
        ),
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )
    result.learning["spouse_fdr"] = spouse_fdr
    return result


@takes_real_data
def mmpc(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    symmetry: bool = True,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    **test_options,
) -> LocalResult:
    """Parents and children of ``target`` by Max-Min Parents and Children, with the
    symmetry correction (x stays only if ``target`` is in MMPC(x) too, or x and its
    separating set are information-equivalent near-copies, as in :func:`hiton_pc`) unless
    ``symmetry=False``: the one-way set, which is what bnlearn's ``learn.nbr`` returns.

    References
    ----------
    I. Tsamardinos, C. F. Aliferis and A. Statnikov, "Time and sample efficient discovery of
    Markov blankets and direct causal relations", KDD 2003.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> mmpc(oracle, "either")
    ['tub', 'lung', 'xray', 'dysp']
    """
    if not isinstance(symmetry, bool):
        raise TypeError(f"symmetry must be True or False, got {symmetry!r}")
    search = mmpc_search if symmetry else mmpc_one_way_search
    return _local(
        "mmpc",
        functools.partial(search, max_cond_size=_cond_size(max_cond_size)),
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )


@takes_real_data
def mmmb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    spouse_fdr: bool = True,
    **test_options,
) -> LocalResult:
    """Markov blanket of ``target`` by MMMB: MMPC of the target and of its members, plus
    spouses through colliders (Tsamardinos et al. 2003).

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> mmmb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    if not isinstance(spouse_fdr, bool):
        raise TypeError(f"spouse_fdr must be True or False, got {spouse_fdr!r}")
    result = _local(
        "mmmb",
        functools.partial(
            blanket_through_pc,
            pc=mmpc_search,
            max_cond_size=_cond_size(max_cond_size),
            fdr=spouse_fdr,
        ),
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )
    result.learning["spouse_fdr"] = spouse_fdr
    return result


@takes_real_data
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
    return _local(
        "fast_iamb_mb",
        functools.partial(fast_iamb_search, rows_per_cell=rows_per_cell),
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )


@takes_real_data
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
    return _local(
        "kiamb_mb",
        lambda tester, t: kiamb_search(tester, t, k, rng),
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )


@takes_real_data
def pcmb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.05,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    max_time: float | None = None,
    spouse_fdr: bool = True,
    **test_options,
) -> LocalResult:
    """Markov blanket of ``target`` by PCMB: GetPCD (max-min forward with pruning after
    every admission), the symmetry check GetPC, and spouses through colliders.

    References
    ----------
    J. M. Peña, R. Nilsson, J. Björkegren and J. Tegnér, "Towards scalable and data efficient
    learning of Markov boundaries", IJAR 45, 2007.

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.stats.citests import DSeparation
    >>> oracle = DSeparation(datasets.network("asia"))  # or data
    >>> pcmb(oracle, "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    if not isinstance(spouse_fdr, bool):
        raise TypeError(f"spouse_fdr must be True or False, got {spouse_fdr!r}")
    result = _local(
        "pcmb",
        functools.partial(
            blanket_through_pc,
            pc=pcmb_pc_search,
            max_cond_size=_cond_size(max_cond_size),
            fdr=spouse_fdr,
        ),
        data,
        target,
        test,
        alpha,
        test_options,
        blacklist,
        whitelist,
        max_time,
    )
    result.learning["spouse_fdr"] = spouse_fdr
    return result
