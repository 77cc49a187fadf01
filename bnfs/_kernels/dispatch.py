"""The local scores the compiled searches call, dispatched on the data's type so that one
search kernel scores discrete codes, linear-Gaussian data (:mod:`bnfs._kernels.covariance`)
and conditional-Gaussian data (:mod:`bnfs._kernels.conditional_gaussian`).

Discrete data come as integer ``codes`` (rows by variables) with their ``arities``; float
data as the covariance matrix with [rows, variables] (``kind`` < CG) or as the
conditional-Gaussian table with the arities (``kind`` >= CG). numba overloads pick the
discrete or the float path at compile time; the ``kind`` picks the float model at run time.
"""

from numba import types
from numba.extending import overload

from bnfs._kernels import njit
from bnfs._kernels import scores as _s
from bnfs._kernels.conditional_gaussian import CG, cg_score
from bnfs._kernels.covariance import covariance_score


@njit(cache=True)
def continuous_score(data, aux, node, parents, n_par, kind, iss):
    """The local score of float data: conditional-Gaussian (``kind`` >= CG; ``data`` the
    variables-by-rows table, ``aux`` the arities) or linear-Gaussian (``data`` the
    covariance, ``aux`` the rows)."""
    if kind >= CG:
        return cg_score(data, aux, node, parents, n_par, kind)
    return covariance_score(data, aux, node, parents, n_par, kind, iss)


def family_score(codes, arities, node, parents, n_par, kind, iss, cfg, counts):
    """Local score of ``node`` given ``parents[:n_par]``, discrete or Gaussian by the type
    of ``codes``. Compiled callers get the overload below; this body serves the pure-Python
    runs (``NUMBA_DISABLE_JIT=1``)."""
    if codes.dtype.kind == "f":
        return continuous_score(codes, arities, node, parents, n_par, kind, iss)
    return _s.local_score(codes, arities, node, parents, n_par, kind, iss, cfg, counts)


@overload(family_score)
def _family_score(codes, arities, node, parents, n_par, kind, iss, cfg, counts):
    if isinstance(codes.dtype, types.Float):
        return lambda codes, arities, node, parents, n_par, kind, iss, cfg, counts: (
            continuous_score(codes, arities, node, parents, n_par, kind, iss)
        )
    return lambda codes, arities, node, parents, n_par, kind, iss, cfg, counts: _s.local_score(
        codes, arities, node, parents, n_par, kind, iss, cfg, counts
    )


def configurations(codes, arities, parents, n_par, cfg):
    """The parent configurations of the discrete incremental scores (0 for Gaussian data,
    which needs none)."""
    if codes.dtype.kind == "f":
        return 0
    return _s.parent_config(codes, arities, parents, n_par, cfg)


@overload(configurations)
def _configurations(codes, arities, parents, n_par, cfg):
    if isinstance(codes.dtype, types.Float):
        return lambda codes, arities, parents, n_par, cfg: 0
    return lambda codes, arities, parents, n_par, cfg: _s.parent_config(
        codes, arities, parents, n_par, cfg
    )


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


def toggled_score(
    codes, arities, kind, iss, v, u, removing, parents_v, k, cfg, q, cfg2, counts, tmp
):
    """Score of ``v`` with parents ``parents_v[:k]`` minus ``u`` (``removing``) or plus
    ``u``; discrete data reuse the current parents' configurations ``cfg``."""
    impl = _toggled_score(
        codes, arities, kind, iss, v, u, removing, parents_v, k, cfg, q, cfg2, counts, tmp
    )
    return impl(codes, arities, kind, iss, v, u, removing, parents_v, k, cfg, q, cfg2, counts, tmp)


@overload(toggled_score)
def _toggled_score(
    codes, arities, kind, iss, v, u, removing, parents_v, k, cfg, q, cfg2, counts, tmp
):
    if isinstance(codes.dtype, types.Float) or getattr(codes.dtype, "kind", "") == "f":

        def gaussian(
            codes, arities, kind, iss, v, u, removing, parents_v, k, cfg, q, cfg2, counts, tmp
        ):
            m = _with_or_without(parents_v, k, u, removing, tmp)
            return continuous_score(codes, arities, v, tmp, m, kind, iss)

        return gaussian

    def discrete(
        codes, arities, kind, iss, v, u, removing, parents_v, k, cfg, q, cfg2, counts, tmp
    ):
        if removing:
            m = _with_or_without(parents_v, k, u, True, tmp)
            return _s.local_score(codes, arities, v, tmp, m, kind, iss, cfg2, counts)
        q2 = _s.extend_config(cfg, q, codes, arities, u, cfg2)
        q_true = _s.n_configurations(arities, parents_v, k) * arities[u]
        return _s.score_config(cfg2, q2, codes, v, arities[v], q_true, kind, iss, counts)

    return discrete
