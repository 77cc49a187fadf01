"""Hill climbing and tabu search: validity, local optimality, quality, determinism."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import bnfs
import reference
from bnfs import DAG, Scorer, datasets, hill_climbing, shd, tabu_search


@pytest.fixture(scope="module")
def asia():
    return reference.data("asia")


def _no_single_move_improves(
    dag: DAG, scorer: Scorer, max_parents=None, blacklist=(), whitelist=()
):
    base = {v: scorer.local(v, dag.parents(v)) for v in dag.nodes}
    black = set(blacklist)
    for u in dag.nodes:
        for v in dag.nodes:
            if u == v:
                continue
            pa = dag.parents(v)
            if dag.has_arc(u, v):
                if (u, v) in set(whitelist):
                    continue
                removed = [p for p in pa if p != u]
                assert scorer.local(v, removed) - base[v] <= 1e-7, ("remove", u, v)
                trial = dag.copy()
                trial.remove_arc(u, v)
                if (v, u) not in black and (
                    max_parents is None or len(dag.parents(u)) < max_parents
                ):
                    try:
                        trial.add_arc(v, u)
                    except ValueError:
                        continue
                    gain = (
                        scorer.local(v, removed)
                        - base[v]
                        + scorer.local(u, dag.parents(u) + [v])
                        - base[u]
                    )
                    assert gain <= 1e-7, ("reverse", u, v)
            elif not dag.has_arc(v, u) and (u, v) not in black:
                if max_parents is not None and len(pa) >= max_parents:
                    continue
                trial = dag.copy()
                try:
                    trial.add_arc(u, v)
                except ValueError:
                    continue
                assert scorer.local(v, pa + [u]) - base[v] <= 1e-7, ("add", u, v)


@pytest.mark.parametrize("label", ["bic", "bde", "k2"])
def test_result_is_a_local_optimum(asia, label):
    dag = hill_climbing(asia, label, progress=False)
    scorer = Scorer(asia, label)
    assert dag.learning["score_value"] == pytest.approx(scorer.total(dag), rel=1e-10)
    _no_single_move_improves(dag, scorer)


def test_constraints_are_obeyed(asia):
    black = [("either", "dysp"), ("bronc", "dysp"), ("smoke", "lung")]
    white = [("asia", "xray")]
    dag = hill_climbing(asia, max_parents=1, blacklist=black, whitelist=white, progress=False)
    assert nx.is_directed_acyclic_graph(dag.to_networkx())
    assert all(len(dag.parents(v)) <= 1 for v in dag.nodes)
    assert not any(dag.has_arc(u, v) for u, v in black)
    assert dag.has_arc("asia", "xray")
    _no_single_move_improves(
        dag, Scorer(asia), max_parents=1, blacklist=black + [("xray", "asia")], whitelist=white
    )


def test_start_graph_and_bnlearn_style_blacklist(asia):
    import pandas as pd

    truth = reference.true_dag("asia")
    dag = hill_climbing(asia, start=truth, progress=False)
    assert Scorer(asia).total(dag) >= Scorer(asia).total(truth) - 1e-9
    frame = pd.DataFrame({"from": ["either"], "to": ["dysp"]})
    assert not hill_climbing(asia, blacklist=frame, progress=False).has_arc("either", "dysp")


@pytest.mark.parametrize("name", reference.NETWORKS)
def test_bic_at_least_bnlearn_hc(name):
    """Greedy search ends in some local optimum; with restarts or tabu moves bnfs must
    reach at least bnlearn's hc score (same score, same data; the file rounds to 0.01)."""
    frame = reference.data(name)
    golden = reference.table(name, "runs.tsv").set_index("run")["bic_of_result"]
    empty = Scorer(frame).total(DAG(frame.columns))
    plain = hill_climbing(frame, "bic", progress=False).learning["score_value"]
    assert plain > empty
    restarted = hill_climbing(frame, "bic", restarts=10, perturb_moves=5, seed=0, progress=False)
    assert restarted.learning["score_value"] >= max(plain, golden["hc_bic"] - 0.01)
    tabu = tabu_search(frame, "bic", progress=False)
    assert tabu.learning["score_value"] >= golden["hc_bic"] - 0.01


