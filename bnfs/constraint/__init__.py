"""Constraint-based structure learning: PC-stable and the Markov-blanket family."""

from bnfs.constraint.pc import pc_stable

__all__ = ["pc_stable"]
