# cython: language_level=3
"""A search kernel: the evaluation, the move priors and the greedy rollout policy.

Nothing here is a rule. The rules kernel (ext/core.pyx) says what is legal
and what a decision does; this module says what looks good, for the ISMCTS
tree (ext/search/tree.pyx), its move ordering and the baselines:

- `score_actions`: a cheap prior in [-128, 127] per legal decision, used to
  order progressive widening and by the ε-greedy rollouts;
- `seat_values` / `evaluate`: each seat's positional value (its colour totals
  through a concave utility, plus its leaders' prospects) and the reward
  the search backs up, the logistic of the margin over the opponents;
  `EvalParams` in evaluation.pxd lists the weights;
- `greedy_playout`: the ε-greedy rollout on the prior (the uniform random
  walk, `random_playout`, is the rules kernel's: it is no heuristic, and the
  engine's own bench and fuzz tests use it).

The Python hooks (`score_actions_of`, `evaluate_of`, `seat_values_of`, `explain_terms`)
are for tests, tuning and search/explain.py. The rules they read are cited
where they matter (R-WAR-*, R-REV-*, docs/rules.md).
"""
from libc.stdint cimport uint64_t, uint8_t, int8_t, int16_t, int32_t
from libc.string cimport memcmp, memset, memcpy
from libc.math cimport exp, tanhf
from libc.stdlib cimport malloc, free

from ext.core cimport (ALL_SQUARES, A_CAT, A_COMMIT, A_LEADER, A_NOBUILDING, A_NOMONUMENT,
                      A_NOWONDER, A_PASS, A_SWAP, A_WITHDRAW, A_WONDERPOINT, BB, BLACK, GREEN,
                      GameState, MAX_ACTIONS, MAX_PLAYERS, MONUMENT_COLOURS, NB, NB_N, NSQ,
                      PH_ACTION, PH_OVER, PH_REVOLT_ATTACK, PH_REVOLT_DEFEND, PH_WAR_ATTACK,
                      PH_WAR_DEFEND, PH_WONDER_POINT, RED, apply_unchecked, bb_and, bb_andnot,
                      bb_any, bb_count, bb_empty, bb_neighbours, bb_or, bb_pop, bb_set, bb_test,
                      commit_colour, count_by_kingdom, exact_commitment, gen_legal, gen_legal_touching, GEN_MOVES,
                      GEN_PLACEMENTS, debug_assert, hand_size, has_leader_on_board,
                      is_occupied, kingdom_roots, mark_kingdoms, occupied, splitmix64,
                      temples_beside, uf_find, unseen_by, totals_with_treasures, ranking_key, CoreState,
                      deal_around_hands)


cdef int single_kingdom_root(GameState* s, int sq, uint8_t* mark, int* n_kingdoms, bint* touches) noexcept nogil:
    """Return the root of the one kingdom next to sq (-1 if none or several)."""
    cdef int k, n_sq, r, root = -1
    n_kingdoms[0] = 0
    touches[0] = False
    for k in range(NB_N[sq]):
        n_sq = NB[sq][k]
        if is_occupied(s, n_sq):
            touches[0] = True
            r = uf_find(s, n_sq)
            if mark[r] and r != root:
                n_kingdoms[0] += 1
                root = r
    return root if n_kingdoms[0] == 1 else -1

cdef inline int square_kingdom(GameState* s, int sq, uint8_t* mark, uint8_t* known, int16_t* sq_root,
                               bint* sq_touches, int* nk, bint* touches) noexcept nogil:
    """single_kingdom_root of sq, found once per square across calls that share `known` (0: not yet, else 1 + nk)."""
    if known[sq] == 0:
        sq_root[sq] = single_kingdom_root(s, sq, mark, nk, touches)
        sq_touches[sq] = touches[0]
        known[sq] = 1 + nk[0]
    nk[0] = known[sq] - 1
    touches[0] = sq_touches[sq]
    return sq_root[sq]

cdef int8_t war_prior(GameState* s, int p, int colour, int sq, uint8_t* mark, int8_t* kown,
                      uint8_t* supporters) noexcept nogil:
    """Prior of a tile that unites two kingdoms: by the seat's worst war margin (R-WAR-2, R-WAR-3).

    kown[root*4 + c] is the owner of the leader of colour c in kingdom root,
    supporters[root*4 + c] its face-up tiles of colour c: before the tile is
    placed each kingdom is exactly one side of the war.
    """
    cdef int roots[4]
    cdef int c, mine, other, margin, worst = 99
    if kingdom_roots(s, sq, mark, roots) != 2:
        return 6
    for c in range(4):
        if kown[roots[0] * 4 + c] < 0 or kown[roots[1] * 4 + c] < 0:
            continue
        if kown[roots[0] * 4 + c] == p:
            mine, other = roots[0], roots[1]
        elif kown[roots[1] * 4 + c] == p:
            mine, other = roots[1], roots[0]
        else:
            continue
        margin = (supporters[mine * 4 + c] + s.hand[p][c] - (1 if c == colour else 0)
                  - supporters[other * 4 + c])
        if margin < worst:
            worst = margin
    if worst == 99:
        return 6                       # a war between others, or none
    return 12 if worst >= 3 else (9 if worst >= 1 else 1)

cdef int attacker_sure_commitment(GameState* s, int need) noexcept nogil:
    """The attacker's commitment that beats the most the defender could add, or all it has; -1 if none.

    Committing only what beats the defender's base loses to any tile the
    defender adds (a tie is the defender's, R-REV-4, R-WAR-4), so a policy
    that does so starts conflicts it then loses. The defender holds at most
    its hand (public size) of the colour, and no more of it than the
    attacker has not seen. Returns -1 outside an attack, or when the
    attacker cannot even beat the base (commit nothing then).
    """
    cdef int c, most, have, want
    cdef int unseen[4]
    if s.phase != PH_REVOLT_ATTACK and s.phase != PH_WAR_ATTACK:
        return -1
    c = commit_colour(s)
    have = s.hand[s.to_act][c]
    if have < need:
        return -1
    unseen_by(s, s.to_act, unseen)
    most = hand_size(s, s.c_defender)
    if most > unseen[c]:
        most = unseen[c]
    want = need + most
    return have if want > have else want

