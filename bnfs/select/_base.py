"""What every selector shares: X and y checked (:class:`Selector`), and for the selectors
that count tables, one :class:`~bnfs.Dataset` with the class as its last column and
continuous features discretized (:class:`DiscreteSelector`)."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.exceptions import DataConversionWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted

from bnfs import learners
from bnfs._data import Dataset, discretize

DISCRETIZERS = ("quantile", "interval", "mdl")
#: what a selector does when it selects no feature (see Selector._set_support)
IF_EMPTY = ("keep_all", "keep_none", "raise")
#: conditioning sets of the local learners that search subsets of their sets for a
#: separating one (HITON, MMPC, PCMB, HPC) when they select features, unless the
#: ``learner_options`` say otherwise: max-k = 3, as Aliferis et al. (2010) ran them for
#: feature selection and as Causal Explorer and pycausalfs do
SELECTION_MAX_COND_SIZE = 3


def selection_options(learner: str, options: dict | None) -> dict:
    """``options`` for ``learner`` when it selects features: a local learner that takes
    ``max_cond_size`` gets :data:`SELECTION_MAX_COND_SIZE` unless given one."""
    options = dict(options or {})
    entry = learners.get(learner)
    if entry.local and "max_cond_size" in entry.options:
        options.setdefault("max_cond_size", SELECTION_MAX_COND_SIZE)
    return options


class EmptySelectionWarning(UserWarning):
    """A selector found no relevant feature (an empty Markov blanket, say)."""


class Selector(SelectorMixin, BaseEstimator):
    """Base of every bnfs selector. Subclasses set ``_support`` (a boolean mask over the
    features) in ``fit``."""

    def _get_support_mask(self):
        check_is_fitted(self, "_support")
        return self._support

    def _check_y(self, y, n_rows: int, classification: bool = True) -> np.ndarray:
        """y as a 1-D array of ``n_rows`` class labels (or, unless ``classification``,
        finite numbers) that takes at least two values."""
        name = type(self).__name__
        if y is None:
            raise ValueError(f"{name} requires y to be passed, but the target y is None")
        if pd.api.types.is_extension_array_dtype(getattr(y, "dtype", None)):
            y = _extension_to_numpy(y)  # nullable Int64/Float64/boolean, categories, strings
        y = np.asarray(y)
        if y.ndim != 1:
            if y.ndim == 2 and y.shape[1] == 1:
                warnings.warn(
                    "A column-vector y was passed when a 1d array was expected; using y.ravel()",
                    DataConversionWarning,
                    stacklevel=3,
                )
                y = y.ravel()
            else:
                raise ValueError(f"y must be one-dimensional, got shape {y.shape}")
        if len(y) != n_rows:
            raise ValueError(f"X has {n_rows} rows but y has {len(y)}")
        if pd.isna(y).any():
            raise ValueError(f"y has {int(pd.isna(y).sum())} missing value(s) (NaN, None or pd.NA)")
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("y contains infinity")
        if classification or type_of_target(y) != "continuous":
            check_classification_targets(y)
        if len(pd.unique(y)) < 2:
            raise ValueError(
                f"y has a single {'class' if classification else 'value'}; {name} "
                "needs at least two"
            )
        return y

    def _set_support(self, selected) -> None:
        """Support mask over the columns of the X given to fit from the selected names.

        An empty selection is a legitimate answer (no feature was found relevant), but
        the next step of a pipeline cannot fit on zero features: it is handled as the
        selector's ``if_empty`` says (default "keep_all"), always with an
        :class:`EmptySelectionWarning` that says why and what to try.
        """
        chosen = set(selected)
        self._support = np.array([c in chosen for c in self._columns], dtype=bool)
        self.empty_ = not self._support.any()
        if not self.empty_:
            return
        policy = getattr(self, "if_empty", "keep_all")
        advice = (
            f"{type(self).__name__} selected no feature: {self._empty_reason()}. "
            f"Try {self._empty_remedy()}, or more rows"
        )
        if policy == "raise":
            raise ValueError(advice)
        if policy == "keep_all":
            self._support[:] = True
            advice += "; all features are passed on (if_empty='keep_all')"
        else:
            advice += "; transform returns no column (if_empty='keep_none')"
        warnings.warn(advice, EmptySelectionWarning, stacklevel=3)

    def _empty_reason(self) -> str:
        return "no feature passed its relevance test on these rows"

    def _empty_remedy(self) -> str:
        return "a less strict setting"

    @staticmethod
    def _varying(frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` without its constant columns: they carry no information and are never
        selected (a training fold of a rare feature is often constant)."""
        varying = [c for c in frame.columns if frame[c].nunique() > 1]
        if not varying:
            raise ValueError("every feature of X is constant; there is nothing to select")
        return frame[varying] if len(varying) < frame.shape[1] else frame

    def _frame(self, X, reset: bool, missing: bool = False) -> pd.DataFrame:
        """X as a fresh DataFrame with string column names (x0, x1, ... for arrays);
        missing values refused unless ``missing``."""
        if reset and getattr(self, "if_empty", "keep_all") not in IF_EMPTY:
            raise ValueError(f"if_empty must be one of {IF_EMPTY}, got {self.if_empty!r}")
        if isinstance(X, pd.DataFrame):
            frame = X.copy()
            if reset:
                if all(isinstance(c, str) for c in frame.columns):
                    self.feature_names_in_ = np.asarray(frame.columns, dtype=object)
                elif hasattr(self, "feature_names_in_"):
                    del self.feature_names_in_
            frame.columns = [str(c) for c in frame.columns]
            if frame.columns.duplicated().any():
                name = frame.columns[frame.columns.duplicated()][0]
                raise ValueError(
                    f"X has two columns named {name!r} as text (e.g. 0 and "
                    "'0'); column names must stay unique as strings"
                )
        else:
            if hasattr(X, "toarray"):
                raise TypeError(
                    f"sparse input is not supported: {type(self).__name__} needs "
                    "dense X (a DataFrame or array)"
                )
            array = np.asarray(X)
            if array.ndim != 2:
                raise ValueError(
                    f"X must be two-dimensional, got shape {array.shape}. Reshape "
                    "your data with array.reshape(-1, 1) for one feature or "
                    "array.reshape(1, -1) for one sample."
                )
            fitted = getattr(self, "_columns", None)
            if not reset and fitted is not None and len(fitted) == array.shape[1]:
                names = fitted  # rows of the data fitted on, by position
            else:
                names = [f"x{i}" for i in range(array.shape[1])]
            frame = pd.DataFrame(array, columns=names)
            if reset and hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        if frame.shape[1] == 0:
            raise ValueError(
                f"0 feature(s) (shape={frame.shape}) while a minimum of 1 is required."
            )
        if reset and frame.shape[0] < 2:
            raise ValueError(f"n_samples={frame.shape[0]}: a blanket needs at least 2 samples")
        for name in frame.columns:
            column = frame[name]
            if missing and column.isna().all():
                raise ValueError(f"column {name!r} of X has no observed value")
            if not missing and column.isna().any():  # NaN, None, NaT and pd.NA, any dtype
                raise ValueError(
                    f"column {name!r} of X has {int(column.isna().sum())} missing "
                    "value(s) (NaN, None or pd.NA); drop or impute them first"
                )
            if (
                pd.api.types.is_float_dtype(column)
                and np.isinf(column.to_numpy(dtype=np.float64, na_value=0.0)).any()
            ):
                raise ValueError(f"column {name!r} of X contains infinity")
        if reset:
            self.n_features_in_ = frame.shape[1]
            self._columns = list(frame.columns)
        return frame

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.target_tags.required = True
        return tags


