"""Score-based structure learning: hill climbing and its restricted variants."""

from bnfs.search.hill_climbing import hill_climbing, tabu_search

__all__ = ["hill_climbing", "tabu_search"]
