"""Parameters (bnfs.fit) and prediction (bnfs.predict, bnfs.predict_proba) of learned
networks: bnlearn's bn.fit and predict where bnlearn-port is installed, exact oracles
(the joint distribution, enumerated) everywhere."""

import itertools

import numpy as np
import pandas as pd
import pytest

import bnfs


@pytest.fixture(scope="module")
def asia():
    frame = bnfs.datasets.sample("asia", 3000, seed=0).astype(str)
    dag = bnfs.datasets.network("asia")
    return frame, dag, bnfs.fit(dag, frame, "bayes", iss=2)


@pytest.fixture(scope="module")
def survey():
    frame = bnfs.datasets.load_survey().dropna().reset_index(drop=True)
    dag = bnfs.learn(frame)
    return frame, dag, bnfs.fit(dag, frame)


def _codes(network, row: pd.Series) -> dict:
    return {v: network.states[v].index(str(row[v])) for v in network.dag.nodes}


def _joint(network, codes: dict) -> float:
    """p(all variables) of a discrete network: the product of its tables."""
    p = 1.0
    for v in network.dag.nodes:
        index = tuple(codes[u] for u in network.dag.parents(v)) + (codes[v],)
        p *= network.cpts[v][index]
    return p


def test_discrete_tables(asia):
    frame, dag, network = asia
    assert isinstance(network, bnfs.DiscreteNetwork)
    counts = pd.crosstab(frame["asia"], frame["tub"]).to_numpy()  # tub | asia
    cells = 4  # iss 2 spread over the 2 x 2 cells of tub's table
    expected = (counts + 2 / cells) / (counts + 2 / cells).sum(axis=1, keepdims=True)
    assert np.allclose(network.cpts["tub"], expected)
    mle = bnfs.fit(dag, frame)
    assert np.allclose(mle.cpts["tub"], counts / counts.sum(axis=1, keepdims=True))
    for table in network.cpts.values():
        assert np.allclose(table.sum(axis=-1), 1.0)


def test_blanket_posterior_is_the_joint_normalised(asia):
    frame, dag, network = asia
    rows = bnfs.datasets.sample("asia", 40, seed=7).astype(str)
    for node in ("either", "lung", "smoke"):
        found = bnfs.predict_proba(network, node, rows, "blanket")
        parents = bnfs.predict_proba(network, node, rows, "parents")
        for i, (_, row) in enumerate(rows.iterrows()):
            codes = _codes(network, row)
            joint = [_joint(network, {**codes, node: k}) for k in range(2)]
            assert np.allclose(found.iloc[i], np.array(joint) / sum(joint))
            config = tuple(codes[p] for p in dag.parents(node))
            assert np.allclose(parents.iloc[i], network.cpts[node][config])
        best = found.to_numpy().argmax(axis=1)
        predicted = bnfs.predict(network, node, rows, "blanket")
        assert predicted.tolist() == [network.states[node][k] for k in best]
        assert predicted.index.equals(rows.index)


def test_likelihood_weighting_marginalises_the_unobserved(asia):
    frame, dag, network = asia
    rows = bnfs.datasets.sample("asia", 6, seed=3).astype(str)[["asia", "xray", "dysp"]]
    rows.iloc[0, 1] = None  # a missing value is unobserved
    found = bnfs.predict_proba(network, "lung", rows, "lw", n=20000, seed=1)
    hidden = [v for v in dag.nodes if v not in ("asia", "xray", "dysp")]
    for i, (_, row) in enumerate(rows.iterrows()):
        seen = {v: network.states[v].index(row[v]) for v in rows if pd.notna(row[v])}
        posterior = np.zeros(2)
        for values in itertools.product(range(2), repeat=len(hidden) + ("xray" not in seen)):
            codes = dict(
                seen, **dict(zip(hidden + (["xray"] if "xray" not in seen else []), values))
            )
            posterior[codes["lung"]] += _joint(network, codes)
        assert np.allclose(found.iloc[i], posterior / posterior.sum(), atol=0.03)
    again = bnfs.predict_proba(network, "lung", rows, "lw", n=20000, seed=1)
    pd.testing.assert_frame_equal(found, again)  # seeded


