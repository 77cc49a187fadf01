"""The registry of structure learners: one entry per learner, read by everything that offers
a choice of learner (``bnfs learn/blanket/select`` on the command line, the
:class:`~bnfs.MarkovBlanketSelector`, :func:`~bnfs.boot_strength` and
:func:`~bnfs.blanket_frequency`, the tests).

An entry says where the function lives (imported on first use, so ``import bnfs`` stays
cheap) and what it returns; the keyword options it takes are read off the function's
signature. Those options are what callers check a user's options against: an option a
learner cannot honour is refused by name, never swallowed.

Adding a learner is one module plus one line here (see CONTRIBUTING.md).

Examples
--------
>>> from bnfs import learners
>>> learners.get("iamb_mb").kind
'blanket'
>>> "hiton_pc" in learners.names("neighbours")
True
>>> learners.check_options("iamb_mb", {"max_parents": 2})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: iamb_mb does not take max_parents; it takes adjust_df, alpha, blacklist, ...
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from bnfs._vocabulary import TEST_OPTIONS
from bnfs.graphs.local import LocalResult

__all__ = [
    "Learner",
    "REGISTRY",
    "KINDS",
    "get",
    "names",
    "check_options",
    "markov_blanket",
    "neighbours",
    "auto_learner",
    "AUTO_NETWORK_WORK",
]

#: what each kind of learner returns
KINDS = {
    "score": "a DAG, by a score-based search",
    "hybrid": "a DAG, by a score-based search restricted by CI tests",
    "constraint": "a PDAG (CPDAG), by CI tests",
    "blanket": "the target's Markov blanket (a list of names)",
    "neighbours": "the target's parents and children (a list of names)",
}
#: learners that count contingency tables only: continuous columns must be discretized
DISCRETE_ONLY = frozenset({"screen_based", "tpda"})
#: score-based learners that, given incomplete data, run inside structural EM
#: (:func:`bnfs.structural_em`), and the search structural EM then maximizes
STRUCTURAL_EM_SEARCH = {
    "learn": "learn",
    "boss": "boss",
    "hill_climbing": "hill_climbing",
    "tabu_search": "tabu_search",
}


@dataclass(frozen=True)
class Learner:
    """One structure learner: its name, module and kind (a key of :data:`KINDS`)."""

    name: str
    module: str
    kind: str

    @functools.cached_property
    def options(self) -> frozenset[str]:
        """The keyword options it takes besides ``data`` (and ``target`` for local
        learners), read off its signature; a learner with ``**test_options`` passes
        :data:`bnfs._vocabulary.TEST_OPTIONS` on to its CI test. Imports the learner's module."""

        parameters = inspect.signature(self.function).parameters.values()
        named = {p.name for p in parameters if p.kind is not p.VAR_KEYWORD}
        if any(p.kind is p.VAR_KEYWORD for p in parameters):
            named |= set(TEST_OPTIONS)
        return frozenset(named - {"data", "target"})

    @property
    def function(self) -> Callable:
        """The learner itself, imported on first use."""
        return getattr(importlib.import_module(self.module), self.name)

    @property
    def local(self) -> bool:
        """Whether it learns around one target (``learner(data, target, ...)``)."""
        return self.kind in ("blanket", "neighbours")

    @property
    def seeded(self) -> bool:
        """Whether it takes a ``seed``."""
        return "seed" in self.options

    @property
    def models_continuous(self) -> bool:
        """Whether it takes continuous and mixed columns as they are (linear-Gaussian or
        conditional-Gaussian models, Fisher's z or mi_cg tests) rather than discretized."""
        return self.name not in DISCRETE_ONLY

    @property
    def takes_missing(self) -> bool:
        """Whether it learns from data with missing values: the CI-test learners by
        available-case tests, hill climbing, tabu search and ``learn`` by structural EM."""
        return (
            self.kind in ("constraint", "blanket", "neighbours")
            or self.name in STRUCTURAL_EM_SEARCH
            or self.name == "structural_em"
        )

    def __call__(self, data, *args, **options):
        check_options(self.name, options)
        return self.function(data, *args, **options)


def _entry(name: str, module: str, kind: str) -> tuple[str, Learner]:
    return name, Learner(name, f"bnfs.{module}", kind)


