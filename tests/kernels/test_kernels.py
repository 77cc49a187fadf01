"""The compiled kernels against plain numpy/pandas references, on data small enough to run
them as Python too: ``tests/kernels/test_without_jit.py`` reruns every test marked ``kernels``
with ``NUMBA_DISABLE_JIT=1``, where numba's missing bounds checks cannot hide an error."""

import functools
import itertools
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln

import bnfs
from bnfs import DAG, Scorer, datasets
from bnfs.stats.citests import CITest

pytestmark = pytest.mark.kernels


@pytest.fixture(scope="module")
def asia():
    return datasets.sample("asia", 400, seed=0)


def reference_local(frame: pd.DataFrame, child: str, parents, kind: str, iss: float = 1.0):
    """A discrete local score from pandas counts (bnlearn's definitions)."""
    n = len(frame)
    levels = {c: sorted(frame[c].astype(str).unique()) for c in frame.columns}
    r = len(levels[child])
    q = math.prod(len(levels[p]) for p in parents)
    if parents:
        table = frame.astype(str).groupby(list(parents) + [child], observed=True).size()
        n_jk = table.to_numpy(dtype=float)
        n_j = table.groupby(level=list(range(len(parents)))).transform("sum").to_numpy(float)
        n_config = table.groupby(level=list(range(len(parents)))).sum().to_numpy(float)
    else:
        n_jk = frame[child].astype(str).value_counts().to_numpy(dtype=float)
        n_j = np.full_like(n_jk, n)
        n_config = np.array([float(n)])
    loglik = float(np.sum(n_jk * np.log(n_jk / n_j)))
    free = q * (r - 1)
    if kind == "loglik":
        return loglik
    if kind == "bic":
        return loglik - 0.5 * math.log(n) * free
    if kind == "aic":
        return loglik - free
    a_jk, a_j = (iss / (q * r), iss / q) if kind == "bde" else (1.0, float(r))
    return float(
        np.sum(gammaln(a_jk + n_jk) - gammaln(a_jk))
        + np.sum(gammaln(a_j) - gammaln(a_j + n_config))
    )


def reference_total(frame, dag: DAG, kind: str) -> float:
    return sum(reference_local(frame, v, sorted(dag.parents(v)), kind) for v in dag.nodes)


def neighbours(dag: DAG):
    """Every DAG one arc addition, removal or reversal away."""
    arcs = set(dag.arcs)
    for u, v in itertools.permutations(dag.nodes, 2):
        if (u, v) in arcs:
            yield DAG(dag.nodes, arcs - {(u, v)})
            turned = (arcs - {(u, v)}) | {(v, u)}
        elif (v, u) not in arcs:
            turned = arcs | {(u, v)}
        else:
            continue
        try:
            yield DAG(dag.nodes, turned)
        except ValueError:  # a cycle
            pass


@pytest.mark.parametrize("kind", ["bic", "bde", "k2", "aic"])
def test_hill_climbing_ends_at_a_local_optimum_of_the_reference_score(asia, kind):
    dag = bnfs.hill_climbing(asia, kind, progress=False, n_jobs=2)
    best = reference_total(asia, dag, kind)
    assert dag.learning["score_value"] == pytest.approx(best, rel=1e-10)
    local = functools.lru_cache(maxsize=None)(
        lambda v, parents: reference_local(asia, v, list(parents), kind)
    )
    scores = [
        sum(local(v, tuple(sorted(other.parents(v)))) for v in other.nodes)
        for other in neighbours(dag)
    ]
    assert len(scores) > 25
    assert max(scores) <= best + 1e-7


def test_tabu_restarts_and_threads(asia):
    greedy = bnfs.hill_climbing(asia, progress=False)
    tabu = bnfs.tabu_search(asia, tabu=5, progress=False)
    restarted = bnfs.hill_climbing(asia, restarts=2, perturb_moves=3, seed=1, progress=False)
    for dag in (tabu, restarted):
        assert dag.learning["score_value"] >= greedy.learning["score_value"] - 1e-9
        assert dag.learning["score_value"] == pytest.approx(reference_total(asia, dag, "bic"))
    assert (
        bnfs.hill_climbing(asia, restarts=2, perturb_moves=3, seed=1, n_jobs=2, progress=False)
        == restarted
    )


