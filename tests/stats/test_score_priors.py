"""Graph priors against bnlearn (Castelo-Siebes, vsp of BGe, where they apply), weighted rows, and the score table checked row by row."""

import math

import numpy as np
import pandas as pd
import pytest
from test_scores import _bnlearn_network

from bnfs import DAG, Dataset, Scorer, datasets, score

pytestmark = pytest.mark.kernels  # rerun without JIT by kernels/test_without_jit.py


CS_BELIEFS = [
    [("asia", "tub", 0.8), ("either", "lung", 0.4), ("tub", "either", 0.3)],
    [("lung", "either", 0.5), ("either", "lung", 0.5), ("smoke", "bronc", 0.05)],
    [("asia", "tub", 1.0), ("bronc", "dysp", 0.0)],  # certainties: -inf where broken
]


@pytest.mark.parametrize("rows", CS_BELIEFS)
def test_the_castelo_siebes_prior_is_bnlearns(rows):
    """Beliefs about single arcs, completed as bnlearn completes them; the same prior from a
    DataFrame (bnlearn's form), a mapping or triples."""
    import bnfs

    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = bnfs.datasets.sample("asia", 2000, seed=0).astype(str)
    beliefs = pd.DataFrame(rows, columns=["from", "to", "prob"])
    truth = bnfs.datasets.network("asia")
    flipped = bnfs.DAG(truth.nodes, [(v, u) if u == "asia" else (u, v) for u, v in truth.arcs])
    for dag in (truth, flipped, bnfs.DAG(frame.columns)):
        net = _bnlearn_network(pybnlearn, dag)
        theirs = pybnlearn.score(
            net, frame.astype("category"), type="bde", prior="cs", beta=beliefs
        )
        ours = [
            bnfs.score(dag, frame, "bde", prior="cs", beta=beta)
            for beta in (beliefs, {(u, v): p for u, v, p in rows}, rows)
        ]
        assert ours[0] == ours[1] == ours[2]
        assert ours[0] == pytest.approx(theirs, rel=1e-10) or ours[0] == theirs == -np.inf


def test_beliefs_summing_just_above_1_are_rescaled_by_one_sum():
    """bnlearn rescales p(asia -> tub) = 0.6 and p(tub -> asia) = 0.405 one after the other,
    which leaves their sum above 1 (and p(no arc) below 0); bnfs divides both by 1.005. The
    forward arc and no arc score as in bnlearn; the backward arc differs by exactly that."""
    import bnfs

    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = bnfs.datasets.sample("asia", 2000, seed=0).astype(str)
    rows = [("asia", "tub", 0.6), ("tub", "asia", 0.405)]
    beliefs = pd.DataFrame(rows, columns=["from", "to", "prob"])
    truth = bnfs.datasets.network("asia")
    flipped = bnfs.DAG(truth.nodes, [(v, u) if u == "asia" else (u, v) for u, v in truth.arcs])
    forward = 0.6 / 1.005
    theirs_backward, ours_backward = 0.405 / (forward + 0.405), 0.405 / 1.005
    assert forward + ours_backward == pytest.approx(1.0, abs=1e-15)
    for dag, shift in [
        (truth, 0.0),
        (flipped, math.log(ours_backward) - math.log(theirs_backward)),
        (bnfs.DAG(frame.columns), 0.0),
    ]:
        net = _bnlearn_network(pybnlearn, dag)
        theirs = pybnlearn.score(
            net, frame.astype("category"), type="bde", prior="cs", beta=beliefs
        )
        ours = bnfs.score(dag, frame, "bde", prior="cs", beta=rows)
        assert ours == pytest.approx(theirs + shift, rel=1e-12) or ours == theirs == -np.inf


def test_the_vsp_prior_of_bge_is_bnlearns():
    import warnings

    import bnfs

    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    pgmpy_utils = pytest.importorskip("pgmpy.utils")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = pgmpy_utils.get_example_model("ecoli70")
        frame = model.simulate(n_samples=400, seed=3)
    truth = bnfs.DAG(list(model.nodes()), list(model.edges()))
    net = _bnlearn_network(pybnlearn, truth)
    assert bnfs.score(truth, frame, "bge", prior="vsp") == pytest.approx(
        pybnlearn.score(net, frame, type="bge", prior="vsp"), rel=1e-10
    )


