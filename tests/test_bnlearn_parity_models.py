"""bnlearn parity, second half: graph priors in the search, SHD and arc scores, the hybrids, averaged networks, unused levels, the frontends, integer columns, quantile bins, and the behaviours docstrings state as bnlearn's (singular CG configurations, Bayesian estimates)."""

import math

import numpy as np
import pandas as pd
import pytest
from test_bnlearn_parity import _bnlearn_arcs, _both, _sample, pybnlearn

import bnfs
from bnfs import datasets
from bnfs.stats.priors import graph_prior

BELIEFS = [("Age", "RiskAversion", 0.9), ("Mileage", "CarValue", 0.05), ("Theft", "Antilock", 0.7)]
CERTAIN = [("Age", "RiskAversion", 1.0), ("Mileage", "CarValue", 0.0), ("Theft", "Antilock", 1.0)]


@pytest.mark.parametrize("algorithm", ["hc", "tabu"])
@pytest.mark.parametrize(
    "prior, beta",
    [
        ("vsp", None),
        ("vsp", 0.05),
        ("marginal", None),
        ("marginal", 0.2),
        ("cs", BELIEFS),
        ("cs", CERTAIN),  # certainties, shrunk a hair toward 1/3 when learning, as bnlearn
    ],
)
def test_graph_priors_in_the_search_are_bnlearns(algorithm, prior, beta):
    """bnlearn's hc with prior = vsp, marginal and cs, and its tabu with vsp: the same graph.
    bnlearn's tabu with the pair priors (marginal, cs) keeps stale per-node scores for an
    arc's tail (tabu.R lacks the refresh hc.R does for them), and with certainties
    (probabilities 0 and 1) its hc ends elsewhere too, so there bnfs's graph must score at
    least as high as bnlearn's under the exact score (certainties shrunk when learning, as
    bnlearn shrinks them)."""
    import pandas as pd

    frame = _sample("insurance", 2000)
    theirs_beta = pd.DataFrame(beta, columns=["from", "to", "prob"]) if prior == "cs" else beta
    extra = {} if beta is None else {"beta": theirs_beta}
    ours, theirs = _both(frame, algorithm, "bde", scan_order="columns", prior=prior, **extra)
    graph = graph_prior("bde", prior, beta, list(frame.columns))
    place = {v: k for k, v in enumerate(frame.columns)}
    data_score = bnfs.Scorer(frame, "bde")

    def exact(arcs, learning=True):  # as the searches score: certainties shrunk toward 1/3
        dag = bnfs.DAG(frame.columns, sorted(arcs))
        parents = {place[v]: [place[u] for u in dag.parents(v)] for v in dag.nodes}
        return data_score.total(dag) + graph.log_prior(parents, learning=learning)

    if (algorithm == "hc" or prior == "vsp") and beta is not CERTAIN:
        assert ours == theirs, (sorted(ours - theirs), sorted(theirs - ours))
    else:
        assert exact(ours) >= exact(theirs) - 1e-6
    learner = {"hc": bnfs.hill_climbing, "tabu": bnfs.tabu_search}[algorithm]
    dag = learner(frame, "bde", prior=prior, beta=beta, progress=False)
    # the score reported is bnfs.score's: the exact prior, certainties not shrunk
    assert dag.learning["score_value"] == pytest.approx(exact(dag.arcs, False), rel=1e-9)


def _bnlearn_graph(dag):
    """bnlearn's object of a bnfs DAG (through its model string)."""
    return pybnlearn.model2network(
        "".join(
            f"[{v}" + ("|" + ":".join(sorted(dag.parents(v))) if dag.parents(v) else "") + "]"
            for v in dag.nodes
        )
    )


@pytest.mark.parametrize("network", ["asia", "child"])
def test_shd_and_arc_scores_are_bnlearns(network):
    """shd is bnlearn's shd; arc_scores counts what bnlearn's compare counts on the CPDAGs."""
    from bnfs.stats.metrics import arc_scores

    true = datasets.network(network)
    frame = datasets.sample(network, 500, seed=1)
    for learned in (
        bnfs.hill_climbing(frame, progress=False),
        bnfs.tabu_search(frame, "bde", progress=False),
        bnfs.pc_stable(frame, progress=False).to_dag(),
    ):
        theirs_true, theirs = _bnlearn_graph(true), _bnlearn_graph(learned)
        assert bnfs.shd(learned, true) == pybnlearn.shd(theirs, theirs_true)
        counts = pybnlearn.compare(pybnlearn.cpdag(theirs_true), pybnlearn.cpdag(theirs))
        ours = arc_scores(learned, true)
        assert (ours["tp"], ours["fp"], ours["fn"]) == (counts["tp"], counts["fp"], counts["fn"])


