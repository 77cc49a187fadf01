"""Bundled networks and data: the classic BIF networks, synthetic generators, LUCAS0.

The classic networks (asia, cancer, sachs, child, insurance, alarm, hailfinder, win95pts,
andes, munin, ...) are read offline from the BIF files that pgmpy ships inside its wheel, by
bnfs's own BIF parser (pgmpy itself is not imported). Sampling is bnfs's vectorized forward
sampler, reproducible per ``seed``.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

from bnfs._validate import check_allocation, check_int, check_seed
from bnfs.graphs.graph import DAG
from bnfs.models.bif import read_bif
from bnfs.models.network import DiscreteNetwork, sampling_bytes

__all__ = [
    "available_networks",
    "network",
    "network_model",
    "sample",
    "corral",
    "planted_blanket",
    "regression",
    "synthetic",
    "load_lucas0",
    "lucas0_network",
    "survey_network",
    "survey",
    "load_survey",
]


def _pgmpy_models_dir() -> Path:
    spec = importlib.util.find_spec("pgmpy")
    if spec is None or spec.origin is None:  # pragma: no cover - pgmpy is a dependency
        raise ImportError("the bundled networks come with pgmpy; pip install pgmpy")
    return Path(spec.origin).parent / "utils" / "example_models"


def available_networks() -> list[str]:
    """Names accepted by :func:`network` and :func:`sample`.

    >>> {"asia", "alarm", "andes", "win95pts"} <= set(available_networks())
    True
    """
    return sorted(p.name[: -len(".bif.gz")] for p in _pgmpy_models_dir().glob("*.bif.gz"))


@functools.cache
def _read_network(name: str) -> DiscreteNetwork:
    path = _pgmpy_models_dir() / f"{name}.bif.gz"
    if not path.exists():
        raise ValueError(f"unknown network {name!r}; available: {available_networks()}")
    return read_bif(path)


def _check_network_name(name) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    return name.lower()


def network_model(name: str) -> DiscreteNetwork:
    """A classic network with its probability tables (a fresh copy each call).

    Examples
    --------
    >>> network_model("asia").states["smoke"]
    ('yes', 'no')
    """
    return copy.deepcopy(_read_network(_check_network_name(name)))


def network(name: str) -> DAG:
    """The true DAG of a classic network.

    Examples
    --------
    >>> g = network("asia")
    >>> g.n_nodes, g.n_arcs, g.markov_blanket("either")
    (8, 8, ['tub', 'lung', 'bronc', 'xray', 'dysp'])
    """
    return _read_network(_check_network_name(name)).dag.copy()


def sample(name: str, n: int, seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
    """``n`` rows forward-sampled from a classic network (categorical columns).

    Examples
    --------
    >>> sample("asia", 3, seed=0).shape
    (3, 8)
    """
    return _read_network(_check_network_name(name)).sample(n, seed=seed)


# --- synthetic data of the HSMB paper -------------------------------------------------------


def _copy_with_noise(rng, source: np.ndarray, match: float, draw) -> np.ndarray:
    """``source`` where a coin with P(match) says so, a fresh random value elsewhere."""
    keep = rng.random(source.shape[0]) < match
    return np.where(keep, source, draw(source.shape[0]))


def _matching(rng, bits: np.ndarray, rate: float) -> np.ndarray:
    """0/1 ``bits`` kept where a coin with P(rate) says so and flipped elsewhere."""
    return np.where(rng.random(bits.shape[0]) < rate, bits, 1 - bits)


def corral(
    n_features: int = 7,
    related: bool = False,
    n: int = 1000,
    seed: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """The Corral data sets (John, Kohavi & Pfleger 1994; Yu & Liu 2004; Lou & Obradovic).

    Boolean features A0, A1, B0, B1 and class ``Y = (A0 and A1) or (B0 and B1)``; the
    optimal feature set is {A0, A1, B0, B1}.

    Parameters
    ----------
    n_features : {7, 46}
        The paper's names: Corral-7 has 7 columns with the class, Corral-46 has 46 features
        plus the class. 7: the four relevant features, an irrelevant ``I`` (uniform) and a redundant ``R``
        that equals ``Y`` 75% of the time. 46: the four relevant features, 14 irrelevant
        ``I0..I13`` and 28 redundant ones, seven per relevant feature (``A0_1..A0_7``, ...),
        matching it 9/16, 10/16, ..., 15/16 of the time and its complement otherwise (the
        HSMB paper gives the counts; the match rates follow its Regression-38 recipe).
    related : bool
        The "Corral-rel" variants: A1 matches A0 and B1 matches B0 60% of the time (the
        complement otherwise) instead of being independent.
    n : int
        Number of rows.
    seed : int or numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        0/1 integer columns, class ``Y`` last.

    Examples
    --------
    >>> corral(7, n=4, seed=0).columns.tolist()
    ['A0', 'A1', 'B0', 'B1', 'I', 'R', 'Y']
    """
    if n_features not in (7, 46):
        raise ValueError(f"n_features must be 7 or 46, got {n_features!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    check_allocation(sampling_bytes(n, n_features + 1), f"corral with n={n} rows", "lower n")
    rng = check_seed(seed)

    def bits(size):
        return rng.integers(0, 2, size)

    a0, b0 = bits(n), bits(n)
    a1 = _matching(rng, a0, 0.6) if related else bits(n)
    b1 = _matching(rng, b0, 0.6) if related else bits(n)
    y = (a0 & a1) | (b0 & b1)
    cols = {"A0": a0, "A1": a1, "B0": b0, "B1": b1}
    if n_features == 7:
        cols["I"] = bits(n)
        cols["R"] = np.where(rng.random(n) < 0.75, y, 1 - y)
    else:
        for i in range(14):
            cols[f"I{i}"] = bits(n)
        for base in ("A0", "A1", "B0", "B1"):
            for k in range(1, 8):
                cols[f"{base}_{k}"] = _matching(rng, cols[base], (8 + k) / 16)
    cols["Y"] = y
    return pd.DataFrame(cols)


def planted_blanket(
    n_features: int = 100_000,
    n: int = 500,
    seed: int | np.random.Generator | None = 0,
) -> tuple[pd.DataFrame, pd.Series, dict[str, list[str]]]:
    """Wide genotype-like data with a known Markov blanket of 10: the benchmark of feature
    selection on 100,000 features (``benchmarks/wide_selection.py``).

    Every feature takes the values 0, 1, 2 (a genotype's count of minor alleles, with a
    minor-allele frequency drawn from U(0.1, 0.5)). The binary class ``y`` has 4 parents
    ``P0..P3`` (minor-allele frequencies from U(0.25, 0.5); y = 1 with probability 0.02,
    0.1, 0.5, 0.9, 0.98 when 0, 1, 2, 3, 4 of them are non-zero), 3 children ``C0..C2``
    and their 3 other parents, the spouses ``S0..S2`` (each child is (y + its spouse) mod 3
    with probability 0.85, uniform otherwise): the blanket of 10. Around it, 2 grandparents
    ``G0``, ``G1`` (the only parents of ``P0`` and ``P1``, which copy them 80% of the time)
    and 3 grandchildren ``D0..D2`` (a noisy copy of each child) depend on the class without
    being in its blanket; the other features ``X...`` are independent of everything, in a
    shuffled column order.

    Returns
    -------
    X : pandas.DataFrame
        ``n`` rows of ``n_features`` int8 columns.
    y : pandas.Series
        The class, 0/1.
    truth : dict
        ``{"parents", "children", "spouses", "blanket", "relevant_outside"}``: names.

    Examples
    --------
    >>> X, y, truth = planted_blanket(50, 200, seed=1)
    >>> X.shape, len(truth["blanket"])
    ((200, 50), 10)
    """
    n_features = check_int(n_features, "n_features", 15)
    n = check_int(n, "n", 1)
    check_allocation(
        n * n_features * 9, f"planted_blanket with {n_features} features", "fewer features"
    )
    rng = check_seed(seed)

    def genotypes(count: int, low: float = 0.1) -> np.ndarray:
        maf = rng.uniform(low, 0.5, size=count)
        return rng.binomial(2, maf, size=(n, count)).astype(np.int8)

    def noisy(values: np.ndarray, keep: float) -> np.ndarray:
        return np.where(rng.random(n) < keep, values, rng.integers(0, 3, n)).astype(np.int8)

    grand = genotypes(2)
    parents = genotypes(4, low=0.25)
    parents[:, :2] = np.stack([noisy(grand[:, i], 0.8) for i in range(2)], axis=1)
    risk = np.array([0.02, 0.1, 0.5, 0.9, 0.98])[(parents > 0).sum(axis=1)]
    y = (rng.random(n) < risk).astype(np.int8)
    spouses = genotypes(3)
    children = np.stack([noisy((y + spouses[:, i]) % 3, 0.85) for i in range(3)], axis=1)
    descendants = np.stack([noisy(children[:, i], 0.8) for i in range(3)], axis=1)
    noise = genotypes(n_features - 15)
    named = {
        **{f"G{i}": grand[:, i] for i in range(2)},
        **{f"P{i}": parents[:, i] for i in range(4)},
        **{f"C{i}": children[:, i] for i in range(3)},
        **{f"S{i}": spouses[:, i] for i in range(3)},
        **{f"D{i}": descendants[:, i] for i in range(3)},
    }
    width = len(str(n_features))
    columns = list(named) + [f"X{j:0{width}d}" for j in range(n_features - 15)]
    values = np.concatenate([np.stack(list(named.values()), axis=1), noise], axis=1)
    order = rng.permutation(n_features)
    X = pd.DataFrame(values[:, order], columns=[columns[j] for j in order])
    truth = {
        "parents": [f"P{i}" for i in range(4)],
        "children": [f"C{i}" for i in range(3)],
        "spouses": [f"S{i}" for i in range(3)],
        "relevant_outside": ["G0", "G1", "D0", "D1", "D2"],
    }
    truth["blanket"] = truth["parents"] + truth["children"] + truth["spouses"]
    return X, pd.Series(y, name="y"), truth


def regression(
    n_features: int = 22,
    n: int = 500,
    noise: float = 0.1,
    seed: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Regression-22/38/138 of the HSMB paper: ``y = x1 exp(-x1^2 - x2^2) + noise``.

    Parameters
    ----------
    n_features : {22, 38, 138}
        22: x1, x2 and 20 irrelevant features. 38: plus 16 redundant features, eight per
        relevant one (``x1_1..x1_8``), equal to it with probability 9/16, ..., 16/16 and a
        fresh random value otherwise. 138: plus 100 more irrelevant features.
    n : int
        Number of rows.
    noise : float
        Standard deviation of the Gaussian noise.
    seed : int or numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        Float columns (features standard normal), target ``y`` last. The optimal set is
        {x1, x2}.

    Examples
    --------
    >>> regression(38, n=5).shape
    (5, 39)
    """
    if n_features not in (22, 38, 138):
        raise ValueError(f"n_features must be 22, 38 or 138, got {n_features!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    check_allocation(sampling_bytes(n, n_features + 1), f"regression with n={n} rows", "lower n")
    rng = check_seed(seed)
    x1, x2 = rng.standard_normal(n), rng.standard_normal(n)
    y = x1 * np.exp(-(x1**2) - x2**2) + noise * rng.standard_normal(n)
    cols = {"x1": x1, "x2": x2}
    for i in range(20):
        cols[f"irr{i}"] = rng.standard_normal(n)
    if n_features >= 38:
        for base in ("x1", "x2"):
            for k in range(1, 9):
                cols[f"{base}_{k}"] = _copy_with_noise(
                    rng, cols[base], (8 + k) / 16, rng.standard_normal
                )
    if n_features == 138:
        for i in range(20, 120):
            cols[f"irr{i}"] = rng.standard_normal(n)
    cols["y"] = y
    return pd.DataFrame(cols)


_SYNTHETIC = {
    "corral-7": lambda n, seed: corral(7, False, n, seed),
    "corral-46": lambda n, seed: corral(46, False, n, seed),
    "corral-rel-7": lambda n, seed: corral(7, True, n, seed),
    "corral-rel-46": lambda n, seed: corral(46, True, n, seed),
    "regression-22": lambda n, seed: regression(22, n, seed=seed),
    "regression-38": lambda n, seed: regression(38, n, seed=seed),
    "regression-138": lambda n, seed: regression(138, n, seed=seed),
}


def synthetic(name: str, n: int = 1000, seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
    """A synthetic data set of the HSMB paper by name: ``"corral-7"``, ``"corral-46"``,
    ``"corral-rel-7"``, ``"corral-rel-46"``, ``"regression-22"``, ``"regression-38"``,
    ``"regression-138"``.

    Examples
    --------
    >>> synthetic("corral-46", n=5).shape
    (5, 47)
    """
    if name not in _SYNTHETIC:
        raise ValueError(f"unknown synthetic data set {name!r}; choose from {sorted(_SYNTHETIC)}")
    return _SYNTHETIC[name](n, seed)


# --- real data shipped in data/ -------------------------------------------------------------


def _data_file(name: str) -> Path:
    here = Path(__file__).resolve().parent
    for folder in (here / "data", here.parent / "data"):  # installed wheel, source checkout
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(f"bundled data file {name!r} not found")  # pragma: no cover


def load_lucas0() -> pd.DataFrame:
    """LUCAS0 (Causality Workbench): 2,000 rows, 12 binary 0/1 columns, target
    ``Lung_cancer``. Source and licence: ``data/README.md``.

    Examples
    --------
    >>> load_lucas0().shape
    (2000, 12)
    """
    return pd.read_csv(_data_file("lucas0.csv"))


def lucas0_network() -> DAG:
    """The true DAG of LUCAS0 (12 arcs).

    Examples
    --------
    >>> lucas0_network().markov_blanket("Lung_cancer")
    ['Smoking', 'Genetics', 'Fatigue', 'Allergy', 'Coughing']
    """
    arcs = pd.read_csv(_data_file("lucas0_graph.csv"))
    nodes = load_lucas0().columns.tolist()
    return DAG(nodes, zip(arcs["Cause"], arcs["Effect"]))


# --- a mixed survey with missing values --------------------------------------------------------

#: (parents, and the parameters): the conditional-Gaussian network behind ``survey.csv``
_SURVEY_LEVELS = {
    "sex": ("female", "male"),
    "education": ("school", "college", "university"),
    "smoker": ("no", "yes"),
    "exercise": ("low", "medium", "high"),
}


def survey_network():
    """The conditional-Gaussian network the bundled ``survey.csv`` was sampled from: four
    discrete answers (sex, education, smoker, exercise) and six continuous measurements
    (age, income, bmi, blood pressure ``sbp``, cholesterol, glucose), 11 arcs.

    Examples
    --------
    >>> net = survey_network()
    >>> net.dag.parents("sbp"), net.dag.children("exercise")
    (['smoker', 'age', 'bmi'], ['bmi', 'cholesterol'])
    """
    from bnfs.models.cg_network import ConditionalGaussianNetwork

    parents = {
        "sex": (),
        "education": (),
        "smoker": ("education",),
        "exercise": ("education",),
        "age": (),
        "income": ("education", "sex", "age"),
        "bmi": ("exercise", "age"),
        "sbp": ("smoker", "bmi", "age"),
        "cholesterol": ("exercise", "bmi"),
        "glucose": ("bmi", "age"),
    }
    levels = {name: len(states) for name, states in _SURVEY_LEVELS.items()}
    tables = {
        "sex": np.array([[0.52, 0.48]]),
        "education": np.array([[0.45, 0.35, 0.20]]),
        "smoker": np.array([[0.55, 0.45], [0.75, 0.25], [0.88, 0.12]]),
        "exercise": np.array([[0.55, 0.30, 0.15], [0.35, 0.40, 0.25], [0.20, 0.40, 0.40]]),
    }
    # intercept and coefficients on the continuous parents, per discrete configuration
    edu_sex = [[22, 24], [30, 34], [40, 47]]  # income (k$) by education, sex
    regressions = {
        "age": np.array([[48.0]]),
        "income": np.array([[v, 0.35] for row in edu_sex for v in row]),
        "bmi": np.array([[24.0, 0.06], [22.5, 0.05], [20.5, 0.04]]),
        "sbp": np.array([[80.0, 1.1, 0.45], [86.0, 1.1, 0.45]]),
        "cholesterol": np.array([[120.0, 3.0], [112.0, 2.9], [100.0, 2.8]]),
        "glucose": np.array([[45.0, 1.2, 0.25]]),
    }
    sd = {
        "age": np.array([14.0]),
        "income": np.full(6, 9.0),
        "bmi": np.array([3.5, 3.2, 3.0]),
        "sbp": np.array([11.0, 12.0]),
        "cholesterol": np.array([28.0, 27.0, 26.0]),
        "glucose": np.array([11.0]),
    }
    arcs = [(p, v) for v, ps in parents.items() for p in ps]
    dag = DAG(list(parents), arcs)
    return ConditionalGaussianNetwork(dag, parents, levels, tables, regressions, sd)


def survey(n: int = 800, seed: int = 2026, missing: float = 0.03) -> pd.DataFrame:
    """``n`` rows of :func:`survey_network` with named levels and a share ``missing`` of
    the values removed completely at random: the bundled ``survey.csv`` is
    ``survey()`` (written with ``to_csv(index=False)``)."""
    frame = survey_network().sample(n, seed=seed)
    for name, states in _SURVEY_LEVELS.items():
        frame[name] = frame[name].cat.rename_categories(list(states)).astype(object)
    for name in frame.columns:
        if frame[name].dtype.kind == "f":
            frame[name] = frame[name].round(1)
    holes = np.random.default_rng(seed + 1).random(frame.shape) < missing
    return frame.mask(holes)


def load_survey() -> pd.DataFrame:
    """The bundled ``survey.csv``: 800 answers to a health survey, four discrete and six
    continuous columns, about 3% of the values missing (synthetic, from
    :func:`survey_network`; ``bnfs learn survey.csv`` learns from it as it is).

    Examples
    --------
    >>> frame = load_survey()
    >>> frame.shape, int(frame.isna().to_numpy().sum()) > 0
    ((800, 10), True)
    """
    return pd.read_csv(_data_file("survey.csv"))
