# ext/core_consistency.pxi: part of the rules kernel (ext/core.pyx includes it).
#
# The from-scratch check of every invariant of a state (CoreState's
# _consistency_problems calls consistency_problems): bitboards against the
# mailbox, the union-find against the board (R-KING-1, R-KING-2), leaders
# (R-LEAD-5, R-KING-2), tile counts (R-COMP-1 to R-COMP-3, R-SETUP-1), who
# acts and what is pending (decision_problems: R-TURN-3, R-MON-1, R-TRE-1, R-END-1), the
# pending conflict (conflict_problems: R-REV-1, R-REV-3, R-WAR-1, R-WAR-2,
# R-WAR-4, R-VAR-ENGLISH) and the variants (variant_problems: R-VAR-BLD,
# R-VAR-WONDER). Python-level: it builds lists of messages, it is no kernel.

cdef list consistency_problems(CoreState st):
    """Check every invariant from scratch; return a list of problems."""
    cdef GameState* s = &st.s
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
    problems += variant_problems(st)
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
    problems += decision_problems(st)
    if not problems and s.phase != PH_OVER and st.count_legal() == 0:
        problems.append(f"field 'phase': {PHASE_NAMES[s.phase]}, but the seat to act has no legal decision "
                        f"in a game that is not over")
    return problems


cdef list decision_problems(CoreState st):
    """Who acts and what is pending must be what the rules leave pending (docs/engine.md)."""
    cdef GameState* s = &st.s
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
        problems += conflict_problems(st)
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


cdef list conflict_problems(CoreState st):
    """The pending revolt or war of a commitment phase (R-REV-1, R-WAR-2, R-REV-3)."""
    cdef GameState* s = &st.s
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


cdef list variant_problems(CoreState st):
    """The invariants of the buildings and the wonder (R-VAR-BLD, R-VAR-WONDER)."""
    cdef GameState* s = &st.s
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
