"""The local learners' compiled searches (``CITest.tests_given`` / ``CITest.separations``,
:mod:`bnfs._kernels.separation`) give what one cached test at a time gives: the same
results, separating sets and weakest associations, hence the same blankets."""

import contextlib
import itertools

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs import datasets
from bnfs.constraint._sets import subsets
from bnfs.constraint.local_structure import local_structure
from bnfs.stats.citests import CITest, make_test

TESTS = [("g2", {"adjust_df": True}), ("x2", {}), ("mi_adf", {}), ("mi_threshold", {})]


@pytest.fixture(scope="module")
def alarm():
    frame = datasets.sample("alarm", 800, seed=3)
    return frame.loc[:, frame.nunique() > 1]


def _pair(frame, test, options):
    batched = CITest(frame, test, **options)
    single = CITest(frame, test, **options)
    single.batched = False
    return batched, single


@pytest.mark.parametrize("test, options", TESTS)
def test_tests_given_is_one_test_per_candidate(alarm, test, options):
    batched, single = _pair(alarm, test, options)
    rng = np.random.default_rng(0)
    for _ in range(10):
        t, *z = rng.choice(len(batched.names), size=int(rng.integers(1, 5)), replace=False)
        candidates = [x for x in range(len(batched.names)) if x != t and x not in z]
        ours = batched.tests_given(int(t), candidates, z)
        theirs = single.tests_given(int(t), candidates, z)
        for field in ("statistic", "p_value", "independent"):
            assert getattr(ours, field).tolist() == getattr(theirs, field).tolist(), field
        assert ours.dependent(candidates) == theirs.dependent(candidates)
    assert batched.n_tests >= single.n_tests > 0  # the cache spares repeats


@pytest.mark.parametrize("test, options", TESTS)
def test_separations_agree_with_one_test_at_a_time(alarm, test, options):
    batched, single = _pair(alarm, test, options)
    rng = np.random.default_rng(1)
    p = len(batched.names)
    seen = []
    for trial in range(40):
        t = int(rng.integers(p))
        pool = [int(v) for v in rng.choice([v for v in range(p) if v != t], 6, replace=False)]
        candidates = [x for x in range(p) if x != t and x not in pool][trial % 3 :: 3]
        options = {
            "max_size": [None, 0, 1, 2, 3][trial % 5],
            "min_size": trial % 2,
            "tested": pool[: trial % 6] if trial % 4 == 1 else None,
            "grow": trial % 4 == 3,
        }
        ours = batched.separations(t, candidates, pool, **options)
        theirs = single.separations(t, candidates, pool, **options)
        assert ours == theirs, options
        seen += ours[0]
    assert any(s.subset for s in seen) and any(s.weakest for s in seen)


def test_separating_sets_longer_than_the_first_buffer_are_kept(alarm):
    # three candidates separated only by large sets: more subset members than the buffer
    # the kernel starts with (4 per candidate + 16), which it grows and resumes
    batched, single = _pair(alarm, "mi_adf", {})
    p = len(batched.names)
    z = list(range(1, 12))
    candidates = [x for x in range(12, p)][:3]
    ours = batched.separations(0, candidates, z, min_size=11)
    assert ours == single.separations(0, candidates, z, min_size=11)
    assert sum(len(s.subset or ()) for s in ours[0]) > 4 * 3 + 16


class _Clock:
    """A budget that is spent after ``checks`` questions (never, with None), counting them,
    with a pace of ``every`` tests per compiled call."""

    def __init__(self, checks=None, every=256):
        self.checks, self.asked, self.every = checks, 0, every

    def spent(self):
        self.asked += 1
        return self.checks is not None and self.asked > self.checks

    def pace(self, most, first):
        return _FixedPace(self.every)


