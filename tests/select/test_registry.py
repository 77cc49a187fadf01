"""The selector registry: every row matches its class, the package and the command line
read it, and CONTRIBUTING's new selector is offered everywhere from one module and one row."""

import re
import sys
import types
from pathlib import Path

import pytest

import bnfs
from bnfs import cli
from bnfs.select import registry


def test_every_row_names_its_class_and_the_package_exports_it():
    for row in registry.SELECTORS.values():
        cls = row.estimator
        assert cls.__name__ == row.cls and cls.__module__ == f"bnfs.select.{row.module}"
        assert getattr(bnfs, row.cls) is cls and getattr(bnfs.select, row.cls) is cls
        assert row.discretizes == ("n_bins" in row.options)  # the two travel together
        assert row.summary and not row.summary.endswith(".")
    assert registry.get("markov_blanket").learns_network
    assert registry.get("markov_blanket").takes_missing and not registry.get("fcbf").takes_missing
    with pytest.raises(ValueError, match="unknown selector 'mb'; the selectors are markov"):
        registry.get("mb")


def test_the_command_line_offers_the_registry():
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    action = next(a for a in sub.choices["select"]._actions if a.dest == "method")
    assert tuple(action.choices) == registry.names()


def test_contributings_new_selector_is_offered_everywhere(monkeypatch, tmp_path, capsys):
    """CONTRIBUTING's example, as written there: one module and one row, and the package,
    bnfs.select and ``bnfs select --method`` offer it with the options its signature takes."""
    text = (Path(__file__).resolve().parents[2] / "CONTRIBUTING.md").read_text()
    section = text.split("## Adding a selector")[1].split("\n## ")[0]
    module_code, row_code = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    module_code = "\n".join(line[3:] for line in module_code.splitlines())  # the list indent
    module = types.ModuleType("bnfs.select.most_levels")
    exec(compile(module_code, "CONTRIBUTING.md", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    row = eval(row_code.strip(), {"Selector": registry.Selector})
    monkeypatch.setitem(registry.SELECTORS, row.name, row)
    monkeypatch.setitem(bnfs.select._WHERE, row.cls, module.__name__)

    frame = bnfs.datasets.sample("asia", 400, seed=0).assign(
        many=lambda f: [str(i % 5) for i in range(len(f))]
    )
    X, y = frame.drop(columns="either"), frame["either"]
    assert bnfs.select.MostLevels(k=1).fit(X, y).selected_ == ["many"]
    frame.to_csv(tmp_path / "data.csv", index=False)
    argv = ["select", str(tmp_path / "data.csv"), "--target", "either", "--method", row.name]
    assert cli.main([*argv, "--bins", "5", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("most_levels kept 2 of 8 features") and "many" in out
    with pytest.raises(SystemExit) as refused:  # options it does not take, by name
        cli.main([*argv, "--max-time", "5"])
    assert refused.value.code == 2
    assert "--max-time does not apply to --method most_levels" in capsys.readouterr().err
