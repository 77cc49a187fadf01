"""Kernels of the screen-based search (Goldenberg & Moore 2004): indicator matrix,
pairwise gains and the greedy insertion of the sorted edge dump; and the pairwise measures
(mutual information, correlation ratio) that choose each node's candidate partners on wide
data."""

import math

import numpy as np
from numba import prange

import bnfs._kernels.dispatch as _g
import bnfs._kernels.order as _o
import bnfs._kernels.score_cache as _c
import bnfs._kernels.scores as _s
from bnfs._kernels._compile import njit

EPS = 1e-9
#: relative to the local score: gains closer than this are tied (rounding)
TIE = 1e-9


@njit(cache=True)
def indicator_csc(codes, marked):
    """CSC arrays (indptr, indices) of the rows where ``codes[:, j] == marked[j]`` is False,
    i.e. where column j is "on" (``marked`` holds the "off" code of each column)."""
    n_rows, n_cols = codes.shape
    indptr = np.zeros(n_cols + 1, dtype=np.int64)
    for j in range(n_cols):
        m = 0
        off = marked[j]
        for i in range(n_rows):
            if codes[i, j] != off:
                m += 1
        indptr[j + 1] = indptr[j] + m
    indices = np.empty(indptr[n_cols], dtype=np.int32)
    for j in range(n_cols):
        t = indptr[j]
        off = marked[j]
        for i in range(n_rows):
            if codes[i, j] != off:
                indices[t] = i
                t += 1
    return indptr, indices


@njit(parallel=True, cache=True)
def pair_gains(scoring, scratch, pairs, empty_score, out):
    """``out[p, 0]`` = gain of ``i -> j`` and ``out[p, 1]`` = gain of ``j -> i`` over the
    empty graph, for ``pairs[p] = (i, j)`` (general discrete data), the pairs dealt to the
    scratch rows (one per thread)."""
    m = pairs.shape[0]
    n_chunks = min(scratch.cfg2.shape[0], m)
    if n_chunks <= 1:  # no parallel region: idle threads would spin beside other workers
        _pair_gains_range(scoring, scratch, 0, pairs, empty_score, out, 0, 1)
        return
    for chunk in prange(n_chunks):
        _pair_gains_range(scoring, scratch, chunk, pairs, empty_score, out, chunk, n_chunks)


@njit(cache=True)
def _pair_gains_range(scoring, scratch, row, pairs, empty_score, out, first, step):
    cfg, counts = scratch.cfg2[row], scratch.counts[row]
    parent = np.empty(1, dtype=np.int64)
    for p in range(first, pairs.shape[0], step):
        i, j = pairs[p, 0], pairs[p, 1]
        parent[0] = i
        out[p, 0] = _g.family_score(scoring, j, parent, 1, cfg, counts) - empty_score[j]
        parent[0] = j
        out[p, 1] = _g.family_score(scoring, i, parent, 1, cfg, counts) - empty_score[i]


@njit(cache=True)
def insert_edges(scoring, scratch, graph, order, forbidden, pairs, start):
    """Walk the sorted edge dump once: add each pair in the direction that raises the
    current score more (a tie within rounding: first to second), if it does, fits
    ``max_parents``, is not forbidden (a typed dict keyed by ``u * n + v``) and closes no
    cycle. The arc pool must have a free row per pair. Starts at pair ``start``; returns
    (arcs added, pair reached), stopping early before an addition that would overflow the
    parent table so the caller can widen it and resume."""
    parents, npar, phash, node_score = graph.parents, graph.npar, graph.phash, graph.node_score
    max_parents = graph.max_parents
    pos, node_at, heads, arcs = order.pos, order.node_at, order.heads, order.arcs
    meta, mark, work = order.meta, order.mark, order.work
    n = parents.shape[0]
    width = parents.shape[1]
    added = 0
    for p in range(start, pairs.shape[0]):
        i, j = pairs[p, 0], pairs[p, 1]
        if _o.find_arc(heads, arcs, i, j) != -1 or _o.find_arc(heads, arcs, j, i) != -1:
            continue
        best, src, dst = EPS, -1, -1
        for d in range(2):
            u, v = (i, j) if d == 0 else (j, i)
            if npar[v] >= max_parents or (u * n + v) in forbidden:
                continue
            new = _c.score_with(scoring, scratch, v, parents, npar, phash, u, -1)
            # the second direction wins only by more than rounding: a score-equivalent
            # tie goes to the pair's first node as parent
            if new - node_score[v] > best + (TIE * max(1.0, abs(new)) if src >= 0 else 0.0):
                best, src, dst = new - node_score[v], u, v
        if src < 0:
            continue
        if npar[dst] == width:
            return added, p
        if not _o.pk_try_add(pos, node_at, heads, arcs, meta, mark, work, src, dst):
            u, v = dst, src  # the other direction, if it also improves
            if npar[v] >= max_parents or (u * n + v) in forbidden:
                continue
            if npar[v] == width:
                return added, p
            new = _c.score_with(scoring, scratch, v, parents, npar, phash, u, -1)
            if new - node_score[v] <= EPS or not _o.pk_try_add(
                pos, node_at, heads, arcs, meta, mark, work, u, v
            ):
                continue
            src, dst = u, v
        new = _c.score_with(scoring, scratch, dst, parents, npar, phash, src, -1)
        parents[dst, npar[dst]] = src
        npar[dst] += 1
        phash[dst] ^= _c.parent_key(src)
        node_score[dst] = new
        added += 1
    return added, pairs.shape[0]


