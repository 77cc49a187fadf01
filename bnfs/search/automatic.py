"""``bnfs.learn``: the learner to call when unsure. Candidate learners are compared by
cross-validated log-likelihood (bnlearn's ``bn.cv`` with its "logl" loss: each learner runs
on the training folds, its structure is scored on the held-out fold), and the winner runs on
all the data."""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from joblib import Parallel, delayed

from bnfs._budget import Budget
from bnfs._checkpoint import Checkpoint
from bnfs._progress import tqdm
from bnfs._real_data import takes_real_data
from bnfs._validate import arc_list, check_bool, check_float, check_int
from bnfs._warn import user_stacklevel
from bnfs.graphs.graph import DAG
from bnfs.parallel import check_n_jobs
from bnfs.search._fold_choice import choice, damaged, fold_store, saved_folds, summaries
from bnfs.search.boss import boss
from bnfs.search.hill_climbing import hill_climbing, tabu_search
from bnfs.search.hybrid import rsmax2
from bnfs.stats.metrics import log_likelihood
from bnfs.stats.scores import ScoreName, resolve_score
from bnfs.tables._data import as_dataset
from bnfs.tables._weights import row_mass

__all__ = ["learn", "CANDIDATES"]

#: the largest conditioning set of the restricted candidates' CI tests, so that every
#: candidate has a bounded cost (unbounded, PC-stable on a pigs sample gives no answer in
#: minutes; CHANGELOG, "Measured defaults")
MAX_COND_SIZE = 3
#: candidate name -> (the learner it runs, its keyword arguments)
CANDIDATES = {
    "boss": (boss, {}),
    "tabu": (tabu_search, {}),
    "hc": (hill_climbing, {}),
    "mmpc_tabu": (
        rsmax2,
        {"restrict": "mmpc", "maximize": "tabu", "max_cond_size": MAX_COND_SIZE},
    ),
    "pc_tabu": (
        rsmax2,
        {"restrict": "pc_stable", "maximize": "tabu", "max_cond_size": MAX_COND_SIZE},
    ),
    "mmhc": (rsmax2, {"restrict": "mmpc", "maximize": "hc", "max_cond_size": MAX_COND_SIZE}),
    "h2pc": (rsmax2, {"restrict": "hpc", "maximize": "hc", "max_cond_size": MAX_COND_SIZE}),
}
#: what learn runs by default: BOSS alone. On the 24-case suite (benchmarks/learn_rule.py)
#: held-out likelihood choosing among BOSS, tabu and the MMPC- and PC-restricted tabu
#: searches lands further from the true networks than BOSS every time: held-out
#: likelihood prefers the denser tabu graphs on hailfinder, where BOSS is nearer the truth
DEFAULT_CANDIDATES = ("boss",)
#: below this many rows per variable learn warns that the sample is small for the network
ROWS_PER_VARIABLE = 10
#: the candidates learn compared by default before, for ``candidates=COMPARED``
COMPARED = ("boss", "tabu", "mmpc_tabu", "pc_tabu")
#: further random starts of BOSS when it runs on all the rows as the winner: more starts
#: only raise its score (README, "Which learner should I use?"); the folds compare BOSS
#: with one start, the cheaper learner
FINAL_BOSS_RESTARTS = 4
#: ... as long as the work stays within this many counted rows (local scores times rows,
#: :func:`bnfs.boss`'s ``restart_work``): every start on the 24-case suite (win95pts, 5,000
#: rows: 2.2e9 for five), one on coil2000 (9,822 rows, 35 columns of 10+ levels: 7.9e9 for
#: one start), where four more would take four times as long
FINAL_RESTART_WORK = 5e9
#: learn's score on discrete data: BDeu with the vsp prior. BDs (``"bds"``, BDeu over the
#: parent configurations seen) was measured beside it (``benchmarks/quality.py``,
#: ``benchmarks/real_league.py``): level on the 24-case suite, better held-out likelihood on
#: coil2000, but far slower there (CHANGELOG, "Measured defaults")
DISCRETE_SCORE = "bde"
#: BOSS's family bound in learn: parent configurations at most this many times the rows
#: (:func:`bnfs.boss`'s ``max_configurations``). On sparse tables BDeu keeps adding
#: many-valued parents whose configurations hold no row; growing and scoring those families
#: is where BOSS's time goes on many rows of many-valued columns. The bound trades a little
#: held-out likelihood on coil2000 for several times less time, and does not bind on the
#: quality suite (``benchmarks/real_league.py``; CHANGELOG, "Measured defaults")
CONFIGURATIONS_PER_ROW = 300
#: past this many counted rows for scoring every pair of columns once (pairs times rows: what
#: BOSS's first order alone costs), learn's BOSS chooses each node's parents among its
#: :data:`CANDIDATE_PARTNERS` strongest partners (:func:`bnfs.boss`'s ``candidates``). The
#: largest network of the quality suite (pigs, 441 nodes, 5,000 rows) stays below it; wide
#: word tables (basehock, 1,603 columns) pass it, where unrestricted BOSS does not finish
#: its first pass in minutes (CHANGELOG, "Measured defaults")
WIDE_WORK = 1e9
#: ... and how many: on the quality suite the restriction to 20 costs some SHD, mostly on
#: pigs, whose parents are weak single partners, and saves several times the time (10 costs
#: more; CHANGELOG, "Measured defaults")
CANDIDATE_PARTNERS = 20
#: learn's score on continuous data: BGe with the vsp prior, on standardized columns (BGe's
#: prior is not scale-free: standardized, a column's unit does not change the graph). Beside
#: bic-g on samples of four Gaussian networks it halves the CPDAG distance and wins on
#: held-out likelihood in most cases (``benchmarks/gaussian_quality.py``); BIC's penalty
#: does not grow with the number of candidate parents, so on wide, thin data it links
#: columns by chance where BGe-vsp does not; on real continuous columns the two are level
#: (CHANGELOG, "Measured defaults")
CONTINUOUS_SCORE = "bge"


