"""The ``bnfs`` command line: learn, blanket, select, score, compare, draw, example.

Every subcommand reads CSV, TSV, Parquet or ARFF, takes ``--target`` by name or column
index, and reports bad input as one line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import sys
import time
import warnings
from pathlib import Path

from bnfs import learners

SCORE_LEARNERS = learners.names("score", "hybrid")
CONSTRAINT_LEARNERS = learners.names("constraint")
LOCAL_LEARNERS = learners.names("blanket", "neighbours")
NETWORK_LEARNERS = SCORE_LEARNERS + CONSTRAINT_LEARNERS
SELECT_METHODS = (
    "markov_blanket",
    "hsmb",
    "bahsic",
    "srs",
    "slfs",
    "hybrid",
    "fcbf",
    "cfs",
    "information_gain",
)
CLASSIFIERS = ("svm", "logistic", "naive_bayes", "knn", "tree")
OUTPUTS = (".json", ".dot", ".bif", ".graphml")

EXAMPLE_EPILOG = """examples:
  bnfs example                                   # alarm, 5,000 rows, target HYPOVOLEMIA
  bnfs example --network asia --target either --out asia.png
"""
LEARN_EPILOG = """examples:
  bnfs learn data.csv --out net.json
  bnfs learn data.csv --algorithm pc_stable --test g2 --alpha 0.01 --out net.dot
  bnfs learn data.arff --algorithm sparse_candidate --max-parents 5 --out net.bif
  bnfs learn data.tsv --blacklist forbidden.csv --seed 1 --out net.graphml
  bnfs learn big.parquet --max-time 3600 --checkpoint hc.json --out net.json   # rerun to resume
"""
BLANKET_EPILOG = """examples:
  bnfs blanket data.csv --target class
  bnfs blanket data.csv --target -1 --algorithm hiton_mb --alpha 0.01
"""
SELECT_EPILOG = """examples:
  bnfs select data.csv --target class --method hsmb
  bnfs select data.csv --target class --method markov_blanket --cv 10 --classifier svm
"""
DRAW_EPILOG = """examples:
  bnfs draw net.json --out net.svg --highlight class
"""
SCORE_EPILOG = """examples:
  bnfs score data.csv net.json --score bde
"""
COMPARE_EPILOG = """examples:
  bnfs compare learned.json truth.bif
