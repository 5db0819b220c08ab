"""`tne-ai arena`: play two in-process agents against each other and print the table (search.arena.runner).

    tne-ai arena --a greedy --b random --games 100 --players 2
    tne-ai arena --a greedy --b random --games 400 --sprt "elo0=0 elo1=50" --backend ray
    tne-ai arena --a ismcts:tuned.json --b ismcts --iterations 1000 --sprt "elo0=0 elo1=10"
"""
from __future__ import annotations

import time

import click

from search.agent import Limits, SearchError
from search.arena.backends import BackendError, make_backend
from search.arena.runner import AGENTS, agent_factory, agent_settings, run_match
from search.arena.sprt import Sprt, SprtSpec
from tne_ai.inputs import backend_options, variants_option


def _agent_spec(ctx, param, value):
    """Check an agent spec (name or ismcts:PARAMS_FILE) and return (name, factory)."""
    try:
        return agent_factory(value)
    except (ValueError, SearchError) as e:
        raise click.BadParameter(str(e)) from None


def _sprt_spec(ctx, param, value):
    if value is None:
        return None
    try:
        return SprtSpec.parse(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


@click.command("arena", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--a", "agent_a", default="greedy", show_default=True, callback=_agent_spec,
              help=f"First agent: {', '.join(AGENTS)}, level-1 .. level-10 (search/levels.py: each plays its "
                   "own budget), or ismcts:PARAMS_FILE for tuned params.")
@click.option("--b", "agent_b", default="random", show_default=True, callback=_agent_spec, help="Second agent.")
@click.option("--games", type=click.IntRange(1, 10_000_000), default=100, show_default=True)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--board", type=click.Choice(["standard", "advanced"]), default="standard", show_default=True)
@click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=0, show_default=True,
              help="Seed of the deals and of every agent.")
@variants_option("The 2015 variants every game is played with.")
@click.option("--lineup", metavar="LIST", help="Agent per slot, comma-separated, e.g. a,b,b (default: a then b).")
@click.option("--iterations", type=click.IntRange(1, 10_000_000), help="Search iterations per decision.")
@click.option("--seconds", type=click.FloatRange(0, None, min_open=True), help="Seconds per decision.")
@click.option("--record-dir", metavar="DIR", help="Save every game record here.")
@click.option("--resume", is_flag=True,
              help="With --record-dir: read back the games already recorded there and play only the rest.")
@click.option("--quiet", is_flag=True, help="No line per game.")
@backend_options
@click.option("--sprt", metavar="SPEC", callback=_sprt_spec,
              help="Stop at an SPRT decision for the first agent: 'elo0=0 elo1=5 alpha=0.05 beta=0.05'.")
@click.pass_context
def arena_command(ctx, agent_a, agent_b, games, players, board, seed, variants, lineup, iterations, seconds,
                  record_dir, resume, quiet, jobs, backend, ray_address, sprt):
    """Play two agents against each other in this process (or a pool, or Ray) and print the table."""
    (name_a, make_a), (name_b, make_b) = agent_a, agent_b
    if name_a == name_b:
        raise click.UsageError("the two agents must differ (use --lineup for self-play seat tests)")
    if resume and not record_dir:
        raise click.UsageError("--resume needs the --record-dir of the match to resume")
    factories = {name_a: make_a, name_b: make_b}
    seats = None
    if lineup:
        alias = {"a": name_a, "b": name_b}
        seats = [alias.get(x.strip(), x.strip()) for x in lineup.split(",")]
    t0 = time.time()
    tester = Sprt(sprt, (seats or [name_a])[0], players) if sprt is not None else None

    def progress(i, g):
        if not quiet:
            who = " ".join(f"{nm}:{r}" for nm, r in zip(g.names, g.ranks))
            extra = f" forfeit seat {g.forfeit['seat']}: {g.forfeit['reason']}" if g.forfeit else ""
            llr = f" {tester.status()}" if tester is not None else ""
            when = "resumed" if g.resumed else f"{time.time() - t0:.0f}s"
            click.echo(f"game {i + 1}/{games} ranks {who} ({g.end_reason}, {g.decisions} decisions, "
                       f"{when}){llr}{extra}")

    try:
        pool = make_backend(backend, jobs, ray_address)
        res = run_match(factories, games, players, seed, board, Limits(iterations=iterations, seconds=seconds),
                        record_dir=record_dir, progress=progress, lineup=seats, jobs=jobs,
                        variants=variants or (), backend=pool, sprt=tester, resume=resume,
                        settings={"agents": agent_settings(factories, players)})
    except ValueError as e:
        click.echo(f"error: {e}", err=True)
        ctx.exit(2)
    except BackendError as e:
        click.echo(f"error: {e}", err=True)
        ctx.exit(1)
    click.echo(res.table())
