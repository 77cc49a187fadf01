"""Text decided on its content (issue 71, item 2): numbers stored as text with a missing
marker are numbers with gaps, text past max_levels is set aside rather than refusing the
table, and text that reads as dates is refused however few its days."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import Dataset


def lab(n=300, seed=0, marker="."):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    frame = pd.DataFrame(
        {"glucose": [f"{v:.3f}" for v in 5 + x], "sick": (x + rng.normal(size=n) > 0).astype(int)}
    )
    frame.loc[rng.random(n) < 0.05, "glucose"] = marker
    return frame


@pytest.mark.parametrize("marker", [".", "?", "NA", "-"])
@pytest.mark.parametrize("seed", [0, 4])
def test_numbers_stored_as_text_are_numbers_with_gaps(marker, seed):
    frame = lab(seed=seed, marker=marker)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = bnfs.hill_climbing(frame)
    assert graph.learning["columns"] == {"glucose": "continuous", "sick": "discrete"}
    assert graph.learning["missing"]["values"] == int((frame["glucose"] == marker).sum())
    complete = Dataset(frame, dropna=True)
    assert complete.kinds["glucose"] == "continuous"
    assert len(complete) == int((frame["glucose"] != marker).sum())
    assert frame["glucose"].dtype != np.float64  # the caller's frame is not changed


def test_numbers_stored_as_text_in_a_file_read_alike(tmp_path):
    frame = lab(seed=2)
    path = tmp_path / "lab.csv"
    frame.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_file, from_frame = bnfs.hill_climbing(path), bnfs.hill_climbing(frame)
    assert from_file.learning["columns"] == from_frame.learning["columns"]
    assert set(from_file.arcs) == set(from_frame.arcs)
    whole = frame[frame["glucose"] != "."]
    whole.to_csv(path, index=False)
    assert Dataset(path).kinds["glucose"] == "continuous"  # pandas reads numbers there


@pytest.mark.parametrize(("marker", "command"), [("?", "learn"), (".", "blanket")])
def test_the_command_line_reads_numbers_stored_as_text_as_numbers_with_gaps(
    tmp_path, capsys, marker, command
):
    """The command line counted gaps before reading such a column as numbers, and was
    then refused by the Dataset it built ("column ... has 4 missing value(s)"): a real
    table (UCI lung cancer, '?' in two code columns) failed in bnfs learn and bnfs blanket."""
    from bnfs import cli

    frame = lab(seed=3, marker=marker)
    path = tmp_path / "lab.csv"
    frame.to_csv(path, index=False)
    argv = [command, str(path), "--quiet"]
    argv += ["--out", str(tmp_path / "g.json")] if command == "learn" else ["--target", "sick"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cli.main(argv) == 0
        graph = bnfs.hill_climbing(frame)
    out = capsys.readouterr().out
    gaps = int((frame["glucose"] == marker).sum())
    assert f"{gaps} missing values in {gaps} rows" in out
    if command == "learn":
        assert (
            bnfs.io.read_network(tmp_path / "g.json").learning["columns"]
            == (graph.learning["columns"])
        )


def test_numerals_without_a_marker_stay_labels():
    frame = pd.DataFrame({"code": [str(i % 40) for i in range(400)], "y": ["a", "b"] * 200})
    data = Dataset(frame)  # df.astype(str): the caller asks for labels
    assert data.kinds["code"] == "discrete" and "17" in data.states["code"]


def test_text_that_is_not_all_numbers_stays_text():
    frame = pd.DataFrame({"size": ["1", "2", "large", "1", "2"] * 8, "y": ["a", "b"] * 20})
    assert Dataset(frame).kinds["size"] == "discrete"
    asked = Dataset(lab(), discrete=["glucose"], max_levels=1000)  # an override keeps text
    assert asked.kinds["glucose"] == "discrete" and "." in asked.states["glucose"]


@pytest.mark.parametrize("levels", [300, 4741])
def test_text_past_max_levels_is_set_aside_not_refused(levels):
    n = 3 * levels  # three rows a level: not an identifier, past max_levels
    rng = np.random.default_rng(levels)
    frame = pd.DataFrame(
        {
            "job": [f"job {i % levels}" for i in range(n)],
            "a": rng.choice(["x", "y"], n),
            "b": rng.choice(["u", "v"], n),
        }
    )
    with pytest.warns(UserWarning, match=r"'job' \(\d+ levels, more than max_levels=256\)"):
        data = Dataset(frame)
    assert data.kinds["job"] == "identifier" and "job" not in data.names
    assert Dataset(frame, max_levels=levels, discrete=["job"]).arity("job") == levels
    with pytest.raises(ValueError, match="raise max_levels"):
        Dataset(frame, discrete=["job"])  # asked for, and too many: refused by name


@pytest.mark.parametrize("days", [["2021-03-04", "2021-03-05"], ["04/03/2021", "05/03/2021"]])
def test_text_that_reads_as_dates_is_refused_however_few_its_days(days, tmp_path):
    n = 200
    frame = pd.DataFrame({"day": np.resize(days, n), "y": np.resize(["a", "b", "b"], n)})
    with pytest.raises(TypeError, match="column 'day' holds dates or times.*to_datetime"):
        Dataset(frame)
    path = tmp_path / "days.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(TypeError, match="column 'day' holds dates"):
        Dataset(path)
