"""Hostile input, second half: sizes bounded before allocating, cyclic whitelists, raw
errors named, damaged checkpoints, near misses (the first half: tests/test_bad_input.py)."""

import numpy as np
import pandas as pd
import pytest

import bnfs
import bnfs.graphs.report
import bnfs.io
import bnfs.models.cg_network
import bnfs.parallel


@pytest.fixture(scope="module")
def asia():
    return bnfs.datasets.sample("asia", 300, seed=0)


def test_sizes_from_the_input_are_bounded_before_allocating():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({f"c{i}": [f"v{k}" for k in rng.integers(0, 200, 2000)] for i in range(5)})
    dag = bnfs.DAG(list(frame.columns), [(f"c{i}", "c4") for i in range(4)])
    with pytest.raises(
        ValueError,
        match=r"the table of 'c4' \(200 x 200 x 200 x 200 x 200\) "
        "has 320,000,000,000 cells",
    ):
        bnfs.DiscreteNetwork.fit(dag, bnfs.Dataset(frame))
    floats = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    with pytest.raises(ValueError, match="n_bins=10000000000 is more than the 50 rows"):
        bnfs.discretize(floats, "quantile", 10_000_000_000)


def _asia_200():
    return bnfs.datasets.sample("asia", 200, seed=0)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bnfs.tabu_search(_asia_200(), tabu=10**12), "tabu=1,000,000,000,000 is more"),
        (lambda: bnfs.hill_climbing(_asia_200(), tabu=2**40), "than the 1,000,000 graphs"),
        (
            lambda: bnfs.hill_climbing(_asia_200(), tabu=5, max_tabu=10**9),
            "max_tabu=1,000,000,000 is more than the 1,000,000",
        ),
        (lambda: bnfs.grasp(_asia_200(), depth=10**12), "more than the 64 levels GRaSP"),
        (
            lambda: bnfs.HSMB(permutations=10**12).fit(
                _asia_200().drop(columns="lung"), _asia_200()["lung"]
            ),
            r"'permutations' parameter of HSMB must be an int in the range \[0, 100000\]",
        ),
        (lambda: bnfs.boot_strength(_asia_200(), R=10**12), "is more than the 100,000"),
        (
            lambda: bnfs.models.cg_network.random_cg_network(10**6, 10**6),
            "n_discrete=1,000,000 is more than the 100,000 nodes",
        ),
        (
            lambda: bnfs.models.cg_network.random_cg_network(60_000, 60_000),
            "= 120,000 is more than the 100,000 nodes",
        ),
    ],
    ids=["tabu", "tabu-hc", "max_tabu", "depth", "permutations", "R", "nodes", "sum"],
)
def test_budgets_and_sizes_are_bounded_before_anything_is_allocated(call, message):
    with pytest.raises(ValueError, match=message):  # scikit-learn's error is a ValueError
        call()


CYCLES = [
    [("asia", "tub"), ("tub", "either"), ("either", "asia")],
    [("smoke", "lung"), ("lung", "either"), ("either", "xray"), ("xray", "smoke")],
    # a cycle beside an acyclic arc and an undirected (both-ways) pair
    [("bronc", "dysp"), ("dysp", "bronc"), ("asia", "smoke"), ("smoke", "tub"), ("tub", "asia")],
    [("lung", "bronc"), ("bronc", "either"), ("either", "lung"), ("asia", "tub")],
]


def _cyclic_whitelist_cases():
    """Every network learner of the registry with each cycle; a pair given both ways is an
    undirected edge for the constraint learners only (a score-based search whitelists arcs)."""
    from bnfs import learners

    for name in learners.names("score", "hybrid", "constraint"):
        if "whitelist" not in learners.get(name).options:
            continue
        for label, cycle in zip(("3", "4", "3-and-edge", "3-and-arc"), CYCLES):
            both_ways = any((v, u) in cycle for u, v in cycle)
            if both_ways and learners.get(name).kind != "constraint":
                continue
            yield pytest.param(name, cycle, id=f"{name}-{label}")


@pytest.mark.parametrize("learner, whitelist", list(_cyclic_whitelist_cases()))
def test_a_cyclic_whitelist_is_refused_with_the_cycle_named(asia, whitelist, learner):
    """bnlearn's lists: a pair whitelisted both ways is an undirected edge, and one-way arcs
    that close a directed cycle are refused (by every learner, naming the cycle)."""
    from bnfs import learners

    with pytest.raises(ValueError, match="whitelist forms a directed cycle") as raised:
        learners.get(learner)(asia, whitelist=whitelist)
    one_way = [(u, v) for u, v in whitelist if (v, u) not in whitelist]
    cycle = str(raised.value).split(": ", 1)[1].split(" -> ")
    nodes = [name.strip("'") for name in cycle]
    assert nodes[0] == nodes[-1] and len(nodes) >= 3
    assert all(pair in one_way for pair in zip(nodes, nodes[1:])), raised.value


