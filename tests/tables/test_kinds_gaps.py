"""One typing decision for every route (issue 71, items 1 and 3): a frame with gaps is typed
on its observed values as a complete one is (identifiers set aside, float codes read as
codes, the decision recorded), whichever learner or command takes it."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import Dataset
from bnfs.tables._kinds import column_kind


def survey(n=600, seed=0, holes=0.05):
    """A table with gaps as pandas reads it: a row number, names, a flag and a stage that
    pandas stores as float64 because they have gaps, a measurement, a category."""
    rng = np.random.default_rng(seed)
    stage = rng.integers(1, 5, n)
    frame = pd.DataFrame(
        {
            "row": np.arange(n) + 1,
            "name": [f"passenger {i}" for i in rng.permutation(n)],
            "stage": stage.astype(float),
            "flag": (rng.random(n) < 0.2 + 0.15 * stage).astype(float),
            "half": rng.choice([0.0, 0.5, 1.0], n),
            "dose": rng.normal(size=n) + stage,
            "town": rng.choice(["north", "south", "east"], n),
        }
    )
    gaps = rng.random(frame.shape) < holes
    gaps[:, 0] = False  # the row number is complete; the rest have gaps
    return frame.mask(gaps)


def quiet(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("learner", ["hill_climbing", "pc_stable"])
def test_gaps_get_the_typing_rule_and_its_record(seed, learner):
    frame = survey(seed=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = getattr(bnfs, learner)(frame)
    said = [str(w.message) for w in caught if "identifiers" in str(w.message)]
    assert len(said) == 1 and "'row'" in said[0] and "'name'" in said[0]
    assert "row" not in graph.nodes and "name" not in graph.nodes
    kinds = graph.learning["columns"]
    assert kinds["row"] == kinds["name"] == "identifier"
    assert kinds["stage"] == kinds["flag"] == kinds["half"] == kinds["town"] == "discrete"
    assert kinds["dose"] == "continuous"
    assert set(graph.learning["typing"]["float_codes"]) == {"stage", "flag", "half"}


def test_the_same_columns_get_the_same_kinds_complete_or_with_gaps():
    frame = survey(holes=0.1)
    complete = quiet(lambda: bnfs.hill_climbing(frame.dropna()))
    gapped = quiet(lambda: bnfs.hill_climbing(frame))
    assert complete.learning["columns"] == gapped.learning["columns"]
    assert complete.learning["typing"]["float_codes"] == gapped.learning["typing"]["float_codes"]


def test_names_past_max_levels_are_set_aside_not_refused_with_gaps():
    n = 1400  # more names than max_levels=256: refused before, set aside now
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "name": [f"{rng.choice(['Ann', 'Bo', 'Cy'])} {i}" for i in range(n)],
            "class": rng.choice(["1st", "2nd", "3rd"], n),
            "survived": rng.choice(["yes", "no"], n),
        }
    )
    frame.loc[rng.random(n) < 0.1, "class"] = None
    graph = quiet(lambda: bnfs.pc_stable(frame))
    assert graph.nodes == ("class", "survived")
    assert graph.learning["columns"]["name"] == "identifier"


def test_an_identifier_with_gaps_and_gaps_only_there():
    frame = bnfs.datasets.sample("asia", 500, seed=2)
    frame.insert(0, "id", np.arange(500, dtype=float))
    frame.loc[[3, 70], "id"] = np.nan  # float row numbers: the gaps made them floats
    graph = quiet(lambda: bnfs.hill_climbing(frame))
    assert "id" not in graph.nodes
    assert graph.learning["columns"]["id"] == "identifier"
    assert "missing" not in graph.learning  # no gaps left in what was learned from
    plain = bnfs.hill_climbing(frame.drop(columns="id"))
    assert set(graph.arcs) == set(plain.arcs)


def test_structural_em_gives_back_the_callers_columns_and_types():
    frame = survey(n=400, seed=5)
    dag, completed = quiet(lambda: bnfs.structural_em(frame, return_imputed=True))
    assert list(completed.columns) == list(frame.columns)
    assert completed.index.equals(frame.index)
    assert completed["stage"].dtype == np.float64  # a code, given back as the floats it was
    observed = frame["stage"].notna()
    assert (completed.loc[observed, "stage"] == frame.loc[observed, "stage"]).all()
    assert completed.drop(columns=["row", "name"]).notna().all().all()
    assert completed["name"].equals(frame["name"])  # set aside, given back as it was


@pytest.mark.parametrize("values", [[0.0, 1.0], [1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0]])
def test_float_codes_are_codes_complete_too(values):
    rng = np.random.default_rng(len(values))
    column = rng.choice(values, 300)
    data = Dataset(pd.DataFrame({"c": column, "x": rng.normal(size=300)}))
    assert data.kinds == {"c": "discrete", "x": "continuous"}
    assert data.float_codes == ("c",)
    whole = all(v == int(v) for v in values)
    assert data.states["c"] == tuple(int(v) if whole else v for v in values)
    assert column_kind(pd.Series(column)) == "discrete"
    # too many values for the rows: a measurement, as an integer column would be
    few_rows = pd.DataFrame({"c": column[: 3 * len(values)], "x": rng.normal(size=3 * len(values))})
    if len(values) > 2:
        assert Dataset(few_rows).kinds["c"] == "continuous"
    assert Dataset(pd.DataFrame({"c": column}), continuous=["c"]).kinds["c"] == "continuous"


def test_a_file_and_its_blocks_read_float_codes_as_the_frame(tmp_path):
    frame = survey(holes=0.0).drop(columns=["row", "name"])
    path = tmp_path / "codes.csv"
    frame.to_csv(path, index=False)
    whole = Dataset(frame)
    for data in (Dataset(path), Dataset.from_chunks([frame.iloc[:250], frame.iloc[250:]])):
        assert data.kinds == whole.kinds and data.float_codes == whole.float_codes
        assert data.states == whole.states
        np.testing.assert_array_equal(data.codes, whole.codes)
    mapped = Dataset.from_chunks([frame.iloc[:100], frame.iloc[100:]], memmap=tmp_path / "c")
    np.testing.assert_array_equal(mapped.codes, whole.codes)
