"""scikit-learn feature selectors built on Markov blankets."""

from bnfs.select.markov_blanket import MarkovBlanketSelector

__all__ = ["MarkovBlanketSelector"]