#: name -> :class:`Learner`, in the order listings show them
REGISTRY: dict[str, Learner] = dict(
    [
        _entry("learn", "search.automatic", "score"),
        _entry("hill_climbing", "search.hill_climbing", "score"),
        _entry("structural_em", "search.structural_em", "score"),
        _entry("tabu_search", "search.hill_climbing", "score"),
        _entry("sparse_candidate", "search.sparse_candidate", "score"),
        _entry("boss", "search.boss", "score"),
        _entry("grasp", "search.grasp", "score"),
        _entry("screen_based", "search.screen_based", "score"),
        _entry("rsmax2", "search.hybrid", "hybrid"),
        _entry("mmhc", "search.hybrid", "hybrid"),
        _entry("h2pc", "search.hybrid", "hybrid"),
        _entry("pc_stable", "constraint.pc", "constraint"),
        _entry("tpda", "constraint.tpda", "constraint"),
        _entry("grow_shrink", "constraint.blanket_networks", "constraint"),
        _entry("iamb", "constraint.blanket_networks", "constraint"),
        _entry("inter_iamb", "constraint.blanket_networks", "constraint"),
        _entry("fast_iamb", "constraint.blanket_networks", "constraint"),
        _entry("grow_shrink_mb", "constraint.markov_blanket", "blanket"),
        _entry("iamb_mb", "constraint.markov_blanket", "blanket"),
        _entry("inter_iamb_mb", "constraint.markov_blanket", "blanket"),
        _entry("fast_iamb_mb", "constraint.markov_blanket", "blanket"),
        _entry("kiamb_mb", "constraint.markov_blanket", "blanket"),
        _entry("hiton_mb", "constraint.parents_children", "blanket"),
        _entry("mmmb", "constraint.parents_children", "blanket"),
        _entry("pcmb", "constraint.parents_children", "blanket"),
        _entry("neighbourhood_mb", "search.neighbourhood", "blanket"),
        _entry("hiton_pc", "constraint.parents_children", "neighbours"),
        _entry("mmpc", "constraint.parents_children", "neighbours"),
        _entry("hpc", "constraint.hpc", "neighbours"),
    ]
)


def get(name) -> Learner:
    """The registry entry of ``name``, or a ValueError listing the learners."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown learner {name!r}; the learners are {', '.join(REGISTRY)}"
        ) from None


def names(*kinds: str) -> tuple[str, ...]:
    """The learners of the given kinds (every learner without one), in registry order."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown kind {unknown[0]!r}; the kinds are {', '.join(KINDS)}")
    return tuple(n for n, entry in REGISTRY.items() if not kinds or entry.kind in kinds)


def check_options(name: str, options: Mapping | Iterable[str]) -> None:
    """Refuse, by name, an option learner ``name`` does not take."""
    entry = get(name)
    unknown = sorted(set(options) - entry.options)
    if unknown:
        raise ValueError(
            f"{name} does not take {unknown[0]}; it takes {', '.join(sorted(entry.options))}"
        )


#: the largest whole network (features squared times rows) from which ``learner="auto"``
#: reads the class's blanket, learned by :func:`bnfs.learn` (BOSS under BDeu with more
#: starts, the most accurate network bnfs learns); past it the blanket in learn's network
#: on the class's neighbourhood (:func:`bnfs.search.neighbourhood_mb`), whose cost grows with the
#: neighbourhood. learn's seconds on samples of pgmpy's networks, five starts: alarm 5,000
#: rows (7e6) 2.5 s, win95pts 5,000 (3e7) 9 s, andes 1,000 (5e7) 14 s, pigs 1,000 (2e8)
#: 25-40 s. Blanket F1 (``benchmarks/blanket_quality.py``, six networks, 144 targets):
#: 0.894 against hill climbing's 0.820, HITON-MB's 0.835 and neighbourhood_mb's 0.831; on
#: planted wide data (500 rows, 10,000 features, three seeds) neighbourhood_mb 0.96 and
#: HITON-MB 0.84 (false spouses among the thousands of candidates)
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
    local = "blanket" if blanket else "neighbours"
    networks = names("score", "hybrid", "constraint")
    if method == "auto":
        method = _auto(data, blanket)
    if not isinstance(method, str) or method not in (*names(local), *networks):
        raise ValueError(
            f"method must be 'auto', one of {list(names(local))} or a network learner "
            f"({', '.join(networks)}), got {method!r}"
        )
    entry = get(method)
    check_options(method, options)
    if entry.local:
        found = entry.function(data, target, **options)
        found.learning["method"] = method
        return found
    columns = _columns(data)
    if columns is not None and target not in columns:
        raise ValueError(f"target {target!r} is not a column of the data")
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
