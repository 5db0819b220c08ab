"""Elo against budget: ISMCTS at growing iteration budgets against one fixed opponent, or each budget against half of it, as a table and an SVG.

Each budget plays `--games` games (seats rotated over paired deals, the
arena's rules) against the opponent; the Elo is the arena's, from the
pairwise score share with its 95% interval. With 3 or 4 players the lineup
is one ISMCTS against copies of the opponent. `--opponent half` is
self-play: each budget against the same search at half the budget, so each
row is what that doubling is worth; `--agent twin-hands` draws the curve of
the twin told the other hands (search.twins) instead.

    python -m bench.elo_curve --players 2 --budgets 1000,2000,4000,8000 --games 200 --opponent half \
        --jobs 2 --rows rows.json --svg curve.svg

    python -m bench.elo_curve --players 2 --budgets 250,500,1000,2000,4000 --games 40 \\
        --opponent greedy --jobs 2 --svg docs/images/elo-2p.svg --table elo-2p.md

A budget's games depend only on the seed, not on the other budgets, so the
budgets of one curve may run apart (`--rows FILE` keeps each run's rows and
draws the table and the plot from all of them; `--replot` plays nothing and
draws them again).

What a doubling is worth is read from all the budgets at once: a straight
line of Elo on log2(iterations), fitted by weighted least squares, each
point weighted by its own interval. One step between neighbours has the
noise of two points; the fitted slope has far less (with 7 budgets and
equal intervals, its standard error is the points' divided by about 5.3).
"""
from __future__ import annotations

import argparse
import functools
import json
import math
import os
import sys
import time

from bench.plot import LEFT, RIGHT, TOP, WIDTH, elo_frame
from search.agent import Limits
from search.arena.runner import AGENTS, run_match
from search.arena.backends import make_backend
from search.ismcts import ISMCTSAgent
from search.params import SearchParams

ELO_CAP = 800           # a share of 0 or 1 has an infinite Elo: drawn at the edge, marked
RUN_COLOURS = ("#3366aa", "#229955", "#884499", "#cc5522", "#777777")


def opponent_factory(spec: str):
    """Return (name, factory) for `greedy`, `random` or `ismcts:N` (ISMCTS at N iterations)."""
    kind, _, n = spec.partition(":")
    if kind == "ismcts" and n:
        return f"ismcts-{int(n)}-opp", functools.partial(ISMCTSAgent, limits=Limits(iterations=int(n)))
    if kind not in AGENTS or kind == "ismcts":
        raise SystemExit(f"--opponent: give greedy, random or ismcts:N, not {spec!r}")
    return kind, AGENTS[kind]


SEARCH_AGENTS = ("ismcts", "twin-hands", "twin-all")


