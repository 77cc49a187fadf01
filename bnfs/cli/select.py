"""``bnfs select``: feature selection, cross-validated against all features."""

from __future__ import annotations

import contextlib
import inspect
import sys
import time
import warnings

from bnfs.cli._inputs import LEARNER_FLAGS, column_name, learner_options, read_frame
from bnfs.cli._status import partial_exit, status_line
from bnfs.select import registry
from bnfs.tables._files import write_atomically

CLASSIFIERS = ("svm", "logistic", "naive_bayes", "knn", "tree")


def _refuse(flags: list[str], method: str, why: str) -> None:
    if flags:
        raise ValueError(f"{flags[0]} does not apply to --method {method} ({why})")


def _discretizing(args, row) -> dict:
    """The selector's ``discretizer`` and ``n_bins`` from ``--discretize`` and ``--bins``,
    for a selector that discretizes (refused by name for one that does not). Without
    ``--discretize`` each keeps its own default (``MarkovBlanketSelector``'s ``mdl``, cuts
    supervised by the class, where ``bnfs blanket`` models continuous columns as ``bnfs
    learn`` does: :func:`_cut_note` says so; quantile bins for the others); told one
    discretizer, ``bnfs blanket`` and ``bnfs select`` give one set. ``auto`` reaches a selector
    whose ``discretizer`` takes it and leaves the others at their defaults, since they need
    discrete data."""
    given = [
        flag
        for flag, name in (("--discretize", "discretize"), ("--bins", "bins"))
        if getattr(args, name, None) is not None
    ]
    if not row.discretizes:
        _refuse(given, row.name, "it measures dependence on the values as they are")
        return {}
    options = {}
    if args.discretize is not None and (args.discretize != "auto" or _takes_auto(row)):
        options["discretizer"] = args.discretize
    if args.bins is not None:
        options["n_bins"] = args.bins
    return options


def _takes_auto(row) -> bool:
    """Whether the selector's ``discretizer`` takes ``"auto"`` (its parameter constraints)."""
    allowed = row.estimator._parameter_constraints.get("discretizer", [])
    return any("auto" in getattr(option, "options", ()) for option in allowed)


def make_selector(args, names):
    """The selector ``--method`` names, with the options it takes (read off its registry
    row); every option it does not take is refused by name (tiers, roots and leaves
    constrain a network, which no selector learns with a user's class name)."""
    row = registry.get(args.method)
    method = row.name
    knowledge = [
        flag
        for flag, name in (("--tiers", "tiers"), ("--roots", "roots"), ("--leaves", "leaves"))
        if getattr(args, name, None) is not None
    ]
    _refuse(knowledge, method, "use bnfs learn or bnfs blanket to constrain a network")
    options = _discretizing(args, row)
    if row.learns_network:  # the learner flags, --max-time among them, go to the learner
        options["learner_options"] = learner_options(args.algorithm, args, names)
        if "max_time" in row.options:  # a budget for the whole selection, not each learner
            options["learner_options"].pop("max_time", None)
            if args.max_time is not None:
                options["max_time"] = args.max_time
        options["random_state"] = args.seed
        options["n_jobs"] = args.n_jobs
        return row.estimator(args.algorithm, **options)
    given = [
        flag
        for flag, name in LEARNER_FLAGS
        if getattr(args, name, None) is not None and name != "max_time"
    ]
    if args.algorithm_given:
        given.insert(0, "--algorithm")
    if given:
        learning = [n for n in registry.names() if registry.get(n).learns_network]
        raise ValueError(f"{given[0]} applies to --method {' or '.join(learning)}, not {method}")
    if args.max_time is not None:
        _refuse(
            ["--max-time"] if "max_time" not in row.options else [],
            method,
            "one pass over the features, which it cannot cut short",
        )
        options["max_time"] = args.max_time
    if "progress" in row.options:
        options["progress"] = not args.quiet and sys.stderr.isatty()
    if "random_state" in row.options:  # its draws (HSMB's permutation tests) follow --seed
        options["random_state"] = args.seed
    if "n_jobs" in row.options:
        options["n_jobs"] = args.n_jobs
    return row.estimator(**options)


