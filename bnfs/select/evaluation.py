"""Cross-validated evaluation of a selector with bagging ensembles: the protocol of the
hybrid paper (Duangsoithong & Windeatt), usable with any selector and classifier."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.ensemble import BaggingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import BernoulliNB
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from bnfs._validate import check_int

__all__ = ["bagging_scores", "paper_classifiers"]


def paper_classifiers(seed: int = 0) -> dict:
    """The hybrid paper's four classifiers on one-hot coded discrete features: naive Bayes,
    an MLP with 16 hidden units (learning rate 0.2, momentum 0.3, 500 iterations), an SVM
    with a degree-2 polynomial kernel and C = 0.7, and a decision tree (CART with cost-
    complexity pruning standing in for C4.5).

    Examples
    --------
    >>> sorted(paper_classifiers())
    ['decision_tree', 'mlp', 'naive_bayes', 'svm']
    """

    def coded(model):
        return make_pipeline(OneHotEncoder(handle_unknown="ignore"), model)

    return {
        "naive_bayes": coded(BernoulliNB()),
        "mlp": coded(
            MLPClassifier(
                (16,),
                activation="logistic",
                solver="sgd",
                learning_rate_init=0.2,
                momentum=0.3,
                max_iter=500,
                random_state=seed,
            )
        ),
        "svm": coded(SVC(kernel="poly", degree=2, C=0.7, random_state=seed)),
        "decision_tree": coded(DecisionTreeClassifier(ccp_alpha=0.001, random_state=seed)),
    }


def bagging_scores(
    X,
    y,
    selector,
    classifier,
    *,
    n_estimators=(1, 5, 10, 25, 50),
    cv: int = 10,
    n_repeats: int = 1,
    positive=None,
    seed: int = 0,
) -> pd.DataFrame:
    """Accuracy, AUC and false-negative rate of bagged ``classifier`` on the features
    ``selector`` keeps, by repeated stratified k-fold cross-validation.

    The selector is fitted on each training fold only, so the scores are not biased by
    selection on test rows. For each ensemble size a :class:`~sklearn.ensemble.
    BaggingClassifier` of that many bootstrap replicates (100% of the rows, majority vote)
    is trained on the selected features.

    Parameters
    ----------
    X : DataFrame or array
    y : array-like of binary class labels
    selector : selector or None
        Any scikit-learn selector (None: all features).
    classifier : classifier
        The base learner (see :func:`paper_classifiers`).
    n_estimators : sequence of int
        Ensemble sizes (the paper: 1, 5, 10, 25, 50).
    cv, n_repeats : int
        Folds and repetitions (the paper: 10 and 10).
    positive : label, default None
        The class whose misses the false-negative rate counts; default the last sorted label.
    seed : int

    Returns
    -------
    pandas.DataFrame
        One row per ensemble size: ``n_estimators``, mean ``accuracy``, ``auc``, ``fnr`` and
        ``n_features`` over all folds, and the standard deviations ``accuracy_std``,
        ``auc_std``, ``fnr_std``.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from bnfs import FCBF, datasets
    >>> frame = datasets.corral(7, n=200, seed=0)
    >>> table = bagging_scores(frame.drop(columns="Y"), frame["Y"], FCBF(),
    ...                        DecisionTreeClassifier(random_state=0), n_estimators=(1, 5), cv=3)
    >>> table.columns.tolist()[:4], len(table)
    (['n_estimators', 'accuracy', 'auc', 'fnr'], 2)
    """
    cv = check_int(cv, "cv", 2)
    n_repeats = check_int(n_repeats, "n_repeats", 1)
    sizes = [check_int(n, "n_estimators", 1) for n in n_estimators]
    frame = X.reset_index(drop=True) if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    y = np.asarray(y)
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(f"bagging_scores needs a binary y, got {len(classes)} classes")
    positive = classes[-1] if positive is None else positive
    if positive not in classes:
        raise ValueError(f"positive={positive!r} is not a class of y ({list(classes)})")
    rows = {n: [] for n in sizes}
    for repeat in range(n_repeats):
        folds = StratifiedKFold(cv, shuffle=True, random_state=seed + repeat)
        for train, test in folds.split(frame, y):
            columns = list(frame.columns)
            if selector is not None:
                fitted = clone(selector).fit(frame.iloc[train], y[train])
                columns = [c for c, keep in zip(columns, fitted.get_support()) if keep]
            for n in sizes:
                if not columns:  # nothing selected: the majority class for everyone
                    majority = pd.Series(y[train]).mode()[0]
                    predicted = np.full(len(test), majority)
                    score = np.full(len(test), float(majority == positive))
                else:
                    bag = BaggingClassifier(
                        clone(classifier), n_estimators=n, random_state=seed + repeat
                    ).fit(frame.iloc[train][columns], y[train])
                    predicted = bag.predict(frame.iloc[test][columns])
                    # mean class probability, or the vote share for members without one
                    score = bag.predict_proba(frame.iloc[test][columns])[
                        :, list(bag.classes_).index(positive)
                    ]
                truth = y[test] == positive
                accuracy = float(np.mean(predicted == y[test]))
                auc = roc_auc_score(truth, score) if 0 < truth.sum() < len(truth) else np.nan
                fnr = float(np.mean(predicted[truth] != positive)) if truth.any() else np.nan
                rows[n].append((accuracy, auc, fnr, len(columns)))
    table = []
    for n in sizes:
        values = np.array(rows[n], dtype=float)
        mean, std = np.nanmean(values, axis=0), np.nanstd(values, axis=0)
        table.append(
            {
                "n_estimators": n,
                "accuracy": mean[0],
                "auc": mean[1],
                "fnr": mean[2],
                "n_features": mean[3],
                "accuracy_std": std[0],
                "auc_std": std[1],
                "fnr_std": std[2],
            }
        )
    return pd.DataFrame(table)
