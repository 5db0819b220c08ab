# ext/core_legal.pxi: part of the rules kernel (ext/core.pyx includes it).
#
# Legal decisions: gen_legal (every decision of the seat to act, ascending),
# gen_legal_touching (the subsequence the rollout priors need), their common
# _gen, and is_legal; with the options of the pending choices: the colours
# at war (conflict_colours, R-WAR-1, R-WAR-2), monuments (monument_options,
# R-MON-1), buildings (run_length, building_options, R-VAR-BLD), the wonder
# (wonder_options, R-VAR-WONDER), treasures to take (treasure_candidates,
# R-TRE-1) and the squares a leader may go to (leader_targets, R-LEAD-1 to
# R-LEAD-4). The action layout is in core.pxd. Rules: R-TURN-1, R-TURN-2,
# R-LEAD-1 to R-LEAD-4, R-TILE-1 to R-TILE-3, R-CAT-1, R-SWAP-1, R-REV-3,
# R-WAR-2, R-WAR-4 (commitments), R-MON-1, R-TRE-1, R-VAR-ENGLISH, R-VAR-BLD,
# R-VAR-WONDER.

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
