"""Checkpoints: hill climbing and the bootstrap resume after a crash with the result an
uninterrupted run gives."""

import importlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bnfs
import bnfs._checkpoint as checkpoint_module
import bnfs.bootstrap._resampling as resampling
from bnfs import datasets
from bnfs._budget import Budget
from bnfs.search._state import SearchState

climbing_module = importlib.import_module("bnfs.search._climbing")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def alarm():
    return datasets.sample("alarm", 2000, seed=1)


@pytest.fixture(scope="module")
def asia_small():
    return datasets.sample("asia", 500, seed=7)


@pytest.fixture
def every_move(monkeypatch):
    """A checkpoint after every move."""
    monkeypatch.setattr(climbing_module, "CHUNK", 1)
    monkeypatch.setattr(checkpoint_module, "CHECKPOINT_SECONDS", 0.0)


def crash_after(monkeypatch, calls: int):
    """Make the compiled search raise after ``calls`` chunks, as a crash would."""
    original, count = SearchState.run, [0]

    def run(self, *args, **kwargs):
        count[0] += 1
        if count[0] > calls:
            raise MemoryError("simulated crash")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SearchState, "run", run)


SEARCHES = [
    {},
    {"tabu": 10},
    {"restarts": 3, "perturb_moves": 3, "seed": 4},
    {"tabu": 5, "restarts": 2, "seed": 1, "max_iter": 25},
]


@pytest.mark.parametrize("options", SEARCHES, ids=["hc", "tabu", "restarts", "tabu-restarts"])
def test_hill_climbing_resumes_after_crashes(alarm, tmp_path, monkeypatch, every_move, options):
    reference = bnfs.hill_climbing(alarm, progress=False, **options)
    path = tmp_path / "search.json"
    crashes = 0
    for calls in (2, 11, 23, 40, 61):  # each run resumes from the last one's checkpoint
        with monkeypatch.context() as patch:
            crash_after(patch, calls)
            try:
                bnfs.hill_climbing(alarm, progress=False, checkpoint=path, **options)
            except MemoryError:
                crashes += 1
    assert crashes >= 2 and path.exists()
    resumed = bnfs.hill_climbing(alarm, progress=False, checkpoint=path, **options)
    assert resumed.learning["resumed"] and resumed.learning["checkpoint"] == str(path)
    assert sorted(resumed.arcs) == sorted(reference.arcs)
    assert resumed.learning["score_value"] == reference.learning["score_value"]
    assert resumed.learning["moves"] == reference.learning["moves"]
    # a finished checkpoint returns its graph without searching again
    again = bnfs.hill_climbing(alarm, progress=False, checkpoint=path, **options)
    assert sorted(again.arcs) == sorted(reference.arcs)
    assert again.learning["moves"] == reference.learning["moves"]
    assert json.loads(path.read_text())["state"]["complete"] is True