def test_conditional_gaussian_parameters_and_prediction(survey):
    frame, dag, network = survey
    assert isinstance(network, bnfs.ConditionalGaussianNetwork)
    assert network.level_names("smoker") == ("no", "yes")
    smokers = frame[frame["smoker"] == "yes"]
    k = network.continuous_parents("sbp")
    X = np.column_stack([np.ones(len(smokers))] + [smokers[p] for p in k])
    beta, *_ = np.linalg.lstsq(X, smokers["sbp"], rcond=None)
    assert np.allclose(network.regressions["sbp"][1], beta)
    residuals = smokers["sbp"] - X @ beta
    assert np.isclose(network.sd["sbp"][1], np.sqrt(residuals @ residuals / (len(X) - len(beta))))
    rows = frame.sample(30, random_state=0)
    mean = bnfs.predict(network, "sbp", rows, "parents")
    config = (rows["smoker"] == "yes").astype(int).to_numpy()
    by_hand = network.regressions["sbp"][config, 0] + sum(
        network.regressions["sbp"][config, j + 1] * rows[p].to_numpy() for j, p in enumerate(k)
    )
    assert np.allclose(mean, by_hand)


def _cg_log_density(network, row: pd.Series, node: str, level: int) -> float:
    """log p(row) of a conditional-Gaussian network with ``node`` set to ``level``."""
    codes = {v: network.level_names(v).index(str(row[v])) for v in network.levels}
    codes[node] = level
    total = 0.0
    for v in network.dag.nodes:
        config = 0
        for p in network.discrete_parents(v):
            config = config * network.levels[p] + codes[p]
        if v in network.levels:
            total += np.log(network.tables[v][config, codes[v]])
        else:
            beta = network.regressions[v][config]
            mean = beta[0] + sum(
                b * row[p] for b, p in zip(beta[1:], network.continuous_parents(v))
            )
            s = network.sd[v][config]
            total += -0.5 * ((row[v] - mean) / s) ** 2 - np.log(s)
    return total


def test_conditional_gaussian_blanket_posteriors(survey):
    frame, dag, network = survey
    rows = frame.sample(25, random_state=1)
    for node in ("smoker", "exercise", "education"):
        found = bnfs.predict_proba(network, node, rows, "blanket")
        for i, (_, row) in enumerate(rows.iterrows()):
            logs = np.array([_cg_log_density(network, row, node, k) for k in range(found.shape[1])])
            expected = np.exp(logs - logs.max())
            assert np.allclose(found.iloc[i], expected / expected.sum())
    # a continuous node: the posterior mean maximises the joint density along that node
    node = "bmi"
    mean = bnfs.predict(network, node, rows, "blanket")
    level_of = network.level_names("exercise").index
    for i, (_, row) in enumerate(rows.iterrows()):
        grid = mean.iloc[i] + np.array([-1e-3, 0.0, 1e-3])
        density = []
        for g in grid:
            moved = row.copy()
            moved[node] = g
            density.append(_cg_log_density(network, moved, "exercise", level_of(row["exercise"])))
        assert density[1] >= max(density[0], density[2])


def test_isolated_constant_nodes_are_fitted(asia):
    frame, dag, _ = asia
    data = frame.assign(site="A")
    with pytest.warns(UserWarning, match="constant column"):
        learned = bnfs.hill_climbing(data)
    network = bnfs.fit(learned, data)
    assert network.states["site"] == ("A",) and np.allclose(network.cpts["site"], [1.0])


