"""`tne-ai serve` in a real browser (headless Chromium through Selenium): clicks only.

A few clicks of a game with undo and a hint (best first, captioned, gone once
the position changes); a whole 2-player game played to its end against a
20-iteration engine; a revolt and a war, each started by a click from a
loaded record, resolved through the conflict dialog and announced in words;
teaching mode's warning before a losing decision, taken back by a click.

Skips without Chromium, fails without it when CI=true (tests/browser.py).
Saves screenshots in the test's temporary folder only: the docs' pictures
come from tests/test_browser_layout.py (this module ends on an error shown
on purpose, which once ended up in the README's picture), except
docs/images/teaching.png, the teaching warning at 1280x900, written there
when TNE_SCREENSHOTS=1 (docs/web.md, "Screenshots").
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from browser import chromium, served

pytestmark = pytest.mark.slow       # a browser: the fast tier leaves the module out


@pytest.fixture(scope="module")
def server_url():
    with served(workers=1, hint_iterations=50, teach_iterations=200) as url:
        yield url


@pytest.fixture(scope="module")
def driver(server_url):
    with chromium("1280,900") as d:
        yield d


# ---------------------------------------------------------------- helpers: the page's view, clicks

VIEW_JS = ("return view ? {version: view.version, your_turn: view.your_turn, over: view.over, phase: view.phase,"
           " legal: view.legal, conflict: view.conflict, seats: view.seats, moves: view.moves.length} : null")


def page_view(d):
    return d.execute_script(VIEW_JS)


def wait_view(d, pred, timeout=60):
    """Wait until the page's current view satisfies `pred`; return it."""
    from selenium.webdriver.support.ui import WebDriverWait
    out = {}

    def ok(drv):
        v = page_view(drv)
        if v is not None and pred(v):
            out["v"] = v
            return True
        return False
    WebDriverWait(d, timeout, poll_frequency=0.05).until(ok)
    return out["v"]


def my_turn(d, after=-1, timeout=60):
    """Wait for a view newer than version `after` where the human is to act or the game is over."""
    return wait_view(d, lambda v: v["version"] > after and (v["your_turn"] or v["over"]), timeout)


def click(d, element):
    """Click an element; an SVG square covered by a piece or marker gets the click event it would bubble."""
    from selenium.common.exceptions import ElementClickInterceptedException
    try:
        element.click()
    except ElementClickInterceptedException:
        d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", element)


def start_page(d, url, iterations=20):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    d.get(url)
    Select(d.find_element(By.NAME, "players")).select_by_visible_text("2")
    amount = d.find_element(By.NAME, "amount")
    amount.clear()
    amount.send_keys(str(iterations))


def place_first(d):
    """Action phase: click the first tile of the hand that can be placed, then the first lit square."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    wait = WebDriverWait(d, 30)
    click(d, wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#hand .tile:not(.off)"))))
    click(d, wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board .sq.target rect"))))


def decide_by_clicks(d, view) -> None:
    """Make the human's decision by clicks, the first clickable option, draining the bag fast:
    in the action phase swap the whole hand (else place the first tile, else pass); a conflict: the
    dialog's first commit button; any other decision: its first button, else its first lit square."""
    from selenium.webdriver.common.by import By
    find = lambda css: d.find_elements(By.CSS_SELECTOR, css)  # noqa: E731
    if view["phase"] == "action":
        start = [b for b in find("#buttons button") if b.text == "swap…"]
        if start:
            click(d, start[0])
            while True:                       # the hand is drawn again after every click: find anew
                left = find("#hand .tile:not(.chosen)")
                if not left:
                    break
                click(d, left[0])
            ok = [b for b in find("#buttons button") if b.text.startswith("swap ") and b.is_enabled()]
            if ok:
                click(d, ok[0])
                return
            click(d, [b for b in find("#buttons button") if b.text == "cancel"][0])
        if find("#hand .tile:not(.off)"):
            place_first(d)
            return
        passes = [b for b in find("#buttons button") if b.text == "pass"]
        click(d, passes[0] if passes else find("#buttons button")[0])
        return
    if view["conflict"] is not None:
        click(d, find("#conflict button")[0])
        return
    buttons = find("#options button")
    click(d, buttons[0] if buttons else find("#board .sq.target rect")[0])


# ---------------------------------------------------------------- the tests


