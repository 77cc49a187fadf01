"""CFS with floating search, information-gain ranking, the bagging evaluation and the
Markov-blanket SVM pipeline."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score
from sklearn.tree import DecisionTreeClassifier

from bnfs import CFS, FCBF, Dataset, InformationGain, datasets
from bnfs.select import bagging_scores, mb_svm_pipeline, mutual_information, paper_classifiers
from bnfs.select.cfs import sffs


def test_sffs_floats_back_to_a_better_pair():
    merits = {
        (0,): 1.0,
        (1,): 0.9,
        (2,): 0.8,
        (0, 1): 1.5,
        (0, 2): 1.4,
        (1, 2): 1.7,
        (0, 1, 2): 1.6,
    }
    calls = []

    def merit(subset):
        calls.append(subset)
        return merits[subset]

    # forward: {0}, {0,1}, {0,1,2}; then dropping 0 gives {1,2}, better than any pair so far
    assert sffs(merit, 3) == ((1, 2), 1.7)
    assert len(calls) == len(set(calls))  # each subset scored once
    assert sffs(merit, 3, max_features=1) == ((0,), 1.0)


def test_cfs_prefers_relevant_and_non_redundant_features():
    rng = np.random.default_rng(0)
    n = 2000
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.75, y, 1 - y)
    a_copy = np.where(rng.random(n) < 0.9, a, 1 - a)  # redundant and less relevant
    X = pd.DataFrame({"a": a, "a_copy": a_copy, "b": b, "noise": rng.integers(0, 3, n)})
    cfs = CFS().fit(X, y)
    assert cfs.selected_ == ["a", "b"]
    # Hall's merit of {a, b} by hand from symmetrical uncertainties
    data = Dataset(X.assign(y=y.astype(str)))
    from bnfs.select import symmetrical_uncertainty as su

    expected = (su(data, "a", "y") + su(data, "b", "y")) / np.sqrt(2 + 2 * su(data, "a", "b"))
    assert cfs.merit_ == pytest.approx(expected)
    with pytest.raises(ValueError, match="patience"):
        CFS(patience=0).fit(X, y)


def test_information_gain_ranks_by_mutual_information():
    frame = datasets.corral(7, n=1000, seed=0)
    X, y = frame.drop(columns="Y"), frame.Y
    ig = InformationGain(3).fit(X, y)
    expected = [mutual_info_score(X[c], y) / np.log(2) for c in X.columns]
    np.testing.assert_allclose(ig.gain_, expected, atol=1e-12)
    assert ig.selected_ == [X.columns[i] for i in np.argsort(expected)[::-1][:3]]
    assert ig.selected_[0] == "R" and "I" not in ig.selected_
    assert mutual_information(Dataset(frame), "A0", "A0") == pytest.approx(1.0, abs=0.01)
    assert len(InformationGain(50).fit(X, y).selected_) == 6
    with pytest.raises(ValueError, match="n_features_to_select"):
        InformationGain(0).fit(X, y)


def test_bagging_scores_select_inside_the_folds():
    frame = datasets.load_lucas0()
    X, y = frame.drop(columns="Lung_cancer"), frame.Lung_cancer
    tree = DecisionTreeClassifier(max_depth=4, random_state=0)
    table = bagging_scores(X, y, FCBF(), tree, n_estimators=(1, 10), cv=4, seed=1)
    assert table.n_estimators.tolist() == [1, 10]
    assert (table.accuracy > 0.75).all() and (table.auc > 0.8).all()
    assert ((table.fnr >= 0) & (table.fnr < 0.35)).all()
    assert (table.n_features <= 5).all()  # FCBF keeps a few of the 11
    again = bagging_scores(X, y, FCBF(), tree, n_estimators=(1, 10), cv=4, seed=1)
    pd.testing.assert_frame_equal(table, again)
    everything = bagging_scores(
        X, y, None, paper_classifiers()["naive_bayes"], n_estimators=(1,), cv=4
    )
    assert everything.n_features.iloc[0] == 11 and everything.accuracy.iloc[0] > 0.75
    # the false-negative rate counts misses of the chosen positive class
    flipped = bagging_scores(X, y, None, tree, n_estimators=(1,), cv=4, positive=0)
    assert (
        flipped.fnr.iloc[0] != bagging_scores(X, y, None, tree, n_estimators=(1,), cv=4).fnr.iloc[0]
    )
    with pytest.raises(ValueError, match="binary"):
        bagging_scores(X, np.arange(len(X)) % 3, None, tree)
    with pytest.raises(ValueError, match="positive"):
        bagging_scores(X, y, None, tree, positive="yes")


def test_mb_svm_pipeline_keeps_the_blanket_and_its_baselines():
    frame = datasets.sample("alarm", 1500, seed=2)
    X, y = frame.drop(columns="HYPOVOLEMIA"), frame["HYPOVOLEMIA"]
    truth = {"LVEDVOLUME", "STROKEVOLUME", "LVFAILURE"}
    sizes = {}
    for method in ("sparse_candidate", "screen_based", "grow_shrink"):
        pipe = mb_svm_pipeline(method, seed=0).fit(X, y)
        blanket = set(pipe.named_steps["select"].selected_)
        assert len(blanket & truth) >= (1 if method == "grow_shrink" else 2), method
        sizes[method] = len(blanket)
        assert pipe.score(X, y) > 0.8
    ig = mb_svm_pipeline("information_gain", n_features=sizes["sparse_candidate"]).fit(X, y)
    assert len(ig.named_steps["select"].selected_) == sizes["sparse_candidate"]
    everything = mb_svm_pipeline("all").fit(X, y)
    assert list(everything.named_steps) == ["encode", "svm"]
    assert everything.named_steps["svm"].kernel == "linear" and everything.named_steps["svm"].C == 1
    with pytest.raises(ValueError, match="method must be one of"):
        mb_svm_pipeline("lasso")
