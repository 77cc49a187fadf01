"""The README and the user guide run as written: every ```python block, in order, in one
namespace per file, in a scratch folder (the tour writes a drawing); each guide block runs
on its own too."""

import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _blocks(name: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / name).read_text(), re.S)


@pytest.mark.parametrize("name", ["README.md", "docs/guide.md"])
def test_the_code_runs_as_written(name, tmp_path, monkeypatch):
    blocks = _blocks(name)
    assert blocks, f"{name} has no python block"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tour shows warnings a reader sees; not errors
        for k, block in enumerate(blocks):
            exec(compile(block, f"{name}, block {k + 1}", "exec"), namespace)
    if name == "README.md":
        assert (tmp_path / "alarm.svg").stat().st_size > 0
        assert namespace["dag"].learning["rows_used"] == len(namespace["survey"])
        assert namespace["completed"].notna().all().all()


@pytest.mark.parametrize("block", range(len(_blocks("docs/guide.md"))))
def test_each_guide_block_runs_on_its_own(block, tmp_path, monkeypatch):
    """A reader copies one section's block: it runs alone, its own imports and data
    included (the Gaussian block once failed alone with a NameError for bnfs)."""
    monkeypatch.chdir(tmp_path)
    code = _blocks("docs/guide.md")[block]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, f"docs/guide.md, block {block + 1} alone", "exec"), {})


def test_the_readme_reads_in_five_minutes():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200
    assert max(len(line) for line in lines if not line.startswith("|")) <= 120
    assert "docs/guide.md" in "\n".join(lines)
