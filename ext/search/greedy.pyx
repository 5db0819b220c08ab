# cython: language_level=3
"""The greedy baseline's decision as a nogil kernel: search.baselines.GreedyAgent in C.

The Python agent (search.baselines.PyGreedyAgent) is the reference and its
docstring says what the player does; this module does the same, step for
step, so that a seeded game gives the same decision at every step
(tests/test_greedy_kernel.py compares them). To make that exact, every
floating-point sum here runs in the reference's order and in double, the
same libm exp is called on the same arguments, hypergeometric odds are
ratios of exact 64-bit integers (exact in a double below 2**53, as Python's
int division rounds them) and the tie-breaking noise is a function of
(salt, action), not of the order decisions are tried in.

`greedy_choose` is the Python entry: it copies the world, releases the GIL
and returns the decision.
"""
from libc.math cimport exp, INFINITY
from libc.stdint cimport uint64_t, int64_t, int32_t

from ext.core cimport (A_CAT, A_COMMIT, A_LEADER, A_PASS, A_SWAP, BB, BLACK, CONFLICT_REVOLT, GREEN,
                      GameState, MAX_ACTIONS, MAX_PLAYERS, MONUMENT_COLOURS, NB, NB_N, NSQ, PH_ACTION,
                      PH_OVER, PH_REVOLT_ATTACK, PH_REVOLT_DEFEND, PH_WAR_ATTACK, PH_WAR_DEFEND, RED,
                      apply_unchecked, bb_and, bb_andnot, bb_any, bb_xor, bb_count, bb_clear, bb_eq, bb_neighbours, bb_or, bb_square,
                      bb_test, flood, gen_legal, temples_beside, ranking_key, hand_size, occupied, unseen_by, CoreState)

cdef enum:
    VALUE_DEPTH = 3         # own follow-up choices (monument, treasure, ...) resolved this deep


cdef inline int count_and(BB a, BB b) noexcept nogil:
    """Count the squares of a that are in b."""
    return bb_count(bb_and(a, b))


# ---------------------------------------------------------------- tie-breaking noise

cdef inline double tie_noise(uint64_t salt, int action) noexcept nogil:
    """Return a noise in [0, 1e-9) for a tried decision, from (salt, action) alone."""
    cdef uint64_t z = salt + <uint64_t>(action + 1) * 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    z = z ^ (z >> 31)
    return <double>(z >> 11) * (1.0 / 9007199254740992.0) * 1e-9


def _tie_noise(uint64_t salt, int action):
    """Return the kernel's tie-breaking noise of a decision (test hook)."""
    return tie_noise(salt, action)


# ---------------------------------------------------------------- evaluation helpers

cdef inline double utility(GreedyCtx* ctx, int v) noexcept nogil:
    """Return tau*(1-exp(-v/tau)), from the table when v is in it (the same double either way)."""
    if 0 <= v < UTILITY_TABLE:
        return ctx.utility[v]
    return ctx.w.tau * (1.0 - exp(<double>(-v) / ctx.w.tau))

cdef double colour_value(GreedyCtx* ctx, const int* scores, int treasures) noexcept nogil:
    """Return a seat's value of its colour scores, treasures added to the weakest (R-END-2)."""
    cdef int x[4]
    cdef int c, t, lo
    cdef double total = 0.0
    for c in range(4):
        x[c] = scores[c]
    for t in range(treasures):
        lo = 0
        for c in range(1, 4):
            if x[c] < x[lo]:
                lo = c
        x[lo] += 1
    lo = x[0]
    for c in range(4):
        total += utility(ctx, x[c])
        if x[c] < lo:
            lo = x[c]
    return total + ctx.w.min_bonus * lo

cdef void colour_need(GreedyCtx* ctx, const int* scores, int treasures, double* out) noexcept nogil:
    """Write the value of one more point of each colour for a seat."""
    cdef double base = colour_value(ctx, scores, treasures)
    cdef int s[4]
    cdef int c, k
    for c in range(4):
        for k in range(4):
            s[k] = scores[k]
        s[c] += 1
        out[c] = colour_value(ctx, s, treasures) - base

cdef int64_t comb(int n, int k) noexcept nogil:
    """Return the binomial coefficient (0 when k is out of 0..n), exactly."""
    cdef int64_t r = 1
    cdef int i
    if k < 0 or k > n:
        return 0
    if k > n - k:
        k = n - k
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r

