"""``bnfs learn``: learn a network and write it (JSON, DOT, BIF, GraphML)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from bnfs import learners
from bnfs.cli._inputs import column_name, dataset_of, learner_options, network_file, read_frame
from bnfs.cli._status import partial_exit
from bnfs.tables._files import write_atomically


def learn_graph(frame, args):
    """The graph ``args`` ask for, learned from ``frame`` (what ``bnfs learn`` writes)."""
    data = dataset_of(frame, args, args.algorithm)
    incomplete = incomplete_data(data)
    out = getattr(args, "out", None)
    if incomplete or data.continuous_names:
        if out is not None and out.suffix.lower() == ".bif":
            raise ValueError(
                "--out .bif writes discrete networks; with continuous columns or missing values "
                "write .json, .dot or .graphml (or pass --discretize quantile --dropna)"
            )
        out = None
    if out is not None and out.suffix.lower() == ".bif":  # before minutes of learning
        from bnfs.models.bif import check_bif_names
        from bnfs.models.network import check_table_size

        check_bif_names(data.names, data.states)
        if args.max_parents is not None:  # the largest table max_parents allows must fit
            k = args.max_parents
            top = sorted((data.arity(v) for v in data.names), reverse=True)[: k + 1]
            for v in data.names:
                others = list(top)
                if data.arity(v) in others:
                    others.remove(data.arity(v))
                check_table_size(
                    v, (*others[:k], data.arity(v)), f"--out {out.name} with --max-parents {k}: "
                )
    names = [str(c) for c in frame.columns]
    options = learner_options(args.algorithm, args, names)
    start = time.perf_counter()
    graph = learners.get(args.algorithm)(data, **options)
    return graph, data, time.perf_counter() - start


def fallback_of(out: Path) -> Path:
    """Where ``bnfs learn --out x.bif`` writes a graph BIF cannot hold: ``x.json`` (checked
    against the command's inputs and outputs before the run)."""
    return out.with_suffix(".json")


def write_graph(graph, data, out: Path) -> Path:
    """Write ``graph`` to ``out`` by its suffix (:func:`bnfs.io.write_network`); return the
    path written. A graph whose tables BIF cannot hold (a search cut short keeps dense
    neighbourhoods, a PDAG may have no DAG) is written as JSON beside ``out`` instead,
    saying why on stderr: the answer is never lost."""
    from bnfs.io import write_network

    if out.suffix.lower() != ".bif":
        return write_network(graph, out)
    try:
        return write_network(graph, out, data=data)
    except ValueError as err:
        beside = fallback_of(out)
        write_network(graph, beside)
        print(
            f"bnfs learn: {out.name} cannot hold this graph ({err}); the graph is written "
            f"to {beside.name} instead",
            file=sys.stderr,
        )
        return beside


def learn_command(args) -> int:
    """``bnfs learn``: learn a network and write it (JSON, BIF, DOT, GraphML), with an
    optional report."""
    network_file(args.out, "--out")  # before minutes of learning
    frame = read_frame(args.data, args.dropna, keep_missing=True, args=args)
    if args.report and args.highlight is not None:  # before minutes of learning
        column_name(frame, args.highlight)
    graph, data, seconds = learn_graph(frame, args)
    written = write_graph(graph, data, args.out)
    arcs = len(graph.arcs)
    edges = graph.n_edges
    seconds = graph.learning.get("seconds", seconds)
    compiling = graph.learning.get("compile_seconds") or 0.0
    print(
        f"{what_ran(args.algorithm, graph.learning)} on {args.data.name} ({len(frame)} rows, "
        f"{frame.shape[1]} "
        f"variables): {arcs} arcs{f' and {edges} undirected edges' if edges else ''} in "
        f"{seconds:.2f} s{compiled(compiling)}; written to {written}"
    )
    kinds = graph.learning.get("columns")
    if isinstance(kinds, dict):
        from bnfs.tables._kinds import describe

        typing = graph.learning.get("typing") or {}
        whole = typing.get("whole_numbers", getattr(data, "whole_numbers", ()))
        print(f"  {describe(kinds, whole, typing.get('float_codes', ()))}")
    for line in rows_used(graph.learning, len(frame)):
        print(f"  {line}")
    if args.report:
        from bnfs import score
        from bnfs.graphs.report import network_report

        highlight = column_name(frame, args.highlight) if args.highlight is not None else None
        dag = graph.to_dag()
        learned_with = graph.learning.get("score")  # the learner's own score, if it has one
        name = args.score or learned_with or "bic"
        if incomplete_data(data):
            value = "- (missing values)"
        elif name == learned_with and "score_value" in graph.learning:
            value = f"{graph.learning['score_value']:.4f}"  # with the learner's prior
            if graph.learning.get("standardized"):
                value += " (standardized columns)"
        else:
            value = f"{score(dag, data, name):.4f}"
        facts = {
            "data": f"{args.data.name} ({len(frame)} rows, {frame.shape[1]} variables)",
            "algorithm": what_ran(args.algorithm, graph.learning),
            "arcs": arcs,
            "undirected edges": edges,
            # one time for the run: the learner's own record where it keeps one
            "learning time": f"{seconds:.2f} s",
            **({"compile time (first use)": f"{compiling:.2f} s"} if compiling >= 0.01 else {}),
            f"{name} score": value,
            "output": written.name,
        }
        write_atomically(
            args.report,
            network_report(
                graph, title=f"bnfs learn: {args.data.name}", highlight=highlight, facts=facts
            ),
        )
        print(f"report written to {args.report}")
    status = partial_exit(graph.learning, "learn", "the graph written")
    return status or (2 if written != args.out else 0)  # the asked format was not written


def compiled(seconds: float) -> str:
    """`` (+ 280.03 s compiling kernels, first use only)`` after a learning time, when the
    call compiled kernels; empty otherwise. Compiling is not learning time."""
    if seconds < 0.01:
        return ""
    return f" (+ {seconds:.2f} s compiling kernels, first use only)"


def incomplete_data(data) -> bool:
    """Whether :func:`learn_graph` passed the learner a frame with gaps (not a Dataset)."""
    import pandas as pd  # here, not at import: bnfs --help stays fast

    return isinstance(data, pd.DataFrame)


def what_ran(asked: str, learning: dict) -> str:
    """The learner asked for and, when it ran another, that one: ``learn (boss, bde)``,
    ``learn (structural_em with learn, bde)``."""
    ran = learning.get("learner") or learning.get("algorithm") or asked
    search = learning.get("search") if isinstance(learning.get("search"), dict) else {}
    if search:
        ran = f"{ran} with {search.get('algorithm', learning.get('maximize'))}"
    score = learning.get("score") or search.get("score")
    if score and (learning.get("standardized") or search.get("standardized")):
        score = f"{score} on standardized columns"
    detail = ", ".join(x for x in (ran if ran != asked else None, score) if x)
    return f"{asked} ({detail})" if detail else asked


def rows_used(learning, n_rows: int) -> list[str]:
    """What a learner did with missing values, from its ``learning`` record: structural EM's
    rounds and rows, or the rows per available-case test; nothing for complete data."""
    if "missing_cells" in learning and learning["missing_cells"]:
        return [
            f"{learning['missing_cells']} missing values in {learning['incomplete_rows']} "
            f"rows, by structural EM: {learning['rounds']} round(s), "
            f"{'converged' if learning['converged'] else 'not converged'}; "
            f"all {learning['rows_used']} rows used"
        ]
    used = learning.get("rows_used")
    if isinstance(used, dict):
        return [
            f"available-case tests: {used['min']}-{used['max']} rows per test "
            f"(median {used['median']:.0f}) of {n_rows}"
        ]
    return []
