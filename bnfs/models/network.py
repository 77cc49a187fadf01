"""A discrete Bayesian network (DAG + conditional probability tables): BIF I/O and sampling.

This is what :mod:`bnfs.datasets` reads the classic networks into; its :meth:`sample`
draws reproducible data with vectorized forward sampling (no per-row Python loop).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from bnfs._validate import check_allocation, check_seed
from bnfs.graphs.graph import DAG

__all__ = [
    "DiscreteNetwork",
    "conditional_tables",
    "check_table_size",
    "MAX_TABLE_CELLS",
    "pgmpy_model_class",
]


def pgmpy_model_class():
    """pgmpy's discrete network class (renamed from ``BayesianNetwork`` in pgmpy 1.0)."""
    try:
        from pgmpy.models import DiscreteBayesianNetwork
    except ImportError:  # pgmpy < 1.0
        from pgmpy.models import BayesianNetwork as DiscreteBayesianNetwork
    return DiscreteBayesianNetwork


def sampling_bytes(n: int, n_vars: int) -> float:
    """Memory that forward sampling ``n`` rows of ``n_vars`` variables takes: int64 codes
    per variable and a few per-row temporaries."""
    return float(n) * (8 * n_vars + 48)


def conditional_tables(
    dag: DAG, data, nodes, pseudo_count: float = 0.0, prior_size: float = 0.0
) -> dict[str, np.ndarray]:
    """The tables of the discrete ``nodes`` of ``dag`` counted in ``data`` (a Dataset; a
    weighted row counts its weight), shape (parent arities..., arity), with
    ``pseudo_count`` per cell plus ``prior_size`` spread over the cells; unseen parent
    configurations are uniform. The nodes' parents must be discrete; constant columns set
    aside by the data are one-state nodes."""
    from bnfs.tables._data import Dataset

    if not isinstance(dag, DAG):
        raise TypeError(f"dag must be a bnfs.DAG, got {type(dag).__name__}")
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a bnfs.Dataset, got {type(data).__name__}")
    nodes = list(nodes) if not isinstance(nodes, str) else [nodes]
    unknown = [v for v in nodes if v not in dag]
    if unknown:
        raise ValueError(f"nodes {unknown[:10]} are not nodes of the DAG")
    for value, what in ((pseudo_count, "pseudo_count"), (prior_size, "prior_size")):
        if not value >= 0:
            raise ValueError(f"{what} must be >= 0, got {value}")

    def arity(u: str) -> int:
        return 1 if u in data.isolated else data.arity(u)

    cpts = {}
    for v in nodes:
        parents = dag.parents(v)
        shape = tuple(arity(p) for p in parents) + (arity(v),)
        check_table_size(v, shape)
        index = np.zeros(data.n_rows, dtype=np.int64)
        for u in (*parents, v):
            if u not in data.isolated:  # a one-state node adds nothing to the index
                index = index * arity(u) + data.column(u)
        cells = int(np.prod(shape))
        # a row of weight w counts w times (Dataset.with_weights)
        counts = np.bincount(index, weights=data.weights, minlength=cells).reshape(shape)
        counts = counts + float(pseudo_count) + float(prior_size) / cells
        totals = counts.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            cpts[v] = np.where(
                totals > 0, counts / np.where(totals > 0, totals, 1), 1.0 / shape[-1]
            )
    return cpts


