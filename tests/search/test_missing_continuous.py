"""Structural EM on continuous and mixed data (expected moments, conditional-Gaussian expected statistics), and the rows and stops every route shares."""

import functools
import importlib
import warnings

import numpy as np
import pandas as pd
import pytest
from test_missing import _mcar

import bnfs
from bnfs import datasets
from bnfs.models.cg_network import random_cg_network


def _gaussian_chain(rows, seed, length=5):
    """x0 -> x1 -> ... -> x{length-1}, each the last one's half plus unit noise."""
    rng = np.random.default_rng(seed)
    values = np.empty((rows, length))
    values[:, 0] = rng.normal(size=rows)
    for j in range(1, length):
        values[:, j] = 0.8 * values[:, j - 1] + rng.normal(size=rows)
    names = [f"x{j}" for j in range(length)]
    return pd.DataFrame(values, columns=names), bnfs.DAG(names, list(zip(names, names[1:])))


@pytest.mark.kernels
def test_gaussian_moments_are_the_conditional_normals():
    from bnfs.em import _completions

    rng = np.random.default_rng(3)
    n_vars = 5
    root = rng.normal(size=(n_vars, n_vars))
    covariance = root @ root.T + n_vars * np.eye(n_vars)
    mean = rng.normal(size=n_vars)
    values = rng.multivariate_normal(mean, covariance, size=30)
    missing = rng.random(values.shape) < 0.4
    missing[0] = False  # a complete row
    missing[1] = True  # a row with nothing observed
    network = _completions.GaussianNetwork(mean, np.linalg.inv(covariance))
    filled, *_ = _completions.expected_moments(values, missing, network)
    beyond = np.zeros_like(covariance)
    for i in range(len(values)):
        m, o = missing[i], ~missing[i]
        gain = covariance[np.ix_(m, o)] @ np.linalg.inv(covariance[np.ix_(o, o)])
        assert filled[i, m] == pytest.approx(mean[m] + gain @ (values[i, o] - mean[o]))
        assert filled[i, o] == pytest.approx(values[i, o])
        beyond[np.ix_(m, m)] += covariance[np.ix_(m, m)] - gain @ covariance[np.ix_(o, m)]
    _, expected_mean, expected_covariance = _completions.expected_moments(values, missing, network)
    centred = filled - filled.mean(axis=0)
    assert expected_mean == pytest.approx(filled.mean(axis=0))
    assert expected_covariance == pytest.approx((centred.T @ centred + beyond) / len(values))
    # a (nearly) singular block of the precision: its pseudo-inverse
    from bnfs._kernels.completions import _invert_in_place

    block, out, scratch = np.array([[1.0, 2.0], [2.0, 4.0]]), np.empty((2, 2)), np.empty((2, 2))
    _invert_in_place(block, 2, out, scratch)
    assert out == pytest.approx(np.linalg.pinv(np.array([[1.0, 2.0], [2.0, 4.0]])))


def test_a_gaussian_network_fitted_to_moments_and_rows_holding_them():
    from bnfs.em import _completions

    frame, _ = _gaussian_chain(500, 0)
    values = frame.to_numpy()
    mean, covariance = values.mean(axis=0), np.cov(values.T, bias=True)
    # every earlier node a parent: the saturated network, whose precision is C^-1
    complete = [list(range(v)) for v in range(values.shape[1])]
    network = _completions.gaussian_network(mean, covariance, complete)
    assert network.precision == pytest.approx(np.linalg.inv(covariance), rel=1e-8)
    # a chain's precision is tridiagonal
    chain = _completions.gaussian_network(mean, covariance, [[]] + [[v - 1] for v in range(1, 5)])
    assert np.allclose(np.triu(chain.precision, 2), 0.0)
    # rows with a wider covariance than the completed rows' have exactly that covariance
    wider = covariance + np.diag([0.5, 0.0, 0.2, 0.0, 0.1])
    rows = _completions.moment_rows(values, mean, wider)
    assert rows.mean(axis=0) == pytest.approx(mean)
    assert np.cov(rows.T, bias=True) == pytest.approx(wider, rel=1e-9)
    assert _completions.moment_rows(values, mean, covariance) == pytest.approx(values)
    # a singular covariance (a column observed in full that is twice another): still exact
    twice = np.column_stack([values, 2 * values[:, 0]])
    singular = np.cov(twice.T, bias=True)
    rows = _completions.moment_rows(twice, twice.mean(axis=0), singular)
    assert np.cov(rows.T, bias=True) == pytest.approx(singular, rel=1e-9, abs=1e-9)


