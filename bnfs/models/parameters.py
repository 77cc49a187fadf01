"""Parameters of a learned network, as bnlearn's ``bn.fit`` estimates them.

Discrete data give a :class:`~bnfs.DiscreteNetwork` (conditional probability tables, by
maximum likelihood or as a Bayesian posterior mean); continuous and mixed data give a
:class:`~bnfs.ConditionalGaussianNetwork` (a linear regression of each continuous node on
its continuous parents per configuration of its discrete parents; a Gaussian network is the
case without discrete nodes).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from bnfs._validate import check_float
from bnfs.graphs.graph import DAG, PDAG
from bnfs.models.cg_network import ConditionalGaussianNetwork
from bnfs.models.network import DiscreteNetwork, conditional_tables
from bnfs.tables._data import as_dataset
from bnfs.tables._scaling import scaled_lstsq
from bnfs.tables._weights import repeated_rows

__all__ = ["fit"]

METHODS = ("mle", "bayes")


def fit(
    dag: DAG,
    data,
    method: Literal["mle", "bayes"] = "mle",
    *,
    iss: float = 1.0,
    name: str = "network",
) -> DiscreteNetwork | ConditionalGaussianNetwork:
    """Estimate the parameters of ``dag`` from ``data`` (bnlearn's ``bn.fit``).

    Parameters
    ----------
    dag : DAG
        The structure; a PDAG is refused (``pdag.to_dag()`` gives a DAG in its class).
    data : Dataset, DataFrame or file path
        Complete data over the DAG's nodes (structural EM's ``return_imputed`` completes
        incomplete data). A constant column the learners kept as an isolated node is a
        one-state node. A row of weight w (:meth:`~bnfs.Dataset.with_weights`) counts as w
        rows: any weights in discrete tables, whole numbers where continuous nodes are
        regressed. bnlearn's ``bn.fit`` takes no row weights; unweighted data give its
        estimates (``tests/models/test_parameters.py`` checks them against bnlearn-port).
    method : {"mle", "bayes"}
        ``"mle"``: maximum likelihood (bnlearn's ``"mle"``, ``"mle-g"``, ``"mle-cg"``).
        ``"bayes"`` (discrete data only, as in bnlearn): the posterior mean under a
        Dirichlet prior spreading ``iss`` uniformly over each table's cells, BDeu's prior.
    iss : float, default 1.0
        Imaginary sample size of ``"bayes"``.
    name : str, default "network"

    Returns
    -------
    DiscreteNetwork or ConditionalGaussianNetwork
        Discrete data give tables; continuous or mixed data give a conditional-Gaussian
        network (regressions and residual standard deviations).

    Raises
    ------
    ValueError
        Nodes of the graph that are not columns of the data, data a network cannot be
        fitted on (missing values, a discrete node with a continuous parent), an unknown
        ``method``; each message names the node or the parameter.
    TypeError
        A graph that is not a DAG (a PDAG: ``pdag.to_dag()`` gives one).

    See Also
    --------
    predict, predict_proba : Predictions of the fitted network.
    write_bif : Save a fitted discrete network.

    Notes
    -----
    Two departures from bnlearn, both where bnlearn returns NaN: a parent configuration
    the data never show gets a uniform distribution (``"mle"``); a configuration of a
    continuous node's discrete parents with no more rows than coefficients gets the
    regression pooled over all configurations. Residual standard deviations are bnlearn's,
    sqrt(RSS / (n - coefficients)); :func:`bnfs.io.to_pgmpy` and the ``-g`` scores use the
    maximum-likelihood sqrt(RSS / n).

    Examples
    --------
    >>> import bnfs
    >>> frame = bnfs.datasets.sample("asia", 2000, seed=0)
    >>> network = fit(bnfs.hill_climbing(frame), frame, "bayes", iss=10)
    >>> network.states["tub"], bool(np.allclose(network.cpts["tub"].sum(axis=-1), 1))
    (('yes', 'no'), True)
    >>> survey = bnfs.datasets.load_survey().dropna()
    >>> fit(bnfs.learn(survey), survey).regressions["sbp"].shape  # smoker: no/yes
    (2, 3)
    """
    if isinstance(dag, PDAG):
        raise TypeError("fit needs a DAG; pdag.to_dag() gives one in its equivalence class")
    if not isinstance(dag, DAG):
        raise TypeError(f"dag must be a bnfs DAG, got {type(dag).__name__}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    iss = check_float(iss, "iss", 0.0, low_open=True)
    data = as_dataset(data, constant="isolate", **_kinds_learned(dag, data))
    unknown = [v for v in dag.nodes if v not in data and v not in data.isolated]
    if unknown:
        raise ValueError(f"nodes {unknown[:10]} are not columns of the data")
    if all(v in data.discrete_names or v in data.isolated for v in dag.nodes):
        if method == "mle":
            return DiscreteNetwork.fit(dag, data, name=name)
        return DiscreteNetwork.fit(dag, data, name=name, prior_size=iss)
    if method == "bayes":
        raise ValueError(
            "method='bayes' fits discrete networks only (as bnlearn's bn.fit); "
            f"{[v for v in dag.nodes if v in data.continuous_names][:5]} are continuous"
        )
    return _conditional_gaussian(dag, data, name)


def _kinds_learned(dag: DAG, data) -> dict:
    """``discrete=`` and ``continuous=`` for reading ``data`` (a frame or a file, not a
    Dataset) as the data ``dag`` was learned from were read (its ``learning["columns"]``):
    a column typed by the rule on the learning rows keeps its kind on other rows (a fold, a
    test set), where its number of values may differ."""
    learned = getattr(dag, "learning", {}).get("columns")
    if not isinstance(learned, dict) or not hasattr(data, "columns"):
        return {}
    present = {str(c) for c in data.columns}
    return {
        kind: [v for v in dag.nodes if learned.get(v) == kind and v in present]
        for kind in ("discrete", "continuous")
    }


def _conditional_gaussian(dag: DAG, data, name: str) -> ConditionalGaussianNetwork:
    # the regressions count rows: a row of weight w is w rows (whole numbers only)
    data = repeated_rows(data, "fit on continuous columns")
    discrete = {v for v in dag.nodes if v not in data.continuous_names}
    for v in discrete:
        continuous = [p for p in dag.parents(v) if p not in discrete]
        if continuous and v in data.isolated:
            raise ValueError(
                f"column {v!r} is constant (every row {data.isolated[v]!r}): fit keeps a "
                "constant column as a one-state node, which has no regression on the "
                f"continuous parents {continuous}; drop its arcs from them, or the column"
            )
        if continuous:
            raise ValueError(
                f"discrete node {v!r} has continuous parents {continuous}: a "
                "conditional-Gaussian network gives discrete nodes discrete parents only"
            )
    arity = {v: 1 if v in data.isolated else data.arity(v) for v in discrete}
    states = {
        v: (str(data.isolated[v]),) if v in data.isolated else tuple(map(str, data.states[v]))
        for v in discrete
    }
    tables = conditional_tables(dag, data, [v for v in dag.nodes if v in discrete])
    parents, regressions, sd = {}, {}, {}
    for v in dag.nodes:
        order = dag.parents(v)
        disc = [p for p in order if p in discrete]
        parents[v] = tuple(disc + [p for p in order if p not in discrete])
        if v in discrete:
            tables[v] = tables[v].reshape(-1, arity[v])  # (configurations, levels)
            continue
        config = np.zeros(data.n_rows, dtype=np.int64)
        q = 1
        for p in disc:
            if p not in data.isolated:
                config = config * arity[p] + data.column(p)
            q *= arity[p]
        cont = [p for p in order if p not in discrete]
        X = np.column_stack([np.ones(data.n_rows)] + [data.column(p) for p in cont])
        regressions[v], sd[v] = _regressions(X, data.column(v), config, q)
    levels = {v: arity[v] for v in discrete}
    return ConditionalGaussianNetwork(
        dag, parents, levels, tables, regressions, sd, states=states, name=name
    )


def _regressions(X: np.ndarray, y: np.ndarray, config: np.ndarray, q: int):
    """Least squares per configuration (pooled where a configuration has no more rows than
    coefficients) and bnlearn's residual standard deviations sqrt(RSS / (n - k))."""
    k = X.shape[1]
    pooled, sd_pooled = _least_squares(X, y)
    beta = np.tile(pooled, (q, 1))
    sd = np.full(q, sd_pooled)
    for j in range(q):
        rows = config == j
        if rows.sum() > k:
            beta[j], sd[j] = _least_squares(X[rows], y[rows])
    return beta, sd


def _least_squares(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Coefficients and bnlearn's residual deviation sqrt(RSS / (n - k)), computed on scaled
    columns (:func:`bnfs.tables._scaling.scaled_lstsq`): values above 1e154 would overflow."""
    beta, residuals, y_scale = scaled_lstsq(X, y)
    dof = max(len(y) - X.shape[1], 1)
    return beta, float(np.linalg.norm(residuals) / np.sqrt(dof)) * y_scale
