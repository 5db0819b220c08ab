"""Learn from your mistakes on the Review page of `tne-ai serve` in headless Chromium (Selenium).

A review of tests/data/random-game.txt for seat 0 (100 iterations, seed 3:
plies 62 and 66 are mistakes, tests/test_web_puzzle.py) is opened by its id;
the test steps to the last puzzle and back to the first, plays a worse decision
by clicking a tile and a square as on the play page, reads the verdict, then chooses the
engine's best from the list. With TNE_SCREENSHOTS=1 the 1280x900 page with a
verdict is written to docs/images/review-puzzle.png (docs/web.md).

Skips without Chromium, fails without it when CI=true (tests/browser.py).
"""
from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from browser import await_review, chromium, served
from records import opening
from test_browser import click

pytestmark = pytest.mark.slow       # a browser: the fast tier leaves the module out

RANDOM_GAME = Path(__file__).parent / "data" / "random-game.txt"
IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"


def post_review(url: str, text: str, query: str) -> str:
    req = urllib.request.Request(url + "api/review?" + query, data=text.encode(), method="POST")
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())["review"]


def test_learn_from_your_mistakes(tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    with served(workers=1) as url, chromium("1280,900") as d:
        rid = post_review(url, RANDOM_GAME.read_text(), "seats=0&iterations=100&seed=3")
        await_review(url, rid)             # the review's own pace, guarded against a stall
        wait = WebDriverWait(d, 120)       # the page's rendering of a finished review
        d.get(url + "review?id=" + rid)
        wait.until(EC.visibility_of_element_located((By.ID, "reviewmain")))
        assert Select(d.find_element(By.ID, "learnseat")).first_selected_option.text == "seat 0"
        d.find_element(By.ID, "learnstart").click()
        wait.until(EC.visibility_of_element_located((By.ID, "puzzlemain")))
        assert not d.find_element(By.ID, "reviewmain").is_displayed()
        wait.until(lambda d: d.find_element(By.ID, "puzzleno").text == "puzzle 1 of 2")
        wait.until(lambda d: "ply 62: seat 0's view" in d.find_element(By.ID, "puzzleboard").get_attribute("innerHTML"))
        assert d.find_element(By.ID, "puzzleprev").get_attribute("disabled")
        for n, ply in ((2, 66),):
            d.find_element(By.ID, "puzzlenext").click()
            wait.until(lambda d: d.find_element(By.ID, "puzzleno").text == f"puzzle {n} of 2")
            wait.until(lambda d: f"ply {ply}: seat 0's view" in d.find_element(By.ID, "puzzleboard").get_attribute("innerHTML"))
        assert d.find_element(By.ID, "puzzlenext").get_attribute("disabled")
        assert "Ply 66: seat 0 played a mistake here" in d.find_element(By.ID, "puzzletask").text
        for n, ply in ((1, 62),):
            d.find_element(By.ID, "puzzleprev").click()
            wait.until(lambda d: d.find_element(By.ID, "puzzleno").text == f"puzzle {n} of 2")
            wait.until(lambda d: f"ply {ply}: seat 0's view" in d.find_element(By.ID, "puzzleboard").get_attribute("innerHTML"))
        assert "Ply 62: seat 0 played a mistake here" in d.find_element(By.ID, "puzzletask").text
        d.save_screenshot(str(tmp_path / "review-puzzle-open.png"))
        # as on the play page: a tile of the hand, then a lit square
        click(d, d.find_element(By.CSS_SELECTOR, "#puzzlehand .tile.k"))
        click(d, wait.until(EC.presence_of_element_located(
            (By.CSS_SELECTOR, '#puzzleboard .sq.target[data-sq="f4"] rect'))))
        wait.until(lambda d: "Worse than the game's" in d.find_element(By.ID, "verdict").text)
        verdict = d.find_element(By.ID, "verdict").text
        assert "you tried tile k f4" in verdict and "the game pass" in verdict and "engine's best" in verdict
        board = d.find_element(By.ID, "puzzleboard").get_attribute("innerHTML")
        assert "engine's best: " in board and 'class="highlight"' in board
        fits = d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        assert fits, "a horizontal scrollbar at 1280 px"
        d.execute_script("window.scrollTo(0, 0)")
        d.save_screenshot(str(tmp_path / "review-puzzle.png"))
        if os.environ.get("TNE_SCREENSHOTS") == "1":
            IMAGES.mkdir(parents=True, exist_ok=True)
            d.save_screenshot(str(IMAGES / "review-puzzle.png"))
        # another decision, from the list: the engine's best
        d.find_element(By.XPATH, "//button[text()='try another decision']").click()
        best = [r for r in verdict.splitlines() if r.startswith("engine's best ")][0].split(" ")[2:5]
        Select(d.find_element(By.ID, "puzzlelegal")).select_by_value(" ".join(best))
        d.find_element(By.ID, "puzzletry").click()
        wait.until(lambda d: "It is the engine's best decision." in d.find_element(By.ID, "verdict").text)
        assert "Better: " in d.find_element(By.ID, "verdict").text
        d.find_element(By.ID, "puzzleexit").click()
        wait.until(EC.visibility_of_element_located((By.ID, "reviewmain")))
        # a seat without a mistake is told so
        calm = post_review(url, opening(12), "seats=0&iterations=100&seed=1")
        d.get(url + "review?id=" + calm)
        wait.until(EC.visibility_of_element_located((By.ID, "reviewmain")))
        d.find_element(By.ID, "learnstart").click()
        wait.until(lambda d: "made no mistake and no blunder" in d.find_element(By.ID, "learnnote").text)
        assert not d.find_element(By.ID, "puzzlemain").is_displayed()
