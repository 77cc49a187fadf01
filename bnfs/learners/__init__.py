"""Structure learners by name: the registry (:mod:`bnfs.learners.registry`) that every
choice of learner reads, and the frontends :func:`markov_blanket` and :func:`neighbours`
(:mod:`bnfs.learners.frontends`)."""

from bnfs.learners.frontends import AUTO_NETWORK_WORK, auto_learner, markov_blanket, neighbours
from bnfs.learners.registry import (
    KINDS,
    REGISTRY,
    Learner,
    check_name,
    check_options,
    get,
    names,
)

__all__ = [
    "Learner",
    "REGISTRY",
    "KINDS",
    "get",
    "names",
    "check_name",
    "check_options",
    "markov_blanket",
    "neighbours",
    "auto_learner",
    "AUTO_NETWORK_WORK",
]