cdef double hyper_at_least(int total, int good, int drawn, int k) noexcept nogil:
    """Return P(X >= k) for X hypergeometric: `drawn` tiles from `total` of which `good` are wanted."""
    cdef int hi, i
    cdef int64_t p = 0
    if k <= 0:
        return 1.0
    if drawn > total:
        drawn = total
    hi = good if good < drawn else drawn
    if total <= 0 or k > hi:
        return 0.0
    for i in range(k, hi + 1):
        p += comb(good, i) * comb(total - good, drawn - i)
    return <double>p / <double>comb(total, drawn)

cdef void conflict_bases(GameState* s, int* base_a, int* base_d) noexcept nogil:
    """Write the attacker's and the defender's base strengths of the pending conflict (R-REV-2, R-WAR-3)."""
    cdef BB passable
    if s.c_kind == CONFLICT_REVOLT:
        base_a[0] = temples_beside(s, s.c_att_leader)
        base_d[0] = temples_beside(s, s.c_def_leader)
        return
    # the uniting tile belongs to neither side
    passable = occupied(s)
    if s.unification >= 0:
        bb_clear(&passable, s.unification)
    base_a[0] = count_and(flood(bb_square(s.c_att_leader), passable), s.up[s.c_colour])
    base_d[0] = count_and(flood(bb_square(s.c_def_leader), passable), s.up[s.c_colour])

cdef inline BB root_group(GreedyCtx* ctx, int sq, BB passable, BB gained, BB lost) noexcept nogil:
    """Return the group of passable squares around sq: the root's, when no change touched it."""
    cdef int j
    cdef BB g
    for j in range(ctx.root_ngroups):
        g = ctx.root_groups[j]
        if bb_test(&g, sq):
            if not bb_any(bb_and(g, lost)):
                # a group that kept every square is still connected: it is a whole group
                # unless it gained a neighbour, and then it grows from where it was
                if not bb_any(bb_and(ctx.root_group_edges[j], gained)):
                    return g
                return flood(g, passable)
            break
    return flood(bb_square(sq), passable)

cdef inline double leader_term(GameState* s, GreedyCtx* ctx, int p, int c, int sq, BB group) noexcept nogil:
    """Return one leader's term: its prospects in its group, weighted by its seat's need of its colour."""
    cdef const GreedyWeights* w = &ctx.w
    cdef int t = temples_beside(s, sq), u = count_and(group, s.up[c]), m
    cdef double v, val
    if t > 4:
        t = 4
    if u > 12:
        u = 12
    v = w.leader + w.temple * t + w.supporter * u
    for m in range(6):
        if (s.monument_sq[m] >= 0 and bb_test(&group, s.monument_sq[m])
                and (MONUMENT_COLOURS[m][0] == c or MONUMENT_COLOURS[m][1] == c)):
            v += w.monument
    if c == GREEN and bb_any(bb_and(group, s.treasure)):
        v += w.treasure_near
    val = ctx.needs[p][c] * v
    if c == BLACK:
        val += w.king * ctx.max_need[p]
    return val

cdef void keep_root_groups(GameState* s, GreedyCtx* ctx) noexcept nogil:
    """Record the leaders' groups and terms of the position being decided, for root_group and positional."""
    cdef int p, c, sq, j
    ctx.root_passable = occupied(s)
    ctx.root_ngroups = 0
    for c in range(4):
        ctx.root_up[c] = s.up[c]
    ctx.root_treasure = s.treasure
    for p in range(ctx.players):
        for c in range(4):
            sq = s.leader_sq[p][c]
            ctx.root_leader_sq[p][c] = sq
            if sq < 0:
                continue
            j = 0
            while j < ctx.root_ngroups and not bb_test(&ctx.root_groups[j], sq):
                j += 1
            if j == ctx.root_ngroups:
                ctx.root_groups[j] = flood(bb_square(sq), ctx.root_passable)
                ctx.root_group_edges[j] = bb_neighbours(ctx.root_groups[j])
                ctx.root_ngroups += 1
            ctx.root_leader_group[p][c] = j
            ctx.root_leader_term[p][c] = leader_term(s, ctx, p, c, sq, ctx.root_groups[j])

