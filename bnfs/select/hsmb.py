"""HSMB: features removed when an approximate Markov blanket, found and screened in a
kernel-induced space by HSIC, covers them (Lou & Obradovic)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import stats
from sklearn.utils._param_validation import Interval

from bnfs._kernels.hsic import centre, gaussian_gram, hsic, median_width2, squared_distances
from bnfs._kernels.hsic_null import permuted_dependence
from bnfs._kernels.hsic_trials import set_distances, trial_columns, trial_dependences, trial_measure
from bnfs._progress import tqdm
from bnfs.select._base import keep_parameters, random_generator
from bnfs.select._kernel_input import KernelSelector, normalized_hsic, set_gram

__all__ = ["HSMB"]


#: the most permutations per test: MORE_DRAWS times as many draws are held at once
MAX_PERMUTATIONS = 100_000


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
    class labels.

    **Deviation 1, normalized HSIC.** The paper compares raw HSIC values of sets of
    different sizes; we compare normalized HSIC, HSIC(a, b) / sqrt(HSIC(a, a) HSIC(b, b)).
    Raw HSIC of a joint kernel shrinks as features join it (the median width grows, and
    every new coordinate multiplies the kernel by a factor below one), so test (1) then
    removes relevant features: on Corral-46 raw HSIC kept two of A0, A1, B0, B1, the
    normalized version all four and nothing else, as the paper's Table 1 reports.

    **Deviation 2, test (1) calibrated.** A joint kernel also dilutes when a *relevant*
    feature joins it: on Regression-22, {x1, x2} depends on y less than {x1} alone (0.29
    against 0.38), so the raw test removes x2 and the paper's {x1, x2} becomes {x1}. A
    feature now passes test (1) only if it also fails to beat its own conditional
    permutations (rows shuffled among rows that agree on the blanket, so its dependence
    on the blanket stays): the dilution any feature causes is the null, and x2 stands
    7-11 standard deviations above it. ``permutations=0`` gives the paper's raw test.

    **Deviation 3, an exchange pass.** The single pass keeps whichever of two near-copies
    ranks first on its own, on a few hundred rows often the noisy copy (Corral-46's A1_7,
    equal to A1 15 times in 16), which then covers the original. After the pass each kept
    feature in turn is exchanged for the one it covered that raises the dependence of the
    whole kept set on the target most (under a kernel of half the median width, which
    resolves the class's interactions), until a round exchanges none. With both, fresh draws of 256, 500 and 1,000 rows give the
    paper's Tables 1-2 sets: the four Corral sets on 60 of 60 draws, {x1, x2} on
    Regression-22/38/138 (``examples/hsmb_tables.py``).

    Memory is bounded by the kept features, not all of them: each feature's centred Gram
    matrix is computed when its turn comes and held only if it is kept (kept features *
    m^2 floats). A permutation draw, and each trial of the exchange pass, is one fused
    compiled pass over the m^2 pairs, without storing a Gram matrix.

    Parameters
    ----------
    k : int, default 3
        Size of the blanket candidates (the paper finds 2 or 3 best).
    permutations : int, default 20
        Conditional permutations per test (1) before its clear cases are settled; the
        draws stop early once enough reach the observed value (Besag & Clifford), and
        borderline cases go on up to 100 times as many. 0: the paper's raw test.
    alpha : float, default 0.05
        Level of the permutation test, Bonferroni-corrected over the features.
    task : {"auto", "classification", "regression"}, default "auto"
        What y is; "auto" treats float targets that are not whole numbers as regression.
    random_state : int, numpy Generator or RandomState, or None, default 0
        Seeds the permutations.
    progress : bool, default False
        Show a progress bar over the features.
    max_time : float, optional
        Seconds for the screening and the exchange pass, checked between features and
        between exchanges: past it, the features kept so far (those not yet screened, all
        less relevant, are dropped) with a RuntimeWarning and ``stopped_``.

    Attributes
    ----------
    selected_ : list of str
        Kept features, most dependent on the target first.
    relevance_ : ndarray of shape (n_features,)
        Normalized HSIC of each feature with the target (0 for constant features, which
        are never selected).
    blankets_ : dict
        Removed feature -> the blanket candidate that covered it.
    stopped_ : str or None
        Why the fit stopped early ("max_time reached", "interrupted"), or None.
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

    _parameter_constraints: dict = {
        **KernelSelector._parameter_constraints,
        "k": [Interval(Integral, 1, None, closed="left")],
        "permutations": [Interval(Integral, 0, MAX_PERMUTATIONS, closed="both")],
        "alpha": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(
        self,
        k: int = 3,
        *,
        permutations: int = 20,
        alpha: float = 0.05,
        task: str = "auto",
        random_state=0,
        progress: bool = False,
        max_time: float | None = None,
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Rank features by HSIC with y, then remove those an approximate blanket covers."""
        self._validate_params()
        k, permutations, alpha = int(self.k), int(self.permutations), float(self.alpha)
        rng = random_generator(self.random_state)
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

        rank = {i: r for r, i in enumerate(order)}
        null = _Null(permutations, alpha, len(features), rng)
        kept: list[int] = []
        covered_by: dict[int, list[int]] = {}  # removed feature -> its blanket candidate
        with self._timed() as budget:
            for i in tqdm(
                order,
                desc="HSMB screening",
                unit=" features",
                leave=False,
                disable=not self.progress,
            ):
                if kept and budget.spent():  # the rest, less relevant, go: neither kept nor covered
                    break
                gram = centre(gaussian_gram(blocks[i]))
                closeness = {j: normalized_hsic(gram, grams[j], norms[i], norms[j]) for j in kept}
                candidate = sorted(kept, key=lambda j: (-closeness[j], rank[j]))[:k]
                if candidate and _covered(
                    blocks,
                    target,
                    target_norm,
                    i,
                    gram,
                    norms[i],
                    relevance[i],
                    candidate,
                    null,
                ):
                    covered_by[i] = candidate
                    continue
                kept.append(i)
                grams[i] = gram
            kept = _exchange(blocks, target, kept, covered_by, relevance, budget)
        self.blankets_ = {features[f]: [features[b] for b in c] for f, c in covered_by.items()}
        position = {name: i for i, name in enumerate(features)}
        self.relevance_ = np.array(
            [relevance[position[c]] if c in position else 0.0 for c in self._columns]
        )
        self.selected_ = [features[i] for i in kept]
        self._set_support(self.selected_)
        return self