def test_play_a_few_clicks(driver, server_url, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 60)
    start_page(driver, server_url)
    driver.find_element(By.CSS_SELECTOR, "#newgame button[type=submit]").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board svg")))
    view = my_turn(driver)
    # undo: a placement, then Undo, restores the board drawn before it
    board_before = driver.find_element(By.ID, "board").get_attribute("innerHTML")
    moves_before = view["moves"]
    place_first(driver)
    view = wait_view(driver, lambda v: v["moves"] > moves_before)
    assert driver.find_element(By.ID, "board").get_attribute("innerHTML") != board_before
    wait.until(EC.element_to_be_clickable((By.ID, "undo"))).click()
    view = wait_view(driver, lambda v: v["version"] > view["version"] and v["moves"] == moves_before
                     and v["your_turn"])
    assert driver.find_element(By.ID, "board").get_attribute("innerHTML") == board_before
    assert len(driver.find_elements(By.CSS_SELECTOR, "#moves li")) == moves_before
    for n in range(3):
        # our turn: a tile of the hand that can be placed, then a lit square
        view = my_turn(driver, view["version"] - 1)
        before = len(driver.find_elements(By.CSS_SELECTOR, "#moves li"))
        place_first(driver)
        view = wait_view(driver, lambda v: v["moves"] > before)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) > before)
    assert "seat 0:" in driver.find_element(By.ID, "moves").text
    # a hint lists candidates, each a legal decision
    wait.until(lambda d: "Your decision" in d.find_element(By.ID, "status").text)
    hints = ask_hint(driver)
    legal = page_view(driver)["legal"]
    assert hints and all(h in legal for h in hints), (hints, legal)
    # ... each with the chance of winning after it, best first, under a line saying what the numbers are
    hint_text = driver.find_element(By.ID, "hintout").text
    assert re.search(r"You win \d+% \(\d+–\d+%\) of games from here", hint_text), hint_text
    wins = [int(w) for w in re.findall(r"wins (\d+)% \(\d+–\d+%\), \d+ visits", hint_text)]
    assert len(wins) == len(hints) and wins == sorted(wins, reverse=True), hint_text
    caption = driver.find_element(By.CSS_SELECTOR, "#hintout .caption").text
    assert "Best first: your chance of winning" in caption and "95% confidence" in caption, caption
    # when the best ones cannot be told apart, the hint says so and names them
    equal = driver.execute_script("return lastHint.equal_best")
    if len(equal) > 1:
        said = driver.find_element(By.CSS_SELECTOR, "#hintout .equal").text
        assert said.startswith("Equally good") and all(m in said for m in equal), said
    # an undo changes the position: the hint goes
    view = page_view(driver)
    driver.find_element(By.ID, "undo").click()
    view = wait_view(driver, lambda v: v["version"] > view["version"])
    assert not driver.find_element(By.ID, "hintout").is_displayed()
    assert not driver.find_elements(By.CSS_SELECTOR, "#hintout li")
    # a move changes it too
    view = my_turn(driver, view["version"] - 1)
    ask_hint(driver)
    before = view["moves"]
    place_first(driver)
    wait_view(driver, lambda v: v["moves"] > before)
    assert not driver.find_element(By.ID, "hintout").is_displayed()
    assert not driver.find_elements(By.CSS_SELECTOR, "#hintout li")
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(tmp_path / "play.png"))
    assert (tmp_path / "play.png").stat().st_size > 10_000
    # an illegal message typed into the socket is answered with an error, shown on the page
    driver.execute_script("ws.send('not json')")
    wait.until(lambda d: "not JSON" in d.find_element(By.ID, "message").text)
    driver.save_screenshot(str(tmp_path / "error.png"))


def ask_hint(d) -> list:
    """Click Hint at the human's turn; return the candidates listed, once they are."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    my_turn(d)
    d.find_element(By.ID, "hint").click()
    WebDriverWait(d, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hintout li button"))
    return [b.text for b in d.find_elements(By.CSS_SELECTOR, "#hintout li button")]


def test_a_whole_game_by_clicks(driver, server_url, tmp_path):
    """A 2-player game to its end against a 20-iteration engine, every decision clicked on the page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    start_page(driver, server_url, iterations=20)
    driver.find_element(By.CSS_SELECTOR, "#newgame button[type=submit]").click()
    WebDriverWait(driver, 60).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board svg")))
    view, decisions, conflicts = my_turn(driver), 0, 0
    while not view["over"]:
        assert decisions < 300, "the game did not end"
        conflicts += view["conflict"] is not None
        decide_by_clicks(driver, view)
        decisions += 1
        view = my_turn(driver, view["version"])
    status = driver.find_element(By.ID, "status").text
    assert status.startswith("Game over (") and "you rank" in status and "seat 1 rank" in status, status
    assert view["over"]["end_reason"] in ("bag", "treasures")
    assert sorted(view["over"]["ranks"]) in ([0, 1], [0, 0])
    assert not driver.find_elements(By.CSS_SELECTOR, "#buttons button, #conflict button")
    # the finished game's full record is offered by the page's link
    href = driver.find_element(By.ID, "record").get_attribute("href")
    text = driver.execute_script("const r = new XMLHttpRequest(); r.open('GET', arguments[0], false);"
                                 " r.send(); return r.responseText;", href)
    assert "[seed " in text and "\nresult " in text
    driver.save_screenshot(str(tmp_path / "over.png"))


