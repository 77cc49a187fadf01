"""Argument checks shared by the learners' front ends (one place, one wording)."""

from __future__ import annotations

import numbers
import os
import unicodedata
from collections.abc import Iterable

import numpy as np
import pandas as pd


def check_int(
    value,
    name: str,
    minimum: int | None = None,
    allow_none: bool = False,
    maximum: int | None = None,
    what: str = "",
):
    """An integer (not a bool) >= ``minimum`` and <= ``maximum`` (a bound on what it would
    allocate or run; ``what`` says what the bound counts); None passes when ``allow_none``."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}={value:,} is more than the {maximum:,} {what}".rstrip())
    return int(value)


def _finite(value: numbers.Real) -> bool:
    """Whether a real number is finite (an int past float64's range, 10**400, is not; one
    within it, 10**20, is: numpy's isfinite refuses Python ints past int64)."""
    try:
        return bool(np.isfinite(float(value)))
    except OverflowError:
        return False


def check_float(
    value, name: str, low: float | None = None, high: float | None = None, low_open: bool = False
):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not _finite(value):
        raise TypeError(f"{name} must be a finite number, got {repr(value)[:40]}")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")
    return float(value)


def check_bool(value, name: str) -> bool:
    """``value`` if it is True or False, else a TypeError naming ``name``."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def check_seed(seed):
    """A numpy Generator from an int seed, a Generator, or None."""
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer or a numpy Generator, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return np.random.default_rng(int(seed))


def memory_size() -> int:
    """Bytes of physical memory (2**40 where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return 1 << 40


def _bytes_text(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} EiB"  # pragma: no cover


def check_allocation(n_bytes: float, what: str, advice: str) -> None:
    """Refuse, before allocating, work whose arrays need more than the machine's memory:
    ``what`` says what was asked (``"sampling 10**13 rows of 37 variables"``), ``advice``
    which parameter to lower."""
    limit = memory_size()
    if n_bytes > limit:
        raise ValueError(
            f"{what} needs about {_bytes_text(n_bytes)}, more than the "
            f"{_bytes_text(limit)} of memory here; {advice}"
        )


class CheckedArcs(list):
    """A list of ``(from, to)`` pairs :func:`arc_list` has checked, with the node names it
    checked them against (``nodes``): given again unchanged, it is taken without a second
    check; a list changed since (an arc appended, one replaced) is checked again."""

    def __init__(self, pairs=(), nodes=frozenset()):
        super().__init__(pairs)
        self.nodes = frozenset(nodes)
        self.checked = tuple(self)  # what was checked: a list changed since is not trusted

    def unchanged(self) -> bool:
        """Whether the list still holds exactly the pairs that were checked."""
        return len(self) == len(self.checked) and tuple(self) == self.checked

    def __reduce__(self):
        return type(self), (list(self), self.nodes)


def arc_list(arcs, name: str, nodes) -> CheckedArcs:
    """Pairs ``(from, to)`` from a list of pairs or a DataFrame with columns from/to (as in
    bnlearn), each naming known nodes. A list this returned, given again with the same
    nodes (or more), is not checked again: a learner that runs another checks its lists once."""
    if arcs is None:
        return CheckedArcs()
    if isinstance(arcs, CheckedArcs) and arcs.nodes.issubset(nodes) and arcs.unchanged():
        return CheckedArcs(arcs, arcs.nodes)  # a copy: the caller may change its own
    if isinstance(arcs, pd.DataFrame):
        if not {"from", "to"} <= set(arcs.columns):
            raise ValueError(f"{name} as a DataFrame needs columns 'from' and 'to'")
        arcs = list(zip(arcs["from"], arcs["to"]))
    if isinstance(arcs, (str, bytes)):
        raise TypeError(f"{name} must be a list of (from, to) pairs, not a string")
    if not isinstance(arcs, Iterable):
        raise TypeError(
            f"{name} must be a list of (from, to) pairs or a DataFrame with columns from and "
            f"to, got {arcs!r} ({type(arcs).__name__})"
        )
    known = frozenset(nodes)
    return CheckedArcs(_checked_pairs(arcs, name, known), known)


def _checked_pairs(arcs, name: str, known: frozenset) -> list[tuple[str, str]]:
    """The pairs of ``arcs``, each two different names of ``known``."""
    out = []
    for arc in arcs:
        try:
            u, v = arc
        except (TypeError, ValueError):
            raise TypeError(f"{name} entries must be (from, to) pairs, got {arc!r}") from None
        for node in (u, v):
            try:
                ok = node in known
            except TypeError:
                ok = False
            if not ok:
                raise ValueError(
                    f"{name} names unknown node {node!r}" + near_match(node, sorted(known, key=str))
                )
        if u == v:
            raise ValueError(f"{name} has a self-loop on {u!r}")
        out.append((u, v))
    return out


def directed_cycle(arcs, both_ways_undirected: bool = True) -> list | None:
    """A directed cycle among ``arcs`` as its nodes, first repeated at the end
    (``[a, b, c, a]``), or None. With ``both_ways_undirected``, pairs given both ways are
    undirected edges (bnlearn's whitelist convention for PDAGs), not cycles.

    >>> directed_cycle([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    ['a', 'b', 'c', 'a']
    >>> directed_cycle([("a", "b"), ("b", "a")]) is None
    True
    """
    arcs = set(arcs)
    children: dict = {}
    for u, v in arcs:
        if not both_ways_undirected or (v, u) not in arcs:
            children.setdefault(u, []).append(v)
    state: dict = {}  # 1: on the current path, 2: done
    for root in sorted(children, key=str):
        if root in state:
            continue
        path, stack = [root], [iter(sorted(children.get(root, ()), key=str))]
        state[root] = 1
        while stack:
            node = next(stack[-1], None)
            if node is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(node) == 1:
                return path[path.index(node) :] + [node]
            elif node not in state:
                state[node] = 1
                path.append(node)
                stack.append(iter(sorted(children.get(node, ()), key=str)))
    return None


def cycle_text(cycle) -> str:
    """``'a' -> 'b' -> 'a'``: a cycle as a message names it."""
    return " -> ".join(map(repr, cycle))


def check_names(names, what: str) -> tuple[str, ...]:
    """Names of columns or nodes (``what``): strings, distinct, and free of control
    characters, which no picture, GraphML (XML), DOT, BIF or CSV file can hold."""
    names = tuple(names)
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what} names must be strings, got {name!r} ({type(name).__name__})")
        bad = next(
            (c for c in name if unicodedata.category(c) in ("Cc", "Cs") or c in "\ufffe\uffff"),
            None,
        )
        if bad is not None:
            raise ValueError(
                f"{what} name {name!r} holds the control character U+{ord(bad):04X}, "
                "which pictures, GraphML, DOT and BIF cannot hold: rename it"
            )
        if name in seen:
            raise ValueError(f"duplicate {what} name {name!r}")
        seen.add(name)
    return names


def near_match(name, names) -> str:
    """`` (did you mean 'X'?)`` when a name of ``names`` is close to ``name`` (letter case
    aside, or by difflib's similarity), else an empty string."""
    import difflib

    if not isinstance(name, str):
        return ""
    text = [n for n in names if isinstance(n, str)]
    same_case = [n for n in text if n.casefold() == name.casefold()]
    folded = {n.casefold(): n for n in reversed(text)}  # the first spelling of each
    close = same_case or [
        folded[n] for n in difflib.get_close_matches(name.casefold(), folded, n=1, cutoff=0.75)
    ]
    return f" (did you mean {close[0]!r}?)" if close else ""
