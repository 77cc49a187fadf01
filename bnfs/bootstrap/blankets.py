"""How often each variable is in a target's blanket over bootstrap replicates."""

from __future__ import annotations

import pandas as pd

from bnfs import learners
from bnfs._budget import Budget
from bnfs._validate import check_bool
from bnfs.bootstrap._resampling import (
    check,
    resampled,
    run,
)
from bnfs.graphs.graph import PDAG
from bnfs.tables._data import as_dataset


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
    RuntimeWarning. ``max_time`` may be a caller's :class:`~bnfs._budget.Budget` (a
    selector's whole fit), which then says why it stopped and warns itself."""
    owned = not isinstance(max_time, Budget)
    budget = Budget(max_time) if owned else max_time
    data = resampled(data, learner, "blanket_sets")
    data.check_name(target, "target")
    check_bool(replace, "replace")
    if not replace and m is None:
        m = max(len(data) // 2, 2)
    R, m, n_jobs = check(
        data,
        learner,
        ("blanket", "neighbours", "score", "hybrid", "constraint"),
        R,
        m,
        n_jobs,
        seed,
        learner_options,
    )
    options = dict(learner_options or {})
    if not replace:
        if m > len(data):
            raise ValueError(f"m ({m}) must not exceed the rows ({len(data)}) without replacement")
        m = -m  # a negative size asks replicate for a subsample
    if not learners.get(learner).local:
        pairs = run(data, m, seed, R, learner, options, n_jobs, None, checkpoint, budget)
        members = [
            None if pair is None else _blanket_of(data.names, *pair, target) for pair in pairs
        ]
    else:
        members = run(data, m, seed, R, learner, options, n_jobs, target, checkpoint, budget)
    done = [set(found) for found in members if found is not None]
    if len(done) < R and owned:
        budget.warn("blanket_sets", f"the blankets of the {len(done)} of {R} resamples")
    return done


def _blanket_of(names, arcs, edges, target) -> set[str]:
    graph = PDAG(names, arcs=arcs, edges=edges)
    return set(graph.markov_blanket(target))
