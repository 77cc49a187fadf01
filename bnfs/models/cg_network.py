"""Conditional-Gaussian networks with their parameters: a random generator and a forward
sampler, the ground truth for mixed-data tests and benchmarks.

A discrete node has only discrete parents and a probability table per parent
configuration; a continuous node is a linear regression on its continuous parents whose
intercept, coefficients and residual standard deviation depend on the configuration of its
discrete parents (the CG networks of Lauritzen & Wermuth 1989, as bnlearn fits them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bnfs._validate import check_allocation, check_int, check_seed
from bnfs.graphs.graph import DAG
from bnfs.models.network import sampling_bytes

__all__ = ["ConditionalGaussianNetwork", "random_cg_network"]


@dataclass(frozen=True)
class ConditionalGaussianNetwork:
    """A conditional-Gaussian network.

    Attributes
    ----------
    dag : DAG
    parents : dict of str to tuple of str
        Each node's parents in the order its table or regression lists them.
    levels : dict of str to int
        The number of levels of each discrete node (named in ``states``).
    tables : dict of str to numpy.ndarray
        Discrete nodes: shape (configurations of the parents, levels), rows summing to one.
    regressions : dict of str to numpy.ndarray
        Continuous nodes: shape (configurations of the discrete parents, 1 + continuous
        parents): the intercept, then one coefficient per continuous parent (in the order of
        ``dag.parents``).
    sd : dict of str to numpy.ndarray
        Continuous nodes: the residual standard deviation per configuration.
    states : dict of str to tuple of str
        Level names of the discrete nodes (default ``"s0"``, ``"s1"``, ...).
    name : str
    """

    dag: DAG
    parents: dict = field(default_factory=dict)
    levels: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    regressions: dict = field(default_factory=dict)
    sd: dict = field(default_factory=dict)
    states: dict = field(default_factory=dict)
    name: str = "network"

    def level_names(self, node: str) -> tuple[str, ...]:
        """The level names of a discrete node."""
        return self.states.get(node) or tuple(f"s{k}" for k in range(self.levels[node]))

    def discrete_parents(self, node: str) -> list[str]:
        """``node``'s discrete parents, in parent order."""
        return [p for p in self.parents[node] if p in self.levels]

    def continuous_parents(self, node: str) -> list[str]:
        """``node``'s continuous parents, in parent order."""
        return [p for p in self.parents[node] if p not in self.levels]

    def sample(self, n: int, seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
        """``n`` rows forward-sampled: categorical columns for the discrete nodes, float
        columns for the continuous ones, in the DAG's node order."""
        n = check_int(n, "n", 1)
        n_vars = self.dag.n_nodes
        check_allocation(
            sampling_bytes(n, n_vars) + 8.0 * n * max(self.levels.values(), default=1),
            f"sampling n={n} rows of {n_vars} variables",
            "lower n",
        )
        rng = np.random.default_rng(check_seed(seed))
        codes: dict[str, np.ndarray] = {}
        values: dict[str, np.ndarray] = {}
        for node in self.dag.topological_order():
            config = np.zeros(n, dtype=np.int64)
            for p in self.discrete_parents(node):
                config = config * self.levels[p] + codes[p]
            if node in self.levels:
                cumulative = np.cumsum(self.tables[node][config], axis=1)
                draw = rng.random(n)[:, None]
                codes[node] = np.minimum((draw > cumulative).sum(axis=1), self.levels[node] - 1)
            else:
                beta = self.regressions[node][config]
                mean = beta[:, 0].copy()
                for k, p in enumerate(self.continuous_parents(node)):
                    mean += beta[:, k + 1] * values[p]
                values[node] = mean + self.sd[node][config] * rng.standard_normal(n)
        columns = {}
        for node in self.dag.nodes:
            if node in self.levels:
                states = list(self.level_names(node))
                columns[node] = pd.Categorical.from_codes(codes[node], states)
            else:
                columns[node] = values[node]
        return pd.DataFrame(columns)


#: the most nodes :func:`random_cg_network` draws
MAX_NODES = 100_000


def random_cg_network(
    n_discrete: int = 15,
    n_continuous: int = 25,
    max_parents: int = 3,
    seed: int | np.random.Generator | None = 0,
) -> ConditionalGaussianNetwork:
    """A random conditional-Gaussian network whose arcs a few thousand rows can find.

    Nodes ``d1..`` (discrete, 2-4 levels) and ``c1..`` (continuous) are placed in a random
    order with the discrete ones ahead of any continuous node that could parent them; each
    node draws up to ``max_parents`` earlier parents (discrete nodes from discrete ones
    only). Tables come from a Dirichlet(0.5) (clearly different rows), coefficients are
    +-[0.5, 1.5], intercepts shift by N(0, 1.5^2) per discrete configuration, residual
    standard deviations are in [0.5, 1.5].

    Examples
    --------
    >>> net = random_cg_network(4, 6, seed=1)
    >>> frame = net.sample(100, seed=0)
    >>> frame.shape, sorted(frame.columns) == sorted(net.dag.nodes)
    ((100, 10), True)
    """
    n_discrete = check_int(n_discrete, "n_discrete", 0, maximum=MAX_NODES, what="nodes")
    n_continuous = check_int(n_continuous, "n_continuous", 0, maximum=MAX_NODES, what="nodes")
    if n_discrete + n_continuous > MAX_NODES:
        raise ValueError(
            f"n_discrete + n_continuous = {n_discrete + n_continuous:,} is more than the "
            f"{MAX_NODES:,} nodes a random network has here"
        )
    max_parents = check_int(max_parents, "max_parents", 0)
    if n_discrete + n_continuous < 1:
        raise ValueError("the network needs at least one node")
    rng = np.random.default_rng(check_seed(seed))
    discrete = [f"d{i + 1}" for i in range(n_discrete)]
    continuous = [f"c{i + 1}" for i in range(n_continuous)]
    # discrete nodes first in the order among themselves; continuous nodes anywhere after
    # the first discrete one, so discrete nodes have discrete ancestors only
    order = list(rng.permutation(discrete)) + list(rng.permutation(continuous))
    levels = {v: int(rng.integers(2, 5)) for v in discrete}
    arcs, parent_lists, tables, regressions, sd = [], {}, {}, {}, {}
    for i, node in enumerate(order):
        # the nodes before it may all be its parents: discrete nodes come first in the order
        k = int(rng.integers(0, min(max_parents, i) + 1)) if i else 0
        parents = [order[j] for j in sorted(rng.choice(i, k, replace=False))]
        arcs += [(p, node) for p in parents]
        parent_lists[node] = tuple(parents)
        q = int(np.prod([levels[p] for p in parents if p in levels], dtype=np.int64))
        if node in levels:
            tables[node] = rng.dirichlet(np.full(levels[node], 0.5), size=q)
        else:
            n_cont = sum(p not in levels for p in parents)
            beta = np.empty((q, 1 + n_cont))
            beta[:, 0] = rng.normal(0.0, 1.5, q)
            signs = rng.choice([-1.0, 1.0], n_cont)
            beta[:, 1:] = signs * rng.uniform(0.5, 1.5, n_cont)
            regressions[node] = beta
            sd[node] = rng.uniform(0.5, 1.5, q)
    dag = DAG(discrete + continuous, arcs)
    return ConditionalGaussianNetwork(dag, parent_lists, levels, tables, regressions, sd)
