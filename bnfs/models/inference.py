"""Predicting a node of a fitted network from the other variables (bnlearn's ``predict``).

Three ways, as bnlearn offers them:

- ``"parents"``: from the node's parents only (exact given them);
- ``"blanket"``: from its Markov blanket, exactly: given every other variable the posterior
  of a node depends on its blanket alone, p(x | pa) times each child's p(c | pa(c)), so this
  is bnlearn's ``"exact"`` (and the limit of its ``"bayes-lw"``) when the rows are complete;
- ``"lw"``: likelihood weighting (bnlearn's ``"bayes-lw"``) on the variables a row does
  observe, for discrete networks: ``n`` particles per row are drawn forward with the
  observed values clamped and weighted by their likelihood. A row's missing values are
  simply unobserved. Its draws come from numpy's generator (``seed``), not R's, so its
  answers equal bnlearn's only in the limit of many particles; it is tested against exact
  enumeration of the joint, not against bnlearn.

A discrete node is predicted by its most probable level (:func:`predict_proba` gives the
probabilities); a continuous node by its posterior mean.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from bnfs._validate import check_int, check_seed
from bnfs._warn import user_stacklevel
from bnfs.models.cg_network import ConditionalGaussianNetwork
from bnfs.models.network import DiscreteNetwork

__all__ = ["predict", "predict_proba"]

METHODS = ("parents", "blanket", "lw")
#: particles (rows x particles per row) likelihood weighting draws at a time
LW_CELLS = 1 << 18
Method = Literal["parents", "blanket", "lw"]


def predict(
    network: DiscreteNetwork | ConditionalGaussianNetwork,
    node: str,
    data: pd.DataFrame,
    method: Method = "blanket",
    *,
    predictors: Sequence[str] | None = None,
    n: int = 500,
    seed: int | None = 0,
) -> pd.Series:
    """Predict ``node`` in each row of ``data`` from a fitted network.

    Parameters
    ----------
    network : DiscreteNetwork or ConditionalGaussianNetwork
        E.g. from :func:`bnfs.fit`.
    node : str
    data : pandas.DataFrame
        Observed values, named as the network's nodes; a column for ``node`` itself is
        ignored. Discrete values are matched to the network's levels by their text.
    method : {"blanket", "parents", "lw"}, default "blanket"
        See the module notes. ``"parents"`` and ``"blanket"`` need those columns observed
        in every row; ``"lw"`` (discrete networks) takes any observed subset.
    predictors : sequence of str, optional
        ``"lw"`` only: the variables to condition on (default: every other column of
        ``data`` that is a node).
    n : int, default 500
        ``"lw"``: particles per row.
    seed : int, optional
        ``"lw"``: the same seed gives the same predictions.

    Returns
    -------
    pandas.Series
        Indexed as ``data``: levels (discrete node) or posterior means (continuous node).
        A row whose evidence the network gives probability 0 (``"blanket"``, a network fitted
        by maximum likelihood) or that no particle agrees with (``"lw"``) is NaN, with a
        RuntimeWarning naming the first.

    Examples
    --------
    >>> import bnfs
    >>> frame = bnfs.datasets.sample("asia", 2000, seed=0)
    >>> network = bnfs.fit(bnfs.hill_climbing(frame), frame)
    >>> rows = bnfs.datasets.sample("asia", 5, seed=1)
    >>> predict(network, "either", rows).tolist() == rows["either"].astype(str).tolist()
    True
    """
    model = _Model(network, node)
    if not model.discrete:
        return pd.Series(model.mean(data, method), index=data.index, name=node)
    probabilities = predict_proba(
        network, node, data, method, predictors=predictors, n=n, seed=seed
    )
    values = probabilities.to_numpy()
    best = np.argmax(np.nan_to_num(values, nan=-1.0), axis=1)
    levels = np.asarray(probabilities.columns, dtype=object)[best]
    levels[np.isnan(values).any(axis=1)] = np.nan
    return pd.Series(levels, index=data.index, name=node)


def predict_proba(
    network: DiscreteNetwork | ConditionalGaussianNetwork,
    node: str,
    data: pd.DataFrame,
    method: Method = "blanket",
    *,
    predictors: Sequence[str] | None = None,
    n: int = 500,
    seed: int | None = 0,
) -> pd.DataFrame:
    """The probability of each level of a discrete ``node`` in each row of ``data``: one
    column per level, indexed as ``data``. Parameters as :func:`predict`."""
    model = _Model(network, node)
    if not model.discrete:
        raise ValueError(f"{node!r} is continuous: predict gives its posterior mean")
    if method == "lw":
        values = model.likelihood_weighting(data, predictors, n, seed)
    else:
        if predictors is not None:
            raise ValueError(f"predictors applies to method='lw', not {method!r}")
        values = model.probabilities(data, method)
    _warn_impossible(values, data.index, method)
    return pd.DataFrame(values, index=data.index, columns=list(model.levels(node)))


def gaussian_loglik(x, mean, sd) -> np.ndarray:
    """log N(x; mean, sd^2) less log sqrt(2 pi), standardized before squaring (x / sd - mean
    / sd): the difference of two values near 1e308 would overflow."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = x / sd - mean / sd
    return -0.5 * z**2 - np.log(sd)


