"""scikit-learn feature selectors built on Markov blankets.

The selectors are rows of :mod:`bnfs.select.registry`; each name is imported on first use
(PEP 562), so reading the registry (the command line's ``--method`` choices) does not pay
for scikit-learn."""

from importlib import import_module as _import_module

from bnfs.select.registry import SELECTORS as _SELECTORS

#: public name -> the module that defines it: the registry's selectors, then the rest
_WHERE = {row.cls: f"bnfs.select.{row.module}" for row in _SELECTORS.values()}
_WHERE.update(
    {
        "TBNClassifier": "bnfs.select.slfs",
        "symmetrical_uncertainty": "bnfs.select.fcbf",
        "mutual_information": "bnfs.select.fcbf",
        "bagging_scores": "bnfs.select.evaluation",
        "paper_classifiers": "bnfs.select.evaluation",
        "mb_svm_pipeline": "bnfs.select.pipelines",
        "sparse_group_lasso": "bnfs.select.group_lasso",
        "EmptySelectionWarning": "bnfs.select._base",
    }
)

__all__ = list(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'bnfs.select' has no attribute {name!r}")
    value = getattr(_import_module(_WHERE[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
