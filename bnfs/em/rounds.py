"""Structural EM's rounds (Friedman 1997; bnlearn's ``structural.em``): score-based learning
from data with missing values, alternating an imputation of the missing values under the
current network with a search on the completed data. The search is a function given to
:func:`structural_em` here, never named: :func:`bnfs.structural_em` hands it the search its
``maximize`` names, and the learners' door (:mod:`bnfs._real_data`) hands it the search an
incomplete frame was given to, so this package sits below the searches that run in it.

bnlearn's loop, with its default ``max.iter = 5``: fit the empty network to the observed
values; then repeatedly impute the missing values from the fitted network, search on the
completed data starting from the current graph, refit, and stop when the fitted network no
longer changes (here: the same graph on the same completed data).

With ``estep="expected"`` (the default) the searches score expected sufficient statistics
instead (Friedman 1998, "The Bayesian structural EM algorithm";
:mod:`bnfs.em._completions`):

* continuous data: the search runs on rows holding exactly the expected means and
  cross-products, the conditional means plus the conditional covariances that imputing
  means leaves out (without them every imputed value is a linear function of its blanket,
  which the search takes for arcs), from the empty network, or with :func:`bnfs.learn`'s
  default score (BGe with the vsp prior) from the saturated normal fitted by EM: from the
  empty network the first moments are shrunk toward independence and that cautious score
  keeps the sparse graph they suggest (magic-niab, 2,000 rows, 30% missing: SHD 50
  against 12; the complete rows 2), where BIC from the saturated start links too much
  (ecoli70 at 30%: 62 against 25);
* discrete data: each incomplete row stands for its completions weighted by their
  posterior under the network, and the search scores the weighted rows, from the network
  the imputation loop below converges to (from the empty network the first E-step spreads
  every gap over its marginal, and EM settles on too sparse a graph: alarm, 2,000 rows,
  30% missing, SHD 26 against 11; imputation alone 14, and with many rows imputed modes
  become functional links: alarm, 300,000 rows, 10% missing, SHD 11, expected counts 1);
* mixed data: a conditional-Gaussian network's expected statistics
  (:mod:`bnfs.em._cg_completions`): each incomplete row stands for its completions of
  the missing discrete values weighted by their posterior (the missing continuous values
  integrated out), each completion's missing continuous values spread over sigma points
  that hold their conditional mean and covariance; the search scores the weighted rows,
  from the network the imputation loop converges to, as for discrete data.

Imputation (``estep="impute"``; a hard assignment): every missing value
takes its most probable value given the row's other values under the fitted network, i.e.
given its Markov blanket - the posterior mode of a discrete variable, the posterior mean of
a continuous one (closed form in a conditional-Gaussian network: the parents' regression
and each child's regression on the variable combine as Gaussian precisions). Rows with several missing
values are resolved by iterated conditional modes over the variables in topological order,
two sweeps per E-step. bnlearn's default ``impute = "bayes-lw"`` estimates the same
posterior by likelihood weighting; the mode is computed exactly here instead of sampled, so
the result is deterministic.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd

import bnfs.em._cg_completions as _cg_completions
import bnfs.em._completions as _completions
from bnfs._budget import Budget, stopped_reason
from bnfs._validate import check_bool, check_int
from bnfs._warn import user_stacklevel
from bnfs.em._imputation import ImputationModel, with_empty_rows
from bnfs.graphs.graph import DAG
from bnfs.tables._columns import column_names
from bnfs.tables._data import Dataset

__all__ = ["structural_em"]

ESTEPS = ("expected", "impute")
#: parametric EM steps (E-step, refit) on each round's graph before the next search
PARAMETER_STEPS = 3
#: rows, at most, of the imputation loop that finds EM's starting network on discrete and
#: mixed data: a random subset of them beyond. The loop only gives EM its start, and on many
#: rows its searches cost most of EM's time (``benchmarks/em_warm_start.py``)
WARM_START_ROWS = 20_000


def structural_em(
    data,
    search,
    *,
    score=None,
    estep: str = "expected",
    max_iter: int = 5,
    max_parents: int | None = None,
    blacklist=None,
    whitelist=None,
    iss: float = 1.0,
    seed: int | None = 0,
    progress: bool = False,
    n_jobs: int | None = None,
    return_imputed: bool = False,
    max_time: float | None = None,
):
    """Structural EM with ``search`` as each round's search: a score search behind the
    learners' door (:func:`bnfs.hill_climbing`, :func:`bnfs.learn`, ...), called on each
    round's completed data. :func:`bnfs.structural_em` documents the options and what is
    returned. The search's signature says how it runs: ``score`` defaults to the search's
    own default; a search that takes ``start`` continues from the last round's graph (and
    searches afresh too, the better kept); one that takes no ``n_jobs`` refuses it by name;
    one whose own score is chosen from the data (``score=None``, :func:`bnfs.learn`'s BGe
    on continuous data) starts continuous EM from the saturated normal."""
    maximize = search.__name__
    parameters = inspect.signature(search).parameters
    if estep not in ESTEPS:
        raise ValueError(f"estep must be one of {list(ESTEPS)}, got {estep!r}")
    max_iter = check_int(max_iter, "max_iter", 1)
    frame = _frame(data)
    options = {
        "score": parameters["score"].default if score is None else score,
        "max_parents": max_parents,
        "blacklist": blacklist,
        "whitelist": whitelist,
        "iss": iss,
        "seed": seed,
        "progress": progress,
    }
    if max_time is not None:  # one budget for every round's search: what is left of it
        if "max_time" not in parameters:
            raise ValueError(f"maximize={maximize!r} takes no max_time")
        options["max_time"] = Budget(max_time)
    if n_jobs is not None:
        if "n_jobs" not in parameters:
            raise ValueError(f"maximize={maximize!r} runs in one thread: it takes no n_jobs")
        options["n_jobs"] = n_jobs
    check_bool(return_imputed, "return_imputed")
    # a row observing nothing adds nothing to the likelihood (kept, it adds the model's guess)
    empty = frame.isna().all(axis=1).to_numpy()
    if empty.all():
        raise ValueError("every row of data is missing every value: there is nothing to learn")
    whole, frame = frame, frame.iloc[np.flatnonzero(~empty)] if empty.any() else frame
    model = ImputationModel(frame)
    gaussian = not model.levels and model.n_rows > len(model.names) + 1
    if not model.missing.any():
        dag, rounds, converged = search(model.completed(), **_left(options)), 0, True
        how = "none (no value is missing)"
    elif estep == "expected" and gaussian:
        dag, rounds, converged = _gaussian_em(model, search, options, max_iter)
        how = "expected moments"
    elif estep == "expected":
        # from the network imputation converges to: started from the empty network, the
        # first E-step spreads every gap over its marginal and EM settles on sparse graphs
        imputed, first, subset = _warm_start(frame, model, search, options, max_iter, seed)
        expected = _expected_em if not model.scales else _mixed_em
        if stopped_reason(imputed.learning):  # stopped in the imputation loop
            dag, rounds, converged = imputed, 0, False
        else:
            dag, rounds, converged = expected(model, search, options, max_iter, seed, imputed)
        rounds += first
        what = "counts" if not model.scales else "statistics"
        how = f"expected {what}, from the imputation's network"
        if subset < model.n_rows:
            how += f" (imputing {subset:,} of the rows)"
    else:
        dag, rounds, converged = _imputation_em(model, search, options, max_iter)
        how = "imputation"
    learning = dict(dag.learning)
    dag.learning.clear()
    dag.learning.update(
        {
            "maximize": maximize,
            "estep": how,
            "search": learning,
            **_record(model, rounds, converged, empty, maximize, learning),
        }
    )
    if dag.learning["stopped_early"]:
        warnings.warn(
            f"structural_em stopped early ({dag.learning['stopped_early']}) in round "
            f"{rounds}; returning the last round's network",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
    if not return_imputed:
        return dag
    completed = model.imputed_frame(frame) if model.missing.any() else frame.copy()
    return dag, with_empty_rows(completed, whole, empty)


def _imputation_em(model: ImputationModel, search, options: dict, max_iter: int):
    """Structural EM imputing posterior modes (means): (graph, rounds, converged), ``model``
    left completed by the last E-step and fitted to the graph. The loop's shape is
    bnlearn's (impute, search from the current graph, refit); it differs in the E-step
    (exact modes where bnlearn draws) and the stop (the same graph and imputations where
    bnlearn compares fitted networks), so its graphs are not bnlearn's."""
    dag = DAG(model.names)
    model.fit(dag)  # the empty network on the observed values
    converged = False
    rounds = 0
    imputed = None
    while rounds < max_iter and not converged:
        rounds += 1
        model.impute(dag)
        start = {"start": dag if dag.arcs else None} if _continues(search) else {}
        found = search(model.completed(), **start, **_left(options))
        if stopped_reason(found.learning):  # Ctrl-C or a spent budget ends EM too
            return found, rounds, False
        # bnlearn's rule: stop when the fitted network no longer changes, i.e. the same
        # graph on the same completed data (a new graph or new imputations refit it)
        now = model.imputed_values()
        converged = (
            set(found.arcs) == set(dag.arcs)
            and imputed is not None
            and all(np.array_equal(a, b) for a, b in zip(now, imputed))
        )
        dag, imputed = found, now
        if not converged:
            model.fit(dag)
    return dag, rounds, converged


