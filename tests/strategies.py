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
