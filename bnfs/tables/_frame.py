"""Encoding a complete DataFrame held in memory into what one :class:`~bnfs.Dataset` holds,
each column typed by the rule of :mod:`bnfs.tables._kinds` (the block-by-block encoder of
files, :mod:`bnfs.tables._chunks`, applies the same rule)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from bnfs.tables._columns import (
    ConstantColumnError,
    column_names,
    continuous_values,
    encode_column,
    integer_codes,
)
from bnfs.tables._kinds import (
    date_hint,
    float_codes,
    integer_identifier,
    integer_is_discrete,
    numeric_or_refuse,
    overrides,
    refuse_dates,
    text_identifier,
    warn_identifiers,
    whole_identifier,
)

__all__ = ["encode_frame", "typed_incomplete", "carried_overrides", "OVERRIDES"]


def encode_frame(frame: pd.DataFrame, names, max_levels: int, discrete, continuous, constant):
    """The fields of ``Dataset._set`` for a complete ``frame`` with column ``names``: each
    column discrete, continuous, constant (set aside with ``constant="isolate"``, else
    refused) or an identifier (set aside with a warning), as :mod:`bnfs.tables._kinds`
    says unless ``discrete`` or ``continuous`` names it."""
    discrete, continuous = overrides(discrete, continuous, names)
    carried = carried_overrides(frame, names)
    discrete |= {n for n, k in carried.items() if k == "discrete" and n not in continuous}
    continuous |= {n for n, k in carried.items() if k == "continuous" and n not in discrete}
    n_rows = frame.shape[0]
    disc_codes, disc_names, states, floats, cont_names = [], [], {}, [], []
    isolated, identifiers, kinds, whole, coded = {}, {}, {}, [], []
    encoded = integer_codes(frame, names, int(max_levels))
    for j, name in enumerate(names):
        col = frame.iloc[:, j]
        try:
            refuse_dates(name, col, text=name not in discrete)
            if pd.api.types.is_complex_dtype(col.dtype):
                raise TypeError(f"column {name!r} has complex values")
            kind, result = _typed(name, col, encoded, max_levels, discrete, continuous, n_rows)
        except ConstantColumnError:
            if constant != "isolate":
                raise
            value = col.iloc[0]
            isolated[name] = value.item() if isinstance(value, np.generic) else value
            kinds[name] = "constant"
            continue
        kinds[name] = kind
        if kind == "identifier":
            identifiers[name] = result
        elif kind == "discrete":
            disc_codes.append(result[0])
            states[name] = result[1]
            disc_names.append(name)
            if pd.api.types.is_float_dtype(col.dtype) and name not in discrete:
                coded.append(name)  # a float column of few values: a code by the rule
        else:
            floats.append(result)
            cont_names.append(name)
            if _is_integer(col.dtype) and name not in continuous:  # typed so by the rule
                whole.append(name)
    warn_identifiers(identifiers, len(names))
    return dict(
        isolated=isolated,
        columns=tuple(n for n in names if kinds[n] != "identifier"),
        n_rows=n_rows,
        disc_names=disc_names,
        disc_codes=disc_codes,
        states=states,
        cont_names=cont_names,
        floats=floats,
        kinds=kinds,
        whole_numbers=tuple(whole),
        float_codes=tuple(coded),
    )


def _is_integer(dtype) -> bool:
    return pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _typed(name, col, encoded, max_levels, discrete, continuous, n_rows):
    """(kind, result) of one column: codes and states for a discrete one, float values for
    a continuous one, why for an identifier."""
    if name in continuous:
        return "continuous", continuous_values(name, pd.Series(numeric_or_refuse(name, col)))
    if pd.api.types.is_float_dtype(col.dtype) and name not in discrete:
        values = continuous_values(name, col)
        codes = float_codes(values, max_levels)
        if codes is not None:
            return "discrete", codes
        if whole_identifier(values):  # a row number stored as floats (it had gaps)
            return (
                "identifier",
                f"whole numbers, {np.unique(values).size} distinct on {n_rows} rows",
            )
        return "continuous", values
    if _is_integer(col.dtype) and name not in discrete:
        if name in encoded:
            levels = len(encoded[name][1])
        else:
            levels = int(col.nunique())
            if levels < 2:
                return "discrete", encode_column(name, col, max_levels)  # names the constant
        if integer_is_discrete(levels, n_rows, max_levels):
            return "discrete", encoded[name] if name in encoded else encode_column(
                name, col, max_levels
            )
        values = col.to_numpy(dtype=np.float64)
        if integer_identifier(values, levels):
            return "identifier", f"integers, {levels} distinct on {n_rows} rows"
        return "continuous", values
    aside = functools.partial(text_identifier, max_levels=max_levels)
    codes, states = encode_column(
        name, col, max_levels, identifier=None if name in discrete else aside
    )
    if codes is None:
        why = f"{len(states)} distinct values on {n_rows} rows"
        if len(states) > max_levels:
            why = f"{len(states)} levels, more than max_levels={max_levels}"
        return "identifier", why + date_hint(states)
    return "discrete", (codes, states)


#: where a frame with gaps carries the ``discrete=``/``continuous=`` overrides it was cast
#: for (the command line's ``--discrete``/``--continuous``), read by :func:`typed_incomplete`
OVERRIDES = "bnfs_kinds"


def carried_overrides(frame: pd.DataFrame, names) -> dict:
    """The overrides (name -> ``"discrete"`` or ``"continuous"``) that ``frame`` carries in
    ``frame.attrs[OVERRIDES]`` for its columns ``names``: the command line casts the
    columns ``--discrete``/``--continuous`` name and marks them so, and the readers of
    a frame (Dataset, the learners' door on data with gaps) honour the mark."""
    carried = frame.attrs.get(OVERRIDES) if isinstance(frame.attrs, dict) else None
    if not isinstance(carried, dict):
        return {}
    present = set(names)
    return {n: k for n, k in carried.items() if n in present and k in ("discrete", "continuous")}


def typed_incomplete(frame: pd.DataFrame, max_levels: int = 256):
    """The typing rule of :func:`encode_frame` for a frame with gaps, each column judged on
    its observed values: ``(frame, kinds, notes)``, the frame without the identifiers (set
    aside with the one warning), its numeric codes as categories with the states a complete
    column would get (a float 0/1 flag has states 0 and 1) and its other numbers as floats,
    so that every reader of incomplete data (structural EM, available-case tests) types
    them alike; ``kinds`` as :attr:`Dataset.kinds <bnfs.Dataset>`, ``notes`` the
    ``whole_numbers`` and ``float_codes`` as a Dataset names them. Dates are refused, text
    past ``max_levels`` levels too unless it is an identifier, as on complete rows. The
    overrides a frame carries in ``frame.attrs[OVERRIDES]`` (name -> kind) stand."""
    names = column_names(frame.columns)
    asked = carried_overrides(frame, names)
    discrete = {n for n, k in asked.items() if k == "discrete"}
    continuous = {n for n, k in asked.items() if k == "continuous"}
    kinds, identifiers, columns, whole, coded = {}, {}, {}, [], []
    for j, name in enumerate(names):
        col = frame.iloc[:, j]
        observed = col.dropna()
        if observed.empty:  # left to the learner, which names it
            kinds[name], columns[name] = "discrete", col
            continue
        refuse_dates(name, col, text=name not in discrete)
        if pd.api.types.is_complex_dtype(col.dtype):
            raise TypeError(f"column {name!r} has complex values")
        try:
            kind, result = _typed(
                name, observed, {}, max_levels, discrete, continuous, observed.size
            )
        except ConstantColumnError:
            kinds[name], columns[name] = "constant", col  # the door isolates it
            continue
        kinds[name] = kind
        numeric = pd.api.types.is_numeric_dtype(col.dtype) and not isinstance(
            col.dtype, pd.CategoricalDtype
        )
        if kind == "identifier":
            identifiers[name] = result
            continue
        if kind == "continuous":
            values = col.to_numpy(dtype=np.float64, na_value=np.nan)
            columns[name] = pd.Series(values, index=col.index, name=col.name)
            observed_values = values[~np.isnan(values)]
            if name not in continuous and (observed_values == np.round(observed_values)).all():
                whole.append(name)  # whole numbers with many values
            continue
        if numeric and not pd.api.types.is_bool_dtype(col.dtype):
            codes = np.full(len(col), -1, dtype=np.int64)
            codes[col.notna().to_numpy()] = result[0]
            columns[name] = pd.Series(
                pd.Categorical.from_codes(codes, categories=list(result[1])),
                index=col.index,
                name=col.name,
            )
            if pd.api.types.is_float_dtype(col.dtype) and name not in discrete:
                coded.append(name)
        else:
            columns[name] = col
    warn_identifiers(identifiers, len(names))
    kept = [j for j, name in enumerate(names) if name not in identifiers]
    typed = frame.iloc[:, kept].copy()
    for position, j in enumerate(kept):
        typed.isetitem(position, columns[names[j]])
    typed.attrs = {}
    return typed, kinds, {"whole_numbers": tuple(whole), "float_codes": tuple(coded)}
