"""Scale invariance of the score-based searches on continuous and mixed data.

The Gaussian and conditional-Gaussian likelihood scores of a column multiplied by a constant
shift by a constant, so every search must return the same graph whatever the columns' units.
The kernels score unit-scaled columns and the offset is added back for the user: any score a
kernel compares with its own sums must leave the offset out (a tabu search seeded with the
offset never finds a better graph when the columns are small, and returns its start).
"""

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs.models.cg_network import random_cg_network

SCALES = [1e-6, 1e-3, 0.01, 1e3, 1e5]


@pytest.fixture(scope="module", params=[(0, 6, 2), (3, 5, 4)], ids=["gaussian", "mixed"])
def network_sample(request):
    n_discrete, n_continuous, seed = request.param
    net = random_cg_network(n_discrete, n_continuous, seed=seed)
    return net.sample(600, seed=seed)


def _scaled(frame: pd.DataFrame, scale: float) -> pd.DataFrame:
    out = frame.copy()
    for name in out.columns:
        if pd.api.types.is_float_dtype(out[name]):
            out[name] = out[name] * scale
    return out


LEARNERS = {
    "tabu_search": lambda f: bnfs.tabu_search(f, progress=False),
    "hill_climbing(tabu=5)": lambda f: bnfs.hill_climbing(f, tabu=5, progress=False),
    "hill_climbing(restarts=2)": lambda f: bnfs.hill_climbing(
        f, restarts=2, perturb_moves=2, seed=1, progress=False
    ),
    "rsmax2(maximize=tabu)": lambda f: bnfs.rsmax2(f, maximize="tabu", progress=False),
}


@pytest.mark.parametrize("learner", list(LEARNERS))
def test_searches_do_not_depend_on_the_scale_of_continuous_columns(network_sample, learner):
    learn = LEARNERS[learner]
    reference = learn(network_sample)
    assert reference.arcs, "the sample must carry arcs for the comparison to mean anything"
    for scale in SCALES:
        found = learn(_scaled(network_sample, scale))
        assert sorted(found.arcs) == sorted(reference.arcs), (learner, scale)


@pytest.mark.parametrize("scale", [1e-4, 0.01, 0.1])
def test_tabu_search_finds_an_arc_between_small_columns(scale):
    rng = np.random.default_rng(7)
    x = rng.normal(size=500)
    frame = pd.DataFrame({"x": x, "y": x + rng.normal(size=500)}) * scale
    for found in (
        bnfs.tabu_search(frame, progress=False),
        bnfs.hill_climbing(frame, tabu=3, progress=False),
        bnfs.structural_em(frame, maximize="tabu_search"),
        bnfs.learn(frame, folds=2, progress=False),
    ):
        assert len(found.arcs) == 1
        assert found.learning["score_value"] == pytest.approx(
            bnfs.score(found, frame, "bic-g"), rel=1e-9
        )


def test_tabu_search_never_ends_below_hill_climbing_on_small_columns(network_sample):
    small = _scaled(network_sample, 1e-3)
    climbed = bnfs.hill_climbing(small, progress=False)
    tabu = bnfs.tabu_search(small, progress=False)
    assert tabu.learning["score_value"] >= climbed.learning["score_value"] - 1e-6
