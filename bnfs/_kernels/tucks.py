"""Kernels of GRaSP's move (Lam, Andrews & Ramsey 2022): the tuck of one arc ``x -> y`` of
the DAG an order gives (``x`` and its ancestors among the nodes between move before ``y``),
the parents of the tucked stretch rescored by grow-shrink (:mod:`bnfs._kernels.permutation`,
whose trees and bundles these kernels share), and the depth-first scan over tucks that
GRaSP's levels run (:func:`scan`), resumable when a tree pool fills or the search pauses.

Bundles written here: :class:`Placement`, an order and the DAG it gives, which the tucks
update in place; :class:`Frame`, one level of GRaSP's depth-first search.
"""

from collections import namedtuple

import numpy as np

from bnfs._kernels._compile import njit
from bnfs._kernels.permutation import TOL, TREES_FULL, grow_shrink

#: an order and its DAG: the ``order``, each node's position in it (``place``), each node's
#: parents (rows of ``parents``, counts ``npar``) and local score (``scores``); ``mark`` and
#: ``stack`` are scratch for :func:`tuck`, ``segment`` the tucked stretch of the order
Placement = namedtuple(
    "Placement", ["order", "place", "parents", "npar", "scores", "mark", "stack", "segment"]
)

#: one level of GRaSP's depth-first search: the order when the level began (``nodes``, whose
#: parents are tucked in turn), the current node's parents by place (``cand``), the stretch
#: of the order a tuck replaced (``saved``) and the level's counters (``cursor``, slots below)
Frame = namedtuple("Frame", ["nodes", "cand", "saved", "cursor"])

#: what :func:`tuck` reports besides :data:`TREES_FULL`: the order was tucked and rescored,
#: or the tuck was not allowed and nothing changed
TUCKED, SKIPPED = 0, 1
#: what :func:`scan` reports besides :data:`TREES_FULL`: a tuck raised the score (it is
#: kept); a tuck kept the score (it is kept until the next call, which undoes it unless the
#: caller first opens a deeper level); every tuck of the level was tried; the call's share
#: of tucks is used up (call again to go on)
IMPROVED, EQUAL, EXHAUSTED, PAUSED = 1, 2, 3, 4
#: slots of ``Frame.cursor``: the node whose parents are being tucked (index into
#: ``nodes``; -1 before the first), the next of its parents (index into ``cand``) and their
#: number, the tucked stretch ``LO..HI``, what is pending, the tucked arc ``X -> Y``, the
#: tucks tried and the order's score after the last tuck
Y_AT, X_AT, N_CAND, LO, HI, PENDING, X, Y, TUCKS = range(9)
CURSOR_SLOTS = 9
#: ``Frame.cursor[PENDING]``: nothing; a tuck to undo; a tuck whose rescoring a full tree
#: pool interrupted
NOTHING, UNDO, RESCORE = 0, 1, 2


@njit(cache=True)
def rescore(scoring, know, ws, trees, pl, lo, hi):
    """Parents and local scores of the nodes at positions ``lo..hi`` of ``pl.order`` given the
    nodes before each (their ``place`` updated); returns the order's score, NaN when a tree
    pool is full (calling again after making room finishes the job)."""
    ws.allowed[:] = False
    for k in range(lo):
        ws.allowed[pl.order[k]] = True
    for k in range(lo, hi + 1):
        v = pl.order[k]
        pl.place[v] = k
        score, npar = grow_shrink(scoring, know, ws, trees, v)
        if npar == TREES_FULL:
            return np.nan
        pl.scores[v] = score
        pl.npar[v] = npar
        for t in range(npar):
            pl.parents[v, t] = ws.par[t]
        ws.allowed[v] = True
    total = 0.0
    for v in range(pl.scores.shape[0]):
        total += pl.scores[v]
    return total


@njit(cache=True)
def covered(pl, x, y):
    """Whether the arc ``x -> y`` of the placement's DAG is covered: the parents of ``y``
    are ``x`` and the parents of ``x``."""
    if pl.npar[y] != pl.npar[x] + 1:
        return False
    for k in range(pl.npar[x]):
        found = False
        for t in range(pl.npar[y]):
            if pl.parents[y, t] == pl.parents[x, k]:
                found = True
                break
        if not found:
            return False
    return True


