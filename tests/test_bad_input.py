"""Hostile input across the public API: each case gets a ValueError / TypeError that names
the parameter or column (or a documented result), and the caller's frame is never changed."""

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


REFUSED = [
    ("one row", lambda f: bnfs.hill_climbing(f.iloc[:1]), ValueError, "every column is constant"),
    ("alpha as text", lambda f: bnfs.pc_stable(f, alpha="0.05"), TypeError, "alpha"),
    ("alpha above 1", lambda f: bnfs.pc_stable(f, alpha=1.5), ValueError, "alpha"),
    (
        "float max_parents",
        lambda f: bnfs.hill_climbing(f, max_parents=2.5),
        TypeError,
        "max_parents",
    ),
    (
        "bool max_parents",
        lambda f: bnfs.hill_climbing(f, max_parents=True),
        TypeError,
        "max_parents",
    ),
    (
        "negative max_parents",
        lambda f: bnfs.hill_climbing(f, max_parents=-1),
        ValueError,
        "max_parents",
    ),
    ("negative k", lambda f: bnfs.sparse_candidate(f, k=-1), ValueError, "k must be"),
    (
        "blacklist unknown node",
        lambda f: bnfs.hill_climbing(f, blacklist=[("nope", "asia")]),
        ValueError,
        "'nope'",
    ),
    (
        "whitelist two-cycle",
        lambda f: bnfs.hill_climbing(f, whitelist=[("asia", "tub"), ("tub", "asia")]),
        ValueError,
        "cycle",
    ),
    (
        "whitelist three-cycle",
        lambda f: bnfs.hill_climbing(
            f, whitelist=[("asia", "tub"), ("tub", "lung"), ("lung", "asia")]
        ),
        ValueError,
        "cycle",
    ),
    ("unknown target", lambda f: bnfs.constraint.iamb_mb(f, "nope"), ValueError, "'nope'"),
    ("list target", lambda f: bnfs.constraint.hiton_mb(f, ["asia"]), ValueError, "target"),
    (
        "dates",
        lambda f: bnfs.pc_stable(f.assign(when=pd.date_range("2020-01-01", periods=300))),
        TypeError,
        "column 'when' holds dates",
    ),
    ("negative iss", lambda f: bnfs.hill_climbing(f, score="bde", iss=-1), ValueError, "iss"),
    ("unknown score", lambda f: bnfs.hill_climbing(f, score="xx"), ValueError, "score"),
    ("text seed", lambda f: bnfs.hill_climbing(f, restarts=1, seed="a"), TypeError, "seed"),
    ("text n_jobs", lambda f: bnfs.pc_stable(f, n_jobs="2"), TypeError, "n_jobs"),
    ("zero n_jobs", lambda f: bnfs.hill_climbing(f, n_jobs=0), ValueError, "n_jobs"),
    ("theta 0", lambda f: bnfs.screen_based(f, theta=0), ValueError, "theta"),
    ("R 0", lambda f: bnfs.boot_strength(f, R=0), ValueError, "R must be"),
    ("negative max_time", lambda f: bnfs.hill_climbing(f, max_time=-1), ValueError, "max_time"),
    (
        "unknown selector learner",
        lambda f: bnfs.MarkovBlanketSelector("zz").fit(f.drop(columns="lung"), f["lung"]),
        ValueError,
        "learner",
    ),
    (
        "one-class target",
        lambda f: bnfs.MarkovBlanketSelector().fit(f.drop(columns="lung"), ["yes"] * len(f)),
        ValueError,
        "class",
    ),
    ("list of rows", lambda f: bnfs.hill_climbing(f.to_numpy().tolist()), TypeError, "data"),
    ("array without names", lambda f: bnfs.hill_climbing(f.to_numpy()), ValueError, "names"),
    (
        "negative seed",
        lambda f: bnfs.hill_climbing(f, restarts=1, seed=-1),
        ValueError,
        "seed must be >= 0",
    ),
    (
        "negative bootstrap seed",
        lambda f: bnfs.boot_strength(f, R=2, seed=-1),
        ValueError,
        "seed must be >= 0",
    ),
    ("float bootstrap seed", lambda f: bnfs.boot_strength(f, R=2, seed=1.5), TypeError, "seed"),
    (
        "negative sampling seed",
        lambda f: bnfs.datasets.sample("asia", 10, seed=-2),
        ValueError,
        "seed must be >= 0",
    ),
    (
        "write_bif of a DAG",
        lambda f: bnfs.io.write_bif(bnfs.datasets.network("asia")),
        TypeError,
        "DiscreteNetwork",
    ),
    (
        "averaged_network of a list",
        lambda f: bnfs.averaged_network([0.5, 1.0]),
        TypeError,
        "boot_strength",
    ),
    ("strengths above 1", lambda f: bnfs.inclusion_threshold([0.5, 2.0]), ValueError, r"\[0, 1\]"),
    ("from_json of a number", lambda f: bnfs.io.from_json(42), TypeError, "JSON text or a path"),
    ("from_json of a list", lambda f: bnfs.io.from_json("[1, 2]"), ValueError, "bnfs-graph"),
    ("draw a frame", lambda f: bnfs.models.export.draw(f, "x.svg"), TypeError, "DAG or PDAG"),
    ("networkx of a frame", lambda f: bnfs.models.export.to_networkx(f), TypeError, "DAG or PDAG"),
    ("dot of a list", lambda f: bnfs.models.export.to_dot([("a", "b")]), TypeError, "DAG or PDAG"),
    ("json of a string", lambda f: bnfs.models.export.to_json("a -> b"), TypeError, "DAG or PDAG"),
    (
        "roles of None",
        lambda f: bnfs.models.export.blanket_roles(None, "a"),
        TypeError,
        "DAG or PDAG",
    ),
    ("report picture of a frame", lambda f: bnfs.graphs.report.svg_of(f), TypeError, "DAG or PDAG"),
    ("ARFF from bytes", lambda f: bnfs.io.parse_arff(b"@relation r"), TypeError, "ARFF"),
    (
        "dask without a client",
        lambda f: bnfs.parallel.use_dask("localhost").__enter__(),
        TypeError,
        "distributed.Client",
    ),
    (
        "draw into no folder",
        lambda f: bnfs.models.export.draw(bnfs.datasets.network("asia"), "no/such/folder/x.svg"),
        ValueError,
        "folder",
    ),
]