"""

log = logging.getLogger("bnfs")


def _read(path: Path, dropna: bool | None = False):
    """A data file as a DataFrame with string column names, read as the API reads it
    (:func:`bnfs.io.read_table`); rows with missing values are dropped with ``dropna``
    (saying how many) and refused otherwise (None: left alone)."""
    from bnfs.io import read_table

    frame = read_table(path)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(
            f"{str(path)!r} holds no data ({frame.shape[0]} rows, {frame.shape[1]} columns)"
        )
    frame.columns = [str(c) for c in frame.columns]
    if dropna is None:
        return frame
    missing = frame.isna().sum()
    if missing.any() and not dropna:
        column = missing.index[missing.to_numpy() > 0][0]
        raise ValueError(
            f"column {column!r} has {missing[column]} missing value(s) "
            f"({int((missing > 0).sum())} column(s) in all); pass --dropna "
            "to drop the rows that have them"
        )
    if dropna:
        complete = frame.dropna().reset_index(drop=True)
        print(
            f"--dropna: dropped {len(frame) - len(complete)} of {len(frame)} rows of "
            f"{path.name} with missing values ({len(complete)} left)",
            file=sys.stderr,
        )
        if complete.empty:
            raise ValueError(f"no row of {str(path)!r} is complete; nothing is left after --dropna")
        frame = complete
    return frame


def _column(frame, target: str) -> str:
    """A column by name, or by (possibly negative) position when no column has that name."""
    if target in frame.columns:
        return target
    try:
        position = int(target)
    except ValueError:
        shown = ", ".join(map(str, frame.columns[:8])) + (", ..." if frame.shape[1] > 8 else "")
        raise ValueError(f"unknown column {target!r} (columns: {shown})") from None
    if not -frame.shape[1] <= position < frame.shape[1]:
        raise ValueError(f"column index {position} is out of range for {frame.shape[1]} columns")
    return frame.columns[position]


def _dataset(frame, args):
    """The frame as a Dataset, continuous columns discretized when the learner counts."""
    from bnfs import Dataset, discretize

    data = Dataset(frame)
    if data.continuous_names:
        log.info(
            "discretizing %d continuous columns (%s, %d bins)",
            len(data.continuous_names),
            args.discretize,
            args.bins,
        )
        data = discretize(data, args.discretize, args.bins)
    return data


def _arc_file(path: Path | None, what: str):
    if path is None:
        return None
    frame = _read(path, dropna=None)
    if frame.shape[1] != 2:
        raise ValueError(
            f"the {what} file {str(path)!r} needs two columns (from, to), has {frame.shape[1]}"
        )
    if set(frame.columns) == {"from", "to"}:  # by name, else the first column is 'from'
        frame = frame[["from", "to"]]
    return [tuple(map(str, row)) for row in frame.itertuples(index=False)]


def _name_file(path: Path, what: str, algorithm: str) -> list[str]:
    """A local learner's node list: one variable name per line (bnlearn's learn.mb lists)."""
    try:
        lines = [line.strip() for line in Path(path).read_text().splitlines()]
    except OSError as error:
        raise ValueError(f"cannot read the {what} file {str(path)!r}: {error.strerror}") from None
    names = [line for line in lines if line and not line.startswith("#")]
    if any("," in name for name in names):
        raise ValueError(
            f"the {what} of {algorithm} (a local learner) lists variable names, "
            f"one per line; {str(path)!r} holds (from, to) arcs, which are for "
            "the network learners"
        )
    return names


#: (flag, keyword) of the learning options a user sets; a flag given to a learner that does
#: not take it is refused by name, an absent one leaves the API's default
LEARNER_FLAGS = (
    ("--score", "score"),
    ("--test", "test"),
    ("--alpha", "alpha"),
    ("--threshold", "threshold"),
    ("--max-parents", "max_parents"),
    ("--blacklist", "blacklist"),
    ("--whitelist", "whitelist"),
    ("--max-time", "max_time"),
    ("--checkpoint", "checkpoint"),
    ("--scan-order", "scan_order"),
)


def _learner_options(algorithm: str, args) -> dict:
    """The keyword arguments of learner ``algorithm`` from the command line.

    Options the user gave are passed when the learner takes them and refused by name when
    it does not; options left out keep the learner's own defaults (as in Python). The seed,
    the number of jobs and progress bars go to every learner that takes them.
    """
    accepted = learners.get(algorithm).options
    options = {}
    for flag, name in LEARNER_FLAGS:
        value = getattr(args, name, None)
        if value is None:
            continue
        if name not in accepted:
            raise ValueError(f"{flag} does not apply to {algorithm}")
        if name in ("blacklist", "whitelist"):
            value = (
                _name_file(value, name, algorithm)
                if algorithm in LOCAL_LEARNERS
                else _arc_file(value, name)
            )
        options[name] = value
    if "test" in accepted:
        test = options.get("test", "mi_threshold" if algorithm == "tpda" else "g2")
        if test == "mi_threshold" and "alpha" in options:
            raise ValueError(
                f"--alpha does not apply to the mi_threshold test of {algorithm}; "
                "its threshold is --threshold"
            )
        if test != "mi_threshold" and "threshold" in options:
            raise ValueError(
                f"--threshold applies to the mi_threshold test only; {algorithm} "
                f"uses {test!r} (choose it with --test mi_threshold)"
            )
    for name, value in (
        ("seed", args.seed),
        ("n_jobs", args.n_jobs),
        ("progress", False if args.quiet else None),
    ):  # None: bars on a terminal
        if name in accepted:
            options[name] = value
    return options


def _learn_graph(frame, args):
    import bnfs

    data = _dataset(frame, args)
    out = getattr(args, "out", None)
    if out is not None and out.suffix.lower() == ".bif":  # before minutes of learning
        from bnfs.network import check_bif_names, check_table_size

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
    options = _learner_options(args.algorithm, args)
    start = time.perf_counter()
    graph = getattr(bnfs, args.algorithm)(data, **options)
    return graph, data, time.perf_counter() - start


def _write_graph(graph, data, out: Path) -> None:
    from bnfs import DiscreteNetwork, write_bif
    from bnfs.export import to_json, to_networkx

    suffix = out.suffix.lower()
    if suffix == ".json":
        to_json(graph, out)
    elif suffix == ".dot":
        out.write_text(graph.to_dot())
    elif suffix == ".bif":
        dag = graph if not hasattr(graph, "to_dag") else graph.to_dag()
        write_bif(DiscreteNetwork.fit(dag, data, pseudo_count=1.0, name=out.stem), out)
    elif suffix == ".graphml":
        import json

        import networkx as nx

        nxgraph = to_networkx(graph)
        nxgraph.graph = {
            k: v if isinstance(v, (str, int, float, bool)) else json.dumps(v, default=str)
            for k, v in nxgraph.graph.items()
        }  # GraphML holds scalars only
        nx.write_graphml(nxgraph, out)
    else:
        raise ValueError(f"--out must end in one of {', '.join(OUTPUTS)}, got {out.name!r}")


def _learn(args) -> int:
    if args.out.suffix.lower() not in OUTPUTS:  # before minutes of learning
        raise ValueError(f"--out must end in one of {', '.join(OUTPUTS)}, got {args.out.name!r}")
    frame = _read(args.data, args.dropna)
    graph, data, seconds = _learn_graph(frame, args)
    _write_graph(graph, data, args.out)
    arcs = len(graph.arcs)
    edges = graph.n_edges
    print(
        f"{args.algorithm} on {args.data.name} ({len(frame)} rows, {frame.shape[1]} "
        f"variables): {arcs} arcs{f' and {edges} undirected edges' if edges else ''} in "
        f"{seconds:.2f} s; written to {args.out}"
    )
    if args.report:
        from bnfs import score
        from bnfs.report import network_report

        highlight = _column(frame, args.highlight) if args.highlight is not None else None
        dag = graph.to_dag() if hasattr(graph, "to_dag") else graph
        facts = {
            "data": f"{args.data} ({len(frame)} rows, {frame.shape[1]} variables)",
            "algorithm": args.algorithm,
            "arcs": arcs,
            "undirected edges": edges,
            "learning time": f"{seconds:.2f} s",
            f"{args.score or 'bic'} score": f"{score(dag, data, args.score or 'bic'):.4f}",
            "output": str(args.out),
        }
        args.report.write_text(
            network_report(
                graph, title=f"bnfs learn: {args.data.name}", highlight=highlight, facts=facts
            ),
            encoding="utf-8",
        )
        print(f"report written to {args.report}")
    return 0


def _read_graph(path: Path):
    from bnfs import from_json, read_bif

    if path.suffix.lower() == ".bif":
        return read_bif(path).dag
    if path.suffix.lower() == ".json":
        if not path.exists():
            raise FileNotFoundError(f"no such file: {str(path)!r}")
        return from_json(path.read_text())
    raise ValueError(f"a network file must be .json or .bif, got {path.name!r}")


def _blanket(args) -> int:
    import bnfs

    frame = _read(args.data, args.dropna)
    target = _column(frame, args.target)
    algorithm = args.algorithm
    if algorithm in LOCAL_LEARNERS:
        data = _dataset(frame, args)
        members = getattr(bnfs, algorithm)(data, target, **_learner_options(algorithm, args))
        kind = "parents and children" if algorithm in ("hiton_pc", "mmpc") else "Markov blanket"
        print(f"{kind} of {target} by {algorithm}: {', '.join(members) if members else '-'}")
        return 0
    graph, _, seconds = _learn_graph(frame, args)
    print(f"Markov blanket of {target} in the network learned by {algorithm} ({seconds:.2f} s):")
    for role, names in graph.blanket_parts(target).items():
        print(f"  {role:<10} {', '.join(names) if names else '-'}")
    return 0


def _selector(args):
    import bnfs

    method = args.method
    if method == "markov_blanket":
        options = _learner_options(args.algorithm, args)
        return bnfs.MarkovBlanketSelector(
            args.algorithm, learner_options=options, random_state=args.seed, n_jobs=args.n_jobs
        )
    given = [flag for flag, name in LEARNER_FLAGS if getattr(args, name, None) is not None]
    if args.algorithm_given:
        given.insert(0, "--algorithm")
    if given:
        raise ValueError(f"{given[0]} applies to --method markov_blanket, not {method}")
    progress = not args.quiet and sys.stderr.isatty()
    if method in ("hsmb", "bahsic"):
        return {"hsmb": bnfs.HSMB, "bahsic": bnfs.BAHSIC}[method](progress=progress)
    if method in ("srs", "hybrid"):
        return {"srs": bnfs.SRS, "hybrid": bnfs.HybridSelector}[method](n_jobs=args.n_jobs)
    return {
        "slfs": bnfs.SLFS,
        "fcbf": bnfs.FCBF,
        "cfs": bnfs.CFS,
        "information_gain": bnfs.InformationGain,
    }[method]()


@contextlib.contextmanager
def _empty_selections():
    """Collect the messages of :class:`bnfs.select.EmptySelectionWarning` (the command line
    prints one line of its own instead of Python's warning)."""
    from bnfs.select import EmptySelectionWarning

    found = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", EmptySelectionWarning)
        yield found
    for item in caught:
        if issubclass(item.category, EmptySelectionWarning):
            found.append(str(item.message))
        else:
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)


