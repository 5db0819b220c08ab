# cython: language_level=3
"""Tigris & Euphrates rules kernels (nogil) and their thin Python face.

Implements docs/rules.md §1-13 (base game, 2-4 players, any board loaded as data)
following the decision model of docs/engine.md: tile, leader, withdraw,
catastrophe, swap and pass actions; revolts and wars with the attacker's then
the defender's commitment; monuments; treasures; end of turn and game.
Bit layouts are documented once, in core.pxd.
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


cdef inline void uf_union(GameState* s, int a, int b) noexcept nogil:
    a = uf_find(s, a)
    b = uf_find(s, b)
    if a < b:
        s.parent[b] = a
    elif b < a:
        s.parent[a] = b

cdef inline void uf_add(GameState* s, int sq) noexcept nogil:
    """Merge a newly occupied square with its occupied neighbours."""
    cdef int k, n
    s.parent[sq] = sq
    for k in range(NB_N[sq]):
        n = NB[sq][k]
        if is_occupied(s, n):
            uf_union(s, n, sq)

cdef void uf_remove(GameState* s, int sq) noexcept nogil:
    """Repair the union-find after one square left a group (the board already without it).

    Only the squares of that group change: each part that still hangs together
    is re-rooted at its lowest square, the root uf_union gives a group, so the
    result equals uf_rebuild's at a fraction of the cost on a full board.
    """
    cdef BB occ = occupied(s), done = bb_empty(), part
    cdef int k, n, root, m
    for k in range(NB_N[sq]):
        n = NB[sq][k]
        if not bb_test(&occ, n) or bb_test(&done, n):
            continue
        part = flood(bb_square(n), occ)
        done = bb_or(done, part)
        root = -1
        while bb_any(part):
            m = bb_pop(&part)
            if root < 0:
                root = m
            s.parent[m] = root

cdef void uf_rebuild(GameState* s) noexcept nogil:
    """Recompute the union-find from the board after any removal."""
    cdef BB occ = occupied(s), todo
    cdef int sq
    todo = occ
    while bb_any(todo):
        sq = bb_pop(&todo)
        s.parent[sq] = sq
        if sq % NCOL > 0 and bb_test(&occ, sq - 1):
            uf_union(s, sq - 1, sq)
        if sq >= NCOL and bb_test(&occ, sq - NCOL):
            uf_union(s, sq - NCOL, sq)


cdef inline void place_tile(GameState* s, int c, int sq) noexcept nogil:
    s.cell[sq] = CELL_UP + c
    bb_set(&s.up[c], sq)
    uf_add(s, sq)

cdef inline void remove_tile(GameState* s, int sq) noexcept nogil:
    """Take a face-up tile off the board (the caller rebuilds the union-find)."""
    cdef int c = s.cell[sq] - CELL_UP
    s.cell[sq] = CELL_EMPTY
    bb_clear(&s.up[c], sq)

cdef inline void place_leader(GameState* s, int p, int c, int sq) noexcept nogil:
    s.leader_at[sq] = 1 + p * 4 + c
    s.leader_sq[p][c] = sq
    bb_set(&s.leaders, sq)
    uf_add(s, sq)

cdef inline void remove_leader(GameState* s, int p, int c) noexcept nogil:
    """Return a leader to its owner's supply (the caller rebuilds the union-find)."""
    cdef int sq = s.leader_sq[p][c]
    s.leader_at[sq] = 0
    s.leader_sq[p][c] = -1
    bb_clear(&s.leaders, sq)


cdef inline int kingdoms_around(GameState* s, int sq, uint8_t* mark) noexcept nogil:
    """Count the distinct kingdoms among the groups next to an empty square."""
    cdef int roots[4]
    return kingdom_roots(s, sq, mark, roots)


cdef inline bint leader_at_owner(GameState* s, int sq, int* p, int* c) noexcept nogil:
    cdef int v = s.leader_at[sq]
    if v == 0:
        return False
    p[0] = (v - 1) >> 2
    c[0] = (v - 1) & 3
    return True


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


# ---------------------------------------------------------------- legal decisions

cdef int conflict_colours(GameState* s, int* colours) noexcept nogil:
    """Colours with two leaders in the unification tile's group, ascending."""
    cdef int root = uf_find(s, s.unification)
    cdef int c, p, k, n = 0
    for c in range(4):
        k = 0
        for p in range(s.players):
            if s.leader_sq[p][c] >= 0 and uf_find(s, s.leader_sq[p][c]) == root:
                k += 1
        if k >= 2:
            colours[n] = c
            n += 1
    return n

cdef int monument_options(GameState* s, int32_t* out) noexcept nogil:
    """Monument actions for the placed tile (without nomonument), ascending."""
    cdef int sq = s.placed, c, m, dr, dc, t, n = 0, nb = 0
    cdef int blocks[4]
    if sq < 0 or s.cell[sq] < CELL_UP or s.cell[sq] >= CELL_DOWN:
        return 0
    c = s.cell[sq] - CELL_UP
    for dr in range(1, -1, -1):
        for dc in range(1, -1, -1):
            if sq // NCOL - dr < 0 or sq // NCOL - dr + 1 >= NROW:
                continue
            if sq % NCOL - dc < 0 or sq % NCOL - dc + 1 >= NCOL:
                continue
            t = sq - dr * NCOL - dc
            if (s.cell[t] == CELL_UP + c and s.cell[t + 1] == CELL_UP + c
                    and s.cell[t + NCOL] == CELL_UP + c and s.cell[t + NCOL + 1] == CELL_UP + c):
                blocks[nb] = t
                nb += 1
    if nb == 0:
        return 0
    for m in range(6):
        if s.monument_sq[m] < 0 and (MONUMENT_COLOURS[m][0] == c or MONUMENT_COLOURS[m][1] == c):
            for t in range(nb):
                out[n] = A_MONUMENT + m * NSQ + blocks[t]
                n += 1
    return n

cdef int run_length(GameState* s, int sq, int c, int step) noexcept nogil:
    """Length of the straight run of face-up c tiles through sq (step 1: row, NCOL: column)."""
    cdef int n = 1, t = sq
    cdef uint8_t want = CELL_UP + c
    if s.cell[sq] != want:
        return 0
    while True:
        if step == 1 and t % NCOL == 0:
            break
        if step == NCOL and t < NCOL:
            break
        t -= step
        if s.cell[t] != want:
            break
        n += 1
    t = sq
    while True:
        if step == 1 and t % NCOL == NCOL - 1:
            break
        if step == NCOL and t + NCOL >= NSQ:
            break
        t += step
        if s.cell[t] != want:
            break
        n += 1
    return n