@pytest.mark.parametrize(
    "network, rows, hybrid",
    [
        ("child", 1000, "mmhc"),
        ("insurance", 1000, "mmhc"),
        ("child", 1000, "h2pc"),
        ("insurance", 1000, "pc_tabu"),
        ("alarm", 2000, "pc_tabu"),
    ],
)
def test_the_hybrids_are_bnlearns_where_their_restrict_steps_agree(network, rows, hybrid):
    """rsmax2, mmhc and h2pc with bnlearn's unadjusted test and column scan order, on
    columns in name order, give bnlearn's graphs (where mmpc's symmetric default or hpc's
    fix does not change the skeleton: the docstring of rsmax2)."""
    frame = datasets.sample(network, rows, seed=3)
    frame = frame[sorted(c for c in frame.columns if frame[c].nunique() > 1)].astype(str)
    factors = frame.astype("category")
    same = {"scan_order": "columns", "progress": False}
    if hybrid == "mmhc":
        ours, theirs = bnfs.mmhc(frame, adjust_df=False, **same), pybnlearn.mmhc(factors)
    elif hybrid == "h2pc":
        ours, theirs = bnfs.h2pc(frame, **same), pybnlearn.h2pc(factors)
    else:
        ours = bnfs.rsmax2(frame, "pc_stable", "tabu", adjust_df=False, **same)
        theirs = pybnlearn.rsmax2(factors, restrict="pc.stable", maximize="tabu")
    assert set(ours.arcs) == _bnlearn_arcs(theirs)


def test_stated_differences_of_the_fourth_hostile_round():
    """Docstrings of issue 42 that name bnlearn: tabu's default list of 10 graphs is
    bnlearn's; a cs beta frame in another column order, which bnlearn refuses, scores in bnfs
    as bnlearn scores it in its own order."""
    import inspect

    import pandas as pd

    assert inspect.signature(pybnlearn.tabu).parameters["tabu"].default == 10
    assert inspect.signature(bnfs.tabu_search).parameters["tabu"].default == 10
    frame = _sample("asia", 500).astype("category")
    beliefs = pd.DataFrame([("smoke", "lung", 0.8)], columns=["from", "to", "prob"])
    dag = bnfs.datasets.network("asia")
    theirs = pybnlearn.score(_bnlearn_graph(dag), frame, type="bde", prior="cs", beta=beliefs)
    with pytest.raises(Exception, match="in that order"):
        pybnlearn.score(
            _bnlearn_graph(dag), frame, type="bde", prior="cs", beta=beliefs[["prob", "from", "to"]]
        )
    ours = bnfs.score(dag, frame, "bde", prior="cs", beta=beliefs[["prob", "from", "to"]])
    assert ours == pytest.approx(theirs, rel=1e-10)


