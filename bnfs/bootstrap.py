"""Bootstrap model averaging (Friedman, Goldszmidt & Wyner 1999; bnlearn's
``boot.strength`` and ``averaged.network``; Scutari & Nagarajan 2013 for the threshold)."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs

from bnfs import learners
from bnfs._budget import Budget
from bnfs._checkpoint import Checkpoint, fingerprint
from bnfs._validate import check_float, check_int
from bnfs.graphs.graph import DAG, PDAG
from bnfs.graphs.render import save_figure
from bnfs.tables._data import as_dataset
from bnfs.tables._files import replacing

__all__ = [
    "boot_strength",
    "averaged_network",
    "inclusion_threshold",
    "plot_strength",
    "blanket_frequency",
]

#: the most replicates a bootstrap runs: their seeds and results are held in memory
MAX_REPLICATES = 100_000
#: learners whose graphs can be averaged
LEARNERS = learners.names("score", "hybrid", "constraint")
#: local learners whose blankets (or parents and children) can be counted
BLANKET_LEARNERS = learners.names("blanket", "neighbours")


def _seeds(seed, r: int) -> list[int]:
    """R independent seeds from one: the same for any number of jobs."""
    sequence = np.random.SeedSequence(None if seed is None else int(seed))
    return [int(s.generate_state(1)[0]) for s in sequence.spawn(r)]


class _IncompleteRows:
    """A DataFrame with missing values, resampled as a :class:`~bnfs.Dataset` is: each
    replicate's learner takes the gaps itself (available-case tests, structural EM)."""

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame.reset_index(drop=True)
        self.frame.columns = [str(c) for c in frame.columns]
        self.names = list(self.frame.columns)

    def __len__(self) -> int:
        return len(self.frame)

    def take(self, rows) -> pd.DataFrame:
        return self.frame.iloc[rows].reset_index(drop=True)

    def check_name(self, name, role: str) -> None:
        if name not in self.names:
            raise ValueError(f"unknown {role} {name!r}: not a column of the data")


def _resampled(data, learner: str, who: str):
    """``data`` as the replicates read it: a Dataset, or for a DataFrame with missing values
    and a learner that takes them, :class:`_IncompleteRows` (another learner is refused,
    naming those that take them)."""
    if not (isinstance(data, pd.DataFrame) and data.isna().to_numpy().any()):
        return as_dataset(data)
    if isinstance(learner, str) and learner in learners.REGISTRY:
        if not learners.get(learner).takes_missing:
            takes = [n for n in learners.REGISTRY if learners.get(n).takes_missing]
            raise ValueError(
                f"{who}: the data have missing values, which {learner} cannot learn from; "
                f"these learners take them: {takes}"
            )
        if learner in learners.STRUCTURAL_EM_SEARCH:
            rows = int(data.isna().any(axis=1).sum())
            warnings.warn(
                f"{who}: {rows} of {len(data)} rows have missing values; each resample is "
                f"learned by {learner} inside structural EM (bnfs.structural_em)",
                UserWarning,
                stacklevel=3,
            )
    return _IncompleteRows(data)


