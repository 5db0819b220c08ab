# cython: language_level=3
"""C layout of the search's evaluation and priors (see ext/search/evaluation.pyx): the evaluation's weights and its kernels."""
from libc.stdint cimport uint64_t, int8_t, int32_t
from ext.core cimport GameState

cdef enum:
    CONCAVE_TABLE = 64      # colour totals whose tau*(1-exp(-x/tau)) finish_eval_params tables
    # the most score_actions gives to moving a leader already on the board:
    # a sure revolt (12) less what the move gives up (3)
    MOVE_PRIOR_MAX = 9
    # the learned value's inputs per seat (value_features; their names are
    # evaluation.VALUE_FEATURE_NAMES): 4 from the handcrafted evaluation, each
    # of VALUE_BASE facts less the best opponent's and less the opponents'
    # mean, and VALUE_TAPERED of those times the progress
    VALUE_BASE = 19
    VALUE_TAPERED = 5
    VALUE_FEATURES = 47      # 4 + 2 * VALUE_BASE + VALUE_TAPERED
    # the most hidden units a learned value may add to its logistic
    VALUE_HIDDEN_MAX = 32

ctypedef struct EvalParams:
    # a seat's value: sum over colours of tau*(1-exp(-x/tau)) + min_bonus*min(x)
    # (x = colour scores, treasures on the weakest), plus for every leader on
    # the board need(colour) * (leader + temple*temples + supporter*supporters
    # + monument*monuments of its colour in its kingdom + treasure_near for a
    # trader with a treasure), plus king*max(need) per king and catastrophe
    # per catastrophe in hand; the reward is the logistic of (own value -
    # opponents' value) / scale, opponents = opponents_max*best + rest*mean.
    float tau
    float min_bonus
    float leader
    float king
    float temple
    float supporter
    float monument
    float treasure_near
    float catastrophe
    float opponents_max
    float scale
    # when use_fixed_need is set, leaders are weighted by fixed_need (the
    # needs at the search root, as a one-decision greedy player sees them)
    # instead of the needs of the evaluated state, so scoring a weak colour
    # does not devalue the leader that will keep scoring it
    int use_fixed_need
    float fixed_need[4][4]
    # when centre > 0, the logistic is centred on each seat's margin at the
    # search root (fixed_margin), so a seat far ahead or behind still sees
    # the difference between its moves instead of a saturated 0 or 1
    float centre
    float fixed_margin[4]
    # endgame: how much nearer the end (treasures taken or bag drawn, 0..1)
    # adds to the margin of a seat that leads at the root, times its lead
    # clamped to [-2, 2] / 2 (a seat behind loses as much)
    float endgame
    # the variants: a leader whose kingdom holds its colour's building adds
    # building to its prospects (R-VAR-BLD-3 doubles its tiles' points); a
    # king in the wonder's kingdom adds wonder * max need (R-VAR-WONDER-4)
    float building
    float wonder
    # learned = 1: a seat's margin is the learned value's logit times scale
    # (value_w . value_features, weights already divided by the features'
    # scale), the state's own needs; the centre and endgame terms apply as
    # before, to margins the learned value gives the root (fix_needs)
    int learned
    float value_w[VALUE_FEATURES]
    # value_hidden > 0: the logit also adds, for each hidden unit j,
    # value_hv[j] * tanh(value_hb[j] + value_hw[j] . value_features)
    # (a residual layer over the logistic; 0: the logistic alone)
    int value_hidden
    float value_hw[VALUE_HIDDEN_MAX][VALUE_FEATURES]
    float value_hb[VALUE_HIDDEN_MAX]
    float value_hv[VALUE_HIDDEN_MAX]
    # concave[x] = tau*(1-exp(-x/tau)) as colour_concave computes it (in double,
    # so the sum is the same to the bit); totals past the table call exp
    double concave[CONCAVE_TABLE]

cdef void score_actions(GameState* s, int32_t* actions, int n, int8_t* scores) noexcept nogil
cdef int merge_scored(int32_t* a, int8_t* a_sc, int na, int32_t* b, int8_t* b_sc, int nb) noexcept nogil
cdef void evaluate(GameState* s, const EvalParams* ep, float* rewards) noexcept nogil
cdef EvalParams eval_params_from(weights, value_weights=*)
cdef int set_value_weights(EvalParams* ep, value_weights) except -1
cdef int finish_eval_params(EvalParams* ep) except -1
# a struct's fields by name, as a layout {name: (C type "d", "f" or "i", byte offset)} places them
cdef int store_named(char* base, dict layout, name, value) except -1
cdef dict load_named(char* base, dict layout)
cdef void fix_needs(GameState* s, EvalParams* ep) noexcept nogil
cdef void value_features(GameState* s, const EvalParams* ep, float* out) noexcept nogil
cdef int greedy_playout(GameState* s, uint64_t* rng, int max_decisions, float epsilon) noexcept nogil
