"""Checkpoint files that let a long search or a bootstrap resume after a crash.

A checkpoint is a small JSON document written atomically (to a temporary file in the same
folder, then renamed over the old one), so a crash while writing leaves the previous
checkpoint intact. It carries a fingerprint of the data and of every argument that changes
the result; resuming from a checkpoint written for other data or other arguments is refused
rather than silently mixing two runs. Arguments that do not change the result
(``max_time``, ``n_jobs``, ``progress``) are not part of the fingerprint, so a search can
also be run in slices: stop it with ``max_time`` or Ctrl-C and call it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np

from bnfs.tables._data import Dataset
from bnfs.tables._files import write_atomically

FORMAT = "bnfs-checkpoint-1"

#: largest checkpoint file read back (a search over 20,000 nodes writes a few megabytes)
MAX_BYTES = 1 << 28

#: seconds between two periodic writes of a search's checkpoint
CHECKPOINT_SECONDS = 30.0


def _to_json(value):
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot store {type(value).__name__} in a checkpoint")


def _from_json(value: dict):
    if "__ndarray__" in value:
        return np.asarray(value["__ndarray__"], dtype=value["dtype"])
    return value


def data_digest(data: Dataset) -> str:
    """SHA-256 of the names, states and codes of the discrete columns and of the continuous
    values: equal digests mean equal data."""
    digest = hashlib.sha256()
    frame = getattr(data, "frame", None)
    if frame is not None:  # a DataFrame with missing values (bnfs.bootstrap's resamples)
        import pandas as pd

        digest.update(json.dumps([list(data.names), list(map(str, frame.dtypes))]).encode())
        digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
        return digest.hexdigest()
    digest.update(
        json.dumps(
            [
                list(data.names),
                list(data.discrete_names),
                [list(map(str, data.states[v])) for v in data.discrete_names],
                data.n_rows,
            ]
        ).encode()
    )
    for block in (data.codes, data.values):
        if block.size:
            # the arrays are column-major: their transposes are contiguous, no copy
            digest.update(memoryview(np.ascontiguousarray(block.T)).cast("B"))
    return digest.hexdigest()


def state_digest(fingerprint: str, state) -> str:
    """SHA-256 of a saved state (as JSON, keys sorted) and the run's fingerprint: a state
    edited by hand, or copied from another run, no longer matches its digest."""
    text = json.dumps(state, sort_keys=True, default=_to_json)
    return hashlib.sha256((fingerprint + text).encode()).hexdigest()


def fingerprint(data: Dataset, **arguments) -> str:
    """A digest of the data and of the arguments that change a result."""
    text = json.dumps(arguments, sort_keys=True, default=repr)
    return hashlib.sha256((data_digest(data) + text).encode()).hexdigest()


class Checkpoint:
    """The checkpoint file of one call of ``who``.

    Parameters
    ----------
    path : str or os.PathLike
        The file; its folder must exist.
    who : str
        The routine writing it (a checkpoint of another routine is refused).
    fingerprint : str
        From :func:`fingerprint`.
    """

    def __init__(self, path, who: str, fingerprint: str):
        if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"checkpoint must be a file path, got {path!r}")
        self.path = Path(path)
        if self.path.is_dir():
            raise ValueError(f"checkpoint {str(self.path)!r} is a folder, not a file")
        if not self.path.parent.is_dir():
            raise ValueError(f"checkpoint folder {str(self.path.parent)!r} does not exist")
        self.who = who
        self.fingerprint = fingerprint
        self.last_write = time.perf_counter()

    def load(self) -> dict | None:
        """The saved state, or None when there is no checkpoint yet.

        Refused with a ValueError: a file that is not a bnfs checkpoint (it is left alone:
        choose another path), one of another routine, data or arguments, and one whose
        state does not match its integrity digest (changed after bnfs wrote it).
        """
        if not self.path.exists():
            return None
        where = str(self.path)
        if not self.path.is_file():
            raise ValueError(f"checkpoint {where!r} is not a regular file; choose another path")
        size = self.path.stat().st_size
        if size > MAX_BYTES:
            raise ValueError(
                f"{where!r} is not a bnfs checkpoint ({size} bytes, more than "
                f"the {MAX_BYTES} a checkpoint can have); choose another path"
            )
        text = ""
        try:
            with open(self.path, encoding="utf-8") as handle:
                text = handle.read(MAX_BYTES + 1)
            saved = json.loads(text)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            if FORMAT in text[:200]:  # ours, but damaged (bnfs writes atomically: not by us)
                raise ValueError(
                    f"checkpoint {where!r} is not readable ({error}); delete it to start afresh"
                ) from None
            saved = None
        if not isinstance(saved, dict) or saved.get("format") != FORMAT:
            raise ValueError(
                f"{where!r} is not a bnfs checkpoint; bnfs leaves it alone: "
                "choose another path for the checkpoint"
            )
        if saved.get("who") != self.who:
            raise ValueError(
                f"checkpoint {where!r} was written by {saved.get('who')}, not {self.who}"
            )
        if saved.get("fingerprint") != self.fingerprint:
            raise ValueError(
                f"checkpoint {where!r} was written for other data or "
                f"other arguments of {self.who}; delete it or choose another path"
            )
        if saved.get("digest") != state_digest(self.fingerprint, saved.get("state")):
            raise ValueError(
                f"checkpoint {where!r} was changed after bnfs wrote it (its state "
                "does not match its digest); delete it to start afresh"
            )
        state = json.loads(json.dumps(saved["state"]), object_hook=_from_json)
        if not isinstance(state, dict):
            raise ValueError(
                f"checkpoint {where!r} is damaged (its state is a {type(state).__name__}, "
                "not a mapping); delete it to start afresh"
            )
        return state

    def due(self) -> bool:
        """True when the last write is :data:`CHECKPOINT_SECONDS` old."""
        return time.perf_counter() - self.last_write >= CHECKPOINT_SECONDS

    def save(self, state: dict) -> None:
        """Write ``state`` atomically."""
        document = {
            "format": FORMAT,
            "who": self.who,
            "fingerprint": self.fingerprint,
            "digest": state_digest(self.fingerprint, state),
            "state": state,
        }
        write_atomically(self.path, json.dumps(document, default=_to_json), regular_only=True)
        self.last_write = time.perf_counter()
