"""Conditional-independence tests on one complete dataset: G², X² (bnlearn's and with
adjusted degrees of freedom), the MI threshold, Fisher's z and the conditional-Gaussian
likelihood-ratio test ``mi_cg``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from scipy import special

from bnfs._kernels import citests as _k
from bnfs._kernels import conditional_gaussian as _cg
from bnfs._kernels import separation as _sep
from bnfs._validate import check_float
from bnfs._vocabulary import TESTS, test_kind
from bnfs.stats.citests.base import (
    NEVER,
    UNWEIGHTED,
    Batch,
    CIResult,
    Separation,
    Tester,
    TestName,
    chi2_statistic,
    correlations,
)
from bnfs.stats.scores import cg_statistics, test_scratch_size
from bnfs.tables._data import as_dataset
from bnfs.tables._weights import repeated_rows


class CITest(Tester):
    """Conditional-independence tests on one dataset.

    Parameters
    ----------
    data : Dataset or anything :class:`~bnfs.Dataset` takes
        Row weights (:meth:`~bnfs.Dataset.with_weights`) must be whole numbers: a row of
        weight w is counted as w rows (the tests count rows; fractions are refused).
    test : {"g2", "mi", "x2", "mi_adf", "x2_adf", "mi_threshold", "fisher_z", "mi_cg"}
        ``"fisher_z"`` needs continuous data; ``"mi_cg"`` takes any data, discrete,
        continuous or mixed (see Notes); the others need discrete data, except that
        ``"g2"``/``"mi"`` on continuous or mixed data mean ``"mi_cg"``, the same
        likelihood-ratio test for the data's kind (as bnlearn's ``mi`` / ``mi-g`` /
        ``mi-cg``). ``"mi_adf"`` and
        ``"x2_adf"`` are bnlearn's tests of those names, exactly (checked against
        bnlearn-port): degrees of freedom adjusted as ``adjust_df`` does, and independence
        (statistic 0, p-value 1) when the table has fewer than 5 rows per cell, where
        the test has no power.
    alpha : float in (0, 1), default 0.05
        Significance level: independent when the p-value exceeds it.
    threshold : float, default 0.01
        For ``"mi_threshold"``: independent when conditional mutual information (nats)
        is at most this.
    adjust_df : bool, default False
        Count degrees of freedom over the observed strata and levels only (bnlearn's
        ``mi-adf``, and what causal-learn does) instead of all configurations (bnlearn's
        ``mi`` / ``x2``). Adjusting keeps PC from dropping true edges when its few large
        conditioning sets leave tables sparse (``benchmarks/constraint_based.py`` shows
        both), but in tables with many strata of one or two rows the adjusted test is
        anti-conservative: Grow-Shrink and IAMB, whose conditioning sets are whole
        blankets, then admit nearly every variable. Hence off by default.
    min_rows_per_cell : float, default 0
        When rows / table cells is below this, the test declares "not enough data" (NaN
        p-value) and counts as dependent rather than claiming a false independence. 0, as in
        bnlearn, always tests; 5 is the usual heuristic.

    Attributes
    ----------
    n_tests, cache_hits : int

    Notes
    -----
    ``"mi_cg"`` compares two conditional-Gaussian models by their maximum likelihoods,
    statistic 2 (LL1 - LL0), chi-square with the difference in parameters as degrees of
    freedom (q: the configurations of the discrete conditioning variables Zd; Zc the
    continuous ones):

    * x, y continuous: x regressed on (y, Zc) against Zc, in each configuration of Zd;
      df = q.
    * x discrete, y continuous: y regressed on Zc in each configuration of (x, Zd) against
      each configuration of Zd; df = (r_x - 1) q (|Zc| + 2).
    * x, y discrete: the G^2 test given Zd when Zc is empty; otherwise by the chain rule
      I(x; y | Zd) + I(x; Zc | y, Zd) - I(x; Zc | Zd), each I(x; Zc | W) the sum over the
      continuous c_i of the regressions of c_i on c_(i+1..) with and without x among the
      configurations; df = (r_x - 1)(r_y - 1) q (1 + |Zc| (|Zc| + 3) / 2).

    Where bnlearn's ``mi-cg`` differs: it plugs the unbiased residual variance into the
    likelihoods (so the statistic is not a likelihood ratio and may be negative), and in the
    last case subtracts the chain-rule terms the other way round and omits the (r_x - 1) in
    the degrees of freedom; and a configuration with no more rows than its regression has
    coefficients makes bnlearn's model singular and the pair independent, which with a few
    discrete conditioning variables happens in most tests (measured: PC's recall then
    falls as the sample grows). bnfs uses the proper likelihood ratio, and leaves such
    configurations out of both models and their parameters out of the degrees of freedom
    (as ``adjust_df`` counts observed strata); a model still singular (a zero residual
    variance) gives statistic 0.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("asia", 5000, seed=0)
    >>> test = CITest(frame, "g2", alpha=0.05)
    >>> test.independent("tub", "smoke"), test.independent("lung", "smoke")
    (True, False)
    >>> test("xray", "lung", ["either"]).independent
    True
    """

    def __init__(
        self,
        data,
        test: TestName = "g2",
        alpha: float = 0.05,
        *,
        threshold: float = 0.01,
        adjust_df: bool = False,
        min_rows_per_cell: float = 0.0,
    ):
        # a row of weight w counts as w rows (whole numbers; fractions are refused by name)
        self.data = repeated_rows(as_dataset(data), "a conditional-independence test")
        if not isinstance(test, str) or test not in TESTS:
            raise ValueError(f"test must be one of {list(TESTS)}, got {test!r}")
        kind = test_kind(test)
        if kind.on_continuous and not self.data.is_discrete:  # the test for the data's kind
            kind = test_kind(kind.on_continuous)
        self.kind = kind  # its row of TEST_TABLE: what it computes and how it decides
        self.test = kind.recorded
        self.alpha = check_float(alpha, "alpha", 0.0, 1.0, low_open=True)
        if self.alpha >= 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        self.threshold = check_float(threshold, "threshold", 0.0)
        self.adjust_df = bool(adjust_df) or kind.decision == "p_value_with_power"
        self.min_rows_per_cell = check_float(min_rows_per_cell, "min_rows_per_cell", 0.0)
        if kind.statistic == "fisher_z":
            if self.data.discrete_names:
                raise ValueError(
                    "fisher_z needs continuous data; columns "
                    f"{list(self.data.discrete_names[:5])} are discrete"
                )
            self._setup_names(self.data.continuous_names)
            self._corr = correlations(self.data.values)
        elif kind.statistic == "mi_cg":
            self._setup_names(self.data.names)
            self._table, self._arities, _ = cg_statistics(self.data)
            self._cfg = np.empty(self.data.n_rows, dtype=np.int64)
        else:
            self.data.require_discrete(f"test {test!r}")
            self._setup_names(self.data.discrete_names)
            self._cfg = np.empty(self.data.n_rows, dtype=np.int64)
            self._counts = np.zeros(test_scratch_size(self.data.n_rows), dtype=np.int64)

    def rows_per_cell(self, x: int, y: int, z: Iterable[int] = ()) -> float:
        if self.kind.statistic == "fisher_z":
            return math.inf
        if self.kind.statistic == "mi_cg":  # the discrete variables' cells
            cells = float(np.prod([max(self._arities[v], 1) for v in (x, y, *z)]))
            return self.data.n_rows / cells
        arities = self.data.arities
        cells = float(arities[x]) * float(arities[y])
        for v in z:
            cells *= float(arities[v])
        return self.data.n_rows / cells

    def _run(self, x: int, y: int, z: tuple[int, ...]) -> CIResult:
        n = self.data.n_rows
        zarr = np.asarray(z, dtype=np.int64)
        if self.kind.statistic == "fisher_z":
            r = _k.partial_correlation(self._corr, x, y, zarr, len(z))
            dof = n - len(z) - 3
            if dof < 1:
                return CIResult(float("nan"), float(dof), float("nan"), False)
            stat = math.sqrt(dof) * 0.5 * math.log((1 + r) / (1 - r))
            p = float(2 * special.ndtr(-abs(stat)))
            if not math.isfinite(p):  # never let an undefined test decide an edge
                raise ValueError(
                    f"fisher_z of {self.names[x]!r} and {self.names[y]!r} given "
                    f"{[self.names[v] for v in z]} is undefined (p = {p})"
                )
            return CIResult(stat, float(dof), p, p > self.alpha)
        if self.kind.statistic == "mi_cg":
            stat, df = self._mi_cg(x, y, z)
            if df <= 0:  # no configuration has rows enough to compare the two models
                return CIResult(0.0, 0.0, 1.0, True)
            p = float(special.chdtrc(df, stat))
            return CIResult(stat, df, p, p > self.alpha)
        which = _k.X2 if self.kind.statistic == "x2" else _k.G2
        stat, df, cells = _k.discrete_statistic(
            self.data.codes,
            self.data.arities,
            x,
            y,
            zarr,
            len(z),
            which,
            self.adjust_df,
            self._cfg,
            self._counts,
        )
        return self._discrete_result(stat, df, cells)

    def _discrete_result(self, stat: float, df: float, cells: float) -> CIResult:
        """The result of a discrete test from its statistic, degrees of freedom and table
        cells."""
        n = self.data.n_rows
        if self.min_rows_per_cell and n / cells < self.min_rows_per_cell:
            return CIResult(stat, df, float("nan"), False)
        if self.kind.decision == "p_value_with_power" and n < _k.ADF_ROWS_PER_CELL * cells:
            return CIResult(0.0, df, 1.0, True)  # bnlearn: too few rows to have power
        p = float(special.chdtrc(df, stat))
        if self.kind.decision == "threshold":
            mi = stat / (2 * n)
            return CIResult(mi, df, p, mi <= self.threshold)
        return CIResult(stat, df, p, p > self.alpha)

    def __getstate__(self) -> dict:
        """Scratch arrays travel as their shapes (a worker process may receive the others
        read-only, memory-mapped) and are made anew on arrival."""
        state = self.__dict__.copy()
        state.pop("_compiled", None)
        for name in ("_cfg", "_counts"):
            if name in state:
                state[name] = ("scratch", state[name].shape)
        return state

    def __setstate__(self, state: dict) -> None:
        for name in ("_cfg", "_counts"):
            if isinstance(state.get(name), tuple):
                state[name] = np.zeros(state[name][1], dtype=np.int64)
        self.__dict__.update(state)

    #: run the local learners' searches (:meth:`tests_given`, :meth:`separations`) in
    #: compiled batches; False runs them one cached test at a time, with the same answers
    batched = True

    def kernel_rule(self) -> tuple[int, int]:
        """(statistic, decision mode) of a discrete test as the compiled kernels code
        them (:mod:`bnfs._kernels.citests`)."""
        mode = {
            "threshold": _k.BY_THRESHOLD,
            "p_value_with_power": _k.BY_P_VALUE_WITH_POWER,
            "p_value": _k.BY_P_VALUE,
        }[self.kind.decision]
        return (_k.X2 if self.kind.statistic == "x2" else _k.G2), mode

    def kernel_test(self):
        """The discrete test as the compiled kernels take it (a
        :class:`bnfs._kernels.separation.Test`)."""
        which, mode = self.kernel_rule()
        return _sep.Test(
            self.data.codes,
            np.ascontiguousarray(self.data.arities, dtype=np.int64),
            which,
            self.adjust_df,
            mode,
            self.alpha,
            self.threshold,
        )

    def _kernel(self):
        """The compiled searches' test and scratch, or None where they do not apply (the
        Gaussian and conditional-Gaussian tests, ``min_rows_per_cell``)."""
        if not self.batched or not self.kind.counts_tables or self.min_rows_per_cell:
            return None
        if getattr(self, "_compiled", None) is None:
            self._compiled = (
                self.kernel_test(),
                _sep.scratch_for(self.data.n_rows, len(self.names), self._counts.shape[0]),
            )
        return self._compiled

    def tests_given(self, t: int, candidates: Sequence[int], z: Iterable[int] = ()) -> Batch:
        kernel = self._kernel()
        if kernel is None or not len(candidates):
            return super().tests_given(t, candidates, z)
        z = sorted(set(z))
        out = self._separate(kernel, t, candidates, z, len(z), len(z), None, False, None)[0]
        # :meth:`_discrete_result` on arrays (min_rows_per_cell never reaches the kernel)
        n = self.data.n_rows
        stat, p = out.stat, special.chdtrc(out.df, out.stat)
        if self.kind.decision == "threshold":
            stat = stat / (2 * n)
            return Batch(stat, p, stat <= self.threshold)
        independent = p > self.alpha
        if self.kind.decision == "p_value_with_power":
            powerless = n < _k.ADF_ROWS_PER_CELL * out.cells
            stat = np.where(powerless, 0.0, stat)
            p = np.where(powerless, 1.0, p)
            independent |= powerless
        return Batch(stat, p, independent)

    def separations(
        self,
        t: int,
        candidates: Sequence[int],
        pool: Iterable[int],
        max_size: int | None = None,
        *,
        min_size: int = 0,
        tested: Iterable[int] | None = None,
        grow: bool = False,
        budget=None,
    ) -> tuple[list[Separation], list[int]]:
        kernel = self._kernel()
        if kernel is None or not len(candidates):
            return super().separations(
                t,
                candidates,
                pool,
                max_size,
                min_size=min_size,
                tested=tested,
                grow=grow,
                budget=budget,
            )
        pool = sorted(pool)
        out, pool = self._separate(
            kernel, t, candidates, pool, min_size, max_size, tested, grow, budget
        )
        found = []
        for k in range(len(candidates)):
            if out.found[k]:
                start = out.start[k]
                found.append(
                    Separation(tuple(out.flat[start : start + out.size[k]].tolist()), None)
                )
            elif out.cells[k] > 0:
                found.append(
                    Separation(
                        None,
                        self._discrete_result(
                            float(out.stat[k]), float(out.df[k]), float(out.cells[k])
                        ),
                    )
                )
            else:
                found.append(Separation(None, None))
        return found, pool

    def _separate(self, kernel, t, candidates, pool, min_size, max_size, tested, grow, budget):
        """Run :func:`bnfs._kernels.separation.separate` in paced calls, asking ``budget``
        (when given) between them; return (outcomes, pool). Candidates not reached when
        the budget is spent are reported as not separated, and do not join the pool."""
        test, scratch = kernel
        m = len(candidates)
        capacity = len(pool) + (m if grow else 0)
        pool_arr = np.zeros(max(capacity, 1), dtype=np.int64)
        pool_arr[: len(pool)] = pool
        mask = scratch.tested
        mask[:] = False
        if tested is not None:
            mask[list(tested)] = True
        query = _sep.Query(
            pool_arr,
            min_size,
            -1 if max_size is None else max_size,
            tested is not None,
            mask,
            grow,
        )
        out = _sep.Outcomes(
            np.zeros(m, dtype=np.bool_),
            np.zeros(m, dtype=np.int64),
            np.zeros(m + 1, dtype=np.int64),
            np.empty(4 * m + 16, dtype=np.int64),
            np.zeros(m),
            np.zeros(m),
            np.zeros(m),
            np.zeros(1, dtype=np.int64),
            np.array([NEVER, 0, -1], dtype=np.int64),
            np.zeros(2),
        )
        candidates = np.asarray(candidates, dtype=np.int64)
        first, n_pool = 0, len(pool)
        pace = None if budget is None else budget.pace(NEVER, first=256)
        counted = 0  # the tests of this call already in n_tests, kept live for the budget
        while pace is None or not budget.spent():
            if pace is not None:
                out.pause[_sep.PAUSE_AT] = out.tests[0] + pace.size
                with pace.timing():
                    first, n_pool = _sep.separate(
                        test, scratch, t, candidates, first, query, n_pool, out
                    )
            else:
                first, n_pool = _sep.separate(
                    test, scratch, t, candidates, first, query, n_pool, out
                )
            self.n_tests += int(out.tests[0]) - counted
            counted = int(out.tests[0])
            if first == m:
                break
            if out.pause[_sep.PAUSED]:
                out.pause[_sep.PAUSED] = 0
            else:
                out = out._replace(flat=np.concatenate([out.flat, np.empty_like(out.flat)]))
        return out, pool_arr[:n_pool].tolist()

    def _mi_cg(self, x: int, y: int, z: tuple[int, ...]) -> tuple[float, float]:
        """(statistic, degrees of freedom) of the conditional-Gaussian likelihood-ratio
        test (see the class Notes)."""
        arities = self._arities
        if arities[x] == 0 and arities[y] > 0:
            x, y = y, x  # the discrete one first
        zd = [v for v in z if arities[v] > 0]
        zc = [v for v in z if arities[v] == 0]
        if arities[x] == 0:  # both continuous
            keep = self._usable_rows(zd, len(zc) + 2)
            alt, used = self._regression(x, [y, *zc], zd, keep)
            null, _ = self._regression(x, zc, zd, keep)
            return chi2_statistic(alt - null), float(used)
        if arities[y] == 0:  # x discrete, y continuous
            keep = self._usable_rows([x, *zd], len(zc) + 1)
            alt, used_alt = self._regression(y, zc, [x, *zd], keep)
            null, used_null = self._regression(y, zc, zd, keep)
            return chi2_statistic(alt - null), float((used_alt - used_null) * (len(zc) + 2))
        # both discrete: G^2 given Zd, corrected by the continuous Zc (chain rule)
        keep = self._usable_rows([x, y, *zd], len(zc))
        cells = {
            key: self._configurations(members, keep)[1]
            for key, members in (("xyz", [x, y, *zd]), ("yz", [y, *zd]), ("xz", [x, *zd]))
        }
        cells["z"] = self._configurations(zd, keep)[1]
        df_g2 = cells["xyz"] - cells["yz"] - cells["xz"] + cells["z"]
        loglik = self._multinomial(x, [y, *zd], keep) - self._multinomial(x, zd, keep)
        for i, c in enumerate(zc):
            rest = zc[i + 1 :]
            loglik += self._regression(c, rest, [x, y, *zd], keep)[0]
            loglik -= self._regression(c, rest, [y, *zd], keep)[0]
            loglik -= self._regression(c, rest, [x, *zd], keep)[0]
            loglik += self._regression(c, rest, zd, keep)[0]
        return chi2_statistic(loglik), float(max(df_g2, 1) * (1 + len(zc) * (len(zc) + 3) / 2))

    def _usable_rows(self, finest: list[int], coefficients: int) -> np.ndarray:
        """Rows whose configuration of ``finest`` has more rows than the regression there
        has coefficients: the other configurations cannot be fitted, so both models of a
        test leave them out (and their parameters leave the degrees of freedom), where
        bnlearn would call the whole model singular and the pair independent."""
        q = self._configurations(finest)[0]
        counts = np.bincount(self._cfg, minlength=q)
        return counts[self._cfg] > coefficients

    def _configurations(self, discrete: list[int], keep=None) -> tuple[int, int]:
        """Fill the scratch with each row's configuration (-1 for rows not kept); return
        (bound on the indices, configurations observed among the kept rows)."""
        members = np.asarray(discrete + [0], dtype=np.int64)
        q = _cg.discrete_configurations(
            self._table, self._arities, members, len(discrete), self._cfg
        )
        if keep is None:
            return q, q
        self._cfg[~keep] = -1
        return q, int(np.count_nonzero(np.bincount(self._cfg[keep], minlength=q)))

    def _regression(self, node, continuous, discrete, keep) -> tuple[float, int]:
        q, used = self._configurations(discrete, keep)
        xs = np.asarray(continuous + [0], dtype=np.int64)
        loglik = _cg.regression_loglik(
            self._table, node, xs, len(continuous), self._cfg, q, False, UNWEIGHTED
        )
        return loglik, used

    def _multinomial(self, node: int, discrete: list[int], keep) -> float:
        q = self._configurations(discrete, keep)[0]
        return _cg.multinomial_loglik(self._table, self._arities, node, self._cfg, q, UNWEIGHTED)
