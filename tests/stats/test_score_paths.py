"""The compiled searches build only the score path their data need (issue 61): the parts of a
``Scoring`` no score of the data reads are None, the dispatch leaves out the code reading
them, and the values are those of the full path."""

import numba
import numpy as np
import pytest

import bnfs
from bnfs._kernels import dispatch
from bnfs._kernels.score_cache import Scoring, scoring_of
from bnfs._vocabulary import score_kind
from bnfs.stats.scores import level_statistics, model_statistics, resolve_score, row_weights

pytestmark = pytest.mark.kernels  # rerun without JIT by kernels/test_without_jit.py


def parts(data, label):
    """(codes, arities, kind, iss, prior, levels, weights, equivalent) as the searches pass
    them to :func:`scoring_of` (:class:`bnfs.search._state.SearchState`)."""
    _, kind, iss = resolve_score(data, label, 1.0)
    table, aux, _ = model_statistics(data, kind)
    weights = row_weights(data)
    levels = level_statistics(table, aux, kind, weights)
    return table, aux, kind, iss, np.zeros((1, 1)), levels, weights, score_kind(label).equivalent


@pytest.fixture(scope="module")
def tables():
    rng = np.random.default_rng(0)
    discrete = bnfs.datasets.sample("asia", 400, seed=0)
    gaussian = bnfs.datasets.regression(22, n=200, seed=0).iloc[:, :5]
    mixed = gaussian.assign(g=rng.choice(["a", "b"], len(gaussian)))
    return {
        "discrete": (bnfs.Dataset(discrete), "bde"),
        "weighted": (bnfs.Dataset(discrete).with_weights(rng.integers(1, 4, 400) * 1.0), "bic"),
        "gaussian": (bnfs.Dataset(gaussian), "bic-g"),
        "mixed": (bnfs.Dataset(mixed), "bic-cg"),
    }


@pytest.mark.parametrize(
    "case, weights, levels",
    [
        ("discrete", False, False),
        ("weighted", True, False),
        ("gaussian", False, False),  # the weights are in the covariance
        ("mixed", True, True),  # the conditional-Gaussian scores read both
    ],
)
def test_scoring_of_leaves_none_what_no_score_of_the_data_reads(tables, case, weights, levels):
    data, label = tables[case]
    scoring = scoring_of(*parts(data, label))
    assert (scoring.weights is not None) is weights
    assert (scoring.levels is not None) is levels


@pytest.mark.parametrize(
    "case, reads, leaves_out",
    [
        ("discrete", "local_score", "discrete_score"),  # no weighted counts compiled
        ("weighted", "discrete_score", "local_score"),
        ("gaussian", "covariance_score", "continuous_score"),  # no conditional-Gaussian
        ("mixed", "continuous_score", "covariance_score"),
    ],
)
def test_the_compiled_dispatch_reads_only_the_parts_it_is_given(tables, case, reads, leaves_out):
    data, label = tables[case]
    scoring = scoring_of(*parts(data, label))
    typed = numba.typeof(scoring)
    int64, array = numba.types.int64, numba.types.int64[::1]
    implementation = dispatch._family_score(typed, int64, array, int64, array, array)
    assert reads in implementation.__code__.co_names
    assert leaves_out not in implementation.__code__.co_names
    toggled = dispatch._toggled_score(typed, *[int64] * 8)
    flags = {
        name: cell.cell_contents
        for name, cell in zip(toggled.__code__.co_freevars, toggled.__closure__ or ())
    }
    if case in ("discrete", "weighted"):  # the weighted counts only with weights
        assert flags == {"weighted": scoring.weights is not None}
    else:  # the conditional-Gaussian scores only with level statistics
        assert flags == {"conditional": scoring.levels is not None}


@pytest.mark.parametrize("case", ["discrete", "weighted", "gaussian", "mixed"])
def test_each_path_gives_the_full_paths_values(tables, case):
    data, label = tables[case]
    full = Scoring(*parts(data, label))  # every part an array: the paths chosen at run time
    lean = scoring_of(*full)
    n = len(data.names)
    cfg, counts = np.empty(1000, dtype=np.int64), np.zeros(1 << 16, dtype=np.int64)
    compared = 0
    for v in range(n):
        parents = np.array([u for u in range(n) if u != v][:2], dtype=np.int64)
        for k in range(3):
            expected = dispatch.family_score(full, v, parents, k, cfg, counts)
            got = dispatch.family_score(lean, v, parents, k, cfg, counts)
            assert got == expected or (np.isnan(got) and np.isnan(expected))
            compared += np.isfinite(expected)
    assert compared >= n
