"""Files bnfs reads and writes: every output is written beside its path and renamed over
it (a failed or interrupted write leaves the previous file whole), no output may be one of
the inputs, and an input that can be read only once (a FIFO, a device) is read once."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


def same_file(a, b) -> bool:
    """Whether two paths name one file (through links too, when both exist)."""
    a, b = Path(a), Path(b)
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # a broken or looping link: the caller reports it
        return False


def refuse_overwriting(output, what: str, inputs) -> None:
    """A ValueError when ``output`` is one of ``inputs`` (``(label, path)`` pairs)."""
    for label, path in inputs:
        if path is not None and same_file(output, path):
            raise ValueError(
                f"{what} {str(output)!r} is also the {label}; it would be overwritten: "
                "choose another path"
            )


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def replacing(path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write the output to; when the block ends without
    an error it replaces ``path`` (atomically, with the old file's permissions or the
    usual ones), otherwise it is removed and ``path`` is left as it was."""
    path = Path(path)
    if not path.parent.is_dir():
        raise ValueError(f"cannot write {str(path)!r}: folder {str(path.parent)!r} does not exist")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    temporary = Path(temporary)
    try:
        yield temporary
        try:
            mode = stat.S_IMODE(path.stat().st_mode) if path.is_file() else _new_file_mode()
        except OSError:
            mode = _new_file_mode()
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomically(path, content: str | bytes) -> None:
    """Write ``content`` (text as UTF-8) to ``path`` through :func:`replacing`, flushed to
    disk before the rename."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with replacing(path) as temporary:
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())


@contextlib.contextmanager
def read_once(path: Path) -> Iterator[Path]:
    """``path`` itself when it is a regular file; otherwise (a FIFO, a device, a process
    substitution) its bytes copied once to a temporary regular file with the same name, so
    that readers which open a file more than once (to check its header, then read it in
    blocks) never wait on a stream that has been drained."""
    if path.is_file():
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="bnfs-input-") as folder:
        copy = Path(folder) / path.name
        with open(path, "rb") as source, open(copy, "wb") as out:
            shutil.copyfileobj(source, out)
        yield copy
