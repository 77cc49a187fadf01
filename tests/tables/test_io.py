"""Reading data files: CSV, TSV (compressed too), Parquet, ARFF (dense and sparse)."""

import gzip

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs.io import iter_blocks, parse_arff, read_dataset, read_table


def test_csv_tsv_and_compressed(tmp_path):
    frame = pd.DataFrame({"a": ["x", "y", "x"], "b": [1.5, np.nan, 2.0]})
    frame.to_csv(tmp_path / "f.csv", index=False)
    frame.to_csv(tmp_path / "f.tsv", sep="\t", index=False)
    with gzip.open(tmp_path / "f.tsv.gz", "wt") as handle:
        frame.to_csv(handle, sep="\t", index=False)
    for name in ("f.csv", "f.tsv", "f.tsv.gz"):
        pd.testing.assert_frame_equal(read_table(tmp_path / name), frame)


def test_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"a": ["x", "y"], "b": [1, 2]})
    frame.to_parquet(tmp_path / "f.parquet")
    pd.testing.assert_frame_equal(read_table(tmp_path / "f.parquet"), frame)


def test_arff_dense_sparse_and_quoted():
    text = """% a comment
@RELATION weather
@ATTRIBUTE 'out look' {sunny, 'over cast', rainy}
@attribute temp REAL
@attribute note string
@data
sunny, 85, hot
'over cast', ?, 'mild day'
"""
    frame = parse_arff(text)
    assert list(frame.columns) == ["out look", "temp", "note"]
    assert frame["out look"].tolist() == ["sunny", "over cast"]
    assert list(frame["out look"].cat.categories) == ["sunny", "over cast", "rainy"]
    assert frame["temp"].iloc[0] == 85 and np.isnan(frame["temp"].iloc[1])
    assert frame["note"].tolist() == ["hot", "mild day"]
    sparse = parse_arff(
        "@relation s\n@attribute a numeric\n@attribute b numeric\n@data\n{1 3}\n{0 2, 1 5}\n"
    )
    assert sparse.to_numpy().tolist() == [[0, 3], [2, 5]]


@pytest.mark.parametrize(
    "text, message",
    [
        ("@relation r\n@attribute a numeric\n", "no @data"),
        ("@relation r\n@data\n1\n", "declares no attributes"),
        ("@relation r\n@attribute a numeric\n@data\n1,2\n", "2 values for 1 attributes"),
        ("@relation r\n@attribute a numeric\n@data\nabc\n", "numeric but holds"),
        ("@relation r\n@attribute a blob\n@data\n1\n", "unknown type"),
        ("hello\n", "expected @relation"),
    ],
)
def test_arff_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_arff(text)


def test_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_table(tmp_path / "missing.csv")
    (tmp_path / "f.xlsx").write_text("x")
    with pytest.raises(ValueError, match="cannot tell the format"):
        read_table(tmp_path / "f.xlsx")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match="is empty"):
        read_table(tmp_path / "empty.csv")
    with pytest.raises(IsADirectoryError):
        read_table(tmp_path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("@relation r\n@attribute a {u,v}\n@data\nw\n", "not among its declared levels"),
        ("@relation r\n@attribute a {u,v}\n@attribute b numeric\n@data\n{5 1}\n", "index below 2"),
        ("@relation r\n@attribute a {u,v}\n@attribute b numeric\n@data\n{-1 1}\n", "index below 2"),
        ("@relation r\n@attribute 'a b {u,v}\n@data\nu\n", "quote is not closed"),
        ("@relation r\n@attribute a {\n@data\nu\n", "needs levels"),
        ("@relation r\n@attribute a {u,u}\n@data\nu\n", "repeats a level"),
        ("@relation r\n@attribute a {u,v}\n@attribute a numeric\n@data\nu,1\n", "declared twice"),
    ],
)
def test_arff_defects_found_by_fuzzing(text, message):
    with pytest.raises(ValueError, match=message):
        parse_arff(text)


@pytest.mark.parametrize("cut", [10, 60, 120, 400])
def test_truncated_bif_is_a_value_error(cut):
    from bnfs import datasets
    from bnfs.io import write_bif
    from bnfs.models.bif import parse_bif

    text = write_bif(datasets.network_model("asia"))
    with pytest.raises(ValueError, match="BIF"):
        parse_bif(text[:cut])
    with pytest.raises(ValueError, match="no variables"):
        parse_bif("")


