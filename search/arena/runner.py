"""The arena: play agents against each other and measure them.

`play_game` holds the true state and gives each agent only its seat's
observation (engine.info.observation); an agent that raises or returns an
illegal decision forfeits: it ranks last, the reason is recorded, and the game
stops there (the other seats are ranked by the scores so far). `run_match`
plays a series of seeded games with the seats rotated so every lineup slot
plays every seat equally often (and every deal is played once per rotation),
optionally saving each game record (engine.record), resuming from those
records a match that was stopped (Ctrl-C, a lost machine), and summarises it in a
`MatchResult`: win share with its 95% Wilson interval, mean rank, mean final
score and colour totals, and for two agents an Elo difference from the
pairwise score share. Games run through a search.arena.backends backend (this
process, a process pool, or Ray tasks); with an SPRT (search.arena.sprt) the match
stops as soon as H0 or H1 is accepted.

The command line is `tne-ai arena` (tne_ai/cli/arena.py).
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional

import engine
from engine import actions as A
from engine.actions import format_action
from engine.info import observation
from engine.legality import why_illegal
from engine.record import GameRecorder, RecordError, replay_record
from engine.state import rank_scores, strength_vector, variant_bits
from search.agent import Agent, Limits, SearchError
from search.arena.backends import Backend, JobLost, make_backend
from search.baselines import GreedyAgent, RandomAgent
from search.ismcts import ISMCTSAgent
from search.levels import LEVELS_RANGE, LevelAgent, level_of
from search.params import SearchParams
from search.arena.sprt import Sprt, SprtSpec
from search.twins import twin_all, twin_hands

# name -> factory(seed) -> Agent (ISMCTS with its default 1,000 iterations a decision). The twins
# (search.twins) are told the hidden tiles: they measure what hiding costs, here and nowhere else.
AGENTS: dict[str, Callable[[int], Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "ismcts": ISMCTSAgent,
    "twin-hands": twin_hands,
    "twin-all": twin_all,
}
SEARCHES = ("ismcts", "twin-hands", "twin-all")     # the agents that take a params file
LEVEL_PREFIX = "level-"     # level-1 .. level-10: the search playing at a level (search.levels)

Z95 = 1.959963984540054


def agent_factory(spec: str) -> tuple:
    """Return (name, factory) for an agent spec: a name of AGENTS, or `ismcts:PARAMS_FILE` (tuned params).

    The params file's agent is named after it (`ismcts:tuned.json` plays as
    `ismcts-tuned`), so a tuned search and the defaults can meet in one match.
    A twin takes one too (`twin-hands:tuned.json`).
    """
    kind, sep, path = spec.partition(":")
    if kind.startswith(LEVEL_PREFIX) and not sep:
        try:
            level = level_of(kind[len(LEVEL_PREFIX):]).level
        except SearchError as e:
            raise ValueError(f"agent {kind!r}: {e}") from None
        return f"{LEVEL_PREFIX}{level}", functools.partial(LevelAgent, level=level)
    if kind not in AGENTS:
        lo, hi = LEVELS_RANGE
        raise ValueError(f"unknown agent {kind!r}; known: {', '.join(AGENTS)}, {LEVEL_PREFIX}{lo}..{LEVEL_PREFIX}{hi}")
    if not sep:
        return kind, AGENTS[kind]
    if kind not in SEARCHES:
        raise ValueError(f"only {', '.join(SEARCHES)} take a params file, not {kind!r}")
    if not path:
        raise ValueError(f"{spec!r}: give a params file after '{kind}:'")
    params = SearchParams.load(path)            # SearchError names the file and the field
    return (f"{kind}-{os.path.splitext(os.path.basename(path))[0]}",
            functools.partial(AGENTS[kind], params=params))


def agent_settings(factories: dict, players: int) -> dict:
    """Return {name: what the agent is} for a match's settings: its class and, for a search, its resolved params."""
    out = {}
    for nm, fac in factories.items():
        params = fac.keywords.get("params") if isinstance(fac, functools.partial) else None
        cls = fac.func if isinstance(fac, functools.partial) else fac
        entry = {"agent": getattr(cls, "__name__", repr(cls))}
        if cls in (ISMCTSAgent, twin_hands, twin_all, LevelAgent):
            entry["params"] = (params or SearchParams()).resolved(players).to_dict()
        if cls is LevelAgent:
            entry["level"] = vars(level_of(fac.keywords["level"]))
        out[nm] = entry
    return out


