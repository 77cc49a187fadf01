"""A target's Markov blanket read off the network learned on its neighbourhood: for data too
wide to learn a whole network, the local tests only find where to look, and the score
decides the blanket."""

from __future__ import annotations

import warnings

import pandas as pd

from bnfs._budget import Budget
from bnfs._real_data import takes_real_data
from bnfs._warn import StructuralEMWarning
from bnfs.constraint._sets import NodeLists, cond_size, target_index
from bnfs.constraint.searches import hiton_pc_search
from bnfs.graphs.local import LocalResult
from bnfs.search.automatic import learn
from bnfs.stats.citests import TestName, make_test, rows_report
from bnfs.tables._columns import column_names
from bnfs.tables._data import as_dataset

__all__ = ["neighbourhood_mb", "TESTS_PER_PAIR"]

#: the tests, per pair of columns, past which the neighbourhood is given up for the whole
#: network: one BOSS pass scores each pair of columns about once, so a local search that
#: tests more costs more than the network it stands in for. Planted blankets take far fewer
#: than one test per pair; on wide word tables (basehock) the class's HITON-PC alone runs
#: dozens per pair and the neighbourhood reaches nearly every column, where learn's whole
#: network is cheaper (CHANGELOG, "Measured defaults")
TESTS_PER_PAIR = 1.0


class _TestBudget(Budget):
    """``max_time`` plus a bound on the tests: spent once the tester has run more than
    ``most`` tests (checked between batches; whether the search would pass the bound does
    not depend on when it is checked, so neither does the answer)."""

    def __init__(self, max_time, tester, most: float):
        super().__init__(max_time)
        self.tester, self.most, self.over = tester, most, False

    def spent(self) -> bool:
        if not self.over and self.reason is None and self.tester.n_tests > self.most:
            self.over = True
        return self.over or super().spent()

    def left(self) -> float | None:
        """Seconds left of ``max_time``, whatever the tests."""
        if Budget.spent(self):
            return 0.0
        return None if self.deadline is None else max(0.0, self.deadline - self.clock())