@contextlib.contextmanager
def empty_selections():
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


def classifier(name: str, gaps: bool = False):
    """The ``--cv`` classifier behind scaling and one-hot encoding; with ``gaps``, missing
    values are filled first (column means and most frequent levels, learned on each
    training fold), as the classifiers take no missing values."""
    from sklearn.compose import make_column_selector, make_column_transformer
    from sklearn.impute import SimpleImputer
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
    numbers = [StandardScaler()]
    levels = [OneHotEncoder(handle_unknown="ignore", sparse_output=False)]
    if gaps:
        numbers.insert(0, SimpleImputer(strategy="mean"))
        levels.insert(0, SimpleImputer(strategy="most_frequent"))
    encode = make_column_transformer(
        (make_pipeline(*numbers), make_column_selector(dtype_include="number")),
        (make_pipeline(*levels), make_column_selector(dtype_exclude="number")),
    )
    return make_pipeline(encode, model)


def select_command(args) -> int:
    # the blanket selector learns from gaps (structural EM or available-case tests, as
    # bnfs blanket); the other methods need complete rows (--dropna)
    """``bnfs select``: select features for the target, optionally cross-validated."""
    row = registry.get(args.method)
    frame = read_frame(args.data, args.dropna, keep_missing=row.takes_missing, args=args)
    target = column_name(frame, args.target)
    X, y = frame.drop(columns=target), frame[target]
    if y.isna().any():
        raise ValueError(
            f"the target {target!r} has {int(y.isna().sum())} missing value(s); pass --dropna "
            "to drop the rows that have them"
        )
    gaps = bool(X.isna().to_numpy().any())
    if row.learns_network and not args.algorithm_given:  # the selector's own default learner
        args.algorithm = inspect.signature(row.estimator).parameters["learner"].default
    if args.algorithm == "auto":  # the default of blanket too, and MarkovBlanketSelector's
        from bnfs.learners import auto_learner

        args.algorithm = auto_learner(X.shape[1], len(X))
    selector = make_selector(args, list(frame.columns))
    from bnfs._kernels._compile import compile_seconds
    from bnfs.cli.learn import compiled

    start = time.perf_counter(), compile_seconds()
    with empty_selections() as empty:
        selector.fit(X, y)
    compiling = compile_seconds() - start[1]
    seconds = max(0.0, time.perf_counter() - start[0] - compiling)
    features = [] if selector.empty_ else list(X.columns[selector.get_support()])
    print(
        f"{args.method} kept {len(features)} of {X.shape[1]} features for {target} "
        f"({seconds:.2f} s{compiled(compiling)}):"
    )
    print("  " + (", ".join(features) if features else "-"))
    if getattr(selector, "missing_", None):
        print(f"  (X has {selector.missing_['values']} missing values: {selector.missing_['how']})")
    for line in _cut_note(selector, args, frame, target):
        print(f"  {line}")
    if empty:
        print(f"bnfs select: warning: {empty[0]}", file=sys.stderr)
    facts = {
        "data": f"{args.data.name} ({len(frame)} rows)",
        "target": target,
        "method": args.method,
        **({"learner": args.algorithm} if row.learns_network else {}),
        **({"causal learner": selector.causal} if hasattr(selector, "causal") else {}),
        **(
            {"missing values": f"{selector.missing_['values']} ({selector.missing_['how']})"}
            if getattr(selector, "missing_", None)
            else {}
        ),
        "kept": f"{len(features)} of {X.shape[1]}",
        "selection time": f"{seconds:.2f} s",
    }
    curve = baseline = None
    if args.cv:
        if args.cv > len(frame):
            raise ValueError(f"--cv {args.cv} asks for more folds than the {len(frame)} rows")
        from sklearn.base import clone
        from sklearn.model_selection import StratifiedKFold, cross_val_score
        from sklearn.pipeline import make_pipeline

        folds = StratifiedKFold(args.cv, shuffle=True, random_state=args.seed or 0)
        selected = make_pipeline(
            clone(selector).set_output(transform="pandas"), classifier(args.classifier, gaps)
        )
        rows = [("selected", selected), ("all", classifier(args.classifier, gaps))]
        print(f"{args.cv}-fold cross-validation of {args.classifier} (selection inside each fold):")
        terminal = not args.quiet and sys.stderr.isatty()
        for label, model in rows:
            with empty_selections() as empty, status_line(sys.stderr, terminal) as status:
                scores = fold_scores(model, X, y, folds, status, f"{label} features")
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
            if label == "all":
                baseline = float(scores["test_accuracy"].mean())
        from sklearn.dummy import DummyClassifier

        floor = cross_val_score(DummyClassifier(strategy="most_frequent"), X, y, cv=folds)
        line = f"accuracy {floor.mean():.3f}   (always the most frequent class: the floor)"
        print(f"  {'majority':<9} {line}")
        facts["majority class"] = line
        if args.report and features:
            order = [f for f in getattr(selector, "selected_", features) if f in features]
            counts = sorted({max(1, round(len(order) * q / 12)) for q in range(1, 13)})
            curve = [
                (
                    k,
                    float(
                        cross_val_score(
                            classifier(args.classifier, gaps), X[order[:k]], y, cv=folds
                        ).mean()
                    ),
                )
                for k in counts
            ]
            facts["curve"] = "features chosen once on all rows, classifier cross-validated"
    if args.report:
        from bnfs.graphs.report import selection_report

        graph = getattr(selector, "network_", None)  # None for a local learner
        if graph is None:
            graph = getattr(selector, "tree_", None)
        highlight = getattr(selector, "class_name_", None)
        if graph is None or highlight not in graph.nodes:
            highlight = None
        if highlight is not None and target not in graph.nodes:  # the class by its own name
            graph, highlight = graph.renamed({highlight: target}), target
        write_atomically(
            args.report,
            selection_report(
                title=f"bnfs select: {args.data.name}, target {target}",
                features=features,
                facts=facts,
                curve=curve,
                baseline=baseline,
                graph=graph,
                highlight=highlight,
            ),
        )
        print(f"report written to {args.report}")
    return partial_exit(
        {"stopped_early": getattr(selector, "stopped_", None)}, "select", "the selection"
    )


