"""What every selector shares: X and y checked (:class:`Selector`), and for the selectors
that count tables, one :class:`~bnfs.Dataset` with the class as its last column and
continuous features discretized (:class:`DiscreteSelector`)."""

from __future__ import annotations

import contextlib
import numbers
import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.exceptions import DataConversionWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted

from bnfs import learners
from bnfs._budget import Budget
from bnfs._warn import user_stacklevel
from bnfs.tables._columns import INTEGER_BLOCK_CELLS, code_dtype
from bnfs.tables._data import Dataset, discretize
from bnfs.tables._kinds import column_kind

DISCRETIZERS = ("quantile", "interval", "mdl")
#: what a selector does when it selects no feature (see Selector._set_support)
IF_EMPTY = ("keep_all", "keep_none", "raise")
#: conditioning sets of the local learners that search subsets of their sets for a
#: separating one (HITON, MMPC, PCMB, HPC) when they select features, unless the
#: ``learner_options`` say otherwise: max-k = 3, as Aliferis et al. (2010) ran them for
#: feature selection and as Causal Explorer and pycausalfs do
SELECTION_MAX_COND_SIZE = 3


#: Cells of X made dense at a time when X is sparse.
SPARSE_BLOCK_CELLS = 4_000_000


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
    features) in ``fit``, which starts with ``self._validate_params()``: scikit-learn
    checks the parameters against ``_parameter_constraints`` and names the one that is
    wrong. Checks that depend on the data (or on the registry of learners) stay in ``fit``."""

    _parameter_constraints: dict = {
        "if_empty": [StrOptions(set(IF_EMPTY))],
        "max_time": [Interval(Real, 0, None, closed="left"), None],
        "n_jobs": [Integral, None],
        "progress": ["boolean", None],
    }

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
                    stacklevel=user_stacklevel(),
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
        warnings.warn(advice, EmptySelectionWarning, stacklevel=user_stacklevel())

    @contextlib.contextmanager
    def _timed(self, what=lambda: "the selection"):
        """The fit's :class:`~bnfs._budget.Budget` of ``max_time`` seconds (Ctrl-C also
        spends it); afterwards ``stopped_`` says why the fit stopped early (None: it did
        not), and a RuntimeWarning says so, returning ``what()`` found so far."""
        budget = Budget(self.max_time)
        with budget.catching_interrupts():
            yield budget
        self.stopped_ = budget.reason
        budget.warn(type(self).__name__, what())

    def _empty_reason(self) -> str:
        return "no feature passed its relevance test on these rows"

    def _empty_remedy(self) -> str:
        return "a less strict setting"

    @staticmethod
    def _varying(frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` without its constant columns: they carry no information and are never
        selected (a training fold of a rare feature is often constant)."""
        keep = np.zeros(frame.shape[1], dtype=bool)
        numeric = _numpy_numeric(frame)
        for block in _column_blocks(frame, numeric):
            values = frame.iloc[:, block].to_numpy()
            with warnings.catch_warnings():  # an all-missing column is refused elsewhere
                warnings.simplefilter("ignore", RuntimeWarning)
                keep[block] = np.nanmax(values, axis=0) > np.nanmin(values, axis=0)
        for j in np.flatnonzero(~numeric):
            keep[j] = frame.iloc[:, j].nunique() > 1
        varying = list(frame.columns[keep])
        if not varying:
            raise ValueError("every feature of X is constant; there is nothing to select")
        return frame[varying] if len(varying) < frame.shape[1] else frame

    def fitted_columns(self, X, names, who: str | None = None) -> pd.DataFrame:
        """The fitted columns ``names`` of new X, dense or sparse, as a DataFrame (only
        those columns are made dense); ``who`` names the estimator in errors."""
        given = sparse.csc_array(X) if sparse.issparse(X) else self._frame(X, reset=False)
        if given.shape[1] != len(self._columns):
            raise ValueError(
                f"X has {given.shape[1]} features, but {who or type(self).__name__} is "
                f"expecting {len(self._columns)} features as input"
            )
        if isinstance(given, pd.DataFrame):
            return given[list(names)]
        position = {name: j for j, name in enumerate(self._columns)}
        columns = given[:, [position[name] for name in names]].toarray()
        return pd.DataFrame(columns, columns=list(names))

    def _frame(self, X, reset: bool, missing: bool = False) -> pd.DataFrame:
        """X as a fresh DataFrame with string column names (x0, x1, ... for arrays);
        missing values refused unless ``missing``."""
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
                    "dense X (a DataFrame or array); the selectors that count tables "
                    "(MarkovBlanketSelector, StableBlanketSelector, FCBF, CFS, SLFS, "
                    "SRS, HybridSelector, InformationGain) take it"
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
        numeric = _numpy_numeric(frame)
        floats = numeric & np.array([d.kind == "f" for d in frame.dtypes], dtype=bool)
        for block in _column_blocks(frame, floats):
            values = frame.iloc[:, block].to_numpy()
            bad = np.isnan(values).any(axis=0) | np.isinf(values).any(axis=0)
            for j in np.asarray(block)[bad]:  # named by the per-column checks below
                self._check_column(frame.iloc[:, j], frame.columns[j], missing)
        for j in np.flatnonzero(~numeric):
            self._check_column(frame.iloc[:, j], frame.columns[j], missing)
        if reset:
            self.n_features_in_ = frame.shape[1]
            self._columns = list(frame.columns)
        return frame

    @staticmethod
    def _check_column(column: pd.Series, name, missing: bool) -> None:
        """Refuse missing values (unless ``missing``; then a column with no observed
        value) and infinity, naming the column."""
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.target_tags.required = True
        return tags


