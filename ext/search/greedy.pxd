# cython: language_level=3
"""C layout of the greedy baseline's decision kernel (see ext/search/greedy.pyx)."""
from libc.stdint cimport uint64_t
from ext.core cimport BB, GameState, MAX_PLAYERS

cdef enum:
    UTILITY_TABLE = 64      # colour totals whose utility tau*(1-exp(-x/tau)) is tabled
    MAX_GROUPS = 16         # at most one group per leader on the board

ctypedef struct GreedyWeights:
    # the weights of search.baselines.DEFAULT_WEIGHTS, same names, same meaning
    double tau
    double min_bonus
    double leader
    double king
    double temple
    double supporter
    double monument
    double treasure_near
    double catastrophe
    double opponents_max
    double commit_cost
    double terminal

ctypedef struct GreedyCtx:
    GreedyWeights w
    int seat                        # the deciding seat (to act at the root)
    int players
    int passes                      # passes in a row before this decision (the stall rule)
    bint stalled                    # no tile placed or swapped for long: place one if possible
    uint64_t salt                   # keys the tie-breaking noise of every tried decision
    # fixed at the root, as the Python agent's _prepare: each seat's value of one
    # more point of each colour, the tiles the seat has not seen, the hand sizes
    double needs[MAX_PLAYERS][4]
    double max_need[MAX_PLAYERS]
    int unseen[4]
    int total_unseen
    int hand_sizes[MAX_PLAYERS]
    double utility[UTILITY_TABLE]   # utility[x] = tau*(1-exp(-x/tau)), computed as the reference does
    # the leaders' groups at the root and what was passable there: a later group that
    # lost no square and gained no neighbour is one of them (positional reuses it)
    BB root_passable
    BB root_groups[MAX_GROUPS]
    BB root_group_edges[MAX_GROUPS]   # the squares next to each
    int root_ngroups
    # each leader's term at the root, for positional to reuse while nothing it
    # counts changed: its square (-1: off the board) and group, the face-up tiles
    # and treasures the terms were counted on
    int root_leader_sq[MAX_PLAYERS][4]
    int root_leader_group[MAX_PLAYERS][4]
    double root_leader_term[MAX_PLAYERS][4]
    BB root_up[4]
    BB root_treasure
    # each seat's colour value at the root (colour_value of its scores and treasures)
    double root_colours[MAX_PLAYERS]
    int root_scores[MAX_PLAYERS][4]
    int root_treasures[MAX_PLAYERS]

cdef int greedy_decision(GameState* s, GreedyCtx* ctx) noexcept nogil
