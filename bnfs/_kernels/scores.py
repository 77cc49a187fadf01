"""Contingency counts and decomposable local scores of discrete data (numba).

A node's parent configuration is a mixed-radix index per row, built column by column from
the Fortran-ordered code matrix. Counts go into a dense scratch table when
``configurations x arity`` fits in it; otherwise the rows are grouped by configuration (a
counting sort, linear in the rows, up to eight configurations a row) and counted group by
group (:func:`score_grouped`, which also scores every candidate parent of a grow step
against one grouping), or past that sorted by their cell key and the runs counted (cost
O(N log N) whatever the number of configurations). Every path adds the same terms in the
same order (configurations, then states, ascending), so all give the same value.

Scores (natural log, higher is better, as bnlearn reports them), for a node with arity r,
q parent configurations, counts N_jk and N_j = sum_k N_jk over N rows:

* ``LOGLIK``  sum_jk N_jk log(N_jk / N_j)
* ``BIC``     loglik - log(N) / 2 * q (r - 1)
* ``AIC``     loglik - q (r - 1)
* ``BDE``     BDeu with imaginary sample size ``iss``:
              sum_j [lgamma(iss/q) - lgamma(iss/q + N_j)] + sum_jk [lgamma(iss/qr + N_jk) - lgamma(iss/qr)]
* ``K2``      sum_j [lgamma(r) - lgamma(N_j + r)] + sum_jk lgamma(N_jk + 1)
* ``BDS``     BDeu with ``q`` replaced by the number of parent configurations observed
              (Scutari 2016, bnlearn's ``bds``), so that unobserved configurations take no
              share of the imaginary sample size
* ``QNML``    quotient NML (Silander, Leppa-aho, Jaaskelainen & Roos 2018):
              loglik - regret(N, q r) + regret(N, q), :func:`nml_regret` the log of the
              multinomial NML normalizer, as bnlearn's ``qnml`` computes it

Rows may carry weights (:func:`weighted_local_score`): the counts are then sums of
weights, real numbers, and N their total -- the expected counts of structural EM, where an
incomplete row stands for its completions weighted by their posterior probabilities
(Friedman 1998), or frequency weights. The formulas are the same with real counts; a row
of weight 2 scores as two rows of weight 1.
"""

import math

import numpy as np

from bnfs._kernels._compile import njit
from bnfs._kernels.configurations import compress, group_rows, n_configurations, parent_config
from bnfs._kernels.sorting import argsort_stable, sort_inplace
from bnfs._vocabulary import AIC, BDE, BDS, BIC, K2, LOGLIK, QNML  # noqa: F401  (the codes)

#: bnlearn's exact regrets cover N up to REGRET_N rows and K up to REGRET_K values;
#: beyond, the lesser of Szpankowski's two asymptotic expansions
REGRET_N, REGRET_K = 1000, 100

_MAX_KEY = 1 << 62  # largest cell key (configuration * arity + state) the sorting path forms


@njit(cache=True)
def _cell_term(kind, n_jk, a_jk):
    if kind == BDE or kind == BDS:
        return math.lgamma(a_jk + n_jk) - math.lgamma(a_jk)
    if kind == K2:
        return math.lgamma(n_jk + 1.0)
    return n_jk * math.log(n_jk)


@njit(cache=True)
def _config_term(kind, n_j, a_j, r):
    if kind == BDE or kind == BDS:
        return math.lgamma(a_j) - math.lgamma(a_j + n_j)
    if kind == K2:
        return math.lgamma(r) - math.lgamma(n_j + r)
    return -n_j * math.log(n_j)


#: counts below this have their terms kept once computed (:func:`_memo`): on sparse tables
#: nearly every cell holds 1 to 3 rows, and each term is a pair of log-gamma calls
SMALL_COUNTS = 64


@njit(cache=True)
def _memo():
    """An empty memo of the cell terms (row 0) and configuration terms (row 1) of one
    family's counts below :data:`SMALL_COUNTS`."""
    return np.full((2, SMALL_COUNTS), np.nan)


