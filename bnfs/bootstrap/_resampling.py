"""The bootstrap's replicates: resampling (incomplete rows kept), one learner run per
replicate in parallel chunks, each replicate checked, and checkpoints."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs

from bnfs import learners
from bnfs._checkpoint import Checkpoint, fingerprint
from bnfs._validate import check_int
from bnfs._warn import StructuralEMWarning, user_stacklevel
from bnfs.graphs.graph import DAG
from bnfs.tables._data import as_dataset

#: the most replicates a bootstrap runs: their seeds and results are held in memory
MAX_REPLICATES = 100_000


def replicate_seeds(seed, r: int) -> list[int]:
    """R independent seeds from one: the same for any number of jobs."""
    sequence = np.random.SeedSequence(None if seed is None else int(seed))
    return [int(s.generate_state(1)[0]) for s in sequence.spawn(r)]


class IncompleteRows:
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


def resampled(data, learner: str, who: str):
    """``data`` as the replicates read it: a Dataset, or for a DataFrame with missing values
    and a learner that takes them, :class:`IncompleteRows` (another learner is refused,
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
        if learners.get(learner).missing == "structural_em":
            rows = int(data.isna().any(axis=1).sum())
            warnings.warn(
                f"{who}: {rows} of {len(data)} rows have missing values; each resample is "
                f"learned by {learner} inside structural EM (bnfs.structural_em)",
                StructuralEMWarning,
                stacklevel=user_stacklevel(),
            )
    return IncompleteRows(data)


def run_replicate(data, m: int, seed: int, learner: str, options: dict, target=None):
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
    with warnings.catch_warnings():  # each replicate would say that EM runs: said once
        warnings.simplefilter("ignore", StructuralEMWarning)
        return learned(entry, sample, options, target)


def learned(entry, sample, options: dict, target):
    """The arcs and edges a network learner finds on ``sample``, or the local learner's
    blanket of ``target``."""
    if target is None:
        graph = entry.function(sample, **options)
        return list(graph.arcs), list(graph.edges)
    return entry.function(sample, target, **options)


def replicates(data, m: int, seeds: list[int], learner: str, options: dict, target=None):
    """Several replicates in one task: the data travel to a worker once per task."""
    return [run_replicate(data, m, s, learner, options, target) for s in seeds]


def run(
    data, m, seed, R, learner, options, n_jobs, target=None, checkpoint=None, budget=None
) -> list:
    """The R replicates in seed order over joblib, in about four tasks per worker (at least
    20 with a checkpoint, which is written as each task ends). With a ``budget`` that has a
    deadline, one replicate per task, and none started once it is spent (the first always
    runs): the replicates not run are None."""
    seeds = replicate_seeds(seed, R)
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
                results[checked_index(i, R)] = checked_replicate(found, data.names, target)
            resumed = [i for i in range(R) if results[i] is not None]
            if resumed:  # replicates are deterministic: a saved one must recompute
                i = resumed[0]
                again = run_replicate(data, m, seeds[i], learner, options, target)
                if canonical(again, target) != canonical(results[i], target):
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
        delayed(replicates)(data, m, [seeds[i] for i in chunk], learner, options, target)
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


def checked_index(key: str, R: int) -> int:
    if not (isinstance(key, str) and key.isdigit() and int(key) < R):
        raise ValueError(f"replicate {key!r} of {R}")
    return int(key)


def checked_replicate(found, names, target):
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


def canonical(replicate, target):
    """A replicate in a form that does not depend on order: a blanket as a set, a graph as
    its arcs and its edges (unordered pairs) as sets."""
    if target is not None:
        return set(replicate)
    arcs, edges = replicate
    return {tuple(a) for a in arcs}, {frozenset(e) for e in edges}


def check(data, learner, kinds, R, m, n_jobs, seed, options):
    learners.check_name(learner, *kinds)
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
