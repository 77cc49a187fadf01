"""``bnfs draw``, ``bnfs score`` and ``bnfs compare``: commands on a learned network."""

from __future__ import annotations

from bnfs.cli._inputs import dataset_of, read_frame, read_graph


def draw_command(args) -> int:
    """``bnfs draw``: draw a saved network (SVG, PNG, PDF or DOT)."""
    graph = read_graph(args.network)
    if args.highlight is not None and args.highlight not in graph.nodes:
        raise ValueError(f"--highlight {args.highlight!r} is not a node of {args.network.name}")
    path = graph.draw(args.out, highlight=args.highlight)
    print(f"picture of {len(graph.nodes)} nodes written to {path}")
    return 0


def score_command(args) -> int:
    """``bnfs score``: the score of a saved network on a data file."""
    from bnfs import score

    frame = read_frame(args.data, args.dropna, args=args)
    graph = read_graph(args.network)
    dag = graph.to_dag()
    missing = [v for v in dag.nodes if v not in frame.columns]
    if missing:
        raise ValueError(
            f"the network has nodes that are not columns of the data: {', '.join(missing[:5])}"
        )
    data = dataset_of(frame[list(dag.nodes)], args)
    value = score(dag, data, args.score, iss=args.iss)
    print(f"{args.score} score of {args.network.name} on {args.data.name}: {value:.4f}")
    return 0


def compare_command(args) -> int:
    """``bnfs compare``: SHD, skeleton and arc precision/recall of a network against
    another."""
    from bnfs.stats.metrics import arc_scores, shd, skeleton_scores

    learned, truth = read_graph(args.learned), read_graph(args.truth)
    print(f"{args.learned.name} against {args.truth.name}: SHD {shd(learned, truth)}")
    for label, scores in (
        ("skeleton", skeleton_scores(learned, truth)),
        ("arcs", arc_scores(learned, truth)),
    ):
        print(
            f"  {label:<9} precision {scores['precision']:.3f}  recall {scores['recall']:.3f}"
            f"  F1 {scores['f1']:.3f}"
        )
    return 0
