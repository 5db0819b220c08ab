"""`tne-ai tune`: tune the search's parameters (SPSA over game pairs) or the evaluation's weights (Texel).

Both write a params file (search.params) that `tne-ai bot --params`,
`tne-ai analyze --params` and the tuners themselves (`--params`, the start)
read. docs/tuning.md says how to run them and what the numbers mean.
"""
from __future__ import annotations

import glob
import os
import time

import click
from click.core import ParameterSource

from engine.errors import EngineError
from ext.search.evaluation import HIDDEN_MAX
from search.agent import SearchError
from search.params import SearchParams
from tne_ai.inputs import InputError, backend_options, variants_option

MAX_RECORD_BYTES = 16 << 20


@click.group("tune", context_settings={"help_option_names": ["-h", "--help"]})
def tune_command():
    """Tune the search: SPSA over SearchParams fields, or Texel fitting of the evaluation weights."""


def _load_base(path):
    try:
        return SearchParams.load(path) if path else SearchParams()
    except SearchError as e:
        raise InputError(str(e)) from None


def _save(params: SearchParams, path: str, comment: str) -> None:
    try:
        params.save(path, comment=comment)
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None


# ---------------------------------------------------------------- SPSA

# the settings a checkpoint holds: with --resume they come from there
SPSA_SETTINGS = ("param", "params", "pairs", "budget", "players", "board", "variants", "seed", "a", "c",
                 "stability")


@tune_command.command("spsa")
@click.option("--param", "param", multiple=True, metavar="NAME:LOW:HIGH:STEP",
              help="A SearchParams field to tune, its bounds and step (the perturbation at the start), "
                   "e.g. exploration:0.2:2.0:0.1. Repeatable.")
@click.option("--params", metavar="FILE", help="Params file to start from (the untuned fields stay as it says).")
@click.option("--iterations", type=click.IntRange(1, 1_000_000), default=20, show_default=True,
              help="SPSA iterations in all (with --resume: may be raised to go on).")
@click.option("--pairs", type=click.IntRange(1, 10_000), default=1, show_default=True,
              help="Game pairs per iteration (two games on one deal, sides swapped).")
@click.option("--budget", type=click.IntRange(1, 10_000_000), default=200, show_default=True,
              help="ISMCTS iterations per decision.")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--board", type=click.Choice(["standard", "advanced"]), default="standard", show_default=True)
@variants_option("The 2015 variants every game is played with.")
@click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=0, show_default=True,
              help="Seed of the signs, the deals and the agents: the same seed, the same run.")
@click.option("--a", "a", type=float, help="Gain a (default c * (A + 1)^0.602: half a step for a won first iteration).")
@click.option("--c", "c", type=float, default=1.0, show_default=True, help="Perturbation c, in steps.")
@click.option("--stability", type=float, help="Spall's stability constant A (default iterations / 10).")
@click.option("--checkpoint", metavar="FILE", help="Checkpoint written after every iteration "
              "(default spsa-checkpoint.json; with --resume, the resumed file).")
@click.option("--resume", metavar="CHECKPOINT", help="Go on from a checkpoint, with its settings.")
@click.option("--out", metavar="FILE", default="tuned-params.json", show_default=True,
              help="Params file written at the end (theta).")
