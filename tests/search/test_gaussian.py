"""Linear-Gaussian networks: scores from the covariance matrix, both residual-variance
conventions, and hill climbing / tabu search on continuous data, against bnlearn-port
(bnlearn 5.2.1's code) on samples of the Gaussian networks pgmpy ships."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs

pgmpy_utils = pytest.importorskip("pgmpy.utils")


def _sample(name: str, rows: int, seed: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = pgmpy_utils.get_example_model(name)
        frame = model.simulate(n_samples=rows, seed=seed)
    return frame[sorted(frame.columns)], bnfs.DAG(list(model.nodes()), list(model.edges()))


@pytest.fixture(scope="module")
def ecoli():
    return _sample("ecoli70", 1000, 1)


@pytest.mark.kernels
def test_the_two_variance_conventions_differ_by_their_formula(ecoli):
    """bnfs: s^2 = RSS/n; bnlearn: s^2 = RSS/(n - k - 1) plugged into the density."""
    frame, truth = ecoli
    n = len(frame)
    ml, bn = bnfs.Scorer(frame, "loglik-g"), bnfs.Scorer(frame, "loglik-g-bnlearn")
    for node in list(truth.nodes)[:10]:
        parents = truth.parents(node)
        dof = n - len(parents) - 1
        # with RSS fixed: bn - ml = -n/2 log(n/dof) - dof/2 + n/2
        expected = -n / 2 * math.log(n / dof) - dof / 2 + n / 2
        assert bn.local(node, parents) - ml.local(node, parents) == pytest.approx(expected)
    penalty = bnfs.score(truth, frame, "loglik-g") - bnfs.score(truth, frame, "bic-g")
    k = sum(len(truth.parents(v)) + 2 for v in truth.nodes)
    assert penalty == pytest.approx(0.5 * math.log(n) * k)


@pytest.mark.kernels
def test_the_covariance_score_is_the_regression_likelihood(ecoli):
    """The O(|P|^3) covariance formula against a least-squares fit on the rows."""
    frame, truth = ecoli
    scorer = bnfs.Scorer(frame, "loglik-g")
    node = next(v for v in truth.nodes if len(truth.parents(v)) >= 2)
    parents = truth.parents(node)
    X = np.column_stack([np.ones(len(frame)), frame[parents].to_numpy()])
    y = frame[node].to_numpy()
    rss = float(np.sum((y - X @ np.linalg.lstsq(X, y, rcond=None)[0]) ** 2))
    n = len(frame)
    expected = -n / 2 * (math.log(2 * math.pi * rss / n) + 1)
    assert scorer.local(node, parents) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("name, rows", [("ecoli70", 1000), ("magic-niab", 2000)])
@pytest.mark.parametrize("algorithm", ["hc", "tabu"])
def test_gaussian_searches_are_bnlearns(name, rows, algorithm):
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame, _ = _sample(name, rows, 1)
    learner = bnfs.hill_climbing if algorithm == "hc" else bnfs.tabu_search
    ours = learner(frame, "bic-g-bnlearn", scan_order="columns", progress=False)
    theirs = getattr(pybnlearn, algorithm)(frame, score="bic-g")
    arcs = pybnlearn.arcs(theirs)
    rows_ = arcs.itertuples(index=False) if hasattr(arcs, "itertuples") else arcs
    assert set(ours.arcs) == {tuple(map(str, r)) for r in rows_}
    truth_score = pybnlearn.score(theirs, frame, type="bic-g")
    assert bnfs.score(ours, frame, "bic-g-bnlearn") == pytest.approx(truth_score, rel=1e-10)


def test_gaussian_search_finds_the_network(ecoli):
    frame, truth = _sample("ecoli70", 2000, 3)
    found = bnfs.tabu_search(frame, "bic-g", progress=False)
    assert bnfs.shd(found, truth) <= 40  # of 70 arcs (33 at the last run)
    assert found.learning["score"] == "bic-g"
    assert bnfs.hill_climbing(frame, progress=False) == bnfs.hill_climbing(
        frame, "bic-g", progress=False
    )  # "bic" means bic-g on continuous data


def test_gaussian_errors_name_what_is_wrong(ecoli):
    frame, _ = ecoli
    with pytest.raises(ValueError, match="screen_based needs discrete data"):
        bnfs.screen_based(frame, "bic-g")
    with pytest.raises(ValueError, match="score for continuous data must be one of"):
        bnfs.hill_climbing(frame, "bde")
    mixed = frame.assign(flag=np.where(frame.iloc[:, 0] > 0, "hi", "lo"))
    with pytest.raises(ValueError, match="mixed discrete and continuous data|continuous"):
        bnfs.hill_climbing(mixed, "bic-g")


@pytest.mark.kernels
def test_a_small_gaussian_search_runs_through_the_kernels():
    """A five-node linear chain with a collider, small enough for the pure-Python rerun."""
    import pandas as pd

    rng = np.random.default_rng(0)
    a = rng.normal(size=400)
    b = 2 * a + rng.normal(size=400)
    c = rng.normal(size=400)
    d = b - c + rng.normal(size=400)
    e = 0.7 * d + rng.normal(size=400)
    frame = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})
    found = bnfs.tabu_search(frame, "bic-g", tabu=3, progress=False)
    truth = bnfs.DAG(list(frame.columns), [("a", "b"), ("b", "d"), ("c", "d"), ("d", "e")])
    assert found.cpdag() == truth.cpdag()
    assert bnfs.hill_climbing(frame, "bic-g-bnlearn", progress=False).cpdag() == truth.cpdag()


def test_sparse_candidate_searches_gaussian_and_mixed_data(ecoli):
    frame, truth = ecoli
    found = bnfs.sparse_candidate(frame, "bic-g", k=5)
    assert found.learning["score"] == "bic-g"
    assert bnfs.score(found, frame, "bic-g") > bnfs.score(bnfs.DAG(truth.nodes), frame, "bic-g")
    assert bnfs.shd(found, truth) < 0.8 * len(truth.arcs)
    net = bnfs.random_cg_network(4, 6, seed=2)
    mixed = net.sample(1500, seed=0)
    dag = bnfs.sparse_candidate(mixed, k=4)
    assert dag.learning["score"] == "bic-cg"
    assert not [(u, v) for u, v in dag.arcs if v in net.levels and u not in net.levels]


def test_to_pgmpy_fits_a_linear_gaussian_network():
    frame, truth = _sample("ecoli70", 3000, 2)
    model = bnfs.io.to_pgmpy(truth, data=frame)
    assert type(model).__name__ == "LinearGaussianBayesianNetwork" and model.check_model()
    node = next(v for v in truth.nodes if len(truth.parents(v)) >= 2)
    cpd = model.get_cpds(node)
    assert list(cpd.evidence) == truth.parents(node)
    X = np.column_stack([np.ones(len(frame)), frame[truth.parents(node)].to_numpy()])
    beta, rss = np.linalg.lstsq(X, frame[node].to_numpy(), rcond=None)[:2]
    assert np.allclose(cpd.beta, beta) and cpd.std == pytest.approx(math.sqrt(rss[0] / len(frame)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        truth_model = pgmpy_utils.get_example_model("ecoli70")
    assert np.allclose(cpd.beta, truth_model.get_cpds(node).beta, atol=0.1)  # near the truth
    with pytest.raises(ValueError, match="no column"):
        bnfs.io.to_pgmpy(bnfs.DAG(["nope", *truth.nodes]), data=frame)


@pytest.mark.parametrize("learner", ["mmhc", "h2pc"])
def test_gaussian_hybrids_are_bnlearns(learner):
    """Fisher's z in the restrict phase, bic-g in the maximise phase, as bnlearn defaults."""
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame, truth = _sample("ecoli70", 2000, 3)
    ours = getattr(bnfs, learner)(frame, score="bic-g-bnlearn", scan_order="columns")
    arcs = pybnlearn.arcs(getattr(pybnlearn, learner)(frame))
    rows_ = arcs.itertuples(index=False) if hasattr(arcs, "itertuples") else arcs
    assert set(ours.arcs) == {tuple(map(str, r)) for r in rows_}
    assert ours.learning["test"] == "fisher_z"
    assert (
        bnfs.shd(getattr(bnfs, learner)(frame, progress=False), truth) <= 45
    )  # 36 at the last run


