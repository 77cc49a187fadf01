"""``bnfs blanket``: the Markov blanket (or neighbours) of one target."""

from __future__ import annotations

import time

from bnfs import learners
from bnfs.cli._inputs import (
    LEARNER_FLAGS,
    column_name,
    dataset_of,
    learner_options,
    read_frame,
    read_graph,
)
from bnfs.cli._status import partial_exit
from bnfs.cli.learn import compiled, rows_used

#: network files ``bnfs blanket`` reads a blanket off instead of learning
NETWORKS = (".json", ".bif", ".graphml")


def blanket_command(args) -> int:
    """``bnfs blanket``: print the target's parents, children and spouses (its parents and
    children, for a parents-and-children learner), found by :func:`bnfs.markov_blanket` or
    :func:`bnfs.neighbours` on the columns as ``bnfs learn`` reads them (continuous ones
    modelled as they are, with the same default learner for a table of this size), or
    read off a network file that ``bnfs learn`` wrote."""
    if args.data.suffix.lower() in NETWORKS:
        return _from_network(args)
    frame = read_frame(args.data, args.dropna, keep_missing=True, args=args)
    target = column_name(frame, args.target)
    if args.discretize == "mdl":  # cuts where the target changes, as bnfs select's are
        args.class_column = target
    if args.algorithm == "auto":  # the default of select too, and MarkovBlanketSelector's
        args.algorithm = learners.auto_learner(frame.shape[1] - 1, len(frame))
    algorithm = args.algorithm
    entry = learners.get(algorithm)
    data = dataset_of(frame, args, algorithm)
    options = learner_options(algorithm, args, list(frame.columns))
    local_set = learners.neighbours if entry.kind == "neighbours" else learners.markov_blanket
    from bnfs._kernels._compile import compile_seconds  # here: bnfs --help loads no numba

    started = time.perf_counter(), compile_seconds()
    found = local_set(data, target, method=algorithm, **options)
    compiling = compile_seconds() - started[1]
    seconds = max(0.0, time.perf_counter() - started[0] - compiling)
    if entry.local:
        kind = "parents and children" if entry.kind == "neighbours" else "Markov blanket"
        print(f"{kind} of {target} by {algorithm}: {', '.join(found) if found else '-'}")
        for line in rows_used(found.learning, len(frame)):
            print(f"  {line}")
        return partial_exit(found.learning, "blanket", "the blanket")
    graph = found.learning["network"]
    print(
        f"Markov blanket of {target} in the network learned by {algorithm} "
        f"({seconds:.2f} s{compiled(compiling)}):"
    )
    _listing(graph, target)
    for line in rows_used(graph.learning, len(frame)):
        print(f"  {line}")
    return partial_exit(graph.learning, "blanket", "the blanket")


def _from_network(args) -> int:
    """The blanket of ``--target`` in the network file ``args.data`` (no learning: the
    options that learn are refused by name)."""
    given = [
        flag
        for flag, name in (*LEARNER_FLAGS, ("--discretize", "discretize"), ("--bins", "bins"))
        if getattr(args, name, None) is not None
    ]
    if args.algorithm_given:
        given.insert(0, "--algorithm")
    if args.dropna:
        given.append("--dropna")
    if given:
        raise ValueError(
            f"{given[0]} applies when learning from a data file; {args.data.name} is a "
            "network, whose blanket is read as it is"
        )
    graph = read_graph(args.data)
    nodes = list(graph.nodes)
    if args.target in nodes:
        target = args.target
    else:
        import pandas as pd

        target = column_name(pd.DataFrame(columns=nodes), args.target)
    made_by = graph.learning.get("algorithm") if isinstance(graph.learning, dict) else None
    by = f", learned by {made_by}" if made_by else ""
    print(f"Markov blanket of {target} in the network of {args.data.name}{by}:")
    _listing(graph, target)
    return 0


def _listing(graph, target: str) -> None:
    for role, names in graph.blanket_listing(target).items():
        print(f"  {role:<10} {', '.join(names) if names else '-'}")
