"""Dataset: encoding round trips, discretization and every bad-input case."""

import numpy as np
import pandas as pd
import pytest

from bnfs import Dataset, discretize


def frame():
    """18 rows: an integer column with 3 values is discrete from 15 rows on."""
    return pd.DataFrame(
        {
            "smoke": ["yes", "no", "yes", "no", "yes", "no"] * 3,
            "n": [3, 1, 2, 3, 1, 2] * 3,
            "flag": [True, False, True, True, False, False] * 3,
            "cat": pd.Categorical(["b", "a", "b", "a", "b", "a"] * 3, categories=["z", "b", "a"]),
            "x": [0.1, 2.5, 3.3, 0.7, 9.0, 4.4] * 3,
        }
    )


def test_encoding_round_trip_and_no_mutation():
    df = frame()
    before = df.copy(deep=True)
    data = Dataset(df)
    pd.testing.assert_frame_equal(df, before)
    assert data.discrete_names == ("smoke", "n", "flag", "cat")
    assert data.continuous_names == ("x",)
    assert data.codes.dtype == np.uint8 and data.codes.flags["F_CONTIGUOUS"]
    assert data.states["smoke"] == ("no", "yes")
    assert data.states["n"] == (1, 2, 3)
    assert data.states["cat"] == ("b", "a")  # category order kept, unused 'z' dropped
    assert data.arities.tolist() == [2, 3, 2, 2]
    back = data.to_pandas()
    for name in data.discrete_names:
        assert back[name].astype(object).tolist() == df[name].astype(object).tolist()
    np.testing.assert_array_equal(back["x"], df["x"])
    assert Dataset(back).codes.tolist() == data.codes.tolist()


def test_numpy_csv_and_codes_inputs(tmp_path):
    arr = np.array([[0, 1], [1, 1], [1, 0]])
    data = Dataset(arr, names=["a", "b"])
    assert data.codes.tolist() == arr.tolist()
    path = tmp_path / "d.csv"
    frame().to_csv(path, index=False)
    from_csv = Dataset(path)
    assert from_csv.discrete_names == ("smoke", "n", "flag", "cat")
    assert Dataset.from_csv(path).states["smoke"] == ("no", "yes")
    wrapped = Dataset.from_codes(arr, ["a", "b"], states={"a": ("lo", "hi")})
    assert wrapped.decode("a", [1, 0]).tolist() == ["hi", "lo"]
    assert Dataset(wrapped) is not wrapped and Dataset(wrapped).codes is wrapped.codes


def test_take_select_and_column_access():
    data = Dataset(frame())
    boot = data.take([0, 0, 1])
    assert boot.n_rows == 3 and boot.states == data.states
    sub = data.select(["x", "smoke"])
    assert sub.names == ("x", "smoke") and sub.discrete_names == ("smoke",)
    assert data.column("x")[1] == 2.5
    assert data.arity("n") == 3 and data.index("flag") == 2
    assert "smoke" in data and "nope" not in data and ["list"] not in data


@pytest.mark.parametrize(
    "bad, error, match",
    [
        (pd.DataFrame({"a": [1.0, np.nan, 2.0], "b": [1, 2, 3]}), ValueError, "'a' has 1 missing"),
        (pd.DataFrame({"a": ["x", None, "y"]}), ValueError, "'a' has 1 missing"),
        (
            pd.DataFrame({"a": pd.array([1, pd.NA, 2], dtype="Int64")}),
            ValueError,
            "'a' has 1 missing",
        ),
        (pd.DataFrame({"a": [1, 1, 1], "b": [1, 2, 3]}), ValueError, "'a' has a single level"),
        (pd.DataFrame({"a": [1.5, 1.5]}), ValueError, "'a' is constant"),
        (pd.DataFrame({"a": [1.0, np.inf]}), ValueError, "'a' has infinite"),
        (pd.DataFrame({"a": []}), ValueError, "no rows"),
        (pd.DataFrame(index=range(3)), ValueError, "no columns"),
        (pd.DataFrame({"a": [1, "x", 2.5]}), TypeError, "'a' mixes value types"),
        (pd.DataFrame({"a": [[1], [2]]}), TypeError, "'a'"),
        (pd.DataFrame([[1, 2]], columns=[0, "b"]), TypeError, "names must be strings"),
        (
            pd.DataFrame([[1, 2], [2, 1]], columns=["a", "a"]),
            ValueError,
            "duplicate column name .a.",
        ),
        (
            pd.DataFrame({"id": [f"id {i % 300}" for i in range(600)]}),
            ValueError,
            "every column is set aside",
        ),
        (pd.DataFrame({"id": [str(i) for i in range(300)]}), ValueError, "every column"),
        (pd.DataFrame({"when": pd.date_range("2020", periods=3)}), TypeError, "'when'.*dates"),
        ([[1, 2]], TypeError, "DataFrame"),
        (np.zeros(3), ValueError, "2-D"),
    ],
)
def test_bad_input_is_named(bad, error, match):
    with pytest.raises(error, match=match):
        Dataset(bad)


