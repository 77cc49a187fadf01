"""Real data at every structure learner's door: constant columns and missing values.

:func:`takes_real_data` wraps every learner of :mod:`bnfs.learners`, so that Python and the
command line treat real files alike:

- A column with one observed value is independent of everything, so it becomes a node
  without arcs (as causal-learn and Tetrad keep it), with one warning, rather than a
  refusal. Real files have such columns, and a rare level can leave a column constant in a
  subsample. The learner itself sees the data without those columns.
- What a learner returns is stamped once, here: its ``learning`` record gets the learner's
  name (``algorithm``) first and the seconds it took last, and a network's record always
  holds ``learner`` (the search that ran) and ``stopped_early`` (why it stopped before it
  finished, or None).
- An incomplete DataFrame goes where the learner declares (``missing=``, one of
  :data:`MISSING`): the CI-test learners test on the rows observed in each test's
  variables, hill climbing, tabu search, BOSS and ``learn`` run inside structural EM (with
  a warning that says so), and the others refuse it, naming the learners that take it.
- A learner called by a learner on the data the caller's door checked (``learn`` running
  BOSS on the whole data) does not cross the door again: the data are checked, encoded and
  stamped once per call from outside.
"""

from __future__ import annotations

import contextvars
import copy
import functools
import inspect
import logging
import os
import time
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from bnfs._kernels._compile import compile_seconds
from bnfs._validate import arc_list
from bnfs._warn import StructuralEMWarning, user_stacklevel
from bnfs.em import rounds
from bnfs.graphs.local import LocalResult
from bnfs.tables._columns import MissingValueError, column_names
from bnfs.tables._data import Dataset, as_dataset
from bnfs.tables._frame import typed_incomplete
from bnfs.tables._kinds import with_numbers_read
from bnfs.tables._readers import read_table

__all__ = ["takes_real_data", "variant_of", "MISSING", "ROUTES", "EM_OPTIONS"]

logger = logging.getLogger("bnfs")

#: what a learner does with an incomplete DataFrame, as it declares at its door
MISSING = {
    "refuse": "refuses it, naming the learners that take it",
    "available_cases": "tests on the rows observed in each test's variables",
    "structural_em": "runs inside structural EM (bnfs.structural_em)",
    "native": "learns from it itself",
}
#: how each declaration's learners use the gaps, as ``learning["missing"]["how"]`` says (a
#: native learner may say it in its own ``learning["missing"]``)
ROUTES = {
    "available_cases": "available-case tests",
    "structural_em": "structural EM",
    "native": "structural EM",
}
#: the Datasets the door has checked, in the calls now running: a learner called on one of
#: them by another learner skips the door
_CHECKED: contextvars.ContextVar[frozenset] = contextvars.ContextVar(
    "bnfs_checked_data", default=frozenset()
)


def takes_real_data(missing: str = "refuse"):
    """The door of a learner ``learner(data, ...)``: constant columns of ``data`` become
    isolated nodes of the graph it returns (an empty blanket when the target is constant),
    and incomplete data go where ``missing`` (a key of :data:`MISSING`) says. The wrapped
    learner carries the declaration as its ``missing`` attribute."""
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {list(MISSING)}, got {missing!r}")

    def decorate(learner):
        signature = inspect.signature(learner)

        @functools.wraps(learner)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            data = bound.arguments["data"]
            if isinstance(data, Dataset) and id(data) in _CHECKED.get():
                return learner(*bound.args, **bound.kwargs)  # checked by the caller's door
            if isinstance(data, pd.DataFrame):  # numbers stored as text, "." for a gap
                data = bound.arguments["data"] = with_numbers_read(data)
            if isinstance(data, pd.DataFrame) and data.isna().to_numpy().any():
                # the typing rule on the observed values, as a complete frame gets it
                original, (data, kinds, notes) = data, typed_incomplete(data)
                bound.arguments["data"] = data
                if not data.isna().to_numpy().any():  # the gaps were in identifiers only
                    return _with_columns(
                        wrapper(*bound.args, **bound.kwargs), kinds, notes, original
                    )
                constant = _constant_where_observed(data)
                if not constant:
                    found = _incomplete(learner, bound, missing, wrapper)
                    return _with_columns(found, kinds, notes, original)
                # by position: the keys are the columns' text (an integer column 8 is node '8')
                kept = data.loc[:, [str(c) not in constant for c in data.columns]]
                order = column_names(data.columns)
                route = functools.partial(_incomplete, missing=missing, door=wrapper)
                found = _isolating(learner, bound, kept, constant, order, run=route)
                return _with_columns(found, kinds, notes, original)
            if not _encodable(data):
                return _run(learner, bound)
            try:
                dataset = as_dataset(data, constant="isolate")
            except MissingValueError:
                if not isinstance(data, (str, os.PathLike)):
                    raise
                # a file with gaps gets what the frame read from it gets (structural EM,
                # available-case tests): read whole, as the command line reads it
                bound.arguments["data"] = read_table(data)
                return wrapper(*bound.args, **bound.kwargs)
            if not dataset.isolated:
                bound.arguments["data"] = dataset
                return _run(learner, bound)
            reduced = copy.copy(dataset)
            reduced.isolated = {}
            return _isolating(learner, bound, reduced, dataset.isolated, dataset.columns)

        wrapper.missing = missing
        return wrapper

    return decorate


