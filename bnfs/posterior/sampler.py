"""``structure_posterior``: order MCMC over a restricted search space, several chains."""

from __future__ import annotations

import copy
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import bnfs.posterior._space as _space
from bnfs._budget import Budget, OutOfTime
from bnfs._kernels import order_mcmc as _om
from bnfs._kernels._compile import compile_seconds
from bnfs._progress import tqdm
from bnfs._validate import check_bool, check_float, check_int
from bnfs._warn import user_stacklevel
from bnfs.parallel import check_n_jobs
from bnfs.posterior.result import StructurePosterior
from bnfs.search._climbing import prepare
from bnfs.tables._columns import MissingValueError
from bnfs.tables._data import as_dataset

#: the chains' move probabilities: swap two neighbours in the order, swap any two nodes,
#: move one node to another place (local moves rescore two nodes; with global ones at 0.15
#: in all, chains of insurance's samples disagreed where they agree at 0.3)
MOVES = np.array([0.7, 0.15, 0.15])
#: chains whose arc probabilities differ by more than this on some arc have not agreed
AGREEMENT = 0.1
#: the most chains one call runs
MAX_CHAINS = 64
#: the imaginary sample sizes ``iss="auto"`` compares, and the scores it applies to
ISS_GRID = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
DIRICHLET = ("bde", "bds")
#: the short chains that find each imaginary sample size's best order
EVIDENCE_CHAINS, EVIDENCE_STEPS = 2, 20_000


def _default_scoring(data, score, prior):
    """(data, score, prior, standardized): ``learn``'s pairing when no score is given
    (BDeu with the vsp prior on discrete data, BGe with it on standardized continuous
    columns, bic-cg on mixed data); a score given keeps the uniform prior unless ``prior``
    says otherwise."""
    if score is not None:
        return data, score, "uniform" if prior is None else prior, False
    if data.is_discrete:
        return data, "bde", "vsp" if prior is None else prior, False
    if not data.discrete_names:
        return data.standardized(), "bge", "vsp" if prior is None else prior, True
    return data, "bic-cg", "uniform" if prior is None else prior, False


def _iss_grid(iss, score: str) -> tuple[float, ...]:
    """The imaginary sample sizes to compare: :data:`ISS_GRID` for ``"auto"`` with a
    Dirichlet score (:data:`DIRICHLET`), 1 for ``"auto"`` with another score, else the one
    given."""
    if isinstance(iss, str):
        if iss != "auto":
            raise ValueError(f"iss must be a positive number or 'auto', got {iss!r}")
        return ISS_GRID if score in DIRICHLET else (1.0,)
    return (iss,)


