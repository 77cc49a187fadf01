"""``bnfs blanket``: the Markov blanket (or neighbours) of one target."""

from __future__ import annotations

import time

from bnfs import learners
from bnfs.cli._inputs import column_name, dataset_of, learner_options, read_frame
from bnfs.cli._status import partial_exit
from bnfs.cli.learn import rows_used


def blanket_command(args) -> int:
    """``bnfs blanket``: print the target's parents, children and spouses (its parents and
    children, for a parents-and-children learner), found by :func:`bnfs.markov_blanket` or
    :func:`bnfs.neighbours`."""
    frame = read_frame(args.data, args.dropna, keep_missing=True, args=args)
    target = column_name(frame, args.target)
    from bnfs.tables._kinds import column_kind

    if column_kind(frame[target]) == "discrete":  # cut for the target, as the selector does
        args.class_column = target
    if args.algorithm == "auto":  # the default of select too, and MarkovBlanketSelector's
        args.algorithm = learners.auto_learner(frame.shape[1] - 1, len(frame))
    algorithm = args.algorithm
    entry = learners.get(algorithm)
    data = dataset_of(frame, args, algorithm)
    options = learner_options(algorithm, args, list(frame.columns))
    local_set = learners.neighbours if entry.kind == "neighbours" else learners.markov_blanket
    started = time.perf_counter()
    found = local_set(data, target, method=algorithm, **options)
    seconds = time.perf_counter() - started
    if entry.local:
        kind = "parents and children" if entry.kind == "neighbours" else "Markov blanket"
        print(f"{kind} of {target} by {algorithm}: {', '.join(found) if found else '-'}")
        for line in rows_used(found.learning, len(frame)):
            print(f"  {line}")
        return partial_exit(found.learning, "blanket", "the blanket")
    graph = found.learning["network"]
    print(f"Markov blanket of {target} in the network learned by {algorithm} ({seconds:.2f} s):")
    for role, names in graph.blanket_listing(target).items():
        print(f"  {role:<10} {', '.join(names) if names else '-'}")
    for line in rows_used(graph.learning, len(frame)):
        print(f"  {line}")
    return partial_exit(graph.learning, "blanket", "the blanket")
