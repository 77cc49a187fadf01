"""SLFS: the tree rules (connect, parent search, depth, children, swap) on data whose
information structure is known, and the TBN as a classifier."""

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from bnfs import SLFS, TBNClassifier, datasets


def _copies(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.85, y, 1 - y)
    b = np.where(rng.random(n) < 0.8, y, 1 - y)

    def noisy(source, rate):
        return np.where(rng.random(n) < rate, source, 1 - source)

    return y, a, b, noisy, rng


def test_copies_hang_under_their_source_and_noise_is_removed():
    y, a, b, noisy, rng = _copies()
    X = pd.DataFrame(
        {"a": a, "b": b, "a_copy": noisy(a, 0.95), "noise": rng.integers(0, 3, len(y))}
    )
    slfs = SLFS().fit(X, pd.Series(y, name="label"))
    assert slfs.parent_ == {"a": "label", "b": "label", "a_copy": "a"}
    assert slfs.removed_ == {"noise": "irrelevant"}
    assert slfs.tree_.parents("a_copy") == ["a"]
    assert "label" in slfs.tree_.nodes and slfs.class_name_ == "label"
    shallow = SLFS(max_depth=1).fit(X, y)
    assert shallow.selected_ == ["a", "b"] and shallow.removed_["a_copy"] == "too deep"


def test_swap_puts_the_more_relevant_feature_above_its_copy():
    y, a, b, noisy, _ = _copies(seed=1)
    X = pd.DataFrame({"a_copy": noisy(a, 0.95), "b": b, "a": a})  # the copy arrives first
    slfs = SLFS().fit(X, y)
    assert slfs.parent_["a"] == slfs.class_name_ and slfs.parent_["a_copy"] == "a"
    by_relevance = SLFS(order="relevance").fit(X, y)
    assert by_relevance.parent_ == slfs.parent_  # principle (i): arrival order does not matter


def test_max_children_pushes_copies_down_a_level():
    y, a, b, noisy, _ = _copies(seed=2)
    X = pd.DataFrame({"a": a, "b": b, **{f"a_{i}": noisy(a, 0.97) for i in range(3)}})
    wide = SLFS(max_depth=3).fit(X, y)
    assert [wide.parent_[f"a_{i}"] for i in range(3)] == ["a"] * 3
    narrow = SLFS(max_depth=3, max_children=1).fit(X, y)
    children = pd.Series(narrow.parent_).value_counts()
    assert children.drop(narrow.class_name_).max() == 1
    assert narrow.tree_.n_nodes == 1 + len(narrow.selected_)
    # one child each: the copies form a chain a -> a_0 -> a_1, and a_2 would sit at depth 4
    assert narrow.removed_ == {"a_2": "too deep"}
    assert set(SLFS(max_depth=4, max_children=1).fit(X, y).selected_) == set(X.columns)


def test_tbn_classifier_probabilities_and_accuracy():
    frame = datasets.load_lucas0()
    X, y = frame.drop(columns="Lung_cancer"), frame.Lung_cancer
    clf = TBNClassifier().fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (clf.predict(X) == clf.classes_[proba.argmax(axis=1)]).all()
    assert set(clf.network_.nodes) == {"Lung_cancer", *clf.selector_.selected_}
    for feature in clf.selector_.selected_:  # TAN-style: the class is a parent of every feature
        assert "Lung_cancer" in clf.network_.parents(feature)
    assert cross_val_score(TBNClassifier(), X, y, cv=5).mean() > 0.8
    # string labels and a DataFrame with unseen states at predict time
    labels = np.where(y == 1, "sick", "well")
    named = TBNClassifier().fit(X, labels)
    assert set(named.predict(X)) <= {"sick", "well"}
    unseen = X.iloc[:3].astype(object).copy()
    unseen.iloc[0, 0] = "never seen"
    assert named.predict_proba(unseen).shape == (3, 2)


def test_tbn_matches_a_hand_computed_posterior():
    X = pd.DataFrame({"f": [0, 0, 1, 1, 1, 0, 1, 1]})
    y = np.array([0, 0, 1, 1, 1, 0, 0, 1])
    clf = TBNClassifier(alpha=1.0, smoothing=1.0).fit(X, y)  # alpha 1: nothing is irrelevant
    # P(y): (4+1)/(8+2) each; P(f=1|y=0) = (1+1)/(4+2), P(f=1|y=1) = (4+1)/(4+2)
    p0, p1 = 5 / 10 * 2 / 6, 5 / 10 * 5 / 6
    np.testing.assert_allclose(
        clf.predict_proba(pd.DataFrame({"f": [1]}))[0], [p0 / (p0 + p1), p1 / (p0 + p1)]
    )


def test_pipeline_with_continuous_features_and_errors():
    frame = datasets.regression(22, n=400, seed=0)
    X = frame.drop(columns="y")
    y = (frame.y > frame.y.median()).astype(int)
    pipe = make_pipeline(SLFS(), LinearSVC())
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.55
    clf = TBNClassifier().fit(X, y)
    assert clf.predict(X.iloc[:5]).shape == (5,)  # new rows coded with the training cuts
    with pytest.raises(ValueError, match="'order' parameter of"):
        SLFS(order="random").fit(X, y)
    with pytest.raises(ValueError, match="max_depth"):
        SLFS(max_depth=0).fit(X, y)
    with pytest.raises(ValueError, match="expecting 22 features"):
        clf.predict(X.iloc[:, :3])


def test_a_model_fitted_on_a_frame_predicts_numpy_rows_by_position():
    import warnings

    frame = datasets.sample("asia", 400, seed=0)
    X, y = frame.drop(columns="either"), frame["either"]
    model = TBNClassifier().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scikit-learn: X has no feature names
        np.testing.assert_array_equal(model.predict(X.to_numpy()), model.predict(X))
        np.testing.assert_allclose(model.predict_proba(X.to_numpy()), model.predict_proba(X))


def test_the_tree_classifier_says_when_max_time_stopped_it():
    import warnings

    import bnfs

    frame = bnfs.datasets.corral(7, n=2000, seed=0)
    X, y = frame.drop(columns="Y"), frame["Y"]
    full = bnfs.TBNClassifier().fit(X, y)
    assert full.stopped_ is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cut = bnfs.TBNClassifier(max_time=1e-9).fit(X, y)
    assert cut.stopped_ == cut.selector_.stopped_ and "max_time" in cut.stopped_
    assert cut.predict(X).shape == (len(X),)
