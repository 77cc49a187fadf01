"""Progress a user sees: the bar every learner and selector draws (tqdm's notebook widget
where a notebook can show it, its text bar everywhere else), and on first use the line that
counts the seconds while the numba kernels compile, on stderr when it is a terminal or in a
notebook, silent otherwise, in Python and on the command line alike (no logging set up).

``tqdm.auto`` warns "IProgress not found" in a notebook without ipywidgets before falling
back to the text bar; this module makes the same choice without the warning. IPython is
looked up only when it is already imported (a notebook or IPython session), so a plain
``import bnfs`` pays nothing for it.
"""

from __future__ import annotations

import importlib.util
import sys
import threading

import bnfs._kernels as _kernels

__all__ = ["tqdm", "CompileTicker"]


def _in_notebook() -> bool:
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython() if hasattr(ipython, "get_ipython") else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def progress_bar_class():
    """tqdm's notebook bar in a notebook that has ipywidgets, else its text bar."""
    if _in_notebook() and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm as bar
    else:
        from tqdm.std import tqdm as bar
    return bar


tqdm = progress_bar_class()


#: the line shown while the kernels compile (a terminal's or a notebook's), with the seconds
COMPILING = (
    "bnfs: compiling the numba kernels this call needs, once (later calls and runs load them "
    "from the cache)"
)


class CompileTicker(threading.Thread):
    """A line that moves while the kernels compile for more than ``after`` seconds (first
    use of each learner and kind of data), rewritten in place every ``every`` seconds (in
    a notebook: one display output, updated) and wiped when the compiling ends; with
    ``auto`` the thread ends then too (the next compile starts another)."""

    def __init__(self, stream, after: float = 5.0, every: float = 1.0, auto: bool = False):
        super().__init__(daemon=True, name="bnfs-compile-ticker")
        self.stream, self.after, self.every, self.auto = stream, after, every, auto
        self.done = threading.Event()
        self.shown = ""
        self.lock = threading.Lock()  # the ticker and the compiling thread both write
        self.terminal = _is_terminal(stream)
        # a notebook keeps every write to a stream in the saved file: there the line is one
        # display output, updated in place
        self.notebook = not self.terminal and _in_notebook()
        self.handle = None

    def run(self):
        while not self.done.wait(self.every):
            seconds = _kernels.compiling_for()
            self.tick(seconds)
            if seconds is None and self.auto:
                return

    def tick(self, seconds: float | None) -> None:
        with self.lock:
            self._show(seconds)

    def _show(self, seconds: float | None) -> None:
        if self.notebook:
            self._show_in_notebook(seconds)
            return
        try:
            if seconds is not None and seconds >= self.after:
                line = f"{COMPILING}: {seconds:.0f} s"
                self.stream.write(f"\r{line}")
                self.stream.flush()
                self.shown = line
            elif seconds is None and self.shown:
                # a terminal clears the line; a notebook's output shows no escape codes
                wipe = "\033[K" if self.terminal else " " * len(self.shown) + "\r"
                self.stream.write(f"\r{wipe}")
                self.stream.flush()
                self.shown = ""
        except (OSError, ValueError):  # a closed or broken stream: progress is not worth an error
            self.shown = ""

    def _show_in_notebook(self, seconds: float | None) -> None:
        """The line as one display output, updated in place and emptied at the end."""
        from IPython.display import display

        if seconds is not None and seconds >= self.after:
            text = f"{COMPILING}: {seconds:.0f} s"
        elif seconds is None and self.shown:
            text = ""
        else:
            return
        try:
            if self.handle is None:
                self.handle = display({"text/plain": text}, raw=True, display_id=True)
            else:
                self.handle.update({"text/plain": text}, raw=True)
        except Exception:  # progress is not worth an error in the user's cell
            self.handle = None
        self.shown = text

    def stop(self) -> None:
        self.done.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join()
        self.tick(None)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class _CompileProgress:
    """Starts a :class:`CompileTicker` on stderr when a kernel starts compiling and stderr is a
    terminal or a notebook's, and wipes its line as soon as compiling ends (before the
    caller's code prints)."""

    def __init__(self):
        self.ticker: CompileTicker | None = None
        self.lock = threading.Lock()

    def busy(self) -> None:
        stream = sys.stderr
        if stream is None or not (_is_terminal(stream) or _in_notebook()):
            return
        with self.lock:
            if (
                self.ticker is None
                or not self.ticker.is_alive()
                or self.ticker.stream is not stream
            ):
                self.ticker = CompileTicker(stream, auto=True)
                self.ticker.start()

    def idle(self) -> None:
        ticker = self.ticker
        if ticker is not None:
            ticker.tick(None)


_PROGRESS = _CompileProgress()
_kernels.on_compiles_start(_PROGRESS.busy)
_kernels.on_compiles_done(_PROGRESS.idle)