def variant_of(base: Callable, **fixed):
    """A learner that is ``base`` with some arguments fixed (``mmhc`` is ``rsmax2`` with MMPC
    and hill climbing, ``tabu_search`` hill climbing with a tabu list): the decorated
    function holds the variant's signature and docstring, for ``help()``, the docs and the
    registry, and checks its own options (its body runs first, its return value unused);
    the call then passes every argument it binds, and ``fixed``, on to ``base``. Inside the
    variant's door ``base`` does not cross its own."""

    def decorate(variant):
        signature = inspect.signature(variant)

        @functools.wraps(variant)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            variant(*bound.args, **bound.kwargs)
            return base(*bound.args, **bound.kwargs, **fixed)

        return wrapper

    return decorate


def _encodable(data) -> bool:
    """Whether ``data`` is encoded by :class:`~bnfs.Dataset` here: complete frames, files,
    dask frames and Datasets (a CI test, a sparse matrix or an array goes to the learner as
    it is)."""
    if isinstance(data, (Dataset, pd.DataFrame)):
        return True
    if isinstance(data, (str, os.PathLike)):
        return True
    return type(data).__module__.startswith("dask") and hasattr(data, "partitions")


def _constant_where_observed(frame: pd.DataFrame) -> dict:
    """The columns of an incomplete frame with one observed value, and that value (a column
    with none is left to the learner, which names it)."""
    counts = frame.nunique(dropna=True).to_numpy()
    found = {}
    for j in map(int, (counts == 1).nonzero()[0]):
        value = frame.iloc[:, j].dropna().iloc[0]
        found[str(frame.columns[j])] = value.item() if hasattr(value, "item") else value
    return found


def _run(learner, bound: inspect.BoundArguments):
    """Run ``learner`` and stamp what it returns: its ``learning`` record gets the learner's
    name first and the seconds it took last, here and nowhere else (a learner that calls
    another gets its own stamp over the other's); the log says when it is done."""
    started = _clock()
    data = bound.arguments.get("data")
    checked = _CHECKED.get()
    token = _CHECKED.set(checked | {id(data)}) if isinstance(data, Dataset) else None
    try:
        result = learner(*bound.args, **bound.kwargs)
    finally:
        if token is not None:
            _CHECKED.reset(token)
    return _stamped(learner, result, started, data, _called(bound))


def _called(bound: inspect.BoundArguments) -> dict:
    """The call's arguments but the data, each with its default where not given, the keyword
    options a learner passes on (``**test_options``) among them: what ``learning`` records
    under ``arguments``."""
    given = {}
    for name, parameter in bound.signature.parameters.items():
        if name == "data":
            continue
        value = bound.arguments.get(name, parameter.default)
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            given.update(value if isinstance(value, dict) else {})
        elif value is not inspect.Parameter.empty:
            given[name] = _recorded(value)
    return given


def _recorded(value):
    """``value`` as ``learning`` keeps it: numbers, text and None as they are, sequences and
    mappings of them alike, a graph (``start``) as its arcs, anything else by its type."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(_recorded(v) for v in value)
    if isinstance(value, dict):
        return {k: _recorded(v) for k, v in value.items()}
    if hasattr(value, "arcs") and hasattr(value, "nodes"):
        return [tuple(arc) for arc in value.arcs]
    return f"<{type(value).__name__}>"


def _clock() -> tuple[float, float]:
    """Now, and the seconds the kernels have compiled so far: where a call's time starts."""
    return time.perf_counter(), compile_seconds()


def _since(started: tuple[float, float]) -> tuple[float, float]:
    """(seconds of learning, seconds of compiling) since ``started`` (:func:`_clock`): the
    kernels' first-use compiling is not learning time."""
    compiling = compile_seconds() - started[1]
    return max(0.0, time.perf_counter() - started[0] - compiling), compiling