def _chain(n_features, flip, rows=400, seed=0):
    """Binary features f000, f001, ... each a noisy copy of the one before."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, rows)
    columns = {}
    for k in range(n_features):
        x = np.where(rng.random(rows) < flip, 1 - x, x)
        columns[f"f{k:03d}"] = x.copy()
    return pd.DataFrame(columns)


@pytest.mark.kernels
@pytest.mark.parametrize("grow", [False, True])
def test_a_search_paused_between_tests_goes_on_where_it_stopped(grow):
    # the compiled search pauses every few tests (here 7, mid-candidate and between
    # candidates) to ask the budget, and resumes at the subset it stopped at: the same
    # separations, pool and test count as one uninterrupted call
    frame = _chain(60, flip=0.1)
    paused, whole = CITest(frame, "g2"), CITest(frame, "g2")
    # candidates near the target that a pool far from it does not separate, with some
    # (the farthest) that it does
    pool, candidates = list(range(8)), [31, 29, 28, 32, 33, 27, 26, 34, 45, 12, 50]
    clock = _Clock(every=7)
    ours = paused.separations(30, candidates, pool, 3, grow=grow, budget=clock)
    assert ours == whole.separations(30, candidates, pool, 3, grow=grow)
    assert paused.n_tests == whole.n_tests
    assert clock.asked >= paused.n_tests // 7 - 1 > 10


@pytest.mark.kernels
@pytest.mark.parametrize("batched", [True, False])
def test_a_spent_budget_leaves_the_candidates_not_reached_out_of_the_pool(alarm, batched):
    tester = CITest(alarm, "g2")
    tester.batched = batched
    p = len(tester.names)
    candidates = list(range(1, p))
    full, grown = tester.separations(0, candidates, [], 2, grow=True)
    assert len(grown) > 1
    found, pool = tester.separations(0, candidates, [], 2, grow=True, budget=_Clock(0))
    assert pool == [] and len(found) == len(candidates)
    assert all(s.subset is None and s.weakest is None for s in found)


class _FixedPace:
    def __init__(self, size):
        self.size = size

    def timing(self):
        return contextlib.nullcontext()


def test_hiton_pc_stops_inside_its_forward_phase_at_max_time():
    # 300 strongly chained features: the forward phase is one search over all of them; a
    # zero budget stops it before its first paced call ends, with fewer tests than a
    # full run and the stop recorded
    frame = _chain(300, flip=0.2)
    full = bnfs.constraint.hiton_pc(frame, "f150")
    with pytest.warns(RuntimeWarning, match="max_time"):
        stopped = bnfs.constraint.hiton_pc(frame, "f150", max_time=0)
    assert stopped.learning["stopped_early"] == "max_time reached"
    assert stopped.learning["n_tests"] < full.learning["n_tests"] / 2


LEARNERS = {
    "hiton_mb": lambda d, t, **o: bnfs.constraint.hiton_mb(d, t, **o),
    "hiton_pc_k2": lambda d, t, **o: bnfs.constraint.hiton_pc(d, t, max_cond_size=2, **o),
    "mmmb": lambda d, t, **o: bnfs.constraint.mmmb(d, t, **o),
    "pcmb": lambda d, t, **o: bnfs.constraint.pcmb(d, t, **o),
    "iamb_mb": lambda d, t, **o: bnfs.constraint.iamb_mb(d, t, **o),
    "inter_iamb_mb": lambda d, t, **o: bnfs.constraint.inter_iamb_mb(d, t, **o),
    "fast_iamb_mb": lambda d, t, **o: bnfs.constraint.fast_iamb_mb(d, t, **o),
}


@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("net, rows", [("alarm", 800), ("insurance", 1500)])
def test_local_learners_find_the_same_blankets_batched(name, net, rows):
    frame = datasets.sample(net, rows, seed=5)
    frame = frame.loc[:, frame.nunique() > 1]
    names = sorted(frame.columns)
    for target in names[::4]:
        batched = make_test(frame, "g2", adjust_by_default=name not in ("iamb_mb",))
        single = make_test(frame, "g2", adjust_by_default=name not in ("iamb_mb",))
        single.batched = False
        assert LEARNERS[name](batched, target) == LEARNERS[name](single, target), target


def test_local_structure_is_the_same_batched_with_node_lists():
    frame = datasets.sample("insurance", 1500, seed=2)
    frame = frame.loc[:, frame.nunique() > 1]
    for method, target in itertools.product(["hiton", "mmpc", "pcmb"], ["Accident", "Age"]):
        graphs = []
        for batched in (True, False):
            tester = make_test(frame, "g2", adjust_by_default=True)
            tester.batched = batched
            graphs.append(
                local_structure(
                    tester, target, method, blacklist=["Mileage"], whitelist=["DrivQuality"]
                )
            )
        assert graphs[0].arcs == graphs[1].arcs and graphs[0].edges == graphs[1].edges


# --- the searches as they ran before the compiled batches: one cached test at a time ------


def _key(result):
    return (result.p_value, -result.statistic)


def _reference_backward(tester, t, members, max_size, sepsets):
    for x in list(members):
        rest = [v for v in members if v != x]
        for s in subsets(rest, max_size):
            if s and tester.test_indices(t, x, s).independent:
                members.remove(x)
                sepsets[x] = s
                break
    return members


def _reference_hiton(tester, t, max_size, sepsets):
    pc, marginal = [], []
    for x in range(len(tester.names)):
        if x != t:
            result = tester.test_indices(t, x, ())
            if result.independent:
                sepsets[x] = ()
            else:
                marginal.append((_key(result), x))
    for _, x in sorted(marginal):
        s = next(
            (s for s in subsets(pc, max_size) if tester.test_indices(t, x, s).independent), None
        )
        if s is None:
            pc.append(x)
        else:
            sepsets[x] = s
    return _reference_backward(tester, t, pc, max_size, sepsets)


def _reference_mmpc(tester, t, max_size, sepsets, prune=False):
    members = []
    candidates = [x for x in range(len(tester.names)) if x != t]
    while candidates:
        keys = {}
        for x in candidates:
            worst = None
            for s in subsets(members, max_size):
                result = tester.test_indices(t, x, s)
                if result.independent:
                    sepsets[x], worst = s, None
                    break
                worst = _key(result) if worst is None else max(worst, _key(result))
            else:
                keys[x] = worst
        candidates = [x for x in candidates if x in keys]
        if not candidates:
            break
        best = min(candidates, key=lambda x: (keys[x], x))
        members.append(best)
        candidates.remove(best)
        if prune:
            _reference_backward(tester, t, members, max_size, sepsets)
    return members if prune else _reference_backward(tester, t, members, max_size, sepsets)


@pytest.mark.parametrize("test, options", TESTS)
@pytest.mark.parametrize("max_size", [None, 2])
def test_one_way_searches_match_the_per_test_reference(test, options, max_size):
    from bnfs.constraint import searches
    from bnfs.constraint._sets import NodeLists

    frame = datasets.sample("alarm", 500, seed=1)
    frame = frame.loc[:, frame.nunique() > 1]
    ours_of = {
        "hiton": lambda v, t, s: searches.hiton_pc_one_way_search(v, t, max_size, s),
        "mmpc": lambda v, t, s: searches.mmpc_one_way_search(v, t, max_size, s),
        "pcmb": lambda v, t, s: searches._pcd_search(v, t, max_size, s),
    }
    theirs_of = {
        "hiton": lambda v, t, s: _reference_hiton(v, t, max_size, s),
        "mmpc": lambda v, t, s: _reference_mmpc(v, t, max_size, s),
        "pcmb": lambda v, t, s: _reference_mmpc(v, t, max_size, s, prune=True),
    }
    reference = make_test(frame, test, **options)
    reference.batched = False
    for t in range(0, len(reference.names), 2):
        for name in ours_of:
            ours_sep, theirs_sep = {}, {}
            ours = ours_of[name](NodeLists(make_test(frame, test, **options)), t, ours_sep)
            theirs = theirs_of[name](reference, t, theirs_sep)
            assert (ours, ours_sep) == (theirs, theirs_sep), (name, t)
