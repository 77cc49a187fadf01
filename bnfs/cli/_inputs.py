"""What the command line reads from the user: data files, targets, node and arc lists,
the learners' options (checked against the registry) and the argument types."""

from __future__ import annotations

import argparse
import inspect
import logging
import sys
from pathlib import Path

from bnfs import learners
from bnfs._vocabulary import test_kind

log = logging.getLogger("bnfs")


def columns_arg(text: str) -> list[str]:
    """A comma-separated list of column names."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected column names separated by commas, got {text!r}")
    return names


def add_kind_options(group) -> None:
    """``--discrete`` and ``--continuous``: the typing rule's overrides."""
    for kind, what in (
        ("discrete", "e.g. integer codes with many values"),
        ("continuous", "e.g. integer measurements with few values"),
    ):
        group.add_argument(
            f"--{kind}",
            type=columns_arg,
            action="extend",
            metavar="COLS",
            help=f"comma-separated columns to read as {kind} ({what}); by default text and "
            "booleans are discrete, and number columns discrete only with few values (two, "
            "or up to 10 with 5 rows a value)",
        )
    group.add_argument(
        "--na-values",
        type=lambda text: [v.strip() for v in text.split(",")],
        action="extend",
        metavar="TEXT",
        help="comma-separated cell texts to read as missing besides the empty cell, NA, N/A, "
        "NaN, nan, NULL, null and #N/A (e.g. None,n/a,-,.: pandas.read_csv reads None and "
        "n/a as missing by default, bnfs keeps them as states, as child and insurance use "
        "them)",
    )


def pandas_reads_as_missing(frame, asked=()) -> str | None:
    """A note when ``frame`` (read by bnfs's rule) holds text that :func:`pandas.read_csv`
    would read as missing (``None``, ``n/a``, ...): where, and how to read it so, or None."""
    from bnfs.tables._readers import PANDAS_ONLY_MISSING

    markers = set(PANDAS_ONLY_MISSING) - set(asked)
    found = []
    for name in frame.columns:
        col = frame[name]
        if col.dtype.kind in "biufcmM":
            continue
        rows = int(col.isin(markers).sum())
        if rows:
            text = sorted(set(col[col.isin(markers)].astype(str)))
            found.append((name, text, rows))
    if not found:
        return None
    shown = "; ".join(f"{n!r} ({', '.join(map(repr, t))}: {r} rows)" for n, t, r in found[:4])
    more = f"; and {len(found) - 4} more columns" if len(found) > 4 else ""
    texts = sorted({t for _, ts, _ in found for t in ts})
    return (
        f"bnfs: read as states, not missing: {shown}{more}. pandas.read_csv reads "
        f"{', '.join(map(repr, texts))} as missing; pass --na-values {','.join(texts)} to "
        "read them so"
    )


def typed_as_asked(frame, args):
    """``frame`` with the columns ``--discrete`` and ``--continuous`` name cast so that
    every reader types them so: categories and floats."""
    from bnfs.tables._frame import OVERRIDES
    from bnfs.tables._kinds import numeric_or_refuse, overrides

    asked = (getattr(args, "discrete", None), getattr(args, "continuous", None))
    if not any(asked):
        return frame
    discrete, continuous = overrides(*asked, list(frame.columns))
    frame = frame.copy()
    for name in discrete:
        frame[name] = frame[name].astype("category")
    for name in continuous:
        frame[name] = numeric_or_refuse(name, frame[name])
    # a float column of few values would be read as a code: the mark says it is asked for
    frame.attrs[OVERRIDES] = {
        **{n: "discrete" for n in discrete},
        **{n: "continuous" for n in continuous},
    }
    return frame