@settings(max_examples=25)
@given(
    crash=st.integers(1, 20),
    tabu=st.sampled_from([0, 4]),
    restarts=st.integers(0, 2),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_crash_point_resumes_to_the_same_graph(
    asia_small, tmp_path_factory, crash, tabu, restarts, seed
):
    options = {"tabu": tabu, "restarts": restarts, "perturb_moves": 2, "seed": seed}
    reference = bnfs.hill_climbing(asia_small, progress=False, **options)
    path = tmp_path_factory.mktemp("crash") / "search.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(climbing_module, "CHUNK", 1)
        patch.setattr(checkpoint_module, "CHECKPOINT_SECONDS", 0.0)
        crash_after(patch, crash)
        try:
            bnfs.hill_climbing(asia_small, progress=False, checkpoint=path, **options)
        except MemoryError:
            pass
    resumed = bnfs.hill_climbing(asia_small, progress=False, checkpoint=path, **options)
    assert sorted(resumed.arcs) == sorted(reference.arcs)
    assert resumed.learning["score_value"] == reference.learning["score_value"]
    assert resumed.learning["moves"] == reference.learning["moves"]


def test_interrupted_search_continues_from_its_checkpoint(alarm, tmp_path, monkeypatch, every_move):
    reference = bnfs.hill_climbing(alarm, progress=False, restarts=2, seed=0)
    path = tmp_path / "search.json"
    slices = 0
    while True:  # stopped every 15 budget checks, as Ctrl-C or max_time would
        checks = [0]

        def spent(self):
            checks[0] += 1
            if checks[0] > 15:
                self.reason = "interrupted"
            return self.reason is not None

        with monkeypatch.context() as patch, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            patch.setattr(Budget, "spent", spent)
            dag = bnfs.hill_climbing(alarm, progress=False, restarts=2, seed=0, checkpoint=path)
        slices += 1
        if not caught:
            break
        assert dag.learning["stopped_early"] == "interrupted"
        assert slices < 50
    assert slices >= 3
    assert sorted(dag.arcs) == sorted(reference.arcs)
    assert dag.learning["moves"] == reference.learning["moves"]


def test_hill_climbing_survives_a_killed_process(alarm, tmp_path):
    """SIGKILL mid-search (no cleanup runs), then resume in this process."""
    path = tmp_path / "search.json"
    frame_path = tmp_path / "alarm.csv"
    alarm.to_csv(frame_path, index=False)
    script = textwrap.dedent(f"""
        import pandas as pd, bnfs, bnfs._checkpoint as c, bnfs.search._climbing as climbing
        climbing.CHUNK = 1
        c.CHECKPOINT_SECONDS = 0.0
        frame = pd.read_csv({str(frame_path)!r}, dtype=str)
        for _ in range(1000):  # never ends on its own: the test kills it
            bnfs.hill_climbing(frame, progress=False, restarts=3, seed=2,
                               checkpoint={str(path)!r})
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-c", script], env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            if path.exists() and json.loads(path.read_text())["state"]["climb"] >= 1:
                break
            time.sleep(0.05)
        assert child.poll() is None, "the child stopped before it was killed"
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    frame = pd.read_csv(frame_path, dtype=str)
    reference = bnfs.hill_climbing(frame, progress=False, restarts=3, seed=2)
    resumed = bnfs.hill_climbing(frame, progress=False, restarts=3, seed=2, checkpoint=path)
    assert resumed.learning["resumed"]
    assert sorted(resumed.arcs) == sorted(reference.arcs)
    assert resumed.learning["score_value"] == reference.learning["score_value"]


def test_checkpoint_refuses_another_run(alarm, tmp_path):
    path = tmp_path / "search.json"
    bnfs.hill_climbing(alarm, progress=False, max_parents=3, checkpoint=path)
    # what does not change the result may change
    dag = bnfs.hill_climbing(
        alarm, progress=False, max_parents=3, checkpoint=path, n_jobs=2, max_time=100.0
    )
    assert dag.learning["resumed"]
    with pytest.raises(ValueError, match="other data or other arguments"):
        bnfs.hill_climbing(alarm, progress=False, max_parents=2, checkpoint=path)
    with pytest.raises(ValueError, match="other data or other arguments"):
        bnfs.hill_climbing(alarm.iloc[:1500], progress=False, max_parents=3, checkpoint=path)
    with pytest.raises(ValueError, match="other data or other arguments"):
        bnfs.hill_climbing(alarm, "bde", progress=False, max_parents=3, checkpoint=path)
    with pytest.raises(ValueError, match="written by hill_climbing, not bootstrap"):
        bnfs.boot_strength(alarm, R=2, checkpoint=path)


def test_checkpoint_paths_and_damaged_files(alarm, tmp_path):
    with pytest.raises(TypeError, match="checkpoint must be a file path"):
        bnfs.hill_climbing(alarm, checkpoint=3)
    with pytest.raises(ValueError, match="is a folder"):
        bnfs.hill_climbing(alarm, checkpoint=tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        bnfs.hill_climbing(alarm, checkpoint=tmp_path / "missing" / "search.json")
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"format": "bnfs-checkpoint-1", "who"')
    with pytest.raises(ValueError, match="not readable"):
        bnfs.hill_climbing(alarm, checkpoint=damaged)
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}')
    with pytest.raises(ValueError, match="not a bnfs checkpoint"):
        bnfs.boot_strength(alarm, R=2, checkpoint=other)
    assert other.read_text() == '{"a": 1}'  # never overwritten


def test_a_failed_write_keeps_the_previous_checkpoint(alarm, tmp_path, monkeypatch):
    path = tmp_path / "search.json"
    bnfs.hill_climbing(alarm, progress=False, checkpoint=path)
    before = path.read_bytes()

    def failing_fsync(fd):
        raise OSError("disk full")

    store = checkpoint_module.Checkpoint(path, "hill_climbing", "x")
    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="disk full"):
        store.save({"climb": 0})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["search.json"]  # no temporary left


def crash_replicates(monkeypatch, tasks: int):
    original, count = resampling.replicates, [0]

    def replicates(*args, **kwargs):
        count[0] += 1
        if count[0] > tasks:
            raise MemoryError("simulated crash")
        return original(*args, **kwargs)

    monkeypatch.setattr(resampling, "replicates", replicates)


def test_bootstrap_resumes_after_a_crash(tmp_path, monkeypatch):
    frame = datasets.sample("asia", 1000, seed=0)
    reference = bnfs.boot_strength(frame, R=30, seed=3)
    path = tmp_path / "boot.json"
    with monkeypatch.context() as patch:
        crash_replicates(patch, 7)
        with pytest.raises(MemoryError):
            bnfs.boot_strength(frame, R=30, seed=3, checkpoint=path)
    saved = json.loads(path.read_text())["state"]["replicates"]
    assert 7 <= len(saved) < 30
    with monkeypatch.context() as patch:  # only the missing replicates run
        crash_replicates(patch, 30 - len(saved))
        resumed = bnfs.boot_strength(frame, R=30, seed=3, checkpoint=path, n_jobs=1)
    pd.testing.assert_frame_equal(resumed, reference)
    with pytest.raises(ValueError, match="other data or other arguments"):
        bnfs.boot_strength(frame, R=30, seed=4, checkpoint=path)


def test_blanket_frequency_resumes(tmp_path, monkeypatch):
    frame = datasets.sample("asia", 1000, seed=0)
    reference = bnfs.blanket_frequency(frame, "either", R=24, seed=1)
    path = tmp_path / "blankets.json"
    with monkeypatch.context() as patch:
        crash_replicates(patch, 5)
        with pytest.raises(MemoryError):
            bnfs.blanket_frequency(frame, "either", R=24, seed=1, checkpoint=path)
    resumed = bnfs.blanket_frequency(frame, "either", R=24, seed=1, checkpoint=path, n_jobs=2)
    pd.testing.assert_series_equal(resumed, reference)


def _tampered(path: Path, edit, redigest: bool) -> Path:
    """A copy of the checkpoint at ``path`` with ``edit(state)`` applied; with ``redigest``
    its digest is recomputed, as a careful hand would."""
    document = json.loads(path.read_text())
    edit(document["state"])
    if redigest:
        document["digest"] = checkpoint_module.state_digest(
            document["fingerprint"], document["state"]
        )
    out = path.with_name(f"tampered-{redigest}.json")
    out.write_text(json.dumps(document))
    return out


def _set(key, value):
    def edit(state):
        target, *rest = key.split(".")
        if rest:
            state[target][rest[0]] = value
        else:
            state[target] = value

    return edit


def _cycle(state):
    parents = state["parents"]
    child = next(v for v, p in enumerate(parents) if p)
    parent = parents[child][0]
    parents[parent] = parents[parent] + [child]


@pytest.mark.parametrize(
    "edit, message",
    [
        (_set("best.score", 1e300), "is not the score of its graph"),
        (_set("complete", False), "complete=False"),
        (_set("climb", 7), "climb 7 of 2 restarts"),
        (_cycle, "directed cycle"),
        (_set("parents", [[99]] * 8), "not another node"),
        (_set("counters", [-1] * 8), "counters out of range"),
    ],
)
def test_a_checkpoints_state_is_verified_not_trusted(asia_small, tmp_path, edit, message):
    """An edited state is refused: by its digest, and when the digest is recomputed, by the
    consistency checks (scores recompute from their graphs, graphs are DAGs of these nodes,
    counters in range)."""
    path = tmp_path / "search.json"
    reference = bnfs.hill_climbing(asia_small, progress=False, restarts=2, seed=3, checkpoint=path)
    assert (
        bnfs.hill_climbing(asia_small, progress=False, restarts=2, seed=3, checkpoint=path)
        == reference
    )  # the untouched one resumes
    with pytest.raises(ValueError, match="changed after bnfs wrote it"):
        bnfs.hill_climbing(
            asia_small,
            progress=False,
            restarts=2,
            seed=3,
            checkpoint=_tampered(path, edit, redigest=False),
        )
    with pytest.raises(ValueError, match=f"is damaged .*{message}"):
        bnfs.hill_climbing(
            asia_small,
            progress=False,
            restarts=2,
            seed=3,
            checkpoint=_tampered(path, edit, redigest=True),
        )


def test_a_checkpoint_path_is_never_read_without_bound(asia_small, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="not a regular file"):
        bnfs.hill_climbing(asia_small, progress=False, checkpoint="/dev/zero")
    big = tmp_path / "big.json"
    big.write_text("{" + " " * 5000 + "}")
    with monkeypatch.context() as patch:
        patch.setattr(checkpoint_module, "MAX_BYTES", 4096)
        with pytest.raises(ValueError, match=r"5002 bytes, more than the 4096"):
            bnfs.hill_climbing(asia_small, progress=False, checkpoint=big)
    data = tmp_path / "data.csv"
    asia_small.to_csv(data, index=False)
    with pytest.raises(ValueError, match="is not a bnfs checkpoint; bnfs leaves it alone"):
        bnfs.hill_climbing(asia_small, progress=False, checkpoint=data)
    assert data.read_text() == asia_small.to_csv(index=False)


def test_a_bootstraps_saved_replicates_are_checked(asia_small, tmp_path):
    path = tmp_path / "boot.json"
    bnfs.boot_strength(asia_small, R=3, seed=1, checkpoint=path)
    tampered = _tampered(
        path, lambda s: s["replicates"]["0"][0].append(["asia", "nope"]), redigest=True
    )
    with pytest.raises(ValueError, match="is damaged .*a saved graph holds"):
        bnfs.boot_strength(asia_small, R=3, seed=1, checkpoint=tampered)


def _first_arc(state):
    return list(state["replicates"]["0"][0][0])


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s["replicates"]["0"][0].append(_first_arc(s)), "joins .* twice"),
        (lambda s: s["replicates"]["0"][0].append(_first_arc(s)[::-1]), "joins .* twice"),
        (lambda s: s["replicates"]["0"][1].append(_first_arc(s)), "joins .* twice"),
        (
            lambda s: s["replicates"]["0"][0].extend([["asia", "tub"], ["tub", "asia"]]),
            "joins .* twice|not a DAG",
        ),
        (
            lambda s: s["replicates"]["0"][0].extend(
                [["asia", "dysp"], ["dysp", "xray"], ["xray", "asia"]]
            ),
            "not a DAG|joins .* twice",
        ),
        (lambda s: s["replicates"]["0"][0].pop(), "replicate 0 saved"),  # a well-formed lie
        (lambda s: s["replicates"].update({"0": "abc"}), "not \\(arcs, edges\\)"),
        (lambda s: s["replicates"]["1"][0].append([1, 2]), "a saved graph holds"),
    ],
)
def test_a_forged_bootstrap_replicate_is_refused(asia_small, tmp_path, edit, message):
    """Each saved replicate is checked as a graph (known nodes, each pair joined once, the
    arcs acyclic) and one saved replicate is learned again: strengths stay in [0, 1]."""
    path = tmp_path / "boot.json"
    reference = bnfs.boot_strength(asia_small, R=3, seed=1, checkpoint=path)
    assert reference["strength"].between(0, 1).all()
    resumed = bnfs.boot_strength(asia_small, R=3, seed=1, checkpoint=path)
    pd.testing.assert_frame_equal(resumed, reference)
    with pytest.raises(ValueError, match=f"is damaged .*({message})"):
        bnfs.boot_strength(asia_small, R=3, seed=1, checkpoint=_tampered(path, edit, True))


@pytest.mark.parametrize("edit", [lambda s: s["replicates"]["0"].append(s["replicates"]["0"][0])])
def test_a_forged_blanket_replicate_is_refused(asia_small, tmp_path, edit):
    path = tmp_path / "blankets.json"
    frequency = bnfs.blanket_frequency(asia_small, "lung", R=3, seed=1, checkpoint=path)
    assert frequency.between(0, 1).all()
    with pytest.raises(ValueError, match="is damaged .*a saved blanket holds"):
        bnfs.blanket_frequency(
            asia_small, "lung", R=3, seed=1, checkpoint=_tampered(path, edit, True)
        )


def test_a_bootstrap_refuses_a_checkpoint_among_the_learners_options(asia_small, tmp_path):
    with pytest.raises(ValueError, match="learner_options may not hold 'checkpoint'"):
        bnfs.boot_strength(asia_small, R=3, learner_options={"checkpoint": tmp_path / "c.json"})
    with pytest.raises(ValueError, match="R=1,000,000,000,000 replicates is more than"):
        bnfs.boot_strength(asia_small, R=10**12)
