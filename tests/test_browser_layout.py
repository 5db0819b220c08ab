"""The pages of `tne-ai serve` at common window sizes in headless Chromium: no horizontal scrollbar, a large board.

A game loaded from a record (with a hint shown) and a finished review are
opened at 1000x800, 1280x900 and 1920x1080. Each fails on a horizontal
scrollbar (the document wider than the window), a board drawn smaller than
its natural size would allow, a hand shown twice, a seats table without the
board's dynasty marks, or an error on the page; and before a game or a
review, the empty panels must stay hidden. A screenshot of each page and size
goes to the test's temporary folder.

The README's and docs/web.md's pictures are the 1280x900 ones: with
TNE_SCREENSHOTS=1 they are written to docs/images/play.png,
docs/images/review.png and docs/images/review-accuracy.png (a decision as
good as the engine's best; docs/web.md, "Screenshots"):

    TNE_SCREENSHOTS=1 python -m pytest tests/test_browser_layout.py

Skips without Chromium, fails without it when CI=true (tests/browser.py).
"""
from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from browser import chromium, served
from records import opening

pytestmark = pytest.mark.slow       # a browser: the fast tier leaves the module out

IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"
SIZES = ((1000, 800), (1280, 900), (1920, 1080))
DOCS_SIZE = (1280, 900)              # the size of the docs' pictures
BOARD_WIDTH = 690                    # engine/svg.py's natural board width (WIDTH), in CSS pixels
MIN_SCALE = 0.85                     # the board drawn at least this big: its 12.5 px status text stays >= 10.6 px


@pytest.fixture(scope="module")
def server_url():
    with served(workers=1, hint_iterations=60) as url:
        yield url


def post(url: str, body: bytes, content_type: str = "text/plain") -> dict:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": content_type}, method="POST")
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def game_id(server_url):
    """A game loaded from the review game's first 40 decisions, against a 20-iteration engine."""
    return post(server_url + "api/games/load?iterations=20", opening(40).encode())["game"]


@pytest.fixture(scope="module")
def review_id(server_url):
    """A review of the review game's first 40 decisions (100 iterations each), waited for."""
    from selenium.webdriver.support.ui import WebDriverWait
    rid = post(server_url + "api/review?iterations=100&seed=1", opening(40).encode())["review"]

    def done(_):
        with urllib.request.urlopen(server_url + "api/review/" + rid, timeout=60) as r:
            doc = json.loads(r.read())
        assert doc["status"] != "error", doc
        return doc["status"] == "done"
    WebDriverWait(None, 600, poll_frequency=0.2).until(done)
    return rid


def check_layout(d, what: str) -> dict:
    """Fail on a horizontal scrollbar or a board drawn too small; return the page's measures."""
    m = d.execute_script("""
        const svg = document.querySelector('#board svg'), r = svg.getBoundingClientRect();
        const right = Math.max(...[...document.querySelectorAll('body *')]
            .filter((e) => e.getClientRects().length).map((e) => e.getBoundingClientRect().right));
        return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
                client: document.documentElement.clientWidth, board: r.width, right: right};""")
    assert m["scroll"] <= m["inner"], f"{what}: a horizontal scrollbar: the page is {m['scroll']} px wide " \
                                      f"in a {m['inner']} px window"
    assert m["right"] <= m["client"] + 0.5, f"{what}: something reaches past the window's right edge: {m}"
    assert m["board"] >= MIN_SCALE * BOARD_WIDTH, f"{what}: the board is drawn {m['board']:.0f} px wide"
    return m


def shoot(d, tmp_path: Path, name: str, size: tuple) -> Path:
    """Save a screenshot of the window (scrolled to the top) as NAME-WxH.png; the docs' size also to docs/images."""
    d.execute_script("window.scrollTo(0, 0)")
    path = tmp_path / f"{name}-{size[0]}x{size[1]}.png"
    d.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    if size == DOCS_SIZE and os.environ.get("TNE_SCREENSHOTS") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(IMAGES / f"{name}.png"))
    return path


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_play_page_fits_the_window(server_url, game_id, tmp_path, size):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium(f"{size[0]},{size[1]}") as d:
        wait = WebDriverWait(d, 120)
        d.get(server_url + "?game=" + game_id)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board svg")))
        wait.until(lambda d: d.execute_script("return view && (view.your_turn || !!view.over)"))
        # a hint, as a player would ask for it (the server searches 60 iterations)
        wait.until(EC.element_to_be_clickable((By.ID, "hint"))).click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hintout li button"))
        check_layout(d, f"play {size}")
        # the hand once: the clickable tiles, none drawn under the board
        assert d.find_elements(By.CSS_SELECTOR, "#hand .tile")
        assert not d.find_elements(By.CSS_SELECTOR, "#board svg g.hand")
        # each seat with its dynasty mark, the one its leaders carry on the board
        marks = [td.text for td in d.find_elements(By.CSS_SELECTOR, "#seats td.dynasty")]
        assert marks == ["\u25b20", "\u25cf1"], marks
        board_text = d.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("textContent")
        assert all(m[0] in board_text for m in marks)
        seats = d.find_element(By.ID, "seats").rect
        assert seats["x"] + seats["width"] <= d.execute_script("return document.documentElement.clientWidth")
        assert d.find_element(By.ID, "message").text == ""        # no error in the picture
        shoot(d, tmp_path, "play", size)