class DiscreteSelector(Selector):
    """Base of the selectors that count discrete tables; subclasses have ``discretizer``
    and ``n_bins`` parameters."""

    def _discrete_data(self, X, y, missing: bool = False) -> tuple[Dataset, list[str], str]:
        """(data with the class appended, feature names, the class's name in data, which
        becomes ``class_name_``).

        With ``missing``, X may have missing values: then the data is a DataFrame with
        them in place, its continuous columns cut on their observed values (the learners
        that take such data test on the rows observed in each test's variables)."""
        if self.discretizer not in DISCRETIZERS:
            raise ValueError(f"discretizer must be one of {DISCRETIZERS}, got {self.discretizer!r}")
        if (
            isinstance(self.n_bins, bool)
            or not isinstance(self.n_bins, numbers.Integral)
            or self.n_bins < 2
        ):
            raise ValueError(f"n_bins must be an integer >= 2, got {self.n_bins!r}")
        frame = self._frame(X, reset=True, missing=missing)
        y = self._check_y(y, len(frame))
        frame = self._varying(frame)
        features = list(frame.columns)
        target = _unused_name(features)
        frame[target] = pd.Series(y, index=frame.index).astype(str)
        self.class_name_ = target
        if missing and frame.isna().to_numpy().any():
            return self._cut_observed(frame, target), features, target
        data = Dataset(frame)
        if data.continuous_names:
            data = discretize(data, self.discretizer, self.n_bins, target=target)
        return data, features, target

    def _cut_observed(self, frame: pd.DataFrame, target: str) -> pd.DataFrame:
        """``frame`` with each continuous column cut into bins on its observed rows (as
        :func:`bnfs.discretize` cuts a complete one), missing values kept."""
        out = frame.copy()
        for name in frame.columns:
            column = frame[name]
            if name == target or not pd.api.types.is_float_dtype(column.dtype):
                continue
            observed = column.notna().to_numpy()
            part = Dataset(frame.loc[observed, [name, target]])
            if not part.continuous_names:
                continue
            cut = discretize(part, self.discretizer, self.n_bins, target=target)
            values = pd.Series(None, index=frame.index, dtype=object)
            values[observed] = cut.to_pandas()[name].astype(str).to_numpy()
            out[name] = values
        return out


def _extension_to_numpy(y):
    """A pandas extension array (or Series of one) as numpy: nullable Int64, Float64 and
    boolean as their numpy type (as float64 with NaN where values are missing, which the
    caller refuses), everything else (categories, strings) as objects."""
    numpy_dtype = getattr(y.dtype, "numpy_dtype", None)
    if numpy_dtype is not None:
        if pd.isna(y).any():
            return np.asarray(y.to_numpy(dtype=np.float64, na_value=np.nan))
        return np.asarray(y.to_numpy(dtype=numpy_dtype))
    return np.asarray(y.to_numpy(dtype=object))


def _unused_name(columns) -> str:
    name, i = "target", 0
    while name in columns:
        i += 1
        name = f"target_{i}"
    return name


def random_generator(random_state) -> np.random.Generator:
    """A numpy Generator from a selector's ``random_state``: an int >= 0, a numpy
    RandomState or Generator, or None (fresh entropy)."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be an int >= 0, a numpy RandomState or Generator, or None; "
        f"got {random_state!r}"
    )