@njit(cache=True)
def _cell(kind, n_jk, a_jk, memo):
    """:func:`_cell_term` of the integer count ``n_jk``, through ``memo``: the same value,
    computed once per count (the log-gamma scores; a logarithm costs less than the look-up)."""
    if n_jk < SMALL_COUNTS and kind >= BDE and kind <= BDS:
        value = memo[0, n_jk]
        if value != value:
            value = _cell_term(kind, float(n_jk), a_jk)
            memo[0, n_jk] = value
        return value
    return _cell_term(kind, float(n_jk), a_jk)


@njit(cache=True)
def _config(kind, n_j, a_j, r, memo):
    """:func:`_config_term` of the integer count ``n_j``, through ``memo``."""
    if n_j < SMALL_COUNTS and kind >= BDE and kind <= BDS:
        value = memo[1, n_j]
        if value != value:
            value = _config_term(kind, float(n_j), a_j, r)
            memo[1, n_j] = value
        return value
    return _config_term(kind, float(n_j), a_j, r)


@njit(cache=True)
def _penalty(kind, n, q, r):
    """What the score takes off the family's fit: ``q`` parent configurations, arity
    ``r``, ``n`` rows."""
    if kind == BIC:
        return 0.5 * math.log(n) * q * (r - 1)
    if kind == AIC:
        return q * (r - 1)
    if kind == QNML:
        return nml_regret(n, q * r) - nml_regret(n, q)
    return 0.0


@njit(cache=True)
def nml_regret(n, k):
    """log C(n, k): the log of the normalizing sum of the NML distribution of a
    ``k``-valued multinomial over ``n`` rows, as bnlearn computes it (``nml_regret``):
    exact up to :data:`REGRET_N` rows and :data:`REGRET_K` values (Kontkanen & Myllymaki's
    recurrence C(n, k) = C(n, k - 1) + n / (k - 2) C(n, k - 2), from the binomial sum for
    k = 2), otherwise the lesser of Szpankowski's expansions for large n and for large k."""
    if n == 1.0:
        return math.log(k)
    if k == 1.0 or n == 0.0:
        return 0.0
    if n <= REGRET_N and k <= REGRET_K:
        m, top = int(n), int(k)
        log_m = math.log(m)
        two = 0.0
        for h in range(m + 1):
            term = math.lgamma(m + 1.0) - math.lgamma(h + 1.0) - math.lgamma(m - h + 1.0)
            if h:
                term += h * (math.log(h) - log_m)
            if m - h:
                term += (m - h) * (math.log(m - h) - log_m)
            two += math.exp(term)
        before, last = 1.0, two
        for j in range(3, top + 1):
            before, last = last, last + before / (j - 2) * m
        return math.log(last)
    half = 0.5 * k
    ratio = math.exp(math.lgamma(half) - math.lgamma(half - 0.5))
    centre = math.sqrt(0.5) - ratio * k / 3.0 / math.sqrt(n)
    large_n = (
        (half - 0.5) * (math.log(n) - math.log(2.0))
        + 0.5 * math.log(math.pi)
        - math.lgamma(half)
        + 0.5
        - centre * centre
        + (3.0 + k * (k - 2.0) * (2.0 * k + 1.0)) / (36.0 * n)
    )
    a = k / n
    c = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 / a))
    large_k = n * (math.log(a) + (a + 2.0) * math.log(c) - 1.0 / c) - 0.5 * math.log(c + 2.0 / a)
    return min(large_n, large_k)


