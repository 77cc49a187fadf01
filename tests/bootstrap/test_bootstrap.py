"""Bootstrap model averaging: strengths, bnlearn's threshold, the averaged network and
stable blankets; determinism for any n_jobs."""

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs.bootstrap import averaged_network, blanket_frequency, boot_strength, inclusion_threshold


@pytest.fixture(scope="module")
def asia():
    return bnfs.datasets.sample("asia", 3000, seed=2)


def test_strengths_are_consistent_and_reproducible(asia):
    strength = boot_strength(asia, R=12, seed=3)
    assert len(strength) == 8 * 7 and strength.attrs["R"] == 12
    assert np.allclose((strength.strength * 12) % 1, 0)  # counts over 12 replicates
    table = strength.set_index(["from", "to"])
    for (u, v), row in table.iterrows():
        back = table.loc[(v, u)]
        assert row.strength == back.strength
        if row.strength > 0:
            assert row.direction + back.direction == pytest.approx(1.0)
    assert table.loc[("either", "xray")].strength == 1.0  # a strong arc is always found
    pd.testing.assert_frame_equal(strength, boot_strength(asia, R=12, seed=3, n_jobs=2))
    assert not strength.equals(boot_strength(asia, R=12, seed=4))
    pdag = boot_strength(asia, "pc_stable", R=6, learner_options={"alpha": 0.01})
    assert pdag.strength.max() == 1.0


def test_inclusion_threshold_follows_bnlearn():
    # weighted median of the CDF at 4/7, whose type-1 quantile is 0.1: keep 0.9, 0.95, 1
    assert inclusion_threshold([0.0, 0.0, 0.05, 0.1, 0.9, 0.95, 1.0]) == 0.1
    assert inclusion_threshold([1.0, 1.0]) == 1.0  # strength 1 is kept regardless
    assert inclusion_threshold([]) == 0.0


def test_averaged_network_beats_one_search_on_alarm():
    from bnfs.stats.metrics import skeleton_scores

    truth = bnfs.datasets.network("alarm")
    # 1,000 rows: where one search varies most from sample to sample, averaging pays (with
    # 3,000 rows one bnlearn-exact hc search is already as good as the average)
    data = bnfs.datasets.sample("alarm", 1000, seed=5)
    strength = boot_strength(data, R=20, seed=0)
    averaged, single = averaged_network(strength), bnfs.hill_climbing(data)
    assert bnfs.shd(averaged, truth) < bnfs.shd(single, truth)  # 28 against 33
    assert (
        skeleton_scores(averaged, truth)["precision"] > skeleton_scores(single, truth)["precision"]
    )
    assert averaged.learning["threshold"] == inclusion_threshold(strength)
    strict = averaged_network(strength, threshold=0.99)
    assert set(map(frozenset, strict.arcs + strict.edges)) <= set(
        map(frozenset, averaged.arcs + averaged.edges)
    )


def test_cycles_and_even_splits_stay_undirected():
    rows = [
        ("a", "b", 1.0, 1.0),
        ("b", "a", 1.0, 0.0),
        ("b", "c", 1.0, 1.0),
        ("c", "b", 1.0, 0.0),
        ("c", "a", 0.9, 1.0),
        ("a", "c", 0.9, 0.0),
        ("c", "d", 0.8, 0.5),
        ("d", "c", 0.8, 0.5),
    ]
    strength = pd.DataFrame(rows, columns=["from", "to", "strength", "direction"])
    graph = averaged_network(strength, threshold=0.5)
    assert sorted(graph.arcs) == [("a", "b"), ("b", "c")]
    assert sorted(map(sorted, graph.edges)) == [["a", "c"], ["c", "d"]]


def test_blanket_frequency(asia):
    local = blanket_frequency(asia, "lung", "hiton_mb", R=8, seed=1)
    assert set(local.index) == set(asia.columns) - {"lung"}
    assert ((local >= 0) & (local <= 1)).all()
    assert {"smoke", "either"} <= set(local[local >= 0.5].index)
    network = blanket_frequency(asia, "lung", "hill_climbing", R=4, seed=1, n_jobs=2)
    assert network["either"] == 1.0
    pd.testing.assert_series_equal(
        network, blanket_frequency(asia, "lung", "hill_climbing", R=4, seed=1)
    )


def test_errors(asia):
    with pytest.raises(ValueError, match="learner must be one of"):
        boot_strength(asia, "magic")
    with pytest.raises(ValueError, match="R must be >= 1"):
        boot_strength(asia, R=0)
    with pytest.raises(ValueError, match="target"):
        blanket_frequency(asia, "nope")
    with pytest.raises(ValueError, match="threshold"):
        averaged_network(boot_strength(asia, R=2), threshold=2)


def test_bootstrap_on_a_local_dask_cluster(asia):
    distributed = pytest.importorskip("distributed")
    from bnfs.parallel import use_dask

    expected = boot_strength(asia, R=6, seed=7)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        with use_dask(client):
            on_dask = boot_strength(asia, R=6, seed=7)
            frequency = blanket_frequency(asia, "lung", "hiton_mb", R=4, seed=1)
        assert len(client.scheduler_info()["workers"]) == 2
    pd.testing.assert_frame_equal(on_dask, expected)
    pd.testing.assert_series_equal(
        frequency, blanket_frequency(asia, "lung", "hiton_mb", R=4, seed=1)
    )


def test_plot_strength_draws_the_cdf_with_the_threshold(tmp_path):
    """matplotlib's SVG draws text as paths and keeps each text in a comment."""
    strengths = [0.0, 0.0, 0.05, 0.1, 0.9, 0.95, 1.0]
    svg = bnfs.plot_strength(strengths)
    assert svg.startswith("<?xml") and "arc strength" in svg
    assert f"threshold {bnfs.inclusion_threshold(strengths):.3g}" in svg
    assert "threshold 0.5" in bnfs.plot_strength(strengths, threshold=0.5)
    png = bnfs.plot_strength(strengths, tmp_path / "s.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="format"):
        bnfs.plot_strength(strengths, tmp_path / "s.gif")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bnfs.plot_strength([0.5, 1.5])
