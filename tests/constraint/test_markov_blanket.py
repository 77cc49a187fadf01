"""Local Markov-blanket learners and the blanket-based whole-network learners."""

import warnings

import pandas as pd
import pytest

import bnfs
import reference
from bnfs import datasets, shd
from bnfs.stats.citests import CITest, DSeparation
from bnfs.stats.metrics import blanket_scores

BLANKET = [
    bnfs.constraint.grow_shrink_mb,
    bnfs.constraint.iamb_mb,
    bnfs.constraint.inter_iamb_mb,
    bnfs.constraint.fast_iamb_mb,
    bnfs.constraint.kiamb_mb,
    bnfs.constraint.hiton_mb,
    bnfs.constraint.mmmb,
    bnfs.constraint.pcmb,
]
PARENTS_CHILDREN = [bnfs.constraint.hiton_pc, bnfs.constraint.mmpc]


@pytest.mark.parametrize("name", ["asia", "child"])
def test_oracle_gives_exact_blankets(name):
    truth = datasets.network(name)
    oracle = DSeparation(truth)
    for target in truth.nodes:
        for learner in BLANKET:
            assert set(learner(oracle, target)) == set(truth.markov_blanket(target)), (
                learner,
                target,
            )
        for learner in PARENTS_CHILDREN:
            assert set(learner(oracle, target)) == set(truth.neighbours(target)), (learner, target)


@pytest.mark.parametrize("name", reference.NETWORKS)
def test_oracle_whole_network_learners_recover_the_cpdag(name):
    truth = datasets.network(name)
    for learner in (bnfs.grow_shrink, bnfs.iamb, bnfs.inter_iamb, bnfs.fast_iamb):
        pdag = learner(DSeparation(truth))
        assert pdag == truth.cpdag(), learner
        assert pdag.learning["algorithm"] == learner.__name__


@pytest.mark.parametrize(
    "name, targets",
    [
        ("insurance", ["Accident", "Age", "CarValue", "DrivQuality"]),
        ("alarm", ["HYPOVOLEMIA", "LVFAILURE", "CATECHOL", "HR", "VENTLUNG"]),
    ],
)
def test_blankets_on_larger_oracles(name, targets):
    truth = datasets.network(name)
    oracle = DSeparation(truth)
    for target in targets:
        for learner in BLANKET:
            assert set(learner(oracle, target)) == set(truth.markov_blanket(target)), learner
        assert set(bnfs.constraint.hiton_pc(oracle, target)) == set(truth.neighbours(target))


@pytest.mark.parametrize("method", ["hiton", "mmpc", "pcmb"])
@pytest.mark.parametrize("name", ["asia", "child"])
def test_local_structure_agrees_with_the_cpdag(name, method):
    truth = datasets.network(name)
    cpdag = truth.cpdag()
    oracle = DSeparation(truth)
    for target in truth.nodes:
        local = bnfs.local_structure(oracle, target, method=method)
        assert set(local.markov_blanket(target)) == set(truth.markov_blanket(target))
        assert set(local.neighbours(target)) == set(truth.neighbours(target))
        assert set(local.arcs) <= set(cpdag.arcs)  # never a wrong direction
        assert local.learning["target"] == target and local.learning["method"] == method


def test_kiamb_is_seeded_and_reaches_iamb_at_k_one():
    frame = reference.data("alarm")
    for target in ("HYPOVOLEMIA", "CATECHOL"):
        assert bnfs.constraint.kiamb_mb(frame, target, k=1.0, seed=5) == bnfs.constraint.iamb_mb(
            frame, target
        )
        assert bnfs.constraint.kiamb_mb(frame, target, k=0.3, seed=7) == bnfs.constraint.kiamb_mb(
            frame, target, k=0.3, seed=7
        )
    draws = {tuple(bnfs.constraint.kiamb_mb(frame, "CATECHOL", k=0.0, seed=s)) for s in range(8)}
    assert len(draws) > 1  # a random walk over the dependent candidates finds alternatives


def test_parallel_whole_network_learners_give_identical_results():
    frame = reference.data("child")
    for learner in (bnfs.grow_shrink, bnfs.iamb):
        sequential = learner(frame)
        parallel = learner(frame, n_jobs=2)
        assert parallel == sequential  # workers keep their own caches, so n_tests may differ


@pytest.mark.parametrize("name", reference.NETWORKS)
def test_iamb_agrees_with_bnlearn_learn_mb(name):
    frame = reference.data(name)
    golden = reference.table(name, "learn_mb_iamb_mi_0.05.tsv")
    test = CITest(frame, "mi", 0.05, adjust_df=False)  # bnlearn's df
    same = sum(
        set(bnfs.constraint.iamb_mb(test, row.target))
        == (set() if pd.isna(row.mb) else set(str(row.mb).split(",")))
        for row in golden.itertuples()
    )
    assert same >= 0.8 * len(golden)  # ties between equally strong candidates may differ


