"""The Markov-blanket SVM pipeline of Shen, Li & Wong (AAAI 2008) and its baselines."""

from __future__ import annotations

from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.svm import SVC

from bnfs.select.information_gain import InformationGain
from bnfs.select.markov_blanket import MarkovBlanketSelector

__all__ = ["SVM_METHODS", "mb_svm_pipeline"]

#: feature selections the paper compares
SVM_METHODS = ("all", "sparse_candidate", "screen_based", "grow_shrink", "information_gain")


def mb_svm_pipeline(
    method: str = "sparse_candidate",
    *,
    k: int = 15,
    max_parents: int = 15,
    theta: int = 4,
    post_process: int = 0,
    alpha: float = 0.05,
    n_features: int = 10,
    score: str = "bic",
    seed=None,
) -> Pipeline:
    """Feature selection, one-hot coding and a linear SVM with C = 1 (LibSVM, as in the
    paper), for discrete features.

    Parameters
    ----------
    method : {"all", "sparse_candidate", "screen_based", "grow_shrink", "information_gain"}
        "all" keeps every feature; "sparse_candidate" and "screen_based" keep the class's
        blanket in a network learned by BIC hill climbing under those restrictions;
        "grow_shrink" keeps the Grow-Shrink blanket with chi-square tests at ``alpha``;
        "information_gain" keeps the ``n_features`` features of highest information gain
        (the paper uses the size of the learned blanket).
    k, max_parents : int
        Sparse-candidate candidates per node and parents per node (the paper: 15 and 15).
    theta : int
        Screen-based co-occurrence threshold (the paper: 4).
    post_process : int
        Random hill-climbing operations after the search (the paper: 5,000,000 on text).
    alpha : float
        Grow-Shrink's significance level (the paper: 0.05).
    n_features : int
        Features kept by information gain.
    score : {"bic", "bde", ...}
    seed : int, optional

    Returns
    -------
    sklearn.pipeline.Pipeline
        Steps ``select`` (absent for "all"), ``encode`` and ``svm``.

    Examples
    --------
    >>> from bnfs import datasets
    >>> frame = datasets.sample("alarm", 2000, seed=0)
    >>> pipe = mb_svm_pipeline("sparse_candidate", seed=0)
    >>> X, y = frame.drop(columns="HYPOVOLEMIA"), frame["HYPOVOLEMIA"]
    >>> pipe.fit(X, y).named_steps["select"].selected_
    ['LVEDVOLUME', 'STROKEVOLUME']
    """
    if method == "all":
        selector = None
    elif method == "sparse_candidate":
        selector = MarkovBlanketSelector(
            "sparse_candidate",
            learner_options={
                "score": score,
                "k": k,
                "max_parents": max_parents,
                "post_process": post_process,
            },
            random_state=seed,
        )
    elif method == "screen_based":
        selector = MarkovBlanketSelector(
            "screen_based",
            learner_options={"score": score, "theta": theta, "post_process": post_process},
            random_state=seed,
        )
    elif method == "grow_shrink":
        selector = MarkovBlanketSelector(
            "grow_shrink_mb", learner_options={"test": "x2", "alpha": alpha}
        )
    elif method == "information_gain":
        selector = InformationGain(n_features)
    else:
        raise ValueError(f"method must be one of {SVM_METHODS}, got {method!r}")
    steps = [("select", selector)] if selector is not None else []
    steps += [
        ("encode", OneHotEncoder(handle_unknown="ignore")),
        ("svm", SVC(kernel="linear", C=1.0)),
    ]
    return Pipeline(steps)