def _warm_start(frame, model: ImputationModel, search, options, max_iter, seed):
    """The imputation loop's network, its rounds and the rows it ran on, ``model`` completed
    under the network: the loop runs on at most :data:`WARM_START_ROWS` rows drawn at random
    (``seed``), and the whole data are then imputed under its network, fitted twice (first
    to the current completion). Where a column shows fewer than two observed values among
    the drawn rows, the loop takes every row."""
    if model.n_rows > WARM_START_ROWS:
        rows = np.random.default_rng(seed).choice(model.n_rows, WARM_START_ROWS, replace=False)
        subset = frame.iloc[np.sort(rows)]
        if all(subset[c].nunique() >= 2 for c in subset.columns):
            dag, rounds, _ = _imputation_em(ImputationModel(subset), search, options, max_iter)
            for _ in range(2):
                model.fit(dag)
                model.impute(dag)
            return dag, rounds, WARM_START_ROWS
    dag, rounds, _ = _imputation_em(model, search, options, max_iter)
    return dag, rounds, model.n_rows


def _expected_em(model: ImputationModel, search, options: dict, max_iter: int, seed, start: DAG):
    """Structural EM on expected counts (discrete data; :mod:`bnfs.em._completions`):
    each round completes every incomplete row in all its likely ways under the network,
    weighted by their posterior, runs the search on those weighted rows and refits the
    parameters to them; it stops when a round's graph equals the last one's. The first
    E-step's network is ``start`` with tables fitted to the model's current completion
    (the imputation loop's)."""
    names = model.names
    index = {name: j for j, name in enumerate(names)}
    codes = np.column_stack([model.values[name] for name in names])
    arities = np.array([len(model.levels[name]) for name in names], dtype=np.int64)
    states = {name: tuple(model.levels[name]) for name in names}
    parents = [[index[p] for p in start.parents(v)] for v in names]
    network = _completions.fit_tables(codes, np.ones(len(codes)), arities, parents)
    draws = np.random.default_rng(seed)

    def e_step(network):
        return _completions.expected_rows(
            codes, model.missing, network, int(draws.integers(1 << 31))
        )

    filled, weights, source = e_step(network)

    def completed():
        distinct, counted = _completions.collapsed(filled, weights)
        return Dataset.from_codes(distinct, names, states).with_weights(counted)

    def refit(dag: DAG):
        nonlocal filled, weights, source
        parents = [[index[p] for p in dag.parents(v)] for v in names]
        for _ in range(PARAMETER_STEPS):  # parametric EM on the new graph
            network = _completions.fit_tables(
                *_completions.collapsed(filled, weights), arities, parents
            )
            filled, weights, source = e_step(network)

    found = _search_rounds(search, start, options, max_iter, completed, refit)
    model.set_expected_modes(filled, weights, source)
    return found


