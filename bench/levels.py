"""The levels' ladder: each level's Elo against greedy (Elo 0), from matches between near levels, as a table and an SVG.

    python -m bench.levels --seed 28300 \
        --json bench/data/levels-2p.json --svg docs/images/levels-2p.svg --table levels-2p.md

Every pair of the ladder (level k against level k+1 and against level k+2,
and greedy against the levels near it) plays its games through the arena
(seats rotated over paired deals, the pair's seed `--seed` plus its place
in the ladder): 400 between neighbours up to level 6, whose games are
cheap and whose Elo is furthest from greedy's, 300 between greedy and a
level and between those two apart up to level 6, else 300 between
neighbours and 200 two apart (ladder_games; `--games N` plays N a pair).
The Elo of every level is then fitted to all the games at once
(Bradley-Terry by maximum likelihood, greedy held at 0, a draw half a win),
with 95% intervals from the fit's covariance. Each pair also gets its own
Elo and interval, from its direct match alone. A level's decision time is
the median of its decisions' wall times in the ladder's games (one
process, one core), kept as a histogram of 2% bins.

The record (`--json`) is written after every pair and a run adds to it:
`--pairs 9-10,8-9` plays only those (the same games as in a whole run), so
a ladder may be played in parts, and a stopped run goes on where it
stopped (pairs already recorded are not played again). Runs on other cores
may share one record, each with its own `--pairs`: a run adds the rows the
others wrote before writing (under a lock). The table and the picture are
written once every neighbour pair and one pair with greedy are in.
`--replot` plays nothing and writes them again from `--json`. `--try
9=300:0.3:0.02` plays levels with other settings, for the pilot runs that
tune the table (nothing is written).
"""
from __future__ import annotations

import argparse
import fcntl
import functools
import json
import math
import os
import sys
import time

from bench.plot import elo_frame
from search.agent import Limits
from search.arena.runner import run_match
from search.baselines import GreedyAgent
from search.levels import LEVELS, Level, LevelAgent

ANCHOR = "greedy"
# greedy meets the levels whose share against it is not near 0 (level 5 scores a few percent)
GREEDY_PAIRS = (6, 7, 8, 9, 10)
# the games a pair plays: more for the pairs of the cheap low levels, whose Elo is furthest from greedy's
LOW_LEVELS = 6
ELO_CAP = 2000      # where an infinite interval end is drawn; level 1 stands near -1,500


def ladder_pairs() -> list:
    """Return the ladder's pairs: (level k, level k+1), then (level k, level k+2), then (greedy, level) for GREEDY_PAIRS.

    The pairs two levels apart and greedy's many pairs tie each level to the
    anchor by several paths, so the intervals of the levels far from greedy
    stay narrow enough to tell neighbours apart.
    """
    n = len(LEVELS)
    out = [(f"level-{k}", f"level-{k + 1}") for k in range(1, n)]
    out += [(f"level-{k}", f"level-{k + 2}") for k in range(1, n - 1)]
    return out + [(ANCHOR, f"level-{k}") for k in GREEDY_PAIRS]


def ladder_games(a: str, b: str) -> int:
    """Return the games the ladder plays for a pair: 400 between low neighbours, 300 two apart among them, else 300 or 200."""
    if a == ANCHOR:
        return 300
    k, m = int(a.split("-")[1]), int(b.split("-")[1])
    low = m <= LOW_LEVELS
    if m - k == 1:
        return 400 if low else 300
    return 300 if low else 200


def fittable(done: set) -> bool:
    """Return whether the pairs played tie every level to greedy: every neighbour pair and one against greedy."""
    neighbours = [(f"level-{k}", f"level-{k + 1}") for k in range(1, len(LEVELS))]
    return all(p in done for p in neighbours) and any(a == ANCHOR for a, _ in done)


def parse_pairs(text: str) -> list:
    """Return pairs from `3-4,greedy-5` (levels by number)."""
    out = []
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        name = lambda x: ANCHOR if x == ANCHOR else f"level-{int(x)}"  # noqa: E731
        out.append((name(a), name(b)))
    return out


