"""The registry of learners: every entry matches its function, and every consumer (the API,
the command line, the selector, the bootstrap) reads it, so a learner added to it is offered
everywhere."""

import inspect

import pandas as pd
import pytest

import bnfs
from bnfs import cli, learners
from bnfs.citests import TEST_OPTIONS

TARGET = "either"


def _accepted(function) -> set[str]:
    params = inspect.signature(function).parameters
    names = {n for n, p in params.items() if p.kind is not p.VAR_KEYWORD} - {"data", "target"}
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        assert "test" in names  # only CI-test options travel as **keywords
        names |= set(TEST_OPTIONS)
    return names


@pytest.mark.parametrize("name", list(learners.REGISTRY))
def test_every_entry_lists_exactly_what_its_function_takes(name):
    entry = learners.get(name)
    assert entry.name == name and entry.kind in learners.KINDS
    assert entry.function is getattr(bnfs, name)
    assert set(entry.options) == _accepted(entry.function)


def test_every_public_learner_is_registered():
    exported = set(bnfs.constraint.__all__) | set(bnfs.search.__all__)
    not_learners = {"post_process", "local_structure", "LocalResult", "CANDIDATES"}
    assert exported - not_learners == set(learners.REGISTRY)
    assert learners.TEST_OPTIONS == TEST_OPTIONS


def test_options_a_learner_cannot_honour_are_refused_by_name():
    with pytest.raises(ValueError, match="iamb_mb does not take max_parents"):
        learners.check_options("iamb_mb", {"max_parents": 2})
    with pytest.raises(ValueError, match="unknown learner 'magic'; the learners are learn"):
        learners.get("magic")
    with pytest.raises(ValueError, match="unknown kind 'local'"):
        learners.names("local")
    frame = bnfs.datasets.sample("asia", 300, seed=1)
    with pytest.raises(ValueError, match="pc_stable does not take restarts"):
        bnfs.MarkovBlanketSelector("pc_stable", learner_options={"restarts": 2}).fit(
            frame.drop(columns=TARGET), frame[TARGET]
        )
    with pytest.raises(ValueError, match="hiton_pc does not take progress"):
        bnfs.blanket_frequency(frame, TARGET, "hiton_pc", R=2, learner_options={"progress": 0})


@pytest.fixture(scope="module")
def asia():
    frame = bnfs.datasets.sample("asia", 400, seed=2)
    return frame[[c for c in frame.columns if c != TARGET] + [TARGET]]  # as the selector sees it


@pytest.mark.parametrize("name", list(learners.REGISTRY))
def test_every_learner_is_offered_by_the_api_cli_selector_and_bootstrap(name, asia):
    entry = learners.get(name)
    assert name in (cli.LOCAL_LEARNERS if entry.local else cli.NETWORK_LEARNERS)
    selector = bnfs.MarkovBlanketSelector(name, random_state=0, if_empty="keep_none")
    selector.fit(asia.drop(columns=TARGET), asia[TARGET])
    target = selector.class_name_  # the selector names the class itself
    frame = asia.rename(columns={TARGET: target})
    options = {"seed": 0} if entry.seeded else {}
    if entry.local:
        blanket = set(entry(frame, target, **options))
    else:
        blanket = set(entry(frame, **options).markov_blanket(target))
    assert set(selector.selected_) == blanket
    frequency = bnfs.blanket_frequency(asia, TARGET, name, R=2, seed=0)
    assert isinstance(frequency, pd.Series) and frequency.between(0, 1).all()
    if not entry.local:
        strength = bnfs.boot_strength(asia, name, R=2, seed=0)
        assert set(strength.columns) >= {"from", "to", "strength"}