def _mixed_em(model: ImputationModel, search, options: dict, max_iter: int, seed, start: DAG):
    """Structural EM on a conditional-Gaussian network's expected sufficient statistics
    (mixed data; :mod:`bnfs.em._cg_completions`): each round completes every incomplete
    row in its likely discrete ways, weighted by their posterior, with its missing
    continuous values spread over sigma points that hold their conditional mean and
    covariance, runs the search on those weighted rows and refits the parameters to them;
    it stops when a round's graph equals the last one's. The first E-step's network is
    ``start`` fitted to the model's current completion (the imputation loop's)."""
    names = model.names
    discrete = [v for v in names if v in model.levels]
    continuous = [v for v in names if v not in model.levels]
    place = {v: j for j, v in enumerate(discrete)} | {v: j for j, v in enumerate(continuous)}
    codes = np.column_stack([model.values[v] for v in discrete]).astype(np.int64)
    values = np.column_stack([model.values[v] for v in continuous])
    missing_d = model.missing[:, [model.columns[v] for v in discrete]]
    missing_c = model.missing[:, [model.columns[v] for v in continuous]]
    arities = np.array([len(model.levels[v]) for v in discrete], dtype=np.int64)

    def parents(dag: DAG) -> list[tuple[list[int], list[int]]]:
        return [
            (
                [place[p] for p in dag.parents(v) if p in model.levels],
                [place[p] for p in dag.parents(v) if p not in model.levels],
            )
            for v in discrete + continuous
        ]

    draws = np.random.default_rng(seed)

    def e_step(network):
        seed = int(draws.integers(1 << 31))
        return _cg_completions.expected_rows(codes, values, missing_d, missing_c, network, seed)

    ones = np.ones(len(codes))
    rows = e_step(_cg_completions.fit_network(codes, values, ones, arities, parents(start)))

    def completed():
        frame = pd.DataFrame(
            {
                v: pd.Categorical.from_codes(rows.codes[:, place[v]], model.levels[v])
                if v in model.levels
                else rows.values[:, place[v]] * model.scales[v]
                for v in names
            }
        )
        return Dataset(frame).with_weights(rows.weights)

    def refit(dag: DAG):
        nonlocal rows
        for _ in range(PARAMETER_STEPS):  # parametric EM on the new graph
            network = _cg_completions.fit_network(
                rows.codes, rows.values, rows.weights, arities, parents(dag)
            )
            rows = e_step(network)

    found = _search_rounds(search, start, options, max_iter, completed, refit)
    for v in names:  # return_imputed: the most probable completion, its conditional means
        best = rows.best_codes if v in model.levels else rows.best_values
        gaps = model.missing[:, model.columns[v]]
        model.values[v][gaps] = best[gaps, place[v]]
    return found


