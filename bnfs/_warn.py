"""Warnings that point at the user's line: the first frame outside bnfs."""

from __future__ import annotations

import os
import sys

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn`, called in the function that warns,
    that names the first caller outside the bnfs package (the user's line, however deep
    the warning is raised), as Python 3.12's ``skip_file_prefixes`` would.

    >>> import warnings
    >>> def inside():
    ...     warnings.warn("x", stacklevel=user_stacklevel())
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     inside()
    >>> caught[0].filename == inside.__code__.co_filename  # outside bnfs: the warning's line
    True
    """
    frame = sys._getframe(1)  # the function that warns: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


class StructuralEMWarning(UserWarning):
    """A learner given data with missing values learns them inside structural EM
    (:func:`bnfs.structural_em`): said once per call from outside, as a UserWarning of its
    own category, so that a caller that says it another way (a selector's ``missing_``, the
    bootstrap's one warning for all its resamples) can silence it by category."""
