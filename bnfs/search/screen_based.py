"""The screen-based search (Goldenberg & Moore 2004), as Shen, Li & Wong use it."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bnfs._kernels import screen as _k
from bnfs._real_data import takes_real_data
from bnfs._validate import check_int, check_seed
from bnfs.graphs.graph import DAG
from bnfs.search._climbing import prepare
from bnfs.search.post_process import random_post_process
from bnfs.stats.scores import ScoreName
from bnfs.tables._data import Dataset, as_dataset

__all__ = ["screen_based", "co_occurrence", "off_codes"]


def off_codes(data: Dataset) -> np.ndarray:
    """The "off" code of each discrete column: code of 0 / False for 0-1 and boolean
    columns, otherwise the modal (most frequent) code."""
    off = np.empty(len(data.discrete_names), dtype=np.int64)
    for j, name in enumerate(data.discrete_names):
        states = data.states[name]
        zero = [
            i for i, s in enumerate(states) if s is False or (not isinstance(s, str) and s == 0)
        ]
        if len(states) == 2 and zero:
            off[j] = zero[0]
        else:
            off[j] = int(np.argmax(np.bincount(data.codes[:, j], minlength=len(states))))
    return off


def co_occurrence(
    data: Dataset, theta: int = 1, block_cells: int = 20_000_000
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Pairs of columns that are both "on" (see :func:`off_codes`) in at least ``theta``
    rows.

    Returns ``(i, j, count, on, n_co_occurring)``: the kept pairs with ``i < j``, their
    counts, each column's "on" count, and how many pairs co-occur at all. The counts are
    sparse products ``B[:, block].T @ B[:, block start:]`` of the rows x columns indicator
    matrix over blocks of columns, filtered block by block, so memory stays near
    ``block_cells`` entries whatever the number of co-occurring pairs; there is no Python
    loop over pairs.
    """
    indptr, indices = _k.indicator_csc(data.codes, off_codes(data))
    n_rows, n_cols = data.codes.shape
    ones = np.ones(indices.size, dtype=np.int32)
    indicator = sp.csc_matrix((ones, indices, indptr), shape=(n_rows, n_cols))
    width = max(1, block_cells // max(n_cols, 1))
    rows, cols, counts = [], [], []
    co_occurring = 0
    for start in range(0, n_cols, width):
        stop = min(start + width, n_cols)
        block = (indicator[:, start:stop].T.tocsr() @ indicator[:, start:]).tocoo()
        upper = block.col > block.row  # column offsets: col is relative to start too
        co_occurring += int(upper.sum())
        keep = upper & (block.data >= theta)
        rows.append(block.row[keep].astype(np.int64) + start)
        cols.append(block.col[keep].astype(np.int64) + start)
        counts.append(block.data[keep].astype(np.int64))
    cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return cat(rows), cat(cols), cat(counts), np.diff(indptr), co_occurring


@takes_real_data()
def screen_based(
    data,
    score: ScoreName = "bic",
    *,
    theta: int = 4,
    max_parents: int | None = None,
    blacklist=None,
    whitelist=None,
    iss: float = 1.0,
    post_process: int = 0,
    seed=None,
    progress: bool | None = None,
    n_jobs: int | None = None,
) -> DAG:
    """Learn a DAG by the screen-based search for large, sparse data.

    1. *Screen*: count, for every pair of variables, the rows where both are "on" (non-zero
       for 0-1 data; for other discrete data, both take a non-modal value) and keep pairs
       seen at least ``theta`` times.
    2. *Score*: for each kept pair, the gain of the best two-node DAG over the empty one.
    3. *Insert*: walk this edge dump by decreasing gain and add each edge, in the
       direction that helps more, when it raises the score of the current network, keeps
       ``max_parents`` and closes no cycle (Pearce-Kelly order).
    4. Optionally ``post_process`` random hill-climbing operations.

    Parameters
    ----------
    data : discrete data, or a scipy sparse matrix (read as presence / absence)
    score : {"bic", "bde", "bds", "qnml", "k2", "aic", "loglik"}
    theta : int, default 4
        Least co-occurrence count of a pair that is considered.
    max_parents : int, optional
    blacklist, whitelist, iss : as :func:`bnfs.hill_climbing`
    post_process : int, default 0
        Random hill-climbing operations afterwards (the paper: 5,000,000).
    seed : int or numpy.random.Generator
    progress : bool, optional
        A progress bar on stderr: None shows it where stderr is a terminal or a notebook
        (tqdm's widget with ipywidgets), True always, False never.
    n_jobs : int, optional
        Threads for the pair gains (-1: every core); the result is the same for any value.

    Returns
    -------
    DAG
        ``learning`` records pairs screened, kept, arcs inserted and the post-processing.

    Notes
    -----
    Pair counting is one sparse product, its cost set by the number of co-occurring pairs;
    gains of binary pairs come from the counts alone, other pairs need one pass over the
    rows each.

    References
    ----------
    A. Goldenberg and A. Moore, "Tractable learning of large Bayes net structures from sparse
    data", ICML 2004. X. Shen, Y. Li and K. Wong, "Markov blanket feature selection for
    support vector machines", AAAI 2008.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("asia", 5000, seed=0)
    >>> dag = screen_based(frame, theta=4, progress=False)
    >>> dag.learning["algorithm"], dag.n_arcs > 0
    ('screen_based', True)
    """
    data = as_dataset(data)
    data.require_discrete("screen_based")  # its screen counts co-occurring values
    state = prepare(data, score, iss, max_parents, blacklist, whitelist, None, n_jobs)
    theta = check_int(theta, "theta", 1)
    post_process = check_int(post_process, "post_process", 0)
    rng = check_seed(seed)
    disable = None if progress is None else not progress
    data = state.data

    state.set_candidates([np.zeros(0, dtype=np.int64)] * state.n)
    dump, kept_pairs, screened = _edge_dump(state, data, theta)
    added = _insert_edges(state, dump)
    score_after_insert = state.total
    kept = 0
    if post_process:
        kept = random_post_process(state, post_process, rng, progress=disable)
    learning = {
        "score": state.score,
        "arguments": {
            "theta": theta,
            "max_parents": state.max_parents,
            "iss": state.iss,
            "post_process": post_process,
        },
        "n_jobs": state.threads,
        "pairs_co_occurring": int(screened),
        "pairs_kept": kept_pairs,
        "edge_dump": int(dump.shape[0]),
        "arcs_inserted": int(added),
        "score_after_insert": score_after_insert,
        "post_process_kept": kept,
        **state.work_done(),
        "score_value": state.score_value,
    }
    return state.to_dag(learning)


def _edge_dump(state, data, theta: float):
    """The screen: the pairs whose values co-occur often enough (``theta``), each scored by
    its better single-arc gain, those with a positive gain sorted best first (ties in scan
    order). Returns (the pairs as an (m, 2) array, the pairs screened in, the pairs that
    co-occur)."""
    rows, cols, together, on, screened = co_occurrence(data, theta)
    # each pair (first, second) in scan order, so gains and ties do not depend on the
    # order of the columns
    swap = state.rank[rows] > state.rank[cols]
    rows, cols = np.where(swap, cols, rows), np.where(swap, rows, cols)
    pairs = np.column_stack([rows, cols]).astype(np.int64)
    gains = np.empty((pairs.shape[0], 2))
    if pairs.shape[0] and (state.arities == 2).all():
        _k.binary_pair_gains(
            together.astype(np.float64),
            on[rows].astype(np.float64),
            on[cols].astype(np.float64),
            float(data.n_rows),
            state.kind,
            state.iss,
            gains,
        )
    elif pairs.shape[0]:
        _k.pair_gains(state.scoring, state.scratch, pairs, state.node_score, gains)
    best = gains.max(axis=1) if pairs.shape[0] else np.zeros(0)
    positive = best > 1e-9
    pairs, best = pairs[positive], best[positive]
    order = np.lexsort((state.rank[pairs[:, 1]], state.rank[pairs[:, 0]], -best))
    dump = np.ascontiguousarray(pairs[order])
    return dump, int(rows.size), screened


def _insert_edges(state, dump) -> int:
    """Insert the dump's arcs in order where they raise the score and keep the graph
    acyclic (the Pearce-Kelly order checks each); returns how many went in."""
    pk = state.order
    while pk.arcs.shape[0] - pk.n_arcs <= dump.shape[0]:
        pk.grow(2 * pk.arcs.shape[0])
    added, reached = 0, 0
    forbidden = state.arc_dicts()[0]
    while reached < dump.shape[0]:
        more, reached = _k.insert_edges(
            state.scoring, state.scratch, state.graph, pk.arrays, forbidden, dump, reached
        )
        added += more
        if reached < dump.shape[0]:
            state.widen()
    return added
