"""The local learners' compiled searches (``CITest.tests_given`` / ``CITest.separations``,
:mod:`bnfs._kernels.separation`) give what one cached test at a time gives: the same
results, separating sets and weakest associations, hence the same blankets."""

import itertools

import numpy as np
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


LEARNERS = {
    "hiton_mb": lambda d, t, **o: bnfs.hiton_mb(d, t, **o),
    "hiton_pc_k2": lambda d, t, **o: bnfs.hiton_pc(d, t, max_cond_size=2, **o),
    "mmmb": lambda d, t, **o: bnfs.mmmb(d, t, **o),
    "pcmb": lambda d, t, **o: bnfs.pcmb(d, t, **o),
    "iamb_mb": lambda d, t, **o: bnfs.iamb_mb(d, t, **o),
    "inter_iamb_mb": lambda d, t, **o: bnfs.inter_iamb_mb(d, t, **o),
    "fast_iamb_mb": lambda d, t, **o: bnfs.fast_iamb_mb(d, t, **o),
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