cdef int building_options(GameState* s, int32_t* out) noexcept nogil:
    """Building actions for the placed tile's lines of 3+ (R-VAR-BLD-2), ascending, without nobuilding."""
    cdef int sq = s.placed, c, d, step, t, lo, length, old = 0, n = 0, m = 0, i, j, a
    cdef int sqs[32]
    cdef int lens[32]
    if sq < 0 or not (s.variants & VAR_BUILDINGS) or s.cell[sq] < CELL_UP or s.cell[sq] >= CELL_DOWN:
        return 0
    c = s.cell[sq] - CELL_UP
    if s.building_sq[c] >= 0:
        old = run_length(s, s.building_sq[c], c, 1)
        t = run_length(s, s.building_sq[c], c, NCOL)
        if t > old:
            old = t
    for d in range(2):
        step = 1 if d == 0 else NCOL
        length = run_length(s, sq, c, step)
        if length < 3 or (s.building_sq[c] >= 0 and length <= old):
            continue
        lo = sq
        while True:
            if (step == 1 and lo % NCOL == 0) or (step == NCOL and lo < NCOL):
                break
            if s.cell[lo - step] != CELL_UP + c:
                break
            lo -= step
        for i in range(length):
            t = lo + i * step
            for j in range(m):
                if sqs[j] == t:
                    if length > lens[j]:
                        lens[j] = length
                    break
            else:
                sqs[m] = t
                lens[m] = length
                m += 1
    # ascending by square (a handful of entries)
    for i in range(1, m):
        a = sqs[i]
        j = i - 1
        while j >= 0 and sqs[j] > a:
            sqs[j + 1] = sqs[j]
            j -= 1
        sqs[j + 1] = a
    for i in range(m):
        out[n] = A_BUILDING + c * NSQ + sqs[i]
        n += 1
    return n

cdef int wonder_options(GameState* s, int32_t* out) noexcept nogil:
    """Wonder actions for crosses of five completed by the placed tile (R-VAR-WONDER-1), ascending."""
    cdef int sq = s.placed, c, i, k, x, n = 0
    cdef int cands[5]
    cdef uint8_t want
    if sq < 0 or not (s.variants & VAR_WONDER) or s.wonder_sq >= 0:
        return 0
    if s.cell[sq] < CELL_UP or s.cell[sq] >= CELL_DOWN:
        return 0
    want = s.cell[sq]
    # sq and its neighbours in ascending order: up, left, sq, right, down
    cands[0] = sq - NCOL if sq >= NCOL else -1
    cands[1] = sq - 1 if sq % NCOL > 0 else -1
    cands[2] = sq
    cands[3] = sq + 1 if sq % NCOL < NCOL - 1 else -1
    cands[4] = sq + NCOL if sq + NCOL < NSQ else -1
    for i in range(5):
        x = cands[i]
        if x < 0 or NB_N[x] != 4 or s.cell[x] != want:
            continue
        for k in range(4):
            if s.cell[NB[x][k]] != want:
                break
        else:
            out[n] = A_WONDER + x
            n += 1
    return n

cdef int treasure_candidates(GameState* s, int seat, int* out, int* to_take) noexcept nogil:
    """Treasures the seat's trader must choose among (special ones first)."""
    cdef int root, n = 0, ns = 0, sq, i
    cdef int all_sq[NSQ]
    cdef int spec[NSQ]
    cdef BB t = s.treasure
    cdef BoardData* bd = &BOARDS[s.board_id]
    to_take[0] = 0
    if s.leader_sq[seat][GREEN] < 0:
        return 0
    root = uf_find(s, s.leader_sq[seat][GREEN])
    while bb_any(t):
        sq = bb_pop(&t)
        if uf_find(s, sq) == root:
            all_sq[n] = sq
            n += 1
            if bb_test(&bd.special, sq):
                spec[ns] = sq
                ns += 1
    if n < 2:
        return 0
    to_take[0] = n - 1
    if ns > 0:
        for i in range(ns):
            out[i] = spec[i]
        return ns
    for i in range(n):
        out[i] = all_sq[i]
    return n

cdef void leader_targets(GameState* s, int p, int c, BB targets, BB adj, int8_t* nk,
                         int32_t* out, int* n) noexcept nogil:
    """Append legal `leader c sq` actions for a leader on the board (lifted first, R-LEAD-1).

    Lifting only changes the lifted leader's own group, which may fall apart
    into parts; targets next to that group are judged against those parts,
    every other target keeps its count from the board as it stands.
    """
    cdef int cur = s.leader_sq[p][c], sq, k, j, m, n_sq, nparts = 0, nkd
    cdef BB occ = occupied(s), group, rest, others, near_group
    cdef BB parts[4]
    cdef bint part_kingdom[4]
    cdef int seen[4]
    cdef uint8_t mark[NSQ]
    cdef bint dup
    group = flood(bb_square(cur), occ)
    rest = occ
    bb_clear(&rest, cur)
    others = s.leaders
    bb_clear(&others, cur)
    for k in range(NB_N[cur]):
        n_sq = NB[cur][k]
        if bb_test(&rest, n_sq):
            dup = False
            for j in range(nparts):
                if bb_test(&parts[j], n_sq):
                    dup = True
            if not dup:
                parts[nparts] = flood(bb_square(n_sq), rest)
                part_kingdom[nparts] = bb_any(bb_and(parts[nparts], others))
                nparts += 1
    near_group = bb_neighbours(group)
    bb_clear(&targets, cur)
    mark_kingdoms(s, mark)
    while bb_any(targets):
        sq = bb_pop(&targets)
        if not bb_test(&near_group, sq):
            if not bb_test(&adj, sq) or nk[sq] <= 1:
                out[n[0]] = A_LEADER + c * NSQ + sq
                n[0] += 1
            continue
        # count kingdoms around sq on the board without the lifted leader
        nkd = 0
        for k in range(NB_N[sq]):
            n_sq = NB[sq][k]
            if not bb_test(&rest, n_sq):
                continue
            if bb_test(&group, n_sq):
                for j in range(nparts):
                    if bb_test(&parts[j], n_sq):
                        m = NSQ + j
                        if not part_kingdom[j]:
                            m = -1
                        break
            else:
                m = uf_find(s, n_sq)
                if not mark[m]:
                    m = -1
            if m >= 0:
                nkd = add_distinct(seen, nkd, m)
        if nkd <= 1:
            out[n[0]] = A_LEADER + c * NSQ + sq
            n[0] += 1


cdef int side_strength(GameState* s, int leader_sq, int c) noexcept nogil:
    """Base strength of a leader in the pending conflict (R-REV-2, R-WAR-3)."""
    cdef BB passable
    if s.c_kind == CONFLICT_REVOLT:
        return temples_beside(s, leader_sq)
    passable = occupied(s)
    bb_clear(&passable, s.unification)
    return bb_count(bb_and(flood(bb_square(leader_sq), passable), s.up[c]))

cdef int exact_commitment(GameState* s) noexcept nogil:
    """The commitment that makes the attacker's total exceed the defender's base, or the defender's tie the attacker's total."""
    cdef int att = side_strength(s, s.c_att_leader, s.c_colour)
    cdef int dfd = side_strength(s, s.c_def_leader, s.c_colour)
    if s.phase == PH_REVOLT_ATTACK or s.phase == PH_WAR_ATTACK:
        return dfd - att + 1
    return att + s.c_att_commit - dfd

cdef int gen_legal(GameState* s, int32_t* out) noexcept nogil:
    """Write the legal decisions of the seat to act, ascending; return the count."""
    return _gen(s, out, False, GEN_PLACEMENTS | GEN_MOVES)


cdef int gen_legal_touching(GameState* s, int32_t* out, int parts) noexcept nogil:
    """Write the action phase's tiles on squares that touch the board and leader placements, in gen_legal's order; return the count.

    A subsequence of gen_legal (nothing outside the action phase): what the
    rollout's prior can rank above a tile that touches nothing, so a rollout
    need not list the rest when one of these ranks higher. `parts` says
    which: GEN_PLACEMENTS (the tiles and the leaders from the hand),
    GEN_MOVES (the leaders already on the board, whose targets cost the
    most to list), or both.
    """
    if s.phase != PH_ACTION:
        return 0
    return _gen(s, out, True, parts)