@backend_options
@click.option("--quiet", is_flag=True, help="No line per iteration.")
@click.pass_context
def spsa_command(ctx, param, params, iterations, pairs, budget, players, board, variants, seed, a, c, stability,
                 checkpoint, resume, out, jobs, backend, ray_address, quiet):
    """Tune SearchParams fields by SPSA: game pairs of theta + c*delta against theta - c*delta."""
    from search.arena.backends import make_backend
    from search.tuning.spsa import Spsa, SpsaConfig, TunedField, describe
    try:
        if resume:
            given = [n for n in SPSA_SETTINGS if ctx.get_parameter_source(n) == ParameterSource.COMMANDLINE]
            if given:
                raise InputError(f"--resume takes the settings from the checkpoint; leave out "
                                 f"--{given[0].replace('_', '-')}")
            run = Spsa.resume(resume)
            if ctx.get_parameter_source("iterations") == ParameterSource.COMMANDLINE:
                if iterations < run.k:
                    raise InputError(f"--iterations {iterations}: the checkpoint has done {run.k} already")
                run.config.iterations = iterations
            checkpoint = checkpoint or resume
        else:
            if not param:
                raise InputError("name a field to tune: --param NAME:LOW:HIGH:STEP, e.g. exploration:0.2:2.0:0.1")
            config = SpsaConfig(tuple(TunedField.parse(p) for p in param), _load_base(params), iterations,
                                pairs, budget, players, board, variants or (), seed, a, c, stability)
            run = Spsa(config)
            checkpoint = checkpoint or "spsa-checkpoint.json"
        if run.k >= run.config.iterations and not quiet:
            click.echo(f"the checkpoint has done all {run.config.iterations} iterations")
        t0 = time.time()

        def progress(entry):
            if not quiet:
                click.echo(describe(entry, run.config.fields, run.config.iterations)
                           + f" ({time.time() - t0:.0f}s)")

        with make_backend(backend, jobs, ray_address) as runner:
            tuned = run.run(runner, checkpoint, progress)
    except SearchError as e:
        raise InputError(str(e)) from None
    except (ValueError, RuntimeError) as e:      # a bad backend choice, Ray missing
        raise InputError(str(e)) from None
    except OSError as e:
        raise InputError(f"cannot write the checkpoint {checkpoint}: {e.strerror or e}") from None
    _save(tuned, out, f"SPSA, {run.k} iterations of {', '.join(f.name for f in run.config.fields)}")
    click.echo(" ".join(f"{f.name}={getattr(tuned, f.name)}" for f in run.config.fields))
    click.echo(f"wrote {out} (checkpoint {checkpoint})")


# ---------------------------------------------------------------- Texel