def _classifier(name: str):
    from sklearn.compose import make_column_selector, make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    model = {
        "svm": LinearSVC(C=1.0),
        "logistic": LogisticRegression(max_iter=1000),
        "naive_bayes": GaussianNB(),
        "knn": KNeighborsClassifier(5),
        "tree": DecisionTreeClassifier(random_state=0),
    }[name]
    encode = make_column_transformer(
        (StandardScaler(), make_column_selector(dtype_include="number")),
        (
            OneHotEncoder(handle_unknown="ignore", sparse_output=False),
            make_column_selector(dtype_exclude="number"),
        ),
    )
    return make_pipeline(encode, model)


def _select(args) -> int:
    frame = _read(args.data, args.dropna)
    target = _column(frame, args.target)
    X, y = frame.drop(columns=target), frame[target]
    selector = _selector(args)
    start = time.perf_counter()
    with _empty_selections() as empty:
        selector.fit(X, y)
    seconds = time.perf_counter() - start
    features = [] if selector.empty_ else list(X.columns[selector.get_support()])
    print(
        f"{args.method} kept {len(features)} of {X.shape[1]} features for {target} "
        f"({seconds:.2f} s):"
    )
    print("  " + (", ".join(features) if features else "-"))
    if empty:
        print(f"bnfs select: warning: {empty[0]}", file=sys.stderr)
    facts = {
        "data": f"{args.data} ({len(frame)} rows)",
        "target": target,
        "method": args.method,
        "kept": f"{len(features)} of {X.shape[1]}",
        "selection time": f"{seconds:.2f} s",
    }
    curve = None
    if args.cv:
        if args.cv > len(frame):
            raise ValueError(f"--cv {args.cv} asks for more folds than the {len(frame)} rows")
        from sklearn.base import clone
        from sklearn.model_selection import StratifiedKFold, cross_val_score, cross_validate
        from sklearn.pipeline import make_pipeline

        folds = StratifiedKFold(args.cv, shuffle=True, random_state=args.seed or 0)
        scoring = {"accuracy": "accuracy", "f1": "f1_macro"}
        selected = make_pipeline(
            clone(selector).set_output(transform="pandas"), _classifier(args.classifier)
        )
        rows = [("selected", selected), ("all", _classifier(args.classifier))]
        print(f"{args.cv}-fold cross-validation of {args.classifier} (selection inside each fold):")
        for label, model in rows:
            with _empty_selections() as empty:
                scores = cross_validate(model, X, y, cv=folds, scoring=scoring, error_score="raise")
            if empty:
                print(
                    f"bnfs select: warning: the selection was empty in {len(empty)} of "
                    f"{args.cv} folds; those folds used all features",
                    file=sys.stderr,
                )
            line = (
                f"accuracy {scores['test_accuracy'].mean():.3f} "
                f"± {scores['test_accuracy'].std():.3f}   F1 (macro) "
                f"{scores['test_f1'].mean():.3f}"
            )
            print(f"  {label:<9} {line}")
            facts[f"{args.classifier}, {label} features"] = line
        if args.report and features:
            order = [f for f in getattr(selector, "selected_", features) if f in features]
            counts = sorted({max(1, round(len(order) * q / 12)) for q in range(1, 13)})
            curve = [
                (
                    k,
                    float(
                        cross_val_score(
                            _classifier(args.classifier), X[order[:k]], y, cv=folds
                        ).mean()
                    ),
                )
                for k in counts
            ]
            facts["curve"] = "features chosen once on all rows, classifier cross-validated"
    if args.report:
        from bnfs.report import selection_report

        graph = getattr(selector, "network_", None) or getattr(selector, "tree_", None)
        highlight = getattr(selector, "class_name_", None)
        if graph is not None and highlight not in graph.nodes:
            highlight = None
        args.report.write_text(
            selection_report(
                title=f"bnfs select: {args.data.name}, target {target}",
                features=features,
                facts=facts,
                curve=curve,
                graph=graph,
                highlight=highlight,
            ),
            encoding="utf-8",
        )
        print(f"report written to {args.report}")
    return 0


