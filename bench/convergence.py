"""Convergence of the search: how often two seeds, and budgets N and 2N, choose the same decision, strictly and up to what a much deeper search cannot tell apart.

    python -m bench.convergence [--players 2] [--positions 120] [--budgets 500 1000 2000 4000 8000 16000]
        [--deep ITER] [--seed 0] [--jobs 1] [--params FILE] [--json OUT]
    python -m bench.convergence --make-positions [--players 2]      (writes the positions file once)

**Positions.** A fixed set of action-phase decision points, read from
bench/data/convergence-{2,4}p.json (`--positions-file`): each the acting
seat's observation (engine.info.observation), taken every `--spacing`-th
action-phase decision of seeded self-play games of the default search at
500 iterations, shuffled once so that the first N of them are a sample of
all. The file does not move when the engine changes; `--make-positions`
writes it again (a different engine makes different games).

**Searches.** For each position and budget N, two searches of the acting
seat from its observation, seeds A and B (`ISMCTS(params).search(...,
Limits(iterations=N), seed=...)`, a fresh tree each, one worker). Seeds
depend on `--seed` and the position's index only, so a run is a function
of its options. With the same seed a search of 2N iterations is the search
of N iterations continued (the same world, the same first N iterations).
The seed deals the root's world from the observation as well as driving
the iterations; `--same-world` deals every search of a position (the
referee's too) the same root world, so that two seeds differ in their
iterations only: the difference from a run without it is what the one
world sampled at the root adds to the disagreement.

**The referee.** One search of `--deep` iterations (default 4x the largest
budget) of each position, seed R, gives each root decision its mean reward
`m` and the standard error of that mean `se` (the search's own 95%
interval, (high - low) / 2 / 1.96, is the half-width's source). Its *ties*
are the decisions it cannot tell from its own choice `b`: every decision `d`
it visited at least `--min-visits` times with

    m_b - m_d <= max(tolerance, 1.96 * sqrt(se_b^2 + se_d^2))

(a two-sided z test at 95% of the difference of the two means, and a floor
of `--tolerance` reward, 0.005 by default, under which two means are the
same for any purpose), plus `b` itself. Two decisions *agree up to ties* if
they are the same decision or both are among the referee's ties; they
*agree strictly* if they are the same. The relation is an equivalence (the
ties are one class, every other decision a class of its own), so the
agreement of two seeds and of N and 2N count the same thing. A decision
the referee visited fewer than `--min-visits` times, or not at all (the
root widens in the prior's order), is never a tie: the referee's ignorance
is not equality. The means of a tree search are not independent samples
(the visits follow the means), so the test is a rule of thumb, not an
exact test; the second referee (seed R2, `--no-second-referee` skips it)
says how far the referee itself can be trusted: its row gives how often two
referees choose the same decision, and how often the second's choice is
among the first's ties.

**Output.** Per budget, with 95% Wilson intervals over the positions:
strict and up-to-ties agreement of seeds A and B at N; of A at N and B at
2N (independent searches); of A at N and A at 2N (the same search run on);
and how often A's choice at N is among the referee's ties. Then what the
referee saw: how many root decisions it visited, how many ties, the visit
share of its choice. `--json OUT` writes every number and every position's
decisions; `--referee-from JSON` takes the referee's ties from an earlier
run's JSON (the same positions file, deep budget, tolerance and
min-visits) instead of searching again, so that a changed search
(`--params`) or a changed engine is judged by the same referee as the
defaults were.

Cost: two searches of every budget and one (or two) of `--deep` a
position: with the default budgets and deep 64,000 about 190,000
iterations a position, a few seconds of one core.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import engine
from engine.actions import format_action
from engine.info import observation as observe
from search.agent import Limits
from search.arena.runner import MAX_DECISIONS, Z95, derive_seed, wilson_interval
from search.ismcts import ISMCTS, ISMCTSAgent, world_from_observation
from search.params import SearchParams

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
DEFAULT_BUDGETS = [500, 1000, 2000, 4000, 8000, 16000]
MAKE_COUNT = 160            # positions a made file holds (--positions takes the first N)
MAKE_ITERATIONS = 500       # the self-play's budget a decision
MAKE_SPACING = 12           # one action-phase decision in this many
TOP_KEPT = 8                # referee candidates kept in the JSON for reading (the ties are kept whole)


def positions_path(players: int) -> str:
    """Return the default positions file for a player count."""
    return os.path.join(DATA_DIR, f"convergence-{players}p.json")


# ---------------------------------------------------------------- the positions

def make_positions(players: int, count: int = MAKE_COUNT, seed: int = 0, iterations: int = MAKE_ITERATIONS,
                   spacing: int = MAKE_SPACING, progress=None) -> dict:
    """Play seeded self-play games of the default search and return a positions document of `count` action-phase decisions.

    Every seat is ISMCTSAgent at `iterations` a decision; from each game every
    `spacing`-th action-phase decision (from a seeded offset) is kept as the
    acting seat's observation. Whole games are played until `count` are
    kept; the kept ones are shuffled (seeded) and cut to `count`.
    """
    rng = random.Random(derive_seed(seed, "convergence-positions", players))
    kept = []
    game = 0
    while len(kept) < count:
        game_seed = derive_seed(seed, "convergence-game", players, game)
        agents = [ISMCTSAgent(derive_seed(game_seed, s), limits=Limits(iterations=iterations))
                  for s in range(players)]
        state = engine.new_game(players, game_seed)
        snap = state.snapshot()
        for s, agent in enumerate(agents):
            agent.new_game(s, observe(snap, s))
        offset = rng.randrange(spacing)
        decisions = actions = 0
        while not state.is_terminal() and decisions < MAX_DECISIONS:
            seat = state.to_act
            if state.phase == "action":
                if actions >= offset and (actions - offset) % spacing == 0:
                    kept.append({"game": game, "game_seed": game_seed, "decision": decisions, "seat": seat,
                                 "observation": observe(snap, seat)})
                actions += 1
            action = agents[seat].choose()
            state.apply(action)
            decisions += 1
            snap = state.snapshot()
            for s, agent in enumerate(agents):
                agent.apply(action, observe(snap, s))
        if progress:
            progress(f"game {game}: {decisions} decisions, {len(kept)} positions kept")
        game += 1
    rng.shuffle(kept)
    return {"players": players, "seed": seed, "iterations": iterations, "spacing": spacing, "games": game,
            "made_by": (f"python -m bench.convergence --make-positions --players {players} --positions {count} "
                        f"--seed {seed}"),
            "positions": kept[:count]}


def dump_positions(doc: dict) -> str:
    """Return a document with a "positions" list (a positions file, a run's --json) as JSON text, one position a line."""
    head = json.dumps({k: v for k, v in doc.items() if k != "positions"}, sort_keys=True, indent=1)
    lines = [json.dumps(p, sort_keys=True, separators=(",", ":")) for p in doc["positions"]]
    return head[:-2] + ',\n "positions": [\n' + ",\n".join(lines) + "\n ]\n}\n"


def load_positions(path: str) -> tuple:
    """Return (document, sha256 of the file) of a positions file."""
    with open(path, "rb") as f:
        raw = f.read()
    return json.loads(raw), hashlib.sha256(raw).hexdigest()


# ---------------------------------------------------------------- the referee's ties

def candidate_stats(result) -> list:
    """Return [action, visits, mean, se] for every visited root decision of a SearchResult, the search's choice first."""
    out = []
    for c in result.candidates:
        half = max(c.mean - c.low, c.high - c.mean)     # the interval is clipped to [0, 1] on one side at most
        out.append([c.action, c.visits, c.mean, half / Z95])
    return out


def referee_ties(stats: list, tolerance: float, min_visits: int) -> list:
    """Return the decisions the referee cannot tell from its choice (stats[0]): the choice and every one within the test.

    A decision d is a tie of the choice b if it has at least `min_visits`
    visits and m_b - m_d <= max(tolerance, 1.96 * sqrt(se_b^2 + se_d^2)).
    """
    best, _, m_b, se_b = stats[0]
    ties = [best]
    for action, visits, m, se in stats[1:]:
        if visits >= min_visits and m_b - m <= max(tolerance, Z95 * math.sqrt(se_b * se_b + se * se)):
            ties.append(action)
    return ties


def agree(a: int, b: int, ties) -> bool:
    """Return whether two decisions agree up to the referee's ties: the same, or both among the ties."""
    return a == b or (a in ties and b in ties)


# ---------------------------------------------------------------- one position

class OneWorld(ISMCTS):
    """ISMCTS whose root world is dealt with one fixed seed, whatever the search's seed (--same-world)."""

    def __init__(self, params: SearchParams, world_seed: int):
        super().__init__(params)
        self.world_seed = world_seed

    def _world(self, observation: dict, seat: int, seed: int):
        return world_from_observation(observation, seat, self.world_seed)


def measure_position(job: tuple) -> dict:
    """Search one position at every budget with two seeds, and (unless given) with the referee; return its record."""
    (index, obs, budgets, deep, seed, params, referee_params, tolerance, min_visits, second, given,
     same_world) = job
    seat = obs["seat"]
    legal = len(world_from_observation(obs, seat, 0).legal_actions())
    rec = {"index": index, "legal": legal, "searches": {}}
    seconds = {}
    world_seed = derive_seed(seed, "convergence", index, "world")
    make = (lambda p: OneWorld(p, world_seed)) if same_world else ISMCTS
    search = make(params)
    for n in budgets:
        row = {}
        t0 = time.perf_counter()
        for tag in ("a", "b"):
            r = search.search(obs, seat, Limits(iterations=n), seed=derive_seed(seed, "convergence", index, tag))
            row[tag] = {"best": r.best, "share": r.candidates[0].visits / r.iterations,
                        "visited": len(r.candidates)}
        seconds[str(n)] = time.perf_counter() - t0
        rec["searches"][str(n)] = row
    search.forget()
    if given is not None:
        rec["referee"] = given
    else:
        referee = make(referee_params)
        t0 = time.perf_counter()
        r = referee.search(obs, seat, Limits(iterations=deep), seed=derive_seed(seed, "convergence", index, "ref"))
        stats = candidate_stats(r)
        ties = referee_ties(stats, tolerance, min_visits)
        ref = {"best": r.best, "ties": ties, "visited": len(stats), "share": stats[0][1] / r.iterations,
               "top": [[format_action(a), v, round(m, 6), round(se, 6)] for a, v, m, se in stats[:TOP_KEPT]]}
        if second:
            referee.forget()
            r2 = referee.search(obs, seat, Limits(iterations=deep),
                                seed=derive_seed(seed, "convergence", index, "ref2"))
            ref["second_best"] = r2.best
        seconds["deep"] = time.perf_counter() - t0
        rec["referee"] = ref
    rec["seconds"] = seconds
    return rec


# ---------------------------------------------------------------- the summary

def _share(hits: list) -> dict:
    n = len(hits)
    share = sum(hits) / n if n else 0.0
    lo, hi = wilson_interval(share, n)
    return {"share": share, "low": lo, "high": hi, "n": n}


def summarise(records: list, budgets: list) -> dict:
    """Return the agreement figures per budget and the referee's, from the positions' records."""
    rows = []
    for i, n in enumerate(budgets):
        key = str(n)
        nxt = str(budgets[i + 1]) if i + 1 < len(budgets) and budgets[i + 1] == 2 * n else None
        cols = {k: [] for k in ("seeds", "seeds_ties", "next_other", "next_other_ties", "next_same",
                                "next_same_ties", "in_ties")}
        shares, visited = [], []
        for rec in records:
            ties = rec["referee"]["ties"]
            a, b = rec["searches"][key]["a"]["best"], rec["searches"][key]["b"]["best"]
            cols["seeds"].append(a == b)
            cols["seeds_ties"].append(agree(a, b, ties))
            cols["in_ties"].append(a in ties)
            if nxt is not None:
                a2, b2 = rec["searches"][nxt]["a"]["best"], rec["searches"][nxt]["b"]["best"]
                cols["next_other"].append(a == b2)
                cols["next_other_ties"].append(agree(a, b2, ties))
                cols["next_same"].append(a == a2)
                cols["next_same_ties"].append(agree(a, a2, ties))
            shares.append(rec["searches"][key]["a"]["share"])
            visited.append(rec["searches"][key]["a"]["visited"])
        row = {"budget": n, "doubled": int(nxt) if nxt else None,
               "choice_visit_share": statistics.mean(shares), "visited": statistics.mean(visited),
               "seconds": sum(rec["seconds"][key] for rec in records)}
        for k, hits in cols.items():
            row[k] = _share(hits) if hits else None
        rows.append(row)
    refs = [rec["referee"] for rec in records]
    ref = {"ties_mean": statistics.mean(len(r["ties"]) for r in refs),
           "ties_median": statistics.median(len(r["ties"]) for r in refs),
           "ties_max": max(len(r["ties"]) for r in refs),
           "one_tie": _share([len(r["ties"]) == 1 for r in refs]),
           "visited_mean": statistics.mean(r["visited"] for r in refs),
           "legal_mean": statistics.mean(rec["legal"] for rec in records),
           "choice_visit_share": statistics.mean(r["share"] for r in refs),
           "seconds": sum(rec["seconds"].get("deep", 0.0) for rec in records)}
    if all("second_best" in r for r in refs):
        ref["second"] = _share([r["second_best"] == r["best"] for r in refs])
        ref["second_ties"] = _share([r["second_best"] in r["ties"] for r in refs])
    return {"rows": rows, "referee": ref}


def _cell(s) -> str:
    return "" if s is None else f"{s['share']:.3f} [{s['low']:.2f}, {s['high']:.2f}]"


def table(summary: dict, deep: int, positions: int) -> str:
    """Return the summary as the tables the command prints."""
    rows, ref = summary["rows"], summary["referee"]
    out = []
    for title, suffix in (("strict: the same decision", ""), ("up to the referee's ties", "_ties")):
        out += [f"Agreement, {title} ({positions} positions; 95% Wilson intervals)",
                f"{'iterations':>10}  {'two seeds at N':<22}  {'N, 2N other seed':<22}  {'N, 2N same seed'}"]
        for r in rows:
            out.append(f"{r['budget']:>10,}  {_cell(r['seeds' + suffix]):<22}  "
                       f"{_cell(r['next_other' + suffix]):<22}  {_cell(r['next_same' + suffix]):<22}".rstrip())
        if "second" in ref:
            note = "the second's choice among the first's ties" if suffix else "the same decision"
            out.append(f"{'referee':>10}  {_cell(ref['second' + suffix]):<22}  "
                       f"(two referees at {deep:,}: {note})")
        out.append("")
    out += [f"The choice at N and the root ({deep:,}-iteration referee)",
            f"{'iterations':>10}  {'among the ties':<22}  {'visit share':>11}  {'decisions visited':>17}  {'search s':>8}"]
    for r in rows:
        out.append(f"{r['budget']:>10,}  {_cell(r['in_ties']):<22}  {r['choice_visit_share']:>11.3f}  "
                   f"{r['visited']:>17.1f}  {r['seconds']:>8.1f}")
    out.append(f"{'referee':>10}  {'':<22}  {ref['choice_visit_share']:>11.3f}  {ref['visited_mean']:>17.1f}  "
               f"{ref['seconds']:>8.1f}")
    out += ["", (f"Referee's ties a position: mean {ref['ties_mean']:.2f}, median {ref['ties_median']:g}, "
                 f"max {ref['ties_max']}; a single decision (no tie) in {_cell(ref['one_tie'])} of the positions; "
                 f"legal decisions a position: mean {ref['legal_mean']:.1f}.")]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the run

def run(positions: list, budgets: list, deep: int, seed: int, params: SearchParams, referee_params: SearchParams,
        tolerance: float, min_visits: int, second: bool = True, jobs: int = 1, given: list | None = None,
        progress=None, same_world: bool = False) -> list:
    """Measure every position (a process pool of `jobs` when above 1); return their records in order."""
    work = [(i, p["observation"], budgets, deep, seed, params, referee_params, tolerance, min_visits, second,
             None if given is None else given[i], same_world) for i, p in enumerate(positions)]
    records = []
    t0 = time.perf_counter()

    def note(rec):
        records.append(rec)
        if progress and (len(records) % 10 == 0 or len(records) == len(work)):
            progress(f"{len(records)}/{len(work)} positions, {time.perf_counter() - t0:.0f} s")

    if jobs <= 1:
        for job in work:
            note(measure_position(job))
    else:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
            for rec in pool.map(measure_position, work):
                note(rec)
    return records


def _given_referee(path: str, sha: str, players: int, count: int, deep: int, tolerance: float,
                   min_visits: int) -> list:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    want = {"positions_sha256": sha, "players": players, "deep": deep, "tolerance": tolerance,
            "min_visits": min_visits}
    for k, v in want.items():
        if doc.get(k) != v:
            raise SystemExit(f"--referee-from {path}: its {k} is {doc.get(k)!r}, this run's {v!r}")
    if len(doc["positions"]) < count:
        raise SystemExit(f"--referee-from {path}: {len(doc['positions'])} positions, {count} wanted")
    return [rec["referee"] for rec in doc["positions"][:count]]


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.convergence", description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2, choices=(2, 4))
    ap.add_argument("--positions", type=int, default=None,
                    help=f"positions measured (default 120), or made with --make-positions (default {MAKE_COUNT})")
    ap.add_argument("--positions-file", default=None, help="default bench/data/convergence-{players}p.json")
    ap.add_argument("--budgets", type=int, nargs="+", default=DEFAULT_BUDGETS)
    ap.add_argument("--deep", type=int, default=None, help="the referee's iterations (default 4x the largest budget)")
    ap.add_argument("--tolerance", type=float, default=0.005,
                    help="referee means closer than this are ties whatever their intervals (default 0.005)")
    ap.add_argument("--min-visits", type=int, default=20,
                    help="a decision the referee visited fewer times is never a tie (default 20)")
    ap.add_argument("--second-referee", action=argparse.BooleanOptionalAction, default=True,
                    help="search each position a second time at --deep to measure the referee (default on)")
    ap.add_argument("--referee-from", default=None, metavar="JSON",
                    help="take the referee's ties from an earlier run's --json instead of searching")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--params", default=None, help="a search params file (search.params.SearchParams.load)")
    ap.add_argument("--referee-params", default=None, help="the referee's params file (default: --params)")
    ap.add_argument("--same-world", action="store_true",
                    help="deal every search of a position the same root world (one seed a position), so that "
                         "the seeds differ only in the iterations: what the world sampled at the root adds")
    ap.add_argument("--json", default=None, metavar="OUT")
    ap.add_argument("--make-positions", action="store_true",
                    help="play the self-play games and write the positions file, then stop")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = ap.parse_args(argv)
    path = args.positions_file or positions_path(args.players)
    progress = None if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))

    if args.make_positions:
        t0 = time.perf_counter()
        doc = make_positions(args.players, args.positions or MAKE_COUNT, args.seed, progress=progress)
        with open(path, "w", encoding="utf-8") as f:
            f.write(dump_positions(doc))
        print(f"{len(doc['positions'])} positions from {doc['games']} games written to {path} "
              f"in {time.perf_counter() - t0:.0f} s")
        return doc

    budgets = sorted(set(args.budgets))
    if budgets[0] < 1:
        raise SystemExit("--budgets: give positive iteration counts")
    deep = args.deep or 4 * budgets[-1]
    doc, sha = load_positions(path)
    if doc["players"] != args.players:
        raise SystemExit(f"{path} holds {doc['players']}-player positions, not {args.players}")
    count = args.positions or 120
    if count > len(doc["positions"]):
        raise SystemExit(f"{path} holds {len(doc['positions'])} positions, {count} asked")
    positions = doc["positions"][:count]
    params = SearchParams.load(args.params) if args.params else SearchParams()
    referee_params = SearchParams.load(args.referee_params) if args.referee_params else params
    given = None
    if args.referee_from:
        given = _given_referee(args.referee_from, sha, args.players, count, deep, args.tolerance, args.min_visits)

    t0 = time.perf_counter()
    records = run(positions, budgets, deep, args.seed, params, referee_params, args.tolerance, args.min_visits,
                  args.second_referee and given is None, args.jobs, given, progress, args.same_world)
    wall = time.perf_counter() - t0
    summary = summarise(records, budgets)
    referee_note = (f"referee from {args.referee_from}" if given is not None else
                    f"referee {deep:,} iterations{', twice' if args.second_referee else ''}")
    print(f"{count} positions of {path} ({args.players} players), budgets {', '.join(f'{b:,}' for b in budgets)}, "
          f"{referee_note}, tolerance {args.tolerance}, min visits {args.min_visits}, seed {args.seed}, "
          f"params {args.params or 'the defaults'}{', one root world a position' if args.same_world else ''}")
    print()
    print(table(summary, deep, count), end="")
    print(f"{wall:.0f} s wall, {args.jobs} job(s)")
    out = {"players": args.players, "positions_file": os.path.relpath(path), "positions_sha256": sha,
           "budgets": budgets, "deep": deep, "tolerance": args.tolerance, "min_visits": args.min_visits,
           "seed": args.seed, "params": args.params, "params_values": params.resolved(args.players).to_dict(),
           "referee_params": args.referee_params, "referee_from": args.referee_from,
           "second_referee": args.second_referee and given is None, "same_world": args.same_world,
           "summary": summary, "seconds": wall, "positions": records}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(dump_positions(out))
    return out


if __name__ == "__main__":
    main()