def _gaussian_em(model: ImputationModel, search, options: dict, max_iter: int):
    """Structural EM on expected means and cross-products (continuous data;
    :mod:`bnfs.em._completions`): the first E-step's network is the empty one fitted to
    the observed values, each search runs on rows holding exactly the expected moments, and
    parametric EM steps refit the network on each round's graph; it stops when a round's
    graph equals the last round's."""
    names = model.names
    index = {name: j for j, name in enumerate(names)}
    values = np.column_stack([model.values[name] for name in names])
    scales = np.array([model.scales[name] for name in names])
    # learn's BGe with the vsp prior starts from the saturated normal: from the empty
    # network the first moments are shrunk toward independence (a pair seen together in
    # half the rows keeps half its covariance) and the cautious score settles on the
    # sparse graph they suggest; BIC, less cautious, settles on denser graphs from the
    # saturated start (see the module notes)
    bayesian = options["score"] is None
    first = _completions.saturated_network if bayesian else _completions.independent_network
    network = first(values, model.missing)
    filled, mean, covariance = _completions.expected_moments(values, model.missing, network)

    def completed():
        rows = _completions.moment_rows(filled, mean, covariance) * scales
        return pd.DataFrame(rows, columns=names)

    def refit(dag: DAG):
        nonlocal filled, mean, covariance
        parents = [[index[p] for p in dag.parents(v)] for v in names]
        for _ in range(PARAMETER_STEPS):  # parametric EM on the new graph
            network = _completions.gaussian_network(mean, covariance, parents)
            filled, mean, covariance = _completions.expected_moments(values, model.missing, network)

    found = _search_rounds(search, DAG(names), options, max_iter, completed, refit)
    for j, name in enumerate(names):  # return_imputed: the conditional means
        model.values[name] = filled[:, j]
    return found


