# cython: language_level=3
"""The rules kernel of Tigris & Euphrates: nogil kernels and their thin Python face.

Implements docs/rules.md (the rule ids R-* cited throughout; base game, 2-4
players, any board loaded as data, and the variants) following the decision
model of docs/engine.md: tile, leader, withdraw, catastrophe, swap and pass
actions; revolts and wars with the attacker's then the defender's
commitment; monuments; treasures; end of turn and game. Bit layouts are
documented once, in core.pxd. Nothing here evaluates a position: the search
kernels (ext.search) cimport this module, never the reverse.

The module is this file and the parts it includes, each named by its concern:

- core.pyx: the tables (neighbours, monuments, tile totals), splitmix64,
  setting up a game, and the Python face (register_board, CoreState);
- core_kingdoms.pxi: the union-find kingdoms, placing and removing tiles
  and leaders (R-KING-*);
- core_legal.pxi: legal decisions (gen_legal, gen_legal_touching, is_legal)
  and the options of every pending choice (R-LEAD-*, R-TILE-*, R-CAT-1,
  R-SWAP-1, R-MON-1, R-TRE-1, R-VAR-*);
- core_conflicts.pxi: revolts and wars (R-REV-*, R-WAR-*);
- core_turn.pxi: apply_unchecked and what follows a decision: the end of an
  action and of a turn, draws, treasures, monuments, buildings, the wonder,
  scoring, the end of the game and the ranking, random_playout (R-TURN-*,
  R-TILE-4, R-MON-*, R-TRE-*, R-END-*);
- core_consistency.pxi: the from-scratch check of every invariant
  (CoreState._consistency_problems);
- core_infosets.pxi: information sets: unseen tiles and re-dealing them
  (R-INFO-1).
"""
from libc.stdint cimport uint64_t, uint8_t, int8_t, int16_t, uint16_t, int32_t
from libc.string cimport memset, memcpy

cdef int TILE_TOTALS[4]

BOARDS_BY_NAME = {}
BOARD_NAMES = {}


cdef void _init_tables():
    cdef int sq, row, col, k
    for sq in range(NSQ):
        row = sq // NCOL
        col = sq % NCOL
        k = 0
        if row > 0:
            NB[sq][k] = sq - NCOL
            k += 1
        if col > 0:
            NB[sq][k] = sq - 1
            k += 1
        if col < NCOL - 1:
            NB[sq][k] = sq + 1
            k += 1
        if row < NROW - 1:
            NB[sq][k] = sq + NCOL
            k += 1
        NB_N[sq] = k
    ALL_SQUARES.w[0] = 0xFFFFFFFFFFFFFFFFULL
    ALL_SQUARES.w[1] = 0xFFFFFFFFFFFFFFFFULL
    ALL_SQUARES.w[2] = 0x0000FFFFFFFFFFFFULL
    pairs = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
    for k in range(6):
        MONUMENT_COLOURS[k][0] = pairs[k][0]
        MONUMENT_COLOURS[k][1] = pairs[k][1]
    TILE_TOTALS[0] = 30
    TILE_TOTALS[1] = 57
    TILE_TOTALS[2] = 36
    TILE_TOTALS[3] = 30

_init_tables()


# ---------------------------------------------------------------- state helpers

