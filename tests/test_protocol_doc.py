"""docs/protocol.md says what the engine does: its example session, handshake, codes and JSON examples hold."""
from __future__ import annotations

import re
from pathlib import Path

from test_protocol import InProcessBot, SubprocessBot, parse_transcript, replay
from tne_ai.protocol.codec import COMMANDS, ERROR_CODES, parse_json

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def doc_text() -> str:
    return DOC.read_text()


def example_session() -> str:
    """Return the example session of the doc as a transcript, its timing fields wildcarded."""
    text = doc_text()
    block = text[text.index("## A session"):]
    block = block[block.index("```\n") + 4:]
    block = block[:block.index("```")]
    return re.sub(r"^(< info .*)$",
                  lambda m: re.sub(r"\b(nps|time) \d+", r"\1 {*}", m.group(1)), block, flags=re.M)


def test_the_example_session_runs_as_written():
    """The session in docs/protocol.md replays exactly, in process and through `tne-ai bot`."""
    args, steps = parse_transcript(example_session())
    assert len(steps) >= 8 and any(b"go" in st.line for st in steps)
    replay(InProcessBot(args), steps)
    replay(SubprocessBot(args), steps)


def test_the_handshake_in_the_doc_is_the_engines():
    """The `tne` reply shown under the command is what the engine says with its defaults."""
    text = doc_text()
    section = text[text.index("### `tne`"):text.index("### `isready`")]
    shown = [line[4:] for line in section.splitlines() if line.startswith("    ")]
    bot = InProcessBot()
    bot.send(b"tne")
    said = [bot.replies.get(timeout=5) for _ in range(len(shown))]
    assert said == shown
    assert bot.finish() == []


def test_the_error_codes_and_commands_of_the_doc_are_the_engines():
    """The table of error codes and the command headings list exactly what the codec knows."""
    text = doc_text()
    codes = re.findall(r"^\| `([a-z-]+)` \|", text, re.M)
    assert codes == list(ERROR_CODES)
    headings = re.findall(r"^### `([a-z]+)", text, re.M)
    assert headings == list(COMMANDS)


def test_the_json_command_examples_parse():
    """Every JSON command example of the doc is a command the codec accepts."""
    lines = [line.strip() for line in doc_text().splitlines() if line.strip().startswith('{"cmd"')]
    assert len(lines) >= 8
    for line in lines:
        cmd = parse_json(line)
        assert cmd.name in COMMANDS