class TimedAgent:
    """Wrap an agent and keep the wall time of each of its decisions."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        self.times: list = []

    def new_game(self, seat, observation):
        self.agent.new_game(seat, observation)

    def apply(self, action, observation):
        self.agent.apply(action, observation)

    def stop(self):
        self.agent.stop()

    def choose(self, limits=None):
        t0 = time.perf_counter()
        try:
            return self.agent.choose(limits)
        finally:
            self.times.append(time.perf_counter() - t0)


DECISION_TIMES: dict = {}      # agent name -> decision wall times in seconds, over this process's games
BIN = math.log(1.02)           # decision-time histogram: bins 2% wide


def histogram(times: list) -> dict:
    """Return {bin: count} of decision times in seconds (bin k holds ms near 1.02 ** k)."""
    out: dict = {}
    for t in times:
        k = str(round(math.log(max(t * 1000, 1e-3)) / BIN))
        out[k] = out.get(k, 0) + 1
    return out


def median_ms(hist: dict) -> float:
    """Return the median of a decision-time histogram, in ms."""
    total = sum(hist.values())
    seen = 0
    for k in sorted(hist, key=int):
        seen += hist[k]
        if 2 * seen >= total:
            return math.exp(int(k) * BIN)
    return math.nan


TRIED: dict = {}      # level number -> a Level tried instead of the table's (--try, pilot runs while tuning)


def _timed(name: str, seed: int):
    if name == ANCHOR:
        agent = GreedyAgent(seed)
    else:
        number = int(name.split("-")[1])
        agent = LevelAgent(seed, level=TRIED.get(number, number))
    timed = TimedAgent(agent)
    timed.times = DECISION_TIMES.setdefault(name, [])
    return timed


def play_pair(a: str, b: str, games: int, seed: int) -> dict:
    """Play one pair of the ladder in this process; return its row: games, a's pairwise share, points, Elo a - b, times."""
    DECISION_TIMES.clear()
    res = run_match({a: functools.partial(_timed, a), b: functools.partial(_timed, b)}, games, 2, seed,
                    limits=Limits(), jobs=1)
    forfeits = [g.forfeit for g in res.games if g.forfeit]
    if forfeits:
        raise SystemExit(f"{a} - {b}: {len(forfeits)} forfeit(s), the first: {forfeits[0]}")
    share, n = res.pair_score(a, b)
    elo, lo, hi = res.elo(a, b)
    points = share * n
    return {"a": a, "b": b, "seed": seed, "games": n, "share": share, "points_a": points, "elo": elo, "low": lo,
            "high": hi, "times": {nm: histogram(ts) for nm, ts in DECISION_TIMES.items()}}


def fit_elo(rows: list, anchor: str = ANCHOR) -> dict:
    """Return {name: (Elo, low, high)}: Bradley-Terry over every pair's points, the anchor at 0, 95% from the covariance."""
    names = sorted(({r["a"] for r in rows} | {r["b"] for r in rows}) - {anchor},
                   key=lambda nm: int(nm.split("-")[1]))
    idx = {nm: i for i, nm in enumerate(names)}
    k = len(names)
    theta = [0.0] * k                 # natural log-odds units
    scale = 400.0 / math.log(10.0)

    def strength(nm):
        return 0.0 if nm == anchor else theta[idx[nm]]

    for _ in range(200):              # Newton's method on the log-likelihood
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for r in rows:
            d = strength(r["a"]) - strength(r["b"])
            p = 1.0 / (1.0 + math.exp(-d))
            g = r["points_a"] - r["games"] * p
            w = r["games"] * p * (1 - p)
            for nm, sign in ((r["a"], 1), (r["b"], -1)):
                if nm == anchor:
                    continue
                grad[idx[nm]] += sign * g
                for nm2, sign2 in ((r["a"], 1), (r["b"], -1)):
                    if nm2 != anchor:
                        hess[idx[nm]][idx[nm2]] += sign * sign2 * w
        for i in range(k):
            hess[i][i] += 1e-9        # a pair won 100% has no finite maximum: keep the system solvable
        step = _solve(hess, grad)
        step = [max(-2.0, min(2.0, s)) for s in step]
        theta = [t + s for t, s in zip(theta, step)]
        if max(abs(s) for s in step) < 1e-9:
            break
    cov = _inverse(hess)
    return {nm: (theta[i] * scale, (theta[i] - 1.96 * math.sqrt(cov[i][i])) * scale,
                 (theta[i] + 1.96 * math.sqrt(cov[i][i])) * scale) for nm, i in idx.items()}


