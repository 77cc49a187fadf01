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
            samples=10**4,
            steps=10**8,  # a sample every 10,000 steps: some within the second, under load too
            burn_in=0.0,
            max_time=1.0,
            progress=False,
        )
    assert post.learning["stopped_early"] == "max_time reached"
    assert 0 < post.n_samples < 2 * 10**4


@pytest.mark.parametrize("burn_in", [0.0, 0.5])
def test_a_budget_spent_before_any_sample_says_so_and_why(asia_rows, burn_in):
    with pytest.raises(TimeoutError, match="before any") as caught:
        bnfs.structure_posterior(
            asia_rows, chains=1, samples=2, steps=10**10, burn_in=burn_in, max_time=0.5
        )
    assert ("burn-in" in str(caught.value)) == (burn_in > 0)  # named only when there is one


@pytest.mark.parametrize("cost", [1e-5, 4e-5])
def test_a_chain_looks_at_its_budget_every_tenth_of_a_second(cost):
    """Pieces grow while they take under PIECE_SECONDS / 2 and no further (a piece of a
    fixed 50th of the run let max_time=3 run for half a minute): a stand-in chain whose
    steps cost ``cost`` seconds each records the pieces it is asked for."""
    import time

    from bnfs._budget import Budget
    from bnfs.posterior import sampler

    class Chain:
        pieces = []

        def run(self, space, steps, thin, record):
            self.pieces.append(steps)
            time.sleep(steps * cost)

    chain = Chain()
    sampler._run_chains([chain], None, 0, 10, 10**8, 1, Budget(0.6), None)
    largest = max(chain.pieces)
    assert largest <= 2 * sampler.PIECE_SECONDS / cost  # no piece much past a tenth of a second
    assert sum(chain.pieces) < 10**9 // 50  # stopped long before the first old piece ended