def _draw(args) -> int:
    graph = _read_graph(args.network)
    if args.highlight is not None and args.highlight not in graph.nodes:
        raise ValueError(f"--highlight {args.highlight!r} is not a node of {args.network.name}")
    path = graph.draw(args.out, highlight=args.highlight)
    print(f"picture of {len(graph.nodes)} nodes written to {path}")
    return 0


def _score(args) -> int:
    from bnfs import score

    frame = _read(args.data, args.dropna)
    graph = _read_graph(args.network)
    dag = graph.to_dag() if hasattr(graph, "to_dag") else graph
    missing = [v for v in dag.nodes if v not in frame.columns]
    if missing:
        raise ValueError(
            f"the network has nodes that are not columns of the data: {', '.join(missing[:5])}"
        )
    data = _dataset(frame[list(dag.nodes)], args)
    value = score(dag, data, args.score, iss=args.iss)
    print(f"{args.score} score of {args.network.name} on {args.data.name}: {value:.4f}")
    return 0


def _compare(args) -> int:
    from bnfs.metrics import arc_scores, shd, skeleton_scores

    learned, truth = _read_graph(args.learned), _read_graph(args.truth)
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


def _example(args) -> int:
    from bnfs import datasets
    from bnfs.metrics import blanket_scores, shd
    from bnfs.search import hill_climbing

    truth = datasets.network(args.network)
    target = args.target or _default_target(args.network, truth)
    if target not in truth:
        raise ValueError(f"target {target!r} is not a node of {args.network}")
    frame = datasets.sample(args.network, args.rows, seed=args.seed)
    start = time.perf_counter()
    dag = hill_climbing(frame, "bic", seed=args.seed, progress=False if args.quiet else None)
    seconds = time.perf_counter() - start
    print(
        f"learned {args.network} from {args.rows} sampled rows by BIC hill climbing: "
        f"{dag.n_arcs} arcs in {seconds:.2f} s (true network: {truth.n_arcs} arcs, "
        f"SHD {shd(dag, truth)})"
    )
    print(f"Markov blanket of {target}:")
    for role, names in dag.blanket_parts(target).items():
        print(f"  {role:<9} {', '.join(names) if names else '-'}")
    quality = blanket_scores(dag, truth, target)
    print(
        f"  against the true blanket {truth.markov_blanket(target)}: precision "
        f"{quality['precision']:.2f}, recall {quality['recall']:.2f}"
    )
    path = dag.draw(args.out, highlight=target)
    print(f"picture written to {Path(path).resolve()}")
    return 0


