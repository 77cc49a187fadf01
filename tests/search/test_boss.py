"""Best-order score search: the DAG of its order is what grow-shrink gives every node, the
scores it reports are the scorer's, knowledge and bounds are kept, and it climbs higher than
the arc-by-arc searches on samples where they stop early."""

import contextlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bnfs
from bnfs.models.cg_network import random_cg_network
from order_support import _check_grow_shrink_optimum, _configurations, _sample


@pytest.fixture(scope="module")
def insurance():
    return _sample("insurance", 1000, 0)


@pytest.mark.parametrize("score", ["bic", "bde", "k2", "aic"])
def test_boss_reports_the_scorers_score_of_a_grow_shrink_optimum(insurance, score):
    dag = bnfs.boss(insurance, score, progress=False)
    assert dag.learning["score_value"] == pytest.approx(bnfs.score(dag, insurance, score), rel=1e-9)
    _check_grow_shrink_optimum(dag, insurance, score)


@pytest.mark.kernels
def test_a_small_boss_runs_through_the_kernels():
    frame = _sample("asia", 400, 1)
    dag = bnfs.boss(frame, "bde", restarts=1, seed=2, progress=False)
    assert dag.learning["score_value"] == pytest.approx(bnfs.score(dag, frame, "bde"), rel=1e-9)
    _check_grow_shrink_optimum(dag, frame, "bde")


@pytest.mark.parametrize("kind", ["gaussian", "mixed"])
def test_boss_on_continuous_and_mixed_data(kind):
    net = random_cg_network(0 if kind == "gaussian" else 4, 7, seed=5)
    frame = net.sample(1500, seed=1)
    dag = bnfs.boss(frame, restarts=2, progress=False)
    score = "bic-g" if kind == "gaussian" else "bic-cg"
    assert dag.learning["score"] == score
    assert dag.learning["score_value"] == pytest.approx(bnfs.score(dag, frame, score), rel=1e-9)
    discrete = {c for c in frame.columns if not pd.api.types.is_float_dtype(frame[c])}
    continuous_to_discrete = {(u, v) for u in frame.columns for v in discrete if u not in discrete}
    assert not continuous_to_discrete & set(dag.arcs)  # the CG constraint
    _check_grow_shrink_optimum(dag, frame, score, black=continuous_to_discrete)
    tabu = bnfs.tabu_search(frame, progress=False)
    assert dag.learning["score_value"] >= tabu.learning["score_value"] - 1e-6
    assert bnfs.shd(dag, net.dag) <= bnfs.shd(tabu, net.dag)


@pytest.mark.parametrize("name, rows", [("insurance", 1000), ("alarm", 5000)])
def test_boss_climbs_higher_than_tabu_search(name, rows):
    """The issue's finding: orders escape the optima where tabu search stops (BDeu)."""
    frame = _sample(name, rows, 0)
    found = bnfs.boss(frame, "bde", progress=False)
    tabu = bnfs.tabu_search(frame, "bde", progress=False)
    assert found.learning["score_value"] > tabu.learning["score_value"]
    truth = bnfs.datasets.network(name).subgraph(list(frame.columns))
    assert bnfs.shd(found, truth) < bnfs.shd(tabu, truth)


def test_boss_keeps_knowledge_and_bounds(insurance):
    names = sorted(insurance.columns)
    white = [(names[0], names[5]), (names[7], names[2]), (names[3], names[9])]
    black = [(names[1], names[4]), (names[4], names[1])]
    black += [(u, v) for u, v in bnfs.boss(insurance, progress=False).arcs][:4]
    dag = bnfs.boss(
        insurance, "bde", max_parents=2, blacklist=black, whitelist=white, progress=False
    )
    assert set(white) <= set(dag.arcs) and not set(black) & set(dag.arcs)
    assert max(len(dag.parents(v)) for v in dag.nodes) <= 2
    _check_grow_shrink_optimum(dag, insurance, "bde", 2, set(black), set(white))
    tiers = [names[:9], names[9:]]
    tiered = bnfs.boss(insurance, blacklist=bnfs.blacklist_from(names, tiers=tiers), progress=False)
    assert not any(u in tiers[1] and v in tiers[0] for u, v in tiered.arcs)
    with pytest.raises(ValueError, match="directed cycle"):
        bnfs.boss(insurance, whitelist=[(names[0], names[1]), (names[1], names[0])])
    with pytest.raises(ValueError, match="both black- and whitelisted"):
        bnfs.boss(insurance, whitelist=[white[0]], blacklist=[white[0]])


