"""Files bnfs reads and writes: every output is written beside its path and renamed over
it (a failed or interrupted write leaves the previous file whole) or, when the path is a
FIFO or a character device, streamed into it (never replaced), no output may be one of
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


def _output_kind(path: Path, regular_only: bool) -> tuple[str, Path]:
    """How an output at ``path`` is written: ``("replace", where)`` for a regular file or a
    new one (``where`` is the file a symbolic link leads to, so the link itself stays), or
    ``("stream", path)`` for a FIFO or a character device (``/dev/stdout``, a terminal,
    ``/dev/null``), written through in place. Anything else is refused by name: replacing a
    device or a socket with a regular file would destroy it."""
    try:
        info = path.stat()  # through links, as the system's open() goes
    except FileNotFoundError:
        info = None
    except OSError as error:  # a link loop, a folder we may not read
        raise ValueError(f"cannot write {str(path)!r}: {error.strerror or error}") from None
    if info is None or stat.S_ISREG(info.st_mode):
        where = Path(os.path.realpath(path)) if path.is_symlink() else path
        if not where.parent.is_dir():
            raise ValueError(
                f"cannot write {str(path)!r}: folder {str(where.parent)!r} does not exist"
            )
        return "replace", where
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"cannot write {str(path)!r}: it is a folder; name a file in it")
    streamable = stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)
    if streamable and not regular_only:
        return "stream", path
    kind = (
        "a FIFO"
        if stat.S_ISFIFO(info.st_mode)
        else "a character device"
        if stat.S_ISCHR(info.st_mode)
        else "a block device"
        if stat.S_ISBLK(info.st_mode)
        else "a socket"
        if stat.S_ISSOCK(info.st_mode)
        else "not a regular file"
    )
    needs = "a regular file (it is read back)" if regular_only else "a regular file or a stream"
    raise ValueError(
        f"cannot write {str(path)!r}: it is {kind}, and this output needs {needs}; "
        "it is left untouched: choose another path"
    )


@contextlib.contextmanager
def replacing(path, *, regular_only: bool = False) -> Iterator[Path]:
    """A temporary path to write the output to; when the block ends without an error it
    takes the place of ``path``, otherwise it is removed and ``path`` is left as it was.

    A regular file (or a new one) is replaced atomically, keeping the old file's permissions
    or taking the usual ones; through a symbolic link, the file it leads to is replaced and
    the link stays. A FIFO or a character device (``/dev/stdout``, ``/dev/null``) is never
    replaced: the finished output is streamed into it. Any other kind of file (a folder, a
    block device, a socket), and a stream when ``regular_only`` (an output that is read
    back, such as a memory map or a checkpoint), is refused with a ValueError naming it.
    """
    path = Path(path)
    how, where = _output_kind(path, regular_only)
    folder = where.parent if how == "replace" else None  # a stream's folder may be /dev
    handle, temporary = tempfile.mkstemp(prefix=f".{where.name}.", suffix=".tmp", dir=folder)
    os.close(handle)
    temporary = Path(temporary)
    try:
        yield temporary
        if how == "stream":
            with open(temporary, "rb") as source, open(path, "wb") as out:
                shutil.copyfileobj(source, out)
            temporary.unlink()
            return
        try:
            mode = stat.S_IMODE(where.stat().st_mode) if where.is_file() else _new_file_mode()
        except OSError:
            mode = _new_file_mode()
        os.chmod(temporary, mode)
        os.replace(temporary, where)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomically(path, content: str | bytes, *, regular_only: bool = False) -> None:
    """Write ``content`` (text as UTF-8) to ``path`` through :func:`replacing`, flushed to
    disk before the rename."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with replacing(path, regular_only=regular_only) as temporary:
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