def blanket_mean(mean, sd, children) -> np.ndarray:
    """The posterior mean of a Gaussian node given its blanket: its own regression
    N(mean, sd^2) times each child's N(c; rest + b v, t^2), ``children`` holding the
    (b, c - rest, t) of each. Computed as (mean + sum b r^2 (c - rest)) / (1 + sum (b r)^2)
    with r = sd / t, which is the usual precision-weighted form multiplied through by sd^2:
    precisions 1 / sd^2 underflow to 0 for deviations above 1e154."""
    numerator = np.asarray(mean, dtype=float)
    denominator = np.ones_like(numerator)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for b, residual, t in children:
            r = sd / t
            numerator = numerator + (b * r) * (r * residual)
            denominator = denominator + (b * r) ** 2
        return numerator / denominator


def _as_text(column: pd.Series) -> pd.Series:
    """A column's values as the text levels are matched by; whole floats as integers (an
    integer column with a missing value is read as floats: 2.0 is level "2")."""
    if pd.api.types.is_float_dtype(column.dtype):
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        whole = np.isfinite(values) & (values == np.round(values)) & (np.abs(values) < 2**63)
        text = column.astype(object).astype(str)
        text[whole] = [str(int(x)) for x in values[whole]]
        return text
    return column.astype(object).astype(str)


def _warn_impossible(probabilities: np.ndarray, index, method: str) -> None:
    """A warning for the rows whose evidence the network gives probability 0 (their
    prediction is NaN), naming the first."""
    impossible = np.isnan(probabilities).any(axis=1)
    if impossible.any():
        first = index[int(np.flatnonzero(impossible)[0])]
        first = first.item() if isinstance(first, np.generic) else first
        why = (
            "no particle agrees with their evidence; raise n"
            if method == "lw"
            else "the network gives their evidence probability 0; fit it with "
            "method='bayes' so that no value has probability 0"
        )
        warnings.warn(
            f"{int(impossible.sum())} row(s) (the first: {first!r}) are predicted as NaN: {why}",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )


class _Model:
    """A fitted network seen uniformly: per node its levels (discrete) or regressions
    (continuous), configurations of discrete parents in the tables' order."""

    def __init__(self, network, node: str):
        if isinstance(network, DiscreteNetwork):
            self.dag = network.dag
            self.parents = {v: tuple(network.dag.parents(v)) for v in network.dag.nodes}
            self.arity = {v: len(network.states[v]) for v in network.dag.nodes}
            self.names = dict(network.states)
            self.tables = {
                v: t.reshape(-1, t.shape[-1]) for v, t in network.cpts.items()
            }  # (configurations, levels)
            self.regressions, self.sd = {}, {}
        elif isinstance(network, ConditionalGaussianNetwork):
            self.dag = network.dag
            self.parents = dict(network.parents)
            self.arity = dict(network.levels)
            self.names = {v: network.level_names(v) for v in network.levels}
            self.tables = dict(network.tables)
            self.regressions, self.sd = network.regressions, network.sd
        else:
            raise TypeError(
                "network must be a DiscreteNetwork or a ConditionalGaussianNetwork (see "
                f"bnfs.fit), got {type(network).__name__}"
            )
        if not isinstance(node, str) or node not in self.parents:
            raise ValueError(
                f"unknown node {node!r}; the network's nodes are {self.dag.nodes[:10]}"
            )
        self.node = node
        self.discrete = node in self.arity

    def levels(self, v: str) -> tuple:
        return self.names[v]

    # -- reading the data -----------------------------------------------------------------
    def _column(self, data: pd.DataFrame, v: str, required: bool) -> np.ndarray:
        """Codes (int64, -1 where missing) of a discrete column or floats (NaN where
        missing) of a continuous one."""
        if v not in data.columns:
            raise ValueError(f"data has no column {v!r}, which predicting {self.node!r} needs")
        column = data[v]
        if isinstance(column, pd.DataFrame):
            raise ValueError(
                f"data has {column.shape[1]} columns named {v!r}; which one is evidence is "
                "ambiguous: rename or drop the others"
            )
        missing = column.isna().to_numpy()
        if required and missing.any():
            raise ValueError(
                f"column {v!r} has {int(missing.sum())} missing value(s); method='lw' "
                "conditions on the values each row has (discrete networks)"
            )
        if v not in self.arity:
            try:
                return column.to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError):
                raise TypeError(
                    f"column {v!r} must hold numbers for continuous node {v!r}"
                ) from None
        codes = pd.Index(self.levels(v)).get_indexer(_as_text(column)).astype(np.int64)
        unknown = (codes < 0) & ~missing
        codes[missing] = -1
        if unknown.any():
            bad = column[unknown].iloc[0]
            bad = bad.item() if isinstance(bad, np.generic) else bad
            raise ValueError(
                f"column {v!r} holds {bad!r}, not a level of node {v!r} "
                f"({list(self.levels(v))[:10]})"
            )
        return codes

    def _config(self, v: str, values: dict, override: tuple[str, int] | None = None):
        config = 0
        for p in self.parents[v]:
            if p in self.arity:
                code = override[1] if override and override[0] == p else values[p]
                config = config * self.arity[p] + code
        return config

    def _regression_mean(self, v: str, values: dict, config) -> np.ndarray:
        beta = self.regressions[v][config]
        mean = beta[..., 0].copy()
        continuous = [p for p in self.parents[v] if p not in self.arity]
        for k, p in enumerate(continuous):
            mean = mean + beta[..., k + 1] * values[p]
        return mean

    # -- exact methods --------------------------------------------------------------------
    def _observed(self, data: pd.DataFrame, method: str) -> dict:
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        needed = set(self.parents[self.node])
        if method == "blanket":
            for c in self.dag.children(self.node):
                needed |= {c, *self.parents[c]}
            needed.discard(self.node)
        return {v: self._column(data, v, required=True) for v in sorted(needed)}

    def probabilities(self, data: pd.DataFrame, method: str) -> np.ndarray:
        values = self._observed(data, method)
        v = self.node
        table = self.tables[v][self._config(v, values) if self.parents[v] else 0]
        logp = np.log(np.broadcast_to(table, (len(data), self.arity[v])).copy())
        if method == "blanket":
            for k in range(self.arity[v]):
                for c in self.dag.children(v):
                    logp[:, k] += self._child_loglik(c, values, (v, k))
        with np.errstate(invalid="ignore"):  # -inf - -inf: evidence of probability 0
            logp -= logp.max(axis=1, keepdims=True)
            p = np.exp(logp)
            return p / p.sum(axis=1, keepdims=True)

    def _child_loglik(self, c: str, values: dict, override: tuple[str, int]) -> np.ndarray:
        config = self._config(c, values, override)
        if c in self.arity:
            with np.errstate(divide="ignore"):
                return np.log(self.tables[c][config, values[c]])
        return gaussian_loglik(
            values[c], self._regression_mean(c, values, config), self.sd[c][config]
        )

    def mean(self, data: pd.DataFrame, method: str) -> np.ndarray:
        """A continuous node's mean given its parents, or its posterior mean given its
        blanket: its own regression N(m, s^2) times each child's N(c; a + b v, t^2)."""
        if method == "lw":
            raise ValueError("method='lw' predicts discrete networks; use 'blanket' here")
        values = self._observed(data, method)
        v = self.node
        config = self._config(v, values) if self.parents[v] else np.zeros(len(data), np.int64)
        m = self._regression_mean(v, values, config)
        if method == "parents":
            return np.broadcast_to(m, (len(data),)).astype(float)
        children = []
        for c in self.dag.children(v):  # continuous: a discrete node has no continuous parent
            c_config = self._config(c, values)
            continuous = [p for p in self.parents[c] if p not in self.arity]
            b = self.regressions[c][c_config, 1 + continuous.index(v)]
            rest = self._regression_mean(c, {**values, v: 0.0}, c_config)
            children.append((b, values[c] - rest, self.sd[c][c_config]))
        mean = blanket_mean(m, self.sd[v][config], children)
        return np.broadcast_to(mean, (len(data),)).astype(float)

    # -- likelihood weighting -------------------------------------------------------------
    def likelihood_weighting(self, data, predictors, n: int, seed) -> np.ndarray:
        if self.regressions:
            raise ValueError(
                "method='lw' predicts discrete networks; use 'blanket' or 'parents' for a "
                "conditional-Gaussian one"
            )
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        n = check_int(n, "n", 1)
        rng = np.random.default_rng(check_seed(seed))
        if predictors is None:
            predictors = list(
                dict.fromkeys(c for c in data.columns if c in self.parents and c != self.node)
            )
        elif isinstance(predictors, (str, bytes)) or not hasattr(predictors, "__iter__"):
            raise TypeError(
                f"predictors must be a list of node names, got {predictors!r}"
                + (f"; for one predictor, [{predictors!r}]" if isinstance(predictors, str) else "")
            )
        predictors = list(predictors)
        for v in predictors:
            if not isinstance(v, str) or v not in self.parents:
                raise ValueError(
                    f"predictor {v!r} is not a node of the network "
                    f"({', '.join(self.dag.nodes[:10])}{', ...' if len(self.dag.nodes) > 10 else ''})"
                )
        if len(set(predictors)) != len(predictors):
            twice = next(v for v in predictors if predictors.count(v) > 1)
            raise ValueError(f"predictors names {twice!r} twice")
        if self.node in predictors:
            raise ValueError(f"predictors must not name the predicted node {self.node!r}")
        evidence = {v: self._column(data, v, required=False) for v in predictors}
        rows, levels = len(data), self.arity[self.node]
        out = np.empty((rows, levels))
        # blocks of rows and of particles, so that memory holds LW_CELLS particles at a time
        # whatever n is; each row's weighted counts are summed over its particle blocks
        # relative to the largest log-weight seen so far (a running log-sum-exp)
        per_block = min(n, LW_CELLS)
        row_step = max(1, LW_CELLS // per_block)
        for lo in range(0, rows, row_step):
            part = {v: e[lo : lo + row_step] for v, e in evidence.items()}
            m = next(iter(part.values())).shape[0] if part else min(row_step, rows - lo)
            top = np.full(m, -np.inf)
            sums = np.zeros((m, levels))
            for start in range(0, n, per_block):
                log_weight, drawn = self._particles(part, m, min(per_block, n - start), rng)
                block_top = log_weight.max(axis=1)
                new_top = np.maximum(top, block_top)
                with np.errstate(invalid="ignore"):  # -inf - -inf: nothing met the evidence yet
                    sums *= np.nan_to_num(np.exp(top - new_top), nan=0.0)[:, None]
                    weight = np.exp(log_weight - new_top[:, None])
                weight = np.nan_to_num(weight, nan=0.0)
                for k in range(levels):
                    sums[:, k] += (weight * (drawn == k)).sum(axis=1)
                top = new_top
            with np.errstate(invalid="ignore"):  # rows whose evidence no particle meets: NaN
                out[lo : lo + m] = sums / sums.sum(axis=1, keepdims=True)
        return out

    def _particles(self, evidence: dict, rows: int, n: int, rng) -> tuple:
        """(log-weights, the predicted node's drawn codes) of ``n`` particles for each of
        ``rows`` rows: forward sampling in topological order, evidence clamped and its
        likelihood added to the weight."""
        codes: dict[str, np.ndarray] = {}
        log_weight = np.zeros((rows, n))
        for v in self.dag.topological_order():
            config = self._config(v, codes) if self.parents[v] else np.zeros((rows, n), np.int64)
            table = self.tables[v][config]  # (rows, n, levels)
            drawn = (rng.random((rows, n, 1)) > np.cumsum(table, axis=-1)).sum(axis=-1)
            drawn = np.minimum(drawn, self.arity[v] - 1)
            if v in evidence:
                seen = evidence[v]
                observed = (seen >= 0)[:, None]
                clamped = np.broadcast_to(np.maximum(seen, 0)[:, None], (rows, n))
                codes[v] = np.where(observed, clamped, drawn)
                with np.errstate(divide="ignore"):
                    likelihood = np.log(np.take_along_axis(table, codes[v][..., None], -1)[..., 0])
                log_weight += np.where(observed, likelihood, 0.0)
            else:
                codes[v] = drawn
        return log_weight, codes[self.node]