def _read_records(paths) -> tuple:
    """Return (record texts, their file names) of files and directories (*.txt in a directory)."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(glob.glob(os.path.join(p, "*.txt")))
            if not found:
                raise InputError(f"{p}: no *.txt game records in this directory")
            files += found
        else:
            files.append(p)
    texts = []
    for f in files:
        try:
            if os.path.getsize(f) > MAX_RECORD_BYTES:
                raise InputError(f"{f}: not a game record (over {MAX_RECORD_BYTES} bytes)")
            with open(f, encoding="utf-8") as fh:
                texts.append(fh.read())
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"cannot read {f}: {getattr(e, 'strerror', None) or e}") from None
    return texts, files


@tune_command.command("texel")
@click.option("--records", multiple=True, metavar="PATH",
              help="Game records to sample (a file, or a directory of *.txt); repeatable. Default: self-play.")
@click.option("--games", type=click.IntRange(1, 1_000_000), default=40, show_default=True,
              help="Self-play games to play when no --records are given.")
@click.option("--agent", type=click.Choice(["greedy", "ismcts"]), default="greedy", show_default=True,
              help="Self-play agent.")
@click.option("--budget", type=click.IntRange(1, 10_000_000), default=100, show_default=True,
              help="With --agent ismcts: iterations per decision.")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--board", type=click.Choice(["standard", "advanced"]), default="standard", show_default=True)
@variants_option("Self-play with these 2015 variants.")
@click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=0, show_default=True,
              help="Seed of the self-play, the sampling and the held-out games.")
@click.option("--per-game", type=click.IntRange(1, 10_000), default=20, show_default=True,
              help="Positions drawn from each game.")
@click.option("--skip", type=click.IntRange(0, 10_000), default=10, show_default=True,
              help="Opening decisions of each game never drawn.")
@click.option("--holdout", type=click.FloatRange(0, 0.9), default=0.2, show_default=True,
              help="Share of the games held out of the fit (their loss is reported).")
@click.option("--field", "field_names", multiple=True, metavar="NAME",
              help="A weight to fit; repeatable (default: tau ... eval_scale, the variants' two left out).")
@click.option("--iterations", type=click.IntRange(1, 10_000), default=30, show_default=True,
              help="Levenberg-Marquardt iterations at most.")
@click.option("--l2", type=click.FloatRange(0, 1e6), default=0.0, show_default=True,
              help="Pull towards the starting weights (squared relative change, added to the loss).")
@click.option("--params", metavar="FILE", help="Params file to start from (and to copy the other fields from).")
@click.option("--out", metavar="FILE", default="texel-params.json", show_default=True,
              help="Params file written with the fitted weights.")
@backend_options
def texel_command(records, games, agent, budget, players, board, variants, seed, per_game, skip, holdout,
                  field_names, iterations, l2, params, out, jobs, backend, ray_address):
    """Fit the evaluation weights so the evaluation predicts the game results (Texel tuning, numpy)."""
    from search.tuning import texel
    from search.arena.backends import make_backend
    try:
        texel.need_numpy()
        names = texel.check_fields(field_names or texel.DEFAULT_FIELDS)
        base = _load_base(params)
        if records:
            texts, sources = _read_records(records)
            click.echo(f"{len(texts)} game records read")
        else:
            t0 = time.time()
            texts = texel.self_play(games, seed, players, board, agent, budget, variants or (), base,
                                    make_backend(backend, jobs, ray_address))
            sources = None
            what = "greedy" if agent == "greedy" else f"ISMCTS {budget} iterations a decision"
            click.echo(f"{len(texts)} self-play games ({what}) in {time.time() - t0:.0f}s")
        positions = texel.sample_positions(texts, per_game, seed, skip, sources)
        train, held = texel.split_games(positions, holdout, seed)
        result = texel.fit(train, held, base, names, iterations, l2)
    except SearchError as e:
        raise InputError(str(e)) from None
    except (ValueError, RuntimeError, EngineError) as e:
        raise InputError(str(e)) from None
    click.echo(result.report())
    _save(result.after, out, f"Texel fit of {', '.join(names)} on {result.train_positions} positions: "
                             f"training MSE {result.train_loss[0]:.6f} -> {result.train_loss[1]:.6f}")
    click.echo(f"wrote {out}")


# ---------------------------------------------------------------- calibration

def _self_play_data(data, games, budget, players, board, seed, value, jobs, backend, ray_address, quiet) -> list:
    """Return the finished games of the data file at these settings, playing and appending games 0..N-1 it lacks."""
    params = SearchParams(value=value)
    value = params.resolved(players).value
    import json as _json
    from search.arena.backends import make_backend
    from search.tuning import calibrate
    calibrate.need_numpy()
    noted = calibrate.read_games([data], finished_only=False) if os.path.exists(data) else []
    # games noted unfinished count as done too: replaying them would end the same way
    # games noted before the value knob existed were played with the handcrafted value
    mine = [g for g in noted if (g["players"], g["board"], g["iterations"], g.get("value", "handcrafted"))
            == (players, board, budget, value)]
    done = {g["game"] for g in mine}
    mine = [g for g in mine if g["ended"]]
    missing = [i for i in range(games) if i not in done]
    if not missing:
        return mine
    t0, n = time.time(), 0
    try:
        with open(data, "a") as f, make_backend(backend, jobs, ray_address) as runner:
            # contiguous runs of missing games, each seeded by its index
            runs, start = [], missing[0]
            for a, b in zip(missing, missing[1:] + [None]):
                if b != a + 1:
                    runs.append((start, a - start + 1))
                    start = b
            for first, count in runs:
                for g in calibrate.self_play(count, seed, players, board, budget, params, backend=runner, first=first):
                    f.write(_json.dumps(g, separators=(",", ":")) + "\n")
                    f.flush()
                    n += 1
                    if g["ended"]:
                        mine.append(g)
                    if not quiet:
                        click.echo(f"game {g['game']}: {'ranks ' + str(g['ranks']) if g['ended'] else 'unfinished'}"
                                   f" ({n}/{len(missing)}, {time.time() - t0:.0f}s)")
    except OSError as e:
        raise InputError(f"cannot write {data}: {e.strerror or e}") from None
    return mine


def self_play_options(games: int, fitted: str, data_required: bool = True):
    """Add the options of a fit on self-play data (tune calibrate, tune value): the data file, its games, the split."""
    options = [
        click.option("--data", metavar="FILE", required=data_required,
                     help="Self-play data (one game a JSON line): games already in it are read, missing ones are "
                          "played and appended as they finish."),
        click.option("--games", type=click.IntRange(0, 1_000_000), default=games, show_default=True,
                     help="Self-play games the data must hold (games 0 .. N-1; 0: fit what the data holds)."),
        click.option("--budget", type=click.IntRange(1, 10_000_000), default=1000, show_default=True,
                     help=f"ISMCTS iterations per decision in the self-play (the {fitted} is for this budget)."),
        click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True),
        click.option("--board", type=click.Choice(["standard", "advanced"]), default="standard", show_default=True),
        click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=0, show_default=True,
                     help=f"Seed of the self-play and the held-out games: the same seed, the same {fitted}."),
        click.option("--holdout", type=click.FloatRange(0.05, 0.9), default=0.25, show_default=True,
                     help="Share of the games held out of the fit and measured."),
        click.option("--value", type=click.Choice(["handcrafted", "learned"]),
                     help="The evaluation of the self-play's search (default: the search's default for the "
                          "player count)."),
    ]

    def decorate(f):
        for option in reversed(options):
            f = option(f)
        return f
    return decorate


@tune_command.command("calibrate")
@self_play_options(400, "map")
@click.option("--out", metavar="FILE", help="Write the fitted map here (the shipped one: "
              "search/data/calibration/<players>p-<board>.json).")
@click.option("--svg", metavar="FILE", help="Write the held-out reliability diagram here.")
@backend_options
@click.option("--quiet", is_flag=True, help="No line per game.")
def calibrate_command(data, games, budget, players, board, seed, holdout, value, out, svg, jobs, backend,
                      ray_address, quiet):
    """Fit the map from a search's root value to the chance of winning (and of each rank), from self-play."""
    from search.tuning import calibrate
    try:
        mine = _self_play_data(data, games, budget, players, board, seed, value, jobs, backend, ray_address, quiet)
        result = calibrate.fit(mine, holdout, seed)
    except SearchError as e:
        raise InputError(str(e)) from None
    except OSError as e:
        raise InputError(f"cannot write {data}: {e.strerror or e}") from None
    click.echo(result.report())
    if out:
        try:
            result.cal.save(out)
        except OSError as e:
            raise InputError(f"cannot write {out}: {e.strerror or e}") from None
        click.echo(f"wrote {out}")
    if svg:
        try:
            with open(svg, "w") as f:
                f.write(calibrate.reliability_svg([result]))
        except OSError as e:
            raise InputError(f"cannot write {svg}: {e.strerror or e}") from None
        click.echo(f"wrote {svg}")


