"""structure_posterior's contract: seeds, threads, the shapes its readers take, blanket
membership, constant columns, time limits and bad input."""

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import datasets

pytestmark = pytest.mark.filterwarnings("ignore:structure_posterior:RuntimeWarning")

QUICK = {"chains": 2, "samples": 200, "steps": 20_000, "progress": False}


@pytest.fixture(scope="module")
def asia_rows():
    return datasets.sample("asia", 1000, seed=0)


@pytest.fixture(scope="module")
def posterior(asia_rows):
    return bnfs.structure_posterior(asia_rows, seed=3, **QUICK)


def test_the_same_seed_gives_the_same_posterior_for_any_number_of_jobs(asia_rows, posterior):
    again = bnfs.structure_posterior(asia_rows, seed=3, n_jobs=2, **QUICK)
    assert np.array_equal(again.probabilities, posterior.probabilities)
    assert [g.arcs for g in again.dags()] == [g.arcs for g in posterior.dags()]
    other = bnfs.structure_posterior(asia_rows, seed=4, **QUICK)
    assert not np.array_equal(other.probabilities, posterior.probabilities)


def test_the_strength_frame_is_the_bootstraps_shape_and_its_readers_take_it(posterior):
    strength = posterior.strength
    boot = bnfs.boot_strength(datasets.sample("asia", 300, seed=0), R=2, seed=0)
    assert list(strength.columns) == list(boot.columns)
    assert len(strength) == len(boot) == 8 * 7
    assert set(strength.attrs) >= {"R", "nodes", "learner"}
    assert strength["strength"].between(0, 1).all() and strength["direction"].between(0, 1).all()
    assert strength["strength"].is_monotonic_decreasing
    row = strength[(strength["from"] == "either") & (strength["to"] == "xray")].iloc[0]
    p = posterior.probabilities
    i, j = posterior.nodes.index("either"), posterior.nodes.index("xray")
    assert row.strength == pytest.approx(p[i, j] + p[j, i])
    assert row.direction == pytest.approx(p[i, j] / (p[i, j] + p[j, i]))
    averaged = bnfs.averaged_network(strength)
    assert averaged.has_arc("either", "xray") or averaged.has_edge("either", "xray")
    assert 0 <= bnfs.inclusion_threshold(strength) <= 1
    assert bnfs.plot_strength(strength).startswith("<?xml")


def test_the_median_graph_holds_the_arcs_above_one_half(posterior):
    median = posterior.median_graph()
    arcs = posterior.arcs
    above = {(u, v) for u, v, q in arcs.itertuples(index=False) if q > 0.5}
    assert set(median.arcs) == above - set(median.learning["dropped"])
    assert ("either", "xray") in median.arcs
    assert median.learning["algorithm"] == "structure_posterior"
    assert arcs["probability"].is_monotonic_decreasing and (arcs["probability"] > 0).all()


def test_blanket_membership_is_the_share_of_sampled_dags(posterior):
    dags = posterior.dags()
    assert len(dags) == posterior.n_samples == 2 * 200
    members = pd.Series(
        [x for g in dags for x in g.markov_blanket("either")], dtype=object
    ).value_counts() / len(dags)
    blanket = posterior.blanket("either")
    assert "either" not in blanket.index and len(blanket) == 7
    for x, share in blanket.items():
        assert share == pytest.approx(members.get(x, 0.0))
    assert blanket["xray"] > 0.9 and blanket.is_monotonic_decreasing
    with pytest.raises(ValueError, match="'nope' is not a node"):
        posterior.blanket("nope")


def test_the_best_sampled_dag_has_the_highest_score(posterior, asia_rows):
    best = posterior.best_dag()
    scorer = bnfs.Scorer(asia_rows, "bde", iss=posterior.learning["arguments"]["iss"], prior="vsp")
    top = scorer.total(best)
    assert all(scorer.total(g) <= top + 1e-6 for g in posterior.dags()[::20])


def test_constant_columns_are_isolated_nodes(asia_rows):
    data = asia_rows.assign(same="x")
    with pytest.warns(UserWarning, match=r"1 constant column\(s\) \('same'\)"):
        post = bnfs.structure_posterior(data, seed=0, **QUICK)
    assert post.nodes == [*asia_rows.columns, "same"]
    k = post.nodes.index("same")
    assert post.probabilities[k].sum() == 0 and post.probabilities[:, k].sum() == 0
    assert post.learning["isolated"] == ["same"]
    assert post.blanket("same").sum() == 0


