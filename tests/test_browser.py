"""`tne-ai serve` in a real browser (headless Chromium through Selenium): a few clicks of a game.

Skips when Chromium is missing (install it with `apt-get install chromium
chromium-driver`, and `pip install selenium`), but fails when CI=true: CI
must run it. Saves a screenshot of the page in the test's temporary folder,
and to docs/images/play.png (the README's picture) when TNE_SCREENSHOTS=1.
The browser is started without the sanitizers that .ci/run's debug pass
preloads into the test process (LD_PRELOAD is for our kernels, not Chromium).
"""
from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
INSTALL = "apt-get install chromium chromium-driver (and pip install selenium)"
SHOT = Path(__file__).resolve().parent.parent / "docs" / "images" / "play.png"


def _need_browser():
    missing = []
    if not os.path.exists(CHROMIUM):
        missing.append(CHROMIUM)
    if shutil.which("chromedriver") is None:
        missing.append("chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if missing:
        why = f"{', '.join(missing)} missing: {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture
def server_url():
    _need_browser()
    import uvicorn

    from tne_ai.web.app import create_app
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(workers=1, hint_iterations=50), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(30)


def browser_env() -> dict:
    """Return the environment for chromedriver and Chromium: ours, less the sanitizer preload."""
    return {k: v for k, v in os.environ.items()
            if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}


def test_play_a_few_clicks(server_url, tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver"), env=browser_env()))
    try:
        wait = WebDriverWait(driver, 60)
        driver.get(server_url)
        Select(driver.find_element(By.NAME, "players")).select_by_visible_text("2")
        amount = driver.find_element(By.NAME, "amount")
        amount.clear()
        amount.send_keys("20")
        driver.find_element(By.CSS_SELECTOR, "#newgame button[type=submit]").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board svg")))
        for n in range(3):
            # our turn: a tile of the hand that can be placed, then a lit square
            wait.until(lambda d: "Your decision" in d.find_element(By.ID, "status").text)
            before = len(driver.find_elements(By.CSS_SELECTOR, "#moves li"))
            tile = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#hand .tile:not(.off)")))
            tile.click()
            target = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board .sq.target rect")))
            target.click()
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) > before)
        assert "seat 0:" in driver.find_element(By.ID, "moves").text
        # a hint lists candidates
        wait.until(lambda d: "Your decision" in d.find_element(By.ID, "status").text)
        driver.find_element(By.ID, "hint").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hintout button"))
        # an illegal message typed into the socket is answered with an error, shown on the page
        driver.execute_script("ws.send('not json')")
        wait.until(lambda d: "not JSON" in d.find_element(By.ID, "message").text)
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(str(tmp_path / "play.png"))
        assert (tmp_path / "play.png").stat().st_size > 10_000
        if os.environ.get("TNE_SCREENSHOTS") == "1":
            SHOT.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(SHOT))
    finally:
        driver.quit()