def test_a_whitelist_both_ways_is_an_undirected_edge_for_constraint_learners(asia):
    for learner in (bnfs.pc_stable, bnfs.tpda, bnfs.grow_shrink, bnfs.iamb, bnfs.fast_iamb):
        pdag = learner(asia, whitelist=[("asia", "xray"), ("xray", "asia")])
        assert pdag.is_adjacent("asia", "xray"), learner.__name__


def test_the_command_line_refuses_a_cyclic_whitelist(tmp_path, asia):
    from bnfs import cli

    asia.to_csv(tmp_path / "asia.csv", index=False)
    (tmp_path / "white.csv").write_text("from,to\nasia,tub\ntub,either\neither,asia\n")
    for algorithm in ("pc_stable", "iamb", "hill_climbing"):
        argv = ["learn", str(tmp_path / "asia.csv"), "--out", str(tmp_path / "o.json")]
        argv += ["--algorithm", algorithm, "--whitelist", str(tmp_path / "white.csv")]
        with pytest.raises(SystemExit) as stop:
            cli.main([*argv, "--quiet"])
        assert stop.value.code == 2
        assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: bnfs.datasets.sample("alarm", 10**13), r"n=10000000000000 rows .* PiB"),
        (lambda: bnfs.datasets.sample("asia", 2**62), "lower n"),
        (lambda: bnfs.datasets.network_model("child").sample(10**12), "TiB, more than"),
        (lambda: bnfs.datasets.corral(46, n=10**12), "corral with n=1000000000000"),
        (lambda: bnfs.datasets.regression(138, n=10**12), "regression with n="),
        (lambda: bnfs.random_cg_network(2, 3).sample(10**13), "of memory here"),
    ],
)
def test_sizes_are_bounded_before_allocating(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("arity", [257, 30_000_000])
def test_from_codes_bounds_the_levels_before_allocating_them(arity):
    codes = np.array([[0, 1], [1, 0], [arity - 1, 1]])
    with pytest.raises(ValueError, match=f"column 'a' has {arity} levels .*max_levels=256"):
        bnfs.Dataset.from_codes(codes, ["a", "b"])
    with pytest.raises(ValueError, match="column 'b' has 300 levels"):
        bnfs.Dataset.from_codes(codes[:, ::-1] % 2, ["a", "b"], {"b": tuple(range(300))})
    if arity < 1000:  # allowed when asked for
        data = bnfs.Dataset.from_codes(codes, ["a", "b"], max_levels=arity)
        assert data.arity("a") == arity
    with pytest.raises(TypeError, match="max_levels"):
        bnfs.Dataset.from_codes(codes, ["a", "b"], max_levels=2.5)


def test_the_example_command_bounds_its_rows(capsys):
    from bnfs import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["example", "--rows", "10000000000000", "--quiet"])
    assert stop.value.code == 2
    assert "pass fewer --rows" in capsys.readouterr().err


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda f: bnfs.learn(f, seed=-1, folds=2), ValueError, "seed must be >= 0"),
        (lambda f: bnfs.learn(f, seed=1.5, folds=2), TypeError, "seed must be an integer"),
        (lambda f: bnfs.learn(f, seed="0", folds=2), TypeError, "seed must be an integer"),
        (lambda f: bnfs.Dataset(f).take([10**6]), ValueError, r"rows must lie in 0\.\.299"),
        (lambda f: bnfs.Dataset(f).take([0, -1]), ValueError, "got -1"),
        (lambda f: bnfs.Dataset(f).take([0.5]), TypeError, "integer row indices"),
        (lambda f: bnfs.Dataset(f).take(np.ones(300, bool)), TypeError, "flatnonzero"),
        (lambda f: bnfs.Dataset(f).take(["a"]), TypeError, "integer row indices"),
    ],
)
def test_raw_errors_are_named(call, error, message):
    frame = bnfs.datasets.sample("asia", 300, seed=0)
    with pytest.raises(error, match=message):
        call(frame)