#: Draws of a borderline test (1), as a multiple of ``permutations``.
MORE_DRAWS = 100


class _Null:
    """What joining a blanket gives a feature that carries nothing about the target beyond
    the blanket: the feature's rows permuted within cells of rows that agree on the blanket
    (a conditional permutation: each blanket column cut into at most 4 quantile bins), so
    the feature keeps its dependence on the blanket and loses any on the target given it.

    The observed dependence is compared with the permuted ones at ``alpha``,
    Bonferroni-corrected over the features screened, by a sequential test (Besag &
    Clifford 1991, "Sequential Monte Carlo p-values", Biometrika 78):

    - draws stop as soon as so many reach the observed value that the test cannot reject,
      which for an irrelevant feature is after a few draws;
    - after ``permutations`` draws, the clear cases are settled by a normal bound (below
      half of it, or above twice it);
    - the rest go on to ``MORE_DRAWS * permutations`` draws. Their p-value is counted,
      (e + 1) / (draws + 1) with e the draws at or above the observed value, when that can
      reach the level; on wide data (a level below 1 / draws) the bound is a skewed
      (Pearson type III) fit to all the draws, as such nulls are skewed to the right
      (skewness about 0.5-0.7) and a normal bound admits irrelevant features."""

    def __init__(self, permutations: int, alpha: float, n_tests: int, rng: np.random.Generator):
        self.permutations = permutations
        self.level = alpha / max(n_tests, 1)
        self.normal = float(stats.norm.isf(self.level))
        self.rng = rng

    def exceeded(self, blocks, candidate, feature, observed, target, target_norm) -> bool:
        """True when ``observed``, the dependence of candidate + feature on the target, is
        above the bound of the permuted values (the sequential test above)."""
        if self.permutations < 2:
            return False
        joint = np.hstack([blocks[j] for j in candidate])
        cells = _cells(joint)
        joint_d2 = squared_distances(joint)
        column = np.ascontiguousarray(blocks[feature])
        scale = -0.5 / median_width2(joint_d2 + squared_distances(column))  # observed width
        m = len(joint)
        most = MORE_DRAWS * self.permutations
        # a count-based p-value (e + 1) / (most + 1), e the draws at or above the observed
        # value, can reach the level only if this is at least 1
        countable = self.level * (most + 1) >= 1.0
        # this many such draws settle the test: the feature is not significant
        enough = max(1, int(np.floor(self.level * (most + 1))))
        null = np.empty(most)
        reached = 0
        for done in range(most):
            rows = _permute_within(cells, self.rng)
            inner, norm2 = permuted_dependence(joint_d2, column, rows, scale, target)
            null[done] = inner / (np.sqrt(max(norm2, 1e-300)) * (m - 1) * target_norm)
            reached += null[done] >= observed
            if reached >= enough:
                return False
            if done + 1 == self.permutations:
                first = null[: done + 1]
                spread = first.std(ddof=1)
                if spread == 0.0:
                    return bool(observed > first.mean())
                z = (observed - first.mean()) / spread
                if z < self.normal / 2 or z > 2 * self.normal:
                    return bool(z > self.normal)
        if countable:
            return (reached + 1) / (most + 1) <= self.level
        bound = stats.pearson3.isf(
            self.level, stats.skew(null), loc=null.mean(), scale=null.std(ddof=1)
        )
        return bool(observed > bound)


