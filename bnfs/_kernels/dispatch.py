"""The local scores the compiled searches call, dispatched on the data's type so that one
search kernel scores discrete codes, linear-Gaussian data (:mod:`bnfs._kernels.covariance`)
and conditional-Gaussian data (:mod:`bnfs._kernels.conditional_gaussian`).

Each takes a :class:`~bnfs._kernels.score_cache.Scoring`. Discrete data come as integer
``codes`` (rows by variables) with their ``arities``; float
data as the covariance matrix with [rows, variables] (``kind`` < CG) or as the
conditional-Gaussian table with the arities (``kind`` >= CG). numba overloads pick the
discrete or the float path at compile time, and leave out the paths that read a part of the
``Scoring`` that is None (:func:`~bnfs._kernels.score_cache.scoring_of` sets them): without
``weights`` the weighted counts, without ``levels`` the conditional-Gaussian scores. A first search of unweighted discrete or linear-Gaussian data
compiles only its own path (``benchmarks/startup.py --kernels``); where the part is an
array, the ``kind`` and the weights' length pick the path at run time, as before.
"""

from numba import types
from numba.extending import overload

import bnfs._kernels.configurations as _cfg
import bnfs._kernels.scores as _s
from bnfs._kernels._compile import njit
from bnfs._kernels.conditional_gaussian import CG, cg_score
from bnfs._kernels.covariance import covariance_score


@njit(cache=True)
def continuous_score(data, aux, levels, weights, node, parents, n_par, kind, iss):
    """The local score of float data: conditional-Gaussian (``kind`` >= CG; ``data`` the
    variables-by-rows table, ``aux`` the arities, ``levels`` the per-level statistics of
    :func:`~bnfs._kernels.conditional_gaussian.level_scatter` or empty, ``weights`` the
    rows' weights or empty) or linear-Gaussian (``data`` the covariance, ``aux`` the rows;
    weighted rows are already in the covariance)."""
    if kind >= CG:
        return cg_score(data, aux, levels, weights, node, parents, n_par, kind)
    return covariance_score(data, aux, node, parents, n_par, kind, iss)


def _float_data(scoring) -> bool:
    """Whether the numba type of a :class:`~bnfs._kernels.score_cache.Scoring` holds float
    data (Gaussian statistics) rather than discrete codes."""
    codes = scoring.types[scoring.fields.index("codes")]
    return isinstance(codes.dtype, types.Float)


def _holds(scoring, field: str) -> bool:
    """Whether a :class:`~bnfs._kernels.score_cache.Scoring` (its numba type, or the tuple
    itself in a pure-Python run) carries ``field`` rather than None."""
    if isinstance(scoring, tuple):
        return getattr(scoring, field) is not None
    return not isinstance(scoring.types[scoring.fields.index(field)], types.NoneType)


def family_score(scoring, node, parents, n_par, cfg, counts):
    """Local score of ``node`` given ``parents[:n_par]`` under ``scoring`` (a
    :class:`~bnfs._kernels.score_cache.Scoring`), discrete or Gaussian by the type of its
    codes. Compiled callers get the overload below; this body serves the pure-Python runs
    (``NUMBA_DISABLE_JIT=1``)."""
    s = scoring
    if s.codes.dtype.kind == "f":
        if not _holds(s, "levels"):
            return covariance_score(s.codes, s.arities, node, parents, n_par, s.kind, s.iss)
        return continuous_score(
            s.codes, s.arities, s.levels, s.weights, node, parents, n_par, s.kind, s.iss
        )
    if not _holds(s, "weights"):
        return _s.local_score(s.codes, s.arities, node, parents, n_par, s.kind, s.iss, cfg, counts)
    return discrete_score(scoring, node, parents, n_par, cfg, counts)


@overload(family_score)
def _family_score(scoring, node, parents, n_par, cfg, counts):
    if _float_data(scoring) and not _holds(scoring, "levels"):  # linear-Gaussian
        return lambda scoring, node, parents, n_par, cfg, counts: covariance_score(
            scoring.codes, scoring.arities, node, parents, n_par, scoring.kind, scoring.iss
        )
    if _float_data(scoring):
        return lambda scoring, node, parents, n_par, cfg, counts: continuous_score(
            scoring.codes,
            scoring.arities,
            scoring.levels,
            scoring.weights,
            node,
            parents,
            n_par,
            scoring.kind,
            scoring.iss,
        )
    if not _holds(scoring, "weights"):
        return lambda scoring, node, parents, n_par, cfg, counts: _s.local_score(
            scoring.codes,
            scoring.arities,
            node,
            parents,
            n_par,
            scoring.kind,
            scoring.iss,
            cfg,
            counts,
        )
    return lambda scoring, node, parents, n_par, cfg, counts: discrete_score(
        scoring, node, parents, n_par, cfg, counts
    )


@njit(cache=True)
def discrete_score(scoring, node, parents, n_par, cfg, counts):
    """The local score of discrete codes, on weighted rows where ``scoring.weights`` holds
    weights (:func:`bnfs._kernels.scores.weighted_local_score`)."""
    s = scoring
    if s.weights.shape[0] > 0:
        return _s.weighted_local_score(
            s.codes, s.weights, s.arities, node, parents, n_par, s.kind, s.iss, cfg
        )
    return _s.local_score(s.codes, s.arities, node, parents, n_par, s.kind, s.iss, cfg, counts)


