"""What :func:`bnfs.structure_posterior` returns: arc, edge and blanket posteriors and the
sampled DAGs, in the shapes the bootstrap's readers take."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnfs._kernels import order_mcmc as _om
from bnfs.graphs.graph import DAG


class StructurePosterior:
    """A posterior over DAGs, as order MCMC sampled it.

    Attributes
    ----------
    nodes : list of str
    probabilities : numpy.ndarray
        ``[i, j]``: the posterior probability of the arc ``nodes[i] -> nodes[j]``, averaged over
        the chains' orders (each order's exact share, not a count of sampled DAGs).
    learning : dict
        Provenance: the score, the search space, the chains, their agreement.

    Examples
    --------
    >>> from bnfs import datasets, structure_posterior
    >>> post = structure_posterior(datasets.sample("asia", 2000, seed=0), seed=1, progress=False)
    >>> post.probability("either", "xray") > 0.9
    True
    """

    def __init__(self, nodes, probabilities, dags, dag_scores, chain_probabilities, learning):
        self.nodes = list(nodes)
        self.probabilities = probabilities
        self._dags = dags  # samples by nodes by parent slots, -1 padded (indices of nodes)
        self._dag_scores = dag_scores
        #: each chain's arc probabilities (chains by nodes by nodes)
        self.chain_probabilities = chain_probabilities
        self.learning = learning
        self._index = {v: i for i, v in enumerate(self.nodes)}
        self._blankets = None

    def __repr__(self) -> str:
        sure = int((self.probabilities > 0.5).sum())
        return (
            f"StructurePosterior({len(self.nodes)} nodes, {self.n_samples} sampled DAGs, "
            f"{sure} arcs above 0.5)"
        )

    @property
    def n_samples(self) -> int:
        """The DAGs sampled, over all chains."""
        return int(self._dags.shape[0])

    def _node(self, name) -> int:
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise ValueError(f"{name!r} is not a node of the posterior") from None

    def probability(self, u, v) -> float:
        """The posterior probability of the arc ``u -> v``."""
        return float(self.probabilities[self._node(u), self._node(v)])

    @property
    def arcs(self) -> pd.DataFrame:
        """Columns ``from``, ``to``, ``probability``: every arc of nonzero probability, most
        probable first."""
        i, j = np.nonzero(self.probabilities > 0)
        names = np.asarray(self.nodes, dtype=object)
        frame = pd.DataFrame(
            {"from": names[i], "to": names[j], "probability": self.probabilities[i, j]}
        )
        return frame.sort_values(
            ["probability", "from", "to"], ascending=[False, True, True], kind="stable"
        ).reset_index(drop=True)

    @property
    def strength(self) -> pd.DataFrame:
        """The frame :func:`bnfs.boot_strength` returns, from the posterior: ``strength`` is
        the probability that two nodes are linked (either way), ``direction`` the share of it
        pointing ``from -> to``. :func:`bnfs.averaged_network`, :func:`bnfs.plot_strength`
        and :func:`bnfs.inclusion_threshold` take it."""
        p = self.probabilities
        both = p + p.T
        with np.errstate(invalid="ignore", divide="ignore"):
            direction = np.where(both > 0, p / np.where(both > 0, both, 1.0), 0.0)
        n = len(self.nodes)
        i, j = np.nonzero(~np.eye(n, dtype=bool))
        names = np.asarray(self.nodes, dtype=object)
        frame = pd.DataFrame(
            {
                "from": names[i],
                "to": names[j],
                "strength": np.clip(both[i, j], 0.0, 1.0),
                "direction": direction[i, j],
            }
        )
        frame = frame.sort_values(
            ["strength", "from", "to"], ascending=[False, True, True], kind="stable"
        ).reset_index(drop=True)
        frame.attrs.update(
            {"R": self.n_samples, "m": self.learning.get("rows"), "learner": "structure_posterior"}
        )
        frame.attrs["nodes"] = list(self.nodes)
        return frame

    def median_graph(self) -> DAG:
        """The median-probability graph: the arcs of posterior probability above 1/2, most
        probable first (an arc that would close a cycle, which the posterior's
        probabilities allow in principle, is left out and listed in
        ``learning["dropped"]``)."""
        arcs = self.arcs
        chosen = arcs[arcs["probability"] > 0.5]
        graph = DAG(self.nodes)
        dropped = []
        for u, v in zip(chosen["from"], chosen["to"]):
            try:
                graph.add_arc(u, v)
            except ValueError:
                dropped.append((u, v))
        graph.learning = {
            "algorithm": "structure_posterior",
            "graph": "median probability",
            "dropped": dropped,
            **{k: v for k, v in self.learning.items() if k != "algorithm"},
        }
        return graph

    def _dag(self, sample: np.ndarray) -> DAG:
        arcs = [
            (self.nodes[p], self.nodes[v])
            for v in range(sample.shape[0])
            for p in sample[v]
            if p >= 0
        ]
        return DAG(self.nodes, arcs)

    def dags(self) -> list[DAG]:
        """The sampled DAGs, chain by chain."""
        return [self._dag(sample) for sample in self._dags]

    def best_dag(self) -> DAG:
        """The sampled DAG of highest score (the graph prior's arc weights included)."""
        graph = self._dag(self._dags[int(np.argmax(self._dag_scores))])
        graph.learning = {"algorithm": "structure_posterior", "graph": "best sampled"}
        return graph

    @property
    def blankets(self) -> pd.DataFrame:
        """``[t, x]``: the share of sampled DAGs in which ``x`` is in ``t``'s Markov blanket."""
        if self._blankets is None:
            counts = np.zeros((len(self.nodes), len(self.nodes)), dtype=np.int64)
            _om.blanket_counts(self._dags, counts)
            self._blankets = pd.DataFrame(
                counts / max(self.n_samples, 1), index=self.nodes, columns=self.nodes
            )
        return self._blankets

    def blanket(self, target) -> pd.Series:
        """Each other node's posterior probability of being in ``target``'s Markov blanket
        (a parent, a child or a child's other parent), most probable first: for feature
        selection, a feature's probability of belonging to the class's blanket."""
        t = self.nodes[self._node(target)]
        row = self.blankets.loc[t].drop(t)
        order = np.lexsort((np.asarray(row.index, dtype=str), -row.to_numpy()))
        out = row.iloc[order]
        out.name = f"P(in blanket of {t})"
        return out
