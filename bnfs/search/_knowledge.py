"""What a score-based search knows before it scores anything: the checked black- and
whitelist and the start graph as index pairs (:func:`arc_knowledge`), and the check that
parent lists (from a checkpoint) are a graph the search could reach
(:func:`check_parent_lists`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ArcKnowledge", "arc_knowledge", "check_parent_lists"]


@dataclass(frozen=True)
class ArcKnowledge:
    """Index pairs ``(parent, child)``: the arcs no graph may have (``forbidden``:
    blacklisted, reverses of whitelisted and, on mixed data, continuous -> discrete), those
    every graph has (``required``: whitelisted), and the arcs the search starts from (the
    start graph's and the whitelist's, sorted)."""

    forbidden: frozenset
    required: frozenset
    arcs: list


def arc_knowledge(data, index: dict, blacklist, whitelist, start) -> ArcKnowledge:
    """The lists (checked ``(from, to)`` name pairs) and the start DAG (or None) of a search
    on ``data`` as index pairs (``index``: name -> column); a ValueError says where they
    contradict each other or the data's model."""
    names = list(index)
    black = {(index[u], index[v]) for u, v in blacklist}
    white = {(index[u], index[v]) for u, v in whitelist}
    if data.discrete_names and data.continuous_names:
        # conditional Gaussian: a discrete node never has a continuous parent
        wrong = [(u, v) for u, v in whitelist if v in data.states and u not in data.states]
        if wrong:
            raise ValueError(
                f"whitelisted arc {wrong[0][0]!r} -> {wrong[0][1]!r} gives a discrete "
                "node a continuous parent, which a conditional-Gaussian network forbids"
            )
        black |= {(index[u], index[v]) for u in data.continuous_names for v in data.discrete_names}
    bad = white & black
    if bad:
        u, v = next(iter(bad))
        raise ValueError(f"arc {names[u]!r} -> {names[v]!r} is both black- and whitelisted")
    black |= {(v, u) for u, v in white}  # a whitelisted arc forbids its reverse
    start_arcs = [] if start is None else [(index[u], index[v]) for u, v in start.arcs]
    for u, v in start_arcs:
        if (u, v) in black:
            raise ValueError(f"start graph has blacklisted arc {names[u]!r} -> {names[v]!r}")
    return ArcKnowledge(frozenset(black), frozenset(white), sorted(set(start_arcs) | white))


def check_parent_lists(lists, names, max_parents: int, forbidden, required) -> None:
    """Raise ValueError unless ``lists`` (each node's parent indices) is a DAG over the
    nodes ``names`` with at most ``max_parents`` parents a node, no ``forbidden`` arc and
    every ``required`` one."""
    n = len(names)
    if not isinstance(lists, list) or len(lists) != n:
        raise ValueError(f"the parent lists must hold one list per node ({n})")
    children = [[] for _ in range(n)]
    for v, parents in enumerate(lists):
        if not isinstance(parents, list) or len(set(parents)) != len(parents):
            raise ValueError(f"the parents of node {v} are not a list of distinct nodes")
        if len(parents) > max_parents:
            raise ValueError(f"node {v} has {len(parents)} parents, more than max_parents")
        for u in parents:
            if isinstance(u, bool) or not isinstance(u, int) or not 0 <= u < n or u == v:
                raise ValueError(f"node {v} has parent {u!r}, not another node")
            if (u, v) in forbidden:
                raise ValueError(
                    f"arc {names[u]!r} -> {names[v]!r} is not "
                    "allowed (blacklisted, or the reverse of a whitelisted one)"
                )
            children[u].append(v)
    for u, v in required:
        if u not in lists[v]:
            raise ValueError(f"whitelisted arc {names[u]!r} -> {names[v]!r} is missing")
    indegree = [len(p) for p in lists]
    ready = [v for v in range(n) if indegree[v] == 0]
    for u in ready:  # Kahn: every node is reached when there is no cycle
        for v in children[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(v)
    if len(ready) < n:
        raise ValueError("the parent lists form a directed cycle")