@pytest.mark.parametrize(
    "graph, error, message",
    [
        (lambda nx: nx.MultiDiGraph([("a", "b"), ("a", "b")]), TypeError, "MultiDiGraph"),
        (lambda nx: nx.MultiDiGraph([("a", "b")]), TypeError, "parallel arcs"),
        (lambda nx: nx.MultiGraph([("a", "b")]), TypeError, "MultiGraph"),
        (lambda nx: nx.DiGraph([("a", "a")]), ValueError, "node 'a' has a self-loop"),
        (lambda nx: nx.DiGraph([("a", "b"), ("b", "b")]), ValueError, "node 'b' has a self-loop"),
        (lambda nx: nx.Graph([("a", "b"), ("b", "b")]), ValueError, "self-loop"),
    ],
)
def test_from_networkx_refuses_what_a_network_cannot_hold(graph, error, message):
    import networkx as nx

    with pytest.raises(error, match=message):
        bnfs.io.from_networkx(graph(nx))


@pytest.mark.parametrize("state", [[1, 2, 3], "text", 7, None])
def test_a_checkpoint_whose_state_is_not_a_mapping_is_damaged(tmp_path, state):
    import json

    from bnfs._checkpoint import Checkpoint

    frame = bnfs.datasets.sample("asia", 300, seed=0)
    for name, run in (
        ("hc", lambda path: bnfs.hill_climbing(frame, checkpoint=path, progress=False)),
        (
            "learn",
            lambda path: bnfs.learn(frame, folds=2, candidates=["hc", "tabu"], checkpoint=path),
        ),
    ):
        path = tmp_path / f"{name}.json"
        run(path)
        written = json.loads(path.read_text())
        Checkpoint(path, written["who"], written["fingerprint"]).save(state)
        with pytest.raises(ValueError, match="is damaged"):
            run(path)


# issue 59, items 9, 10 and 16


@pytest.mark.parametrize(
    "change",
    [
        lambda arcs: arcs.append(("ghost", "tub")),
        lambda arcs: arcs.__setitem__(0, ("asia", "ghost")),
        lambda arcs: arcs.extend([("ghost", "asia"), ("tub", "ghost")]),
    ],
)
def test_a_checked_arc_list_changed_after_its_check_is_checked_again(change):
    from bnfs._validate import arc_list

    frame = bnfs.datasets.sample("asia", 200, seed=1)
    checked = arc_list([("asia", "tub")], "blacklist", frame.columns)
    change(checked)
    with pytest.raises(ValueError, match="ghost"):
        bnfs.hill_climbing(frame, blacklist=checked)
    with pytest.raises(ValueError, match="ghost"):
        bnfs.pc_stable(frame, blacklist=checked)


@pytest.mark.parametrize("value", [1.0, 0.0, -3.5])
def test_fit_names_a_constant_float_column_with_a_continuous_parent(value):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=60), "k": np.full(60, value)})
    dag = bnfs.DAG(["x", "k"], arcs=[("x", "k")])
    with pytest.raises(ValueError, match=f"column 'k' is constant \\(every row {value!r}\\)"):
        bnfs.fit(dag, frame)


@pytest.mark.parametrize("digits", [4301, 50_000])
def test_from_json_with_a_huge_integer_says_what_it_cannot_read(digits):
    text = '{"format": "bnfs-graph", "nodes": ["a"], "n": ' + "9" * digits + "}"
    with pytest.raises(ValueError, match="not a bnfs JSON graph: it holds an integer longer"):
        bnfs.io.from_json(text)


def test_near_misses_are_named():
    frame = bnfs.datasets.sample("asia", 300, seed=2)
    for method in ("learn", "hiton_mb", "auto"):
        with pytest.raises(ValueError, match="did you mean 'either'"):
            bnfs.markov_blanket(frame, "Either", method=method)
    with pytest.raises(ValueError, match="did you mean 'either'"):
        bnfs.neighbours(frame, "Eithr", method="pc_stable")
    with pytest.raises(ValueError, match="did you mean 'hiton_mb'"):
        bnfs.markov_blanket(frame, "either", method="hiton_mbb")
    with pytest.raises(ValueError, match="did you mean 'either'"):
        bnfs.datasets.network("asia").markov_blanket("EITHER")


@pytest.mark.parametrize(
    "name, where",
    [
        ("to_networkx", "bnfs.io.to_networkx"),
        ("read_bif", "bnfs.io.read_bif"),
        ("hiton_mb", "bnfs.constraint.hiton_mb"),
    ],
)
def test_a_name_that_lives_in_a_room_points_there(name, where):
    with pytest.raises(AttributeError, match=f"it is {where}"):
        getattr(bnfs, name)
    with pytest.raises(AttributeError, match="did you mean 'hill_climbing'"):
        bnfs.hill_climbin  # noqa: B018