# bnlearn's hc and tabu (which these are, move for move) stop at SHD 15 on child here: a
# local optimum of BIC, not a shortage of data; asia is recovered exactly
@pytest.mark.parametrize(
    "name, learner, bound",
    [("child", hill_climbing, 15), ("child", tabu_search, 15), ("asia", tabu_search, 0)],
)
def test_enough_data_recovers_the_network(name, learner, bound):
    frame = datasets.sample(name, 20_000, seed=5)
    dag = learner(frame, "bic", progress=False)
    assert shd(dag, datasets.network(name)) <= bound


def test_restarts_are_seeded_and_never_worse(asia):
    base = hill_climbing(asia, progress=False)
    a = hill_climbing(asia, restarts=3, perturb_moves=3, seed=1, progress=False)
    b = hill_climbing(asia, restarts=3, perturb_moves=3, seed=1, progress=False)
    assert a == b
    assert a.learning["score_value"] >= base.learning["score_value"] - 1e-9
    assert a.learning["n_scores"] > 0 and a.learning["moves"] >= base.learning["moves"]


def test_bad_arguments(asia):
    with pytest.raises(ValueError, match="blacklist names unknown node 'nope'"):
        hill_climbing(asia, blacklist=[("nope", "asia")])
    with pytest.raises(ValueError, match="directed cycle"):
        hill_climbing(asia, whitelist=[("asia", "tub"), ("tub", "either"), ("either", "asia")])
    with pytest.raises(ValueError, match="both black- and whitelisted"):
        hill_climbing(asia, whitelist=[("asia", "tub")], blacklist=[("asia", "tub")])
    with pytest.raises(ValueError, match="max_parents must be >= 0"):
        hill_climbing(asia, max_parents=-1)
    with pytest.raises(TypeError, match="max_parents must be an integer"):
        hill_climbing(asia, max_parents=2.5)
    with pytest.raises(ValueError, match="more than max_parents=0"):
        hill_climbing(asia, max_parents=0, whitelist=[("asia", "tub")])
    with pytest.raises(ValueError, match="score must be one of"):
        hill_climbing(asia, "bogus")
    with pytest.raises(TypeError, match="seed"):
        hill_climbing(asia, seed="x")
    with pytest.raises(ValueError, match="mixed discrete and continuous"):
        hill_climbing(pd.DataFrame({"x": np.arange(5.0) / 3, "y": [0, 1, 0, 1, 0]}), "bde")
    before = asia.copy()
    hill_climbing(asia, progress=False)
    assert asia.equals(before)


def test_the_local_score_cache_is_bounded():
    from numba import njit

    from bnfs._kernels import hill_climbing as _hc

    @njit
    def fill(cache, n):
        for key in range(n):
            _hc.store(cache, key, float(key))

    cache = _hc.new_cache()
    fill(cache, _hc.CACHE_ENTRIES + 10)
    assert len(cache) == 10 and cache[_hc.CACHE_ENTRIES + 9] == _hc.CACHE_ENTRIES + 9


def test_max_time_returns_the_graph_so_far_with_a_warning():
    frame = reference.data("alarm")
    with pytest.warns(RuntimeWarning, match="max_time reached"):
        dag = hill_climbing(frame, max_time=0.0, restarts=3, seed=0)
    assert dag.n_arcs == 0 and dag.learning["stopped_early"] == "max_time reached"
    assert hill_climbing(frame, max_time=1e6).learning["stopped_early"] is None
    with pytest.raises(ValueError, match="max_time"):
        hill_climbing(frame, max_time=-1)


