# cython: language_level=3
"""C layout of the Tigris & Euphrates state and its nogil kernels.

SINGLE SOURCE OF TRUTH for every bit layout (engine/actions.py mirrors it).

Squares
    index = row * 16 + col, 176 squares; `a1` = col 0 row 0 (top left),
    `p11` = index 175 (bottom right). A bitboard is 3 x uint64: square i is
    bit (i & 63) of word (i >> 6); each word holds exactly four rows, word 2
    holds rows 8-10 in its low 48 bits.

Cells (mailbox, kept in step with the bitboards)
    0 empty, 1+c face-up tile of colour c, 5+c face-down tile of colour c
    (under a monument), 9 catastrophe, 10 wonder square (variant). Colours c:
    0 black k, 1 red r, 2 blue b, 3 green g. leader_at[sq] = 0 or
    1 + seat*4 + colour. building_sq[c] = the square of the tile carrying
    building c, or -1 (variant).

Actions (one flat int space, context-free)
    [   0,  704)  tile       colour * 176 + square
    [ 704, 1408)  leader     704 + colour * 176 + square   (place or move)
    [1408, 1412)  withdraw   1408 + colour
    [1412, 1588)  cat        1412 + square
    [1588, 3989)  swap       1588 + k + 7*r + 49*b + 343*g  (1..6 tiles)
    3989          pass
    [3990, 3997)  commit     3990 + n  (n = 0..6)
    [3997, 4001)  war        3997 + colour
    [4001, 5057)  monument   4001 + monument * 176 + top-left square of block
                             monuments: 0 kr, 1 kb, 2 kg, 3 rb, 4 rg, 5 bg
    5057          nomonument
    [5058, 5234)  treasure   5058 + square
    [5234, 5938)  building   5234 + colour * 176 + square   (variant buildings)
    5938          nobuilding
    [5939, 6115)  wonder     5939 + centre square            (variant wonder)
    6115          nowonder
    [6116, 6120)  wonderpoint 6116 + colour                  (variant wonder)

Variants (bits of GameState.variants): 1 english, 2 buildings, 4 wonder.

The decision model (phases, who acts, order of events) is docs/engine.md.
"""
from libc.stdint cimport uint64_t, uint8_t, int8_t, int16_t, uint16_t, int32_t

cdef enum:
    NSQ = 176
    NCOL = 16
    NROW = 11
    MAX_PLAYERS = 4
    TOTAL_TILES = 153
    HAND_SIZE = 6
    MAX_ACTIONS = 1024      # upper bound on legal decisions in any state

    CELL_EMPTY = 0
    CELL_UP = 1             # + colour
    CELL_DOWN = 5           # + colour
    CELL_CAT = 9
    CELL_WONDER = 10

    BLACK = 0
    RED = 1
    BLUE = 2
    GREEN = 3

    A_TILE = 0
    A_LEADER = 704
    A_WITHDRAW = 1408
    A_CAT = 1412
    A_SWAP = 1588
    A_PASS = 3989
    A_COMMIT = 3990
    A_WAR = 3997
    A_MONUMENT = 4001
    A_NOMONUMENT = 5057
    A_TREASURE = 5058
    A_BUILDING = 5234
    A_NOBUILDING = 5938
    A_WONDER = 5939
    A_NOWONDER = 6115
    A_WONDERPOINT = 6116
    NUM_ACTIONS = 6120

    VAR_ENGLISH = 1
    VAR_BUILDINGS = 2
    VAR_WONDER = 4

    PH_ACTION = 0
    PH_REVOLT_ATTACK = 1
    PH_REVOLT_DEFEND = 2
    PH_WAR_CHOICE = 3
    PH_WAR_ATTACK = 4
    PH_WAR_DEFEND = 5
    PH_MONUMENT = 6
    PH_TREASURE = 7
    PH_OVER = 8
    PH_BUILDING = 9
    PH_WONDER = 10
    PH_WONDER_POINT = 11

    END_NONE = 0
    END_TREASURES = 1
    END_BAG = 2

    CONFLICT_NONE = 0
    CONFLICT_REVOLT = 1
    CONFLICT_WAR = 2

ctypedef struct BB:
    uint64_t w[3]

ctypedef struct BoardData:
    BB river
    BB land
    BB special
    int16_t temples[NSQ]
    int n_temples
    int loaded

ctypedef struct GameState:
    # board: mailbox and bitboards, always in step
    uint8_t cell[NSQ]
    uint8_t leader_at[NSQ]
    uint8_t parent[NSQ]          # union-find over occupied squares
    BB up[4]                     # face-up tiles per colour
    BB down                      # face-down tiles (monuments)
    BB cats
    BB treasure
    BB leaders
    int16_t leader_sq[MAX_PLAYERS][4]   # -1 = in supply
    int16_t monument_sq[6]              # -1 = unbuilt
    BB wonder                    # the wonder's five squares (variant)
    int16_t wonder_sq                   # its centre, -1 = unbuilt
    int16_t building_sq[4]              # -1 = in supply (variant)
    uint8_t variants                    # VAR_* bits
    # tiles off the board
    uint8_t hand[MAX_PLAYERS][4]
    uint8_t bag[TOTAL_TILES]     # draws take bag[bag_len - 1]
    int16_t bag_len
    uint8_t swapped[MAX_PLAYERS][4]
    uint16_t discarded[4]
    # score
    int16_t score[MAX_PLAYERS][4]
    uint8_t treasures_taken[MAX_PLAYERS]
    uint8_t cats_left[MAX_PLAYERS]
    # turn and decision context
    int8_t players
    int8_t board_id
    int8_t turn_owner
    int8_t actions_left
    int8_t phase
    int8_t to_act
    int16_t placed
    int16_t unification
    int8_t c_kind
    int8_t c_colour
    int8_t c_attacker
    int8_t c_defender
    int16_t c_att_leader
    int16_t c_def_leader
    int8_t c_att_commit
    uint8_t committed[MAX_PLAYERS]
    int8_t end_reason

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
    # exposure: two kingdoms one empty square apart, each with a leader of a
    # colour owned by different seats, are one tile from a war (R-WAR-1..4);
    # each side's leader prospects are discounted by its chance of losing it
    # (from the supporter difference) and its points credited with the chance
    # of winning (1 + the other side's supporters), times exposure
    float exposure

cdef BoardData BOARDS[2]

cdef uint64_t splitmix64(uint64_t* state) noexcept nogil
cdef void setup_game(GameState* s, int players, int board_id, uint64_t seed) noexcept nogil
cdef int gen_legal(GameState* s, int32_t* out) noexcept nogil
cdef void apply_unchecked(GameState* s, int action) noexcept nogil
cdef int is_legal(GameState* s, int action) noexcept nogil
cdef int uf_find(GameState* s, int sq) noexcept nogil
cdef void uf_rebuild(GameState* s) noexcept nogil
cdef int random_playout(GameState* s, uint64_t* rng, int max_decisions) noexcept nogil
cdef void unseen_by(GameState* s, int seat, int* counts) noexcept nogil
cdef void redeal_hidden(GameState* s, int seat, uint64_t* rng) noexcept nogil
cdef void score_actions(GameState* s, int32_t* actions, int n, int8_t* scores) noexcept nogil
cdef void evaluate(GameState* s, const EvalParams* ep, float* rewards) noexcept nogil
cdef EvalParams eval_params_from(weights)
cdef void fix_needs(GameState* s, EvalParams* ep) noexcept nogil
cdef int greedy_playout(GameState* s, uint64_t* rng, int max_decisions, float epsilon) noexcept nogil

cdef class CoreState:
    cdef GameState s