def _default_target(network: str, truth) -> str:
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


def _n_jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("expected a non-zero integer (-1: every core)")
    return value


def _int_at_least(minimum: int):
    """An argparse type: an integer >= ``minimum``."""
    wanted = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}"
    )

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {value}")
        return value

    return parse


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not 0.0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value}")
    return value


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {value}")
    return value


def _common(quiet: bool = True) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    if quiet:
        parent.add_argument(
            "--quiet",
            action="store_true",
            help="no progress bars (drawn only when stderr is a terminal)",
        )
    parent.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    return parent


def _learning_options(default: str, algorithms: tuple[str, ...]) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.set_defaults(default_algorithm=default)
    learning = parent.add_argument_group(
        "learning (options left out keep the learner's defaults, as in Python)"
    )
    network = [a for a in algorithms if a not in LOCAL_LEARNERS]
    local = [a for a in algorithms if a in LOCAL_LEARNERS]
    learning.add_argument(
        "--algorithm",
        choices=algorithms,
        metavar="ALGORITHM",
        help=f"learner (default {default}): {', '.join(network)}"
        + (f"; local: {', '.join(local)}" if local else ""),
    )
    learning.add_argument(
        "--score",
        choices=("bic", "bde", "k2", "aic", "loglik"),
        help="score of the score-based learners (default bic)",
    )
    learning.add_argument(
        "--test",
        choices=("g2", "mi", "x2", "mi_adf", "x2_adf", "mi_threshold", "fisher_z"),
        help="independence test of the constraint-based learners (default g2; tpda: mi_threshold)",
    )
    learning.add_argument(
        "--alpha", type=_probability, help="significance level of the test (default 0.05)"
    )
    learning.add_argument(
        "--threshold",
        type=_positive_float,
        help="mutual-information threshold of the mi_threshold test, tpda's default (default 0.01)",
    )
    learning.add_argument("--max-parents", type=_int_at_least(1), help="parents per node")
    learning.add_argument(
        "--scan-order",
        choices=("names", "columns"),
        help="how hill_climbing, tabu_search and sparse_candidate break ties "
        "(default names: the same graph for any column order; columns: "
        "bnlearn's order, its graph)",
    )
    learning.add_argument(
        "--blacklist",
        type=Path,
        help="CSV of forbidden arcs (from,to); for a local learner, "
        "variables to leave out, one name per line",
    )
    learning.add_argument(
        "--whitelist",
        type=Path,
        help="CSV of required arcs (from,to); for a local learner, "
        "variables to keep in the set, one name per line",
    )
    learning.add_argument(
        "--seed", type=_int_at_least(0), default=0, help="random seed (default 0)"
    )
    learning.add_argument(
        "--max-time",
        type=_positive_float,
        metavar="SECONDS",
        help="stop the search after this long with the best graph so far",
    )
    learning.add_argument(
        "--checkpoint",
        type=Path,
        metavar="FILE",
        help="hill_climbing/tabu_search: save progress here and resume from it when it exists",
    )
    learning.add_argument(
        "--n-jobs",
        type=_n_jobs,
        default=1,
        metavar="N",
        help="cores (-1: all); results do not depend on it (default 1)",
    )
    learning.add_argument(
        "--discretize",
        default="quantile",
        choices=("quantile", "interval", "mdl"),
        help="how continuous columns become discrete (default quantile)",
    )
    learning.add_argument("--bins", type=_int_at_least(2), default=3, help="bins (default 3)")
    learning.add_argument(
        "--dropna", action="store_true", help="drop rows with missing values (default: refuse them)"
    )
    return parent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bnfs",
        description="Bayesian-network structure learning and Markov-blanket "
        "feature selection. Data: CSV, TSV, Parquet or ARFF.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    raw = argparse.RawDescriptionHelpFormatter

    learn = sub.add_parser(
        "learn",
        help="learn a network from data and write it",
        parents=[_learning_options("hill_climbing", NETWORK_LEARNERS), _common()],
        description="Learn a Bayesian network (score-based: a DAG; "
        "constraint-based: a PDAG) and write it as JSON, DOT, "
        "BIF (with fitted tables) or GraphML.",
        epilog=LEARN_EPILOG,
        formatter_class=raw,
    )
    learn.add_argument("data", type=Path, help="data file")
    learn.add_argument(
        "--out", type=Path, required=True, help="output: .json, .dot, .bif or .graphml"
    )
    learn.add_argument("--report", type=Path, help="also write a self-contained HTML report")
    learn.add_argument("--highlight", help="column whose blanket the report colours")
    learn.set_defaults(func=_learn)

    blanket = sub.add_parser(
        "blanket",
        help="print the Markov blanket of a column",
        parents=[_learning_options("hill_climbing", NETWORK_LEARNERS + LOCAL_LEARNERS), _common()],
        description="Learn a network (or run a local learner) and print "
        "the target's parents, children and spouses.",
        epilog=BLANKET_EPILOG,
        formatter_class=raw,
    )
    blanket.add_argument("data", type=Path, help="data file")
    blanket.add_argument("--target", required=True, help="column name or index (-1: the last)")
    blanket.set_defaults(func=_blanket)

    select = sub.add_parser(
        "select",
        help="select features for a target column",
        parents=[_learning_options("hiton_mb", NETWORK_LEARNERS + LOCAL_LEARNERS), _common()],
        description="Run a feature selector and print the features; with "
        "--cv, compare a classifier on them with all features.",
        epilog=SELECT_EPILOG,
        formatter_class=raw,
    )
    select.add_argument("data", type=Path, help="data file")
    select.add_argument("--target", required=True, help="column name or index (-1: the last)")
    select.add_argument(
        "--method",
        default="markov_blanket",
        choices=SELECT_METHODS,
        help="selector (default markov_blanket, learner from --algorithm)",
    )
    select.add_argument("--cv", type=_int_at_least(2), help="folds of cross-validation")
    select.add_argument(
        "--classifier",
        default="svm",
        choices=CLASSIFIERS,
        help="classifier for --cv (default svm: linear, C=1)",
    )
    select.add_argument(
        "--report",
        type=Path,
        help="also write a self-contained HTML report (with --cv: accuracy "
        "against the number of features)",
    )
    select.set_defaults(func=_select)

    draw = sub.add_parser(
        "draw",
        help="draw a network file",
        parents=[_common(False)],
        description="Draw a network (.json or .bif) as SVG, PNG or PDF.",
        epilog=DRAW_EPILOG,
        formatter_class=raw,
    )
    draw.add_argument("network", type=Path, help="network file (.json or .bif)")
    draw.add_argument("--out", type=Path, required=True, help="picture: .svg, .png or .pdf")
    draw.add_argument("--highlight", help="node whose blanket is coloured")
    draw.set_defaults(func=_draw)

    score = sub.add_parser(
        "score",
        help="score a network on data",
        parents=[_common(False)],
        description="The score of a network (.json or .bif) on a data file.",
        epilog=SCORE_EPILOG,
        formatter_class=raw,
    )
    score.add_argument("data", type=Path, help="data file")
    score.add_argument("network", type=Path, help="network file (.json or .bif)")
    score.add_argument("--score", default="bic", choices=("bic", "bde", "k2", "aic", "loglik"))
    score.add_argument("--iss", type=float, default=1.0, help="BDeu imaginary sample size")
    score.add_argument("--discretize", default="quantile", choices=("quantile", "interval", "mdl"))
    score.add_argument("--bins", type=_int_at_least(2), default=3)
    score.add_argument("--dropna", action="store_true", help="drop rows with missing values")
    score.set_defaults(func=_score)

    compare = sub.add_parser(
        "compare",
        help="compare a learned network with a true one",
        parents=[_common(False)],
        description="Structural Hamming distance and skeleton and arc "
        "precision / recall of two networks (.json or .bif).",
        epilog=COMPARE_EPILOG,
        formatter_class=raw,
    )
    compare.add_argument("learned", type=Path)
    compare.add_argument("truth", type=Path)
    compare.set_defaults(func=_compare)

    example = sub.add_parser(
        "example",
        help="learn a bundled network from sampled data, print a blanket, draw it",
        parents=[_common()],
        description="Sample rows from a bundled network, learn its structure by BIC hill "
        "climbing, print the Markov blanket of a target and write a picture.",
        epilog=EXAMPLE_EPILOG,
        formatter_class=raw,
    )
    example.add_argument("--network", default="alarm", help="bundled network (default alarm)")
    example.add_argument("--target", help="node whose blanket is printed")
    example.add_argument(
        "--rows", type=_int_at_least(1), default=5000, help="rows to sample (default 5000)"
    )
    example.add_argument("--seed", type=_int_at_least(0), default=0, help="random seed (default 0)")
    example.add_argument(
        "--out",
        type=Path,
        default=Path("bnfs-example.svg"),
        help="picture to write: .svg, .png or .pdf (default bnfs-example.svg in "
        "the current folder)",
    )
    example.set_defaults(func=_example)
    return parser