@njit(cache=True)
def binary_pair_gains(n11, on_i, on_j, n_rows, kind, iss, out):
    """Pair gains for two binary columns from their co-occurrence count ``n11`` and "on"
    counts alone (no pass over the data): the 2 x 2 table is determined by them."""
    with_parent = np.empty((2, 2))
    alone = np.empty((1, 2))
    for p in range(n11.shape[0]):
        both, ci, cj = n11[p], on_i[p], on_j[p]
        # rows: state of the parent; columns: state of the child
        for d in range(2):
            a, b = (ci, cj) if d == 0 else (cj, ci)  # a: parent's on count, b: child's
            with_parent[1, 1] = both
            with_parent[1, 0] = a - both
            with_parent[0, 1] = b - both
            with_parent[0, 0] = n_rows - a - b + both
            alone[0, 1] = b
            alone[0, 0] = n_rows - b
            out[p, d] = _s.score_table(with_parent, kind, iss, n_rows) - _s.score_table(
                alone, kind, iss, n_rows
            )


@njit(cache=True)
def mutual_information(codes, arities, out):
    """``out[i, j]`` = the empirical mutual information (nats) of discrete columns ``i`` and
    ``j`` of ``codes`` (``out[i, i]`` = 0): the log-likelihood gain per row of either as
    the other's only parent, by maximum likelihood."""
    n_rows, d = codes.shape
    top = 1
    for j in range(d):
        top = max(top, arities[j])
    table = np.zeros(top * top, dtype=np.int64)
    left = np.zeros(top, dtype=np.int64)
    right = np.zeros(top, dtype=np.int64)
    for i in range(d):
        out[i, i] = 0.0
        for j in range(i + 1, d):
            a, b = arities[i], arities[j]
            table[: a * b] = 0
            left[:a] = 0
            right[:b] = 0
            for r in range(n_rows):
                x, y = codes[r, i], codes[r, j]
                table[x * b + y] += 1
                left[x] += 1
                right[y] += 1
            value = 0.0
            for x in range(a):
                for y in range(b):
                    c = table[x * b + y]
                    if c > 0:
                        value += c * math.log(c * n_rows / (left[x] * right[y]))
            out[i, j] = out[j, i] = max(value / n_rows, 0.0)


@njit(cache=True)
def correlation_ratio(group, levels, values, out):
    """``out[j]`` = eta squared of continuous column ``j`` of ``values`` given the discrete
    ``group`` codes (``levels`` of them): the share of its variance between the groups' means,
    the R squared of regressing it on the group."""
    n_rows, c = values.shape
    size = np.zeros(levels)
    for r in range(n_rows):
        size[group[r]] += 1.0
    sums = np.zeros(levels)
    for j in range(c):
        sums[:] = 0.0
        total = 0.0
        squares = 0.0
        for r in range(n_rows):
            x = values[r, j]
            sums[group[r]] += x
            total += x
            squares += x * x
        mean = total / n_rows
        spread = squares - n_rows * mean * mean
        between = 0.0
        for g in range(levels):
            if size[g] > 0:
                between += sums[g] * sums[g] / size[g]
        between -= n_rows * mean * mean
        out[j] = min(max(between / spread, 0.0), 1.0) if spread > 0 else 0.0