@njit(cache=True)
def tuck(scoring, know, ws, trees, pl, x, y, uncovered, nonsingular, seen):
    """GRaSP's tuck of the arc ``x -> y`` (Lam, Andrews & Ramsey 2022): with ``x`` at
    position i and ``y`` at j, the stretch i..j becomes the ancestors of ``y`` found in it
    (in their order), ``y``, ``x``, then the rest (in their order); the stretch is rescored.

    Returns (status, covered, i, j, the new order's score). The tuck is skipped
    (:data:`SKIPPED`, nothing changed) when the arc is required; when it is uncovered and
    ``uncovered`` is False; when it is covered and ``seen``; when it is non-singular (an
    ancestor of ``y`` that moves is a child of ``x``) and ``nonsingular`` is False, or
    when that child's arc from ``x`` is required. The status is :data:`TREES_FULL` when a
    tree pool filled up during the rescoring: the order is tucked, and :func:`rescore` of
    i..j finishes it."""
    is_covered = covered(pl, x, y)
    i, j = pl.place[x], pl.place[y]
    if know.required[x, y] or (is_covered and seen) or (not is_covered and not uncovered):
        return SKIPPED, is_covered, i, j, np.nan
    mark, stack = pl.mark, pl.stack
    mark[y] = True
    stack[0] = y
    top = 1
    while top > 0:  # the ancestors of y after x (the earlier ones do not move)
        top -= 1
        v = stack[top]
        for t in range(pl.npar[v]):
            u = pl.parents[v, t]
            if pl.place[u] > i and not mark[u]:
                mark[u] = True
                stack[top] = u
                top += 1
    allowed = True
    for k in range(i + 1, j):
        z = pl.order[k]
        if mark[z] and (know.required[x, z] or not nonsingular):
            for t in range(pl.npar[z]):
                if pl.parents[z, t] == x:
                    allowed = False
                    break
    if allowed:
        size = 0
        for k in range(i + 1, j):
            if mark[pl.order[k]]:
                pl.segment[size] = pl.order[k]
                size += 1
        pl.segment[size] = y
        pl.segment[size + 1] = x
        size += 2
        for k in range(i + 1, j):
            if not mark[pl.order[k]]:
                pl.segment[size] = pl.order[k]
                size += 1
    for k in range(i, j + 1):
        mark[pl.order[k]] = False
    if not allowed:
        return SKIPPED, is_covered, i, j, np.nan
    for k in range(size):
        pl.order[i + k] = pl.segment[k]
    total = rescore(scoring, know, ws, trees, pl, i, j)
    return (TREES_FULL if np.isnan(total) else TUCKED), is_covered, i, j, total


@njit(cache=True)
def _undo(scoring, know, ws, trees, pl, frame):
    """Put back the stretch of the order the frame's last tuck replaced; False when a tree
    pool filled up (calling again finishes it)."""
    lo, hi = frame.cursor[LO], frame.cursor[HI]
    for k in range(hi - lo + 1):
        pl.order[lo + k] = frame.saved[k]
    if np.isnan(rescore(scoring, know, ws, trees, pl, lo, hi)):
        return False
    frame.cursor[PENDING] = NOTHING
    return True


@njit(cache=True)
def scan(scoring, know, ws, trees, pl, frame, start, level, depths, path, n_path, share):
    """One level of GRaSP's depth-first search (Lam, Andrews & Ramsey 2022), resumable: the
    arcs ``x -> y`` of the order's DAG, ``y`` along ``frame.nodes`` and ``x`` among its
    parents by place, are tucked in turn (:func:`tuck`) until one raises the order's score
    above ``start`` (:data:`IMPROVED`) or keeps it while ``level < depths[0]``
    (:data:`EQUAL`, for the caller to open level + 1); other tucks are undone. Uncovered
    tucks are tried up to level ``depths[1]``, non-singular ones up to ``depths[2]``; a
    covered tuck of a pair in ``path[:n_path]`` (the tucks that led here) is not tried.
    At most ``share`` tucks per call (:data:`PAUSED`); :data:`TREES_FULL` when a tree pool
    is full (make room and call again); :data:`EXHAUSTED` when every arc was tried. The
    order's score after a tuck is :func:`order_score` of the placement."""
    cursor = frame.cursor
    n = pl.order.shape[0]
    if cursor[PENDING] == UNDO:
        if not _undo(scoring, know, ws, trees, pl, frame):
            return TREES_FULL
    tol = TOL * max(1.0, abs(start))
    done = 0
    while True:
        if cursor[PENDING] == RESCORE:
            total = rescore(scoring, know, ws, trees, pl, cursor[LO], cursor[HI])
            if np.isnan(total):
                return TREES_FULL
            cursor[PENDING] = NOTHING
        else:
            if cursor[Y_AT] < 0 or cursor[X_AT] >= cursor[N_CAND]:
                cursor[Y_AT] += 1
                if cursor[Y_AT] >= n:
                    return EXHAUSTED
                y = frame.nodes[cursor[Y_AT]]
                m = pl.npar[y]
                for k in range(m):  # the parents by place (insertion sort)
                    u = pl.parents[y, k]
                    t = k
                    while t > 0 and pl.place[frame.cand[t - 1]] > pl.place[u]:
                        frame.cand[t] = frame.cand[t - 1]
                        t -= 1
                    frame.cand[t] = u
                cursor[X_AT] = 0
                cursor[N_CAND] = m
                continue
            if done >= share:
                return PAUSED
            y = frame.nodes[cursor[Y_AT]]
            x = frame.cand[cursor[X_AT]]
            cursor[X_AT] += 1
            seen = False
            for k in range(n_path):
                if (path[k, 0] == x and path[k, 1] == y) or (path[k, 0] == y and path[k, 1] == x):
                    seen = True
            lo, hi = pl.place[x], pl.place[y]
            for k in range(hi - lo + 1):
                frame.saved[k] = pl.order[lo + k]
            status, _, lo, hi, total = tuck(
                scoring, know, ws, trees, pl, x, y, level <= depths[1], level <= depths[2], seen
            )
            if status == SKIPPED:
                continue
            done += 1
            cursor[TUCKS] += 1
            cursor[LO], cursor[HI], cursor[X], cursor[Y] = lo, hi, x, y
            if status == TREES_FULL:
                cursor[PENDING] = RESCORE
                return TREES_FULL
        if total > start + tol:
            return IMPROVED
        cursor[PENDING] = UNDO
        if level < depths[0] and abs(total - start) <= tol:
            return EQUAL
        if not _undo(scoring, know, ws, trees, pl, frame):
            return TREES_FULL


@njit(cache=True)
def order_score(pl):
    """The sum of the placement's local scores."""
    total = 0.0
    for v in range(pl.scores.shape[0]):
        total += pl.scores[v]
    return total
