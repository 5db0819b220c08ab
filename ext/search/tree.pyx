# cython: language_level=3
"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012), nogil.

Every iteration deals a fresh world from what the observing seat knows
(core.redeal_hidden), descends one tree of atomic decisions for whichever seat
decides (opponents, defenders, treasure and monument choices included) with
UCB1 over availability counts, widens progressively in the order of a cheap
prior (evaluation.score_actions), plays an ε-greedy or uniform rollout cut after a
fixed depth, evaluates (evaluation.evaluate: the real ranking if the game ended)
and backs the reward vector up max-n. Selection, determinisation, rollout and
backup all run without the GIL.

The order in which a node's decisions are tried (the look-ahead near the
root, the cheap prior elsewhere) is in ordering.pxi, included at the end.
"""
from libc.stdint cimport uint64_t, int32_t, uint32_t, int8_t, uint8_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy, memcmp
from libc.math cimport sqrt, log, pow
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from ext.core cimport (A_CAT, A_LEADER, A_PASS, A_SWAP, A_WITHDRAW, BB, CELL_EMPTY, NSQ, GameState, MAX_ACTIONS,
                       MAX_PLAYERS, PH_OVER, PH_ACTION, PH_REVOLT_ATTACK, PH_REVOLT_DEFEND, PH_WAR_CHOICE,
                       PH_WAR_ATTACK, PH_WAR_DEFEND, GEN_MOVES, GEN_PLACEMENTS, bb_neighbours, bb_test,
                       debug_assert, gen_legal, gen_legal_touching, has_leader_on_board, occupied,
                       apply_unchecked, redeal_hidden, deal_around_hands, random_playout, splitmix64,
                       CoreState)
from ext.search.evaluation cimport (EvalParams, MOVE_PRIOR_MAX, score_actions, evaluate, greedy_playout,
                             finish_eval_params, fix_needs, merge_scored, store_named, load_named,
                             set_value_weights)
from ext.search.evaluation import EVAL_LAYOUT

cdef extern from *:
    """
    static int tne_read_flag(int *p) { return *(volatile int *)p; }
    """
    int tne_read_flag(int* p) nogil

cdef int MAX_PATH = 4096

# How an iteration deals the tiles the observer has not seen (Tree.set_deal).
cdef enum:
    DEAL_UNIFORM = 0        # every hidden tile afresh, uniformly: the search (R-INFO-1)
    DEAL_HANDS_TOLD = 1     # the other hands as they are, the bag and swapped piles afresh: twin-hands
    DEAL_NONE = 2           # nothing hidden: twin-all
    DEAL_WEIGHTED = 3       # the other hands drawn from a weighted pool (search.inference), the rest afresh
DEAL_MODES = {"uniform": DEAL_UNIFORM, "hands-told": DEAL_HANDS_TOLD, "none": DEAL_NONE,
              "weighted": DEAL_WEIGHTED}


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef int _check_observer(CoreState state, int observer) except -1:
    # The root's decisions are listed once, from the observer's world (root_prior):
    # that holds only when the observer is the one deciding there.
    if state.s.phase != PH_OVER and state.s.to_act != observer:
        raise ValueError(f"seat {state.s.to_act} is to act, not the observer (seat {observer}): "
                         f"a tree searches the decisions of the seat to act")
    return 0


cdef MctsParams _P      # read for its fields' addresses only (the offsets below)


cdef Py_ssize_t _at(void* field):
    return <char*>field - <char*>&_P


# The kernel's knobs by name (search.params.KNOBS names each one's `kernel`): (C type, byte offset
# in MctsParams); Tree.configure and Tree.configuration go through this table. The evaluation's weights
# follow, by evaluation.EVAL_LAYOUT's names.
PARAM_LAYOUT = {
    "exploration": ("d", _at(&_P.exploration)),
    "root_exploration": ("d", _at(&_P.root_exploration)),
    "widen_base": ("d", _at(&_P.widen_base)),
    "widen_coef": ("d", _at(&_P.widen_coef)),
    "widen_exponent": ("d", _at(&_P.widen_exponent)),
    "reply_widen_coef": ("d", _at(&_P.reply_widen_coef)),
    "rollout_depth": ("i", _at(&_P.rollout_depth)),
    "rollout_epsilon": ("d", _at(&_P.rollout_epsilon)),
    "rollout_greedy": ("i", _at(&_P.rollout_greedy)),
    "rollout_settle": ("i", _at(&_P.rollout_settle)),
    "rollout_rounds": ("d", _at(&_P.rollout_rounds)),
    "tail_after": ("i", _at(&_P.tail_after)),
    "rollout_to_turn": ("i", _at(&_P.rollout_to_turn)),
    "root_kinds": ("i", _at(&_P.root_kinds)),
    "leaf_mix": ("d", _at(&_P.leaf_mix)),
    "leaf_mix_turn": ("i", _at(&_P.leaf_mix_turn)),
    "paired_worlds": ("i", _at(&_P.paired_worlds)),
}
PARAM_LAYOUT.update({name: (ctype, _at(&_P.eval) + offset) for name, (ctype, offset) in EVAL_LAYOUT.items()})


cdef class Tree:
    """An ISMCTS tree for one observing seat (the Python face of the kernel)."""

    cdef Node* nodes
    cdef int n_nodes
    cdef int cap
    cdef uint64_t* keys
    cdef int32_t* vals
    cdef int hcap
    cdef int hcount
    cdef size_t max_bytes           # memory limit of nodes, hash table and order pool; 0: none
    cdef public bint full           # the limit was reached: the tree stopped growing
    cdef int root
    cdef GameState root_state
    cdef int observer
    cdef uint64_t rng
    cdef uint64_t world_seed        # paired_worlds: the seed the k-th world is drawn from
    cdef MctsParams params
    cdef int stop_flag
    cdef public long iterations_done
    cdef int32_t root_order[MAX_ACTIONS]
    cdef float root_values[MAX_ACTIONS]
    cdef int root_n
    cdef int32_t* prior_pool
    cdef int prior_used
    cdef int prior_cap
    cdef public int lookahead_depth
    cdef public int leaf_actions_min   # with rollout_rounds, the fewest and most actions since
    cdef public int leaf_actions_max   #   the root at an evaluated leaf (ended games aside), for tests
    cdef public long tail_actions      # rollout actions passed after rollout_tail_after (for tests)
    cdef public long mid_turn_leaves   # leaves valued elsewhere than at the start of a turn (for tests)
    cdef public long unrolled_leaves   # leaves valued where the tree stopped, with no rollout (leaf_mix 0; for tests)
    cdef int deal_mode                 # DEAL_*: how an iteration deals what the observer has not seen
    cdef uint8_t* pool_hands           # DEAL_WEIGHTED: pool_n sets of hands (MAX_PLAYERS x 4 counts each)
    cdef double* pool_cum              #   and their cumulative weights
    cdef int pool_n
    cdef bint root_halving             # the observer's root decisions are limited to root_active
    cdef uint8_t root_active[MAX_ACTIONS]  #   (by root_order index), the least visited tried next

    def __cinit__(self):
        self.cap = 1024
        self.nodes = <Node*>malloc(self.cap * sizeof(Node))
        self.hcap = 4096
        self.keys = <uint64_t*>malloc(self.hcap * sizeof(uint64_t))
        self.vals = <int32_t*>malloc(self.hcap * sizeof(int32_t))
        self.prior_cap = 1 << 14
        self.prior_pool = <int32_t*>malloc(self.prior_cap * sizeof(int32_t))
        if self.nodes == NULL or self.keys == NULL or self.vals == NULL or self.prior_pool == NULL:
            raise MemoryError()
        self.lookahead_depth = 1        # actions since the root: the rest of the observer's turn
        self.params.root_exploration = -1.0     # the root explores as every node until told otherwise
        self.params.reply_widen_coef = -1.0     # replies widen as the observer's decisions until told otherwise
        self._clear()

    def __dealloc__(self):
        free(self.nodes)
        free(self.keys)
        free(self.vals)
        free(self.prior_pool)
        free(self.pool_hands)
        free(self.pool_cum)

    cdef void _clear(self):
        memset(self.keys, 0, self.hcap * sizeof(uint64_t))
        self.hcount = 0
        self.n_nodes = 0
        self.prior_used = 0
        self.full = False
        self.root = self._new_node(-1, -1, -1)
        self.iterations_done = 0
        self.leaf_actions_min = 1 << 30
        self.leaf_actions_max = 0
        self.tail_actions = 0
        self.mid_turn_leaves = 0
        self.unrolled_leaves = 0

    def configure(self, values):
        """Set knobs of the kernel by name ({name: value}, PARAM_LAYOUT's names; search.params.KNOBS documents them).

        Knobs not named keep their values. ValueError names an unknown name,
        TypeError a value of the wrong type; either way nothing changes.
        """
        cdef MctsParams p = self.params
        cdef dict layout = PARAM_LAYOUT
        for name, value in dict(values).items():
            store_named(<char*>&p, layout, name, value)
        finish_eval_params(&p.eval)
        self.params = p

    def set_value_weights(self, weights):
        """Evaluate with the learned value, these weights (VALUE_FEATURE_NAMES order, or with hidden units: evaluation.value_parts), or None: the handcrafted one.

        ValueError names a wrong count or a weight that is not finite; then nothing changes.
        """
        cdef MctsParams p = self.params
        set_value_weights(&p.eval, weights)
        self.params = p

    def set_deal(self, str mode, hands=None, weights=None):
        """Set how each iteration deals what the observer has not seen: a DEAL_MODES name.

        "uniform" is the search's own (the default). "hands-told" and "none"
        read the hands (and the bag) of the state the tree was reset with:
        they are for the arena's twins only (search.twins), never for a seat
        that may not know them. "weighted" draws the other seats' hands from
        `hands` ([[[4 counts] per seat] per set], the observer's own ignored)
        in proportion to `weights`, and deals the rest uniformly. ValueError
        names a bad mode, a set that does not fit the root or a weight that
        is not finite and >= 0; then nothing changes. A weighted deal belongs
        to its root: reset and reroot go back to "uniform".
        """
        cdef int mode_id, k, q, c, n, players = MAX_PLAYERS
        cdef uint8_t* ph = NULL
        cdef double* pc = NULL
        cdef double total = 0.0, w
        if mode not in DEAL_MODES:
            raise ValueError(f"unknown deal {mode!r}; expected one of {', '.join(DEAL_MODES)}")
        mode_id = DEAL_MODES[mode]
        if mode_id == DEAL_WEIGHTED:
            if hands is None or weights is None or len(hands) != len(weights) or len(hands) == 0:
                raise ValueError("a weighted deal takes as many weights as sets of hands, at least one")
            n = len(hands)
            ph = <uint8_t*>malloc(n * MAX_PLAYERS * 4 * sizeof(uint8_t))
            pc = <double*>malloc(n * sizeof(double))
            if ph == NULL or pc == NULL:
                free(ph)
                free(pc)
                raise MemoryError()
            try:
                memset(ph, 0, n * MAX_PLAYERS * 4)
                for k in range(n):
                    w = float(weights[k])
                    if not (w >= 0.0 and w < 1e300):
                        raise ValueError(f"weight {k} is {weights[k]!r}: weights are finite and >= 0")
                    if len(hands[k]) > MAX_PLAYERS:
                        raise ValueError(f"set {k} has {len(hands[k])} hands")
                    for q in range(len(hands[k])):
                        if len(hands[k][q]) != 4:
                            raise ValueError(f"set {k}, seat {q}: a hand is 4 colour counts")
                        for c in range(4):
                            if not 0 <= hands[k][q][c] <= 6:
                                raise ValueError(f"set {k}, seat {q}: {hands[k][q][c]!r} tiles of a colour")
                            ph[(k * MAX_PLAYERS + q) * 4 + c] = hands[k][q][c]
                    total += w
                    pc[k] = total
                if not total > 0.0:
                    raise ValueError("the weights sum to 0")
            except BaseException:
                free(ph)
                free(pc)
                raise
            try:
                self._check_pool(ph, n)
            except BaseException:
                free(ph)
                free(pc)
                raise
            free(self.pool_hands)
            free(self.pool_cum)
            self.pool_hands, self.pool_cum, self.pool_n = ph, pc, n
        self.deal_mode = mode_id

    cdef int _check_pool(self, uint8_t* hands, int n) except -1:
        """Raise ValueError unless every weighted set of hands fits the root state."""
        cdef GameState trial
        cdef uint64_t rng = 1
        cdef int k
        for k in range(n):
            memcpy(&trial, &self.root_state, sizeof(GameState))
            if not deal_around_hands(&trial, self.observer, &hands[k * MAX_PLAYERS * 4], &rng):
                raise ValueError(f"set of hands {k} does not fit the position (sizes, or tiles the observer has not seen)")
        return 0

    def set_root_candidates(self, actions=None):
        """Limit the observer's decisions at the root to `actions`, each iteration trying the least visited; None lifts it.

        The driver of sequential halving (search.ismcts) narrows the list
        between its rounds. ValueError names an action that is not one of
        the root's decisions (Tree.lookahead_order), or an empty list; then
        nothing changes. Reset and reroot lift it (the list was the old root's).
        """
        cdef uint8_t active[MAX_ACTIONS]
        cdef int i, k = 0
        if actions is None:
            self.root_halving = False
            return
        if self.root_n == 0:
            raise ValueError("the root has no list of the observer's decisions to limit")
        index = {self.root_order[i]: i for i in range(self.root_n)}
        memset(active, 0, sizeof(active))
        for a in actions:
            if a not in index:
                raise ValueError(f"action {a!r} is not one of the root's decisions")
            active[index[a]] = 1
            k += 1
        if k == 0:
            raise ValueError("give at least one candidate")
        memcpy(self.root_active, active, sizeof(active))
        self.root_halving = True

    def root_candidates(self):
        """Return the actions the root is limited to, in the look-ahead's order, or None."""
        if not self.root_halving:
            return None
        return [self.root_order[i] for i in range(self.root_n) if self.root_active[i]]

    def deal_mode_name(self):
        """Return how iterations deal what the observer has not seen (a DEAL_MODES name)."""
        return {v: k for k, v in DEAL_MODES.items()}[self.deal_mode]

    def learned_value(self):
        """Return whether the learned value is the evaluation."""
        return bool(self.params.eval.learned)

    def configuration(self):
        """Return {name: value} of every knob of the kernel (the evaluation's weights as the C floats hold them)."""
        return load_named(<char*>&self.params, PARAM_LAYOUT)

    def set_memory_limit(self, size_t max_bytes):
        """Bound the tree's memory (nodes, hash table, order pool) to max_bytes; 0 lifts the bound.

        At the bound the tree stops adding nodes: iterations go on through
        the nodes it has (their statistics keep improving) and roll out from
        the first decision that has no node, and `full` turns true. A bound
        below what the tree already holds stops growth at once.
        """
        self.max_bytes = max_bytes

    def reset(self, CoreState state, int observer, uint64_t seed):
        """Start a new tree searching `state` from `observer`'s point of view (ValueError unless the observer acts)."""
        _check_observer(state, observer)
        self.root_state = state.s
        self.observer = observer
        self.rng = seed
        self.world_seed = seed
        self.stop_flag = 0
        if self.deal_mode == DEAL_WEIGHTED:     # the hands were weighed for the old root
            self.deal_mode = DEAL_UNIFORM
        self.root_halving = False
        self._clear()
        root_prior(self)

    def reroot(self, CoreState state, actions, uint64_t seed):
        """Keep the subtree reached by `actions` from the root; return False (and reset) if absent."""
        cdef int node = self.root, child
        _check_observer(state, self.observer)
        self.rng = seed
        self.world_seed = seed
        if self.deal_mode == DEAL_WEIGHTED:     # the hands were weighed for the old root
            self.deal_mode = DEAL_UNIFORM
        self.root_halving = False               # the candidates were the old root's
        for a in actions:
            child = self._lookup(node, a)
            if child < 0 or self.nodes[child].visits == 0:
                self.root_state = state.s
                self._clear()
                root_prior(self)
                return False
            node = child
        self.root = node
        self.nodes[node].parent = -1
        self.root_state = state.s
        self.stop_flag = 0
        root_prior(self)
        return True

    # ------------------------------------------------------------ storage

    cdef inline size_t _bytes(self, size_t cap, size_t hcap, size_t prior_cap) noexcept nogil:
        return cap * sizeof(Node) + hcap * (sizeof(uint64_t) + sizeof(int32_t)) + prior_cap * sizeof(int32_t)

    cdef inline bint _fits(self, size_t cap, size_t hcap, size_t prior_cap) noexcept nogil:
        return self.max_bytes == 0 or self._bytes(cap, hcap, prior_cap) <= self.max_bytes

    cdef bint _grow_hash(self) noexcept nogil:
        """Double the hash table, within the memory limit; return False (table unchanged) if it cannot."""
        cdef int i, old_cap = self.hcap
        cdef uint64_t* old_keys = self.keys
        cdef int32_t* old_vals = self.vals
        cdef uint64_t* keys
        cdef int32_t* vals
        if not self._fits(self.cap, 2 * <size_t>old_cap, self.prior_cap):
            return False
        keys = <uint64_t*>malloc(2 * old_cap * sizeof(uint64_t))
        vals = <int32_t*>malloc(2 * old_cap * sizeof(int32_t))
        if keys == NULL or vals == NULL:
            free(keys)
            free(vals)
            return False
        self.keys, self.vals, self.hcap = keys, vals, 2 * old_cap
        memset(self.keys, 0, self.hcap * sizeof(uint64_t))
        self.hcount = 0
        for i in range(old_cap):
            if old_keys[i]:
                self._insert(old_keys[i], old_vals[i])
        free(old_keys)
        free(old_vals)
        return True

    cdef bint _grow_nodes(self) noexcept nogil:
        """Enlarge the node array (double, or what the limit leaves); return False (unchanged) if it cannot."""
        cdef size_t new_cap = 2 * <size_t>self.cap, room
        cdef Node* nodes
        if self.max_bytes and not self._fits(new_cap, self.hcap, self.prior_cap):
            room = self._bytes(self.cap, self.hcap, self.prior_cap)
            if room >= self.max_bytes:
                return False
            new_cap = self.cap + (self.max_bytes - room) // sizeof(Node)
            if new_cap <= <size_t>self.cap:
                return False
        nodes = <Node*>realloc(self.nodes, new_cap * sizeof(Node))
        if nodes == NULL:
            return False
        self.nodes, self.cap = nodes, <int>new_cap
        return True

    cdef int _new_node(self, int parent, int action, int actor) noexcept nogil:
        """Add a node; return its index, or -1 when the memory limit (or malloc) leaves no room (then `full`)."""
        cdef Node* nd
        cdef int idx
        if parent >= 0 and 2 * (self.hcount + 1) > self.hcap and not self._grow_hash():
            self.full = True
            return -1
        if self.n_nodes == self.cap and not self._grow_nodes():
            self.full = True
            return -1
        idx = self.n_nodes
        self.n_nodes += 1
        nd = &self.nodes[idx]
        memset(nd, 0, sizeof(Node))
        nd.parent = parent
        nd.action = action
        nd.actor = actor
        nd.first_child = -1
        nd.next_sibling = -1
        nd.prior_off = -1
        if parent >= 0:
            nd.next_sibling = self.nodes[parent].first_child
            self.nodes[parent].first_child = idx
            self._insert(((<uint64_t>parent) << 16 | <uint64_t>action) + 1, idx)
        return idx

    cdef inline int _slot(self, uint64_t key) noexcept nogil:
        return <int>((key * 0x9E3779B97F4A7C15ULL) >> 40) & (self.hcap - 1)

    cdef void _insert(self, uint64_t key, int32_t val) noexcept nogil:
        """Insert into the hash table (the caller made room: _new_node grows it first)."""
        cdef int i = self._slot(key)
        while self.keys[i] != 0:
            i = (i + 1) & (self.hcap - 1)
        self.keys[i] = key
        self.vals[i] = val
        self.hcount += 1

    cdef inline int _lookup(self, int parent, int action) noexcept nogil:
        cdef uint64_t key = ((<uint64_t>parent) << 16 | <uint64_t>action) + 1
        cdef int i = self._slot(key)
        while self.keys[i] != 0:
            if self.keys[i] == key:
                return self.vals[i]
            i = (i + 1) & (self.hcap - 1)
        return -1

    # ------------------------------------------------------------ the iteration

    cdef inline void _rollout(self, GameState* det, int decisions) noexcept nogil:
        """Play up to `decisions` decisions by the rollout policy."""
        if self.params.rollout_greedy:
            greedy_playout(det, &self.rng, decisions, self.params.rollout_epsilon)
        else:
            random_playout(det, &self.rng, decisions)

    cdef void _deal(self, GameState* det) noexcept nogil:
        """Deal what the observer has not seen, as set_deal says."""
        cdef double u
        cdef int lo, hi, mid
        if self.deal_mode == DEAL_UNIFORM:
            redeal_hidden(det, self.observer, &self.rng)
        elif self.deal_mode == DEAL_HANDS_TOLD:
            deal_around_hands(det, self.observer, NULL, &self.rng)
        elif self.deal_mode == DEAL_WEIGHTED:
            u = (splitmix64(&self.rng) >> 11) * (1.0 / 9007199254740992.0) * self.pool_cum[self.pool_n - 1]
            lo, hi = 0, self.pool_n - 1
            while lo < hi:
                mid = (lo + hi) >> 1
                if self.pool_cum[mid] > u:
                    hi = mid
                else:
                    lo = mid + 1
            deal_around_hands(det, self.observer, &self.pool_hands[lo * MAX_PLAYERS * 4], &self.rng)

    cdef long _fewest_root_visits(self) noexcept nogil:
        """Return the fewest visits among the root's halving candidates."""
        cdef long fewest = -1, seen
        cdef int i, child
        for i in range(self.root_n):
            if not self.root_active[i]:
                continue
            child = self._lookup(self.root, self.root_order[i])
            seen = self.nodes[child].visits if child >= 0 else 0
            if fewest < 0 or seen < fewest:
                fewest = seen
        return fewest

    cdef inline uint64_t _world(self, long k) noexcept nogil:
        """Return the random state of the search's k-th world (paired_worlds)."""
        cdef uint64_t state = self.world_seed ^ (<uint64_t>(k + 1) * 0x9E3779B97F4A7C15ULL)
        splitmix64(&state)
        return splitmix64(&state)

    cdef void _iterate(self) noexcept nogil:
        cdef GameState det
        cdef int32_t legal[MAX_ACTIONS]
        cdef int32_t order[MAX_ACTIONS]
        cdef int path[4096]
        cdef float rewards[MAX_PLAYERS]
        cdef float leaf_rewards[MAX_PLAYERS]
        cdef bint mix = False
        cdef int depth = 0, node = self.root, n, allowed, i, child, best_child, untried, actor, p
        cdef int unvisited              # the first child node not yet visited (a full tree cannot add one)
        cdef long fewest, seen          # root_halving: the fewest visits of a candidate,
        cdef int pick = 0, pick_child = -1  #   its place in the order and its node (-1: none yet)
        cdef int actions = 0            # action-phase decisions since the root (the horizon's clock)
        cdef double rounds = self.params.rollout_rounds
        cdef int horizon, played
        if rounds < 0:                  # the default: one round with 3 or 4 players, none with 2
            rounds = 1.0 if self.root_state.players >= 3 else 0.0
        horizon = <int>(rounds * 2 * self.root_state.players + 0.5)
        cdef double best, ucb, mean, c = self.params.exploration, c_here, widen
        cdef Node* nd
        memcpy(&det, &self.root_state, sizeof(GameState))
        if self.params.paired_worlds and self.root_halving and self.root_n > 0 and det.phase != PH_OVER:
            # the candidate tried next is the least visited: its visit count names the world,
            # so that every candidate's k-th visit sees the same deal and random stream and
            # their means differ by the decision more than by the worlds they happened to meet
            self.rng = self._world(self._fewest_root_visits())
        self._deal(&det)
        path[0] = node
        while det.phase != PH_OVER and depth < MAX_PATH - 1:
            actor = det.to_act
            widen = self.params.widen_coef
            if actor != self.observer and self.params.reply_widen_coef >= 0:
                widen = self.params.reply_widen_coef
            allowed = <int>(self.params.widen_base + widen
                            * pow(self.nodes[node].visits, self.params.widen_exponent))
            if allowed < 1:
                allowed = 1
            if node == self.root and self.root_n > 0 and actor == self.observer:
                # the observer's decisions at the root are the same in every world:
                # the look-ahead's order is the list
                n = self.root_n
                memcpy(order, self.root_order, n * sizeof(int32_t))
            elif kept_order(self, &det, node, actions, order):
                n = self.nodes[node].prior_n
            else:
                # the cheap prior's best suffice where the look-ahead does not order
                n = -1 if looked_ahead(self, &det, actions) else order_best(self, &det, node, allowed, order)
                # one call, so that the release build (NDEBUG) evaluates nothing
                debug_assert(best_as_listed(self, &det, node, actions, allowed, order, n))
                if n < 0:
                    n = gen_legal(&det, legal)
                    order_decisions(self, &det, legal, n, node, actions, order)
            if allowed > n:
                allowed = n
            untried = -1
            unvisited = -1
            best_child = -1
            best = -1e300
            if self.root_halving and node == self.root and self.root_n > 0 and actor == self.observer:
                # sequential halving (Tree.set_root_candidates): the least visited
                # candidate, the first in the look-ahead's order among equals
                allowed = 0
                fewest = -1
                for i in range(n):
                    if not self.root_active[i]:
                        continue
                    child = self._lookup(node, order[i])
                    seen = 0
                    if child >= 0:
                        self.nodes[child].avail += 1
                        seen = self.nodes[child].visits
                    if fewest < 0 or seen < fewest:
                        fewest = seen
                        pick = i
                        pick_child = child
                if fewest == 0:
                    untried = order[pick]
                else:
                    best_child = pick_child
            c_here = c
            if node == self.root and actor == self.observer and self.params.root_exploration >= 0:
                c_here = self.params.root_exploration
            for i in range(allowed):
                child = self._lookup(node, order[i])
                if child < 0:
                    if untried < 0:
                        untried = order[i]
                    continue
                nd = &self.nodes[child]
                nd.avail += 1
                if nd.visits == 0:
                    if untried < 0:
                        untried = order[i]
                    if unvisited < 0:
                        unvisited = order[i]
                    continue
                mean = nd.reward[actor] / nd.visits
                ucb = mean + c_here * sqrt(log(<double>nd.avail) / nd.visits)
                if ucb > best:
                    best = ucb
                    best_child = child
            if self.full and untried >= 0 and self._lookup(node, untried) < 0:
                # no room for its node: try a child that has one, else descend the best,
                # and roll out from a decision without a node only where no child exists
                if unvisited >= 0:
                    untried = unvisited
                elif best_child >= 0:
                    untried = -1
            if det.phase == PH_ACTION:
                actions += 1
            if untried >= 0:
                child = self._lookup(node, untried)
                if child < 0:
                    child = self._new_node(node, untried, actor)
                    if child >= 0:
                        self.nodes[child].avail = 1
                apply_unchecked(&det, untried)
                if child >= 0:          # else the tree is full: roll out from here, back up the path
                    depth += 1
                    path[depth] = child
                break
            apply_unchecked(&det, self.nodes[best_child].action)
            node = best_child
            depth += 1
            path[depth] = node
        if (self.params.leaf_mix < 1.0 and det.phase == PH_ACTION
                and (not self.params.leaf_mix_turn or det.actions_left == 2)):
            # the rollout's value is noisy (its ε-greedy decisions and draws): blend in
            # the value where the tree stopped, which the evaluation can read (with
            # leaf_mix_turn only at a turn's start, as a turn rollout's value is read)
            mix = True
            evaluate(&det, &self.params.eval, leaf_rewards)
        if mix and self.params.leaf_mix <= 0.0:
            # the rollout's value would be weighted by nothing: spend its time on iterations
            for p in range(det.players):
                rewards[p] = leaf_rewards[p]
            self.unrolled_leaves += 1
        elif det.phase != PH_OVER and horizon > 0:
            # every leaf is valued at the same point of the game, so that a
            # decision whose conflict the tree holds is not valued after more
            # of the other seats' replies than one whose rollout plays it
            played = 0
            while det.phase != PH_OVER and actions < horizon:
                if det.phase == PH_ACTION:
                    actions += 1
                    played += 1
                    if 0 <= self.params.tail_after < played:
                        # the round's later actions pass: an ε-greedy action costs a full
                        # move list and its priors, and a uniform one is noise
                        apply_unchecked(&det, A_PASS)
                        self.tail_actions += 1
                        continue
                self._rollout(&det, 1)
        elif det.phase != PH_OVER:
            self._rollout(&det, self.params.rollout_depth)
            # the evaluation knows nothing of a conflict or choice in progress:
            # play it out first (a conflict takes at most a few decisions)
            i = 0
            while self.params.rollout_settle and det.phase != PH_ACTION and det.phase != PH_OVER and i < 16:
                greedy_playout(&det, &self.rng, 1, self.params.rollout_epsilon)
                i += 1
            # the evaluation has no term for a turn half played: value every leaf
            # where a seat is about to play both its actions, so that leaves at
            # odd and even depths are valued alike (a turn's last action, then
            # any conflict it starts, at most 18 more decisions)
            i = 0
            while (self.params.rollout_to_turn and det.phase != PH_OVER and i < 18
                   and not (det.phase == PH_ACTION and det.actions_left == 2)):
                self._rollout(&det, 1)
                i += 1
        if det.phase != PH_OVER:
            if actions < self.leaf_actions_min:
                self.leaf_actions_min = actions
            if actions > self.leaf_actions_max:
                self.leaf_actions_max = actions
            if det.phase != PH_ACTION or det.actions_left != 2:
                self.mid_turn_leaves += 1
        if not (mix and self.params.leaf_mix <= 0.0):
            evaluate(&det, &self.params.eval, rewards)
        if mix and self.params.leaf_mix > 0.0:
            for p in range(det.players):
                rewards[p] = <float>(self.params.leaf_mix * rewards[p] + (1.0 - self.params.leaf_mix) * leaf_rewards[p])
        for i in range(depth + 1):
            nd = &self.nodes[path[i]]
            nd.visits += 1
            for p in range(det.players):
                nd.reward[p] += rewards[p]
            if nd.actor >= 0:
                nd.reward_sq += rewards[nd.actor] * rewards[nd.actor]

    def run(self, long iterations=0, double seconds=0.0):
        """Iterate until the iteration budget, the time budget or stop(); return iterations run."""
        cdef long done = 0
        cdef double deadline = now_seconds() + seconds if seconds > 0 else 0.0
        if iterations <= 0 and seconds <= 0:
            raise ValueError("give an iteration budget, a time budget, or both")
        with nogil:
            while True:
                if iterations > 0 and done >= iterations:
                    break
                if tne_read_flag(&self.stop_flag):
                    break
                if deadline > 0 and (done & 15) == 0 and now_seconds() >= deadline:
                    break
                self._iterate()
                done += 1
        self.iterations_done += done
        return done

    def stop(self):
        """Make a running run() return after its current iteration (thread-safe)."""
        self.stop_flag = 1

    # ------------------------------------------------------------ results

    @property
    def node_count(self):
        return self.n_nodes

    def bytes_used(self):
        """Return the memory held by the tree (nodes, hash table and order pool), in bytes."""
        return self._bytes(self.cap, self.hcap, self.prior_cap)

    @staticmethod
    def node_size():
        return sizeof(Node) + 2 * (sizeof(uint64_t) + sizeof(int32_t))

    def lookahead_order(self):
        """Return [(action, look-ahead value)] of the root's decisions, best first (analysis)."""
        return [(self.root_order[i], self.root_values[i]) for i in range(self.root_n)]

    def lookahead_ordered(self, int node):
        """Return whether a node's decisions were ordered by the look-ahead (not the cheap prior)."""
        return node == self.root or self.nodes[node].prior_off >= 0

    @property
    def players(self):
        """The number of players of the game searched."""
        return self.root_state.players

    def root_visits(self):
        return self.nodes[self.root].visits

    def root_value(self):
        """Return the mean reward of every seat at the root."""
        cdef Node* r = &self.nodes[self.root]
        cdef int p
        if r.visits == 0:
            return [0.0] * self.root_state.players
        return [r.reward[p] / r.visits for p in range(self.root_state.players)]

    def children(self, int node=-1):
        """Return [(action, visits, avail, reward sums, reward_sq, node)] under a node (root by default)."""
        cdef int c = self.nodes[self.root if node < 0 else node].first_child
        cdef Node* nd
        out = []
        while c >= 0:
            nd = &self.nodes[c]
            out.append((nd.action, nd.visits, nd.avail,
                        [nd.reward[p] for p in range(self.root_state.players)],
                        nd.reward_sq, nd.actor, c))
            c = nd.next_sibling
        return out

    def child_of(self, int node, int action):
        """Return the node reached by action from node (root if node < 0), or -1."""
        return self._lookup(self.root if node < 0 else node, action)


include "ordering.pxi"
