"""Fast Correlation-Based Filter: relevance and redundancy by symmetrical uncertainty."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from bnfs._budget import Budget
from bnfs.select._base import DiscreteSelector, keep_parameters
from bnfs.tables._binning import entropy_of_counts
from bnfs.tables._data import Dataset

__all__ = ["FCBF", "fcbf", "mutual_information", "symmetrical_uncertainty"]


def _entropy(codes: np.ndarray, size: int) -> float:
    return float(entropy_of_counts(np.bincount(codes, minlength=size)[None, :])[0])


def _entropies(data: Dataset, x: str, y: str) -> tuple[float, float, float]:
    """H(x), H(y) and H(x, y) in bits."""
    a = data.codes[:, data.index(x)].astype(np.int64)
    b = data.codes[:, data.index(y)].astype(np.int64)
    ra, rb = data.arity(x), data.arity(y)
    return _entropy(a, ra), _entropy(b, rb), _entropy(a * rb + b, ra * rb)


def mutual_information(data: Dataset, x: str, y: str) -> float:
    """I(x; y) = H(x) + H(y) - H(x, y) in bits: the information gain of x about y.

    Examples
    --------
    >>> import pandas as pd
    >>> data = Dataset(pd.DataFrame({"a": list("xxyy"), "b": list("ppqq")}))
    >>> mutual_information(data, "a", "b")  # one bit
    1.0
    """
    h_a, h_b, h_ab = _entropies(data, x, y)
    return max(0.0, h_a + h_b - h_ab)


def symmetrical_uncertainty(data: Dataset, x: str, y: str) -> float:
    """SU(x, y) = 2 I(x; y) / (H(x) + H(y)) of two discrete columns, in [0, 1]: 0 for
    independent columns, 1 when each determines the other (Press et al.; Yu & Liu 2003).

    Examples
    --------
    >>> import pandas as pd
    >>> from bnfs import Dataset
    >>> data = Dataset(pd.DataFrame({"a": list("xxyy"), "b": list("ppqq"), "c": list("pqpq")}))
    >>> symmetrical_uncertainty(data, "a", "b"), symmetrical_uncertainty(data, "a", "c")
    (1.0, 0.0)
    """
    h_a, h_b, h_ab = _entropies(data, x, y)
    if h_a + h_b == 0.0:
        return 0.0
    return max(0.0, 2.0 * (h_a + h_b - h_ab) / (h_a + h_b))


def fcbf(
    data: Dataset, features: list[str], target: str, threshold: float, budget: Budget | None = None
) -> tuple[np.ndarray, list[int]]:
    """(SU of each feature with ``target``, positions of the kept features, most relevant
    first): :class:`FCBF` on a discrete dataset. Once ``budget`` is spent the walk down
    the ranking stops: the features it has not reached are dropped."""
    su = np.array([symmetrical_uncertainty(data, f, target) for f in features])
    ranked = sorted(
        (i for i in range(len(features)) if su[i] >= threshold), key=lambda i: (-su[i], i)
    )
    kept: list[int] = []
    for q in ranked:  # q survives when no more relevant kept p covers it
        if kept and budget is not None and budget.spent():  # the most relevant always stays
            break
        if all(symmetrical_uncertainty(data, features[p], features[q]) < su[q] for p in kept):
            kept.append(q)
    return su, kept


class FCBF(DiscreteSelector):
    """Fast Correlation-Based Filter (Yu & Liu 2003).

    Features whose symmetrical uncertainty with the class is at least ``threshold`` are
    ranked by it; walking down the ranking, each kept feature removes every later one that
    it predicts at least as well as the class does (SU(p, q) >= SU(q, class)): p is an
    approximate Markov blanket of q. The hybrid paper (Duangsoithong & Windeatt 2010) runs
    it before a causal learner to remove redundant features.

    Parameters
    ----------
    threshold : float, default 0.0
        Smallest symmetrical uncertainty with the class a feature needs to be considered.
    discretizer : {"quantile", "interval", "mdl"}, default "quantile"
        How continuous features become discrete (:func:`bnfs.discretize`).
    n_bins : int, default 3
    if_empty : {"keep_all", "keep_none", "raise"}, default "keep_all"
        When no feature is selected (an :class:`~bnfs.select.EmptySelectionWarning` says so
        and why): pass every feature on, so that a pipeline's next step can still fit;
        pass none on (scikit-learn's behaviour); or raise ValueError.
    max_time : float, optional
        Seconds for the walk down the ranking, checked between features: past it, the
        features kept so far (those not reached are dropped) with a RuntimeWarning.

    Attributes
    ----------
    selected_ : list of str
        Kept features, most relevant first.
    su_ : ndarray of shape (n_features,)
        Symmetrical uncertainty of each feature with the class.
    stopped_ : str or None
        Why the fit stopped early ("max_time reached", "interrupted"), or None.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` is a DataFrame with string column names.

    References
    ----------
    L. Yu and H. Liu, "Feature selection for high-dimensional data: a fast correlation-based
    filter solution", ICML 2003.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 500)
    >>> signal = np.where(rng.random(500) < 0.9, y, 1 - y)
    >>> X = pd.DataFrame({"signal": signal, "copy": signal, "noise": rng.integers(0, 2, 500)})
    >>> FCBF(threshold=0.01).fit(X, y).selected_
    ['signal']
    """

    _parameter_constraints: dict = {
        **DiscreteSelector._parameter_constraints,
        "threshold": [Interval(Real, 0, 1, closed="both")],
    }

    def __init__(
        self,
        threshold: float = 0.0,
        *,
        discretizer: str = "quantile",
        n_bins: int = 3,
        if_empty: str = "keep_all",
        max_time: float | None = None,
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Rank features by relevance, then drop those with an approximate blanket."""
        self._validate_params()
        threshold = float(self.threshold)
        data, features, target = self._discrete_data(X, y)
        with self._timed() as budget:
            self.su_, kept = fcbf(data, features, target, threshold, budget)
        self.selected_ = [features[i] for i in kept]
        self._set_support(self.selected_)
        return self