def read_frame(path: Path, dropna: bool | None = False, keep_missing: bool = False, args=None):
    """A data file as a DataFrame with string column names, read as the API reads it
    (:func:`bnfs.io.read_table`), the columns ``args`` name as ``--discrete`` or
    ``--continuous`` cast so; rows with missing values are dropped with ``dropna``
    (saying how many), kept with ``keep_missing`` (for the learners that take them, see
    :func:`dataset_of`) and refused otherwise (None: left alone)."""
    from bnfs.io import read_table
    from bnfs.tables._kinds import with_numbers_read
    from bnfs.tables._readers import MISSING_VALUES

    asked = list(getattr(args, "na_values", None) or ())
    frame = read_table(path, na_values=[*MISSING_VALUES, *asked]) if asked else read_table(path)
    note = pandas_reads_as_missing(frame, asked)
    if note is not None and not getattr(args, "quiet", False):
        print(note, file=sys.stderr)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(
            f"{str(path)!r} holds no data ({frame.shape[0]} rows, {frame.shape[1]} columns)"
        )
    frame.columns = [str(c) for c in frame.columns]
    frame = typed_as_asked(frame, args)
    # numbers stored as text with a missing marker ("?", "."): numbers with gaps, as the
    # Python door reads them, before the gaps are counted (issue 71, item 2)
    frame = with_numbers_read(frame)
    if dropna is None:
        return frame
    missing = frame.isna().sum()
    if missing.any() and not dropna and keep_missing:
        return frame
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


def column_name(frame, target: str) -> str:
    """A column by name, or by (possibly negative) position when no column has that name."""
    if target in frame.columns:
        return target
    try:
        position = int(target)
    except ValueError:
        from bnfs._validate import near_match  # here: bnfs --help loads no data library

        shown = ", ".join(map(str, frame.columns[:8])) + (", ..." if frame.shape[1] > 8 else "")
        raise ValueError(
            f"unknown column {target!r}{near_match(target, list(frame.columns))} (columns: {shown})"
        ) from None
    if not -frame.shape[1] <= position < frame.shape[1]:
        raise ValueError(f"column index {position} is out of range for {frame.shape[1]} columns")
    return frame.columns[position]


def dataset_of(frame, args, algorithm: str | None = None):
    """What ``algorithm`` learns from (None: what ``bnfs score`` scores): continuous
    columns kept when it models them (and ``--discretize`` is ``auto``), else discretized;
    missing values kept (the frame itself is returned) when it takes them, else refused
    with what to do instead."""
    from bnfs import Dataset, discretize

    learner = learners.get(algorithm) if algorithm is not None else None
    # bnfs blanket of a discrete target cuts for it, as MarkovBlanketSelector() does
    target = getattr(args, "class_column", None)
    method = getattr(args, "discretize", None) or ("mdl" if target is not None else "auto")
    bins = getattr(args, "bins", None) or 3
    incomplete = bool(frame.isna().to_numpy().any())
    if incomplete and method == "mdl" and target is not None:
        from bnfs.select._base import cut_on_observed

        frame = cut_on_observed(frame, target, "mdl", bins)
        incomplete = bool(frame.isna().to_numpy().any())
    if incomplete:
        if learner is None or not learner.takes_missing:
            raise ValueError(
                f"{algorithm or 'this command'} needs complete rows, and "
                f"{int(frame.isna().any(axis=1).sum())} of {len(frame)} have missing values: "
                "pass --dropna to drop them, or learn with a CI-test learner (available-case "
                "tests) or hill_climbing / tabu_search (structural EM)"
            )
        from bnfs.tables._kinds import column_kind

        continuous = [c for c in frame.columns if column_kind(frame[c]) == "continuous"]
        if continuous and (method != "auto" or not learner.models_continuous):
            raise ValueError(
                f"{algorithm} needs discrete data here, and discretizing needs complete rows: "
                "pass --dropna, or choose a learner that models continuous columns"
            )
        missing = int(frame.isna().to_numpy().sum())
        how = "structural EM" if learner.kind == "score" else "available-case tests"
        log.info("%d missing values: %s learns by %s", missing, algorithm, how)
        return frame
    data = Dataset(frame, constant="isolate")  # the learners keep them as isolated nodes
    if data.continuous_names:
        mixed = bool(data.discrete_names)
        if method == "auto" and (learner is None or learner.models_continuous):
            log.info(
                "%d continuous columns modelled as they are (%s)",
                len(data.continuous_names),
                "conditional Gaussian" if mixed else "Gaussian",
            )
            return data
        chosen = method == "auto"  # not asked for: say so, whatever the verbosity
        method = "quantile" if chosen else method
        how = (
            f"where {target} changes (MDL cuts)"
            if method == "mdl" and target is not None
            else f"into {bins} {method} bins"
        )
        line = (
            f"discretizing {len(data.continuous_names)} continuous columns "
            f"({', '.join(data.continuous_names[:5])}"
            f"{', ...' if len(data.continuous_names) > 5 else ''}) {how}"
        )
        if chosen and not getattr(args, "quiet", False):
            name = algorithm or "this command"
            print(f"bnfs: {line}: {name} needs discrete data here", file=sys.stderr)
        else:
            log.info(line)
        data = discretize(data, method, bins, target=target if method == "mdl" else None)
    return data


