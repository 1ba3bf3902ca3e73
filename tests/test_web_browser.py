"""The playtest page in a real headless Chromium: a whole match of every shipped ruleset
played by clicking cards and buttons, screenshots that are not blank, and every WebSocket
frame the page receives checked for cards the seat may not see."""

from __future__ import annotations

import io
import json
import time
import urllib.request

import pytest

from rulesengine import replay
from tests.browser import CHROMIUM, NO_CHROMIUM, launched
from tests.test_web_session import SHORT
from tests.web_helpers import check_wire, link, make_session, positions, running

pytest.importorskip("starlette", reason="the server needs the extra 'web'")
pytest.importorskip("uvicorn", reason="the server needs the extra 'web'")
playwright = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright (extra 'test')")
Image = pytest.importorskip("PIL.Image", reason="the screenshot check needs pillow (extra 'test')")
if CHROMIUM is None:
    pytest.skip(NO_CHROMIUM, allow_module_level=True)

# seeds whose matches are short with these settings (20 to 32 moves of the person's), so the
# five whole matches take seconds, not minutes
SEEDS = {"pan": 26, "pan-reversed-spades": 26, "padan": 0, "padan-original": 0, "padvinderspel": 4}
MAX_CLICKS = 400  # far more than any of these matches needs: a page that stops answering fails


@pytest.fixture(scope="module")
def browser():
    with launched(playwright) as chromium:
        yield chromium


def _open(browser, address: str):
    page = browser.new_page(viewport={"width": 1200, "height": 860})
    page.set_default_timeout(8_000)
    problems: list[str] = []
    frames: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    # the page may load nothing from anywhere but its own server
    page.route(
        "**/*",
        lambda route: route.continue_() if route.request.url.startswith(address.split("/play/")[0]) else route.abort(),
    )
    page.goto(address)
    _wait(page, "document.body.dataset.turn !== undefined")
    return page, problems, frames


def _wait(page, condition: str, seconds: float = 8.0) -> None:
    """Poll a condition in the page (the page's policy forbids evaluating strings in it, so
    Playwright's wait_for_function cannot run there; evaluate goes through the debugger)."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(condition):
        assert time.monotonic() < deadline, f"the page never reached: {condition}"
        time.sleep(0.01)


def _not_blank(png: bytes) -> bool:
    pixels = Image.open(io.BytesIO(png)).convert("RGB")
    colours = pixels.getcolors(maxcolors=1 << 20) or []
    common = max(count for count, _ in colours)
    total = pixels.width * pixels.height
    return len(colours) > 20 and common < 0.95 * total


_PAGE = """() => {
  const first = document.querySelector("#move-buttons button.move");
  return {turn: document.body.dataset.turn, version: document.body.dataset.version,
          cards: first ? JSON.parse(first.dataset.cards) : null};
}"""


def _click_move(page, cards: list[str]) -> None:
    """Play the first legal move (whose cards are `cards`) as a person would: by its card, by
    selecting its cards and confirming, or by its button."""
    if not cards:
        page.locator("#move-buttons button.move").first.click()
        return
    for name in cards:
        quoted = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
        page.locator(f".card.playable:not(.selected)[data-name={quoted}]").first.click()
        if page.evaluate("document.body.dataset.turn !== 'mine' || document.getElementById('selection-bar').hidden"):
            return  # one card that only one move plays: played at once
    page.locator("#confirm").click()


def _play_to_the_end(page) -> int:
    clicks = 0
    while True:
        _wait(page, "['mine', 'over', 'handover'].includes(document.body.dataset.turn)")
        now = page.evaluate(_PAGE)
        if now["turn"] == "over":
            return clicks
        if now["turn"] == "handover":
            page.locator("#reveal").click()
            _wait(page, "document.body.dataset.turn !== 'handover'")
            continue
        _click_move(page, now["cards"])
        _wait(page, f"document.body.dataset.version !== {json.dumps(now['version'])}")
        clicks += 1
        assert clicks < MAX_CLICKS


@pytest.mark.parametrize("ruleset", sorted(SHORT))
def test_a_whole_match_is_played_by_clicking(browser, ruleset):
    assert set(SEEDS) == set(SHORT)
    players, options = SHORT[ruleset]
    hot_seat = ruleset == "padvinderspel"  # one game is played by two people at one screen
    people = (0, 1) if hot_seat else (0,)
    session = make_session(
        ruleset, players, options, SEEDS[ruleset], people=people, opponents="greedy", hot_seat=hot_seat
    )
    with running(session) as base:
        page, problems, frames = _open(browser, link(base, session))
        if not hot_seat:
            page.wait_for_selector("#mine .card")
            assert _not_blank(page.screenshot())
        clicks = _play_to_the_end(page)
        assert session.state.is_terminal() and clicks > 5
        assert page.locator("#result").text_content().strip()
        assert _not_blank(page.screenshot(full_page=True))
        download = page.locator("#download").get_attribute("href")
        with urllib.request.urlopen(base + download) as answer:
            data = json.loads(answer.read())
        page.close()
    assert replay.verify(data).returns() == session.state.returns()
    assert problems == []
    states = positions(session)
    messages = [json.loads(frame) for frame in frames]
    shown = [m for m in messages if m["type"] == "state"]
    assert len(shown) > clicks
    for message in shown:
        check_wire(message, states[message["decisions"]], message["seat"])
    if hot_seat:
        assert any(m["type"] == "handover" for m in messages)
        assert all(set(m) & {"zones", "moves", "log"} == set() for m in messages if m["type"] == "handover")


def test_undo_and_a_new_match_from_the_page(browser):
    session = make_session("padvinderspel", 2, {"target": 1}, 3, opponents="greedy")
    with running(session) as base:
        page, problems, _frames = _open(browser, link(base, session))
        _wait(page, "document.body.dataset.turn === 'mine'")
        assert page.locator("#undo").is_disabled()
        before = page.locator("#mine").inner_text()
        _click_move(page, page.evaluate(_PAGE)["cards"])
        _wait(page, "document.body.dataset.turn === 'mine' && !document.querySelector('#undo').disabled")
        page.locator("#undo").click()
        _wait(page, "document.querySelector('#undo').disabled")
        assert page.locator("#mine").inner_text() == before
        page.locator("#seed").fill("-77")
        page.locator("#new").click()
        _wait(page, "document.querySelector('#facts').textContent.includes('seed -77')")
        assert session.seed == -77 and "match 2" in page.locator("#facts").text_content()
        page.close()
    assert problems == []
