"""The typing rule at the door (bnfs.tables._kinds): integer columns by their number of
values, identifiers set aside, dates refused, overrides both ways, one answer from a file,
its blocks and the frame pandas reads from it."""

import datetime
import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import Dataset
from bnfs.io import read_dataset
from bnfs.tables._kinds import INTEGER_LEVELS, ROWS_PER_LEVEL, column_kind


def table(n=2000, seed=0):
    """A table as a CSV gives it: codes and measurements, all integers, a name, an id."""
    rng = np.random.default_rng(seed)
    plan = rng.integers(0, 3, n)
    return pd.DataFrame(
        {
            "customer": rng.permutation(n) + 10_000,  # shuffled running numbers
            "name": [f"person {i}" for i in range(n)],
            "plan": plan,  # a code: 3 values
            "likert": rng.integers(1, 6, n),
            "calls": rng.integers(50, 170, n) + 20 * plan,  # a count with 140 values
            "area": rng.integers(100, 100_000, n),  # distinct nearly everywhere, no run
            "churn": (rng.random(n) < 0.2 + 0.2 * plan).astype(int),
            "state": rng.choice(["ny", "ca", "tx"], n),
            "rate": rng.normal(size=n),
        }
    )


def quiet(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


@pytest.mark.parametrize("seed", [0, 1])
def test_integers_are_discrete_only_with_few_values(seed):
    with pytest.warns(UserWarning, match=r"identifiers: 'customer' .*'name'"):
        data = Dataset(table(seed=seed))
    assert data.kinds == {
        "customer": "identifier",
        "name": "identifier",
        "plan": "discrete",
        "likert": "discrete",
        "calls": "continuous",
        "area": "continuous",
        "churn": "discrete",
        "state": "discrete",
        "rate": "continuous",
    }
    assert data.whole_numbers == ("calls", "area")
    assert data.names == ("plan", "likert", "calls", "area", "churn", "state", "rate")
    assert data.states["likert"] == (1, 2, 3, 4, 5)
    np.testing.assert_array_equal(data.column("calls"), table(seed=seed)["calls"])


@pytest.mark.parametrize("levels", [3, INTEGER_LEVELS, INTEGER_LEVELS + 1, 40])
def test_the_rule_counts_values_absolutely_and_against_the_rows(levels):
    rng = np.random.default_rng(levels)
    for rows in (ROWS_PER_LEVEL * levels - 1, ROWS_PER_LEVEL * levels, 10_000):
        values = np.r_[np.arange(levels), rng.integers(0, levels, rows - levels)]
        data = Dataset(pd.DataFrame({"x": values, "flag": np.arange(rows) % 2}))
        discrete = levels <= INTEGER_LEVELS and rows >= ROWS_PER_LEVEL * levels
        assert data.kinds["x"] == ("discrete" if discrete else "continuous"), rows
        assert data.kinds["flag"] == "discrete"  # two values: discrete on any rows
        assert column_kind(pd.Series(values)) == data.kinds["x"]


def test_a_number_is_never_refused_for_its_values():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"pixels": rng.integers(0, 5000, 3000), "y": rng.integers(0, 2, 3000)})
    frame["pixels"] += 2000 * frame["y"]
    data = Dataset(frame, max_levels=4)  # even past max_levels: continuous, not refused
    assert data.continuous_names == ("pixels",)
    graph = bnfs.learn(frame, progress=False)
    assert graph.learning["columns"] == {"pixels": "continuous", "y": "discrete"}
    assert graph.arcs == [("y", "pixels")]