@pytest.mark.parametrize(
    "score, options, message",
    [
        ("bic", {"prior": "vsp"}, "applies to the Bayesian scores"),
        ("k2", {"prior": "vsp"}, "applies to the Bayesian scores"),
        ("bde", {"prior": "vps"}, "prior must be one of"),
        ("bde", {"prior": "marginal", "beta": 1.0}, "beta must be a probability"),
        ("bde", {"prior": "cs", "beta": [("asia", "nowhere", 0.5)]}, "unknown node 'nowhere'"),
        ("bde", {"prior": "cs", "beta": [("asia", "asia", 0.5)]}, "self-loop"),
        ("bde", {"prior": "cs", "beta": [("asia", "tub", 1.5)]}, "must be a probability"),
        ("bde", {"prior": "cs", "beta": [("asia", "tub")]}, r"is \(from, to, prob\)"),
        ("bde", {"prior": "cs", "beta": [("asia", "tub", 0.2), ("asia", "tub", 0.3)]}, "twice"),
        ("bde", {"prior": "cs", "beta": [("asia", "tub", 0.6), ("tub", "asia", 0.5)]}, "sum"),
        ("bde", {"prior": "vsp", "beta": 1.0}, "beta must be a probability"),
        ("bde", {"prior": "vsp", "beta": 0}, "beta must be a probability"),
        ("bde", {"prior": "vsp", "beta": "0.1"}, "beta must be a probability"),
        ("bde", {"beta": 0.1}, "beta applies to prior='vsp', 'marginal' or 'cs' only"),
    ],
)
def test_graph_priors_are_refused_where_they_do_not_apply(score, options, message):
    import bnfs

    frame = bnfs.datasets.sample("asia", 300, seed=0)
    with pytest.raises(ValueError, match=message):
        bnfs.score(bnfs.datasets.network("asia"), frame, score, **options)
    for learner in (bnfs.boss, bnfs.grasp):
        with pytest.raises(ValueError, match=message):
            learner(frame, score, **options)


@pytest.mark.parametrize("score", ["bic", "k2", "aic", "loglik", "qnml"])
def test_a_graph_prior_is_refused_where_bnlearn_refuses_it(score):
    """bnlearn takes a graph prior for its Bayesian scores only; so does bnfs."""
    import bnfs

    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = bnfs.datasets.sample("asia", 300, seed=0).astype(str)
    truth = bnfs.datasets.network("asia")
    net = _bnlearn_network(pybnlearn, truth)
    with pytest.raises(ValueError):
        pybnlearn.score(net, frame.astype("category"), type=score, prior="vsp")
    with pytest.raises(ValueError, match="applies to the Bayesian scores"):
        bnfs.score(truth, frame, score, prior="vsp")
    pybnlearn.score(net, frame.astype("category"), type="bde", prior="vsp")  # taken there


def test_a_cs_beta_frame_is_read_by_column_name_in_any_order():
    frame = datasets.sample("asia", 500, seed=1)
    dag = datasets.network("asia")
    rows = [("smoke", "lung", 0.8), ("asia", "dysp", 0.1)]
    beliefs = pd.DataFrame(rows, columns=["from", "to", "prob"])
    expected = score(dag, frame, "bde", prior="cs", beta=rows)
    for columns in (["prob", "from", "to"], ["to", "prob", "from"]):
        assert score(dag, frame, "bde", prior="cs", beta=beliefs[columns]) == expected
    with pytest.raises(ValueError, match="must have the columns 'from', 'to' and 'prob'"):
        score(dag, frame, "bde", prior="cs", beta=beliefs.rename(columns={"prob": "p"}))


WEIGHTED_SCORES = ["loglik", "bic", "aic", "bde", "k2", "bds", "qnml"]


