"""SRS and its sparse-group-lasso solver: against scikit-learn's lasso, the optimality
conditions, and a non-faithful network whose blanket is known."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Lasso

from bnfs import SRS, datasets
from bnfs.select import sparse_group_lasso
from bnfs.select.group_lasso import penalty_scale


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(200, 9))
    A[:, 1] += A[:, 0]  # correlated columns within a group
    y = A @ np.array([1.0, -1.0, 0.5, 0, 0, 0, 0.3, 0, 0]) + 0.3 * rng.normal(size=200)
    A -= A.mean(axis=0)
    return A, y - y.mean(), [np.array([0, 1, 2]), np.array([3, 4, 5]), np.array([6, 7, 8])]


def test_singleton_groups_and_no_groups_give_the_lasso(problem):
    A, y, _ = problem
    lasso = Lasso(alpha=15 / len(y), fit_intercept=False, tol=1e-12, max_iter=100_000)
    expected = lasso.fit(A, y).coef_
    singletons = [np.array([i]) for i in range(A.shape[1])]
    np.testing.assert_allclose(
        sparse_group_lasso(A, y, singletons, 15.0, 0.0, tol=1e-13), expected, atol=1e-6
    )
    np.testing.assert_allclose(
        sparse_group_lasso(A, y, singletons, 0.0, 15.0, tol=1e-13), expected, atol=1e-6
    )


def test_solution_meets_the_optimality_conditions(problem):
    A, y, groups = problem
    l1, group = 8.0, 20.0
    beta = sparse_group_lasso(A, y, groups, l1, group, tol=1e-12, max_iter=50_000)
    gradient = A.T @ (y - A @ beta)  # must lie in the subdifferential of the penalty
    for members in groups:
        weight = np.sqrt(len(members))
        b, g = beta[members], gradient[members]
        if np.linalg.norm(b) == 0:
            # zero group: the soft-thresholded gradient fits in the group ball
            assert (
                np.linalg.norm(np.sign(g) * np.maximum(np.abs(g) - l1, 0)) <= group * weight + 1e-6
            )
            continue
        nonzero = b != 0
        expected = l1 * np.sign(b[nonzero]) + group * weight * b[nonzero] / np.linalg.norm(b)
        np.testing.assert_allclose(g[nonzero], expected, atol=1e-5)
        assert (np.abs(g[~nonzero]) <= l1 + 1e-6).all()
    assert np.linalg.norm(beta[groups[1]]) == 0 and np.linalg.norm(beta[groups[0]]) > 0
    # penalties at ratio 1 empty the model, at small ratios they keep the true groups
    big = penalty_scale(A, y, groups, 1.0, 0.0)
    assert not sparse_group_lasso(A, y, groups, *big).any()
    small = sparse_group_lasso(A, y, groups, *penalty_scale(A, y, groups, 0.01, 0.01))
    assert (small[[0, 1, 2, 6]] != 0).all()


def test_multi_column_responses_share_group_norms(problem):
    A, y, groups = problem
    Y = np.column_stack([y, -y])
    beta = sparse_group_lasso(A, Y, groups, 5.0, 10.0)
    np.testing.assert_allclose(beta[:, 0], -beta[:, 1], atol=1e-8)
    assert beta.shape == (9, 2)


def test_srs_finds_the_blanket_of_a_non_faithful_network():
    frame = datasets.sample("asia", 5000, seed=1)  # either = tub OR lung, deterministically
    X, y = frame.drop(columns="either"), frame["either"]
    srs = SRS().fit(X, y)
    assert srs.parents_and_children_ == ["tub", "lung"]
    assert srs.representative_sets_["lung"][0] == "lung"
    assert set(srs.selected_) == {"tub", "lung"}
    assert (srs.coef_ > 0).sum() == 2
    dense = SRS(lambda_group=0.0, lambda_l1=0.0).fit(X, y)
    members = {f for group in dense.representative_sets_.values() for f in group}
    assert set(dense.selected_) == members  # no penalty: every representative kept


def test_srs_on_continuous_and_multiclass_data():
    rng = np.random.default_rng(3)
    n = 1500
    y = rng.integers(0, 3, n)
    X = pd.DataFrame(
        {
            "signal": y + rng.normal(scale=0.5, size=n),
            "noise": rng.normal(size=n),
            "kind": np.where(y == 2, "b", "a"),
        }
    )
    srs = SRS().fit(X, y)
    assert "signal" in srs.selected_ and "noise" not in srs.selected_
    with pytest.raises(ValueError, match="lambda_group"):
        SRS(lambda_group=2.0).fit(X, y)
    with pytest.raises(ValueError, match="single class"):
        SRS().fit(X, np.zeros(n))


def test_hiton_pc_without_symmetry_keeps_one_of_exact_copies():
    from bnfs.constraint import hiton_pc, mmpc, pcmb

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 2000)
    signal = np.where(rng.random(2000) < 0.85, y, 1 - y)
    frame = pd.DataFrame({"c0": signal, "c1": signal, "c2": signal, "t": y})
    # each copy separates the others from t, so the AND rule alone would empty the set; the
    # copies screen each other off (information equivalence), so the symmetric search keeps
    # the one t's own search found, as the one-way search does
    assert hiton_pc(frame, "t", alpha=0.01) == ["c0"]
    assert mmpc(frame, "t", alpha=0.01) == ["c0"]
    assert pcmb(frame, "t", alpha=0.01) == ["c0"]
    assert hiton_pc(frame, "t", alpha=0.01, symmetry=False) == ["c0"]
    srs = SRS().fit(frame.drop(columns="t"), y)
    assert srs.representative_sets_ == {"c0": ["c0", "c1"]}  # the copy joins c0's set
    assert "c0" in srs.selected_ and "c2" not in srs.selected_
    with pytest.raises(TypeError, match="symmetry"):
        hiton_pc(frame, "t", symmetry="no")