def _replicate(data, m: int, seed: int, learner: str, options: dict, target=None):
    """One replicate on ``m`` rows: drawn with replacement (a bootstrap sample), or for a
    negative ``m``, -m rows without replacement (a subsample)."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(data), m) if m > 0 else rng.permutation(len(data))[:-m]
    sample = data.take(rows)
    entry = learners.get(learner)
    options = dict(options)
    if entry.seeded and "seed" not in options:
        options["seed"] = seed
    if "progress" in entry.options:
        options.setdefault("progress", False)
    if isinstance(data, _IncompleteRows):  # each replicate would warn that EM runs
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*inside structural EM", UserWarning)
            return _learned(entry, sample, options, target)
    return _learned(entry, sample, options, target)


def _learned(entry, sample, options: dict, target):
    """The arcs and edges a network learner finds on ``sample``, or the local learner's
    blanket of ``target``."""
    if target is None:
        graph = entry.function(sample, **options)
        return list(graph.arcs), list(graph.edges)
    return entry.function(sample, target, **options)


def _replicates(data, m: int, seeds: list[int], learner: str, options: dict, target=None):
    """Several replicates in one task: the data travel to a worker once per task."""
    return [_replicate(data, m, s, learner, options, target) for s in seeds]


def _run(
    data, m, seed, R, learner, options, n_jobs, target=None, checkpoint=None, budget=None
) -> list:
    """The R replicates in seed order over joblib, in about four tasks per worker (at least
    20 with a checkpoint, which is written as each task ends). With a ``budget`` that has a
    deadline, one replicate per task, and none started once it is spent (the first always
    runs): the replicates not run are None."""
    seeds = _seeds(seed, R)
    results: list = [None] * R
    store = None
    if checkpoint is not None:
        store = Checkpoint(
            checkpoint,
            "bootstrap",
            fingerprint(
                data,
                learner=learner,
                R=R,
                m=m,
                seed=None if seed is None else int(seed),
                target=target,
                options=options,
            ),
        )
        saved = store.load() or {}
        try:
            for i, found in saved.get("replicates", {}).items():
                results[_checked_index(i, R)] = _checked_replicate(found, data.names, target)
            resumed = [i for i in range(R) if results[i] is not None]
            if resumed:  # replicates are deterministic: a saved one must recompute
                i = resumed[0]
                again = _replicate(data, m, seeds[i], learner, options, target)
                if _canonical(again, target) != _canonical(results[i], target):
                    raise ValueError(f"replicate {i} saved {results[i]!r}; it gives {again!r}")
        except (AttributeError, TypeError, ValueError) as error:
            raise ValueError(
                f"checkpoint {str(store.path)!r} is damaged ({error}); delete it to start afresh"
            ) from None
    todo = [i for i in range(R) if results[i] is None]
    tasks = max(1, min(len(todo), 4 * effective_n_jobs(n_jobs)))
    if store is not None:
        tasks = min(len(todo), max(tasks, 20))
    if budget is not None and budget.deadline is not None:
        tasks = len(todo)
    bounds = np.linspace(0, len(todo), tasks + 1).astype(int)
    chunks = [todo[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    finished = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_replicates)(data, m, [seeds[i] for i in chunk], learner, options, target)
        for chunk in chunks
    )
    for chunk, found in zip(chunks, finished):
        for i, replicate in zip(chunk, found):
            results[i] = replicate
        if store is not None:
            store.save({"replicates": {str(i): r for i, r in enumerate(results) if r is not None}})
        if budget is not None and budget.spent():
            with warnings.catch_warnings():  # joblib counts the cancelled tasks aloud
                warnings.filterwarnings("ignore", r"\d+ tasks ", UserWarning)
                finished.close()  # the tasks not started are cancelled
            break
    return results


def _checked_index(key: str, R: int) -> int:
    if not (isinstance(key, str) and key.isdigit() and int(key) < R):
        raise ValueError(f"replicate {key!r} of {R}")
    return int(key)


def _checked_replicate(found, names, target):
    """A saved replicate, if it is one: a list of distinct nodes (a blanket of ``target``)
    or the (arcs, edges) of a graph over ``names``: each pair of known, distinct nodes
    joined at most once (no duplicate, no arc both ways, no arc and edge), the arcs
    acyclic, as every learner's graph is."""
    known = set(names)
    if target is not None:
        if (
            not isinstance(found, list)
            or not all(isinstance(v, str) for v in found)
            or not set(found) <= known - {target}
            or len(set(found)) != len(found)
        ):
            raise ValueError(f"a saved blanket holds {found!r}")
        return found
    if not (isinstance(found, list) and len(found) == 2):
        raise ValueError(f"a saved graph is {found!r}, not (arcs, edges)")
    arcs, edges = found
    joined = set()
    for pair in [*arcs, *edges]:
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(v, str) for v in pair)
            and set(pair) <= known
            and pair[0] != pair[1]
        ):
            raise ValueError(f"a saved graph holds {pair!r}")
        if frozenset(pair) in joined:
            raise ValueError(f"a saved graph joins {pair[0]!r} and {pair[1]!r} twice")
        joined.add(frozenset(pair))
    arcs = [tuple(a) for a in arcs]
    try:
        DAG(names, arcs)
    except ValueError as error:
        raise ValueError(f"the arcs of a saved graph are not a DAG ({error})") from None
    return arcs, [tuple(e) for e in edges]


