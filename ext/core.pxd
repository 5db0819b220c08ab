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
from libc.string cimport memset

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

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil

# Bitboard helpers, inline here so the rules and the search kernels (ext/search) share one copy.
cdef inline void bb_set(BB* b, int sq) noexcept nogil:
    b.w[sq >> 6] |= (<uint64_t>1) << (sq & 63)

cdef inline void bb_clear(BB* b, int sq) noexcept nogil:
    b.w[sq >> 6] &= ~((<uint64_t>1) << (sq & 63))

cdef inline bint bb_test(const BB* b, int sq) noexcept nogil:
    return (b.w[sq >> 6] >> (sq & 63)) & 1

cdef inline BB bb_or(BB a, BB b) noexcept nogil:
    cdef BB r
    r.w[0] = a.w[0] | b.w[0]
    r.w[1] = a.w[1] | b.w[1]
    r.w[2] = a.w[2] | b.w[2]
    return r

cdef inline BB bb_xor(BB a, BB b) noexcept nogil:
    cdef BB r
    r.w[0] = a.w[0] ^ b.w[0]
    r.w[1] = a.w[1] ^ b.w[1]
    r.w[2] = a.w[2] ^ b.w[2]
    return r

cdef inline BB bb_and(BB a, BB b) noexcept nogil:
    cdef BB r
    r.w[0] = a.w[0] & b.w[0]
    r.w[1] = a.w[1] & b.w[1]
    r.w[2] = a.w[2] & b.w[2]
    return r

cdef inline BB bb_andnot(BB a, BB b) noexcept nogil:
    cdef BB r
    r.w[0] = a.w[0] & ~b.w[0]
    r.w[1] = a.w[1] & ~b.w[1]
    r.w[2] = a.w[2] & ~b.w[2]
    return r

cdef inline bint bb_any(BB a) noexcept nogil:
    return (a.w[0] | a.w[1] | a.w[2]) != 0

cdef inline bint bb_eq(BB a, BB b) noexcept nogil:
    return a.w[0] == b.w[0] and a.w[1] == b.w[1] and a.w[2] == b.w[2]

cdef inline int bb_count(BB a) noexcept nogil:
    return __builtin_popcountll(a.w[0]) + __builtin_popcountll(a.w[1]) + __builtin_popcountll(a.w[2])

cdef inline BB bb_empty() noexcept nogil:
    cdef BB r
    r.w[0] = 0
    r.w[1] = 0
    r.w[2] = 0
    return r

cdef inline BB bb_neighbours(BB a) noexcept nogil:
    """Squares edge-adjacent to some square of a (rows are 16 bits wide)."""
    cdef BB r
    r.w[0] = ((a.w[0] >> 16) | (a.w[1] << 48) | (a.w[0] << 16)
              | ((a.w[0] >> 1) & 0x7FFF7FFF7FFF7FFFULL) | ((a.w[0] << 1) & 0xFFFEFFFEFFFEFFFEULL))
    r.w[1] = ((a.w[1] >> 16) | (a.w[2] << 48) | (a.w[1] << 16) | (a.w[0] >> 48)
              | ((a.w[1] >> 1) & 0x7FFF7FFF7FFF7FFFULL) | ((a.w[1] << 1) & 0xFFFEFFFEFFFEFFFEULL))
    r.w[2] = ((a.w[2] >> 16) | (a.w[2] << 16) | (a.w[1] >> 48)
              | ((a.w[2] >> 1) & 0x7FFF7FFF7FFF7FFFULL) | ((a.w[2] << 1) & 0xFFFEFFFEFFFEFFFEULL)) & 0x0000FFFFFFFFFFFFULL
    return r

cdef inline BB flood(BB start, BB passable) noexcept nogil:
    """The part of passable connected to start (start included)."""
    cdef BB comp = start, grown
    while True:
        # two rings a round: the comparison costs as much as a ring
        grown = bb_or(comp, bb_and(bb_neighbours(comp), passable))
        grown = bb_or(grown, bb_and(bb_neighbours(grown), passable))
        if bb_eq(grown, comp):
            return comp
        comp = grown

cdef inline BB bb_square(int sq) noexcept nogil:
    cdef BB r = bb_empty()
    bb_set(&r, sq)
    return r

cdef inline int bb_pop(BB* b) noexcept nogil:
    """Remove and return the lowest square of b (b must be non-empty)."""
    cdef int k
    cdef uint64_t w
    for k in range(3):
        w = b.w[k]
        if w:
            b.w[k] = w & (w - 1)
            return (k << 6) + __builtin_ctzll(w)
    return -1

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
    # score: int32, so no game can wrap it in practice. Per turn a seat gains at most
    # 6 points of one colour from what never runs out (monument points 3, the wonder
    # point 1, revolts won 2); tiles and wars give fewer than 1,100 in a whole game
    # (each needs one of the 143 tiles from the bag). A score passes 2**31 - 1 only
    # after more than 350 million turns; the engine does not check for it.
    int32_t score[MAX_PLAYERS][4]
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

cdef BoardData BOARDS[2]
cdef int16_t NB[NSQ][4]          # edge neighbours of each square, NB_N[sq] of them
cdef int8_t NB_N[NSQ]
cdef BB ALL_SQUARES
cdef int8_t MONUMENT_COLOURS[6][2]   # the two colours of monument m (action layout above)

