"""Expert knowledge as the black- and whitelists every network learner takes: temporal tiers
(bnlearn's ``tiers2blacklist``), root nodes (no parents) and leaf nodes (no children).

Every network learner honours its lists as an invariant (``tests/test_properties.py``): the
score-based and hybrid searches never add a blacklisted arc and keep every whitelisted one;
the constraint-based learners never test a pair blacklisted both ways and orient the lists'
arcs first.

Examples
--------
>>> tiers_to_blacklist([["age", "sex"], ["smoking"], ["cancer"]])[:3]
[('smoking', 'age'), ('smoking', 'sex'), ('cancer', 'age')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["tiers_to_blacklist", "blacklist_from"]


def _names(values, what: str) -> list[str]:
    if isinstance(values, str):
        return [values]
    try:
        return list(values)
    except TypeError:
        raise TypeError(f"{what} must be a list of variable names, got {values!r}") from None


def tiers_to_blacklist(tiers: Sequence[Iterable[str]]) -> list[tuple[str, str]]:
    """Every arc from a later tier into an earlier one (bnlearn's ``tiers2blacklist``): with
    tiers in temporal order, nothing later can cause anything earlier. Arcs within a tier
    stay allowed.

    Parameters
    ----------
    tiers : sequence of lists of names (a single name is a tier of one)
    """
    if isinstance(tiers, (str, bytes)):
        raise TypeError("tiers must be a sequence of tiers (lists of names), not a string")
    levels = [_names(tier, "each tier") for tier in tiers]
    seen: dict[str, int] = {}
    for i, level in enumerate(levels):
        for name in level:
            if name in seen:
                raise ValueError(f"{name!r} is in tiers {seen[name]} and {i}; a node has one tier")
            seen[name] = i
    return [
        (late, early)
        for i, level in enumerate(levels)
        for late in level
        for earlier in levels[:i]
        for early in earlier
    ]


def blacklist_from(
    nodes: Sequence[str],
    *,
    tiers: Sequence[Iterable[str]] = (),
    roots: Iterable[str] = (),
    leaves: Iterable[str] = (),
    blacklist: Iterable[tuple[str, str]] = (),
) -> list[tuple[str, str]]:
    """One blacklist holding ``blacklist``, the tiers' arcs (:func:`tiers_to_blacklist`),
    every arc into a root and every arc out of a leaf, without repeats, for any learner's
    ``blacklist=``.

    Examples
    --------
    >>> blacklist_from(["a", "b", "c"], roots=["a"], leaves=["c"])
    [('b', 'a'), ('c', 'a'), ('c', 'b')]
    """
    nodes = list(nodes)
    known = set(nodes)
    roots, leaves = _names(roots, "roots"), _names(leaves, "leaves")
    arcs = [tuple(arc) for arc in blacklist] + tiers_to_blacklist(tiers)
    for what, names in (
        ("tiers", [n for tier in tiers for n in _names(tier, "each tier")]),
        ("roots", roots),
        ("leaves", leaves),
    ):  # a tier alone makes no arc, so its names are checked here, not through the arcs
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"{what} name {unknown[0]!r}, which is not a node")
    arcs += [(u, r) for r in roots for u in nodes if u != r]
    arcs += [(leaf, v) for leaf in leaves for v in nodes if v != leaf]
    for u, v in arcs:
        for name in (u, v):
            if name not in known:
                raise ValueError(f"{name!r} is not a node (knowledge names unknown node)")
    return list(dict.fromkeys(arcs))