def test_constraints_hold(asia):
    white = [("smoke", "lung")]
    black = [("either", "xray"), ("lung", "either")]
    dag = bnfs.hill_climbing(
        asia, "bde", max_parents=1, whitelist=white, blacklist=black, progress=False
    )
    assert ("smoke", "lung") in dag.arcs and not set(black) & set(dag.arcs)
    assert max(len(dag.parents(v)) for v in dag.nodes) <= 1
    start = DAG(asia.columns, [("asia", "tub"), ("tub", "either")])
    from_start = bnfs.hill_climbing(asia, start=start, progress=False)
    assert from_start.learning["score_value"] == pytest.approx(
        reference_total(asia, from_start, "bic")
    )


def test_the_parent_table_widens_past_eight_parents():
    """Log-likelihood adds every arc that gains anything: nearly the complete DAG."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        rng.integers(0, 2, size=(120, 11)), columns=[f"x{i}" for i in range(11)]
    ).astype(str)
    dag = bnfs.hill_climbing(frame, "loglik", progress=False)
    assert dag.n_arcs >= 50 and max(len(dag.parents(v)) for v in dag.nodes) > 8
    assert dag.learning["score_value"] == pytest.approx(reference_total(frame, dag, "loglik"))
    capped = bnfs.hill_climbing(frame, "loglik", max_parents=3, progress=False)
    assert max(len(capped.parents(v)) for v in capped.nodes) == 3


def test_large_tables_are_counted_by_sorting():
    """4^7 cells exceed the dense counting scratch of 400 rows: the sorting path counts."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.integers(0, 4, size=(400, 7)), columns=list("abcdefg")).astype(str)
    scorer = Scorer(frame, "bde")
    parents = list("bcdefg")
    for kind in ("bic", "bde", "k2", "loglik"):
        assert Scorer(frame, kind).local("a", parents) == pytest.approx(
            reference_local(frame, "a", parents, kind), rel=1e-10
        )
    assert scorer.local("a", parents[:2]) == pytest.approx(
        reference_local(frame, "a", parents[:2], "bde"), rel=1e-10
    )


@pytest.mark.parametrize(
    "r_child, r_parent, n",
    [(64, 64, 100), (65, 64, 100), (2, 2048, 60), (2, 2049, 60), (70, 70, 2000), (300, 3, 40)],
)
def test_local_scores_at_the_counting_scratch_boundary(r_child, r_parent, n):
    """Families just inside and just past the dense counting scratch (4,096 cells here),
    high arity with few rows: every score equals the pandas reference."""
    rng = np.random.default_rng(r_child + r_parent)
    parent = rng.integers(0, r_parent, n)
    frame = pd.DataFrame({"a": (parent + rng.integers(0, 3, n)) % r_child, "b": parent}).astype(str)
    data = bnfs.Dataset(frame, max_levels=5000, discrete=["a", "b"])  # not identifiers
    for kind in ("bic", "bde", "k2", "loglik"):
        assert Scorer(data, kind).local("a", ["b"]) == pytest.approx(
            reference_local(frame, "a", ["b"], kind), rel=1e-10
        )


def test_gaussian_local_score_is_the_regression_likelihood():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 2))
    y = 1.5 * x[:, 0] - x[:, 1] + rng.normal(scale=0.5, size=300)
    frame = pd.DataFrame({"x0": x[:, 0], "x1": x[:, 1], "y": y})
    design = np.column_stack([np.ones(300), x])
    residual = y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
    sigma2 = residual @ residual / 300
    loglik = -0.5 * 300 * (math.log(2 * math.pi * sigma2) + 1)
    assert Scorer(frame, "loglik-g").local("y", ["x0", "x1"]) == pytest.approx(loglik, rel=1e-9)
    assert Scorer(frame, "bic-g").local("y", ["x0", "x1"]) == pytest.approx(
        loglik - 0.5 * math.log(300) * 4, rel=1e-9
    )


