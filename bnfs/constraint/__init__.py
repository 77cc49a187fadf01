"""Constraint-based structure learning: PC-stable, TPDA, the blanket-based networks and the
local (Markov-blanket, parents-and-children) learners."""

from bnfs.constraint.blanket_networks import fast_iamb, grow_shrink, iamb, inter_iamb
from bnfs.constraint.hpc import hpc
from bnfs.constraint.local_structure import local_structure
from bnfs.constraint.markov_blanket import (
    fast_iamb_mb,
    grow_shrink_mb,
    iamb_mb,
    inter_iamb_mb,
    kiamb_mb,
)
from bnfs.constraint.parents_children import hiton_mb, hiton_pc, mmmb, mmpc, pcmb
from bnfs.constraint.pc import pc_stable
from bnfs.constraint.tpda import tpda
from bnfs.graphs.local import LocalResult

__all__ = [
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
    "LocalResult",
]
