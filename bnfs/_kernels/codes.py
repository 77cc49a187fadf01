"""The named codes the search kernels and their callers share: moves, a climb's status and
the slots of the ``counters`` array (int64) every search carries."""

#: the three moves of hill climbing and tabu search, in bnlearn's scan order
ADD, REMOVE, REVERSE = 0, 1, 2
#: no move gains enough
NO_MOVE = -1

#: ``counters[STATUS]`` after a compiled climb
RUNNING, CONVERGED, ITERATION_LIMIT, ARC_POOL_FULL, PARENT_TABLE_FULL = 0, 1, 2, 3, 4

#: slots of ``counters``: local scores computed and cache hits (every search), then the
#: climbs' own (moves, iterations, status, tabu list position and length, steps without a
#: new best graph)
N_SCORES, N_HITS, N_ITER, N_MOVES, STATUS, NON_IMPROVING, TABU_POS, N_TABU = range(8)
N_COUNTERS = 8
