"""Online topological order of a DAG (Pearce & Kelly 2006) and plain DFS cycle checks.

Everything here is ``@njit(cache=True)`` over plain arrays, so search kernels can keep a
graph acyclic without leaving compiled code. The graph lives in an *arc pool*: arc ``e``
is row ``e`` of ``arcs`` (columns ``SRC, DST, OUT_NEXT, OUT_PREV, IN_NEXT, IN_PREV``),
threaded on a doubly linked out-list of its source and in-list of its target;
``heads[v] = (first out-arc, first in-arc)``. Free rows form a chain through
``OUT_NEXT`` starting at ``meta[FREE]``. Memory is O(n + arcs), so 20,000-node graphs
cost kilobytes, not a dense n x n matrix. The caller grows the pool before adding when
``meta[FREE] == -1`` (see :class:`bnfs.graphs.order.OnlineTopologicalOrder`).

References
----------
D. J. Pearce and P. H. J. Kelly, "A dynamic topological sort algorithm for directed
acyclic graphs", ACM J. Exp. Algorithmics 11, 2006.
"""

from collections import namedtuple

import numpy as np

from bnfs._kernels._compile import njit
from bnfs._kernels.sorting import argsort_stable, sort_inplace

SRC, DST, OUT_NEXT, OUT_PREV, IN_NEXT, IN_PREV = 0, 1, 2, 3, 4, 5
FREE, N_ARCS = 0, 1
OP_ADD, OP_REMOVE, OP_REVERSE = 0, 1, 2

#: the arrays of a Pearce-Kelly order, as the search kernels take them: each node's place
#: (``pos``) and the node at each place (``node_at``), the arc pool (``heads``, ``arcs``,
#: ``meta``) and the searches' scratch (``mark``, ``work``)
Order = namedtuple("Order", ["pos", "node_at", "heads", "arcs", "meta", "mark", "work"])


@njit(cache=True)
def find_arc(heads, arcs, x, y):
    """Row of arc ``x -> y`` in the pool, or -1 (scans the out-list of ``x``)."""
    e = heads[x, 0]
    while e != -1:
        if arcs[e, DST] == y:
            return e
        e = arcs[e, OUT_NEXT]
    return -1


@njit(cache=True)
def link(heads, arcs, meta, x, y):
    """Put arc ``x -> y`` in the pool (a free row must exist); no cycle check."""
    e = meta[FREE]
    meta[FREE] = arcs[e, OUT_NEXT]
    arcs[e, SRC] = x
    arcs[e, DST] = y
    first = heads[x, 0]
    arcs[e, OUT_NEXT] = first
    arcs[e, OUT_PREV] = -1
    if first != -1:
        arcs[first, OUT_PREV] = e
    heads[x, 0] = e
    first = heads[y, 1]
    arcs[e, IN_NEXT] = first
    arcs[e, IN_PREV] = -1
    if first != -1:
        arcs[first, IN_PREV] = e
    heads[y, 1] = e
    meta[N_ARCS] += 1


@njit(cache=True)
def unlink(heads, arcs, meta, x, y):
    """Remove arc ``x -> y``; return False when it is absent."""
    e = find_arc(heads, arcs, x, y)
    if e == -1:
        return False
    nxt, prv = arcs[e, OUT_NEXT], arcs[e, OUT_PREV]
    if prv == -1:
        heads[x, 0] = nxt
    else:
        arcs[prv, OUT_NEXT] = nxt
    if nxt != -1:
        arcs[nxt, OUT_PREV] = prv
    nxt, prv = arcs[e, IN_NEXT], arcs[e, IN_PREV]
    if prv == -1:
        heads[y, 1] = nxt
    else:
        arcs[prv, IN_NEXT] = nxt
    if nxt != -1:
        arcs[nxt, IN_PREV] = prv
    arcs[e, SRC] = -1
    arcs[e, DST] = -1
    arcs[e, OUT_NEXT] = meta[FREE]
    meta[FREE] = e
    meta[N_ARCS] -= 1
    return True


