"""bnlearn's propagation of arc directions after the colliders (step 3 of ``cpdag()`` in
bnlearn 5.2.1's ``src/graphs/rinterface/cpdag.c``, which its constraint-based learners run
with ``fix = TRUE``), for the learners' ``orientation="bnlearn"``.

Where the colliders leave a pattern that is a valid CPDAG, this gives what Meek's rules give.
Where they do not (conflicting colliders, sampling noise), bnlearn scans the matrix in its
column order and settles some edges as undirected ("fixed") where one direction would add a
v-structure and the other a cycle; Meek's rules leave or orient those differently. bnfs's
default (:func:`bnfs.constraint._orient.meek`) is the textbook closure; this is there so that
bnlearn's graphs can be reproduced arc for arc.

The matrix ``a[i, j]`` holds the arc i -> j: 0 absent, 1 present, 2 fixed, 3 immutable (an
arc the lists fix); an undirected edge is present both ways. Rules only change edges present
and not fixed both ways. One quirk is kept on purpose: bnlearn's step 3b tests the same
condition twice, so an edge whose other direction alone would add a v-structure is left
alone.
"""

from __future__ import annotations

import numpy as np

ABSENT, PRESENT, FIXED, IMMUTABLE = 0, 1, 2, 3


def propagate(a: np.ndarray, lists: bool = False) -> np.ndarray:
    """Steps 1c-3 of bnlearn's ``cpdag(fix = TRUE)`` on ``a`` (in place; returned 0/1).

    ``a`` holds the colliders already applied and the lists' arcs marked ``IMMUTABLE``;
    ``lists`` says a black- or whitelist was given, which makes bnlearn re-run its collider
    marking (step 2) after fixing the directed arcs.
    """
    n = len(a)
    collider = _colliders(a)
    directed = (a == PRESENT) & (a.T == ABSENT)
    a[directed] = FIXED
    if lists:
        _mark_colliders(a, collider)
        _unmark_shielded(a, collider)
    for _ in range(n * n):
        changed = _prevent_cycles(a)
        changed |= _prevent_additional_vstructures(a)
        changed |= _prevent_conflicts(a)
        changed |= _prevent_chains(a)
        if not changed:
            break
    a[a > 1] = 1
    return a


def _colliders(a) -> np.ndarray:
    """Step 1a: nodes with at least two parents."""
    directed = (a >= PRESENT) & (a.T == ABSENT)
    return directed.sum(axis=0) >= 2


def _mark_colliders(a, collider) -> None:
    """Step 2 as it acts once the directed arcs are fixed: an undirected edge between two
    collider centres is fixed undirected."""
    n = len(a)
    for j in range(n):
        if collider[j]:
            for i in range(n):
                if i != j and a[i, j] == PRESENT and a[j, i] == PRESENT and collider[i]:
                    a[i, j] = a[j, i] = FIXED


def _unmark_shielded(a, collider) -> None:
    """A fixed arc into a collider centre that is in no unshielded collider (nor in one of
    two immutable arcs) becomes undirected again."""
    n = len(a)
    for i in range(n):
        if not collider[i]:
            continue
        for j in range(n):
            if a[j, i] not in (FIXED, IMMUTABLE):
                continue
            marked = any(
                a[k, i] in (FIXED, IMMUTABLE)
                and j != k
                and (
                    (a[j, k] == ABSENT and a[k, j] == ABSENT)
                    or (a[j, i] == IMMUTABLE and a[k, i] == IMMUTABLE)
                )
                for k in range(n)
            )
            if not marked and a[j, i] == FIXED:
                a[j, i] = a[i, j] = PRESENT


def _open(a, i: int, j: int) -> bool:
    """i - j is undirected and not fixed."""
    return a[i, j] == PRESENT and a[j, i] == PRESENT


def _directed_path(a, start: int, stop: int) -> bool:
    """A directed path start -> ... -> stop (any non-zero arc whose reverse is absent)."""
    arcs = (a != ABSENT) & (a.T == ABSENT)
    seen = {start}
    frontier = [start]
    while frontier:
        u = frontier.pop()
        if u == stop:
            return True
        for v in np.flatnonzero(arcs[u]):
            if v not in seen:
                seen.add(int(v))
                frontier.append(int(v))
    return False