def _choose_iss(grid, space_of, plus1: bool, seed, n_jobs: int, budget):
    """(state, search space, evidence by iss) of the imaginary sample size whose best order
    found has the highest log-sum over its DAGs: an empirical-Bayes choice by (a lower bound
    of) the marginal likelihood. ``space_of(iss)`` gives (state, space or None when the
    budget ran out); the search stops at the first None, or when ``budget`` is spent."""
    evidence, best = {}, None
    for value in grid:
        state, space = space_of(value)
        if space is None:
            break
        slots = max(1, min(state.max_parents, int(space.ncand.max(initial=0)) + int(plus1)))
        start = np.random.SeedSequence(None if seed is None else [int(seed), 1])
        chains = [_Chain(space, state, s, 100, slots) for s in start.spawn(EVIDENCE_CHAINS)]
        _run_chains(chains, space, 0, EVIDENCE_STEPS // 100, 100, n_jobs, budget, None)
        kept = [c.state.order_scores[: c.n_samples] for c in chains if c.n_samples]
        found = max((float(k.max()) for k in kept), default=-np.inf)
        evidence[value] = found
        if best is None or found > best[2]:
            best = (state, space, found)
        if budget.spent():
            break
    if best is None:
        return None, None, evidence
    return best[0], best[1], evidence


def _start_order(state, rng: np.random.Generator) -> np.ndarray:
    """A random order in which every whitelisted parent precedes its child."""
    n = state.n
    children = [[] for _ in range(n)]
    indegree = np.zeros(n, dtype=np.int64)
    for u, v in state.white:
        children[u].append(v)
        indegree[v] += 1
    key = rng.permutation(n)
    ready = sorted((int(key[v]), v) for v in range(n) if indegree[v] == 0)
    order = []
    while ready:
        _, v = ready.pop(0)
        order.append(v)
        for w in children[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append((int(key[w]), w))
                ready.sort()
    return np.array(order, dtype=np.int64)


#: about how long a chain runs between two looks at the budget (and the progress bar): a
#: piece is as many steps as take this long, whatever the steps' cost (pieces of a fixed
#: share of a long run let ``max_time=3`` run for half a minute). The answer does not
#: depend on it: a chain counts its steps and thins across pieces
PIECE_SECONDS = 0.1


class _Chain:
    """One chain's state and its samples."""

    def __init__(self, space, state, seed_sequence, samples: int, slots: int):
        rng = np.random.default_rng(seed_sequence)
        perm = _start_order(state, rng)
        scores = np.empty(state.n)
        n = state.n
        self.state = _om.Chain(
            perm=perm,
            pos=_om.order_scores_of(perm, space.kernel_space, scores),
            scores=scores,
            rng=np.array([rng.integers(0, 2**63, dtype=np.uint64)], dtype=np.uint64),
            arcs=np.zeros((n, n)),
            dags=np.full((samples, n, slots), -1, dtype=np.int64),
            dag_scores=np.zeros(samples),
            order_scores=np.zeros(samples),
            counters=np.zeros(3, dtype=np.int64),
        )

    def run(self, space, steps: int, thin: int, record: bool) -> None:
        _om.run_chain(space.kernel_space, space.raw, self.state, steps, thin, record, MOVES)

    @property
    def n_samples(self) -> int:
        return int(self.state.counters[2])


def _run_chains(chains, space, burn, thin, samples, n_jobs, budget, bar) -> None:
    """Run every chain through ``burn`` steps, then ``thin * samples`` recorded ones, in
    pieces between which ``budget`` is checked and ``bar`` (or None) moves; ``n_jobs``
    chains at once."""
    total = burn + thin * samples
    lock = threading.Lock()

    def one(chain):
        done, piece = 0, 1000
        while done < total and not budget.spent():
            if done < burn:
                steps, record = min(piece, burn - done), False
            else:
                steps, record = min(piece, total - done), True
            started = time.perf_counter()
            chain.run(space, steps, thin, record)
            if time.perf_counter() - started < PIECE_SECONDS / 2:
                piece *= 2  # pieces of about PIECE_SECONDS: a budget is checked that often
            done += steps
            if bar is not None:
                with lock:
                    bar.update(steps)

    if n_jobs == 1 or len(chains) == 1:
        for chain in chains:
            one(chain)
        return
    with ThreadPoolExecutor(max_workers=min(n_jobs, len(chains))) as pool:
        list(pool.map(one, chains))


def structure_posterior(
    data,
    *,
    score: str | None = None,
    iss: float | str = "auto",
    prior: str | None = None,
    beta=None,
    space="pc",
    max_candidates: int = 10,
    plus1: bool = True,
    max_parents: int | None = None,
    chains: int = 4,
    samples: int = 1000,
    steps: int | None = None,
    burn_in: float = 0.2,
    blacklist=None,
    whitelist=None,
    seed: int | None = 0,
    max_time: float | None = None,
    n_jobs: int | None = None,
    progress: bool | None = None,
) -> StructurePosterior:
    """The posterior probability of each arc, edge and blanket member, by order MCMC.

    Friedman & Koller's order MCMC (2003) on the restricted search space of Kuipers, Suter
    & Moffa's BiDAG (2022): each node's parents are drawn from its candidates (its
    neighbours in a skeleton, at most ``max_candidates``) plus, with ``plus1``, at most one
    node from outside them. Every allowed parent set is scored once; a chain's state is an
    order of the nodes, whose score sums, node by node, every allowed parent set among the
    node's predecessors (a table lookup after a log-sum over subsets), and a step proposes
    to swap two neighbours in the order, swap any two nodes or move one node. Each kept
    order adds its exact arc probabilities (the Rao-Blackwellized estimate) and one DAG
    drawn from it. Several chains from random orders; their arc probabilities must agree to
    within :data:`AGREEMENT` (``learning["max_difference"]``), or a warning says to run
    longer.

    The posterior is order MCMC's: each DAG weighs its score times its number of
    topological orders (the graph prior of Friedman & Koller, as BiDAG's order MCMC), which
    favours DAGs with fewer arcs among their nodes' ancestors. The tests check it against
    every DAG of 3 and 4 nodes enumerated.

    Parameters
    ----------
    data : Dataset, DataFrame or file path
        Complete rows: discrete, continuous or mixed. Constant columns are isolated nodes.
    score : str, optional
        Any decomposable score of :data:`bnfs.stats.scores.SCORES` the data take; the posterior
        is proportional to exp(score). Default: ``learn``'s — BDeu with the vsp prior on
        discrete data, BGe with the vsp prior on standardized continuous columns, bic-cg on
        mixed data (exp(BIC) approximates the marginal likelihood).
    iss : float or "auto", default "auto"
        BDeu's (and BDs's) imaginary sample size. ``"auto"`` chooses it from
        :data:`ISS_GRID` by marginal likelihood (empirical Bayes): for each value, two short
        chains find a best order, and the value whose best order has the highest log-sum
        over its DAGs wins (``learning["arguments"]["iss_evidence"]``): on sampled networks
        the arcs' ranking and the median graph beat those of iss 1
        (``benchmarks/posterior.py``, the CHANGELOG). With another score, 1.
    prior, beta : str, optional
        The graph prior (:class:`bnfs.stats.scores.Scorer`), of the Bayesian scores.
    space : {"pc", "learn", "pc+learn", "full"} or DAG or PDAG, default "pc"
        Where the candidate parents come from: PC-stable's skeleton (``bnfs.pc_stable``
        with its defaults), :func:`bnfs.learn`'s graph, both, every other node, or a graph's
        skeleton.
    max_candidates : int, default 10
        The most candidates a node has; past it, the strongest by single-parent score gain.
    plus1 : bool, default True
        Whether a parent set may hold one node from outside the candidates.
    max_parents : int, optional
        The most parents a node may have (default: no bound but the space's).
    chains : int, default 4
    samples : int, default 1000
        Orders kept per chain (and DAGs drawn).
    steps : int, optional
        Steps per chain, burn-in included (default ``max(200_000, 20 n^2 log n)`` for n nodes,
        at least 5 per kept sample).
    burn_in : float, default 0.2
        The share of each chain's steps run before any is kept.
    blacklist, whitelist : list of (from, to)
        Arcs no DAG has, arcs every DAG has (tiers through :func:`bnfs.blacklist_from`).
    seed : int, optional
        The same seed gives the same posterior, for any ``n_jobs``.
    max_time : float, optional
        Seconds for the whole call; when spent, the posterior of the samples kept so far
        (``learning["stopped_early"]``, with a RuntimeWarning).
    n_jobs : int, optional
        Chains run at once (threads), and the threads scoring the tables.
    progress : bool, optional
        A progress bar on stderr (None: where stderr is a terminal or a notebook).

    Returns
    -------
    StructurePosterior
        ``.strength`` in :func:`bnfs.boot_strength`'s shape, ``.arcs``, ``.blanket(target)``,
        ``.median_graph()``, ``.dags()``, ``.best_dag()`` and ``learning``.
    """
    started = time.perf_counter()
    compiled = compile_seconds()  # first-use compiling is not sampling time
    try:
        data = as_dataset(data, constant="isolate")
    except MissingValueError as err:
        raise ValueError(
            f"structure_posterior needs complete rows: {err}. Drop them "
            "(bnfs.Dataset(data, dropna=True)) or complete them with bnfs.structural_em"
        ) from None
    columns = list(data.columns)
    if data.isolated:
        if len(data.isolated) == len(columns):
            raise ValueError("every column is constant: there is nothing to learn")
        shown = ", ".join(repr(v) for v in list(data.isolated)[:10])
        warnings.warn(
            f"structure_posterior: {len(data.isolated)} constant column(s) ({shown}) carry no "
            "information; they are kept as isolated nodes",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        data = copy.copy(data)
        data.isolated = {}
    chains = check_int(chains, "chains", 1, maximum=MAX_CHAINS, what="chains")
    samples = check_int(samples, "samples", 1, maximum=1_000_000, what="samples per chain")
    burn_in = check_float(burn_in, "burn_in", 0.0, 0.95)
    max_candidates = check_int(max_candidates, "max_candidates", 0, maximum=20, what="candidates")
    check_bool(plus1, "plus1")
    n_jobs = check_n_jobs(n_jobs)
    if seed is not None:
        check_int(seed, "seed", 0)
    budget = Budget(max_time)
    scored, score, prior, standardized = _default_scoring(data, score, prior)
    grid = _iss_grid(iss, score)

    def prepared(value):  # the search's state with BDeu's imaginary sample size ``value``
        return prepare(
            scored,
            score,
            value,
            max_parents,
            blacklist,
            whitelist,
            None,
            n_jobs,
            prior=prior,
            beta=beta,
        )

    state = prepared(grid[0])
    n = state.n
    if steps is None:
        steps = max(200_000, int(20 * n * n * np.log(max(n, 2))), 5 * samples)
    steps = check_int(steps, "steps", 1, maximum=10**10, what="steps per chain")
    burn = int(burn_in * steps)
    thin = max(1, (steps - burn) // samples)
    if (steps - burn) < samples:
        raise ValueError(
            f"steps ({steps}) after the burn-in ({burn}) are fewer than samples ({samples})"
        )
    neighbours = _space.skeleton_of(space, scored, state.names, seed)
    lists = _space.candidate_lists(state, neighbours, max_candidates)
    timing = {"space": time.perf_counter() - started}
    bars = {"disable": None if progress is None else not progress, "leave": False}
    with budget.catching_interrupts():
        with tqdm(total=n * len(grid), desc="posterior: scoring", unit=" nodes", **bars) as bar:
            if len(grid) == 1:
                built = _space.build(state, lists, plus1, state.max_parents, budget, bar)
                evidence = None
            else:

                def space_of(value):
                    at = prepared(value)
                    return at, _space.build(at, lists, plus1, at.max_parents, budget, bar)

                state, built, evidence = _choose_iss(grid, space_of, plus1, seed, n_jobs, budget)
        timing["tables"] = time.perf_counter() - started - timing["space"]
        if built is None:
            raise OutOfTime(
                f"structure_posterior: max_time ({max_time} s) was spent scoring the search "
                "space, before any sample; allow more time or lower max_candidates"
            )
        slots = max(1, min(state.max_parents, int(built.ncand.max(initial=0)) + int(plus1)))
        sequences = np.random.SeedSequence(seed).spawn(chains)
        runs = [_Chain(built, state, s, samples, slots) for s in sequences]
        total = chains * (burn + thin * samples)
        with tqdm(total=total, desc="posterior: chains", unit=" steps", **bars) as bar:
            _run_chains(runs, built, burn, thin, samples, n_jobs, budget, bar)
        timing["chains"] = time.perf_counter() - started - timing["space"] - timing["tables"]
    budget.warn("structure_posterior", "the posterior of the samples")
    arguments = {
        "score": state.score,
        "prior": prior,
        "iss": state.iss,
        "iss_evidence": evidence,
        "standardized": standardized,
        "space": space if isinstance(space, str) else type(space).__name__,
        "max_candidates": max_candidates,
        "plus1": plus1,
        "max_parents": state.max_parents,
        "chains": chains,
        "samples": samples,
        "steps": steps,
        "burn_in": burn_in,
        "thin": thin,
        "seed": seed,
        "max_time": max_time,
        "blacklist": sorted(state.blacklist),
        "whitelist": sorted(state.whitelist),
    }
    if not any(c.n_samples > 0 for c in runs):
        warm = f"a burn-in of {burn:,} steps a chain, then " if burn else ""
        warm = f" ({warm}one sample every {thin:,} steps)"
        raise OutOfTime(
            f"structure_posterior: max_time ({max_time} s) was spent before any chain kept a "
            f"sample{warm}; allow more time, or fewer steps"
            + (" or a shorter burn_in" if burn else "")
        )
    posterior = _result(runs, built, state, columns, data, (started, compiled), budget, arguments)
    posterior.learning["timing"] = timing
    return posterior


def _result(runs, space, state, columns, data, started, budget, arguments) -> StructurePosterior:
    """Pool the chains into a :class:`StructurePosterior` over every column (constant ones
    isolated), with the chains' agreement in its ``learning``; ``started`` is when the call
    began and the kernels' compile seconds then."""
    compiling = compile_seconds() - started[1]
    index = [columns.index(v) for v in state.names]
    n_all = len(columns)
    kept = [c for c in runs if c.n_samples > 0]  # at least one: the caller checked
    per_chain = np.zeros((len(kept), n_all, n_all))
    for k, chain in enumerate(kept):
        per_chain[k][np.ix_(index, index)] = chain.state.arcs / chain.n_samples
    weights = np.array([c.n_samples for c in kept], dtype=float)
    pooled = np.tensordot(weights / weights.sum(), per_chain, axes=1)
    dags = np.concatenate([c.state.dags[: c.n_samples] for c in kept])
    mapped = np.where(dags >= 0, np.asarray(index)[np.maximum(dags, 0)], -1)
    full = np.full((dags.shape[0], n_all, dags.shape[2]), -1, dtype=np.int64)
    full[:, index, :] = mapped
    scores = np.concatenate([c.state.dag_scores[: c.n_samples] for c in kept])
    difference = float(np.ptp(per_chain, axis=0).max()) if len(kept) > 1 else None
    steps = [int(c.state.counters[0]) for c in kept]
    learning = {
        "algorithm": "structure_posterior",
        "method": "order MCMC",
        "rows": data.n_rows,
        "arguments": arguments,
        "candidates": space.candidates(state.names),
        "parent_sets": space.n_sets,
        "samples": int(dags.shape[0]),
        "acceptance": [float(c.state.counters[1]) / max(c.state.counters[0], 1) for c in kept],
        "steps_run": steps,
        "max_difference": difference,
        "converged": difference is None or difference <= AGREEMENT,
        "isolated": [v for v in columns if v not in state.names],
        "stopped_early": budget.reason,
        # first-use compiling apart from sampling time
        "seconds": max(0.0, time.perf_counter() - started[0] - compiling),
        "compile_seconds": compiling,
    }
    if difference is not None and difference > AGREEMENT and budget.reason is None:
        warnings.warn(
            f"structure_posterior: the chains' arc probabilities differ by up to "
            f"{difference:.2f} (more than {AGREEMENT}); run longer (steps=) or more chains",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
    return StructurePosterior(columns, pooled, full, scores, per_chain, learning)