@pytest.mark.parametrize("search", [bnfs.boss, bnfs.grasp])
def test_a_family_bound_caps_the_parent_configurations(insurance, search):
    free = search(insurance, "bde", progress=False)
    assert max(_configurations(insurance, free.parents(v)) for v in free.nodes) > 12
    names = sorted(insurance.columns)
    white = [(names[0], names[5]), (names[7], names[5]), (names[3], names[5])]
    assert _configurations(insurance, [u for u, _ in white]) > 12
    dag = search(insurance, "bde", max_configurations=12, whitelist=white, progress=False)
    assert dag.learning["arguments"]["max_configurations"] == 12
    assert set(white) <= set(dag.arcs)  # required parents stay, whatever the bound
    for v in dag.nodes:
        assert v == names[5] or _configurations(insurance, dag.parents(v)) <= 12, v
    if search is bnfs.boss:
        _check_grow_shrink_optimum(dag, insurance, "bde", white=set(white), bound=12)
    loose = search(insurance, "bde", max_configurations=1e12, progress=False)
    assert loose == free and loose.learning["score_value"] == free.learning["score_value"]


def test_a_family_bound_counts_only_discrete_parents():
    net = random_cg_network(4, 7, seed=5)
    frame = net.sample(1500, seed=1)
    dag = bnfs.boss(frame, max_configurations=2, progress=False)
    assert all(_configurations(frame, dag.parents(v)) <= 2 for v in dag.nodes)
    assert any(dag.parents(v) for v in dag.nodes if pd.api.types.is_float_dtype(frame[v]))
    discrete = {c for c in frame.columns if not pd.api.types.is_float_dtype(frame[c])}
    black = {(u, v) for u in frame.columns for v in discrete if u not in discrete}
    _check_grow_shrink_optimum(dag, frame, "bic-cg", black=black, bound=2)


def test_boss_is_reproducible_and_restarts_only_improve(insurance):
    one = bnfs.boss(insurance, "bic", seed=3, progress=False)
    assert bnfs.boss(insurance, "bic", seed=3, progress=False) == one
    more = bnfs.boss(insurance, "bic", seed=3, restarts=3, progress=False)
    assert len(more.learning["starts"]) == 4
    assert more.learning["score_value"] >= one.learning["score_value"] - 1e-9
    assert more.learning["score_value"] == pytest.approx(
        max(s["score"] for s in more.learning["starts"])
    )
    rng = np.random.default_rng(7)
    assert bnfs.boss(insurance, seed=rng, progress=False).learning["order"]


def test_boss_stops_on_its_budget_with_a_dag():
    frame = _sample("alarm", 2000, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dag = bnfs.boss(frame, max_time=0, restarts=5, progress=False)
    assert dag.learning["stopped_early"] == "max_time reached"
    assert any("boss" in str(w.message) for w in caught)
    assert len(dag.learning["starts"]) == 1 and set(dag.nodes) == set(frame.columns)


def test_a_best_place_move_scores_what_the_moved_order_scores():
    """best_place takes a node's score in the order (``placed``) where the moved node may
    not be its parent, and skips the node's own grow-shrink where the place adds a node it
    may not have as a parent: with half the arcs forbidden, its totals are the scores of
    the order and of the moved order, and it leaves the moved order's node scores."""
    import importlib

    from bnfs._budget import Budget
    from bnfs._kernels import permutation as _p
    from bnfs.search._climbing import prepare
    from bnfs.stats.priors import graph_prior
    from bnfs.tables._data import as_dataset

    frame = _sample("insurance", 500, 4)
    names = sorted(frame.columns)
    rng = np.random.default_rng(5)
    black = [(u, v) for u in names for v in names if u != v and rng.random() < 0.5]
    state = prepare(as_dataset(frame), "bde", 1.0, None, black, None, None)
    weights = graph_prior(state.score, "uniform", None, state.names).weights(learning=True)
    search = importlib.import_module("bnfs.search.boss")._BestOrder(
        state, weights, Budget(None), _NoBar()
    )
    order, moves = search.start(rng), 0
    for i in range(state.n):
        here_total = search.score(order)[0]
        j, best, here = search.run(_p.best_place, order, i)
        assert here == pytest.approx(here_total, rel=1e-12)
        if j == i:
            continue
        placed = search.workspace.placed.copy()
        order = np.insert(np.delete(order, i), j, order[i])
        assert best == pytest.approx(search.score(order)[0], rel=1e-12)
        np.testing.assert_allclose(placed, search.workspace.placed, rtol=1e-12)
        moves += 1
    assert moves > 5


class _NoBar:
    def update(self, *args, **kwargs):
        pass


@pytest.mark.parametrize("learner", [bnfs.boss, bnfs.grasp])
def test_a_search_paused_at_every_new_score_finds_the_same_dag(learner, monkeypatch):
    """A compiled call that pauses after each new local score (for a budget check) and is
    called again goes on where it stopped: the same DAG as unpaused."""
    from bnfs.search import _permutations

    class OneScore:
        size = 1

        def timing(self):
            return contextlib.nullcontext()

    frame = _sample("child", 1000, 2)
    expected = learner(frame, "bde", seed=1, progress=False)
    monkeypatch.setattr(_permutations, "Pace", lambda *args, **kwargs: OneScore())
    assert learner(frame, "bde", seed=1, progress=False) == expected


@pytest.mark.kernels
@pytest.mark.parametrize("search", [bnfs.boss, bnfs.grasp])
def test_a_wide_search_stops_inside_its_first_order_with_a_scored_partial_dag(search):
    # 400 columns: every node's grow-shrink along the first order scores all the nodes
    # before it, 79,800 local scores in one compiled call before the pause between calls
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.integers(0, 3, (60, 400)), columns=[f"x{i}" for i in range(400)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        dag = search(frame.astype("category"), max_time=0, progress=False)
    learning = dag.learning
    assert learning["stopped_early"] == "max_time reached"
    assert learning["n_scores"] < 400 * 399 // 2 and set(dag.nodes) == set(frame.columns)
    assert learning["score_value"] == pytest.approx(bnfs.score(dag, frame, "bic"), rel=1e-9)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"restarts": -1}, ValueError, "restarts"),
        ({"restarts": 1.5}, TypeError, "restarts"),
        ({"seed": -2}, ValueError, "seed"),
        ({"max_parents": "2"}, TypeError, "max_parents"),
        ({"score": "bic-g"}, ValueError, "continuous"),
        ({"max_time": -1}, ValueError, "max_time"),
        ({"max_configurations": 0.5}, ValueError, "max_configurations"),
        ({"max_configurations": "many"}, TypeError, "max_configurations"),
    ],
)
def test_boss_refuses_bad_options_by_name(options, error, message):
    frame = _sample("asia", 300, 0)
    with pytest.raises(error, match=message):
        bnfs.boss(frame, **options)