def _search_rounds(search, start: DAG, options: dict, max_iter: int, completed, refit):
    """The rounds of structural EM on expected statistics, (graph, rounds, converged): each
    round searches the data ``completed()`` gives (the current E-step's statistics) from
    ``start`` or the last round's graph (:func:`_round_search`), then ``refit(graph)`` runs
    the parametric EM steps on the new graph. It stops when a round's graph equals the last
    one's, not after the first round (a search on the statistics a network expects tends to
    return that network; the parametric steps move them first), after ``max_iter`` rounds,
    or when a search stops early (Ctrl-C or a spent budget ends EM too)."""
    dag, converged, rounds = start, False, 0
    while rounds < max_iter and not converged:
        rounds += 1
        found = _round_search(search, completed(), dag, options)
        if stopped_reason(found.learning):
            return found, rounds, converged
        converged = rounds > 1 and set(found.arcs) == set(dag.arcs)
        dag = found
        refit(dag)
    return dag, rounds, converged


def _round_search(search, data, dag: DAG, options: dict) -> DAG:
    """A round's search on the expected statistics: hill climbing and tabu search from the
    last round's graph and afresh, the higher score kept (the last graph on a tie). From the
    last graph alone a greedy search kept the imputation loop's errors (CHANGELOG)."""
    if not _continues(search) or not dag.arcs:
        return search(data, **_left(options))
    found = search(data, start=dag, **_left(options))
    if stopped_reason(found.learning):
        return found
    fresh = search(data, **_left(options))
    if stopped_reason(fresh.learning):  # Ctrl-C in the fresh search ends EM too
        found.learning["stopped_early"] = stopped_reason(fresh.learning)
        return found
    best, other = found.learning["score_value"], fresh.learning["score_value"]
    return fresh if other > best + 1e-9 * max(1.0, abs(best)) else found


def _left(options: dict) -> dict:
    """``options`` for one search, its ``max_time`` what is left of EM's budget (a spent
    one: 0 seconds, so the search returns its start at once, flagged, and EM ends)."""
    budget = options.get("max_time")
    if not isinstance(budget, Budget) or budget.deadline is None:
        return options
    return {**options, "max_time": max(0.0, budget.deadline - budget.clock())}


def _continues(search) -> bool:
    """Whether ``search`` continues from a graph (takes ``start``): hill climbing and tabu
    search do, from the last round's graph; BOSS and learn search afresh each round."""
    return "start" in inspect.signature(search).parameters


def _record(model: ImputationModel, rounds, converged, empty, maximize, search) -> dict:
    """EM's own provenance; ``search`` is the last search's ``learning``, whose stop (a
    spent budget, Ctrl-C) ends EM too."""
    stopped = stopped_reason(search)
    return {
        "learner": search.get("learner", maximize),
        "rounds": rounds,
        "converged": converged and not stopped,
        "stopped_early": stopped,
        "missing_cells": int(model.missing.sum()),
        "incomplete_rows": int(model.missing.any(axis=1).sum()),
        "rows_used": model.n_rows,
        "rows_without_values": int(empty.sum()),
    }


def _frame(data) -> pd.DataFrame:
    if isinstance(data, Dataset):
        return data.to_pandas()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"structural_em takes a pandas DataFrame (with missing values), got "
            f"{type(data).__name__}"
        )
    if data.shape[0] == 0 or data.shape[1] == 0:
        raise ValueError("data has no rows or no columns")
    column_names(data.columns)  # clear errors for bad names
    return data
