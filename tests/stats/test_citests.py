"""CI statistics against bnlearn's golden values and scipy; the d-separation oracle."""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import bnfs
import reference
from bnfs import datasets
from bnfs.stats.citests import CITest, DSeparation
from strategies import random_dags

pytestmark = pytest.mark.kernels  # rerun without JIT by kernels/test_without_jit.py


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
    assert result.statistic == pytest.approx(g, rel=1e-10) and result.p_value == pytest.approx(
        p, rel=1e-8
    )


def test_conditional_g2_is_the_sum_over_strata():
    frame = reference.data("asia")
    whole = CITest(frame, "g2")("xray", "dysp", ["either"])
    parts = [
        stats.chi2_contingency(
            pd.crosstab(g["xray"], g["dysp"]).to_numpy(), correction=False, lambda_="log-likelihood"
        )[0]
        for _, g in frame.groupby("either")
    ]
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


def reference_statistics(frame: pd.DataFrame, x: str, y: str, z: list[str]):
    """G^2, X^2 and the adjusted df summed over the observed strata of z, from pandas
    cross-tabulations of the observed levels only."""
    g2 = x2 = df = 0.0
    strata = frame.groupby(z, observed=True) if z else [((), frame)]
    for _, part in strata:
        table = pd.crosstab(part[x], part[y]).to_numpy(dtype=float)
        expected = np.outer(table.sum(1), table.sum(0)) / table.sum()
        seen = table > 0
        g2 += 2.0 * float(np.sum(table[seen] * np.log(table[seen] / expected[seen])))
        x2 += float(np.sum((table - expected) ** 2 / expected))
        if min(table.shape) > 1:
            df += (table.shape[0] - 1) * (table.shape[1] - 1)
    return g2, x2, max(df, 1.0)


# (levels of x, y, z; rows): the table just below / above the smallest scratch (4096 cells),
# at 2n (n = 3,000: 6,000 cells), high arity with few rows, and the defect's 70 x 70 x 2,000
BOUNDARY_CASES = [
    (64, 64, 0, 100),
    (65, 64, 0, 100),
    (32, 32, 4, 3000),
    (32, 32, 6, 3000),
    (77, 77, 0, 3000),
    (78, 78, 0, 3000),
    (70, 70, 0, 2000),
    (70, 70, 2, 2000),
    (300, 2, 3, 40),
    (2, 500, 0, 30),
]


@pytest.mark.parametrize("rx, ry, rz, n", BOUNDARY_CASES)
def test_tables_at_the_scratch_boundary_are_counted_right(rx, ry, rz, n):
    """Tables larger than the counting scratch are counted by sorting: every statistic
    equals the pandas reference on either side of each scratch limit, and no kernel writes
    past its scratch (run without the JIT, an IndexError would say so)."""
    rng = np.random.default_rng(rx * ry + rz)
    x = rng.integers(0, rx, n)
    frame = pd.DataFrame(
        {"x": x, "y": (x + rng.integers(0, 3, n)) % ry, "z": rng.integers(0, max(rz, 2), n)}
    ).astype(str)
    data = bnfs.Dataset(frame, max_levels=1000)
    z = ["z"] if rz else []
    g2, x2, df = reference_statistics(frame, "x", "y", z)
    for test, expected in (("g2", g2), ("x2", x2)):
        result = CITest(data, test, adjust_df=True)("x", "y", z)
        assert result.statistic == pytest.approx(expected, rel=1e-9, abs=1e-9)
        assert result.df == df


@pytest.mark.parametrize("which", [0, 1])
def test_sorted_and_dense_counting_agree_for_any_scratch(which):
    """The same test counted in a scratch of one cell (always sorted) and of a million."""
    from bnfs._kernels.citests import discrete_statistic

    data = bnfs.Dataset(datasets.sample("alarm", 300, seed=4))
    codes, arities = data.codes, data.arities
    cfg = np.empty(data.n_rows, dtype=np.int64)
    for n_z in range(4):
        z = np.arange(2, 2 + n_z, dtype=np.int64)
        for adjust in (False, True):
            small = discrete_statistic(
                codes, arities, 0, 1, z, n_z, which, adjust, cfg, np.zeros(1, dtype=np.int64)
            )
            large = np.zeros(1 << 20, dtype=np.int64)
            dense = discrete_statistic(codes, arities, 0, 1, z, n_z, which, adjust, cfg, large)
            assert not large.any()  # the scratch is left all zeros
            assert small[0] == pytest.approx(dense[0], rel=1e-10, abs=1e-10)
            assert small[1:] == dense[1:]


def test_two_seventy_level_columns_do_not_corrupt_memory():
    """The reported crash: 70 x 70 levels, 2,000 rows aborted the interpreter."""
    rng = np.random.default_rng(1)
    x = rng.integers(0, 70, 2000)
    frame = pd.DataFrame(
        {"x": x, "y": (x + rng.integers(0, 3, 2000)) % 70, "z": rng.integers(0, 2, 2000)}
    )
    frame = bnfs.Dataset(frame, discrete=["x", "y"])  # 70 values: numbers unless told
    result = CITest(frame)("x", "y")
    assert not result.independent and result.df == 69 * 69
    assert bnfs.constraint.hiton_mb(frame, "x") == ["y"]


def test_the_test_table_says_what_each_test_does():
    """Every row of the kernel-free CI-test table: CITest takes its label on its kind of
    data, the subset-conditioning learners adjust its degrees of freedom where it says so,
    and the written-out type names equal the table's labels."""
    import typing

    import numpy as np
    import pandas as pd

    from bnfs._vocabulary import SCORES, TEST_TABLE, TESTS
    from bnfs.stats.citests import TestName, make_test
    from bnfs.stats.scores import ScoreName

    assert typing.get_args(TestName) == TESTS
    assert sorted(typing.get_args(ScoreName)) == sorted(SCORES)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 300)
    x = rng.normal(size=300) + a
    frames = {
        "discrete": pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, 300)) % 3}).astype(str),
        "continuous": pd.DataFrame({"a": x, "b": x + rng.normal(size=300)}),
        "any": pd.DataFrame({"a": a.astype(str), "b": x}),
    }
    for row in TEST_TABLE:
        frame = frames[row.data]
        tester = make_test(frame, row.label, 0.05, adjust_by_default=True)
        assert tester.adjust_df == row.adjusts_df or row.label.endswith("_adf"), row.label
        assert not tester.independent("a", "b"), row.label
        assert tester.kind == row and tester.test == row.recorded, row.label
        if row.counts_tables:  # the compiled kernels decide as the row says
            from bnfs._kernels import citests as kernels

            which, mode = tester.kernel_rule()
            assert which == (kernels.X2 if row.statistic == "x2" else kernels.G2), row.label
            assert (
                mode
                == {
                    "p_value": kernels.BY_P_VALUE,
                    "p_value_with_power": kernels.BY_P_VALUE_WITH_POWER,
                    "threshold": kernels.BY_THRESHOLD,
                }[row.decision]
            ), row.label
        if row.on_continuous:  # on continuous data, the test for the data's kind
            assert make_test(frames["any"], row.label).kind.label == row.on_continuous
    statistics = {
        row.label: make_test(frames["discrete"], row.label)("a", "b")
        for row in TEST_TABLE
        if row.data == "discrete"
    }
    assert statistics["mi"] == statistics["g2"] and statistics["x2"] != statistics["g2"]
    threshold = statistics["mi_threshold"]
    assert threshold.statistic == statistics["g2"].statistic / (2 * 300)  # G^2 / 2n, in nats
