"""HSMB: features removed when an approximate Markov blanket, found and screened in a
kernel-induced space by HSIC, covers them (Lou & Obradovic)."""

from __future__ import annotations

import numpy as np
from tqdm.auto import tqdm

from bnfs._kernels.hsic import centre, gaussian_gram, hsic
from bnfs._validate import check_int
from bnfs.select._kernel_input import KernelSelector, normalized_hsic, set_gram

__all__ = ["HSMB"]


class HSMB(KernelSelector):
    """Hilbert-Schmidt Markov Blanket feature selection (Lou & Obradovic, ECAI 2010).

    Features are ranked by their dependence on the target. Walking down the ranking, a
    feature's blanket candidate is the ``k`` features ranked (and still kept) before it
    that depend most on it; the feature is removed when the candidate passes the screening
    test, either (1) dep(MB, C) > dep(MB + F, C), which catches irrelevant features, or
    (2) dep(MB, C) >= dep(F, C) and dep(MB, F) >= dep(F, C), which catches redundant ones
    (the paper writes ">"; with it an exact copy of a kept feature would stay).
    One pass; each dependence costs O(m^2) for m rows.

    Dependence is HSIC with Gaussian kernels whose width is the median distance between
    rows (a set of features: one kernel over its joint vector), and the delta kernel for
    class labels. **Deviation:** the paper compares raw HSIC values of sets of different
    sizes; we compare normalized HSIC, HSIC(a, b) / sqrt(HSIC(a, a) HSIC(b, b)). Raw HSIC
    of a joint kernel shrinks as features join it (the median width grows, and every new
    coordinate multiplies the kernel by a factor below one), so test (1) then removes
    relevant features: on Corral-46 raw HSIC kept two of A0, A1, B0, B1, the normalized
    version all four and nothing else, as the paper's Table 1 reports.

    Each feature's centred Gram matrix is computed once; those of kept features are held
    (memory: kept features * m^2 floats).

    Parameters
    ----------
    k : int, default 3
        Size of the blanket candidates (the paper finds 2 or 3 best).
    task : {"auto", "classification", "regression"}, default "auto"
        What y is; "auto" treats float targets that are not whole numbers as regression.
    progress : bool, default False
        Show a progress bar over the features.

    Attributes
    ----------
    selected_ : list of str
        Kept features, most dependent on the target first.
    relevance_ : ndarray of shape (n_features,)
        Normalized HSIC of each feature with the target (0 for constant features, which
        are never selected).
    blankets_ : dict
        Removed feature -> the blanket candidate that covered it.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` is a DataFrame with string column names.

    References
    ----------
    Q. Lou and Z. Obradovic, "Feature selection by approximating the Markov blanket in a
    kernel-induced space", ECAI 2010.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.corral(46, n=500, seed=0)
    >>> sorted(HSMB().fit(frame.drop(columns="Y"), frame["Y"]).selected_)
    ['A0', 'A1', 'B0', 'B1']
    """

    def __init__(self, k: int = 3, *, task: str = "auto", progress: bool = False):
        self.k = k
        self.task = task
        self.progress = progress

    def fit(self, X, y):
        """Rank features by HSIC with y, then remove those an approximate blanket covers."""
        k = check_int(self.k, "k", 1)
        frame, blocks, target = self._kernel_data(X, y)
        features = list(frame.columns)
        target_norm = np.sqrt(hsic(target, target))

        grams, norms = {}, {}  # centred Gram matrices of kept features; all norms
        relevance = np.empty(len(features))
        for i, block in enumerate(blocks):  # one Gram matrix at a time: O(m^2) memory
            gram = centre(gaussian_gram(block))
            norms[i] = np.sqrt(hsic(gram, gram))
            relevance[i] = normalized_hsic(gram, target, norms[i], target_norm)
        order = sorted(range(len(features)), key=lambda i: (-relevance[i], i))

        kept: list[int] = []
        self.blankets_ = {}
        for i in tqdm(
            order, desc="HSMB screening", unit=" features", leave=False, disable=not self.progress
        ):
            gram = centre(gaussian_gram(blocks[i]))
            closeness = {j: normalized_hsic(gram, grams[j], norms[i], norms[j]) for j in kept}
            candidate = sorted(kept, key=lambda j: (-closeness[j], order.index(j)))[:k]
            if candidate and _covered(
                blocks, target, target_norm, i, gram, norms[i], relevance[i], candidate
            ):
                self.blankets_[features[i]] = [features[j] for j in candidate]
                continue
            kept.append(i)
            grams[i] = gram
        self.relevance_ = np.array(
            [relevance[features.index(c)] if c in features else 0.0 for c in self._columns]
        )
        self.selected_ = [features[i] for i in kept]
        self._set_support(self.selected_)
        return self


def _covered(blocks, target, target_norm, feature, gram, norm, relevance, candidate) -> bool:
    """The screening test of Section 3.2 on ``feature`` and its blanket candidate."""
    blanket = set_gram(blocks, candidate)
    blanket_norm = np.sqrt(hsic(blanket, blanket))
    blanket_to_target = normalized_hsic(blanket, target, blanket_norm, target_norm)
    with_feature = set_gram(blocks, candidate + [feature])
    if blanket_to_target > normalized_hsic(with_feature, target, None, target_norm):
        return True  # (1): adding the feature loses dependence on the target
    # (2), with ties covered so that an exact copy of a kept feature goes
    return (
        blanket_to_target >= relevance
        and normalized_hsic(blanket, gram, blanket_norm, norm) >= relevance
    )