def _creates_unshielded_collider(a, j: int, i: int) -> bool:
    """Would j -> i make a v-structure k -> i <- j with k, j not adjacent?"""
    for k in range(len(a)):
        if k in (i, j):
            continue
        if a[k, i] >= PRESENT and a[i, k] == ABSENT and a[k, j] == ABSENT and a[j, k] == ABSENT:
            return True
    return False


def _prevent_cycles(a) -> bool:
    """Step 3a (Meek's rule 2): an open edge i - j with a directed path i -> ... -> j
    becomes i -> j, or fixed undirected if i -> j would add a v-structure at j."""
    n = len(a)
    changed = False
    for j in range(n):
        for i in range(n):
            if not _open(a, i, j) or not _directed_path(a, i, j):
                continue
            if _creates_unshielded_collider(a, i, j):
                a[i, j] = a[j, i] = FIXED
            else:
                a[i, j], a[j, i] = FIXED, ABSENT
            changed = True
    return changed


def _prevent_additional_vstructures(a) -> bool:
    """Step 3b (Meek's rule 1): around a node with both parents and open edges, turn the
    open edges into arcs that add no v-structure, or fix them undirected when both
    directions would (or the safe one closes a cycle)."""
    n = len(a)
    present = a != ABSENT
    open_ = (a.T == PRESENT) & present
    has_neighbour = open_.any(axis=0)
    has_parent = (present & ~(a.T == PRESENT)).any(axis=0)
    changed = False
    for j in range(n):
        if not (has_parent[j] and has_neighbour[j]):
            continue
        for i in range(n):
            if not (a[i, j] != ABSENT and a[j, i] == PRESENT):
                continue
            if has_parent[i]:
                unshielded_i = _creates_unshielded_collider(a, j, i)
                unshielded_j = _creates_unshielded_collider(a, i, j)
                if unshielded_j and not unshielded_i:
                    if _directed_path(a, i, j):
                        a[i, j] = a[j, i] = FIXED
                    else:
                        a[i, j], a[j, i] = ABSENT, FIXED
                    changed = True
                elif unshielded_i and unshielded_j:
                    a[i, j] = a[j, i] = FIXED
                    changed = True
            elif _creates_unshielded_collider(a, i, j):
                if _directed_path(a, i, j):
                    a[i, j] = a[j, i] = FIXED
                else:
                    a[i, j], a[j, i] = ABSENT, FIXED
                changed = True
    return changed


def _prevent_conflicts(a) -> bool:
    """Step 3c (Meek's rule 3): open i - j with i - k1 -> j and i - k2 -> j, k1 and k2 not
    adjacent, becomes i -> j (one per row i)."""
    n = len(a)
    changed = False
    for i in range(n):
        for j in range(n):
            if i == j or not _open(a, i, j):
                continue
            chain = [
                k
                for k in range(n)
                if k not in (i, j) and _open(a, i, k) and a[k, j] >= PRESENT and a[j, k] == ABSENT
            ]
            if any(
                a[k, m] == ABSENT and a[m, k] == ABSENT
                for x, k in enumerate(chain)
                for m in chain[x + 1 :]
            ):
                a[i, j], a[j, i] = FIXED, ABSENT
                changed = True
                break
    return changed


def _prevent_chains(a) -> bool:
    """Step 3d (Meek's rule 4): open i - j with i - k -> l -> j, i - l and k, j not adjacent,
    becomes i -> j (one per row i)."""
    n = len(a)
    changed = False
    for i in range(n):
        for j in range(n):
            if i == j or not _open(a, i, j):
                continue
            if _find_chain(a, i, j):
                a[i, j], a[j, i] = FIXED, ABSENT
                changed = True
                break
    return changed


def _find_chain(a, i: int, j: int) -> bool:
    n = len(a)
    for k in range(n):
        if not (a[i, k] >= PRESENT and a[k, i] >= PRESENT):
            continue
        for m in range(n):
            if (
                a[k, m] >= PRESENT
                and a[m, k] == ABSENT
                and a[m, j] >= PRESENT
                and a[j, m] == ABSENT
                and a[i, m] >= PRESENT
                and a[m, i] >= PRESENT
                and a[k, j] == ABSENT
                and a[j, k] == ABSENT
            ):
                return True
    return False