cdef int _gen(GameState* s, int32_t* out, bint touching_only, int parts) noexcept nogil:
    cdef BoardData* bd = &BOARDS[s.board_id]
    cdef int n = 0, p = s.to_act, c, sq, k, r, b, g, i, to_take
    cdef int cols[4]
    cdef int cand[NSQ]
    cdef int open_land[NSQ]
    cdef int open_river[NSQ]
    cdef int n_land = 0, n_river = 0, n_free
    cdef int free_sq[NSQ]
    cdef int32_t base
    cdef uint8_t mark[NSQ]
    cdef int8_t nk[NSQ]
    cdef BB occ, empty, adj, cands, targets, up_all, uniting, tile_squares
    if s.phase == PH_ACTION:
        occ = occupied(s)
        empty = bb_andnot(ALL_SQUARES, bb_or(occ, s.cats))
        adj = bb_and(bb_neighbours(occ), empty)
        mark_kingdoms(s, mark)
        uniting = bb_empty()            # squares a tile may not take: next to 3+ kingdoms (R-TILE-2)
        cands = adj
        while bb_any(cands):
            sq = bb_pop(&cands)
            nk[sq] = kingdoms_around(s, sq, mark)
            if nk[sq] > 2:
                bb_set(&uniting, sq)
        if parts & GEN_PLACEMENTS:
            # the open squares are listed once and shared by the colours in hand
            tile_squares = adj if touching_only else empty
            cands = bb_andnot(bb_and(tile_squares, bd.land), uniting)
            while bb_any(cands):
                open_land[n_land] = bb_pop(&cands)
                n_land += 1
            cands = bb_andnot(bb_and(tile_squares, bd.river), uniting)
            while bb_any(cands):
                open_river[n_river] = bb_pop(&cands)
                n_river += 1
            for c in range(4):
                if s.hand[p][c] == 0:
                    continue
                base = A_TILE + c * NSQ
                if c == BLUE:
                    for i in range(n_river):
                        out[n + i] = base + open_river[i]
                    n += n_river
                else:
                    for i in range(n_land):
                        out[n + i] = base + open_land[i]
                    n += n_land
        targets = bb_and(bb_and(empty, bd.land), bb_neighbours(s.up[RED]))
        # a leader from the hand may take the same squares in every colour: listed once
        n_free = -1
        for c in range(4):
            if s.leader_sq[p][c] < 0:
                if not (parts & GEN_PLACEMENTS):
                    continue
                if n_free < 0:
                    n_free = 0
                    cands = targets
                    while bb_any(cands):
                        sq = bb_pop(&cands)
                        if not bb_test(&adj, sq) or nk[sq] <= 1:
                            free_sq[n_free] = sq
                            n_free += 1
                base = A_LEADER + c * NSQ
                for i in range(n_free):
                    out[n + i] = base + free_sq[i]
                n += n_free
            elif parts & GEN_MOVES:
                leader_targets(s, p, c, targets, adj, nk, out, &n)
        if touching_only:
            return n
        for c in range(4):
            if s.leader_sq[p][c] >= 0:
                out[n] = A_WITHDRAW + c
                n += 1
        if s.cats_left[p] > 0:
            up_all = bb_or(bb_or(s.up[0], s.up[1]), bb_or(s.up[2], s.up[3]))
            cands = bb_or(empty, bb_andnot(up_all, s.treasure))
            for c in range(4):
                if s.building_sq[c] >= 0:
                    bb_clear(&cands, s.building_sq[c])
            while bb_any(cands):
                out[n] = A_CAT + bb_pop(&cands)
                n += 1
        for g in range(s.hand[p][3] + 1):
            for b in range(s.hand[p][2] + 1):
                for r in range(s.hand[p][1] + 1):
                    for k in range(s.hand[p][0] + 1):
                        if k + r + b + g > 0:
                            out[n] = A_SWAP + k + 7 * r + 49 * b + 343 * g
                            n += 1
        out[n] = A_PASS
        n += 1
    elif (s.phase == PH_REVOLT_ATTACK or s.phase == PH_REVOLT_DEFEND
          or s.phase == PH_WAR_ATTACK or s.phase == PH_WAR_DEFEND):
        if s.variants & VAR_ENGLISH:
            # R-VAR-ENGLISH: none, or exactly what beats (attacker) or ties (defender) the other's total
            out[0] = A_COMMIT
            n = 1
            k = exact_commitment(s)
            if 1 <= k <= s.hand[p][commit_colour(s)]:
                out[1] = A_COMMIT + k
                n = 2
        else:
            for i in range(s.hand[p][commit_colour(s)] + 1):
                out[n] = A_COMMIT + i
                n += 1
    elif s.phase == PH_WAR_CHOICE:
        k = conflict_colours(s, cols)
        for i in range(k):
            out[n] = A_WAR + cols[i]
            n += 1
    elif s.phase == PH_MONUMENT:
        n = monument_options(s, out)
        out[n] = A_NOMONUMENT
        n += 1
    elif s.phase == PH_TREASURE:
        k = treasure_candidates(s, p, cand, &to_take)
        for i in range(k):
            out[n] = A_TREASURE + cand[i]
            n += 1
    elif s.phase == PH_BUILDING:
        n = building_options(s, out)
        out[n] = A_NOBUILDING
        n += 1
    elif s.phase == PH_WONDER:
        n = wonder_options(s, out)
        out[n] = A_NOWONDER
        n += 1
    elif s.phase == PH_WONDER_POINT:
        for c in range(4):
            out[n] = A_WONDERPOINT + c
            n += 1
    return n

cdef int is_legal(GameState* s, int action) noexcept nogil:
    cdef int32_t buf[MAX_ACTIONS]
    cdef int n = gen_legal(s, buf), lo = 0, hi, mid
    hi = n - 1
    while lo <= hi:
        mid = (lo + hi) >> 1
        if buf[mid] == action:
            return 1
        if buf[mid] < action:
            lo = mid + 1
        else:
            hi = mid - 1
    return 0


# ---------------------------------------------------------------- resolution

cdef void game_over(GameState* s, int reason) noexcept nogil:
    s.phase = PH_OVER
    s.to_act = -1
    s.end_reason = reason

cdef bint draw_tiles(GameState* s, int p, int count) noexcept nogil:
    """Draw one by one; an empty bag ends the game at once (R-END-1b)."""
    cdef int i
    for i in range(count):
        if s.bag_len == 0:
            game_over(s, END_BAG)
            return False
        s.bag_len -= 1
        s.hand[p][s.bag[s.bag_len]] += 1
    return True

cdef void return_orphan_leaders(GameState* s) noexcept nogil:
    """R-LEAD-5: leaders with no adjacent face-up temple go to supply."""
    cdef BB near = bb_neighbours(s.up[RED])
    cdef BB ls = bb_andnot(s.leaders, near)
    cdef int sq, p, c
    while bb_any(ls):
        sq = bb_pop(&ls)
        leader_at_owner(s, sq, &p, &c)
        remove_leader(s, p, c)

cdef void end_turn(GameState* s) noexcept nogil:
    """R-TURN-3: monument points, then the wonder point (a decision), then finish_turn."""
    cdef int p = s.turn_owner, c, m, root
    for c in range(4):
        if s.leader_sq[p][c] >= 0:
            root = uf_find(s, s.leader_sq[p][c])
            for m in range(6):
                if (s.monument_sq[m] >= 0
                        and (MONUMENT_COLOURS[m][0] == c or MONUMENT_COLOURS[m][1] == c)
                        and uf_find(s, s.monument_sq[m]) == root):
                    s.score[p][c] += 1
    if (s.wonder_sq >= 0 and s.leader_sq[p][BLACK] >= 0
            and uf_find(s, s.leader_sq[p][BLACK]) == uf_find(s, s.wonder_sq)):
        s.placed = -1
        s.phase = PH_WONDER_POINT
        s.to_act = p
        return
    finish_turn(s)