def test_averaged_network_and_its_threshold_against_bnlearn():
    """bootstrap.py's stated differences from bnlearn's averaged.network, on 100 strength
    tables bnlearn-port's custom.strength makes from random networks: given the same
    threshold the graphs are bnlearn's but where an arc would close a cycle through an
    undirected edge (bnlearn drops the arc, bnfs keeps the pair as an edge), so bnlearn's
    skeleton is always within bnfs's; bnfs's threshold takes the smallest minimizer of the
    L1 distance where bnlearn's optimize() lands inside a flat minimum, so it is never
    higher than bnlearn's."""
    import importlib

    from bnfs.bootstrap import averaged_network, inclusion_threshold

    theirs_module = importlib.import_module(pybnlearn.averaged_network.__module__)
    nodes = list("abcdef")
    equal = lower = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        networks = []
        for _ in range(int(rng.integers(3, 12))):
            order = rng.permutation(nodes)
            networks.append(
                [
                    (order[i], order[j])
                    for i in range(6)
                    for j in range(i + 1, 6)
                    if rng.random() < 0.3
                ]
            )
        strength = pybnlearn.custom_strength(networks, nodes=nodes, cpdag=False)
        theirs_threshold = theirs_module.inclusion_threshold(strength)
        ours_threshold = inclusion_threshold(strength)
        assert ours_threshold <= theirs_threshold + 1e-12, seed
        lower += ours_threshold < theirs_threshold - 1e-12
        theirs = set(
            map(tuple, pybnlearn.arcs(pybnlearn.averaged_network(strength, theirs_threshold)))
        )
        ours = averaged_network(strength, threshold=theirs_threshold)
        undirected = {frozenset(a) for a in theirs if (a[1], a[0]) in theirs}
        directed = {a for a in theirs if frozenset(a) not in undirected}
        assert {frozenset(a) for a in theirs} <= set(map(frozenset, [*ours.arcs, *ours.edges]))
        equal += set(ours.arcs) == directed and set(map(frozenset, ours.edges)) == undirected
    assert equal >= 95 and lower > 0  # measured: 99 equal graphs, 63 lower thresholds


def test_unused_levels_are_dropped_where_bnlearn_counts_them():
    """Stated difference (Dataset's Notes): bnfs keeps the observed levels of a factor,
    bnlearn its declared ones; the BIC agrees once the factor declares only those."""
    rng = np.random.default_rng(0)
    a, b = rng.choice(["x", "y"], 300), rng.choice(["u", "v", "w"], 300)
    declared = pd.DataFrame(
        {"a": pd.Categorical(a, categories=["x", "y", "z"]), "b": pd.Categorical(b)}
    )
    observed = declared.assign(a=pd.Categorical(a))
    empty = pybnlearn.empty_graph(["a", "b"])
    ours = bnfs.score(bnfs.DAG(["a", "b"], []), declared, "bic")
    assert ours == pytest.approx(pybnlearn.score(empty, observed, type="bic"), rel=1e-12)
    unused = pybnlearn.score(empty, declared, type="bic")
    assert unused == pytest.approx(ours - np.log(300) / 2, rel=1e-12)  # one more parameter


def test_the_frontends_are_bnlearns_learn_mb_and_learn_nbr():
    """bnfs.markov_blanket / bnfs.neighbours with a local method give bnlearn's learn.mb /
    learn.nbr (bnfs names the methods by their learners: iamb_mb for bnlearn's "iamb",
    mmpc with symmetry=False for its one-way "mmpc")."""
    frame = datasets.sample("insurance", 1000, seed=3).astype(str)
    frame = frame[sorted(c for c in frame.columns if frame[c].nunique() > 1)]
    factors = frame.astype("category")
    for node in frame.columns[::4]:
        for ours, theirs in [("grow_shrink_mb", "gs"), ("iamb_mb", "iamb")]:
            found = bnfs.markov_blanket(frame, node, method=ours, test="mi")
            expected = pybnlearn.learn_mb(factors, node, method=theirs, test="mi", alpha=0.05)
            assert sorted(found) == sorted(map(str, expected)), (ours, node)
        found = bnfs.neighbours(
            frame, node, method="mmpc", test="mi", symmetry=False, adjust_df=False
        )
        expected = pybnlearn.learn_nbr(factors, node, method="mmpc", test="mi", alpha=0.05)
        assert sorted(found) == sorted(map(str, expected)), ("mmpc", node)


def test_integer_columns_bnlearn_takes_as_numbers_bnfs_types_by_their_values():
    """The stated difference of bnfs.tables._kinds: bnlearn scores every integer column as
    a number (bic-g); bnfs reads a column of 3 values as discrete and one of 140 as a
    number, so on the many-valued column alone the two agree."""
    rng = np.random.default_rng(0)
    n = 600
    code = rng.integers(0, 3, n)
    frame = pd.DataFrame({"code": code, "count": rng.integers(50, 190, n) + 40 * code})
    assert pybnlearn.hc(frame).learning["test"] == "bic-g"
    assert bnfs.Dataset(frame).kinds == {"code": "discrete", "count": "continuous"}
    numbers = frame.astype(float)
    assert pybnlearn.hc(numbers).learning["test"] == "bic-g"
    assert bnfs.Dataset(frame, continuous=["code"]).kinds == {
        "code": "continuous",
        "count": "continuous",
    }


