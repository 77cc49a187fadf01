"""``bnfs example``: learn a bundled network from sampled rows and show a blanket."""

from __future__ import annotations

from pathlib import Path


def example_command(args) -> int:
    """``bnfs example``: learn a bundled network from sampled rows, print a blanket, draw
    it."""
    from bnfs import datasets
    from bnfs._validate import check_allocation
    from bnfs.cli.learn import compiled
    from bnfs.models.network import sampling_bytes
    from bnfs.search import learn
    from bnfs.stats.metrics import blanket_scores, shd

    truth = datasets.network(args.network)
    target = args.target or default_target(args.network, truth)
    if target not in truth:
        raise ValueError(f"target {target!r} is not a node of {args.network}")
    check_allocation(
        sampling_bytes(args.rows, truth.n_nodes),
        f"sampling --rows {args.rows} of {args.network}",
        "pass fewer --rows",
    )
    frame = datasets.sample(args.network, args.rows, seed=args.seed)
    dag = learn(frame, seed=args.seed, progress=False if args.quiet else None)
    compiling = compiled(dag.learning.get("compile_seconds") or 0.0)
    print(
        f"learned {args.network} from {args.rows} sampled rows with bnfs.learn: "
        f"{dag.n_arcs} arcs in {dag.learning['seconds']:.2f} s{compiling} (true network: "
        f"{truth.n_arcs} arcs, SHD {shd(dag, truth)})"
    )
    print(f"  {describe_learning(dag.learning)}")
    print(f"Markov blanket of {target}:")
    for role, names in dag.blanket_listing(target).items():
        print(f"  {role:<9} {', '.join(names) if names else '-'}")
    quality = blanket_scores(dag, truth, target)
    print(
        f"  against the true blanket {truth.markov_blanket(target)}: precision "
        f"{quality['precision']:.2f}, recall {quality['recall']:.2f}"
    )
    path = dag.draw(args.out, highlight=target)
    print(f"picture written to {Path(path).resolve()}")
    return 0


def describe_learning(learning: dict) -> str:
    """One line on what ``bnfs.learn`` ran and why (its ``learning`` record)."""
    arguments = learning.get("arguments", {})
    starts = len(learning.get("starts", [])) or 1
    prior = arguments.get("prior")
    line = (
        f"learner: {learning.get('chosen', learning.get('algorithm'))} "
        f"({learning.get('score')}{f', {prior} prior' if prior else ''}, {starts} starts)"
    )
    if learning.get("candidates"):  # several were compared: say how
        return f"{line}: {learning.get('reason')}"
    return f"{line}: bnfs.learn's default, its most accurate learner (benchmarks/learn_rule.py)"


def default_target(network: str, truth) -> str:
    """The target ``bnfs example`` shows on ``network``: a textbook one where known, else
    the node with the largest blanket in ``truth``."""
    preferred = {
        "alarm": "HYPOVOLEMIA",
        "asia": "either",
        "win95pts": "NetOK",
        "child": "Disease",
        "insurance": "Accident",
    }
    if network in preferred and preferred[network] in truth:
        return preferred[network]
    return max(truth.nodes, key=lambda v: len(truth.markov_blanket(v)))
