"""Selectors: blankets of sampled networks, FCBF, the hybrid, pipelines, input handling,
errors and scikit-learn's estimator checks for every selector."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils.estimator_checks import parametrize_with_checks

import reference
from bnfs import (
    BAHSIC,
    CFS,
    FCBF,
    HSMB,
    SLFS,
    SRS,
    HybridSelector,
    InformationGain,
    MarkovBlanketSelector,
    StableBlanketSelector,
    TBNClassifier,
    datasets,
)
from bnfs.stats.metrics import blanket_scores

TARGET = "HYPOVOLEMIA"


@pytest.fixture(scope="module")
def alarm():
    frame = reference.data("alarm")
    return frame.drop(columns=TARGET), frame[TARGET]


@pytest.mark.parametrize(
    "learner, bound",
    [("hiton_mb", 0.99), ("pc_stable", 0.99), ("iamb_mb", 0.79), ("hill_climbing", 0.79)],
)
def test_recovers_the_blanket_of_a_sampled_network(alarm, learner, bound):
    X, y = alarm
    selector = MarkovBlanketSelector(learner).fit(X, y)
    truth = reference.true_dag("alarm")
    assert blanket_scores(selector.selected_, truth, TARGET)["f1"] >= bound
    assert list(selector.get_feature_names_out()) == selector.selected_
    assert selector.transform(X).shape == (len(X), len(selector.selected_))
    assert (selector.network_ is None) == learner.endswith("_mb")


def test_parents_and_children_drop_the_spouses(alarm):
    X, y = alarm
    truth = reference.true_dag("alarm")
    for learner in ("pc_stable", "hiton_pc"):
        selector = MarkovBlanketSelector(learner, parents_and_children=True).fit(X, y)
        assert set(selector.selected_) == set(truth.neighbours(TARGET))


def test_numpy_input_and_no_mutation(alarm):
    X, y = alarm
    before = X.copy()
    named = MarkovBlanketSelector("hiton_mb").fit(X, y)
    plain = MarkovBlanketSelector("hiton_mb").fit(X.to_numpy(), y.to_numpy())
    assert list(plain.get_support(indices=True)) == list(named.get_support(indices=True))
    assert plain.selected_ == [f"x{i}" for i in named.get_support(indices=True)]
    assert not hasattr(plain, "feature_names_in_") and named.n_features_in_ == X.shape[1]
    pd.testing.assert_frame_equal(X, before)


def test_continuous_features_are_discretized():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 3000)
    cause = y + rng.normal(scale=0.5, size=3000)  # dependent on y
    noise = rng.normal(size=3000)  # irrelevant
    downstream = cause + rng.normal(scale=0.5, size=3000)  # separated from y by `cause`
    X = pd.DataFrame({"cause": cause, "noise": noise, "downstream": downstream})
    for discretizer in ("quantile", "mdl"):
        selector = MarkovBlanketSelector("iamb_mb", discretizer=discretizer, n_bins=5)
        assert "cause" in selector.fit(X, y).selected_
        assert "noise" not in selector.selected_


def test_pipeline_and_cross_validation(alarm):
    X, y = alarm
    pipe = make_pipeline(
        MarkovBlanketSelector("hiton_mb"),
        OneHotEncoder(handle_unknown="ignore"),
        LogisticRegression(max_iter=500),
    )
    scores = cross_val_score(pipe, X.iloc[:2000], y.iloc[:2000], cv=3)
    majority = y.iloc[:2000].value_counts(normalize=True).max()
    assert scores.mean() > majority + 0.03


def test_seeded_learners_are_reproducible(alarm):
    X, y = alarm
    options = {"restarts": 2, "max_parents": 3}
    a = MarkovBlanketSelector("hill_climbing", learner_options=options, random_state=3).fit(X, y)
    b = MarkovBlanketSelector("hill_climbing", learner_options=options, random_state=3).fit(X, y)
    assert a.selected_ == b.selected_ and a.network_ == b.network_


def test_selectors_speak_scikit_learn(alarm):
    """``selected_``, ``get_support``, ``random_state`` and ``class_name_`` on every
    discrete selector; the names from before scikit-learn's (``seed``, ``blanket_``,
    ``target_name_``) are gone: 0.1.0 is unreleased."""
    X, y = alarm
    X, y = X.iloc[:1500], y.iloc[:1500]
    options = {"restarts": 1, "max_parents": 3}
    new = MarkovBlanketSelector("hill_climbing", learner_options=options, random_state=4)
    new.fit(X, y)
    assert new.class_name_ in new.network_.nodes
    with pytest.raises(TypeError, match="seed"):
        MarkovBlanketSelector("hill_climbing", seed=4)
    assert not hasattr(new, "blanket_") and not hasattr(new, "target_name_")
    assert list(X.columns[new.get_support()]) == new.selected_
    generator = MarkovBlanketSelector("kiamb_mb", random_state=np.random.default_rng(0))
    assert set(generator.fit(X, y).selected_) <= set(X.columns)
    for selector in (FCBF(), CFS(), InformationGain(), SLFS(), SRS(), HybridSelector()):
        selector.fit(X, y)
        assert isinstance(selector.class_name_, str) and selector.class_name_ not in X.columns
        assert list(X.columns[selector.get_support()]) == list(selector.get_feature_names_out())


def test_constant_features_are_never_selected(alarm):
    X, y = alarm
    X = X.assign(CONSTANT="same")
    for selector in (
        MarkovBlanketSelector("hiton_mb"),
        FCBF(),
        CFS(),
        InformationGain(50),
        HybridSelector(),
        SRS(),
        SLFS(),
    ):
        mask = selector.fit(X, y).get_support()
        assert mask.shape == (X.shape[1],) and not mask[-1], type(selector).__name__
    with pytest.raises(ValueError, match="every feature of X is constant"):
        FCBF().fit(X[["CONSTANT"]], y)


def test_errors(alarm):
    X, y = alarm
    with pytest.raises(ValueError, match="single class"):
        MarkovBlanketSelector("iamb_mb").fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="learner must be one of"):
        MarkovBlanketSelector("nope").fit(X, y)
    with pytest.raises(ValueError, match="parents_and_children"):
        MarkovBlanketSelector("iamb_mb", parents_and_children=True).fit(X, y)
    with pytest.raises(ValueError, match="rows but y has"):
        MarkovBlanketSelector("iamb_mb").fit(X, y.iloc[:10])
    with pytest.raises(ValueError, match="continuous"):
        MarkovBlanketSelector("iamb_mb").fit(X, np.linspace(0, 1, len(X)))
    with pytest.raises(ValueError, match="'CVP'"):
        MarkovBlanketSelector("iamb_mb").fit(X.assign(CVP=np.nan), y)
    with pytest.raises(TypeError, match="learner_options"):
        MarkovBlanketSelector("iamb_mb", learner_options=[1]).fit(X, y)
    with pytest.raises(ValueError, match="0 feature"):
        MarkovBlanketSelector("iamb_mb").fit(X.iloc[:, :0], y)
    with pytest.raises(ValueError, match="'x1' of X contains infinity"):
        MarkovBlanketSelector("iamb_mb").fit(np.array([[0.0, 1.0], [1.0, np.inf]] * 5), [0, 1] * 5)
    with pytest.raises(ValueError, match="y is None"):
        MarkovBlanketSelector("iamb_mb").fit(X, None)


def test_symmetrical_uncertainty_equals_its_definition(alarm):
    from scipy.stats import entropy
    from sklearn.metrics import mutual_info_score

    from bnfs import Dataset
    from bnfs.select import symmetrical_uncertainty

    X, _ = alarm
    data = Dataset(X)
    for a, b in [("CVP", "LVEDVOLUME"), ("HR", "CATECHOL"), ("HR", "HR")]:
        h_a = entropy(X[a].value_counts())
        h_b = entropy(X[b].value_counts())
        expected = 2 * mutual_info_score(X[a], X[b]) / (h_a + h_b)
        assert symmetrical_uncertainty(data, a, b) == pytest.approx(expected, abs=1e-12)


def test_fcbf_keeps_one_of_redundant_features_and_drops_noise():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 2000)
    strong = y + rng.normal(scale=0.3, size=2000)
    X = pd.DataFrame(
        {
            "noise": rng.normal(size=2000),
            "strong": strong,
            "twin": strong + rng.normal(scale=0.01, size=2000),
            "weak": y + rng.normal(scale=2.0, size=2000),
        }
    )
    fcbf = FCBF(threshold=0.02, n_bins=4).fit(X, y)
    assert len({"strong", "twin"} & set(fcbf.selected_)) == 1
    assert "noise" not in fcbf.selected_
    assert fcbf.su_[0] < 0.02 < min(fcbf.su_[1:3])
    assert list(fcbf.get_feature_names_out()) == [c for c in X.columns if c in fcbf.selected_]
    with pytest.raises(ValueError, match="threshold"):
        FCBF(threshold=2).fit(X, y)


@pytest.mark.filterwarnings("ignore:No features were selected")
@parametrize_with_checks(
    [
        MarkovBlanketSelector("iamb_mb"),
        StableBlanketSelector(R=5),
        FCBF(),
        CFS(),
        InformationGain(3),
        HybridSelector(),
        HSMB(),
        BAHSIC(),
        SRS(),
        SLFS(),
        TBNClassifier(),
    ]
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_hybrid_runs_fcbf_then_the_causal_learner():
    rng = np.random.default_rng(2)
    n = 3000
    y = rng.integers(0, 2, n)
    cause = np.where(rng.random(n) < 0.85, y, 1 - y)  # y's neighbour
    twin = np.where(rng.random(n) < 0.98, cause, 1 - cause)  # redundant copy of `cause`
    other = np.where(rng.random(n) < 0.8, y, 1 - y)  # second neighbour
    X = pd.DataFrame({"cause": cause, "twin": twin, "other": other, "noise": rng.integers(0, 3, n)})
    for causal in ("pc", "tpda", "gs", "iamb"):
        hybrid = HybridSelector(causal).fit(X, y)
        assert len({"cause", "twin"} & set(hybrid.fcbf_selected_)) == 1
        assert set(hybrid.selected_) <= set(hybrid.fcbf_selected_)
        assert "other" in hybrid.selected_ and "noise" not in hybrid.selected_
        assert (hybrid.network_ is not None) == (causal in ("pc", "tpda"))
    alone = HybridSelector("gs", fcbf_threshold=None).fit(X, y)
    assert alone.fcbf_selected_ == list(X.columns) and "other" in alone.selected_
    with pytest.raises(ValueError, match="'causal' parameter of"):
        HybridSelector("hiton").fit(X, y)
    with pytest.raises(TypeError, match="causal_options"):
        HybridSelector(causal_options=3).fit(X, y)


@pytest.mark.parametrize(
    "selector",
    [
        MarkovBlanketSelector("hiton_mb"),
        FCBF(),
        CFS(),
        InformationGain(4),
        HybridSelector("gs"),
        HSMB(),
        BAHSIC(4),
        SRS(),
        SLFS(),
    ],
    ids=lambda s: type(s).__name__,
)
def test_every_selector_in_a_pipeline_with_pandas_or_numpy(selector):

    frame = datasets.corral(7, n=400, seed=5)
    X, y = frame.drop(columns="Y"), frame["Y"]
    pipe = make_pipeline(selector, LogisticRegression())
    for data in (X, X.to_numpy()):
        scores = cross_val_score(pipe, data, y, cv=3)
        assert scores.mean() > 0.7  # R alone gives 0.75; the relevant four give more
    fitted = pipe.fit(X, y)[0]
    kept = list(fitted.get_feature_names_out())
    assert kept and set(kept) <= set(X.columns) and "I" not in kept[:1]


def test_tbn_classifier_in_cross_validation():

    frame = datasets.corral(7, n=400, seed=5)
    X, y = frame.drop(columns="Y"), frame["Y"]
    assert cross_val_score(TBNClassifier(), X.to_numpy(), y, cv=3).mean() > 0.7


@pytest.mark.parametrize(
    "make",
    [
        lambda jobs: MarkovBlanketSelector("hill_climbing", n_jobs=jobs),
        lambda jobs: MarkovBlanketSelector("pc_stable", n_jobs=jobs),
        lambda jobs: MarkovBlanketSelector("iamb", n_jobs=jobs),
        lambda jobs: HybridSelector("pc", n_jobs=jobs),
        lambda jobs: SRS(n_jobs=jobs),
    ],
)
def test_n_jobs_never_changes_the_selection(alarm, make):
    X, y = alarm
    one, two = make(1).fit(X, y), make(2).fit(X, y)
    np.testing.assert_array_equal(one.get_support(), two.get_support())
    assert one.get_support().any()


def _noise(seed: int = 0, n: int = 300):
    """Five 3-level features and a class that ignores them: the blanket is empty."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, (n, 5)), columns=[f"f{i}" for i in range(5)]).astype(str)
    return X, pd.Series(rng.integers(0, 2, n).astype(str), name="y")


