"""No state of the kernels' cache can crash a process (issue 71, item 10): entries that are
truncated, swapped, foreign or garbage are compiled again, compiles killed or interrupted
at random points leave a cache later runs load, and first calls side by side share one
cache folder safely. Each case runs child processes on a cache folder of its own."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = "import bnfs; d = bnfs.datasets.sample('asia', 300, seed=0); "
CALLS = {  # small first calls that compile different kernels, some shared
    "test": SETUP + "print(round(bnfs.CITest(d, 'g2')('tub', 'either').p_value, 12))",
    "score": SETUP + "print(round(bnfs.score(bnfs.datasets.network('asia'), d, 'bic'), 6))",
    "weighted": SETUP + "w = bnfs.Dataset(d).with_weights([1.0 + i % 3 for i in range(300)]); "
    "print(round(bnfs.score(bnfs.datasets.network('asia'), w, 'bic'), 6))",
}


def child(code, cache, **popen):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(cache)}
    env["BNFS_NO_SHIPPED_KERNELS"] = "1"  # these cases compile: an install's kernels aside
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **popen,
    )


def answer(code, cache) -> str:
    process = child(code, cache)
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-2000:]  # a segfault is -11: never
    return out


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    cache = tmp_path_factory.mktemp("reference")
    return {name: answer(code, cache) for name, code in CALLS.items()}, cache


def test_damaged_entries_are_compiled_again(expected, tmp_path):
    answers, filled = expected
    cache = tmp_path / "cache"
    subprocess.run(["cp", "-r", str(filled), str(cache)], check=True)
    entries = sorted(cache.rglob("*.nbc"))
    assert len(entries) > 6
    rng = random.Random(0)
    rng.shuffle(entries)
    entries[0].write_bytes(entries[0].read_bytes()[:100])  # truncated
    entries[1].write_bytes(b"not a pickle")  # garbage
    two, three = entries[2].read_bytes(), entries[3].read_bytes()
    entries[2].write_bytes(three)  # another kernel's code under this one's name
    entries[3].write_bytes(two)
    entries[4].write_bytes(b"")  # empty
    for name, code in CALLS.items():
        assert answer(code, cache) == answers[name]


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_compiles_cut_at_random_points_leave_a_cache_that_loads(expected, tmp_path, how):
    answers, _ = expected
    cache = tmp_path / "cache"
    rng = random.Random(how)
    for _ in range(3):
        process = child(CALLS["weighted"], cache)
        time.sleep(rng.uniform(1.0, 5.0))
        process.send_signal(how)
        _, err = process.communicate(timeout=600)
        assert process.returncode != -signal.SIGSEGV, err[-2000:]
    for name, code in CALLS.items():
        assert answer(code, cache) == answers[name]


def test_first_calls_side_by_side_share_one_cache(expected, tmp_path):
    answers, _ = expected
    cache = tmp_path / "cache"
    names = [*CALLS, *CALLS]  # two of each at once, every kernel raced for
    processes = [child(CALLS[name], cache) for name in names]
    for name, process in zip(names, processes):
        out, err = process.communicate(timeout=900)
        assert process.returncode == 0, err[-2000:]
        assert out == answers[name]
    for name, code in CALLS.items():  # and the cache they wrote loads
        assert answer(code, cache) == answers[name]