def _canonical(replicate, target):
    """A replicate in a form that does not depend on order: a blanket as a set, a graph as
    its arcs and its edges (unordered pairs) as sets."""
    if target is not None:
        return set(replicate)
    arcs, edges = replicate
    return {tuple(a) for a in arcs}, {frozenset(e) for e in edges}


def _check(data, learner, allowed, R, m, n_jobs, seed, options):
    if not isinstance(learner, str) or learner not in allowed:
        raise ValueError(f"learner must be one of {list(allowed)}, got {learner!r}")
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"learner_options must be a dict, got {type(options).__name__}")
    learners.check_options(learner, options or {})
    if (options or {}).get("checkpoint") is not None:
        raise ValueError(
            "learner_options may not hold 'checkpoint': every replicate would resume the "
            "same file; pass checkpoint= to the bootstrap itself"
        )
    check_int(seed, "seed", 0, allow_none=True)
    R = check_int(R, "R", 1)
    if R > MAX_REPLICATES:
        raise ValueError(
            f"R={R:,} replicates is more than the {MAX_REPLICATES:,} bnfs runs (each learns "
            "a whole network); bootstrap strengths settle within a few hundred"
        )
    m = len(data) if m is None else check_int(m, "m", 2)
    return R, m, check_int(n_jobs, "n_jobs", allow_none=True)


def boot_strength(
    data,
    learner: str = "hill_climbing",
    *,
    R: int = 200,
    m: int | None = None,
    learner_options: dict | None = None,
    n_jobs: int | None = None,
    seed=0,
    checkpoint=None,
) -> pd.DataFrame:
    """Arc strength and direction confidence over ``R`` bootstrap samples.

    Each replicate draws ``m`` rows with replacement, runs ``learner`` and records its arcs
    (an undirected edge of a PDAG counts half in each direction). For every pair of nodes
    seen at least once, ``strength`` is the share of replicates with an arc or edge between
    them and ``direction`` the share of those in which it points ``from -> to``. Replicates
    run on any joblib backend (``n_jobs``; ``joblib.parallel_backend("dask")`` for a Dask
    cluster) and the result is the same for any number of jobs.

    Parameters
    ----------
    data : Dataset or anything Dataset takes
    learner : str, default "hill_climbing"
        A network learner of :data:`bnfs.learners.REGISTRY` (score-based, hybrid or
        constraint-based); ``learner_options`` it does not take are refused by name.
    R : int, default 200
        Bootstrap replicates.
    m : int, optional
        Rows per replicate (default: as many as the data).
    learner_options : dict, optional
        Keyword arguments of the learner (e.g. ``{"score": "bde"}``).
    n_jobs : int, optional
        joblib workers (None: one).
    seed : int
    checkpoint : str or os.PathLike, optional
        A file that keeps the finished replicates; when it exists, only the missing ones
        run, so a crashed or interrupted bootstrap resumes with the same result. A file
        written for other data or other arguments is refused.

    Returns
    -------
    pandas.DataFrame
        Columns ``from``, ``to``, ``strength``, ``direction``: every ordered pair of nodes
        (strength 0 for pairs never linked), sorted by decreasing strength (bnlearn's
        ``boot.strength`` lists the pairs in node order).

    Examples
    --------
    >>> from bnfs import datasets
    >>> strength = boot_strength(datasets.sample("asia", 2000, seed=0), R=20, seed=1)
    >>> row = strength[(strength["from"] == "either") & (strength["to"] == "xray")].iloc[0]
    >>> float(row.strength)
    1.0
    """
    data = as_dataset(data)
    R, m, n_jobs = _check(data, learner, LEARNERS, R, m, n_jobs, seed, learner_options)
    options = dict(learner_options or {})
    results = _run(data, m, seed, R, learner, options, n_jobs, checkpoint=checkpoint)
    names = list(data.names)
    index = {v: i for i, v in enumerate(names)}
    counts = np.zeros((len(names), len(names)))  # counts[i, j]: replicates with i -> j
    for arcs, edges in results:
        for u, v in arcs:
            counts[index[u], index[v]] += 1.0
        for u, v in edges:
            counts[index[u], index[v]] += 0.5
            counts[index[v], index[u]] += 0.5
    both = counts + counts.T
    with np.errstate(invalid="ignore", divide="ignore"):
        direction = np.where(both > 0, counts / np.where(both > 0, both, 1.0), 0.0)
    i, j = np.nonzero(~np.eye(len(names), dtype=bool))
    frame = pd.DataFrame(
        {
            "from": np.asarray(names, dtype=object)[i],
            "to": np.asarray(names, dtype=object)[j],
            "strength": both[i, j] / R,
            "direction": direction[i, j],
        }
    )
    frame = frame.sort_values(
        ["strength", "from", "to"], ascending=[False, True, True], kind="stable"
    ).reset_index(drop=True)
    frame.attrs.update({"R": R, "m": m, "learner": learner, "nodes": names})
    return frame