@njit(cache=True)
def score_config(cfg, q, codes, node, r, q_true, kind, iss, counts):
    """Local score of ``node`` given parent configurations ``cfg`` (from
    :func:`parent_config`, ``q`` its bound, ``q_true`` the true number of configurations).
    ``counts`` is int64 scratch, all zeros, left all zeros; a table larger than it is
    counted within the rows grouped by configuration (:func:`score_grouped`) or, past
    eight configurations a row, by sorting the rows' cell keys (``cfg`` may be renumbered
    in place first)."""
    n = codes.shape[0]
    a_j = iss / q_true
    a_jk = a_j / r
    total = 0.0
    if q <= counts.shape[0] // r:  # q * r cells fit (the product could overflow)
        for i in range(n):
            counts[cfg[i] * r + codes[i, node]] += 1
        if kind == BDS:
            a_j = iss / _observed_rows(counts, q, r)
            a_jk = a_j / r
        memo = _memo()
        for j in range(q):
            n_j = 0
            base = j * r
            for k in range(r):
                c = counts[base + k]
                if c > 0:
                    n_j += c
                    total += _cell(kind, c, a_jk, memo)
                    counts[base + k] = 0
            if n_j > 0:
                total += _config(kind, n_j, a_j, float(r), memo)
    elif q <= 8 * n and r <= counts.shape[0]:  # group the rows with a counting sort
        groups = np.empty((2, n + 1), dtype=np.int64)
        group_rows(cfg, n, groups)
        touched = np.empty(n, dtype=np.int64)
        return score_grouped(groups, codes, -1, node, 1, r, q_true, kind, iss, counts, touched)
    else:
        if q > _MAX_KEY // r:  # cfg * r could overflow: renumber to the observed configurations
            q = compress(cfg, n)
        keys = np.empty(n, dtype=np.int64)
        for i in range(n):
            keys[i] = cfg[i] * r + codes[i, node]
        sort_inplace(keys)
        if kind == BDS:
            a_j = iss / _observed_runs(keys, r)
            a_jk = a_j / r
        memo = _memo()
        start = 0
        n_j = 0
        for i in range(1, n + 1):
            if i == n or keys[i] != keys[start]:
                c = i - start
                n_j += c
                total += _cell(kind, c, a_jk, memo)
                if i == n or keys[i] // r != keys[start] // r:
                    total += _config(kind, n_j, a_j, float(r), memo)
                    n_j = 0
                start = i
    return total - _penalty(kind, float(n), q_true, float(r))


@njit(cache=True)
def _observed_rows(counts, q, r):
    """How many of the ``q`` rows of ``r`` cells of ``counts`` hold a count."""
    seen = 0
    for j in range(q):
        for k in range(r):
            if counts[j * r + k] > 0:
                seen += 1
                break
    return seen


@njit(cache=True)
def _observed_runs(keys, r):
    """How many configurations (``key // r``) the sorted cell ``keys`` hold."""
    seen = 0
    for i in range(keys.shape[0]):
        if i == 0 or keys[i] // r != keys[i - 1] // r:
            seen += 1
    return seen


@njit(cache=True)
def local_score(codes, arities, node, parents, n_par, kind, iss, cfg, counts):
    """Local score of ``node`` with ``parents[:n_par]`` (scratch ``cfg``: int64 of N)."""
    q = parent_config(codes, arities, parents, n_par, cfg)
    q_true = n_configurations(arities, parents, n_par)
    return score_config(cfg, q, codes, node, arities[node], q_true, kind, iss, counts)


@njit(cache=True)
def weighted_local_score(codes, weights, arities, node, parents, n_par, kind, iss, cfg):
    """Local score of ``node`` with ``parents[:n_par]`` on rows weighted by ``weights``
    (non-negative; the counts are sums of weights and N is their total). Cells are summed
    in a dense table when it holds at most as many cells as rows, else by sorting the rows'
    cell keys; either way configurations then states ascending, so the two agree."""
    q = parent_config(codes, arities, parents, n_par, cfg)
    q_true = n_configurations(arities, parents, n_par)
    return weighted_score_config(cfg, q, codes, weights, node, arities[node], q_true, kind, iss)