def test_boss_scores_match_the_issue_on_alarm():
    """Under BDeu (iss 1) BOSS's graph on alarm-5000 scores at least what the arc searches
    reach from the true graph: a search that climbs from the truth cannot do worse than
    the truth, and BOSS reaches that height without it."""
    frame = _sample("alarm", 5000, 0)
    truth = bnfs.datasets.network("alarm").subgraph(list(frame.columns))
    from_truth = bnfs.hill_climbing(frame, "bde", start=truth, progress=False)
    found = bnfs.boss(frame, "bde", progress=False)
    assert found.learning["score_value"] >= bnfs.score(truth, frame, "bde")
    assert math.isclose(
        found.learning["score_value"], from_truth.learning["score_value"], rel_tol=2e-3
    )


def test_boss_with_the_vsp_prior(insurance):
    """The prior is part of the score BOSS maximises and reports; it prunes parents."""
    plain = bnfs.boss(insurance, "bde", progress=False)
    pruned = bnfs.boss(insurance, "bde", prior="vsp", progress=False)
    assert pruned.learning["score_value"] == pytest.approx(
        bnfs.score(pruned, insurance, "bde", prior="vsp"), rel=1e-9
    )
    _check_grow_shrink_optimum(pruned, insurance, "bde", prior="vsp")
    assert pruned.n_arcs < plain.n_arcs
    assert pruned.learning["arguments"]["prior"] == "vsp"
    loose = bnfs.boss(insurance, "bde", prior="vsp", beta=0.5, progress=False)
    assert loose == plain  # beta 1/2: every parent set alike, the uniform prior


def test_backward_equivalence_search_deletes_what_the_score_does_not_want():
    """BES from a DAG with spurious arcs: the score only rises, the true arcs stay, required
    pairs are never deleted, and Markov-equivalent starts give the same class."""
    from bnfs.search.bes import backward_equivalence_search

    frame = _sample("asia", 4000, 3)
    truth = bnfs.datasets.network("asia")
    scorer = bnfs.Scorer(frame, "bde")
    local = lambda v, parents: scorer.local(v, parents)
    noisy = truth.copy()
    for u, v in [("asia", "dysp"), ("smoke", "xray"), ("tub", "bronc")]:
        noisy.add_arc(u, v)
    pruned = backward_equivalence_search(noisy, local)
    assert scorer.total(pruned) > scorer.total(noisy)
    assert pruned.cpdag() == truth.cpdag() or bnfs.shd(pruned, truth) < bnfs.shd(noisy, truth)
    kept = backward_equivalence_search(noisy, local, frozenset({frozenset(("asia", "dysp"))}))
    assert kept.is_adjacent("asia", "dysp")
    twin = noisy.copy()  # a covered arc reversed: the same equivalence class
    for v in twin.nodes:
        for u in list(twin.parents(v)):
            if set(twin.parents(u)) == set(twin.parents(v)) - {u}:
                twin.remove_arc(u, v)
                twin.add_arc(v, u)
                break
        else:
            continue
        break
    assert twin.cpdag() == noisy.cpdag()
    assert backward_equivalence_search(twin, local).cpdag() == pruned.cpdag()