class DiscreteSelector(Selector):
    """Base of the selectors that count discrete tables; subclasses have ``discretizer``
    and ``n_bins`` parameters."""

    _parameter_constraints: dict = {
        **Selector._parameter_constraints,
        "discretizer": [StrOptions(set(DISCRETIZERS))],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy sparse X: see _sparse_data
        return tags

    def _discrete_data(
        self, X, y, missing: bool = False, keeps_continuous=None, keep_name: bool = False
    ) -> tuple[Dataset, list[str], str]:
        """(data with the class appended, feature names, the class's name in data, which
        becomes ``class_name_``).

        With ``missing``, X may have missing values: then the data is a DataFrame with
        them in place, its continuous columns cut on their observed values (the learners
        that take such data test on the rows observed in each test's variables).
        Complete continuous columns are cut into bins unless ``keeps_continuous(features,
        rows)`` says the learner models them as they are. With ``keep_name`` the class
        keeps the name of a named ``y`` that no feature has (else it is "target")."""
        if sparse.issparse(X):
            return self._sparse_data(X, y)
        frame = self._frame(X, reset=True, missing=missing)
        name = getattr(y, "name", None)
        y = self._check_y(y, len(frame))
        frame = self._varying(frame)
        features = list(frame.columns)
        target = _unused_name(features)
        if keep_name and isinstance(name, str) and name and name not in self._columns:
            target = name  # the network of X and y is the one learned on them together
        frame[target] = pd.Series(y, index=frame.index).astype(str)
        self.class_name_ = target
        self.cut_features_ = []
        if missing and frame.isna().to_numpy().any():
            cut = self._cut_observed(frame, target)
            self.cut_features_ = [f for f in features if cut[f].dtype != frame[f].dtype]
            return cut, features, target
        data = Dataset(frame)
        features = [f for f in features if f in data]  # identifiers are set aside
        keep = keeps_continuous is not None and keeps_continuous(len(features), len(frame))
        if data.continuous_names and not keep:
            self.cut_features_ = [f for f in data.continuous_names if f != target]
            data = discretize(data, self._discretizer(), self.n_bins, target=target)
        return data, features, target

    def _discretizer(self) -> str:
        """The discretizer that cuts continuous columns (``"auto"``, where a selector
        takes it, cuts into quantile bins when it cuts)."""
        return "quantile" if self.discretizer == "auto" else self.discretizer

    def _sparse_data(self, X, y) -> tuple[Dataset, list[str], str]:
        """:meth:`_discrete_data` of a scipy sparse X (e.g. term counts), the same data as
        for ``X.toarray()``, built a block of columns at a time so that X is never dense
        in full: only the codes (one byte a cell) are."""
        matrix = sparse.csc_array(X)
        n_rows, n_cols = matrix.shape
        if n_cols == 0:
            raise ValueError(
                f"0 feature(s) (shape={matrix.shape}) while a minimum of 1 is required."
            )
        if n_rows < 2:
            raise ValueError(f"n_samples={n_rows}: a blanket needs at least 2 samples")
        if matrix.dtype.kind not in "biuf":
            raise TypeError(f"sparse X must hold numbers, got dtype {matrix.dtype}")
        if matrix.data.size and not np.isfinite(matrix.data).all():
            bad = np.flatnonzero(~np.isfinite(matrix.data))[0]
            column = int(np.searchsorted(matrix.indptr, bad, side="right")) - 1
            raise ValueError(f"column 'x{column}' of X has a NaN or infinite value")
        names = [f"x{j}" for j in range(n_cols)]
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = n_cols
        self._columns = names
        labels = pd.Series(self._check_y(y, n_rows)).astype(str).to_numpy()
        target = _unused_name(names)
        self.class_name_ = target
        self.cut_features_ = []
        step = max(1, SPARSE_BLOCK_CELLS // n_rows)
        parts = []
        for start in range(0, n_cols, step):
            block = matrix[:, start : start + step].toarray()
            varying = np.flatnonzero(block.max(axis=0) > block.min(axis=0))
            if varying.size == 0:
                continue
            frame = pd.DataFrame(block[:, varying], columns=[names[start + j] for j in varying])
            frame[target] = labels
            data = Dataset(frame)
            if data.continuous_names:
                self.cut_features_.extend(data.continuous_names)
                data = discretize(data, self._discretizer(), self.n_bins, target=target)
            parts.append(data)
        if not parts:
            raise ValueError("every feature of X is constant; there is nothing to select")
        features = [name for part in parts for name in part.names if name != target]
        widest = max(int(part.arities.max()) for part in parts)
        codes = np.empty((n_rows, len(features) + 1), dtype=code_dtype(widest), order="F")
        states, cuts, column = {}, {}, 0
        for part in parts:
            for name in part.names:
                if name != target:
                    codes[:, column] = part.column(name)
                    states[name] = part.states[name]
                    column += 1
            cuts.update(getattr(part, "cut_points", {}))
        codes[:, -1] = parts[0].column(target)
        states[target] = parts[0].states[target]
        data = Dataset.from_codes(codes, [*features, target], states)
        data.cut_points = cuts
        return data, features, target

    def _cut_observed(self, frame: pd.DataFrame, target: str) -> pd.DataFrame:
        """``frame`` with each continuous column cut into bins on its observed rows."""
        return cut_on_observed(frame, target, self._discretizer(), self.n_bins)


def cut_on_observed(frame: pd.DataFrame, target: str, method: str, n_bins: int) -> pd.DataFrame:
    """``frame`` with each continuous column cut into bins on its observed rows (as
    :func:`bnfs.discretize` cuts a complete one; ``"mdl"`` supervised by ``target``),
    missing values kept."""
    out = frame.copy()
    for name in frame.columns:
        column = frame[name]
        if name == target or column_kind(column) == "discrete":
            continue
        observed = column.notna().to_numpy() & frame[target].notna().to_numpy()
        part = Dataset(frame.loc[observed, [name, target]], continuous=[name], discrete=[target])
        cut = discretize(part, method, n_bins, target=target if method == "mdl" else None)
        values = pd.Series(None, index=frame.index, dtype=object)
        values[observed] = cut.to_pandas()[name].astype(str).to_numpy()
        out[name] = values
    return out


def _numpy_numeric(frame: pd.DataFrame) -> np.ndarray:
    """Which columns hold numpy integers, floats or booleans (checked a block at a time;
    the others, strings, categories and extension types, one column at a time)."""
    return np.array(
        [isinstance(d, np.dtype) and d.kind in "biuf" for d in frame.dtypes], dtype=bool
    )


def _column_blocks(frame: pd.DataFrame, chosen: np.ndarray):
    """Positions of the ``chosen`` columns, in blocks of one dtype and about 16 M cells
    (so that each block is one numpy array of that dtype)."""
    step = max(1, INTEGER_BLOCK_CELLS // max(len(frame), 1))
    dtypes = frame.dtypes.to_numpy()
    for dtype in pd.unique(dtypes[chosen]):
        positions = np.flatnonzero(chosen & (dtypes == dtype))
        for start in range(0, len(positions), step):
            yield positions[start : start + step].tolist()


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


def keep_parameters(estimator, given: dict) -> None:
    """Store an estimator's ``__init__`` arguments, ``given`` as its ``locals()`` on entry,
    as attributes of the same names, unchanged: what scikit-learn's ``get_params`` and
    ``clone`` read back (its rule: ``__init__`` sets its parameters and does nothing else;
    ``fit`` checks them)."""
    for name, value in given.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


def random_seed(random_state) -> int | None:
    """The int seed a selector's ``random_state`` gives its learners: an int >= 0 as it is,
    one drawn from a numpy RandomState or Generator, None as None (fresh entropy)."""
    if random_state is None:
        return None
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    raise TypeError(
        "random_state must be an int >= 0, a numpy RandomState or Generator, or None; "
        f"got {random_state!r}"
    )


def random_generator(random_state) -> np.random.Generator:
    """A numpy Generator from a selector's ``random_state`` (:func:`random_seed`; a
    Generator is used as it is)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(random_seed(random_state))
