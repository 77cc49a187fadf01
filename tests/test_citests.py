"""CI statistics against bnlearn's golden values and scipy; the d-separation oracle."""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st
from scipy import stats

import reference
from bnfs import DAG, datasets
from bnfs.citests import CITest, DSeparation
from strategies import random_dags

pytestmark = pytest.mark.kernels  # rerun without JIT by test_without_jit.py


@pytest.mark.parametrize("name", reference.NETWORKS)
def test_statistics_equal_bnlearn(name):
    frame = reference.data(name)
    golden = reference.table(name, "ci_tests.tsv")
    tests = {"mi": CITest(frame, "mi"), "x2": CITest(frame, "x2")}
    for row in golden.itertuples():
        z = [] if pd.isna(row.z) else str(row.z).split(",")
        result = tests[row.test](row.x, row.y, z)
        assert result.statistic == pytest.approx(row.statistic, rel=1e-8, abs=1e-8)
        assert result.df == row.df
        assert result.p_value == pytest.approx(row.p_value, rel=1e-6, abs=1e-12)


def test_marginal_statistics_equal_scipy():
    frame = reference.data("alarm")
    table = pd.crosstab(frame["HR"], frame["CATECHOL"]).to_numpy()
    chi2, p, dof, _ = stats.chi2_contingency(table, correction=False)
    result = CITest(frame, "x2")("HR", "CATECHOL")
    assert result.statistic == pytest.approx(chi2, rel=1e-10)
    assert result.df == dof and result.p_value == pytest.approx(p, rel=1e-8)
    g, p, dof, _ = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
    result = CITest(frame, "g2")("HR", "CATECHOL")
    assert result.statistic == pytest.approx(g, rel=1e-10) and result.p_value == pytest.approx(p, rel=1e-8)


def test_conditional_g2_is_the_sum_over_strata():
    frame = reference.data("asia")
    whole = CITest(frame, "g2")("xray", "dysp", ["either"])
    parts = [stats.chi2_contingency(pd.crosstab(g["xray"], g["dysp"]).to_numpy(),
                                    correction=False, lambda_="log-likelihood")[0]
             for _, g in frame.groupby("either")]
    assert whole.statistic == pytest.approx(sum(parts), rel=1e-10)
    assert whole.df == 2  # (2 - 1)(2 - 1) x 2 strata


def test_mi_threshold_adjusted_df_and_min_rows():
    frame = reference.data("alarm")
    g2 = CITest(frame, "g2")("HR", "CATECHOL")
    mi = CITest(frame, "mi_threshold", threshold=0.01)("HR", "CATECHOL")
    assert mi.statistic == pytest.approx(g2.statistic / (2 * len(frame)))
    assert mi.independent == (mi.statistic <= 0.01)
    many = ["BP", "CO", "HRBP", "HREKG", "HRSAT"]
    plain = CITest(frame, "g2")("HR", "CATECHOL", many)
    adjusted = CITest(frame, "g2", adjust_df=True)("HR", "CATECHOL", many)
    assert adjusted.df < plain.df
    sparse = CITest(frame, "g2", min_rows_per_cell=5)("HR", "CATECHOL", many)
    assert np.isnan(sparse.p_value) and not sparse.independent


def test_fisher_z_matches_a_regression():
    rng = np.random.default_rng(0)
    z = rng.normal(size=2000)
    x = z + rng.normal(size=2000)
    y = z + rng.normal(size=2000)
    frame = pd.DataFrame({"x": x, "y": y, "z": z})
    test = CITest(frame, "fisher_z", alpha=0.01)
    assert not test.independent("x", "y")
    assert test.independent("x", "y", ["z"])
    rx = x - np.polyval(np.polyfit(z, x, 1), z)
    ry = y - np.polyval(np.polyfit(z, y, 1), z)
    r = np.corrcoef(rx, ry)[0, 1]
    expected = np.sqrt(2000 - 1 - 3) * np.arctanh(r)
    assert test("x", "y", ["z"]).statistic == pytest.approx(expected, rel=1e-8)


def test_cache_counter_and_errors():
    frame = reference.data("asia")
    test = CITest(frame)
    test("asia", "tub", ["smoke"])
    test("tub", "asia", ["smoke"])
    assert (test.n_tests, test.cache_hits) == (1, 1)
    with pytest.raises(ValueError, match="'nope' is not a variable"):
        test("nope", "tub")
    with pytest.raises(ValueError, match="alpha must be"):
        CITest(frame, alpha=1.5)
    with pytest.raises(ValueError, match="alpha must be"):
        CITest(frame, alpha=0)
    with pytest.raises(ValueError, match="test must be one of"):
        CITest(frame, "chi")
    with pytest.raises(ValueError, match="conditioning set"):
        test("asia", "tub", ["asia"])
    with pytest.raises(ValueError, match="fisher_z needs continuous"):
        CITest(frame, "fisher_z")
    with pytest.raises(ValueError, match="single level"):
        CITest(frame.assign(const="a"))


@given(random_dags(max_nodes=7), st.data())
def test_oracle_equals_networkx_d_separation(g, data):
    oracle = DSeparation(g)
    reference_graph = g.to_networkx()
    nodes = list(g.nodes)
    if len(nodes) < 2:
        return
    x, y = data.draw(st.sampled_from(list(itertools.combinations(nodes, 2))))
    rest = [v for v in nodes if v not in (x, y)]
    z = data.draw(st.lists(st.sampled_from(rest), unique=True)) if rest else []
    expected = nx.is_d_separator(reference_graph, {x}, {y}, set(z))
    assert oracle.independent(x, y, z) == expected


@pytest.mark.parametrize("df", [1, 2, 3, 7.5, 20, 100, 1000, 1e4, 1e6])
def test_compiled_chi_square_tail_equals_scipy(df):
    from scipy import special

    from bnfs._kernels.citests import chi2_sf
    grid = np.concatenate([np.linspace(0.0, 3 * df + 50, 120), [df, df + 1, df - 0.5, 1e-9]])
    ours = np.array([chi2_sf(float(df), float(x)) for x in grid])
    theirs = special.chdtrc(df, grid)
    big = theirs > 1e-200
    np.testing.assert_allclose(ours[big], theirs[big], rtol=1e-8)
    assert np.all(ours[~big] < 1e-190)


def test_the_test_cache_is_bounded():
    frame = datasets.sample("asia", 1000, seed=0)
    bounded, free = CITest(frame), CITest(frame)
    bounded.cache_entries = 5
    pairs = list(itertools.combinations(frame.columns, 2))
    for x, y in pairs + pairs:
        assert bounded(x, y) == free(x, y)
        assert len(bounded._cache) <= 5
    assert free.n_tests == len(pairs) and bounded.n_tests > len(pairs)