cdef uint64_t splitmix64(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


include "core_kingdoms.pxi"


# ---------------------------------------------------------------- setup

cdef void setup_game(GameState* s, int players, int board_id, uint64_t seed) noexcept nogil:
    """Set up a game per docs/engine.md (splitmix64, Fisher-Yates, pop draws)."""
    cdef BoardData* bd = &BOARDS[board_id]
    cdef int i, j, p, c, n, sq
    cdef uint8_t tmp
    cdef uint64_t rng = seed
    memset(s, 0, sizeof(GameState))
    s.players = players
    s.board_id = board_id
    for p in range(MAX_PLAYERS):
        for c in range(4):
            s.leader_sq[p][c] = -1
    for i in range(6):
        s.monument_sq[i] = -1
    for c in range(4):
        s.building_sq[c] = -1
    s.wonder_sq = -1
    for sq in range(NSQ):
        s.parent[sq] = sq
    for i in range(bd.n_temples):
        sq = bd.temples[i]
        place_tile(s, RED, sq)
        bb_set(&s.treasure, sq)
    n = 0
    for c in range(4):
        j = TILE_TOTALS[c] - (bd.n_temples if c == RED else 0)
        for i in range(j):
            s.bag[n] = c
            n += 1
    s.bag_len = n
    i = n - 1
    while i > 0:
        j = <int>(splitmix64(&rng) % <uint64_t>(i + 1))
        tmp = s.bag[i]
        s.bag[i] = s.bag[j]
        s.bag[j] = tmp
        i -= 1
    s.turn_owner = <int8_t>(splitmix64(&rng) % <uint64_t>players)
    for p in range(players):
        s.cats_left[p] = 2
        for i in range(HAND_SIZE):
            s.bag_len -= 1
            s.hand[p][s.bag[s.bag_len]] += 1
    s.to_act = s.turn_owner
    s.actions_left = 2
    s.phase = PH_ACTION
    s.placed = -1
    s.unification = -1
    s.c_att_leader = -1
    s.c_def_leader = -1
    s.c_att_commit = -1
    s.c_attacker = -1
    s.c_defender = -1
    s.c_colour = -1


include "core_legal.pxi"

include "core_conflicts.pxi"

include "core_turn.pxi"


# ================================================================ Python face

PHASE_NAMES = ("action", "revolt_attack", "revolt_defend", "war_choice",
               "war_attack", "war_defend", "monument", "treasure", "over",
               "building", "wonder", "wonder_point")
VARIANT_NAMES = ("english", "buildings", "wonder")   # bit i of GameState.variants
END_NAMES = (None, "treasures", "bag")
CONFLICT_NAMES = (None, "revolt", "war")


def register_board(str name, int board_id, river, temples, special):
    """Load a board's squares into the kernels' table (called by engine.boards users)."""
    if not 0 <= board_id < 2:
        raise ValueError(f"board id {board_id} out of range")
    cdef BoardData* bd = &BOARDS[board_id]
    cdef int sq
    memset(bd, 0, sizeof(BoardData))
    for sq in river:
        bb_set(&bd.river, sq)
    bd.land = bb_andnot(ALL_SQUARES, bd.river)
    for sq in special:
        bb_set(&bd.special, sq)
    bd.n_temples = 0
    for sq in sorted(temples):
        bd.temples[bd.n_temples] = sq
        bd.n_temples += 1
    bd.loaded = 1
    BOARDS_BY_NAME[name] = board_id
    BOARD_NAMES[board_id] = name


cdef list _bb_list(BB b):
    out = []
    while bb_any(b):
        out.append(bb_pop(&b))
    return out


cdef class CoreState:
    """The C game state; engine.State adds the checked, documented API on top."""

    def _setup(self, int players, int board_id, uint64_t seed, int variants=0):
        if not BOARDS[board_id].loaded:
            raise ValueError(f"board id {board_id} is not registered")
        setup_game(&self.s, players, board_id, seed)
        self.s.variants = variants

    @property
    def variants(self):
        """The names of the variants on (R-VAR-*), in VARIANT_NAMES order."""
        return [name for i, name in enumerate(VARIANT_NAMES) if self.s.variants & (1 << i)]

    def clone(self):
        """Return an independent copy (a struct copy)."""
        cdef CoreState c = type(self).__new__(type(self))
        c.s = self.s
        return c

    @property
    def players(self):
        return self.s.players

    @property
    def to_act(self):
        return self.s.to_act

    @property
    def turn_owner(self):
        return self.s.turn_owner

    @property
    def actions_left(self):
        return self.s.actions_left

    @property
    def phase(self):
        return PHASE_NAMES[self.s.phase]

    @property
    def board_name(self):
        return BOARD_NAMES[self.s.board_id]

    def is_terminal(self):
        """Return whether the game is over."""
        return self.s.phase == PH_OVER

    def legal_actions(self):
        """Return the legal decisions of the seat to act, sorted."""
        cdef int32_t buf[MAX_ACTIONS]
        cdef int n, i
        with nogil:
            n = gen_legal(&self.s, buf)
        return [buf[i] for i in range(n)]

    def count_legal(self):
        """Return the number of legal decisions (no list built)."""
        cdef int32_t buf[MAX_ACTIONS]
        return gen_legal(&self.s, buf)

    def _is_legal(self, int action):
        return is_legal(&self.s, action) == 1

    def _apply_raw(self, int action):
        """Apply if legal; return True, or False leaving the state unchanged."""
        if action < 0 or action >= NUM_ACTIONS or self.s.phase == PH_OVER:
            return False
        if not is_legal(&self.s, action):
            return False
        apply_unchecked(&self.s, action)
        return True

    def _apply_unchecked(self, int action):
        apply_unchecked(&self.s, action)

    def random_playout(self, uint64_t seed, int max_decisions=1000000):
        """Play uniformly random decisions to the end (or the cap); return the count."""
        cdef uint64_t rng = seed
        cdef int n
        with nogil:
            n = random_playout(&self.s, &rng, max_decisions)
        return n

    def scores(self):
        """Return [[k, r, b, g, treasures] per seat]."""
        return [[self.s.score[p][c] for c in range(4)] + [self.s.treasures_taken[p]]
                for p in range(self.s.players)]

    def snapshot(self):
        """Return the canonical snapshot dict (docs/engine.md)."""
        cdef GameState* s = &self.s
        cdef int P = s.players
        conflict = None
        if s.c_kind != CONFLICT_NONE:
            conflict = {"kind": CONFLICT_NAMES[s.c_kind], "colour": s.c_colour,
                        "attacker": s.c_attacker, "defender": s.c_defender,
                        "attacker_leader": s.c_att_leader, "defender_leader": s.c_def_leader,
                        "attacker_commit": s.c_att_commit}
        return {
            "players": P,
            "board": BOARD_NAMES[s.board_id],
            "variants": self.variants,
            "cells": [s.cell[i] for i in range(NSQ)],
            "buildings": [s.building_sq[c] for c in range(4)],
            "wonder": s.wonder_sq,
            "treasures": _bb_list(s.treasure),
            "leaders": [[s.leader_sq[p][c] for c in range(4)] for p in range(P)],
            "monuments": [s.monument_sq[m] for m in range(6)],
            "hands": [[s.hand[p][c] for c in range(4)] for p in range(P)],
            "bag": [s.bag[i] for i in range(s.bag_len)],
            "swapped": [[s.swapped[p][c] for c in range(4)] for p in range(P)],
            "discarded": [s.discarded[c] for c in range(4)],
            "scores": [[s.score[p][c] for c in range(4)] for p in range(P)],
            "treasures_taken": [s.treasures_taken[p] for p in range(P)],
            "catastrophes_left": [s.cats_left[p] for p in range(P)],
            "turn_owner": s.turn_owner,
            "actions_left": s.actions_left,
            "phase": PHASE_NAMES[s.phase],
            "to_act": s.to_act,
            "placed": s.placed,
            "unification": s.unification,
            "conflict": conflict,
            "committed": [bool(s.committed[p]) for p in range(P)],
            "end_reason": END_NAMES[s.end_reason],
        }

    def _load(self, dict snap):
        """Fill the struct from a snapshot that engine.state has validated."""
        cdef GameState* s = &self.s
        cdef int p, c, sq, i, v
        memset(s, 0, sizeof(GameState))
        s.players = snap["players"]
        s.board_id = BOARDS_BY_NAME[snap["board"]]
        for sq in range(NSQ):
            v = snap["cells"][sq]
            s.cell[sq] = v
            if CELL_UP <= v < CELL_DOWN:
                bb_set(&s.up[v - CELL_UP], sq)
            elif CELL_DOWN <= v < CELL_CAT:
                bb_set(&s.down, sq)
            elif v == CELL_CAT:
                bb_set(&s.cats, sq)
            elif v == CELL_WONDER:
                bb_set(&s.wonder, sq)
        s.variants = 0
        for name in snap.get("variants", ()):
            s.variants |= 1 << VARIANT_NAMES.index(name)
        for c in range(4):
            s.building_sq[c] = snap.get("buildings", (-1, -1, -1, -1))[c]
        s.wonder_sq = snap.get("wonder", -1)
        for sq in snap["treasures"]:
            bb_set(&s.treasure, sq)
        for p in range(MAX_PLAYERS):
            for c in range(4):
                s.leader_sq[p][c] = -1
        for p in range(s.players):
            for c in range(4):
                sq = snap["leaders"][p][c]
                if sq >= 0:
                    s.leader_sq[p][c] = sq
                    s.leader_at[sq] = 1 + p * 4 + c
                    bb_set(&s.leaders, sq)
            for c in range(4):
                s.hand[p][c] = snap["hands"][p][c]
                s.swapped[p][c] = snap["swapped"][p][c]
                s.score[p][c] = snap["scores"][p][c]
            s.treasures_taken[p] = snap["treasures_taken"][p]
            s.cats_left[p] = snap["catastrophes_left"][p]
            s.committed[p] = 1 if snap["committed"][p] else 0
        for i in range(6):
            s.monument_sq[i] = snap["monuments"][i]
        s.bag_len = len(snap["bag"])
        for i in range(s.bag_len):
            s.bag[i] = snap["bag"][i]
        for c in range(4):
            s.discarded[c] = snap["discarded"][c]
        s.turn_owner = snap["turn_owner"]
        s.actions_left = snap["actions_left"]
        s.phase = PHASE_NAMES.index(snap["phase"])
        s.to_act = snap["to_act"]
        s.placed = snap["placed"]
        s.unification = snap["unification"]
        s.end_reason = END_NAMES.index(snap["end_reason"])
        cf = snap["conflict"]
        if cf is None:
            clear_conflict(s)
        else:
            s.c_kind = CONFLICT_NAMES.index(cf["kind"])
            s.c_colour = cf["colour"]
            s.c_attacker = cf["attacker"]
            s.c_defender = cf["defender"]
            s.c_att_leader = cf["attacker_leader"]
            s.c_def_leader = cf["defender_leader"]
            s.c_att_commit = cf["attacker_commit"]
        uf_rebuild(s)

    def _consistency_problems(self):
        """Check every invariant from scratch; return a list of problems (ext/core_consistency.pxi)."""
        return consistency_problems(self)


include "core_consistency.pxi"


include "core_infosets.pxi"
