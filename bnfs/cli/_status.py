"""A status line on a terminal: rewritten in place every second while a long step runs
(cross-validation folds), so no wait passes without a line that moves; wiped at the end.
Stays quiet while the compile ticker shows its own line."""

from __future__ import annotations

import contextlib
import sys
import threading
import time


class StatusLine(threading.Thread):
    """``text()`` (plus the seconds elapsed) on ``stream``, every ``every`` seconds."""

    def __init__(self, stream, every: float = 1.0):
        super().__init__(daemon=True, name="bnfs-status-line")
        self.stream, self.every = stream, every
        self.text = ""
        self.started = time.perf_counter()
        self.done = threading.Event()
        self.shown = False

    def run(self):
        from bnfs._kernels import compiling_for

        while not self.done.wait(self.every):
            compiling = compiling_for()
            if compiling is None or compiling < 5:  # else the compile ticker has the line
                self.show()

    def show(self) -> None:
        elapsed = time.perf_counter() - self.started
        self.stream.write(f"\r\033[K{self.text}: {elapsed:.0f} s")
        self.stream.flush()
        self.shown = True

    def stop(self) -> None:
        self.done.set()
        if self.is_alive():
            self.join()
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


@contextlib.contextmanager
def status_line(stream, enabled: bool):
    """A :class:`StatusLine` on ``stream`` when ``enabled`` (a terminal), else a stand-in
    whose ``text`` goes nowhere."""
    line = StatusLine(stream)
    if enabled:
        line.start()
    try:
        yield line
    finally:
        line.stop()


def partial_exit(learning, command: str, what: str) -> int:
    """0 when the learner finished; else a line on stderr that ``what`` is partial and why
    (:func:`bnfs._budget.stopped_reason` of its ``learning`` record), and the exit code of
    the cause: 130 for Ctrl-C, 124 for ``--max-time`` (:data:`bnfs._budget.EXIT_INTERRUPTED`,
    ``EXIT_OUT_OF_TIME``), so that scripts can tell a partial answer from a finished one."""
    # here, not at import: bnfs --help loads no data library
    from bnfs._budget import EXIT_INTERRUPTED, EXIT_OUT_OF_TIME, stopped_reason

    reason = stopped_reason(learning)
    if reason is None:
        return 0
    print(f"bnfs {command}: {what} is partial: it stopped early ({reason})", file=sys.stderr)
    return EXIT_INTERRUPTED if reason == "interrupted" else EXIT_OUT_OF_TIME
