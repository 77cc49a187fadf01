"""The registry of structure learners: one row per learner, read by everything that offers
a choice of learner (``bnfs learn/blanket/select`` on the command line, the
:class:`~bnfs.MarkovBlanketSelector`, :func:`~bnfs.boot_strength` and
:func:`~bnfs.blanket_frequency`, the frontends :func:`~bnfs.markov_blanket` and
:func:`~bnfs.neighbours`, the tests).

A row declares what the command line must know before any learner is imported: the
learner's name, what it returns (its kind) and whether it models continuous columns as
they are. The rest is read off the learner itself: the keyword options from its signature,
what it does with missing values from its door's declaration (``missing=``, see
:data:`bnfs._real_data.MISSING`). Those options are what callers check a user's options
against: an option a learner cannot honour is refused by name, never swallowed. The
learners are imported from the two rooms that export them (:mod:`bnfs.search`,
:mod:`bnfs.constraint`) on first use, so ``import bnfs`` and the command line start fast.

Adding a learner is one module plus one row here (see CONTRIBUTING.md).

Examples
--------
>>> from bnfs import learners
>>> learners.get("iamb_mb").kind
'blanket'
>>> "hiton_pc" in learners.names("neighbours")
True
>>> learners.get("hill_climbing").missing
'structural_em'
>>> learners.check_options("iamb_mb", {"max_parents": 2})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: iamb_mb does not take max_parents; it takes adjust_df, alpha, blacklist, ...
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from bnfs._vocabulary import TEST_OPTIONS

__all__ = ["Learner", "REGISTRY", "KINDS", "get", "names", "check_name", "check_options"]

#: what each kind of learner returns
KINDS = {
    "score": "a DAG, by a score-based search",
    "hybrid": "a DAG, by a score-based search restricted by CI tests",
    "constraint": "a PDAG (CPDAG), by CI tests",
    "blanket": "the target's Markov blanket (a list of names)",
    "neighbours": "the target's parents and children (a list of names)",
}


@dataclass(frozen=True)
class Learner:
    """One structure learner: its name, its kind (a key of :data:`KINDS`) and whether it
    takes continuous and mixed columns as they are (linear-Gaussian or conditional-Gaussian
    models, Fisher's z or mi_cg tests) rather than discretized."""

    name: str
    kind: str
    models_continuous: bool = True

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
        """The learner itself, imported on first use from the room that exports it."""
        from bnfs import constraint, search

        return getattr(search if self.name in search.__all__ else constraint, self.name)

    @property
    def local(self) -> bool:
        """Whether it learns around one target (``learner(data, target, ...)``)."""
        return self.kind in ("blanket", "neighbours")

    @property
    def seeded(self) -> bool:
        """Whether it takes a ``seed``."""
        return "seed" in self.options

    @property
    def missing(self) -> str:
        """What it does with an incomplete DataFrame, as its door declares (a key of
        :data:`bnfs._real_data.MISSING`): ``"available_cases"`` (the CI-test learners),
        ``"structural_em"`` (hill climbing, tabu search, BOSS and ``learn`` run inside it),
        ``"native"`` (structural EM itself, neighbourhood_mb) or ``"refuse"``."""
        return self.function.missing

    @property
    def takes_missing(self) -> bool:
        """Whether it learns from data with missing values."""
        return self.missing != "refuse"

    def __call__(self, data, *args, **options):
        check_options(self.name, options)
        return self.function(data, *args, **options)


#: name -> :class:`Learner`, in the order listings show them
REGISTRY: dict[str, Learner] = {
    row.name: row
    for row in (
        Learner("learn", "score"),
        Learner("hill_climbing", "score"),
        Learner("structural_em", "score"),
        Learner("tabu_search", "score"),
        Learner("sparse_candidate", "score"),
        Learner("boss", "score"),
        Learner("grasp", "score"),
        Learner("screen_based", "score", models_continuous=False),
        Learner("rsmax2", "hybrid"),
        Learner("mmhc", "hybrid"),
        Learner("h2pc", "hybrid"),
        Learner("pc_stable", "constraint"),
        Learner("tpda", "constraint", models_continuous=False),
        Learner("grow_shrink", "constraint"),
        Learner("iamb", "constraint"),
        Learner("inter_iamb", "constraint"),
        Learner("fast_iamb", "constraint"),
        Learner("grow_shrink_mb", "blanket"),
        Learner("iamb_mb", "blanket"),
        Learner("inter_iamb_mb", "blanket"),
        Learner("fast_iamb_mb", "blanket"),
        Learner("kiamb_mb", "blanket"),
        Learner("hiton_mb", "blanket"),
        Learner("mmmb", "blanket"),
        Learner("pcmb", "blanket"),
        Learner("neighbourhood_mb", "blanket"),
        Learner("hiton_pc", "neighbours"),
        Learner("mmpc", "neighbours"),
        Learner("hpc", "neighbours"),
    )
}


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


def check_name(name, *kinds: str, role: str = "learner", auto: bool = False) -> str:
    """``name`` if it names a learner of ``kinds`` (any learner without them; ``"auto"`` too
    with ``auto``), else a ValueError naming ``role``, the choices and the closest one: the
    one check of a learner's name, for every caller that offers a choice of learner."""
    from bnfs._validate import near_match  # here: the registry loads no data library

    choices = ("auto",) * auto + names(*kinds)
    if not isinstance(name, str) or name not in choices:
        raise ValueError(
            f"{role} must be one of {list(choices)}, got {name!r}{near_match(name, choices)}"
        )
    return name


def check_options(name: str, options: Mapping | Iterable[str]) -> None:
    """Refuse, by name, an option learner ``name`` does not take."""
    entry = get(name)
    unknown = sorted(set(options) - entry.options)
    if unknown:
        raise ValueError(
            f"{name} does not take {unknown[0]}; it takes {', '.join(sorted(entry.options))}"
        )
