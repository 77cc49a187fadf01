"""``bnfs blanket``: the Markov blanket (or neighbours) of one target."""

from __future__ import annotations

from bnfs import learners
from bnfs.cli._inputs import column_name, dataset_of, learner_options, read_frame
from bnfs.cli._status import partial_exit
from bnfs.cli.learn import learn_graph, rows_used


def blanket_command(args) -> int:
    """``bnfs blanket``: print the target's parents, children and spouses."""
    frame = read_frame(args.data, args.dropna, keep_missing=True, args=args)
    target = column_name(frame, args.target)
    from bnfs.tables._kinds import column_kind

    if column_kind(frame[target]) == "discrete":  # cut for the target, as the selector does
        args.class_column = target
    if args.algorithm == "auto":  # the default of select too, and MarkovBlanketSelector's
        from bnfs.select.markov_blanket import auto_learner

        args.algorithm = auto_learner(frame.shape[1] - 1, len(frame))
    algorithm = args.algorithm
    if learners.get(algorithm).local:
        data = dataset_of(frame, args, algorithm)
        options = learner_options(algorithm, args, list(frame.columns))
        members = learners.get(algorithm)(data, target, **options)
        kind = "parents and children" if algorithm in ("hiton_pc", "mmpc") else "Markov blanket"
        print(f"{kind} of {target} by {algorithm}: {', '.join(members) if members else '-'}")
        learning = getattr(members, "learning", {})
        for line in rows_used(learning, len(frame)):
            print(f"  {line}")
        return partial_exit(learning, "blanket", "the blanket")
    graph, _, seconds = learn_graph(frame, args)
    print(f"Markov blanket of {target} in the network learned by {algorithm} ({seconds:.2f} s):")
    for role, names in graph.blanket_listing(target).items():
        print(f"  {role:<10} {', '.join(names) if names else '-'}")
    for line in rows_used(graph.learning, len(frame)):
        print(f"  {line}")
    return partial_exit(graph.learning, "blanket", "the blanket")
