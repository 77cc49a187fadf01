"""scikit-learn feature selectors built on Markov blankets."""

from bnfs.select._base import EmptySelectionWarning
from bnfs.select.bahsic import BAHSIC
from bnfs.select.cfs import CFS
from bnfs.select.evaluation import bagging_scores, paper_classifiers
from bnfs.select.fcbf import FCBF, mutual_information, symmetrical_uncertainty
from bnfs.select.hsmb import HSMB
from bnfs.select.hybrid import HybridSelector
from bnfs.select.information_gain import InformationGain
from bnfs.select.markov_blanket import MarkovBlanketSelector
from bnfs.select.pipelines import mb_svm_pipeline
from bnfs.select.slfs import SLFS, TBNClassifier
from bnfs.select.sparse_group_lasso import sparse_group_lasso
from bnfs.select.srs import SRS
from bnfs.select.stable_blanket import StableBlanketSelector

__all__ = [
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
    "symmetrical_uncertainty",
    "mutual_information",
    "sparse_group_lasso",
    "bagging_scores",
    "paper_classifiers",
    "mb_svm_pipeline",
    "EmptySelectionWarning",
]