def test_gaussian_structural_em_with_an_exact_linear_function_observed_in_full():
    frame, _ = _gaussian_chain(500, 3)
    frame["twice"] = 2 * frame["x0"]
    holes = frame.copy()
    holes.loc[np.random.default_rng(0).random(len(frame)) < 0.1, "x3"] = np.nan
    found = bnfs.structural_em(holes, "bic", "boss")
    assert found.learning["estep"] == "expected moments"
    assert found.is_adjacent("x2", "x3")
    # an exact linear fit has an unbounded likelihood: singular, no arc, as in bnlearn
    assert not found.is_adjacent("x0", "twice")


def test_gaussian_structural_em_on_expected_moments_learns_no_functional_links():
    # the case: a Gaussian chain, 10% missing, 200,000 rows: EM imputing means added
    # two arcs (each imputed value an exact function of its neighbours); dropna found the chain
    frame, truth = _gaussian_chain(200_000, 1)
    holes = _mcar(frame, 0.1, 2)
    found, completed = bnfs.structural_em(
        holes, "bic", "boss", estep="expected", return_imputed=True
    )
    assert found.learning["estep"] == "expected moments"
    assert bnfs.shd(found, truth) == 0
    observed = holes.notna().to_numpy()
    assert np.array_equal(completed.to_numpy()[observed], holes.to_numpy()[observed])
    assert not completed.isna().any().any()
    # the conditional means are the completed values: a missing x2 between observed
    # neighbours lies between them in the chain's regression sense, not at the column mean
    inner = holes["x2"].isna() & holes["x1"].notna() & holes["x3"].notna()
    error = (completed.loc[inner, "x2"] - frame.loc[inner, "x2"]).abs().mean()
    assert error < 0.8 * (frame.loc[inner, "x2"] - frame["x2"].mean()).abs().mean()


@pytest.mark.parametrize("maximize", ["hill_climbing", "learn"])
def test_gaussian_structural_em_without_missing_values_is_one_search(maximize):
    frame, _ = _gaussian_chain(2000, 4)
    found = bnfs.structural_em(frame, "bic", maximize, estep="expected")
    search = getattr(bnfs, maximize)
    assert set(found.arcs) == set(search(frame, score="bic", progress=False).arcs)
    assert found.learning["rounds"] == 0


def test_the_stable_blanket_learns_from_resamples_with_gaps():
    """Issue 45: StableBlanketSelector keeps each resample's gaps for its learner (HITON-MB's
    available-case tests here; structural EM for learn) and finds the complete data's set;
    a learner that cannot take gaps is refused, naming those that can."""
    frame = datasets.sample("alarm", 1500, seed=0)
    target = "HYPOVOLEMIA"
    holes = _mcar(frame, 0.1, 0)
    X, y = holes.drop(columns=target), frame[target]
    complete = bnfs.StableBlanketSelector(R=5, random_state=0).fit(frame.drop(columns=target), y)
    with_gaps = bnfs.StableBlanketSelector(R=5, random_state=0).fit(X, y)
    assert with_gaps.selected_ == complete.selected_ and with_gaps.selected_
    assert set(with_gaps.selected_) <= set(datasets.network("alarm").markov_blanket(target))
    again = bnfs.StableBlanketSelector(R=5, random_state=0).fit(X, y)
    assert again.frequencies_.equals(with_gaps.frequencies_)
    with pytest.raises(ValueError, match="sparse_candidate cannot learn from.*hiton_mb"):
        bnfs.StableBlanketSelector("sparse_candidate", R=2).fit(X, y)
    pd.testing.assert_frame_equal(X, holes.drop(columns=target))


def test_the_saturated_normal_is_the_maximum_likelihood_fit_of_incomplete_rows():
    """EM for the multivariate normal: on complete rows the sample moments; with a third of
    the cells missing completely at random, near the moments of the rows before the gaps
    (where the empty network's first E-step keeps only a share of each covariance)."""
    from bnfs.em import _completions

    rng = np.random.default_rng(5)
    root = rng.normal(size=(4, 4))
    covariance = root @ root.T + np.eye(4)
    values = rng.multivariate_normal(np.zeros(4), covariance, size=4000)
    complete = _completions.saturated_network(values, np.zeros(values.shape, bool))
    sample = np.cov(values.T, bias=True)
    assert np.linalg.inv(complete.precision) == pytest.approx(sample, rel=1e-6, abs=1e-8)
    missing = rng.random(values.shape) < 0.3
    missing[:, 0] = False
    fitted = _completions.saturated_network(values, missing)
    off = ~np.eye(4, dtype=bool)
    saturated = np.linalg.inv(fitted.precision)
    assert np.abs(saturated - sample)[off].max() < 0.1 * np.abs(sample[off]).max()
    empty = _completions.independent_network(values, missing)
    _, _, first = _completions.expected_moments(values, missing, empty)
    assert np.abs(first - sample)[off].max() > 3 * np.abs(saturated - sample)[off].max()


