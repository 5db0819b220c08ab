# ext/search/ordering.pxi: the move ordering of the ISMCTS tree (ext/search/tree.pyx includes it).
#
# Which of a node's decisions the tree tries first, as progressive widening
# admits them: near the root the observer's own decisions are ordered by a
# look-ahead (each decision applied and the position after it evaluated:
# root_prior, lookahead, settled_value for a decision that leaves a conflict
# or choice pending), cached per node in the tree's order pool (cached_order,
# kept_order, grow_pool); elsewhere by the cheap prior of
# evaluation.score_actions in buckets, ties rotated per node
# (order_decisions, place_in_buckets), from the short list of the decisions
# that can rank high when it suffices (order_best). The debug build checks
# both shortcuts against the full list (legal_as_cached, best_as_listed).
#
# These are functions of the tree (they read and fill its fields), included
# rather than a module of their own so that the calls stay direct C calls:
# a cdef call across modules goes through a function pointer.

# worlds dealt to value a decision that starts a conflict in the look-ahead
cdef int LOOKAHEAD_CONFLICT_WORLDS = 8

cdef void root_prior(Tree t) noexcept nogil:
    """Order the root's decisions by a one-decision look-ahead, once per search.

    The observer's legal decisions are the same in every world, so the
    order holds for every iteration. The seats' needs are frozen here.
    """
    t.root_n = 0
    if t.root_state.phase == PH_OVER:
        return
    fix_needs(&t.root_state, &t.params.eval)
    t.root_n = lookahead(t, &t.root_state, t.root_order, t.root_values)
    if t.params.root_kinds and t.root_state.phase == PH_ACTION:
        kinds_first(t.root_order, t.root_values, t.root_n)


cdef int action_kind(int32_t a) noexcept nogil:
    """Return an action-phase decision's kind: 0 tile, 1 leader, 2 withdrawal, 3 catastrophe, 4 swap, 5 pass."""
    if a < A_LEADER:
        return 0
    if a < A_WITHDRAW:
        return 1
    if a < A_CAT:
        return 2
    if a < A_SWAP:
        return 3
    if a < A_PASS:
        return 4
    return 5


cdef void kinds_first(int32_t* order, float* values, int n) noexcept nogil:
    """Move the best decision of each kind but passing to the front of a best-first order, keeping their order.

    Progressive widening admits the root's decisions in this order, so that
    a leader, a withdrawal, a catastrophe or a swap the one-decision
    look-ahead ranks below many tiles is still searched at a small budget.
    """
    cdef int32_t out_order[MAX_ACTIONS]
    cdef float out_values[MAX_ACTIONS]
    cdef bint seen[6]
    cdef bint front[MAX_ACTIONS]
    cdef int i, k, m = 0
    for k in range(6):
        seen[k] = False
    for i in range(n):
        k = action_kind(order[i])
        front[i] = k != 5 and not seen[k]
        if front[i]:
            seen[k] = True
            out_order[m] = order[i]
            out_values[m] = values[i]
            m += 1
    for i in range(n):
        if not front[i]:
            out_order[m] = order[i]
            out_values[m] = values[i]
            m += 1
    memcpy(order, out_order, n * sizeof(int32_t))
    memcpy(values, out_values, n * sizeof(float))


cdef int lookahead(Tree t, GameState* s, int32_t* out, float* out_values) noexcept nogil:
    """Write the legal decisions of s best first by the evaluation after each, and those values; return n."""
    cdef int32_t legal[MAX_ACTIONS]
    cdef int8_t sc[MAX_ACTIONS]
    cdef double value[MAX_ACTIONS]
    cdef float rewards[MAX_PLAYERS]
    cdef GameState child
    cdef int n, i, j, k, me = s.to_act
    cdef int32_t a
    cdef double v
    # A tile on a square that touches nothing, or a catastrophe on an empty
    # square, changes no group, score, temple or treasure, so the evaluation
    # after it is the same for every such decision (it reads no hand): one
    # evaluation per kind serves them all, unless a decision pends a choice.
    cdef double alike_value[2]
    cdef bint alike_known[2]
    cdef BB touching = bb_neighbours(occupied(s))
    alike_known[0] = alike_known[1] = False
    n = gen_legal(s, legal)
    score_actions(s, legal, n, sc)
    for i in range(n):
        a = legal[i]
        k = -1
        if a < A_LEADER and not bb_test(&touching, a % NSQ):
            k = 0
        elif A_CAT <= a < A_SWAP and s.cell[a - A_CAT] == CELL_EMPTY:
            k = 1
        if k >= 0 and alike_known[k]:
            value[i] = alike_value[k] + 1e-4 * sc[i]
            continue
        memcpy(&child, s, sizeof(GameState))
        apply_unchecked(&child, a)
        if t.params.rollout_settle and child.phase != PH_ACTION and child.phase != PH_OVER:
            value[i] = settled_value(t, &child, me, a) + 1e-4 * sc[i]
            continue
        evaluate(&child, &t.params.eval, rewards)
        value[i] = rewards[me] + 1e-4 * sc[i]
        if k >= 0:
            alike_value[k] = rewards[me]
            alike_known[k] = True
    # insertion sort, best first (a few hundred entries)
    for i in range(1, n):
        a = legal[i]
        v = value[i]
        j = i - 1
        while j >= 0 and value[j] < v:
            value[j + 1] = value[j]
            legal[j + 1] = legal[j]
            j -= 1
        value[j + 1] = v
        legal[j + 1] = a
    memcpy(out, legal, n * sizeof(int32_t))
    for i in range(n):
        out_values[i] = <float>value[i]
    return n