cdef void score_actions(GameState* s, int32_t* actions, int n, int8_t* scores) noexcept nogil:
    """Give each legal decision a cheap prior in 0..15 (higher first) for widening and rollouts.

    A conflict the seat would start ranks by its odds on the public
    strengths and the seat's own tiles: first of all when it leads by 3 or
    more, above its scoring tiles when it leads, last when it does not (the
    defender's hidden tiles decide close ones, and a tie is the defender's).
    Tiles that score for the seat to act rank next, then leaders next to
    temples, then neutral tiles; catastrophes, swaps and passing rank last.
    An attacker commits what wins against everything the defender could
    add, or all it has; a defender the smallest commitment that ties.
    """
    cdef int p = s.to_act, i, a, c, sq, root, nk, owner, att, dfd, need, t
    cdef int need_v[4]
    cdef uint8_t mark[NSQ]
    cdef int8_t kown[NSQ][4]
    cdef uint8_t supporters[NSQ][4]
    cdef bint touches, counted = False
    cdef BB ls, touching
    # a square's kingdoms, found once for its three or four tile colours: 0 not
    # yet, else 1 + nk, with its root and whether it touches a group
    cdef uint8_t known[NSQ]
    cdef int16_t sq_root[NSQ]
    cdef bint sq_touches[NSQ]
    # and the temples beside it, counted once for its four leader colours (-1: not yet)
    cdef int8_t sq_temples[NSQ]
    if s.phase == PH_ACTION:
        touching = bb_neighbours(occupied(s))
        memset(known, 0, sizeof(known))
        memset(sq_temples, -1, sizeof(sq_temples))
        mark_kingdoms(s, mark)
        memset(kown, -1, sizeof(kown))
        ls = s.leaders
        while bb_any(ls):
            sq = bb_pop(&ls)
            kown[uf_find(s, sq)][(s.leader_at[sq] - 1) & 3] = (s.leader_at[sq] - 1) >> 2
        for i in range(n):
            a = actions[i]
            if a < A_LEADER:
                c = a // NSQ
                sq = a % NSQ
                if not bb_test(&touching, sq):
                    scores[i] = 3               # touches nothing
                    continue
                root = square_kingdom(s, sq, mark, known, sq_root, sq_touches, &nk, &touches)
                if nk >= 2:
                    if not counted:             # only a uniting tile needs them
                        count_by_kingdom(s, supporters)
                        counted = True
                    scores[i] = war_prior(s, p, c, sq, mark, &kown[0][0], &supporters[0][0])
                elif nk == 1:
                    owner = kown[root][c]
                    if owner < 0:
                        owner = kown[root][BLACK]
                    if owner == p:
                        scores[i] = 10
                    elif owner < 0:
                        scores[i] = 5
                    else:
                        scores[i] = 2
                else:
                    scores[i] = 4 if touches else 3
            elif a < A_WITHDRAW:
                c = (a - A_LEADER) // NSQ
                sq = (a - A_LEADER) % NSQ
                t = sq_temples[sq]
                if t < 0:
                    t = sq_temples[sq] = temples_beside(s, sq)
                root = square_kingdom(s, sq, mark, known, sq_root, sq_touches, &nk, &touches)
                if nk == 1 and kown[root][c] >= 0 and kown[root][c] != p:
                    # R-REV-2: temples beside each leader; the attacker adds its reds
                    att = t + s.hand[p][RED] - temples_beside(s, s.leader_sq[kown[root][c]][c])
                    scores[i] = 12 if att >= 3 else (8 if att >= 1 else 2)
                else:
                    scores[i] = 6 + (2 if t >= 2 else t) + (1 if touches else 0)
                if s.leader_sq[p][c] >= 0:
                    # moving a leader gives up where it stands; priors stay in 0..15
                    scores[i] = scores[i] - 3 if scores[i] > 3 else 0
            elif a < A_CAT:
                scores[i] = 1
            elif a < A_SWAP:
                scores[i] = 1
            elif a < A_PASS:
                scores[i] = 2
            else:
                scores[i] = 0
    elif s.phase in (PH_REVOLT_ATTACK, PH_WAR_ATTACK, PH_REVOLT_DEFEND, PH_WAR_DEFEND):
        # the attacker's need beats the defender's base; the defender's ties,
        # and a tie is the defender's
        need = exact_commitment(s)
        if need < 0:
            need = 0
        sure = attacker_sure_commitment(s, need)
        for i in range(n):
            a = actions[i] - A_COMMIT
            if a == sure:
                scores[i] = 9
            elif a == need:
                scores[i] = 8
            elif a == 0:
                scores[i] = 6
            elif a > need:
                scores[i] = 5
            else:
                scores[i] = 2
    elif s.phase == PH_WONDER_POINT:
        totals_with_treasures(s, p, need_v)
        for i in range(n):
            c = actions[i] - A_WONDERPOINT
            scores[i] = 2
            for t in range(4):
                if need_v[t] < need_v[c]:
                    break
            else:
                scores[i] = 5                    # a weakest colour
    else:
        for i in range(n):
            a = actions[i]
            scores[i] = 3 if a == A_NOMONUMENT or a == A_NOBUILDING or a == A_NOWONDER else 5

# What the evaluation counted, term by term, as it counted it: seat_values and
# evaluate_terms fill one when given it (explain); the search gives them NULL.
ctypedef struct SeatTerms:
    int totals[4]           # colour totals, treasures on the weakest (R-END-2)
    int weakest             # the lowest total
    float concave           # sum over colours of tau*(1-exp(-x/tau))
    float weakest_bonus     # min_bonus * weakest
    float colours           # concave + weakest_bonus, as colour_utility returns it
    float need[4]           # what one more point of each colour adds (or the root's, fixed)
    float catastrophes
    float leaders           # sum over its leaders of need * prospect
    float leader_parts[6]   # that sum split: presence, temples, supporters, monuments, treasure, building
    float kings             # king * max need per king on the board
    float wonder            # wonder * max need for a king in the wonder's kingdom
    float value             # what seat_values wrote
    float margin            # value less the opponents' (seat_margin)
    float end               # endgame term added to the margin (fixed needs only)
    float centre            # centre term taken from the margin (fixed needs only)
    float final_margin      # the margin the logistic is taken of
    float reward            # what evaluate wrote

ctypedef struct LeaderTerms:
    int seat
    int colour
    int sq
    int temples
    int supporters          # face-up tiles of its colour in its kingdom (counted up to 12)
    int monuments
    int treasure            # a trader whose kingdom holds a treasure
    int building            # its colour's building in its kingdom (variant)
    float need
    float prospect
    float contribution      # need * prospect, as added to the seat's value

