"""StableBlanketSelector: blankets over resamples, its thresholds, and stability across
samples against a single-sample blanket."""

import numpy as np
import pandas as pd
import pytest

import reference
from bnfs import MarkovBlanketSelector, StableBlanketSelector, blanket_frequency, datasets
from bnfs.stats.metrics import blanket_scores

TARGET = "HYPOVOLEMIA"


@pytest.fixture(scope="module")
def alarm():
    frame = reference.data("alarm")
    return frame.drop(columns=TARGET), frame[TARGET]


def _jaccard(a, b) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 1.0


def test_the_stable_blanket_is_the_true_one_and_reproducible(alarm):
    X, y = alarm
    selector = StableBlanketSelector(R=20, random_state=3).fit(X, y)
    scores = blanket_scores(selector.selected_, datasets.network("alarm"), TARGET)
    assert scores["precision"] == 1.0 and scores["recall"] >= 2 / 3
    assert list(selector.frequencies_.index) == list(X.columns)
    assert selector.transform(X).shape[1] == len(selector.selected_)
    again = StableBlanketSelector(R=20, random_state=3).fit(X, y)
    assert again.selected_ == selector.selected_
    assert again.frequencies_.equals(selector.frequencies_)


def test_it_is_more_stable_across_samples_than_one_blanket():
    """Blankets of insurance's Accident on disjoint halves of a sample: the stable one
    agrees with itself at least as well as a single HITON-MB run does."""
    frame = datasets.sample("insurance", 4000, seed=5)
    X, y = frame.drop(columns="Accident"), frame["Accident"]
    halves = np.random.default_rng(0).permutation(len(frame)) % 2
    plain, stable = [], []
    for half in (0, 1):
        rows = halves == half
        plain.append(MarkovBlanketSelector("hiton_mb").fit(X[rows], y[rows]).selected_)
        stable.append(StableBlanketSelector(R=20).fit(X[rows], y[rows]).selected_)
    assert stable[0] and stable[1]
    assert _jaccard(*stable) >= _jaccard(*plain)


@pytest.mark.filterwarnings("ignore::bnfs.EmptySelectionWarning")
def test_thresholds():
    frame = datasets.sample("asia", 3000, seed=0)
    X, y = frame.drop(columns="lung"), frame["lung"]
    auto = StableBlanketSelector(R=20).fit(X, y)
    assert auto.selected_ == ["tub", "smoke", "either"]
    fixed = StableBlanketSelector(R=20, threshold=0.9).fit(X, y)
    assert fixed.threshold_ == 0.9
    assert fixed.selected_ == [f for f in X.columns if auto.frequencies_[f] >= 0.9]
    strict = StableBlanketSelector(R=20, threshold="stability", max_false=0.5).fit(X, y)
    loose = StableBlanketSelector(R=20, threshold="stability", max_false=5.0).fit(X, y)
    q, p = float(auto.frequencies_.sum()), X.shape[1]
    assert loose.threshold_ == pytest.approx(max((1 + q * q / (p * 5.0)) / 2, 0.6))
    assert strict.threshold_ >= loose.threshold_
    assert set(strict.selected_) <= set(loose.selected_)
    boot = StableBlanketSelector(R=20, resample="bootstrap").fit(X, y)
    assert boot.selected_ == ["tub", "smoke", "either"]


def test_subsample_frequencies_draw_distinct_rows():
    data = datasets.sample("asia", 600, seed=1)
    half = blanket_frequency(data, "lung", R=5, replace=False, seed=2)
    assert half.between(0, 1).all()
    with pytest.raises(ValueError, match="without replacement"):
        blanket_frequency(data, "lung", R=2, m=601, replace=False)
    with pytest.raises(TypeError, match="replace"):
        blanket_frequency(data, "lung", R=2, replace="no")


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"learner": "sparse"}, ValueError, "learner must be one of"),
        ({"threshold": 1.5}, ValueError, "'threshold' parameter of"),
        ({"threshold": "often"}, ValueError, "'threshold' parameter of .*'stability'"),
        ({"resample": "jackknife"}, ValueError, "'resample' parameter of"),
        ({"R": 0}, ValueError, "R"),
        ({"max_false": 0}, ValueError, "max_false"),
        ({"random_state": "x"}, TypeError, "random_state"),
        ({"learner_options": {"max_parents": 2}}, ValueError, "does not take max_parents"),
    ],
)
def test_bad_parameters_are_named(options, error, message):
    frame = datasets.sample("asia", 300, seed=0)
    with pytest.raises(error, match=message):
        StableBlanketSelector(**options).fit(frame.drop(columns="lung"), frame["lung"])


def test_near_copies_share_their_frequency():
    # the class depends on a signal seen through three near-copies (each differs from it
    # in 1 row of 100): a resample's blanket keeps the copy that resample ranks first (each
    # screens the others off), so each copy alone is found on a share of the resamples,
    # the group on all of them
    rng = np.random.default_rng(0)
    signal = rng.integers(0, 2, 1500)
    y = np.where(rng.random(1500) < 0.8, signal, 1 - signal)
    copies = {f"copy{i}": np.where(rng.random(1500) < 0.99, signal, 1 - signal) for i in range(3)}
    noise = {f"noise{i}": rng.integers(0, 2, 1500) for i in range(3)}
    X = pd.DataFrame(copies | noise)
    grouped = StableBlanketSelector(R=20).fit(X, y)
    assert len(grouped.selected_) == 1 and grouped.selected_[0].startswith("copy")
    group = grouped.groups_[grouped.selected_[0]]
    assert sorted(group) == ["copy0", "copy1", "copy2"]
    assert grouped.group_frequencies_[grouped.selected_[0]] >= 0.9
    assert grouped.frequencies_[group].max() < grouped.group_frequencies_[grouped.selected_[0]]
    alone = StableBlanketSelector(R=20, copies=None).fit(X, y)
    assert all(len(members) == 1 for members in alone.groups_.values())
    with pytest.raises(ValueError, match="copies"):
        StableBlanketSelector(copies=1.5).fit(X, y)


def test_the_stable_blanket_stops_resampling_on_time():
    """max_time: no resample starts past it; the frequencies count those done (at least
    one), a warning says how many; a budget never reached changes nothing."""
    import warnings

    frame = datasets.sample("asia", 3000, seed=0)
    X, y = frame.drop(columns="lung"), frame["lung"]
    with pytest.warns(RuntimeWarning, match=r"the blankets of 1 of 20 resamples") as said:
        early = StableBlanketSelector(R=20, max_time=1e-9).fit(X, y)
    assert early.n_resamples_ == 1 and set(early.frequencies_.unique()) <= {0.0, 1.0}
    assert len([w for w in said if "stopped early" in str(w.message)]) == 1  # one, not R
    assert early.stopped_ == "max_time reached"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        timed = StableBlanketSelector(R=20, max_time=600).fit(X, y)
    full = StableBlanketSelector(R=20).fit(X, y)
    assert timed.n_resamples_ == 20 and timed.selected_ == full.selected_
    assert timed.frequencies_.equals(full.frequencies_)


def test_blanket_sets_on_time_in_parallel_workers():
    from bnfs.bootstrap import blanket_sets

    frame = datasets.sample("asia", 2000, seed=1)
    with pytest.warns(RuntimeWarning, match="resamples found so far") as caught:
        found = blanket_sets(frame, "lung", R=30, n_jobs=2, max_time=1e-9)
    assert 1 <= len(found) < 30 and all(isinstance(s, set) for s in found)
    assert [w.category for w in caught] == [RuntimeWarning]  # not joblib's cancellations