#: arguments naming files a command reads, and files it writes
INPUT_FILES = (
    ("data", "data file"),
    ("network", "network file"),
    ("learned", "network file"),
    ("truth", "network file"),
    ("blacklist", "blacklist"),
    ("whitelist", "whitelist"),
)
OUTPUT_FILES = (("out", "--out"), ("report", "--report"), ("checkpoint", "--checkpoint"))


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (through links too, when both exist)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # a broken or looping link: let the command report it
        return False


def _check_outputs(args) -> None:
    """Before any work: every output's folder exists, and no command writes over a file it
    reads, nor two outputs over each other."""
    inputs = [
        (label, path)
        for name, label in INPUT_FILES
        if isinstance(path := getattr(args, name, None), Path)
    ]
    outputs = [
        (flag, path)
        for name, flag in OUTPUT_FILES
        if isinstance(path := getattr(args, name, None), Path)
    ]
    for flag, out in outputs:
        if not out.parent.is_dir():
            raise ValueError(
                f"cannot write {flag} {str(out)!r}: folder {str(out.parent)!r} does not exist"
            )
    for k, (flag, out) in enumerate(outputs):
        for label, other in inputs + [(f"{f} file", p) for f, p in outputs[:k]]:
            if _same_file(out, other):
                raise ValueError(
                    f"{flag} {str(out)!r} is also the {label}; it would be "
                    "overwritten: choose another path"
                )