cdef void finish_turn(GameState* s) noexcept nogil:
    """R-TURN-3 after the points: refills, the end check (R-END-1), the next seat's turn."""
    cdef int p = s.turn_owner, i, q
    if not draw_tiles(s, p, HAND_SIZE - hand_size(s, p)):
        return
    for i in range(1, s.players):
        q = (p + i) % s.players
        if s.committed[q]:
            if not draw_tiles(s, q, HAND_SIZE - hand_size(s, q)):
                return
    if bb_count(s.treasure) <= 2:
        game_over(s, END_TREASURES)
        return
    s.turn_owner = (p + 1) % s.players
    s.to_act = s.turn_owner
    s.actions_left = 2
    s.phase = PH_ACTION
    for q in range(MAX_PLAYERS):
        s.committed[q] = 0

cdef void end_action(GameState* s) noexcept nogil:
    s.placed = -1
    s.actions_left -= 1
    if s.actions_left <= 0:
        end_turn(s)
    else:
        s.phase = PH_ACTION
        s.to_act = s.turn_owner

cdef void treasure_check(GameState* s) noexcept nogil:
    """R-TRE-1: traders take treasures until one is left in their kingdom."""
    cdef int cand[NSQ]
    cdef int troot[NSQ]
    cdef int q, n, to_take, i, nt, root, held
    cdef bint again = True
    cdef BB t
    while again:
        again = False
        nt = -1
        for q in range(s.players):
            if s.leader_sq[q][GREEN] < 0:
                continue
            if nt < 0:
                # the treasures' groups, found once for every seat's trader (none: not at all)
                nt = 0
                t = s.treasure
                while bb_any(t):
                    troot[nt] = uf_find(s, bb_pop(&t))
                    nt += 1
            root = uf_find(s, s.leader_sq[q][GREEN])
            held = 0
            for i in range(nt):
                if troot[i] == root:
                    held += 1
            if held < 2:
                continue
            n = treasure_candidates(s, q, cand, &to_take)
            if n == 0:
                continue
            if to_take >= n:
                for i in range(n):
                    bb_clear(&s.treasure, cand[i])
                    s.treasures_taken[q] += 1
                again = True
                break
            s.phase = PH_TREASURE
            s.to_act = q
            return
    end_action(s)

cdef inline bint offer(GameState* s, int n_options, int phase) noexcept nogil:
    """Ask the turn owner to choose when there are options; return whether it was asked."""
    if n_options == 0:
        return False
    s.phase = phase
    s.to_act = s.turn_owner
    return True

cdef void building_check(GameState* s) noexcept nogil:
    """After a tile's conflicts: offer its colour's building on a new line (R-VAR-BLD-2)."""
    cdef int32_t buf[32]
    if not offer(s, building_options(s, buf), PH_BUILDING):
        monument_check(s)

cdef void monument_check(GameState* s) noexcept nogil:
    cdef int32_t buf[32]
    if not offer(s, monument_options(s, buf), PH_MONUMENT):
        wonder_check(s)

cdef void wonder_check(GameState* s) noexcept nogil:
    """After the monument check: offer the wonder on a cross the tile completed (R-VAR-WONDER-1)."""
    cdef int32_t buf[8]
    if not offer(s, wonder_options(s, buf), PH_WONDER):
        treasure_check(s)

cdef void unbuild_on(GameState* s, int sq) noexcept nogil:
    """A building on a tile turned face down or removed goes back to supply (R-VAR-BLD-5)."""
    cdef int c
    for c in range(4):
        if s.building_sq[c] == sq:
            s.building_sq[c] = -1

cdef void clear_conflict(GameState* s) noexcept nogil:
    s.c_kind = CONFLICT_NONE
    s.c_colour = -1
    s.c_attacker = -1
    s.c_defender = -1
    s.c_att_leader = -1
    s.c_def_leader = -1
    s.c_att_commit = -1

cdef void start_war(GameState* s, int c) noexcept nogil:
    cdef int root = uf_find(s, s.unification)
    cdef int seats[2]
    cdef int n = 0, p, i, att
    for p in range(s.players):
        if s.leader_sq[p][c] >= 0 and uf_find(s, s.leader_sq[p][c]) == root and n < 2:
            seats[n] = p
            n += 1
    att = -1
    for i in range(s.players):
        p = (s.turn_owner + i) % s.players
        if p == seats[0] or p == seats[1]:
            att = p
            break
    s.c_kind = CONFLICT_WAR
    s.c_colour = c
    s.c_attacker = att
    s.c_defender = seats[1] if att == seats[0] else seats[0]
    s.c_att_leader = s.leader_sq[s.c_attacker][c]
    s.c_def_leader = s.leader_sq[s.c_defender][c]
    s.c_att_commit = -1
    s.phase = PH_WAR_ATTACK
    s.to_act = att

cdef void continue_wars(GameState* s) noexcept nogil:
    """R-WAR-1/6: resolve wars while the unified kingdom has a doubled colour."""
    cdef int cols[4]
    cdef int n = conflict_colours(s, cols)
    if n == 0:
        s.unification = -1
        clear_conflict(s)
        building_check(s)
    elif n == 1:
        start_war(s, cols[0])
    else:
        clear_conflict(s)
        s.phase = PH_WAR_CHOICE
        s.to_act = s.turn_owner

cdef void resolve_war(GameState* s, int def_commit) noexcept nogil:
    cdef int c = s.c_colour, att = s.c_attacker, dfd = s.c_defender
    cdef BB passable = occupied(s)
    cdef BB side_att, side_def, loser_side, removal
    cdef int att_str, def_str, winner, loser, removed = 0, sq
    bb_clear(&passable, s.unification)
    side_att = flood(bb_square(s.c_att_leader), passable)
    side_def = flood(bb_square(s.c_def_leader), passable)
    att_str = bb_count(bb_and(side_att, s.up[c])) + s.c_att_commit
    def_str = bb_count(bb_and(side_def, s.up[c])) + def_commit
    if att_str > def_str:
        winner = att
        loser = dfd
        loser_side = side_def
    else:
        winner = dfd
        loser = att
        loser_side = side_att
    remove_leader(s, loser, c)
    removal = bb_and(loser_side, s.up[c])
    if c == RED:
        removal = bb_andnot(removal, s.treasure)
        removal = bb_andnot(removal, bb_neighbours(s.leaders))
    if s.building_sq[c] >= 0:
        bb_clear(&removal, s.building_sq[c])     # R-VAR-BLD-5
    while bb_any(removal):
        sq = bb_pop(&removal)
        remove_tile(s, sq)
        removed += 1
    s.discarded[c] += removed
    s.score[winner][c] += 1 + removed
    clear_conflict(s)
    return_orphan_leaders(s)
    uf_rebuild(s)
    continue_wars(s)

