"""The bot protocol (docs/protocol.md): the line codec, the engine side (`tne-ai bot`) and the client that drives engines.

codec   parses and formats protocol lines (text and JSON), shared by both sides;
bot     one seat over stdin/stdout, the engine side;
client  a Python client for any engine that speaks the protocol (as python-chess's chess.engine).
"""