def _stamped(learner, result, started: tuple, data=None, called=None):
    """``result`` with the learner's name first and the seconds since ``started`` last in
    its ``learning`` record, and how the columns of ``data`` (a Dataset) were typed (see
    :mod:`bnfs.tables._kinds`) as ``columns`` and ``typing``. ``called`` (the call's arguments, see
    :func:`_called`) becomes ``arguments``, but for what the record holds at its top level
    (``score``, ``test``, ``target``, ...); the values the learner recorded there itself (a
    default it resolved, such as ``max_parents``) stand over the call's."""
    graph = result[0] if isinstance(result, tuple) else result  # (network, imputed data)
    learning = getattr(graph, "learning", None)
    seconds, compiling = _since(started)
    if isinstance(learning, dict):
        rest = {k: v for k, v in learning.items() if k not in ("algorithm", "seconds")}
        if called is not None:
            own = learning.get("arguments") or {}
            called = {k: v for k, v in called.items() if k not in learning or k == "arguments"}
            rest["arguments"] = {**called, **own}
        if not isinstance(graph, LocalResult):  # the keys the README reads, on every route
            rest.setdefault("learner", learner.__name__)
            rest.setdefault("stopped_early", None)
            if isinstance(data, Dataset):
                rest.setdefault("columns", dict(data.kinds))
                rest.setdefault(
                    "typing",
                    {k: list(getattr(data, k, ())) for k in ("whole_numbers", "float_codes")},
                )
        rest.pop("compile_seconds", None)
        learning.clear()
        learning.update(
            {
                "algorithm": learner.__name__,
                **rest,
                "compile_seconds": compiling,  # first use only: kernels built, not learning
                "seconds": seconds,
            }
        )
    logger.info("%s: done in %.2f s", learner.__name__, seconds)
    return result


def _with_columns(found, kinds: dict, notes: dict, original: pd.DataFrame):
    """``found`` (a graph, or structural EM's (graph, completed data)) with how the columns
    of incomplete data were typed: ``learning["columns"]`` as on complete rows, and the
    columns the rule read otherwise than their pandas type (``learning["typing"]``). The
    completed data come back in the caller's columns and types: a float code as floats, an
    identifier as it was given."""
    graph = found[0] if isinstance(found, tuple) else found
    learning = getattr(graph, "learning", None)
    if isinstance(learning, dict) and not isinstance(graph, LocalResult):
        learning["columns"] = dict(kinds)
        learning["typing"] = {k: list(v) for k, v in notes.items()}
    if not isinstance(found, tuple):
        return found
    completed, out = found[1], {}
    filled = {str(c): completed[c] for c in completed.columns}
    for j, name in enumerate(column_names(original.columns)):
        given = original.iloc[:, j]
        if name not in filled:  # an identifier, set aside
            out[j] = given.to_numpy()
            continue
        values = filled[name]
        if isinstance(values.dtype, pd.CategoricalDtype) and not isinstance(
            given.dtype, pd.CategoricalDtype
        ):
            values = np.asarray(values.astype(object))
            if pd.api.types.is_numeric_dtype(given.dtype):
                values = values.astype(np.float64)
        out[j] = values.array if isinstance(values, pd.Series) else values
    frame = pd.DataFrame({j: out[j] for j in range(original.shape[1])}, index=original.index)
    frame.columns = original.columns
    return found[0], frame


def _isolating(learner, bound: inspect.BoundArguments, kept, isolated: dict, order, run=_run):
    """Learn on ``kept`` (the data without the constant columns ``isolated``, name ->
    value) by ``run``, then put those columns back as isolated nodes in ``order``."""
    names = list(isolated)
    if len(names) == len(order):
        raise ValueError(
            f"every column is constant ({', '.join(map(repr, names[:5]))}"
            f"{', ...' if len(names) > 5 else ''}): there is nothing to learn"
        )
    arguments = bound.arguments
    shown = ", ".join(repr(n) for n in names[:10]) + (", ..." if len(names) > 10 else "")
    fate = "they are in no blanket" if "target" in arguments else "they are kept as isolated nodes"
    warnings.warn(
        f"{learner.__name__}: {len(names)} constant column(s) ({shown}) carry no "
        f"information; {fate}",
        UserWarning,
        stacklevel=user_stacklevel(),
    )
    target = arguments.get("target")
    if isinstance(target, str) and target in isolated:
        return _constant_target(learner, bound, target)
    for name in ("blacklist", "whitelist"):
        if arguments.get(name) is None:
            continue
        pairs = arc_list(arguments[name], name, order)
        touching = [(u, v) for u, v in pairs if u in isolated or v in isolated]
        if touching and name == "whitelist":
            u, v = touching[0]
            raise ValueError(
                f"whitelist arc {u!r} -> {v!r} touches constant column "
                f"{u if u in isolated else v!r}, which can only be an isolated node"
            )
        arguments[name] = [pair for pair in pairs if pair not in touching]
    start = arguments.get("start")
    if start is not None and hasattr(start, "subgraph"):
        arguments["start"] = start.subgraph([n for n in start.nodes if n not in isolated])
    arguments["data"] = kept
    result = run(learner, bound)
    if isinstance(result, list):  # a blanket or neighbour set
        return result
    if isinstance(result, tuple):  # structural EM's (network, completed data)
        graph, completed = result
        completed = completed.assign(**isolated)[list(order)]
        return _with_nodes(graph, order, names), completed
    return _with_nodes(result, order, names)