@pytest.mark.parametrize("rows", [57, 200])
@pytest.mark.parametrize("bins", [2, 3, 5])
def test_quantile_bins_are_bnlearns_default_discretize(rows, bins):
    """discretize(method="quantile") cuts each column into the same equal-frequency bins as
    bnlearn's default ``discretize(method = "quantile")``: the same rows in each bin, ties
    (a column of whole numbers) included."""
    rng = np.random.default_rng(rows + bins)
    frame = pd.DataFrame(
        {
            "normal": rng.normal(size=rows),
            "skewed": rng.exponential(size=rows),
            # whole numbers with ties, too many values for a code (few would be one)
            "tied": rng.integers(0, 12, rows).astype(float),
        }
    )
    expected = pybnlearn.discretize(frame, method="quantile", breaks=bins)
    codes = bnfs.discretize(frame, method="quantile", n_bins=bins).codes
    for i, column in enumerate(frame):
        table = pd.crosstab(np.asarray(expected[column]).astype(str), codes[:, i])
        assert ((table > 0).sum(axis=1) == 1).all(), (column, table)  # bnlearn's bin: one of ours
        assert ((table > 0).sum(axis=0) == 1).all(), (column, table)  # ours: one of bnlearn's


@pytest.mark.parametrize("score", ["bic", "aic", "loglik", "k2", "bde"])
def test_graph_priors_go_with_the_bayesian_scores_as_in_bnlearn(asia_frame, score):
    """graph_prior's docstring: only the Bayesian scores take a graph prior, as in bnlearn;
    both refuse one with the other scores and take it with bde."""
    try:
        pybnlearn.hc(asia_frame, score=score, prior="vsp")
        bnlearn_takes = True
    except Exception:  # bnlearn: "score ... does not take the argument(s) prior"
        bnlearn_takes = False
    try:
        bnfs.hill_climbing(asia_frame, score=score, prior="vsp")
        bnfs_takes = True
    except ValueError as error:
        assert "prior" in str(error)
        bnfs_takes = False
    assert bnfs_takes == bnlearn_takes == (score == "bde")


@pytest.fixture(scope="module")
def asia_frame():
    return datasets.sample("asia", 300, seed=0)


def test_a_configuration_with_too_few_rows_is_singular_as_in_bnlearn():
    """The CG kernel's docstring: a configuration of the discrete parents with rows, but no
    more rows than regression coefficients (intercept and slope: 2), makes the model
    singular, log-likelihood -inf in bnlearn and in bnfs; one row more and both score the
    same finite value."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    frame = pd.DataFrame({"x": x, "y": x + rng.normal(size=200)})
    dag = bnfs.DAG(["g", "x", "y"], [("g", "y"), ("x", "y")])
    theirs_dag = pybnlearn.model2network("[g][x][y|g:x]")
    for few, singular in [(1, True), (2, True), (3, False)]:
        data = frame.assign(g=pd.Categorical(["a"] * (200 - few) + ["b"] * few))
        theirs = pybnlearn.score(theirs_dag, data, type="loglik-cg")
        ours = bnfs.score(dag, data, "loglik-cg-bnlearn")
        assert (theirs == -math.inf) == singular == (ours == -math.inf), few
        if not singular:
            assert ours == pytest.approx(theirs, rel=1e-9)


def test_bayes_estimates_fit_discrete_networks_only_as_in_bnlearn():
    """bnfs.fit's docstring: ``method="bayes"`` takes discrete data only, and bnlearn's
    bn.fit refuses it on continuous and on mixed data alike."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=100)
    for frame, model in [
        (pd.DataFrame({"x": x, "y": x + rng.normal(size=100)}), "[x][y|x]"),
        (
            pd.DataFrame({"g": pd.Categorical(rng.choice(["a", "b"], 100)), "y": x}),
            "[g][y|g]",
        ),
    ]:
        with pytest.raises(Exception, match="may only be used with discrete data"):
            pybnlearn.fit(pybnlearn.model2network(model), frame, method="bayes")
        dag = bnfs.DAG(list(frame.columns), [tuple(frame.columns)])
        with pytest.raises(ValueError, match="discrete networks only"):
            bnfs.fit(dag, frame, "bayes")
