"""The registry of learners: every entry matches its function, and every consumer (the API,
the command line, the selector, the bootstrap) reads it, so a learner added to it is offered
everywhere."""

import importlib
import inspect

import pandas as pd
import pytest

import bnfs
from bnfs import cli, learners
from bnfs.stats.citests import TEST_OPTIONS

TARGET = "either"


@pytest.mark.parametrize("name", list(learners.REGISTRY))
def test_every_entry_is_its_function_with_the_options_of_its_signature(name):
    entry = learners.get(name)
    assert entry.name == name and entry.kind in learners.KINDS
    home = importlib.import_module(entry.function.__module__.rpartition(".")[0])  # its room
    assert entry.function is getattr(home, name)
    # the package root shows the network learners; the local ones sit behind
    # bnfs.markov_blanket and bnfs.neighbours
    assert (name in bnfs.__all__) == (not entry.local)
    params = list(inspect.signature(entry.function).parameters)
    assert params[0] == "data" and (params[1] == "target") == entry.local
    assert "data" not in entry.options and "target" not in entry.options
    assert set(params) - {"data", "target", "test_options"} <= entry.options
    # only CI-test options travel as **keywords, and only to learners that take a test
    assert ("test_options" in params) == (set(TEST_OPTIONS) <= entry.options)
    assert "test_options" not in entry.options


def test_options_come_from_the_signatures():
    assert learners.get("pc_stable").options >= {"alpha", "threshold", "orientation", "n_jobs"}
    assert "seed" in learners.get("hill_climbing").options
    assert "max_parents" not in learners.get("iamb_mb").options
    assert learners.get("hpc").options.isdisjoint({"max_time", "seed"})


def test_every_public_learner_is_registered():
    exported = set(bnfs.constraint.__all__) | set(bnfs.search.__all__)
    not_learners = {"post_process", "local_structure", "LocalResult", "CANDIDATES"}
    assert exported - not_learners == set(learners.REGISTRY)


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
    commands = next(a for a in cli.build_parser()._actions if a.dest == "command").choices
    for command in ("blanket", "select") if entry.local else ("learn", "blanket", "select"):
        offered = next(a for a in commands[command]._actions if a.dest == "algorithm")
        assert name in offered.choices, command
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


def test_the_frontends_give_each_learners_set_of_the_target():
    """bnfs.markov_blanket and bnfs.neighbours (bnlearn's learn.mb / learn.nbr): a local
    method gives its own answer, a network method its graph's blanket or neighbours, and
    "auto" follows the selector's rule."""
    from bnfs import datasets

    frame = datasets.sample("asia", 2000, seed=0)
    oracle = bnfs.DSeparation(datasets.network("asia"))
    truth = datasets.network("asia")
    for method in learners.names("blanket"):
        if method == "neighbourhood_mb":
            continue  # learns a network on the data: no oracle
        found = bnfs.markov_blanket(oracle, TARGET, method=method)
        assert found == truth.markov_blanket(TARGET) and found.learning["method"] == method
    for method in learners.names("neighbours"):
        assert bnfs.neighbours(oracle, TARGET, method=method) == truth.neighbours(TARGET)
    assert bnfs.markov_blanket(oracle, TARGET).learning["method"] == "hiton_mb"
    assert bnfs.neighbours(oracle, TARGET).learning["method"] == "hiton_pc"
    local = bnfs.markov_blanket(frame, TARGET, method="iamb_mb", alpha=0.01)
    assert local == learners.get("iamb_mb").function(frame, TARGET, alpha=0.01)
    network = bnfs.learn(frame, progress=False)
    found = bnfs.markov_blanket(frame, TARGET)  # "auto": learn's network on narrow data
    assert found.learning["method"] == "learn" and found.learning["network"] == network
    assert set(found) == set(network.markov_blanket(TARGET))
    assert found == [c for c in frame.columns if c in set(found)]
    near = bnfs.neighbours(frame, TARGET, method="hill_climbing", score="bde")
    graph = bnfs.hill_climbing(frame, score="bde", progress=False)
    assert set(near) == set(graph.neighbours(TARGET))
    with pytest.raises(ValueError, match=r"method must be one of \['auto', "):
        bnfs.markov_blanket(frame, TARGET, method="hiton_pc")  # parents and children only
    with pytest.raises(ValueError, match="method must be"):
        bnfs.neighbours(frame, TARGET, method=["learn"])
    with pytest.raises(ValueError, match="iamb_mb does not take score"):
        bnfs.markov_blanket(frame, TARGET, method="iamb_mb", score="bic")
    with pytest.raises(ValueError, match="target 'nope' is not a column"):
        bnfs.markov_blanket(frame, "nope", method="learn")


def test_auto_picks_the_local_learner_on_wide_data(monkeypatch):
    from bnfs import datasets

    frame = datasets.sample("asia", 500, seed=1)
    monkeypatch.setattr(learners.frontends, "AUTO_NETWORK_WORK", 1.0)
    assert bnfs.markov_blanket(frame, TARGET).learning["method"] == "neighbourhood_mb"
    assert bnfs.neighbours(frame, TARGET).learning["method"] == "hiton_pc"
    data = bnfs.Dataset(frame)
    assert bnfs.neighbours(data, TARGET).learning["method"] == "hiton_pc"


def test_contributings_new_learner_is_offered_everywhere(monkeypatch, tmp_path, capsys):
    """CONTRIBUTING's example, as written there: one module and one registry row (and the
    room's export), and the API, the frontends, the selector, the bootstrap and the command
    line offer the new learner."""
    import json
    import re
    import sys
    import types
    from pathlib import Path

    from bnfs.learners.registry import Learner

    text = (Path(__file__).resolve().parents[2] / "CONTRIBUTING.md").read_text()
    section = text.split("## Adding a learner")[1].split("\n## ")[0]
    module_code, row_code = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    module_code = "\n".join(line[3:] for line in module_code.splitlines())  # the list indent
    module = types.ModuleType("bnfs.constraint.empty_network")
    exec(compile(module_code, "CONTRIBUTING.md", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(bnfs.constraint, "empty_network", module.empty_network, raising=False)
    row = eval(row_code.strip(), {"Learner": Learner})
    monkeypatch.setitem(learners.REGISTRY, row.name, row)

    frame = bnfs.datasets.sample("asia", 300, seed=0)
    graph = learners.get("empty_network")(frame)
    assert graph.nodes == tuple(frame.columns) and not graph.arcs and not graph.edges
    assert graph.learning["algorithm"] == "empty_network"
    assert bnfs.markov_blanket(frame, TARGET, method="empty_network") == []
    selector = bnfs.MarkovBlanketSelector("empty_network", if_empty="keep_none")
    assert selector.fit(frame.drop(columns=TARGET), frame[TARGET]).selected_ == []
    strength = bnfs.boot_strength(frame, "empty_network", R=2, seed=0)
    assert (strength["strength"] == 0).all()
    with pytest.raises(ValueError, match="empty_network does not take alpha"):
        bnfs.markov_blanket(frame, TARGET, method="empty_network", alpha=0.1)
    frame.to_csv(tmp_path / "asia.csv", index=False)
    out = tmp_path / "empty.json"
    argv = ["learn", str(tmp_path / "asia.csv"), "--algorithm", "empty_network", "--out", str(out)]
    assert cli.main([*argv, "--quiet"]) == 0
    assert json.loads(out.read_text())["arcs"] == []
    with pytest.raises(SystemExit) as refused:  # an option it does not take, by name
        cli.main([*argv, "--alpha", "0.1"])
    assert refused.value.code == 2
    assert "--alpha does not apply to empty_network" in capsys.readouterr().err
