"""Bundled networks, reproducible sampling, the HSMB synthetic generators, LUCAS0."""

import numpy as np
import pandas as pd
import pytest

from bnfs import DAG, Dataset, datasets


def test_sample_is_reproducible_per_seed():
    a = datasets.sample("alarm", 500, seed=7)
    b = datasets.sample("alarm", 500, seed=7)
    c = datasets.sample("alarm", 500, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert list(a.columns) == list(datasets.network("alarm").nodes)
    assert Dataset(a).n_vars == 37


def test_sample_follows_the_tables():
    model = datasets.network_model("asia")
    frame = model.sample(100_000, seed=0)
    assert abs((frame["smoke"] == "yes").mean() - 0.5) < 0.01
    lung_given_smoke = (frame.loc[frame["smoke"] == "yes", "lung"] == "yes").mean()
    assert abs(lung_given_smoke - 0.1) < 0.01
    # 'either' is a deterministic OR of tub and lung
    either = (frame["tub"] == "yes") | (frame["lung"] == "yes")
    assert ((frame["either"] == "yes") == either).all()


def test_networks_and_errors():
    assert datasets.network("alarm").n_arcs == 46
    assert datasets.network("ANDES").n_nodes == 223
    g = datasets.network("asia")
    g.add_arc("asia", "smoke")  # a copy: the cache is untouched
    assert not datasets.network("asia").has_arc("asia", "smoke")
    with pytest.raises(ValueError, match="unknown network 'nope'"):
        datasets.network("nope")
    with pytest.raises(TypeError):
        datasets.network(3)
    with pytest.raises(ValueError, match="positive integer"):
        datasets.sample("asia", 0)


@pytest.mark.parametrize("n_features, related", [(7, False), (7, True), (46, False), (46, True)])
def test_corral(n_features, related):
    frame = datasets.corral(n_features, related=related, n=4000, seed=1)
    assert frame.shape == (4000, 7 if n_features == 7 else 47)  # Corral-7 counts its class
    y = (frame.A0 & frame.A1) | (frame.B0 & frame.B1)
    assert (frame.Y == y).all()
    agree = (frame.A0 == frame.A1).mean()
    assert abs(agree - (0.6 if related else 0.5)) < 0.03
    if n_features == 7:
        assert abs((frame.R == frame.Y).mean() - 0.75) < 0.03
    else:
        for k in (1, 7):
            assert abs((frame[f"A0_{k}"] == frame.A0).mean() - (8 + k) / 16) < 0.03
    pd.testing.assert_frame_equal(
        frame, datasets.synthetic(f"corral-{'rel-' if related else ''}{n_features}", n=4000, seed=1)
    )


@pytest.mark.parametrize("n_features", [22, 38, 138])
def test_regression(n_features):
    frame = datasets.regression(n_features, n=2000, seed=2)
    assert frame.shape == (2000, n_features + 1) and frame.columns[-1] == "y"
    resid = frame.y - frame.x1 * np.exp(-(frame.x1**2) - frame.x2**2)
    assert abs(resid.std() - 0.1) < 0.01
    if n_features >= 38:
        assert (frame["x2_8"] == frame["x2"]).all()
        assert abs((frame["x1_1"] == frame["x1"]).mean() - 9 / 16) < 0.04
    with pytest.raises(ValueError, match="n_features"):
        datasets.regression(5)


def test_lucas0():
    frame = datasets.load_lucas0()
    assert frame.shape == (2000, 12)
    truth = datasets.lucas0_network()
    assert isinstance(truth, DAG) and truth.n_arcs == 12
    assert set(truth.markov_blanket("Lung_cancer")) == {
        "Smoking",
        "Genetics",
        "Coughing",
        "Fatigue",
        "Allergy",
    }


def test_planted_blanket_plants_its_blanket():
    from bnfs.stats.citests import CITest

    X, y, truth = datasets.planted_blanket(60, 3000, seed=2)
    again = datasets.planted_blanket(60, 3000, seed=2)
    assert X.equals(again[0]) and y.equals(again[1])
    assert X.shape == (3000, 60) and set(X.dtypes) == {np.dtype(np.int8)}
    assert set(truth["blanket"]) <= set(X.columns) and len(truth["blanket"]) == 10
    frame = X.assign(y=y)
    test = CITest(frame)
    # parents and children depend on the class; the spouses only given their child
    for name in truth["parents"] + truth["children"] + truth["relevant_outside"]:
        assert not test.independent(name, "y"), name
    for i, spouse in enumerate(truth["spouses"]):
        assert test.independent(spouse, "y") and not test.independent(spouse, "y", [f"C{i}"])
    # the grandparents and grandchildren are screened off by the blanket
    for name in truth["relevant_outside"]:
        assert test.independent(name, "y", truth["blanket"][:7]), name
    noise = [c for c in X.columns if c.startswith("X")]
    assert sum(test.independent(c, "y") for c in noise) >= 0.85 * len(noise)
