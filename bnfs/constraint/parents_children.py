"""Local learners that find the target's parents and children first (HITON-PC/MB,
MMPC/MMMB, PCMB), conditioning on small subsets; the blanket learners add the spouses. The
conventions (node lists, ``max_time``, ``LocalResult``) are those of
:mod:`bnfs.constraint.markov_blanket`.

HITON-MB, MMMB and PCMB admit spouses through colliders; by default (``spouse_fdr=True``)
those tests are decided together at a false discovery rate of ``alpha`` by the
Benjamini-Yekutieli procedure (:func:`bnfs.constraint.searches.spouses`), as Tsamardinos &
Brown (AAAI 2008) bound the false discoveries of local learning, not each at ``alpha``:
among thousands of candidate spouses some noise passes every single test: on planted wide
blankets it raises HITON-MB's F1 markedly, on sampled networks it changes little
(``benchmarks/blanket_quality.py``; the CHANGELOG has the numbers). ``spouse_fdr=False``
tests each spouse at ``alpha``, as Aliferis et al. and Tsamardinos et al. describe them.
"""

from __future__ import annotations

import functools

from bnfs._real_data import takes_real_data
from bnfs._validate import check_bool
from bnfs.constraint._sets import cond_size as _cond_size
from bnfs.constraint._sets import local_learner
from bnfs.constraint.searches import (
    blanket_through_pc,
    hiton_pc_one_way_search,
    hiton_pc_search,
    mmpc_one_way_search,
    mmpc_search,
    pcmb_pc_search,
)
from bnfs.graphs.local import LocalResult
from bnfs.stats.citests import TestName

__all__ = [
    "hiton_pc",
    "hiton_mb",
    "mmpc",
    "mmmb",
    "pcmb",
]


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=True)
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
    check_bool(symmetry, "symmetry")
    search = hiton_pc_search if symmetry else hiton_pc_one_way_search
    return functools.partial(search, max_cond_size=_cond_size(max_cond_size))


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=True)
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
    return _blanket_search(hiton_pc_search, max_cond_size, spouse_fdr)


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=True)
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
    check_bool(symmetry, "symmetry")
    search = mmpc_search if symmetry else mmpc_one_way_search
    return functools.partial(search, max_cond_size=_cond_size(max_cond_size))


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=True)
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
    return _blanket_search(mmpc_search, max_cond_size, spouse_fdr)


@takes_real_data(missing="available_cases")
@local_learner(adjusts_df=True)
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
    return _blanket_search(pcmb_pc_search, max_cond_size, spouse_fdr)


def _blanket_search(pc, max_cond_size, spouse_fdr):
    """The blanket learners' search: ``pc`` of the target and of each member, then the
    spouses through colliders, decided together at a false discovery rate of ``alpha``
    unless ``spouse_fdr`` is False (recorded in ``learning``)."""
    check_bool(spouse_fdr, "spouse_fdr")
    search = functools.partial(
        blanket_through_pc, pc=pc, max_cond_size=_cond_size(max_cond_size), fdr=spouse_fdr
    )
    return search, {"spouse_fdr": spouse_fdr}
