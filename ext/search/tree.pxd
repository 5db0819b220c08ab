# cython: language_level=3
"""C layout of the single-observer ISMCTS tree (see ext/search/tree.pyx).

A node stands for the action sequence from the search root; its statistics
are those of the edge that leads to it: visits, availability (how often the
edge was legal when its parent was visited), and the sum of rewards per seat
(max-n backup). Children are found through one open-addressing hash table
keyed by (parent, action), and listed through first_child / next_sibling.
"""
from libc.stdint cimport uint64_t, int32_t, uint32_t, int8_t, uint8_t
from ext.core cimport GameState
from ext.search.evaluation cimport EvalParams

ctypedef struct Node:
    int32_t parent
    int32_t action
    int32_t first_child
    int32_t next_sibling
    int32_t actor           # seat that chose `action` at the parent
    uint32_t visits
    uint32_t avail
    uint8_t prior_hand[4]   # the observer's hand when the order was computed
    double reward[4]        # summed reward of each seat
    double reward_sq        # summed squared reward of the actor (for the bound)
    int32_t prior_off       # look-ahead order of the observer's decisions here: offset in
    int32_t prior_n         #   Tree.prior_pool and count, or -1 / 0 when not computed
    uint64_t prior_sig      # signature of the legal set the order was computed for

ctypedef struct MctsParams:
    double exploration      # UCB1 constant c
    double root_exploration # the constant of the observer's decisions at the root (< 0: exploration's)
    double widen_base       # children considered = base + coef * visits ** exponent
    double widen_coef
    double widen_exponent
    double reply_widen_coef # the coef where a seat other than the observer acts (< 0: widen_coef)
    int rollout_depth       # decisions played before the heuristic evaluation
    double rollout_epsilon  # chance of a uniform decision in an ε-greedy rollout
    int rollout_greedy      # 0 uniform rollouts, 1 ε-greedy
    int rollout_settle      # 1: play on past the rollout depth until no conflict or choice is pending
    double rollout_rounds   # > 0: roll out until rounds * 2 * players actions since the root instead;
                            #   < 0: 1 with 3 or 4 players, 0 with 2
    int tail_after          # >= 0: a rounds rollout passes its actions after this many
                            #   (conflicts and choices stay ε-greedy)
    int rollout_to_turn     # 1: a depth rollout plays on to the start of a turn before the evaluation
    int root_kinds          # 1: the root's order puts the best decision of each kind first
    double leaf_mix         # a leaf's reward: leaf_mix * the value after the rollout
                            #   + (1 - leaf_mix) * the value where the tree stopped (1: the rollout's alone)
    int paired_worlds       # 1: under sequential halving, a root candidate's k-th visit meets the k-th
                            #   world of the search (deal and random stream), so candidates are compared
                            #   on the same worlds
    int leaf_mix_turn       # 1: blend only where the tree stopped at the start of a turn (a seat about
                            #   to play both its actions), where a turn rollout's value is read too
    EvalParams eval
