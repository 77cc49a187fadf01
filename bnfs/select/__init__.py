"""scikit-learn feature selectors built on Markov blankets."""

from bnfs.select.bahsic import BAHSIC
from bnfs.select.cfs import CFS
from bnfs.select.evaluation import bagging_scores, paper_classifiers
from bnfs.select.fcbf import FCBF, mutual_information, symmetrical_uncertainty
from bnfs.select.hsmb import HSMB
from bnfs.select.information_gain import InformationGain
from bnfs.select.hybrid import HybridSelector
from bnfs.select.markov_blanket import MarkovBlanketSelector

__all__ = ["MarkovBlanketSelector", "FCBF", "CFS", "InformationGain", "HybridSelector", "HSMB",
           "BAHSIC", "symmetrical_uncertainty", "mutual_information", "bagging_scores",
           "paper_classifiers"]
