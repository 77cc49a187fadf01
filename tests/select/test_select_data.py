"""MarkovBlanketSelector on real data's shapes: the default learner by size, bounded conditioning sets, missing values, budgets, structural EM."""

import warnings

import numpy as np
import pandas as pd
import pytest
from test_select import TARGET

import reference
from bnfs import (
    BAHSIC,
    CFS,
    FCBF,
    HSMB,
    SLFS,
    SRS,
    HybridSelector,
    MarkovBlanketSelector,
    StableBlanketSelector,
    datasets,
    learn,
)
from bnfs.select import EmptySelectionWarning


@pytest.fixture(scope="module")
def alarm():
    frame = reference.data("alarm")
    return frame.drop(columns=TARGET), frame[TARGET]


def test_the_default_learner_follows_the_datas_size(alarm, monkeypatch):
    """learner="auto" (issue 44): learn's whole network where features squared times rows
    stay within AUTO_NETWORK_WORK, the blanket being that of the graph learn gives on X and
    y; the blanket of learn's network on the class's neighbourhood past it (HITON-PC for
    parents and children)."""
    from bnfs import learners

    X, y = alarm
    narrow = MarkovBlanketSelector().fit(X, y)
    assert narrow.learner_ == "learn" and narrow.network_ is not None
    graph = learn(X.assign(**{y.name: y}), progress=False)
    assert narrow.class_name_ == y.name and narrow.network_ == graph  # the same network
    assert set(narrow.selected_) == set(graph.markov_blanket(y.name))
    assert narrow.selected_ == [c for c in X.columns if c in set(narrow.selected_)]
    work = float(X.shape[1]) ** 2 * len(X)
    monkeypatch.setattr(learners.frontends, "AUTO_NETWORK_WORK", work - 1)
    wide = MarkovBlanketSelector().fit(X, y)
    assert wide.learner_ == "neighbourhood_mb" and wide.network_ is None
    assert wide.selected_ == MarkovBlanketSelector("neighbourhood_mb").fit(X, y).selected_
    neighbours = MarkovBlanketSelector(parents_and_children=True).fit(X, y)
    assert neighbours.learner_ == "hiton_pc"
    monkeypatch.setattr(learners.frontends, "AUTO_NETWORK_WORK", work)
    assert MarkovBlanketSelector().fit(X, y).learner_ == "learn"
    with pytest.raises(ValueError, match=r"learner must be one of \['auto', "):
        MarkovBlanketSelector("magic").fit(X, y)
    with pytest.raises(ValueError, match="does not take"):
        MarkovBlanketSelector(learner_options={"test": "x2"}).fit(X, y)  # learn's


def test_selectors_bound_the_local_learners_conditioning_sets(alarm, monkeypatch):
    """A local learner that searches subsets conditions on at most 3 variables when it
    selects features, unless learner_options say otherwise; the others are left alone."""
    import importlib

    from bnfs import learners
    from bnfs.select._base import SELECTION_MAX_COND_SIZE, selection_options

    assert selection_options("hiton_mb", None) == {"max_cond_size": SELECTION_MAX_COND_SIZE}
    assert selection_options("mmpc", {"max_cond_size": None}) == {"max_cond_size": None}
    assert selection_options("iamb_mb", {"alpha": 0.01}) == {"alpha": 0.01}
    assert selection_options("hill_climbing", None) == {}
    seen = []
    assert "max_cond_size" in learners.get("mmmb").options  # read before the spy hides it
    module = importlib.import_module("bnfs.constraint")  # where the registry finds it
    original = module.mmmb

    def spy(data, target, **options):
        seen.append(options.get("max_cond_size", "absent"))
        return original(data, target, **options)

    monkeypatch.setattr(module, "mmmb", spy)
    X, y = alarm
    MarkovBlanketSelector("mmmb").fit(X, y)
    MarkovBlanketSelector("mmmb", learner_options={"max_cond_size": 1}).fit(X, y)
    StableBlanketSelector("mmmb", R=2, random_state=0).fit(X, y)
    assert seen == [3, 1, 3, 3]