ctypedef struct EvalTerms:
    SeatTerms seat[MAX_PLAYERS]
    LeaderTerms leader[4 * MAX_PLAYERS]
    int n_leaders
    float progress          # how near the end is, 0..1
    int over                # the game is over: rewards are the final ranking

cdef inline float colour_concave(int* x, const EvalParams* ep, int* lo) noexcept nogil:
    """Return the concave sum of a seat's colour totals and write the weakest total to lo."""
    cdef float v = 0.0
    cdef int c
    lo[0] = x[0]
    for c in range(4):
        if 0 <= x[c] < CONCAVE_TABLE:
            v += ep.concave[x[c]]
        else:
            v += ep.tau * (1.0 - exp(-x[c] / ep.tau))
        if x[c] < lo[0]:
            lo[0] = x[c]
    return v

cdef inline float colour_utility(int* x, const EvalParams* ep) noexcept nogil:
    """Concave value of a seat's colour totals (R-END-2 ranks by the weakest)."""
    cdef int lo
    cdef float v = colour_concave(x, ep, &lo)
    return v + ep.min_bonus * lo

cdef void colour_values(GameState* s, int p, const EvalParams* ep, float* base, float* need) noexcept nogil:
    """Write a seat's colour utility and the gain of one more point of each colour."""
    cdef int x[4]
    cdef int c
    totals_with_treasures(s, p, x)
    base[0] = colour_utility(x, ep)
    for c in range(4):
        x[c] += 1
        need[c] = colour_utility(x, ep) - base[0]
        x[c] -= 1

cdef void fix_needs(GameState* s, EvalParams* ep) noexcept nogil:
    """Freeze the seats' needs (and margins, when centred) at this state for the evaluations that follow."""
    cdef float base
    cdef float vals[MAX_PLAYERS]
    cdef int p
    for p in range(s.players):
        colour_values(s, p, ep, &base, ep.fixed_need[p])
    ep.use_fixed_need = 1
    if ep.learned:
        learned_margins(s, ep, ep.fixed_margin)
        return
    seat_values(s, ep, vals, NULL, True)
    for p in range(s.players):
        ep.fixed_margin[p] = seat_margin(vals, s.players, p, ep)

cdef void record_colours(GameState* s, int p, const EvalParams* ep, float base, float* need,
                        SeatTerms* out) noexcept nogil:
    """Write a seat's colour terms as colour_values counted them (explain only)."""
    cdef int c
    totals_with_treasures(s, p, out.totals)
    out.concave = colour_concave(out.totals, ep, &out.weakest)
    out.weakest_bonus = ep.min_bonus * out.weakest
    out.colours = base
    for c in range(4):
        out.need[c] = need[c]
    out.catastrophes = ep.catastrophe * s.cats_left[p]

cdef void seat_values(GameState* s, const EvalParams* ep, float* vals, EvalTerms* rec, bint fixed) noexcept nogil:
    """Write every seat's positional value: colour utility plus its leaders' prospects.

    rec, when not NULL, receives every term as it is added (explain, the
    learned value's features); the search passes NULL, and nothing it
    computes depends on rec. fixed: weigh leaders by the root's needs
    (ep.fixed_need) rather than the state's own.
    """
    cdef uint8_t up_count[NSQ][4]
    cdef uint8_t tre_count[NSQ]
    cdef float need[MAX_PLAYERS][4]
    cdef float base, v, max_need
    cdef BB b
    cdef int sq, p, c, r, m, t, nmon, near, bld
    cdef LeaderTerms* lt
    for p in range(s.players):
        colour_values(s, p, ep, &base, need[p])
        if fixed:
            for c in range(4):
                need[p][c] = ep.fixed_need[p][c]
        vals[p] = base + ep.catastrophe * s.cats_left[p]
        if rec != NULL:
            record_colours(s, p, ep, base, need[p], &rec.seat[p])
    if not bb_any(s.leaders):
        return
    count_by_kingdom(s, up_count)
    memset(tre_count, 0, sizeof(tre_count))
    b = s.treasure
    while bb_any(b):
        tre_count[uf_find(s, bb_pop(&b))] += 1
    b = s.leaders
    while bb_any(b):
        sq = bb_pop(&b)
        p = (s.leader_at[sq] - 1) >> 2
        c = (s.leader_at[sq] - 1) & 3
        r = uf_find(s, sq)
        t = temples_beside(s, sq)
        v = ep.leader + ep.temple * (4 if t > 4 else t) + ep.supporter * (12 if up_count[r][c] > 12 else up_count[r][c])
        nmon = 0
        for m in range(6):
            if (s.monument_sq[m] >= 0 and (MONUMENT_COLOURS[m][0] == c or MONUMENT_COLOURS[m][1] == c)
                    and uf_find(s, s.monument_sq[m]) == r):
                nmon += 1
        v += ep.monument * nmon
        near = 0
        bld = 0
        if c == GREEN and tre_count[r] > 0:
            v += ep.treasure_near
            near = 1
        if s.building_sq[c] >= 0 and uf_find(s, s.building_sq[c]) == r:
            v += ep.building
            bld = 1
        vals[p] += need[p][c] * v
        if rec != NULL:
            lt = &rec.leader[rec.n_leaders]
            rec.n_leaders += 1
            lt.seat, lt.colour, lt.sq, lt.temples = p, c, sq, t
            lt.supporters = up_count[r][c]
            lt.monuments = nmon
            lt.treasure = near
            lt.building = bld
            lt.need = need[p][c]
            lt.prospect = v
            lt.contribution = need[p][c] * v
            rec.seat[p].leaders += lt.contribution
            rec.seat[p].leader_parts[0] += need[p][c] * ep.leader
            rec.seat[p].leader_parts[1] += need[p][c] * ep.temple * (4 if t > 4 else t)
            rec.seat[p].leader_parts[2] += need[p][c] * ep.supporter * (12 if up_count[r][c] > 12 else up_count[r][c])
            rec.seat[p].leader_parts[3] += need[p][c] * ep.monument * nmon
            rec.seat[p].leader_parts[4] += need[p][c] * ep.treasure_near * lt.treasure
            rec.seat[p].leader_parts[5] += need[p][c] * ep.building * lt.building
        if c == BLACK:
            max_need = need[p][0]
            for m in range(1, 4):
                if need[p][m] > max_need:
                    max_need = need[p][m]
            vals[p] += ep.king * max_need
            if rec != NULL:
                rec.seat[p].kings += ep.king * max_need
            if s.wonder_sq >= 0 and uf_find(s, s.wonder_sq) == r:
                vals[p] += ep.wonder * max_need
                if rec != NULL:
                    rec.seat[p].wonder += ep.wonder * max_need

