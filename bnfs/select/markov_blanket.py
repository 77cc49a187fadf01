"""Keep the Markov blanket of the class: the smallest feature set that makes every other
feature irrelevant to it (Koller & Sahami 1996), read off a learned network."""

from __future__ import annotations

import warnings

import pandas as pd
from sklearn.utils._param_validation import StrOptions

from bnfs import learners
from bnfs._budget import stopped_reason
from bnfs._warn import StructuralEMWarning
from bnfs.learners import AUTO_NETWORK_WORK, auto_learner  # noqa: F401  (documented here)
from bnfs.select._base import (
    DISCRETIZERS,
    DiscreteSelector,
    keep_parameters,
    random_seed,
    selection_options,
)

__all__ = ["MarkovBlanketSelector"]


class MarkovBlanketSelector(DiscreteSelector):
    """Select the features in the Markov blanket of the class.

    ``fit`` appends ``y`` to ``X`` as the target variable, discretizes continuous features
    (unless ``discretizer="auto"`` and the learner models them), runs ``learner`` and keeps
    the target's blanket: parents, children and the children's other parents. Given its
    blanket the class is independent of every other feature, so the blanket is the optimal
    feature set when the learned network is right (Koller & Sahami 1996; Aliferis et al.
    2010).

    Parameters
    ----------
    learner : str, default "auto"
        Any learner of :data:`bnfs.learners.REGISTRY`: a network learner (score-based,
        hybrid or constraint-based, e.g. ``"hill_climbing"``, ``"mmhc"``, ``"pc_stable"``)
        or a local one (``"iamb_mb"``, ``"hiton_mb"``, ...; ``"hiton_pc"``, ``"mmpc"`` and
        ``"hpc"`` find parents and children only). ``"auto"`` chooses by the data's
        shape: ``"learn"`` (:func:`bnfs.learn`, the most accurate network bnfs learns)
        while features squared times rows stay within :data:`AUTO_NETWORK_WORK`, where a
        whole network is affordable, and past it ``"neighbourhood_mb"`` (the blanket in
        learn's network on the class's two-step HITON-PC neighbourhood; the local
        ``"hiton_pc"`` with ``parents_and_children``), whose cost grows with the class's
        neighbourhood rather than with the square of the features. ``learner_`` says which
        ran.
    learner_options : dict, optional
        Keyword arguments of the learner, e.g. ``{"score": "bde", "max_parents": 5}`` or
        ``{"test": "g2", "alpha": 0.01}``; one the learner does not take is refused by name.
        The local learners that search subsets of their sets for a separating one (HITON,
        MMPC, PCMB, HPC) condition on at most :data:`SELECTION_MAX_COND_SIZE` (3) variables
        unless ``max_cond_size`` is given here (the learners themselves, as bnlearn's, have
        no bound): the subsets grow as the cube of the set, not exponentially, when the
        class depends on most features (on digits' 64 pixels its HITON-PC set has 45).
    parents_and_children : bool, default False
        Keep only the target's neighbours (parents and children, no spouses). Needs a
        network learner or a parents-and-children learner.
    discretizer : {"mdl", "quantile", "interval", "auto"}, default "mdl"
        How continuous features become discrete (:func:`bnfs.discretize`). ``"mdl"``, the
        default, cuts each one where the class changes (Fayyad & Irani's recursive
        minimum-entropy cuts, kept when they pay for themselves by minimum description
        length; a feature with no such cut gets two bins at its median), on the training
        rows only. Why: with three quantile bins the class's blanket in the network held
        2-5 features on real tables and lost up to 16 points of balanced accuracy against
        all features (spectf, 3 folds: 0.711 against 0.869); cut for the class, the bins
        keep what the class needs and no more levels, so the network's score keeps those
        arcs (spectf 0.834 with 6.3 features; at or above the quantile bins on each of 12
        real tables measured side by side; ``benchmarks/real_files.py`` gives the default
        against all features and the usual filters). ``"auto"`` keeps complete continuous
        features as they are for a score-based learner (``learn``, hill climbing, ...:
        linear-Gaussian or conditional-Gaussian scores, where the class, being discrete,
        takes no continuous parent; ``bnfs blanket``'s default for a continuous target)
        and cuts them into ``n_bins`` quantile bins for
        the others and around missing values. It is not the default: on correlated
        continuous features the conditional-Gaussian network puts every feature in the
        class's blanket (breast: 30 of 30 in 56 s; wine: 13 of 13), where bins select.
    n_bins : int, default 3
        Bins of the unsupervised discretizers.
    random_state : int, RandomState instance or None, default None
        Seeds randomized learners (restarts, post-processing, KIAMB): an int is passed on
        as their ``seed``.
    n_jobs : int, optional
        Passed to learners that take it (score-based learners, PC-stable, the blanket-based
        network learners); the selection is the same for any value.
    max_time : float, optional
        Seconds the learner may take (the score-based network learners and the local
        learners but HPC take it; others are refused by name): past it, it returns the
        network or set found so far with a RuntimeWarning, never a hang past the budget by
        more than one batch of tests or moves.
    if_empty : {"keep_all", "keep_none", "raise"}, default "keep_all"
        When no feature is selected (an :class:`~bnfs.select.EmptySelectionWarning` says so
        and why): pass every feature on, so that a pipeline's next step can still fit;
        pass none on (scikit-learn's behaviour); or raise ValueError.

    Attributes
    ----------
    selected_ : list of str
        The selected features, in input order.
    learner_ : str
        The learner that ran (``learner``, or what ``"auto"`` chose).
    missing_ : dict or None
        When X has missing values (kept in place; continuous features are cut on their
        observed values): how many, how the learner used them (``"available-case tests"``
        for the CI-test learners, each test on the rows observed in its variables, with
        ``rows_used``, the fewest, median and most rows a test ran on; ``"structural EM"``
        for the score-based learners, ``learn`` by default). None for complete X.
    network_ : DAG or PDAG or None
        The learned network over the features and the class (None for local learners).
    stopped_ : str or None
        Why the learner stopped before it finished (``max_time`` or Ctrl-C; the blanket is
        then read off what it found so far), or None.
    cut_features_ : list of str
        The continuous features cut into bins before learning (by ``discretizer``; ``"mdl"``
        cuts where the class changes), so the blanket can differ from the one in
        :func:`bnfs.learn`'s network of the columns as they are (``bnfs blanket``'s); empty
        when none was cut.
    class_name_ : str
        The name the class got in ``network_``: ``y``'s name when it has one that no
        feature has, else "target".
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` is a DataFrame with string column names.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("alarm", 5000, seed=0)
    >>> X, y = frame.drop(columns="HYPOVOLEMIA"), frame["HYPOVOLEMIA"]
    >>> selector = MarkovBlanketSelector("hiton_mb").fit(X, y)
    >>> selector.selected_
    ['LVEDVOLUME', 'LVFAILURE', 'STROKEVOLUME']
    >>> selector.transform(X).shape
    (5000, 3)
    """

    _parameter_constraints: dict = {
        **DiscreteSelector._parameter_constraints,
        "learner_options": [dict, None],
        "parents_and_children": ["boolean"],
        "discretizer": [StrOptions({"auto", *DISCRETIZERS})],
    }

    def __init__(
        self,
        learner: str = "auto",
        *,
        learner_options: dict | None = None,
        parents_and_children: bool = False,
        discretizer: str = "mdl",
        n_bins: int = 3,
        random_state=None,
        n_jobs: int | None = None,
        max_time: float | None = None,
        if_empty: str = "keep_all",
    ):
        keep_parameters(self, locals())

    def fit(self, X, y):
        """Learn the network (or the local structure) and keep the target's blanket."""
        self._validate_params()
        self._check_learner(self.learner)
        data, features, target = self._discrete_data(
            X, y, missing=True, keeps_continuous=self._keeps_continuous, keep_name=True
        )
        rows = len(data) if isinstance(data, pd.DataFrame) else data.n_rows
        self.learner_ = self._chosen_learner(len(features), rows)
        entry = self._check_learner(self.learner_)
        options = selection_options(self.learner_, self.learner_options)
        seed = random_seed(self.random_state)
        if seed is not None and entry.seeded:
            options.setdefault("seed", seed)
        if self.n_jobs is not None and "n_jobs" in entry.options:
            options.setdefault("n_jobs", self.n_jobs)
        if self.max_time is not None:
            if "max_time" not in entry.options:
                timed = [n for n in learners.names() if "max_time" in learners.get(n).options]
                raise ValueError(
                    f"max_time needs a learner that stops on time, and {entry.name} does "
                    f"not; these do: {timed}"
                )
            options.setdefault("max_time", self.max_time)
        # one funnel: the frontends run the learner through its door, which decides what
        # happens to missing values and records it (learning["missing"])
        kind = "neighbours" if self.parents_and_children or entry.kind == "neighbours" else None
        local_set = learners.neighbours if kind else learners.markov_blanket
        with warnings.catch_warnings():  # said once, in missing_
            warnings.simplefilter("ignore", StructuralEMWarning)
            found = local_set(data, target, method=self.learner_, **options)
        self.missing_ = found.learning.get("missing")
        self.stopped_ = stopped_reason(found.learning)
        self.network_ = None if entry.local else found.learning["network"]
        members = set(found)
        self.selected_ = [c for c in features if c in members]
        self._set_support(self.selected_)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _empty_reason(self) -> str:
        return (
            f"{self.learner_} found the class independent of every feature on these rows "
            "(an empty Markov blanket; with few rows per cell the tests cannot see a "
            "dependence)"
        )

    def _empty_remedy(self) -> str:
        if learners.get(self.learner_).kind == "score":
            return "learner_options={'score': 'aic'} (a lighter penalty)"
        return (
            "a larger alpha (learner_options={'alpha': 0.1}), fewer bins (n_bins=2) or a "
            "score-based learner (learner='hill_climbing')"
        )

    def _keeps_continuous(self, n_features: int, n_rows: int) -> bool:
        """Whether complete continuous features reach the learner as they are: with
        ``discretizer="auto"`` and a score-based learner, which models them (linear-Gaussian
        or conditional-Gaussian scores)."""
        if self.discretizer != "auto":
            return False
        entry = learners.get(self._chosen_learner(n_features, n_rows))
        return entry.kind == "score" and entry.models_continuous

    def _chosen_learner(self, n_features: int, n_rows: int) -> str:
        """``learner``, or for ``"auto"`` the learner the data's width calls for."""
        if self.learner != "auto":
            return self.learner
        return auto_learner(n_features, n_rows, self.parents_and_children)

    def _check_learner(self, name):
        """The registry entry of learner ``name`` (``"auto"``: its arguments only), with the
        options checked."""
        learners.check_name(name, auto=True)  # read when asked: a new registry row is known
        if self.parents_and_children and name != "auto" and learners.get(name).kind == "blanket":
            raise ValueError(
                f"parents_and_children=True needs a network learner or one of "
                f"{list(learners.names('neighbours'))}; {name!r} finds whole blankets"
            )
        if self.learner_options is not None and not isinstance(self.learner_options, dict):
            raise TypeError(
                f"learner_options must be a dict, got {type(self.learner_options).__name__}"
            )
        if name == "auto":
            return None
        learners.check_options(name, self.learner_options or {})
        return learners.get(name)