def test_max_time_keeps_the_samples_so_far(asia_rows):
    with pytest.warns(RuntimeWarning, match="stopped early"):
        post = bnfs.structure_posterior(
            asia_rows,
            seed=0,
            chains=2,
            samples=1000,
            steps=10**9,
            burn_in=0.0,
            max_time=1.0,
            progress=False,
        )
    assert post.learning["stopped_early"] == "max_time reached"
    assert 0 < post.n_samples < 2000


def test_chains_that_disagree_are_reported():
    data = datasets.sample("asia", 1000, seed=0)
    with pytest.warns(RuntimeWarning, match="differ by up to"):
        post = bnfs.structure_posterior(
            data, seed=0, chains=4, samples=20, steps=40, burn_in=0.0, progress=False
        )
    assert post.learning["converged"] is False
    assert post.learning["max_difference"] > 0.1


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"chains": 0}, ValueError, "chains must be >= 1"),
        ({"samples": 1.5}, TypeError, "samples must be an integer"),
        ({"burn_in": 0.99}, ValueError, "burn_in must be <= 0.95"),
        ({"max_candidates": 21}, ValueError, "max_candidates=21"),
        ({"plus1": "yes"}, TypeError, "plus1 must be True or False"),
        ({"space": "tabu"}, ValueError, "space must be one of"),
        ({"score": "bic-g"}, ValueError, "score 'bic-g' is for continuous data"),
        ({"prior": "vsp", "score": "bic"}, ValueError, "prior='vsp' applies to the Bayesian"),
        ({"blacklist": [("asia", "nope")]}, ValueError, "nope"),
        ({"steps": 100, "samples": 200}, ValueError, r"steps \(100\) after the burn-in"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
    ],
)
def test_bad_arguments_are_refused_by_name(asia_rows, options, error, message):
    with pytest.raises(error, match=message):
        bnfs.structure_posterior(asia_rows, **{**QUICK, **options})


def test_incomplete_rows_are_refused_by_name(asia_rows):
    data = asia_rows.copy()
    data.loc[3, "lung"] = None
    with pytest.raises(ValueError, match="needs complete rows.*'lung'"):
        bnfs.structure_posterior(data, **QUICK)
    assert data["lung"].isna().sum() == 1  # the input is not changed


def test_a_graph_as_the_space_must_cover_the_columns(asia_rows):
    with pytest.raises(ValueError, match="exactly the data's columns"):
        bnfs.structure_posterior(asia_rows, space=bnfs.DAG(["asia", "tub"]), **QUICK)


def test_mixed_data_by_bic_cg_give_no_continuous_parent_to_a_discrete_node():
    rng = np.random.default_rng(0)
    group = rng.integers(0, 2, 400)
    x = 1.5 * group + rng.normal(size=400)
    y = 0.8 * x + rng.normal(size=400)
    frame = pd.DataFrame({"group": pd.Categorical(group.astype(str)), "x": x, "y": y})
    post = bnfs.structure_posterior(frame, space="full", seed=0, **QUICK)
    assert post.learning["arguments"]["score"] == "bic-cg"
    assert post.probability("x", "group") == 0.0 and post.probability("y", "group") == 0.0
    assert post.probability("group", "x") > 0.9
    assert post.probability("x", "y") + post.probability("y", "x") > 0.9


def test_a_space_too_large_to_score_is_refused_by_name(monkeypatch, asia_rows):
    from bnfs.posterior import _space

    monkeypatch.setattr(_space, "MAX_SETS", 100)
    with pytest.raises(ValueError, match="lower max_candidates"):
        bnfs.structure_posterior(asia_rows, space="full", **QUICK)


def test_iss_auto_takes_the_imaginary_sample_size_of_the_best_evidence(asia_rows):
    from bnfs.posterior.sampler import ISS_GRID

    data = datasets.sample("child", 1000, seed=1)
    post = bnfs.structure_posterior(data, seed=0, **QUICK)
    arguments = post.learning["arguments"]
    evidence = arguments["iss_evidence"]
    assert tuple(evidence) == ISS_GRID
    assert arguments["iss"] == max(evidence, key=evidence.get)
    assert len(set(evidence.values())) == len(ISS_GRID)  # each value scored its own tables
    fixed = bnfs.structure_posterior(data, seed=0, iss=arguments["iss"], **QUICK)
    assert fixed.learning["arguments"]["iss_evidence"] is None
    assert np.array_equal(fixed.probabilities, post.probabilities)
    with pytest.raises(ValueError, match="iss must be a positive number or 'auto'"):
        bnfs.structure_posterior(asia_rows, iss="best", **QUICK)
    gaussian = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 3)), columns=list("abc"))
    assert bnfs.structure_posterior(gaussian, **QUICK).learning["arguments"]["iss"] == 1.0
