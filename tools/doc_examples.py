"""Keep the example outputs in README.md and docs/*.md true: run each marked example, then check or rewrite it.

An example is a code block (fenced or indented) right after an HTML comment
that says how to make it; GitHub does not show the comment. Three forms:

    <!-- example: tne-ai analyze --iterations 300 --seed 1 --no-board -->
    ```
    $ tne-ai analyze --iterations 300 --seed 1 --no-board
    ...what the command prints...
    ```

runs the command (split like a shell line, but with no shell: no pipes,
variables or redirections) and shows `$ COMMAND` and then its standard
output. A comment of several lines adds options, one `key: value` a line:

    <!-- example: tne-ai play --seed 42 --engine greedy --record mygame.txt
    input: leader k b2          (a line sent on standard input; repeatable)
    lines: 1-3,20-              (show only these lines of the output, 1-based;
                                 each gap becomes a line `...`)
    hide: ^option               (leave out the lines this regular expression
                                 finds, each run of them becoming `...`)
    stderr: yes                 (standard error too, in the same pipe, as `2>&1`)
    status: 2                   (the exit status expected; default 0)
    -->

    <!-- session: tne-ai bot --candidates 2 --info-interval 0 -->
    ```
    > tne
    < ...replies...
    > go iterations 2000 seed 1
    < ...
    ```

is a bot protocol session (docs/protocol.md): the block's `> ` lines are sent
one by one and each is followed by the engine's replies to it as `< ` lines
(`lines:` and `hide:` elide here too, matched against the `< ` lines; a gap
of replies becomes `< ...`). Give `go` an iteration limit and a seed, and
run the bot with `--info-interval 0` so that only the last `info` is shown. To find where
the replies to a line end, the runner waits for the `bestmove` of a `go`,
then sends an `isready` of its own and takes everything before its `readyok`;
that `isready` and its `readyok` are not shown.

    <!-- illustrative: REASON -->

marks a block that looks like command output but is not one to run (a
format sketch, an option table, a usage synopsis): it is not checked, and
the reason says why.

Every command runs in a fresh scratch directory holding a copy of the files
in docs/examples/ (so `tne-ai show game.txt` reads docs/examples/game.txt and
`--record mygame.txt` writes nothing into the repository), with `tne-ai`
meaning the console script next to this Python, COLUMNS=80 and
PYTHONUNBUFFERED=1. Outputs must not depend on the machine or the clock:
give every search an iteration limit and a seed.

What is compared: every line exactly, trailing blanks of a line aside,
except the fields in VOLATILE below (wall times, speeds, the machine line of
`tne-ai bench`), which may hold any value: the doc keeps the numbers of the
run that wrote it. `tne-ai bench`'s `signature <n>`, node counts, visits and
means are compared exactly.

    python tools/doc_examples.py --check            # exit 1 and a diff per stale block
    python tools/doc_examples.py --write            # rewrite every stale block
    python tools/doc_examples.py --write docs/cli.md
    python tools/doc_examples.py --list             # every block that looks like output, and its marker

`--check` also fails on a block that looks like command output or a session
(see looks_like_output) and has no marker. tests/test_doc_examples.py runs
the same checks under pytest, one test per marked block.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ROOT / "docs" / "examples"
TIMEOUT = 300.0                 # seconds one command or one session reply may take before it is a failure

# Fields whose value changes from run to run. Each pattern is matched against
# every line of the doc and of the fresh output; the text of its groups is
# left out of the comparison.
VOLATILE = [
    # `info` of a search (protocol): speed and elapsed milliseconds
    re.compile(r"\binfo iterations \d+ nps (\d+) nodes \d+ time (\d+)\b"),
    # `perft` of the protocol: milliseconds
    re.compile(r"^(?:< )?perft \d+ nodes \d+ time (\d+)$"),
    # tne-ai analyze: "3,000 iterations in 0.16 s (18,631/s)"
    re.compile(r"\biterations in ([\d.]+) s \(([\d,]+)/s\)"),
    # tne-ai bench: the machine, the playout speeds, the search speed
    re.compile(r"^machine: (.*)$"),
    re.compile(r"^\| \d \| [\d,]+ \| [\d,]+ \| [\d.]+ \| ([\d,]+) \| ([\d,]+) \|$"),
    re.compile(r"^\| \d \| [^|]+ \| \d+ \| [\d,]+ \| [\d,]+ \| ([\d,]+) \| [^|]+ \|$"),
    # tne-ai match / search.arena.runner: seconds per game, ms per decision (right-aligned column)
    re.compile(r"^game \d+/\d+ ranks .*, (\d+)s\)"),
    re.compile(r"^\S+ +\d+ +[\d.]+ +\[[\d.]+, [\d.]+\] +[\d.]+ +[\d.]+ +[\d./]+ +\d+( +[\d.]+)$"),
    # tne-ai tune: seconds so far after an SPSA iteration, seconds of the self-play
    re.compile(r"^iteration \d+/\d+: .*\((\d+)s\)$"),
    re.compile(r"^\d+ self-play games \(.*\) in (\d+)s$"),
]
MASK = "\x00"

MARKER_START = re.compile(r"^<!--\s*(example|session|illustrative)\s*:\s*(.*)$")
FENCE = re.compile(r"^ {0,3}(```+|~~~+)")


@dataclass
class Block:
    """A code block of a doc, with its marker if it has one."""

    path: Path
    start: int                      # index of the first content line
    end: int                        # index one past the last content line
    lines: list                     # the content, indentation of an indented block removed
    fenced: bool
    kind: str = ""                  # "example", "session", "illustrative" or "" (no marker)
    command: str = ""               # example/session: the command line; illustrative: the reason
    options: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)
    marker_line: int = 0            # 1-based line of the marker (or of the block if none)

    @property
    def name(self) -> str:
        return f"{rel(self.path)}:{self.marker_line}"


def rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def doc_files() -> list:
    """README.md and docs/*.md."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# ---------------------------------------------------------------- parsing


def parse_doc(path: Path, text: str | None = None) -> list:
    """Return every code block of a Markdown file, marked or not, in order."""
    lines = (Path(path).read_text() if text is None else text).split("\n")
    blocks, marker, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        m = MARKER_START.match(line)
        if m:
            marker = read_marker(path, lines, i, m)
            i = marker["next"]
            continue
        fence = FENCE.match(line)
        indented = line.startswith("    ") and line.strip() and (i == 0 or not lines[i - 1].strip()
                                                                   or marker is not None)
        if fence:
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(fence.group(1)):
                j += 1
            block = Block(path, i + 1, j, lines[i + 1:j], True, marker_line=i + 1)
            i = j + 1
        elif indented:
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or
                                      (not lines[j].strip() and j + 1 < len(lines)
                                       and lines[j + 1].startswith("    "))):
                j += 1
            block = Block(path, i, j, [ln[4:] for ln in lines[i:j]], False, marker_line=i + 1)
            i = j
        else:
            if marker is not None and line.strip():
                raise ValueError(f"{rel(path)}:{marker['line']}: a marker must be followed by a code block")
            i += 1
            continue
        if marker is not None:
            block.kind, block.command = marker["kind"], marker["command"]
            block.options, block.inputs = marker["options"], marker["inputs"]
            block.marker_line = marker["line"]
            marker = None
        blocks.append(block)
    if marker is not None:
        raise ValueError(f"{rel(path)}:{marker['line']}: a marker must be followed by a code block")
    return blocks


def read_marker(path, lines, i, m) -> dict:
    """Read a marker comment starting at line i; return what it says and the index after it."""
    first = m.group(2)
    body, j = [], i
    if "-->" in first:
        first = first[:first.index("-->")]
    else:
        j += 1
        while j < len(lines) and "-->" not in lines[j]:
            body.append(lines[j])
            j += 1
        if j == len(lines):
            raise ValueError(f"{rel(path)}:{i + 1}: the marker comment is not closed")
        body.append(lines[j][:lines[j].index("-->")])
    kind, command = m.group(1), first.strip()
    options, inputs = {}, []
    for raw in body:
        if not raw.strip():
            continue
        key, sep, value = raw.partition(":")
        key = key.strip()
        if not sep or key not in ("input", "lines", "hide", "stderr", "status"):
            raise ValueError(f"{rel(path)}:{i + 1}: unknown marker option line {raw!r} "
                             "(input:, lines:, hide:, stderr:, status:)")
        if key == "input":
            inputs.append(value[1:] if value.startswith(" ") else value)
        else:
            options[key] = value.strip()
    if not command:
        raise ValueError(f"{rel(path)}:{i + 1}: the marker names no {'reason' if kind == 'illustrative' else 'command'}")
    if kind == "illustrative" and (options or inputs):
        raise ValueError(f"{rel(path)}:{i + 1}: an illustrative marker takes no options")
    return {"kind": kind, "command": command, "options": options, "inputs": inputs, "line": i + 1,
            "next": j + 1}


# ---------------------------------------------------------------- what looks like output

COMMAND_LINE = re.compile(r"^(\$ |(tne-ai|python3?|pytest|pip|printf|TNE_DEBUG=\S+)( |$))")
OUTPUT_LINE = re.compile(r"^(< |<$|bestmove |tneok$|readyok$|signature \d+$|nodes \d+$|game \d+/\d+ ranks |"
                         r"seat \d+> )|\bwin share\b")


def looks_like_output(block: Block) -> bool:
    """Whether a block shows what a command printed: replies `< `, known output lines, or
    lines after a command line (`$ ...`, `tne-ai ...`) that are neither commands, their
    continuations (after a trailing backslash) nor comments."""
    prev_command = prev_continues = False
    for line in block.lines:
        text = line.strip()
        if OUTPUT_LINE.search(line):
            return True
        if not text or text.startswith("#"):
            continue
        if COMMAND_LINE.match(line) or prev_continues:
            prev_command, prev_continues = True, text.endswith("\\")
            continue
        if prev_command:
            return True
    return False


# ---------------------------------------------------------------- running


def program() -> list:
    """The argv that runs `tne-ai`: the console script beside this Python, else the module."""
    script = shutil.which("tne-ai", path=os.path.dirname(sys.executable)) or shutil.which("tne-ai")
    return [script] if script else [sys.executable, "-m", "tne_ai"]


def command_argv(command: str) -> list:
    argv = shlex.split(command)
    if argv[0] == "tne-ai":
        return program() + argv[1:]
    if argv[0] in ("python", "python3"):
        return [sys.executable] + argv[1:]
    return argv


def run_env() -> dict:
    env = dict(os.environ, COLUMNS="80", PYTHONUNBUFFERED="1")
    head = os.path.dirname(program()[0])
    env["PATH"] = head + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def scratch_dir() -> tempfile.TemporaryDirectory:
    tmp = tempfile.TemporaryDirectory(prefix="tne-doc-example-")
    if INPUTS.is_dir():
        for f in INPUTS.iterdir():
            if f.is_file():
                shutil.copy(f, tmp.name)
    return tmp


def run_example(block: Block) -> list:
    """Run a command example; return the block's fresh lines (`$ COMMAND`, then the output)."""
    merged = block.options.get("stderr", "no") == "yes"
    want_status = int(block.options.get("status", "0"))
    stdin = "".join(line + "\n" for line in block.inputs)
    with scratch_dir() as cwd:
        proc = subprocess.run(command_argv(block.command), input=stdin, cwd=cwd, env=run_env(), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                              timeout=TIMEOUT)
    if proc.returncode != want_status:
        raise RuntimeError(f"{block.name}: `{block.command}` exited with status {proc.returncode}, "
                           f"not {want_status}\n{proc.stdout}{proc.stderr or ''}")
    out = proc.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    return [f"$ {block.command}"] + select(block, [line.rstrip() for line in out], "...")


def sent_lines(block: Block) -> list:
    """The lines a session block sends: its `> ` lines."""
    return [line[2:] if line.startswith("> ") else "" for line in block.lines if line.startswith(">")]


class Replies:
    """The stdout lines of a process, read by a thread; None at the end."""

    def __init__(self, stream):
        self.queue = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for raw in stream:
            self.queue.put(raw.rstrip("\n"))
        self.queue.put(None)

    def get(self, what: str) -> str | None:
        try:
            return self.queue.get(timeout=TIMEOUT)
        except queue.Empty:
            raise RuntimeError(f"no reply within {TIMEOUT:.0f} s while waiting for {what}") from None


def reply_type(line: str, json_mode: bool) -> str:
    if json_mode:
        try:
            return str(json.loads(line).get("type", ""))
        except (ValueError, AttributeError):
            return ""
    return line.split(" ", 1)[0]


def run_session(block: Block) -> list:
    """Run a bot session; return the block's fresh lines: each `> ` line sent and its `< ` replies."""
    argv = command_argv(block.command)
    json_mode = "--json" in argv
    rendered = []
    with scratch_dir() as cwd, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=run_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, text=True, bufsize=1)
        replies = Replies(proc.stdout)
        try:
            for line in sent_lines(block):
                rendered.append(f"> {line}" if line else ">")
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
                words = line.split()
                if json_mode:
                    try:
                        cmd = json.loads(line)
                        words = [str(cmd.get("cmd", ""))] + (["infinite"] if cmd.get("infinite") else [])
                    except (ValueError, AttributeError):
                        words = []
                name = words[0] if words else ""
                if name == "quit":
                    break
                if name == "go" and "infinite" not in words:
                    while True:
                        got = replies.get(f"the bestmove of {line!r}")
                        if got is None:
                            raise RuntimeError(f"the engine exited after {line!r}")
                        rendered.append(f"< {got}")
                        if reply_type(got, json_mode) in ("bestmove", "error"):
                            break
                if name == "protocol" and len(words) == 2 and words[1] in ("text", "json"):
                    json_mode = words[1] == "json"
                proc.stdin.write('{"cmd": "isready"}\n' if json_mode else "isready\n")
                proc.stdin.flush()
                readyoks = 2 if name == "isready" else 1
                while True:
                    got = replies.get(f"the replies to {line!r}")
                    if got is None:
                        raise RuntimeError(f"the engine exited after {line!r}")
                    if reply_type(got, json_mode) == "readyok":
                        readyoks -= 1
                        if readyoks == 0:
                            break
                    rendered.append(f"< {got}")
            proc.stdin.close()
            while (got := replies.get("the end of the session")) is not None:
                rendered.append(f"< {got}")
            status = proc.wait(TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if status != 0:
            err.seek(0)
            raise RuntimeError(f"{block.name}: `{block.command}` exited with status {status}\n"
                               + err.read().decode(errors="replace"))
    return select(block, [line.rstrip() for line in rendered], "< ...")


def select(block: Block, lines: list, gap: str) -> list:
    """Keep the lines named by the `lines:` option (1-based ranges) and not found by the `hide:`
    regular expression; a gap line for each run of lines cut."""
    spec, hide = block.options.get("lines"), block.options.get("hide")
    if not spec and not hide:
        return lines
    keep = set(range(1, len(lines) + 1))
    if spec:
        keep = set()
        for part in spec.split(","):
            lo, dash, hi = part.strip().partition("-")
            a = int(lo) if lo else 1
            b = (int(hi) if hi else len(lines)) if dash else a
            keep.update(range(a, b + 1))
    if hide:
        rx = re.compile(hide)
        keep = {no for no in keep if not rx.search(lines[no - 1])}
    out, cut = [], []
    for no, line in enumerate(lines, 1):
        if no in keep:
            if cut:
                out.append(gap if all(c.startswith("< ") for c in cut) else "...")
                cut = []
            out.append(line)
        else:
            cut.append(line)
    if cut:
        out.append(gap if all(c.startswith("< ") for c in cut) else "...")
    return out


def fresh_lines(block: Block) -> list:
    if block.kind == "example":
        return run_example(block)
    if block.kind == "session":
        return run_session(block)
    raise ValueError(f"{block.name}: a {block.kind or 'unmarked'} block is not run")


# ---------------------------------------------------------------- comparing


def mask(line: str) -> str:
    """The line with the text of every volatile field replaced by MASK."""
    for rx in VOLATILE:
        m = rx.search(line)
        if m:
            spans = [m.span(g) for g in range(1, rx.groups + 1) if m.group(g) is not None]
            for a, b in sorted(spans, reverse=True):
                line = line[:a] + MASK + line[b:]
    return line


def merge(doc: list, fresh: list) -> list:
    """The fresh lines, except that a line equal to the doc's line of the same index but for
    volatile fields keeps the doc's wording (so only real changes show)."""
    return [d if i < len(doc) and mask(d) == mask(f) else f
            for i, (f, d) in enumerate(zip(fresh, doc + [None] * len(fresh)))]


def compare(block: Block) -> tuple:
    """Return (the block's merged fresh lines, a unified diff; empty if the doc is right)."""
    doc = [line.rstrip() for line in block.lines]
    while doc and not doc[-1]:
        doc.pop()
    fresh = merge(doc, fresh_lines(block))
    if [mask(x) for x in doc] == [mask(x) for x in fresh]:
        return fresh, ""
    diff = difflib.unified_diff(doc, fresh, f"{block.name} (in the doc)",
                                f"{block.name} (what `{block.command}` gives now)", lineterm="")
    return fresh, "\n".join(diff)


def unmarked_output(blocks: list) -> list:
    """Blocks that look like command output, have no marker and no entry in EXEMPT."""
    return [b for b in blocks if not b.kind and looks_like_output(b) and exemption(b) is None]


# Blocks of files whose owners have not marked them yet, or which another test
# checks: (file, first line of the block) -> why it is not run here. An entry
# that no longer matches a block fails tests/test_doc_examples.py, so the list
# only shrinks: mark the block instead.
EXEMPT = {
    ("docs/protocol.md", "id name tne-ai"):
        "the `tne` reply: checked by tests/test_protocol_doc.py (test_the_handshake_in_the_doc_is_the_engines)",
    ("docs/protocol.md", "> tne"):
        "the session of docs/protocol.md: run by tests/test_protocol_doc.py",
}


def exemption(block: Block) -> str | None:
    first = next((line for line in block.lines if line.strip()), "")
    return EXEMPT.get((rel(block.path), first.rstrip()))


# ---------------------------------------------------------------- writing


def rewrite(path: Path, updates: dict) -> None:
    """Replace the content of blocks (by start index) with new lines, keeping each block's form."""
    lines = Path(path).read_text().split("\n")
    blocks = {b.start: b for b in parse_doc(path)}
    for start in sorted(updates, reverse=True):
        b = blocks[start]
        new = updates[start] if b.fenced else [("    " + x) if x else "" for x in updates[start]]
        lines[b.start:b.end] = new
    Path(path).write_text("\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="compare; exit 1 with a diff per stale block")
    mode.add_argument("--write", action="store_true", help="rewrite the stale blocks in place")
    mode.add_argument("--list", action="store_true", help="list the marked and output-like blocks")
    ap.add_argument("files", nargs="*", type=Path, help="docs to process (default: README.md, docs/*.md)")
    args = ap.parse_args(argv)
    files = [p.resolve() for p in args.files] or doc_files()
    bad = 0
    for path in files:
        blocks = parse_doc(path)
        if args.list:
            for b in blocks:
                if b.kind or looks_like_output(b):
                    note = exemption(b) if not b.kind else b.command
                    print(f"{b.name}: {b.kind or 'UNMARKED'}: {note or ''}")
            continue
        for b in unmarked_output(blocks):
            print(f"{b.name}: looks like command output but has no marker (example/session/illustrative)")
            bad += 1
        updates = {}
        for b in blocks:
            if b.kind not in ("example", "session"):
                continue
            fresh, diff = compare(b)
            if diff:
                if args.write:
                    updates[b.start] = fresh
                    print(f"{b.name}: rewritten")
                else:
                    print(diff)
                    bad += 1
        if updates:
            rewrite(path, updates)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