cdef void positional(GameState* s, GreedyCtx* ctx, int removed, double* out) noexcept nogil:
    """Write each seat's leader terms summed, the leader on square `removed` (if any) taken off.

    A leader's kingdom is what connects to it through tiles face up or down,
    the wonder and other leaders (the removed one no longer connects).
    Leaders are summed seat by seat in colour order. A leader on its root
    square whose group, and every tile and treasure in it or next to it, is
    as at the root has its root term (the same double).
    """
    cdef BB passable = occupied(s)
    cdef BB groups[MAX_GROUPS]
    cdef bint intact[MAX_GROUPS]
    cdef BB group, gained, lost, changed
    cdef int ngroups = 0, p, c, sq, j
    if removed >= 0:
        bb_clear(&passable, removed)
    gained = bb_andnot(passable, ctx.root_passable)
    lost = bb_andnot(ctx.root_passable, passable)
    changed = bb_or(bb_or(bb_xor(s.up[0], ctx.root_up[0]), bb_xor(s.up[1], ctx.root_up[1])),
                    bb_or(bb_xor(s.up[2], ctx.root_up[2]), bb_xor(s.up[3], ctx.root_up[3])))
    changed = bb_or(changed, bb_xor(s.treasure, ctx.root_treasure))
    for j in range(ctx.root_ngroups):
        intact[j] = not (bb_any(bb_and(ctx.root_groups[j], bb_or(lost, changed)))
                         or bb_any(bb_and(ctx.root_group_edges[j], bb_or(gained, changed))))
    for p in range(ctx.players):
        out[p] = 0.0
    for p in range(ctx.players):
        for c in range(4):
            sq = s.leader_sq[p][c]
            if sq < 0 or sq == removed:
                continue
            if sq == ctx.root_leader_sq[p][c] and intact[ctx.root_leader_group[p][c]]:
                out[p] += ctx.root_leader_term[p][c]
                continue
            j = 0
            while j < ngroups and not bb_test(&groups[j], sq):
                j += 1
            if j == ngroups:
                groups[j] = root_group(ctx, sq, passable, gained, lost)
                ngroups += 1
            group = groups[j]
            out[p] += leader_term(s, ctx, p, c, sq, group)

cdef double combine(GreedyCtx* ctx, const double* values) noexcept nogil:
    """Return the deciding seat's value minus its opponents' (the best and the mean mixed with 3-4)."""
    cdef int me = ctx.seat, p, n = 0
    cdef double k, most = -INFINITY, total = 0.0
    if ctx.players == 2:
        return values[me] - values[1 - me]
    for p in range(ctx.players):
        if p != me:
            if values[p] > most:
                most = values[p]
            total += values[p]
            n += 1
    k = ctx.w.opponents_max
    return values[me] - (k * most + (1 - k) * total / n)

cdef double combine_parts(GreedyCtx* ctx, GameState* s, const int* cats, const double* pos,
                          int bonus_p, int bonus_c, int bonus_n) noexcept nogil:
    """Return combine() of the seats' colour values (plus bonus_n points of colour bonus_c to seat bonus_p)."""
    cdef double values[MAX_PLAYERS]
    cdef double colours
    cdef int sc[4]
    cdef int p, c
    cdef bint same
    for p in range(ctx.players):
        same = s.treasures_taken[p] == ctx.root_treasures[p]
        for c in range(4):
            sc[c] = s.score[p][c]
            same = same and sc[c] == ctx.root_scores[p][c]
        if p == bonus_p and bonus_n != 0:
            sc[bonus_c] += bonus_n
            same = False
        # a seat whose scores did not change has its root colour value (the same double)
        colours = ctx.root_colours[p] if same else colour_value(ctx, sc, s.treasures_taken[p])
        values[p] = colours + pos[p] + ctx.w.catastrophe * cats[p]
    return combine(ctx, values)

cdef double static_value(GameState* s, GreedyCtx* ctx, int removed, int bonus_p, int bonus_c,
                         int bonus_n) noexcept nogil:
    """Evaluate a position with no conflict pending (optionally a leader removed, points added)."""
    cdef double pos[MAX_PLAYERS]
    cdef int cats[MAX_PLAYERS]
    cdef int p
    positional(s, ctx, removed, pos)
    for p in range(ctx.players):
        cats[p] = s.cats_left[p]
    return combine_parts(ctx, s, cats, pos, bonus_p, bonus_c, bonus_n)