def _strengths(strength) -> np.ndarray:
    """The strengths of a boot_strength frame or a sequence, checked to lie in [0, 1]."""
    try:
        values = np.asarray(
            strength["strength"] if isinstance(strength, pd.DataFrame) else strength,
            dtype=float,
        ).ravel()
    except (TypeError, ValueError, KeyError):
        raise TypeError("strength must be a boot_strength frame or a sequence of numbers") from None
    if values.size and not (np.isfinite(values).all() and values.min() >= 0 and values.max() <= 1):
        raise ValueError("strengths must lie in [0, 1]")
    return values


def inclusion_threshold(strength) -> float:
    """The strength threshold bnlearn's ``averaged.network`` estimates (Scutari & Nagarajan
    2013). With F the empirical CDF of the strengths, p0 minimizes the L1 distance
    sum_k w_k |F(u_k) - p| between F and the CDF of an ideal set of strengths (zeros and
    ones in proportions p and 1 - p); the threshold is F's p0-quantile, and the averaged
    network keeps the pairs above it (and those of strength 1). ``strength`` is a
    :func:`boot_strength` frame or the strengths themselves.

    Where the distance is flat over an interval of p, bnfs takes its smallest point;
    bnlearn's ``optimize()`` (Brent's method) lands inside it, so bnfs's threshold is never
    higher than bnlearn's and often lower: on 100 strength tables of random networks 63
    were lower, none higher (``tests/test_bnlearn_parity.py``).

    Examples
    --------
    >>> inclusion_threshold([0.0, 0.0, 0.05, 0.1, 0.9, 0.95, 1.0])  # keeps 0.9, 0.95, 1
    0.1
    """
    values = np.sort(_strengths(strength))
    if values.size == 0:
        return 0.0
    n = values.size
    knots = np.unique(values)
    grid = np.unique(np.concatenate([[0.0], knots, [1.0]]))
    left = np.unique(np.concatenate([[0.0], knots[knots < 1.0]]))
    cdf = np.searchsorted(values, left, side="right") / n
    widths = np.diff(grid)

    def distance(p: float) -> float:
        return float(np.sum(widths * np.abs(cdf - p)))

    candidates = np.unique(np.concatenate([[0.0, 1.0], cdf]))
    p0 = min(candidates, key=lambda p: (round(distance(p), 12), p))  # a weighted median
    position = max(int(np.ceil(p0 * n - 1e-12)) - 1, 0)  # quantile of type 1
    return float(values[position])