cdef int compare_final(GameState* s, int p, int q) noexcept nogil:
    """Compare two seats by R-END-2: >0 if p ranks above q, 0 on a full tie."""
    cdef int vp[4]
    cdef int vq[4]
    cdef int c
    ranking_key(s, p, vp)
    ranking_key(s, q, vq)
    for c in range(4):
        if vp[c] != vq[c]:
            return vp[c] - vq[c]
    return 0

cdef inline float game_progress(GameState* s) noexcept nogil:
    """Return how near the end is, 0..1 (R-END-1): 10 treasures down to 2, or the bag of 143 tiles less the starting hands down to empty."""
    cdef float progress = (10 - bb_count(s.treasure)) / 8.0
    if 1.0 - s.bag_len / (143.0 - 6 * s.players) > progress:
        progress = 1.0 - s.bag_len / (143.0 - 6 * s.players)
    return progress

# the base facts whose lead over the best opponent is repeated times the
# progress (a tapered evaluation): weakest total, concave, presence, kings, treasures
cdef int TAPERED_BASE[VALUE_TAPERED]
TAPERED_BASE[:] = [0, 4, 5, 10, 16]
# the logit of the handcrafted reward is clipped where a float reward of 1e-4 would be
cdef float LOGIT_CLIP = 9.2102

cdef void value_features(GameState* s, const EvalParams* ep, float* out) noexcept nogil:
    """Write the learned value's inputs of every seat, VALUE_FEATURES a seat (VALUE_FEATURE_NAMES).

    The handcrafted evaluation's logit (the state's own needs, not centred)
    and the progress; then per base fact (sorted colour totals with
    treasures on the weakest, concave colour value, the leaders' prospects
    by part, kings, catastrophes, the hand by colour, treasures taken,
    leaders on the board, to act) the seat's less the best opponent's and
    less the opponents' mean; then some of those times the progress.
    """
    cdef EvalTerms rec
    cdef float vals[MAX_PLAYERS]
    cdef float base[MAX_PLAYERS][VALUE_BASE]
    cdef float progress = game_progress(s), z, best, mean
    cdef float* f
    cdef int p, q, i, j, c, t
    cdef int x[4]
    memset(&rec, 0, sizeof(EvalTerms))
    seat_values(s, ep, vals, &rec, False)
    for p in range(s.players):
        for c in range(4):
            x[c] = rec.seat[p].totals[c]
        for i in range(1, 4):           # sort the four totals, weakest first
            t = x[i]
            j = i - 1
            while j >= 0 and x[j] > t:
                x[j + 1] = x[j]
                j -= 1
            x[j + 1] = t
        for c in range(4):
            base[p][c] = x[c]
            base[p][12 + c] = s.hand[p][c]
        base[p][4] = rec.seat[p].concave
        for i in range(5):
            base[p][5 + i] = rec.seat[p].leader_parts[i]
        base[p][10] = rec.seat[p].kings
        base[p][11] = s.cats_left[p]
        base[p][16] = s.treasures_taken[p]
        base[p][17] = 0
        base[p][18] = 1 if s.to_act == p else 0
    for i in range(rec.n_leaders):
        base[rec.leader[i].seat][17] += 1
    for p in range(s.players):
        f = out + p * VALUE_FEATURES
        z = seat_margin(vals, s.players, p, ep) / ep.scale
        z = LOGIT_CLIP if z > LOGIT_CLIP else (-LOGIT_CLIP if z < -LOGIT_CLIP else z)
        f[0] = 1.0
        f[1] = z
        f[2] = progress
        f[3] = z * progress
        for i in range(VALUE_BASE):
            best = -1e30
            mean = 0.0
            for q in range(s.players):
                if q != p:
                    mean += base[q][i]
                    if base[q][i] > best:
                        best = base[q][i]
            f[4 + i] = base[p][i] - best
            f[4 + VALUE_BASE + i] = base[p][i] - mean / (s.players - 1)
        for i in range(VALUE_TAPERED):
            f[4 + 2 * VALUE_BASE + i] = f[4 + TAPERED_BASE[i]] * progress

cdef void learned_margins(GameState* s, const EvalParams* ep, float* margins) noexcept nogil:
    """Write every seat's margin by the learned value: its logit (value_w . features, plus the hidden units') times scale."""
    cdef float feats[MAX_PLAYERS * VALUE_FEATURES]
    cdef float z, a
    cdef float* f
    cdef int p, i, j
    value_features(s, ep, feats)
    for p in range(s.players):
        f = &feats[p * VALUE_FEATURES]
        z = 0.0
        for i in range(VALUE_FEATURES):
            z += ep.value_w[i] * f[i]
        for j in range(ep.value_hidden):
            a = ep.value_hb[j]
            for i in range(VALUE_FEATURES):
                a += ep.value_hw[j][i] * f[i]
            z += ep.value_hv[j] * tanhf(a)
        margins[p] = z * ep.scale

cdef inline float seat_margin(float* vals, int players, int p, const EvalParams* ep) noexcept nogil:
    """Return a seat's value minus its opponents' (best weighted by opponents_max, the rest by the mean)."""
    cdef float best = -1e9, mean = 0.0
    cdef int q
    for q in range(players):
        if q != p:
            mean += vals[q]
            if vals[q] > best:
                best = vals[q]
    mean /= (players - 1)
    return vals[p] - (ep.opponents_max * best + (1.0 - ep.opponents_max) * mean)

cdef void evaluate(GameState* s, const EvalParams* ep, float* rewards) noexcept nogil:
    """Write a reward in [0, 1] per seat: the final ranking if over, else a heuristic."""
    evaluate_terms(s, ep, rewards, NULL)