def _solve(a: list, b: list) -> list:
    """Return x with a x = b (Gaussian elimination, partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def _inverse(a: list) -> list:
    n = len(a)
    cols = [_solve(a, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def _fmt(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{round(x):+d}"


def table(doc: dict) -> str:
    """Return the ladder as Markdown: each level's Elo against greedy with its interval, games, median decision time; then the steps."""
    fit = doc["fit"]
    games = {}
    for r in doc["rows"]:
        for nm in (r["a"], r["b"]):
            games[nm] = games.get(nm, 0) + r["games"]
    out = [f"2 players, seed {doc['seed']} (plus the pair's place in the ladder), {games_text(doc)}; Elo against "
           "greedy (0) fitted to every pair at once, 95% interval.", "",
           "| level | iterations | temperature | oversight | Elo vs greedy | 95% interval | games | "
           "decision time (median ms) |",
           "|---:|---:|---:|---:|---:|---|---:|---:|"]
    for lv in doc["levels"]:
        nm = f"level-{lv['level']}"
        elo, lo, hi = fit[nm]
        ms = decision_ms(doc).get(nm)
        out.append(f"| {lv['level']} | {lv['iterations']:,} | {lv['temperature']:g} | {lv['oversight']:g} | "
                   f"{_fmt(elo)} | [{_fmt(lo)}, {_fmt(hi)}] | {games.get(nm, 0)} | "
                   f"{'' if ms is None else f'{ms:.1f}'} |")
    out += ["", "| pair | games | share of the first | Elo first - second | 95% interval |",
            "|---|---:|---:|---:|---|"]
    for r in doc["rows"]:
        out.append(f"| {r['a']} - {r['b']} | {r['games']} | {r['share']:.3f} | {_fmt(r['elo'])} | "
                   f"[{_fmt(r['low'])}, {_fmt(r['high'])}] |")
    out += ["", verdict(doc)]
    return "\n".join(out) + "\n"


def games_text(doc: dict) -> str:
    """Return how many games the pairs played: "200 games a pair", or each count with its pairs."""
    counts: dict = {}
    for r in doc["rows"]:
        counts.setdefault(r["games"], []).append(f"{r['a'].replace('level-', '')}-{r['b'].replace('level-', '')}")
    if len(counts) == 1:
        return f"{next(iter(counts))} games a pair"
    return "; ".join(f"{n} games: {', '.join(pairs)}" for n, pairs in sorted(counts.items(), reverse=True))


def verdict(doc: dict) -> str:
    """Return the sentence saying whether neighbours stand >= 100 Elo apart with intervals that do not overlap."""
    fit = doc["fit"]
    gaps, overlaps = [], []
    for k in range(1, len(doc["levels"])):
        a, b = fit[f"level-{k}"], fit[f"level-{k + 1}"]
        gaps.append((k, b[0] - a[0]))
        if b[1] <= a[2]:
            overlaps.append(k)
    small = [f"{k}-{k + 1} ({_fmt(g)})" for k, g in gaps if g < 100]
    text = f"Smallest step {min(g for _, g in gaps):+.0f} Elo. "
    text += ("Every step is at least 100 Elo. " if not small else f"Steps under 100 Elo: {', '.join(small)}. ")
    text += ("No two neighbours' intervals overlap." if not overlaps else
             "Neighbours whose intervals overlap: " + ", ".join(f"{k}-{k + 1}" for k in overlaps) + ".")
    return text


def svg(doc: dict) -> str:
    """Return an SVG of each level's Elo against greedy with its 95% bar, greedy's 0 dashed."""
    fit = doc["fit"]
    levels = [lv["level"] for lv in doc["levels"]]
    clip = lambda v: max(-ELO_CAP, min(ELO_CAP, v))  # noqa: E731
    frame = elo_frame(levels, [clip(v) for lv in levels for v in fit[f"level-{lv}"]],
                      f'Levels, 2 players: Elo against greedy (95% intervals, seed {doc["seed"]})',
                      "level", "Elo against greedy", zero_label="greedy")
    pts = []
    for lv in levels:
        elo, lo, hi = fit[f"level-{lv}"]
        cx = frame.px(lv)
        frame.x_tick(lv, str(lv))
        frame.lines.append(f'<line x1="{cx:.1f}" y1="{frame.py(clip(lo)):.1f}" x2="{cx:.1f}" '
                           f'y2="{frame.py(clip(hi)):.1f}" stroke="#3366aa" stroke-width="2"/>')
        frame.lines.append(f'<circle cx="{cx:.1f}" cy="{frame.py(clip(elo)):.1f}" r="4" fill="#3366aa"/>')
        pts.append(f"{cx:.1f},{frame.py(clip(elo)):.1f}")
    frame.lines.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="#3366aa"/>')
    return frame.finish()


def decision_ms(doc: dict) -> dict:
    """Return {agent: median decision ms} over every row's games."""
    pooled: dict = {}
    for r in doc["rows"]:
        for nm, hist in r["times"].items():
            into = pooled.setdefault(nm, {})
            for k, n in hist.items():
                into[k] = into.get(k, 0) + n
    return {nm: median_ms(h) for nm, h in pooled.items()}


