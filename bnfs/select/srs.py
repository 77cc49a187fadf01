"""SRS: Markov-blanket feature selection via representative sets and a sparse group lasso,
for data that need not be faithful to a DAG (Yu et al.)."""

from __future__ import annotations

import functools
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from bnfs._budget import stopped_reason
from bnfs.constraint._parallel import map_tests
from bnfs.constraint.parents_children import hiton_pc
from bnfs.parallel import check_n_jobs
from bnfs.select._base import DiscreteSelector, keep_parameters
from bnfs.select._kernel_input import feature_blocks
from bnfs.select.group_lasso import penalty_scale, sparse_group_lasso
from bnfs.stats.citests import CITest

__all__ = ["SRS"]


class SRS(DiscreteSelector):
    """Selection via Representative Sets (Yu, Wu, Zhang, Mu, Wang & Ding).

    Step 1 finds the strongly relevant features, the parents and children PC(C) of the
    class by HITON-PC, and one representative set per member F: F with its own parents and
    children outside PC(C), the sets made disjoint (a feature joins the first set that
    claims it). Step 2 fits a least-squares sparse group lasso of the class on the
    representative sets: the group penalty keeps whole sets or drops them, the l1 penalty
    picks features inside a kept set. Features with a non-zero coefficient are selected.

    The tests run on the discrete (or discretized) data; the lasso sees the original
    values, standardized (non-numeric columns one-hot coded; a feature is selected when
    any of its columns is). The class is coded as centred indicators (one column for two
    classes).

    Parameters
    ----------
    lambda_group, lambda_l1 : float, default 0.05
        Penalties as fractions in [0, 1] of the smallest penalty that empties the model,
        as SLEP's ``sgLeastR`` (the paper's solver) reads them; the paper searches both in
        [0.001, 0.1].
    test : {"g2", "x2", "mi_threshold"}, default "g2"
    alpha : float, default 0.01
        Significance level of HITON-PC's tests (the paper's 0.01).
    max_cond_size : int, default None
    symmetry : bool, default False
        HITON-PC's symmetry correction. Off by default: the paper targets data that are not
        faithful, where near-copies of a feature separate each other from the class and the
        corrected set can come out empty (on wdbc it does).
    max_iter, tol : int, float
        Of the proximal solver (:func:`~bnfs.select.group_lasso.sparse_group_lasso`).
    discretizer : {"quantile", "interval", "mdl"}, default "quantile"
    n_bins : int, default 3
    n_jobs : int, optional
        joblib workers for the members' own HITON-PC searches (-1: every core); the
        selection is the same for any value.
    if_empty : {"keep_all", "keep_none", "raise"}, default "keep_all"
        When no feature is selected (an :class:`~bnfs.select.EmptySelectionWarning` says so
        and why): pass every feature on, so that a pipeline's next step can still fit;
        pass none on (scikit-learn's behaviour); or raise ValueError.
    max_time : float, optional
        Seconds for the HITON-PC searches (of the class, then of its members, which share
        what is left): past it, each returns its set so far, with one RuntimeWarning and
        ``stopped_``. The lasso then runs on the sets found.

    Attributes
    ----------
    parents_and_children_ : list of str
        PC(C) from HITON-PC.
    representative_sets_ : dict
        Member of PC(C) -> its representative set (the member first).
    coef_ : ndarray of shape (n_features,)
        Norm of each feature's lasso coefficients (0 outside the representative sets).
    selected_ : list of str
    n_iter_ : int
        Iterations of the lasso solver.
    stopped_ : str or None
        Why the fit stopped early ("max_time reached", "interrupted"), or None.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` is a DataFrame with string column names.

    References
    ----------
    K. Yu, X. Wu, Z. Zhang, Y. Mu, H. Wang and W. Ding, "Markov blanket feature selection
    with non-faithful data distributions", ICDM 2013.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("asia", 3000, seed=0)  # either = tub or lung: not faithful
    >>> srs = SRS().fit(frame.drop(columns="either"), frame["either"])
    >>> srs.parents_and_children_, srs.selected_
    (['tub', 'lung'], ['tub', 'lung'])
    """

    _parameter_constraints: dict = {
        **DiscreteSelector._parameter_constraints,
        "lambda_group": [Interval(Real, 0, 1, closed="both")],
        "lambda_l1": [Interval(Real, 0, 1, closed="both")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "symmetry": ["boolean"],
    }

    def __init__(
        self,
        lambda_group: float = 0.05,
        lambda_l1: float = 0.05,
        *,
        test: str = "g2",
        alpha: float = 0.01,
        max_cond_size: int | None = None,
        symmetry: bool = False,
        max_iter: int = 5000,
        tol: float = 1e-8,
        discretizer: str = "quantile",
        n_bins: int = 3,
        n_jobs: int | None = None,
        if_empty: str = "keep_all",
        max_time: float | None = None,
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Find the representative sets, then fit the sparse group lasso over them."""
        self._validate_params()
        lambda_group, lambda_l1 = float(self.lambda_group), float(self.lambda_l1)
        max_iter, tol = int(self.max_iter), float(self.tol)
        n_jobs = check_n_jobs(self.n_jobs)
        data, features, target = self._discrete_data(X, y)
        tester = CITest(data, self.test, self.alpha)
        search = {"max_cond_size": self.max_cond_size, "symmetry": self.symmetry}
        with self._timed() as budget:
            pc = _member_pc(tester, target, {**search, "max_time": budget.left()})
            search["max_time"] = budget.left()
            found = map_tests(tester, functools.partial(_member_pc, search=search), pc, n_jobs)
            stopped = [
                stopped_reason(r.learning) for r in [pc, *found] if stopped_reason(r.learning)
            ]
            if stopped:
                budget.reason = budget.reason or stopped[0]
        claimed = set(pc) | {target}
        sets = {}
        for member, its_pc in zip(pc, found):  # in PC(C)'s order: earlier members claim first
            own = [f for f in its_pc if f not in claimed]
            claimed.update(own)
            sets[member] = [member] + own
        self.parents_and_children_ = pc
        self.representative_sets_ = sets
        self.coef_, self.n_iter_ = np.zeros(len(features)), 0
        if sets:
            self.coef_ = self._lasso(X, y, features, sets, lambda_group, lambda_l1, max_iter, tol)
        kept = [i for i in range(len(features)) if self.coef_[i] != 0.0]
        self.selected_ = [features[i] for i in kept]
        self._set_support(self.selected_)
        return self

    def _lasso(self, X, y, features, sets, lambda_group, lambda_l1, max_iter, tol):
        position = {name: i for i, name in enumerate(features)}
        members = [f for group in sets.values() for f in group]
        blocks = feature_blocks(self.fitted_columns(X, members))
        owner, start = [], 0  # feature position of each design column; column groups
        groups = []
        for group in sets.values():
            columns = []
            for name in group:
                width = blocks[members.index(name)].shape[1]
                columns.extend(range(start, start + width))
                owner.extend([position[name]] * width)
                start += width
            groups.append(np.array(columns))
        design = np.hstack(blocks)
        design = design - design.mean(axis=0)
        spread = design.std(axis=0)
        design /= np.where(spread > 0, spread, 1.0)
        labels = np.asarray(y).ravel()
        classes = np.unique(labels)
        response = (
            labels[:, None] == classes[None, 1:]
            if len(classes) == 2
            else labels[:, None] == classes[None, :]
        ).astype(float)
        response -= response.mean(axis=0)
        l1, group = penalty_scale(design, response, groups, lambda_l1, lambda_group)
        beta, self.n_iter_ = sparse_group_lasso(
            design, response, groups, l1, group, max_iter=max_iter, tol=tol, return_n_iter=True
        )
        coef = np.zeros(len(features))
        for column, feature in enumerate(owner):
            coef[feature] = np.hypot(coef[feature], np.linalg.norm(beta[column]))
        return coef


def _member_pc(tester, member: str, search: dict) -> list[str]:
    with warnings.catch_warnings():  # the selector says once that it stopped early
        warnings.filterwarnings("ignore", "hiton_pc stopped early", RuntimeWarning)
        return hiton_pc(tester, member, **search)
