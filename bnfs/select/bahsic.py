"""BAHSIC: backward elimination of features by HSIC (Song, Smola, Gretton, Borgwardt &
Bedo 2007), the baseline of the HSMB paper."""

from __future__ import annotations

import numbers
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from bnfs._kernels.hsic_trials import set_distances, trial_columns, trial_dependences, trial_measure
from bnfs._progress import tqdm
from bnfs.select._base import keep_parameters
from bnfs.select._kernel_input import KernelSelector

__all__ = ["BAHSIC"]

#: Candidates scored per compiled call; the time budget is checked between calls.
TRIALS_PER_CALL = 256


class BAHSIC(KernelSelector):
    """Backward elimination by HSIC.

    Starting from all features, each round scores every remaining feature by the HSIC left
    between the other remaining features (one Gaussian kernel over their joint vector,
    median-distance width) and the target (delta kernel for classes, Gaussian for
    regression), and removes the ``step`` features whose removal leaves it highest, until
    ``n_features_to_select`` remain. Squared distances are additive over features, so a
    candidate costs O(m^2): a round's candidates are scored in one compiled call that
    removes each one's distances from those of the remaining set, and memory is one
    distance matrix (m^2 floats) besides the data, whatever the number of features.

    Parameters
    ----------
    n_features_to_select : int or float, default None
        Features to keep: a count, a fraction of the features in (0, 1), or None for half.
    step : int or float, default 0.1
        Features removed per round: a count, or a fraction in (0, 1) of the remaining
        features (at least one), 10% as in Song et al.
    task : {"auto", "classification", "regression"}, default "auto"
    progress : bool, default False
        Show a progress bar over the elimination.
    max_time : float, optional
        Seconds for the elimination, checked between rounds and every
        ``TRIALS_PER_CALL`` candidates: past it, the round in progress removes all the
        features still to go at once, those it had no time to score first, with a
        RuntimeWarning and ``stopped_``.

    Attributes
    ----------
    selected_ : list of str
        Kept features, in column order.
    ranking_ : ndarray of shape (n_features,)
        1 for kept features; larger numbers for features removed earlier (as scikit-learn's
        RFE).
    stopped_ : str or None
        Why the fit stopped early ("max_time reached", "interrupted"), or None.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` is a DataFrame with string column names.

    References
    ----------
    L. Song, A. Smola, A. Gretton, K. Borgwardt and J. Bedo, "Supervised feature selection
    via dependence estimation", ICML 2007.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.regression(22, n=300, seed=0)
    >>> BAHSIC(n_features_to_select=2).fit(frame.drop(columns="y"), frame["y"]).selected_
    ['x1', 'x2']
    """

    _parameter_constraints: dict = {
        **KernelSelector._parameter_constraints,
        "n_features_to_select": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="neither"),
            None,
        ],
        "step": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="neither"),
        ],
    }

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        step: int | float = 0.1,
        task: str = "auto",
        progress: bool = False,
        max_time: float | None = None,
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Remove features one round at a time while HSIC with y stays highest."""
        self._validate_params()
        step = self.step
        frame, blocks, target = self._kernel_data(X, y)  # constant features rank last
        columns = self._columns
        keep = min(_count(self.n_features_to_select, len(columns)), frame.shape[1])

        feature_columns = trial_columns(blocks)
        measure = trial_measure(target, 2.0, normalized=False)
        remaining = list(range(frame.shape[1]))
        ranking = np.ones(frame.shape[1], dtype=np.int64)
        rounds: list[list[int]] = []
        bar = tqdm(
            total=len(remaining) - keep,
            desc="BAHSIC elimination",
            unit=" features",
            leave=False,
            disable=not self.progress,
        )
        with self._timed() as budget:
            while len(remaining) > keep:
                scores = np.full(len(remaining), np.inf)  # not reached: eliminated first
                base = set_distances(blocks, remaining)
                trials = np.array(remaining, dtype=np.int64)
                for start in range(0, len(trials), TRIALS_PER_CALL):
                    if start > 0 and budget.spent():
                        break
                    stop = start + TRIALS_PER_CALL
                    trial_dependences(
                        base,
                        -1.0,
                        trials[start:stop],
                        feature_columns,
                        measure,
                        np.inf,
                        scores[start:stop],
                    )
                order = sorted(range(len(remaining)), key=lambda q: (-scores[q], remaining[q]))
                count = (
                    step
                    if isinstance(step, numbers.Integral)
                    else max(1, int(step * len(remaining)))
                )
                if budget.spent():  # the rest go in this round
                    count = len(remaining) - keep
                dropped = [remaining[q] for q in order[: min(count, len(remaining) - keep)]]
                gone = set(dropped)
                remaining = [j for j in remaining if j not in gone]
                rounds.append(dropped)
                bar.update(len(dropped))
        bar.close()
        for rank, dropped in enumerate(reversed(rounds), start=2):
            ranking[dropped] = rank
        worst = ranking.max() + 1
        self.ranking_ = np.array(
            [ranking[frame.columns.get_loc(c)] if c in frame.columns else worst for c in columns],
            dtype=np.int64,
        )
        self.selected_ = [frame.columns[j] for j in remaining]
        self._set_support(self.selected_)
        return self


def _count(value, n_features: int) -> int:
    if value is None:
        return max(1, n_features // 2)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"n_features_to_select must be an int, a float or None, got {value!r}")
    if isinstance(value, numbers.Integral):
        if not 1 <= value <= n_features:
            raise ValueError(f"n_features_to_select must be in [1, {n_features}], got {value}")
        return int(value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"a float n_features_to_select must be in (0, 1), got {value}")
    return max(1, int(value * n_features))