cdef void evaluate_terms(GameState* s, const EvalParams* ep, float* rewards, EvalTerms* rec) noexcept nogil:
    """Write evaluate's rewards; rec, when not NULL, receives every term (explain, see seat_values)."""
    cdef int p, q, better, tied
    cdef float vals[MAX_PLAYERS]
    cdef float learned[MAX_PLAYERS]
    cdef float margin, progress, lead
    cdef double end
    if rec != NULL:
        memset(rec, 0, sizeof(EvalTerms))
    if s.phase == PH_OVER:
        if rec != NULL:
            # the terms still say what the heuristic would count; the rewards are the ranking's
            rec.over = 1
            seat_values(s, ep, vals, rec, ep.use_fixed_need)
            for p in range(s.players):
                rec.seat[p].value = vals[p]
                rec.seat[p].margin = seat_margin(vals, s.players, p, ep)
                rec.seat[p].final_margin = rec.seat[p].margin
        for p in range(s.players):
            better = 0
            tied = 0
            for q in range(s.players):
                if q != p:
                    if compare_final(s, q, p) > 0:
                        better += 1
                    elif compare_final(s, q, p) == 0:
                        tied += 1
            if better == 0:
                rewards[p] = 1.0 / (1 + tied)
            else:
                rewards[p] = 0.25 * (s.players - 1 - better) / (s.players - 1)
            if rec != NULL:
                rec.seat[p].reward = rewards[p]
        return
    if ep.learned:
        learned_margins(s, ep, learned)
        if rec != NULL:     # the handcrafted terms, for explain
            seat_values(s, ep, vals, rec, ep.use_fixed_need)
    else:
        seat_values(s, ep, vals, rec, ep.use_fixed_need)
    progress = game_progress(s)
    if rec != NULL:
        rec.progress = progress
    for p in range(s.players):
        margin = learned[p] if ep.learned else seat_margin(vals, s.players, p, ep)
        if rec != NULL:
            rec.seat[p].value = vals[p]
            rec.seat[p].margin = margin
        if ep.use_fixed_need:
            lead = ep.fixed_margin[p]
            if lead > 2.0:
                lead = 2.0
            elif lead < -2.0:
                lead = -2.0
            # nearer the end is better for a seat that leads at the root, worse for one behind
            end = ep.endgame * progress * lead * 0.5
            margin += end
            margin -= ep.centre * ep.fixed_margin[p]
            if rec != NULL:
                rec.seat[p].end = end
                rec.seat[p].centre = ep.centre * ep.fixed_margin[p]
        rewards[p] = 1.0 / (1.0 + exp(-margin / ep.scale))
        if rec != NULL:
            rec.seat[p].final_margin = margin
            rec.seat[p].reward = rewards[p]

cdef int greedy_playout(GameState* s, uint64_t* rng, int max_decisions, float epsilon) noexcept nogil:
    """Play ε-greedy decisions: uniform with probability ε, else uniform among the best-scored."""
    cdef int32_t buf[MAX_ACTIONS]
    cdef int8_t sc[MAX_ACTIONS]
    cdef int32_t top[MAX_ACTIONS]
    cdef int n, m, played = 0
    cdef bint listed
    while s.phase != PH_OVER and played < max_decisions:
        # In the action phase list first only what can rank above a tile that
        # touches nothing (3; withdrawals, catastrophes, swaps and the pass
        # rank lower): when one of those ranks 4 or more the best are among
        # them, in gen_legal's order, and the hundreds of others are never
        # listed. The random draws are those of the full list's play, and
        # the pass makes that list longer than one.
        n = _short_list(s, buf, &listed)
        if (listed and n == 1) or (splitmix64(rng) >> 11) * (1.0 / 9007199254740992.0) < epsilon:
            if not listed:
                n = gen_legal(s, buf)
            apply_unchecked(s, buf[splitmix64(rng) % <uint64_t>n])
        else:
            m = _greedy_best(s, buf, n, listed, sc, top)
            apply_unchecked(s, top[splitmix64(rng) % <uint64_t>m])
        played += 1
    return played


cdef inline int _short_list(GameState* s, int32_t* buf, bint* listed) noexcept nogil:
    """Write gen_legal_touching's placements, or gen_legal's list where there are none (listed set); return the count."""
    cdef int n = gen_legal_touching(s, buf, GEN_PLACEMENTS)
    listed[0] = n == 0                  # not the action phase, or nothing touches: the full list
    if listed[0]:
        n = gen_legal(s, buf)
    return n


cdef inline int _greedy_best(GameState* s, int32_t* buf, int n, bint listed, int8_t* sc,
                             int32_t* top) noexcept nogil:
    """Write the best-scored decisions to top in gen_legal's order; return their count.

    buf holds gen_legal's list (listed) or gen_legal_touching's placements.
    Those hold the best when one of them ranks above every move of a leader
    on the board (MOVE_PRIOR_MAX); else the moves are listed and scored too,
    and merged in (both lists ascend, as gen_legal does). Placements and
    moves hold the best when one ranks above a tile that touches nothing.
    """
    cdef int32_t moves_top[MAX_ACTIONS]
    cdef int m, m_moves, best, best_moves
    best = _best_scored(s, buf, n, sc, top, &m)
    if listed:
        return m
    if best <= MOVE_PRIOR_MAX and has_leader_on_board(s, s.to_act):
        n = gen_legal_touching(s, buf, GEN_MOVES)
        best_moves = _best_scored(s, buf, n, sc, moves_top, &m_moves)
        if best_moves > best:
            best = best_moves
            memcpy(top, moves_top, m_moves * sizeof(int32_t))
            m = m_moves
        elif best_moves == best:
            m = merge_scored(top, NULL, m, moves_top, NULL, m_moves)
    if best < 4:
        n = gen_legal(s, buf)
        _best_scored(s, buf, n, sc, top, &m)
    debug_assert(_best_as_in_full_list(s, top, m))
    return m


cdef int merge_scored(int32_t* a, int8_t* a_sc, int na, int32_t* b, int8_t* b_sc, int nb) noexcept nogil:
    """Merge ascending b[:nb] into ascending a[:na] (room for both), scores alongside unless NULL; return the count.

    Two ascending sublists of gen_legal merge into its order.
    """
    cdef int i = na - 1, j = nb - 1, k = na + nb - 1
    while j >= 0:
        if i >= 0 and a[i] > b[j]:
            a[k] = a[i]
            if a_sc != NULL:
                a_sc[k] = a_sc[i]
            i -= 1
        else:
            a[k] = b[j]
            if a_sc != NULL:
                a_sc[k] = b_sc[j]
            j -= 1
        k -= 1
    return na + nb


