"""Conditional-independence tests on data with missing values: each test on the rows observed
in its variables (available-case analysis)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnfs._validate import check_float
from bnfs._vocabulary import TEST_OPTIONS, TESTS, test_kind
from bnfs.stats.citests.base import (
    CIResult,
    Tester,
    TestName,
)
from bnfs.stats.citests.data_tests import CITest
from bnfs.tables._columns import column_names
from bnfs.tables._data import Dataset
from bnfs.tables._kinds import column_kind


class AvailableCaseTest(Tester):
    """Conditional-independence tests on data with missing values: each test runs on the
    rows where x, y and every conditioning variable are observed (available-case analysis,
    what bnlearn's tests do with incomplete data), so a row missing one value still serves
    every test that does not involve that column.

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete, continuous or mixed columns with missing values (NaN, None, pd.NA).
    test, alpha, threshold, adjust_df, min_rows_per_cell
        As :class:`CITest`, which runs each test on its rows.

    Attributes
    ----------
    rows_used : list of int
        The rows each test ran on, in the order the tests ran.
    n_tests, cache_hits : int

    Notes
    -----
    A test whose rows leave x or y (or a conditioning variable) with a single observed
    level or value cannot show a dependence there: it reports independence (p-value 1),
    as it does with fewer than 3 rows.

    Examples
    --------
    >>> import numpy as np
    >>> from bnfs import datasets
    >>> frame = datasets.sample("asia", 3000, seed=0)
    >>> holes = frame.mask(np.random.default_rng(0).random(frame.shape) < 0.2)
    >>> test = AvailableCaseTest(holes)
    >>> test.independent("tub", "smoke"), test.independent("lung", "smoke")
    (True, False)
    >>> 1800 < test.rows_used[-1] < 2000  # about 0.8 x 0.8 of the rows
    True
    """

    def __init__(self, data, test: TestName = "g2", alpha: float = 0.05, **options):
        if not isinstance(data, pd.DataFrame):
            raise TypeError(
                f"AvailableCaseTest takes a pandas DataFrame, got {type(data).__name__}"
            )
        if data.shape[0] == 0 or data.shape[1] == 0:
            raise ValueError("data has no rows or no columns")
        names = column_names(data.columns)
        if not isinstance(test, str) or test not in TESTS:
            raise ValueError(f"test must be one of {list(TESTS)}, got {test!r}")
        unknown = sorted(set(options) - set(TEST_OPTIONS))
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
        self._setup_names(names)
        # each column typed once on all its observed rows, as Dataset types a complete one
        kinds = [column_kind(data.iloc[:, j]) for j in range(data.shape[1])]
        self._kinds = {
            kind: [n for n, k in zip(names, kinds) if k == kind]
            for kind in ("discrete", "continuous")
        }
        kind = test_kind(test)
        if kind.on_continuous and self._kinds["continuous"]:  # as CITest: for the data's kind
            kind = test_kind(kind.on_continuous)
        self.kind, self.test = kind, kind.recorded
        self.alpha = check_float(alpha, "alpha", 0.0, 1.0, low_open=True)
        if self.alpha >= 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        self.adjust_df = bool(options.get("adjust_df", False))
        self.options = options
        self.frame = data
        self.observed = ~data.isna().to_numpy()
        for j, name in enumerate(names):
            if not self.observed[:, j].any():
                raise ValueError(f"column {name!r} has no observed value")
        self.rows_used: list[int] = []

    def _run(self, x: int, y: int, z: tuple[int, ...]) -> CIResult:
        columns = [x, y, *z]
        rows = self.observed[:, columns].all(axis=1)
        self.rows_used.append(int(rows.sum()))
        if rows.sum() < 3:
            return CIResult(0.0, 0.0, 1.0, True)
        part = self.frame.iloc[rows, columns]
        try:
            typed = {k: [n for n in v if n in part.columns] for k, v in self._kinds.items()}
            tester = CITest(Dataset(part, **typed), self.kind.label, self.alpha, **self.options)
        except ValueError as error:
            if "single level" in str(error) or "constant" in str(error):
                return CIResult(0.0, 0.0, 1.0, True)
            raise
        order = {v: i for i, v in enumerate(tester.names)}
        return tester.test_indices(
            order[self.names[x]], order[self.names[y]], [order[self.names[v]] for v in z]
        )


def rows_report(tester) -> dict:
    """The rows the tests ran on, for a learner's ``learning``: ``{"rows_used": {"min",
    "median", "max"}}`` for an :class:`AvailableCaseTest`, nothing for complete data."""
    used = getattr(tester, "rows_used", None)
    if not used:
        return {}
    return {
        "rows_used": {
            "min": int(min(used)),
            "median": float(np.median(used)),
            "max": int(max(used)),
        }
    }
