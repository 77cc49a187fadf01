"""Constant columns in structure learning: set aside, returned as isolated nodes.

A column with one observed value is independent of everything, so the structure learners
keep it as a node without arcs (as causal-learn and Tetrad do) and say so in one warning,
rather than refusing the data. Real files have such columns, and a rare level can leave a
column constant in a subsample. :func:`isolates_constant_columns` wraps every learner of
:mod:`bnfs.learners`; the learner itself sees the data without those columns.
"""

from __future__ import annotations

import copy
import functools
import inspect
import os
import warnings

import pandas as pd

from bnfs._data import Dataset, as_dataset
from bnfs._validate import arc_list

__all__ = ["isolates_constant_columns"]


def isolates_constant_columns(learner):
    """Wrap ``learner(data, ...)`` so that constant columns of ``data`` become isolated
    nodes of the graph it returns (an empty blanket when the target is constant)."""
    signature = inspect.signature(learner)

    @functools.wraps(learner)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        data = bound.arguments["data"]
        if not _encodable(data):
            return learner(*args, **kwargs)
        dataset = as_dataset(data, constant="isolate")
        if not dataset.isolated:
            bound.arguments["data"] = dataset
            return learner(*bound.args, **bound.kwargs)
        return _without_constants(learner, bound, dataset)

    return wrapper


def _encodable(data) -> bool:
    """Whether ``data`` is encoded by :class:`~bnfs.Dataset` here: complete frames, files,
    dask frames and Datasets (incomplete frames go to the learners' own missing-value
    handling, which refuses or tests them as they are)."""
    if isinstance(data, Dataset):
        return True
    if isinstance(data, pd.DataFrame):
        return not data.isna().to_numpy().any()
    if isinstance(data, (str, os.PathLike)):
        return True
    return type(data).__module__.startswith("dask") and hasattr(data, "partitions")


def _without_constants(learner, bound: inspect.BoundArguments, dataset: Dataset):
    isolated = list(dataset.isolated)
    if not dataset.names:
        raise ValueError(
            f"every column is constant ({', '.join(map(repr, isolated[:5]))}"
            f"{', ...' if len(isolated) > 5 else ''}): there is nothing to learn"
        )
    shown = ", ".join(repr(n) for n in isolated[:10]) + (", ..." if len(isolated) > 10 else "")
    fate = (
        "they are in no blanket"
        if "target" in bound.arguments
        else "they are kept as isolated nodes"
    )
    warnings.warn(
        f"{learner.__name__}: {len(isolated)} constant column(s) ({shown}) carry no "
        f"information; {fate}",
        UserWarning,
        stacklevel=3,
    )
    everything = dataset.columns
    arguments = bound.arguments
    target = arguments.get("target")
    if isinstance(target, str) and target in isolated:
        return []  # a constant target is independent of everything: its blanket is empty
    for name in ("blacklist", "whitelist"):
        if arguments.get(name) is None:
            continue
        pairs = arc_list(arguments[name], name, everything)
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
    reduced = copy.copy(dataset)
    reduced.isolated = {}
    arguments["data"] = reduced
    result = learner(*bound.args, **bound.kwargs)
    if isinstance(result, list):  # a blanket or neighbour set
        return result
    extra = {"edges": result.edges} if not result.is_directed else {}
    graph = type(result)(everything, result.arcs, learning=dict(result.learning), **extra)
    graph.learning["isolated"] = list(isolated)
    return graph