def test_refusals(asia, survey):
    frame, dag, network = asia
    with pytest.raises(TypeError, match="to_dag"):
        bnfs.fit(dag.cpdag(), frame)
    with pytest.raises(ValueError, match="method must be one of"):
        bnfs.fit(dag, frame, "em")
    with pytest.raises(ValueError, match="discrete networks only"):
        bnfs.fit(survey[1], survey[0], "bayes")
    with pytest.raises(ValueError, match="unknown node 'nope'"):
        bnfs.predict(network, "nope", frame)
    with pytest.raises(ValueError, match="holds 'maybe', not a level of node 'smoke'"):
        bnfs.predict(network, "lung", frame.head(3).assign(smoke="maybe"))
    with pytest.raises(ValueError, match="data has no column 'bronc'"):
        bnfs.predict(network, "dysp", frame.drop(columns="bronc"), "parents")
    with pytest.raises(ValueError, match="missing value"):
        bnfs.predict(network, "lung", frame.head(3).assign(smoke=None))
    with pytest.raises(ValueError, match="'lw' predicts discrete networks"):
        bnfs.predict(survey[2], "smoker", survey[0], "lw")
    with pytest.raises(ValueError, match="continuous"):
        bnfs.predict_proba(survey[2], "sbp", survey[0])
    with pytest.raises(ValueError, match="method must be one of"):
        bnfs.predict(network, "lung", frame, "exact")


def test_bnlearn_parity(asia, survey):
    pybnlearn = pytest.importorskip("pybnlearn", reason="bnlearn-port is a test extra")

    def structure(dag):
        spec = "".join(
            f"[{v}{'|' + ':'.join(dag.parents(v)) if dag.parents(v) else ''}]" for v in dag.nodes
        )
        return pybnlearn.model2network(spec)

    frame, dag, ours = asia
    theirs = pybnlearn.fit(structure(dag), frame, method="bayes", iss=2)
    for v in dag.nodes:  # bnlearn's table: axes in node.variables' order
        node, parents = theirs[v], dag.parents(v)
        axes = [parents.index(u) if u != v else len(parents) for u in node.variables]
        table = np.transpose(ours.cpts[v], axes)
        for k, u in enumerate(node.variables):
            table = np.take(
                table, [ours.states[u].index(level) for level in node.levels[k]], axis=k
            )
        assert np.allclose(table, np.asarray(node.probabilities))
    rows = bnfs.datasets.sample("asia", 50, seed=9).astype(str)
    for method, theirs_method in (("parents", "parents"), ("blanket", "exact")):
        mine = bnfs.predict_proba(ours, "lung", rows, method)
        _, probability = pybnlearn.predict(theirs, "lung", rows, method=theirs_method, prob=True)
        known = ~probability.isna().any(axis=1).to_numpy()
        assert known.sum() > 25
        assert np.allclose(mine.to_numpy()[known], probability[mine.columns].to_numpy()[known])
    frame, dag, ours = survey
    frame = frame.astype({c: "category" for c in ours.levels})
    theirs = pybnlearn.fit(structure(dag), frame)
    for v in dag.nodes:
        if v in ours.levels:
            continue
        assert np.allclose(np.ravel(ours.sd[v]), np.ravel(theirs[v].sd))
        mine = bnfs.predict(ours, v, frame.head(40), "parents").to_numpy()
        assert np.allclose(mine, np.asarray(pybnlearn.predict(theirs, v, frame.head(40))))


@pytest.fixture(scope="module")
def asia_network():
    import bnfs

    frame = bnfs.datasets.sample("asia", 1000, seed=0)
    return bnfs.fit(bnfs.datasets.network("asia"), frame), frame


@pytest.mark.parametrize(
    "predictors, error, message",
    [
        (["ghost"], ValueError, "predictor 'ghost' is not a node of the network"),
        (["smoke", "ghost"], ValueError, "predictor 'ghost' is not a node"),
        (["smoke", "smoke"], ValueError, "predictors names 'smoke' twice"),
        ("smoke", TypeError, r"a list of node names, got 'smoke'; for one predictor, \['smoke'\]"),
        (3, TypeError, "a list of node names, got 3"),
        ([("smoke",)], ValueError, r"predictor \('smoke',\) is not a node"),
    ],
)
def test_likelihood_weighting_refuses_predictors_that_are_not_nodes(
    asia_network, predictors, error, message
):
    """A predictor that is a column but not a node was ignored: the answer was the prior."""
    import bnfs

    network, frame = asia_network
    rows = frame.head(5).assign(ghost="yes")
    with pytest.raises(error, match=message):
        bnfs.predict(network, "lung", rows, "lw", predictors=predictors)


