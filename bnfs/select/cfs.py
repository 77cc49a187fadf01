"""CFS: correlation-based feature-subset selection (Hall 1999) searched by sequential
forward floating search (Pudil, Novovičová & Kittler 1994)."""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval

from bnfs._budget import Budget
from bnfs.select._base import DiscreteSelector, keep_parameters
from bnfs.select.fcbf import symmetrical_uncertainty

__all__ = ["CFS", "sffs"]


def sffs(
    merit: Callable[[tuple[int, ...]], float],
    n_features: int,
    patience: int = 5,
    max_features: int | None = None,
    budget: Budget | None = None,
) -> tuple[tuple[int, ...], float]:
    """Sequential forward floating search: (best subset, its merit).

    Each round adds the feature that raises ``merit`` most, then removes features while
    removing one gives a subset better than any of that size seen before. The search stops
    when ``max_features`` are in, nothing is left to add, ``patience`` additions in a row
    have not beaten the best merit (the stopping rule of Weka's searches), or ``budget`` is
    spent (checked before each addition); ties go to the lower index.
    """
    limit = n_features if max_features is None else min(max_features, n_features)
    seen: dict[tuple[int, ...], float] = {}
    score = merit

    def merit(subset):
        if subset not in seen:
            seen[subset] = score(subset)
        return seen[subset]

    current: tuple[int, ...] = ()
    best_of_size: dict[int, float] = {0: -math.inf}
    best, best_merit, stale = (), -math.inf, 0
    while len(current) < limit and stale < patience:
        if current and budget is not None and budget.spent():  # one addition always runs
            break
        candidates = [j for j in range(n_features) if j not in current]
        added = max(candidates, key=lambda j: (merit(tuple(sorted(current + (j,)))), -j))
        current = tuple(sorted(current + (added,)))
        value = merit(current)
        best_of_size[len(current)] = max(best_of_size.get(len(current), -math.inf), value)
        while len(current) > 2:  # conditional exclusion, never of the feature just added
            removable = [j for j in current if j != added]
            dropped = max(removable, key=lambda j: (merit(tuple(x for x in current if x != j)), j))
            smaller = tuple(x for x in current if x != dropped)
            smaller_merit = merit(smaller)
            if smaller_merit <= best_of_size.get(len(smaller), -math.inf):
                break
            current, value = smaller, smaller_merit
            best_of_size[len(current)] = value
        if value > best_merit:
            best, best_merit, stale = current, value, 0
        else:
            stale += 1
    return best, best_merit


class CFS(DiscreteSelector):
    """Correlation-based feature selection with a floating forward search.

    A subset S of k features is scored by Hall's merit,
    ``k * mean SU(f, class) / sqrt(k + k (k - 1) * mean SU(f, g))``: high when the features
    predict the class and not each other. The subset is found by sequential forward
    floating search, as in the hybrid paper (Duangsoithong & Windeatt). Correlations are
    symmetrical uncertainties of the discrete (or discretized) columns, as in Hall's CFS and
    Weka; the hybrid paper's text says Pearson correlation, which is undefined for
    nominal features with more than two states. Pairwise correlations are computed when the
    search first needs them.

    Parameters
    ----------
    patience : int, default 5
        Stop after this many additions in a row that do not improve the best merit.
    max_features : int, default None
        Largest subset considered (None: no limit).
    discretizer : {"quantile", "interval", "mdl"}, default "quantile"
    n_bins : int, default 3
    if_empty : {"keep_all", "keep_none", "raise"}, default "keep_all"
        When no feature is selected (an :class:`~bnfs.select.EmptySelectionWarning` says so
        and why): pass every feature on, so that a pipeline's next step can still fit;
        pass none on (scikit-learn's behaviour); or raise ValueError.
    max_time : float, optional
        Seconds for the search, checked before each addition: past it, the best subset so
        far with a RuntimeWarning.

    Attributes
    ----------
    selected_ : list of str
        The selected features, in column order.
    merit_ : float
        Merit of the selected subset.
    stopped_ : str or None
        Why the fit stopped early ("max_time reached", "interrupted"), or None.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` is a DataFrame with string column names.

    References
    ----------
    M. A. Hall, "Correlation-based feature selection for machine learning", PhD thesis,
    University of Waikato, 1999. P. Pudil, J. Novovičová and J. Kittler, "Floating search
    methods in feature selection", Pattern Recognition Letters 15, 1994.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.corral(7, n=1000, seed=0)
    >>> CFS().fit(frame.drop(columns="Y"), frame["Y"]).selected_
    ['A0', 'A1', 'B1', 'R']
    """

    _parameter_constraints: dict = {
        **DiscreteSelector._parameter_constraints,
        "patience": [Interval(Integral, 1, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        patience: int = 5,
        max_features: int | None = None,
        discretizer: str = "quantile",
        n_bins: int = 3,
        if_empty: str = "keep_all",
        max_time: float | None = None,
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Search for the subset of highest merit."""
        self._validate_params()
        patience, max_features = int(self.patience), self.max_features
        data, features, target = self._discrete_data(X, y)
        relevance = np.array([symmetrical_uncertainty(data, f, target) for f in features])
        pairs: dict[tuple[int, int], float] = {}

        def correlation(i: int, j: int) -> float:
            if (i, j) not in pairs:
                pairs[i, j] = symmetrical_uncertainty(data, features[i], features[j])
            return pairs[i, j]

        def merit(subset: tuple[int, ...]) -> float:
            k = len(subset)
            inter = sum(correlation(a, b) for q, a in enumerate(subset) for b in subset[q + 1 :])
            denominator = math.sqrt(k + 2.0 * inter)  # k + k(k-1) * mean pairwise SU
            return float(relevance[list(subset)].sum()) / denominator if denominator else 0.0

        with self._timed() as budget:
            subset, self.merit_ = sffs(merit, len(features), patience, max_features, budget)
        self.selected_ = [features[i] for i in subset]
        self._set_support(self.selected_)
        return self