# ---------------------------------------------------------------- statistics

def wilson_interval(share: float, n: int, z: float = Z95) -> tuple:
    """Return the Wilson score interval (low, high) of a share observed over n trials."""
    if n <= 0:
        return (0.0, 1.0)
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(max(0.0, share * (1 - share) / n + z * z / (4 * n * n)))
    lo = 0.0 if share <= 0.0 else max(0.0, centre - half)
    hi = 1.0 if share >= 1.0 else min(1.0, centre + half)
    return (lo, hi)


def elo_from_share(share: float) -> float:
    """Return the Elo difference implied by a score share (0.5 -> 0, 0.75 -> ~191; +-inf at 1, 0)."""
    if share >= 1.0:
        return math.inf
    if share <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / share - 1.0)


def derive_seed(seed: int, *parts) -> int:
    """Return a 63-bit seed derived deterministically from a seed and labels."""
    text = ":".join(str(x) for x in (seed,) + parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


# ---------------------------------------------------------------- one game

@dataclass
class GameResult:
    """The outcome of one game: ranks and scores per seat, forfeits, timing, the record."""

    seed: int
    players: int
    board: str
    names: list                      # agent name per seat
    ranks: list                      # 0 = best; a forfeiting seat ranks last
    scores: list                     # [[k, r, b, g, treasures] per seat]
    end_reason: Optional[str]        # "treasures" | "bag" | "forfeit" | "cap" (stalled, adjudicated)
    decisions: int
    forfeit: Optional[dict] = None   # {"seat": s, "reason": text} when a seat forfeited
    think_time: list = field(default_factory=list)   # seconds in choose() per seat
    choices: list = field(default_factory=list)      # choose() calls per seat
    record: Optional[str] = None
    resumed: bool = False            # read back from an earlier run's record, not played (no timing)

    def win_share(self, seat: int) -> float:
        """Return the seat's share of the win: 1 alone first, 1/k in a k-way tie for first, else 0."""
        if self.ranks[seat] != 0:
            return 0.0
        return 1.0 / self.ranks.count(0)


def _forfeit_ranks(state, loser: int) -> list:
    """Rank the other seats by the scores so far, the loser last."""
    scores = state.scores()
    others = [s for s in range(state.players) if s != loser]
    sub = rank_scores([scores[s] for s in others])
    ranks = [0] * state.players
    for s, r in zip(others, sub):
        ranks[s] = r
    ranks[loser] = state.players - 1
    return ranks


MAX_DECISIONS = 3000   # a game this long is stalled (passing for ever is legal): adjudicate it


def final_ranks(state, forfeit: Optional[dict]) -> tuple:
    """Return (ranks, end_reason) of a game that stopped: forfeited, capped or over."""
    if forfeit is not None:
        return _forfeit_ranks(state, forfeit["seat"]), "forfeit"
    if not state.is_terminal():
        return rank_scores(state.scores()), "cap"
    return state.result(), state.snapshot()["end_reason"]


def record_epilogue(end_reason: str, decisions: int, forfeit: Optional[dict], names: list) -> str:
    """Return the comment lines a game record ends with when the game did not end by the rules."""
    text = ""
    if end_reason == "cap":
        text += f"# stopped after {decisions} decisions: ranked on the scores so far\n"
    if forfeit is not None:
        why = forfeit["reason"].replace("\n", " ")
        kind = f"{forfeit['kind']}: " if "kind" in forfeit else ""
        text += f"# forfeit: seat {forfeit['seat']} ({names[forfeit['seat']]}): {kind}{why}\n"
    return text


def game_result(state, seed: int, board: str, names: list, decisions: int, forfeit: Optional[dict],
                think: list, calls: list, record: Optional[str], rank_comment: bool = False) -> GameResult:
    """Return the GameResult of a game that stopped (over, capped or forfeited); the arena's and the referee's."""
    ranks, end_reason = final_ranks(state, forfeit)
    if record is not None:
        record += record_epilogue(end_reason, decisions, forfeit, names)
        if rank_comment:
            record += f"# ranks {' '.join(map(str, ranks))} ({end_reason})\n"
    return GameResult(seed=seed, players=state.players, board=board, names=names, ranks=ranks,
                      scores=state.scores(), end_reason=end_reason, decisions=decisions,
                      forfeit=forfeit, think_time=think, choices=calls, record=record)


def play_game(agents: list, seed: int, players: int = 2, board: str = "standard",
              record: bool = True, limits: Limits = Limits(), names: Optional[list] = None,
              max_decisions: int = MAX_DECISIONS, variants=()) -> GameResult:
    """Play one game, agents[s] in seat s, each seeing only its observation; return the GameResult.

    The rules let every seat pass for ever (a full hand draws nothing, so
    neither end condition comes nearer): after `max_decisions` decisions the
    game stops and is ranked on the scores so far, end_reason "cap".
    """
    if len(agents) != players:
        raise ValueError(f"{len(agents)} agents for {players} players")
    names = list(names) if names is not None else [getattr(a, "name", type(a).__name__) for a in agents]
    state = engine.new_game(players, seed, board, variants)
    rec = GameRecorder(state, seed=seed) if record else None
    think = [0.0] * players
    calls = [0] * players
    decisions = 0
    forfeit = None

    def lose(seat: int, reason: str):
        nonlocal forfeit
        forfeit = {"seat": seat, "reason": reason}

    snap = state.snapshot()
    for s, ag in enumerate(agents):
        try:
            ag.new_game(s, observation(snap, s))
        except Exception as e:  # noqa: BLE001 - any agent failure forfeits
            lose(s, f"new_game raised {type(e).__name__}: {e}")
            break
    while forfeit is None and not state.is_terminal() and decisions < max_decisions:
        seat = state.to_act
        t0 = time.perf_counter()
        try:
            if getattr(agents[seat], "told_hidden", False):     # a twin (search.twins): measurement only
                agents[seat].tell(state.snapshot())
            action = agents[seat].choose(limits)
        except Exception as e:  # noqa: BLE001
            think[seat] += time.perf_counter() - t0
            calls[seat] += 1
            tb = traceback.extract_tb(e.__traceback__)
            where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
            lose(seat, f"choose raised {type(e).__name__}: {e}{where}")
            break
        think[seat] += time.perf_counter() - t0
        calls[seat] += 1
        legal = state.legal_actions()
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            try:
                text = format_action(action)
            except Exception:  # noqa: BLE001 - not even an action
                text = repr(action)
            reason = why_illegal(state.snapshot(), action) or f"not legal in phase {state.phase}"
            lose(seat, f"illegal decision {text!r}: {reason}")
            break
        if rec is not None:
            rec.apply(action)
        else:
            state.apply(action)
        decisions += 1
        snap = state.snapshot()
        for s, ag in enumerate(agents):
            try:
                ag.apply(action, observation(snap, s))
            except Exception as e:  # noqa: BLE001
                lose(s, f"apply raised {type(e).__name__}: {e}")
                break
    return game_result(state, seed, board, names, decisions, forfeit, think, calls,
                       rec.text() if rec is not None else None)


# ---------------------------------------------------------------- a match

@dataclass
class AgentStats:
    """One agent name's summary over a match (per seat it occupied)."""

    name: str
    games: int = 0             # seats occupied (one per game per lineup slot)
    wins: float = 0.0          # sum of win shares
    rank_sum: int = 0
    forfeits: int = 0
    think_time: float = 0.0
    choices: int = 0
    score_sum: int = 0         # final scores: the weakest colour once treasures are placed (R-END-2)
    colour_sums: list = field(default_factory=lambda: [0, 0, 0, 0])   # k, r, b, g points, treasures apart

    @property
    def mean_score(self) -> float:
        """Return the mean final score (weakest colour after treasures)."""
        return self.score_sum / self.games if self.games else 0.0

    @property
    def mean_colours(self) -> list:
        """Return the mean k, r, b, g colour totals (treasures not included)."""
        return [c / self.games if self.games else 0.0 for c in self.colour_sums]

    @property
    def win_share(self) -> float:
        """Return the mean win share."""
        return self.wins / self.games if self.games else 0.0

    @property
    def win_interval(self) -> tuple:
        """Return the 95% Wilson interval of the win share."""
        return wilson_interval(self.win_share, self.games)

    @property
    def mean_rank(self) -> float:
        """Return the mean rank (0 = first)."""
        return self.rank_sum / self.games if self.games else 0.0

    @property
    def ms_per_decision(self) -> float:
        """Return the mean milliseconds per choose() call."""
        return 1000.0 * self.think_time / self.choices if self.choices else 0.0


@dataclass
class MatchResult:
    """A series of games: per-agent statistics, the Elo difference for two agents, the games."""

    players: int
    board: str
    seed: int
    lineup: list
    games: list                          # GameResult per game
    stats: dict                          # name -> AgentStats
    variants: tuple = ()                 # the 2015 variants the games were played with
    sprt: Optional[Sprt] = None          # the sequential test, when the match ran one
    lost: list = field(default_factory=list)   # [(game number from 1, reason)]: games with no result

    def pair_score(self, a: str, b: str) -> tuple:
        """Return (score share of a against b, pairings): per game, each a-seat vs each b-seat scores 1/0.5/0."""
        total, n_games = 0.0, 0
        for g in self.games:
            sa = [s for s, nm in enumerate(g.names) if nm == a]
            sb = [s for s, nm in enumerate(g.names) if nm == b]
            if not sa or not sb:
                continue
            pts = 0.0
            for i in sa:
                for j in sb:
                    pts += 1.0 if g.ranks[i] < g.ranks[j] else 0.5 if g.ranks[i] == g.ranks[j] else 0.0
            total += pts / (len(sa) * len(sb))
            n_games += 1
        return (total / n_games if n_games else 0.5), n_games

    def elo(self, a: Optional[str] = None, b: Optional[str] = None) -> tuple:
        """Return (Elo of a minus b, low, high) from the pairwise score share with its 95% interval."""
        names = list(self.stats)
        if a is None or b is None:
            if len(names) != 2:
                raise ValueError("name the two agents: the match has " + ", ".join(names))
            a, b = names
        share, n = self.pair_score(a, b)
        lo, hi = wilson_interval(share, n)
        return elo_from_share(share), elo_from_share(lo), elo_from_share(hi)

    def table(self) -> str:
        """Return the match summary as a text table."""
        n = len(self.games)
        variants = f", variants {','.join(self.variants)}" if self.variants else ""
        out = [f"{n} games, {self.players} players, {self.board} board{variants}, seed {self.seed}, "
               f"lineup {' '.join(self.lineup)}"]
        w = max([12] + [len(nm) + 1 for nm in self.stats])
        out.append(f"{'agent':<{w}}{'seats':>6}{'win share':>11}{'95% interval':>17}"
                   f"{'mean rank':>11}{'score':>7}{'k/r/b/g':>21}{'forfeits':>10}{'ms/dec':>9}")
        for st in self.stats.values():
            lo, hi = st.win_interval
            colours = "/".join(f"{c:.1f}" for c in st.mean_colours)
            # games read back with --resume carry no timing: none timed shows as -
            ms = f"{st.ms_per_decision:.1f}" if st.choices else "-"
            out.append(f"{st.name:<{w}}{st.games:>6}{st.win_share:>11.3f}{f'[{lo:.3f}, {hi:.3f}]':>17}"
                       f"{st.mean_rank:>11.2f}{st.mean_score:>7.1f}{colours:>21}{st.forfeits:>10}"
                       f"{ms:>9}")
        if len(self.stats) == 2:
            a, b = list(self.stats)
            share, _ = self.pair_score(a, b)
            e, lo, hi = self.elo(a, b)
            out.append(f"Elo {a} - {b}: {_fmt_elo(e)}  95% [{_fmt_elo(lo)}, {_fmt_elo(hi)}]  "
                       f"(pairwise score share {share:.3f})")
        reasons = [(g.names[g.forfeit['seat']], g.forfeit["reason"]) for g in self.games if g.forfeit]
        for name, why in reasons[:5]:
            out.append(f"forfeit {name}: {why}")
        for number, why in self.lost[:5]:
            out.append(f"lost game {number}: {why}")
        if self.sprt is not None:
            out.append(self.sprt.summary())
        return "\n".join(out)


def _fmt_elo(x: float) -> str:
    """Return an Elo difference signed and whole: a value that rounds to zero is +0, never -0."""
    return f"{round(x):+d}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def default_lineup(names: list, players: int) -> list:
    """Return the seat lineup: all names if they fill the seats, else the first against the rest."""
    if len(names) == players:
        return list(names)
    if len(names) == 2:
        return [names[0]] + [names[1]] * (players - 1)
    if len(names) == 1:
        return list(names) * players
    if len(names) > players:
        raise ValueError(f"{len(names)} agents do not fit {players} seats")
    return [names[i % len(names)] for i in range(players)]


def plan_seats(lineup: list, games: int, seed: int) -> list:
    """Return [(deal seed, agent name per seat, agent seed per seat)] of a match, seats rotated over paired deals."""
    players = len(lineup)
    out = []
    for i in range(games):
        rot = i % players
        out.append((derive_seed(seed, "deal", i // players) % (1 << 62),
                     [lineup[(s - rot) % players] for s in range(players)],
                     [derive_seed(seed, "agent", i, s) for s in range(players)]))
    return out


MATCH_FILE = "match.json"     # in a record directory: the settings of the match its records belong to


def record_name(index: int, seat_names: list) -> str:
    """Return the file name of game `index`'s record (the arena counts from 0, the referee from 1)."""
    return f"game{index:04d}-" + "-".join(seat_names) + ".txt"


def write_atomically(path: str, text: str) -> None:
    """Write a file through a temporary one and a rename."""
    # A match stopped mid-write must not leave half a record for a resume to misread.
    tmp = path + ".part"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


_FORFEIT_NOTE = re.compile(r"^# forfeit: seat (\d+) \(.*?\): (.*)$", re.M)
_CAP_NOTE = re.compile(r"^# stopped after (\d+) decisions", re.M)


def resume_game(path: str, deal: int, seat_names: list, players: int, board: str, variants=(),
                kinds: tuple = ()) -> GameResult:
    """Return the GameResult of a planned game read back from its record (ValueError: not that game's, or unfinished).

    The record is replayed through the rules, so the ranks and scores are the
    engine's, not the file's; it must start with the headers this match
    writes for the game's deal (extra headers may follow them). A game that
    did not end by the rules must carry the cap or forfeit note; `kinds`:
    the forfeit kinds a note may name before its reason (the referee's).
    """
    name = os.path.basename(path)
    with open(path) as f:
        text = f.read()
    head = GameRecorder(engine.new_game(players, deal, board, variants), seed=deal).text()
    if not text.startswith(head):
        raise ValueError(f"record {name} is not this match's game: its headers are not "
                         f"{' '.join(head.splitlines()[1:])} (another seed, player count, board or variants?)")
    try:
        state, actions = replay_record(text, engine.new_game)
    except RecordError as e:
        raise ValueError(f"record {name}: {e}") from e
    forfeit = None
    m = _FORFEIT_NOTE.search(text)
    if m:
        forfeit = {"seat": int(m.group(1)), "reason": m.group(2)}
        kind, sep, reason = m.group(2).partition(": ")
        if sep and kind in kinds:
            forfeit.update(kind=kind, reason=reason)
        if not 0 <= forfeit["seat"] < players:
            raise ValueError(f"record {name}: its forfeit note names seat {forfeit['seat']} of {players}")
    elif not state.is_terminal() and not _CAP_NOTE.search(text):
        raise ValueError(f"record {name} is unfinished (no result line, no cap or forfeit note): "
                         f"delete it to play the game again")
    g = game_result(state, deal, board, list(seat_names), len(actions), forfeit,
                    [0.0] * players, [0] * players, text)
    g.resumed = True
    return g


def resumed_games(record_dir: str, planned: list, players: int, board: str, variants=(), tester=None,
                  progress: Optional[Callable] = None, first: int = 0, kinds: tuple = ()) -> dict:
    """Read back the planned games [(index, seat names, deal)] recorded in record_dir; return {index: GameResult}.

    They go to the SPRT (until it decides) and to `progress` in game order.
    `first`: the number of game 0 in the file names (the referee counts from 1).
    """
    done = {}
    for i, seat_names, deal in planned:
        path = os.path.join(record_dir, record_name(i + first, seat_names))
        if os.path.exists(path):
            done[i] = resume_game(path, deal, seat_names, players, board, variants, kinds)
    for i in sorted(done):
        if tester is not None and tester.decision is None:
            tester.add(i, done[i].names, done[i].ranks)
        if progress is not None:
            progress(i, done[i])
    return done


def match_settings(players: int, board: str, seed: int, lineup: list, variants=(), **more) -> dict:
    """Return the settings a match keeps in its record directory: the plan's, and `more` (agents, limits)."""
    return {"players": players, "board": board, "seed": seed, "lineup": list(lineup),
            "variants": list(variants), **more}


def match_settings_check(record_dir: str, settings: dict, resume: bool) -> None:
    """Write the match's settings to record_dir/match.json, or on a resume check they are the ones there (ValueError).

    A new match (no resume) needs a directory without game records.
    """
    path = os.path.join(record_dir, MATCH_FILE)
    settings = json.loads(json.dumps(settings))        # as it reads back: tuples become lists
    if resume and os.path.exists(path):
        try:
            with open(path) as f:
                before = json.load(f)
        except (OSError, ValueError) as e:
            raise ValueError(f"{path}: unreadable: {e}") from e
        before = _with_absent_knobs(before)
        changed = sorted(k for k in set(before) | set(settings) if before.get(k) != settings.get(k))
        if changed:
            raise ValueError(f"cannot resume: {path} was written by a match with other settings ("
                             + "; ".join(f"{k}: {before.get(k)!r} then, {settings.get(k)!r} now"
                                         for k in changed) + ")")
        return
    has_records = any(f.startswith("game") and f.endswith(".txt") for f in os.listdir(record_dir))
    if resume and has_records:
        raise ValueError(f"cannot resume: {record_dir} has game records but no {MATCH_FILE} "
                         f"saying which match they belong to")
    if has_records:         # a later resume would mix them with this match's games
        raise ValueError(f"{record_dir} already holds game records: resume that match (--resume) "
                         f"or give an empty directory")
    write_atomically(path, json.dumps(settings, indent=1, sort_keys=True) + "\n")


def _with_absent_knobs(settings: dict) -> dict:
    """Return kept match settings whose agents' params lack knobs added since, with the values that played then."""
    from search.params import with_absent_knobs
    agents = settings.get("agents")
    if not isinstance(agents, dict):
        return settings
    return {**settings, "agents": {
        name: ({**a, "params": with_absent_knobs(a["params"])} if isinstance(a, dict) and isinstance(a.get("params"), dict)
               else a)
        for name, a in agents.items()}}


def _play_planned(job: tuple) -> GameResult:
    """Play one planned game of a match (in this or a worker process)."""
    factories, seat_names, seeds, deal, players, board, record, limits, variants = job
    agents = [factories[nm](seeds[s]) for s, nm in enumerate(seat_names)]
    return play_game(agents, deal, players, board, record=record, limits=limits, names=seat_names,
                     variants=variants)


def run_match(agent_factories: dict, games: int, players: int = 2, seed: int = 0,
              board: str = "standard", limits: Limits = Limits(), record_dir: Optional[str] = None,
              progress: Optional[Callable] = None, lineup: Optional[list] = None,
              jobs: int = 1, variants=(), backend: Optional[Backend] = None,
              sprt=None, resume: bool = False, settings: Optional[dict] = None) -> MatchResult:
    """Play `games` games with seats rotated; return the MatchResult.

    `agent_factories`: name -> callable(seed) -> Agent. `lineup`: agent name
    per slot (default: default_lineup). Game i deals from a seed derived from
    (seed, i // players) and seats slot k at seat (k + i) % players, so each
    deal is played under every rotation (when `games` is a multiple of
    `players`) and every slot plays every seat equally often. `progress` is
    called as progress(i, game_result) as each game finishes (in finishing
    order when games run in parallel). `jobs` > 1 plays games in that many
    processes (factories must then be picklable, e.g. classes or
    functools.partial); the results are the same as with 1. `backend`: a
    search.arena.backends backend to play through instead (e.g. RayBackend()); it
    is closed at the end. `sprt`: a search.arena.sprt SprtSpec (a test of the
    lineup's first agent against the rest) or a Sprt to feed (e.g. to read
    its LLR in `progress`); the match stops, cancelling the games still
    running, once it accepts H0 or H1 (MatchResult.sprt holds it).
    `variants`: the 2015 variants every game is played with (engine names).
    A game whose worker died for good (Ray, after its replays) is left out
    and listed in MatchResult.lost.

    `resume` (with `record_dir`): the games whose records are already in
    record_dir are read back (resume_game), handed to the SPRT and to
    `progress` first, in game order, and not played again; the rest are
    played. `settings` (JSON-able: agents, limits, anything the factories
    do not show) is kept in record_dir/match.json, and a resume with other
    settings is refused (ValueError), as is a directory of records without
    one.
    """
    variants = tuple(A.VARIANTS[i] for i in range(len(A.VARIANTS))
                     if variant_bits(variants, ValueError) >> i & 1)
    names = list(agent_factories)
    lineup = list(lineup) if lineup is not None else default_lineup(names, players)
    if len(lineup) != players:
        raise ValueError(f"lineup has {len(lineup)} slots for {players} players")
    for nm in lineup:
        if nm not in agent_factories:
            raise ValueError(f"lineup names unknown agent {nm!r}")
    if resume and not record_dir:
        raise ValueError("resume needs the record directory of the match to resume")
    if record_dir:
        os.makedirs(record_dir, exist_ok=True)
        match_settings_check(record_dir, match_settings(players, board, seed, lineup, variants,
                                                        limits=[limits.iterations, limits.seconds],
                                                        **(settings or {})), resume)
    plan = []
    for deal, seat_names, seeds in plan_seats(lineup, games, seed):
        plan.append((agent_factories, seat_names, seeds, deal, players, board, record_dir is not None,
                     limits, variants))
    backend = backend if backend is not None else make_backend("process", jobs)
    tester = Sprt(sprt, lineup[0], players) if isinstance(sprt, SprtSpec) else sprt
    lost: list = []
    done = (resumed_games(record_dir, [(i, seat_names, deal) for i, (_, seat_names, _, deal, *_r) in enumerate(plan)],
                          players, board, variants, tester, progress) if resume else {})
    to_play = [] if tester is not None and tester.decision is not None else \
        [i for i in range(len(plan)) if i not in done]
    with backend:
        try:
            for k, g in backend.stream(_play_planned, [plan[i] for i in to_play]):
                i = to_play[k]
                if isinstance(g, JobLost):
                    lost.append((i + 1, str(g)))
                    continue
                if isinstance(g, BaseException):
                    raise g
                done[i] = g
                if record_dir:
                    write_atomically(os.path.join(record_dir, record_name(i, plan[i][1])), g.record)
                if tester is not None:
                    tester.add(i, g.names, g.ranks)
                if progress is not None:
                    progress(i, g)
                if tester is not None and tester.decision is not None:
                    backend.cancel()
                    break
        except BaseException:
            backend.cancel()
            raise
    res = summarise([done[i] for i in sorted(done)], lineup, players, board, seed, variants, order=names)
    res.sprt, res.lost = tester, sorted(lost)
    return res


def summarise(games: list, lineup: list, players: int, board: str, seed: int, variants=(),
              order: Optional[list] = None) -> MatchResult:
    """Return the MatchResult of finished games (in game order); the arena and the referee (tne_ai.referee.match) both use it.

    `order`: the agent names in the order of the table (default: as they
    first appear in the lineup); names not in the lineup are left out.
    """
    stats = {nm: AgentStats(nm) for nm in dict.fromkeys(order if order is not None else lineup)
             if nm in lineup}
    for g in games:
        for s, nm in enumerate(g.names):
            st = stats[nm]
            st.games += 1
            st.wins += g.win_share(s)
            st.rank_sum += g.ranks[s]
            st.think_time += g.think_time[s]
            st.choices += g.choices[s]
            st.score_sum += strength_vector(g.scores[s][:4], g.scores[s][4])[0]
            for c in range(4):
                st.colour_sums[c] += g.scores[s][c]
            if g.forfeit and g.forfeit["seat"] == s:
                st.forfeits += 1
    return MatchResult(players=players, board=board, seed=seed, lineup=list(lineup), games=list(games),
                       stats=stats, variants=tuple(variants))