@takes_real_data(missing="native")
def neighbourhood_mb(
    data,
    target: str,
    test: TestName = "g2",
    alpha: float = 0.1,
    *,
    max_cond_size: int | None = None,
    blacklist=None,
    whitelist=None,
    seed: int | None = 0,
    max_time: float | None = None,
    **test_options,
) -> LocalResult:
    """Markov blanket of ``target`` from the network :func:`bnfs.learn` gives on its
    neighbourhood: the target, its parents and children by HITON-PC at a loose ``alpha``,
    and theirs (two steps out: the spouses are parents of the children); the blanket is
    the target's in that network.

    On wide data HITON-MB decides every spouse by one more test among thousands of
    candidates, and noise passes some: on planted blankets
    (:func:`bnfs.datasets.planted_blanket`, 500 rows; ``benchmarks/blanket_quality.py
    --planted``) its F1 is 0.92 at 1,000 features and 0.84 at 10,000 (three seeds), 0.87
    at 100,000 (one), where this learner's is 0.96, 0.96 and 1.00, at 1.1-1.5 times
    HITON-MB's time. The tests only choose the 20-50 columns the network is learned on;
    which of them form the blanket is decided by the score, as in a whole network. On
    samples of textbook networks it is level with HITON-MB (F1 0.831 against 0.835 over
    144 targets), below where G^2 tests lack power on many-valued variables (hailfinder).

    Where the target depends on much of the data the neighbourhood grows toward every
    column and its tests cost more than a whole network: past :data:`TESTS_PER_PAIR` tests
    per pair of columns the tests stop and the blanket is read off :func:`bnfs.learn`'s
    network on all the columns (``learning["whole_network"]``). On basehock (1,993 rows,
    1,603 word columns) that answers in about a minute, where the two-step neighbourhood
    took over 300 s and reached 1,589 of the columns.

    Parameters
    ----------
    data : Dataset, DataFrame or file path
        With missing values (a DataFrame), the tests run on the rows observed in each
        test's variables and the network is learned by structural EM.
    target : str
    test, alpha, max_cond_size, **test_options
        HITON-PC's test (:func:`bnfs.constraint.hiton_pc`); a looser ``alpha`` than a blanket
        learner's, since a false member only widens the neighbourhood.
    blacklist, whitelist : list of str, optional
        Variables, as the local learners take them: blacklisted ones are never in the
        neighbourhood; whitelisted ones are in it and in the blanket.
    seed : int, optional
        :func:`bnfs.learn`'s seed.
    max_time : float, optional
        Seconds for the whole (the tests, then the network); past them the blanket found
        so far, with a RuntimeWarning and ``learning["stopped_early"]``: the target's parents and
        children found by the tests when the time ran out before the network.

    Returns
    -------
    LocalResult
        The blanket in column order; ``learning`` holds the neighbourhood
        (``neighbourhood``, every column with ``whole_network``), the tests run and the
        network's provenance (``network``).

    Examples
    --------
    >>> from bnfs import datasets
    >>> X, y, truth = datasets.planted_blanket(300, 1000, seed=0)
    >>> found = neighbourhood_mb(X.assign(y=y).astype(str), "y")
    >>> sorted(found) == sorted(truth["blanket"])
    True
    """
    incomplete = isinstance(data, pd.DataFrame) and data.isna().to_numpy().any()
    data = data.set_axis(column_names(data.columns), axis=1) if incomplete else as_dataset(data)
    tester = make_test(data, test, alpha, adjust_by_default=True, **test_options)
    n_vars = len(tester.names)
    budget = _TestBudget(max_time, tester, TESTS_PER_PAIR * n_vars * (n_vars - 1) / 2)
    target_index(tester, target)
    view = NodeLists(tester, target, blacklist, whitelist)  # bnlearn's learn.nbr lists
    view.budget = budget
    bound, memo = cond_size(max_cond_size), {}  # memo: each node's one-way search, once
    first = hiton_pc_search(view, view.target, bound, {}, memo=memo)
    hood = {view.target, *first}
    for member in first:
        if budget.spent():
            break
        hood.update(hiton_pc_search(view, member, bound, memo=memo))
    whole = budget.over  # the tests cost more than the whole network: learn that instead
    if whole:
        hood = set(range(len(view.names)))
    columns = tester.in_column_order(view.names[i] for i in hood)
    members = [view.names[i] for i in first]
    if budget.spent() and not whole:  # no time for the network: the members found so far
        network, blanket = None, set(members)
    else:
        hood = data[columns] if incomplete else data.select(columns)
        with warnings.catch_warnings():  # said in learning["missing"]
            warnings.simplefilter("ignore", StructuralEMWarning)
            timed = {"max_time": budget.left()}  # structural EM's rounds share it too
            network = learn(hood, seed=seed, progress=False, **timed)
        blanket = set(network.markov_blanket(target)) | set(whitelist or [])
    learning = {
        "target": target,
        "test": tester.test,
        "alpha": tester.alpha,
        "arguments": {
            "max_cond_size": max_cond_size,
            "blacklist": blacklist,
            "whitelist": whitelist,
            "seed": seed,
            "max_time": max_time,
            **test_options,
        },
        "n_tests": tester.n_tests,
        "neighbourhood": columns,
        "whole_network": whole,
        "network": None
        if network is None
        else {k: network.learning.get(k) for k in ("learner", "score", "starts")},
        **rows_report(tester),
    }
    if incomplete:
        learning["missing"] = {"how": "available-case tests, structural EM on the neighbourhood"}
    stopped = Budget.spent(budget) and budget.reason
    stopped = stopped or (network and network.learning.get("stopped_early"))
    if stopped:
        learning["stopped_early"] = stopped
        budget.warn("neighbourhood_mb", "the set")
    return LocalResult([v for v in columns if v in blanket], learning)
