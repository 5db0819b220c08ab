"""Single-observer ISMCTS over what one seat can know, with analysis output and root parallelism.

The search is given an observation (engine.info.observation), never a full
state: it builds one world from it, and the kernel (ext.search.tree) re-deals every
hidden tile afresh from the observer's unseen pool in each iteration, so the
statistics cannot depend on the real hands or bag. Workers run independent
trees in separate processes and their root statistics are summed.
"""
from __future__ import annotations

import math
import multiprocessing as mp
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import engine
from engine.actions import SWAP_BASE, PASS, format_action
from engine.errors import EngineError
from engine.info import determinize, unknown_own_swapped
from ext.search.tree import Tree
from search.agent import Agent, Limits, SearchError
from search.inference import HandFilter
from search.params import SearchParams

CHUNK = 256          # iterations between progress reports and stop checks (Python side)
PV_PLIES = 12
_MASK64 = (1 << 64) - 1


def worker_seed(seed: int, worker: int) -> int:
    """Return the seed of one worker: splitmix64 of the search seed and the worker index."""
    z = (seed + (worker + 1) * 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def world_from_observation(observation: dict, seat: int, seed: int) -> engine.State:
    """Return one full state consistent with a seat's observation (SearchError if impossible)."""
    if not isinstance(observation, dict) or "unseen" not in observation:
        raise SearchError("the search takes an observation (engine.info.observation), not a state")
    if observation.get("seat") != seat:
        raise SearchError(f"observation is seat {observation.get('seat')}'s, not seat {seat}'s")
    if observation["phase"] == "over":
        raise SearchError("the game is over: there is no decision to search")
    if observation["to_act"] != seat:
        raise SearchError(f"seat {observation['to_act']} is to act, not seat {seat}")
    try:
        world = determinize(observation, seat, random.Random(seed))
        unknown = unknown_own_swapped(observation)
        if unknown:
            # The kernel re-deals every pile but the observer's own each iteration. Swapped
            # tiles are out of the game (R-SWAP-1), so which pile holds them changes no
            # decision: the observer's tiles of unknown colour go on the next seat's pile,
            # to be dealt afresh with the other hidden tiles rather than fixed once here.
            dealt = [w - k for w, k in zip(world["swapped"][seat], observation["own_swapped"])]
            other = (seat + 1) % world["players"]
            world["swapped"][seat] = list(observation["own_swapped"])
            world["swapped"][other] = [a + d for a, d in zip(world["swapped"][other], dealt)]
        return engine.State.from_snapshot(world)
    except EngineError as e:
        raise SearchError(f"inconsistent observation: {e}") from e


class NoIterations(SearchError):
    """The search ran no iteration: stopped, or out of time, before its first one."""


@dataclass
class Candidate:
    """One root decision's statistics from the searching seat's point of view."""

    action: int
    move: str
    visits: int
    availability: int
    mean: float
    low: float
    high: float
    pv: list = field(default_factory=list)
    pv_seats: list = field(default_factory=list)    # the seat deciding each step of pv


@dataclass
class SearchResult:
    """What a search found: the decision, every candidate, the root value per seat."""

    best: int
    best_move: str
    candidates: list
    root_value: list
    iterations: int
    seconds: float
    nodes: int
    workers: int
    tree_bytes: int = 0             # memory the tree(s) hold
    tree_full: bool = False         # a tree reached SearchParams.tree_memory_mb and stopped growing

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


def _children_stats(tree: Tree, observer: int) -> dict:
    """Return {action: [visits, avail, reward sums, reward_sq, pv]} for the root children."""
    out = {}
    for action, visits, avail, rewards, reward_sq, actor, node in tree.children():
        out[action] = [visits, avail, rewards, reward_sq, _pv(tree, node)]
    return out


def _pv(tree: Tree, node: int) -> list:
    """Follow the most visited children from a node: [(action, seat deciding it), ...]."""
    line = []
    for _ in range(PV_PLIES):
        kids = [k for k in tree.children(node) if k[1] > 0]
        if not kids:
            break
        best = max(kids, key=lambda k: (k[1], k[0]))
        line.append((best[0], best[5]))
        node = best[6]
    return line


def _run_tree(tree: Tree, limits: Limits, stop_event=None, progress=None, observer=0) -> int:
    """Run a tree in chunks until a limit or a stop; return the iterations run."""
    start = time.perf_counter()
    deadline = start + limits.seconds if limits.seconds else None
    done = 0
    while stop_event is None or not stop_event.is_set():
        budget = CHUNK
        if limits.iterations is not None:
            budget = min(budget, limits.iterations - done)
            if budget <= 0:
                break
        seconds = 0.0
        if deadline is not None:
            seconds = deadline - time.perf_counter()
            if seconds <= 0:
                if done:
                    break
                budget, seconds = 1, 0.0        # see below
        ran = tree.run(budget if limits.iterations is not None or seconds == 0.0 else CHUNK * 64, seconds)
        if ran == 0 and done == 0 and deadline is not None and (stop_event is None or not stop_event.is_set()):
            # out of time before the first iteration (a loaded machine): one iteration
            # whatever the clock says, so a time-limited search always has a decision
            ran = tree.run(1, 0.0)
        done += ran
        if (stop_event is not None and stop_event.is_set()) or ran < budget and limits.iterations is not None:
            break
        if progress is not None:
            progress(done, time.perf_counter() - start, tree)
        if ran == 0:
            break
    return done


HALVING_PROBE = 0.05     # share of a time budget run by UCB1 first, to learn the speed halving plans by


def _root_means(tree: Tree, observer: int) -> dict:
    """Return {action: the observer's mean reward} of the root's visited children."""
    return {a: rewards[observer] / visits for a, visits, _, rewards, _, _, _ in tree.children() if visits}


def _run_halving(tree: Tree, limits: Limits, params: SearchParams, stop_event=None, progress=None,
                 observer=0) -> int:
    """Run a tree under sequential halving at the root (SearchParams.root_policy); return the iterations run.

    The candidates are the look-ahead's first widen_base + widen_coef *
    sqrt(budget) decisions; each of ceil(log2(candidates)) rounds gets an even
    share of what is left of the budget (iterations, or time), spread evenly
    over the candidates still in, and keeps the better half by mean. The
    tree is left limited to the one decision that stands (Tree.root_candidates).
    A time budget is planned by the speed of a first UCB1 run of
    HALVING_PROBE of it. Fewer than two decisions: plain UCB1.
    """
    order = [a for a, _ in tree.lookahead_order()]
    if len(order) < 2:
        return _run_tree(tree, limits, stop_event, progress, observer)
    start = time.perf_counter()
    done = 0
    if limits.iterations is not None:
        planned = limits.iterations
    else:
        done = _run_tree(tree, Limits(seconds=limits.seconds * HALVING_PROBE), stop_event, progress, observer)
        spent = time.perf_counter() - start
        planned = int(done / spent * limits.seconds) if spent > 0 else done
    p = params.resolved(tree.players)
    width = int(p.widen_base + p.widen_coef * math.sqrt(max(planned, 1)))
    active = order[:max(2, min(width, len(order)))]
    rounds = max(1, math.ceil(math.log2(len(active))))
    rank = {a: i for i, a in enumerate(order)}

    def best_first(actions):
        means = _root_means(tree, observer)
        return sorted(actions, key=lambda a: (-means.get(a, -1.0), rank[a]))

    def stopped():
        return stop_event is not None and stop_event.is_set()

    def run_round(iterations, share_of_time):
        # a round's share of what is left: iterations, time, or both (the time as a bound)
        seconds = None
        if limits.seconds is not None:
            left = limits.seconds - (time.perf_counter() - start)
            if left <= 0:
                return 0
            seconds = left * share_of_time if limits.iterations is None else left
        if iterations is not None and iterations <= 0:
            return 0
        return _run_tree(tree, Limits(iterations, seconds), stop_event, progress, observer)

    for r in range(rounds):
        if stopped():
            break
        tree.set_root_candidates(active)
        share = None if limits.iterations is None else (limits.iterations - done) // (rounds - r)
        done += run_round(share, 1.0 / (rounds - r))
        if stopped():
            break
        active = best_first(active)[:(len(active) + 1) // 2]
    if limits.iterations is not None and done < limits.iterations and not stopped():
        tree.set_root_candidates(active)        # what the rounds' shares left over
        done += run_round(limits.iterations - done, 1.0)
    active = best_first(active)
    tree.set_root_candidates(active[:1])
    return done


def _run_search(tree: Tree, limits: Limits, params: SearchParams, stop_event=None, progress=None,
                observer=0) -> int:
    """Run a tree by the root's policy (SearchParams.root_policy); return the iterations run."""
    if params.root_policy == "halving":
        return _run_halving(tree, limits, params, stop_event, progress, observer)
    return _run_tree(tree, limits, stop_event, progress, observer)


_WORKER_STOP = None


def _worker_init(stop_event) -> None:
    global _WORKER_STOP
    _WORKER_STOP = stop_event


def _worker_search(job: tuple) -> tuple:
    """Search one independent tree in a worker process; return its root statistics."""
    observation, seat, params, iterations, seconds, seed, workers, hands = job
    state = world_from_observation(observation, seat, seed)
    tree = Tree()
    params.configure(tree, state.players, workers)
    tree.reset(state, seat, seed)
    if hands is not None:
        tree.set_deal("weighted", *hands)
    watcher = _StopWatcher(tree, _WORKER_STOP)
    try:
        done = _run_search(tree, Limits(iterations, seconds), params, _WORKER_STOP)
    finally:
        watcher.close()
    return (done, _children_stats(tree, seat), tree.root_value(), tree.root_visits(), tree.node_count,
            tree.bytes_used(), tree.full)


class _StopWatcher:
    """Relay a multiprocessing stop event to a running tree from a thread."""

    def __init__(self, tree: Tree, event):
        self._done = threading.Event()
        self._thread = None
        if event is not None:
            def watch():
                while not self._done.is_set():
                    if event.wait(0.01):
                        tree.stop()
                        return
            self._thread = threading.Thread(target=watch, daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()


class ISMCTS:
    """Information-set MCTS for one seat; call search() with that seat's observation."""

    def __init__(self, params: SearchParams = SearchParams(), workers: int = 1):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise SearchError(f"workers must be a positive int, got {workers!r}")
        self.params = params
        self.workers = workers
        self._tree: Optional[Tree] = None
        self._tree_seat = -1
        self._pool = None
        self._stop_event = None
        self._token: Optional[threading.Event] = None   # the running search's stop token
        self._hands: Optional[tuple] = None             # the running search's weighted hands

    # ------------------------------------------------------------ control

    def stop(self) -> None:
        """Make the running search return as soon as possible (from another thread).

        A stop that must not be lost when it lands before the search begins
        goes through the search's own token (`search(stop_token=...)`).
        """
        token = self._token
        if token is not None:
            token.set()
        if self._tree is not None:
            self._tree.stop()
        if self._stop_event is not None:
            self._stop_event.set()

    def close(self) -> None:
        """Shut the worker processes down."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def forget(self) -> None:
        """Drop the kept tree (a new game, or a jump to an unrelated position)."""
        self._tree = None

    # ------------------------------------------------------------ search

    def search(self, observation: dict, seat: int, limits: Limits = Limits(iterations=1000),
               seed: int = 0, reuse: Optional[list] = None,
               progress: Optional[Callable] = None,
               stop_token: Optional[threading.Event] = None,
               hands: Optional[tuple] = None) -> SearchResult:
        """Search the decision for `seat` from its observation; return the statistics.

        `reuse`: the decisions taken since the previous search of this object,
        when the caller knows the kept tree is still this seat's information
        set (see ISMCTSAgent); otherwise a fresh tree is built.
        `stop_token`: an Event belonging to this search; once set (before the
        search begins or during it) the search returns what it has, and
        raises SearchError if that is not one iteration.
        `hands`: (sets of the other seats' hands, weights) to draw each
        iteration's hands from (search.inference.HandFilter.weighted_hands);
        None deals them uniformly.
        """
        if limits.iterations is None and limits.seconds is None:
            raise SearchError("give the search an iteration or a time limit")
        state = self._world(observation, seat, seed)
        token = stop_token if stop_token is not None else threading.Event()
        self._token = token
        self._hands = hands
        start = time.perf_counter()
        try:
            if self.workers == 1:
                result = self._search_single(state, seat, limits, seed, reuse, progress, token)
            else:
                result = self._search_parallel(observation, seat, limits, seed, token)
        finally:
            self._token = None
            self._hands = None
        result.seconds = time.perf_counter() - start
        return result

    def _world(self, observation: dict, seat: int, seed: int) -> engine.State:
        """Return the world the tree is rooted in: one consistent with the observation."""
        return world_from_observation(observation, seat, seed)

    def _prepare(self, tree: Tree, state: engine.State, seat: int, seed: int) -> None:
        """Set how the tree deals what the seat has not seen, once it is rooted (reset or rerooted)."""
        if self._hands is not None:
            tree.set_deal("weighted", *self._hands)

    def _search_single(self, state, seat, limits, seed, reuse, progress, token) -> SearchResult:
        tree = self._tree
        kept = False
        if (reuse is not None and self.params.reuse_tree and tree is not None
                and self._tree_seat == seat):
            kept = tree.reroot(state, reuse, seed)
        if not kept:
            tree = Tree()
            self.params.configure(tree, state.players)
            tree.reset(state, seat, seed)
        self._prepare(tree, state, seat, seed)
        self._tree, self._tree_seat = tree, seat
        # after the tree is published and its stop flag reset: a stop() before this
        # line set the token, one after it reaches the tree
        if token.is_set():
            tree.stop()

        def report(done, elapsed, t):
            if progress is not None:
                progress(self._result(_children_stats(t, seat), t.root_value(), seat,
                                      done, elapsed, t.node_count, 1, t.bytes_used(), t.full,
                                      t.root_candidates()))

        done = _run_search(tree, limits, self.params, token, report if progress else None, seat)
        return self._result(_children_stats(tree, seat), tree.root_value(), seat,
                            done, 0.0, tree.node_count, 1, tree.bytes_used(), tree.full,
                            tree.root_candidates())

    def _search_parallel(self, observation, seat, limits, seed, token) -> SearchResult:
        if self._pool is None:
            ctx = mp.get_context("spawn")
            self._stop_event = ctx.Event()
            self._pool = ctx.Pool(self.workers, initializer=_worker_init, initargs=(self._stop_event,))
        self._stop_event.clear()
        if token.is_set():          # a stop() that landed before the clear
            self._stop_event.set()
        jobs = []
        for w in range(self.workers):
            its = None
            if limits.iterations is not None:
                its = limits.iterations // self.workers + (1 if w < limits.iterations % self.workers else 0)
                its = max(its, 1)
            jobs.append((observation, seat, self.params, its, limits.seconds, worker_seed(seed, w), self.workers,
                         self._hands))
        outs = self._pool.map(_worker_search, jobs)
        merged, done, nodes, tree_bytes, full = {}, 0, 0, 0, False
        value, root_visits = None, 0
        for ran, stats, root_value, visits, n_nodes, n_bytes, worker_full in outs:
            done += ran
            nodes += n_nodes
            tree_bytes += n_bytes
            full = full or worker_full
            if value is None:
                value = [0.0] * len(root_value)
            for p, v in enumerate(root_value):
                value[p] += v * visits
            root_visits += visits
            for action, (v, av, rew, sq, pv) in stats.items():
                m = merged.setdefault(action, [0, 0, [0.0] * len(rew), 0.0, pv, v])
                m[0] += v
                m[1] += av
                m[2] = [a + b for a, b in zip(m[2], rew)]
                m[3] += sq
                if v > m[5]:
                    m[4], m[5] = pv, v
        value = [v / root_visits for v in value] if root_visits else value
        stats = {a: m[:5] for a, m in merged.items()}
        return self._result(stats, value, seat, done, 0.0, nodes, self.workers, tree_bytes, full)

    def _result(self, stats: dict, root_value: list, seat: int, iterations: int,
                seconds: float, nodes: int, workers: int, tree_bytes: int = 0,
                tree_full: bool = False, finalists: Optional[list] = None) -> SearchResult:
        cands = []
        for action, (visits, avail, rewards, reward_sq, pv) in stats.items():
            if visits == 0:
                continue
            mean = rewards[seat] / visits
            var = max(reward_sq / visits - mean * mean, 0.0)
            half = 1.96 * math.sqrt(var / visits)
            cands.append(Candidate(action, format_action(action), visits, avail, mean,
                                   max(0.0, mean - half), min(1.0, mean + half),
                                   [format_action(a) for a, _ in pv], [actor for _, actor in pv]))
        if not cands:
            raise NoIterations("the search ran no iteration (stopped, or out of time, before it began)")
        if finalists:
            # sequential halving's last standing first (the best mean among those
            # still in mid-search), then the rest by how far each got
            standing = set(finalists)
            cands.sort(key=lambda c: (0, -c.mean, 0, c.action) if c.action in standing
                       else (1, -c.visits, -c.mean, c.action))
        elif self.params.final_move == "visits":
            cands.sort(key=lambda c: (-c.visits, -c.mean, c.action))
        else:
            cands.sort(key=lambda c: (-c.mean, -c.visits, c.action))
        best = cands[0]
        return SearchResult(best.action, best.move, cands, root_value, iterations, seconds,
                            nodes, workers, tree_bytes, tree_full)


MIN_SEARCH_SECONDS = 0.001     # a search always gets a moment, however long the filter took
filter_clock = time.perf_counter  # times the hand filter's work at a decision (a name tests can replace)


def limits_after(limits: Limits, spent: float) -> Limits:
    """Return `limits` less `spent` seconds of its wall time, so a seat's filter is paid from its own clock."""
    if limits.seconds is None:
        return limits
    return Limits(iterations=limits.iterations, seconds=max(limits.seconds - spent, MIN_SEARCH_SECONDS))


class ISMCTSAgent(Agent):
    """An Agent that decides by ISMCTS, keeping its tree between the two actions of a turn."""

    name = "ismcts"

    def __init__(self, seed: int = 0, params: SearchParams = SearchParams(), workers: int = 1,
                 limits: Limits = Limits(iterations=1000)):
        self.seed = seed
        self.params = params
        self.limits = limits
        self.search_engine = ISMCTS(params, workers)
        self.last_result: Optional[SearchResult] = None
        self._since: Optional[list] = None
        self._decisions = 0
        self.hand_filter: Optional[HandFilter] = None   # with params.inference: the other hands, weighed
        self._unfiltered: list = []                     # decisions the filter has still to take in

    def new_game(self, seat: int, observation: dict) -> None:
        """Start a game as `seat`."""
        super().new_game(seat, observation)
        self.search_engine.forget()
        self._since = None
        self._decisions = 0
        self.hand_filter = None
        self._unfiltered = []
        if self.params.inference:
            self.hand_filter = HandFilter(seat, observation, temperature=self.params.inference_temperature,
                                          seed=self.seed)

    def apply(self, action: int, observation: dict) -> None:
        """Note a decision; the kept tree stays valid only within this seat's turn, without draws."""
        prev = self.observation
        super().apply(action, observation)
        if self.hand_filter is not None:        # taken in at the next choose(), on this seat's clock
            self._unfiltered.append((action, prev, observation))
        if self._since is not None:
            same_turn = (observation["turn_owner"] == prev["turn_owner"] == self.seat
                         and observation["phase"] != "over")
            drew = SWAP_BASE <= action < PASS or action == PASS
            if same_turn and not drew:
                self._since.append(action)
            else:
                self._since = None

    def choose(self, limits: Optional[Limits] = None) -> int:
        """Search and return the decision for this seat."""
        self.check_turn()
        seed = (self.seed * 1_000_003 + self._decisions) & _MASK64
        self._decisions += 1
        if limits is None or (limits.iterations is None and limits.seconds is None):
            limits = self.limits
        hands = None
        if self.hand_filter is not None:
            started = filter_clock()
            for event in self._unfiltered:
                self.hand_filter.update(*event)
            self._unfiltered = []
            hands = self.hand_filter.weighted_hands()
            limits = limits_after(limits, filter_clock() - started)
        result = self.search_engine.search(self.observation, self.seat, limits,
                                           seed=seed, reuse=self._since, hands=hands)
        self.last_result = result
        self._since = []
        return result.best

    def stop(self) -> None:
        """Stop a running search; choose() then returns its best decision so far."""
        self.search_engine.stop()
