"""bnfs: Bayesian-network structure learning and Markov-blanket feature selection.

See ``README.md`` for a tour; the public surface is re-exported here. Names are imported on
first use (PEP 562), so ``import bnfs`` does not pay for scikit-learn, scipy.stats or pgmpy
until a learner, selector or data set that needs them is touched.
"""

from importlib import import_module as _import_module
from logging import NullHandler as _NullHandler
from logging import getLogger as _getLogger

from bnfs.learners.registry import REGISTRY as _REGISTRY

__version__ = "0.1.0"

_getLogger("bnfs").addHandler(_NullHandler())

#: public name -> the module that defines it
_EXPORTS = {
    "bnfs.tables._data": ["Dataset", "as_dataset", "discretize"],
    "bnfs.stats.citests": ["CITest", "AvailableCaseTest", "DSeparation"],
    "bnfs.constraint": ["local_structure"],
    "bnfs.bootstrap": [
        "boot_strength",
        "plot_strength",
        "averaged_network",
        "inclusion_threshold",
        "blanket_frequency",
    ],
    "bnfs.graphs.graph": ["DAG", "PDAG"],
    "bnfs.graphs.knowledge": ["tiers_to_blacklist", "blacklist_from"],
    "bnfs.stats.metrics": ["shd"],
    "bnfs.models.network": ["DiscreteNetwork"],
    "bnfs.models.parameters": ["fit"],
    "bnfs.models.inference": ["predict", "predict_proba"],
    "bnfs.models.cg_network": ["ConditionalGaussianNetwork", "random_cg_network"],
    "bnfs.stats.scores": ["Scorer", "score"],
    "bnfs.search": ["post_process"],
    "bnfs.select": [
        "MarkovBlanketSelector",
        "StableBlanketSelector",
        "FCBF",
        "CFS",
        "InformationGain",
        "HybridSelector",
        "HSMB",
        "BAHSIC",
        "SRS",
        "SLFS",
        "TBNClassifier",
        "EmptySelectionWarning",
    ],
}
_SUBMODULES = ["datasets", "parallel", "io"]
_EXPORTS["bnfs.learners"] = ["markov_blanket", "neighbours"]
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
#: the network learners, shown here by their registry rows (the local ones sit behind
#: markov_blanket and neighbours)
_LEARNERS = {name: row for name, row in _REGISTRY.items() if not row.local}

__all__ = [*_LEARNERS, *_WHERE, *_SUBMODULES, "__version__"]


def __getattr__(name: str):
    if name in _LEARNERS:
        value = _LEARNERS[name].function
    elif name in _WHERE:
        value = getattr(_import_module(_WHERE[name]), name)
    elif name.isidentifier() and not name.startswith("__"):  # a submodule: bnfs.select, ...
        try:
            value = _import_module(f"bnfs.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"bnfs.{name}":
                raise
            raise AttributeError(f"module 'bnfs' has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module 'bnfs' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