def _run(
    candidate: str, data, options: dict, seed=0, final: bool = False, max_time=None, progress=False
) -> DAG:
    learner, extra = CANDIDATES[candidate]
    given_score = options["score"]
    options = {**options, "score": "bic" if given_score is None else given_score}
    standardized = False
    if learner is boss:
        if data.is_discrete and given_score is None:  # BDeu, vsp: the measured best (learn)
            options = {**options, "score": DISCRETE_SCORE, "prior": "vsp"}
        elif not data.discrete_names and given_score is None:  # the same for Gaussians
            options = {**options, "score": CONTINUOUS_SCORE, "prior": "vsp"}
            data, standardized = data.standardized(), True
        restarts = FINAL_BOSS_RESTARTS if final else 0
        pairs = data.n_vars * (data.n_vars - 1) / 2
        # weighted rows (structural EM's expected counts) stand for their total
        rows = row_mass(data)
        dag = boss(
            data,
            **options,
            max_configurations=CONFIGURATIONS_PER_ROW * rows,
            candidates=CANDIDATE_PARTNERS if pairs * data.n_rows > WIDE_WORK else None,
            restarts=restarts,
            restart_work=FINAL_RESTART_WORK if final else None,
            seed=seed,
            max_time=max_time,
            progress=progress,
        )
        dag.learning["standardized"] = standardized
        return dag
    return learner(data, **extra, **options, max_time=max_time, progress=False)


def _fold(candidate: str, data, train_rows, test_rows, options: dict, iss: float):
    """Learn on the training rows, score on the held-out rows: (log-likelihood per row,
    arcs, seconds)."""
    started = time.perf_counter()
    train, test = data.take(train_rows), data.take(test_rows)
    dag = _run(candidate, train, options)
    # a rare continuous column can be constant in the training rows: it has no model whose
    # held-out density means anything (a point mass), and no learner connects it, so every
    # candidate would score it alike; it is left out of the comparison
    flat = [
        v
        for v in train.continuous_names
        if not dag.parents(v) and not dag.children(v) and np.ptp(train.column(v)) == 0
    ]
    if flat:
        kept = [v for v in data.names if v not in flat]
        dag, train, test = dag.subgraph(kept), train.select(kept), test.select(kept)
    value = log_likelihood(dag, train, test, iss=iss)
    return value, dag.n_arcs, time.perf_counter() - started


