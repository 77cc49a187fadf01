"""bnfs: Bayesian-network structure learning and Markov-blanket feature selection.

See ``README.md`` for a tour; the public surface is re-exported here. Names are imported on
first use (PEP 562), so ``import bnfs`` does not pay for scikit-learn, scipy.stats or pgmpy
until a learner, selector or data set that needs them is touched.
"""

import importlib
import importlib.abc
import importlib.util
import logging
import sys

__version__ = "0.1.0"

logging.getLogger("bnfs").addHandler(logging.NullHandler())

#: public name -> the module that defines it
_EXPORTS = {
    "bnfs.tables._data": ["Dataset", "as_dataset", "discretize"],
    "bnfs.stats.citests": ["CITest", "AvailableCaseTest", "DSeparation"],
    "bnfs.constraint": [
        "pc_stable",
        "tpda",
        "grow_shrink",
        "iamb",
        "inter_iamb",
        "fast_iamb",
        "grow_shrink_mb",
        "iamb_mb",
        "inter_iamb_mb",
        "fast_iamb_mb",
        "kiamb_mb",
        "hiton_pc",
        "hiton_mb",
        "mmpc",
        "mmmb",
        "pcmb",
        "local_structure",
        "hpc",
    ],
    "bnfs.models.export": [
        "to_json",
        "from_json",
        "to_networkx",
        "from_networkx",
        "to_pgmpy",
        "from_pgmpy",
    ],
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
    "bnfs.models.bif": ["read_bif", "write_bif"],
    "bnfs.graphs.order": ["OnlineTopologicalOrder", "DFSCycleCheck"],
    "bnfs.stats.scores": ["Scorer", "score"],
    "bnfs.search": [
        "hill_climbing",
        "tabu_search",
        "sparse_candidate",
        "boss",
        "grasp",
        "screen_based",
        "post_process",
        "rsmax2",
        "mmhc",
        "h2pc",
        "learn",
        "structural_em",
        "neighbourhood_mb",
    ],
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
_SUBMODULES = ["datasets", "metrics", "parallel"]
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [*_WHERE, *_SUBMODULES, "__version__"]


#: the import paths of public modules before they moved into the rooms of the ground floor
#: (``bnfs.tables``, ``bnfs.graphs``, ``bnfs.stats``, ``bnfs.models``), which keep working
MOVED = {
    **{
        f"bnfs.{m}": f"bnfs.graphs.{m}" for m in ("graph", "order", "knowledge", "render", "report")
    },
    **{f"bnfs.{m}": f"bnfs.stats.{m}" for m in ("scores", "citests", "priors", "metrics")},
    **{
        f"bnfs.{m}": f"bnfs.models.{m}"
        for m in ("network", "cg_network", "bif", "parameters", "inference", "export")
    },
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a module by its old path (``import bnfs.scores``) as the module itself
    (``bnfs.stats.scores``, the same object), so code and pickles written against the old
    paths keep working."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def exec_module(self, module):
        # the import system returns what sys.modules holds after this call
        sys.modules[module.__name__] = importlib.import_module(MOVED[module.__name__])


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
    elif name.isidentifier() and not name.startswith("__"):  # a submodule: bnfs.select, ...
        try:
            value = importlib.import_module(f"bnfs.{name}")
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
