"""bnfs: Bayesian-network structure learning and Markov-blanket feature selection.

See ``README.md`` for a tour; the public surface is re-exported here.
"""

import logging

from bnfs import datasets, metrics
from bnfs.citests import CITest, DSeparation
from bnfs.constraint import (fast_iamb, fast_iamb_mb, grow_shrink, grow_shrink_mb, hiton_mb,
                             hiton_pc, iamb, iamb_mb, inter_iamb, inter_iamb_mb, kiamb_mb,
                             local_structure, mmmb, mmpc, pc_stable, pcmb, tpda)
from bnfs._data import Dataset, as_dataset, discretize
from bnfs.export import from_json, from_networkx, from_pgmpy, to_pgmpy
from bnfs.bootstrap import averaged_network, blanket_frequency, boot_strength, inclusion_threshold
from bnfs.graph import DAG, PDAG
from bnfs import parallel
from bnfs.metrics import shd
from bnfs.network import DiscreteNetwork, read_bif, write_bif
from bnfs.order import DFSCycleCheck, OnlineTopologicalOrder
from bnfs.scores import Scorer, score
from bnfs.search import hill_climbing, post_process, screen_based, sparse_candidate, tabu_search
from bnfs.select import (BAHSIC, CFS, FCBF, HSMB, HybridSelector, InformationGain,
                         MarkovBlanketSelector, SLFS, SRS, TBNClassifier)

__version__ = "0.1.0"

logging.getLogger("bnfs").addHandler(logging.NullHandler())

__all__ = [
    "DAG", "PDAG", "Dataset", "DiscreteNetwork", "OnlineTopologicalOrder", "DFSCycleCheck",
    "as_dataset", "discretize", "datasets", "metrics", "shd", "read_bif", "write_bif",
    "from_json", "from_networkx", "from_pgmpy", "to_pgmpy", "Scorer", "score",
    "hill_climbing", "tabu_search", "sparse_candidate", "screen_based", "post_process",
    "CITest", "DSeparation", "pc_stable", "tpda", "grow_shrink", "iamb", "inter_iamb",
    "fast_iamb", "grow_shrink_mb", "iamb_mb", "inter_iamb_mb", "fast_iamb_mb", "kiamb_mb",
    "hiton_pc", "hiton_mb", "mmpc", "mmmb", "pcmb", "local_structure",
    "MarkovBlanketSelector", "FCBF", "CFS", "InformationGain", "HybridSelector", "HSMB",
    "BAHSIC", "SRS", "SLFS", "TBNClassifier",
    "boot_strength", "averaged_network", "inclusion_threshold", "blanket_frequency",
    "__version__",
]