@pytest.mark.parametrize("learner", [hill_climbing, tabu_search])
def test_max_time_bounds_the_first_scoring_of_every_pair(learner):
    """Issue 42.11: the first scoring of every candidate arc is most of a search on wide
    data, and was not budgeted. Out of time, only the graph's own node scores are computed,
    and the reported score is still the graph's."""
    frame = reference.data("alarm")
    start = DAG(list(frame.columns), [("HR", "HRBP"), ("CO", "BP")])
    with pytest.warns(RuntimeWarning, match="max_time reached"):
        dag = learner(frame, max_time=0.0, start=start)
    assert sorted(dag.arcs) == sorted(start.arcs)
    assert dag.learning["n_scores"] <= frame.shape[1]  # no pair was scored
    assert dag.learning["score_value"] == pytest.approx(bnfs.score(dag, frame), abs=1e-6)


def test_a_first_scoring_cut_short_keeps_the_rows_it_reached():
    """The rows refreshed before the budget ran out hold what a whole refresh gives; the
    others hold their node score and no move."""
    from bnfs.search._state import SearchState

    frame = reference.data("asia")

    class AfterOneCheck:
        checks = 0

        def spent(self):
            self.checks += 1
            return self.checks > 2

    def state():
        out = SearchState(bnfs.Dataset(frame), "bic", 1.0, 7, [], [], None)
        out.set_prior(bnfs.stats.priors.graph_prior(out.score, "uniform", None, out.names))
        return out

    whole, cut = state(), state()
    assert whole.set_candidates(whole.all_candidates())
    assert not cut.set_candidates(cut.all_candidates(), AfterOneCheck())
    reached = whole.by_node[::-1][:3]  # the first call refreshes one row, the next two
    rest = np.setdiff1d(np.arange(whole.n), reached)
    assert np.array_equal(cut.delta[reached], whole.delta[reached])
    assert np.all(cut.delta[rest] == -np.inf)
    assert np.allclose(cut.node_score, whole.node_score)