def test_sampled_alarm_blankets_and_networks():
    frame = reference.data("alarm")
    truth = reference.true_dag("alarm")
    for learner in (bnfs.constraint.hiton_mb, bnfs.constraint.mmmb, bnfs.constraint.pcmb):
        for target in ("HYPOVOLEMIA", "LVFAILURE"):
            assert blanket_scores(learner(frame, target), truth, target)["f1"] >= 0.99
    assert (
        blanket_scores(bnfs.constraint.iamb_mb(frame, "LVFAILURE"), truth, "LVFAILURE")["f1"] >= 0.8
    )
    assert shd(bnfs.iamb(frame), truth) <= 45
    assert shd(bnfs.grow_shrink(frame), truth) <= 55
    assert shd(bnfs.fast_iamb(frame), truth) <= 45
    local = bnfs.local_structure(frame, "LVFAILURE")
    assert blanket_scores(local.markov_blanket("LVFAILURE"), truth, "LVFAILURE")["f1"] >= 0.99
    assert set(local.arcs) <= set(truth.arcs)


def test_sampled_asia_blankets():
    frame = reference.data("asia")
    truth = reference.true_dag("asia")
    for learner in BLANKET:
        kwargs = {"seed": 0} if learner is bnfs.constraint.kiamb_mb else {}
        assert blanket_scores(learner(frame, "bronc", **kwargs), truth, "bronc")["f1"] >= 0.8


def test_local_learner_errors():
    frame = reference.data("asia")
    with pytest.raises(ValueError, match="target 'nope'"):
        bnfs.constraint.iamb_mb(frame, "nope")
    with pytest.raises(ValueError, match="alpha"):
        bnfs.constraint.hiton_pc(frame, "either", alpha=0)
    with pytest.raises(ValueError, match="max_cond_size"):
        bnfs.constraint.mmpc(frame, "either", max_cond_size=-2)
    with pytest.raises(ValueError, match="every column is constant"):
        bnfs.constraint.grow_shrink_mb(frame.assign(c="x").iloc[:1], "either")
    with pytest.raises(ValueError, match="k"):
        bnfs.constraint.kiamb_mb(frame, "either", k=1.5)
    with pytest.raises(ValueError, match="method must be one of"):
        bnfs.local_structure(frame, "either", method="gs")
    with pytest.raises(ValueError, match="n_jobs"):
        bnfs.iamb(frame, n_jobs=0)
    with pytest.raises(ValueError, match="rows_per_cell"):
        bnfs.constraint.fast_iamb_mb(frame, "either", rows_per_cell=-1)


def test_one_way_mmpc_keeps_what_the_symmetry_correction_drops():
    frame = datasets.sample("insurance", 1000, seed=3)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    for node in frame.columns[:8]:
        assert set(bnfs.constraint.mmpc(frame, node)) <= set(
            bnfs.constraint.mmpc(frame, node, symmetry=False)
        )
    with pytest.raises(TypeError, match="symmetry must be True or False"):
        bnfs.constraint.mmpc(frame, "Age", symmetry="no")


@pytest.mark.parametrize("learner", ["iamb_mb", "hiton_mb", "hiton_pc", "mmpc", "pcmb", "hpc"])
def test_a_local_result_carries_its_provenance(learner):
    import pickle

    frame = datasets.sample("asia", 1500, seed=4)
    found = bnfs.learners.get(learner).function(frame, "lung", "x2", 0.01)
    assert isinstance(found, list) and found == list(found)
    learning = found.learning
    assert (learning["algorithm"], learning["target"], learning["test"], learning["alpha"]) == (
        learner,
        "lung",
        "x2",
        0.01,
    )
    assert learning["n_tests"] > 0 and learning["seconds"] >= 0
    again = pickle.loads(pickle.dumps(found))  # crosses joblib workers intact
    assert again == found and again.learning == learning


@pytest.mark.parametrize("name", ["child", "insurance", "alarm"])
@pytest.mark.parametrize("learner", ["hiton_mb", "mmmb"])
def test_default_blankets_are_accurate_on_the_largest_blankets(name, learner):
    """Adjusted degrees of freedom (the default for subset-conditioning learners): mean F1
    over the five largest true blankets of a 5,000-row sample, against bnlearn's unadjusted
    test on the same rows."""
    import numpy as np

    frame, truth = reference.data(name), reference.true_dag(name)
    targets = sorted(truth.nodes, key=lambda v: (-len(truth.markov_blanket(v)), v))[:5]
    learn = bnfs.learners.get(learner).function

    def mean_f1(**options):
        return np.mean(
            [blanket_scores(learn(frame, t, **options), truth, t)["f1"] for t in targets]
        )

    default = mean_f1()
    assert default >= 0.75
    assert default > mean_f1(adjust_df=False)
    assert learn(frame, targets[0]).learning["adjust_df"] is True


