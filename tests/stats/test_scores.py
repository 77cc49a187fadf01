"""Local scores against bnlearn's golden values and pgmpy; equivalence invariance."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference
from bnfs import DAG, Dataset, Scorer, datasets, score
from bnfs._kernels import configurations as _cfg
from bnfs._kernels import scores as _k
from strategies import equivalent_dag, random_dags

pytestmark = pytest.mark.kernels  # rerun without JIT by kernels/test_without_jit.py


@pytest.mark.parametrize("name", reference.NETWORKS)
def test_true_network_scores_equal_bnlearn(name):
    frame, truth = reference.data(name), reference.true_dag(name)
    golden = reference.table(name, "true_scores.tsv").set_index("score")["value"]
    for label in ["loglik", "aic", "bic", "bde", "k2"]:
        assert score(truth, frame, label) == pytest.approx(golden[label], rel=1e-10)
    assert score(truth, frame, "bde", iss=10) == pytest.approx(golden["bde_iss10"], rel=1e-10)


@pytest.mark.parametrize(
    "name, node",
    [
        ("asia", "either"),
        ("asia", "dysp"),
        ("alarm", "CATECHOL"),
        ("alarm", "LVEDVOLUME"),
        ("alarm", "BP"),
    ],
)
def test_local_scores_equal_pgmpy(name, node):
    from pgmpy.estimators import AIC, BIC, K2, BDeu

    frame = reference.data(name)
    truth = reference.true_dag(name)
    parents = truth.parents(node)
    for label, cls, kwargs in [
        ("bic", BIC, {}),
        ("aic", AIC, {}),
        ("k2", K2, {}),
        ("bde", BDeu, {"equivalent_sample_size": 1}),
    ]:
        theirs = cls(frame, **kwargs).local_score(node, tuple(parents))
        assert Scorer(frame, label).local(node, parents) == pytest.approx(theirs, rel=1e-8)


def _loglik_by_pandas(frame, node, parents):
    counts = (
        frame.groupby(parents + [node], observed=True).size()
        if parents
        else frame.groupby(node).size()
    )
    if parents:
        totals = counts.groupby(level=list(range(len(parents)))).transform("sum")
    else:
        totals = counts.sum()
    return float((counts * np.log(counts / totals)).sum())


def test_sparse_path_and_renumbering_match_a_direct_count():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.integers(0, 2, size=(300, 46)), columns=[f"c{i}" for i in range(46)])
    frame["c0"] = frame["c1"] ^ frame["c2"]  # some dependence
    data = Dataset(frame)
    parents = [f"c{i}" for i in range(1, 46)]  # 2^45 configurations: renumbered
    expected = _loglik_by_pandas(frame, "c0", parents)
    assert Scorer(data, "loglik").local("c0", parents) == pytest.approx(expected, rel=1e-12)
    # the same family through the dense and the sparse counting paths
    par = np.array([data.index(p) for p in parents[:6]], dtype=np.int64)
    cfg = np.empty(300, dtype=np.int64)
    dense = _k.local_score(
        data.codes, data.arities, 0, par, 6, _k.BDE, 1.0, cfg, np.zeros(1 << 16, dtype=np.int64)
    )
    sparse = _k.local_score(
        data.codes, data.arities, 0, par, 6, _k.BDE, 1.0, cfg, np.zeros(4, dtype=np.int64)
    )
    assert dense == pytest.approx(sparse, rel=1e-12)


@given(
    rows=st.integers(1, 400),
    arities=st.lists(st.integers(2, 12), min_size=3, max_size=6),
    kind=st.sampled_from([_k.LOGLIK, _k.BIC, _k.BDE, _k.K2, _k.BDS, _k.QNML]),
    seed=st.integers(0, 2**16),
)
def test_every_counting_path_adds_the_same_terms_in_the_same_order(rows, arities, kind, seed):
    """A dense table, rows grouped by configuration (one family, or every candidate of a
    grow step against one grouping) and sorted cell keys give equal scores, not close
    ones: the searches break ties on them."""
    rng = np.random.default_rng(seed)
    arity = np.array(arities, dtype=np.int64)
    codes = np.asfortranarray(np.stack([rng.integers(0, a, rows) for a in arity], axis=1))
    node, u, par = 0, 1, np.arange(2, len(arities), dtype=np.int64)
    family = np.append(par, u)
    cfg, cfg2 = np.empty(rows, dtype=np.int64), np.empty(rows, dtype=np.int64)
    values = []
    for cells in (1 << 20, 4 * int(arity[0]), 1):  # dense, grouped, grouped or sorted
        counts = np.zeros(max(cells, 1), dtype=np.int64)
        values.append(
            _k.local_score(codes, arity, node, family, family.size, kind, 3.0, cfg, counts)
        )
    q = _cfg.parent_config(codes, arity, par, par.size, cfg)
    groups = np.full((2, rows + 1), -1, dtype=np.int64)
    _cfg.group_rows(cfg, rows, groups)
    counts = np.zeros(int(arity[0] * arity[1]), dtype=np.int64)
    q_true = float(np.prod(arity[family]))
    values.append(
        _k.score_grouped(
            groups, codes, u, node, arity[1], arity[0], q_true, kind, 3.0, counts, cfg2
        )
    )
    assert not counts.any() and q >= groups[0, rows]
    assert values == [values[0]] * 4


def test_scores_of_a_tiny_table_by_hand():
    frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 0]})
    s = Scorer(frame, "loglik")
    # b | a: a=0 -> (2, 0), a=1 -> (1, 1): loglik = 2 log 1 + 2 log(1/2)
    assert s.local("b", ["a"]) == pytest.approx(2 * math.log(0.5))
    bic = Scorer(frame, "bic").local("b", ["a"])
    assert bic == pytest.approx(2 * math.log(0.5) - 0.5 * math.log(4) * 2)
    k2 = Scorer(frame, "k2").local("b", [])
    # K2, r = 2, N = 4, counts (3, 1): lgamma(2) - lgamma(6) + lgamma(4) + lgamma(2)
    assert k2 == pytest.approx(math.lgamma(2) - math.lgamma(6) + math.lgamma(4) + math.lgamma(2))


@pytest.fixture(scope="module")
def asia_frame():
    return datasets.sample("asia", 3000, seed=11)


@given(st.data())
def test_markov_equivalent_dags_score_equal(asia_frame, data):
    g = data.draw(random_dags(max_nodes=8))
    names = list(asia_frame.columns)
    g = DAG(names[: g.n_nodes], [(names[int(u[1:])], names[int(v[1:])]) for u, v in g.arcs])
    frame = asia_frame[list(g.nodes)]
    other = equivalent_dag(g, data)
    for label in ("bic", "bde", "aic", "loglik"):
        scorer = Scorer(frame, label)
        assert scorer.total(other) == pytest.approx(scorer.total(g), rel=1e-10, abs=1e-8)


def test_cache_counts_and_errors():
    frame = reference.data("asia")
    s = Scorer(frame, "bic")
    s.local("dysp", ["bronc", "either"])
    s.local("dysp", ["either", "bronc"])
    assert (s.n_evaluations, s.cache_hits) == (1, 1)
    with pytest.raises(ValueError, match="'nope' is not a column"):
        s.local("nope")
    with pytest.raises(ValueError, match="its own parent"):
        s.local("dysp", ["dysp"])
    with pytest.raises(TypeError, match="single string"):
        s.local("dysp", "bronc")
    with pytest.raises(ValueError, match="score must be one of"):
        Scorer(frame, "mdl")
    with pytest.raises(ValueError, match="iss"):
        Scorer(frame, "bde", iss=0)
    with pytest.raises(ValueError, match="continuous data"):
        Scorer(frame, "bic-g")
    with pytest.raises(TypeError, match="DAG"):
        s.total(reference.true_dag("asia").cpdag())


def test_gaussian_bic_matches_a_regression_fit():
    rng = np.random.default_rng(0)
    x = rng.normal(size=500)
    y = 2 * x + rng.normal(scale=0.5, size=500)
    frame = pd.DataFrame({"x": x, "y": y})
    s = Scorer(frame, "bic")
    assert s.score == "bic-g"
    coef = np.polyfit(x, y, 1)
    sigma2 = np.mean((y - np.polyval(coef, x)) ** 2)
    ll = -0.5 * 500 * (math.log(2 * math.pi * sigma2) + 1)
    assert s.local("y", ["x"]) == pytest.approx(ll - 0.5 * math.log(500) * 3, rel=1e-10)
    assert s.local("y", ["x"]) > s.local("y", [])
    # mixed data get the conditional-Gaussian score; a discrete-only score is refused
    assert Scorer(pd.DataFrame({"x": x, "c": rng.integers(0, 2, 500)})).score == "bic-cg"
    with pytest.raises(ValueError, match="mixed discrete and continuous"):
        Scorer(pd.DataFrame({"x": x, "c": rng.integers(0, 2, 500)}), "bde")


def _bnlearn_network(pybnlearn, dag):
    spec = "".join(
        f"[{v}" + (f"|{':'.join(dag.parents(v))}" if dag.parents(v) else "") + "]"
        for v in dag.nodes
    )
    return pybnlearn.model2network(spec)


@pytest.mark.parametrize("beta", [None, 0.05, 0.2, 0.7])
def test_the_vsp_graph_prior_is_bnlearns(beta):
    """bnlearn's variable-selection prior: log(beta / (1 - beta)) per parent, beta
    1 / (n - 1) by default, for bde and bge."""
    import bnfs

    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = bnfs.datasets.sample("insurance", 800, seed=2).astype(str)  # observed levels
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    truth = bnfs.datasets.network("insurance").subgraph(list(frame.columns))
    learned = bnfs.hill_climbing(frame, "bde", progress=False)
    extra = {} if beta is None else {"beta": beta}
    for dag in (truth, learned, bnfs.DAG(frame.columns)):
        net = _bnlearn_network(pybnlearn, dag)
        theirs = pybnlearn.score(net, frame.astype("category"), type="bde", prior="vsp", **extra)
        ours = bnfs.score(dag, frame, "bde", prior="vsp", beta=beta)
        assert ours == pytest.approx(theirs, rel=1e-10)
        assert ours != pytest.approx(bnfs.score(dag, frame, "bde"), rel=1e-12) or not dag.arcs


@pytest.mark.parametrize(
    "name, rows, parents_at_most",
    [
        ("asia", 300, 7),  # exact regrets (rows <= 1,000, values <= 100)
        ("alarm", 800, 4),  # families beyond 100 cells: Szpankowski's large-k expansion
        # beyond 1,000 rows: the lesser expansion (as Python, insurance's 1,500 rows cover it)
        pytest.param("alarm", 5000, 4, marks=pytest.mark.kernels_heavy),
        ("insurance", 1500, 3),
    ],
)
def test_bds_and_qnml_are_bnlearns(name, rows, parents_at_most):
    """bnlearn's BDs (BDeu over the parent configurations seen, Scutari 2016) and quotient
    NML (Silander et al. 2018): the true network, a learned one and the empty one, with
    the vsp prior for BDs."""
    import bnfs

    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = bnfs.datasets.sample(name, rows, seed=3).astype(str)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    factors = frame.astype("category")
    truth = bnfs.datasets.network(name).subgraph(list(frame.columns))
    dense = bnfs.hill_climbing(frame, "loglik", max_parents=parents_at_most, progress=False)
    for dag in (truth, dense, bnfs.DAG(frame.columns)):
        net = _bnlearn_network(pybnlearn, dag)
        for label, extra in [("bds", {}), ("bds", {"iss": 7.0}), ("qnml", {})]:
            theirs = pybnlearn.score(net, factors, type=label, **extra)
            assert bnfs.score(dag, frame, label, **extra) == pytest.approx(theirs, rel=1e-11)
        theirs = pybnlearn.score(net, factors, type="bds", prior="vsp")
        assert bnfs.score(dag, frame, "bds", prior="vsp") == pytest.approx(theirs, rel=1e-11)


def test_nml_regret_is_the_normalizing_sum_by_enumeration():
    """log C(n, k) = log sum over the count vectors h of n rows in k values of
    n! / prod h_i! prod (h_i / n)^h_i: the recurrence against brute force."""
    import itertools

    for n in range(1, 8):
        for k in range(1, 5):
            total = 0.0
            for h in itertools.product(range(n + 1), repeat=k):
                if sum(h) == n:
                    term = math.lgamma(n + 1) - sum(math.lgamma(x + 1) for x in h)
                    term += sum(x * math.log(x / n) for x in h if x)
                    total += math.exp(term)
            assert _k.nml_regret(float(n), float(k)) == pytest.approx(math.log(total), rel=1e-12)
    # past the exact range the expansions stay close to the exact value
    exact = _k.nml_regret(1000.0, 100.0)
    assert _k.nml_regret(1000.0001, 100.0) == pytest.approx(exact, rel=1e-3)


def test_bds_differs_from_bdeu_only_when_a_parent_configuration_is_unseen():
    frame = pd.DataFrame({"a": list("xxyyzz"), "b": list("pqpqpq"), "c": list("ssstts")})
    both = DAG(["a", "b", "c"], [("a", "c"), ("b", "c")])  # 6 of 6 configurations seen
    assert score(both, frame, "bds") == pytest.approx(score(both, frame, "bde"), rel=1e-12)
    thin = frame.iloc[:4]  # a in {x, y}, b in {p, q}: 4 of 4 seen, then drop one
    assert score(both, thin, "bds") == pytest.approx(score(both, thin, "bde"), rel=1e-12)
    gap = frame.iloc[[0, 1, 2, 4, 5] * 2]  # (y, q) unseen: BDs shares iss among 5, BDeu 6
    assert score(both, gap, "bds") != pytest.approx(score(both, gap, "bde"), rel=1e-6)


def test_the_vsp_default_on_two_variables_is_one_half_where_bnlearn_refuses():
    """bnlearn's vsp default 1 / (n - 1) is 1 on two variables, which bnlearn refuses ("beta
    must be a probability smaller than one"); bnfs caps the default at 1/2 and then scores
    as bnlearn does with beta = 0.5."""
    import bnfs

    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = bnfs.datasets.sample("asia", 500, seed=1)[["smoke", "lung"]].astype(str)
    dag = bnfs.DAG(["smoke", "lung"], [("smoke", "lung")])
    net = _bnlearn_network(pybnlearn, dag)
    data = frame.astype("category")
    with pytest.raises(Exception, match="beta"):
        pybnlearn.score(net, data, type="bde", prior="vsp")
    theirs = pybnlearn.score(net, data, type="bde", prior="vsp", beta=0.5)
    assert bnfs.score(dag, frame, "bde", prior="vsp") == pytest.approx(theirs, rel=1e-10)


@pytest.mark.parametrize("beta", [None, 0.2, 0.9])
def test_the_marginal_uniform_prior_is_bnlearns(beta):
    """Scutari's marginal uniform prior: each pair joined with probability beta (0.5 by
    default), beta / 2 per direction, relative to 1/3 per pair state as bnlearn adds it."""
    import bnfs

    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = bnfs.datasets.sample("child", 600, seed=4).astype(str)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    truth = bnfs.datasets.network("child").subgraph(list(frame.columns))
    extra = {} if beta is None else {"beta": beta}
    for dag in (truth, bnfs.DAG(frame.columns)):
        net = _bnlearn_network(pybnlearn, dag)
        theirs = pybnlearn.score(
            net, frame.astype("category"), type="bde", prior="marginal", **extra
        )
        assert bnfs.score(dag, frame, "bde", prior="marginal", beta=beta) == pytest.approx(
            theirs, rel=1e-10
        )
