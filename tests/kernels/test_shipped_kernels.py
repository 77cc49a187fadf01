"""Compiled kernels built once and shipped (issue 72, item 1): ``bnfs warmup --into`` fills
a folder that a fresh process, on an empty cache, loads instead of compiling, with the same
answers; entries are found by content, whatever the folder's path or the files' times; a
manifest that does not fit the machine is said in one line, and the process compiles and
answers the same. Each case runs child processes on cache folders of their own, on a copy
of the package whose kernel sources carry a mark of this module's: no installed copy's
entries fit it (CI runs the checkout beside an install), so what loads is the case's own.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the copy of the package the cases run (see the module)
PACKAGE = {}
#: a first call that compiles a CI-test and a scoring stack, and says what it compiled
CALL = (
    "import bnfs\n"
    "from bnfs._kernels._compile import compile_seconds\n"
    "d = bnfs.datasets.sample('asia', 400, seed=1)\n"
    "print(round(bnfs.CITest(d, 'g2')('tub', 'either').p_value, 12))\n"
    "print(round(bnfs.score(bnfs.datasets.network('asia'), d, 'bic'), 6))\n"
    "print('compiled', compile_seconds() > 0)\n"
)


def _copy(into: Path, mark: str) -> Path:
    """A copy of the package in ``into`` with ``mark`` added to one kernel file."""
    shutil.copytree(ROOT / "bnfs", into / "bnfs", ignore=shutil.ignore_patterns("__pycache__"))
    kernel = into / "bnfs" / "_kernels" / "citests.py"
    kernel.write_text(kernel.read_text() + f"\n# {mark}\n")
    return into


@pytest.fixture(scope="module", autouse=True)
def package(tmp_path_factory):
    PACKAGE["path"] = _copy(tmp_path_factory.mktemp("package"), "tests/kernels: shipped")
    yield PACKAGE["path"]
    PACKAGE.clear()


def run(code, cache, **extra):
    env = {**os.environ, "PYTHONPATH": str(PACKAGE["path"]), "NUMBA_CACHE_DIR": str(cache)}
    env.pop("BNFS_NO_SHIPPED_KERNELS", None)
    env.pop("BNFS_COMPILED_KERNELS", None)
    env.update(extra)
    cache.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(  # run from the cache's folder: "" on sys.path is not the checkout
        [sys.executable, "-c", code + "print(bnfs.__file__)\n"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=cache.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    where = Path(done.stdout.splitlines()[-1]).parents[1]
    assert where == Path(env["PYTHONPATH"].split(os.pathsep)[0])  # the bnfs asked for
    done.stdout = "\n".join(done.stdout.splitlines()[:-1])
    return done


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """A folder of compiled entries and its manifest, as the build writes it, from a first
    call compiled afresh (an install's own kernels aside)."""
    from bnfs.cli.warmup import _collect

    root = tmp_path_factory.mktemp("shipped")
    done = run(CALL, root / "cache", BNFS_NO_SHIPPED_KERNELS="1")
    assert done.stdout.splitlines()[-1] == "compiled True"
    count = _collect(root / "cache", root / "kernels", ["asia"])
    assert count > 6 and not (root / "cache").exists()
    return root / "kernels", done.stdout.splitlines()[:2]


def test_shipped_kernels_load_on_an_empty_cache_with_the_same_answers(shipped, tmp_path):
    folder, answers = shipped
    moved = tmp_path / "elsewhere" / "kernels"  # another path, new modification times
    shutil.copytree(folder, moved)
    for entry in moved.iterdir():
        os.utime(entry, (1, 1))
    done = run(CALL, tmp_path / "cache", BNFS_COMPILED_KERNELS=str(moved))
    assert done.stdout.splitlines() == [*answers, "compiled False"]
    assert not list((tmp_path / "cache").rglob("*.nbc"))  # nothing compiled, nothing written
    manifest = json.loads((moved / "MANIFEST.json").read_text())
    assert manifest["paths"] == ["asia"] and manifest["facts"]["numba"]
    entry = next(moved.glob("*.nbc")).read_bytes()
    from bnfs._kernels._compile import PACKED

    assert entry.startswith(PACKED)  # compressed


def _changed_copy(tmp_path) -> Path:
    """A copy of the package with one more kernel line: no entry built before fits it."""
    return _copy(tmp_path / "pkg", "changed")


def test_a_manifest_that_does_not_fit_is_said_and_the_answer_is_the_same(shipped, tmp_path):
    """The folder named first does not fit (another numba), and nothing else serves (the
    sources were changed, so an installed copy's entries do not fit either)."""
    folder, answers = shipped
    other = tmp_path / "kernels"
    shutil.copytree(folder, other)
    for entry in other.glob("*.nbc"):
        entry.write_bytes(b"damaged")  # entries that cannot serve: compiled instead
    manifest = json.loads((other / "MANIFEST.json").read_text())
    manifest["facts"]["numba"] = "0.0.1"
    (other / "MANIFEST.json").write_text(json.dumps(manifest))
    env = {"PYTHONPATH": str(_changed_copy(tmp_path)), "BNFS_COMPILED_KERNELS": str(other)}
    done = run(CALL, tmp_path / "cache", **env)  # no logging set
    assert done.stdout.splitlines() == [*answers, "compiled True"]
    said = [line for line in done.stderr.splitlines() if "compiling" in line]
    assert len(said) == 1 and "numba" in said[0] and "0.0.1 when they were built" in said[0]
    assert "bnfs warmup" in said[0]


def test_changed_sources_never_load_old_entries(shipped, tmp_path):
    """Entries are keyed by the sources' content: a copy of the kernels with one file
    changed compiles afresh, even with the old entries beside it."""
    folder, answers = shipped
    env = {"PYTHONPATH": str(_changed_copy(tmp_path)), "BNFS_COMPILED_KERNELS": str(folder)}
    done = run(CALL, tmp_path / "cache", **env)
    assert done.stdout.splitlines() == [*answers, "compiled True"]


def test_a_path_past_its_timeout_is_stopped_and_said(tmp_path):
    from bnfs.cli.warmup import warmup

    with pytest.warns(UserWarning, match=r"the selectors path failed \(stopped after timeout"):
        seconds = warmup(["selectors"], n_jobs=1, timeout=0.5, into=tmp_path / "k")
    assert 0.5 <= seconds["selectors"] < 60
    assert json.loads((tmp_path / "k" / "MANIFEST.json").read_text())["paths"] == ["selectors"]


def test_warmup_refuses_an_unknown_path():
    from bnfs.cli.warmup import warmup

    with pytest.raises(ValueError, match="unknown call path 'everything'"):
        warmup(["everything"])
    with pytest.raises(ValueError, match="n_jobs"):
        warmup(["discrete"], n_jobs=0)
    with pytest.raises(ValueError, match="portable applies to the entries written into"):
        warmup(["discrete"], portable=True)


def test_portable_kernels_load_on_this_cpu(tmp_path):
    """Entries built for the platform's generic CPU (a wheel that travels) are keyed so:
    they load on this machine's CPU, where host-keyed ones built elsewhere would not."""
    from bnfs.cli.warmup import _collect

    generic = {
        "NUMBA_CPU_NAME": "generic",
        "NUMBA_CPU_FEATURES": "",
        "BNFS_NO_SHIPPED_KERNELS": "1",
    }
    built = run(CALL, tmp_path / "build" / "cache", **generic)
    assert built.stdout.splitlines()[-1] == "compiled True"
    _collect(tmp_path / "build" / "cache", tmp_path / "kernels", ["asia"], portable=True)
    assert json.loads((tmp_path / "kernels" / "MANIFEST.json").read_text())["facts"]["cpu"] == (
        "generic"
    )
    done = run(CALL, tmp_path / "cache", BNFS_COMPILED_KERNELS=str(tmp_path / "kernels"))
    assert done.stdout.splitlines() == [*built.stdout.splitlines()[:2], "compiled False"]
    assert "RuntimeWarning" not in done.stderr


def test_a_checkout_finds_the_kernels_of_an_installed_copy(shipped, tmp_path):
    """CI runs the checkout's bnfs after pip install . (the suite's pythonpath): it loads
    the installed copy's kernels from any folder on the path, though pip's in-tree build
    left a bnfs.egg-info whose metadata points at the checkout."""
    folder, answers = shipped
    site = tmp_path / "site"
    shutil.copytree(folder, site / "bnfs" / "_kernels" / "_compiled")
    (tmp_path / "bnfs.egg-info").mkdir()
    (tmp_path / "bnfs.egg-info" / "PKG-INFO").write_text("Name: bnfs\nVersion: 0.1.0\n")
    env = {"PYTHONPATH": os.pathsep.join([str(PACKAGE["path"]), str(tmp_path), str(site)])}
    done = run(CALL, tmp_path / "cache", **env)
    assert done.stdout.splitlines() == [*answers, "compiled False"]
