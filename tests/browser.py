"""Headless Debian Chromium for the browser tests: the skip/fail rule, a live server, a driver.

The browser tests skip when Chromium, chromedriver or selenium is missing
(the message names the install command) but fail when CI=true: CI must run
them. Chromium is started without the sanitizers that .ci/run's debug pass
preloads into the test process (LD_PRELOAD is for our kernels, not Chromium).
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import threading
import time
import urllib.request

import pytest

CHROMIUM = "/usr/bin/chromium"
INSTALL = "apt-get install chromium chromium-driver (and pip install selenium)"


def need_browser() -> None:
    """Skip the test (fail it under CI=true) when the browser or selenium is missing."""
    missing = []
    if not os.path.exists(CHROMIUM):
        missing.append(CHROMIUM)
    if shutil.which("chromedriver") is None:
        missing.append("chromedriver")
    try:
        import selenium  # noqa: F401  (only whether it imports)
    except ImportError:
        missing.append("the selenium package")
    if missing:
        why = f"{', '.join(missing)} missing: {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


def browser_env() -> dict:
    """Return the environment for chromedriver and Chromium: ours, less the sanitizer preload."""
    return {k: v for k, v in os.environ.items()
            if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}


def await_review(url: str, review_id: str, stall: float = 900.0) -> dict:
    """Poll GET /api/review/{id} until the review is done; return its status.

    The guard is on progress, not on the total time: the test fails only if
    no further decision is reviewed for `stall` seconds (a hang), however
    slow the machine or the build (the debug build under load takes many
    minutes for a whole game).
    """
    last, since = None, time.monotonic()
    while True:
        with urllib.request.urlopen(f"{url}api/review/{review_id}") as r:
            status = json.loads(r.read())
        if status["status"] == "done":
            return status
        assert status["status"] == "running", status
        if status["done"] != last:
            last, since = status["done"], time.monotonic()
        assert time.monotonic() - since < stall, f"review {review_id} made no progress for {stall:.0f} s: {status}"
        time.sleep(0.5)


@contextlib.contextmanager
def served(**app_options):
    """Run `tne-ai serve`'s app (create_app(**app_options)) on a free loopback port; yield its URL."""
    need_browser()
    import uvicorn

    from tne_ai.web.app import create_app
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(**app_options), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(30)


@contextlib.contextmanager
def chromium(window: str = "1280,900"):
    """Yield a headless Chromium driver (selenium), quit afterwards."""
    need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window}"):
        opts.add_argument(arg)
    d = webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver"), env=browser_env()))
    try:
        yield d
    finally:
        d.quit()