def test_identifiers_need_nearly_every_row_distinct():
    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame(
        {
            "ordered": np.arange(n) * 7 + 3,  # rises with the rows: an identifier
            "income": rng.choice(np.arange(20_000, 900_000), n, replace=False),  # no run
            "code": [f"c{i % 300}" for i in range(n)],  # 75% distinct: a category
            "label": pd.Categorical([f"k{i}" for i in range(n)]),  # declared categorical
            "y": rng.integers(0, 2, n),
        }
    )
    with pytest.warns(UserWarning, match="identifiers: 'ordered'") as caught:
        data = Dataset(frame, max_levels=1000)
    assert len(caught) == 1 and "'income'" not in str(caught[0].message)
    assert data.kinds["ordered"] == "identifier" and "ordered" not in data.names
    assert data.kinds["income"] == "continuous" and data.kinds["code"] == "discrete"
    assert data.kinds["label"] == "discrete"  # a categorical dtype is the user's choice
    small = Dataset(pd.DataFrame({"who": list("abcdefghij"), "y": [0, 1] * 5}))
    assert small.kinds["who"] == "discrete"  # too few rows to call anything an identifier
    with pytest.raises(ValueError, match="every column is set aside: a distinct value"):
        quiet(lambda: Dataset(frame[["ordered"]]))


def test_dates_are_refused_or_named():
    n = 60
    frame = pd.DataFrame({"y": np.arange(n) % 2})
    stamps = frame.assign(when=pd.date_range("2020-01-01", periods=n, freq="D"))
    with pytest.raises(TypeError, match=r"column 'when' holds dates.*\.dt\.year"):
        Dataset(stamps)
    dates = frame.assign(when=[datetime.date(2020, 1, 1 + i % 28) for i in range(n)])
    with pytest.raises(TypeError, match="column 'when' holds dates"):
        Dataset(dates)
    durations = frame.assign(took=pd.to_timedelta(np.arange(n), unit="s"))
    with pytest.raises(TypeError, match="column 'took' holds dates or times"):
        Dataset(durations)
    text = frame.assign(when=[f"2021-{1 + i // 28:02d}-{1 + i % 28:02d}" for i in range(n)])
    with pytest.raises(TypeError, match="column 'when' holds dates.*to_datetime"):
        Dataset(text)  # text that reads as dates, decided on its content
    assert Dataset(text, discrete=["when"]).kinds["when"] == "discrete"  # asked for
    with pytest.raises(ValueError, match="'when' has 60 levels.*looks like dates"):
        Dataset(text, discrete=["when"], max_levels=50)


def test_overrides_both_ways_and_their_errors():
    frame = table()
    data = quiet(lambda: Dataset(frame, discrete=["calls"], continuous=["likert", "customer"]))
    assert data.kinds["calls"] == "discrete" and data.arity("calls") == frame["calls"].nunique()
    assert data.kinds["likert"] == "continuous" and data.kinds["customer"] == "continuous"
    assert data.kinds["name"] == "identifier"
    assert data.whole_numbers == ("area",)  # named continuous: not the rule's decision
    with pytest.raises(TypeError, match="column 'state' is named continuous but holds"):
        quiet(lambda: Dataset(frame, continuous=["state"]))
    with pytest.raises(ValueError, match=r"columns \['plan'\] are named both"):
        quiet(lambda: Dataset(frame, discrete=["plan"], continuous=["plan"]))
    with pytest.raises(ValueError, match=r"continuous names unknown columns: \['nope'\]"):
        quiet(lambda: Dataset(frame, continuous=["nope"]))
    with pytest.raises(TypeError, match="a list of column names, got the string"):
        quiet(lambda: Dataset(frame, continuous="likert"))