LOCAL = [
    *BLANKET,
    *PARENTS_CHILDREN,
    bnfs.constraint.hpc,
    lambda data, target, **lists: bnfs.local_structure(data, target, **lists).markov_blanket(
        target
    ),
]


@pytest.mark.parametrize("learner", LOCAL)
def test_every_local_learner_keeps_its_node_lists(learner):
    """bnlearn's learn.mb/learn.nbr semantics: a blacklisted variable is never tested or
    conditioned on (for any node the search visits); a whitelisted one is always found."""
    frame = datasets.sample("alarm", 1000, seed=6)
    tester = CITest(frame, "g2", 0.05)
    black, white = ["CO", "HRBP"], ["HISTORY"]
    found = learner(tester, "HR", blacklist=black, whitelist=white)
    assert "HISTORY" in found and not set(black) & set(found)
    dropped = {tester.index(v) for v in black}
    assert tester.n_tests > 0
    assert all(not dropped & {x, y, *z} for x, y, z in tester._cache)
    # unlisted, the learner does find one of them (so the lists changed the answer)
    assert set(black) & set(learner(frame, "HR")) or "HISTORY" not in learner(frame, "HR")


def test_node_list_errors_name_the_entry():
    frame = reference.data("asia")
    with pytest.raises(TypeError, match="variable names .* not arcs"):
        bnfs.constraint.hiton_pc(frame, "either", blacklist=[("either", "lung")])
    with pytest.raises(ValueError, match="blacklist entry 'nope'"):
        bnfs.constraint.iamb_mb(frame, "either", blacklist=["nope"])
    with pytest.raises(ValueError, match="target 'either' cannot be in its own whitelist"):
        bnfs.constraint.mmpc(frame, "either", whitelist=["either"])
    with pytest.raises(ValueError, match="'lung' is both black- and whitelisted"):
        bnfs.constraint.hpc(frame, "either", blacklist="lung", whitelist=["lung"])
    with pytest.raises(TypeError, match="whitelist must be a list"):
        bnfs.constraint.pcmb(frame, "either", whitelist=3)


def test_oracle_whitelist_and_blacklist_on_asia():
    """On the exact oracle: dropping ``lung`` leaves ``smoke`` d-connected to ``either``
    (through the dropped node), so it enters the blanket; whitelisting keeps a non-member."""
    oracle = DSeparation(datasets.network("asia"))
    assert bnfs.constraint.iamb_mb(oracle, "either", blacklist=["lung"]) == [
        "tub",
        "smoke",
        "bronc",
        "xray",
        "dysp",
    ]
    assert "asia" in bnfs.constraint.hiton_mb(oracle, "either", whitelist=["asia"])


class _Separates:
    """A fake tester: x, y (0, 1) are independent only given exactly ``given``."""

    def __init__(self, given):
        self.given, self.seen = set(given), []

    def test_indices(self, x, y, z=()):
        from bnfs.stats.citests import CIResult

        self.seen.append(tuple(sorted(z)))
        independent = set(z) == self.given
        return CIResult(0.0, 1.0, 0.5 if independent else 0.001, independent)


@pytest.mark.parametrize("separator", [{2}, {3}])
def test_blanket_adjacency_on_a_tie_searches_both_blankets(separator):
    """bnlearn decides adjacency from both sides, each searching the smaller blanket (the
    other's on a tie), and keeps the pair only if both do: on a tie either blanket's
    separating set removes it."""
    from bnfs.constraint.blanket_networks import _neighbours_among_blankets

    mbs = [{1, 2}, {0, 3}, {0}, {1}]
    assert not _neighbours_among_blankets(_Separates(separator), (0, 1), mbs, None)
    assert _neighbours_among_blankets(_Separates({4}), (0, 1), mbs, None)


