"""Structural EM's data and its imputation loop's model (:mod:`bnfs.search.structural_em`):
the incomplete columns as codes and unit-scaled values, a conditional-Gaussian network's
parameters fitted to the current completion, and each missing value's posterior mode
(discrete) or mean (continuous) given its Markov blanket."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnfs.em._completions import FLOOR, heaviest, smoothed_log_table
from bnfs.graphs.graph import DAG
from bnfs.models.inference import blanket_mean, gaussian_loglik
from bnfs.tables._kinds import column_kind
from bnfs.tables._scaling import scaled_lstsq, spread

__all__ = ["ImputationModel", "SWEEPS", "with_empty_rows"]

#: iterated-conditional-modes sweeps over the missing values per E-step
SWEEPS = 2


class ImputationModel:
    """The data as codes/values with their missing cells, and a conditional-Gaussian
    network's parameters fitted to the current completion."""

    def __init__(self, frame: pd.DataFrame):
        self.names = [str(c) for c in frame.columns]
        self.n_rows = frame.shape[0]
        self.missing = frame.isna().to_numpy()
        self.levels: dict[str, pd.Index] = {}
        self.scales: dict[str, float] = {}  # continuous columns: the values are divided by it
        self.raw: dict[str, np.ndarray] = {}  # continuous columns as given
        self.values: dict[str, np.ndarray] = {}  # codes (int64) or floats, completed
        for j, name in enumerate(self.names):
            column = frame.iloc[:, j]
            observed = column[~self.missing[:, j]]
            if observed.empty:
                raise ValueError(f"column {name!r} has no observed value")
            if column_kind(column) == "continuous":  # the rule of Dataset (integers too)
                values = column.to_numpy(dtype=np.float64, na_value=np.nan)
                if not np.isfinite(values[~self.missing[:, j]]).all():
                    raise ValueError(f"column {name!r} has infinite values")
                if observed.min() == observed.max():
                    raise ValueError(f"column {name!r} is constant where observed: drop it")
                # the fits and imputations run on the column divided by its magnitude:
                # squares of values near the float range (1e200) would overflow
                scale = float(np.abs(values[~self.missing[:, j]]).max())
                self.scales[name], self.raw[name] = scale, values
                values = values / scale
                mean = float(values[~self.missing[:, j]].mean())
                self.values[name] = np.where(self.missing[:, j], mean, values)
            else:
                categorical = pd.Categorical(column)
                used = pd.unique(categorical.codes[categorical.codes >= 0])
                if len(used) < 2:
                    raise ValueError(f"column {name!r} has a single observed level: drop it")
                self.levels[name] = categorical.categories
                codes = categorical.codes.astype(np.int64)
                mode = np.bincount(codes[codes >= 0]).argmax()
                self.values[name] = np.where(codes < 0, mode, codes)
        self.columns = {name: j for j, name in enumerate(self.names)}
        self.params: dict[str, tuple] = {}
        self.parents: dict[str, list[str]] = {}

    def set_expected_modes(self, filled, weights, source) -> None:
        """Each missing value to its level in the row's most probable completion (what
        ``return_imputed`` gives after EM on expected counts)."""
        best = filled[heaviest(weights, source)]
        for j, name in enumerate(self.names):
            rows = self.missing[:, j]
            self.values[name][rows] = best[rows, j]

    def imputed_values(self) -> list[np.ndarray]:
        """The current values of the missing cells, column by column (continuous ones in
        the scaled units the model works in)."""
        return [self.values[name][self.missing[:, j]].copy() for j, name in enumerate(self.names)]

    def imputed_frame(self, frame: pd.DataFrame) -> pd.DataFrame:
        """A copy of ``frame`` with its missing cells set to their current imputations
        (levels as the caller spelled them, continuous values in the caller's units)."""
        out = frame.copy()
        for j, name in enumerate(self.names):
            rows = self.missing[:, j]
            if not rows.any():
                continue
            if name in self.levels:
                filled = self.levels[name][self.values[name][rows]]
            else:
                filled = self.values[name][rows] * self.scales[name]
            column = out.iloc[:, j].copy()
            column[rows] = np.asarray(filled, dtype=object if name in self.levels else None)
            out.isetitem(j, column)
        return out

    def completed(self) -> pd.DataFrame:
        out = {}
        for name in self.names:
            if name in self.levels:
                out[name] = pd.Categorical.from_codes(self.values[name], self.levels[name])
            else:
                missing = self.missing[:, self.columns[name]]
                imputed = self.values[name] * self.scales[name]
                out[name] = np.where(missing, imputed, self.raw[name])
        return pd.DataFrame(out)

    # -- the M-step's parameters ---------------------------------------------------------

    def _configurations(self, node: str, override: tuple[str, int] | None = None, rows=None):
        """Each row's configuration of ``node``'s discrete parents (one variable set to a
        level by ``override``), and their number."""
        rows = slice(None) if rows is None else rows
        n = self.n_rows if isinstance(rows, slice) else len(rows)
        config = np.zeros(n, dtype=np.int64)
        q = 1
        for p in self.parents[node]:
            if p in self.levels:
                r = len(self.levels[p])
                codes = (
                    np.full(n, override[1])
                    if override and override[0] == p
                    else self.values[p][rows]
                )
                config = config * r + codes
                q *= r
        return config, q

    def fit(self, dag: DAG) -> None:
        """Maximum-likelihood parameters (tables slightly smoothed) on the completion, using
        observed values only where the graph is empty (the first E-step's marginals)."""
        self.parents = {v: list(dag.parents(v)) for v in self.names}
        for v in self.names:
            observed = ~self.missing[:, self.columns[v]] if not self.parents[v] else None
            config, q = self._configurations(v)
            if v in self.levels:
                r = len(self.levels[v])
                keep = slice(None) if observed is None else observed
                counts = np.bincount(
                    config[keep] * r + self.values[v][keep], minlength=q * r
                ).reshape(q, r)
                self.params[v] = (smoothed_log_table(counts),)
            else:
                self.params[v] = self._regressions(v, config, q, observed)

    def _regressions(self, v, config, q, observed):
        continuous = [p for p in self.parents[v] if p not in self.levels]
        X = np.column_stack([np.ones(self.n_rows)] + [self.values[p] for p in continuous])
        y = self.values[v]
        keep = np.ones(self.n_rows, bool) if observed is None else observed
        pooled, residuals, y_scale = scaled_lstsq(X[keep], y[keep])
        pooled_sd = max(spread(residuals) * y_scale, np.sqrt(FLOOR))
        beta = np.tile(pooled, (q, 1))
        sd = np.full(q, pooled_sd)
        for j in np.unique(config[keep]):
            rows = keep & (config == j)
            if rows.sum() > X.shape[1] + 1:  # enough rows for this configuration's own fit
                beta[j], residuals, y_scale = scaled_lstsq(X[rows], y[rows])
                sd[j] = max(spread(residuals) * y_scale, np.sqrt(FLOOR))
        return beta, sd, continuous

    # -- the E-step ----------------------------------------------------------------------

    def impute(self, dag: DAG) -> None:
        """Missing values to their most probable value given their Markov blanket."""
        order = dag.topological_order()
        children = {v: list(dag.children(v)) for v in self.names}
        for _ in range(SWEEPS):
            for v in order:
                rows = np.flatnonzero(self.missing[:, self.columns[v]])
                if rows.size == 0:
                    continue
                if v in self.levels:
                    self.values[v][rows] = self._discrete_mode(v, rows, children[v])
                else:
                    self.values[v][rows] = self._gaussian_mean(v, rows, children[v])

    def _child_loglik(self, child: str, rows, override) -> np.ndarray:
        """log p(child | its parents) on ``rows``, with the discrete parent ``override[0]``
        set to the level ``override[1]``."""
        config = self._configurations(child, override, rows)[0]
        if child in self.levels:
            return self.params[child][0][config, self.values[child][rows]]
        beta, sd, continuous = self.params[child]
        mean = beta[config, 0].copy()
        for k, p in enumerate(continuous):
            mean += beta[config, k + 1] * self.values[p][rows]
        return gaussian_loglik(self.values[child][rows], mean, sd[config])

    def _discrete_mode(self, v, rows, children) -> np.ndarray:
        r = len(self.levels[v])
        config = self._configurations(v, rows=rows)[0]
        logp = self.params[v][0][config].copy()  # (rows, r)
        for k in range(r):
            for c in children:
                logp[:, k] += self._child_loglik(c, rows, override=(v, k))
        return logp.argmax(axis=1)

    def _gaussian_mean(self, v, rows, children) -> np.ndarray:
        """Posterior mean of a continuous v: its own regression N(m, s^2) times each
        (continuous) child's N(c; a + b v, t^2), a Gaussian in v."""
        beta, sd, continuous = self.params[v]
        config = self._configurations(v, rows=rows)[0]
        mean = beta[config, 0].copy()
        for k, p in enumerate(continuous):
            mean += beta[config, k + 1] * self.values[p][rows]
        terms = []
        for c in children:
            c_beta, c_sd, c_cont = self.params[c]
            c_config = self._configurations(c, rows=rows)[0]
            k = c_cont.index(v)
            slope = c_beta[c_config, k + 1]
            rest = c_beta[c_config, 0].copy()
            for m, p in enumerate(c_cont):
                if p != v:
                    rest += c_beta[c_config, m + 1] * self.values[p][rows]
            terms.append((slope, self.values[c][rows] - rest, c_sd[c_config]))
        return blanket_mean(mean, sd[config], terms)


def with_empty_rows(imputed: pd.DataFrame, whole: pd.DataFrame, empty: np.ndarray) -> pd.DataFrame:
    """``imputed`` (the rows that observe something, completed) with the rows of ``whole``
    that observe nothing put back in place, each value its column's most frequent
    completed value (discrete) or completed mean (continuous): the posterior mode (mean)
    of a value given no evidence, read off the completed data."""
    if not empty.any():
        return imputed
    fill = {}
    for c in imputed.columns:
        column = imputed[c]
        numeric = pd.api.types.is_float_dtype(column) and not isinstance(
            column.dtype, pd.CategoricalDtype
        )
        fill[c] = column.mean() if numeric else column.mode(dropna=True).iloc[0]
    blank = whole.iloc[np.flatnonzero(empty)].copy()
    for j, c in enumerate(imputed.columns):
        blank.isetitem(
            j, pd.Series([fill[c]] * len(blank), index=blank.index).astype(imputed[c].dtype)
        )
    order = np.argsort(
        np.concatenate([np.flatnonzero(~empty), np.flatnonzero(empty)]), kind="stable"
    )
    return pd.concat([imputed, blank]).iloc[order]