cdef uint64_t splitmix64(uint64_t* state) noexcept nogil
cdef void setup_game(GameState* s, int players, int board_id, uint64_t seed) noexcept nogil
cdef int gen_legal(GameState* s, int32_t* out) noexcept nogil
cdef enum:
    # what gen_legal_touching lists
    GEN_PLACEMENTS = 1      # tiles on squares that touch the board, leaders from the hand
    GEN_MOVES = 2           # leaders already on the board, moved
cdef int gen_legal_touching(GameState* s, int32_t* out, int parts) noexcept nogil
cdef void apply_unchecked(GameState* s, int action) noexcept nogil
cdef int is_legal(GameState* s, int action) noexcept nogil
cdef void uf_rebuild(GameState* s) noexcept nogil
cdef int random_playout(GameState* s, uint64_t* rng, int max_decisions) noexcept nogil
cdef void unseen_by(GameState* s, int seat, int* counts) noexcept nogil
cdef void redeal_hidden(GameState* s, int seat, uint64_t* rng) noexcept nogil
cdef bint deal_around_hands(GameState* s, int seat, const uint8_t* hands, uint64_t* rng) noexcept nogil
# the board as the rules see it, shared with ext/search/evaluation.pyx
cdef int exact_commitment(GameState* s) noexcept nogil
cdef void totals_with_treasures(GameState* s, int p, int* v) noexcept nogil
cdef void ranking_key(GameState* s, int p, int* v) noexcept nogil

cdef extern from "<assert.h>":
    # checked in the debug build only (NDEBUG in release): the argument is not evaluated there,
    # provided it is one call (Cython computes any other expression into a temporary first)
    void debug_assert "assert"(bint) nogil

cdef class CoreState:
    cdef GameState s


# The board as the rules see it: inline here, so the search kernels (evaluation, greedy, tree)
# compile them into their own code instead of calling across modules (they are hot).
cdef inline BB occupied(GameState* s) noexcept nogil:
    """Squares that connect: tiles face up or down, leaders and the wonder (R-KING-1)."""
    cdef BB r = bb_or(bb_or(s.up[0], s.up[1]), bb_or(s.up[2], s.up[3]))
    return bb_or(bb_or(bb_or(r, s.down), s.leaders), s.wonder)

cdef inline bint is_occupied(GameState* s, int sq) noexcept nogil:
    cdef uint8_t c = s.cell[sq]
    return (c != CELL_EMPTY and c != CELL_CAT) or s.leader_at[sq] != 0

cdef inline int uf_find(GameState* s, int sq) noexcept nogil:
    while s.parent[sq] != sq:
        s.parent[sq] = s.parent[s.parent[sq]]
        sq = s.parent[sq]
    return sq

cdef inline int commit_colour(GameState* s) noexcept nogil:
    """Revolts are fought with temples (R-REV-3), wars with the war's colour."""
    return RED if s.c_kind == CONFLICT_REVOLT else s.c_colour

cdef inline bint has_leader_on_board(GameState* s, int p) noexcept nogil:
    return (s.leader_sq[p][0] >= 0 or s.leader_sq[p][1] >= 0 or s.leader_sq[p][2] >= 0
            or s.leader_sq[p][3] >= 0)

cdef inline int hand_size(GameState* s, int p) noexcept nogil:
    return s.hand[p][0] + s.hand[p][1] + s.hand[p][2] + s.hand[p][3]

cdef inline void mark_kingdoms(GameState* s, uint8_t* mark) noexcept nogil:
    """mark[root] = 1 for every group that holds a leader."""
    cdef BB ls = s.leaders
    memset(mark, 0, NSQ)
    while bb_any(ls):
        mark[uf_find(s, bb_pop(&ls))] = 1

cdef inline int add_distinct(int* items, int n, int value) noexcept nogil:
    """Append value to items[:n] unless present; return the new count."""
    cdef int j
    for j in range(n):
        if items[j] == value:
            return n
    items[n] = value
    return n + 1

cdef inline int temples_beside(GameState* s, int sq) noexcept nogil:
    """Count the face-up temples next to a square (a leader's revolt strength, R-REV-2)."""
    cdef int k, n = 0
    for k in range(NB_N[sq]):
        n += bb_test(&s.up[RED], NB[sq][k])
    return n

cdef inline int kingdom_roots(GameState* s, int sq, uint8_t* mark, int* roots) noexcept nogil:
    """Write the distinct kingdoms among the groups next to an empty square; return how many."""
    cdef int n = 0, k, n_sq, r
    for k in range(NB_N[sq]):
        n_sq = NB[sq][k]
        if is_occupied(s, n_sq):
            r = uf_find(s, n_sq)
            if mark[r]:
                n = add_distinct(roots, n, r)
    return n

cdef inline void count_by_kingdom(GameState* s, uint8_t (*count)[4]) noexcept nogil:
    """count[root][c] = face-up tiles of colour c in the group of root (capped at 255)."""
    cdef BB b
    cdef int c, r
    memset(count, 0, NSQ * 4 * sizeof(uint8_t))
    for c in range(4):
        b = s.up[c]
        while bb_any(b):
            r = uf_find(s, bb_pop(&b))
            if count[r][c] < 255:
                count[r][c] += 1