cdef double settled_value(Tree t, GameState* child, int me, int32_t action) noexcept nogil:
    """Value for `me` of a decision that leaves a conflict or choice pending: play it out first.

    The evaluation cannot see a pending conflict (a leader that starts a
    revolt looks like a leader in a big kingdom), so the look-ahead plays
    it out greedily, in several worlds dealt from what `me` knows when
    the outcome hangs on hidden tiles.
    """
    cdef GameState w
    cdef float rewards[MAX_PLAYERS]
    cdef uint64_t rng = t.rng ^ ((<uint64_t>action + 1) * 0x9E3779B97F4A7C15ULL)
    cdef int k, steps, worlds = 1
    cdef double total = 0.0
    if child.phase in (PH_REVOLT_ATTACK, PH_REVOLT_DEFEND, PH_WAR_CHOICE, PH_WAR_ATTACK, PH_WAR_DEFEND):
        worlds = LOOKAHEAD_CONFLICT_WORLDS
    for k in range(worlds):
        memcpy(&w, child, sizeof(GameState))
        redeal_hidden(&w, me, &rng)
        steps = 0
        while w.phase != PH_ACTION and w.phase != PH_OVER and steps < 16:
            greedy_playout(&w, &rng, 1, 0.0)
            steps += 1
        evaluate(&w, &t.params.eval, rewards)
        total += rewards[me]
    return total / worlds


cdef inline uint64_t legal_signature(int32_t* legal, int n) noexcept nogil:
    cdef uint64_t sig = <uint64_t>n
    cdef int i
    for i in range(n):
        sig += (<uint64_t>(legal[i] + 1)) * 0x9E3779B97F4A7C15ULL
    return sig


cdef inline bint looked_ahead(Tree t, GameState* s, int actions) noexcept nogil:
    """Return whether decisions here are the observer's own near the root, which the look-ahead orders."""
    return s.to_act == t.observer and s.phase == PH_ACTION and actions <= t.lookahead_depth


cdef bint kept_order(Tree t, GameState* s, int node, int actions, int32_t* out) noexcept nogil:
    """Use a node's look-ahead order without listing the decisions again, when they cannot have changed.

    Within the observer's turn the board follows from the actions since
    the root alone (tiles are drawn only when a turn ends), so with the
    observer's hand as it was when the order was computed the legal
    decisions are those the order holds, in every world.
    """
    cdef Node* nd = &t.nodes[node]
    if (nd.prior_off < 0 or not looked_ahead(t, s, actions)
            or memcmp(nd.prior_hand, s.hand[t.observer], 4) != 0):
        return False
    debug_assert(legal_as_cached(t, s, nd))
    memcpy(out, &t.prior_pool[nd.prior_off], nd.prior_n * sizeof(int32_t))
    return True


cdef bint legal_as_cached(Tree t, GameState* s, Node* nd) noexcept nogil:
    """Return whether the decisions legal in s are those a node's order was computed for (debug check)."""
    cdef int32_t legal[MAX_ACTIONS]
    cdef int n = gen_legal(s, legal)
    return n == nd.prior_n and legal_signature(legal, n) == nd.prior_sig


cdef bint cached_order(Tree t, GameState* s, int32_t* legal, int n, int node, int actions,
                       int32_t* out) noexcept nogil:
    """Use (or build) a node's look-ahead order for the observer's own decisions near the root.

    Near is counted in actions since the root, not in tree depth: the
    second action after a conflict (three decisions deeper) must be
    ordered as well as the second action after a quiet first one, or
    the tree undervalues starting the conflict first.
    """
    cdef Node* nd = &t.nodes[node]
    cdef uint64_t sig
    cdef float values[MAX_ACTIONS]
    if not looked_ahead(t, s, actions) or node == t.root or nd.visits < 1:
        return False
    sig = legal_signature(legal, n)
    if nd.prior_off >= 0:
        if nd.prior_n != n or nd.prior_sig != sig:
            return False
        memcpy(out, &t.prior_pool[nd.prior_off], n * sizeof(int32_t))
        return True
    if not grow_pool(t, n):
        return False            # at the memory limit: the cheap prior orders this node
    lookahead(t, s, &t.prior_pool[t.prior_used], values)
    nd.prior_off = t.prior_used
    nd.prior_n = n
    nd.prior_sig = sig
    memcpy(nd.prior_hand, s.hand[t.observer], 4)
    t.prior_used += n
    memcpy(out, &t.prior_pool[nd.prior_off], n * sizeof(int32_t))
    return True