def curve(budgets: list, opponent: str, players: int, games: int, seed: int, jobs: int, progress=None,
          params: SearchParams = None, agent: str = "ismcts", record_dir: str = None, resume: bool = False) -> list:
    """Play every budget against the opponent (or half the budget); return rows (budget, games, share, elo, lo, hi, seconds).

    `record_dir`: each budget's games are recorded in a folder of it named
    after the budget; with `resume` the games already recorded there are
    read back, not played, so a long step can be stopped and go on later
    (a row's seconds are then those of the last run only).
    """
    if agent not in SEARCH_AGENTS:
        raise SystemExit(f"--agent: give one of {', '.join(SEARCH_AGENTS)}, not {agent!r}")
    if opponent != "half":
        opp_name, opp = opponent_factory(opponent)
    backend = make_backend("process", jobs, None)
    rows = []
    kwargs = {"params": params} if params is not None else {}
    searcher = ISMCTSAgent if agent == "ismcts" else AGENTS[agent]
    try:
        for b in budgets:
            name = f"{agent}-{b}"
            if opponent == "half":
                if b < 2:
                    raise SystemExit(f"budget {b}: half of it is no budget")
                opp_name = f"{agent}-{b // 2}"
                opp = functools.partial(searcher, limits=Limits(iterations=b // 2), **kwargs)
            agents = {name: functools.partial(searcher, limits=Limits(iterations=b), **kwargs),
                      opp_name: opp}
            t0 = time.perf_counter()
            step_dir = os.path.join(record_dir, f"{name}-vs-{opp_name}") if record_dir else None
            try:
                res = run_match(agents, games, players, seed, lineup=[name] + [opp_name] * (players - 1),
                                jobs=jobs, backend=backend, record_dir=step_dir, resume=resume,
                                settings={"curve": {"agent": agent, "opponent": opponent, "budget": b,
                                                    "params": params.to_dict() if params is not None else None}})
            except ValueError as e:         # a record folder of another match, or records a resume would mix
                raise SystemExit(f"{name}: {e}")
            lost = [g.forfeit for g in res.games if g.forfeit]
            if lost:
                # a forfeit measures a failure, not strength: no row is better than a wrong one
                raise SystemExit(f"{name}: {len(lost)} forfeit(s), the first: {lost[0]}")
            share, _ = res.pair_score(name, opp_name)
            elo, lo, hi = res.elo(name, opp_name)
            rows.append((b, len(res.games), share, elo, lo, hi, time.perf_counter() - t0))
            if progress:
                progress(rows[-1])
    finally:
        backend.close()
    return rows


def _fmt(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{round(x):+d}"


def doubling_fit(rows: list, half: bool = False):
    """Return the Elo a doubling of the budget is worth, fitted over the rows, with its 95% interval (None below 2 points).

    Weighted least squares of Elo on log2(iterations). Each point weighs
    1/se², se being its 95% interval's width / (2 · 1.96) (the arena's
    intervals are nearly symmetric away from shares of 0 and 1); points
    with an infinite end are left out. With `half` (each row a budget
    against half of it) every row is a doubling's Elo: the fit is their
    weighted mean (from one row on), the slope returned as 0.
    """
    pts = [(math.log2(b), elo, (hi - lo) / (2 * 1.96)) for b, _, _, elo, lo, hi, _ in rows
           if math.isfinite(lo) and math.isfinite(hi) and hi > lo]
    if half:
        if not pts:
            return None
        w = [1.0 / se ** 2 for _, _, se in pts]
        mean = sum(wi * y for wi, (_, y, _) in zip(w, pts)) / sum(w)
        half_width = 1.96 / math.sqrt(sum(w))
        return mean, mean - half_width, mean + half_width, 0.0
    if len({x for x, _, _ in pts}) < 2:
        return None
    w = [1.0 / se ** 2 for _, _, se in pts]
    x_mean = sum(wi * x for wi, (x, _, _) in zip(w, pts)) / sum(w)
    sxx = sum(wi * (x - x_mean) ** 2 for wi, (x, _, _) in zip(w, pts))
    slope = sum(wi * (x - x_mean) * y for wi, (x, y, _) in zip(w, pts)) / sxx
    half = 1.96 / math.sqrt(sxx)
    intercept = sum(wi * y for wi, (_, y, _) in zip(w, pts)) / sum(w) - slope * x_mean
    return slope, slope - half, slope + half, intercept


def fit_line(rows: list, half: bool = False) -> str:
    """Return the sentence that states doubling_fit's result."""
    fit = doubling_fit(rows, half)
    if fit is None:
        return "Fewer than two budgets with finite intervals: no fit."
    slope, lo, hi, _ = fit
    if half:
        return (f"Over the doublings: {slope:+.0f} Elo a doubling, 95% [{lo:+.0f}, {hi:+.0f}] "
                "(the rows' Elo weighted by their intervals).")
    return (f"Fitted over the budgets: {slope:+.0f} Elo a doubling, 95% [{lo:+.0f}, {hi:+.0f}] "
            "(weighted least squares of Elo on log2 iterations).")


def table(rows: list, opponent: str, players: int, seed: int, agent: str = "ismcts") -> str:
    """Return the rows as a Markdown table, with the Elo gained per doubling of the budget and the fitted slope."""
    if opponent == "half":
        out = [f"{agent} against itself at half the budget, {players} players, seed {seed}; Elo of each "
               "budget against half of it, from the pairwise score share (95% interval).", "",
               "| iterations | against | games | pairwise share | Elo a doubling | 95% interval | wall s |",
               "|---:|---:|---:|---:|---:|---|---:|"]
        for b, n, share, elo, lo, hi, secs in rows:
            out.append(f"| {b:,} | {b // 2:,} | {n} | {share:.3f} | {_fmt(elo)} | [{_fmt(lo)}, {_fmt(hi)}] | "
                       f"{secs:.0f} |")
        return "\n".join(out + ["", fit_line(rows, half=True)]) + "\n"
    out = [f"{agent} against {opponent}, {players} players, seed {seed}; Elo from the pairwise score share "
           "(95% interval).", "",
           "| iterations | games | pairwise share | Elo | 95% interval | Elo per doubling from the previous | wall s |",
           "|---:|---:|---:|---:|---|---:|---:|"]
    prev_of = {}            # pooled runs (rows of other game counts) step within their own run
    for b, n, share, elo, lo, hi, secs in rows:
        step = ""
        prev = prev_of.get(n)
        if prev is not None and b > prev[0] and math.isfinite(elo) and math.isfinite(prev[1]):
            step = f"{(elo - prev[1]) / math.log2(b / prev[0]):+.0f}"
        out.append(f"| {b:,} | {n} | {share:.3f} | {_fmt(elo)} | [{_fmt(lo)}, {_fmt(hi)}] | {step} | {secs:.0f} |")
        prev_of[n] = (b, elo)
    out += ["", fit_line(rows)]
    return "\n".join(out) + "\n"


def svg(rows: list, title: str, half: bool = False, series: list = None) -> str:
    """Return an SVG plot of Elo against log2(iterations), with 95% bars (infinite ends drawn at the cap).

    `series`: [(label, rows)], curves drawn side by side in one picture,
    each with its own colour, legend and fit (`rows` is then ignored);
    without it, rows of other game counts are other runs of one pooled file,
    drawn apart under one fit.
    """
    pooled = series is None
    if pooled:
        runs = sorted({r[1] for r in rows})
        series = [(f"{n} games a budget" if len(runs) > 1 else "", [r for r in rows if r[1] == n]) for n in runs]
    every = [r for _, rs in series for r in rs]
    xs = [math.log2(r[0]) for r in every]
    clip = lambda v: max(-ELO_CAP, min(ELO_CAP, v))  # noqa: E731
    frame = elo_frame(xs, [clip(v) for r in every for v in (r[3], r[4], r[5])], title,
                      "iterations per decision (log scale)",
                      "Elo against half the budget" if half else "Elo against the opponent")
    out, px, py = frame.lines, frame.px, frame.py
    W, R, T, L = WIDTH, RIGHT, TOP, LEFT
    for x in sorted(set(xs)):
        frame.x_tick(x, f"{2 ** x:,.0f}")
    for k, (label, rs) in enumerate(series):
        colour = RUN_COLOURS[k % len(RUN_COLOURS)]
        dx = (k - (len(series) - 1) / 2) * 6      # set a little apart, so bars at one budget do not hide each other
        pts = []
        for r in rs:
            cx = px(math.log2(r[0])) + dx
            out.append(f'<line x1="{cx:.1f}" y1="{py(clip(r[4])):.1f}" x2="{cx:.1f}" y2="{py(clip(r[5])):.1f}" '
                       f'stroke="{colour}" stroke-width="2"/>')
            pts.append(f"{cx:.1f},{py(clip(r[3])):.1f}")
            capped = not math.isfinite(r[3])
            out.append(f'<circle cx="{cx:.1f}" cy="{py(clip(r[3])):.1f}" r="4" '
                       f'fill="{"white" if capped else colour}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="{colour}"/>')
        fit = None if pooled else doubling_fit(rs, half)
        if half and fit is not None:
            out.append(f'<line x1="{L}" y1="{py(fit[0]):.1f}" x2="{W - R}" y2="{py(fit[0]):.1f}" stroke="{colour}" '
                       'stroke-width="1" stroke-dasharray="6 4"/>')
        if label:
            worth = "" if fit is None else f": {fit[0]:+.0f} Elo a doubling [{fit[1]:+.0f}, {fit[2]:+.0f}]"
            out.append(f'<text x="{L + 10}" y="{T + 14 + 16 * k}" fill="{colour}">{label}{worth}</text>')
    fit = doubling_fit(rows, half) if pooled else None
    if fit is not None and half:
        mean, lo, hi, _ = fit
        out.append(f'<line x1="{L}" y1="{py(mean):.1f}" x2="{W - R}" y2="{py(mean):.1f}" stroke="#cc5522" '
                   'stroke-width="2" stroke-dasharray="6 4"/>')
        out.append(f'<text x="{W - R - 4}" y="{T + 14}" text-anchor="end" fill="#cc5522">over the doublings: '
                   f'{mean:+.0f} Elo a doubling [{lo:+.0f}, {hi:+.0f}]</text>')
    elif fit is not None:
        slope, lo, hi, icpt = fit
        ends = [(x, clip(icpt + slope * x)) for x in (min(xs), max(xs))]
        out.append(f'<line x1="{px(ends[0][0]):.1f}" y1="{py(ends[0][1]):.1f}" x2="{px(ends[1][0]):.1f}" '
                   f'y2="{py(ends[1][1]):.1f}" stroke="#cc5522" stroke-width="2" stroke-dasharray="6 4"/>')
        out.append(f'<text x="{W - R - 4}" y="{T + 14}" text-anchor="end" fill="#cc5522">fitted: '
                   f'{slope:+.0f} Elo a doubling [{lo:+.0f}, {hi:+.0f}]</text>')
    return frame.finish()


def load_rows(path: str, settings: dict) -> list:
    """Return the rows a --rows file holds (none if it does not exist); refuse one made with other settings."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        return []
    if doc.get("settings") != settings:
        raise SystemExit(f"--rows {path}: made with other settings ({doc.get('settings')}), not {settings}")
    return [tuple(r) for r in doc["rows"]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.elo_curve", description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--budgets", default="250,500,1000,2000,4000,8000,16000")
    ap.add_argument("--opponent", default="greedy",
                    help="greedy, random, ismcts:N, or half: each budget against the same agent at half of it")
    ap.add_argument("--agent", default="ismcts", choices=SEARCH_AGENTS,
                    help="the search whose curve is drawn (a twin is told hidden tiles: measurement only)")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=2050)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--svg", help="write the plot here")
    ap.add_argument("--table", help="write the Markdown table here")
    ap.add_argument("--params", help="params file of the ISMCTS (default: the defaults)")
    ap.add_argument("--rows", action="append",
                    help="JSON file of rows: the table and plot also show the rows it holds (same settings, other "
                         "budgets), and it is rewritten with all of them; with --replot, give it again for each "
                         "curve to draw in one picture")
    ap.add_argument("--label", action="append",
                    help="with --replot of several --rows files: each curve's name in the picture, in their order "
                         "(default: its agent)")
    ap.add_argument("--record-dir", help="record each budget's games in a folder of this one (named after the budget)")
    ap.add_argument("--resume", action="store_true",
                    help="with --record-dir: read back the games already recorded there and play only the rest")
    ap.add_argument("--replot", action="store_true",
                    help="play nothing: print the table (and write the plot) of the --rows file as it is")
    args = ap.parse_args(argv)
    if args.replot:
        if not args.rows:
            ap.error("--replot needs the --rows file to draw")
        if args.label and len(args.label) != len(args.rows):
            ap.error(f"--label: {len(args.label)} given for {len(args.rows)} --rows files")
        curves = []
        for path in args.rows:
            try:
                with open(path) as f:
                    doc = json.load(f)
                settings, rows = doc["settings"], [tuple(r) for r in doc["rows"]]
                opponent, players, seed = settings["opponent"], settings["players"], settings["seed"]
                agent = settings.get("agent", "ismcts")
                if not rows or any(len(r) != 7 or not all(isinstance(x, (int, float)) for x in r) for r in rows):
                    raise ValueError("each row holds 7 numbers: budget, games, share, Elo, low, high, seconds")
            except (OSError, ValueError, KeyError, TypeError) as e:
                ap.error(f"--rows {path}: not a rows file ({e})")
            curves.append((agent, rows, opponent, players, seed))
        if len(curves) == 1:
            args.agent = curves[0][0]
            return _report(*curves[0][1:], args)
        if len({(c[2], c[3]) for c in curves}) > 1:
            ap.error("--rows: the curves of one picture need one opponent and one player count")
        text = "\n".join(table(rows, opponent, players, seed, agent) for agent, rows, opponent, players, seed in curves)
        print(text)
        if args.table:
            with open(args.table, "w") as f:
                f.write(text)
        if args.svg:
            labels = args.label or [c[0] for c in curves]
            opponent, players = curves[0][2], curves[0][3]
            half = opponent == "half"
            title = (f"each budget against half of it, {players} players" if half
                     else f"against {opponent}, {players} players")
            with open(args.svg, "w") as f:
                f.write(svg([], title, half, series=[(label, c[1]) for label, c in zip(labels, curves)]))
        return 0
    if args.rows and len(args.rows) > 1:
        ap.error("--rows: give one file to play into (several are for --replot)")
    args.rows = args.rows[0] if args.rows else None
    budgets = [int(b) for b in args.budgets.split(",")]
    if args.resume and not args.record_dir:
        ap.error("--resume needs the --record-dir of the run to go on with")
    params = SearchParams.load(args.params) if args.params else None
    settings = {"opponent": args.opponent, "players": args.players, "games": args.games, "seed": args.seed,
                "params": params.to_dict() if params else None}
    if args.agent != "ismcts":              # rows files of the search keep their settings as they were
        settings["agent"] = args.agent
    kept = load_rows(args.rows, settings) if args.rows else []
    rows = curve(budgets, args.opponent, args.players, args.games, args.seed, args.jobs,
                 progress=lambda r: print(f"{r[0]:>6} iterations: {r[1]} games, share {r[2]:.3f}, "
                                          f"Elo {_fmt(r[3])} [{_fmt(r[4])}, {_fmt(r[5])}], {r[6]:.0f}s", flush=True),
                 params=params, agent=args.agent, record_dir=args.record_dir, resume=args.resume)
    rows = sorted({r[0]: r for r in kept + rows}.values())
    if args.rows:
        with open(args.rows, "w") as f:
            json.dump({"settings": settings, "rows": rows}, f, indent=1)
    return _report(rows, args.opponent, args.players, args.seed, args)


def _report(rows: list, opponent: str, players: int, seed: int, args) -> int:
    """Print the table; write it and the plot where asked."""
    text = table(rows, opponent, players, seed, args.agent)
    print(text)
    if args.table:
        with open(args.table, "w") as f:
            f.write(text)
    if args.svg:
        with open(args.svg, "w") as f:
            half = opponent == "half"
            title = (f"{args.agent} against itself at half the budget, {players} players" if half
                     else f"ISMCTS against {opponent}, {players} players")
            f.write(svg(rows, title, half))
    return 0


if __name__ == "__main__":
    sys.exit(main())