def _text_of(path: Path, what: str) -> str:
    """A knowledge file's text: UTF-8 (a byte-order mark skipped), read once (a FIFO
    too); anything else is refused naming the file and its option."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ValueError(f"no such file: the {what} file {str(path)!r}") from None
    except OSError as error:
        raise ValueError(f"cannot read the {what} file {str(path)!r}: {error.strerror}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"the {what} file {str(path)!r} is not UTF-8 text (byte 0x{raw[error.start]:02x} "
            f"at offset {error.start}); save it as UTF-8"
        ) from None


def _lines(path: Path, what: str) -> list[str]:
    """The lines of a knowledge file that say something: blank ones and # comments left out."""
    lines = [line.strip() for line in _text_of(path, what).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _rows(path: Path, what: str, header: tuple[str, ...], names) -> list[list[str]]:
    """The rows of a (from, to[, prob]) knowledge file, cells as text (``NA`` is a name, not a
    missing value). The first row is a header when it is ``header`` (in any order: the
    columns are then taken by name) or names no node of the data (``names``); it is data
    when its from and to are nodes; anything between is refused by name, so that a
    mistyped first arc is never taken for a header and lost."""
    import csv

    lines = _lines(path, what)
    tab = Path(path).suffix.lower() == ".tsv" or (
        lines and "\t" in lines[0] and "," not in lines[0]
    )
    rows = [
        [cell.strip() for cell in row] for row in csv.reader(lines, "excel-tab" if tab else "excel")
    ]
    order = list(range(len(header)))
    if rows and sorted(c.lower() for c in rows[0]) == sorted(header):
        order = [[c.lower() for c in rows[0]].index(h) for h in header]
        rows = rows[1:]
    elif rows and len(rows[0]) == len(header):
        from bnfs._validate import near_match

        known = [cell in names for cell in rows[0][:2]]
        close = [near_match(cell, sorted(names)) for cell in rows[0][:2]]
        if not any(known) and not any(close):
            rows = rows[1:]  # a header of other names (parent, child)
        elif not all(known):
            k = known.index(False)
            raise ValueError(
                f"the first row of the {what} file {str(path)!r} ({', '.join(rows[0])}) is "
                f"neither a header ({', '.join(header)}) nor an arc between nodes of the "
                f"data: {rows[0][k]!r} is not a column{close[k]}"
            )
    for number, row in enumerate(rows, 1):
        if len(row) != len(header):
            raise ValueError(
                f"the {what} file {str(path)!r} needs {len(header)} columns "
                f"({', '.join(header)}); row {number} has {len(row)}: {', '.join(row)!r}"
            )
    return [[row[k] for k in order] for row in rows]


def arc_file(path: Path | None, what: str, names):
    """The (from, to) arcs of a blacklist or whitelist file (see :func:`_rows`)."""
    if path is None:
        return None
    return [tuple(row) for row in _rows(path, what, ("from", "to"), set(names))]


def belief_file(path: Path, names) -> list[tuple[str, str, float]]:
    """The cs prior's beliefs: (from, to, prob) rows of a CSV (see :func:`_rows`)."""
    rows = []
    for u, v, p in _rows(path, "beliefs", ("from", "to", "prob"), set(names)):
        try:
            p = float(p)
        except ValueError:
            raise ValueError(
                f"the beliefs file {str(path)!r} gives {u} -> {v} the probability {p!r}, "
                "not a number"
            ) from None
        rows.append((u, v, p))
    return rows


def name_file(path: Path, what: str, algorithm: str) -> list[str]:
    """A local learner's node list: one variable name per line (bnlearn's learn.mb lists)."""
    names = _lines(path, what)
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
    ("--prior", "prior"),
    ("--beta", "beta"),
    ("--max-parents", "max_parents"),
    ("--blacklist", "blacklist"),
    ("--whitelist", "whitelist"),
    ("--max-time", "max_time"),
    ("--checkpoint", "checkpoint"),
    ("--scan-order", "scan_order"),
)