DISCRETE_SELECTORS = [
    "MarkovBlanketSelector",
    "SRS",
    "SLFS",
    "HybridSelector",
    "FCBF",
    "CFS",
    "InformationGain",
    "TBNClassifier",
]


@pytest.mark.parametrize("selector", DISCRETE_SELECTORS)
@pytest.mark.parametrize(
    "parameter, value, message",
    [
        ("discretizer", "nonsense", "'discretizer' parameter of"),
        ("discretizer", None, "'discretizer' parameter of"),
        ("n_bins", 1, "'n_bins' parameter of"),
        ("n_bins", 2.5, "'n_bins' parameter of"),
        ("n_bins", True, "'n_bins' parameter of"),
    ],
)
def test_selector_parameters_are_checked_even_when_unused(
    asia, selector, parameter, value, message
):
    """asia has no continuous column, so the discretizer never runs: still refused."""
    X, y = asia.drop(columns="lung"), asia["lung"]
    with pytest.raises(ValueError, match=message):
        getattr(bnfs, selector)(**{parameter: value}).fit(X, y)


def test_selector_seed_is_checked(asia):
    """MarkovBlanketSelector is the one selector with randomness (KIAMB, restarts)."""
    X, y = asia.drop(columns="lung"), asia["lung"]
    with pytest.raises(ValueError, match="random_state must be >= 0"):
        bnfs.MarkovBlanketSelector(random_state=-1).fit(X, y)
    with pytest.raises(TypeError, match="random_state must be an int"):
        bnfs.MarkovBlanketSelector(random_state="7").fit(X, y)