def test_one_reader_and_one_set_of_missing_markers(tmp_path, monkeypatch, capsys):
    """ "None" is a state (child, insurance), "NA" and empty cells are missing: the same for
    read_table, Dataset(path), Dataset.from_csv, read_dataset and the command line."""
    import bnfs
    from bnfs import cli
    from bnfs.io import MISSING_VALUES, read_dataset

    frame = bnfs.datasets.sample("child", 400, seed=1)
    assert "None" in set(frame["DuctFlow"])
    frame.to_csv(tmp_path / "child.csv", index=False)
    path = tmp_path / "child.csv"
    readers = [
        bnfs.Dataset(read_table(path)),
        bnfs.Dataset(path),
        bnfs.Dataset.from_csv(path),
        read_dataset(path),
    ]
    for data in readers:
        assert data.states == readers[0].states and "None" in data.states["DuctFlow"]
    monkeypatch.chdir(tmp_path)
    assert cli.main(["learn", "child.csv", "--out", "child.json", "--quiet"]) == 0
    assert bnfs.io.from_json((tmp_path / "child.json").read_text()) == bnfs.learn(
        readers[0], progress=False
    )

    holes = frame.astype(str)
    holes.loc[[3, 8], "DuctFlow"] = ["NA", ""]
    holes.loc[5, "Disease"] = "NULL"
    holes.to_csv(tmp_path / "holes.csv", index=False)
    assert read_table(tmp_path / "holes.csv").isna().sum().sum() == 3
    for read in (bnfs.Dataset, bnfs.Dataset.from_csv, read_dataset):
        with pytest.raises(ValueError, match="missing value"):
            read(tmp_path / "holes.csv")
    assert set(MISSING_VALUES) >= {"", "NA", "NULL"} and "None" not in MISSING_VALUES
    capsys.readouterr()
    assert cli.main(["learn", "holes.csv", "--out", "h.json", "--dropna", "--quiet"]) == 0
    assert (
        "dropped 3 of 400 rows of holes.csv with missing values (397 left)"
        in capsys.readouterr().err
    )


def test_sparse_arff_omits_zeros_and_a_quoted_question_mark_is_a_value():
    """Weka: a value left out of a sparse row is 0, for a nominal attribute its first
    declared level; an unquoted ? is missing, a quoted '?' is the value '?'."""
    text = (
        "@relation r\n@attribute c {x,y}\n@attribute n numeric\n@attribute s {'?',ok}\n"
        "@data\n{1 2.5}\n{0 y, 2 '?'}\n{}\nx,?,?\n'y',1,'?'\ny, 3, \"ok\"\n"
    )
    frame = parse_arff(text)
    assert frame["c"].tolist() == ["x", "y", "x", "x", "y", "y"]
    assert frame["n"].tolist()[:3] == [2.5, 0.0, 0.0] and np.isnan(frame["n"][3])
    assert frame["s"].tolist()[:3] == ["?", "?", "?"]
    assert pd.isna(frame["s"][3]) and frame["s"].tolist()[4:] == ["?", "ok"]
    with pytest.raises(ValueError, match="unclosed quote"):
        parse_arff("@relation r\n@attribute c {x,y}\n@data\n'x\n")


def test_logical_values_keep_the_files_spelling(tmp_path):
    """TRUE/FALSE (or true, False...) in a file stay as written: pandas would read them as
    booleans, and a model's states 'True'/'False' would not match the file's own values."""
    rows = ["flag,size,other"] + [
        f"{['TRUE', 'FALSE'][i % 2]},{['small', 'large'][i % 3 == 0]},{['true', 'false'][i % 5 == 0]}"
        for i in range(60)
    ]
    path = tmp_path / "logical.csv"
    path.write_text("\n".join(rows) + "\n")
    frame = read_table(path)
    assert sorted(frame["flag"].unique()) == ["FALSE", "TRUE"]
    for data in (bnfs.Dataset(frame), bnfs.Dataset.from_csv(path), read_dataset(path)):
        assert data.states["flag"] == ("FALSE", "TRUE")
        assert data.states["other"] == ("false", "true")
    blocks = list(iter_blocks(path, chunksize=7))
    assert {value for block in blocks for value in block["flag"]} == {"FALSE", "TRUE"}
    # a caller's dtype still wins
    assert read_table(path, dtype={"flag": bool})["flag"].dtype == bool
