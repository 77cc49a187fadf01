"""One place builds ``learning["arguments"]``: the learners' door records every argument of
the call (its defaults where not given), and a learner adds only what it resolved."""

import inspect
import json
import warnings

import numpy as np
import pytest

import bnfs
from bnfs import learners

TARGET = "either"


@pytest.fixture(scope="module")
def asia():
    return bnfs.datasets.sample("asia", 800, seed=0)


def _learn(name, data, **options):
    entry = learners.get(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if entry.local:
            return entry.function(data, TARGET, **options)
        return entry.function(data, **options)


@pytest.mark.parametrize("name", learners.names())
def test_every_learner_records_every_argument_of_its_call(name, asia):
    learning = _learn(name, asia).learning
    recorded = learning["arguments"]
    for parameter in inspect.signature(learners.get(name).function).parameters.values():
        if parameter.name == "data" or parameter.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        # an argument sits in "arguments" or at the record's top level (score, test, target)
        assert parameter.name in recorded or parameter.name in learning, (name, parameter)
    json.dumps(learning)  # the record stays writable as JSON


def test_what_the_caller_gave_is_what_is_recorded(asia):
    blacklist = [("asia", "tub")]
    dag = bnfs.hill_climbing(asia, seed=3, blacklist=blacklist, max_iter=50, progress=False)
    assert dag.learning["arguments"]["seed"] == 3
    assert dag.learning["arguments"]["max_iter"] == 50
    assert list(dag.learning["arguments"]["blacklist"]) == blacklist
    # a value the learner resolved stands over the call's default
    assert dag.learning["arguments"]["max_parents"] == asia.shape[1] - 1
    start = bnfs.DAG(list(asia.columns), [("smoke", "lung")])
    again = bnfs.hill_climbing(asia, start=start, progress=False)
    assert again.learning["arguments"]["start"] == [("smoke", "lung")]  # a graph by its arcs
    found = bnfs.markov_blanket(asia, TARGET, method="kiamb_mb", k=0.5, seed=4)
    assert found.learning["arguments"]["k"] == 0.5 and found.learning["arguments"]["seed"] == 4
    # the CI test's own options (**test_options) are recorded by name
    sparse = bnfs.markov_blanket(asia, TARGET, method="iamb_mb", min_rows_per_cell=7)
    assert sparse.learning["arguments"]["min_rows_per_cell"] == 7


def test_structural_em_records_its_own_arguments_over_its_search(asia):
    holes = asia.mask(np.random.default_rng(0).random(asia.shape) < 0.05)
    for frame in (asia, holes):  # complete data: one search, recorded the same way
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dag = bnfs.structural_em(frame, max_iter=2, seed=1)
        assert dag.learning["arguments"]["max_iter"] == 2  # EM's rounds, not the search's
        assert dag.learning["search"]["arguments"]["max_iter"] is None
    with pytest.warns(UserWarning, match="inside structural EM"):
        routed = bnfs.tabu_search(holes, seed=5, progress=False)
    assert routed.learning["algorithm"] == "structural_em"
    assert routed.learning["arguments"]["seed"] == 5 and "tabu" in routed.learning["arguments"]
