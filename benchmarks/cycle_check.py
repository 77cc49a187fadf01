"""Pearce-Kelly online topological order against a plain DFS cycle check.

Random DAG edit sequences like a hill climber's: 80% insertions of a random pair, 10%
removals and 10% reversals of an existing arc, ``ops_per_node`` x n operations in all,
starting from the empty graph. The sequence is recorded once, then replayed by both
compiled kernels (``OnlineTopologicalOrder.apply`` / ``DFSCycleCheck.apply``), which must
make identical accept/reject decisions. Prints seconds, the speed-up ratio DFS/PK and
what the graph looked like; cold start (JIT or cache load) is timed separately.

    python benchmarks/cycle_check.py [--sizes 100 1000 10000] [--ops-per-node 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bnfs.graphs.order import DFSCycleCheck, OnlineTopologicalOrder


def record_sequence(n: int, m: int, seed: int) -> np.ndarray:
    """Edit operations ``(kind, x, y)`` whose removals/reversals name existing arcs."""
    rng = np.random.default_rng(seed)
    order = OnlineTopologicalOrder(n)
    arcs: list[tuple[int, int]] = []
    where: dict[tuple[int, int], int] = {}
    ops = np.empty((m, 3), dtype=np.int64)
    kinds = rng.choice(3, size=m, p=[0.8, 0.1, 0.1])
    pairs = rng.integers(0, n, size=(m, 2))
    picks = rng.random(m)

    def drop(arc):
        i = where.pop(arc)
        last = arcs.pop()
        if i < len(arcs):
            arcs[i] = last
            where[last] = i

    for i in range(m):
        kind = kinds[i] if arcs else 0
        if kind == 0:
            x, y = pairs[i]
            if order.try_add(x, y) and (x, y) not in where:
                where[(x, y)] = len(arcs)
                arcs.append((x, y))
        else:
            x, y = arcs[int(picks[i] * len(arcs))]
            if kind == 1:
                order.remove(x, y)
                drop((x, y))
            elif order.reverse(x, y):
                drop((x, y))
                where[(y, x)] = len(arcs)
                arcs.append((y, x))
        ops[i] = (kind, x, y)
    return ops


def run(checker_cls, n: int, ops: np.ndarray) -> tuple[float, np.ndarray, int]:
    checker = checker_cls(n, capacity=4 * n)
    start = time.perf_counter()
    accepted = checker.apply(ops)
    return time.perf_counter() - start, accepted, checker.n_arcs


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--ops-per-node", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tiny = np.array([[0, 0, 1], [0, 1, 0]], dtype=np.int64)
    for cls in (OnlineTopologicalOrder, DFSCycleCheck):
        start = time.perf_counter()
        cls(2).apply(tiny)
        print(f"cold start {cls.__name__}: {time.perf_counter() - start:.3f} s (JIT or cache load)")

    print(
        f"\n{'nodes':>7} {'ops':>9} {'final arcs':>10} {'accepted':>9} "
        f"{'PK s':>9} {'DFS s':>9} {'DFS/PK':>7}"
    )
    for n in args.sizes:
        ops = record_sequence(n, args.ops_per_node * n, args.seed)
        t_pk, t_dfs = [], []
        for _ in range(args.repeat):
            dt, acc_pk, arcs_pk = run(OnlineTopologicalOrder, n, ops)
            t_pk.append(dt)
            dt, acc_dfs, arcs_dfs = run(DFSCycleCheck, n, ops)
            t_dfs.append(dt)
            if not np.array_equal(acc_pk, acc_dfs) or arcs_pk != arcs_dfs:
                raise AssertionError("PK and DFS disagree")
        pk, dfs = min(t_pk), min(t_dfs)
        print(
            f"{n:>7} {len(ops):>9} {arcs_pk:>10} {acc_pk.mean():>9.2%} "
            f"{pk:>9.4f} {dfs:>9.4f} {dfs / pk:>6.1f}x"
        )


if __name__ == "__main__":
    main()
