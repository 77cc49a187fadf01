"""The order-MCMC sampler against its target computed exactly: every DAG of 3 and 4 nodes
enumerated, each weighted by exp(its score) times its number of topological orders (the
order-modular posterior order MCMC samples), restricted to the parent sets the search space
allows."""

import itertools

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import datasets

pytestmark = pytest.mark.filterwarnings("ignore:structure_posterior:RuntimeWarning")


def _acyclic_orders(parents: dict, nodes: list) -> int:
    """How many orders of ``nodes`` put every parent before its child."""
    count = 0
    for order in itertools.permutations(nodes):
        place = {v: i for i, v in enumerate(order)}
        if all(place[p] < place[v] for v in nodes for p in parents[v]):
            count += 1
    return count


def exact_posterior(scorer, nodes, allowed):
    """(arc probabilities by (u, v), DAG probabilities by frozenset of arcs) of the
    order-modular posterior over the DAGs whose every parent set ``allowed(v, set)`` admits."""
    options = {
        v: [
            frozenset(s)
            for k in range(len(nodes))
            for s in itertools.combinations([u for u in nodes if u != v], k)
            if allowed(v, frozenset(s))
        ]
        for v in nodes
    }
    local = {(v, s): scorer.local(v, sorted(s)) for v in nodes for s in options[v]}
    weights = {}
    for choice in itertools.product(*(options[v] for v in nodes)):
        parents = dict(zip(nodes, choice))
        orders = _acyclic_orders(parents, nodes)
        if orders:
            arcs = frozenset((u, v) for v in nodes for u in parents[v])
            weights[arcs] = np.log(orders) + sum(local[v, parents[v]] for v in nodes)
    top = max(weights.values())
    mass = {g: np.exp(w - top) for g, w in weights.items()}
    total = sum(mass.values())
    dags = {g: m / total for g, m in mass.items()}
    arcs = {(u, v): 0.0 for u in nodes for v in nodes if u != v}
    for g, p in dags.items():
        for arc in g:
            arcs[arc] += p
    return arcs, dags


def _discrete(columns, rows=300, seed=3):
    return datasets.sample("asia", rows, seed=seed)[columns]


def _gaussian(rows=60, seed=2):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=rows)
    b = 0.8 * a + rng.normal(size=rows)
    c = 0.5 * b + rng.normal(size=rows)
    d = 0.4 * a - 0.4 * c + rng.normal(size=rows)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d})


def _compare(post, arcs, tolerance):
    worst = max(abs(post.probability(u, v) - p) for (u, v), p in arcs.items())
    assert worst < tolerance, worst


RUN = {"chains": 4, "samples": 2000, "steps": 120_000, "seed": 5, "progress": False}


@pytest.mark.parametrize(
    "columns",
    [
        ["smoke", "lung", "bronc"],
        ["smoke", "lung", "bronc", "dysp"],
        ["tub", "lung", "either", "xray"],
    ],
)
def test_arc_posteriors_match_every_dag_enumerated(columns):
    data = _discrete(columns)
    post = bnfs.structure_posterior(data, space="full", **RUN)
    scorer = bnfs.Scorer(data, "bde", iss=post.learning["arguments"]["iss"], prior="vsp")
    arcs, _ = exact_posterior(scorer, columns, lambda v, s: True)
    _compare(post, arcs, 0.02)
    assert post.learning["arguments"]["score"] == "bde"


def test_sampled_dags_are_drawn_in_proportion_to_their_posterior():
    columns = ["smoke", "lung", "bronc", "dysp"]
    data = _discrete(columns)
    post = bnfs.structure_posterior(data, space="full", **RUN)
    _, dags = exact_posterior(
        bnfs.Scorer(data, "bde", iss=post.learning["arguments"]["iss"], prior="vsp"),
        columns,
        lambda v, s: True,
    )
    seen = pd.Series([frozenset(g.arcs) for g in post.dags()]).value_counts(normalize=True)
    for graph, p in sorted(dags.items(), key=lambda item: -item[1])[:6]:
        assert abs(seen.get(graph, 0.0) - p) < 0.04, (sorted(graph), seen.get(graph, 0.0), p)
    # and the sampled DAGs' arc frequencies agree with the Rao-Blackwellized ones
    frequency = np.mean(
        [[g.has_arc("bronc", "dysp"), g.has_arc("dysp", "bronc")] for g in post.dags()], axis=0
    )
    assert abs(frequency[0] - post.probability("bronc", "dysp")) < 0.04
    assert abs(frequency[1] - post.probability("dysp", "bronc")) < 0.04


