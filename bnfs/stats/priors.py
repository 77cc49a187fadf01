"""Graph priors of the Bayesian scores (bde, bge), bnlearn's four (``prior=`` of its scores):

- ``"uniform"``: every DAG alike (log-prior 0);
- ``"vsp"``, the variable-selection prior: each possible parent present with probability
  ``beta`` (default 1 / (n - 1), at most 1/2: over two nodes 1 / (n - 1) would make the
  arc certain, and bnlearn refuses its own default there; bnfs then scores as bnlearn
  with ``beta=0.5``, tested), log(beta / (1 - beta)) per arc;
- ``"marginal"``, the marginal uniform prior (Scutari 2013): each pair of nodes joined with
  probability ``beta`` (default 0.5), half of it per direction;
- ``"cs"``, Castelo & Siebes's prior: beliefs about single arcs, ``beta`` given as
  (from, to, probability) rows; a pair with one direction given gets (1 - p) / 2 for the
  other direction and for no arc, a pair not given 1/3 each.

Each pair of nodes contributes log(p(state) / (1/3)), so pairs nobody spoke about add 0, as
in bnlearn. That is one weight per arc, log p(u -> v) - log p(no arc), plus a constant: the
searches add the weights of a node's parents to its local score and the constant to the
total. When learning, bnlearn shrinks "cs" probabilities of 0 or 1 a hair toward 1/3 (else a
search could never leave them) and so does bnfs; :func:`bnfs.score` does not.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from bnfs._validate import arc_list
from bnfs._vocabulary import graph_prior_scores

__all__ = ["GRAPH_PRIORS", "BAYESIAN_SCORES", "GraphPrior", "graph_prior"]

#: bnlearn's graph priors
GRAPH_PRIORS = ("uniform", "vsp", "marginal", "cs")
#: the scores a graph prior applies to (bnlearn's Bayesian scores that bnfs has)
BAYESIAN_SCORES = graph_prior_scores()
#: bnlearn's MACHINE_TOL: how far "cs" probabilities of 0 and 1 are moved when learning
SHRINK = math.sqrt(np.finfo(float).eps)
_THIRD = math.log(1.0 / 3.0)


def _log(p: float) -> float:
    return math.log(p) if p > 0 else -math.inf


class GraphPrior:
    """A graph prior over DAGs on ``names``: per-arc log-weights and a constant.

    Attributes
    ----------
    name : str
        One of :data:`GRAPH_PRIORS`.
    beta : float or None
        The vsp or marginal probability (None for uniform and cs).
    per_arc : float
        The log-weight every arc adds (vsp, marginal; 0 otherwise).
    pairs : dict
        For "cs": ``{(i, j): (p(i -> j), p(j -> i))}`` over column indices ``i < j``, completed
        as bnlearn completes them.
    given : list
        For "cs": the (from, to, probability) rows as given.
    """

    def __init__(self, name: str, names: Sequence[str], beta=None, pairs=None, given=()):
        self.name = name
        self.names = list(names)
        self.beta = beta
        self.pairs: dict[tuple[int, int], tuple[float, float]] = pairs or {}
        self.given = list(given)
        n = len(self.names)
        if name == "vsp":
            self.per_arc = math.log(beta / (1.0 - beta))
        elif name == "marginal":
            self.per_arc = math.log(beta / 2.0) - math.log(1.0 - beta)
        else:
            self.per_arc = 0.0
        self._constant = (
            n * (n - 1) / 2 * (math.log(1.0 - beta) - _THIRD) if name == "marginal" else 0.0
        )

    def argument(self):
        """``beta`` as the learners record it: the probability, the given arcs or None."""
        return [list(row) for row in self.given] if self.name == "cs" else self.beta

    @property
    def is_uniform(self) -> bool:
        """Whether it gives every graph the same prior (vsp at beta 0.5 does)."""
        return self.name == "uniform" or (self.name == "vsp" and self.beta == 0.5)

    def _pair(self, key, learning: bool) -> tuple[float, float, float]:
        """(p(i -> j), p(j -> i), p(no arc)) of a "cs" pair."""
        forward, backward = self.pairs[key]
        none = 1.0 - forward - backward
        if learning and any(p < SHRINK or p > 1 - SHRINK for p in (forward, backward, none)):
            forward = (1 - 3 * SHRINK) * forward + SHRINK
            backward = (1 - 3 * SHRINK) * backward + SHRINK
            none = 1.0 - forward - backward
        return forward, backward, max(0.0, none)

    def weights(self, learning: bool = True) -> np.ndarray:
        """The log-weight of each arc ``[u, v]`` for the compiled searches: a 1-by-1 array
        when every arc weighs the same, else n-by-n."""
        if self.name != "cs" or not self.pairs:
            return np.full((1, 1), self.per_arc)
        n = len(self.names)
        table = np.zeros((n, n))
        for i, j in self.pairs:
            forward, backward, none = self._pair((i, j), learning)
            table[i, j] = _log(forward) - _log(none)
            table[j, i] = _log(backward) - _log(none)
        if learning and not np.isfinite(table).all():  # shrunk probabilities are all > 0
            raise AssertionError("a cs prior weight is not finite when learning")
        return table

    def constant(self, learning: bool = True) -> float:
        """What the prior adds to a graph's total beyond its arcs' weights."""
        if self.name != "cs":
            return self._constant
        return sum(_log(self._pair(k, learning)[2]) - _THIRD for k in self.pairs)

    def shrinking(self, parents: Mapping[int, Sequence[int]]) -> float:
        """What the searches' prior (``learning=True``: certainties shrunk a hair toward 1/3)
        adds to the score of the DAG given by ``parents`` beyond the exact prior: subtract it
        from a search's total to get the score :func:`bnfs.score` gives (``-inf`` when the
        DAG has a state of probability 0)."""
        if self.name != "cs":
            return 0.0
        return self.log_prior(parents, learning=True) - self.log_prior(parents, learning=False)

    def log_prior(self, parents: Mapping[int, Sequence[int]], learning: bool = False) -> float:
        """The log-prior of a DAG given by each node's parents (column indices), as bnlearn
        adds it to a network score (pairs with a probability of 0 give -inf)."""
        arcs = {(u, v) for v, pa in parents.items() for u in pa}
        if self.name != "cs":
            return len(arcs) * self.per_arc + self._constant
        total = 0.0
        for i, j in self.pairs:
            forward, backward, none = self._pair((i, j), learning)
            p = forward if (i, j) in arcs else backward if (j, i) in arcs else none
            total += _log(p) - _THIRD
        return total


def _probability(value, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise ValueError(f"{what} must be a probability, got {value!r}")
    value = float(value)
    if not 0 <= value <= 1:
        raise ValueError(f"{what} must be a probability, got {value!r}")
    return value


def _cs_rows(beta, names: Sequence[str]) -> list[tuple[str, str, float]]:
    """(from, to, probability) rows of a "cs" beta: a DataFrame with columns from, to and
    prob (bnlearn's form; bnlearn refuses them in another order, bnfs reads them by name,
    tested against bnlearn-port), a mapping {(from, to): probability} or (from, to,
    probability) triples."""
    if beta is None:
        return []
    columns = getattr(beta, "columns", None)
    if columns is not None:
        if sorted(map(str, columns)) != ["from", "prob", "to"]:
            raise ValueError(
                "beta for prior='cs' must have the columns 'from', 'to' and 'prob', "
                f"got {list(columns)}"
            )
        rows = list(beta[["from", "to", "prob"]].itertuples(index=False, name=None))
    elif isinstance(beta, Mapping):
        rows = [(*arc, p) if isinstance(arc, tuple) else (arc, p) for arc, p in beta.items()]
    elif isinstance(beta, (str, bytes)) or not hasattr(beta, "__iter__"):
        raise TypeError(
            "beta for prior='cs' must be a DataFrame (from, to, prob), a mapping "
            f"{{(from, to): prob}} or (from, to, prob) triples, got {type(beta).__name__}"
        )
    else:
        rows = [tuple(row) if not isinstance(row, str) else (row,) for row in beta]
    for row in rows:
        if len(row) != 3:
            raise ValueError(f"each arc of beta for prior='cs' is (from, to, prob), got {row!r}")
    arcs = arc_list([row[:2] for row in rows], "beta for prior='cs'", names)
    return [
        (u, v, _probability(row[2], f"the prior probability of {u!r} -> {v!r}"))
        for (u, v), row in zip(arcs, rows)
    ]


def _completed(rows, names: Sequence[str]) -> dict[tuple[int, int], tuple[float, float]]:
    """Castelo & Siebes's completion as bnlearn does it (``castelo_completion``): per pair
    ``i < j`` (column order), (p(i -> j), p(j -> i)); a direction not given is (1 - p) / 2;
    sums above 1 by less than 0.01 are rescaled to 1, larger ones refused.

    bnlearn rescales the forward probability first and the backward one by the new sum,
    which leaves the pair's sum above 1: p(no arc) comes out negative, and every score it
    enters is NaN. bnfs divides both by the same sum, so that no arc is left with
    probability 0 (and, when learning, a hair above it)."""
    place = {v: k for k, v in enumerate(names)}
    given: dict[tuple[int, int], dict[tuple[int, int], float]] = {}
    for u, v, p in rows:
        i, j = place[u], place[v]
        arcs = given.setdefault((min(i, j), max(i, j)), {})
        if (i, j) in arcs:
            raise ValueError(f"beta for prior='cs' gives {u!r} -> {v!r} twice")
        arcs[i, j] = p
    pairs = {}
    for (i, j), arcs in given.items():
        if len(arcs) == 2:
            forward, backward = arcs[i, j], arcs[j, i]
        elif (i, j) in arcs:
            forward = arcs[i, j]
            backward = (1 - forward) / 2
        else:
            backward = arcs[j, i]
            forward = (1 - backward) / 2
        if forward + backward > 1:
            if forward + backward >= 1.01:
                raise ValueError(
                    f"the prior probabilities of {names[i]!r} -> {names[j]!r} and back sum "
                    f"to {forward + backward:g}, more than 1"
                )
            total = forward + backward  # both by the same sum, so that p(no arc) >= 0
            forward, backward = forward / total, min(backward / total, 1.0 - forward / total)
        pairs[i, j] = (forward, backward)
    return pairs


def graph_prior(score: str, prior: str, beta, names: Sequence[str]) -> GraphPrior:
    """The validated graph ``prior`` (with ``beta``) of ``score`` over DAGs on ``names``.
    Only the Bayesian scores (bde, bds, bge) take one, as in bnlearn."""
    if not isinstance(prior, str) or prior not in GRAPH_PRIORS:
        raise ValueError(f"prior must be one of {GRAPH_PRIORS}, got {prior!r}")
    if prior == "uniform":
        if beta is not None:
            raise ValueError("beta applies to prior='vsp', 'marginal' or 'cs' only")
        return GraphPrior("uniform", names)
    if score not in BAYESIAN_SCORES:
        raise ValueError(
            f"prior={prior!r} applies to the Bayesian scores {', '.join(BAYESIAN_SCORES)}, "
            f"not {score!r}"
        )
    if prior == "cs":
        rows = _cs_rows(beta, names)
        return GraphPrior("cs", names, pairs=_completed(rows, names), given=rows)
    if beta is None:
        beta = min(0.5, 1.0 / max(len(names) - 1, 1)) if prior == "vsp" else 0.5
    if (
        isinstance(beta, (bool, np.bool_))
        or not isinstance(beta, (int, float, np.integer, np.floating))
        or not 0 < beta < 1
    ):
        raise ValueError(f"beta must be a probability in (0, 1), got {beta!r}")
    return GraphPrior(prior, names, beta=float(beta))
