"""Real data at the learners' door: constant columns are isolated nodes, incomplete data go
to structural EM or available-case tests (or a refusal naming who takes them), mixed data
are modelled."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import Dataset, learners
from bnfs.cli import main
from bnfs.constraint import LocalResult


@pytest.fixture(scope="module")
def frame():
    data = bnfs.datasets.sample("asia", 600, seed=1)
    data.insert(0, "site", "A")  # a discrete constant, first
    data["dose"] = 2.5  # a continuous constant, last
    return data


def _quick(name: str) -> dict:
    """Options that keep a learner fast on 600 rows."""
    options = {"learn": {"candidates": ["hc"]}, "boss": {"restarts": 0}, "grasp": {"restarts": 0}}
    return options.get(name, {})


@pytest.mark.parametrize("name", learners.names("score", "hybrid", "constraint"))
def test_every_graph_learner_keeps_constant_columns_as_isolated_nodes(frame, name):
    before = frame.copy()
    data = frame.drop(columns="dose") if not learners.get(name).models_continuous else frame
    expected = [c for c in ("site", "dose") if c in data]
    with pytest.warns(UserWarning, match=f"{name}: {len(expected)} constant column"):
        graph = learners.get(name)(data, **_quick(name))
    assert graph.nodes == tuple(data.columns)  # the data's order, constants in place
    for node in expected:
        assert graph.neighbours(node) == [] and graph.markov_blanket(node) == []
    assert graph.learning["isolated"] == expected
    # the rest is what the learner finds without the constant columns
    plain = learners.get(name)(data.drop(columns=expected), **_quick(name))
    assert set(graph.arcs) == set(plain.arcs) and set(graph.edges) == set(plain.edges)
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize("name", learners.names("blanket", "neighbours"))
def test_local_learners_leave_constant_columns_out(frame, name):
    data = frame.drop(columns="dose")
    with pytest.warns(UserWarning, match="they are in no blanket"):
        found = learners.get(name)(data, "either")
    assert found == learners.get(name)(data.drop(columns="site"), "either")
    with pytest.warns(UserWarning, match="constant column"):
        assert learners.get(name)(data, "site") == []  # a constant target has no blanket


def test_lists_naming_a_constant_column(frame):
    with pytest.warns(UserWarning):
        dag = bnfs.hill_climbing(frame, blacklist=[("site", "lung"), ("smoke", "lung")])
    assert not dag.has_arc("smoke", "lung") and dag.neighbours("site") == []
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="constant column 'site'"):
        bnfs.hill_climbing(frame, whitelist=[("site", "lung")])
    start = bnfs.DAG(list(frame.columns), [("site", "lung"), ("smoke", "lung")])
    with pytest.warns(UserWarning):
        dag = bnfs.hill_climbing(frame, start=start)
    assert dag.neighbours("site") == []


def test_files_and_datasets(frame, tmp_path):
    path = tmp_path / "constant.csv"
    frame.to_csv(path, index=False)
    with pytest.warns(UserWarning, match="2 constant column"):
        from_file = bnfs.hill_climbing(str(path))
    with pytest.warns(UserWarning):
        assert from_file == bnfs.hill_climbing(frame)
    data = Dataset(frame, constant="isolate")
    assert data.isolated == {"site": "A", "dose": 2.5}
    assert data.columns == tuple(frame.columns) and "site" not in data.names
    streamed = Dataset(path, constant="isolate")
    assert streamed.isolated == data.isolated and streamed.names == data.names
    for j, name in enumerate(data.names):  # the same values (level order may differ)
        decoded = np.asarray(data.states[name], dtype=object)[data.codes[:, j]]
        assert list(np.asarray(streamed.states[name])[streamed.codes[:, j]]) == list(decoded)
    with pytest.raises(ValueError, match="column 'site' has a single level.*constant='isolate'"):
        Dataset(frame)
    with pytest.raises(ValueError, match="constant must be"):
        Dataset(frame, constant="drop")


def test_every_column_constant_is_refused(frame):
    with pytest.raises(ValueError, match="every column is constant"):
        bnfs.pc_stable(frame[["site", "dose"]])


def test_without_constant_columns_nothing_is_said(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dag = bnfs.hill_climbing(frame.drop(columns=["site", "dose"]))
    assert "isolated" not in dag.learning


def test_the_command_line_writes_the_constant_node(frame, tmp_path, capsys):
    path = tmp_path / "constant.csv"
    frame.drop(columns="dose").to_csv(path, index=False)
    out = tmp_path / "net.bif"
    assert main(["learn", str(path), "--out", str(out), "--algorithm", "hill_climbing"]) == 0
    assert "constant column(s) ('site')" in capsys.readouterr().err
    network = bnfs.io.read_bif(out)
    assert network.states["site"] == ("A",) and network.dag.neighbours("site") == []
    assert np.allclose(network.cpts["site"], [1.0])
    assert main(["blanket", str(path), "--target", "site"]) == 0
    assert "parents    -" in capsys.readouterr().out


@pytest.fixture(scope="module")
def holes():
    data = bnfs.datasets.sample("asia", 1500, seed=2)
    return data.mask(np.random.default_rng(0).random(data.shape) < 0.05)


@pytest.mark.parametrize(
    "name, maximize",
    [
        ("learn", "learn"),
        ("boss", "boss"),
        ("hill_climbing", "hill_climbing"),
        ("tabu_search", "tabu_search"),
    ],
)
def test_incomplete_data_go_to_structural_em(holes, name, maximize):
    before = holes.copy()
    with pytest.warns(UserWarning, match=f"{name}: .* rows have missing values; learning by"):
        dag = getattr(bnfs, name)(holes, score="bde", seed=3)
    direct = bnfs.structural_em(holes, "bde", maximize, seed=3)
    assert dag.learning["algorithm"] == "structural_em" and dag.learning["maximize"] == maximize
    assert set(dag.arcs) == set(direct.arcs) and dag.learning["rows_used"] == len(holes)
    pd.testing.assert_frame_equal(holes, before)


def test_structural_em_refuses_what_it_cannot_pass_on(holes):
    with pytest.raises(ValueError, match="structural EM .* which does not take restarts"):
        bnfs.hill_climbing(holes, restarts=2)


@pytest.mark.parametrize("name", ["grasp", "sparse_candidate", "mmhc", "screen_based"])
def test_other_score_learners_name_the_learners_that_take_gaps(holes, name):
    with pytest.raises(ValueError, match=f"{name} needs complete rows") as error:
        getattr(bnfs, name)(holes)
    assert "bnfs.structural_em" in str(error.value) and "bnfs.pc_stable" in str(error.value)


def test_constraint_learners_test_on_available_cases(holes):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdag = bnfs.pc_stable(holes)
    assert pdag.learning["rows_used"]["min"] < len(holes)


def test_learn_models_mixed_data():
    survey = bnfs.datasets.load_survey().dropna()
    dag = bnfs.learn(survey)
    assert dag.learning["chosen"] == "boss" and dag.learning["score"] == "bic-cg"
    truth = bnfs.datasets.survey_network().dag
    assert bnfs.shd(dag, truth) <= bnfs.shd(bnfs.hill_climbing(survey), truth)
    compared = bnfs.learn(survey, candidates=["boss", "hc"], folds=3, progress=False)
    summary = compared.learning["candidates"]
    assert set(summary) == {"boss", "hc"} and compared.learning["chosen"] in summary
    assert all(np.isfinite(summary[c]["mean"]) for c in summary)


def test_structural_em_returns_the_data_it_completed(holes):
    framed = holes.set_axis(holes.index + 7)  # the caller's index is kept
    dag, completed = bnfs.structural_em(framed, return_imputed=True, seed=3)
    assert set(dag.arcs) == set(bnfs.structural_em(framed, seed=3).arcs)
    assert completed.index.equals(framed.index) and list(completed) == list(framed)
    assert not completed.isna().to_numpy().any()
    observed = framed.notna().to_numpy()
    assert (completed.to_numpy()[observed] == framed.to_numpy()[observed]).all()
    for name in framed:  # imputations are levels of the column, spelled as given
        assert set(completed[name]) <= set(framed[name].dropna())
    survey = bnfs.datasets.load_survey()
    _, filled = bnfs.structural_em(survey, return_imputed=True)
    assert (filled.dtypes == survey.dtypes).all() and not filled.isna().to_numpy().any()
    with pytest.raises(TypeError, match="return_imputed"):
        bnfs.structural_em(survey, return_imputed="yes")


def test_constant_columns_of_incomplete_data(holes):
    data = holes.assign(site="A")
    data.loc[data.index[:5], "site"] = None  # constant where observed
    with pytest.warns(UserWarning, match="constant column"):
        dag, completed = bnfs.structural_em(data, return_imputed=True, seed=3)
    assert dag.nodes == tuple(data.columns) and dag.neighbours("site") == []
    assert (completed["site"] == "A").all()
    with pytest.warns(UserWarning, match="constant column"):
        pdag = bnfs.pc_stable(data)
    assert pdag.neighbours("site") == [] and pdag.learning["isolated"] == ["site"]


@pytest.mark.parametrize("name", learners.names())
def test_every_learner_wears_the_real_data_door(name):
    from bnfs._real_data import takes_real_data

    function = learners.get(name).function
    door = takes_real_data()(lambda data: data).__code__  # every wrapper shares this code
    assert function.__code__ is door and function.__wrapped__.__name__ == name


def test_each_learner_declares_what_it_does_with_missing_values():
    """The door's declarations: the CI-test learners test on available cases, the searches
    structural EM runs (and only they) go into it, the hybrids and the other searches
    refuse, naming the learners that take gaps."""
    from bnfs._real_data import MISSING, takes_real_data
    from bnfs.search.structural_em import MAXIMIZE

    declared = {name: learners.get(name).missing for name in learners.names()}
    assert set(declared.values()) == set(MISSING)
    assert {n for n, how in declared.items() if how == "structural_em"} == set(MAXIMIZE)
    for name in learners.names("constraint", "neighbours"):
        assert declared[name] == "available_cases"
    assert declared["structural_em"] == declared["neighbourhood_mb"] == "native"
    assert all(declared[n] == "refuse" for n in learners.names("hybrid"))
    frame = bnfs.datasets.sample("asia", 300, seed=0).astype(object)
    frame.loc[3, "lung"] = None
    with pytest.raises(ValueError, match="grasp needs complete rows.*bnfs.pc_stable"):
        bnfs.grasp(frame)
    with pytest.raises(ValueError, match="missing must be one of"):
        takes_real_data("impute")


def test_the_command_line_says_how_missing_values_were_used(tmp_path, capsys):
    path = tmp_path / "survey.csv"
    bnfs.datasets.load_survey().to_csv(path, index=False)
    assert main(["blanket", str(path), "--target", "smoker"]) == 0
    out = capsys.readouterr()
    assert "inside structural EM" in out.err
    assert "missing values in 200 rows, by structural EM" in out.out
    assert main(["blanket", str(path), "--target", "smoker", "--algorithm", "hiton_mb"]) == 0
    assert "available-case tests: " in capsys.readouterr().out


def test_a_learner_of_discrete_data_names_the_ones_that_model_continuous_data():
    survey = bnfs.datasets.load_survey().dropna()
    with pytest.raises(ValueError, match="or a learner that models them .*bnfs.pc_stable"):
        bnfs.tpda(survey)


@pytest.mark.parametrize("gaps", [False, True])
@pytest.mark.parametrize("learner", learners.names("blanket", "neighbours"))
def test_a_constant_target_gives_an_empty_local_result_with_provenance(learner, gaps):
    """Independent of everything, a constant target's set is empty; it is still the
    LocalResult every local learner returns (it was a plain list), stamped by the door."""
    import warnings

    frame = bnfs.datasets.sample("asia", 300, seed=0).assign(k="same")
    if gaps:
        frame = frame.astype(object)
        frame.loc[3, "lung"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = learners.get(learner).function(frame, "k", alpha=0.01)
    assert isinstance(found, LocalResult) and found == []
    assert found.learning["algorithm"] == learner
    assert found.learning["target"] == "k" and found.learning["constant_target"]
    assert found.learning["alpha"] == 0.01 and found.learning["n_tests"] == 0


@pytest.mark.parametrize("constant", [False, True])
@pytest.mark.parametrize("gaps", [False, True])
@pytest.mark.parametrize("names", [range(9), np.arange(9), [f"c{i}" for i in range(8)] + [8]])
def test_column_names_that_are_not_text_are_refused_by_name_on_every_path(names, gaps, constant):
    """Integer names with missing values and a constant column gave a raw KeyError ("['8']
    not found in axis": the constant check keyed by str(name))."""
    frame = bnfs.datasets.sample("asia", 300, seed=0).assign(k="same" if constant else "a")
    if not constant:
        frame.loc[::2, "k"] = "b"
    frame.columns = list(names)
    if gaps:
        frame = frame.astype(object)
        frame.iloc[3, 2] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="column names must be strings, got (0|8) "):
            bnfs.hill_climbing(frame)


