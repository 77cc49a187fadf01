"""The API reference (docs/api, Sphinx from the numpydoc docstrings) builds without a
warning and documents every public name."""

import subprocess
import sys
from pathlib import Path

import pytest

import bnfs

ROOT = Path(__file__).resolve().parents[1]


def test_the_api_reference_builds_and_lists_every_public_name(tmp_path):
    pytest.importorskip("sphinx", reason="sphinx is in the test extra: pip install '.[test]'")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "-q",
            "-b",
            "html",
            str(ROOT / "docs" / "api"),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    page = (tmp_path / "index.html").read_text()
    public = [n for n in bnfs.__all__ if n not in bnfs._SUBMODULES and n != "__version__"]
    missing = [n for n in public if f'id="bnfs.{n}"' not in page]
    assert not missing, missing
    assert 'id="bnfs.learners.check_options"' in page
