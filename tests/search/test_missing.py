"""Missing values: structural EM for the score-based searches and available-case CI tests
for the constraint-based learners, with values removed completely at random (MCAR) and at
random given another column (MAR)."""

import importlib

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import datasets
from bnfs.models.cg_network import random_cg_network


def _mcar(frame, rate, seed):
    return frame.mask(np.random.default_rng(seed).random(frame.shape) < rate)


def _mar(frame, rate, seed, given):
    """Each column but ``given`` loses values more often when ``given`` is at its first
    level: missing at random given an always observed column."""
    rng = np.random.default_rng(seed)
    first = (frame[given] == frame[given].iloc[0]).to_numpy()
    holes = rng.random(frame.shape) < np.where(first, 2 * rate, 0.5 * rate)[:, None]
    holes[:, list(frame.columns).index(given)] = False
    return frame.mask(holes)


@pytest.mark.parametrize("pattern", ["mcar", "mar"])
def test_structural_em_learns_about_as_well_as_complete_data(asia_sample, pattern):
    frame, truth = asia_sample
    holes = _mcar(frame, 0.15, 1) if pattern == "mcar" else _mar(frame, 0.15, 1, "smoke")
    assert holes.isna().any(axis=1).mean() > 0.5  # dropna would lose most rows
    found = bnfs.structural_em(holes)
    complete = bnfs.hill_climbing(frame)
    dropped = bnfs.hill_climbing(holes.dropna())
    assert bnfs.shd(found.cpdag(), truth.cpdag()) <= bnfs.shd(complete.cpdag(), truth.cpdag()) + 1
    assert bnfs.shd(found.cpdag(), truth.cpdag()) <= bnfs.shd(dropped.cpdag(), truth.cpdag())
    learning = found.learning
    assert learning["algorithm"] == "structural_em" and learning["rows_used"] == len(frame)
    assert learning["missing_cells"] == int(holes.isna().sum().sum())
    # the imputation loop, then the loop on expected counts: each at most max_iter rounds
    assert 2 <= learning["rounds"] <= 10 and learning["estep"].startswith("expected counts")


def test_structural_em_keeps_knowledge_and_input(asia_sample):
    frame, _ = asia_sample
    holes = _mcar(frame, 0.1, 2)
    before = holes.copy()
    found = bnfs.structural_em(
        holes, blacklist=[("smoke", "lung")], whitelist=[("asia", "tub")], max_parents=2
    )
    assert ("smoke", "lung") not in found.arcs and ("asia", "tub") in found.arcs
    assert max(len(found.parents(v)) for v in found.nodes) <= 2
    pd.testing.assert_frame_equal(holes, before)
    again = bnfs.structural_em(
        holes, blacklist=[("smoke", "lung")], whitelist=[("asia", "tub")], max_parents=2
    )
    assert found.arcs == again.arcs


def test_structural_em_on_mixed_data_imputes_from_the_blanket():
    net = random_cg_network(5, 7, seed=4)
    frame = net.sample(3000, seed=1)
    holes = _mcar(frame, 0.1, 3)
    found = bnfs.structural_em(holes, "bic-cg")
    empty = bnfs.DAG(list(frame.columns))
    assert bnfs.shd(found, net.dag) < 0.5 * bnfs.shd(empty, net.dag)
    assert not [(u, v) for u, v in found.arcs if v in net.levels and u not in net.levels]


@pytest.mark.parametrize("maximize", ["hill_climbing", "tabu_search", "boss", "learn"])
@pytest.mark.parametrize("estep", ["impute", "expected"])
def test_structural_em_without_missing_values_is_one_search(asia_sample, maximize, estep):
    frame, _ = asia_sample
    search = getattr(bnfs, maximize)
    found = bnfs.structural_em(frame, "bde", maximize, estep=estep)
    assert set(found.arcs) == set(search(frame, score="bde", progress=False).arcs)
    assert found.learning["rounds"] == 0


def test_learn_on_300000_rows_with_gaps_finds_the_complete_rows_graph():
    # the case: hill climbing inside EM on imputed modes learned functional links
    # around asia's deterministic "either" as arcs once the rows were many (SHD 7)
    frame = datasets.sample("asia", 300_000, seed=5)
    truth = datasets.network("asia")
    holes = _mcar(frame, 0.05, 6)
    with pytest.warns(UserWarning, match="inside structural EM"):
        found = bnfs.learn(holes, progress=False)
    complete = bnfs.learn(frame, progress=False)
    assert bnfs.shd(found, truth) <= bnfs.shd(complete, truth) + 1 <= 2


