"""Hypothesis strategies shared by the tests."""

from hypothesis import strategies as st

from bnfs import DAG


@st.composite
def random_dags(draw, max_nodes=7):
    n = draw(st.integers(1, max_nodes))
    nodes = [f"v{i}" for i in range(n)]
    perm = draw(st.permutations(nodes))
    pairs = [(perm[i], perm[j]) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    return DAG(nodes, [p for p, c in zip(pairs, chosen) if c])


def equivalent_dag(g: DAG, data, steps: int = 4) -> DAG:
    """A Markov-equivalent copy of ``g``: reverse up to ``steps`` covered arcs
    (pa(v) = pa(u) + u), drawn with hypothesis's ``data``."""
    other = g.copy()
    for _ in range(steps):
        covered = [
            (u, v) for u, v in other.arcs if set(other.parents(v)) == set(other.parents(u)) | {u}
        ]
        if not covered:
            break
        other.reverse_arc(*data.draw(st.sampled_from(covered)))
    return other
