"""Bad input named by its parameter (issue 71, items 6 and 13): options a Dataset cannot
take, overrides of the wrong type or given as a pandas Index, numbers past float range,
lists that are not lists, pyarrow's dates and durations, uint64 columns."""

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import Dataset


@pytest.fixture(scope="module")
def asia():
    return bnfs.datasets.sample("asia", 300, seed=0)


@pytest.mark.parametrize(
    "option, value",
    [("discrete", ["asia"]), ("continuous", []), ("max_levels", 10), ("dropna", True)],
)
def test_a_dataset_refuses_the_options_it_cannot_honour(asia, option, value):
    data = Dataset(asia)
    with pytest.raises(ValueError, match=f"^{option} cannot be given with a Dataset"):
        Dataset(data, **{option: value})
    assert Dataset(data).kinds == data.kinds  # a copy, as before


@pytest.mark.parametrize("option", ["discrete", "continuous"])
@pytest.mark.parametrize("value", [5, True, 2.5])
def test_overrides_of_the_wrong_type_are_named(asia, option, value):
    with pytest.raises(TypeError, match=f"^{option} must be a list of column names"):
        Dataset(asia, **{option: value})


@pytest.mark.parametrize("make", [lambda c: c[:2], lambda c: np.asarray(c[:2]), tuple])
def test_overrides_take_an_index_or_an_array(make):
    frame = pd.DataFrame({"a": [1, 2, 3] * 10, "b": [0.5, 1.5, 2.5] * 10, "c": range(30)})
    data = Dataset(frame, discrete=make(frame.columns[:2]) if make is not tuple else ("a", "b"))
    assert data.kinds["a"] == data.kinds["b"] == "discrete"


@pytest.mark.parametrize("value", [10**20, 10**400, float("inf")])
def test_a_budget_past_float_range_is_named(asia, value):
    if value == 10**20:  # within float range: a budget no run reaches
        assert bnfs.hill_climbing(asia, max_time=value).learning["stopped_early"] is None
        return
    with pytest.raises(TypeError, match="^max_time must be a finite number"):
        bnfs.hill_climbing(asia, max_time=value)


@pytest.mark.parametrize("name", ["blacklist", "whitelist"])
@pytest.mark.parametrize("value", [5, 2.0, object()])
def test_a_list_that_is_not_a_list_is_named(asia, name, value):
    with pytest.raises(TypeError, match=f"^{name} must be a list of"):
        bnfs.structure_posterior(asia, **{name: value}, samples=5, chains=1)
    with pytest.raises(TypeError, match=f"^{name} must be a list of"):
        bnfs.hill_climbing(asia, **{name: value})


@pytest.mark.parametrize("value", [-1, -7])
def test_a_selectors_random_state_is_named_as_such(asia, value):
    with pytest.raises(ValueError, match="^random_state must be >= 0"):
        bnfs.StableBlanketSelector(random_state=value, R=2).fit(
            asia.drop(columns="either"), asia["either"]
        )


@pytest.mark.parametrize(
    "dtype", ["duration[s][pyarrow]", "timestamp[s][pyarrow]", "date32[pyarrow]"]
)
def test_pyarrow_dates_and_durations_are_refused_as_numpy_ones(dtype):
    pytest.importorskip("pyarrow")
    n = 60
    if dtype.startswith("duration"):
        column = pd.Series(pd.to_timedelta(np.arange(n) % 3, unit="s")).astype(dtype)
    else:
        column = pd.Series(pd.to_datetime(np.arange(n) % 3 * 86_400, unit="s")).astype(dtype)
    frame = pd.DataFrame({"when": column, "x": np.random.default_rng(0).normal(size=n)})
    with pytest.raises(TypeError, match="column 'when' holds dates or times"):
        Dataset(frame)


def test_a_uint64_column_is_read_alike_from_a_frame_and_a_file(tmp_path):
    pytest.importorskip("pyarrow")
    n = 120
    big = (np.arange(n, dtype=np.uint64) % 4) * np.uint64(2**62)  # past int64's range
    frame = pd.DataFrame({"big": big, "small": np.arange(n, dtype=np.uint64) % 3})
    path = tmp_path / "u.parquet"
    frame.to_parquet(path)
    mine, theirs = Dataset(frame), Dataset(path)
    assert mine.kinds == theirs.kinds == {"big": "discrete", "small": "discrete"}
    assert mine.states == theirs.states
    assert mine.states["big"][-1] == 3 * 2**62
    np.testing.assert_array_equal(mine.codes, theirs.codes)