def test_many_rows_start_em_from_an_imputation_loop_on_a_subset(asia_sample, monkeypatch):
    # beyond WARM_START_ROWS rows the imputation loop that gives EM its start runs on a
    # random subset; EM on expected counts still runs on every row
    em = importlib.import_module("bnfs.em.rounds")
    frame, truth = asia_sample
    holes = _mcar(frame, 0.1, 7)
    whole = bnfs.structural_em(holes, maximize="learn")
    monkeypatch.setattr(em, "WARM_START_ROWS", 1500)
    subset = bnfs.structural_em(holes, maximize="learn")
    assert "imputing 1,500 of the rows" in subset.learning["estep"]
    assert "of the rows" not in whole.learning["estep"]
    assert subset.learning["rows_used"] == len(frame)
    assert bnfs.shd(subset, truth) <= bnfs.shd(whole, truth) + 1
    assert set(bnfs.structural_em(holes, maximize="learn").arcs) == set(subset.arcs)
    # a column with one observed level among the drawn rows: the loop takes every row
    rare = holes.assign(tub=["yes"] * 3 + [np.nan] * (len(frame) - 3))
    rare.loc[1, "tub"] = "no"
    found = bnfs.structural_em(rare, maximize="learn")
    assert "of the rows" not in found.learning["estep"] and found.learning["rounds"] >= 1


def test_structural_em_bad_input(asia_sample):
    frame, _ = asia_sample
    with pytest.raises(ValueError, match="maximize"):
        bnfs.structural_em(frame, maximize="pc")
    with pytest.raises(ValueError, match="'tub' has no observed value"):
        bnfs.structural_em(frame.assign(tub=np.nan))
    with pytest.warns(UserWarning, match=r"constant column\(s\) \('tub'\)"):
        dag = bnfs.structural_em(frame.assign(tub=["yes"] + [None] * (len(frame) - 1)))
    assert dag.neighbours("tub") == []  # one observed level: an isolated node
    with pytest.raises(TypeError, match="DataFrame"):
        bnfs.structural_em(frame.to_numpy())
    with pytest.raises(ValueError, match="max_iter"):
        bnfs.structural_em(frame, max_iter=0)


@pytest.mark.parametrize("pattern", ["mcar", "mar"])
def test_available_case_tests_use_every_row_a_test_can(asia_sample, pattern):
    frame, truth = asia_sample
    holes = _mcar(frame, 0.15, 4) if pattern == "mcar" else _mar(frame, 0.15, 4, "smoke")
    found = bnfs.pc_stable(holes)
    dropped = bnfs.pc_stable(holes.dropna())
    assert bnfs.shd(found, truth.cpdag()) <= bnfs.shd(dropped, truth.cpdag())
    used = found.learning["rows_used"]
    assert used["max"] <= len(frame) and used["min"] > len(holes.dropna())
    test = bnfs.AvailableCaseTest(holes)
    result = test("lung", "smoke")
    rows = holes[["lung", "smoke"]].notna().all(axis=1)
    assert test.rows_used[-1] == int(rows.sum())
    assert result == bnfs.CITest(holes[rows][["lung", "smoke"]])("lung", "smoke")


def test_every_local_learner_runs_on_incomplete_data(asia_sample):
    frame, truth = asia_sample
    holes = _mcar(frame, 0.1, 5)
    for name in ("iamb_mb", "grow_shrink_mb", "hiton_mb", "mmmb", "pcmb", "hiton_pc"):
        found = bnfs.learners.get(name).function(holes, "either")
        assert found.learning["rows_used"]["max"] <= len(frame)
        assert {"lung", "tub"} <= set(found), name


def test_available_case_edge_cases(asia_sample):
    frame, _ = asia_sample
    holes = frame.assign(tub=frame["tub"].where(frame["smoke"] == "yes"))
    test = bnfs.AvailableCaseTest(holes)
    # among the rows where tub is observed, smoke has one level: no evidence of dependence
    assert test("tub", "smoke").p_value == 1.0
    with pytest.raises(ValueError, match="'tub' has no observed value"):
        bnfs.AvailableCaseTest(frame.assign(tub=np.nan))
    with pytest.raises(TypeError, match="DataFrame"):
        bnfs.AvailableCaseTest(frame.to_numpy())
    with pytest.raises(ValueError, match="test must be one of"):
        bnfs.AvailableCaseTest(holes, "bogus")


def _asia_network(frame):
    """asia's true structure with tables fitted to ``frame``, over integer codes."""
    from bnfs.em import _completions

    truth = datasets.network("asia")
    names = list(frame.columns)
    codes = np.column_stack([frame[c].cat.codes.to_numpy() for c in names]).astype(np.int64)
    arities = np.array([len(frame[c].cat.categories) for c in names])
    parents = [[names.index(p) for p in truth.parents(v)] for v in names]
    return codes, _completions.fit_tables(codes, np.ones(len(codes)), arities, parents)


