# ext/core_turn.pxi: part of the rules kernel (ext/core.pyx includes it).
#
# Applying a decision and running the game on to the next one: apply_unchecked
# (every phase), the end of an action and of a turn (end_action, end_turn,
# finish_turn, R-TURN-1 to R-TURN-3), draws (draw_tiles, R-SWAP-1, R-END-1),
# leaders left without a temple (return_orphan_leaders, R-LEAD-5), treasures
# (treasure_check, R-TRE-1), the monument, building and wonder checks after a
# tile (offer, monument_check, building_check, wonder_check, unbuild_on:
# R-MON-1 to R-MON-4, R-VAR-BLD, R-VAR-WONDER), scoring a tile (score_tile,
# R-TILE-4, R-TILE-5), the end of the game (game_over, R-END-1), the final
# ranking (totals_with_treasures, ranking_key, R-TRE-2, R-END-2) and the
# uniform random playout (random_playout) the engine's bench and fuzz tests
# use. Also R-CAT-1, R-CAT-2 (catastrophes), R-LEAD-6 (withdrawal).

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
