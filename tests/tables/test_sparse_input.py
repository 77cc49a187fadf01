"""scipy.sparse X in the selectors that count tables: the answer of X.toarray(), built a
block of columns at a time."""

import warnings

import numpy as np
import pytest
from scipy import sparse

from bnfs import (
    CFS,
    FCBF,
    HSMB,
    SLFS,
    SRS,
    HybridSelector,
    InformationGain,
    MarkovBlanketSelector,
    TBNClassifier,
)
from bnfs.select import _base


def _counts(seed=0, n=300, p=40):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    counts = rng.poisson(0.3, size=(n, p))
    counts[:, 0] += 2 * y
    counts[:, 1] = counts[:, 0] * (rng.random(n) < 0.8)  # a noisy copy
    counts[:, 5] = 0  # constant
    return counts, y


@pytest.mark.parametrize("kind", ["counts", "floats", "presence"])
@pytest.mark.parametrize(
    "make",
    [
        FCBF,
        CFS,
        lambda: MarkovBlanketSelector("hiton_mb"),
        SLFS,
        lambda: InformationGain(5),
        lambda: HybridSelector("gs"),
        SRS,
    ],
    ids=["fcbf", "cfs", "hiton_mb", "slfs", "information_gain", "hybrid", "srs"],
)
def test_sparse_gives_the_dense_answer(make, kind, monkeypatch):
    counts, y = _counts()
    X = {
        "counts": counts,
        "floats": counts * np.random.default_rng(1).random(counts.shape),
        "presence": counts > 0,
    }[kind]
    monkeypatch.setattr(_base, "SPARSE_BLOCK_CELLS", len(X) * 7)  # blocks of 7 columns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = make().fit(X, y)
        matrix = sparse.csr_matrix(X)
        fitted = make().fit(matrix, y)
    np.testing.assert_array_equal(dense.get_support(), fitted.get_support())
    assert fitted.n_features_in_ == X.shape[1] and not hasattr(fitted, "feature_names_in_")
    assert fitted.transform(matrix).shape == (len(X), dense.get_support().sum())


def test_the_tree_classifier_predicts_sparse_rows():
    counts, y = _counts(2)
    dense = TBNClassifier().fit(counts, y)
    fitted = TBNClassifier().fit(sparse.csr_matrix(counts), y)
    np.testing.assert_array_equal(
        dense.predict_proba(counts), fitted.predict_proba(sparse.csr_matrix(counts))
    )
    with pytest.raises(ValueError, match="X has 3 features, but TBNClassifier is expecting 40"):
        fitted.predict(sparse.csr_matrix(counts[:, :3]))


def test_bad_sparse_input_is_named():
    counts, y = _counts()
    values = counts.astype(float)
    values[3, 7] = np.nan
    bad = sparse.csr_matrix(values)
    with pytest.raises(ValueError, match="column 'x7' of X has a NaN or infinite value"):
        FCBF().fit(bad, y)
    with pytest.raises(ValueError, match="every feature of X is constant"):
        FCBF().fit(sparse.csr_matrix((len(y), 4)), y)
    with pytest.raises(ValueError, match="0 feature"):
        FCBF().fit(sparse.csr_matrix((len(y), 0)), y)
    with pytest.raises(TypeError, match="HSMB needs dense X.*FCBF"):
        HSMB().fit(sparse.csr_matrix(counts), y)