def learner_options(algorithm: str, args, names) -> dict:
    """The keyword arguments of learner ``algorithm`` from the command line.

    Options the user gave are passed when the learner takes them and refused by name when
    it does not; options left out keep the learner's own defaults (as in Python). The seed,
    the number of jobs and progress bars go to every learner that takes them. Tiers, roots
    and leaves join the blacklist of a network learner (``names``: the data's columns,
    which also tell a knowledge file's header from its first arc).
    """
    accepted = learners.get(algorithm).options
    options = {}
    for flag, name in LEARNER_FLAGS:
        value = getattr(args, name, None)
        if value is None:
            continue
        if name not in accepted:
            raise ValueError(f"{flag} does not apply to {algorithm}")
        if name == "checkpoint" and algorithm == "learn":  # its one candidate keeps none
            raise ValueError(
                "--checkpoint does not apply to learn (its search, BOSS, keeps no checkpoint); "
                "pass --algorithm hill_climbing or tabu_search to resume a long search"
            )
        if name in ("blacklist", "whitelist"):
            value = (
                name_file(value, name, algorithm)
                if learners.get(algorithm).local
                else arc_file(value, name, names)
            )
        options[name] = value
    beliefs = getattr(args, "beliefs", None)
    if beliefs is not None:
        if "prior" not in accepted:
            raise ValueError(f"--beliefs does not apply to {algorithm}")
        if options.get("prior", "cs") != "cs":
            raise ValueError(f"--beliefs are the cs prior's, not --prior {options['prior']}'s")
        if "beta" in options:
            raise ValueError("--beta and --beliefs both set the graph prior's parameter")
        options["prior"], options["beta"] = "cs", belief_file(beliefs, names)
    knowledge = {
        flag: value
        for flag, value in (
            ("--tiers", getattr(args, "tiers", None)),
            ("--roots", getattr(args, "roots", None)),
            ("--leaves", getattr(args, "leaves", None)),
        )
        if value is not None
    }
    if knowledge:
        if "blacklist" not in accepted or learners.get(algorithm).local:
            raise ValueError(f"{next(iter(knowledge))} does not apply to {algorithm}")
        from bnfs.graphs.knowledge import blacklist_from

        options["blacklist"] = blacklist_from(
            list(names),
            tiers=tier_file(knowledge["--tiers"]) if "--tiers" in knowledge else (),
            roots=knowledge.get("--roots", ()),
            leaves=knowledge.get("--leaves", ()),
            blacklist=options.get("blacklist", ()),
        )
    if "test" in accepted:  # the learner's own default test, off its signature
        default = inspect.signature(learners.get(algorithm).function).parameters["test"].default
        test = options.get("test", default)
        threshold = test is not None and test_kind(test).decision == "threshold"
        if threshold and "alpha" in options:
            raise ValueError(
                f"--alpha does not apply to the mi_threshold test of {algorithm}; "
                "its threshold is --threshold"
            )
        if not threshold and "threshold" in options:
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


def tier_file(path: Path) -> list[list[str]]:
    """Temporal tiers: one per line, names separated by commas (blank lines and # skipped)."""
    tiers = [
        [name.strip() for name in line.split(",") if name.strip()] for line in _lines(path, "tiers")
    ]
    if not tiers:
        raise ValueError(f"the tiers file {str(path)!r} lists no tier")
    return tiers


def network_file(path: Path, flag: str) -> None:
    """Refuse, before any learning, an output path whose suffix no network file has
    (:data:`bnfs.io.NETWORK_FILES`)."""
    from bnfs.io import NETWORK_FILES

    if path.suffix.lower() not in NETWORK_FILES:
        raise ValueError(f"{flag} must end in one of {', '.join(NETWORK_FILES)}, got {path.name!r}")


def read_graph(path: Path):
    """The graph in a network file (:func:`bnfs.io.read_network`: .json, .bif, .graphml)."""
    from bnfs.io import read_network

    return read_network(path)


def n_jobs_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("expected a non-zero integer (-1: every core)")
    return value


def int_at_least(minimum: int):
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


def _number_between(low: float, high: float, wanted: str):
    """An argparse type: a number strictly between ``low`` and ``high``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
        if not low < value < high:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {value}")
        return value

    return parse


#: argparse types: a positive (finite) number, and a probability strictly inside (0, 1)
positive_float = _number_between(0.0, float("inf"), "a positive number")
probability = _number_between(0.0, 1.0, "a number in (0, 1)")
