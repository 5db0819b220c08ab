"""tne-ai's application layer, in sub-packages by concern (docs/design.md).

protocol  the bot protocol: codec, `tne-ai bot`, the client for engine processes;
analysis  a seat's knowledge, `analyze`, `review`, the analysis server;
referee   `tne-ai match` between engine processes;
web       `tne-ai serve`, the browser app;
cli       the one command line, `tne-ai`, with play, bench, arena, tune, perft and show;
inputs    reading positions, game records and shared options for every command.
"""

__version__ = "0.1.0"
