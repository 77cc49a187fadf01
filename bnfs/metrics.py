"""Structure and blanket quality: SHD, skeleton and Markov-blanket precision/recall/F1."""

from __future__ import annotations

from collections.abc import Iterable

from bnfs.graph import DAG, PDAG

__all__ = ["shd", "skeleton_scores", "arc_scores", "blanket_scores"]


def _check_graph(graph, what: str) -> DAG | PDAG:
    if not isinstance(graph, (DAG, PDAG)):
        raise TypeError(f"{what} must be a bnfs DAG or PDAG, got {type(graph).__name__}")
    return graph


def _check_same_nodes(a, b) -> None:
    if set(a.nodes) != set(b.nodes):
        only_a = sorted(set(a.nodes) - set(b.nodes))[:5]
        only_b = sorted(set(b.nodes) - set(a.nodes))[:5]
        raise ValueError(f"graphs have different nodes (only in learned: {only_a}, only in "
                         f"true: {only_b})")


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
    ``shd`` counts it.

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
    """Precision/recall/F1 over the CPDAGs' pairs counted with their marks (bnlearn's
    ``compare``): a pair is a true positive when both CPDAGs have it with the same mark.

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


def blanket_scores(found: Iterable[str] | DAG | PDAG, true: DAG | PDAG, target: str) -> dict[str, float]:
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
