"""The registry of feature selectors: one row per selector, read by everything that offers
a choice of selector (``bnfs select --method``, the package's exports, the docs' table, the
tests).

A row says what must be known before the selector is imported: the name the command line
gives it, the class and the module that defines it, and one line on what it keeps. The rest
is read off the class itself: its parameters (``learner`` means it reads a learned network
and takes the learner's options; ``discretizer`` and ``n_bins`` that it cuts continuous
features; ``random_state``, ``n_jobs``, ``progress`` and ``max_time`` are passed when the
caller has them) and whether it takes missing values (scikit-learn's ``allow_nan`` tag).
An option a selector does not take is refused by name, never swallowed.

Adding a selector is one module plus one row here (see CONTRIBUTING.md).

Examples
--------
>>> from bnfs.select import registry
>>> registry.get("fcbf").cls
'FCBF'
>>> "discretizer" in registry.get("fcbf").options, "learner" in registry.get("fcbf").options
(True, False)
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from importlib import import_module

__all__ = ["Selector", "SELECTORS", "get", "names"]


@dataclass(frozen=True)
class Selector:
    """One feature selector: its command-line name, its class's name, the module of
    :mod:`bnfs.select` that defines it, and what it keeps (one line)."""

    name: str
    cls: str
    module: str
    summary: str

    @property
    def estimator(self) -> type:
        """The selector's class, imported on first use."""
        return getattr(import_module(f"bnfs.select.{self.module}"), self.cls)

    @functools.cached_property
    def options(self) -> frozenset[str]:
        """The parameters of its constructor."""
        return frozenset(inspect.signature(self.estimator).parameters)

    @property
    def learns_network(self) -> bool:
        """Whether it reads a learned network or local structure (takes ``learner`` and
        the learner's options)."""
        return "learner" in self.options

    @property
    def discretizes(self) -> bool:
        """Whether it cuts continuous features into bins (takes ``discretizer``)."""
        return "discretizer" in self.options

    @property
    def takes_missing(self) -> bool:
        """Whether it fits on features with missing values (scikit-learn's ``allow_nan``)."""
        return bool(self.estimator().__sklearn_tags__().input_tags.allow_nan)


#: name -> :class:`Selector`, in the order listings show them
SELECTORS: dict[str, Selector] = {
    row.name: row
    for row in (
        Selector(
            "markov_blanket",
            "MarkovBlanketSelector",
            "markov_blanket",
            "the class's Markov blanket in a learned network, or by a local learner",
        ),
        Selector(
            "hsmb",
            "HSMB",
            "hsmb",
            "HSIC-based Markov blanket: kernel dependence tests, no discretizing",
        ),
        Selector("bahsic", "BAHSIC", "bahsic", "backward elimination by HSIC"),
        Selector(
            "srs",
            "SRS",
            "srs",
            "representative sets and a sparse group lasso (data need not be faithful)",
        ),
        Selector(
            "slfs",
            "SLFS",
            "slfs",
            "the features of a tree-structured Bayesian network classifier",
        ),
        Selector(
            "stable_blanket",
            "StableBlanketSelector",
            "stable_blanket",
            "the features in the class's Markov blanket on most resamples (stability selection)",
        ),
        Selector("hybrid", "HybridSelector", "hybrid", "FCBF, then a causal learner"),
        Selector("fcbf", "FCBF", "fcbf", "fast correlation-based filter"),
        Selector("cfs", "CFS", "cfs", "correlation-based feature subset search"),
        Selector(
            "information_gain",
            "InformationGain",
            "information_gain",
            "the features with the most mutual information with the class",
        ),
    )
}


def get(name) -> Selector:
    """The registry entry of ``name``, or a ValueError listing the selectors."""
    try:
        return SELECTORS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown selector {name!r}; the selectors are {', '.join(SELECTORS)}"
        ) from None


def names() -> tuple[str, ...]:
    """The selectors' names, in registry order."""
    return tuple(SELECTORS)
