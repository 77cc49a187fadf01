"""Posteriors over network structures: how sure each arc, edge and blanket member is
(order MCMC on a restricted search space, :func:`structure_posterior`)."""

from bnfs.posterior.result import StructurePosterior
from bnfs.posterior.sampler import structure_posterior

__all__ = ["structure_posterior", "StructurePosterior"]