def configurations(scoring, scratch, parents, n_par):
    """The parent configurations of the discrete incremental scores, in ``scratch.cfg``,
    and their bound (0 for Gaussian data, which needs none). When a table of one more
    parent could outgrow the counting scratch, the rows are also grouped by configuration
    (``scratch.groups``, :func:`bnfs._kernels.configurations.group_rows`); else the grouping is
    marked absent."""
    if scoring.codes.dtype.kind == "f":
        return 0
    if _holds(scoring, "weights") and scoring.weights.shape[0] > 0:
        return _weighted_configurations(scoring, scratch, parents, n_par)
    return _discrete_configurations(scoring, scratch, parents, n_par)


@overload(configurations)
def _configurations(scoring, scratch, parents, n_par):
    if _float_data(scoring):
        return lambda scoring, scratch, parents, n_par: 0
    if not _holds(scoring, "weights"):
        return lambda scoring, scratch, parents, n_par: _discrete_configurations(
            scoring, scratch, parents, n_par
        )

    def weighted_or_not(scoring, scratch, parents, n_par):
        if scoring.weights.shape[0] > 0:
            return _weighted_configurations(scoring, scratch, parents, n_par)
        return _discrete_configurations(scoring, scratch, parents, n_par)

    return weighted_or_not


@njit(cache=True)
def _discrete_configurations(scoring, scratch, parents, n_par):
    codes, arities = scoring.codes, scoring.arities
    n = codes.shape[0]
    q = _cfg.parent_config(codes, arities, parents, n_par, scratch.cfg)
    # the smallest extension: two levels of a parent, two of the node
    if q > scratch.counts.shape[1] // 4:
        _cfg.group_rows(scratch.cfg, n, scratch.groups)
    else:
        scratch.groups[0, n] = -1
    return q


@njit(cache=True)
def _weighted_configurations(scoring, scratch, parents, n_par):
    """:func:`_discrete_configurations` of weighted rows, which are counted by their own
    path (never grouped)."""
    q = _cfg.parent_config(scoring.codes, scoring.arities, parents, n_par, scratch.cfg)
    scratch.groups[0, scoring.codes.shape[0]] = -1
    return q


@njit(cache=True)
def _with_or_without(parents_v, k, u, removing, tmp):
    m = 0
    for t in range(k):
        if parents_v[t] != u:
            tmp[m] = parents_v[t]
            m += 1
    if not removing:
        tmp[m] = u
        m += 1
    return m


def toggled_score(scoring, scratch, row, v, u, removing, parents_v, k, q):
    """Score of ``v`` with parents ``parents_v[:k]`` minus ``u`` (``removing``) or plus
    ``u``, with row ``row`` of the ``scratch`` (a
    :class:`~bnfs._kernels.score_cache.Scratch`); discrete data reuse the current parents'
    configurations ``scratch.cfg`` (``q`` of them, from :func:`configurations`)."""
    impl = _toggled_score(scoring, scratch, row, v, u, removing, parents_v, k, q)
    return impl(scoring, scratch, row, v, u, removing, parents_v, k, q)


@overload(toggled_score)
def _toggled_score(scoring, scratch, row, v, u, removing, parents_v, k, q):
    if isinstance(scoring, tuple):  # the pure-Python run: look at the data
        floats = scoring.codes.dtype.kind == "f"
    else:
        floats = _float_data(scoring)
    # the paths that read a part left None are not compiled (constants of the closures)
    conditional, weighted = _holds(scoring, "levels"), _holds(scoring, "weights")
    if floats:

        def gaussian(scoring, scratch, row, v, u, removing, parents_v, k, q):
            tmp = scratch.tmp[row]
            m = _with_or_without(parents_v, k, u, removing, tmp)
            if conditional:
                return continuous_score(
                    scoring.codes,
                    scoring.arities,
                    scoring.levels,
                    scoring.weights,
                    v,
                    tmp,
                    m,
                    scoring.kind,
                    scoring.iss,
                )
            return covariance_score(
                scoring.codes, scoring.arities, v, tmp, m, scoring.kind, scoring.iss
            )

        return gaussian

    def discrete(scoring, scratch, row, v, u, removing, parents_v, k, q):
        codes, arities, kind, iss = scoring.codes, scoring.arities, scoring.kind, scoring.iss
        cfg2, counts = scratch.cfg2[row], scratch.counts[row]
        if weighted:
            if scoring.weights.shape[0] > 0:
                if removing:
                    m = _with_or_without(parents_v, k, u, True, scratch.tmp[row])
                    return _s.weighted_local_score(
                        codes, scoring.weights, arities, v, scratch.tmp[row], m, kind, iss, cfg2
                    )
                q_true = _cfg.n_configurations(arities, parents_v, k) * arities[u]
                q2 = _cfg.extend_config(scratch.cfg, q, codes, arities, u, cfg2)
                return _s.weighted_score_config(
                    cfg2, q2, codes, scoring.weights, v, arities[v], q_true, kind, iss
                )
        if removing:
            m = _with_or_without(parents_v, k, u, True, scratch.tmp[row])
            return _s.local_score(codes, arities, v, scratch.tmp[row], m, kind, iss, cfg2, counts)
        q_true = _cfg.n_configurations(arities, parents_v, k) * arities[u]
        r_u, r = arities[u], arities[v]
        size = counts.shape[0]
        if scratch.groups[0, codes.shape[0]] >= 0 and q > size // r // r_u and r_u * r <= size:
            # the table outgrows the scratch: count within the groups of rows instead of
            # sorting the rows' cells
            return _s.score_grouped(
                scratch.groups, codes, u, v, r_u, r, q_true, kind, iss, counts, cfg2
            )
        q2 = _cfg.extend_config(scratch.cfg, q, codes, arities, u, cfg2)
        return _s.score_config(cfg2, q2, codes, v, r, q_true, kind, iss, counts)

    return discrete
