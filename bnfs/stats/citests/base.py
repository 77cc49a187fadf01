"""What every conditional-independence tester shares: the result types, the test labels and
the base class with its cache, counter and separating-set searches."""

from __future__ import annotations

import bisect
import copy
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from bnfs._validate import near_match
from bnfs.tables._scaling import unit_scaled

#: the labels (:data:`bnfs._vocabulary.TEST_TABLE`), written out for type checkers
TestName = Literal["g2", "mi", "x2", "mi_adf", "x2_adf", "mi_threshold", "fisher_z", "mi_cg"]


@dataclass(frozen=True)
class CIResult:
    """Outcome of one test: ``p_value`` is NaN when there were not enough rows per cell
    (then the test counts as *dependent*: no independence is claimed without evidence)."""

    statistic: float
    df: float
    p_value: float
    independent: bool


@dataclass(frozen=True)
class Separation:
    """How a search for a separating set ended for one candidate: ``subset``, the first
    subset that separated it from the target (None when none did), and ``weakest``, the test
    with the weakest association among those run before (the largest p-value, ties to the
    smaller statistic; None when the first subset separated it or none was tested)."""

    subset: tuple[int, ...] | None
    weakest: CIResult | None


@dataclass(frozen=True, eq=False)
class Batch:
    """The tests of one batch, one per candidate, as arrays: what :class:`CIResult` holds."""

    statistic: np.ndarray
    p_value: np.ndarray
    independent: np.ndarray

    @classmethod
    def of(cls, results: Sequence[CIResult]) -> Batch:
        """The batch of single results."""
        return cls(
            np.array([r.statistic for r in results], dtype=np.float64),
            np.array([r.p_value for r in results], dtype=np.float64),
            np.array([r.independent for r in results], dtype=bool),
        )

    def dependent(self, candidates: Sequence[int]) -> list[tuple[tuple[float, float], int]]:
        """(strength, candidate) of the dependent candidates, strongest first."""
        keep = np.flatnonzero(~self.independent)
        p, stat = self.p_value[keep].tolist(), self.statistic[keep].tolist()
        return sorted(((p[i], -stat[i]), candidates[k]) for i, k in enumerate(keep.tolist()))


def strength(result: CIResult) -> tuple[float, float]:
    """Sort key of an association: smaller p-value first, then larger statistic."""
    return (result.p_value, -result.statistic)


