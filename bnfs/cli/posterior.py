"""``bnfs posterior``: how sure each arc is, by order MCMC (:func:`bnfs.structure_posterior`)."""

from __future__ import annotations

from bnfs.cli._inputs import (
    arc_file,
    belief_file,
    column_name,
    dataset_of,
    read_frame,
    tier_file,
)
from bnfs.cli._status import partial_exit
from bnfs.cli.learn import compiled
from bnfs.tables._files import write_atomically

#: what --out may end in
TABLES = (".csv", ".tsv")


def posterior_options(args, names) -> dict:
    """The keyword arguments of :func:`bnfs.structure_posterior` from the command line;
    tiers, roots and leaves join the blacklist, --beliefs set the cs prior."""
    options = {
        "score": args.score,
        "iss": args.iss,
        "prior": args.prior,
        "beta": args.beta,
        "space": args.space,
        "max_candidates": args.max_candidates,
        "plus1": not args.no_plus1,
        "max_parents": args.max_parents,
        "chains": args.chains,
        "samples": args.samples,
        "steps": args.steps,
        "seed": args.seed,
        "max_time": args.max_time,
        "n_jobs": args.n_jobs,
        "progress": False if args.quiet else None,
        "blacklist": arc_file(args.blacklist, "blacklist", names) if args.blacklist else None,
        "whitelist": arc_file(args.whitelist, "whitelist", names) if args.whitelist else None,
    }
    if args.beliefs is not None:
        if args.prior not in (None, "cs"):
            raise ValueError(f"--beliefs are the cs prior's, not --prior {args.prior}'s")
        if args.beta is not None:
            raise ValueError("--beta and --beliefs both set the graph prior's parameter")
        options["prior"], options["beta"] = "cs", belief_file(args.beliefs, names)
    if args.tiers is not None or args.roots or args.leaves:
        from bnfs.graphs.knowledge import blacklist_from

        options["blacklist"] = blacklist_from(
            list(names),
            tiers=tier_file(args.tiers) if args.tiers is not None else (),
            roots=args.roots or (),
            leaves=args.leaves or (),
            blacklist=options["blacklist"] or (),
        )
    return {k: v for k, v in options.items() if v is not None}


def posterior_command(args) -> int:
    """``bnfs posterior``: write the strength table (and the median-probability graph, a
    report), print the chains' agreement and a target's blanket membership."""
    if args.out.suffix.lower() not in TABLES:  # before minutes of sampling
        raise ValueError(f"--out must end in .csv or .tsv, got {args.out.name!r}")
    if args.median is not None:
        from bnfs.cli._inputs import network_file

        network_file(args.median, "--median")
    frame = read_frame(args.data, args.dropna, keep_missing=True, args=args)
    if frame.isna().to_numpy().any():
        rows = int(frame.isna().any(axis=1).sum())
        raise ValueError(
            f"posterior needs complete rows, and {rows} of {len(frame)} have missing values: "
            "pass --dropna to drop them"
        )
    target = column_name(frame, args.target) if args.target is not None else None
    highlight = column_name(frame, args.highlight) if args.highlight is not None else target
    data = dataset_of(frame, args)
    from bnfs.posterior import structure_posterior

    post = structure_posterior(data, **posterior_options(args, [str(c) for c in frame.columns]))
    strength = post.strength
    write_atomically(
        args.out,
        strength.to_csv(index=False, sep="\t" if args.out.suffix.lower() == ".tsv" else ","),
    )
    learning = post.learning
    agreement = (
        f"chains agree to within {learning['max_difference']:.3f}"
        if learning["max_difference"] is not None
        else "one chain"
    )
    linked = int((strength["strength"] > 0.5).sum() // 2)
    print(
        f"structure_posterior on {args.data.name} ({len(frame)} rows, {frame.shape[1]} "
        f"variables): {learning['samples']} sampled orders in {learning['seconds']:.2f} s"
        f"{compiled(learning.get('compile_seconds') or 0.0)}, "
        f"{agreement}; {linked} pairs linked with probability > 0.5; written to {args.out}"
    )
    median = post.median_graph()
    if target is not None:
        members = post.blanket(target)
        shown = ", ".join(f"{x} {p:.2f}" for x, p in members.items() if p >= 0.05)
        print(f"  P(in the Markov blanket of {target}): {shown or '-'}")
        # one graph's set beside the probabilities: the median graph keeps the arcs
        # sampled in more than half the graphs, where bnfs learn's is one optimum
        inside = median.markov_blanket(target)
        print(
            f"  its blanket in the median-probability graph: {', '.join(inside) or '-'} "
            "(averaged over graphs; bnfs blanket reads one learned network)"
        )
    if args.median is not None:
        from bnfs.cli.learn import write_graph

        print(
            f"  median-probability graph ({len(median.arcs)} arcs) written to "
            f"{write_graph(median, data, args.median)}"
        )
    if args.report is not None:
        from bnfs.graphs.report import network_report

        facts = {
            "data": f"{args.data.name} ({len(frame)} rows, {frame.shape[1]} variables)",
            "method": f"order MCMC, {learning['arguments']['chains']} chains",
            "score": learning["arguments"]["score"],
            "graph drawn": f"median probability ({len(median.arcs)} arcs)",
            "chains' agreement": agreement,
            "time": f"{learning['seconds']:.2f} s",
        }
        page = network_report(
            median,
            title=f"bnfs posterior: {args.data.name}",
            highlight=highlight,
            facts=facts,
            strength=strength,
        )
        write_atomically(args.report, page)
        print(f"report written to {args.report}")
    return partial_exit(learning, "posterior", "the posterior of the samples so far")
