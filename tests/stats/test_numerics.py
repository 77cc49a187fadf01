"""Numerical safety: exact log-gamma sums (mpmath), zero counts, single-state columns,
and ten million rows."""

import math

import numpy as np
import pandas as pd
import pytest

from bnfs import Dataset, Scorer
from bnfs.stats.citests import CITest

mpmath = pytest.importorskip("mpmath")
mpmath.mp.dps = 50


def _exact_bdeu(table: np.ndarray, iss: float) -> float:
    q, r = table.shape
    a_j, a_jk = mpmath.mpf(iss) / q, mpmath.mpf(iss) / (q * r)
    total = mpmath.mpf(0)
    for row in table:
        total += mpmath.loggamma(a_j) - mpmath.loggamma(a_j + int(row.sum()))
        for c in row:
            total += mpmath.loggamma(a_jk + int(c)) - mpmath.loggamma(a_jk)
    return float(total)


def _exact_k2(table: np.ndarray) -> float:
    r = table.shape[1]
    total = mpmath.mpf(0)
    for row in table:
        total += mpmath.loggamma(r) - mpmath.loggamma(int(row.sum()) + r)
        total += sum(mpmath.loggamma(int(c) + 1) for c in row)
    return float(total)


def _roundoff(table: np.ndarray, iss: float) -> float:
    """What double precision can promise: a few ulps of the largest log-gamma terms (a
    cell of 500,000 rows has lgamma ~ 6e6, so its ulp is ~1e-9)."""
    biggest = max(math.lgamma(float(table.sum()) + max(iss, 2.0)), 1.0)
    return 16 * np.finfo(float).eps * biggest * table.size


def _frame(table: np.ndarray) -> pd.DataFrame:
    """Rows whose (parent, child) counts are ``table``."""
    parent, child = [], []
    for j, row in enumerate(table):
        for k, c in enumerate(row):
            parent += [f"p{j}"] * int(c)
            child += [f"c{k}"] * int(c)
    return pd.DataFrame({"parent": parent, "child": child})


@pytest.mark.parametrize("iss", [1e-6, 1e-3, 1.0, 10.0, 1e4])
@pytest.mark.parametrize(
    "counts", [[[1, 0, 5], [7, 0, 0], [2, 2, 90000]], [[1, 1], [1, 1]], [[500000, 3], [1, 0]]]
)
def test_bdeu_and_k2_equal_exact_log_gamma_sums(iss, counts):
    table = np.array(counts)
    frame = _frame(table)
    bdeu = Scorer(frame, "bde", iss=iss).local("child", ["parent"])
    assert abs(bdeu - _exact_bdeu(table, iss)) <= _roundoff(table, iss)
    k2 = Scorer(frame, "k2").local("child", ["parent"])
    assert abs(k2 - _exact_k2(table)) <= _roundoff(table, 1.0)


def test_scores_and_tests_stay_finite_with_empty_cells_and_ten_million_rows():
    n = 10_000_000
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, n).astype(np.uint8)
    y = np.where(rng.random(n) < 0.999, x, 1 - x).astype(np.uint8)
    z = np.zeros(n, dtype=np.uint8)
    z[:3] = 1  # a nearly constant column: most cells of any table holding it are empty
    data = Dataset.from_codes(np.column_stack([x, y, z]), ["x", "y", "z"])
    ones = float(y.sum())
    expected_loglik = ones * math.log(ones / n) + (n - ones) * math.log((n - ones) / n)
    for label in ("loglik", "bic", "aic", "bde", "k2"):
        scorer = Scorer(data, label)
        for parents in ([], ["x"], ["x", "z"]):
            assert math.isfinite(scorer.local("y", parents)), (label, parents)
    assert Scorer(data, "loglik").local("y") == pytest.approx(expected_loglik, rel=1e-12)
    test = CITest(data, "g2")
    for given in ([], ["z"], ["x", "z"]):
        result = test("y", "z", [g for g in given if g != "z"] if "z" in given else given)
        assert math.isfinite(result.statistic) and 0.0 <= result.p_value <= 1.0
    assert not test.independent("x", "y", ["z"])


def test_single_state_after_filtering_is_refused_with_its_name():
    frame = pd.DataFrame({"a": ["u", "v", "u", "v"], "b": ["w", "w", "w", "t"]})
    kept = frame[frame["b"] == "w"]
    with pytest.raises(ValueError, match="column 'b' has a single level"):
        Dataset(kept)


