"""Information-gain ranking: the pairwise baseline of the Markov-blanket SVM paper."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval

from bnfs.select._base import DiscreteSelector, keep_parameters
from bnfs.select.fcbf import mutual_information

__all__ = ["InformationGain"]


class InformationGain(DiscreteSelector):
    """The ``n_features_to_select`` features of highest information gain about the class.

    Information gain is the mutual information I(f; class) of the discrete (or discretized)
    columns (Yang & Pedersen 1997). Shen, Li & Wong compare Markov-blanket selection with
    it at the same number of features; being pairwise, it misses features that matter only
    together with others.

    Parameters
    ----------
    n_features_to_select : int, default 10
        Features to keep (all of them when there are fewer); ties go to the earlier column.
    discretizer : {"quantile", "interval", "mdl"}, default "quantile"
    n_bins : int, default 3

    Attributes
    ----------
    selected_ : list of str
        Kept features, highest gain first.
    gain_ : ndarray of shape (n_features,)
        Information gain of each feature, in bits.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` is a DataFrame with string column names.

    References
    ----------
    Y. Yang and J. O. Pedersen, "A comparative study on feature selection in text
    categorization", ICML 1997.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.corral(7, n=1000, seed=0)
    >>> InformationGain(2).fit(frame.drop(columns="Y"), frame["Y"]).selected_
    ['R', 'A1']
    """

    _parameter_constraints: dict = {
        **DiscreteSelector._parameter_constraints,
        "n_features_to_select": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self, n_features_to_select: int = 10, *, discretizer: str = "quantile", n_bins: int = 3
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Rank the features by information gain and keep the top ones."""
        self._validate_params()
        count = int(self.n_features_to_select)
        data, features, target = self._discrete_data(X, y)
        self.gain_ = np.array([mutual_information(data, f, target) for f in features])
        ranked = sorted(range(len(features)), key=lambda i: (-self.gain_[i], i))[:count]
        self.selected_ = [features[i] for i in ranked]
        self._set_support(self.selected_)
        return self