def _brute_posterior(network, row, columns):
    """P(completion | row's other values) by summing every family's log-probability."""
    import itertools

    completions, logs = [], []
    for levels in itertools.product(*[range(network.arities[c]) for c in columns]):
        full = row.copy()
        full[list(columns)] = levels
        total = sum(
            network.log_tables[v][network.configurations(full[None, :], v)[0], full[v]]
            for v in range(len(row))
        )
        completions.append(full)
        logs.append(total)
    p = np.exp(np.array(logs) - max(logs))
    return np.array(completions), p / p.sum()


@pytest.mark.kernels
def test_expected_rows_weigh_each_completion_by_its_posterior(asia_sample):
    from bnfs.em import _completions

    frame, _ = asia_sample
    codes, network = _asia_network(frame.iloc[:300])
    missing = np.zeros_like(codes, dtype=bool)
    rng = np.random.default_rng(0)
    for i in range(1, 40):  # row 0 complete; the others lose one to three values
        missing[i, rng.choice(codes.shape[1], i % 3 + 1, replace=False)] = True
    filled, weights, rows = _completions.expected_rows(codes[:40], missing[:40], network, 0)
    assert np.array_equal(np.unique(rows), np.arange(40)) and np.all(np.diff(rows) >= 0)
    assert np.allclose(np.bincount(rows, weights=weights), 1.0)
    assert np.array_equal(filled[~missing[rows]], codes[rows][~missing[rows]])
    for i in range(1, 40):
        expected, p = _brute_posterior(network, codes[i], np.flatnonzero(missing[i]))
        keep = p >= _completions.SMALLEST_WEIGHT
        mine = filled[rows == i]
        assert len(mine) == keep.sum()
        for completion, weight in zip(mine, weights[rows == i]):
            k = int(np.flatnonzero((expected == completion).all(axis=1))[0])
            assert weight == pytest.approx(p[k] / p[keep].sum(), rel=1e-9)


@pytest.mark.kernels
def test_rows_with_many_missing_values_are_sampled_with_a_seed(asia_sample, monkeypatch):
    from bnfs.em import _completions

    frame, _ = asia_sample
    codes, network = _asia_network(frame.iloc[:300])
    missing = np.zeros_like(codes, dtype=bool)
    missing[:50, :5] = True
    monkeypatch.setattr(_completions, "EXACT_COMPLETIONS", 4)  # five binary values: 32
    one = _completions.expected_rows(codes[:60], missing[:60], network, 7)
    again = _completions.expected_rows(codes[:60], missing[:60], network, 7)
    assert all(np.array_equal(a, b) for a, b in zip(one, again))
    filled, weights, rows = one
    assert np.allclose(np.bincount(rows, weights=weights), 1.0)
    # draws that coincide are merged: fewer completions than draws, each weight k / DRAWS
    assert len(filled) < 50 * _completions.DRAWS + 10
    assert np.allclose(weights * _completions.DRAWS, np.round(weights * _completions.DRAWS))
    assert np.array_equal(filled[:, 5:], codes[rows][:, 5:])


def test_structural_em_on_expected_counts_with_learns_search(asia_sample):
    frame, truth = asia_sample
    holes = _mcar(frame, 0.15, 1)
    found, completed = bnfs.structural_em(
        holes, "bde", "learn", estep="expected", return_imputed=True
    )
    assert found.learning["estep"].startswith("expected counts")
    assert found.learning["maximize"] == "learn"
    complete = bnfs.learn(frame, progress=False)
    assert bnfs.shd(found, truth) <= bnfs.shd(complete, truth) + 1
    assert completed.shape == holes.shape and not completed.isna().any().any()
    observed = holes.notna().to_numpy()
    assert (completed.to_numpy()[observed] == holes.to_numpy()[observed]).all()
    old = bnfs.structural_em(holes, "bde", "learn", estep="impute")
    assert old.learning["estep"] == "imputation"
    assert found.arcs == bnfs.structural_em(holes, "bde", "learn", estep="expected").arcs
    with pytest.raises(ValueError, match="estep"):
        bnfs.structural_em(holes, estep="mode")


def test_learn_and_boss_run_their_own_search_inside_structural_em(asia_sample):
    frame, truth = asia_sample
    holes = _mcar(frame, 0.1, 4)
    with pytest.warns(UserWarning, match="learning by learn's BOSS inside structural EM"):
        found = bnfs.learn(holes, progress=False)
    assert found.learning["algorithm"] == "structural_em"
    assert found.learning["maximize"] == "learn"
    assert found.learning["estep"] == "expected counts, from the imputation's network"
    assert bnfs.shd(found, truth) <= bnfs.shd(bnfs.learn(frame, progress=False), truth) + 1
    with pytest.warns(UserWarning, match="learning by boss inside structural EM"):
        assert bnfs.boss(holes, "bde", progress=False).learning["maximize"] == "boss"