def plot_strength(strength, path=None, threshold: float | None = None):
    """The empirical CDF of the arc strengths with the inclusion threshold (bnlearn's
    ``plot`` of a ``bn.strength``): pairs right of the dashed line are in the averaged
    network. Written to ``path`` (.svg, .png or .pdf) or returned as SVG text.

    Parameters
    ----------
    strength : a :func:`boot_strength` frame, or the strengths themselves
    path : str or os.PathLike, optional
    threshold : float, optional
        Default: :func:`inclusion_threshold`'s estimate.

    Examples
    --------
    >>> plot_strength([0.0, 0.0, 0.05, 0.1, 0.9, 0.95, 1.0]).startswith("<?xml")
    True
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    values = np.sort(_strengths(strength))
    threshold = inclusion_threshold(values) if threshold is None else float(threshold)
    figure = Figure(figsize=(5, 3.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.step(values, np.arange(1, len(values) + 1) / len(values), where="post")
    axes.axvline(threshold, color="#888888", linestyle="--", label=f"threshold {threshold:.3g}")
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel("arc strength")
    axes.set_ylabel("cumulative share of node pairs")
    axes.legend(loc="upper left", frameon=False)
    if path is None:
        buffer = io.StringIO()
        save_figure(figure, buffer, "svg", bbox_inches="tight")
        return buffer.getvalue()
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("svg", "png", "pdf"):
        raise ValueError(f"picture format must be .svg, .png or .pdf, got {path.suffix!r}")
    with replacing(path) as temporary:
        save_figure(figure, temporary, fmt, bbox_inches="tight")
    return path


def averaged_network(strength: pd.DataFrame, threshold: float | None = None) -> PDAG:
    """The network of the pairs whose strength is above ``threshold`` (default: the one
    :func:`inclusion_threshold` estimates) or equal to 1, each directed the way most
    replicates point it; an even split, or an arc that would close a cycle, stays an
    undirected edge. bnlearn's ``averaged.network`` drops an arc that would close a cycle
    (an undirected edge counting both ways); otherwise, given the same threshold, the graphs
    are bnlearn's (99 of 100 random strength tables, ``tests/test_bnlearn_parity.py``).

    Examples
    --------
    >>> from bnfs import datasets
    >>> strength = boot_strength(datasets.sample("asia", 2000, seed=0), R=20, seed=1)
    >>> averaged_network(strength).n_nodes
    8
    """
    if not isinstance(strength, pd.DataFrame) or not {"from", "to", "strength", "direction"} <= set(
        strength.columns
    ):
        raise TypeError(
            "strength must be the frame boot_strength returns (columns from, to, "
            "strength, direction)"
        )
    if threshold is None:
        threshold = inclusion_threshold(strength)
    threshold = check_float(threshold, "threshold", 0.0, 1.0)
    nodes = strength.attrs.get("nodes") or sorted(set(strength["from"]) | set(strength["to"]))
    graph = PDAG(nodes)
    significant = (strength["strength"] > threshold) | (strength["strength"] == 1.0)
    chosen = strength[significant & (strength["direction"] >= 0.5)]
    chosen = chosen.assign(weight=chosen["strength"] * chosen["direction"]).sort_values(
        ["weight", "from", "to"], ascending=[False, True, True], kind="stable"
    )
    for row in chosen.itertuples(index=False):
        u, v = row[0], row[1]
        if graph.has_arc(u, v) or graph.has_arc(v, u) or graph.has_edge(u, v):
            continue
        if row.direction == 0.5:
            graph.add_edge(u, v)
            continue
        try:
            graph.add_arc(u, v)
        except ValueError:  # a cycle: keep the dependence, leave the direction open
            graph.add_edge(u, v)
    graph.learning = {
        "algorithm": "averaged_network",
        "threshold": threshold,
        **{k: v for k, v in strength.attrs.items() if k != "nodes"},
    }
    return graph


def blanket_frequency(
    data,
    target: str,
    learner: str = "hiton_mb",
    *,
    R: int = 100,
    m: int | None = None,
    learner_options: dict | None = None,
    n_jobs: int | None = None,
    seed=0,
    checkpoint=None,
    replace: bool = True,
) -> pd.Series:
    """How often each variable is in ``target``'s blanket over ``R`` bootstrap samples;
    ``freq[freq >= 0.5].index`` is a stable Markov blanket.

    With ``replace=False`` the samples are subsamples of ``m`` distinct rows (default half
    the rows), as stability selection draws them (Meinshausen & Bühlmann 2010);
    :class:`bnfs.StableBlanketSelector` selects features from these frequencies.

    ``learner`` is a local learner (hiton_mb, iamb_mb, mmmb, pcmb, ...; hiton_pc or mmpc
    for parents and children) or a network learner, whose graph's blanket is read.
    ``checkpoint`` works as in :func:`boot_strength`.

    Examples
    --------
    >>> from bnfs import datasets
    >>> freq = blanket_frequency(datasets.sample("asia", 2000, seed=0), "either", R=10)
    >>> sorted(freq[freq >= 0.5].index)  # either = tub or lung: the parents shield it
    ['lung', 'tub']
    """
    data = as_dataset(data)
    members = blanket_sets(
        data,
        target,
        learner,
        R=R,
        m=m,
        learner_options=learner_options,
        n_jobs=n_jobs,
        seed=seed,
        checkpoint=checkpoint,
        replace=replace,
    )
    counts = pd.Series(0.0, index=[v for v in data.names if v != target])
    for found in members:
        counts[list(found)] += 1.0
    return (counts / len(members)).sort_values(ascending=False, kind="stable")


def blanket_sets(
    data,
    target: str,
    learner: str = "hiton_mb",
    *,
    R: int = 100,
    m: int | None = None,
    learner_options: dict | None = None,
    n_jobs: int | None = None,
    seed=0,
    checkpoint=None,
    replace: bool = True,
    max_time: float | None = None,
) -> list[set[str]]:
    """The blanket of ``target`` found on each of ``R`` resamples, in resample order (the
    sets :func:`blanket_frequency` counts; same parameters). With ``max_time`` (seconds), no
    resample is started past it: the blankets of those done (at least one), with a
    RuntimeWarning."""
    budget = Budget(max_time)
    data = _resampled(data, learner, "blanket_sets")
    data.check_name(target, "target")
    if not isinstance(replace, bool):
        raise TypeError(f"replace must be True or False, got {replace!r}")
    if not replace and m is None:
        m = max(len(data) // 2, 2)
    R, m, n_jobs = _check(
        data, learner, BLANKET_LEARNERS + LEARNERS, R, m, n_jobs, seed, learner_options
    )
    options = dict(learner_options or {})
    if not replace:
        if m > len(data):
            raise ValueError(f"m ({m}) must not exceed the rows ({len(data)}) without replacement")
        m = -m  # a negative size asks _replicate for a subsample
    if learner in LEARNERS:
        pairs = _run(data, m, seed, R, learner, options, n_jobs, None, checkpoint, budget)
        members = [
            None if pair is None else _blanket_of(data.names, *pair, target) for pair in pairs
        ]
    else:
        members = _run(data, m, seed, R, learner, options, n_jobs, target, checkpoint, budget)
    done = [set(found) for found in members if found is not None]
    if len(done) < R:
        budget.warn("blanket_sets", f"the blankets of the {len(done)} of {R} resamples")
    return done


def _blanket_of(names, arcs, edges, target) -> set[str]:
    graph = PDAG(names, arcs=arcs, edges=edges)
    return set(graph.markov_blanket(target))
