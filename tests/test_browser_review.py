"""The Review and Watch pages of `tne-ai serve` in headless Chromium (Selenium).

Skips without Chromium, fails without it when CI=true (tests/browser.py).
Saves a screenshot of the review page in the test's temporary folder (the
docs' picture comes from tests/test_browser_layout.py).
"""
from __future__ import annotations

import pytest

from browser import await_review, chromium, served
from records import opening

pytestmark = pytest.mark.slow       # a browser: the fast tier leaves the module out


@pytest.fixture
def server_url():
    with served(workers=2) as url:
        yield url


@pytest.fixture
def driver():
    with chromium("1280,1000") as d:
        yield d


def test_review_page(server_url, driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    record = tmp_path / "game.txt"
    record.write_text(opening(40))
    wait = WebDriverWait(driver, 120)
    driver.get(server_url)
    driver.find_element(By.LINK_TEXT, "Review").click()
    wait.until(EC.presence_of_element_located((By.ID, "reviewfile"))).send_keys(str(record))
    its = driver.find_element(By.NAME, "iterations")
    its.clear()
    its.send_keys("60")
    driver.find_element(By.CSS_SELECTOR, "#reviewform button[type=submit]").click()
    wait.until(lambda d: "review?id=" in d.current_url)     # the page names the review it started
    await_review(server_url, driver.current_url.split("id=", 1)[1])
    wait.until(EC.visibility_of_element_located((By.ID, "reviewmain")))
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#board svg")))
    assert "ply 0 / 40" in driver.find_element(By.ID, "plyno").text
    for n in range(1, 4):
        driver.find_element(By.ID, "next").click()
        wait.until(lambda d: f"ply {n} / 40" in d.find_element(By.ID, "plyno").text)
    wait.until(lambda d: "ply 3: after 3 of 40 decisions" in d.find_element(By.ID, "board").get_attribute("innerHTML"))
    assert "engine's best" in driver.find_element(By.ID, "decision").text
    # every seat's accuracy, as the review's summary gives it
    summary = driver.execute_script("return doc.summary")
    said = [p.text for p in driver.find_elements(By.CSS_SELECTOR, "#accuracy p.accuracy")]
    assert len(said) == 2 and said == [
        f"Seat {s['seat']}: accuracy {s['accuracy']:.1f}% over {s['decisions']} decisions" for s in summary]
    assert "100%: every decision the engine's best" in driver.find_element(By.ID, "accuracy").text
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait.until(lambda d: "ply 2 / 40" in d.find_element(By.ID, "plyno").text)
    # the chart: one polyline per seat; a listed mistake jumps to its ply
    assert len(driver.find_elements(By.CSS_SELECTOR, "#chart svg polyline")) == 2
    mistake = driver.find_element(By.CSS_SELECTOR, "#mistakes li.mistake a")
    # plies count as `tne-ai review` counts them: the mistake at ply p is shown at the position before it
    target = int(mistake.find_element(By.XPATH, "..").get_attribute("data-ply"))
    assert mistake.text.startswith(f"ply {target}: ")
    mistake.click()
    wait.until(lambda d: f"ply {target} / 40" in d.find_element(By.ID, "plyno").text)
    title = f"ply {target}: "
    wait.until(lambda d: title in d.find_element(By.ID, "board").get_attribute("innerHTML"))
    assert f"ply {target}: seat " in driver.find_element(By.ID, "decision").text
    assert "loss" in driver.find_element(By.ID, "decision").text
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(tmp_path / "review.png"))
    assert (tmp_path / "review.png").stat().st_size > 10_000
    # a malformed record is refused with the reason
    bad = tmp_path / "bad.txt"
    bad.write_text("[players 2]\n[board standard]\n[seed 1]\nfly away\n")
    driver.find_element(By.ID, "reviewfile").send_keys(str(bad))
    driver.find_element(By.CSS_SELECTOR, "#reviewform button[type=submit]").click()
    wait.until(lambda d: "line 4" in d.find_element(By.ID, "message").text)


def test_watch_page_replays_a_record(server_url, driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    record = tmp_path / "game.txt"
    record.write_text(opening(10))
    wait = WebDriverWait(driver, 60)
    driver.get(server_url + "watch")
    driver.execute_script("document.getElementById('delay').value = 0")
    driver.find_element(By.ID, "watchfile").send_keys(str(record))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) == 10)
    wait.until(lambda d: d.find_element(By.ID, "record").is_displayed())
    assert driver.find_elements(By.CSS_SELECTOR, "#board svg")


def test_watch_page_live_engines_show_public_boards(server_url, driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 120)
    driver.get(server_url + "watch")
    its = driver.find_element(By.NAME, "iterations")
    its.clear()
    its.send_keys("5")
    driver.execute_script("document.getElementById('delay').value = 100")
    driver.find_element(By.CSS_SELECTOR, "#watchform button[type=submit]").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) >= 6)
    driver.find_element(By.ID, "pause").click()
    assert driver.find_element(By.ID, "pause").text == "Resume"
    board = driver.find_element(By.ID, "board").get_attribute("innerHTML")
    assert "<svg" in board and 'class="hand"' not in board
    assert not driver.find_element(By.ID, "record").is_displayed()
    driver.save_screenshot(str(tmp_path / "watch.png"))
