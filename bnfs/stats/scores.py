"""Decomposable network scores with a local-score cache.

Labels follow R bnlearn: ``"loglik"``, ``"aic"``, ``"bic"``, ``"bde"`` (BDeu, imaginary
sample size ``iss``), ``"k2"``, ``"bds"`` (BDeu over the observed parent configurations)
and ``"qnml"`` (quotient normalized maximum likelihood) for discrete data; ``"loglik-g"``, ``"aic-g"``, ``"bic-g"``
(linear Gaussian) and ``"bge"`` for continuous data; ``"loglik-cg"``, ``"aic-cg"``,
``"bic-cg"`` (conditional Gaussian) for mixed data. Natural logarithms, higher is better; the score of
a DAG is the sum of its nodes' local scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from bnfs._kernels import conditional_gaussian as _cg
from bnfs._kernels import scores as _k
from bnfs._kernels.dispatch import continuous_score
from bnfs._vocabulary import BGE, CG, SCORES, codes_for
from bnfs.graphs.graph import DAG
from bnfs.stats.priors import GRAPH_PRIORS, graph_prior
from bnfs.tables._data import Dataset, as_dataset
from bnfs.tables._scaling import unit_scaled
from bnfs.tables._weights import row_mass

__all__ = ["Scorer", "score", "SCORES", "GRAPH_PRIORS"]

#: label -> kernel code of the scores of each kind of data (:data:`bnfs._vocabulary.SCORE_TABLE`:
#: ``-g``/``-cg`` use the maximum-likelihood residual variance, ``-g-bnlearn``/``-cg-bnlearn``
#: bnlearn's)
DISCRETE_SCORES = codes_for("discrete")
GAUSSIAN_SCORES = codes_for("continuous")
CG_SCORES = codes_for("mixed")
ScoreName = Literal[
    "loglik",
    "bic",
    "aic",
    "bde",
    "k2",
    "bds",
    "qnml",
    "loglik-g",
    "bic-g",
    "aic-g",
    "loglik-g-bnlearn",
    "bic-g-bnlearn",
    "aic-g-bnlearn",
    "bge",
    "loglik-cg",
    "bic-cg",
    "aic-cg",
    "loglik-cg-bnlearn",
    "bic-cg-bnlearn",
    "aic-cg-bnlearn",
]


def test_scratch_size(n_rows: int) -> int:
    """Cells of the dense counting table of a conditional-independence test (int64, at
    most 32 MB per thread); larger tables sort the rows' cell keys instead. 64 times the
    rows, where :func:`counts_scratch_size` has two: a test's table has two more variables
    than its strata, and its dense count scans only the strata the rows fall in, so a
    mostly empty table costs little more than its rows, where sorting costs some fifty
    nanoseconds a row (coil2000's 10-level columns, 9,822 rows: a test given three of them
    took 1 ms sorted). A :class:`~bnfs.stats.citests.CITest` allocates it once; PC-stable's level
    kernel, which allocates a scratch per chunk of pairs, keeps :func:`counts_scratch_size`
    (zeroing 64 n cells per chunk made it 30% slower on alarm at 20,000 rows)."""
    return max(min(64 * n_rows, 1 << 22), 1 << 12)


def counts_scratch_size(n_rows: int) -> int:
    """Cells of the dense counting table (int64, at most 32 MB per thread): tables larger
    than this use the sparse path, which sorts the rows' cell keys instead. Twice the rows:
    a table much larger than the data is mostly empty, and sorting the keys beats scanning
    it (and leaves the memory bus to the other threads)."""
    return max(min(2 * n_rows, 1 << 22), 1 << 12)


#: the smallest imaginary sample size a score takes: spread over 1e290 cells it stays a
#: normal float, where 5e-324 (the smallest float) underflows to 0 and BDeu or BDs give -inf
MIN_ISS = 1e-10


def resolve_score(data: Dataset, score: str, iss: float) -> tuple[str, int, float]:
    """Validate a score label against the data; return (label, kernel code, iss)."""
    if not isinstance(score, str):
        raise TypeError(f"score must be a string such as 'bic', got {score!r}")
    score = score.lower()
    if data.is_discrete:
        if score in GAUSSIAN_SCORES or score in CG_SCORES:
            raise ValueError(f"score {score!r} is for continuous data; the data are discrete")
        if score not in DISCRETE_SCORES:
            raise ValueError(f"score must be one of {sorted(DISCRETE_SCORES)}, got {score!r}")
        kind = DISCRETE_SCORES[score]
    elif data.discrete_names:
        score = {"loglik": "loglik-cg", "bic": "bic-cg", "aic": "aic-cg"}.get(score, score)
        if score not in CG_SCORES:
            raise ValueError(
                f"score for mixed discrete and continuous data must be one of "
                f"{sorted(CG_SCORES)} (or discretize the continuous columns "
                f"{list(data.continuous_names[:5])} with bnfs.discretize), got {score!r}"
            )
        kind = CG_SCORES[score]
    else:
        score = {"loglik": "loglik-g", "bic": "bic-g", "aic": "aic-g"}.get(score, score)
        if score not in GAUSSIAN_SCORES:
            raise ValueError(
                f"score for continuous data must be one of {sorted(GAUSSIAN_SCORES)}, got {score!r}"
            )
        kind = GAUSSIAN_SCORES[score]
    if (
        isinstance(iss, bool)
        or not isinstance(iss, (int, float, np.integer, np.floating))
        or not np.isfinite(iss)
        or iss <= 0
    ):
        raise ValueError(f"iss must be a positive number, got {iss!r}")
    if iss < MIN_ISS:
        raise ValueError(
            f"iss must be at least {MIN_ISS:g}, got {iss!r}: a smaller imaginary sample size "
            "spread over a table's cells underflows to zero in the Dirichlet's gamma functions"
        )
    return score, kind, float(iss)


def gaussian_statistics(data: Dataset, kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(covariance matrix, [rows, variables], log of the scales): what the Gaussian scores
    need. The likelihood scores use the unit-scaled columns: a local score of column v on
    them differs from the raw one by -rows * log_scale[v] (see :func:`bnfs.tables._scaling.unit_scaled`).
    BGe is not scale-free (its prior is), so it gets the raw covariance and zero scales."""
    values, log_scale = (
        (data.values, np.zeros(data.values.shape[1])) if kind == BGE else unit_scaled(data.values)
    )
    if kind == BGE:
        _check_bge_range(data)
    centred = values - values.mean(axis=0)
    cov = np.ascontiguousarray(centred.T @ centred / data.n_rows)
    return cov, np.array([data.n_rows, values.shape[1]], dtype=np.int64), log_scale