def _cells(joint: np.ndarray) -> np.ndarray:
    """A cell id per row: the row's values on each column, cut into at most 4 quantile
    bins when the column has more distinct values."""
    codes = np.zeros(len(joint), dtype=np.int64)
    for column in joint.T:
        levels = np.unique(column)
        if len(levels) > 4:
            cuts = np.unique(np.quantile(column, [0.25, 0.5, 0.75]))
            code = np.searchsorted(cuts, column, side="left")
            size = len(cuts) + 1
        else:
            code = np.searchsorted(levels, column)
            size = len(levels)
        codes = codes * size + code
    return np.unique(codes, return_inverse=True)[1]


def _permute_within(cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row indices permuted within each cell."""
    order = np.argsort(cells, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(cells[order]) != 0, True])
    rows = order.copy()
    for a, b in zip(starts[:-1], starts[1:]):
        rows[a:b] = order[a:b][rng.permutation(b - a)]
    out = np.empty_like(rows)
    out[order] = rows
    return out


def _exchange(blocks, target, kept, covered_by, relevance, budget) -> list[int]:
    """Exchange each kept feature in turn for the one it covered that raises the
    dependence of the whole kept set on the target most, until a round of the kept
    features exchanges none.

    The single pass keeps whichever of two near-copies ranks first on its own; on a few
    hundred rows that is often the noisy copy (Corral-46's A1_7, equal to A1 15 times in
    16). Together with the other kept features the original explains the target better,
    which a joint dependence sees if its kernel is narrow enough to resolve interactions:
    half the median distance (at the median width, the sets with A1 and with A1_7 score
    alike on some 256-row draws). ``covered_by`` (removed -> its blanket) is updated: the
    exchanged feature becomes covered by the one that replaced it. The pass stops, with
    the exchanges made, once ``budget`` is spent.

    A member's rivals are tried in one compiled call (:func:`trial_dependences`), which
    adds each rival's distances to those of the members that stay."""
    if len(kept) == 0:
        return kept
    involved = sorted(set(kept) | set(covered_by))
    slot = {feature: s for s, feature in enumerate(involved)}
    columns = trial_columns([blocks[f] for f in involved])
    measure = trial_measure(target, 0.5, normalized=True)

    def dependences(position, rivals):
        """The kept set's dependence with the member at ``position`` replaced by each
        rival (with itself, for ``rivals=[member]``)."""
        out = np.empty(len(rivals))
        trial_dependences(
            set_distances(blocks, kept[:position] + kept[position + 1 :]),
            1.0,
            np.array([slot[r] for r in rivals], dtype=np.int64),
            columns,
            measure,
            np.inf,
            out,
        )
        return out

    current = dependences(0, [kept[0]])[0]
    unchanged = 0  # members in a row tried without an exchange
    position = 0
    while unchanged < len(kept) and not budget.spent():
        member = kept[position]
        rivals = sorted(
            (r for r, blanket in covered_by.items() if member in blanket),
            key=lambda r: (-relevance[r], r),
        )
        values = dependences(position, rivals) if rivals else np.empty(0)
        if len(values) and values.max() > current + 1e-12:
            best = int(np.argmax(values))  # the first of equals: the most relevant
            rival = rivals[best]
            blanket = covered_by.pop(rival)
            covered_by[member] = [rival if b == member else b for b in blanket]
            for other, others in covered_by.items():
                covered_by[other] = [rival if b == member else b for b in others]
            kept = kept[:position] + [rival] + kept[position + 1 :]
            current = values[best]
            unchanged = 0
        else:
            unchanged += 1
        position = (position + 1) % len(kept)
    return kept


def _covered(
    blocks, target, target_norm, feature, gram, norm, relevance, candidate, null: _Null
) -> bool:
    """The screening test of Section 3.2 on ``feature`` and its blanket candidate."""
    blanket = set_gram(blocks, candidate)
    blanket_norm = np.sqrt(hsic(blanket, blanket))
    blanket_to_target = normalized_hsic(blanket, target, blanket_norm, target_norm)
    with_feature = normalized_hsic(
        set_gram(blocks, candidate + [feature]), target, None, target_norm
    )
    # (1): joining the blanket does not raise the dependence on the target. A joint kernel
    # dilutes as it grows, so a relevant feature can lower it too; the feature is irrelevant
    # only if a permuted copy of it lowers it as little (or less).
    if blanket_to_target > with_feature and not null.exceeded(
        blocks, candidate, feature, with_feature, target, target_norm
    ):
        return True
    # (2), with ties covered so that an exact copy of a kept feature goes
    return (
        blanket_to_target >= relevance
        and normalized_hsic(blanket, gram, blanket_norm, norm) >= relevance
    )