# ---------------------------------------------------------------- learned value

@tune_command.command("value")
@self_play_options(0, "weights", data_required=False)
@click.option("--records", metavar="PATH", multiple=True,
              help="Fit arena games instead of self-play: a folder of game records (game*.txt, as --record-dir "
                   "writes them) or one record; repeat to add more.")
@click.option("--skip", type=click.IntRange(0, 10_000), default=10, show_default=True,
              help="Opening decisions of each game left out.")
@click.option("--ridge", type=click.FloatRange(0, 1e6), default=0.1, show_default=True,
              help="Pull of the corrections towards 0 (per row).")
@click.option("--hidden", type=click.IntRange(0, HIDDEN_MAX), default=0, show_default=True,
              help="Tanh units added to the logistic (0: the logistic alone), fitted by Adam.")
@click.option("--decay", type=click.FloatRange(0, 1e6), default=1e-4, show_default=True,
              help="With --hidden: the pull of the units' weights towards 0.")
@click.option("--out", metavar="FILE", help="Write the weights file here (the shipped one: "
              "search/data/value/<players>p.json).")
@backend_options
@click.option("--quiet", is_flag=True, help="No line per game.")
def value_command(data, records, games, budget, players, board, seed, holdout, value, skip, ridge, hidden, decay, out,
                  jobs, backend, ray_address, quiet):
    """Fit the learned value (the handcrafted evaluation plus richer features) on self-play and measure it on held-out games."""
    from search.tuning import value as value_fit
    if bool(data) == bool(records):
        raise InputError("give --data FILE (self-play, played as needed) or --records PATH (arena games), not "
                         + ("both" if data else "neither"))
    if records and (games or value):
        raise InputError("--games and --value choose the self-play of --data; --records fits games already played")
    try:
        left_out = 0
        if records:
            mine, left_out = value_fit.games_of_records(list(records), players, board)
            about = {"board": board, "records": list(records), "games": len(mine), "seed": seed}
        else:
            mine = [g for g in _self_play_data(data, games, budget, players, board, seed, value, jobs, backend,
                                               ray_address, quiet) if g.get("record")]
            about = {"board": board, "budget": budget, "games": len(mine), "seed": seed,
                     "value": SearchParams(value=value).resolved(players).value}
        t0 = time.time()
        pos = value_fit.positions_of(sorted(mine, key=lambda g: g["game"]), skip=skip)
        t1 = time.time()
        fit = value_fit.fit_value(pos, players, holdout, seed, ridge, hidden, decay)
        fit.self_play = about
    except SearchError as e:
        raise InputError(str(e)) from None
    if left_out:
        click.echo(f"{left_out} games left out: stopped before the rules ended them")
    click.echo(fit.report())
    click.echo(f"features of {len(pos.y)} rows in {t1 - t0:.1f}s, fit in {time.time() - t1:.1f}s")
    if out:
        try:
            value_fit.save(fit, out)
        except OSError as e:
            raise InputError(f"cannot write {out}: {e.strerror or e}") from None
        click.echo(f"wrote {out}")
