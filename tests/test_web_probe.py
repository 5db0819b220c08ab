"""bench/web_probe.py against the real `tne-ai serve`: every mended defect's reproducer is refused.

The probe's checks are the conditions of the tests that cover each defect
(docs/web.md, "Defects found by a probe", names them), seen from a client:
D1 the draws of a swap after each undo (tests/test_web.py also checks the
bag), D2 the views sent for 10,000 unread requests and the 4429 close
(tests/test_web_socket.py), D3 the queued review, the nice-19 review
process, the 404s and the CPU spent before the next review's first decision
(tests/test_web_replay.py), D4, D6 and D7 the answers to bad frames, NaN
and an unknown id (tests/test_web.py, tests/test_web_socket.py), D5 the
server's own socket option, and the cap's 503s (tests/test_web_persist.py).
Run against the server's code before the fixes, every verdict is NOT MENDED
(docs/examples/web-probe-before.txt), so a defect that comes back fails here.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.web_probe import chance_bound

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["D1", "D2", "D3", "D4", "D5", "D6", "D7", "cap"]
VERDICT = re.compile(r"^verdict (\S+): (mended|NOT MENDED) \(", re.M)
HEADING = re.compile(r"^== (\S+): (.*)$", re.M)


def test_the_chance_of_a_repeated_draw_is_bounded_from_what_the_player_sees():
    assert chance_bound("r", "", 57) == 1.0                      # 57 tiles, all could be red
    assert chance_bound("r", "rr", 100) == pytest.approx(55 / 100)
    assert chance_bound("rk", "", 100) == pytest.approx(57 / 100 * 30 / 99)
    assert chance_bound("kkk", "kkkkkk", 100) == pytest.approx(24 * 23 * 22 / (100 * 99 * 98))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the probe reads /proc and uses pidfd_getfd")
def test_every_reproducer_is_refused_and_the_docs_transcript_is_of_the_same_probe():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-m", "bench.web_probe"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    out = run.stdout
    assert dict(VERDICT.findall(out)) == {name: "mended" for name in NAMES}, out[-4000:] + run.stderr[-2000:]
    assert run.returncode == 0 and out.rstrip().endswith("all mended: " + ", ".join(NAMES)), out[-2000:]
    assert "the reproducer stopped" not in out
    # the committed transcript: the same sections and verdicts (its ids, tiles and figures vary)
    doc = (ROOT / "docs" / "examples" / "web-probe.txt").read_text(encoding="utf-8")
    assert HEADING.findall(doc) == HEADING.findall(out)
    assert VERDICT.findall(doc) == VERDICT.findall(out)
    before = (ROOT / "docs" / "examples" / "web-probe-before.txt").read_text(encoding="utf-8")
    assert dict(VERDICT.findall(before)) == {name: "NOT MENDED" for name in NAMES}
    assert HEADING.findall(before) == HEADING.findall(out)