cdef bint _best_as_in_full_list(GameState* s, int32_t* top, int m) noexcept nogil:
    """Whether top[:m] are the best-scored of gen_legal's whole list, in its order (debug check)."""
    cdef int32_t buf[MAX_ACTIONS]
    cdef int8_t sc[MAX_ACTIONS]
    cdef int32_t full_top[MAX_ACTIONS]
    cdef int n = gen_legal(s, buf), full_m, i
    _best_scored(s, buf, n, sc, full_top, &full_m)
    if full_m != m:
        return False
    for i in range(m):
        if full_top[i] != top[i]:
            return False
    return True


cdef inline int _best_scored(GameState* s, int32_t* actions, int n, int8_t* sc, int32_t* top,
                             int* m) noexcept nogil:
    """Write the best-scored of n decisions to top, in their order, and their count to m; return the best score."""
    cdef int i, best = -1
    score_actions(s, actions, n, sc)
    m[0] = 0
    for i in range(n):
        if sc[i] > best:
            best = sc[i]
            m[0] = 0
        if sc[i] == best:
            top[m[0]] = actions[i]
            m[0] += 1
    return best


def _greedy_choices(CoreState st):
    """Return the best-scored decisions as a rollout finds them, in gen_legal's order (test hook)."""
    cdef int32_t buf[MAX_ACTIONS]
    cdef int8_t sc[MAX_ACTIONS]
    cdef int32_t top[MAX_ACTIONS]
    cdef bint listed
    cdef int n = _short_list(&st.s, buf, &listed), m, i
    m = _greedy_best(&st.s, buf, n, listed, sc, top)
    return [top[i] for i in range(m)]


_MOVE_PRIOR_MAX = MOVE_PRIOR_MAX


def _merge_scored(a, a_scores, b, b_scores):
    """Return merge_scored's (actions, scores) for two ascending lists and their scores (test hook)."""
    cdef int32_t acts[MAX_ACTIONS]
    cdef int8_t sc[MAX_ACTIONS]
    cdef int32_t other[MAX_ACTIONS]
    cdef int8_t other_sc[MAX_ACTIONS]
    cdef int i, n
    if len(a) + len(b) > MAX_ACTIONS or len(a) != len(a_scores) or len(b) != len(b_scores):
        raise ValueError("two lists of at most MAX_ACTIONS actions together, each with its scores")
    for i in range(len(a)):
        acts[i] = a[i]
        sc[i] = a_scores[i]
    for i in range(len(b)):
        other[i] = b[i]
        other_sc[i] = b_scores[i]
    n = merge_scored(acts, sc, len(a), other, other_sc, len(b))
    return [acts[i] for i in range(n)], [sc[i] for i in range(n)]


def score_actions_of(CoreState st):
    """Return {action: prior} for the legal decisions (test and tuning hook)."""
    cdef int32_t buf[MAX_ACTIONS]
    cdef int8_t sc[MAX_ACTIONS]
    cdef int n = gen_legal(&st.s, buf), i
    score_actions(&st.s, buf, n, sc)
    return {buf[i]: sc[i] for i in range(n)}


# ------------------------------------------------------------ weights by name

cdef EvalParams _EP     # read for its fields' addresses only (the offsets below)


cdef Py_ssize_t _at(void* field):
    return <char*>field - <char*>&_EP


# The weights by name (search.params.KNOBS sets them by these names): (C type, byte offset in
# EvalParams), in the order of the sequences the Python hooks below take (EVAL_FIELDS).
EVAL_LAYOUT = {
    "tau": ("f", _at(&_EP.tau)),
    "min_bonus": ("f", _at(&_EP.min_bonus)),
    "leader": ("f", _at(&_EP.leader)),
    "king": ("f", _at(&_EP.king)),
    "temple": ("f", _at(&_EP.temple)),
    "supporter": ("f", _at(&_EP.supporter)),
    "monument": ("f", _at(&_EP.monument)),
    "treasure_near": ("f", _at(&_EP.treasure_near)),
    "catastrophe": ("f", _at(&_EP.catastrophe)),
    "opponents_max": ("f", _at(&_EP.opponents_max)),
    "scale": ("f", _at(&_EP.scale)),
    "centre": ("f", _at(&_EP.centre)),
    "endgame": ("f", _at(&_EP.endgame)),
    "building": ("f", _at(&_EP.building)),
    "wonder": ("f", _at(&_EP.wonder)),
}
EVAL_FIELDS = tuple(EVAL_LAYOUT)


cdef int store_named(char* base, dict layout, name, value) except -1:
    """Set the field `name` of the struct at base, as layout ({name: (C type, offset)}) places it.

    C types: "d" double, "f" float, "i" int (a bool is 0 or 1). ValueError
    names an unknown name (and the known ones), TypeError a value of the
    wrong type, OverflowError an int the C int cannot hold.
    """
    cdef char* at
    entry = layout.get(name) if isinstance(name, str) else None
    if entry is None:
        raise ValueError(f"unknown kernel parameter {name!r}; the parameters are {', '.join(layout)}")
    ctype, offset = entry
    at = base + <Py_ssize_t>offset
    if ctype == "i":
        if not hasattr(value, "__index__"):
            raise TypeError(f"kernel parameter {name!r} must be an integer, got {value!r}")
        try:
            (<int*>at)[0] = value
        except OverflowError:
            raise OverflowError(f"kernel parameter {name!r} = {value!r} does not fit a C int") from None
    elif value is None or isinstance(value, (bool, str, bytes)):
        raise TypeError(f"kernel parameter {name!r} must be a number, got {value!r}")
    elif ctype == "d":
        (<double*>at)[0] = value
    else:
        (<float*>at)[0] = value
    return 0


cdef dict load_named(char* base, dict layout):
    """Return {name: value} of every field layout places in the struct at base."""
    out = {}
    for name, (ctype, offset) in layout.items():
        if ctype == "i":
            out[name] = (<int*>(base + <Py_ssize_t>offset))[0]
        elif ctype == "d":
            out[name] = (<double*>(base + <Py_ssize_t>offset))[0]
        else:
            out[name] = (<float*>(base + <Py_ssize_t>offset))[0]
    return out