@njit(cache=True)
def weighted_score_config(cfg, q, codes, weights, node, r, q_true, kind, iss):
    """:func:`weighted_local_score` given the rows' parent configurations ``cfg`` (``q``
    their bound, ``q_true`` the number of configurations), as :func:`score_config` for
    unweighted rows (``cfg`` may be renumbered in place)."""
    n = codes.shape[0]
    total_weight = 0.0
    for i in range(n):
        total_weight += weights[i]
    if q <= max(n, 1) // r:
        cells = np.zeros(q * r)
        for i in range(n):
            cells[cfg[i] * r + codes[i, node]] += weights[i]
        keys = np.arange(q * r)
        sums = cells
    else:
        if q > _MAX_KEY // r:
            q = compress(cfg, n)
        raw = np.empty(n, dtype=np.int64)
        for i in range(n):
            raw[i] = cfg[i] * r + codes[i, node]
        order = argsort_stable(raw)
        keys = np.empty(n, dtype=np.int64)
        sums = np.zeros(n)
        m = -1
        for t in range(n):
            i = order[t]
            if m < 0 or raw[i] != keys[m]:
                m += 1
                keys[m] = raw[i]
            sums[m] += weights[i]
        keys, sums = keys[: m + 1], sums[: m + 1]
    a_j = iss / q_true
    if kind == BDS:
        seen, last_seen = 0, -1
        for t in range(keys.shape[0]):
            if sums[t] > 0 and (seen == 0 or keys[t] // r != last_seen):
                seen += 1
                last_seen = keys[t] // r
        a_j = iss / max(seen, 1)
    a_jk = a_j / r
    total = 0.0
    n_j = 0.0
    for t in range(keys.shape[0]):
        c = sums[t]
        if c > 0:
            n_j += c
            total += _cell_term(kind, c, a_jk)
        if t == keys.shape[0] - 1 or keys[t + 1] // r != keys[t] // r:
            if n_j > 0:
                total += _config_term(kind, n_j, a_j, float(r))
            n_j = 0.0
    if kind == QNML:  # its regrets count whole rows
        total_weight = float(round(total_weight))
    return total - _penalty(kind, total_weight, q_true, float(r))


@njit(cache=True)
def score_grouped(groups, codes, u, node, r_u, r, q_true, kind, iss, cells, touched):
    """Local score of ``node`` with the parents grouped by :func:`group_rows` plus ``u``
    (arity ``r_u``; none when ``u`` < 0; ``node``'s arity ``r``): the value
    :func:`score_config` gives on :func:`extend_config`'s configurations, term for term
    in the same order, in time linear in the rows however large the table. A grow step
    scores every candidate against one grown set, so the rows are grouped once, where
    :func:`score_config` would sort them once per candidate. ``cells`` (at least
    ``r_u * r`` int64 zeros, left zeros) and ``touched`` (int64, one per row) are
    scratch."""
    n = codes.shape[0]
    rows, starts = groups[0], groups[1]
    n_groups = rows[n]
    a_j = iss / q_true
    if kind == BDS and u < 0:
        a_j = iss / n_groups
    elif kind == BDS:  # the configurations seen: (group, value of u) pairs
        seen = 0
        for g in range(n_groups):
            for t in range(starts[g], starts[g + 1]):
                c = codes[rows[t], u]
                if cells[c] == 0:
                    cells[c] = 1
                    seen += 1
            for t in range(starts[g], starts[g + 1]):
                cells[codes[rows[t], u]] = 0
        a_j = iss / seen
    a_jk = a_j / r
    memo = _memo()
    total = 0.0
    for g in range(n_groups):
        m = 0
        for t in range(starts[g], starts[g + 1]):
            i = rows[t]
            c = (np.int64(codes[i, u]) * r if u >= 0 else 0) + codes[i, node]
            if cells[c] == 0:
                touched[m] = c
                m += 1
            cells[c] += 1
        _sort_small(touched, m)
        n_j = 0
        for t in range(m):
            c = touched[t]
            count = cells[c]
            cells[c] = 0
            n_j += count
            total += _cell(kind, count, a_jk, memo)
            if t == m - 1 or touched[t + 1] // r != c // r:
                total += _config(kind, n_j, a_j, float(r), memo)
                n_j = 0
    return total - _penalty(kind, float(n), q_true, float(r))


@njit(cache=True)
def _sort_small(values, m):
    """Sort ``values[:m]`` ascending: insertion for a few, merging beyond."""
    if m > 32:
        sort_inplace(values[:m])
        return
    for t in range(1, m):
        x = values[t]
        at = t
        while at > 0 and values[at - 1] > x:
            values[at] = values[at - 1]
            at -= 1
        values[at] = x


@njit(cache=True)
def score_table(table, kind, iss, n_total):
    """Local score from a (configurations x arity) count table (all configurations listed)."""
    q, r = table.shape
    a_j = iss / q
    if kind == BDS:
        seen = 0
        for j in range(q):
            if table[j].sum() > 0:
                seen += 1
        a_j = iss / max(seen, 1)
    a_jk = a_j / r
    total = 0.0
    for j in range(q):
        n_j = 0.0
        for k in range(r):
            c = table[j, k]
            if c > 0:
                n_j += c
                total += _cell_term(kind, float(c), a_jk)
        if n_j > 0:
            total += _config_term(kind, n_j, a_j, float(r))
    return total - _penalty(kind, float(n_total), float(q), float(r))