@pytest.mark.parametrize("suffix", [".csv", ".arff"])
@pytest.mark.parametrize("learner", ["hill_climbing", "pc_stable", "learn", "hiton_mb"])
def test_a_file_with_gaps_gets_the_answer_its_frame_gets(tmp_path, suffix, learner):
    """bnfs.learn("hepatitis.arff") refused the missing values that the frame read from the
    file (and the command line) learn from: a path and its frame give the same answer."""
    frame = bnfs.datasets.sample("asia", 600, seed=3).astype(object)
    rng = np.random.default_rng(0)
    frame = frame.mask(rng.random(frame.shape) < 0.03)
    path = tmp_path / f"gaps{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        lines = ["@relation gaps"]
        lines += [f"@attribute {c} {{no,yes}}" for c in frame.columns]
        lines += ["@data"] + [
            ",".join("?" if pd.isna(v) else v for v in row) for row in frame.to_numpy()
        ]
        path.write_text("\n".join(lines) + "\n")
    run = learners.get(learner).function if learner != "learn" else bnfs.learn
    args = ("lung",) if learner == "hiton_mb" else ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_path = run(path, *args)
        from_frame = run(bnfs.io.read_table(path), *args)
        from_text = run(str(path), *args)
    assert from_path == from_frame == from_text
    assert from_path.learning.get("algorithm") == from_frame.learning.get("algorithm")
