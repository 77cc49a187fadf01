"""Features and targets as Gram matrices for the HSIC selectors (HSMB, BAHSIC).

Numeric and boolean columns are standardized; other columns (strings, categories) are
one-hot coded, so two different categories lie at squared distance 2, the mean squared
distance between two draws of a standardized number. A set of features is the
concatenation of its columns, with one Gaussian kernel over it (median-distance width).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import type_of_target

from bnfs._kernels.hsic import centre, delta_gram, gaussian_gram, hsic
from bnfs.select._base import Selector

TASKS = ("auto", "classification", "regression")


def standardized(values: np.ndarray) -> np.ndarray | None:
    """(values - mean) / standard deviation, computed on the values divided by their
    largest magnitude (squares of values near the float range would overflow); None for a
    constant column."""
    magnitude = float(np.abs(values).max(initial=0.0))
    if magnitude == 0.0:
        return None
    values = values / magnitude
    spread = values.std()
    if spread == 0.0:
        return None
    return (values - values.mean()) / spread


def feature_blocks(frame: pd.DataFrame) -> list[np.ndarray]:
    """One contiguous float64 (m, d_i) block per column of ``frame``."""
    blocks = []
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_bool_dtype(column) or pd.api.types.is_numeric_dtype(column):
            values = standardized(column.to_numpy(dtype=np.float64))
            if values is None:
                raise ValueError(
                    f"column {name!r} is constant; a constant column carries no "
                    "information: drop it"
                )
            blocks.append(np.ascontiguousarray(values[:, None]))
        else:
            if column.isna().any():
                raise ValueError(f"column {name!r} of X contains missing values")
            codes, levels = pd.factorize(column.astype(str), sort=True)
            if len(levels) < 2:
                raise ValueError(
                    f"column {name!r} has a single level ({levels[0]!r}); a "
                    "constant column carries no information: drop it"
                )
            blocks.append(np.eye(len(levels))[codes])
    return blocks


def is_classification(y: np.ndarray, task: str) -> bool:
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    if task == "auto":
        return type_of_target(y) != "continuous"
    return task == "classification"


def target_gram(y: np.ndarray, classification: bool) -> np.ndarray:
    """Centred Gram matrix of the target: the delta kernel for classes, a Gaussian kernel
    of the standardized values for regression."""
    if classification:
        return centre(delta_gram(pd.factorize(y)[0]))
    values = standardized(y.astype(np.float64))
    if values is None:
        raise ValueError("y is constant: there is nothing to select features for")
    return centre(gaussian_gram(values[:, None]))


def set_gram(blocks: list[np.ndarray], members) -> np.ndarray:
    """Centred Gaussian Gram matrix of the joint vector of ``members``."""
    return centre(gaussian_gram(np.hstack([blocks[i] for i in members])))


def normalized_hsic(
    a: np.ndarray, b: np.ndarray, norm_a: float | None = None, norm_b: float | None = None
) -> float:
    """HSIC(a, b) / sqrt(HSIC(a, a) HSIC(b, b)) of centred Gram matrices, in [0, 1]."""
    norm_a = np.sqrt(hsic(a, a)) if norm_a is None else norm_a
    norm_b = np.sqrt(hsic(b, b)) if norm_b is None else norm_b
    if norm_a == 0.0 or norm_b == 0.0:
        return 0.0
    return hsic(a, b) / (norm_a * norm_b)


class KernelSelector(Selector):
    """Base of the HSIC selectors: numeric or categorical features, a class or continuous
    target (``task``), no discretizing."""

    _parameter_constraints: dict = {
        **Selector._parameter_constraints,
        "task": [StrOptions(set(TASKS))],
    }

    def _kernel_data(self, X, y) -> tuple[pd.DataFrame, list[np.ndarray], np.ndarray]:
        """(X without its constant columns, one block per column, the target's centred
        Gram matrix)."""
        frame = self._frame(X, reset=True)
        y = self._check_y(y, len(frame), classification=False)
        classification = is_classification(y, self.task)
        if classification:
            y = self._check_y(y, len(frame))
        frame = self._varying(frame)
        return frame, feature_blocks(frame), target_gram(y, classification)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.single_output = True
        return tags