def finish(doc: dict) -> dict:
    """Fill the doc's fit from its rows, in the ladder's order."""
    order = {pair: i for i, pair in enumerate(ladder_pairs())}
    doc["rows"].sort(key=lambda r: order.get((r["a"], r["b"]), len(order)))
    doc["fit"] = {nm: list(v) for nm, v in fit_elo(doc["rows"]).items()}
    return doc


def load_doc(path: str, settings: dict) -> dict:
    """Return the record at path to add to (a fresh one if none); refuse one made with other settings."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        return {**settings, "rows": []}
    mine = {k: doc.get(k) for k in settings}
    if mine != settings:
        raise SystemExit(f"--json {path}: made with other settings ({mine}), not {settings}")
    return doc


def save_doc(path: str, doc: dict) -> None:
    """Write the record, first adding the rows another run wrote to it meanwhile (runs on other cores share one record)."""
    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(path) as f:
                theirs = json.load(f)
        except FileNotFoundError:
            theirs = {"rows": []}
        mine = {(r["a"], r["b"]) for r in doc["rows"]}
        doc["rows"] += [r for r in theirs.get("rows", []) if (r["a"], r["b"]) not in mine]
        with open(path + ".part", "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(path + ".part", path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.levels", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, help="games each pair plays (default the ladder's: 200 to 400 a pair, "
                                              "ladder_games)")
    ap.add_argument("--seed", type=int, default=28100)
    ap.add_argument("--jobs", type=int, default=1, choices=(1,), help="one process: the decision times are one core's")
    ap.add_argument("--pairs", help="only these pairs, e.g. 3-4,greedy-5 (pilot runs)")
    ap.add_argument("--try", dest="tried", metavar="LIST",
                    help="pilot runs: play some levels with other settings, e.g. 9=300:0.3:0.02 "
                         "(iterations:temperature:oversight), comma-separated; nothing is written")
    ap.add_argument("--json", help="write (or with --replot read) the run's record here")
    ap.add_argument("--svg", help="write the picture here")
    ap.add_argument("--table", help="write the Markdown table here (else standard output)")
    ap.add_argument("--replot", action="store_true", help="play nothing: table and picture from --json")
    args = ap.parse_args(argv)
    if args.replot:
        if not args.json:
            ap.error("--replot needs --json")
        with open(args.json) as f:
            doc = finish(json.load(f))
    else:
        for item in (args.tried.split(",") if args.tried else []):
            number, _, spec = item.partition("=")
            its, temp, over = spec.split(":")
            TRIED[int(number)] = Level(int(number), int(its), float(temp), float(over))
        ladder = ladder_pairs()
        pairs = parse_pairs(args.pairs) if args.pairs else ladder
        # --games may differ between the runs that fill one record: each row keeps its own count
        settings = {"format": "tne-ai-levels-1", "players": 2, "seed": args.seed,
                    "levels": [vars(lv) for lv in LEVELS]}
        keep = args.json is not None and not TRIED
        doc = load_doc(args.json, settings) if keep else {**settings, "rows": []}
        t0 = time.time()
        for a, b in pairs:
            if any((r["a"], r["b"]) == (a, b) for r in doc["rows"]):
                print(f"{a} - {b}: already in {args.json}", flush=True)
                continue
            # a pair's seed is its place in the ladder: a run in parts plays the same games as a whole one
            place = ladder.index((a, b)) if (a, b) in ladder else 1000 + len(doc["rows"])
            row = play_pair(a, b, args.games or ladder_games(a, b), args.seed + place)
            doc["rows"].append(row)
            ms = {nm: f"{median_ms(h):.1f}" for nm, h in row["times"].items()}
            print(f"{a} - {b}: {row['games']} games, share {row['share']:.3f}, Elo {_fmt(row['elo'])} "
                  f"[{_fmt(row['low'])}, {_fmt(row['high'])}], median ms {ms} ({time.time() - t0:.0f}s)",
                  flush=True)
            if keep:
                save_doc(args.json, doc)
        if keep:
            save_doc(args.json, doc)         # with the rows other runs wrote since this one's last pair
        done = {(r["a"], r["b"]) for r in doc["rows"]}
        missing = [f"{a}-{b}" for a, b in ladder if (a, b) not in done]
        if missing and keep:
            print(f"not yet in {args.json}: {', '.join(missing)}")
        if not keep or not fittable(done):
            return 0
        finish(doc)
        save_doc(args.json, doc)
    text = table(doc)
    if args.table:
        with open(args.table, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
