"""The blanket read off the network learned on a target's neighbourhood: on wide planted
data it is the true blanket where HITON-MB lets noise in, it is the blanket of learn's
network on the neighbourhood's columns, and it honours lists, budgets and bad input."""

import warnings

import pytest

import bnfs


@pytest.fixture(scope="module")
def planted():
    X, y, truth = bnfs.datasets.planted_blanket(2000, 500, seed=2)
    return X.assign(y=y).astype(str), truth


def test_the_neighbourhood_network_finds_the_planted_blanket(planted):
    frame, truth = planted
    found = bnfs.search.neighbourhood_mb(frame, "y")
    assert sorted(found) == sorted(truth["blanket"])
    hood = found.learning["neighbourhood"]
    assert set(truth["blanket"]) < set(hood) and "y" in hood and len(hood) < 100
    network = bnfs.learn(frame[hood], progress=False)
    assert sorted(found) == sorted(network.markov_blanket("y"))
    assert found.learning["algorithm"] == "neighbourhood_mb" and found.learning["n_tests"] > 0


def test_the_selector_runs_it_by_name(planted):
    frame, truth = planted
    selector = bnfs.MarkovBlanketSelector("neighbourhood_mb").fit(
        frame.drop(columns="y"), frame["y"]
    )
    assert sorted(selector.selected_) == sorted(bnfs.search.neighbourhood_mb(frame, "y"))


def test_lists_of_variables_keep_out_and_keep_in(planted):
    frame, truth = planted
    found = bnfs.search.neighbourhood_mb(frame, "y", blacklist=["C0"], whitelist=["X0001"])
    assert "C0" not in found and "C0" not in found.learning["neighbourhood"]
    assert "X0001" in found


def test_a_spent_budget_returns_the_set_so_far_and_says_so(planted):
    frame, _ = planted
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = bnfs.search.neighbourhood_mb(frame, "y", max_time=0)
    assert found.learning["stopped_early"] == "max_time reached"
    assert any("stopped early" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"target": "nope"}, ValueError, "nope"),
        ({"target": "y", "alpha": 0}, ValueError, "alpha"),
        ({"target": "y", "alpha": "0.1"}, TypeError, "alpha"),
    ],
)
def test_bad_options_are_refused_by_name(planted, options, error, message):
    frame, _ = planted
    with pytest.raises(error, match=message):
        bnfs.search.neighbourhood_mb(frame.iloc[:, -30:], **options)


def test_out_of_time_before_the_network_it_keeps_what_the_tests_found(planted, monkeypatch):
    from bnfs.search import neighbourhood

    frame, truth = planted
    members = bnfs.constraint.hiton_pc(frame, "y", alpha=0.1)
    search = neighbourhood.hiton_pc_search

    def then_out_of_time(view, *args, **kwargs):  # the time runs out after the target's
        found = search(view, *args, **kwargs)
        view.budget.reason = "max_time reached"
        return found

    monkeypatch.setattr(neighbourhood, "hiton_pc_search", then_out_of_time)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = bnfs.search.neighbourhood_mb(frame, "y")
    assert found.learning["network"] is None and sorted(found) == sorted(members)
    assert found.learning["stopped_early"] == "max_time reached"
    assert any("stopped early" in str(w.message) for w in caught)


def test_past_a_test_per_pair_of_columns_it_learns_the_whole_network():
    """Thirty noisy copies of one hidden coin and a target: every column depends on every
    other, the target's neighbourhood is all of them, and HITON-PC's tests pass the number
    of pairs of columns before it ends. The local search then costs more than the network it
    stands in for, so the blanket is read off learn's whole network; on the planted data,
    0.03 tests per pair, it is not."""
    import numpy as np
    import pandas as pd

    from bnfs.search.neighbourhood import TESTS_PER_PAIR

    rng = np.random.default_rng(0)
    coin = rng.random(1000) < 0.5
    columns = {f"x{i}": coin ^ (rng.random(1000) < 0.25) for i in range(30)}
    frame = pd.DataFrame({**columns, "y": coin ^ (rng.random(1000) < 0.2)}).astype(int)
    found = bnfs.search.neighbourhood_mb(frame, "y")
    pairs = 31 * 30 / 2
    assert found.learning["whole_network"] and found.learning["n_tests"] > TESTS_PER_PAIR * pairs
    assert found.learning["neighbourhood"] == list(frame.columns)
    whole = bnfs.learn(frame, progress=False)
    assert sorted(found) == sorted(whole.markov_blanket("y"))
    assert found == bnfs.search.neighbourhood_mb(frame, "y")  # the same answer again


def test_on_planted_data_the_tests_stay_far_below_a_test_per_pair(planted):
    frame, _ = planted
    found = bnfs.search.neighbourhood_mb(frame, "y")
    assert not found.learning["whole_network"]
    assert found.learning["n_tests"] < 0.1 * frame.shape[1] * (frame.shape[1] - 1) / 2