#: the magnitudes whose sums of squares over the rows stay normal floats, with room
BGE_RANGE = (1e-140, 1e140)


def _check_bge_range(data: Dataset) -> None:
    """BGe scores the raw covariance (its prior is not scale-free): refuse, by column, values
    whose squares would overflow or underflow."""
    low, high = BGE_RANGE
    magnitude = np.abs(data.values).max(axis=0)
    for name, m in zip(data.names, magnitude):
        if m > high / max(np.sqrt(data.n_rows), 1.0) or 0 < m < low:
            raise ValueError(
                f"bge scores the raw values (its prior is not scale-free), and column {name!r} "
                f"reaches {m:.3g}, whose squares {'overflow' if m > 1 else 'underflow'}: "
                "rescale it, or use bic-g or loglik-g, which are scale-free"
            )


def cg_statistics(data: Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(table, arities, log of the scales): what the conditional-Gaussian scores need (see
    :mod:`bnfs._kernels.conditional_gaussian`), in ``data.names`` order. The table holds
    each variable as a row (discrete codes as floats, with their arity; continuous columns
    unit-scaled and centred, arity 0, their log-likelihoods shifting by -rows * log_scale), then the
    covariance matrix of those rows. Weighted rows (:meth:`bnfs.Dataset.with_weights`) are
    centred on their weighted means and the covariance is weighted."""
    n = data.n_rows
    weights = data.weights
    table = np.empty((data.n_vars, n + data.n_vars))
    arities = np.zeros(data.n_vars, dtype=np.int64)
    log_scale = np.zeros(data.n_vars)
    scaled, logs = unit_scaled(data.values)
    for j, name in enumerate(data.names):
        if name in data.states:
            table[j, :n] = data.column(name)
            arities[j] = data.arity(name)
        else:
            k = data.continuous_names.index(name)
            centre = (
                scaled[:, k].mean()
                if weights is None
                else np.average(scaled[:, k], weights=weights)
            )
            table[j, :n] = scaled[:, k] - centre
            log_scale[j] = logs[k]
    if weights is None:
        centred = table[:, :n] - table[:, :n].mean(axis=1, keepdims=True)
        table[:, n:] = centred @ centred.T / n
    else:
        centred = table[:, :n] - (table[:, :n] @ weights / weights.sum())[:, None]
        table[:, n:] = (centred * weights) @ centred.T / weights.sum()
    return table, arities, log_scale


def row_weights(data: Dataset) -> np.ndarray:
    """The rows' weights as the compiled scores take them (empty: each row counts once)."""
    return np.zeros(0) if data.weights is None else data.weights


#: the conditional-Gaussian level statistics are built only within these bounds: float64
#: entries kept (64 MB) and multiply-adds to build them
LEVEL_ENTRIES, LEVEL_WORK = 8_000_000, 4e9


def level_statistics(
    table: np.ndarray, arities: np.ndarray, kind: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """The per-level scatter matrices from which the conditional-Gaussian scores regress a
    continuous node on continuous parents within the levels of one discrete parent
    (:func:`bnfs._kernels.conditional_gaussian.level_scatter`), or an empty array where
    they do not serve (other scores, no discrete or no continuous variable) or would pass
    :data:`LEVEL_ENTRIES` or :data:`LEVEL_WORK` (the scores then read the rows); ``weights``
    as :func:`row_weights` gives them."""
    n_vars = table.shape[0]
    n = table.shape[1] - n_vars
    blocks = int(arities.sum())
    discrete = int((arities > 0).sum())
    if (
        kind < CG
        or discrete in (0, n_vars)
        or blocks * (n_vars + 1) ** 2 > LEVEL_ENTRIES
        or discrete * n * n_vars**2 > LEVEL_WORK
    ):
        return np.zeros((0, 1, 1))
    weights = np.zeros(0) if weights is None else weights
    blocks = np.zeros((blocks, n_vars + 1, n_vars + 1))
    return _cg.level_scatter(table, arities, blocks, weights)


def model_statistics(data: Dataset, kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the compiled scores take as ``codes`` and ``arities`` for ``kind``, and the log
    scale of each column (zero for discrete ones) in ``data.names`` order."""
    if kind >= CG:
        return cg_statistics(data)
    if data.is_discrete:
        return data.codes, data.arities, np.zeros(data.n_vars)
    return gaussian_statistics(data, kind)


class Scorer:
    """Local and total scores of one dataset, with a cache keyed by (node, parent set).

    Parameters
    ----------
    data : Dataset or anything :class:`~bnfs.Dataset` takes
    score : str, default "bic"
        One of :data:`SCORES` (``"bic"`` means ``"bic-g"`` on continuous data).
    iss : float, default 1
        Imaginary sample size of BDeu.
    prior : {"uniform", "vsp", "marginal", "cs"}, default "uniform"
        Graph prior of the Bayesian scores (bde, bge), bnlearn's ``prior``
        (:mod:`bnfs.stats.priors`): ``"vsp"`` adds log(beta / (1 - beta)) per parent; ``"cs"``
        takes beliefs about single arcs.
    beta : float or arcs, optional
        The vsp prior's probability of each arc (default 1 / (n - 1)), the marginal prior's
        probability that two nodes are joined (default 0.5), or the cs prior's arcs: a
        DataFrame with columns from, to, prob (as bnlearn), a mapping
        ``{(from, to): prob}`` or (from, to, prob) triples.

    Attributes
    ----------
    n_evaluations : int
        Local scores computed (cache misses).
    cache_hits : int

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]})
    >>> s = Scorer(data, "loglik")
    >>> round(s.local("b", ["a"]), 4), round(s.local("b", []), 4)
    (-1.3863, -2.2493)
    """

    def __init__(
        self,
        data,
        score: ScoreName = "bic",
        iss: float = 1.0,
        prior: str = "uniform",
        beta: float | None = None,
    ):
        self.data = as_dataset(data)
        self.score, self.kind, self.iss = resolve_score(self.data, score, iss)
        #: the graph prior (:class:`bnfs.stats.priors.GraphPrior`)
        self.prior = graph_prior(self.score, prior, beta, self.data.names)
        self._weights = self.prior.weights(learning=False)
        self.gaussian = not self.data.is_discrete
        self._index = {n: j for j, n in enumerate(self.data.names)}
        self._cfg = np.empty(self.data.n_rows, dtype=np.int64)
        self._counts = np.zeros(counts_scratch_size(self.data.n_rows), dtype=np.int64)
        self._scaled = None
        self._levels = None
        self._cache: dict[tuple[int, frozenset], float] = {}
        self.n_evaluations = 0
        self.cache_hits = 0

    def _node(self, name) -> int:
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise ValueError(f"{name!r} is not a column of the data") from None

    def local(self, node: str, parents: Sequence[str] = ()) -> float:
        """Local score of ``node`` given ``parents``, plus the graph prior's log-weight of
        each arc into it (log p(arc) - log p(no arc); :mod:`bnfs.stats.priors`). The prior's
        constant is left out, so with a non-uniform prior the local scores sum to
        :meth:`total` up to that constant (an arc believed certain, p(no arc) = 0, weighs
        +inf here; :meth:`total` is exact)."""
        if isinstance(parents, str):
            raise TypeError("parents must be a collection of names, not a single string")
        v = self._node(node)
        pa = sorted({self._node(p) for p in parents})
        if v in pa:
            raise ValueError(f"{node!r} cannot be its own parent")
        return self._data_local(node, v, pa) + self._arc_weights(v, pa)

    def _arc_weights(self, v: int, parents: list[int]) -> float:
        if self._weights.shape[0] == 1:
            return len(parents) * float(self._weights[0, 0])
        return float(sum(self._weights[u, v] for u in parents))

    def _data_local(self, node: str, v: int, pa: list[int]) -> float:
        """The local score of the data alone (no graph prior), through the cache."""
        key = (v, frozenset(pa))
        if key in self._cache:
            self.cache_hits += 1
            return self._cache[key]
        par = np.asarray(pa, dtype=np.int64)
        if self.gaussian:
            if self._scaled is None:
                self._scaled = model_statistics(self.data, self.kind)
            table, aux, log_scale = self._scaled
            if self.kind >= CG and self.data.names[v] in self.data.states:
                bad = [p for p in pa if self.data.names[p] not in self.data.states]
                if bad:
                    raise ValueError(
                        f"discrete {node!r} cannot have the continuous parent "
                        f"{self.data.names[bad[0]]!r} in a conditional-Gaussian network"
                    )
            weights = row_weights(self.data)
            if self._levels is None:
                self._levels = level_statistics(table, aux, self.kind, weights)
            value = continuous_score(
                table, aux, self._levels, weights, v, par, len(pa), self.kind, self.iss
            ) - (row_mass(self.data) * log_scale[v])
        else:
            codes, arities, family = self.data.codes, self.data.arities, (v, par, len(pa))
            if self.data.weights is not None:
                value = _k.weighted_local_score(
                    codes, self.data.weights, arities, *family, self.kind, self.iss, self._cfg
                )
            else:
                value = _k.local_score(
                    codes, arities, *family, self.kind, self.iss, self._cfg, self._counts
                )
        value = float(value)
        self.n_evaluations += 1
        self._cache[key] = value
        return value

    def total(self, dag: DAG) -> float:
        """Score of a DAG: the sum of its local scores and its graph prior (bnlearn's
        network score)."""
        if not isinstance(dag, DAG):
            raise TypeError(f"expected a DAG, got {type(dag).__name__} (use pdag.to_dag())")
        missing = [v for v in dag.nodes if v not in self._index]
        if missing:
            raise ValueError(f"nodes {missing[:5]} are not columns of the data")
        parents = {self._index[v]: [self._index[p] for p in dag.parents(v)] for v in dag.nodes}
        data = sum(self._data_local(self.data.names[v], v, sorted(pa)) for v, pa in parents.items())
        if self.prior.is_uniform:
            return float(data)
        return float(data + self.prior.log_prior(parents))


def score(
    dag: DAG,
    data,
    score: ScoreName = "bic",
    iss: float = 1.0,
    prior: str = "uniform",
    beta: float | None = None,
) -> float:
    """Network score of ``dag`` on ``data`` (bnlearn's ``score(dag, data, type=...)``, with
    its graph ``prior`` and ``beta`` for the Bayesian scores: see :class:`Scorer`).

    Examples
    --------
    >>> from bnfs import datasets
    >>> truth = datasets.network("asia")
    >>> frame = datasets.sample("asia", 2000, seed=0)
    >>> score(truth, frame, "bic") > score(DAG(truth.nodes), frame, "bic")
    True
    """
    return Scorer(data, score, iss, prior, beta).total(dag)
