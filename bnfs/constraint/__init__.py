"""Constraint-based structure learning: PC-stable, TPDA and the Markov-blanket family."""

from bnfs.constraint.markov_blanket import (fast_iamb, fast_iamb_mb, grow_shrink, grow_shrink_mb,
                                            hiton_mb, hiton_pc, iamb, iamb_mb, inter_iamb,
                                            inter_iamb_mb, kiamb_mb, local_structure, mmmb, mmpc,
                                            pcmb)
from bnfs.constraint._sets import LocalResult
from bnfs.constraint.hpc import hpc
from bnfs.constraint.pc import pc_stable
from bnfs.constraint.tpda import tpda

__all__ = ["pc_stable", "tpda", "grow_shrink", "iamb", "inter_iamb", "fast_iamb",
           "grow_shrink_mb", "iamb_mb", "inter_iamb_mb", "fast_iamb_mb", "kiamb_mb", "hiton_pc",
           "hiton_mb", "mmpc", "mmmb", "pcmb", "local_structure", "hpc", "LocalResult"]
