# ext/core_infosets.pxi: part of the rules kernel (ext/core.pyx includes it).
#
# Information sets (docs/rules.md R-INFO-1): the tiles a seat has not seen
# (unseen_by) and re-dealing them uniformly (redeal_hidden, with the _redeal
# test hook). Information sets and re-sampling belong to the game (OpenSpiel
# style): the search kernels call these, never the rules' internals.

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

cdef bint deal_around_hands(GameState* s, int seat, const uint8_t* hands, uint64_t* rng) noexcept nogil:
    """Give the other seats `hands` (players x 4 colour counts; NULL: keep theirs) and deal the rest of what `seat` has not seen into their swapped piles and the bag.

    A world for a search told the hands (search.twins, measurement only) or
    one that weighs hands by the opponents' play (search.inference). Return
    False, the state unchanged, if the hands do not fit: a wrong size or
    more of a colour than `seat` has not seen.
    """
    cdef uint8_t pool[TOTAL_TILES]
    cdef int counts[4]
    cdef int n = 0, c, i, j, q, size
    cdef uint8_t tmp
    unseen_by(s, seat, counts)
    for q in range(s.players):
        if q == seat:
            continue
        if hands != NULL:
            size = 0
            for c in range(4):
                size += hands[q * 4 + c]
            if size != hand_size(s, q):
                return False
        for c in range(4):
            counts[c] -= hands[q * 4 + c] if hands != NULL else s.hand[q][c]
    for c in range(4):
        if counts[c] < 0:
            return False
    if hands != NULL:
        for q in range(s.players):
            if q != seat:
                for c in range(4):
                    s.hand[q][c] = hands[q * 4 + c]
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
        size = s.swapped[q][0] + s.swapped[q][1] + s.swapped[q][2] + s.swapped[q][3]
        for c in range(4):
            s.swapped[q][c] = 0
        for i in range(size):
            s.swapped[q][pool[n]] += 1
            n += 1
    for i in range(s.bag_len):
        s.bag[i] = pool[n]
        n += 1
    return True

def _deal_around_hands(CoreState st, int seat, uint64_t seed, hands=None):
    """Deal what `seat` has not seen around the other seats' hands (given, or kept); return False if they do not fit (test hook)."""
    cdef uint8_t h[MAX_PLAYERS * 4]
    cdef uint64_t rng = seed
    cdef int q, c
    if hands is None:
        return deal_around_hands(&st.s, seat, NULL, &rng)
    if len(hands) != st.s.players:
        raise ValueError(f"{len(hands)} hands for {st.s.players} players")
    for q in range(st.s.players):
        for c in range(4):
            h[q * 4 + c] = hands[q][c]
    return deal_around_hands(&st.s, seat, h, &rng)

def _redeal(CoreState st, int seat, uint64_t seed):
    """Re-deal what `seat` has not seen (test hook for the C determinisation)."""
    cdef uint64_t rng = seed
    redeal_hidden(&st.s, seat, &rng)
