"""Structure and blanket quality: SHD, skeleton and Markov-blanket precision/recall/F1, and
the held-out log-likelihood of a structure."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from bnfs.graphs.graph import DAG, PDAG
from bnfs.tables._data import Dataset
from bnfs.tables._scaling import least_squares
from bnfs.tables._weights import repeated_rows, row_mass

__all__ = ["shd", "skeleton_scores", "arc_scores", "blanket_scores", "log_likelihood"]


def _check_graph(graph, what: str) -> DAG | PDAG:
    if not isinstance(graph, (DAG, PDAG)):
        raise TypeError(f"{what} must be a bnfs DAG or PDAG, got {type(graph).__name__}")
    return graph


def _check_same_nodes(a, b) -> None:
    if set(a.nodes) != set(b.nodes):
        only_a = sorted(set(a.nodes) - set(b.nodes))[:5]
        only_b = sorted(set(b.nodes) - set(a.nodes))[:5]
        raise ValueError(
            f"graphs have different nodes (only in learned: {only_a}, only in true: {only_b})"
        )


def _as_cpdag(graph: DAG | PDAG) -> PDAG:
    try:
        return graph.cpdag()
    except ValueError:  # no consistent extension: compare the PDAG as it is
        return graph


def _marks(graph: DAG | PDAG) -> dict[frozenset, tuple]:
    """For each adjacent pair: ("arc", parent, child) or ("edge",)."""
    out: dict[frozenset, tuple] = {frozenset((u, v)): ("arc", u, v) for u, v in graph.arcs}
    for u, v in graph.edges:
        out[frozenset((u, v))] = ("edge",)
    return out


def shd(learned: DAG | PDAG, true: DAG | PDAG) -> int:
    """Structural Hamming distance between the CPDAGs of two graphs, as R bnlearn's
    ``shd`` counts it (tested against bnlearn-port).

    Both graphs are turned into their CPDAGs (a PDAG through a consistent extension when
    it has one). Every pair of nodes whose status differs counts once: missing, extra,
    reversed, or directed in one and undirected in the other.

    References
    ----------
    I. Tsamardinos, L. E. Brown and C. F. Aliferis, "The max-min hill-climbing Bayesian
    network structure learning algorithm", Machine Learning 65, 2006.

    Examples
    --------
    >>> a = DAG(["x", "y", "z"], [("x", "y"), ("z", "y")])   # a v-structure
    >>> b = DAG(["x", "y", "z"], [("x", "y"), ("y", "z")])   # a chain: x - y - z
    >>> shd(a, b), shd(b, DAG(["x", "y", "z"], [("y", "x"), ("y", "z")]))
    (2, 0)
    """
    learned, true = _check_graph(learned, "learned"), _check_graph(true, "true")
    _check_same_nodes(learned, true)
    ml, mt = _marks(_as_cpdag(learned)), _marks(_as_cpdag(true))
    return sum(ml.get(pair) != mt.get(pair) for pair in ml.keys() | mt.keys())


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def skeleton_scores(learned: DAG | PDAG, true: DAG | PDAG) -> dict[str, float]:
    """Precision, recall and F1 of the learned skeleton's edges against the true one
    (orientation ignored), with the counts ``tp``, ``fp``, ``fn``.

    >>> skeleton_scores(DAG(["a", "b", "c"], [("b", "a")]), DAG(["a", "b", "c"], [("a", "b"), ("b", "c")]))["recall"]
    0.5
    """
    learned, true = _check_graph(learned, "learned"), _check_graph(true, "true")
    _check_same_nodes(learned, true)
    sl, st = set(_marks(learned)), set(_marks(true))
    return _prf(len(sl & st), len(sl - st), len(st - sl))


def arc_scores(learned: DAG | PDAG, true: DAG | PDAG) -> dict[str, float]:
    """Precision/recall/F1 over the CPDAGs' pairs counted with their marks (the counts of
    bnlearn's ``compare`` on the two CPDAGs, tested against bnlearn-port): a pair is a true
    positive when both CPDAGs have it with the same mark.

    Examples
    --------
    >>> from bnfs import datasets
    >>> truth = datasets.network("asia")
    >>> arc_scores(truth, truth)["f1"]
    1.0
    """
    learned, true = _check_graph(learned, "learned"), _check_graph(true, "true")
    _check_same_nodes(learned, true)
    ml, mt = _marks(_as_cpdag(learned)), _marks(_as_cpdag(true))
    tp = sum(ml[p] == mt.get(p) for p in ml)
    return _prf(tp, len(ml) - tp, len(mt) - tp)


def blanket_scores(
    found: Iterable[str] | DAG | PDAG, true: DAG | PDAG, target: str
) -> dict[str, float]:
    """Precision, recall and F1 of a Markov blanket of ``target`` against the blanket in
    the true network. ``found`` is a list of names or a learned graph.

    >>> truth = DAG(["t", "a", "b", "c"], [("a", "t"), ("t", "b"), ("c", "b")])
    >>> blanket_scores(["a", "b"], truth, "t")["recall"]
    0.6666666666666666
    """
    true = _check_graph(true, "true")
    if target not in true:
        raise ValueError(f"target {target!r} is not a node of the true network")
    if isinstance(found, (DAG, PDAG)):
        found = found.markov_blanket(target)
    if isinstance(found, str):
        raise TypeError("found must be a collection of names, not a single string")
    found = set(found)
    unknown = found - set(true.nodes)
    if unknown:
        raise ValueError(f"found names nodes not in the true network: {sorted(unknown)[:5]}")
    truth = set(true.markov_blanket(target))
    return _prf(len(found & truth), len(found - truth), len(truth - found))


def _configurations(train: np.ndarray, test: np.ndarray, arities) -> tuple[np.ndarray, np.ndarray]:
    """Parent configurations of the train and test rows, numbered 0..q-1 over both
    (renumbered as they are built, so no key overflows whatever the parents' levels)."""
    both = np.concatenate([train, test], axis=0)
    key = np.zeros(len(both), dtype=np.int64)
    for j, arity in enumerate(arities):
        key = key * arity + both[:, j]
        if j + 1 < len(arities):
            key = np.unique(key, return_inverse=True)[1].astype(np.int64)
    return key[: len(train)], key[len(train) :]


def log_likelihood(dag: DAG, train, test=None, iss: float = 1.0) -> float:
    """Mean log-likelihood per row of ``test`` (natural log) under ``dag`` with parameters
    estimated from ``train``: each node's BDeu posterior predictive, (n_jk + a) / (n_j + a r)
    with a = ``iss`` / (q r), so a parent configuration or level never seen in training
    gets a proper probability instead of zero. This is the "logl" loss of bnlearn's
    ``bn.cv`` with Bayesian instead of maximum-likelihood parameters.

    Parameters
    ----------
    dag : DAG
    train, test : Dataset
        The same columns and levels, as ``Dataset.take`` gives (``test`` None: ``train``).
        Continuous data: each node's linear regression on its parents, fitted to ``train``
        by least squares with the maximum-likelihood residual variance, gives the density
        of the ``test`` rows. Mixed data: a conditional-Gaussian network, each continuous
        node regressed on its continuous parents in each configuration of its discrete
        ones (a configuration with too few training rows borrows the regression on all of
        them); discrete nodes as above.
    iss : float > 0

    Examples
    --------
    >>> import numpy as np
    >>> from bnfs import as_dataset, datasets
    >>> data = as_dataset(datasets.sample("asia", 2000, seed=0))
    >>> train, test = data.take(np.arange(1500)), data.take(np.arange(1500, 2000))
    >>> truth, empty = datasets.network("asia"), DAG(data.names)
    >>> log_likelihood(truth, train, test) > log_likelihood(empty, train, test)
    True
    """
    test = train if test is None else test
    for what, value in (("train", train), ("test", test)):
        if not isinstance(value, Dataset):
            raise TypeError(f"{what} must be a Dataset (take train and test from one Dataset)")
    if train.continuous_names or test.continuous_names:  # regressions count rows
        train = repeated_rows(train, "log_likelihood on continuous columns")
        test = repeated_rows(test, "log_likelihood on continuous columns")
    if not (train.discrete_names or test.discrete_names):
        return _gaussian_log_likelihood(dag, train, test)
    if train.names != test.names or any(
        list(train.states.get(v, ())) != list(test.states.get(v, ())) for v in train.names
    ):
        raise ValueError(
            "train and test must have the same columns and levels (take both from one Dataset)"
        )
    if set(dag.nodes) != set(train.names):
        raise ValueError("the DAG's nodes must be the data's columns")
    if iss <= 0:
        raise ValueError(f"iss must be > 0, got {iss}")
    total = 0.0
    for v in dag.nodes:
        parents = dag.parents(v)
        discrete = [u for u in parents if u in train.states]
        if v in train.states:
            if len(discrete) < len(parents):
                raise ValueError(
                    f"discrete node {v!r} has continuous parents "
                    f"{[u for u in parents if u not in train.states]}: not a "
                    "conditional-Gaussian network"
                )
            total += _table_log_likelihood(v, parents, train, test, iss)
        else:
            continuous = [u for u in parents if u not in train.states]
            total += _regressions_log_likelihood(v, discrete, continuous, train, test)
    return total / row_mass(test)


def _table_log_likelihood(v: str, parents, train: Dataset, test: Dataset, iss: float) -> float:
    """Summed log-probability of ``test``'s values of discrete ``v`` under its BDeu
    posterior predictive given ``parents`` (discrete), from ``train``; weighted rows count
    their weights in both."""
    r = train.arity(v)
    arities = [train.arity(u) for u in parents]
    q = float(np.prod(arities, dtype=np.float64))
    if parents:
        a, b = _configurations(
            np.column_stack([train.column(u) for u in parents]),
            np.column_stack([test.column(u) for u in parents]),
            arities,
        )
    else:
        a, b = np.zeros(train.n_rows, np.int64), np.zeros(test.n_rows, np.int64)
    size = int(max(a.max(initial=0), b.max(initial=0))) + 1
    n_j = np.bincount(a, weights=train.weights, minlength=size).astype(np.float64)
    n_jk = np.bincount(a * r + train.column(v), weights=train.weights, minlength=size * r)
    prior = iss / (q * r)
    p = (n_jk[b * r + test.column(v)] + prior) / (n_j[b] + prior * r)
    if test.weights is not None:  # a row of weight w counts w times
        return float(np.log(p) @ test.weights)
    return float(np.log(p).sum())


def _regressions_log_likelihood(v: str, discrete, continuous, train: Dataset, test: Dataset):
    """Summed log-density of ``test``'s values of continuous ``v``: in each configuration of
    its ``discrete`` parents, the least-squares regression on its ``continuous`` parents
    fitted to the training rows of that configuration, with the maximum-likelihood residual
    deviation. A configuration with fewer training rows than the regression's coefficients
    plus two uses the regression fitted to every training row. bnlearn's ``bn.fit``
    ("mle-cg") fits the same regressions, but divides the residual sum of squares by the
    rows less the coefficients, and leaves a configuration it cannot fit without
    parameters (tested against bnlearn-port's ``bn.cv`` "logl" loss)."""
    x_train = [train.column(u) for u in continuous]
    x_test = [test.column(u) for u in continuous]
    if discrete:
        a, b = _configurations(
            np.column_stack([train.column(u) for u in discrete]),
            np.column_stack([test.column(u) for u in discrete]),
            [train.arity(u) for u in discrete],
        )
    else:
        a, b = np.zeros(train.n_rows, np.int64), np.zeros(test.n_rows, np.int64)
    pooled = None  # the regression on every training row, fitted once if needed
    total = 0.0
    for j in np.unique(b):
        rows, held = np.flatnonzero(a == j), np.flatnonzero(b == j)
        if discrete and len(rows) >= len(continuous) + 3:
            beta, deviation = least_squares(train.column(v)[rows], [x[rows] for x in x_train])
        else:
            pooled = pooled or least_squares(train.column(v), x_train)
            beta, deviation = pooled
        design = np.column_stack([np.ones(len(held)), *(x[held] for x in x_test)])
        z = (test.column(v)[held] - design @ beta) / deviation
        total += float(-len(held) * (0.5 * np.log(2 * np.pi) + np.log(deviation)) - 0.5 * (z @ z))
    return total


def _gaussian_log_likelihood(dag: DAG, train: Dataset, test: Dataset) -> float:
    """Mean held-out log-density per row of continuous ``test`` under linear-Gaussian
    nodes fitted to ``train``."""
    if train.names != test.names:
        raise ValueError("train and test must have the same columns (take both from one Dataset)")
    if set(dag.nodes) != set(train.names):
        raise ValueError("the DAG's nodes must be the data's columns")
    total = 0.0
    for v in dag.nodes:
        total += _regressions_log_likelihood(v, [], dag.parents(v), train, test)
    return total / test.n_rows