cdef void resolve_revolt(GameState* s, int def_commit) noexcept nogil:
    cdef int att_str, def_str, loser, winner
    att_str = temples_beside(s, s.c_att_leader) + s.c_att_commit
    def_str = temples_beside(s, s.c_def_leader) + def_commit
    if att_str > def_str:
        winner = s.c_attacker
        loser = s.c_defender
    else:
        winner = s.c_defender
        loser = s.c_attacker
    remove_leader(s, loser, s.c_colour)
    s.score[winner][RED] += 1
    clear_conflict(s)
    uf_rebuild(s)
    treasure_check(s)

cdef void score_tile(GameState* s, int sq, int c) noexcept nogil:
    """R-TILE-4: the leader of the tile's colour scores, else the king."""
    cdef int root = uf_find(s, sq), p, king_owner = -1, points = 1
    if s.building_sq[c] >= 0 and uf_find(s, s.building_sq[c]) == root:
        points = 2                                   # R-VAR-BLD-3
    for p in range(s.players):
        if s.leader_sq[p][c] >= 0 and uf_find(s, s.leader_sq[p][c]) == root:
            s.score[p][c] += points
            return
        if s.leader_sq[p][BLACK] >= 0 and uf_find(s, s.leader_sq[p][BLACK]) == root:
            king_owner = p
    if king_owner >= 0:
        s.score[king_owner][c] += points

