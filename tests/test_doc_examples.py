"""The example outputs of README.md and docs/*.md are what their commands print (tools/doc_examples.py).

One test per marked block runs its command and compares (speeds and wall
times aside, see VOLATILE there); a guard fails on a block that looks like
command output or a session but has no marker; and the docs cite rules and
designs that are in the repository. When a test here fails because a
command's output changed on purpose:

    python tools/doc_examples.py --write        # then review and commit the docs
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import doc_examples as dx  # noqa: E402


def all_blocks():
    """(blocks, parse errors) of every doc."""
    blocks, errors = [], []
    for path in dx.doc_files():
        try:
            blocks += dx.parse_doc(path)
        except ValueError as e:
            errors.append(str(e))
    return blocks, errors


BLOCKS, PARSE_ERRORS = all_blocks()
MARKED = [b for b in BLOCKS if b.kind in ("example", "session")]


def test_every_marker_parses():
    assert PARSE_ERRORS == []


def test_the_readme_and_the_cli_page_have_checked_examples():
    names = {dx.rel(b.path) for b in MARKED}
    assert {"README.md", "docs/cli.md"} <= names
    assert any(b.kind == "session" for b in MARKED)


@pytest.mark.parametrize("block", MARKED, ids=[b.name for b in MARKED])
@pytest.mark.slow
def test_the_example_is_what_the_command_prints(block):
    """Running the marker's command gives the block (volatile fields aside)."""
    _, diff = dx.compare(block)
    assert not diff, (f"{block.name} is stale; if the change is meant, run "
                      f"`python tools/doc_examples.py --write {dx.rel(block.path)}`\n{diff}")


def test_no_example_output_is_left_unmarked():
    """A block that looks like output or a session needs <!-- example/session/illustrative: ... -->."""
    bad = [f"{b.name}: {b.lines[0]!r}" for b in dx.unmarked_output(BLOCKS)]
    assert bad == [], "mark these blocks (tools/doc_examples.py says how):\n" + "\n".join(bad)


def test_every_exemption_still_names_an_unmarked_block():
    """EXEMPT only shrinks: an entry whose block was marked, changed or removed must go."""
    firsts = {(dx.rel(b.path), next((x for x in b.lines if x.strip()), "").rstrip())
              for b in BLOCKS if not b.kind}
    assert [key for key in dx.EXEMPT if key not in firsts] == []


def test_illustrative_blocks_say_why():
    for b in BLOCKS:
        if b.kind == "illustrative":
            assert len(b.command.split()) >= 2, f"{b.name}: give a reason, not just a word"


def test_the_docs_cite_nothing_outside_the_repository():
    """Rules are cited as docs/rules.md (the repository's copy of the contract); no ../shared/
    paths, no tests/data/RULES.md (it moved), no DESIGN.md (the design is docs/design.md)."""
    assert (ROOT / "docs" / "rules.md").is_file() and (ROOT / "docs" / "design.md").is_file()
    bad = []
    for path in dx.doc_files():
        for no, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\.\./shared|\bshared/rules\b|DESIGN\.md|/work/", line):
                bad.append(f"{dx.rel(path)}:{no}: {line.strip()}")
            for m in re.finditer(r"[\w./-]*RULES\.md", line, re.IGNORECASE):
                if m.group(0) not in ("docs/rules.md", "rules.md"):
                    bad.append(f"{dx.rel(path)}:{no}: cite docs/rules.md, not {m.group(0)}")
    assert bad == []


LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"   # [text](target "title")
                  r"|^\s*\[[^\]]+\]:\s*<?([^\s>]+)"                            # [label]: target
                  r"|\b(?:src|href)=\"([^\"]+)\"")                                # <img src="..."> <a href="...">


def relative_links(path: Path) -> list:
    """(line number, target) of every relative link of a Markdown file: not a URL, not an #anchor."""
    found = []
    for no, line in enumerate(path.read_text().splitlines(), 1):
        for m in LINK.finditer(line):
            target = next(g for g in m.groups() if g is not None).split("#", 1)[0]
            if target and not re.match(r"^[A-Za-z][\w+.-]*:", target):
                found.append((no, target))
    return found


def test_every_relative_link_of_the_docs_is_a_file_of_the_repository():
    """README.md and docs/*.md link only to files that exist inside the repository."""
    bad, seen = [], 0
    for path in dx.doc_files():
        for no, target in relative_links(path):
            seen += 1
            dest = (path.parent / target).resolve()
            inside = dest == ROOT or ROOT in dest.parents
            if not (inside and dest.exists()):
                bad.append(f"{dx.rel(path)}:{no}: {target} is {'missing' if inside else 'outside the repository'}")
    assert seen >= 4 and bad == []
    readme_links = {target for _, target in relative_links(ROOT / "README.md")}
    assert {"docs/design.md", "docs/rules.md"} <= readme_links


def test_the_link_check_finds_links(tmp_path):
    path = made_up_doc(tmp_path, '![a](images/a.png "A") [b](<b.md>) [d](http://x/y.md) [e](#top)\n'
                                 '[f]: ../f.md#part\n<img src="g.png"> [h](h.md#sec)\n')
    assert relative_links(path) == [(1, "images/a.png"), (1, "b.md"), (2, "../f.md"), (3, "g.png"), (3, "h.md")]