cdef double terminal_value(GameState* s, GreedyCtx* ctx) noexcept nogil:
    """Return the value of a finished game: the win share above 1/players, plus the static value."""
    cdef int keys[MAX_PLAYERS][4]
    cdef int ranks[MAX_PLAYERS]
    cdef int P = ctx.players, p, q, i, winners = 0
    cdef double share = 0.0
    for p in range(P):
        ranking_key(s, p, keys[p])
    for p in range(P):
        ranks[p] = 0
        for q in range(P):
            for i in range(4):
                if keys[q][i] != keys[p][i]:
                    if keys[q][i] > keys[p][i]:
                        ranks[p] += 1
                    break
        if ranks[p] == 0:
            winners += 1
    if ranks[ctx.seat] == 0:
        share = 1.0 / winners
    return ctx.w.terminal * (share - 1.0 / P) + static_value(s, ctx, -1, -1, 0, 0)

cdef double win_odds(GameState* s, GreedyCtx* ctx, int base_a, int base_d) noexcept nogil:
    """Return P(attacker wins) of the pending conflict, from the deciding seat's knowledge.

    Not for the deciding seat's own attack still to commit: attack_commitment
    gives those odds, of the commitment it will make.
    """
    cdef int c = RED if s.c_kind == CONFLICT_REVOLT else s.c_colour
    cdef int me = ctx.seat, att = s.c_attacker, dfd = s.c_defender
    cdef int my_tiles = s.hand[me][c], total = ctx.total_unseen, good = ctx.unseen[c], t, need
    cdef double mean, ea, ed
    if s.c_att_commit >= 0:
        t = base_a + s.c_att_commit
        if dfd == me:
            return 0.0 if base_d + my_tiles >= t else 1.0
        return 1.0 - hyper_at_least(total, good, ctx.hand_sizes[dfd], t - base_d)
    if dfd == me:
        need = base_d + my_tiles - base_a + 1
        return hyper_at_least(total, good, ctx.hand_sizes[att], need)
    mean = (<double>good / <double>total) if total else 0.0
    ea = base_a + mean * ctx.hand_sizes[att]
    ed = base_d + mean * ctx.hand_sizes[dfd]
    return 1.0 / (1.0 + exp(-(ea - ed - 0.5)))

cdef void outcomes(GameState* s, GreedyCtx* ctx, int base_a, int base_d, double* wa, double* wd) noexcept nogil:
    """Write the values if the attacker wins and if the defender wins the pending conflict."""
    if s.c_kind == CONFLICT_REVOLT:
        wa[0] = static_value(s, ctx, s.c_def_leader, s.c_attacker, RED, 1)
        wd[0] = static_value(s, ctx, s.c_att_leader, s.c_defender, RED, 1)
    else:
        wa[0] = static_value(s, ctx, s.c_def_leader, s.c_attacker, s.c_colour, 1 + base_d)
        wd[0] = static_value(s, ctx, s.c_att_leader, s.c_defender, s.c_colour, 1 + base_a)

cdef int attack_commitment(GameState* s, GreedyCtx* ctx, const int32_t* legal, int n, int base_a,
                           int base_d, double stake, double* odds) noexcept nogil:
    """Return the tiles the deciding seat commits as the attacker, and write its odds of winning with them.

    A certain win as cheaply as possible when one is legal, else the legal
    count that trades the odds (a hypergeometric model of the defender's
    hand) against the tiles spent best: `stake` is the value of winning
    minus that of losing.
    """
    cdef int c = RED if s.c_kind == CONFLICT_REVOLT else s.c_colour
    cdef int mine = s.hand[ctx.seat][c], total = ctx.total_unseen, good = ctx.unseen[c]
    cdef int held = ctx.hand_sizes[s.c_defender], most, sure, i, k, best_n = 0
    cdef double p, u, best_p = 0.0, best_u = -INFINITY
    most = held if held < good else good        # the most the defender can hold of c
    sure = base_d + most + 1 - base_a
    if sure < 0:
        sure = 0
    if sure <= mine:
        for i in range(n):
            if legal[i] == A_COMMIT + sure:
                odds[0] = 1.0
                return sure                 # a certain win: take it as cheaply as possible
    # the legal counts (all of 0..mine, or with R-VAR-ENGLISH none or the exact one)
    for i in range(n):
        k = legal[i] - A_COMMIT
        p = 1.0 - hyper_at_least(total, good, held, base_a + k - base_d)
        u = p * stake - ctx.w.commit_cost * k
        if u > best_u + 1e-9:
            best_n, best_u, best_p = k, u, p
    odds[0] = best_p
    return best_n