cdef int finish_eval_params(EvalParams* ep) except -1:
    """Derive what the weights imply (the concave table), needs not fixed: after setting weights."""
    cdef int x
    ep.use_fixed_need = 0
    for x in range(CONCAVE_TABLE):
        ep.concave[x] = ep.tau * (1.0 - exp(-x / ep.tau))
    return 0


cdef EvalParams eval_params_from(weights, value_weights=None):
    """Fill an EvalParams from a sequence in EVAL_FIELDS order, and the learned value's weights if given."""
    cdef EvalParams ep
    memset(&ep, 0, sizeof(EvalParams))
    weights = tuple(weights)
    if len(weights) != len(EVAL_FIELDS):
        raise ValueError(f"expected {len(EVAL_FIELDS)} weights ({', '.join(EVAL_FIELDS)}), got {len(weights)}")
    for name, w in zip(EVAL_FIELDS, weights):
        store_named(<char*>&ep, EVAL_LAYOUT, name, w)
    finish_eval_params(&ep)
    set_value_weights(&ep, value_weights)
    return ep


# The learned value's inputs (value_features writes them in this order): the
# handcrafted evaluation's logit, the progress, their product; each base fact
# less the best opponent's ("-best") and less the opponents' mean ("-mean");
# some "-best" times the progress.
VALUE_BASE_NAMES = ("weakest", "second", "third", "strongest", "concave", "presence", "temples", "supporters",
                    "monuments", "treasure_near", "kings", "catastrophes", "hand_k", "hand_r", "hand_b",
                    "hand_g", "treasures", "leaders", "to_act")
VALUE_FEATURE_NAMES = (("bias", "handcrafted_logit", "progress", "handcrafted_logit*progress")
                       + tuple(f"{f}-best" for f in VALUE_BASE_NAMES) + tuple(f"{f}-mean" for f in VALUE_BASE_NAMES)
                       + tuple(f"{VALUE_BASE_NAMES[TAPERED_BASE[i]]}-best*progress" for i in range(VALUE_TAPERED)))
assert len(VALUE_BASE_NAMES) == VALUE_BASE and len(VALUE_FEATURE_NAMES) == VALUE_FEATURES
HIDDEN_MAX = VALUE_HIDDEN_MAX     # the most hidden units a learned value may have (tne-ai tune value --hidden)


def _finite_row(row, int n, str what):
    """Return row as n finite floats; ValueError names what is wrong."""
    if isinstance(row, (str, bytes, dict)):
        raise ValueError(f"{what} must be a sequence of {n} numbers")
    try:
        w = [float(x) for x in row]
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be {n} numbers") from None
    if len(w) != n:
        raise ValueError(f"expected {n} {what}, got {len(w)}")
    if not all(x == x and abs(x) < 1e30 for x in w):
        raise ValueError(f"{what} must be finite numbers")
    return w


def value_parts(value_weights):
    """Return (linear weights, hidden weight rows, hidden biases, hidden outputs) of a learned value, checked.

    value_weights is VALUE_FEATURES numbers (the logistic alone) or
    {"linear": those, "hidden": {"weights": rows of VALUE_FEATURES numbers,
    "bias": a number a row, "out": a number a row}}.
    """
    if isinstance(value_weights, dict):
        if set(value_weights) != {"linear", "hidden"}:
            raise ValueError('a learned value with hidden units is {"linear": [...], "hidden": {...}}')
        hidden = value_weights["hidden"]
        if not isinstance(hidden, dict) or set(hidden) != {"weights", "bias", "out"}:
            raise ValueError('the hidden units are {"weights": rows, "bias": [...], "out": [...]}')
        rows = hidden["weights"]
        if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__len__"):
            raise ValueError("the hidden units' weights must be a list of rows")
        h = len(rows)
        if not 1 <= h <= VALUE_HIDDEN_MAX:
            raise ValueError(f"a learned value has 1 to {VALUE_HIDDEN_MAX} hidden units, got {h}")
        w = _finite_row(value_weights["linear"], VALUE_FEATURES, "learned-value weights")
        hw = [_finite_row(r, VALUE_FEATURES, "hidden-unit weights") for r in rows]
        return (w, hw, _finite_row(hidden["bias"], h, "hidden-unit biases"),
                _finite_row(hidden["out"], h, "hidden-unit outputs"))
    if isinstance(value_weights, (str, bytes)):
        raise ValueError(f"expected {VALUE_FEATURES} learned-value weights, got a string")
    try:
        n = len(value_weights)
    except TypeError:
        raise ValueError(f"expected {VALUE_FEATURES} learned-value weights") from None
    if n != VALUE_FEATURES:
        raise ValueError(f"expected {VALUE_FEATURES} learned-value weights ({', '.join(VALUE_FEATURE_NAMES)}), "
                         f"got {n}")
    return _finite_row(value_weights, VALUE_FEATURES, "learned-value weights"), [], [], []


cdef int set_value_weights(EvalParams* ep, value_weights) except -1:
    """Make the learned value the margin, with these weights (see value_parts), or None: the handcrafted one.

    ValueError names what is wrong; then nothing changes.
    """
    cdef int i, j
    if value_weights is None:
        ep.learned = 0
        ep.value_hidden = 0
        return 0
    w, hw, hb, hv = value_parts(value_weights)
    for i in range(VALUE_FEATURES):
        ep.value_w[i] = w[i]
    memset(ep.value_hw, 0, sizeof(ep.value_hw))
    memset(ep.value_hb, 0, sizeof(ep.value_hb))
    memset(ep.value_hv, 0, sizeof(ep.value_hv))
    ep.value_hidden = len(hw)
    for j in range(ep.value_hidden):
        ep.value_hb[j] = hb[j]
        ep.value_hv[j] = hv[j]
        for i in range(VALUE_FEATURES):
            ep.value_hw[j][i] = hw[j][i]
    ep.learned = 1
    return 0


def evaluate_repeatedly(CoreState st, weights, long calls, value_weights=None):
    """Evaluate the state `calls` times without the GIL and return the last rewards (the evaluation benchmark)."""
    cdef EvalParams ep = eval_params_from(weights, value_weights)
    cdef float r[MAX_PLAYERS]
    cdef long i
    with nogil:
        for i in range(calls):
            evaluate(&st.s, &ep, r)
    return [r[i] for i in range(st.s.players)]


