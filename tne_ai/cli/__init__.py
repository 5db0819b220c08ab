"""The `tne-ai` command: a click group whose subcommands live in their own modules.

Subcommands are imported only when run (a lazy group, as in click's
documentation), so `tne-ai --help` stays fast and one broken subcommand cannot
take the others down.
"""
from __future__ import annotations

import importlib

import click

from tne_ai import __version__

# name -> (module, attribute, one-line help)
SUBCOMMANDS = {
    "bot": ("tne_ai.protocol.bot", "bot_command", "Play one seat over stdin/stdout (docs/protocol.md)."),
    "analyze": ("tne_ai.analysis.analyze", "analyze_command", "Search a position and rank its candidate decisions."),
    "analysis-server": ("tne_ai.analysis.server", "analysis_server_command", "Answer JSON-lines analysis queries (docs/analysis.md)."),
    "review": ("tne_ai.analysis.review", "review_command", "Review a game: the value each decision lost, from its seat's knowledge."),
    "bench": ("tne_ai.cli.bench", "bench_command", "Measure playout and search speed; print the bench signature."),
    "match": ("tne_ai.referee.match", "match_command", "Referee games between engines that speak the protocol."),
    "play": ("tne_ai.cli.play", "play_command", "Play against one to three engines in the terminal."),
    "serve": ("tne_ai.web.serve", "serve_command", "Play against the engine in a browser: a local web app (docs/web.md)."),
    "arena": ("tne_ai.cli.arena", "arena_command", "Play in-process agents against each other (ISMCTS, greedy, params files)."),
    "tune": ("tne_ai.cli.tune", "tune_command", "Tune the search (SPSA) or the evaluation weights (Texel)."),
    "perft": ("tne_ai.cli.rules", "perft_command", "Count decision sequences from a position (rules debugging)."),
    "show": ("tne_ai.cli.rules", "show_command", "Print a position or game record as a board."),
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when that subcommand runs."""

    def list_commands(self, ctx):
        return list(SUBCOMMANDS)

    def get_command(self, ctx, name):
        if name not in SUBCOMMANDS:
            return None
        module, attr, _ = SUBCOMMANDS[name]
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx, formatter):
        rows = [(name, help_text) for name, (_, _, help_text) in SUBCOMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tne-ai")
def main():
    """tne-ai: an AI opponent engine for Tigris & Euphrates."""