def test_a_restricted_space_with_one_parent_from_outside():
    """Candidates from a chain's skeleton, plus1: a node's parents are its skeleton
    neighbours and at most one other node."""
    columns = ["smoke", "lung", "bronc", "dysp"]
    data = _discrete(columns, rows=200)
    skeleton = bnfs.DAG(columns, arcs=[("smoke", "lung"), ("lung", "bronc"), ("bronc", "dysp")])
    neighbours = {v: set(skeleton.neighbours(v)) for v in columns}
    for plus1 in (True, False):
        post = bnfs.structure_posterior(data, space=skeleton, plus1=plus1, **RUN)
        arcs, _ = exact_posterior(
            bnfs.Scorer(data, "bde", iss=post.learning["arguments"]["iss"], prior="vsp"),
            columns,
            lambda v, s, most=int(plus1): len(s - neighbours[v]) <= most,
        )
        _compare(post, arcs, 0.02)
        if not plus1:
            assert post.probability("smoke", "dysp") == 0.0


def test_max_parents_and_the_lists_restrict_the_sets():
    columns = ["smoke", "lung", "bronc", "dysp"]
    data = _discrete(columns)
    black, white = [("dysp", "smoke")], [("smoke", "bronc")]
    post = bnfs.structure_posterior(
        data, space="full", max_parents=1, blacklist=black, whitelist=white, **RUN
    )
    arcs, _ = exact_posterior(
        bnfs.Scorer(data, "bde", iss=post.learning["arguments"]["iss"], prior="vsp"),
        columns,
        lambda v, s: (
            len(s) <= 1
            and not (v == "smoke" and "dysp" in s)
            and ("smoke" in s if v == "bronc" else True)
            and not (v == "smoke" and "bronc" in s)
        ),
    )
    _compare(post, arcs, 0.02)
    assert post.probability("smoke", "bronc") == 1.0
    assert post.probability("dysp", "smoke") == 0.0


def test_gaussian_data_by_bge_on_standardized_columns():
    data = _gaussian()
    post = bnfs.structure_posterior(data, space="full", **RUN)
    standardized = bnfs.Dataset(data).standardized()
    arcs, _ = exact_posterior(
        bnfs.Scorer(standardized, "bge", prior="vsp"), list(data.columns), lambda v, s: True
    )
    _compare(post, arcs, 0.02)
    assert post.learning["arguments"]["standardized"] is True


def test_a_score_given_and_its_iss():
    columns = ["smoke", "lung", "bronc"]
    data = _discrete(columns, rows=100)
    post = bnfs.structure_posterior(data, score="bde", iss=10.0, space="full", **RUN)
    arcs, _ = exact_posterior(bnfs.Scorer(data, "bde", iss=10.0), columns, lambda v, s: True)
    _compare(post, arcs, 0.02)
    uniform = bnfs.structure_posterior(data, space="full", **RUN)
    assert max(abs(post.probability(u, v) - uniform.probability(u, v)) for u, v in arcs) > 0.02


@pytest.mark.kernels
def test_a_short_run_on_three_nodes_with_plus1():
    """Small enough to run as Python (tests/kernels/test_without_jit.py): every kernel of the
    sampler, a restricted space with one parent from outside, within a looser tolerance."""
    columns = ["smoke", "lung", "bronc"]
    data = _discrete(columns, rows=150)
    skeleton = bnfs.DAG(columns, arcs=[("smoke", "lung")])
    post = bnfs.structure_posterior(
        data, space=skeleton, chains=2, samples=300, steps=3000, seed=1, progress=False
    )
    neighbours = {v: set(skeleton.neighbours(v)) for v in columns}
    arcs, _ = exact_posterior(
        bnfs.Scorer(data, "bde", iss=post.learning["arguments"]["iss"], prior="vsp"),
        columns,
        lambda v, s: len(s - neighbours[v]) <= 1,
    )
    _compare(post, arcs, 0.08)
    assert post.blanket("lung")["smoke"] > 0.5