class DiscreteNetwork:
    """A DAG over discrete variables with one conditional probability table per node.

    Parameters
    ----------
    dag : DAG
    states : mapping of str to sequence
        Level names of each node: ``states`` holds them as text (BIF, reports), and
        ``state_values`` as given (an integer column's 0 and 1), which pgmpy's evidence
        matches (:meth:`to_pgmpy`).
    cpts : mapping of str to numpy.ndarray
        ``cpts[v]`` has shape ``(arity of p1, ..., arity of pk, arity of v)`` with
        parents ``p1..pk`` as listed by ``dag.parents(v)``; each last-axis slice sums to 1.
    name : str, optional

    Raises
    ------
    ValueError
        Missing states or tables, wrong table shapes, rows that are not distributions.

    Examples
    --------
    >>> from bnfs import datasets
    >>> datasets.network_model("asia")
    DiscreteNetwork('asia', 8 nodes, 8 arcs)
    """

    def __init__(self, dag: DAG, states: Mapping, cpts: Mapping, name: str = "network"):
        if not isinstance(dag, DAG):
            raise TypeError(f"dag must be a bnfs.DAG, got {type(dag).__name__}")
        self.dag = dag
        self.name = name
        self.states = {v: tuple(str(s) for s in states[v]) for v in dag.nodes if v in states}
        # the levels as the data spelled them (an integer column's 0 and 1, not '0' and
        # '1'), for pgmpy, whose evidence is matched by value
        self.state_values = {
            v: tuple(s.item() if isinstance(s, np.generic) else s for s in states[v])
            for v in self.states
        }
        missing = [v for v in dag.nodes if v not in self.states]
        if missing:
            raise ValueError(f"no states for nodes {missing[:10]}")
        self.cpts: dict[str, np.ndarray] = {}
        for v in dag.nodes:
            if v not in cpts:
                raise ValueError(f"no probability table for node {v!r}")
            table = np.asarray(cpts[v], dtype=np.float64)
            shape = tuple(len(self.states[p]) for p in dag.parents(v)) + (len(self.states[v]),)
            if table.shape != shape:
                raise ValueError(
                    f"table of {v!r} has shape {table.shape}, expected {shape} "
                    f"(parents {dag.parents(v)})"
                )
            if (table < 0).any() or not np.allclose(table.sum(axis=-1), 1.0, atol=1e-6):
                raise ValueError(f"table of {v!r} has rows that are not probability distributions")
            self.cpts[v] = table

    @classmethod
    def fit(
        cls,
        dag: DAG,
        data,
        pseudo_count: float = 0.0,
        name: str = "network",
        *,
        prior_size: float = 0.0,
    ) -> DiscreteNetwork:
        """Estimate the tables of ``dag`` from discrete data.

        Maximum likelihood when ``pseudo_count`` and ``prior_size`` are 0; otherwise each
        cell gets ``pseudo_count`` plus ``prior_size`` spread evenly over the table's cells
        (the posterior mean under BDeu's Dirichlet prior of imaginary sample size
        ``prior_size``: bnlearn's ``bn.fit(method="bayes", iss=prior_size)``). Parent
        configurations never seen in the data get a uniform distribution. A constant
        column the data set aside (``Dataset(..., constant="isolate")``, as the learners
        do) is a one-state node.
        """
        from bnfs.tables._data import as_dataset

        if hasattr(data, "columns") and not hasattr(data, "codes"):  # a frame: every node's
            present = {str(c) for c in data.columns}  # column is discrete here
            data = as_dataset(data, discrete=[v for v in dag.nodes if v in present])
        data = as_dataset(data)
        data.require_discrete("DiscreteNetwork.fit")
        missing = [v for v in dag.nodes if v not in data and v not in data.isolated]
        if missing:
            raise ValueError(f"nodes {missing[:10]} are not columns of the data")
        cpts = conditional_tables(dag, data, dag.nodes, pseudo_count, prior_size)
        states = {
            v: (data.isolated[v],) if v in data.isolated else tuple(data.states[v])
            for v in dag.nodes
        }
        return cls(dag, states, cpts, name=name)

    def __repr__(self) -> str:
        return f"DiscreteNetwork({self.name!r}, {self.dag.n_nodes} nodes, {self.dag.n_arcs} arcs)"

    @property
    def n_parameters(self) -> int:
        """Free parameters: sum over nodes of (arity - 1) x parent configurations."""
        return int(sum(t.size // t.shape[-1] * (t.shape[-1] - 1) for t in self.cpts.values()))

    def sample(self, n: int, seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
        """Draw ``n`` rows by forward sampling, reproducible for a given ``seed``.

        Returns a DataFrame of categorical columns (all declared levels as categories), in
        node order.

        Examples
        --------
        >>> from bnfs import datasets
        >>> frame = datasets.network_model("asia").sample(5, seed=1)
        >>> frame.shape, frame.equals(datasets.network_model("asia").sample(5, seed=1))
        ((5, 8), True)
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        n_vars = self.dag.n_nodes
        check_allocation(
            sampling_bytes(n, n_vars), f"sampling n={n} rows of {n_vars} variables", "lower n"
        )
        rng = check_seed(seed)
        codes: dict[str, np.ndarray] = {}
        for v in self.dag.topological_order():
            table = self.cpts[v]
            parents = self.dag.parents(v)
            config = np.zeros(n, dtype=np.int64)
            for p in parents:
                config = config * len(self.states[p]) + codes[p]
            cumulative = np.cumsum(table.reshape(-1, table.shape[-1]), axis=1)
            cumulative[:, -1] = 1.0
            draws = rng.random(n)
            # one searchsorted per parent configuration present, all rows at once
            out = np.empty(n, dtype=np.int64)
            if parents:
                order = np.argsort(config, kind="stable")
                bounds = np.flatnonzero(np.diff(config[order])) + 1
                for block in np.split(order, bounds):
                    out[block] = np.searchsorted(
                        cumulative[config[block[0]]], draws[block], side="right"
                    )
            else:
                out[:] = np.searchsorted(cumulative[0], draws, side="right")
            codes[v] = np.minimum(out, table.shape[-1] - 1)
        return pd.DataFrame(
            {
                v: pd.Categorical.from_codes(codes[v], categories=list(self.states[v]))
                for v in self.dag.nodes
            }
        )

    def to_pgmpy(self):
        """A pgmpy ``DiscreteBayesianNetwork`` with these tables."""
        from pgmpy.factors.discrete import TabularCPD

        model = pgmpy_model_class()(self.dag.arcs)
        model.add_nodes_from(self.dag.nodes)
        for v in self.dag.nodes:
            parents = self.dag.parents(v)
            table = self.cpts[v]
            values = table.reshape(-1, table.shape[-1]).T
            model.add_cpds(
                TabularCPD(
                    v,
                    table.shape[-1],
                    values,
                    evidence=parents or None,
                    evidence_card=[len(self.states[p]) for p in parents] or None,
                    state_names={u: list(self.state_values[u]) for u in [v, *parents]},
                )
            )
        return model


#: most cells of one conditional probability table (1 GiB of float64)
MAX_TABLE_CELLS = 1 << 27


def check_table_size(node: str, shape, prefix: str = "") -> None:
    """Refuse, before allocating, a table of ``node`` with more than MAX_TABLE_CELLS cells."""
    cells = math.prod(int(k) for k in shape)
    if cells > MAX_TABLE_CELLS:
        raise ValueError(
            f"{prefix}the table of {node!r} ({' x '.join(map(str, shape))}) has "
            f"{cells:,} cells, more than the {MAX_TABLE_CELLS:,} bnfs holds in "
            "memory; fewer parents (max_parents) or fewer levels make it fit"
        )


# --- BIF -----------------------------------------------------------------------------------