def test_restricted_searches_and_random_post_processing(asia):
    sparse = bnfs.sparse_candidate(asia, k=2, progress=False, n_jobs=2)
    assert max(len(sparse.parents(v)) for v in sparse.nodes) <= 2
    screened = bnfs.screen_based(asia, theta=2, progress=False)
    assert bnfs.screen_based(asia, theta=2, progress=False, n_jobs=2) == screened
    capped = bnfs.screen_based(
        asia,
        theta=2,
        max_parents=1,
        progress=False,
        blacklist=[("either", "xray"), ("xray", "either")],
    )
    assert max(len(capped.parents(v)) for v in capped.nodes) <= 1
    assert not {("either", "xray"), ("xray", "either")} & set(capped.arcs)
    for dag in (sparse, screened, capped):
        assert dag.learning["score_value"] == pytest.approx(reference_total(asia, dag, "bic"))
    polished = bnfs.post_process(screened, asia, 3000, seed=3)
    assert polished.learning["score_value"] >= screened.learning["score_value"] - 1e-9
    assert polished.learning["score_value"] == pytest.approx(reference_total(asia, polished, "bic"))
    assert bnfs.post_process(screened, asia, 3000, seed=3) == polished


@pytest.mark.parametrize(
    "options",
    [
        {"test": "g2"},
        {"test": "x2", "alpha": 0.01},
        {"test": "mi_threshold", "threshold": 0.004},
        {"test": "g2", "adjust_df": True},
        {"test": "g2", "min_rows_per_cell": 5},
        {"test": "mi_adf"},
        {"test": "x2_adf", "alpha": 0.01},
    ],
)
def test_compiled_pc_levels_equal_the_python_path(options, monkeypatch):
    frame = datasets.sample("asia", 1000, seed=3)
    compiled = bnfs.pc_stable(frame, **options)
    assert bnfs.pc_stable(frame, n_jobs=2, **options) == compiled
    monkeypatch.setattr("bnfs.constraint.pc.CITest", type("NotCompiled", (), {}))
    python = bnfs.pc_stable(
        CITest(frame[sorted(frame.columns)], **_as_pc_stable_tests(options))
    )  # as make_test
    assert compiled == python
    # the orientation's tests are cached on the Python path: compare the skeleton's
    assert _skeleton_tests(compiled) == _skeleton_tests(python)


def _as_pc_stable_tests(options: dict) -> dict:
    """CITest options as pc_stable sets them (adjusted df by default for g2 and x2)."""
    return {"adjust_df": True, **options} if options["test"] in ("g2", "x2") else options


def _skeleton_tests(pdag) -> int:
    return pdag.learning["n_tests"] - pdag.learning["orientation_tests"]


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.uint8])
def test_the_kernels_sorts_equal_numpys(dtype):
    from bnfs._kernels.sorting import argsort_stable, sort_inplace

    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 5, 33, 257):
        values = rng.integers(0, 6, n).astype(dtype)  # many ties: stability shows
        assert np.array_equal(argsort_stable(values), np.argsort(values, kind="stable"))
        part = values.copy()
        sort_inplace(part[: n // 2])  # a view: sorted in place, the rest untouched
        assert np.array_equal(part[: n // 2], np.sort(values[: n // 2]))
        assert np.array_equal(part[n // 2 :], values[n // 2 :])


def test_kernels_compile_once_for_a_counter_that_starts_at_zero():
    """A call whose argument starts as the constant 0 compiles the callee for int64 only,
    not also for the literal 0 (which doubled a first run's compiling)."""
    from bnfs._kernels import njit

    @njit()
    def callee(a, m):
        return a + m

    @njit()
    def caller(a):
        m = 0
        for i in range(a):
            if i % 2:
                m += 1
        return callee(a, m) + callee(a, 0)

    assert caller(5) == 12
    if hasattr(callee, "signatures"):  # (not under NUMBA_DISABLE_JIT)
        assert [str(t) for t in callee.signatures[0]] == ["int64", "int64"]
        assert len(callee.signatures) == 1


def test_a_cached_kernel_goes_stale_when_a_kernel_it_calls_changes(tmp_path):
    """numba checks a cached kernel against its own file only; bnfs's njit also checks the
    files beside it, so an edited callee in another file is never run in its old form."""
    package = tmp_path / "pk"
    package.mkdir()
    (package / "__init__.py").write_text("")
    callee = "from bnfs._kernels import njit\n\n@njit(cache=True)\ndef value():\n    return {}\n"
    (package / "a.py").write_text(callee.format(1))
    (package / "b.py").write_text(
        "from bnfs._kernels import njit\nfrom pk.a import value\n\n"
        "@njit(cache=True)\ndef twice():\n    return 2 * value()\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    run = lambda: subprocess.run(  # noqa: E731
        [sys.executable, "-c", "from pk.b import twice; print(twice())"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()
    assert run() == "2"
    assert run() == "2"  # from the cache
    (package / "a.py").write_text(callee.format(10))
    assert run() == "20"