def _recheck(store, candidate, resumed, found, data, assignment, options, iss) -> None:
    """Run again the first fold of ``candidate`` that came from the checkpoint (if any) and
    refuse the checkpoint when its saved log-likelihood or arcs differ from the run's: the
    learners are deterministic, so a saved run must recompute."""
    saved = [k for k in range(int(assignment.max()) + 1) if f"{candidate}/{k}" in resumed]
    if not saved:
        return
    k = saved[0]
    value, arcs, _ = _fold(
        candidate,
        data,
        np.flatnonzero(assignment != k),
        np.flatnonzero(assignment == k),
        options,
        iss,
    )
    kept = found[f"{candidate}/{k}"]
    if not (math.isclose(value, kept[0], rel_tol=1e-9, abs_tol=1e-9) and arcs == kept[1]):
        raise damaged(
            store,
            f"fold run {candidate}/{k} saved {kept[0]!r} per row and {kept[1]:g} arcs; "
            f"it gives {value!r} and {arcs}",
        )


def _alone(candidate: str, data, options: dict, seed, max_time, progress, checkpoint) -> DAG:
    """``learn`` with one candidate: its final run on all the rows (BOSS with its further
    starts), with ``max_time``, no folds."""
    budget = {"max_time": max_time, **({"progress": progress} if candidate == "boss" else {})}
    if checkpoint is not None:  # the search's own checkpoint (checked: _check_checkpoint)
        options = {**options, "checkpoint": checkpoint}
    dag = _run(candidate, data, options, seed=seed, final=True, **budget)
    dag.learning.update(
        {
            "learner": CANDIDATES[candidate][0].__name__,
            "chosen": candidate,
            "criterion": None,
            "folds": 0,
            "seed": seed,
            "reason": "the only candidate: nothing to compare",
            "candidates": {},
            "skipped": [],
            "stopped_early": dag.learning.get("stopped_early"),
        }
    )
    return dag


def _warn_if_thin(data) -> None:
    """A hint that the rows are few for a network over these columns (hepatitis: 155 rows,
    20 variables): most dependences go unseen, the network is sparse and blankets small."""
    rows = row_mass(data)
    if rows < ROWS_PER_VARIABLE * data.n_vars:
        warnings.warn(
            f"learn: {rows:,.0f} rows for {data.n_vars} variables, fewer than "
            f"{ROWS_PER_VARIABLE} a variable: too few to see most dependences, so expect a "
            "sparse network and small blankets; bnfs.boot_strength says how sure each arc is",
            UserWarning,
            stacklevel=user_stacklevel(),
        )


def _check_checkpoint(checkpoint, candidates) -> None:
    """Refuse a checkpoint ``learn`` cannot use: not a file path in an existing folder, or
    one candidate that keeps none (``learn`` saves fold runs; one candidate has none, and
    only hill climbing and tabu search save their own progress)."""
    if checkpoint is None:
        return
    Checkpoint(checkpoint, "learn", "")  # a path in an existing folder, not a folder
    if len(candidates) == 1 and candidates[0] not in ("hc", "tabu"):
        raise ValueError(
            f"checkpoint: learn saves its fold runs there, and one candidate "
            f"({candidates[0]!r}) has none, nor a checkpoint of its own; give several "
            "candidates, or candidates=['hc'] or ['tabu'], whose searches save their progress"
        )


class _FoldRunner:
    """Runs ``learn``'s (candidate, fold) tasks ``n_jobs`` at a time, saving each batch to
    the checkpoint (if any)."""

    def __init__(self, data, assignment, options, iss, n_jobs, store):
        self.data, self.assignment, self.options, self.iss = data, assignment, options, iss
        self.n_jobs, self.store = n_jobs, store

    def run(self, tasks, found: dict, first: str, budget, progress) -> list[str]:
        """Fill ``found`` with the runs of ``tasks`` not in it yet; once ``budget`` (a
        :class:`~bnfs._budget.Budget`) is spent only the ``first`` candidate's runs go on.
        Returns the runs skipped."""
        todo = [(c, k) for c, k in tasks if f"{c}/{k}" not in found]
        skipped: list[str] = []
        disable = None if progress is None else not progress
        with tqdm(
            total=len(tasks),
            initial=len(tasks) - len(todo),
            desc="learn",
            unit=" folds",
            disable=disable,
            leave=False,
        ) as bar:
            batch = max(1, self.n_jobs)
            for start in range(0, len(todo), batch):
                chunk = todo[start : start + batch]
                if budget.spent():
                    skipped += [f"{c}/{k}" for c, k in chunk if c != first]
                    chunk = [t for t in chunk if t[0] == first]
                    if not chunk:
                        continue
                for (c, k), result in zip(chunk, self._batch(chunk)):
                    found[f"{c}/{k}"] = list(result)
                if self.store is not None:
                    self.store.save({"folds": found})
                bar.update(len(chunk))
        return skipped

    def _batch(self, chunk):
        return Parallel(n_jobs=min(self.n_jobs, len(chunk)))(
            delayed(_fold)(
                c,
                self.data,
                np.flatnonzero(self.assignment != k),
                np.flatnonzero(self.assignment == k),
                self.options,
                self.iss,
            )
            for c, k in chunk
        )