def test_learn_on_incomplete_gaussian_data_ends_near_the_complete_rows_graph():
    """magic-niab (pgmpy), 2,000 rows, 30% of the cells missing completely at random: learn
    (BGe with the vsp prior inside structural EM on expected moments) starts from the
    saturated normal; from the empty network's shrunken moments it kept 24 of 66 arcs
    (SHD 50; the complete rows: 2)."""
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = get_example_model("magic-niab")
        frame = model.simulate(n_samples=2000, seed=1)
    truth = bnfs.DAG(list(model.nodes()), list(model.edges()))
    holes = _mcar(frame, 0.3, 1)
    with pytest.warns(UserWarning, match="structural EM"):
        found = bnfs.learn(holes, progress=False)
    assert found.learning["estep"] == "expected moments"
    assert found.learning["search"]["score"] == "bge"
    assert found.n_arcs >= 50 and bnfs.shd(found, truth) <= 25


def test_bnlearns_structural_em_starts_from_the_empty_graph_as_bnfs_does():
    """bnlearn-port's structural EM with its default start gives, seed for seed, the graph
    of start = the empty graph; different seeds give different graphs, so the equality is
    not that of a deterministic run."""
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is not installed")
    frame = datasets.sample("asia", 300, seed=0).astype(str)
    holes = frame.mask(np.random.default_rng(0).random(frame.shape) < 0.3).astype("category")

    def arcs(network):
        found = pybnlearn.arcs(network)
        rows = found.itertuples(index=False) if hasattr(found, "itertuples") else found
        return sorted(map(tuple, rows))

    graphs = []
    for seed in (1, 2, 3):
        pybnlearn.set_seed(seed)
        default = pybnlearn.structural_em(holes, max_iter=1)
        pybnlearn.set_seed(seed)
        empty = pybnlearn.structural_em(
            holes, start=pybnlearn.empty_graph(list(holes.columns)), max_iter=1
        )
        assert arcs(default) == arcs(empty)
        graphs.append(tuple(arcs(default)))
    assert len(set(graphs)) > 1


def _chain_network(p=0.3, means=(-1.0, 2.0), s=0.7, a=0.5, b=1.5, t=0.4):
    """d (binary) -> x -> y: x | d ~ N(means[d], s^2), y | x ~ N(a + b x, t^2)."""
    from bnfs.em._cg_completions import CGNetwork

    table = np.log(np.array([[1 - p, p]]))
    return CGNetwork(
        np.array([2]),
        [[]],
        [table],
        [[0], []],
        [[], [0]],
        [np.array([[means[0]], [means[1]]]), np.array([[a, b]])],
        [np.array([s, s]), np.array([t])],
    )


def test_mixed_expected_rows_hold_the_exact_posterior_statistics():
    """A row with d and x missing and y observed: p(d | y) and the moments of x given
    (d, y), in closed form, against the weighted sigma-point rows."""
    from bnfs.em._cg_completions import expected_rows

    p, means, s, a, b, t = 0.3, (-1.0, 2.0), 0.7, 0.5, 1.5, 0.4
    network = _chain_network(p, means, s, a, b, t)
    codes = np.array([[0], [1]])
    values = np.array([[0.0, 1.2], [0.3, -0.9]])  # row 0: d, x missing; row 1 complete
    missing_d = np.array([[True], [False]])
    missing_c = np.array([[True, False], [False, False]])
    rows = expected_rows(codes, values, missing_d, missing_c, network, seed=0)
    y = 1.2
    prior = np.array([1 - p, p])
    spread = np.sqrt(t**2 + b**2 * s**2)
    evidence = prior * np.exp(-0.5 * ((y - a - b * np.array(means)) / spread) ** 2)
    posterior = evidence / evidence.sum()
    mine = rows.source == 0
    assert rows.weights[rows.source == 1].tolist() == [1.0]
    assert rows.values[rows.source == 1].tolist() == [[0.3, -0.9]]
    for d in (0, 1):
        part = mine & (rows.codes[:, 0] == d)
        w = rows.weights[part]
        assert w.sum() == pytest.approx(posterior[d], rel=1e-9)
        precision = 1 / s**2 + b**2 / t**2
        mean = (means[d] / s**2 + b * (y - a) / t**2) / precision
        x = rows.values[part, 0]
        assert np.sum(w * x) / w.sum() == pytest.approx(mean, rel=1e-9)
        assert np.sum(w * x**2) / w.sum() == pytest.approx(mean**2 + 1 / precision, rel=1e-9)
        assert np.all(rows.values[part, 1] == y)
    assert rows.best_codes[0, 0] == np.argmax(posterior)