# ---------------------------------------------------------------- the tool itself, on made-up docs


def made_up_doc(tmp_path, body: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(body)
    return path


PRINT = 'python -c "print(\'a\'); print(\'b\'); print(\'speed 12 ms\')"'


def test_a_stale_block_gives_a_diff_naming_the_file_and_block(tmp_path, capsys):
    path = made_up_doc(tmp_path, f"Intro.\n\n<!-- example: {PRINT} -->\n```\n$ {PRINT}\na\nc\n```\n")
    (block,) = dx.parse_doc(path)
    assert (block.kind, block.command, block.marker_line) == ("example", PRINT, 3)
    assert dx.main(["--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path.resolve()}:3 (in the doc)" in out and "-c\n+b" in out
    assert dx.main(["--write", str(path)]) == 0
    assert dx.main(["--check", str(path)]) == 0
    assert path.read_text().endswith(f"```\n$ {PRINT}\na\nb\nspeed 12 ms\n```\n")


def test_volatile_fields_keep_the_docs_numbers(tmp_path):
    line = "seat 1 to act, hand rrrbgg: 3,000 iterations in 0.16 s (18,631/s), 1 worker(s), 3,001 nodes"
    other = line.replace("0.16", "0.27").replace("18,631", "9,004")
    assert dx.mask(line) == dx.mask(other) != dx.mask(line.replace("3,001 nodes", "3,002 nodes"))
    assert dx.merge([line], [other]) == [line]
    info = "< info iterations 500 nps 10085 nodes 501 time 49 value 0.6749/0.3251"
    assert dx.mask(info) == dx.mask(info.replace("nps 10085", "nps 7").replace("time 49", "time 150"))
    assert dx.mask(info) != dx.mask(info.replace("501", "502"))
    assert dx.mask("signature 7715744") != dx.mask("signature 7715745")


def test_options_input_lines_status_and_stderr(tmp_path):
    cmd = ('python -c "import sys; print(sys.stdin.read().upper(), end=\'\'); '
           'print(\'oops\', file=sys.stderr); sys.exit(3)"')
    path = made_up_doc(tmp_path, f"<!-- example: {cmd}\ninput: one\ninput: two\ninput: three\n"
                                 f"lines: 1,3-\nstderr: yes\nstatus: 3\n-->\n\n    $ old\n")
    (block,) = dx.parse_doc(path)
    assert block.inputs == ["one", "two", "three"] and not block.fenced
    assert dx.fresh_lines(block) == [f"$ {cmd}", "ONE", "...", "THREE", "oops"]
    dx.main(["--write", str(path)])
    assert path.read_text().endswith(f"-->\n\n    $ {cmd}\n    ONE\n    ...\n    THREE\n    oops\n")


def test_a_session_interleaves_replies(tmp_path):
    path = made_up_doc(tmp_path, "<!-- session: tne-ai bot\nhide: ^< (id|option) \n-->\n```\n> tne\n> isready\n"
                                 "> frobnicate\n> newgame players 2 board standard seat 0\n> isready\n```\n")
    (block,) = dx.parse_doc(path)
    got = dx.fresh_lines(block)
    assert got[:6] == ["> tne", "< ...", "< tneok", "> isready", "< readyok", "> frobnicate"]
    assert got[6].startswith("< error unknown-command frobnicate: ")
    assert got[7:] == ["> newgame players 2 board standard seat 0", "> isready", "< readyok"]


def test_the_guard_tells_output_from_synopses(tmp_path):
    def looks(body):
        (block,) = dx.parse_doc(made_up_doc(tmp_path, body))
        return dx.looks_like_output(block)

    assert looks("Text:\n\n    $ tne-ai perft startpos --depth 1\n    nodes 613\n")
    assert looks("```\n> tne\n< tneok\n```\n")
    assert looks("```\ntne-ai show startpos\n    a  b  c\n```\n")
    assert looks("Progress:\n\n    game 1/20 ranks a:0 b:1 (bag, 205 decisions, 41s)\n")
    assert not looks("Usage:\n\n    tne-ai bot [--json]\n    tne-ai match --engine X \\\n        --games 2\n")
    assert not looks("```python\n>>> 1 + 1\n2\n```\n")
    assert not looks("Layout:\n\n    ext/   Cython kernels\n")
    (block,) = dx.parse_doc(made_up_doc(tmp_path, "<!-- illustrative: a made-up form -->\n```\n< bestmove x\n```\n"))
    assert block.kind == "illustrative" and dx.unmarked_output([block]) == []


def test_a_marker_must_precede_a_block(tmp_path):
    with pytest.raises(ValueError, match="followed by a code block"):
        dx.parse_doc(made_up_doc(tmp_path, "<!-- example: tne-ai bench -->\nText.\n"))
    with pytest.raises(ValueError, match="unknown marker option"):
        dx.parse_doc(made_up_doc(tmp_path, "<!-- example: tne-ai bench\nfoo: 1\n-->\n```\n```\n"))
