"""The door decides what happens to missing values, once, and records it: every route
(structural EM, available-case tests, a learner's own) says how in ``learning["missing"]``,
and the selectors and the command line read that record rather than deciding again."""

import warnings

import numpy as np
import pytest

import bnfs
from bnfs import datasets
from bnfs._warn import StructuralEMWarning


@pytest.fixture(scope="module")
def holes():
    frame = datasets.sample("asia", 1500, seed=4)
    return frame.mask(np.random.default_rng(3).random(frame.shape) < 0.05)


def test_each_route_records_how_it_used_the_gaps(holes):
    values = int(holes.isna().to_numpy().sum())
    with pytest.warns(StructuralEMWarning, match="inside structural EM"):
        em = bnfs.hill_climbing(holes)
    assert em.learning["missing"] == {"values": values, "how": "structural EM", "rows": 1500}
    tests = bnfs.pc_stable(holes)
    route = tests.learning["missing"]
    assert route["how"] == "available-case tests" and route["values"] == values
    assert route["rows_used"] == tests.learning["rows_used"]
    assert bnfs.structural_em(holes).learning["missing"]["how"] == "structural EM"
    assert "missing" not in bnfs.pc_stable(holes.dropna()).learning
    local = bnfs.constraint.hiton_mb(holes, "either")
    assert local.learning["missing"]["how"] == "available-case tests"


def test_structural_em_passes_n_jobs_to_its_search_and_the_answer_does_not_change(holes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StructuralEMWarning)
        one = bnfs.hill_climbing(holes, n_jobs=1)
        two = bnfs.hill_climbing(holes, n_jobs=2)
    assert sorted(one.arcs) == sorted(two.arcs) and one.arcs
    assert sorted(bnfs.structural_em(holes, n_jobs=2).arcs) == sorted(one.arcs)
    with pytest.raises(ValueError, match="'boss' runs in one thread: it takes no n_jobs"):
        bnfs.structural_em(holes, maximize="boss", n_jobs=2)


def test_neighbourhood_mb_learns_through_gaps_as_it_declares(holes):
    found = bnfs.markov_blanket(holes, "either", method="neighbourhood_mb")
    complete = bnfs.markov_blanket(holes.dropna(), "either", method="neighbourhood_mb")
    assert {"tub", "lung"} <= set(found) and set(found) == set(complete)
    route = found.learning["missing"]
    assert route["how"].startswith("available-case tests") and route["rows_used"]["max"] < 1500
    timed = bnfs.markov_blanket(holes, "either", method="neighbourhood_mb", max_time=600)
    assert sorted(timed) == sorted(found)  # a budget with gaps too, here not reached


def test_the_selector_reads_the_doors_record_and_says_nothing_twice(holes):
    X, y = holes.drop(columns="either"), holes["either"].fillna("no")
    with warnings.catch_warnings():
        warnings.simplefilter("error", StructuralEMWarning)  # said in missing_, not again
        selector = bnfs.MarkovBlanketSelector("hill_climbing", n_jobs=2).fit(X, y)
    assert selector.missing_["how"] == "structural EM"
    assert selector.missing_ == selector.network_.learning["missing"]
    direct = bnfs.markov_blanket(X.assign(either=y), "either", method="hill_climbing", n_jobs=2)
    assert selector.selected_ == list(direct)


@pytest.mark.parametrize("learner", ["hill_climbing", "learn", "boss"])
def test_a_budget_is_taken_with_gaps_too(learner):
    """Every learner that takes max_time on complete rows takes it with gaps: EM's rounds
    share it, and a spent one returns the last round's network, flagged (issue 71, item 8;
    it was refused by name)."""
    frame = bnfs.datasets.sample("asia", 800, seed=4)
    holes = frame.mask(np.random.default_rng(4).random(frame.shape) < 0.05)
    run = getattr(bnfs, learner)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spent = run(holes, max_time=1e-9, progress=False)
        ample = run(holes, max_time=10**6, progress=False)
    assert spent.learning["stopped_early"] == "max_time reached"
    assert spent.learning["arguments"]["max_time"] == 1e-9
    assert ample.learning["stopped_early"] is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert set(ample.arcs) == set(run(holes, progress=False).arcs)  # a budget not reached