@njit(cache=True)
def _reorder(pos, node_at, nodes, count, first, merged):
    """Give ``nodes[:count]`` (``first`` of them the backward set) the sorted pool of
    their own positions: backward set first, each part kept in its old relative order."""
    keys = np.empty(count, np.int64)
    for i in range(count):
        keys[i] = pos[nodes[i]]
    idx_b = argsort_stable(keys[:first])
    idx_f = argsort_stable(keys[first:])
    for i in range(count):
        merged[i] = keys[i]
    sort_inplace(merged[:count])
    for i in range(first):
        v = nodes[idx_b[i]]
        pos[v] = merged[i]
        node_at[merged[i]] = v
    for i in range(count - first):
        v = nodes[first + idx_f[i]]
        pos[v] = merged[first + i]
        node_at[merged[first + i]] = v


@njit(cache=True)
def pk_try_add(pos, node_at, heads, arcs, meta, mark, work, x, y):
    """Add arc ``x -> y`` keeping ``pos``/``node_at`` a topological order.

    Returns True when the arc is in the graph afterwards (added now or already there) and
    False when it would close a cycle (the graph and order are then unchanged). Only the
    *affected region* ``pos[y] <= pos[w] <= pos[x]`` is searched and reordered.
    ``work`` is an int64 array of shape (3, n) of scratch space, ``mark`` uint8 zeros.
    """
    if x == y:
        return False
    if find_arc(heads, arcs, x, y) != -1:
        return True
    lb = pos[y]
    ub = pos[x]
    if lb > ub:
        link(heads, arcs, meta, x, y)
        return True
    stack = work[0]
    region = work[1]
    merged = work[2]
    # forward search from y inside the region (pos < pos[x]); reaching x is a cycle
    cycle, n_forward = _visit(heads, arcs, mark, stack, region, y, x, pos, ub, 1)
    if cycle:
        _unmark(mark, region, n_forward)
        return False
    # backward search from x inside the region (pos > pos[y]); the two sets are disjoint
    _, n_backward = _visit(heads, arcs, mark, stack, region[n_forward:], x, -1, pos, lb, -1)
    count = n_forward + n_backward
    _unmark(mark, region, count)
    # backward set must come first: rotate region so that it is [backward, forward]
    for i in range(n_forward):
        stack[i] = region[i]
    for i in range(n_backward):
        region[i] = region[n_forward + i]
    for i in range(n_forward):
        region[n_backward + i] = stack[i]
    _reorder(pos, node_at, region, count, n_backward, merged)
    link(heads, arcs, meta, x, y)
    return True


@njit(cache=True)
def ordered_reachable(pos, heads, arcs, mark, work, source, target):
    """Is there a directed path ``source -> ... -> target``, by the Pearce-Kelly order
    ``pos``? None when ``pos[source] > pos[target]``; otherwise a depth-first search that
    only enters nodes placed before ``target`` (every node of such a path is).

    ``work`` is int64 scratch of shape (2, n), ``mark`` uint8 zeros (left zeros).
    """
    if source != target and pos[source] > pos[target]:
        return False
    return _reaches(heads, arcs, mark, work, source, target, pos, True)


@njit(cache=True)
def reachable(heads, arcs, mark, work, source, target):
    """Plain depth-first search: is there a directed path ``source -> ... -> target``?

    ``work`` is int64 scratch of shape (2, n): the stack and the list of marked nodes.
    """
    return _reaches(heads, arcs, mark, work, source, target, work[0], False)


@njit(cache=True)
def _reaches(heads, arcs, mark, work, source, target, pos, bounded):
    """Depth-first search for ``target`` from ``source``; with ``bounded`` it enters only
    nodes ``z`` with ``pos[z] < pos[target]`` (``pos`` is not read otherwise)."""
    if source == target:
        return True
    direction = 1 if bounded else 0
    bound = pos[target] if bounded else 0
    found, n_seen = _visit(
        heads, arcs, mark, work[0], work[1], source, target, pos, bound, direction
    )
    _unmark(mark, work[1], n_seen)
    return found