@pytest.mark.parametrize("chunksize", [150, 10_000])
def test_a_file_its_blocks_and_its_frame_give_one_answer(tmp_path, chunksize):
    frame = table(n=1200, seed=2)
    frame.loc[1100:, "plan"] = np.arange(100) % 30  # values past the rule's late in the file
    path = tmp_path / "churn.csv"
    frame.to_csv(path, index=False)
    read = pd.read_csv(path)
    expected = quiet(lambda: Dataset(read))
    assert expected.kinds["plan"] == "continuous"  # 30 values
    for options in ({}, {"memmap": tmp_path / "codes.bin"}):
        got = quiet(lambda options=options: read_dataset(path, chunksize=chunksize, **options))
        assert got.kinds == expected.kinds and got.names == expected.names
        assert got.whole_numbers == expected.whole_numbers
        np.testing.assert_array_equal(np.asarray(got.codes), expected.codes)
        np.testing.assert_array_equal(got.values, expected.values)
    direct = quiet(lambda: Dataset(path))
    assert direct.kinds == expected.kinds
    over = quiet(lambda: read_dataset(path, chunksize=chunksize, continuous=["likert"]))
    assert over.kinds["likert"] == "continuous"
    assert quiet(lambda: bnfs.learn(path, progress=False)) == quiet(
        lambda: bnfs.learn(read, progress=False)
    )


def test_learners_and_fit_keep_the_decision():
    frame = table(n=1500, seed=4)
    graph = quiet(lambda: bnfs.learn(frame, progress=False))
    assert graph.learning["columns"]["calls"] == "continuous"
    assert graph.learning["columns"]["customer"] == "identifier"
    assert "customer" not in graph.nodes and "calls" in graph.nodes
    # a fold of 40 rows types likert (5 values) as a number; fit reads it as it was learned
    network = quiet(lambda: bnfs.fit(graph, frame.iloc[:40]))
    assert "likert" in network.states
    pc = quiet(lambda: bnfs.pc_stable(frame, test="g2"))
    assert pc.learning["test"] == "mi_cg" and pc.learning["columns"]["area"] == "continuous"


def test_available_case_tests_type_each_column_once():
    frame = table(n=600, seed=6).drop(columns=["customer", "name"])
    frame["likert"] = frame["likert"].astype(float)
    frame.loc[:300, "likert"] = np.nan  # pandas makes it float: a number
    frame["calls"] = frame["calls"].where(np.arange(600) % 3 > 0)
    graph = quiet(lambda: bnfs.pc_stable(frame))
    assert graph.learning["test"] == "mi_cg"
    assert column_kind(frame["plan"]) == "discrete"
    assert column_kind(frame["calls"]) == "continuous"


def test_text_with_too_many_levels_to_learn_from_is_set_aside():
    """Car names: 301 values on 392 rows repeat now and then, past max_levels: set aside,
    not a refusal of the table; so with two or more rows a level (a category no count of
    these rows can learn), unless named discrete, when it is refused past max_levels."""
    rng = np.random.default_rng(8)
    n = 392
    names = [f"car {i}" for i in rng.integers(0, 480, n)]
    frame = pd.DataFrame({"name": names, "cylinders": rng.choice([4, 6, 8], n)})
    assert 256 < frame["name"].nunique() < 0.95 * n
    with pytest.warns(UserWarning, match="set aside as identifiers: 'name'"):
        assert Dataset(frame).kinds["name"] == "identifier"
    with pytest.warns(UserWarning, match="'name'"):
        assert read_dataset_of(frame, chunksize=100).kinds["name"] == "identifier"
    twice = pd.DataFrame({"name": [f"car {i % 300}" for i in range(700)], "y": [0, 1] * 350})
    with pytest.warns(UserWarning, match=r"'name' \(300 levels, more than max_levels=256\)"):
        assert Dataset(twice).kinds["name"] == "identifier"  # set aside, whatever its rows
    with pytest.raises(ValueError, match="'name' has 300 levels"):
        Dataset(twice, discrete=["name"])  # asked for: refused by name


def read_dataset_of(frame, chunksize, tmp=[]):  # noqa: B006 - one scratch folder a run
    import tempfile
    from pathlib import Path

    if not tmp:
        tmp.append(Path(tempfile.mkdtemp()))
    path = tmp[0] / "t.csv"
    frame.to_csv(path, index=False)
    return read_dataset(path, chunksize=chunksize)
