"""How many compiled kernels stand above each local score (issue 72: numba links every
kernel with all its callees and optimizes them again inside it, so each level stacked over
a score compiles that score once more). Read from the sources, not by compiling: a change
that adds a level fails here, one that folds levels lowers :data:`MOST_LEVELS`."""

import ast
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

KERNELS = Path(__file__).resolve().parents[2] / "bnfs" / "_kernels"

#: the kernels that compute a family's score from the data
SCORES = (
    "scores.score_config",
    "scores.weighted_score_config",
    "covariance.covariance_score",
    "conditional_gaussian.cg_score",
)

#: the longest chain of kernels above each score today (the score itself not counted);
#: lower it when a change folds levels
MOST_LEVELS = {
    "scores.score_config": 11,
    "scores.weighted_score_config": 11,
    "covariance.covariance_score": 11,
    "conditional_gaussian.cg_score": 10,
}


def _decorated_by(function, name: str):
    """The decorator call ``name(...)`` on ``function``, or None."""
    for decorator in function.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call is not None else decorator
        if isinstance(target, ast.Name) and target.id == name:
            return call
    return None


def _names(tree, module: str) -> dict:
    """What each name of ``module`` stands for: its own functions, imported kernels and
    imported kernel modules (``module.`` prefixed, ``bnfs._kernels.`` dropped)."""
    names = {
        node.name: f"{module}.{node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("bnfs._kernels.") and alias.asname:
                    names[alias.asname] = alias.name.removeprefix("bnfs._kernels.") + "."
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bnfs._kernels."):
            for alias in node.names:
                names[alias.asname or alias.name] = (
                    f"{node.module.removeprefix('bnfs._kernels.')}.{alias.name}"
                )
    return names


def _calls(body, names: dict) -> set:
    """The kernels and functions of the kernels that ``body`` calls."""
    found = set()
    for node in ast.walk(body):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in names and not names[func.id].endswith("."):
            found.add(names[func.id])
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            prefix = names.get(func.value.id, "")
            if prefix.endswith("."):
                found.add(prefix + func.attr)
    return found


@cache
def _call_graph():
    """(call graph of the kernels' functions, the compiled kernels): an ``@overload(f)``
    counts as ``f`` calling what its implementations call."""
    graph, compiled = nx.DiGraph(), set()
    for path in sorted(KERNELS.glob("*.py")):
        module = path.stem
        tree = ast.parse(path.read_text())
        names = _names(tree, module)
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            caller = f"{module}.{node.name}"
            if _decorated_by(node, "njit") is not None:
                compiled.add(caller)
            overload = _decorated_by(node, "overload")
            if overload is not None and overload.args:
                caller = next(iter(_calls(ast.Expr(ast.Call(overload.args[0], [], [])), names)))
                compiled.add(caller)
            for callee in _calls(node, names) - {caller}:
                graph.add_edge(caller, callee)
    return graph, compiled


def _levels_above(score: str) -> int:
    """The longest chain of compiled kernels that ends in a call of ``score``."""
    graph, compiled = _call_graph()
    above = nx.ancestors(graph, score) | {score}
    sub = graph.subgraph(above).copy()
    sub.remove_edges_from(list(nx.selfloop_edges(sub)))
    assert nx.is_directed_acyclic_graph(sub), f"the kernels above {score} call each other back"
    depth = {}
    for node in reversed(list(nx.topological_sort(sub))):
        below = [depth[c] for c in sub.successors(node)]
        depth[node] = (node in compiled) + max(below, default=0) if node != score else 0
    return max(depth.values())


@pytest.mark.parametrize("score", SCORES)
def test_no_more_levels_of_kernels_above_a_score_than_today(score):
    graph, compiled = _call_graph()
    assert score in compiled and score in graph
    assert "permutation.order_parents" in nx.ancestors(graph, "score_cache.cached_score")
    levels = _levels_above(score)
    assert levels <= MOST_LEVELS[score], f"{levels} levels of kernels above {score}"


def test_the_reading_sees_each_level_of_the_boss_stack():
    graph, compiled = _call_graph()
    chain = ["permutation.order_parents", "permutation.grow_shrink", "permutation._expand"]
    chain += ["permutation._shrink", "permutation._family", "score_cache.cached_score"]
    assert all(graph.has_edge(a, b) for a, b in zip(chain, chain[1:]))
    assert set(chain) <= compiled
    assert _levels_above("scores.score_config") >= len(chain)