def test_blanket_collider_search_on_a_tie_uses_the_later_column():
    """R's smaller(a, b) returns b on a tie: the blanket of the pair's later column."""
    from bnfs.constraint._orient import colliders_from_blankets

    adjacency = [{2}, {2}, {0, 1}, set(), set()]
    blankets = [{2, 3}, {2, 4}, {0, 1}, {0}, {1}]
    # x = 0, y = 1 around z = 2; given {2, 4} (y's blanket) they are independent
    tester = _Separates({2, 4})
    assert colliders_from_blankets(adjacency, blankets, tester.test_indices, None) == []
    # the same graph with columns 0 and 1 swapped: now column 1's blanket {2, 4} is that
    # of the earlier column, the later column's blanket {3} is searched and finds no separator
    tester = _Separates({2, 4})
    swapped = [{2, 4}, {2, 3}, {0, 1}, {1}, {0}]
    found = colliders_from_blankets(adjacency, swapped, tester.test_indices, None)
    assert found == [(0, 2, 1)] and (2, 3) in tester.seen


def test_local_learners_stop_on_time_with_the_set_so_far():
    """max_time=0: the search stops at its first check, before its first test ends in a
    compiled batch; candidates it had no time to test are not admitted (HITON-MB's and
    IAMB's sets are empty); a warning says so, learning records it, a budget never
    reached changes nothing."""
    frame = datasets.sample("alarm", 2000, seed=4)
    assert bnfs.constraint.hiton_pc(frame, "HR")
    with pytest.warns(RuntimeWarning, match="hiton_mb stopped early.*the set found so far"):
        early = bnfs.constraint.hiton_mb(frame, "HR", max_time=0)
    assert early == [] and early.learning["stopped_early"] == "max_time reached"
    with pytest.warns(RuntimeWarning, match="iamb_mb stopped early"):
        assert bnfs.constraint.iamb_mb(frame, "HR", max_time=0) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        timed = bnfs.constraint.mmmb(frame, "HR", max_time=600)
    assert timed == bnfs.constraint.mmmb(frame, "HR") and not timed.learning.get("stopped_early")
    with pytest.raises(ValueError, match="max_time"):
        bnfs.constraint.pcmb(frame, "HR", max_time=-1)


def test_the_selector_passes_its_time_budget_on():
    frame = datasets.sample("alarm", 2000, seed=4)
    X, y = frame.drop(columns="HR"), frame["HR"]
    with pytest.warns(RuntimeWarning, match="stopped early"):
        selector = bnfs.MarkovBlanketSelector("hiton_mb", max_time=0).fit(X, y)
    assert selector.stopped_ == "max_time reached"
    with pytest.warns(RuntimeWarning, match="hill_climbing stopped early"):
        bnfs.MarkovBlanketSelector("hill_climbing", max_time=0).fit(X, y)
    with pytest.raises(ValueError, match="tpda does not; these do: .*'hiton_mb'"):
        bnfs.MarkovBlanketSelector("tpda", max_time=5).fit(X, y)


def test_spouses_decided_together_keep_planted_noise_out():
    """2,000 genotype-like features, 500 rows: each collider test at alpha lets a noise
    feature in as a spouse; decided together at a false discovery rate of alpha
    (Benjamini-Yekutieli, the default) the blanket is the planted one."""
    X, y, truth = bnfs.datasets.planted_blanket(2000, 500, seed=1)
    frame = X.assign(y=y).astype(str)
    together = bnfs.constraint.hiton_mb(frame, "y")
    assert sorted(together) == sorted(truth["blanket"])
    assert together.learning["spouse_fdr"] is True
    each = bnfs.constraint.hiton_mb(frame, "y", spouse_fdr=False)
    extra = set(each) - set(truth["blanket"])
    assert set(each) >= set(truth["blanket"]) and extra
    assert all(name.startswith("X") for name in extra)  # features independent of all
    with pytest.raises(TypeError, match="spouse_fdr must be True or False"):
        bnfs.constraint.mmmb(frame, "y", spouse_fdr="yes")


def test_benjamini_yekutieli_rejects_as_scipy_does():
    import numpy as np
    from scipy.stats import false_discovery_control

    from bnfs.constraint.searches import by_rejections

    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 40):
        p = np.concatenate([rng.uniform(0, 0.002, size=m // 3), rng.uniform(size=m - m // 3)])
        tests = [(float(v), f"x{i}") for i, v in enumerate(p)]
        adjusted = false_discovery_control(p, method="by")
        expected = [f"x{i}" for i in range(m) if adjusted[i] <= 0.05]
        assert by_rejections(tests, 0.05) == expected
    assert by_rejections([], 0.05) == []
    # step-up: 0.02 is over its rank's threshold (2 x 0.05 / (3 x 11/6) = 0.018), but the
    # larger 0.021 passes its own (0.027), and every test up to it is rejected
    tests = [(0.02, "a"), (0.021, "b"), (0.001, "c")]
    assert by_rejections(tests, 0.05) == ["a", "b", "c"]
    assert by_rejections([(0.04, "a"), (0.05, "b")], 0.05) == []
