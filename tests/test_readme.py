"""The README and the user guide run as written: every ```python block, in order, in one
namespace per file, in a scratch folder (the tour writes a drawing)."""

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


def test_the_readme_reads_in_five_minutes():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200
    assert max(len(line) for line in lines if not line.startswith("|")) <= 120
    assert "docs/guide.md" in "\n".join(lines)
