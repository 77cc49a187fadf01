"""Data read and encoded block by block: files, dask DataFrames, iterables of frames."""

import numpy as np
import pandas as pd
import pytest

from bnfs import Dataset, datasets, hill_climbing, pc_stable
from bnfs.io import iter_blocks, read_dataset, read_table


def _same(a, b):
    assert a.names == b.names and a.discrete_names == b.discrete_names
    assert a.continuous_names == b.continuous_names
    assert a.states == b.states
    assert a.codes.dtype == b.codes.dtype and np.array_equal(a.codes, b.codes)
    assert b.codes.flags.f_contiguous
    np.testing.assert_array_equal(a.values, b.values)


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(0)
    n = 1000
    return pd.DataFrame(
        {
            "i": rng.integers(0, 5, n),
            "x": rng.normal(size=n),
            "s": rng.choice(["b", "a", "c"], n),
            "b": rng.random(n) < 0.3,
            "c": pd.Categorical(rng.choice(["lo", "hi"], n), categories=["lo", "mid", "hi"]),
            "None": rng.choice(["None", "Some"], n),
        }
    )


@pytest.mark.parametrize("net", ["asia", "child"])
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".csv.gz"])
def test_files_in_blocks_equal_the_whole_frame(net, suffix, tmp_path):
    frame = datasets.sample(net, 2000, seed=3)
    path = tmp_path / f"{net}{suffix}"
    sep = "\t" if suffix == ".tsv" else ","
    frame.to_csv(path, index=False, sep=sep)
    whole = Dataset(pd.read_csv(path, sep=sep, keep_default_na=False, na_values=[""]))
    _same(whole, read_dataset(path, chunksize=333))
    _same(whole, Dataset(path))  # a path is read in blocks too
    assert sum(b.shape[0] for b in iter_blocks(path, chunksize=333)) == 2000


def test_parquet_batches(tmp_path):
    pytest.importorskip("pyarrow")
    frame = datasets.sample("alarm", 3000, seed=1)
    path = tmp_path / "alarm.parquet"
    frame.to_parquet(path)
    _same(Dataset(frame), read_dataset(path, chunksize=512))


def test_blocks_keep_types_levels_and_categories(mixed, tmp_path):
    blocks = [mixed.iloc[i : i + 90] for i in range(0, len(mixed), 90)]
    encoded = Dataset.from_chunks(blocks)
    _same(Dataset(mixed), encoded)
    assert encoded.states["c"] == ("lo", "hi")  # observed categories, in category order
    assert encoded.states["None"] == ("None", "Some")
    path = tmp_path / "mixed.csv"
    mixed.to_csv(path, index=False)
    whole = Dataset(read_table(path))
    _same(whole, read_dataset(path, chunksize=77))
    assert whole.states["b"] == ("False", "True")  # the file's spelling, not Python's bools


def test_dask_dataframe(mixed):
    dd = pytest.importorskip("dask.dataframe")
    _same(
        Dataset(mixed.drop(columns="c")),
        Dataset(dd.from_pandas(mixed.drop(columns="c"), npartitions=4)),
    )


def test_dropna_and_missing_rows(mixed):
    holes = mixed.copy()
    holes.loc[[5, 501], "s"] = None
    blocks = [holes.iloc[i : i + 100] for i in range(0, len(holes), 100)]
    _same(Dataset(holes, dropna=True), Dataset.from_chunks(blocks, dropna=True))
    with pytest.raises(ValueError, match=r"column 's' has a missing value \(row 5\)"):
        Dataset.from_chunks(blocks)
    with pytest.raises(ValueError, match="no rows left"):
        Dataset.from_chunks([holes.iloc[5:6]], dropna=True)


def test_block_errors(tmp_path):
    ints = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]})
    with pytest.raises(TypeError, match="column 'a' mixes value types.*across blocks"):
        Dataset.from_chunks([ints, pd.DataFrame({"a": ["p", "q"], "b": ["x", "y"]})])
    with pytest.raises(ValueError, match="not the first block's"):
        Dataset.from_chunks([ints, ints.rename(columns={"b": "c"})])
    with pytest.warns(UserWarning, match=r"'b' \(more than max_levels=2 levels"):
        aside = Dataset.from_chunks([ints, pd.DataFrame({"a": [4], "b": ["z"]})], max_levels=2)
    assert aside.kinds["b"] == "identifier"  # text past max_levels is set aside, not refused
    with pytest.raises(ValueError, match="column 'b' has more than max_levels=2"):
        Dataset.from_chunks(
            [ints, pd.DataFrame({"a": [4], "b": ["z"]})], max_levels=2, discrete=["b"]
        )
    # numbers are never refused for their values: past max_levels they are continuous
    many = Dataset.from_chunks([ints, pd.DataFrame({"a": [4], "b": ["y"]})], max_levels=3)
    assert many.continuous_names == ("a",) and many.column("a").tolist() == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="column 'b' has a single level"):
        Dataset.from_chunks([ints.assign(b="x")])
    with pytest.raises(ValueError, match="no rows"):
        Dataset.from_chunks([])
    with pytest.raises(TypeError, match="DataFrame"):
        Dataset.from_chunks([ints.to_numpy()])
    with pytest.raises(ValueError, match="float in the first block"):
        Dataset.from_chunks(
            [
                pd.DataFrame({"f": [0.5, 1.5], "b": ["x", "y"]}),
                pd.DataFrame({"f": ["oops"], "b": ["x"]}),
            ]
        )
    path = tmp_path / "late.csv"
    pd.DataFrame({"a": [1, 2] * 50 + ["text"], "b": ["x", "y"] * 50 + ["x"]}).to_csv(
        path, index=False
    )
    with pytest.raises(ValueError, match="first 10 rows set each column's type"):
        read_dataset(path, chunksize=10)
    assert read_dataset(path, chunksize=10, dtype=str).states["a"] == ("1", "2", "text")
    with pytest.raises(ValueError, match="chunksize"):
        read_dataset(path, chunksize=0)
    with pytest.raises(FileNotFoundError):
        read_dataset(tmp_path / "nope.csv")


def test_learners_take_a_file_path(tmp_path):
    frame = datasets.sample("asia", 3000, seed=5)
    path = tmp_path / "asia.csv"
    frame.to_csv(path, index=False)
    read = pd.read_csv(path)  # levels sorted as in the file, not in the network's order
    assert hill_climbing(str(path)) == hill_climbing(read)
    assert pc_stable(path) == pc_stable(read)


def test_codes_in_a_memory_mapped_file(mixed, tmp_path):
    blocks = [mixed.iloc[i : i + 90] for i in range(0, len(mixed), 90)]
    target = tmp_path / "codes.u8"
    mapped = Dataset.from_chunks(blocks, memmap=target)
    _same(Dataset(mixed), mapped)
    assert isinstance(mapped.codes, np.memmap) and target.exists()
    assert not (tmp_path / "codes.u8.partial").exists()  # the scratch file is gone
    frame = datasets.sample("alarm", 4000, seed=2)
    path = tmp_path / "alarm.csv"
    frame.to_csv(path, index=False)
    on_disk = read_dataset(path, chunksize=1000, memmap=tmp_path / "alarm.codes")
    assert hill_climbing(on_disk) == hill_climbing(pd.read_csv(path))
    with pytest.raises(ValueError, match="directory"):
        Dataset.from_chunks(blocks, memmap=tmp_path)
    with pytest.raises(ValueError, match="missing value"):
        Dataset.from_chunks([mixed.assign(s=None)], memmap=tmp_path / "bad.u8")
    assert not (tmp_path / "bad.u8.partial").exists()