def test_learn_and_the_held_out_likelihood_on_continuous_data():
    from bnfs.stats.metrics import log_likelihood

    frame, truth = _sample("ecoli70", 2000, 3)
    data = bnfs.Dataset(frame)
    train, test = data.take(np.arange(1500)), data.take(np.arange(1500, 2000))
    empty = bnfs.DAG(list(frame.columns))
    assert log_likelihood(truth, train, test) > log_likelihood(empty, train, test)
    one = bnfs.DAG(["b1191", "cspG"])  # independent normals: the textbook density
    sub_train, sub_test = train.select(["b1191", "cspG"]), test.select(["b1191", "cspG"])
    x = sub_train.column("b1191")
    mean, var = x.mean(), x.var()
    y = sub_test.column("b1191")
    expected = np.mean(-0.5 * np.log(2 * np.pi * var) - (y - mean) ** 2 / (2 * var))
    z = sub_train.column("cspG")
    w = sub_test.column("cspG")
    expected += np.mean(-0.5 * np.log(2 * np.pi * z.var()) - (w - z.mean()) ** 2 / (2 * z.var()))
    assert log_likelihood(one, sub_train, sub_test) == pytest.approx(expected)
    found = bnfs.learn(frame, candidates=["boss", "tabu", "mmpc_tabu"], progress=False)
    assert found.learning["chosen"] in found.learning["candidates"]
    assert bnfs.shd(found, truth) <= 45  # 33 at the last run


