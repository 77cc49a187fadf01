"""Files bnfs reads and writes: an output never overwrites an input, a failed write keeps
the previous output whole, and an input that can be read only once (a FIFO) is read once."""

import os
import resource
import signal
import stat
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
    learned = bnfs.io.from_json(out.read_text())
    assert not learned.has_arc("smoke", "lung") and not learned.has_arc("lung", "smoke")


# -- outputs that are not regular files: streamed into, written through, or refused ----------


def _drain(path):
    """A thread that reads a FIFO to its end; ``.got`` holds the bytes."""
    got = bytearray()

    def read():
        with open(path, "rb") as source:
            got.extend(source.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.got = got
    return thread


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("through_link", [False, True])
def test_a_fifo_output_is_streamed_into_not_replaced(tmp_path, through_link):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    target = fifo
    if through_link:
        target = tmp_path / "link.svg"
        target.symlink_to(fifo)
    reader = _drain(fifo)
    _within(30, lambda: write_atomically(target, "streamed") or True)
    reader.join(30)
    assert bytes(reader.got) == b"streamed"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still a FIFO
    assert target.is_symlink() == through_link
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.skipif(not hasattr(os, "mknod") or os.geteuid() != 0, reason="mknod needs root")
def test_a_character_device_output_is_written_through_not_replaced(tmp_path):
    null = tmp_path / "null.svg"  # a look-alike of /dev/null (major 1, minor 3)
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    write_atomically(null, "into the void")
    assert stat.S_ISCHR(os.stat(null).st_mode) and os.stat(null).st_rdev == os.makedev(1, 3)
    import bnfs.graphs.render

    bnfs.graphs.render.draw(bnfs.datasets.network("asia"), null, engine="matplotlib")
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null.svg"]


def test_a_symlink_to_a_regular_file_is_written_through(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    os.chmod(real, 0o600)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomically(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new" and (real.stat().st_mode & 0o777) == 0o600
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "not-yet.json")
    write_atomically(dangling, "created")  # as the shell's > would: the link's target
    assert dangling.is_symlink() and (tmp_path / "not-yet.json").read_text() == "created"


def test_outputs_that_cannot_be_written_through_are_refused_by_name(tmp_path):
    import socket

    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(ValueError, match="it is a folder"):
        write_atomically(folder, "x")
    assert folder.is_dir()
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(ValueError, match="it is a socket"):
            write_atomically(path, "x")
        assert stat.S_ISSOCK(os.stat(path).st_mode)
    finally:
        server.close()
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(ValueError, match="cannot write"):
        write_atomically(loop, "x")
    assert loop.is_symlink()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_outputs_that_are_read_back_refuse_a_stream(asia_csv, tmp_path):
    """A memory map and a checkpoint are read back: a FIFO cannot hold them."""
    root, _ = asia_csv
    fifo = tmp_path / "codes.fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="it is a FIFO, and this output needs a regular file"):
        bnfs.io.read_dataset(root / "asia.csv", memmap=fifo)
    checkpoint = tmp_path / "hc.fifo"
    os.mkfifo(checkpoint)
    frame = bnfs.datasets.sample("asia", 300, seed=2)
    with pytest.raises(ValueError, match="is not a regular file"):
        bnfs.hill_climbing(frame, checkpoint=checkpoint, progress=False)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISFIFO(os.stat(checkpoint).st_mode)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_the_command_line_streams_its_report_into_a_fifo(asia_csv, tmp_path):
    root, _ = asia_csv
    report = tmp_path / "report.html"
    os.mkfifo(report)
    reader = _drain(report)
    out = tmp_path / "o.json"
    command = [sys.executable, "-m", "bnfs.cli", "learn", str(root / "asia.csv")]
    command += ["--out", str(out), "--report", str(report), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    reader.join(60)
    assert bytes(reader.got).lstrip().lower().startswith(b"<!doctype html")
    assert stat.S_ISFIFO(os.stat(report).st_mode)
    assert len(bnfs.io.from_json(out.read_text()).nodes) == 8
