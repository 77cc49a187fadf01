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


def test_learn_does_not_depend_on_columns_near_the_ends_of_the_float_range(network_sample):
    reference = bnfs.learn(network_sample, progress=False)
    for scale in (1e-300, 1e300):
        found = bnfs.learn(_scaled(network_sample, scale), progress=False)
        assert sorted(found.arcs) == sorted(reference.arcs), scale


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
    "learn": lambda f: bnfs.learn(f, progress=False),  # BGe-vsp on standardized columns
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
    ):
        assert len(found.arcs) == 1
        search = found.learning.get("search", found.learning)  # structural EM's search
        assert search["score_value"] == pytest.approx(bnfs.score(found, frame, "bic-g"), rel=1e-9)
    learned = bnfs.learn(frame, folds=2, progress=False)  # BGe on the standardized columns
    assert len(learned.arcs) == 1 and learned.learning["standardized"]
    standard = (frame - frame.mean()) / frame.std(ddof=0)
    assert learned.learning["score_value"] == pytest.approx(
        bnfs.score(learned, standard, "bge", prior="vsp"), rel=1e-9
    )


def test_tabu_search_never_ends_below_hill_climbing_on_small_columns(network_sample):
    small = _scaled(network_sample, 1e-3)
    climbed = bnfs.hill_climbing(small, progress=False)
    tabu = bnfs.tabu_search(small, progress=False)
    assert tabu.learning["score_value"] >= climbed.learning["score_value"] - 1e-6


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e160, 1e200, 1e300])
def test_fitted_parameters_and_predictions_follow_the_scale_to_the_ends_of_the_range(
    network_sample, scale
):
    """Fit, predict (parents and blanket) and the imputation of structural EM square no raw
    value: at 1e200 the residual deviation overflowed to inf and predictions were NaN."""
    import warnings

    frame = network_sample
    dag = bnfs.hill_climbing(frame, progress=False)
    base = bnfs.fit(dag, frame)
    big = bnfs.fit(dag, _scaled(frame, scale))
    for v in big.sd:
        assert np.allclose(big.sd[v], base.sd[v] * scale, rtol=1e-7), v
    continuous = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
    target = next(c for c in continuous if dag.children(c) or dag.parents(c))
    for method in ("parents", "blanket"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            got = bnfs.predict(big, target, _scaled(frame, scale).head(20), method)
        expected = bnfs.predict(base, target, frame.head(20), method) * scale
        assert np.isfinite(got).all()
        assert np.allclose(got, expected, rtol=1e-6, atol=1e-9 * scale)


@pytest.mark.parametrize("top", [1e300, 1.7976931348623157e308])
def test_interval_bins_over_the_whole_float_range(top):
    values = np.r_[-top, -top / 2, 0.0, top / 2, top, np.linspace(-1, 1, 20)]
    frame = pd.DataFrame({"a": values, "b": np.arange(len(values)) % 2})
    binned = bnfs.discretize(frame, "interval", 3).to_pandas()["a"]
    assert binned.nunique() == 3
    codes = binned.cat.codes.to_numpy()
    assert codes[0] == 0 and codes[4] == 2 and codes[2] == 1 and codes[1] == 0


def test_structural_em_imputes_at_the_ends_of_the_range():
    import warnings

    frame = random_cg_network(0, 5, seed=2).sample(600, seed=2)
    holes = frame.mask(np.random.default_rng(0).random(frame.shape) < 0.05)
    dag, imputed = bnfs.structural_em(holes, return_imputed=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        big_dag, big = bnfs.structural_em(holes * 1e200, return_imputed=True)
    assert big_dag.arcs == dag.arcs
    assert np.allclose(big.to_numpy(), imputed.to_numpy() * 1e200, rtol=1e-6)
