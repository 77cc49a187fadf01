"""Stopping a long search early, on a time limit or at Ctrl-C, with the best graph so far.

The searches run in compiled chunks of moves; between chunks they ask :meth:`Budget.spent`.
Where a person waits for the answer (a Python or IPython prompt, a notebook, the command
line), the first Ctrl-C does not raise inside a search: a SIGINT handler (main thread only)
records it and the search stops at the next check with the best graph so far, the state
never half-updated; a second Ctrl-C raises KeyboardInterrupt as usual. In a script or a
test session the first Ctrl-C raises KeyboardInterrupt, as it does in any Python code
(:data:`PARTIAL_ON_INTERRUPT` overrides the choice).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
import warnings

from bnfs._validate import check_float
from bnfs._warn import user_stacklevel

#: the command line's exit codes for a partial graph: Ctrl-C (128 + SIGINT, as shells
#: report it) and a spent ``--max-time`` (GNU timeout's code)
EXIT_INTERRUPTED, EXIT_OUT_OF_TIME = 130, 124


def stopped_reason(learning) -> str | None:
    """Why a learner stopped before it finished ("max_time reached", "interrupted"), from
    its ``learning`` record (``stopped_early``, the one key every learner records it under),
    or None when it finished."""
    if not isinstance(learning, dict):
        return None
    reason = learning.get("stopped_early")
    return str(reason) if reason else None


#: whether the first Ctrl-C inside a search returns the best graph so far (True) or raises
#: KeyboardInterrupt (False); None: only where a person is at a prompt (:func:`interactive`).
#: The command line sets it to True (a partial graph written, exit 130)
PARTIAL_ON_INTERRUPT: bool | None = None


def interactive() -> bool:
    """Whether a person is at a prompt: Python's (``sys.ps1``, ``python -i``) or
    IPython's, in a terminal or a notebook."""
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return True
    ipython = sys.modules.get("IPython")
    return ipython is not None and getattr(ipython, "get_ipython", lambda: None)() is not None


def partial_on_interrupt() -> bool:
    """Whether the first Ctrl-C inside a search stops it with its best graph so far."""
    return interactive() if PARTIAL_ON_INTERRUPT is None else bool(PARTIAL_ON_INTERRUPT)


class OutOfTime(TimeoutError):
    """A budget (``max_time``) spent before a learner had any answer to return (the
    posterior's first sample, say): the command line exits 124 with its message, as for a
    partial answer, instead of calling it an internal error."""


class Budget:
    """``max_time`` seconds (None: no limit) and an interruption flag for one search.

    The seconds the kernels spend compiling on first use are not counted: ``max_time``
    bounds the learning, so that ``max_time=10`` on an empty cache gives the answer it gives
    on a warm one (:meth:`clock`)."""

    def __init__(self, max_time: float | None):
        if max_time is not None:
            max_time = check_float(max_time, "max_time", 0.0)
        from bnfs._kernels._compile import compile_seconds  # here: a search has numba loaded

        self._compiling, self._compiled = compile_seconds, compile_seconds()
        self.deadline = None if max_time is None else self.clock() + max_time
        self.reason: str | None = None

    def clock(self) -> float:
        """``time.perf_counter()`` less the seconds the kernels compiled since the budget
        began: what :attr:`deadline` is measured on."""
        return time.perf_counter() - (self._compiling() - self._compiled)

    def spent(self) -> bool:
        """True once the time is up or the user pressed Ctrl-C."""
        if self.reason is None and self.deadline is not None and self.clock() >= self.deadline:
            self.reason = "max_time reached"
        return self.reason is not None

    def left(self) -> float | None:
        """Seconds left (0 once spent; None: no limit), for a budget handed down."""
        if self.spent():
            return 0.0
        return None if self.deadline is None else max(0.0, self.deadline - self.clock())

    @contextlib.contextmanager
    def catching_interrupts(self):
        """Within this block the first Ctrl-C only marks the budget as spent, where
        :func:`partial_on_interrupt` says so (else it raises KeyboardInterrupt)."""
        if threading.current_thread() is not threading.main_thread() or not partial_on_interrupt():
            yield
            return
        previous = signal.getsignal(signal.SIGINT)

        def handler(signum, frame):
            self.reason = "interrupted"
            signal.signal(signal.SIGINT, previous)  # a second Ctrl-C stops at once

        signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def pace(self, most: int, first: int = 1) -> Pace:
        """A :class:`Pace` for the compiled calls between this budget's checks (what a
        lower layer that takes the budget uses, without importing this module)."""
        return Pace(most, first)

    def warn(self, who: str, what: str = "the best graph") -> None:
        """Warn that ``who`` stopped early, if it did, returning ``what`` it found so far."""
        if self.reason is not None:
            warnings.warn(
                f"{who} stopped early ({self.reason}); returning {what} found so far",
                RuntimeWarning,
                stacklevel=user_stacklevel(),
            )


#: seconds a compiled call may run before the budget (time and Ctrl-C) is checked again
CHECK_EVERY = 0.1


class Pace:
    """How much work the next compiled call between two budget checks does: it starts at
    ``first`` units, doubles while a call takes under half of :data:`CHECK_EVERY` seconds
    and shrinks in proportion (down to one unit) when a call takes longer, never above
    ``most``. The answer does not depend on the sizes, only where a budget stops it."""

    def __init__(self, most: int, first: int = 1):
        self.most = max(1, most)
        self.size = max(1, min(first, self.most))

    @contextlib.contextmanager
    def timing(self):
        """Time one call of :attr:`size` units and set the next size."""
        began = time.perf_counter()
        yield
        took = time.perf_counter() - began
        if took < CHECK_EVERY / 2:
            self.size = min(2 * self.size, self.most)
        elif took > CHECK_EVERY:
            self.size = max(1, int(self.size * CHECK_EVERY / took))
