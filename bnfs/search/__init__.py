"""Score-based structure learning: hill climbing and its restricted variants, and the
permutation searches over orders of the variables (BOSS, GRaSP), and the blanket of a
target read off the network learned on its neighbourhood."""

from bnfs.search.automatic import learn
from bnfs.search.boss import boss
from bnfs.search.grasp import grasp
from bnfs.search.hill_climbing import hill_climbing, tabu_search
from bnfs.search.hybrid import h2pc, mmhc, rsmax2
from bnfs.search.neighbourhood import neighbourhood_mb
from bnfs.search.post_process import post_process
from bnfs.search.screen_based import screen_based
from bnfs.search.sparse_candidate import sparse_candidate
from bnfs.search.structural_em import structural_em

__all__ = [
    "hill_climbing",
    "tabu_search",
    "sparse_candidate",
    "boss",
    "grasp",
    "screen_based",
    "post_process",
    "rsmax2",
    "mmhc",
    "h2pc",
    "learn",
    "structural_em",
    "neighbourhood_mb",
]