def test_bge_is_bnlearns():
    """BGe (bnlearn's defaults: iss.mu 1, iss.w = variables + 2, nu = the sample means):
    the score of the true network and of the empty one, and hill climbing's graph."""
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame, truth = _sample("ecoli70", 500, 2)
    spec = "".join(
        f"[{v}" + (f"|{':'.join(truth.parents(v))}" if truth.parents(v) else "") + "]"
        for v in truth.nodes
    )
    net = pybnlearn.model2network(spec)
    assert bnfs.score(truth, frame, "bge") == pytest.approx(
        pybnlearn.score(net, frame, type="bge"), rel=1e-12
    )
    ours = bnfs.hill_climbing(frame, "bge", scan_order="columns", progress=False)
    arcs = pybnlearn.arcs(pybnlearn.hc(frame, score="bge"))
    rows_ = arcs.itertuples(index=False) if hasattr(arcs, "itertuples") else arcs
    assert set(ours.arcs) == {tuple(map(str, r)) for r in rows_}
    with pytest.raises(ValueError, match="iss must be a positive number"):
        bnfs.score(truth, frame, "bge", iss=0)


def _with_a_rare_column(seed: int, name: str = "rare"):
    """Continuous data with a column that is zero but for a couple of rows: constant in
    the training rows of some cross-validation folds."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = 240
    a = rng.normal(size=n)
    rare = np.zeros(n)
    rare[rng.choice(n, 2, replace=False)] = rng.normal(size=2) + 3
    frame = pd.DataFrame({"a": a, "b": a + rng.normal(size=n), "c": rng.normal(size=n), name: rare})
    return frame[sorted(frame.columns)]


@pytest.mark.parametrize("name", ["rare", "0rare", "m"])
def test_fisher_z_takes_a_column_constant_in_the_rows_at_hand(name):
    """A column constant in a subset of rows (Dataset.take, as in a fold) is independent of
    every other and conditioning on it changes nothing; before, the tester refused it and
    named the frame's first column."""
    data = bnfs.Dataset(_with_a_rare_column(1, name))
    rows = np.flatnonzero(data.column(name) == 0)
    part = data.take(rows)
    tester = bnfs.CITest(part, "fisher_z")
    for other in ("a", "b", "c"):
        assert tester(other, name).independent and tester(other, name).p_value == 1.0
    for x, y, given in (("a", "b", []), ("a", "c", ["b"]), ("b", "c", [])):
        with_it, without = tester(x, y, [*given, name]), tester(x, y, given)
        # the same partial correlation; one more degree of freedom spent
        assert with_it.independent == without.independent
        assert with_it.statistic == pytest.approx(without.statistic, rel=0.01)
    for learner in (bnfs.pc_stable, bnfs.mmhc, bnfs.rsmax2):
        found = learner(part) if learner is bnfs.pc_stable else learner(part, progress=False)
        assert found.is_adjacent("a", "b") and not found.neighbours(name)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_learn_with_a_column_constant_in_a_training_fold(seed):
    frame = _with_a_rare_column(seed)
    found = bnfs.learn(frame, candidates=["boss", "tabu"], folds=2, seed=seed, progress=False)
    assert found.has_arc("a", "b") or found.has_arc("b", "a")
    for candidate in found.learning["candidates"].values():
        assert all(np.isfinite(candidate["log_likelihood"]))