def _check_candidates(candidates) -> tuple[str, ...]:
    if candidates is None:
        return DEFAULT_CANDIDATES
    if isinstance(candidates, str):
        candidates = [candidates]
    try:
        candidates = tuple(candidates)
    except TypeError:
        raise TypeError(f"candidates must be a list of learner names, got {candidates!r}") from None
    unknown = [c for c in candidates if not isinstance(c, str) or c not in CANDIDATES]
    if unknown or not candidates:
        raise ValueError(
            f"candidates must be a non-empty list of {list(CANDIDATES)}, got {list(candidates)!r}"
        )
    if len(set(candidates)) != len(candidates):
        raise ValueError(f"candidates has repeated names: {list(candidates)!r}")
    return candidates


@takes_real_data(missing="structural_em")
def learn(
    data,
    *,
    score: ScoreName | None = None,
    candidates=None,
    folds: int = 3,
    one_se: bool = True,
    iss: float = 1.0,
    max_parents: int | None = None,
    blacklist=None,
    whitelist=None,
    seed: int | None = 0,
    max_time: float | None = None,
    n_jobs: int | None = None,
    progress: bool | None = None,
    checkpoint=None,
) -> DAG:
    """The network to use when unsure which learner suits the data.

    Give it your table as pandas reads it (a DataFrame, a file path or a
    :class:`~bnfs.Dataset`). Each column is typed by one rule, with gaps or without: text,
    booleans and categories are discrete; a number column is discrete when it holds few
    values (two, or up to 10 with 5 rows a value: a 0/1 flag, a 1-5 answer, also when pandas
    stores it as floats because it has gaps) and continuous otherwise; a column distinct on
    (nearly) every row (an id, a name) and text with more than 256 levels are set aside with
    a warning; dates are refused with what to derive from them. ``learning["columns"]``
    records what was decided, and ``bnfs.Dataset(frame, discrete=[...], continuous=[...])``
    (``--discrete``/``--continuous`` on the command line) overrides it. Missing values go
    through structural EM.

    The first call on each kind of data (discrete, continuous, mixed, with gaps) compiles
    numba kernels, from seconds to minutes, once: later calls and processes load them from
    the cache. That time is recorded apart, as ``learning["compile_seconds"]``; the
    learning time ``learning["seconds"]`` leaves it out.

    How it learns: by default, BOSS (:func:`bnfs.boss`) with up to :data:`FINAL_BOSS_RESTARTS` further
    random starts, scoring discrete data with BDeu (:data:`DISCRETE_SCORE`, which says why
    not BDs) and the vsp graph prior: the most accurate learner bnfs has on its benchmark
    suite (``benchmarks/quality.py``). Continuous data are scored the same way, by BGe with
    the vsp prior on the standardized columns (:data:`CONTINUOUS_SCORE` gives the
    measurements: half bic-g's distance to the true networks, and no chance arcs on wide,
    thin data, where bic-g links columns by the thousand); mixed data by bic-cg. A family
    may have at most :data:`CONFIGURATIONS_PER_ROW` parent configurations per row: past
    that, most of its configurations hold no row, BDeu's value of it says more about the
    prior than the data, and growing such families is where the time goes on many rows of
    many-valued columns (coil2000: 48 s with the bound, 5 minutes without, held-out
    likelihood 4% lower).
    On data so wide that scoring every pair of columns once is past :data:`WIDE_WORK`
    counted rows, each node's parents come from its :data:`CANDIDATE_PARTNERS` strongest
    partners only (the sparse-candidate restriction, by single-parent likelihood gain).
    Further starts run only while the work stays within :data:`FINAL_RESTART_WORK` (local
    scores times rows, the same on every machine); ``max_time`` bounds the whole run.
    Choosing a learner by held-out likelihood lands further from the truth
    (``benchmarks/learn_rule.py``): held-out likelihood rewards denser graphs where the
    data are thin.

    With several ``candidates`` learn compares them: each runs on ``folds``-1 folds of the
    rows and its structure (with parameters estimated on those folds) is scored by the
    log-likelihood of the held-out fold (:func:`bnfs.stats.metrics.log_likelihood`); the
    candidate with the best mean wins and runs on all the rows. With ``one_se`` the winner
    is the candidate with the fewest arcs whose mean is within one standard error of the
    best (Breiman's one-standard-error rule). Held-out likelihood rewards a network that
    predicts new rows; it does not measure closeness to a true network.

    Parameters
    ----------
    data : Dataset, DataFrame or file path
        Discrete, continuous (linear-Gaussian scores) or mixed (conditional-Gaussian). An
        incomplete DataFrame is learned inside :func:`bnfs.structural_em`, this search
        in each round on expected sufficient statistics (continuous and discrete data)
        or on the rows completed by posterior modes and means (mixed data), with
        ``score``, ``iss``, ``max_parents``, the lists and ``seed`` (other options are
        refused by name), with a warning (``benchmarks/missing_data.py``, 2,000 rows, 10%
        missing completely at random: alarm SHD 6 against hill climbing's 35 inside the
        same EM; ecoli70, 30% missing, 19 against 46 imputing means). A constant column is
        an isolated node.
    score : str, optional
        The score every candidate maximises (see :func:`bnfs.hill_climbing`), checked
        against the data's kind: an unknown score, or one for another kind of data, is
        refused by name. Default: BOSS scores discrete data with BDeu and the vsp graph
        prior, continuous data with BGe and the vsp prior on the standardized columns
        (``learning["standardized"]``); the other candidates, and BOSS on mixed data, use
        "bic" (bic-g, bic-cg on continuous and mixed data). A score given is used as
        given, with the search's default (uniform) graph prior.
    candidates : list of str, optional
        From ``"boss"`` (:func:`bnfs.boss`; on discrete data with BDeu and the vsp graph
        prior unless ``score`` says otherwise, the pairing that held-out likelihood and the
        true networks both favour; one start in the folds and, when it wins,
        :data:`FINAL_BOSS_RESTARTS` more random starts from ``seed`` on all the rows),
        ``"tabu"`` (:func:`bnfs.tabu_search`), ``"hc"`` (:func:`bnfs.hill_climbing`),
        ``"mmpc_tabu"`` and ``"pc_tabu"`` (:func:`bnfs.rsmax2` with MMPC or PC-stable
        restricting tabu search), ``"mmhc"`` and ``"h2pc"``; the restricted ones test with
        at most :data:`MAX_COND_SIZE` conditioning variables.
        Default: BOSS alone (:data:`COMPARED` lists the candidates compared before).
        One candidate is run on all the rows, with no folds.
    folds : int >= 2, default 3
        Cross-validation folds (bnlearn's ``bn.cv`` uses 10: slower, a little less noisy).
    one_se : bool, default True
    iss : float, default 1.0
        Imaginary sample size of the held-out predictive distributions (and of BDeu).
    max_parents, blacklist, whitelist
        As :func:`bnfs.hill_climbing`; every candidate honours them.
    seed : int, optional
        Assigns rows to folds; the same seed gives the same result, for any ``n_jobs``.
    max_time : float, optional
        Seconds for the whole run. With one candidate, its search's budget (the best graph
        so far when it is spent). With several, fold runs not started when it is spent are
        skipped and candidates missing a fold drop out (the first candidate is always
        compared), and the final run on all the rows gets the time left (none, once it
        is spent: the search's best graph after no time, its start). A run cut short says so
        in ``learning["stopped_early"]`` ("max_time reached"), in ``learning["reason"]``
        and ``learning["skipped"]`` (the fold runs skipped), with a RuntimeWarning.
    n_jobs : int, optional
        joblib workers for the fold runs (-1: every core); one candidate has none.
    progress : bool, optional
        A progress bar on stderr: None shows it where stderr is a terminal or a notebook
        (tqdm's widget with ipywidgets), True always, False never.
    checkpoint : str or path, optional
        File the finished fold runs are saved to; calling again with the same data and
        arguments skips them. One candidate has no fold runs: ``"hc"`` or ``"tabu"`` alone
        save their own search there (see :func:`bnfs.hill_climbing`), any other alone
        refuses a checkpoint by name.

    Returns
    -------
    DAG
        The winner's network on all the rows. ``learning`` has its own provenance plus
        ``algorithm`` ("learn"), ``chosen``, ``criterion``, ``folds``, ``reason`` and
        ``candidates``: per candidate the held-out log-likelihood per row of each fold,
        their mean and standard error, the mean number of arcs and the seconds.

    Raises
    ------
    ValueError
        An unknown candidate or score, ``folds`` below 2, lists that name unknown columns or
        form a cycle, data with no rows or only constant columns; the message names the
        parameter or the column.
    TypeError
        ``data`` of a type bnfs cannot read.

    Warns
    -----
    UserWarning
        Constant columns (kept as isolated nodes), and incomplete data (learned inside
        :func:`~bnfs.structural_em`).

    See Also
    --------
    boss : The search ``learn`` runs by default.
    hill_climbing, tabu_search : bnlearn's greedy searches.
    structural_em : Learning from incomplete data.
    MarkovBlanketSelector : Feature selection by the blanket of a learned network.

    Examples
    --------
    >>> from bnfs import datasets
    >>> dag = learn(datasets.sample("asia", 2000, seed=0))
    >>> dag.learning["algorithm"], dag.learning["chosen"]
    ('learn', 'boss')
    """
    budget = Budget(max_time)  # from here, first-use compiling aside
    data = as_dataset(data)
    candidates = _check_candidates(candidates)
    folds = check_int(folds, "folds", 2)
    if folds > data.n_rows:
        raise ValueError(f"folds ({folds}) must not exceed the number of rows ({data.n_rows})")
    check_bool(one_se, "one_se")
    iss = check_float(iss, "iss", 0.0, low_open=True)
    max_time = None if max_time is None else check_float(max_time, "max_time", 0.0)
    options = {
        "score": score,
        "iss": iss,
        "max_parents": max_parents,
        "blacklist": arc_list(blacklist, "blacklist", data.names),
        "whitelist": arc_list(whitelist, "whitelist", data.names),
    }
    n_jobs = check_n_jobs(n_jobs)
    check_int(seed, "seed", 0, allow_none=True)
    if score is not None:  # refused by name when unknown or for another kind of data
        resolve_score(data, score, iss)
    _check_checkpoint(checkpoint, candidates)
    _warn_if_thin(data)
    if len(candidates) == 1:  # nothing to compare: the learner runs on all the rows
        return _alone(candidates[0], data, options, seed, max_time, progress, checkpoint)
    rng = np.random.default_rng(seed)
    assignment = rng.permutation(data.n_rows) % folds
    tasks = [(c, k) for c in candidates for k in range(folds)]
    store = fold_store(checkpoint, data, candidates, folds, seed, iss, options)
    found = {} if store is None else saved_folds(store, {f"{c}/{k}" for c, k in tasks}, data)
    resumed = set(found)  # fold runs read from the checkpoint, not computed here
    runner = _FoldRunner(data, assignment, options, iss, n_jobs, store)
    skipped = runner.run(tasks, found, candidates[0], budget, progress)
    summary = summaries(candidates, found, folds)
    best, chosen, reason = choice(summary, candidates, one_se)
    for c in dict.fromkeys((best, chosen)):  # the runs the choice rests on: spot-check one
        _recheck(store, c, resumed, found, data, assignment, options, iss)
    left = budget.left()
    with warnings.catch_warnings():  # one warning for the whole run, below
        warnings.filterwarnings("ignore", "(?s).*stopped early", RuntimeWarning)
        dag = _run(chosen, data, options, seed=seed, final=True, max_time=left)
    stopped = dag.learning.get("stopped_early")
    if skipped:
        stopped = "max_time reached"
        reason += (
            f"; max_time reached: {len(skipped)} fold run(s) skipped "
            f"({', '.join(skipped[:6])}{', ...' if len(skipped) > 6 else ''}), "
            "their candidates not compared"
        )
    if stopped:
        warnings.warn(
            f"learn stopped early ({stopped}); returning the best graph found so far",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
    dag.learning.update(
        {
            "learner": CANDIDATES[chosen][0].__name__,
            "chosen": chosen,
            "criterion": "held-out log-likelihood per row",
            "folds": folds,
            "seed": seed,
            "one_se": one_se,
            "reason": reason,
            "candidates": summary,
            "skipped": skipped,
            "stopped_early": stopped,
        }
    )
    return dag
