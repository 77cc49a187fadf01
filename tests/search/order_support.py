"""Helpers the order-search tests (BOSS, GRaSP) share: a bundled network's sample without
its constant columns, and the check that every node's parents are a grow-shrink optimum
among the nodes before it. A module beside the tests, imported by its own name (the tests
are no package: ``tests`` may name another installed package)."""

import math

import pandas as pd

import bnfs


def _sample(name, rows, seed):
    frame = bnfs.datasets.sample(name, rows, seed=seed)
    return frame[[c for c in frame.columns if frame[c].nunique() > 1]]


def _configurations(frame, parents):
    """A family's parent configurations: the product of its discrete parents' values."""
    return math.prod(
        1 if pd.api.types.is_float_dtype(frame[p]) else frame[p].nunique() for p in parents
    )


def _check_grow_shrink_optimum(
    dag, frame, score, max_parents=None, black=(), white=(), prior="uniform", bound=math.inf
):
    """Every node's parents are a grow-shrink stopping point among the nodes before it in
    the reported order: no addition of an earlier node (within ``max_parents`` and
    ``bound`` parent configurations) and no removal raises its score."""
    scorer = bnfs.Scorer(frame, score, prior=prior)
    order = dag.learning["order"]
    assert sorted(order) == sorted(dag.nodes)
    place = {v: i for i, v in enumerate(order)}
    for v in dag.nodes:
        parents = list(dag.parents(v))
        assert all(place[u] < place[v] for u in parents), v
        here = scorer.local(v, parents)
        room = max_parents is None or len(parents) < max_parents
        for u in order[: place[v]]:
            if u in parents or (u, v) in black or not room:
                continue
            if _configurations(frame, parents + [u]) > bound:
                continue
            assert scorer.local(v, parents + [u]) <= here + 1e-7 * max(1, abs(here)), (v, u)
        for u in parents:
            if (u, v) in white:
                continue
            rest = [p for p in parents if p != u]
            assert scorer.local(v, rest) <= here + 1e-7 * max(1, abs(here)), (v, u)
