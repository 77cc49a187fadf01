"""Encoding a complete DataFrame held in memory into what one :class:`~bnfs.Dataset` holds,
each column typed by the rule of :mod:`bnfs.tables._kinds` (the block-by-block encoder of
files, :mod:`bnfs.tables._chunks`, applies the same rule)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from bnfs.tables._columns import (
    ConstantColumnError,
    continuous_values,
    encode_column,
    integer_codes,
)
from bnfs.tables._kinds import (
    date_hint,
    integer_identifier,
    integer_is_discrete,
    numeric_or_refuse,
    overrides,
    refuse_dates,
    text_identifier,
    warn_identifiers,
)

__all__ = ["encode_frame"]


def encode_frame(frame: pd.DataFrame, names, max_levels: int, discrete, continuous, constant):
    """The fields of ``Dataset._set`` for a complete ``frame`` with column ``names``: each
    column discrete, continuous, constant (set aside with ``constant="isolate"``, else
    refused) or an identifier (set aside with a warning), as :mod:`bnfs.tables._kinds`
    says unless ``discrete`` or ``continuous`` names it."""
    discrete, continuous = overrides(discrete, continuous, names)
    n_rows = frame.shape[0]
    disc_codes, disc_names, states, floats, cont_names = [], [], {}, [], []
    isolated, identifiers, kinds, whole = {}, {}, {}, []
    encoded = integer_codes(frame, names, int(max_levels))
    for j, name in enumerate(names):
        col = frame.iloc[:, j]
        try:
            refuse_dates(name, col)
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
    )


def _is_integer(dtype) -> bool:
    return pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _typed(name, col, encoded, max_levels, discrete, continuous, n_rows):
    """(kind, result) of one column: codes and states for a discrete one, float values for
    a continuous one, why for an identifier."""
    if name in continuous:
        return "continuous", continuous_values(name, pd.Series(numeric_or_refuse(name, col)))
    if pd.api.types.is_float_dtype(col.dtype) and name not in discrete:
        return "continuous", continuous_values(name, col)
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
        return "identifier", f"{len(states)} distinct values on {n_rows} rows" + date_hint(states)
    return "discrete", (codes, states)