def test_a_conditional_gaussian_network_fitted_to_weighted_rows_is_their_maximum():
    """Weighted fits equal the fits to the rows repeated by their weights."""
    from bnfs.em._cg_completions import fit_network

    net = random_cg_network(3, 4, seed=2)
    frame = net.sample(400, seed=0)
    discrete = [v for v in frame.columns if v in net.levels]
    continuous = [v for v in frame.columns if v not in net.levels]
    codes = np.column_stack([frame[v].cat.codes for v in discrete]).astype(np.int64)
    values = frame[continuous].to_numpy()
    arities = np.array([net.levels[v] for v in discrete])
    place = {v: j for j, v in enumerate(discrete)} | {v: j for j, v in enumerate(continuous)}
    parents = [
        (
            [place[u] for u in net.dag.parents(v) if u in net.levels],
            [place[u] for u in net.dag.parents(v) if u not in net.levels],
        )
        for v in discrete + continuous
    ]
    counts = np.random.default_rng(1).integers(1, 4, len(frame))
    weighted = fit_network(codes, values, counts.astype(float), arities, parents)
    repeat = np.repeat(np.arange(len(frame)), counts)
    plain = fit_network(codes[repeat], values[repeat], np.ones(len(repeat)), arities, parents)
    for mine, theirs in zip(
        weighted.tables + weighted.beta + weighted.sd, plain.tables + plain.beta + plain.sd
    ):
        np.testing.assert_allclose(mine, theirs, rtol=1e-8, atol=1e-10)


def test_mixed_rows_with_many_missing_configurations_are_drawn_with_a_seed(monkeypatch):
    from bnfs.em import _cg_completions

    monkeypatch.setattr(_cg_completions, "EXACT_COMPLETIONS", 1)
    network = _chain_network()
    codes = np.zeros((3, 1), dtype=np.int64)
    values = np.array([[0.0, 1.2], [0.0, -2.0], [0.0, 4.0]])
    missing_d = np.ones((3, 1), dtype=bool)
    missing_c = np.array([[True, False]] * 3)
    first = _cg_completions.expected_rows(codes, values, missing_d, missing_c, network, seed=3)
    again = _cg_completions.expected_rows(codes, values, missing_d, missing_c, network, seed=3)
    np.testing.assert_array_equal(first.codes, again.codes)
    np.testing.assert_array_equal(first.weights, again.weights)
    draws = _cg_completions.DRAWS
    for row in range(3):
        mine = first.source == row
        assert first.weights[mine].sum() == pytest.approx(1.0)
        assert mine.sum() == 2 * draws  # each draw's one missing value: two sigma points
    # y = -2 is far likelier under d = 0 (x near -1), y = 4 under d = 1 (x near 2)
    assert (
        np.mean(first.codes[first.source == 1, 0])
        < 0.5
        < np.mean(first.codes[first.source == 2, 0])
    )


def test_mixed_structural_em_on_expected_statistics_beats_imputation():
    """30% of a conditional-Gaussian sample missing: the expected statistics' graph is
    closer to the truth than the imputation loop's (functional links around imputed
    means and modes) and as close as the complete rows'; it says what ran and, with
    ``return_imputed``, completes every cell."""
    net = random_cg_network(6, 8, seed=4)
    frame = net.sample(1500, seed=2)
    holes = _mcar(frame, 0.3, 0)
    found, completed = bnfs.structural_em(holes, "bic-cg", return_imputed=True)
    imputed = bnfs.structural_em(holes, "bic-cg", estep="impute")
    complete = bnfs.hill_climbing(frame, "bic-cg")
    assert found.learning["estep"] == "expected statistics, from the imputation's network"
    assert bnfs.shd(found, net.dag) < bnfs.shd(imputed, net.dag)
    assert bnfs.shd(found, net.dag) <= bnfs.shd(complete, net.dag) + 2
    assert not completed.isna().any().any()
    observed = holes.notna().to_numpy()
    pd.testing.assert_frame_equal(completed.where(observed), holes, check_dtype=False)
    for v in net.levels:
        assert set(completed[v]) <= set(frame[v].cat.categories)
    again = bnfs.structural_em(holes, "bic-cg")
    assert again.arcs == found.arcs


