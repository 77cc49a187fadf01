"""hill_climbing and tabu_search against bnlearn's hc and tabu, live: bnlearn-port compiles
R bnlearn 5.2.1's own C sources (a test dependency only: GPL-3). Samples of the networks
pgmpy ships, columns shuffled, every score, black/whitelists and max_parents: with
``scan_order="columns"`` (bnlearn's tie order) the graphs must be equal, arc for arc."""

import numpy as np
import pytest

import bnfs
from bnfs import datasets

pybnlearn = pytest.importorskip(
    "pybnlearn",
    reason="bnlearn-port, the parity oracle, is not installed: pip install '.[test]' "
    "(its wheels are for Linux x86_64 only)",
)


def _sample(name: str, rows: int):
    frame = datasets.sample(name, rows, seed=11)
    columns = list(frame.columns)
    np.random.default_rng(len(columns)).shuffle(columns)
    return frame[columns]


def _bnlearn_arcs(learned) -> set[tuple[str, str]]:
    arcs = pybnlearn.arcs(learned)
    rows = arcs.itertuples(index=False) if hasattr(arcs, "itertuples") else arcs
    return {tuple(map(str, row)) for row in rows}


def _both(frame, algorithm: str, score: str, **options):
    """(bnfs's arcs, bnlearn's arcs) of one search on ``frame``."""
    ours = {"hc": bnfs.hill_climbing, "tabu": bnfs.tabu_search}[algorithm]
    names = {"max_parents": "maxp"}
    theirs = {names.get(k, k): v for k, v in options.items() if k != "scan_order"}
    # bnlearn counts a factor's declared levels, bnfs the observed ones: declare those
    factors = frame.astype(str).astype("category")
    learned = getattr(pybnlearn, algorithm)(factors, score=score, **theirs)
    return set(ours(frame, score, progress=False, **options).arcs), _bnlearn_arcs(learned)


@pytest.mark.parametrize("algorithm", ["hc", "tabu"])
@pytest.mark.parametrize("score", ["bic", "bde", "k2", "aic", "bds", "qnml"])
@pytest.mark.parametrize(
    "name, rows", [("asia", 2000), ("child", 2000), ("insurance", 3000), ("alarm", 3000)]
)
def test_the_graph_is_bnlearns(name, rows, score, algorithm):
    ours, theirs = _both(_sample(name, rows), algorithm, score, scan_order="columns")
    assert ours == theirs, (sorted(ours - theirs), sorted(theirs - ours))


@pytest.mark.parametrize(
    "algorithm, options",
    [
        ("hc", {"max_parents": 2}),
        ("tabu", {"max_parents": 1}),
        ("tabu", {"tabu": 3}),
        ("tabu", {"tabu": 30}),
        ("hc", {"iss": 10.0}),
        (
            "hc",
            {
                "blacklist": [("Age", "RiskAversion"), ("SocioEcon", "GoodStudent")],
                "whitelist": [("DrivingSkill", "DrivHist")],
            },
        ),
        ("tabu", {"whitelist": [("Theft", "ThisCarDam")], "max_parents": 3}),
    ],
)
def test_options_are_bnlearns(algorithm, options):
    score = "bde" if "iss" in options else "bic"
    ours, theirs = _both(
        _sample("insurance", 2000), algorithm, score, scan_order="columns", **options
    )
    assert ours == theirs, (sorted(ours - theirs), sorted(theirs - ours))


@pytest.mark.parametrize("test", ["mi_adf", "x2_adf"])
def test_adf_tests_are_bnlearns_power_rule_included(test):
    """bnlearn's mi-adf / x2-adf: degrees of freedom over observed levels per stratum, and
    independence (p = 1) below 5 rows per table cell."""
    frame = datasets.sample("alarm", 500, seed=5).astype(str)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    factors = frame.astype("category")
    ours = bnfs.CITest(frame, test)
    rng = np.random.default_rng(0)
    powerless = 0
    for _ in range(60):
        x, y, *z = rng.choice(frame.columns, size=int(rng.integers(2, 6)), replace=False)
        result = ours(x, y, z)
        theirs = pybnlearn.ci_test(factors, x, y, z or None, test=test.replace("_", "-"))
        assert result.p_value == pytest.approx(theirs["p.value"], abs=1e-10), (x, y, z)
        powerless += result.statistic == 0 and result.p_value == 1
    assert 5 <= powerless <= 55  # both sides of the rule were exercised