cdef bint grow_pool(Tree t, int n) noexcept nogil:
    """Make room for n more entries of the order pool, within the memory limit; return False if it cannot."""
    cdef size_t new_cap = t.prior_cap
    cdef int32_t* pool
    while t.prior_used + n > new_cap:
        new_cap *= 2
    if new_cap == <size_t>t.prior_cap:
        return True
    if not t._fits(t.cap, t.hcap, new_cap):
        t.full = True
        return False
    pool = <int32_t*>realloc(t.prior_pool, new_cap * sizeof(int32_t))
    if pool == NULL:
        return False
    t.prior_pool, t.prior_cap = pool, <int>new_cap
    return True


cdef void order_decisions(Tree t, GameState* s, int32_t* legal, int n, int node, int actions, int32_t* out) noexcept nogil:
    """Write the legal decisions best first: by the look-ahead near the root, else by the cheap prior (ties rotated per node)."""
    cdef int8_t sc[MAX_ACTIONS]
    if cached_order(t, s, legal, n, node, actions, out):
        return
    score_actions(s, legal, n, sc)
    place_in_buckets(legal, sc, n, node, 0, out)


cdef int order_best(Tree t, GameState* s, int node, int widen, int32_t* out) noexcept nogil:
    """Write the decisions the cheap prior ranks 4 or more, as order_decisions would, from the short list; return how many, or -1 if fewer than widen.

    The rest of the legal list (tiles that touch nothing, withdrawals,
    catastrophes, swaps, the pass) ranks 3 or less, so when the node
    considers no more than these the full list is not needed. Likewise
    moves of the leaders on the board rank MOVE_PRIOR_MAX or less: when
    widen placements rank above that, the first widen decisions are
    theirs and the moves are not listed (the buckets above are the same
    without them, so are their places).
    """
    cdef int32_t legal[MAX_ACTIONS]
    cdef int8_t sc[MAX_ACTIONS]
    cdef int32_t moves[MAX_ACTIONS]
    cdef int8_t moves_sc[MAX_ACTIONS]
    cdef int n, k, m
    if s.phase != PH_ACTION:
        return -1                   # the short list holds only action-phase decisions
    cdef bint moves_listed = has_leader_on_board(s, s.to_act)
    n = gen_legal_touching(s, legal, GEN_PLACEMENTS)
    if n < widen and not moves_listed:
        return -1                   # too few, and nothing to add: not worth scoring
    score_actions(s, legal, n, sc)
    if n >= widen:
        k = place_in_buckets(legal, sc, n, node, MOVE_PRIOR_MAX + 1, out)
        if k >= widen:
            return k
    if moves_listed:
        m = gen_legal_touching(s, moves, GEN_MOVES)
        score_actions(s, moves, m, moves_sc)
        n = merge_scored(legal, sc, n, moves, moves_sc, m)
    if n < widen:
        return -1
    n = place_in_buckets(legal, sc, n, node, 4, out)
    return n if n >= widen else -1


cdef bint best_as_listed(Tree t, GameState* s, int node, int actions, int widen, int32_t* best,
                         int found) noexcept nogil:
    """Return whether order_best's first widen decisions, if it found them, are order_decisions' on the full list (debug check)."""
    cdef int32_t legal[MAX_ACTIONS]
    cdef int32_t order[MAX_ACTIONS]
    cdef int n
    if found < 0:
        return True
    n = gen_legal(s, legal)
    order_decisions(t, s, legal, n, node, actions, order)
    return n >= widen and memcmp(order, best, widen * sizeof(int32_t)) == 0


cdef int place_in_buckets(int32_t* legal, int8_t* sc, int n, int node, int lowest, int32_t* out) noexcept nogil:
    """Write the decisions scored lowest or more in buckets, best first, ties rotated per node; return how many."""
    cdef int count[16]
    cdef int start[16]
    cdef int placed[16]
    cdef int i, b, k = 0, off
    memset(count, 0, sizeof(count))
    for i in range(n):
        count[sc[i]] += 1
    for b in range(15, lowest - 1, -1):
        start[b] = k
        k += count[b]
    # within a bucket, start at a per-node offset so that ties are not
    # always broken towards the lowest square
    off = <int>((<uint64_t>(node + 1) * 0x9E3779B97F4A7C15ULL) >> 33)
    for b in range(16):
        # placed[b] runs from the bucket's rotation: no sum that can overflow
        placed[b] = off % count[b] if count[b] > 0 else 0
    for i in range(n):
        b = sc[i]
        if b < lowest:
            continue
        out[start[b] + placed[b]] = legal[i]
        placed[b] += 1
        if placed[b] == count[b]:
            placed[b] = 0
    return k