def test_integer_levels_stored_as_floats_are_evidence(asia_network):
    """An integer column with a missing value is read as floats: 2.0 is level "2"."""
    import bnfs

    frame = pd.DataFrame({"a": [1, 2, 1, 2, 1, 2, 3] * 30, "b": [1, 2, 2, 2, 1, 1, 2] * 30})
    network = bnfs.fit(bnfs.DAG(["a", "b"], [("a", "b")]), frame, "bayes")
    floats = frame.astype(float)
    floats.loc[0, "b"] = np.nan
    for method in ("parents", "blanket", "lw"):
        expected = bnfs.predict(network, "a", frame.iloc[1:10], method)
        got = bnfs.predict(network, "a", floats.iloc[1:10], method)
        assert got.tolist() == expected.tolist(), method
    with pytest.raises(ValueError, match=r"holds 2\.5, not a level of node 'b'"):
        bnfs.predict(network, "a", floats.assign(b=2.5).iloc[1:3], "blanket")


def test_duplicated_columns_and_impossible_evidence_are_named(asia_network):
    import bnfs

    network, frame = asia_network
    twice = pd.concat([frame.head(5), frame.head(5)[["smoke"]]], axis=1)
    with pytest.raises(ValueError, match="data has 2 columns named 'smoke'"):
        bnfs.predict(network, "lung", twice, "parents")
    with pytest.raises(ValueError, match="data has 2 columns named 'smoke'"):
        bnfs.predict(network, "lung", twice, "lw")
    # c is a OR b: under maximum likelihood, b = yes with c = no has probability 0
    rng = np.random.default_rng(0)
    a, b = rng.random(400) < 0.5, rng.random(400) < 0.5
    yes_no = lambda x: np.where(x, "yes", "no")
    gate = pd.DataFrame({"a": yes_no(a), "b": yes_no(b), "c": yes_no(a | b)})
    fitted = bnfs.fit(bnfs.DAG(["a", "b", "c"], [("a", "c"), ("b", "c")]), gate, "mle")
    rows = pd.DataFrame({"b": ["yes", "no", "yes"], "c": ["no", "no", "no"]}, index=[7, 8, 9])
    with pytest.warns(RuntimeWarning, match=r"2 row\(s\) \(the first: 7\) are predicted as NaN"):
        got = bnfs.predict(fitted, "a", rows, "blanket")
    assert got.isna().tolist() == [True, False, True] and got[8] == "no"


def test_likelihood_weighting_streams_its_particles(asia_network, monkeypatch):
    """Particles are drawn LW_CELLS at a time (rows x n x levels were allocated at once:
    n = 2e8 asked for terabytes): the estimate is the exact blanket posterior's within
    sampling error, for blocks that split rows and particles alike, and the same seed gives
    the same answer."""
    import tracemalloc

    import bnfs
    import bnfs.models.inference as inference

    network, frame = asia_network
    rows = frame.head(6).drop(columns=["lung"])
    exact = bnfs.predict_proba(network, "lung", rows, "blanket").to_numpy()
    for cells in (1 << 18, 4096, 333):
        monkeypatch.setattr(inference, "LW_CELLS", cells)
        tracemalloc.start()
        found = bnfs.predict_proba(network, "lung", rows, "lw", n=20000, seed=2).to_numpy()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert np.abs(found - exact).max() < 0.03, cells
        if cells < 20000:
            assert peak < 400 * cells * 8 + 2e6, (cells, peak)  # not rows x n x levels
        again = bnfs.predict_proba(network, "lung", rows, "lw", n=20000, seed=2).to_numpy()
        assert np.array_equal(found, again)