def conflict_record(kind: str):
    """Return (record text, the decision that starts it): a seeded random game up to a position where
    seat 0, to act, starts a `kind` (revolt or war) as attacker by one tile or leader (with a choice of
    commitments when one exists in the first 60 seeds)."""
    import random

    import engine
    from engine import actions as A
    from engine.record import write_record
    fallback = None
    for seed in range(60):
        state, rng, actions = engine.new_game(2, seed), random.Random(seed), []
        while not state.is_terminal() and len(actions) < 300:
            if state.to_act == 0 and state.snapshot()["phase"] == "action":
                for a in state.legal_actions():
                    if A.kind(a) not in ("tile", "leader"):
                        continue
                    after = state.clone()
                    after.apply(a)
                    if after.snapshot()["phase"] == kind + "_attack" and after.to_act == 0:
                        found = (write_record(engine.new_game(2, seed), actions, seed=seed,
                                              headers={"human": "0"}), A.format_action(a))
                        if len(after.legal_actions()) > 1:
                            return found
                        fallback = fallback or found
            a = rng.choice(state.legal_actions())
            state.apply(a)
            actions.append(a)
    assert fallback, f"no {kind} found"
    return fallback


@pytest.mark.parametrize("kind", ["revolt", "war"])
def test_a_conflict_through_the_dialog(driver, server_url, tmp_path, kind):
    """Load a record, click the tile or leader that starts a revolt/war, read both strengths, commit."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    record, trigger = conflict_record(kind)
    path = tmp_path / f"{kind}.txt"
    path.write_text(record)
    start_page(driver, server_url, iterations=20)
    driver.find_element(By.ID, "loadfile").send_keys(str(path))
    WebDriverWait(driver, 60).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board svg")))
    view = my_turn(driver)
    assert view["phase"] == "action" and trigger in view["legal"]
    # the piece: a hand tile or a leader button, then its square
    piece, colour, square = trigger.split()
    css = f"#hand .tile.{colour}:not(.off)" if piece == "tile" else f"#buttons .leader.{colour}"
    click(driver, driver.find_element(By.CSS_SELECTOR, css))
    click(driver, driver.find_element(By.CSS_SELECTOR, f'#board .sq.target[data-sq="{square}"] rect'))
    view = wait_view(driver, lambda v: v["conflict"] is not None and v["your_turn"])
    c = view["conflict"]
    assert c["kind"] == kind and c["attacker"] == 0 and c["defender"] == 1
    dialog = driver.find_element(By.ID, "conflict")
    assert dialog.is_displayed()
    text = dialog.text
    assert f"attacker seat 0 at {c['attacker_leader']} strength {c['attacker_base']}" in text, text
    assert f"defender seat 1 at {c['defender_leader']} strength {c['defender_base']}" in text, text
    buttons = dialog.find_elements(By.TAG_NAME, "button")
    assert [b.text for b in buttons] == [m for m in view["legal"] if m.startswith("commit ")]
    driver.save_screenshot(str(tmp_path / f"{kind}.png"))
    commit = buttons[-1].text                 # everything the attacker may commit
    scores = sum(sum(s["scores"].values()) for s in view["seats"])
    click(driver, buttons[-1])
    # the engine defends; the conflict is over and both commitments are in the move list
    view = wait_view(driver, lambda v: v["conflict"] is None and v["moves"] >= view["moves"] + 2)
    moves = driver.execute_script(         # read at once: engine decisions may redraw the list meanwhile
        "return [...document.querySelectorAll('#moves li')].map((li) => li.textContent)")
    mine = moves.index(f"seat 0: {trigger}")
    assert moves[mine + 1] == f"seat 0: {commit}", moves[mine:]
    assert moves[mine + 2].startswith("seat 1: commit "), moves[mine:]
    assert sum(sum(s["scores"].values()) for s in view["seats"]) > scores   # the winner scored
    assert not driver.find_element(By.ID, "conflict").is_displayed()
    # the outcome in words (tne_ai.prompts.conflict_outcome, as `tne-ai play` says it): under the defender's
    # commitment in the move list, and announced above the seats until the human's next decision
    outcome = driver.execute_script("return view.moves[arguments[0]].outcome", mine + 2)
    assert outcome.startswith(f"{kind.capitalize()} over the ") and " wins." in outcome, outcome
    assert f"seat 0 (you) attacked from {c['attacker_leader']} with {c['attacker_base']} " in outcome, outcome
    assert f"seat 1 defended at {c['defender_leader']} with {c['defender_base']} " in outcome, outcome
    assert "Removed: " in outcome and " scores " in outcome, outcome
    assert moves[mine + 2].endswith(outcome)
    news = driver.find_element(By.ID, "news")
    assert news.is_displayed() and outcome in news.text, news.text
    driver.save_screenshot(str(tmp_path / f"{kind}-outcome.png"))


def test_teaching_mode_warns_before_a_losing_decision_and_takes_it_back(driver, server_url, tmp_path):
    """The teaching position (tests/records.py) loaded with the form's Teaching mode on: a blue tile far from the
    kingdom is warned of, the engine's best is marked on the board, Take it back restores the position."""
    import engine
    from engine.position import parse_position
    from engine.record import GameRecorder
    from records import TEACHING_BAD, TEACHING_GOOD, teaching_start
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    state = engine.State.from_snapshot(parse_position(teaching_start()))
    path = tmp_path / "teaching.txt"
    path.write_text(GameRecorder(state, seed=None, headers={"human": "0"}).text())
    start_page(driver, server_url, iterations=20)
    box = driver.find_element(By.CSS_SELECTOR, "#teachfield input[name=teach]")
    if not box.is_selected():
        box.click()
    driver.find_element(By.ID, "loadfile").send_keys(str(path))
    WebDriverWait(driver, 60).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board svg")))
    view = my_turn(driver)
    assert driver.execute_script("return view.teach") == {"on": True, "threshold": 0.1}
    board_before = driver.find_element(By.ID, "board").get_attribute("innerHTML")
    square = TEACHING_BAD.split()[-1]
    click(driver, driver.find_element(By.CSS_SELECTOR, "#hand .tile.b:not(.off)"))
    click(driver, driver.find_element(By.CSS_SELECTOR, f'#board .sq.target[data-sq="{square}"] rect'))
    warning = WebDriverWait(driver, 60).until(EC.visibility_of_element_located((By.ID, "teaching")))
    text = warning.text
    best = driver.execute_script("return view.teaching.best")
    assert best in TEACHING_GOOD
    assert f"{TEACHING_BAD}: this decision loses about 1.00 win chance (1.00–1.00); the engine prefers {best}" \
        in text, text
    assert "Your chance of winning after tile b a4: 0%" in text, text
    assert driver.find_elements(By.CSS_SELECTOR, f'#board .highlight[data-sq="{best.split()[-1]}"]')
    assert not driver.find_elements(By.CSS_SELECTOR, "#board .sq.target")     # no other decision meanwhile
    assert "loses too much" in driver.find_element(By.ID, "status").text
    assert page_view(driver)["moves"] == view["moves"]                          # nothing played yet
    buttons = [b.text for b in warning.find_elements(By.TAG_NAME, "button")]
    assert buttons == ["Take it back", f"Play {TEACHING_BAD} anyway", f"Play {best}"], buttons
    driver.execute_script("window.scrollTo(0, 0)")
    shot = tmp_path / "teaching.png"
    driver.save_screenshot(str(shot))
    if os.environ.get("TNE_SCREENSHOTS") == "1":
        driver.save_screenshot(str(Path(__file__).resolve().parent.parent / "docs" / "images" / "teaching.png"))
    assert shot.stat().st_size > 10_000
    # take it back: the warning goes and the board is the one drawn before
    warning.find_element(By.CSS_SELECTOR, "button.back").click()
    WebDriverWait(driver, 30).until(EC.invisibility_of_element_located((By.ID, "teaching")))
    WebDriverWait(driver, 30).until(
        lambda d: d.find_element(By.ID, "board").get_attribute("innerHTML") == board_before)
    assert page_view(driver)["moves"] == view["moves"] and not driver.find_element(By.ID, "message").text
