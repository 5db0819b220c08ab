"""tne-ai's application layer: the `tne-ai` command, the bot protocol and the match referee."""

__version__ = "0.1.0"