@contextlib.contextmanager
def _showing_compiling():
    """Show the one line that kernels are compiling (first use only) on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("bnfs: %(message)s"))
    compiling = logging.getLogger("bnfs.compile")
    saved = compiling.level, compiling.propagate
    compiling.addHandler(handler)
    compiling.setLevel(logging.INFO)
    compiling.propagate = False  # shown once, with -v too
    try:
        yield
    finally:
        compiling.removeHandler(handler)
        compiling.setLevel(saved[0])
        compiling.propagate = saved[1]


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "default_algorithm"):
        args.algorithm_given = args.algorithm is not None
        args.algorithm = args.algorithm or args.default_algorithm
    handler = None
    if args.verbose:  # removed again at the end: main() may run many times in one process
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("bnfs: %(message)s"))
        level = log.level
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    try:
        _check_outputs(args)
        with _showing_compiling(), warnings.catch_warnings():
            warnings.showwarning = functools.partial(_one_line_warning, args.command)
            return args.func(args)
    except (ValueError, TypeError, OSError, ImportError, KeyError) as err:
        parser.exit(2, f"bnfs {args.command}: error: {_first_line(err)}\n")
    except KeyboardInterrupt:
        parser.exit(130, f"bnfs {args.command}: interrupted\n")
    except Exception as err:  # a bug of ours: one line, the traceback with -v
        if args.verbose:
            raise
        parser.exit(
            1,
            f"bnfs {args.command}: internal error ({type(err).__name__}: "
            f"{_first_line(err)}); run again with -v for the traceback and "
            "please report it\n",
        )
    finally:
        if handler is not None:
            log.removeHandler(handler)
            log.setLevel(level)


def _one_line_warning(command, message, category, filename, lineno, file=None, line=None):
    """A warning as the command line shows it: one line, no source location."""
    print(f"bnfs {command}: warning: {_first_line(message)}", file=sys.stderr)


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