@njit(cache=True)
def _visit(heads, arcs, mark, stack, seen, source, target, pos, bound, direction):
    """The depth-first search every cycle check runs: from ``source`` along out-arcs
    (``direction`` 1 or 0) or in-arcs (-1), marking and listing in ``seen`` each node it
    enters; with direction 1 only nodes with ``pos < bound``, with -1 only ``pos > bound``,
    with 0 any. Stops on meeting ``target`` (-1: none). Returns (met, nodes listed); the
    caller unmarks them (:func:`_unmark`)."""
    forward = direction >= 0
    stack[0] = source
    seen[0] = source
    mark[source] = 1
    top = 1
    n_seen = 1
    while top > 0:
        top -= 1
        w = stack[top]
        e = heads[w, 0] if forward else heads[w, 1]
        while e != -1:
            z = arcs[e, DST] if forward else arcs[e, SRC]
            if z == target:
                return True, n_seen
            inside = direction == 0 or (pos[z] < bound if forward else pos[z] > bound)
            if mark[z] == 0 and inside:
                mark[z] = 1
                stack[top] = z
                top += 1
                seen[n_seen] = z
                n_seen += 1
            e = arcs[e, OUT_NEXT] if forward else arcs[e, IN_NEXT]
    return False, n_seen


@njit(cache=True)
def _unmark(mark, seen, count):
    for i in range(count):
        mark[seen[i]] = 0


@njit(cache=True)
def dfs_try_add(heads, arcs, meta, mark, work, x, y):
    """Add arc ``x -> y`` unless ``y`` reaches ``x`` (the plain check Pearce-Kelly replaces)."""
    if x == y:
        return False
    if find_arc(heads, arcs, x, y) != -1:
        return True
    if reachable(heads, arcs, mark, work, y, x):
        return False
    link(heads, arcs, meta, x, y)
    return True


@njit(cache=True)
def pk_apply(pos, node_at, heads, arcs, meta, mark, work, ops, accepted):
    """Run a batch of edit operations ``ops[i] = (kind, x, y)`` with the PK order.

    ``kind`` is ``OP_ADD``, ``OP_REMOVE`` or ``OP_REVERSE`` (remove ``x -> y`` then add
    ``y -> x``, restoring ``x -> y`` when that closes a cycle). ``accepted[i]`` is set to 1
    when operation ``i`` changed the graph. Stops early, returning the index reached, when
    the pool has no free row left (the caller grows it and resumes).
    """
    for i in range(ops.shape[0]):
        if meta[FREE] == -1:
            return i
        kind, x, y = ops[i, 0], ops[i, 1], ops[i, 2]
        ok = False
        if kind == OP_ADD:
            if find_arc(heads, arcs, x, y) == -1:
                ok = pk_try_add(pos, node_at, heads, arcs, meta, mark, work, x, y)
        elif kind == OP_REMOVE:
            ok = unlink(heads, arcs, meta, x, y)
        else:
            if unlink(heads, arcs, meta, x, y):
                ok = pk_try_add(pos, node_at, heads, arcs, meta, mark, work, y, x)
                if not ok:
                    link(heads, arcs, meta, x, y)
        accepted[i] = 1 if ok else 0
    return ops.shape[0]


@njit(cache=True)
def dfs_apply(heads, arcs, meta, mark, work, ops, accepted):
    """:func:`pk_apply` with plain DFS reachability checks instead of an order."""
    for i in range(ops.shape[0]):
        if meta[FREE] == -1:
            return i
        kind, x, y = ops[i, 0], ops[i, 1], ops[i, 2]
        ok = False
        if kind == OP_ADD:
            if find_arc(heads, arcs, x, y) == -1:
                ok = dfs_try_add(heads, arcs, meta, mark, work, x, y)
        elif kind == OP_REMOVE:
            ok = unlink(heads, arcs, meta, x, y)
        else:
            if unlink(heads, arcs, meta, x, y):
                ok = dfs_try_add(heads, arcs, meta, mark, work, y, x)
                if not ok:
                    link(heads, arcs, meta, x, y)
        accepted[i] = 1 if ok else 0
    return ops.shape[0]
