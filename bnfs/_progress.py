"""The progress bar every learner and selector draws: tqdm's notebook widget where a
notebook can show it, its text bar everywhere else.

``tqdm.auto`` warns "IProgress not found" in a notebook without ipywidgets before falling
back to the text bar; this module makes the same choice without the warning. IPython is
looked up only when it is already imported (a notebook or IPython session), so a plain
``import bnfs`` pays nothing for it.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["tqdm"]


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