def test_a_four_player_game_with_the_variants_fits_the_narrowest_window(server_url, tmp_path):
    """Four seats in the table, the longest engine labels, the advanced board and every variant: still no scrollbar."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    game = post(server_url + "api/games", json.dumps({
        "players": 4, "human": 2, "board": "advanced", "variants": ["english", "buildings", "wonder"],
        "engines": {"iterations": 20}}).encode(), "application/json")["game"]
    size = SIZES[0]
    with chromium(f"{size[0]},{size[1]}") as d:
        wait = WebDriverWait(d, 120)
        d.get(server_url + "?game=" + game)
        wait.until(lambda d: d.execute_script("return view && (view.your_turn || !!view.over)"))
        check_layout(d, f"4-player play {size}")
        marks = [td.text for td in d.find_elements(By.CSS_SELECTOR, "#seats td.dynasty")]
        assert marks == ["\u25b20", "\u25cf1", "\u25a02", "\u25c63"], marks
        # (the move list may be empty: the first seat to act is dealt at random and may be the human's)
        assert d.find_element(By.ID, "movebox").is_displayed()
        shoot(d, tmp_path, "play-4p", size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_review_page_fits_the_window(server_url, review_id, tmp_path, size):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium(f"{size[0]},{size[1]}") as d:
        wait = WebDriverWait(d, 120)
        d.get(server_url + "review?id=" + review_id)
        wait.until(EC.visibility_of_element_located((By.ID, "reviewmain")))
        # the largest mistake of the first seat listed: its ply's board marks the engine's best instead
        link = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#mistakes li.mistake a")))
        ply = int(link.find_element(By.XPATH, "..").get_attribute("data-ply"))
        link.click()
        wait.until(lambda d: f"ply {ply}: " in d.find_element(By.ID, "board").get_attribute("innerHTML"))
        best = d.execute_script("return byPly[arguments[0]].best", ply)
        assert best in d.find_element(By.ID, "bestnote").text
        assert f"engine's best instead: {best}" in d.find_element(By.ID, "board").get_attribute("textContent")
        check_layout(d, f"review {size}")
        assert d.find_element(By.ID, "message").text == ""
        # each seat's accuracy above the decision, as the summary gives it
        summary = d.execute_script("return doc.summary")
        said = [p.text for p in d.find_elements(By.CSS_SELECTOR, "#accuracy p.accuracy")]
        assert said == [f"Seat {s['seat']}: accuracy {s['accuracy']:.1f}% over {s['decisions']} decisions"
                        for s in summary], said
        shoot(d, tmp_path, "review", size)
        if size == DOCS_SIZE:
            # the docs' picture of accuracy: a decision as good as the engine's best, which loses nothing
            tied = d.execute_script("return doc.decisions.filter((x) => x.played !== x.best && "
                                    "x.equally_good.includes(x.played)).map((x) => x.ply)")
            assert tied, "at 100 iterations some decisions of this opening tie with the best"
            d.execute_script("go(arguments[0])", tied[0])
            wait.until(lambda d: f"ply {tied[0]}: " in d.find_element(By.ID, "board").get_attribute("innerHTML"))
            assert "as good as the engine's best" in d.find_element(By.ID, "bestnote").text
            panel = d.find_element(By.ID, "decision").text
            assert "accuracy 100.0%" in panel and "equally good" in panel, panel
            shoot(d, tmp_path, "review-accuracy", size)


def test_empty_panels_stay_hidden_until_there_is_something(server_url, game_id):
    """Before a game: no Hint, Undo, seats or Moves; before an upload: no review panels; before a watch: no moves."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium("1280,900") as d:
        wait = WebDriverWait(d, 120)
        d.get(server_url)
        wait.until(EC.presence_of_element_located((By.ID, "board")))
        for element in ("hint", "undo", "seats", "moves", "hintout", "news"):
            assert not d.find_element(By.ID, element).is_displayed(), element
        assert "Moves" not in d.find_element(By.TAG_NAME, "body").text
        check_blank = d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        assert check_blank
        d.get(server_url + "?game=" + game_id)
        wait.until(EC.visibility_of_element_located((By.ID, "hint")))
        assert d.find_element(By.ID, "moves").is_displayed() and d.find_element(By.ID, "seats").is_displayed()
        assert not d.find_element(By.ID, "hintout").is_displayed()    # no hint asked for yet
        d.get(server_url + "review")
        wait.until(EC.presence_of_element_located((By.ID, "reviewform")))
        for element in ("reviewmain", "decision", "chart", "mistakes", "board", "steps"):
            assert not d.find_element(By.ID, element).is_displayed(), element
        assert "Largest mistakes" not in d.find_element(By.TAG_NAME, "body").text
        d.get(server_url + "watch")
        wait.until(EC.presence_of_element_located((By.ID, "watchform")))
        assert not d.find_element(By.ID, "moves").is_displayed()
        assert "Moves" not in d.find_element(By.TAG_NAME, "body").text
