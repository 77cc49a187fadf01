"""SLFS: structure learning for feature selection. A tree Bayesian network (TBN) rooted
at the class is grown feature by feature under a likelihood-minus-redundancy criterion;
its nodes are the selected features, and it doubles as a Bayesian-network classifier."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.stats import chi2
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from bnfs._warn import user_stacklevel
from bnfs.graphs.graph import DAG
from bnfs.select._base import DiscreteSelector, EmptySelectionWarning, keep_parameters
from bnfs.tables._binning import entropy_of_counts
from bnfs.tables._data import Dataset

__all__ = ["SLFS", "TBNClassifier"]

ORDERS = ("columns", "relevance")


class _Information:
    """Entropies, mutual and conditional mutual information (bits) of columns of one
    discrete dataset, with joint entropies cached."""

    def __init__(self, data: Dataset):
        self.codes = [data.codes[:, j].astype(np.int64) for j in range(data.n_vars)]
        self.arity = [data.arity(name) for name in data.names]
        self._cache: dict[tuple[int, ...], float] = {}

    def entropy(self, *columns: int) -> float:
        key = tuple(sorted(set(columns)))
        if key not in self._cache:
            joint, size = np.zeros(len(self.codes[0]), dtype=np.int64), 1
            for j in key:
                joint = joint * self.arity[j] + self.codes[j]
                size *= self.arity[j]
            _, counts = np.unique(joint, return_counts=True)
            self._cache[key] = float(entropy_of_counts(counts[None, :])[0])
        return self._cache[key]

    def mi(self, a: int, b: int) -> float:
        return max(0.0, self.entropy(a) + self.entropy(b) - self.entropy(a, b))

    def cmi(self, a: int, b: int, given: int) -> float:
        """I(a; b | given)."""
        return max(
            0.0,
            self.entropy(a, given)
            + self.entropy(b, given)
            - self.entropy(a, b, given)
            - self.entropy(given),
        )


class SLFS(DiscreteSelector):
    """Structure Learning for Feature Selection: grow a tree Bayesian network (TBN) rooted
    at the class and keep its nodes.

    The TBN maximizes J = sum_f [I(f; pa f) - H(f)] + lam * sum_f [I(f; Y) - I(f; Y | pa f)]
    (the paper's criterion (7)). Features arrive one at a time:

    * **irrelevance** (8): a feature whose information about the class is zero, tested by
      G² = 2 N ln 2 I(f; Y) against chi-square at level ``alpha``, is removed;
    * **connect to the class** (9): f becomes a child of Y when that gains more J than
      hanging it under the best child g of Y, ``I(f; Y) + lam I(f; Y | g) > I(f; g)``,
      g chosen by (10) as the maximizer of ``I(f; g) - lam I(f; Y | g)``;
    * **parent search** (11)-(12): otherwise f walks down from g, moving to the best child
      of the current node while that child beats the node, and hangs under the node where
      it stops; a node takes at most ``max_children`` (NCH) children, and a feature that
      would sit deeper than ``max_depth`` (MAXDEPTH, Y's children at depth 1) is removed;
    * **swap** (13): if f is more relevant than its new parent p and shields p from the
      class better than p shields f, I(p; Y | f) < I(f; Y | p), f takes p's place and p
      (with p's other children) hangs under f.

    **Interpretation:** the paper prints (8) and (9) with entropy terms that do not
    cancel, which would call every feature with I(f; Y) < H(f) irrelevant; we derive both
    rules from J, where H(f) appears on both sides and cancels, and test I(f; Y) = 0 (the
    paper's formal definition of irrelevance) with a G² test.

    Parameters
    ----------
    lam : float, default 1.0
        Weight of the relevance term of J (the paper's λ).
    max_depth : int, default 2
        MAXDEPTH.
    max_children : int, default 15
        NCH, children per feature node (the class takes any number).
    alpha : float, default 0.01
        Level of the irrelevance test.
    order : {"columns", "relevance"}, default "columns"
        Arrival order of the features: as given (the paper's streaming setting), or by
        decreasing I(f; Y).
    discretizer : {"quantile", "interval", "mdl"}, default "mdl"
        The paper discretizes by Fayyad & Irani's MDL rule.
    n_bins : int, default 3
    if_empty : {"keep_all", "keep_none", "raise"}, default "keep_all"
        When no feature is selected (an :class:`~bnfs.select.EmptySelectionWarning` says so
        and why): pass every feature on, so that a pipeline's next step can still fit;
        pass none on (scikit-learn's behaviour); or raise ValueError.
    max_time : float, optional
        Seconds for growing the tree, checked between arrivals: past it, the tree so far
        (the features yet to arrive are removed as ``"not reached"``) with a
        RuntimeWarning.

    Attributes
    ----------
    selected_ : list of str
        Nodes of the TBN, in column order.
    tree_ : DAG
        The TBN: the class, named ``class_name_``, and the selected features.
    parent_ : dict
        Selected feature -> its parent in the TBN (the class or a feature).
    removed_ : dict
        Removed feature -> ``"irrelevant"``, ``"too deep"`` or ``"not reached"``.
    stopped_ : str or None
        Why the fit stopped early ("max_time reached", "interrupted"), or None.
    class_name_ : str
    data_ : Dataset
        The discrete training data with the class (its states and cut points code new
        rows for :class:`TBNClassifier`).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` is a DataFrame with string column names.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.corral(7, n=2000, seed=0)
    >>> slfs = SLFS(max_depth=1).fit(frame.drop(columns="Y"), frame["Y"])
    >>> slfs.selected_, slfs.removed_["I"]
    (['A0', 'A1', 'B0', 'B1', 'R'], 'irrelevant')
    """

    _parameter_constraints: dict = {
        **DiscreteSelector._parameter_constraints,
        "lam": [Interval(Real, 0, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "max_children": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="both")],
        "order": [StrOptions(set(ORDERS))],
    }

    def __init__(
        self,
        lam: float = 1.0,
        *,
        max_depth: int = 2,
        max_children: int = 15,
        alpha: float = 0.01,
        order: str = "columns",
        discretizer: str = "mdl",
        n_bins: int = 3,
        if_empty: str = "keep_all",
        max_time: float | None = None,
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Grow the TBN over the features of X and keep its nodes."""
        self._validate_params()
        lam, alpha = float(self.lam), float(self.alpha)
        max_depth, max_children = int(self.max_depth), int(self.max_children)
        data, features, target = self._discrete_data(X, y)
        self.data_ = data  # the discrete training data (codes, states and cut points)
        self.target_ = target
        name = getattr(y, "name", None)
        self.class_name_ = name if isinstance(name, str) and name not in features else target
        info = _Information(data)
        y_index = data.index(target)
        grower = _TreeGrower(info, y_index, lam, max_depth, max_children)
        relevance = [info.mi(j, y_index) for j in range(len(features))]
        arrivals = list(range(len(features)))
        if self.order == "relevance":
            arrivals.sort(key=lambda j: (-relevance[j], j))
        self.removed_ = {}
        r_class = data.arity(target)
        with self._timed() as budget:
            for arrival, j in enumerate(arrivals):
                if arrival > 0 and budget.spent():  # the first always arrives
                    self.removed_[features[j]] = "not reached"
                    continue
                df = (data.arity(features[j]) - 1) * (r_class - 1)
                statistic = 2.0 * len(data) * np.log(2.0) * relevance[j]
                if chi2.sf(statistic, df) > alpha:
                    self.removed_[features[j]] = "irrelevant"
                elif not grower.add(j):
                    self.removed_[features[j]] = "too deep"
        kept = sorted(grower.parent)
        self.parent_ = {
            features[j]: (self.class_name_ if p == y_index else features[p])
            for j, p in grower.parent.items()
        }
        self.tree_ = DAG(
            [self.class_name_] + [features[j] for j in kept],
            arcs=[(p, f) for f, p in self.parent_.items()],
            learning={
                "algorithm": "slfs",
                "lam": lam,
                "max_depth": max_depth,
                "max_children": max_children,
            },
        )
        self.selected_ = [features[j] for j in kept]
        self._set_support(self.selected_)
        return self


class _TreeGrower:
    """The TBN under construction: parent and children of every node by column index."""

    def __init__(
        self, info: _Information, root: int, lam: float, max_depth: int, max_children: int
    ):
        self.info, self.root, self.lam = info, root, lam
        self.max_depth, self.max_children = max_depth, max_children
        self.parent: dict[int, int] = {}
        self.children: dict[int, list[int]] = {root: []}
        self.depth: dict[int, int] = {root: 0}

    def closeness(self, f: int, g: int) -> float:
        """I(f; g) - lam I(f; Y | g): what hanging f under g gains in J, up to terms that
        do not depend on g (criterion (10))."""
        return self.info.mi(f, g) - self.lam * self.info.cmi(f, self.root, g)

    def best(self, f: int, nodes: list[int]) -> int:
        return max(nodes, key=lambda g: (self.closeness(f, g), -g))

    def add(self, f: int) -> bool:
        """Place feature f; False when it would sit deeper than max_depth."""
        top = self.children[self.root]
        if not top:
            self._attach(f, self.root)
            return True
        g = self.best(f, top)
        info = self.info
        if info.mi(f, self.root) + self.lam * info.cmi(f, self.root, g) > info.mi(f, g):  # (9)
            self._attach(f, self.root)
            return True
        node = g
        while True:
            if self.depth[node] + 1 > self.max_depth:
                return False
            kids = self.children[node]
            below = self.best(f, kids) if kids else None
            if below is None or (
                self.closeness(f, node) > self.closeness(f, below)  # (11)
                and len(kids) < self.max_children
            ):
                self._attach(f, node)
                self._maybe_swap(f, node)
                return True
            node = below

    def _attach(self, f: int, p: int) -> None:
        self.parent[f] = p
        self.children[p].append(f)
        self.children[f] = []
        self.depth[f] = self.depth[p] + 1

    def _maybe_swap(self, f: int, p: int) -> None:
        """Rule (13): f replaces its parent p, which becomes f's child."""
        info, y = self.info, self.root
        if not (info.mi(f, y) > info.mi(p, y) and info.cmi(p, y, f) < info.cmi(f, y, p)):
            return
        grand = self.parent[p]
        siblings = self.children[grand]
        siblings[siblings.index(p)] = f
        self.parent[f] = grand
        self.depth[f] = self.depth[p]
        moved = [c for c in self.children[p] if c != f] + [p]
        self.children[f] = moved
        self.children[p] = []
        for c in moved:
            self.parent[c] = f
        self.depth[p] = self.depth[f] + 1


class TBNClassifier(ClassifierMixin, BaseEstimator):
    """The TBN that :class:`SLFS` grows, used as a Bayesian-network classifier (the paper's
    BNSLFS).

    Every selected feature depends on the class and on its tree parent (the TBN augmented
    with class arcs, as in tree-augmented naive Bayes; in the bare tree, features below the
    first level would be independent of the class given their parents and could not
    inform a prediction). Conditional probability tables are estimated with Laplace
    smoothing; P(y | x) is proportional to P(y) times the product of P(f | y, parent).

    Parameters
    ----------
    lam, max_depth, max_children, alpha, order, discretizer, n_bins, max_time
        As for :class:`SLFS`.
    smoothing : float, default 1.0
        Pseudo-count added to every cell of every table.

    Attributes
    ----------
    selector_ : SLFS
    network_ : DAG
        The class with an arc to every selected feature, plus the tree arcs.
    classes_ : ndarray
    stopped_ : str or None
        Why growing the tree stopped early (``max_time``), as ``selector_.stopped_``.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.corral(7, n=2000, seed=0)
    >>> X, y = frame.drop(columns="Y"), frame["Y"]
    >>> clf = TBNClassifier().fit(X, y)
    >>> round(clf.score(X, y), 2), clf.predict_proba(X.iloc[:1]).shape
    (0.9, (1, 2))
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in SLFS._parameter_constraints.items() if k != "if_empty"},
        "smoothing": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        lam: float = 1.0,
        *,
        max_depth: int = 2,
        max_children: int = 15,
        alpha: float = 0.01,
        order: str = "columns",
        discretizer: str = "mdl",
        n_bins: int = 3,
        smoothing: float = 1.0,
        max_time: float | None = None,
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Grow the TBN, then estimate its tables."""
        self._validate_params()
        smoothing = float(self.smoothing)
        with warnings.catch_warnings():  # an empty tree is a valid classifier: the prior
            warnings.simplefilter("ignore", EmptySelectionWarning)
            selector = SLFS(
                self.lam,
                max_depth=self.max_depth,
                max_children=self.max_children,
                alpha=self.alpha,
                order=self.order,
                discretizer=self.discretizer,
                n_bins=self.n_bins,
                if_empty="keep_none",
                max_time=self.max_time,
            ).fit(X, y)
        if selector.empty_:
            warnings.warn(
                "TBNClassifier: no feature entered the tree (none passed the "
                "irrelevance test); predictions are the class prior. Try a larger "
                "alpha or more rows",
                EmptySelectionWarning,
                stacklevel=user_stacklevel(),
            )
        self.selector_ = selector
        self.stopped_ = selector.stopped_  # the tree grown so far when max_time ended it
        if hasattr(selector, "feature_names_in_"):
            self.feature_names_in_ = selector.feature_names_in_
        self.n_features_in_ = selector.n_features_in_
        data, target = selector.data_, selector.target_
        labels = np.asarray(y).ravel()
        self.classes_ = np.unique(labels)
        # the class's codes follow its sorted string states; map them to classes_
        states = data.states[target]
        by_state = {str(c): c for c in self.classes_}  # the class column holds str(label)
        # ... or the label itself, typed as a code (a float class 0.0/1.0 has states 0, 1)
        self._class_of_code = [
            by_state[str(s)] if str(s) in by_state else next(c for c in self.classes_ if c == s)
            for s in states
        ]
        class_codes = data.codes[:, data.index(target)].astype(np.int64)
        n_classes = len(states)
        prior = np.bincount(class_codes, minlength=n_classes) + smoothing
        self._log_prior = np.log(prior / prior.sum())
        self._tables = []
        arcs = []
        for feature, parent in selector.parent_.items():
            codes = data.codes[:, data.index(feature)].astype(np.int64)
            r = data.arity(feature)
            if parent == selector.class_name_:
                parent_codes, r_parent, parent_name = np.zeros_like(codes), 1, None
            else:
                parent_codes = data.codes[:, data.index(parent)].astype(np.int64)
                r_parent, parent_name = data.arity(parent), parent
                arcs.append((parent, feature))
            counts = np.zeros((n_classes, r_parent, r), dtype=float)
            np.add.at(counts, (class_codes, parent_codes, codes), 1.0)
            counts += smoothing
            self._tables.append(
                (feature, parent_name, np.log(counts / counts.sum(axis=2, keepdims=True)))
            )
            arcs.append((selector.class_name_, feature))
        self.network_ = DAG(
            [selector.class_name_] + selector.selected_,
            arcs=arcs,
            learning={"algorithm": "slfs", "classifier": "tbn"},
        )
        return self

    def _encode(self, X) -> tuple[dict[str, np.ndarray], int]:
        """(codes of the selected features of new rows, -1 for a state never seen; the
        number of rows)."""
        selector = self.selector_
        frame = selector.fitted_columns(X, selector.selected_, "TBNClassifier")
        data = selector.data_
        codes = {}
        for feature in selector.selected_:
            column = frame[feature]
            if feature in getattr(data, "cut_points", {}):
                codes[feature] = np.searchsorted(
                    data.cut_points[feature], column.to_numpy(dtype=float), side="left"
                )
            else:
                index = {_state(s): i for i, s in enumerate(data.states[feature])}
                codes[feature] = np.array(
                    [index.get(_state(v), -1) for v in column], dtype=np.int64
                )
        return codes, len(frame)

    def predict_proba(self, X) -> np.ndarray:
        """P(class | x) for each row, columns in the order of ``classes_``."""
        check_is_fitted(self, "_tables")
        codes, n = self._encode(X)
        log_post = np.tile(self._log_prior, (n, 1))
        for feature, parent, table in self._tables:
            f = codes[feature]
            p = codes[parent] if parent is not None else np.zeros(n, dtype=np.int64)
            known = (f >= 0) & (p >= 0)  # an unseen state leaves the factor out
            log_post[known] += table[:, p[known], f[known]].T
        log_post -= log_post.max(axis=1, keepdims=True)
        post = np.exp(log_post)
        post /= post.sum(axis=1, keepdims=True)
        order = [self._class_of_code.index(c) for c in self.classes_]
        return post[:, order]

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row."""
        check_is_fitted(self, "_tables")
        return self.classes_[self.predict_proba(X).argmax(axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.sparse = True
        return tags


def _state(value) -> str:
    """A value and the state Dataset made of it, compared as strings (integral floats as
    ints, so that 1.0 finds state 1)."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)
