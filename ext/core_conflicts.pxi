# ext/core_conflicts.pxi: part of the rules kernel (ext/core.pyx includes it).
#
# Revolts and wars: the base strength of a side (side_strength, R-REV-2,
# R-WAR-3), the one commitment the english variant allows (exact_commitment,
# R-VAR-ENGLISH), clearing the pending conflict (clear_conflict), starting a
# war and going on to the next one after a unification (start_war,
# continue_wars, R-WAR-1, R-WAR-2, R-WAR-6), and resolving them
# (resolve_war, R-WAR-3 to R-WAR-5; resolve_revolt, R-REV-1 to R-REV-4).

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