class Tester:
    """Name handling, caching and counting shared by tests and the oracle.

    The cache keeps at most ``cache_entries`` results (about 300 bytes each, so ~150 MB)
    and is emptied when full; a test is then run again with the same answer.
    """

    names: tuple[str, ...]
    cache_entries = 500_000

    def _setup_names(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        #: the variables in the user's column order, in which results are listed
        self.column_order = self.names
        self._index = {v: i for i, v in enumerate(self.names)}
        self._cache: dict[tuple, CIResult] = {}
        self.n_tests = 0
        self.cache_hits = 0

    def index(self, name) -> int:
        """The column index of variable ``name`` (a ValueError naming the near matches for
        an unknown one)."""
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise ValueError(
                f"{name!r} is not a variable of the data" + near_match(name, list(self._index))
            ) from None

    def in_column_order(self, names: Iterable[str]) -> list[str]:
        """``names`` listed as the user's data lists its columns."""
        position = {v: i for i, v in enumerate(self.column_order)}
        return sorted(names, key=position.__getitem__)

    def test_indices(self, x: int, y: int, z: Iterable[int] = ()) -> CIResult:
        """The test on variable indices (what learners call)."""
        z = tuple(sorted(set(z)))
        key = (x, y, z) if x < y else (y, x, z)
        hit = self._cache.get(key)
        if hit is not None:
            self.cache_hits += 1
            return hit
        result = self._run(key[0], key[1], z)
        self.n_tests += 1
        if len(self._cache) >= self.cache_entries:
            self._cache.clear()
        self._cache[key] = result
        return result

    def cacheless_copy(self):
        """A copy with an empty cache and no tests counted, for a worker process (a cache
        of 10^5 results cost more to pickle than the tests it saves)."""
        worker = copy.copy(self)
        worker._cache = {}
        worker.n_tests = worker.cache_hits = 0
        return worker

    def cached_results(self) -> dict:
        """The cached results, keyed by (x, y, sorted z) on indices, x < y."""
        return self._cache

    def merge_results(self, fresh: dict, n_tests: int) -> None:
        """Take in the results (and test count) of a worker's copy, keeping the cache
        bounded as :meth:`test_indices` does."""
        if len(self._cache) + len(fresh) > self.cache_entries:
            self._cache.clear()
        self._cache.update(fresh)
        self.n_tests += n_tests

    def __call__(self, x: str, y: str, z: Iterable[str] = ()) -> CIResult:
        """Test ``x`` independent of ``y`` given ``z`` (names)."""
        if isinstance(z, str):
            z = [z]
        i, j = self.index(x), self.index(y)
        zs = [self.index(v) for v in z]
        if i == j:
            raise ValueError(f"x and y are the same variable {x!r}")
        if i in zs or j in zs:
            raise ValueError("x and y must not be in the conditioning set")
        return self.test_indices(i, j, zs)

    def independent(self, x: str, y: str, z: Iterable[str] = ()) -> bool:
        """Whether ``x`` and ``y`` test independent given ``z`` (names)."""
        return self(x, y, z).independent

    def rows_per_cell(self, x: int, y: int, z: Iterable[int] = ()) -> float:
        """Rows per cell of the table a test of x, y given z would count (infinite for
        the oracle and for Gaussian data): fast-IAMB's "enough data" heuristic."""
        return math.inf

    def tests_given(self, t: int, candidates: Sequence[int], z: Iterable[int] = ()) -> Batch:
        """The tests of ``t`` and each candidate given ``z``: the marginal screen over all
        features, IAMB's tests given the current blanket."""
        z = tuple(z)
        return Batch.of([self.test_indices(t, x, z) for x in candidates])

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
        """For each candidate x in order, test ``t`` and x given the subsets of ``pool``
        by increasing size (``min_size`` to ``max_size`` members), each size in
        lexicographic order of the sorted pool, until one separates them. Subsets of
        ``tested`` (when given: variables whose subsets were all tested before, and
        separated nothing) are skipped. With ``grow`` a candidate no subset separates joins
        the pool before the next is searched (HITON-PC's forward phase). Once ``budget``
        (when given: a :class:`bnfs._budget.Budget`, asked between paced batches of
        tests) is spent, the candidates left are reported as not separated (with the
        weakest association tested so far, if any) and do not join the pool.

        Returns the :class:`Separation` of each candidate and the pool (sorted)."""
        pool = sorted(pool)
        skip = None if tested is None else set(tested)
        found = []
        stopped = False
        for x in candidates:
            subset, weakest = None, None
            for s in subsets(pool, min_size, max_size):
                if skip is not None and skip.issuperset(s):
                    continue
                stopped = stopped or (budget is not None and budget.spent())
                if stopped:
                    break
                result = self.test_indices(t, x, s)
                if result.independent:
                    subset = s
                    break
                if weakest is None or strength(result) > strength(weakest):
                    weakest = result
            found.append(Separation(subset, None if subset is not None else weakest))
            if grow and subset is None and not stopped:
                bisect.insort(pool, x)
        return found, pool

    def _run(self, x: int, y: int, z: tuple[int, ...]) -> CIResult:  # pragma: no cover
        raise NotImplementedError


def subsets(pool: list[int], min_size: int, max_size: int | None):
    """Subsets of the sorted ``pool`` by increasing size, each size in lexicographic order."""
    top = len(pool) if max_size is None else min(max_size, len(pool))
    for size in range(min_size, top + 1):
        yield from itertools.combinations(pool, size)


#: no pause: a test count no search reaches
NEVER = 1 << 62
#: the conditional-Gaussian kernels' weights where every row counts once
UNWEIGHTED = np.zeros(0)


def correlations(values: np.ndarray) -> np.ndarray:
    """The correlation matrix of the columns of ``values``, computed on the columns divided
    by their magnitude (no overflow near the ends of the float range). A column without
    spread (constant in the rows at hand, as a rare column is in some cross-validation fold)
    is uncorrelated with every other: tested, it is independent of everything, and
    conditioning on it changes nothing."""
    values, _ = unit_scaled(values)
    centred = values - values.mean(axis=0)
    cov = centred.T @ centred
    spread = np.sqrt(np.diag(cov))
    flat = ~(spread > 0)
    spread[flat] = 1.0
    corr = cov / np.outer(spread, spread)
    corr[flat, :] = 0.0
    corr[:, flat] = 0.0
    np.fill_diagonal(corr, 1.0)
    return np.ascontiguousarray(np.clip(corr, -1.0, 1.0))


def chi2_statistic(log_ratio: float) -> float:
    """2 x the log-likelihood ratio; 0 when a model is singular (its log-likelihood
    infinite), as bnlearn does: no dependence is claimed from a degenerate fit."""
    return max(2.0 * log_ratio, 0.0) if math.isfinite(log_ratio) else 0.0