def _constant_target(learner, bound: inspect.BoundArguments, target: str) -> LocalResult:
    """A local learner's answer for a constant target, independent of everything: an empty
    set, with the provenance its tests would have had (none ran)."""
    started = _clock()
    bound.apply_defaults()
    given = bound.arguments
    options = {
        k: given[k]
        for k in ("blacklist", "whitelist", "max_cond_size", "max_time")
        if given.get(k) is not None
    }
    learning = {
        "target": target,
        "test": given.get("test"),
        "alpha": given.get("alpha"),
        "arguments": options,
        "n_tests": 0,
        "constant_target": True,
    }
    return _stamped(learner, LocalResult([], learning), started)


def _with_nodes(graph, order, isolated: list):
    """``graph`` over all of ``order``, the ``isolated`` nodes without links."""
    extra = {"edges": graph.edges} if not graph.is_directed else {}
    out = type(graph)(order, graph.arcs, learning=dict(graph.learning), **extra)
    out.learning["isolated"] = list(isolated)
    return out


#: what structural EM passes on to its search, of the options a learner may be given
EM_OPTIONS = frozenset(
    {
        "score",
        "max_parents",
        "blacklist",
        "whitelist",
        "iss",
        "seed",
        "progress",
        "n_jobs",
        "max_time",
    }
)


def _with_route(found, frame: pd.DataFrame, how: str):
    """``found`` (a graph, a set, or structural EM's (graph, completed data)) with
    ``learning["missing"]``: how many values were missing and how the learner used them
    (``"structural EM"``, with the rows; ``"available-case tests"``, with ``rows_used``, the
    fewest, median and most rows a test ran on), recorded here and nowhere else."""
    graph = found[0] if isinstance(found, tuple) else found
    learning = getattr(graph, "learning", None)
    if isinstance(learning, dict):
        how = (learning.get("missing") or {}).get("how", how)  # a native learner's own word
        route = {"values": int(frame.isna().to_numpy().sum()), "how": how}
        if how == "structural EM":
            route["rows"] = len(frame)
        else:
            route["rows_used"] = learning.get("rows_used")
        learning["missing"] = route
    return found


def _incomplete(learner, bound: inspect.BoundArguments, missing: str, door: Callable):
    """An incomplete DataFrame, where the learner's declaration ``missing`` sends it: into
    structural EM's rounds, which run ``door`` (the learner behind this door) on each
    round's completed data; to the learner itself (available-case tests, structural EM's
    own rounds); or to a refusal naming the learners that take it."""
    name = learner.__name__
    frame = bound.arguments["data"]
    rows = frame.isna().any(axis=1).to_numpy()
    if missing == "structural_em":
        given = {k: v for k, v in bound.arguments.items() if k != "data"}
        refused = sorted(set(given) - EM_OPTIONS)
        if refused:
            raise ValueError(
                f"{name}: {int(rows.sum())} of {rows.size} rows have missing values, so it "
                f"would run inside structural EM (bnfs.structural_em), which does not take "
                f"{refused[0]}; drop those rows first (bnfs.Dataset(data, dropna=True)) to "
                f"pass {refused[0]}"
            )
        search = "learn's BOSS" if name == "learn" else name.replace("_", " ")
        warnings.warn(
            f"{name}: {int(rows.sum())} of {rows.size} rows have missing values; learning by "
            f"{search} inside structural EM (bnfs.structural_em), which "
            "completes them from the network round by round",
            StructuralEMWarning,
            stacklevel=user_stacklevel(),
        )
        started = _clock()
        found = rounds.structural_em(frame, door, **given)
        found = _stamped(rounds.structural_em, found, started, called=_called(bound))
        return _with_route(found, frame, ROUTES[missing])
    if missing != "refuse":  # available-case tests, the learner's own route
        return _with_route(_run(learner, bound), frame, ROUTES[missing])
    column = frame.columns[frame.isna().any().to_numpy()][0]
    raise ValueError(
        f"{name} needs complete rows, and {int(rows.sum())} of {rows.size} have missing "
        f"values (column {str(column)!r} first): learn with bnfs.structural_em, "
        "bnfs.hill_climbing or bnfs.learn (structural EM) or a constraint-based learner such "
        "as bnfs.pc_stable (available-case tests), or drop those rows with "
        "bnfs.Dataset(data, dropna=True)"
    )
