"""The frontends of the local questions, bnlearn's ``learn.mb`` and ``learn.nbr``:
:func:`markov_blanket` and :func:`neighbours` of one target by any learner, and the rule
``learner="auto"`` follows (:func:`auto_learner`).

With a local method they give bnlearn's answer (``tests/test_bnlearn_parity.py``: ``gs``,
``iamb`` and one-way ``mmpc`` on insurance). They differ in three ways: methods are named
by their learners (``"iamb_mb"`` for bnlearn's ``"iamb"``); a network learner is a method
too (its graph's blanket or neighbours); and the defaults are bnfs's (``"auto"``; the test
G2, with adjusted degrees of freedom for HITON and MMPC, where bnlearn's is ``mi``; HITON
and MMPC with the symmetry correction)."""

from __future__ import annotations

from bnfs.graphs.local import LocalResult
from bnfs.learners.registry import check_name, check_options, get

__all__ = ["markov_blanket", "neighbours", "auto_learner", "AUTO_NETWORK_WORK"]


#: the largest whole network (features squared times rows) from which ``learner="auto"``
#: reads the class's blanket, learned by :func:`bnfs.learn` (BOSS under BDeu with more
#: starts, the most accurate network bnfs learns); past it the blanket in learn's network
#: on the class's neighbourhood (:func:`bnfs.search.neighbourhood_mb`), whose cost grows with
#: the neighbourhood. At the bound learn takes tens of seconds (pigs, 1,000 rows); its
#: blankets beat HITON-MB's and hill climbing's on sampled networks, neighbourhood_mb's beat
#: HITON-MB's on planted wide data (``benchmarks/blanket_quality.py``; CHANGELOG,
#: "Measured defaults")
AUTO_NETWORK_WORK = 2e8


def auto_learner(n_features: int, n_rows: int, parents_and_children: bool = False) -> str:
    """The learner of a target's blanket (or its parents and children) that
    ``learner="auto"`` and ``bnfs blanket``/``bnfs select`` run by default: ``learn``'s
    whole network while features squared times rows stay within :data:`AUTO_NETWORK_WORK`,
    the blanket in learn's network on the class's neighbourhood past it (the local HITON-PC
    for parents and children)."""
    if float(n_features) ** 2 * n_rows <= AUTO_NETWORK_WORK:
        return "learn"
    return "hiton_pc" if parents_and_children else "neighbourhood_mb"


def markov_blanket(data, target: str, method: str = "auto", **options) -> LocalResult:
    """The Markov blanket of ``target``: its parents, children and the children's other
    parents, by any learner (bnlearn's ``learn.mb``, which offers the local ones).

    Parameters
    ----------
    data : Dataset, DataFrame, array with names or file path
        The data; a local learner also takes a CI test or a d-separation oracle
        (:class:`bnfs.DSeparation`). Missing values are learned through, as each learner
        does (available-case tests, structural EM).
    target : str
        The variable whose blanket is wanted.
    method : str, default "auto"
        A local blanket learner (``names("blanket")``: ``"hiton_mb"``, ``"mmmb"``,
        ``"pcmb"``, ``"iamb_mb"``, ``"neighbourhood_mb"``, ...) or a network learner
        (``names("score", "hybrid", "constraint")``: ``"learn"``, ``"pc_stable"``, ...),
        whose graph's blanket is returned. ``"auto"`` is :class:`bnfs.MarkovBlanketSelector`'s
        rule (:func:`auto_learner`): the blanket in :func:`bnfs.learn`'s network while
        features squared times rows stay within :data:`AUTO_NETWORK_WORK`, the blanket in
        learn's network on the target's neighbourhood (``"neighbourhood_mb"``) past it;
        on a CI test or oracle, ``"hiton_mb"``.
    **options
        The method's own keyword options (e.g. ``test``, ``alpha``, ``score``); one it does
        not take is refused by name.

    Returns
    -------
    LocalResult
        The names, in column order; ``learning`` is the method's provenance (a network
        learner's graph's, with the graph itself under ``"network"``) and ``"method"``.

    Examples
    --------
    >>> import bnfs
    >>> from bnfs import datasets
    >>> oracle = bnfs.DSeparation(datasets.network("asia"))
    >>> bnfs.markov_blanket(oracle, "either", method="iamb_mb")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    >>> bnfs.markov_blanket(datasets.sample("asia", 2000, seed=0), "either")
    ['tub', 'lung', 'bronc', 'xray', 'dysp']
    """
    return _local_set(data, target, method, options, blanket=True)


def neighbours(data, target: str, method: str = "auto", **options) -> LocalResult:
    """The parents and children of ``target`` by any learner (bnlearn's ``learn.nbr``,
    which offers the local ones).

    Parameters are those of :func:`markov_blanket`, with ``method`` a local
    parents-and-children learner (``names("neighbours")``: ``"hiton_pc"``, ``"mmpc"``,
    ``"hpc"``) or a network learner, whose graph's neighbours of ``target`` are returned;
    ``"auto"``: :func:`bnfs.learn`'s network within :data:`AUTO_NETWORK_WORK`, HITON-PC
    past it and on a CI test or oracle.

    Examples
    --------
    >>> import bnfs
    >>> from bnfs import datasets
    >>> bnfs.neighbours(bnfs.DSeparation(datasets.network("asia")), "either")
    ['tub', 'lung', 'xray', 'dysp']
    """
    return _local_set(data, target, method, options, blanket=False)


def _local_set(data, target, method, options, blanket: bool) -> LocalResult:
    from bnfs._validate import near_match  # here: import bnfs loads no data library

    local = "blanket" if blanket else "neighbours"
    check_name(method, local, "score", "hybrid", "constraint", role="method", auto=True)
    if method == "auto":
        method = _auto(data, blanket)
    entry = get(method)
    check_options(method, options)
    if entry.local:
        found = entry.function(data, target, **options)
        found.learning["method"] = method
        return found
    columns = _columns(data)
    if columns is not None and target not in columns:
        raise ValueError(
            f"target {target!r} is not a column of the data{near_match(target, columns)}"
        )
    network = entry.function(data, **options)
    members = network.markov_blanket(target) if blanket else network.neighbours(target)
    chosen = set(members)
    learning = {**network.learning, "target": target, "method": method, "network": network}
    return LocalResult([v for v in network.nodes if v in chosen], learning)


def _columns(data) -> list | None:
    """The data's column names, where they can be read without encoding the data."""
    for attribute in ("columns", "names"):
        found = getattr(data, attribute, None)
        if found is not None:
            return [str(c) for c in found]
    return None


def _auto(data, blanket: bool) -> str:
    """:func:`auto_learner`'s choice for ``data`` (the local learner on a CI test or
    oracle, which has no rows to learn a network from)."""
    if hasattr(data, "shape") and len(getattr(data, "shape", ())) == 2:
        rows, columns = data.shape
    elif hasattr(data, "n_rows") and hasattr(data, "n_vars"):
        rows, columns = data.n_rows, data.n_vars
    elif hasattr(data, "test_indices"):  # a CI test or an oracle
        return "hiton_mb" if blanket else "hiton_pc"
    else:
        return "learn"
    return auto_learner(max(columns - 1, 1), rows, parents_and_children=not blanket)