@pytest.mark.parametrize("name, rows", [("alarm", 1000), ("child", 500)])
def test_pc_stable_skeleton_with_mi_adf_is_bnlearns(name, rows):
    frame = datasets.sample(name, rows, seed=2).astype(str)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    ours = bnfs.pc_stable(frame, "mi_adf", alpha=0.05)
    theirs = pybnlearn.pc_stable(
        frame[sorted(frame.columns)].astype("category"), test="mi-adf", alpha=0.05
    )
    assert {frozenset(p) for p in ours.arcs + ours.edges} == {
        frozenset(arc) for arc in _bnlearn_arcs(theirs)
    }


def test_one_way_mmpc_is_bnlearns_learn_nbr():
    frame = datasets.sample("insurance", 1000, seed=3).astype(str)
    frame = frame[sorted(c for c in frame.columns if frame[c].nunique() > 1)]
    factors = frame.astype("category")
    differs = 0
    for node in frame.columns:
        ours = bnfs.constraint.mmpc(
            frame, node, "mi", symmetry=False, adjust_df=False
        )  # bnlearn's mi
        theirs = pybnlearn.learn_nbr(factors, node, method="mmpc", test="mi", alpha=0.05)
        assert sorted(ours) == sorted(map(str, theirs)), node
        differs += set(ours) != set(bnfs.constraint.mmpc(frame, node, "mi", adjust_df=False))
    assert differs > 0  # the symmetry correction does change some sets


def _fresh_sample(name: str, rows: int):
    """Seed-4 rows, no constant column, columns shuffled."""
    frame = datasets.sample(name, rows, seed=4).astype(str)
    columns = [c for c in frame.columns if frame[c].nunique() > 1]
    np.random.default_rng(rows).shuffle(columns)
    return frame[columns]


def _graph_arcs(graph) -> set[tuple[str, str]]:
    """A PDAG as bnlearn lists it: an undirected edge is both arcs."""
    return set(graph.arcs) | {(u, v) for u, v in graph.edges} | {(v, u) for u, v in graph.edges}


@pytest.mark.parametrize("test", ["mi", "mi_adf", "x2"])
@pytest.mark.parametrize("name, rows", [("child", 1000), ("insurance", 2000), ("alarm", 2000)])
def test_pc_stable_with_bnlearns_orientation_is_bnlearns_graph(name, rows, test):
    """Skeleton, separating sets, collider order, conflicts and bnlearn's own propagation:
    the whole graph. bnlearn's answer depends on the column order, so the tester is built on
    the data's order."""
    frame = _fresh_sample(name, rows)
    ours = bnfs.pc_stable(bnfs.CITest(frame, test, 0.05), orientation="bnlearn")
    theirs = pybnlearn.pc_stable(frame.astype("category"), test=test.replace("_", "-"), alpha=0.05)
    assert _graph_arcs(ours) == _bnlearn_arcs(theirs)


@pytest.mark.parametrize(
    "algorithm, name, rows, test",
    [
        *[
            (a, "asia", 2000, t)
            for a in ("grow_shrink", "iamb", "inter_iamb", "fast_iamb")
            for t in ("mi", "x2")
        ],
        *[(a, "alarm", 500, "mi") for a in ("grow_shrink", "iamb", "inter_iamb")],
    ],
)
def test_blanket_learners_are_bnlearns_on_these_samples(algorithm, name, rows, test):
    """bnlearn's collider rule (dependence given the centre plus every subset of the smaller
    blanket), whole graphs. On other samples the blankets themselves can differ from
    bnlearn's (see the learners' docstrings)."""
    frame = _fresh_sample(name, rows)  # (fast.iamb's blankets differ on alarm-500)
    ours = bnfs.learners.get(algorithm).function(bnfs.CITest(frame, test, 0.05))
    theirs = getattr(pybnlearn, algorithm.replace("grow_shrink", "gs"))(
        frame.astype("category"), test=test, alpha=0.05
    )
    assert _graph_arcs(ours) == _bnlearn_arcs(theirs)