def _cut_note(selector, args, frame, target: str) -> list[str]:
    """Why a network selector's set can differ from ``bnfs blanket``'s (the continuous
    features it cut into bins for the class) and, when no --max-time is set, the blanket in the
    network of the columns as they are beside it, with the same learner."""
    cut = getattr(selector, "cut_features_", None)
    if not cut or getattr(selector, "network_", None) is None:
        return []
    how = "where the class changes (mdl)" if selector.discretizer == "mdl" else "into bins"
    lines = [
        f"(the selector cut {len(cut)} continuous features {how} before learning; "
        "bnfs blanket and bnfs learn model them as they are)"
    ]
    if args.max_time is not None:
        lines.append(f"(their blanket: bnfs blanket {args.data} --target {target})")
        return lines
    from bnfs.learners import markov_blanket

    options = learner_options(args.algorithm, args, list(frame.columns))
    found = markov_blanket(frame, target, method=args.algorithm, **options)
    lines.append(
        f"the blanket in {args.algorithm}'s network of the columns as they are: "
        + (", ".join(found) if found else "-")
    )
    return lines


def fold_scores(model, X, y, folds, status, what: str) -> dict:
    """Accuracy and macro F1 of ``model`` on each test fold (as scikit-learn's
    ``cross_validate`` with ``"accuracy"`` and ``"f1_macro"``), the fold under way shown
    on ``status``."""
    import numpy as np
    from sklearn.base import clone
    from sklearn.metrics import accuracy_score, f1_score

    n = folds.get_n_splits()
    accuracy, f1 = [], []
    for k, (train, test) in enumerate(folds.split(X, y), start=1):
        status.text = f"bnfs select: cross-validating with {what}, fold {k} of {n}"
        fitted = clone(model).fit(X.iloc[train], y.iloc[train])
        predicted = fitted.predict(X.iloc[test])
        accuracy.append(accuracy_score(y.iloc[test], predicted))
        f1.append(f1_score(y.iloc[test], predicted, average="macro"))
    return {"test_accuracy": np.array(accuracy), "test_f1": np.array(f1)}
