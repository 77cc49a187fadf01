"""Files bnfs reads and writes: an output never overwrites an input, a failed write keeps
the previous output whole, and an input that can be read only once (a FIFO) is read once."""

import os
import resource
import signal
import subprocess
import sys
import threading

import pandas as pd
import pytest

import bnfs
import bnfs.io
from bnfs.tables._files import replacing, write_atomically


@pytest.fixture(scope="module")
def asia_csv(tmp_path_factory):
    root = tmp_path_factory.mktemp("files")
    frame = bnfs.datasets.sample("asia", 400, seed=1)
    frame.to_csv(root / "asia.csv", index=False)
    return root, frame


def test_read_dataset_refuses_to_write_its_memmap_over_the_data(asia_csv, tmp_path):
    root, _ = asia_csv
    data = tmp_path / "data.csv"
    data.write_bytes((root / "asia.csv").read_bytes())
    before = data.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    for memmap in (data, str(data), link, tmp_path / "." / "data.csv"):
        with pytest.raises(ValueError, match="is also the data file"):
            bnfs.io.read_dataset(data, memmap=memmap)
    (tmp_path / "codes.partial").write_bytes(before)  # the memmap's scratch file's name
    with pytest.raises(ValueError, match="scratch file .* is also the data file"):
        bnfs.io.read_dataset(tmp_path / "codes.partial", format="csv", memmap=tmp_path / "codes")
    assert (tmp_path / "codes.partial").read_bytes() == before
    assert data.read_bytes() == before
    codes = bnfs.io.read_dataset(data, memmap=tmp_path / "codes.bin")  # elsewhere: fine
    assert codes.shape == (400, 8) and data.read_bytes() == before


def test_a_failed_write_leaves_the_previous_file_whole(tmp_path):
    target = tmp_path / "out.txt"
    write_atomically(target, "the good one")
    with pytest.raises(RuntimeError), replacing(target) as temporary:
        temporary.write_text("half of a")
        raise RuntimeError("disk full")
    assert target.read_text() == "the good one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temporary left
    os.chmod(target, 0o640)
    write_atomically(target, "the next one")  # the old file's permissions are kept
    assert target.read_text() == "the next one" and (target.stat().st_mode & 0o777) == 0o640


def test_a_failed_drawing_keeps_the_previous_picture(tmp_path, monkeypatch):
    import bnfs.graphs.render

    dag = bnfs.datasets.network("asia")
    picture = tmp_path / "asia.svg"
    bnfs.graphs.render.draw(dag, picture, engine="matplotlib")
    before = picture.read_bytes()

    def broken(graph, path, fmt, highlight):
        path.write_text("<svg")  # half a picture, then the failure
        raise MemoryError

    monkeypatch.setattr(bnfs.graphs.render, "_draw_matplotlib", broken)
    with pytest.raises(MemoryError):
        bnfs.graphs.render.draw(dag, picture, engine="matplotlib")
    assert picture.read_bytes() == before


def _limited(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.parametrize("suffix", [".json", ".dot", ".bif", ".graphml", ".html"])
def test_the_command_line_keeps_the_previous_output_when_a_write_fails(asia_csv, suffix):
    """With a file-size limit the write fails part way: the previous file stays whole."""
    root, _ = asia_csv
    out = root / f"previous{suffix}"
    args = ["learn", str(root / "asia.csv"), "--quiet"]
    args += (
        ["--report", str(out), "--out", str(root / "o.json")]
        if suffix == ".html"
        else [
            "--out",
            str(out),
        ]
    )
    command = [sys.executable, "-m", "bnfs.cli", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    before = out.read_bytes()
    assert len(before) > 300
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, preexec_fn=_limited(300)
    )
    assert done.returncode != 0
    assert out.read_bytes() == before
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


def _fifo_with(tmp_path, name: str, content: bytes):
    """A FIFO that one writer fills once, in a thread; a reader that opened it twice would
    wait forever for a second writer."""
    path = tmp_path / name
    os.mkfifo(path)

    def feed():
        with open(path, "wb") as out:
            out.write(content)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return path, thread


def _within(seconds, call):
    result, error = [], []

    def run():
        try:
            result.append(call())
        except BaseException as caught:  # reported below
            error.append(caught)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the reader hangs on a FIFO"
    if error:
        raise error[0]
    return result[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize(
    "read",
    [
        bnfs.io.read_table,
        lambda p: bnfs.io.read_dataset(p, chunksize=50).to_pandas(),
        lambda p: pd.concat(list(bnfs.io.iter_blocks(p, chunksize=100)), ignore_index=True),
        lambda p: bnfs.Dataset(p).to_pandas(),
    ],
    ids=["read_table", "read_dataset", "iter_blocks", "Dataset"],
)
def test_a_fifo_is_read_once(asia_csv, tmp_path, read):
    root, frame = asia_csv
    fifo, _ = _fifo_with(tmp_path, "data.csv", (root / "asia.csv").read_bytes())
    got = _within(60, lambda: read(fifo))
    assert got.shape == frame.shape
    assert got.astype(str).equals(frame.astype(str))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_the_command_line_reads_fifos_once(asia_csv, tmp_path):
    root, _ = asia_csv
    data, _ = _fifo_with(tmp_path, "data.csv", (root / "asia.csv").read_bytes())
    black, _ = _fifo_with(tmp_path, "black.csv", b"from,to\nsmoke,lung\n")
    tiers, _ = _fifo_with(tmp_path, "tiers.txt", b"asia, smoke\ntub, lung, bronc, either\n")
    out = tmp_path / "o.json"
    command = [sys.executable, "-m", "bnfs.cli", "learn", str(data), "--out", str(out)]
    command += ["--blacklist", str(black), "--tiers", str(tiers), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    learned = bnfs.from_json(out.read_text())
    assert not learned.has_arc("smoke", "lung") and not learned.has_arc("lung", "smoke")