@pytest.mark.kernels
def test_the_explained_sum_of_squares_is_least_squares_even_when_singular():
    # Cholesky where the regressors' scatter is well conditioned, least squares where a
    # pivot shows it singular (a regressor copying another, a constant one)
    from bnfs._kernels.covariance import explained

    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 4))
    y = x @ [1.0, -2.0, 0.5, 0.0] + rng.normal(size=200)
    for columns in (x, np.column_stack([x, x[:, 1]]), np.column_stack([x, np.zeros(200)])):
        a, b = columns.T @ columns, columns.T @ y
        expected = b @ np.linalg.lstsq(a, b, rcond=None)[0]
        assert explained(a.copy(), b.copy(), len(b)) == pytest.approx(expected, rel=1e-9)


@pytest.mark.kernels
def test_an_exact_linear_fit_is_singular_in_both_variance_conventions():
    # y an exact (or, to bnlearn's MACHINE_TOL, near-exact) linear function of x: the
    # regression's residual deviation is zero, the likelihood unbounded; bnlearn scores the
    # family -Inf and so does bnfs, in its own variance convention too (it once floored the
    # variance and scored the family far above any other)
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    fit = bnfs.DAG(["x", "y"], [("x", "y")])
    scores = ("loglik-g", "bic-g", "aic-g", "loglik-g-bnlearn", "bic-g-bnlearn")
    for y in (2 * x + 1, 2 * x + 1 + 1e-9 * rng.normal(size=200)):
        frame = pd.DataFrame({"x": x, "y": y})
        assert all(bnfs.score(fit, frame, score) == -math.inf for score in scores)
        assert all(np.isfinite(bnfs.score(bnfs.DAG(["x", "y"]), frame, s)) for s in scores)
    noisy = pd.DataFrame({"x": x, "y": 2 * x + 1e-3 * rng.normal(size=200)})
    assert all(np.isfinite(bnfs.score(fit, noisy, score)) for score in scores)


def test_an_exact_fit_by_coincidence_is_not_an_arc():
    # two rare columns, zero but for one shared row, fit each other exactly in the sample
    # and nowhere else: an arc between them would be unbounded likelihood, not evidence
    rng = np.random.default_rng(1)
    a = rng.normal(size=60)
    frame = pd.DataFrame({"a": a, "b": a + rng.normal(size=60), "s": np.zeros(60)})
    frame["t"] = frame["s"]
    frame.loc[0, ["s", "t"]] = [3.14159, 5.27183]  # off any grid: measurements, not codes
    for found in (bnfs.boss(frame, progress=False), bnfs.hill_climbing(frame)):
        linked = {frozenset(arc) for arc in found.arcs}
        assert frozenset("ab") in linked and frozenset("st") not in linked


def test_exact_fits_score_as_in_bnlearn():
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    for y in (2 * x + 1, 2 * x + 1 + 1e-9 * rng.normal(size=200)):
        frame = pd.DataFrame({"x": x, "y": y})
        net = pybnlearn.model2network("[x][y|x]")
        for score in ("loglik-g", "bic-g"):
            theirs = pybnlearn.score(net, frame, type=score)
            ours = bnfs.score(bnfs.DAG(["x", "y"], [("x", "y")]), frame, f"{score}-bnlearn")
            assert theirs == ours == -math.inf
    # the stated difference: bnlearn's tolerance is on the raw deviation, bnfs's relative
    small = 1e-3 * x
    frame = pd.DataFrame({"x": small, "y": small + 1e-9 * rng.normal(size=200)})
    theirs = pybnlearn.score(pybnlearn.model2network("[x][y|x]"), frame, type="bic-g")
    ours = bnfs.score(bnfs.DAG(["x", "y"], [("x", "y")]), frame, "bic-g-bnlearn")
    assert theirs == -math.inf and np.isfinite(ours)
