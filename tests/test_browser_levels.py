"""The new-game form's level picker in headless Chromium: it starts at the server's level, and the level picked reaches the game.

With TNE_SCREENSHOTS=1 the page after a level-3 game started, the picker
in the form, is written to docs/images/level-picker.png (docs/web.md):

    TNE_SCREENSHOTS=1 python -m pytest tests/test_browser_levels.py

Skips without Chromium, fails without it when CI=true (tests/browser.py).
"""
from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from browser import chromium, served

pytestmark = pytest.mark.slow       # a browser: the fast tier leaves the module out

IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"


def test_the_level_picked_in_the_form_reaches_the_game(tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    with served(workers=1, hint_iterations=60, default_level=4) as url, chromium("1280,900") as d:
        wait = WebDriverWait(d, 120)
        d.get(url)
        picker = wait.until(EC.presence_of_element_located((By.NAME, "level")))
        wait.until(lambda d: Select(picker).first_selected_option.get_attribute("value") == "4")  # the server's
        amount = d.find_element(By.NAME, "amount")
        assert not amount.is_enabled()          # a level below 10 sets the budget itself
        Select(picker).select_by_value("10")
        assert amount.is_enabled()
        Select(picker).select_by_value("3")
        assert not amount.is_enabled()
        d.find_element(By.CSS_SELECTOR, "#newgame button[type=submit]").click()
        wait.until(lambda d: "level 3" in d.find_element(By.ID, "seats").text)
        wait.until(lambda d: d.execute_script("return view && (view.your_turn || !!view.over)"))
        gid = d.execute_script("return gameId")
        assert d.find_element(By.ID, "message").text == ""
        d.execute_script("window.scrollTo(0, 0)")
        path = tmp_path / "level-picker.png"
        d.save_screenshot(str(path))
        assert path.stat().st_size > 10_000
        if os.environ.get("TNE_SCREENSHOTS") == "1":
            IMAGES.mkdir(parents=True, exist_ok=True)
            d.save_screenshot(str(IMAGES / "level-picker.png"))
        with urllib.request.urlopen(url + "api/games/" + gid, timeout=30) as r:
            seats = json.loads(r.read())["seats"]
        assert [s["player"] for s in seats if s["player"] != "you"] == ["ismcts level 3"]