def test_a_long_search_shows_its_start_and_best_score(capsys):
    """Issue 43.5: with progress on, the line says which start runs and the best score so
    far (and, when it redraws mid-start, that start's passes and moves; tqdm adds the
    elapsed time)."""
    frame = bnfs.datasets.sample("asia", 1000, seed=0)
    dag = bnfs.boss(frame, "bds", prior="vsp", restarts=1, progress=True)
    err = capsys.readouterr().err
    assert "boss start 1/2" in err and "boss start 2/2" in err
    assert f"best={max(s['score'] for s in dag.learning['starts']):.2f}" in err
    bnfs.boss(frame, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.kernels
def test_strongest_partners_rank_every_kind_of_pair_by_its_single_parent_gain():
    """Discrete pairs by mutual information, continuous pairs by correlation, a continuous
    child and a discrete parent by the correlation ratio; symmetric, never the node
    itself, and the same for any column order."""
    from bnfs.search._candidates import strongest_partners
    from bnfs.tables._data import as_dataset

    rng = np.random.default_rng(0)
    n = 2000
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))  # strong partner of a
    c = rng.integers(0, 3, n)
    x = a + rng.normal(0, 1, n)  # tied to a through its group means
    y = 2 * x + rng.normal(0, 0.5, n)  # strong partner of x
    z = rng.normal(0, 1, n)
    frame = pd.DataFrame({"a": a, "b": b, "c": c, "x": x, "y": y, "z": z})
    frame[["a", "b", "c"]] = frame[["a", "b", "c"]].astype(str)
    data = as_dataset(frame)
    allowed = strongest_partners(data, list(frame.columns), 1)
    chosen = {(frame.columns[u], frame.columns[v]) for u, v in zip(*np.nonzero(allowed))}
    assert {("b", "a"), ("a", "b"), ("x", "y"), ("y", "x")} <= chosen
    assert not np.diag(allowed).any()
    assert (allowed == allowed.T).all()
    two = strongest_partners(data, list(frame.columns), 2)
    assert two[list(frame.columns).index("a"), list(frame.columns).index("x")]  # eta^2
    shuffled = list(rng.permutation(frame.columns))
    again = strongest_partners(as_dataset(frame[shuffled]), shuffled, 2)
    index = [shuffled.index(v) for v in frame.columns]
    assert (again[np.ix_(index, index)] == two).all()


@pytest.mark.parametrize("learner", [bnfs.boss, bnfs.grasp])
def test_candidates_restrict_parents_to_strong_partners(insurance, learner):
    from bnfs.search._candidates import strongest_partners
    from bnfs.tables._data import as_dataset

    names = list(insurance.columns)
    allowed = strongest_partners(as_dataset(insurance), names, 3)
    dag = learner(insurance, "bde", candidates=3, progress=False)
    assert dag.n_arcs > 10 and dag.learning["arguments"]["candidates"] == 3
    assert all(allowed[names.index(u), names.index(v)] for u, v in dag.arcs)
    black = {(u, v) for u in names for v in names if u != v}
    black -= {(names[u], names[v]) for u, v in zip(*np.nonzero(allowed))}
    _check_grow_shrink_optimum(dag, insurance, "bde", black=black)
    every = learner(insurance, "bde", candidates=len(names), progress=False)
    assert every == learner(insurance, "bde", progress=False)
    with pytest.raises(ValueError, match="candidates"):
        learner(insurance, candidates=0, progress=False)


def test_the_bar_shows_the_work_inside_a_long_kernel_call(monkeypatch):
    """Issue 59, item 14: a first pass on wide data runs for seconds inside one kernel call;
    the bar now shows the scores computed at each pause (its clock moves too)."""
    import importlib

    permutations = importlib.import_module("bnfs.search._permutations")
    shown = []

    class Bar:
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def set_postfix(self, values=None, refresh=True, **more):
            shown.append({**(values or {}), **more})

        def set_description(self, *args, **kwargs):
            pass

        def update(self, n=1):
            pass

    monkeypatch.setattr(permutations, "tqdm", Bar)
    monkeypatch.setattr(permutations, "SHOW_EVERY", 0.0)
    original = permutations.Pace

    def tiny(most, first=1):  # pause after every few scores
        pace = original(most, first=1)
        pace.most = 1  # never grows: every call pauses
        return pace

    monkeypatch.setattr(permutations, "Pace", tiny)
    frame = bnfs.datasets.sample("alarm", 500, seed=3)
    dag = bnfs.boss(frame, progress=True)
    counts = [int(s["scores"].replace(",", "")) for s in shown if "scores" in s]
    assert len(counts) > 10 and counts == sorted(counts) and counts[-1] > 100
    assert dag.n_arcs > 0
