"""MarkovBlanketSelector's default on tables as pandas reads them (issue 60): integer
measurements are numbers, identifiers are never features, continuous features are cut where
the class changes, and what it keeps is always the class's blanket in ``network_``."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs


def churn(n, seed):
    """A phone-churn-like table: codes, integer counts, a name column, a threshold class."""
    rng = np.random.default_rng(seed)
    plan = rng.integers(0, 3, n)
    minutes = rng.integers(0, 350, n)  # a count with hundreds of values
    calls = rng.integers(0, 10, n)  # service calls: 10 values, a code by the rule
    churned = (minutes > 270) | (calls >= 6) | (rng.random(n) < 0.05)
    return pd.DataFrame(
        {
            "phone": [f"555-{i:05d}" for i in range(n)],
            "plan": plan,
            "minutes": minutes,
            "charge": minutes * 0.17 + rng.normal(0, 0.5, n),
            "calls": calls,
            "length": rng.integers(1, 240, n),
            "noise": rng.normal(size=n),
        }
    ), pd.Series(np.where(churned, "yes", "no"), name="churn")


def fitted(selector, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return selector.fit(X, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_default_keeps_the_blanket_of_its_network(seed):
    X, y = churn(1500, seed)
    with pytest.warns(UserWarning, match="identifiers: 'phone'"):
        selector = bnfs.MarkovBlanketSelector(random_state=seed).fit(X, y)
    blanket = set(selector.network_.markov_blanket(selector.class_name_))
    assert selector.selected_ == [c for c in X.columns if c in blanket]
    assert "phone" not in selector.network_.nodes  # an identifier is no feature
    assert selector.network_.learning["columns"]["minutes"] == "discrete"  # cut (MDL)
    assert {"minutes", "calls"} & set(selector.selected_)
    assert "noise" not in selector.selected_


def test_the_default_cuts_where_the_class_changes():
    """The class turns at the 90th percentile of a measurement: the default cuts there (one
    cut near 1.28, where tertiles would cut at -0.43 and 0.43) and keeps that feature."""
    rng = np.random.default_rng(3)
    n = 3000
    x = rng.normal(size=(n, 6))
    y = np.where((x[:, 0] > 1.28) ^ (rng.random(n) < 0.05), "a", "b")
    X = pd.DataFrame(x, columns=[f"x{j}" for j in range(6)])
    selector = fitted(bnfs.MarkovBlanketSelector(random_state=0), X, y)
    assert selector.discretizer == "mdl" and selector.selected_ == ["x0"]
    cuts = bnfs.discretize(X.assign(y=y), "mdl", target="y").cut_points["x0"]
    assert len(cuts) == 1 and abs(cuts[0] - 1.28) < 0.1


def test_the_default_on_gaps_cuts_observed_values_for_the_class():
    X, y = churn(900, 4)
    X = X.drop(columns="phone").astype({"minutes": float})
    X.loc[::7, "minutes"] = np.nan
    selector = fitted(bnfs.MarkovBlanketSelector(random_state=0), X, y)
    assert selector.missing_["how"] == "structural EM"
    blanket = set(selector.network_.markov_blanket(selector.class_name_))
    assert selector.selected_ == [c for c in X.columns if c in blanket]
    assert "minutes" in selector.selected_