def test_bad_parameters():
    with pytest.raises(ValueError, match="needs names"):
        Dataset(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="2 entries for 3"):
        Dataset(np.zeros((2, 3)), names=["a", "b"])
    with pytest.raises(ValueError, match="max_levels"):
        Dataset(frame(), max_levels=1)
    with pytest.raises(TypeError, match="max_levels"):
        Dataset(frame(), max_levels=2.5)
    with pytest.raises(ValueError, match="discrete names unknown"):
        Dataset(frame(), discrete=["nope"])
    data = Dataset(frame())
    with pytest.raises(ValueError, match="target 'nope' is not a column"):
        data.check_name("nope")
    with pytest.raises(TypeError, match="unhashable"):
        data.check_name(["x"])
    with pytest.raises(ValueError, match=r"columns \['x'\] are continuous"):
        data.require_discrete("hill_climbing")


def test_dropna_and_discrete_floats():
    df = pd.DataFrame({"a": [1.0, np.nan, 2.0, 1.0], "b": ["u", "v", "v", "u"]})
    data = Dataset(df, dropna=True, discrete=["a"])
    assert data.n_rows == 3 and data.states["a"] == (1.0, 2.0)
    with pytest.raises(ValueError, match="no rows left"):
        Dataset(pd.DataFrame({"a": [np.nan, np.nan]}), dropna=True)


def test_max_levels_is_configurable_and_dtype_grows():
    df = pd.DataFrame({"id": np.arange(300) % 290})
    data = Dataset(df, max_levels=1000, discrete=["id"])
    assert data.arities[0] == 290 and data.codes.dtype == np.uint16


def test_equal_frequency_and_interval_discretization():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=900), "c": rng.integers(0, 2, 900)})
    quant = discretize(df, "quantile", 3)
    counts = np.bincount(quant.column("x"))
    assert counts.tolist() == [300, 300, 300]
    assert quant.is_discrete and len(quant.states["x"]) == 3
    np.testing.assert_array_equal(quant.raw("x"), df["x"].to_numpy())
    interval = Dataset(df).discretize("interval", 4)
    edges = np.linspace(df["x"].min(), df["x"].max(), 5)
    expected = np.clip(np.searchsorted(edges[1:-1], df["x"], side="left"), 0, 3)
    np.testing.assert_array_equal(interval.column("x"), expected)


def test_mdl_discretization_finds_the_class_boundary():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, 2000)
    y = (x > 6.0).astype(int)
    noise = rng.uniform(0, 10, 2000)  # independent of y
    data = discretize(pd.DataFrame({"x": x, "noise": noise, "y": y}), "mdl", target="y")
    assert data.arity("x") == 2
    cut = float(data.states["x"][0].split(",")[1].rstrip("]"))
    assert abs(cut - 6.0) < 0.05
    assert data.arity("noise") == 2  # no MDL cut accepted: median split
    assert abs(np.mean(data.column("noise")) - 0.5) < 0.01


def test_discretize_errors():
    df = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4], "y": [0, 1, 0, 1]})
    with pytest.raises(ValueError, match="needs a discrete target"):
        discretize(df, "mdl")
    with pytest.raises(ValueError, match="method must be"):
        discretize(df, "kmeans")
    with pytest.raises(ValueError, match="n_bins"):
        discretize(df, n_bins=1)
    with pytest.raises(ValueError, match="'y' is not continuous"):
        discretize(df, columns=["y"])
    skewed = discretize(pd.DataFrame({"x": [0.0, 1.0, 1.0, 1.0]}), n_bins=2)
    assert skewed.column("x").tolist() == [0, 1, 1, 1]  # the maximum is split off


def test_integer_columns_encoded_in_blocks_as_one_by_one():
    from bnfs.tables._columns import INTEGER_BLOCK, encode_column

    rng = np.random.default_rng(4)
    width = INTEGER_BLOCK + 5  # two blocks
    values = rng.integers(-2, 3, size=(40, width)).astype(np.int16)
    frame = pd.DataFrame(values, columns=[f"c{j}" for j in range(width)])
    frame["wide"] = rng.integers(0, 10_000, 40)  # a span past the block path
    frame["text"] = rng.choice(["a", "b"], 40)
    data = Dataset(frame)
    assert data.continuous_names == ("wide",)  # 40 values on 40 rows: a measurement
    for j, name in enumerate(data.discrete_names):
        codes, states = encode_column(name, frame[name], 256)
        assert data.states[name] == states and data.codes[:, j].tolist() == codes.tolist()
    assert all(type(v) is int for v in data.states["c0"])


def test_integer_columns_refused_as_one_by_one():
    frame = pd.DataFrame({"ok": np.arange(30) % 2, "bad": np.zeros(30, dtype=np.int64)})
    with pytest.raises(ValueError, match="'bad'.*single level"):
        Dataset(frame, max_levels=20)
    # more values than max_levels: a number is never refused for them, it is continuous
    frame["bad"] = np.arange(30) % 25
    assert Dataset(frame, max_levels=20).continuous_names == ("bad",)


def test_tall_integer_data_is_encoded_in_narrow_blocks(monkeypatch):
    """The block holds at most INTEGER_BLOCK_CELLS values: a tall frame goes a few columns
    at a time, with the same codes."""
    from bnfs.tables import _columns

    monkeypatch.setattr(_columns, "INTEGER_BLOCK_CELLS", 100)  # 2 columns of 40 rows
    frame = pd.DataFrame(np.random.default_rng(0).integers(0, 3, (40, 7)), columns=list("abcdefg"))
    data = Dataset(frame)
    for j, name in enumerate(frame.columns):
        assert (
            data.codes[:, j].tolist() == _columns.encode_column(name, frame[name], 256)[0].tolist()
        )
