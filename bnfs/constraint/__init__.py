"""Constraint-based structure learning: PC-stable and the Markov-blanket family."""

from bnfs.constraint.markov_blanket import (grow_shrink, grow_shrink_mb, hiton_mb, hiton_pc,
                                            iamb, iamb_mb, inter_iamb_mb, mmmb, mmpc)
from bnfs.constraint.pc import pc_stable

__all__ = ["pc_stable", "grow_shrink", "iamb", "grow_shrink_mb", "iamb_mb", "inter_iamb_mb",
           "hiton_pc", "hiton_mb", "mmpc", "mmmb"]
