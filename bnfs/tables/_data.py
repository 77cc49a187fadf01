"""The data layer: validate once, encode discrete columns as small integer codes.

Every learner takes a :class:`Dataset` (or anything its constructor takes). Discrete
columns become contiguous codes ``0..arity-1`` in the smallest unsigned integer type, stored
column-major so each column is one contiguous array for the counting kernels; state names
are kept for decoding. Continuous (float) columns are kept as float64 for the learners that
use them, and :func:`discretize` turns them into discrete columns.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import numpy as np
import pandas as pd

import bnfs.tables._sources as _sources
from bnfs._validate import near_match
from bnfs.tables._binning import bin_columns
from bnfs.tables._chunks import encode_chunks
from bnfs.tables._columns import code_dtype, column_names
from bnfs.tables._frame import encode_frame
from bnfs.tables._kinds import with_numbers_read
from bnfs.tables._scaling import standardized_columns
from bnfs.tables._sources import DEFAULT_MAX_LEVELS
from bnfs.tables._weights import checked_weights

__all__ = ["Dataset", "as_dataset", "discretize"]


class Dataset:
    """Validated, encoded data for structure learning.

    Parameters
    ----------
    data : pandas.DataFrame, numpy.ndarray, str or os.PathLike, dask DataFrame, or Dataset
        The data. A file (CSV, TSV, Parquet, ARFF by its extension; CSV otherwise) and a
        dask DataFrame are read and encoded block by block (:func:`bnfs.io.read_dataset`),
        so they need memory for the codes only. A 2-D numpy array needs ``names``.
    names : sequence of str, optional
        Column names for a numpy array (must not be given for a DataFrame).
    dropna : bool, default False
        Drop rows with a missing value (NaN, None, pandas.NA) instead of raising.
    max_levels : int, default 256
        Largest number of levels a discrete column of text or categories may have (an
        integer column with more values is continuous).
    discrete, continuous : sequence of str, optional
        Columns to treat as discrete (their values become levels) or as continuous (numbers
        only), overriding the typing rule: bool, string, object and categorical columns are
        discrete, and integer and float columns discrete when they have few distinct values
        (two, or at most 10 with at least 5 rows a value), continuous otherwise. A column with a distinct value on (nearly) every row (at least 95% of 20
        or more rows; for integers, also a run of numbers or ordered with the rows) is an
        identifier, set aside with a warning unless named here. Dates and times are
        refused. The rule and its reasons: :mod:`bnfs.tables._kinds`.
    constant : {"raise", "isolate"}, default "raise"
        What to do with a constant column (one observed value): refuse it, or set it aside
        (left out of ``names``, listed in ``isolated``). The structure learners set such
        columns aside and return them as isolated nodes, with a warning.

    Attributes
    ----------
    names : tuple of str
        All column names, in order.
    discrete_names, continuous_names : tuple of str
        The discrete and continuous columns, in order.
    codes : numpy.ndarray of shape (n_rows, n_discrete)
        Codes ``0..arity-1`` of the discrete columns (Fortran order: each column is
        contiguous), in the smallest unsigned integer type that holds them.
    arities : numpy.ndarray of int64
        Number of levels of each discrete column.
    states : dict of str to tuple
        Level labels of each discrete column; code ``i`` means ``states[name][i]``.
    values : numpy.ndarray of shape (n_rows, n_continuous)
        The continuous columns as float64 (Fortran order).
    isolated : dict of str to value
        The constant columns set aside by ``constant="isolate"``, with their one value.
    columns : tuple of str
        Every column of the data in order, the constant ones set aside included.
    kinds : dict of str to str
        How each column of the data was typed: ``"discrete"``, ``"continuous"``,
        ``"constant"`` (set aside) or ``"identifier"`` (set aside).
    whole_numbers : tuple of str
        The continuous columns that were integer columns with many values.
    float_codes : tuple of str
        The discrete columns that were float columns holding few distinct values (codes,
        such as a 0/1 flag that pandas stores as float because it has gaps).

    Raises
    ------
    TypeError
        Non-string or unhashable column names, a column mixing value types, a column of
        dates or times, text named continuous, data of an unsupported type.
    ValueError
        Empty data, duplicate names, missing or infinite values, a column with a single
        level, a column of text with more than ``max_levels`` levels.

    Notes
    -----
    Levels of strings and numbers are sorted; a categorical column keeps its category
    order. Only observed levels are kept, so a categorical column with unused categories
    gets the arity of the levels it shows. bnlearn differs here: it counts a factor's
    declared levels, unused ones included, so its BIC of such data carries their
    parameters (tested against bnlearn-port: the scores agree once the factor declares
    only the levels observed). The caller's data is never modified.

    Examples
    --------
    >>> import pandas as pd
    >>> data = Dataset(pd.DataFrame({"smoke": ["yes", "no", "yes"], "age": [31.0, 42.5, 57.1]}))
    >>> data.discrete_names, data.continuous_names
    (('smoke',), ('age',))
    >>> data.codes[:, 0].tolist(), data.states["smoke"]
    ([1, 0, 1], ('no', 'yes'))
    """

    # the constructors from other sources: files and dask frames by blocks, DataFrame blocks,
    # integer codes, sparse matrices (:mod:`bnfs.tables._sources`, that one responsibility)
    from_chunks = classmethod(_sources.from_chunks)
    from_csv = classmethod(_sources.from_csv)
    from_codes = classmethod(_sources.from_codes)
    from_sparse = classmethod(_sources.from_sparse)

    def __init__(
        self,
        data,
        *,
        names: Sequence[str] | None = None,
        dropna: bool = False,
        max_levels: int = DEFAULT_MAX_LEVELS,
        discrete: Sequence[str] | None = None,
        continuous: Sequence[str] | None = None,
        constant: Literal["raise", "isolate"] = "raise",
    ):
        if constant not in ("raise", "isolate"):
            raise ValueError(f"constant must be 'raise' or 'isolate', got {constant!r}")
        if isinstance(data, Dataset):
            given = {
                "names": names is not None,
                "dropna": dropna is not False,
                "max_levels": max_levels != DEFAULT_MAX_LEVELS,
                "discrete": discrete is not None,
                "continuous": continuous is not None,
            }
            refused = [k for k, v in given.items() if v]
            if refused:
                raise ValueError(
                    f"{refused[0]} cannot be given with a Dataset: its columns are typed and "
                    "encoded already; pass the frame or file it was made from instead"
                )
            self.__dict__.update(data.__dict__)
            return
        if isinstance(max_levels, bool) or not isinstance(max_levels, (int, np.integer)):
            raise TypeError(f"max_levels must be an integer, got {max_levels!r}")
        if max_levels < 2:
            raise ValueError(f"max_levels must be >= 2, got {max_levels}")
        blocks = _sources.blocks_of(data, names)
        if blocks is not None:  # a file or a dask DataFrame: encoded block by block
            names, parts = encode_chunks(
                blocks,
                dropna=dropna,
                max_levels=max_levels,
                discrete=discrete,
                continuous=continuous,
                constant=constant,
            )
            self.names = tuple(n for n in parts["columns"] if n not in parts["isolated"])
            self._set(**parts)
            return
        frame = _sources.frame_of(data, names)
        self.names = column_names(frame.columns)
        if frame.shape[1] == 0:
            raise ValueError("data has no columns")
        if frame.shape[0] == 0:
            raise ValueError("data has no rows")
        # a column asked to be discrete keeps its text (a bad discrete= is refused below)
        keep = discrete if isinstance(discrete, Iterable) and not isinstance(discrete, str) else ()
        frame = with_numbers_read(frame, keep=keep)
        frame = _sources.complete_rows(frame, dropna)
        parts = encode_frame(frame, self.names, int(max_levels), discrete, continuous, constant)
        self.names = tuple(n for n in parts["columns"] if n not in parts["isolated"])
        self._set(**parts)

    # -- construction helpers -------------------------------------------------------------
    def _set(
        self,
        *,
        n_rows,
        disc_names,
        disc_codes,
        states,
        cont_names,
        floats,
        raw=None,
        codes=None,
        isolated=None,
        columns=None,
        kinds=None,
        whole_numbers=(),
        float_codes=(),
    ):
        self.n_rows = int(n_rows)
        #: how much each row counts in the discrete scores (None: once each); see
        #: :meth:`with_weights`
        self.weights = None
        self.isolated = dict(isolated or {})
        self.columns = tuple(self.names if columns is None else columns)
        self.discrete_names = tuple(disc_names)
        self.continuous_names = tuple(cont_names)
        self.states = {name: tuple(states[name]) for name in disc_names}
        self.arities = np.array([len(self.states[n]) for n in disc_names], dtype=np.int64)
        dtype = code_dtype(int(self.arities.max()) if disc_names else 2)
        if codes is not None:  # filled by the caller (e.g. a memory-mapped file)
            self.codes = codes
        else:
            self.codes = np.empty((self.n_rows, len(disc_names)), dtype=dtype, order="F")
        for j, codes in enumerate(disc_codes):  # (from_sparse fills codes itself)
            self.codes[:, j] = codes
        self.values = np.empty((self.n_rows, len(cont_names)), dtype=np.float64, order="F")
        for j, values in enumerate(floats):
            self.values[:, j] = values
        self._raw = dict(raw or {})
        self._disc_index = {n: j for j, n in enumerate(disc_names)}
        self._cont_index = {n: j for j, n in enumerate(cont_names)}
        #: how each column of the data was typed (see :mod:`bnfs.tables._kinds`)
        self.kinds = dict(kinds) if kinds is not None else self._kinds_now()
        #: continuous columns that were integer columns with many values
        self.whole_numbers = tuple(n for n in whole_numbers if n in self._cont_index)
        #: discrete columns that were float columns holding few values (codes)
        self.float_codes = tuple(n for n in float_codes if n in self._disc_index)

    def _kinds_now(self) -> dict:
        """The kind of each column as the data hold it now, the ones set aside included."""
        kinds = {n: "constant" for n in self.isolated}
        kinds.update({n: "discrete" for n in self.discrete_names})
        kinds.update({n: "continuous" for n in self.continuous_names})
        return {n: kinds[n] for n in self.columns if n in kinds}

    # -- access ---------------------------------------------------------------------------
    @property
    def n_vars(self) -> int:
        return len(self.names)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rows, self.n_vars)

    def __len__(self) -> int:
        return self.n_rows

    def __contains__(self, name) -> bool:
        return isinstance(name, Hashable) and (name in self._disc_index or name in self._cont_index)

    def __repr__(self) -> str:
        return (
            f"Dataset({self.n_rows} rows, {len(self.discrete_names)} discrete and "
            f"{len(self.continuous_names)} continuous columns)"
        )

    @property
    def is_discrete(self) -> bool:
        return not self.continuous_names

    def check_name(self, name, what: str = "target") -> str:
        """Return ``name`` if it is a column, else raise a clear error naming ``what``."""
        if not isinstance(name, Hashable):
            raise TypeError(f"{what} must be a column name, got unhashable {type(name).__name__}")
        if name not in self._disc_index and name not in self._cont_index:
            raise ValueError(
                f"{what} {name!r} is not a column{near_match(name, self.names)}; columns are "
                f"{list(self.names)[:20]}" + (" ..." if self.n_vars > 20 else "")
            )
        return name

    def require_discrete(self, who: str) -> None:
        """Raise when some columns are continuous (for learners of discrete data)."""
        if self.continuous_names:
            shown = list(self.continuous_names[:10])
            raise ValueError(
                f"{who} needs discrete data but columns {shown} are continuous; "
                "use bnfs.discretize(...) or Dataset(..., discrete=[...]), or a learner that "
                "models them (bnfs.learn, bnfs.hill_climbing, bnfs.pc_stable, ...)"
            )

    def column(self, name: str) -> np.ndarray:
        """Codes of a discrete column, or float values of a continuous one (a view)."""
        self.check_name(name, "column")
        if name in self._disc_index:
            return self.codes[:, self._disc_index[name]]
        return self.values[:, self._cont_index[name]]

    def raw(self, name: str) -> np.ndarray:
        """Original float values of a column that :func:`discretize` turned discrete."""
        self.check_name(name, "column")
        if name in self._cont_index:
            return self.values[:, self._cont_index[name]]
        if name not in self._raw:
            raise ValueError(f"column {name!r} was discrete from the start; it has no raw floats")
        return self._raw[name]

    def arity(self, name: str) -> int:
        self.check_name(name, "column")
        if name not in self._disc_index:
            raise ValueError(f"column {name!r} is continuous; it has no arity")
        return int(self.arities[self._disc_index[name]])

    def index(self, name: str) -> int:
        """Position of a discrete column in ``codes``."""
        self.check_name(name, "column")
        if name not in self._disc_index:
            raise ValueError(f"column {name!r} is continuous")
        return self._disc_index[name]

    def decode(self, name: str, codes) -> np.ndarray:
        """Level labels of ``codes`` for a discrete column."""
        self.index(name)
        labels = np.asarray(self.states[name], dtype=object)
        return labels[np.asarray(codes, dtype=np.int64)]

    def to_pandas(self) -> pd.DataFrame:
        """The data as a DataFrame: categorical columns for discrete data (observed levels,
        in code order), float64 for continuous; columns in the original order."""
        cols = {}
        for name in self.names:
            if name in self._disc_index:
                codes = self.codes[:, self._disc_index[name]].astype(np.int64)
                cols[name] = pd.Categorical.from_codes(codes, categories=list(self.states[name]))
            else:
                cols[name] = self.values[:, self._cont_index[name]].copy()
        return pd.DataFrame(cols)

    def select(self, columns: Sequence[str]) -> Dataset:
        """A new Dataset with only ``columns`` (in that order)."""
        columns = [self.check_name(c, "column") for c in columns]
        column_names(columns)
        return self._build(rows=None, columns=columns)

    def take(self, rows) -> Dataset:
        """A new Dataset with the given rows (indices, may repeat: bootstrap samples).

        Levels that no longer occur are kept, so codes stay comparable across samples.
        """
        rows = np.asarray(rows)
        if rows.ndim != 1 or rows.size == 0:
            raise ValueError("rows must be a non-empty 1-D index array")
        if rows.dtype == bool or not np.issubdtype(rows.dtype, np.integer):
            raise TypeError(
                f"rows must be integer row indices, got {rows.dtype} values"
                + (" (for a boolean mask pass np.flatnonzero(mask))" if rows.dtype == bool else "")
            )
        if rows.min() < 0 or rows.max() >= self.n_rows:
            bad = int(rows.min() if rows.min() < 0 else rows.max())
            raise ValueError(f"rows must lie in 0..{self.n_rows - 1}, got {bad}")
        return self._build(rows=rows, columns=list(self.names))

    def _build(self, rows, columns) -> Dataset:
        take = (lambda a: a) if rows is None else (lambda a: a[rows])
        disc = [c for c in columns if c in self._disc_index]
        cont = [c for c in columns if c in self._cont_index]
        new = Dataset.__new__(Dataset)
        new.names = tuple(columns)
        new._set(
            n_rows=self.n_rows if rows is None else len(rows),
            disc_names=disc,
            disc_codes=[take(self.codes[:, self._disc_index[c]]) for c in disc],
            states=self.states,
            cont_names=cont,
            floats=[take(self.values[:, self._cont_index[c]]) for c in cont],
            raw={c: take(v) for c, v in self._raw.items() if c in disc},
        )
        new.weights = None if self.weights is None else take(self.weights)
        return new

    def with_weights(self, weights) -> Dataset:
        """A copy of these discrete or mixed data whose rows count ``weights`` times in the
        scores that :mod:`bnfs.search` uses: counts, sums and cross-products become sums of
        weights and the number of rows their total. Frequency weights (a row of weight 2
        scores as two rows of weight 1), or the posterior probabilities of the completions
        of incomplete rows, whose statistics are then structural EM's expected sufficient
        statistics (Friedman 1998). Continuous data alone take no weights (the Gaussian
        scores read one covariance matrix; structural EM gives them rows that hold the
        expected moments instead).

        Parameters
        ----------
        weights : array-like of float, one per row
            Finite and non-negative, with a positive total.
        """
        if not self.discrete_names:
            raise ValueError(
                "row weights need discrete or mixed data; these columns are all continuous"
            )
        w = checked_weights(weights, self.n_rows)
        new = self._build(rows=None, columns=list(self.names))
        new.weights = w
        return new

    def standardized(self) -> Dataset:
        """A copy whose continuous columns are centred and divided by their standard
        deviation (discrete columns as they are): for scores whose prior is not scale-free,
        such as BGe, so that a column's unit does not change the graph. A column without
        spread stays centred at 0. Computed on the unit-scaled columns (:func:`~bnfs.tables._scaling.unit_scaled`),
        so values near the ends of the float range do not overflow."""
        new = self._build(rows=None, columns=list(self.names))
        if new.values.size:
            new.values[:] = standardized_columns(new.values)
        return new

    def discretize(
        self,
        method: Literal["quantile", "interval", "mdl"] = "quantile",
        n_bins: int = 3,
        *,
        target: str | None = None,
        columns: Sequence[str] | None = None,
    ) -> Dataset:
        """Shortcut for :func:`discretize` on this dataset."""
        return discretize(self, method=method, n_bins=n_bins, target=target, columns=columns)


def as_dataset(data, **kwargs) -> Dataset:
    """``data`` itself when it is a Dataset, :meth:`Dataset.from_sparse` for a scipy sparse
    matrix, else ``Dataset(data, **kwargs)``.

    Examples
    --------
    >>> from bnfs import datasets
    >>> data = as_dataset(datasets.sample("asia", 500, seed=0))
    >>> as_dataset(data) is data
    True
    """
    if isinstance(data, Dataset):
        return data
    import scipy.sparse as sp

    if sp.issparse(data):
        return Dataset.from_sparse(data)
    return Dataset(data, **kwargs)


def discretize(
    data,
    method: Literal["quantile", "interval", "mdl"] = "quantile",
    n_bins: int = 3,
    *,
    target: str | None = None,
    columns: Sequence[str] | None = None,
) -> Dataset:
    """Turn continuous columns into discrete ones.

    Parameters
    ----------
    data : Dataset or anything :class:`Dataset` takes
    method : {"quantile", "interval", "mdl"}
        ``"quantile"``: equal-frequency bins (bnlearn's default); ``"interval"``: equal-width
        bins; ``"mdl"``: supervised, recursive minimum class-entropy cuts accepted by the
        minimum-description-length rule of Fayyad & Irani (needs ``target``); a column with
        no accepted cut gets two bins split at its median.
    n_bins : int, default 3
        Number of bins for the unsupervised methods (fewer when values repeat).
    target : str, optional
        Discrete class column for ``"mdl"``.
    columns : sequence of str, optional
        Continuous columns to discretize (default: all of them).

    Returns
    -------
    Dataset
        A new dataset; discretized columns get interval labels such as ``"(0.5, 1.2]"`` as
        states and keep their floats (:meth:`Dataset.raw`). Its ``cut_points`` maps each
        discretized column to its sorted cuts (a value v gets code
        ``numpy.searchsorted(cuts, v, side="left")``), so new data can be coded the same way.

    References
    ----------
    U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
    attributes for classification learning", IJCAI 1993.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> frame = pd.DataFrame({"x": np.arange(9.0)})
    >>> discretize(frame, "quantile", 3).codes[:, 0].tolist()
    [0, 0, 0, 1, 1, 1, 2, 2, 2]
    """
    data = as_dataset(data)
    new_codes, new_states, raw, cut_points = bin_columns(data, method, n_bins, target, columns)
    disc_names = [n for n in data.names if n in data._disc_index or n in new_codes]
    cont_names = [n for n in data.names if n in data._cont_index and n not in new_codes]
    states = {**data.states, **new_states}
    out = Dataset.__new__(Dataset)
    out.names = data.names
    out._set(
        n_rows=data.n_rows,
        disc_names=disc_names,
        disc_codes=[new_codes[n] if n in new_codes else data.column(n) for n in disc_names],
        states=states,
        cont_names=cont_names,
        floats=[data.column(n) for n in cont_names],
        raw={**data._raw, **raw},
        isolated=data.isolated,
        columns=data.columns,
    )
    out.cut_points = {**getattr(data, "cut_points", {}), **cut_points}
    return out