def value_features_of(CoreState st, weights):
    """Return every seat's learned-value inputs (VALUE_FEATURE_NAMES) as the kernel counts them (weights in EVAL_FIELDS order)."""
    cdef EvalParams ep = eval_params_from(weights)
    cdef float out[MAX_PLAYERS * VALUE_FEATURES]
    cdef int p, i
    value_features(&st.s, &ep, out)
    return [[out[p * VALUE_FEATURES + i] for i in range(VALUE_FEATURES)] for p in range(st.s.players)]


def evaluate_of(CoreState st, weights, value_weights=None):
    """Return the per-seat rewards the search would give this state (weights in EVAL_FIELDS order; the learned value's if given)."""
    cdef EvalParams ep = eval_params_from(weights, value_weights)
    cdef float r[MAX_PLAYERS]
    evaluate(&st.s, &ep, r)
    return [r[i] for i in range(st.s.players)]


def seat_values_of(CoreState st, weights):
    """Return every seat's positional value (weights in EVAL_FIELDS order)."""
    cdef EvalParams ep = eval_params_from(weights)
    cdef float v[MAX_PLAYERS]
    seat_values(&st.s, &ep, v, NULL, False)
    return [v[i] for i in range(st.s.players)]


LEADER_PARTS = ("presence", "temples", "supporters", "monuments", "treasure", "building")


def explain_terms(CoreState st, weights, bint at_root=False):
    """Return every seat's evaluation terms as evaluate counts them (weights in EVAL_FIELDS order).

    at_root: value the state as the search values its root, needs and
    margins frozen there (fix_needs), so the end and centre terms apply;
    otherwise as evaluate_of does. The rewards are evaluate's own output.
    """
    cdef EvalParams ep = eval_params_from(weights)
    cdef EvalTerms rec
    cdef float r[MAX_PLAYERS]
    cdef int p, i
    cdef SeatTerms* t
    cdef LeaderTerms* lt
    if at_root:
        fix_needs(&st.s, &ep)
    evaluate_terms(&st.s, &ep, r, &rec)
    seats = []
    for p in range(st.s.players):
        t = &rec.seat[p]
        seats.append({
            "totals": [t.totals[i] for i in range(4)], "weakest": t.weakest,
            "concave": t.concave, "weakest_bonus": t.weakest_bonus, "colours": t.colours,
            "need": [t.need[i] for i in range(4)], "catastrophes": t.catastrophes,
            "leaders": t.leaders,
            "leader_parts": {LEADER_PARTS[i]: t.leader_parts[i] for i in range(6)},
            "kings": t.kings, "wonder": t.wonder,
            "value": t.value, "margin": t.margin, "end": t.end, "centre": t.centre,
            "final_margin": t.final_margin, "reward": t.reward,
        })
    leaders = []
    for i in range(rec.n_leaders):
        lt = &rec.leader[i]
        leaders.append({"seat": lt.seat, "colour": lt.colour, "square": lt.sq, "temples": lt.temples,
                        "supporters": lt.supporters, "monuments": lt.monuments,
                        "treasure": bool(lt.treasure), "building": bool(lt.building),
                        "need": lt.need, "prospect": lt.prospect, "contribution": lt.contribution})
    return {"seats": seats, "leaders": leaders, "progress": rec.progress, "over": bool(rec.over),
            "rewards": [r[p] for p in range(st.s.players)]}


# ------------------------------------------------------------ the opponents' policy (search.inference)

cdef double prior_chance(GameState* s, int action, double temperature) noexcept nogil:
    """Return the chance that the seat to act takes `action` when it plays the prior's softmax at `temperature` (0 if illegal)."""
    cdef int32_t buf[MAX_ACTIONS]
    cdef int8_t sc[MAX_ACTIONS]
    cdef int n = gen_legal(s, buf), i, found = -1, top = -128
    cdef double z = 0.0
    if n <= 0:
        return 0.0
    score_actions(s, buf, n, sc)
    for i in range(n):
        if buf[i] == action:
            found = i
        if sc[i] > top:
            top = sc[i]
    if found < 0:
        return 0.0
    for i in range(n):
        z += exp((sc[i] - top) / temperature)
    return exp((sc[found] - top) / temperature) / z


def prior_chances(CoreState world, int observer, const uint8_t[::1] hands, int action, double temperature):
    """Return, for each set of the other seats' hands, the chance the seat to act takes `action` (prior_chance's model).

    `world` is any state consistent with what `observer` knows; `hands` is
    bytes of sets of players x 4 colour counts (the observer's row ignored),
    each dealt into it with the rest around it (core.deal_around_hands)
    before the chance is taken. A set that does not fit gets 0.
    """
    cdef GameState det
    cdef uint64_t rng = 1
    cdef int width = world.s.players * 4
    cdef int actor = world.s.to_act
    cdef Py_ssize_t k, n, j, seen = 0
    cdef uint8_t flat[MAX_PLAYERS * 4]
    cdef uint8_t key[8]
    cdef int i
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature!r}")
    if hands.shape[0] % width:
        raise ValueError(f"hands are sets of {world.s.players} x 4 colour counts")
    n = hands.shape[0] // width
    cdef double* res = <double*>malloc(max(n, 1) * sizeof(double))
    # the prior reads only the public state and the actor's own tiles (its hand
    # and its swapped pile), so sets that give the actor the same ones share
    # one chance: a pool holds far fewer actor hands than sets
    cdef uint8_t* keys = <uint8_t*>malloc(max(n, 1) * 8)
    cdef double* known = <double*>malloc(max(n, 1) * sizeof(double))
    if res == NULL or keys == NULL or known == NULL:
        free(res)
        free(keys)
        free(known)
        raise MemoryError()
    try:
        with nogil:
            for k in range(n):
                for i in range(width):
                    flat[i] = hands[k * width + i]
                memcpy(&det, &world.s, sizeof(GameState))
                if not deal_around_hands(&det, observer, flat, &rng):
                    res[k] = 0.0
                    continue
                for i in range(4):
                    key[i] = det.hand[actor][i]
                    key[4 + i] = det.swapped[actor][i]
                res[k] = -1.0
                for j in range(seen):
                    if memcmp(&keys[j * 8], key, 8) == 0:
                        res[k] = known[j]
                        break
                if res[k] < 0:
                    res[k] = prior_chance(&det, action, temperature)
                    memcpy(&keys[seen * 8], key, 8)
                    known[seen] = res[k]
                    seen += 1
        return [res[k] for k in range(n)]
    finally:
        free(res)
        free(keys)
        free(known)
