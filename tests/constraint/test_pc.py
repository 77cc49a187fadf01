"""PC-stable: exact recovery with the oracle, bnlearn's skeleton on sampled data."""

import pytest

import reference
from bnfs import PDAG, datasets, pc_stable, shd
from bnfs.stats.citests import CITest, DSeparation
from bnfs.stats.metrics import skeleton_scores


@pytest.mark.parametrize("name", reference.NETWORKS)
def test_oracle_recovers_the_cpdag(name):
    truth = datasets.network(name)
    pdag = pc_stable(DSeparation(truth))
    assert pdag == truth.cpdag()
    assert pdag.learning["n_tests"] > 0 and pdag.learning["algorithm"] == "pc_stable"


def _bnlearn_pdag(name, file, nodes):
    ref = reference.table(name, file)
    arcs = [(r["from"], r["to"]) for _, r in ref.iterrows() if r["type"] == "arc"]
    edges = {frozenset((r["from"], r["to"])) for _, r in ref.iterrows() if r["type"] == "edge"}
    return PDAG(nodes, arcs=arcs, edges=[tuple(e) for e in edges])


@pytest.mark.parametrize("name", reference.NETWORKS)
def test_bnlearn_orientation_gives_bnlearns_pc_stable(name):
    frame = reference.data(name)
    pdag = pc_stable(frame, "mi", alpha=0.05, adjust_df=False, orientation="bnlearn")
    theirs = _bnlearn_pdag(name, "pc_stable_mi_0.05.tsv", frame.columns)
    assert pdag == theirs
    default = pc_stable(frame, "mi", alpha=0.05, adjust_df=False)
    assert skeleton_scores(default, theirs)["f1"] == 1.0  # orientation alone differs


@pytest.mark.parametrize("name", ["asia", "insurance", "alarm"])
def test_evidence_orientation_is_closer_to_the_truth_than_bnlearns(name):
    """Same skeleton; colliders from every separating set at the removal level, strongest
    first, beat bnlearn's first-set, weakest-separation-first order on these samples."""
    frame, truth = reference.data(name), reference.true_dag(name)
    ours = pc_stable(frame, "g2", 0.01, adjust_df=True)
    theirs = pc_stable(frame, "g2", 0.01, adjust_df=True, orientation="bnlearn")
    assert skeleton_scores(ours, theirs)["f1"] == 1.0
    assert shd(ours, truth) < shd(theirs, truth)
    assert ours.learning["orientation_tests"] > 0
    assert ours.learning["arguments"]["orientation"] == "evidence"
    assert ours.learning["arguments"]["adjust_df"] is True


def test_orientation_is_checked():
    with pytest.raises(ValueError, match="orientation"):
        pc_stable(reference.data("asia"), orientation="pcalg")


def test_order_independence_and_sampled_quality():
    frame = reference.data("alarm")
    truth = reference.true_dag("alarm")
    pdag = pc_stable(frame, "g2", alpha=0.05)
    shuffled = pc_stable(frame[frame.columns[::-1]], "g2", alpha=0.05)
    assert set(map(frozenset, pdag.skeleton().edges)) == set(
        map(frozenset, shuffled.skeleton().edges)
    )
    assert shd(pdag, truth) <= 25
    assert skeleton_scores(pdag, truth)["precision"] >= 0.95
    small = pc_stable(frame, "g2", alpha=0.05, max_cond_size=1)
    assert small.learning["max_level"] == 1
    assert small.n_arcs + small.n_edges >= pdag.n_arcs + pdag.n_edges


def test_parallel_edge_tests_give_identical_results():
    frame = reference.data("alarm")
    sequential = pc_stable(frame, "g2", alpha=0.01)
    parallel = pc_stable(frame, "g2", alpha=0.01, n_jobs=2)
    assert parallel == sequential
    assert parallel.learning["max_level"] == sequential.learning["max_level"]


def test_pc_errors():
    frame = reference.data("asia")
    with pytest.raises(ValueError, match="alpha"):
        pc_stable(frame, alpha=1.2)
    with pytest.raises(ValueError, match="max_cond_size"):
        pc_stable(frame, max_cond_size=-1)
    with pytest.raises(ValueError, match="test must be one of"):
        pc_stable(frame, test="zz")
    with pytest.raises(ValueError, match="n_jobs"):
        pc_stable(frame, n_jobs=0)
    tester = CITest(frame)
    assert pc_stable(tester).learning["n_tests"] == tester.n_tests


@pytest.mark.parametrize(
    "options",
    [
        {"test": "g2"},
        {"test": "x2", "alpha": 0.01},
        {"test": "mi_threshold", "threshold": 0.004},
        {"test": "g2", "adjust_df": True},
        {"test": "g2", "min_rows_per_cell": 5},
    ],
)
def test_compiled_levels_equal_the_python_path(options, monkeypatch):
    frame = reference.data("alarm")
    compiled = pc_stable(frame, **options)
    monkeypatch.setattr("bnfs.constraint.pc.CITest", type("NotCompiled", (), {}))
    python = pc_stable(CITest(frame, **_as_pc_stable_tests(options)))
    assert compiled == python
    # the second side skips subsets the first side tested: no test runs twice
    # the orientation's tests are cached on the Python path: compare the skeleton's
    assert _skeleton_tests(compiled) == _skeleton_tests(python)
    assert compiled.learning["max_level"] == python.learning["max_level"]


