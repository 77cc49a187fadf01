"""scikit-learn feature selectors built on Markov blankets."""

from bnfs.select.bahsic import BAHSIC
from bnfs.select.fcbf import FCBF, symmetrical_uncertainty
from bnfs.select.hsmb import HSMB
from bnfs.select.hybrid import HybridSelector
from bnfs.select.markov_blanket import MarkovBlanketSelector

__all__ = ["MarkovBlanketSelector", "FCBF", "HybridSelector", "HSMB", "BAHSIC",
           "symmetrical_uncertainty"]
