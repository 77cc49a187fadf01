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

__all__ = ["Learner", "REGISTRY", "KINDS", "get", "names", "check_options"]

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
        :data:`bnfs.stats.citests.TEST_OPTIONS` on to its CI test. Imports the learner's module."""
        from bnfs.stats.citests import TEST_OPTIONS

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
        _entry("hiton_mb", "constraint.markov_blanket", "blanket"),
        _entry("mmmb", "constraint.markov_blanket", "blanket"),
        _entry("pcmb", "constraint.markov_blanket", "blanket"),
        _entry("neighbourhood_mb", "search.neighbourhood", "blanket"),
        _entry("hiton_pc", "constraint.markov_blanket", "neighbours"),
        _entry("mmpc", "constraint.markov_blanket", "neighbours"),
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
