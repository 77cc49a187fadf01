"""Hybrid correlation and causal feature selection: FCBF removes the redundant features,
a causal learner then removes the irrelevant ones (Duangsoithong & Windeatt 2010)."""

from __future__ import annotations

import warnings
from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from bnfs import learners
from bnfs._budget import stopped_reason
from bnfs.select._base import DiscreteSelector, keep_parameters
from bnfs.select.fcbf import fcbf

__all__ = ["HybridSelector", "CAUSAL_SETTINGS"]

#: the paper's causal learners and settings (Section 4): PC with the MI test at 0.01 and
#: conditioning sets of at most 2, TPDA with the MI test at 0.01, GS and IAMB with the MI
#: (G^2) test at significance 0.01 returning the class's blanket.
CAUSAL_SETTINGS = {
    "pc": ("pc_stable", {"test": "mi_threshold", "threshold": 0.01, "max_cond_size": 2}),
    "tpda": ("tpda", {"test": "mi_threshold", "threshold": 0.01}),
    "gs": ("grow_shrink_mb", {"test": "g2", "alpha": 0.01}),
    "iamb": ("iamb_mb", {"test": "g2", "alpha": 0.01}),
}


class HybridSelector(DiscreteSelector):
    """FCBF, then a causal learner on the survivors (H-PC, H-TPDA, H-GS, H-IAMB).

    Redundant features (those with an approximate Markov blanket, :class:`FCBF`) go first;
    the causal learner then runs on the remaining features and the class. With ``"pc"``
    and ``"tpda"`` the features left disconnected from the class in the learned graph are
    irrelevant and dropped (the paper keeps every feature with a path to the class); with
    ``"gs"`` and ``"iamb"`` the class's Markov blanket is kept.

    Parameters
    ----------
    causal : {"pc", "tpda", "gs", "iamb"}, default "pc"
    fcbf_threshold : float or None, default 0.0
        FCBF's relevance threshold (the paper: 0 for LUCAS, REGED, CINA and SIDO, 0.14 for
        LUCAP). None skips FCBF: the causal learner alone, the paper's baselines.
    causal_options : dict, optional
        Overrides of the paper's settings in :data:`CAUSAL_SETTINGS`, e.g. ``{"alpha": 0.05}``.
    discretizer : {"quantile", "interval", "mdl"}, default "quantile"
    n_bins : int, default 3
    n_jobs : int, optional
        Threads for PC's tests (the other learners run on one); the selection is the
        same for any value.
    if_empty : {"keep_all", "keep_none", "raise"}, default "keep_all"
        When no feature is selected (an :class:`~bnfs.select.EmptySelectionWarning` says so
        and why): pass every feature on, so that a pipeline's next step can still fit;
        pass none on (scikit-learn's behaviour); or raise ValueError.
    max_time : float, optional
        Seconds for FCBF and the causal learner together (PC, GS and IAMB take it; TPDA is
        refused): past it, the selection so far with one RuntimeWarning and ``stopped_``.

    Attributes
    ----------
    fcbf_selected_ : list of str
        Features FCBF kept, most relevant first (all features without FCBF).
    selected_ : list of str
        The final features, in input order.
    network_ : PDAG or None
        The graph over ``fcbf_selected_`` and the class (PC and TPDA).
    stopped_ : str or None
        Why the fit stopped early ("max_time reached", "interrupted"), or None.

    References
    ----------
    T. Duangsoithong and T. Windeatt, "Hybrid correlation and causal feature selection for
    ensemble classifiers", in Ensembles in Machine Learning Applications, Springer, 2011.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("alarm", 5000, seed=0)
    >>> X, y = frame.drop(columns="HYPOVOLEMIA"), frame["HYPOVOLEMIA"]
    >>> hybrid = HybridSelector("pc").fit(X, y)
    >>> hybrid.fcbf_selected_, hybrid.selected_
    (['LVEDVOLUME', 'BP'], ['LVEDVOLUME'])
    """

    _parameter_constraints: dict = {
        **DiscreteSelector._parameter_constraints,
        "causal": [StrOptions(set(CAUSAL_SETTINGS))],
        "fcbf_threshold": [Interval(Real, 0, 1, closed="both"), None],
        "causal_options": [dict, None],
    }

    def __init__(
        self,
        causal: str = "pc",
        *,
        fcbf_threshold: float = 0.0,
        causal_options: dict | None = None,
        discretizer: str = "quantile",
        n_bins: int = 3,
        n_jobs: int | None = None,
        if_empty: str = "keep_all",
        max_time: float | None = None,
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Remove redundant features by FCBF, then irrelevant ones by the causal learner."""
        self._validate_params()
        threshold = None if self.fcbf_threshold is None else float(self.fcbf_threshold)
        name, options = CAUSAL_SETTINGS[self.causal]
        options = {**options, **(self.causal_options or {})}
        learner = learners.get(name)
        if self.max_time is not None and "max_time" not in learner.options:
            timed = [
                c for c, (n, _) in CAUSAL_SETTINGS.items() if "max_time" in learners.get(n).options
            ]
            raise ValueError(
                f"max_time needs a causal learner that stops on time, and {self.causal!r} "
                f"does not; these do: {timed}"
            )
        if self.n_jobs is not None and "n_jobs" in learner.options:
            options.setdefault("n_jobs", self.n_jobs)
        data, features, target = self._discrete_data(X, y)
        with self._timed() as budget:
            if threshold is None:
                self.fcbf_selected_ = list(features)
            else:
                _, kept = fcbf(data, features, target, threshold, budget)
                self.fcbf_selected_ = [features[i] for i in kept]
            if self.max_time is not None:
                options["max_time"] = budget.left()
            reduced = data.select(self.fcbf_selected_ + [target])
            self.network_ = None
            with warnings.catch_warnings():  # the selector says once that it stopped early
                warnings.filterwarnings("ignore", ".* stopped early", RuntimeWarning)
                result = None
                if not self.fcbf_selected_:
                    members: set[str] = set()
                elif learner.local:
                    result = learner(reduced, target, **options)
                    members = set(result)
                else:
                    self.network_ = result = learner(reduced, **options)
                    members = _connected(self.network_, target) - {target}
            if result is not None and stopped_reason(result.learning):
                budget.reason = budget.reason or stopped_reason(result.learning)
        self.selected_ = [f for f in features if f in members]
        self._set_support(self.selected_)
        return self


def _connected(graph, start: str) -> set[str]:
    """Nodes with a path (any direction) to ``start``."""
    seen, stack = {start}, [start]
    while stack:
        for w in graph.neighbours(stack.pop()):
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return seen
