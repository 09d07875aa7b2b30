"""The page of play.py --web in a real browser: Debian's chromium, headless, driven by Playwright.

A whole game of catan_card against the random agent is played by clicking, then replayed forwards and backwards;
neither the page's HTML nor any JSON response it receives may hold the other seat's hidden cards. Without
/usr/bin/chromium (or Playwright) the test skips, except in CI (``CI`` set), where it fails: scripts/setup
installs both there."""
from __future__ import annotations

import os
import shutil

import pytest

import play
from webplay.server import Server
from webplay.session import GameSession

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _browser_or_skip():
    missing = []
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
        missing.append("Playwright (pip install the browser extra)")
    if not shutil.which(CHROMIUM):
        missing.append(f"{CHROMIUM} (apt-get install chromium; scripts/setup does as root)")
    if missing:
        message = "the browser test needs " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message + ": in CI it must run")
        pytest.skip(message)
    return sync_playwright


class HiddenHands:
    """Wraps ``GameSession.state`` to collect, at every state served, ``seat``'s hand as its view shows it
    (``your hand (seat 1): brick x1, ore x2``), which no other seat's page may ever show."""

    def __init__(self, session: GameSession, seat: int):
        self.lines: set[str] = set()
        self._session, self._seat, self._state = session, seat, session.state
        session.state = self

    def __call__(self, viewer: int) -> dict:
        view = self._session.env.seat_view(self._seat)
        self.lines.update(line for line in view.splitlines() if line.startswith(f"your hand (seat {self._seat})"))
        return self._state(viewer)


def test_a_game_played_and_replayed_in_the_browser(tmp_path):
    sync_playwright = _browser_or_skip()
    args = play.build_parser().parse_args(["--game", "catan_card", "--opponents", "random", "--seed", "11"])
    session = GameSession(args, [0])
    hands = HiddenHands(session, 1)
    server = Server(session, "127.0.0.1", 0).start()
    responses: list[str] = []
    pages: list[str] = []
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(accept_downloads=True)
            page.on("response", lambda response: responses.append(response)
                    if "/api/" in response.url else None)
            page.goto(server.url(0))
            clicks = 0
            while True:
                page.wait_for_selector("#moves button.move, #result-box:not([hidden])")
                if page.is_visible("#result-box"):
                    break
                pages.append(page.content())
                status = page.inner_text("#status")
                assert status == "seat 0: your move", status
                ply = page.evaluate("state.ply")
                page.locator("#moves button.move").first.click()
                page.wait_for_function(f"state.over || state.ply > {ply}")
                clicks += 1
                assert clicks < 1000
            pages.append(page.content())
            assert page.inner_text("#status") == "game over"
            assert page.inner_text("#result").startswith("game over: seat")
            record_length = len(session.env._moves)

            with page.expect_download() as download:
                page.click("#download")
            path = tmp_path / "record.json"
            download.value.save_as(path)
            assert path.stat().st_size > 0

            page.click("#replay-this")
            page.wait_for_selector("#replay:not([hidden])")
            assert page.inner_text("#r-move") == f"move 0/{record_length}: the start"
            for k in range(1, 4):
                page.click("#r-next")
                page.wait_for_function(f"document.getElementById('r-move').textContent.startsWith('move {k}/')")
            page.click("#r-back")
            page.wait_for_function("document.getElementById('r-move').textContent.startsWith('move 2/')")
            page.click("#r-end")
            page.wait_for_function(f"document.getElementById('r-move').textContent"
                                   f".startsWith('move {record_length}/')")
            assert page.inner_text("#r-result").startswith("game over")
            page.set_input_files("#r-file", str(path))  # the downloaded record, uploaded again
            page.wait_for_function("document.getElementById('r-move').textContent.startsWith('move 0/')")
            pages.append(page.content())
            bodies = [response.text() for response in responses]
            browser.close()
    finally:
        server.stop()
    assert clicks > 10
    assert len(hands.lines) > 5, "the opponent's hand changed during the game"
    assert len(bodies) > clicks
    for text in pages + bodies:
        leaked = [line for line in hands.lines if line in text]
        assert not leaked, f"the other seat's hidden cards reached the page: {leaked}"


def test_without_chromium_the_browser_test_skips_but_fails_in_ci(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs /usr/bin/chromium"):
        _browser_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="in CI it must run"):
        _browser_or_skip()
