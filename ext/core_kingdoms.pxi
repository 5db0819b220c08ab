# ext/core_kingdoms.pxi: part of the rules kernel (ext/core.pyx includes it).
#
# Kingdoms and regions (docs/rules.md R-KING-1, R-KING-2): the union-find over the
# occupied squares (uf_union, uf_add, uf_remove, uf_rebuild; uf_find is inline
# in core.pxd), putting tiles and leaders on the board and taking them off
# (place_tile, remove_tile, place_leader, remove_leader), the kingdoms next to
# an empty square (kingdoms_around, R-TILE-2, R-LEAD-3) and whose leader stands
# on a square (leader_at_owner).

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