def test_nearly_singular_joint_normals_are_factored_with_a_jitter():
    """Two continuous values that are one up to the floored variance: the E-step's
    Cholesky factors still exist and reproduce the matrices to the floor."""
    from bnfs.em._cg_completions import FLOOR, _cholesky

    singular = np.array([[[1.0, 1.0], [1.0, 1.0]], [[2.0, 0.5], [0.5, 1.0]]])
    factor = _cholesky(singular)
    np.testing.assert_allclose(factor @ np.swapaxes(factor, 1, 2), singular, atol=10 * FLOOR)


# issue 59, item 4: rows that observe nothing change nothing; a stop ends EM and says so


def _blank_rows(frame, n):
    return pd.DataFrame({c: pd.Series([np.nan] * n, dtype=object) for c in frame.columns})


@pytest.mark.parametrize(
    "maximize, seed, extra", [("hill_climbing", 0, 200), ("boss", 1, 50), ("tabu_search", 2, 500)]
)
def test_rows_that_observe_nothing_change_nothing(maximize, seed, extra):
    frame = _mcar(datasets.sample("asia", 1000, seed=seed), 0.05, seed)
    padded = pd.concat([frame, _blank_rows(frame, extra)], ignore_index=True)
    # blank rows in the middle too: their places are kept in the completed data
    padded = padded.iloc[np.random.default_rng(seed).permutation(len(padded))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, completed = bnfs.structural_em(padded, maximize=maximize, return_imputed=True)
        theirs = bnfs.structural_em(frame, maximize=maximize)
    assert set(ours.arcs) == set(theirs.arcs)
    assert ours.learning["rows_without_values"] == extra
    assert ours.learning["rows_used"] == len(frame)
    assert completed.index.equals(padded.index) and not completed.isna().any().any()
    observed = padded.notna().to_numpy()
    assert (completed.to_numpy()[observed] == padded.to_numpy()[observed]).all()


def test_data_that_observe_nothing_are_refused():
    frame = _blank_rows(datasets.sample("asia", 10, seed=0), 30)
    with pytest.raises(ValueError, match="every row .* missing every value"):
        bnfs.structural_em(frame)


@pytest.mark.parametrize("estep, stop_at", [("expected", 2), ("impute", 1), ("expected", 1)])
def test_a_stop_inside_a_round_ends_structural_em(asia_sample, monkeypatch, estep, stop_at):
    """Ctrl-C inside a search stops that search (its budget marks it interrupted); EM used
    to start the next round with a fresh handler and could end 'converged'."""
    em = importlib.import_module("bnfs.search.structural_em")
    frame = _mcar(asia_sample[0].iloc[:1500], 0.1, 3)
    real, calls = em.MAXIMIZE["hill_climbing"], []

    @functools.wraps(real)  # the rounds read the search's signature
    def interrupted_on_call(data, **options):
        dag = real(data, **options)
        calls.append(1)
        if len(calls) == stop_at:
            dag.learning["stopped_early"] = "interrupted"
        return dag

    monkeypatch.setitem(em.MAXIMIZE, "hill_climbing", interrupted_on_call)
    with pytest.warns(RuntimeWarning, match="structural_em stopped early \\(interrupted\\)") as w:
        dag = bnfs.structural_em(frame, estep=estep)
    assert w[0].filename == __file__
    assert len(calls) == stop_at  # no round after the stop
    assert dag.learning["stopped_early"] == "interrupted" and not dag.learning["converged"]
    from bnfs._budget import stopped_reason

    assert stopped_reason(dag.learning) == "interrupted"  # the command line's exit 130


@pytest.mark.parametrize("name", ["learn", "hill_climbing", "tabu_search", "boss", "pc_stable"])
def test_every_route_records_the_documented_keys(asia_sample, name):
    frame = _mcar(asia_sample[0].iloc[:800], 0.05, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data in (frame, frame.dropna()):
            learning = getattr(bnfs, name)(data).learning
            assert learning["stopped_early"] is None, name
            assert isinstance(learning["learner"], str) and isinstance(learning["seconds"], float)


@pytest.mark.parametrize("rows, seed", [(50_000, 0), (50_000, 4), (200_000, 3)])
def test_em_ends_on_the_complete_rows_graph_where_a_fresh_search_scores_higher(rows, seed):
    """Issue 59, item 4a: hill climbing continued from the imputation loop's graph stayed
    3 arcs away from the complete rows' graph (which scored higher on EM's own expected
    counts); each round now also searches afresh and keeps the higher score."""
    complete = datasets.sample("asia", rows, seed=seed)
    frame = _mcar(complete, 0.05, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        em = bnfs.hill_climbing(frame)
    assert bnfs.shd(em, bnfs.hill_climbing(complete)) == 0
    assert em.learning["estep"].startswith("expected counts")