cdef double conflict_value(GameState* s, GreedyCtx* ctx) noexcept nogil:
    """Return a pending conflict's value: its two outcomes weighted by the attacker's odds.

    The deciding seat's own attack, still to commit, is valued by the
    commitment it will make (attack_commitment), its tiles' cost taken off:
    a revolt it would not pay for, with no more temples than the defender,
    is a certain loss (R-REV-4: a tie goes to the defender), not a chance.
    """
    cdef int32_t legal[MAX_ACTIONS]
    cdef int base_a, base_d, n, k
    cdef double p, wa, wd
    conflict_bases(s, &base_a, &base_d)
    outcomes(s, ctx, base_a, base_d, &wa, &wd)
    if s.c_attacker == ctx.seat and s.c_att_commit < 0:
        n = gen_legal(s, legal)
        k = attack_commitment(s, ctx, legal, n, base_a, base_d, wa - wd, &p)
        return p * wa + (1.0 - p) * wd - ctx.w.commit_cost * k
    p = win_odds(s, ctx, base_a, base_d)
    return p * wa + (1.0 - p) * wd

cdef inline bint commit_phase(int phase) noexcept nogil:
    return (phase == PH_REVOLT_ATTACK or phase == PH_REVOLT_DEFEND or phase == PH_WAR_ATTACK
            or phase == PH_WAR_DEFEND)

cdef double value(GameState* s, GreedyCtx* ctx, int depth) noexcept nogil:
    """Evaluate a state reached by a tried decision (resolving own follow-up choices greedily)."""
    cdef int32_t options[MAX_ACTIONS]
    cdef GameState nxt
    cdef int n, i
    cdef double best, v
    if s.phase == PH_OVER:
        return terminal_value(s, ctx)
    if s.phase == PH_ACTION:
        return static_value(s, ctx, -1, -1, 0, 0)
    if commit_phase(s.phase):
        return conflict_value(s, ctx)
    if depth >= VALUE_DEPTH:
        return static_value(s, ctx, -1, -1, 0, 0)
    n = gen_legal(s, options)
    if s.to_act != ctx.seat and n > 1:
        n = 1               # another seat's treasure choice: any candidate gives it the same count
    best = -INFINITY
    for i in range(n):
        nxt = s[0]
        apply_unchecked(&nxt, options[i])
        v = value(&nxt, ctx, depth + 1)
        if v > best:
            best = v
    return best


# ---------------------------------------------------------------- decisions by phase

cdef int best_of(GameState* s, GreedyCtx* ctx, const int32_t* legal, int n) noexcept nogil:
    """Return the option with the best value (monument, treasure, war choice, ...)."""
    cdef GameState nxt
    cdef int best = legal[0], i
    cdef double best_v = -INFINITY, v
    for i in range(n):
        nxt = s[0]
        apply_unchecked(&nxt, legal[i])
        v = value(&nxt, ctx, 0) + tie_noise(ctx.salt, legal[i])
        if v > best_v:
            best = legal[i]
            best_v = v
    return best

cdef int swap_choice(GameState* s, GreedyCtx* ctx, const bint* useful, const int32_t* swaps,
                     int nswaps) noexcept nogil:
    """Return a swap of the tiles that could not score (keeping a few red), or -1."""
    cdef int counts[4]
    cdef int c, n = 0, a, i
    for c in range(4):
        counts[c] = 0 if useful[c] else s.hand[ctx.seat][c]
    counts[RED] = counts[RED] - 2 if counts[RED] > 2 else 0
    for c in range(4):
        n += counts[c]
    if n == 0 or s.bag_len < n + 2 * ctx.players * 6:
        return -1
    a = A_SWAP + counts[0] + 7 * counts[1] + 49 * counts[2] + 343 * counts[3]
    for i in range(nswaps):
        if swaps[i] == a:
            return a
    return -1