cdef void apply_unchecked(GameState* s, int a) noexcept nogil:
    """Apply a legal decision and run the game forward to the next decision."""
    cdef int p = s.to_act, c, sq, q, n, k, i, t, m
    cdef uint8_t mark[NSQ]
    cdef int counts[4]
    cdef BB gone, left
    if s.phase == PH_ACTION:
        if a < A_LEADER:
            c = (a - A_TILE) // NSQ
            sq = (a - A_TILE) % NSQ
            mark_kingdoms(s, mark)
            k = kingdoms_around(s, sq, mark)
            s.hand[p][c] -= 1
            place_tile(s, c, sq)
            s.placed = sq
            if k == 2:
                s.unification = sq
                continue_wars(s)
            else:
                score_tile(s, sq, c)
                building_check(s)
        elif a < A_WITHDRAW:
            c = (a - A_LEADER) // NSQ
            sq = (a - A_LEADER) % NSQ
            if s.leader_sq[p][c] >= 0:
                k = s.leader_sq[p][c]
                remove_leader(s, p, c)
                uf_remove(s, k)
            place_leader(s, p, c, sq)
            k = uf_find(s, sq)
            for q in range(s.players):
                if q != p and s.leader_sq[q][c] >= 0 and uf_find(s, s.leader_sq[q][c]) == k:
                    s.c_kind = CONFLICT_REVOLT
                    s.c_colour = c
                    s.c_attacker = p
                    s.c_defender = q
                    s.c_att_leader = sq
                    s.c_def_leader = s.leader_sq[q][c]
                    s.c_att_commit = -1
                    s.phase = PH_REVOLT_ATTACK
                    return
            treasure_check(s)
        elif a < A_CAT:
            k = s.leader_sq[p][a - A_WITHDRAW]
            remove_leader(s, p, a - A_WITHDRAW)
            uf_remove(s, k)
            treasure_check(s)
        elif a < A_SWAP:
            sq = a - A_CAT
            gone = bb_empty()
            if s.cell[sq] != CELL_EMPTY:
                s.discarded[s.cell[sq] - CELL_UP] += 1
                remove_tile(s, sq)
                bb_set(&gone, sq)
            s.cell[sq] = CELL_CAT
            bb_set(&s.cats, sq)
            s.cats_left[p] -= 1
            left = s.leaders
            return_orphan_leaders(s)
            # every part of a group that lost squares lies next to one of them:
            # re-rooting the parts around each is the whole repair
            gone = bb_or(gone, bb_andnot(left, s.leaders))
            while bb_any(gone):
                uf_remove(s, bb_pop(&gone))
            treasure_check(s)
        elif a < A_PASS:
            k = a - A_SWAP
            counts[0] = k % 7
            counts[1] = k // 7 % 7
            counts[2] = k // 49 % 7
            counts[3] = k // 343 % 7
            n = 0
            for c in range(4):
                s.hand[p][c] -= counts[c]
                s.swapped[p][c] += counts[c]
                n += counts[c]
            if draw_tiles(s, p, n):
                end_action(s)
        else:
            end_turn(s)
    elif s.phase == PH_REVOLT_ATTACK or s.phase == PH_WAR_ATTACK:
        n = a - A_COMMIT
        s.hand[p][commit_colour(s)] -= n
        s.discarded[commit_colour(s)] += n   # committed tiles leave the game in view
        s.c_att_commit = n
        if n > 0:
            s.committed[p] = 1
        s.phase = PH_REVOLT_DEFEND if s.phase == PH_REVOLT_ATTACK else PH_WAR_DEFEND
        s.to_act = s.c_defender
    elif s.phase == PH_REVOLT_DEFEND or s.phase == PH_WAR_DEFEND:
        n = a - A_COMMIT
        s.hand[p][commit_colour(s)] -= n
        s.discarded[commit_colour(s)] += n
        if n > 0:
            s.committed[p] = 1
        if s.phase == PH_REVOLT_DEFEND:
            resolve_revolt(s, n)
        else:
            resolve_war(s, n)
    elif s.phase == PH_WAR_CHOICE:
        start_war(s, a - A_WAR)
    elif s.phase == PH_MONUMENT:
        if a != A_NOMONUMENT:
            m = (a - A_MONUMENT) // NSQ
            t = (a - A_MONUMENT) % NSQ
            c = s.cell[t] - CELL_UP
            for i in range(4):
                sq = t + (i & 1) + (i >> 1) * NCOL
                s.cell[sq] = CELL_DOWN + c
                bb_clear(&s.up[c], sq)
                bb_set(&s.down, sq)
                unbuild_on(s, sq)
            s.monument_sq[m] = t
            return_orphan_leaders(s)
            uf_rebuild(s)
        wonder_check(s)
    elif s.phase == PH_TREASURE:
        bb_clear(&s.treasure, a - A_TREASURE)
        s.treasures_taken[p] += 1
        treasure_check(s)
    elif s.phase == PH_BUILDING:
        if a != A_NOBUILDING:
            s.building_sq[(a - A_BUILDING) // NSQ] = (a - A_BUILDING) % NSQ
        monument_check(s)
    elif s.phase == PH_WONDER:
        if a != A_NOWONDER:
            t = a - A_WONDER
            c = s.cell[t] - CELL_UP
            for i in range(5):
                sq = t if i == 4 else NB[t][i]
                remove_tile(s, sq)
                s.cell[sq] = CELL_WONDER
                bb_set(&s.wonder, sq)
                unbuild_on(s, sq)
            s.discarded[c] += 5
            s.wonder_sq = t
            return_orphan_leaders(s)
            uf_rebuild(s)
        treasure_check(s)
    elif s.phase == PH_WONDER_POINT:
        s.score[p][a - A_WONDERPOINT] += 1
        finish_turn(s)

cdef void totals_with_treasures(GameState* s, int p, int* v) noexcept nogil:
    """Write a seat's colour totals with each treasure added to the weakest (R-END-2)."""
    cdef int c, t, lo
    for c in range(4):
        v[c] = s.score[p][c]
    for t in range(s.treasures_taken[p]):
        lo = 0
        for c in range(1, 4):
            if v[c] < v[lo]:
                lo = c
        v[lo] += 1

cdef void ranking_key(GameState* s, int p, int* v) noexcept nogil:
    """Write a seat's colour totals, treasures on the weakest, ascending: seats rank by it (R-END-2)."""
    cdef int c, j, tmp
    totals_with_treasures(s, p, v)
    for c in range(4):
        for j in range(3 - c):
            if v[j] > v[j + 1]:
                tmp = v[j]
                v[j] = v[j + 1]
                v[j + 1] = tmp

cdef int random_playout(GameState* s, uint64_t* rng, int max_decisions) noexcept nogil:
    """Play uniformly random legal decisions; return how many were played."""
    cdef int32_t buf[MAX_ACTIONS]
    cdef int n, played = 0
    while s.phase != PH_OVER and played < max_decisions:
        n = gen_legal(s, buf)
        apply_unchecked(s, buf[splitmix64(rng) % <uint64_t>n])
        played += 1
    return played


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
        """Check every invariant from scratch; return a list of problems."""
        cdef GameState* s = &self.s
        cdef int sq, c, p, q, v, n, m, i
        cdef BB b
        problems = []
        bd = &BOARDS[s.board_id]
        # mailbox against bitboards
        for sq in range(NSQ):
            v = s.cell[sq]
            for c in range(4):
                if bb_test(&s.up[c], sq) != (v == CELL_UP + c):
                    problems.append(f"square {sq}: face-up bitboard of colour {c} disagrees with cell {v}")
            if bb_test(&s.down, sq) != (CELL_DOWN <= v < CELL_CAT):
                problems.append(f"square {sq}: face-down bitboard disagrees with cell {v}")
            if bb_test(&s.cats, sq) != (v == CELL_CAT):
                problems.append(f"square {sq}: catastrophe bitboard disagrees with cell {v}")
            if bb_test(&s.leaders, sq) != (s.leader_at[sq] != 0):
                problems.append(f"square {sq}: leader bitboard disagrees with leader_at")
            if bb_test(&s.wonder, sq) != (v == CELL_WONDER):
                problems.append(f"square {sq}: wonder bitboard disagrees with cell {v}")
            if v > CELL_WONDER:
                problems.append(f"square {sq}: bad cell value {v}")
            if CELL_UP <= v < CELL_CAT and ((v - CELL_UP) % 4 == BLUE) != bb_test(&bd.river, sq):
                problems.append(f"square {sq}: tile colour {(v - 1) % 4} on the wrong terrain")
        # union-find against a from-scratch flood fill
        occ = occupied(s)
        label = {}
        for sq in _bb_list(occ):
            if sq in label:
                continue
            comp = flood(bb_square(sq), occ)
            for t in _bb_list(comp):
                label[t] = sq
        roots = {}
        for sq, lab in label.items():
            r = uf_find(s, sq)
            if roots.setdefault(lab, r) != r:
                problems.append(f"union-find: square {sq} has root {r}, its group has {roots[lab]}")
        if len(set(roots.values())) != len(roots):
            problems.append("union-find: two groups share a root")
        # leaders
        near_temple = bb_neighbours(s.up[RED])
        for p in range(MAX_PLAYERS):
            for c in range(4):
                sq = s.leader_sq[p][c]
                if sq < 0:
                    continue
                if p >= s.players:
                    problems.append(f"seat {p} does not play but has a leader")
                    continue
                if s.leader_at[sq] != 1 + p * 4 + c:
                    problems.append(f"leader {p}/{c}: leader_at[{sq}] disagrees")
                if s.cell[sq] != CELL_EMPTY or bb_test(&bd.river, sq):
                    problems.append(f"leader {p}/{c} at {sq}: not on an empty land square")
                if not bb_test(&near_temple, sq):
                    problems.append(f"leader {p}/{c} at {sq}: no adjacent face-up temple (R-LEAD-5)")
        n = 0
        for sq in range(NSQ):
            if s.leader_at[sq]:
                n += 1
        if n != bb_count(s.leaders):
            problems.append("leader_at holds leaders not in leader_sq")
        # at most one leader of a colour per kingdom, but the pending conflict's pair
        # (a revolt's in the attacker's kingdom, a war's in the unified kingdom)
        for c in range(4):
            count = {}
            for p in range(s.players):
                if s.leader_sq[p][c] >= 0:
                    r = uf_find(s, s.leader_sq[p][c])
                    count[r] = count.get(r, 0) + 1
            for r, k in count.items():
                allowed = False
                if k == 2 and s.phase in (PH_REVOLT_ATTACK, PH_REVOLT_DEFEND):
                    allowed = (s.c_kind != CONFLICT_NONE and s.c_colour == c and 0 <= s.c_att_leader < NSQ
                               and bb_test(&s.leaders, s.c_att_leader) and uf_find(s, s.c_att_leader) == r)
                elif k == 2 and s.phase in (PH_WAR_CHOICE, PH_WAR_ATTACK, PH_WAR_DEFEND):
                    allowed = (0 <= s.unification < NSQ and is_occupied(s, s.unification)
                               and uf_find(s, s.unification) == r)
                if k > 1 and not allowed:
                    problems.append(f"field 'leaders': {k} leaders of colour {c} in one kingdom "
                                    f"in phase {PHASE_NAMES[s.phase]} (R-KING-2)")
        # tiles
        totals = [0, 0, 0, 0]
        for sq in range(NSQ):
            v = s.cell[sq]
            if CELL_UP <= v < CELL_CAT:
                totals[(v - CELL_UP) % 4] += 1
        for i in range(s.bag_len):
            if s.bag[i] > 3:
                problems.append(f"bag[{i}] holds bad colour {s.bag[i]}")
            else:
                totals[s.bag[i]] += 1
        for p in range(s.players):
            for c in range(4):
                totals[c] += s.hand[p][c] + s.swapped[p][c]
            if hand_size(s, p) > HAND_SIZE:
                problems.append(f"seat {p} holds {hand_size(s, p)} tiles")
        for c in range(4):
            totals[c] += s.discarded[c]
            if totals[c] != TILE_TOTALS[c]:
                problems.append(f"colour {c}: {totals[c]} tiles accounted for, expected {TILE_TOTALS[c]}")
        for sq in _bb_list(s.treasure):
            if s.cell[sq] != CELL_UP + RED and s.cell[sq] != CELL_DOWN + RED and s.cell[sq] != CELL_WONDER:
                problems.append(f"treasure at {sq} not on a temple or the wonder")
        n = 0
        for p in range(s.players):
            n += s.treasures_taken[p]
        if bb_count(s.treasure) + n != bd.n_temples:
            problems.append(f"field 'treasures_taken': {bb_count(s.treasure)} treasures on the board and {n} taken, "
                            f"but the board started with {bd.n_temples} (R-SETUP-1, R-TRE-1)")
        problems += self._variant_problems()
        n = 0
        for p in range(s.players):
            n += 2 - s.cats_left[p]
            if s.cats_left[p] > 2:
                problems.append(f"seat {p} has {s.cats_left[p]} catastrophes left")
        if n != bb_count(s.cats):
            problems.append(f"field 'catastrophes_left': {bb_count(s.cats)} catastrophes on the board, "
                            f"{n} played (R-COMP-3)")
        n = 0
        for m in range(6):
            sq = s.monument_sq[m]
            if sq < 0:
                continue
            n += 4
            if sq % NCOL == NCOL - 1 or sq // NCOL == NROW - 1:
                problems.append(f"monument {m} at {sq}: block off the board")
                continue
            v = s.cell[sq]
            for i in (sq, sq + 1, sq + NCOL, sq + NCOL + 1):
                if s.cell[i] != v or not (CELL_DOWN <= v < CELL_CAT) or (v - CELL_DOWN) not in (MONUMENT_COLOURS[m][0], MONUMENT_COLOURS[m][1]):
                    problems.append(f"monument {m} at {sq}: block is not four face-down tiles of its colours")
                    break
        if n != bb_count(s.down):
            problems.append(f"{bb_count(s.down)} face-down tiles, monuments cover {n}")
        # turn and decision context
        problems += self._decision_problems()
        if not problems and s.phase != PH_OVER and self.count_legal() == 0:
            problems.append(f"field 'phase': {PHASE_NAMES[s.phase]}, but the seat to act has no legal decision "
                            f"in a game that is not over")
        return problems

    def _decision_problems(self):
        """Who acts and what is pending must be what the rules leave pending (docs/engine.md)."""
        cdef GameState* s = &self.s
        cdef int p, k = 0, to_take = 0, owner
        cdef int cols[4]
        cdef int cand[NSQ]
        cdef int32_t buf[MAX_ACTIONS]
        problems = []
        phase = PHASE_NAMES[s.phase]
        war_phase = s.phase in (PH_WAR_CHOICE, PH_WAR_ATTACK, PH_WAR_DEFEND)
        commit_phase = s.phase in (PH_REVOLT_ATTACK, PH_REVOLT_DEFEND, PH_WAR_ATTACK, PH_WAR_DEFEND)
        if not 0 <= s.turn_owner < s.players:
            return [f"field 'turn_owner': {s.turn_owner} out of range"]
        # a seat's hand only shrinks on its own turn or by committing (then it refills, R-TURN-3)
        for p in range(s.players):
            if p != s.turn_owner and not s.committed[p] and hand_size(s, p) != HAND_SIZE:
                problems.append(f"field 'hands': seat {p} holds {hand_size(s, p)} tiles between its turns "
                                f"without having committed (R-TURN-3)")
        if not 0 <= s.placed < NSQ and s.placed != -1 or not 0 <= s.unification < NSQ and s.unification != -1:
            return problems + [f"field 'placed': placed {s.placed} or unification {s.unification} out of range"]
        if s.phase == PH_OVER:
            if s.to_act != -1 or s.end_reason == END_NONE:
                problems.append("field 'end_reason': game over without to_act -1 and an end reason")
            elif s.end_reason == END_BAG and s.bag_len != 0:
                problems.append(f"field 'end_reason': bag, but the bag holds {s.bag_len} tiles (R-END-1)")
            elif s.end_reason == END_TREASURES and bb_count(s.treasure) > 2:
                problems.append(f"field 'end_reason': treasures, but {bb_count(s.treasure)} treasures "
                                f"are on the board (R-END-1)")
            if s.placed != -1 or s.unification != -1:
                problems.append(f"field 'placed': placed {s.placed}, unification {s.unification} "
                                f"in a game that is over")
            return problems
        if s.end_reason != END_NONE:
            problems.append(f"field 'end_reason': {END_NAMES[s.end_reason]} before the game is over")
        if not 0 <= s.to_act < s.players:
            return problems + [f"field 'to_act': {s.to_act} out of range"]
        if not (0 if s.phase == PH_WONDER_POINT else 1) <= s.actions_left <= 2:
            problems.append(f"field 'actions_left': {s.actions_left} in phase {phase}")
        if not commit_phase and s.phase != PH_TREASURE and s.to_act != s.turn_owner:
            problems.append(f"field 'to_act': seat {s.to_act} in phase {phase}, "
                            f"but the turn owner {s.turn_owner} decides there")
        # the unification tile stands, and was the placed tile, exactly while wars resolve
        if war_phase:
            if s.unification < 0 or not CELL_UP <= s.cell[s.unification] < CELL_DOWN:
                return problems + [f"field 'unification': {s.unification} in phase {phase} is no face-up tile (R-WAR-1)"]
            if s.placed != s.unification:
                problems.append(f"field 'placed': {s.placed} differs from unification {s.unification} during wars")
        elif s.unification != -1:
            problems.append(f"field 'unification': {s.unification} in phase {phase} (no war is being resolved)")
        if s.phase in (PH_ACTION, PH_WONDER_POINT, PH_REVOLT_ATTACK, PH_REVOLT_DEFEND) and s.placed != -1:
            problems.append(f"field 'placed': {s.placed} in phase {phase} (no tile action in progress)")
        if s.phase in (PH_MONUMENT, PH_BUILDING, PH_WONDER) and (
                s.placed < 0 or not CELL_UP <= s.cell[s.placed] < CELL_DOWN):
            return problems + [f"field 'placed': {s.placed} in phase {phase} is no face-up tile"]
        # the first trader (by seat) with a choice of treasures, if any (R-TRE-1)
        owner = -1
        for p in range(s.players):
            k = treasure_candidates(s, p, cand, &to_take)
            if k > 0:
                owner = p
                break
        if owner >= 0 and s.phase in (PH_ACTION, PH_WONDER_POINT):
            problems.append(f"field 'treasures': seat {owner}'s trader has two treasures in its kingdom "
                            f"in phase {phase} (R-TRE-1)")
        if commit_phase:
            problems += self._conflict_problems()
        elif s.phase == PH_WAR_CHOICE:
            if conflict_colours(s, cols) < 2:
                problems.append("field 'phase': war_choice, but fewer than two colours have two leaders "
                                "in the unified kingdom (R-WAR-1)")
        elif s.phase == PH_MONUMENT:
            if monument_options(s, buf) == 0:
                problems.append("field 'phase': monument, but the placed tile is in no 2x2 block of one colour "
                                "with a monument of that colour left (R-MON-1)")
        elif s.phase == PH_TREASURE:
            if owner < 0:
                problems.append("field 'phase': treasure, but no kingdom holds two treasures and a trader (R-TRE-1)")
            elif owner != s.to_act:
                problems.append(f"field 'to_act': seat {s.to_act} in phase treasure, but seat {owner}'s "
                                f"trader takes first (R-TRE-1)")
            elif to_take >= k:
                problems.append("field 'phase': treasure, but the trader's owner has no choice to make (R-TRE-1)")
        elif s.phase == PH_BUILDING:
            if building_options(s, buf) == 0:
                problems.append("field 'phase': building, but the placed tile makes no new line "
                                "for its building (R-VAR-BLD-2)")
        elif s.phase == PH_WONDER:
            if wonder_options(s, buf) == 0:
                problems.append("field 'phase': wonder, but the placed tile completes no cross of five (R-VAR-WONDER-1)")
        return problems

    def _conflict_problems(self):
        """The pending revolt or war of a commitment phase (R-REV-1, R-WAR-2, R-REV-3)."""
        cdef GameState* s = &self.s
        cdef int k, q, need
        phase = PHASE_NAMES[s.phase]
        attacking = s.phase in (PH_REVOLT_ATTACK, PH_WAR_ATTACK)
        want = CONFLICT_REVOLT if s.phase in (PH_REVOLT_ATTACK, PH_REVOLT_DEFEND) else CONFLICT_WAR
        if s.c_kind != want:
            return [f"field 'conflict': kind {CONFLICT_NAMES[s.c_kind]} does not fit phase {phase}"]
        if s.c_attacker == s.c_defender:
            return ["field 'conflict': the attacker is the defender"]
        if not (0 <= s.c_attacker < s.players and 0 <= s.c_defender < s.players and 0 <= s.c_colour < 4
                and 0 <= s.c_att_leader < NSQ and 0 <= s.c_def_leader < NSQ):
            return ["field 'conflict': a seat, colour or square out of range"]
        if (s.leader_at[s.c_att_leader] != 1 + s.c_attacker * 4 + s.c_colour
                or s.leader_at[s.c_def_leader] != 1 + s.c_defender * 4 + s.c_colour):
            return ["field 'conflict': the conflict's leaders are not on the squares it names"]
        problems = []
        if uf_find(s, s.c_att_leader) != uf_find(s, s.c_def_leader):
            problems.append("field 'conflict': the two leaders are not in one kingdom")
        if attacking != (s.c_att_commit == -1):
            problems.append(f"field 'conflict': attacker_commit {s.c_att_commit} does not fit phase {phase}")
        if s.to_act != (s.c_attacker if attacking else s.c_defender):
            problems.append(f"field 'to_act': seat {s.to_act} in phase {phase}, "
                            f"but the {'attacker' if attacking else 'defender'} commits now")
        if want == CONFLICT_REVOLT:
            if s.c_attacker != s.turn_owner:
                problems.append("field 'conflict': the revolt's attacker is not the turn owner (R-REV-1)")
        else:
            for k in range(s.players):
                q = (s.turn_owner + k) % s.players
                if q == s.c_attacker or q == s.c_defender:
                    if q != s.c_attacker:
                        problems.append(f"field 'conflict': war attacker {s.c_attacker}, but seat {q} "
                                        f"comes first (R-WAR-2)")
                    break
            if uf_find(s, s.c_def_leader) != uf_find(s, s.unification):
                problems.append("field 'conflict': the war's leaders are not in the unified kingdom (R-WAR-1)")
        if not attacking and s.c_att_commit > 0:
            # the committed tiles came out of the attacker's hand (R-REV-3, R-WAR-4)
            if hand_size(s, s.c_attacker) + s.c_att_commit > HAND_SIZE:
                problems.append(f"field 'conflict': attacker_commit {s.c_att_commit}, but seat {s.c_attacker} "
                                f"still holds {hand_size(s, s.c_attacker)} tiles: more than a hand of "
                                f"{HAND_SIZE} allows (R-REV-3)")
            if not s.committed[s.c_attacker]:
                problems.append(f"field 'committed': seat {s.c_attacker} committed {s.c_att_commit} tiles "
                                f"but is not marked committed")
            if s.variants & VAR_ENGLISH and not problems:
                need = (side_strength(s, s.c_def_leader, s.c_colour)
                        - side_strength(s, s.c_att_leader, s.c_colour) + 1)
                if s.c_att_commit != need:
                    problems.append(f"field 'conflict': attacker_commit {s.c_att_commit}, but the english "
                                    f"variant allows only 0 or {need} (R-VAR-ENGLISH)")
        return problems

    def _variant_problems(self):
        """The invariants of the buildings and the wonder (R-VAR-BLD, R-VAR-WONDER)."""
        cdef GameState* s = &self.s
        cdef int c, sq, k
        cdef BB expect
        problems = []
        if s.variants & ~(VAR_ENGLISH | VAR_BUILDINGS | VAR_WONDER):
            problems.append(f"unknown variant bits {s.variants}")
        for c in range(4):
            sq = s.building_sq[c]
            if sq < 0:
                continue
            if not s.variants & VAR_BUILDINGS:
                problems.append(f"building {c} on the board without the buildings variant")
            if not 0 <= sq < NSQ or s.cell[sq] != CELL_UP + c:
                problems.append(f"building {c} at {sq}: not on a face-up tile of its colour")
        if s.wonder_sq < 0:
            if bb_any(s.wonder):
                problems.append("wonder squares without a wonder")
        else:
            if not s.variants & VAR_WONDER:
                problems.append("a wonder on the board without the wonder variant")
            if not 0 <= s.wonder_sq < NSQ or NB_N[s.wonder_sq] != 4:
                problems.append(f"wonder centre {s.wonder_sq}: not a square with four neighbours")
            else:
                expect = bb_square(s.wonder_sq)
                for k in range(4):
                    bb_set(&expect, NB[s.wonder_sq][k])
                if not bb_eq(expect, s.wonder):
                    problems.append(f"wonder at {s.wonder_sq}: its squares are not the cross of five")
        if s.phase == PH_BUILDING and not s.variants & VAR_BUILDINGS:
            problems.append("field 'phase': building without the buildings variant")
        if s.phase in (PH_WONDER, PH_WONDER_POINT) and not s.variants & VAR_WONDER:
            problems.append(f"field 'phase': {PHASE_NAMES[s.phase]} without the wonder variant")
        if s.phase in (PH_BUILDING, PH_WONDER) and (s.placed < 0 or not CELL_UP <= s.cell[s.placed] < CELL_DOWN):
            problems.append(f"phase {PHASE_NAMES[s.phase]}: no face-up placed tile")
        if s.phase == PH_WONDER_POINT and (s.wonder_sq < 0 or s.leader_sq[s.turn_owner][BLACK] < 0
                or uf_find(s, s.leader_sq[s.turn_owner][BLACK]) != uf_find(s, s.wonder_sq)):
            problems.append("field 'phase': wonder_point, but the turn owner's king is not in the wonder's "
                            "kingdom (R-VAR-WONDER-4)")
        return problems


# ================================================================ search support
# Information sets and re-sampling belong to the game (OpenSpiel style): the
# search kernels call these, never the rules' internals.

cdef void unseen_by(GameState* s, int seat, int* counts) noexcept nogil:
    """Write the tiles of each colour `seat` has not seen: the bag, other hands and swapped piles."""
    cdef int c, i, q
    for c in range(4):
        counts[c] = 0
    for i in range(s.bag_len):
        counts[s.bag[i]] += 1
    for q in range(s.players):
        if q != seat:
            for c in range(4):
                counts[c] += s.hand[q][c] + s.swapped[q][c]

cdef void redeal_hidden(GameState* s, int seat, uint64_t* rng) noexcept nogil:
    """Deal the tiles `seat` has not seen uniformly into other hands, swapped piles and the bag.

    The pool is rebuilt in colour order first, so the result depends only on
    what `seat` knows and on rng, never on the hidden tiles as they were.
    """
    cdef uint8_t pool[TOTAL_TILES]
    cdef int counts[4]
    cdef int n = 0, c, i, j, q, size
    cdef uint8_t tmp
    unseen_by(s, seat, counts)
    for c in range(4):
        for i in range(counts[c]):
            pool[n] = c
            n += 1
    i = n - 1
    while i > 0:
        j = <int>(splitmix64(rng) % <uint64_t>(i + 1))
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
        i -= 1
    n = 0
    for q in range(s.players):
        if q == seat:
            continue
        size = hand_size(s, q)
        for c in range(4):
            s.hand[q][c] = 0
        for i in range(size):
            s.hand[q][pool[n]] += 1
            n += 1
        size = s.swapped[q][0] + s.swapped[q][1] + s.swapped[q][2] + s.swapped[q][3]
        for c in range(4):
            s.swapped[q][c] = 0
        for i in range(size):
            s.swapped[q][pool[n]] += 1
            n += 1
    for i in range(s.bag_len):
        s.bag[i] = pool[n]
        n += 1

def _redeal(CoreState st, int seat, uint64_t seed):
    """Re-deal what `seat` has not seen (test hook for the C determinisation)."""
    cdef uint64_t rng = seed
    redeal_hidden(&st.s, seat, &rng)