def test_an_empty_selection_warns_and_keeps_the_pipeline_running():
    from bnfs import EmptySelectionWarning

    X, y = _noise()
    with pytest.warns(
        EmptySelectionWarning,
        match="hiton_mb found the class independent of every feature.*Try a larger alpha",
    ):
        selector = MarkovBlanketSelector("hiton_mb").fit(X, y)
    assert selector.selected_ == [] and selector.empty_
    assert selector.get_support().all()  # if_empty="keep_all": every feature passed on
    pipeline = make_pipeline(
        MarkovBlanketSelector("hiton_mb"), OneHotEncoder(), LogisticRegression()
    )
    with pytest.warns(EmptySelectionWarning):
        scores = cross_val_score(pipeline, X, y, cv=3, error_score="raise")
    assert np.isfinite(scores).all()
    with pytest.warns(EmptySelectionWarning, match="transform returns no column"):
        none = MarkovBlanketSelector("hiton_mb", if_empty="keep_none").fit(X, y)
    assert not none.get_support().any()
    with pytest.raises(ValueError, match="selected no feature"):
        MarkovBlanketSelector("hiton_mb", if_empty="raise").fit(X, y)
    with pytest.raises(ValueError, match="'if_empty' parameter of"):
        FCBF(if_empty="drop").fit(X, y)


def test_select_command_says_once_that_the_selection_is_empty(tmp_path, monkeypatch, capsys):
    from bnfs import cli

    X, y = _noise()
    X.assign(y=y).to_csv(tmp_path / "noise.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["select", "noise.csv", "--target", "y", "--cv", "3", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "kept 0 of 5 features" in captured.out and "nan" not in captured.out
    warnings_shown = [line for line in captured.err.splitlines() if line.strip()]
    assert warnings_shown[0].startswith(
        "bnfs select: warning: MarkovBlanketSelector selected no feature"
    )
    assert all(line.startswith("bnfs select: warning:") for line in warnings_shown)
    assert "Traceback" not in captured.err and len(warnings_shown) == 2