cdef int action_phase(GameState* s, GreedyCtx* ctx, const int32_t* legal, int n) noexcept nogil:
    """Return the best action-phase decision; swap only when nothing else gains."""
    cdef GameState nxt
    cdef int32_t swaps[MAX_ACTIONS]
    cdef double root_pos[MAX_PLAYERS]
    cdef int cats[MAX_PLAYERS]
    cdef bint useful[4]
    cdef int nswaps = 0, i, a, sq, k, nb, p, sw, best = A_PASS, moving = -1
    cdef double here, v, best_v = -INFINITY, moving_v = -INFINITY, unchanged
    cdef BB kingdoms
    cdef bint near
    here = static_value(s, ctx, -1, -1, 0, 0)
    positional(s, ctx, -1, root_pos)
    for p in range(ctx.players):
        cats[p] = s.cats_left[p]
    # a first action's tile touching no kingdom scores nothing, takes no treasure and
    # cannot end the turn or the game: the scores after it are these
    unchanged = combine_parts(ctx, s, cats, root_pos, -1, 0, 0)
    kingdoms = flood(s.leaders, occupied(s))
    for k in range(4):
        useful[k] = False
    for i in range(n):
        a = legal[i]
        if A_SWAP <= a < A_PASS:
            swaps[nswaps] = a
            nswaps += 1
            continue
        if a < A_LEADER and not bb_any(bb_and(bb_neighbours(bb_square(a % NSQ)), kingdoms)):
            # a tile touching no kingdom leaves every kingdom as it was: only scores can
            # change (monument points at the end of the turn)
            if s.actions_left >= 2:
                v = unchanged + tie_noise(ctx.salt, a)
                if v > best_v:
                    best, best_v = a, v
                if v > moving_v:
                    moving, moving_v = a, v
                continue
            nxt = s[0]
            apply_unchecked(&nxt, a)
            if nxt.phase == PH_OVER:
                v = terminal_value(&nxt, ctx)
            else:
                v = combine_parts(ctx, &nxt, cats, root_pos, -1, 0, 0)
            v += tie_noise(ctx.salt, a)
            if v > best_v:
                best, best_v = a, v
            if v > moving_v:
                moving, moving_v = a, v
            continue
        if A_CAT <= a < A_SWAP:
            sq = a - A_CAT
            # a catastrophe on an empty square changes nothing this evaluation sees
            if not (1 <= s.cell[sq] <= 4):
                continue
            near = False
            for k in range(NB_N[sq]):
                nb = NB[sq][k]
                if s.cell[nb] != 0 or s.leader_at[nb] != 0:
                    near = True
                    break
            if not near:
                continue
        nxt = s[0]
        apply_unchecked(&nxt, a)
        v = value(&nxt, ctx, 0) + tie_noise(ctx.salt, a)
        if a < A_LEADER and v > here + 0.05:
            useful[a // NSQ] = True
        if v > best_v:
            best, best_v = a, v
        if a < A_LEADER and v > moving_v:
            moving, moving_v = a, v
    if nswaps and best_v < here + 0.05:
        sw = swap_choice(s, ctx, useful, swaps, nswaps)
        if sw >= 0:
            return sw
    # everyone passed a full round, or no tile was placed for rounds: passing on (or losing
    # the same revolt) could go on for ever, since a full hand draws nothing and neither end
    # condition comes nearer; make progress instead
    if ((best == A_PASS and ctx.passes >= ctx.players)
            or (ctx.stalled and not (best < A_LEADER or (A_SWAP <= best < A_PASS)))):
        if moving >= 0:
            return moving
        if nswaps:
            return swaps[0]
    return best

cdef int commitment(GameState* s, GreedyCtx* ctx, const int32_t* legal, int n) noexcept nogil:
    """Return the commitment: what wins when it can, else nothing (a defender); an attacker's, attack_commitment."""
    cdef int me = ctx.seat, c, mine, base_a, base_d, need
    cdef double wa, wd, p
    c = RED if s.c_kind == CONFLICT_REVOLT else s.c_colour
    mine = s.hand[me][c]
    conflict_bases(s, &base_a, &base_d)
    if s.phase == PH_REVOLT_DEFEND or s.phase == PH_WAR_DEFEND:
        need = base_a + s.c_att_commit - base_d
        if need < 0:
            need = 0
        return A_COMMIT + (need if need <= mine else 0)
    # attacker: trade the odds against the tiles spent
    outcomes(s, ctx, base_a, base_d, &wa, &wd)
    return A_COMMIT + attack_commitment(s, ctx, legal, n, base_a, base_d, wa - wd, &p)

cdef int greedy_decision(GameState* s, GreedyCtx* ctx) noexcept nogil:
    """Return the greedy decision of the seat to act (ctx.seat) in a world dealt from its view."""
    cdef int32_t legal[MAX_ACTIONS]
    cdef int n = gen_legal(s, legal), p, c
    cdef int sc[4]
    if n == 1:
        return legal[0]
    ctx.players = s.players
    for c in range(UTILITY_TABLE):
        ctx.utility[c] = ctx.w.tau * (1.0 - exp(<double>(-c) / ctx.w.tau))
    for p in range(ctx.players):
        for c in range(4):
            sc[c] = s.score[p][c]
            ctx.root_scores[p][c] = sc[c]
        ctx.root_treasures[p] = s.treasures_taken[p]
        ctx.root_colours[p] = colour_value(ctx, sc, s.treasures_taken[p])
        colour_need(ctx, sc, s.treasures_taken[p], ctx.needs[p])
        ctx.max_need[p] = ctx.needs[p][0]
        for c in range(1, 4):
            if ctx.needs[p][c] > ctx.max_need[p]:
                ctx.max_need[p] = ctx.needs[p][c]
        ctx.hand_sizes[p] = hand_size(s, p)
    unseen_by(s, ctx.seat, ctx.unseen)
    ctx.total_unseen = ctx.unseen[0] + ctx.unseen[1] + ctx.unseen[2] + ctx.unseen[3]
    keep_root_groups(s, ctx)
    if commit_phase(s.phase):
        return commitment(s, ctx, legal, n)
    if s.phase == PH_ACTION:
        return action_phase(s, ctx, legal, n)
    return best_of(s, ctx, legal, n)


# ---------------------------------------------------------------- Python entry

WEIGHT_NAMES = ("tau", "min_bonus", "leader", "king", "temple", "supporter", "monument",
                "treasure_near", "catastrophe", "opponents_max", "commit_cost", "terminal")


cdef class GreedyParams:
    """The greedy evaluation's weights, converted once (a dict with every name of WEIGHT_NAMES)."""

    cdef GreedyWeights w

    def __init__(self, dict weights):
        missing = [k for k in WEIGHT_NAMES if k not in weights]
        if missing:
            raise ValueError(f"missing weight(s) {missing}")
        self.w.tau = weights["tau"]
        self.w.min_bonus = weights["min_bonus"]
        self.w.leader = weights["leader"]
        self.w.king = weights["king"]
        self.w.temple = weights["temple"]
        self.w.supporter = weights["supporter"]
        self.w.monument = weights["monument"]
        self.w.treasure_near = weights["treasure_near"]
        self.w.catastrophe = weights["catastrophe"]
        self.w.opponents_max = weights["opponents_max"]
        self.w.commit_cost = weights["commit_cost"]
        self.w.terminal = weights["terminal"]


def greedy_choose(CoreState world, int seat, GreedyParams params, int passes, uint64_t salt,
                  bint stalled=False):
    """Return the greedy decision of `seat` (to act) in `world`, the GIL released; `world` is unchanged.

    `passes` counts the passes in a row before this decision (the stall rule),
    `salt` keys the tie-breaking noise (search.baselines.tie_noise), `stalled`
    says no tile was placed or swapped for long (search.baselines._Greedy.stalled).
    """
    cdef GameState s = world.s
    cdef GreedyCtx ctx
    cdef int a
    if s.phase == PH_OVER:
        raise ValueError("the game is over: there is no decision to make")
    if s.to_act != seat:
        raise ValueError(f"seat {s.to_act} is to act, not seat {seat}")
    ctx.w = params.w
    ctx.seat = seat
    ctx.players = s.players
    ctx.passes = passes
    ctx.stalled = stalled
    ctx.salt = salt
    with nogil:
        a = greedy_decision(&s, &ctx)
    return a
