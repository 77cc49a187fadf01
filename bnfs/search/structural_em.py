"""Structural EM as a learner (Friedman 1997; bnlearn's ``structural.em``): score-based
learning from data with missing values, each round's search named by ``maximize``. The
rounds themselves (the E-steps, the searches' starts, when to stop) are
:mod:`bnfs.em.rounds`, which takes the search as a function: the learners' door runs the
same rounds when an incomplete frame is given to a search declared
``missing="structural_em"``.
"""

from __future__ import annotations

import pandas as pd

from bnfs._real_data import takes_real_data
from bnfs.em import rounds
from bnfs.graphs.graph import DAG
from bnfs.search.automatic import learn
from bnfs.search.boss import boss
from bnfs.search.hill_climbing import hill_climbing, tabu_search
from bnfs.stats.scores import ScoreName

__all__ = ["structural_em"]

#: the searches structural EM runs by name: those that declare ``missing="structural_em"`` at
#: their door, which sends an incomplete frame given to them into the same rounds
MAXIMIZE = {
    search.__name__: search
    for search in (hill_climbing, tabu_search, boss, learn)
    if search.missing == "structural_em"
}


@takes_real_data(missing="native")
def structural_em(
    data,
    score: ScoreName | None = None,
    maximize: str = "hill_climbing",
    *,
    estep: str = "expected",
    max_iter: int = 5,
    max_parents: int | None = None,
    blacklist=None,
    whitelist=None,
    iss: float = 1.0,
    seed: int | None = 0,
    progress: bool = False,
    n_jobs: int | None = None,
    return_imputed: bool = False,
    max_time: float | None = None,
) -> DAG | tuple[DAG, pd.DataFrame]:
    """Learn a network from data with missing values by structural EM.

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete, continuous or mixed columns, with missing values (NaN, None, pd.NA).
        Without any, this is one ``maximize`` search.
    score : str, optional
        The search's score on the completed data (``"bic"`` is ``"bic-g"`` on continuous
        and ``"bic-cg"`` on mixed data). Default: the search's own, ``"bic"`` for hill
        climbing, tabu search and BOSS, :func:`bnfs.learn`'s for learn.
    maximize : {"hill_climbing", "tabu_search", "boss", "learn"}
        The search of each round; hill climbing and tabu search continue from the last
        round's graph, BOSS and :func:`bnfs.learn` (BOSS with BDeu, the vsp prior and its
        starts) search afresh.
    estep : {"expected", "impute"}, default "expected"
        ``"expected"``: the search scores expected sufficient statistics
        (:mod:`bnfs.em.rounds` says how and why), and
        :data:`~bnfs.em.rounds.PARAMETER_STEPS` parametric EM steps refine the network on
        each round's graph before the next search. On continuous data, the expected means and
        cross-products (each row's missing values are normal given its observed ones); on
        discrete data, expected counts (each incomplete row stands for its completions
        weighted by their posterior: exact up to 64 configurations of its missing values,
        16 Gibbs draws beyond), after the imputation loop; on mixed data, the
        conditional-Gaussian expected statistics (exact up to 1,024 configurations of a
        row's missing discrete values), after the imputation loop. That loop only gives EM
        its start: it runs on at most :data:`~bnfs.em.rounds.WARM_START_ROWS` rows drawn at
        random.
        ``"impute"``: each missing value takes its posterior mode (mean), computed exactly.
        bnlearn's ``structural.em`` imputes hard too, but by likelihood-weighting draws (its
        default ``impute="bayes-lw"``), so its completions and graphs differ.
        ``benchmarks/missing_data.py`` (2,000 rows, alarm, child, insurance, hailfinder at
        10% / 30% MCAR and 5% / 15% MAR, learn's search): summed SHD 350 against
        imputation's 390; ecoli70 at 10% / 30% MCAR 10 / 19 against 10 / 46 (learn's BGe).
    max_iter : int, default 5
        E-step-search rounds at most, of each loop (named and defaulted after bnlearn's
        ``max.iter``; the loops differ from bnlearn's as stated above and in
        :mod:`bnfs.em.rounds`, and further: rows
        that observe nothing are left out, and each round on expected statistics searches
        from the last graph and afresh, where bnlearn keeps every row and continues).
    max_parents, blacklist, whitelist, iss, seed, progress
        Passed to the search.
    n_jobs : int, optional
        Passed to the search where it takes it (hill climbing, tabu search, learn; BOSS
        runs in one thread and refuses it by name); the network is the same for any value.
    return_imputed : bool, default False
        Also return the data completed by the last E-step, the data the returned network
        was learned from: the caller's index, columns and observed values, each missing
        value replaced by its imputation. bnlearn's ``return.all`` returns such data too,
        but its values are likelihood-weighted draws, so they differ from these posterior
        modes and means (see :mod:`bnfs.em.rounds`).
    max_time : float, optional
        Seconds for the whole run: every round's search gets what is left, and past it EM
        returns the last round's network, flagged in ``learning["stopped_early"]``.

    Returns
    -------
    DAG, or (DAG, pandas.DataFrame) with ``return_imputed``
        ``learning`` records the E-step that ran (``estep``), the rounds (of both loops on
        discrete data), whether the last loop converged, the missing cells and the rows
        used (every row is).

    Raises
    ------
    ValueError
        A column with no observed value, or one observed level only.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("asia", 3000, seed=0)
    >>> import numpy as np
    >>> holes = frame.mask(np.random.default_rng(0).random(frame.shape) < 0.1)
    >>> dag = structural_em(holes)
    >>> dag.learning["missing_cells"] > 0, dag.learning["rows_used"] == 3000
    (True, True)
    >>> dag, completed = structural_em(holes, return_imputed=True)
    >>> int(completed.isna().sum().sum()), completed.shape == holes.shape
    (0, True)
    """
    if maximize not in MAXIMIZE:
        raise ValueError(f"maximize must be one of {list(MAXIMIZE)}, got {maximize!r}")
    return rounds.structural_em(
        data,
        MAXIMIZE[maximize],
        score=score,
        estep=estep,
        max_iter=max_iter,
        max_parents=max_parents,
        blacklist=blacklist,
        whitelist=whitelist,
        iss=iss,
        seed=seed,
        progress=progress,
        n_jobs=n_jobs,
        return_imputed=return_imputed,
        max_time=max_time,
    )