def test_pace_grows_while_calls_are_quick_and_shrinks_when_one_is_slow(monkeypatch):
    """Compiled calls between budget checks: one move on 2,000 columns takes ~0.2 s, so a
    fixed chunk of 64 moves overran max_time by ~15 s."""
    import types

    import bnfs._budget as budget_module

    clock = [0.0]
    monkeypatch.setattr(budget_module, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    pace = budget_module.Pace(64)
    sizes = []
    for took in [0.001] * 8 + [1.0, 1.0, 0.07]:
        sizes.append(pace.size)
        with pace.timing():
            clock[0] += took
    assert sizes == [1, 2, 4, 8, 16, 32, 64, 64, 64, 6, 1]
    assert pace.size == 1  # 0.07 s: neither quick nor slow
    assert budget_module.Pace(0).size == 1 and budget_module.Pace(64, first=100).size == 64


def test_ctrl_c_stops_the_search_cleanly(monkeypatch):
    import importlib
    import os
    import signal

    from bnfs import score
    from bnfs.search._state import SearchState

    frame = reference.data("alarm")
    full = hill_climbing(frame)
    run = SearchState.run

    def interrupted_run(self, *args):
        os.kill(os.getpid(), signal.SIGINT)  # the handler only marks the budget
        return run(self, *args)

    monkeypatch.setattr(SearchState, "run", interrupted_run)
    # as at a prompt (in a script or here the first Ctrl-C raises: the next test)
    monkeypatch.setattr(importlib.import_module("bnfs._budget"), "PARTIAL_ON_INTERRUPT", True)
    module = importlib.import_module("bnfs.search._climbing")
    first_call = module.Pace(module.CHUNK).size  # moves of the first compiled call
    before = signal.getsignal(signal.SIGINT)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        dag = hill_climbing(frame)
    assert signal.getsignal(signal.SIGINT) is before
    assert dag.learning["stopped_early"] == "interrupted"
    assert dag.learning["moves"] == first_call < full.learning["moves"]
    assert dag.learning["score_value"] == pytest.approx(score(dag, frame, "bic"), rel=1e-12)


def test_wide_short_data_is_told_the_cost_up_front():
    """5 rows x 1,000 columns: every pair a candidate makes each move quadratic; the search
    says so before it starts, and names the restricted searches."""
    import warnings

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, (5, 1000))
    codes[0], codes[1] = 0, 1  # no constant column
    frame = pd.DataFrame(codes, columns=[f"g{i}" for i in range(1000)]).astype(str)
    with pytest.warns(
        RuntimeWarning, match="each move scans 999,000 candidate arcs.*sparse_candidate"
    ):
        hill_climbing(frame, max_iter=1, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        hill_climbing(frame.iloc[:, :999], max_iter=1, progress=False)


def test_the_score_scan_order_is_by_the_nodes_own_scores():
    """Tabu-Stable's order: nodes by their score without parents, highest first, ties by
    their mean score with one candidate parent, then by name; it decides which of two
    score-equivalent twins is added, and so where the first arcs point."""
    import itertools

    from bnfs.search._state import SearchState

    frame = bnfs.datasets.sample("asia", 2000, seed=3)
    scorer = bnfs.Scorer(frame, "bic")
    names = list(frame.columns)
    state = SearchState(bnfs.Dataset(frame), "bic", 1.0, 7, [], [], None, scan_order="scores")
    state.set_candidates(state.all_candidates())
    order = [state.names[v] for v in state.by_node]
    mean_one = {v: np.mean([scorer.local(v, [u]) for u in names if u != v]) for v in names}
    key = lambda v: (-round(scorer.local(v), 6), -round(mean_one[v], 6), v)
    assert order == sorted(names, key=key)
    assert all(state.rank[state.index[v]] == k for k, v in enumerate(order))
    dag = bnfs.tabu_search(frame, scan_order="scores", progress=False)
    assert dag.learning["arguments"]["scan_order"] == "scores"
    # the first arc joins the pair with the largest gain, its tail the earlier node
    first = max(
        itertools.permutations(names, 2),
        key=lambda p: (scorer.local(p[1], [p[0]]) - scorer.local(p[1]), -order.index(p[0])),
    )
    walk = bnfs.hill_climbing(frame, max_iter=1, scan_order="scores", progress=False)
    assert walk.arcs == [first]


@pytest.mark.parametrize("partial", [None, False])
def test_ctrl_c_in_a_script_raises_keyboard_interrupt(monkeypatch, partial):
    """Issue 59, item 13: in a script or a test session the first Ctrl-C raised nothing and
    the learner returned a partial graph; now it raises as any Python code does."""
    import importlib
    import signal

    from bnfs.search._state import SearchState

    budget = importlib.import_module("bnfs._budget")
    monkeypatch.setattr(budget, "PARTIAL_ON_INTERRUPT", partial)
    assert not budget.interactive()  # pytest: no prompt
    # a script's state: Python's own handler (once lost in a cold CI run after 300 tests,
    # never reproduced), and the signal raised in this thread, not left to another one
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    run = SearchState.run

    def interrupted_run(self, *args):
        signal.raise_signal(signal.SIGINT)
        return run(self, *args)

    monkeypatch.setattr(SearchState, "run", interrupted_run)
    try:
        with pytest.raises(KeyboardInterrupt):
            hill_climbing(reference.data("asia"))
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_prompt_is_interactive(monkeypatch):
    import importlib
    import sys

    budget = importlib.import_module("bnfs._budget")
    monkeypatch.setattr(sys, "ps1", ">>> ", raising=False)
    assert budget.interactive() and budget.partial_on_interrupt()
    monkeypatch.setattr(budget, "PARTIAL_ON_INTERRUPT", False)
    assert not budget.partial_on_interrupt()