@pytest.mark.parametrize("label, call, error, message", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_with_a_precise_message(asia, label, call, error, message):
    before = asia.copy()
    with pytest.raises(error, match=message):
        call(asia)
    pd.testing.assert_frame_equal(asia, before)  # never mutated


@pytest.mark.parametrize(
    "frame, error, message",
    [
        (pd.DataFrame(), ValueError, "no columns"),
        (pd.DataFrame({"a": pd.Series([], dtype=object)}), ValueError, "no rows"),
        (
            pd.DataFrame({"x": [1.0, np.inf, 2.0], "y": ["a", "b", "a"]}),
            ValueError,
            "column 'x' has infinite",
        ),
        (
            pd.DataFrame({"x": ["a", None, "b"], "y": ["a", "b", "a"]}),
            ValueError,
            "column 'x' has 1 missing",
        ),
        (
            pd.DataFrame({"x": pd.array(["a", pd.NA, "b"]), "y": ["a", "b", "a"]}),
            ValueError,
            "column 'x'",
        ),
        (pd.DataFrame({"x": [1, "a", 2], "y": ["a", "b", "a"]}), TypeError, "column 'x' mixes"),
        (pd.DataFrame([[1, 2], [2, 1]], columns=["a", "a"]), ValueError, "duplicate column"),
        (pd.DataFrame({("a", 1): [1, 2], "b": [1, 2]}), TypeError, "column names must be strings"),
        (
            pd.DataFrame(  # a declared category past max_levels (text would be set aside)
                {
                    "a": pd.Categorical([f"v{i % 5000}" for i in range(10_000)]),
                    "b": np.arange(10_000) % 2,
                }
            ),
            ValueError,
            "column 'a' has 5000 levels",
        ),
        (pd.DataFrame({"a": [1 + 1j, 2j], "b": [1, 2]}), TypeError, "column 'a' has complex"),
    ],
)
def test_datasets_refuse_hostile_frames(frame, error, message):
    with pytest.raises(error, match=message):
        bnfs.Dataset(frame)


def test_documented_handling_of_odd_but_valid_input(asia):
    assert bnfs.hill_climbing(asia[["asia"]]).n_arcs == 0  # one column: the empty graph
    unicode = asia.rename(columns={"asia": "äsiä 🫁"})
    assert "äsiä 🫁" in bnfs.hill_climbing(unicode).nodes
    levels = bnfs.Dataset(
        pd.DataFrame({"a": pd.Categorical(["x", "y"], categories=["x", "y", "z"]), "b": ["u", "v"]})
    )
    assert levels.states["a"] == ("x", "y")  # unused categories dropped, as bnlearn does
    more_levels_than_rows = pd.DataFrame({"a": list("abcd"), "b": list("xxyy")})
    assert bnfs.hill_climbing(more_levels_than_rows).n_arcs <= 1
    booleans = pd.DataFrame({"a": [True, False] * 50, "b": [True, True, False, False] * 25})
    assert bnfs.pc_stable(booleans).nodes == ("a", "b")


def _public_functions():
    import inspect

    import bnfs.models.export
    import bnfs.models.network
    import bnfs.stats.metrics

    modules = [
        bnfs,
        bnfs.io,
        bnfs.models.export,
        bnfs.stats.metrics,
        bnfs.parallel,
        bnfs.graphs.report,
        bnfs.models.network,
    ]
    seen = {}
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isfunction(obj) and not inspect.isgeneratorfunction(obj):
                seen.setdefault(f"{obj.__module__}.{obj.__name__}", obj)
    return sorted(seen.items())


GARBAGE = [42, None, "nonsense", [1, 2], np.zeros((3, 3)), pd.DataFrame(), {"a": 1}]


@pytest.mark.parametrize(
    "name, function", _public_functions(), ids=lambda x: x[:40] if isinstance(x, str) else None
)
def test_every_public_function_refuses_garbage_cleanly(name, function, tmp_path, monkeypatch):
    """Garbage in every required argument: a TypeError, ValueError or OSError, or a
    result; never an AttributeError, IndexError, KeyError or a numba error."""
    import inspect
    import warnings

    monkeypatch.chdir(tmp_path)  # a "nonsense" path must not exist
    required = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    for garbage in GARBAGE:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                function(*[garbage] * max(1, len(required)))
            except (TypeError, ValueError, OSError):
                pass


SELECTORS = [
    bnfs.MarkovBlanketSelector("iamb_mb"),
    bnfs.HSMB(),
    bnfs.BAHSIC(2),
    bnfs.SRS(),
    bnfs.SLFS(),
    bnfs.FCBF(),
    bnfs.CFS(),
    bnfs.InformationGain(2),
    bnfs.HybridSelector(),
]
NULLABLE = {
    "Float64": [0.5, pd.NA],
    "Int64": [3, pd.NA],
    "boolean": [True, pd.NA],
    "string": ["u", pd.NA],
    "category": ["u", None],
    "object": ["u", None],
}


@pytest.mark.parametrize("dtype", NULLABLE)
@pytest.mark.parametrize("selector", SELECTORS, ids=lambda s: type(s).__name__)
def test_missing_values_of_every_dtype_are_refused_by_name(selector, dtype):
    """pd.NA in a nullable (extension) column is missing, like NaN: refused naming the
    column, in X and in y, never read as a number (HSMB kept every feature, BAHSIC dropped
    the informative one)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    good, bad = NULLABLE[dtype]
    column = pd.Series([good if i % 7 else bad for i in range(60)], dtype=dtype)
    X = pd.DataFrame(
        {"signal": y + rng.normal(0, 0.3, 60), "holes": column, "noise": rng.normal(size=60)}
    )
    before = X.copy()
    if isinstance(selector, bnfs.MarkovBlanketSelector):  # takes them (tested elsewhere):
        selector.fit(X, y)  # here 'holes' has one observed value, constant: dropped
        assert "signal" in selector.selected_ and "holes" not in selector.selected_
    else:
        with pytest.raises(ValueError, match=r"column 'holes' of X has 9 missing value"):
            selector.fit(X, y)
    pd.testing.assert_frame_equal(X, before)
    target = pd.Series([good if i % 7 else bad for i in range(60)], dtype=dtype)
    with pytest.raises(ValueError, match=r"y has 9 missing value"):
        selector.fit(X.drop(columns="holes"), target)
    with pytest.raises(ValueError, match=r"column 'holes' has 9 missing value"):
        bnfs.Dataset(X)


def test_nullable_columns_without_missing_values_are_used():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    X = pd.DataFrame(
        {
            "signal": pd.array(y * 2.0 + rng.normal(0, 0.3, 200), dtype="Float64"),
            "noise": pd.array(rng.normal(size=200), dtype="Float64"),
        }
    )
    assert bnfs.HSMB().fit(X, pd.array(y, dtype="Int64")).selected_ == ["signal"]
    assert bnfs.BAHSIC(1).fit(X, y).selected_ == ["signal"]


def test_nullable_class_labels_keep_their_type():
    rng = np.random.default_rng(2)
    y = pd.Series(rng.integers(0, 2, 120), dtype="Int64")
    X = pd.DataFrame(
        {
            "a": (y.to_numpy(dtype=int) + rng.integers(0, 2, 120)).astype(str),
            "b": rng.integers(0, 3, 120).astype(str),
        }
    )
    model = bnfs.TBNClassifier().fit(X, y)
    assert model.classes_.dtype.kind == "i" and set(model.predict(X)) <= {0, 1}


def test_messages_name_the_problem(asia, tmp_path):
    """Calls that raised an unrelated error now say what is wrong."""
    frame = asia
    with pytest.raises(
        TypeError,
        match="unexpected keyword argument 'max_time'.*takes "
        "threshold, adjust_df, min_rows_per_cell",
    ):
        bnfs.tpda(frame, max_time=5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_jobs'"):
        bnfs.constraint.iamb_mb(frame, "either", n_jobs=2)
    with pytest.raises(ValueError, match="from_json got an empty string"):
        bnfs.io.from_json("")
    with pytest.raises(ValueError, match="nested too deeply"):
        bnfs.io.from_json("[" * 200_000 + "]" * 200_000)
    page = bnfs.graphs.report.selection_report(title="t", features=[1, 2], facts={})
    assert "<code>1</code>, <code>2</code>" in page
    X = pd.DataFrame({0: ["a", "b"] * 10, "0": ["c", "d"] * 10})
    with pytest.raises(ValueError, match="two columns named '0'"):
        bnfs.FCBF().fit(X, ["u", "v"] * 10)
    (tmp_path / "dup.csv").write_text("a,a,b\n1,2,1\n2,1,2\n1,1,1\n2,2,2\n")
    for read in (bnfs.Dataset, bnfs.Dataset.from_csv, bnfs.io.read_dataset):
        with pytest.raises(ValueError, match="names column 'a' twice"):
            read(tmp_path / "dup.csv")
