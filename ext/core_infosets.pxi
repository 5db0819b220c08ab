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

def _redeal(CoreState st, int seat, uint64_t seed):
    """Re-deal what `seat` has not seen (test hook for the C determinisation)."""
    cdef uint64_t rng = seed
    redeal_hidden(&st.s, seat, &rng)