def test_markov_blanket_selection_learns_around_missing_values(alarm):
    """Missing values stay in place: CI-test learners test on the rows observed in each
    test's variables, hill climbing runs inside structural EM; the blanket of HYPOVOLEMIA
    survives 10% of the values missing at random, and missing_ says how it was learned."""
    X, y = alarm
    holes = X.mask(np.random.default_rng(0).random(X.shape) < 0.1)
    before = holes.copy()
    for learner in ("hiton_mb", "pc_stable"):
        selector = MarkovBlanketSelector(learner).fit(holes, y)
        assert selector.selected_ == MarkovBlanketSelector(learner).fit(X, y).selected_
        used = selector.missing_["rows_used"]
        assert selector.missing_["how"] == "available-case tests"
        assert selector.missing_["values"] == int(holes.isna().to_numpy().sum())
        complete = int(holes.notna().all(axis=1).sum())  # 2% of the rows: 0.9^36
        assert complete < used["min"] <= used["median"] <= used["max"] < len(X)
        assert selector.transform(holes).shape == (len(X), len(selector.selected_))
    em = MarkovBlanketSelector(n_jobs=2).fit(holes, y)  # n_jobs: no matter to EM
    assert em.learner_ == "learn" and em.missing_["how"] == "structural EM"
    assert set(em.selected_) <= set(X.columns) and em.selected_
    assert MarkovBlanketSelector().fit(X, y).missing_ is None
    pd.testing.assert_frame_equal(holes, before)
    with pytest.raises(ValueError, match="mmhc needs complete rows.*available-case tests"):
        MarkovBlanketSelector("mmhc").fit(holes, y)
    with pytest.raises(
        ValueError, match=r"structural EM \(bnfs.structural_em\), which does not take restarts"
    ):
        MarkovBlanketSelector("hill_climbing", learner_options={"restarts": 2}).fit(holes, y)


def test_continuous_features_with_gaps_are_cut_on_their_observed_values():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 600)
    X = pd.DataFrame({"signal": y + rng.normal(0, 0.4, 600), "noise": rng.normal(size=600)}).mask(
        rng.random((600, 2)) < 0.15
    )
    selector = MarkovBlanketSelector("iamb_mb").fit(X, y)
    assert selector.selected_ == ["signal"] and selector.missing_["values"] == int(
        X.isna().to_numpy().sum()
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda t: HSMB(max_time=t),
        lambda t: BAHSIC(2, step=1, max_time=t),
        lambda t: FCBF(max_time=t),
        lambda t: CFS(max_time=t),
        lambda t: SLFS(max_time=t),
        lambda t: SRS(max_time=t),
        lambda t: HybridSelector("pc", max_time=t),
        lambda t: HybridSelector("gs", max_time=t),
    ],
    ids=["hsmb", "bahsic", "fcbf", "cfs", "slfs", "srs", "hybrid-pc", "hybrid-gs"],
)
def test_every_selector_stops_on_time(make):
    """max_time=0: the selection so far (the first step always runs), a RuntimeWarning
    naming the selector, ``stopped_``; with time enough, no warning."""
    frame = datasets.corral(7, n=500, seed=0)
    X, y = frame.drop(columns="Y"), frame["Y"]
    name = type(make(None)).__name__
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", EmptySelectionWarning)
        full = make(600).fit(X, y)
    assert full.stopped_ is None
    with pytest.warns(RuntimeWarning, match=f"{name} stopped early"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EmptySelectionWarning)
            early = make(0).fit(X, y)
    assert early.stopped_ == "max_time reached"


def test_max_time_is_refused_with_a_causal_learner_that_does_not_stop():
    frame = datasets.corral(7, n=200, seed=0)
    with pytest.raises(ValueError, match="'tpda' does not; these do: \\['pc', 'gs', 'iamb'\\]"):
        HybridSelector("tpda", max_time=5).fit(frame.drop(columns="Y"), frame["Y"])


def test_stopped_selections_keep_the_most_relevant_feature():
    frame = datasets.corral(7, n=500, seed=0)
    X, y = frame.drop(columns="Y"), frame["Y"]
    fcbf, hsmb = FCBF().fit(X, y), HSMB().fit(X, y)
    for selector, relevance in ((FCBF, fcbf.su_), (HSMB, hsmb.relevance_)):
        with pytest.warns(RuntimeWarning, match="stopped early"):
            stopped = selector(max_time=0).fit(X, y)
        assert stopped.selected_ == [X.columns[np.argmax(relevance)]]


def test_structural_em_itself_selects_from_gaps():
    """learner="structural_em" on data with gaps runs structural EM itself (it passed
    ``maximize="structural_em"`` to it, a ValueError): the blanket of its network."""
    import bnfs

    frame = bnfs.datasets.sample("asia", 500, seed=1).astype(object)
    frame.iloc[::9, 2] = None
    X, y = frame.drop(columns="either"), frame["either"]
    selector = MarkovBlanketSelector("structural_em", random_state=0).fit(X, y)
    assert selector.missing_["how"] == "structural EM"
    network = bnfs.structural_em(X.assign(either=y), seed=0)
    assert set(selector.selected_) == set(network.markov_blanket("either"))