@pytest.mark.kernels
@pytest.mark.parametrize("label", WEIGHTED_SCORES)
def test_a_row_of_weight_k_scores_as_k_rows(label):
    # integer weights against the rows repeated; weights of one against no weights; both
    # counting paths (a dense table, sorted cell keys when the table outgrows the rows)
    frame = datasets.sample("alarm", 300, seed=2)
    frame = frame.loc[:, frame.nunique() > 1]
    counts = np.random.default_rng(0).integers(0, 4, len(frame))
    counts[0] = 1  # every level kept by the repeated rows
    repeated = Dataset(frame).take(np.repeat(np.arange(len(frame)), counts))
    weighted = Dataset(frame).with_weights(counts.astype(float))
    ones = Dataset(frame).with_weights(np.ones(len(frame)))
    rng = np.random.default_rng(1)
    for _ in range(12):
        node, *parents = rng.choice(frame.columns, int(rng.integers(1, 6)), replace=False)
        expected = Scorer(repeated, label).local(node, parents)
        assert Scorer(weighted, label).local(node, parents) == pytest.approx(expected, rel=1e-9)
        plain = Scorer(Dataset(frame), label).local(node, parents)
        assert Scorer(ones, label).local(node, parents) == pytest.approx(plain, rel=1e-12)


def test_searches_on_weighted_rows_find_the_graph_of_the_repeated_rows():
    import bnfs

    frame = datasets.sample("asia", 2000, seed=3)
    counts = np.random.default_rng(0).integers(1, 4, len(frame))
    repeated = Dataset(frame).take(np.repeat(np.arange(len(frame)), counts))
    weighted = Dataset(frame).with_weights(counts.astype(float))
    for search in (bnfs.hill_climbing, bnfs.boss):
        ours = search(weighted, "bde", progress=False)
        assert set(ours.arcs) == set(search(repeated, "bde", progress=False).arcs)
        assert len(ours.arcs) >= 5


def test_row_weights_are_checked():
    data = Dataset(datasets.sample("asia", 50, seed=0))
    for bad in ([1.0] * 49, [-1.0] + [1.0] * 49, [np.nan] * 50, [0.0] * 50):
        with pytest.raises(ValueError, match="weights"):
            data.with_weights(bad)
    with pytest.raises(TypeError, match="weights"):
        data.with_weights(["a"] * 50)
    with pytest.raises(ValueError, match="all continuous"):
        Dataset(pd.DataFrame({"x": np.arange(5.0), "y": np.arange(5.0) ** 2})).with_weights(
            np.ones(5)
        )


def _table_data(kind: str) -> Dataset:
    """Three columns of ``kind`` data (a discrete ``a`` in the mixed case), few rows: some
    configurations of two discrete parents go unseen, where BDs and BDeu part."""
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 5, 30), rng.integers(0, 5, 30)
    c = (a + b + (rng.random(30) < 0.3)) % 5
    x = rng.normal(size=30) + a
    y = 0.8 * x + rng.normal(size=30)
    z = x - y + rng.normal(size=30)
    frames = {
        "discrete": pd.DataFrame({"a": a, "b": b, "c": c}).astype(str),
        "continuous": pd.DataFrame({"a": x, "b": y, "c": z}),
        "mixed": pd.DataFrame({"a": a.astype(str), "b": y, "c": z}),
    }
    return Dataset(frames[kind])


def test_the_score_table_says_what_each_score_does():
    """Every row of the kernel-free table: its label scores its kind of data with its code,
    graph priors apply where it says so, and Markov-equivalent graphs score alike exactly
    where it says the score is score-equivalent (bnlearn: all but K2 and BDs)."""
    from bnfs._vocabulary import SCORE_TABLE, SCORES
    from bnfs.stats.scores import SCORES as scorer_labels
    from bnfs.stats.scores import resolve_score

    assert scorer_labels == SCORES and len(set(SCORES)) == len(SCORES)
    for row in SCORE_TABLE:
        data = _table_data(row.data)
        assert resolve_score(data, row.label, 1.0)[:2] == (row.label, row.code)
        # complete DAGs, Markov equivalent (a discrete node takes no continuous parent)
        forward = DAG(data.names, [("a", "b"), ("a", "c"), ("b", "c")])
        backward = DAG(data.names, [("c", "b"), ("c", "a"), ("b", "a")])
        if row.data == "mixed":
            backward = DAG(data.names, [("a", "b"), ("a", "c"), ("c", "b")])
        there, back = score(forward, data, row.label), score(backward, data, row.label)
        assert math.isclose(there, back, rel_tol=1e-9) == row.equivalent, row.label
        if row.graph_prior:
            assert math.isfinite(score(forward, data, row.label, prior="vsp"))
        else:
            with pytest.raises(ValueError, match="prior"):
                score(forward, data, row.label, prior="vsp")
