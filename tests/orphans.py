"""Whether a process killed outright (SIGKILL) leaves its child processes behind: the tests' shared check."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def alive(pid: int) -> bool:
    """Return whether a process runs (a zombie has exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def pids_left_after_sigkill(script: str, wait: float = 30.0) -> tuple:
    """Run a Python script that prints child pids on one line then SIGKILLs itself; return (pids, those still alive after `wait` s)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    # the first line only: an orphaned child would hold the pipe open
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env) as proc:
        pids = [int(x) for x in proc.stdout.readline().split()]
        assert proc.wait(timeout=120) == -signal.SIGKILL
    deadline = time.monotonic() + wait
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return pids, [p for p in pids if alive(p)]