@pytest.mark.parametrize("scale", [1e307, 1e200, 1e-200, 1e-310])
def test_gaussian_statistics_at_the_ends_of_the_float_range(scale):
    """Columns near 1e308 or subnormal gave Fisher-z p = NaN (counted as dependent) or a
    LinAlgError, and bic-g = -inf; scaled safely, every value is what the same data at unit
    scale gives (correlations unchanged, the log-likelihood shifted by -n log(scale))."""
    import bnfs

    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    unit = pd.DataFrame({"x": x, "y": x + rng.normal(size=400), "z": rng.normal(size=400)})
    extreme = unit.assign(x=unit.x * scale, y=unit.y * scale)
    for given in ([], ["z"]):
        assert CITest(extreme, "fisher_z")("x", "y", given).p_value == pytest.approx(
            CITest(unit, "fisher_z")("x", "y", given).p_value, rel=1e-6
        )
    shift = len(unit) * math.log(scale)
    for node, parents in (("y", ["x"]), ("y", ["x", "z"]), ("x", []), ("z", ["y"])):
        value = Scorer(extreme, "bic-g").local(node, parents)
        expected = Scorer(unit, "bic-g").local(node, parents) - (shift if node != "z" else 0)
        assert math.isfinite(value) and value == pytest.approx(expected, rel=1e-9)
    assert bnfs.pc_stable(extreme, "fisher_z") == bnfs.pc_stable(unit, "fisher_z")


@pytest.fixture(scope="module")
def gaussian_frame():
    rng = np.random.default_rng(5)
    n = 300
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "x": x,
            "y": x + 0.6 * rng.normal(size=n),
            "z": rng.normal(size=n),
            "w": rng.normal(size=n),
        }
    )


@pytest.mark.parametrize("scale", [1e300, 1e200, 1e155, 1e-200, 1e-300])
def test_every_gaussian_path_at_the_ends_of_the_float_range(gaussian_frame, scale):
    """Squared distances, residual sums and standard deviations of columns near the ends of
    the float range overflowed (HSMB and BAHSIC kept noise, to_pgmpy fitted std = inf, the
    held-out log-likelihood was NaN, structural EM saw missing values, learn failed): every
    result is now the one the same data give at unit scale, shifted where a density must."""
    import bnfs

    unit = gaussian_frame
    extreme = unit * scale
    dag = bnfs.DAG(list(unit.columns), [("x", "y")])
    # the held-out log-likelihood shifts by -log(scale) per modelled column and row
    data_u, data_e = bnfs.Dataset(unit), bnfs.Dataset(extreme)
    train = np.arange(200)
    test = np.arange(200, 300)
    ll_u = bnfs.stats.metrics.log_likelihood(dag, data_u.take(train), data_u.take(test))
    ll_e = bnfs.stats.metrics.log_likelihood(dag, data_e.take(train), data_e.take(test))
    assert ll_e == pytest.approx(ll_u - unit.shape[1] * math.log(scale), rel=1e-9)
    # pgmpy's linear-Gaussian network: coefficients and deviations in the columns' units
    fitted = {c.variable: c for c in bnfs.io.to_pgmpy(dag, data_e).get_cpds()}
    reference = {c.variable: c for c in bnfs.io.to_pgmpy(dag, data_u).get_cpds()}
    for node, cpd in fitted.items():
        assert math.isfinite(cpd.std) and cpd.std == pytest.approx(
            reference[node].std * scale, rel=1e-9
        )
        beta, beta_u = np.asarray(cpd.beta, float), np.asarray(reference[node].beta, float)
        assert beta[0] == pytest.approx(beta_u[0] * scale, rel=1e-6, abs=1e-9 * scale)
        assert np.allclose(beta[1:], beta_u[1:], rtol=1e-9)
    # learners that fit regressions or kernels
    assert bnfs.learn(extreme, folds=2, progress=False) == bnfs.learn(unit, folds=2, progress=False)
    holes = extreme.copy()
    holes.iloc[::17, 1] = np.nan
    found = bnfs.structural_em(holes)
    assert found == bnfs.structural_em(holes / scale)
    cls = (unit.x + unit.z > 0).map({True: "a", False: "b"})
    X = extreme[["x", "z", "w"]]
    for selector in (bnfs.HSMB(random_state=0), bnfs.BAHSIC(n_features_to_select=2)):
        assert selector.fit(X, cls).selected_ == selector.fit(unit[["x", "z", "w"]], cls).selected_
    assert set(bnfs.BAHSIC(n_features_to_select=2).fit(X, cls).selected_) == {"x", "z"}


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_bge_refuses_values_whose_squares_leave_the_float_range(gaussian_frame, scale):
    import bnfs

    frame = gaussian_frame.assign(z=gaussian_frame.z * scale)
    with pytest.raises(ValueError, match="column 'z' reaches"):
        bnfs.hill_climbing(frame, score="bge")
    assert bnfs.hill_climbing(gaussian_frame, score="bge").arcs  # the unit-scale data learn