@pytest.mark.parametrize(
    "algorithm, name, rows, test",
    [
        ("pc_stable", "child", 1000, "mi"),
        ("pc_stable", "alarm", 2000, "x2"),
        ("grow_shrink", "asia", 2000, "mi"),
        ("iamb", "asia", 2000, "x2"),
        ("inter_iamb", "alarm", 500, "mi"),
    ],
)
def test_given_a_frame_the_graph_is_bnlearns_on_the_columns_sorted_by_name(
    algorithm, name, rows, test
):
    """What the docstrings say: a DataFrame in any column order is tested and oriented in
    name order, so the whole graph is bnlearn's on the columns sorted by name."""
    frame = _fresh_sample(name, rows)  # columns shuffled
    # bnlearn's mi and x2 do not adjust the degrees of freedom, which PC-stable does by default
    options = {"orientation": "bnlearn", "adjust_df": False} if algorithm == "pc_stable" else {}
    ours = bnfs.learners.get(algorithm).function(frame, test, 0.05, **options)
    by_name = frame[sorted(frame.columns)].astype("category")
    theirs = getattr(pybnlearn, algorithm.replace("grow_shrink", "gs"))(
        by_name, test=test, alpha=0.05
    )
    assert _graph_arcs(ours) == _bnlearn_arcs(theirs)


def test_a_pair_whitelisted_both_ways_is_an_undirected_edge_as_in_bnlearn():
    frame = _fresh_sample("asia", 2000)
    white = [("asia", "xray"), ("xray", "asia")]
    ours = bnfs.pc_stable(
        frame, "mi", 0.05, orientation="bnlearn", whitelist=white, adjust_df=False
    )
    by_name = frame[sorted(frame.columns)].astype("category")
    theirs = pybnlearn.pc_stable(by_name, test="mi", alpha=0.05, whitelist=white)
    assert _graph_arcs(ours) == _bnlearn_arcs(theirs)
    assert ours.has_edge("asia", "xray")


def test_local_node_lists_are_bnlearns():
    """learn.mb / learn.nbr with node lists: bnlearn drops blacklisted nodes from the data
    and whitelists both arcs between the target and each listed node."""
    frame = datasets.sample("insurance", 1000, seed=3).astype(str)
    frame = frame[sorted(c for c in frame.columns if frame[c].nunique() > 1)]
    factors = frame.astype("category")
    rng = np.random.default_rng(0)
    for node in frame.columns[::3]:
        picked = rng.choice([c for c in frame.columns if c != node], 4, replace=False)
        black, white = list(picked[:2]), list(picked[2:])
        kept = factors.drop(columns=black)
        arcs = [(node, w) for w in white] + [(w, node) for w in white]
        for ours, method, kind in [
            (bnfs.constraint.mmpc, "mmpc", "nbr"),
            (bnfs.constraint.hiton_pc, "si.hiton.pc", "nbr"),
            (bnfs.constraint.grow_shrink_mb, "gs", "mb"),
            (bnfs.constraint.iamb_mb, "iamb", "mb"),
            (bnfs.constraint.inter_iamb_mb, "inter.iamb", "mb"),
        ]:
            options = {"symmetry": False, "adjust_df": False} if kind == "nbr" else {}
            found = ours(frame, node, "mi", blacklist=black, whitelist=white, **options)
            theirs = getattr(pybnlearn, f"learn_{kind}")(
                kept, node, method=method, test="mi", alpha=0.05, whitelist=arcs
            )
            assert sorted(found) == sorted(map(str, theirs)), (method, node)


@pytest.mark.parametrize(
    "whitelist, blacklist",
    [
        (None, None),
        ([("LungParench", "CO2")], [("DuctFlow", "HypDistrib"), ("HypDistrib", "DuctFlow")]),
    ],
)
def test_pc_stable_propagates_directions_as_bnlearns_cpdag(whitelist, blacklist):
    """child-1000 (seed 11): Meek's rules orient CardiacMixing -> Disease where bnlearn's
    cpdag() scan orients it the other way; orientation="bnlearn" follows the scan, with the
    lists' arcs kept immutable."""
    frame = _sample("child", 1000).astype(str)
    frame = frame[[c for c in frame.columns if frame[c].nunique() > 1]]
    ours = bnfs.pc_stable(
        bnfs.CITest(frame, "mi", 0.05),
        orientation="bnlearn",
        whitelist=whitelist,
        blacklist=blacklist,
    )
    theirs = pybnlearn.pc_stable(
        frame.astype("category"), test="mi", alpha=0.05, whitelist=whitelist, blacklist=blacklist
    )
    assert _graph_arcs(ours) == _bnlearn_arcs(theirs)
    if whitelist is None:
        assert ("Disease", "CardiacMixing") in ours.arcs
