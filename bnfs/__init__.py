"""bnfs: Bayesian-network structure learning and Markov-blanket feature selection.

See ``README.md`` for a tour; the public surface is re-exported here. Names are imported on
first use (PEP 562), so ``import bnfs`` does not pay for scikit-learn, scipy.stats or pgmpy
until a learner, selector or data set that needs them is touched.
"""

from importlib import import_module as _import_module
from logging import NullHandler as _NullHandler
from logging import getLogger as _getLogger

from bnfs.learners.registry import REGISTRY as _REGISTRY
from bnfs.select.registry import SELECTORS as _SELECTORS

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
    "bnfs.posterior": ["structure_posterior"],
    # the registry's selectors (bnfs.select.registry), then the classifier
    "bnfs.select": [
        *(row.cls for row in _SELECTORS.values()),
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
            raise AttributeError(_missing(name)) from None
    else:
        raise AttributeError(_missing(name))
    globals()[name] = value  # later lookups skip this function
    return value


#: the rooms whose public names are not re-exported here, where a missing name is looked up
_ROOMS = (
    "bnfs.io",
    "bnfs.constraint",
    "bnfs.search",
    "bnfs.graphs.order",
    "bnfs.stats.metrics",
    "bnfs.posterior",
)


def _missing(name: str) -> str:
    """The AttributeError's message: where ``name`` lives when a room has it (bnfs.io's
    ``to_networkx``), else the closest public name. A private name (IPython's and pytest's
    probes) imports no room."""
    for room in _ROOMS if not name.startswith("_") else ():
        if name in getattr(_import_module(room), "__all__", ()):
            return f"module 'bnfs' has no attribute {name!r}; it is {room}.{name}"
    from bnfs._validate import near_match

    return f"module 'bnfs' has no attribute {name!r}{near_match(name, __all__)}"


def __dir__():
    return sorted(set(globals()) | set(__all__))