def _as_pc_stable_tests(options: dict) -> dict:
    """CITest options as pc_stable sets them (adjusted df by default for g2 and x2)."""
    return {"adjust_df": True, **options} if options["test"] in ("g2", "x2") else options


def _skeleton_tests(pdag) -> int:
    return pdag.learning["n_tests"] - pdag.learning["orientation_tests"]


@pytest.mark.parametrize("name", ["asia", "child", "insurance", "alarm", "hailfinder"])
@pytest.mark.parametrize("propagation", ["meek", "bnlearn"])
def test_both_propagations_complete_a_true_pattern_to_its_cpdag(name, propagation):
    """From the true skeleton and v-structures, Meek's rules and bnlearn's cpdag() scan
    agree: both give the true CPDAG (they differ only where colliders conflict)."""
    from bnfs.constraint._orient import orient

    truth = datasets.network(name)
    names = list(truth.nodes)
    at = {v: i for i, v in enumerate(names)}
    adjacency = [set() for _ in names]
    for u, v in truth.arcs:
        adjacency[at[u]].add(at[v])
        adjacency[at[v]].add(at[u])
    colliders = [(at[a], at[c], at[b]) for a, c, b in truth.v_structures()]
    pdag = orient(names, adjacency, colliders, {}, propagation=propagation)
    assert pdag == truth.cpdag()


def test_bnlearn_propagation_leaves_a_conflicting_edge_undirected():
    """Colliders a -> c <- b and d -> e <- f with c - e between them: Meek's rule 1 would
    orient c - e both ways (from a and from d) and bnfs orients it the first way found;
    bnlearn's scan sees that either direction adds a v-structure and leaves it undirected."""
    from bnfs.constraint._orient import orient

    names = ["a", "b", "c", "d", "e", "f"]
    adjacency = [{2}, {2}, {0, 1, 4}, {4}, {2, 3, 5}, {4}]
    colliders = [(0, 2, 1), (3, 4, 5)]
    meek = orient(names, adjacency, colliders, {}, propagation="meek")
    bnlearn = orient(names, adjacency, colliders, {}, propagation="bnlearn")
    collider_arcs = {("a", "c"), ("b", "c"), ("d", "e"), ("f", "e")}
    assert set(bnlearn.arcs) == collider_arcs and bnlearn.edges == [("c", "e")]
    assert set(meek.arcs) > collider_arcs and not meek.edges


def test_max_time_keeps_the_skeleton_so_far():
    """max_time=0: level 0 runs, no later level does; the skeleton keeps every edge the
    full search keeps, and the stop is reported."""
    frame = datasets.sample("alarm", 2000, seed=1)
    full = pc_stable(frame)
    with pytest.warns(RuntimeWarning, match="pc_stable stopped early"):
        early = pc_stable(frame, max_time=0)
    assert (
        early.learning["stopped_early"] == "max_time reached" and early.learning["max_level"] == 0
    )
    edges = {frozenset(e) for e in full.arcs + full.edges}
    assert edges < {frozenset(e) for e in early.arcs + early.edges}
    assert full.learning["stopped_early"] is None


def test_max_time_is_checked_between_blocks_of_level_zero(monkeypatch):
    """Level 0 of 10,000 columns is 50 million pairs: the budget was checked only between
    levels and the pairs lived in Python sets (136 s for max_time=60, then MemoryError at
    20 GB). Now level 0 runs in blocks on a boolean matrix; a budget that ends it leaves the
    untested pairs out of the graph and counts them."""
    import bnfs.constraint.pc as pc

    frame = datasets.sample("alarm", 1000, seed=2)
    full = pc_stable(frame)
    monkeypatch.setattr(pc, "BLOCK", 40)
    assert pc_stable(frame) == full  # blocks change nothing but when the budget is read
    with pytest.warns(RuntimeWarning, match=r"pairs left untested and out of the graph"):
        early = pc_stable(frame, max_time=0)
    pairs = 37 * 36 // 2
    untested = early.learning["untested_pairs"]
    assert pairs - 2 * 40 <= untested < pairs  # one block (about 40 pairs) ran
    skeleton_tests = early.learning["n_tests"] - early.learning["orientation_tests"]
    assert skeleton_tests == pairs - untested
    assert early.n_arcs + early.n_edges <= pairs - untested
    assert "untested_pairs" not in full.learning


def test_a_stopped_search_leaves_a_dense_skeleton_undirected(monkeypatch):
    import bnfs.constraint.pc as pc

    frame = datasets.sample("alarm", 200, seed=2)
    monkeypatch.setattr(pc, "MAX_STOPPED_TRIPLES", 0)
    with pytest.warns(RuntimeWarning):
        early = pc_stable(frame, max_time=0)
    assert early.n_arcs == 0 and early.n_edges > 0
    assert early.learning["orientation"].startswith("skipped")
