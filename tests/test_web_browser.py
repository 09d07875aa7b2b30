"""The page of play.py --web in a real browser: Debian's chromium, headless, driven by Playwright.

By default a whole game of catan_card against the random agent is played by clicking, then replayed forwards and
backwards. With ``-m slow``, a whole game of every game against a freshly trained checkpoint and against the
heuristic. Neither the page's HTML nor any JSON response it receives may hold another seat's hidden information.
Without /usr/bin/chromium (or Playwright) the tests skip, except in CI (``CI`` set), where they fail:
scripts/setup installs both there."""
from __future__ import annotations

import html
import json
import os
import random
import shutil
import time

import pytest

import envs
import play
from envs.core import records
from webplay.server import Server
from webplay.session import GameSession

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CONFIGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs")


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


class OtherSeatsSecrets:
    """Wraps ``GameSession.state`` to collect, at every state served, the lines of each other seat's view
    (``env.seat_view``) that ``viewer``'s view at that moment has not: that seat's hidden information, as
    ``your hand (seat 1): brick x1, ore x2``, which ``viewer``'s page may never show. ``fresh()`` hands over the
    lines collected since its last call, so that each page is checked against the secrets of its own moment."""

    def __init__(self, session: GameSession, viewer: int):
        self.lines: set[str] = set()
        self._fresh: set[str] = set()
        self._session, self._viewer, self._state = session, viewer, session.state
        session.state = self

    def __call__(self, seat: int) -> dict:
        env = self._session.env
        own = set(env.seat_view(self._viewer).splitlines())
        for other in range(env.num_players):
            if other != self._viewer:
                secret = set(env.seat_view(other).splitlines()) - own
                self.lines |= secret
                self._fresh |= secret
        return self._state(seat)

    def fresh(self) -> set[str]:
        lines, self._fresh = self._fresh, set()
        return lines


def _strings(value):
    """Every string in a JSON value (keys and values): JSON text escapes some characters a line may hold."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def assert_nothing_leaked(secrets: set[str], texts) -> None:
    """No line of ``secrets`` in any of ``texts`` (HTML unescaped: a line may hold & or <)."""
    for text in map(html.unescape, texts):
        leaked = [line for line in secrets if line in text]
        assert not leaked, f"another seat's hidden information reached the page: {leaked}"


def play_by_clicking(page, choose, secrets: OtherSeatsSecrets | None = None, responses: list | None = None,
                     stop_after: int | None = None) -> int:
    """Play the page's seat to the end of the game (or for ``stop_after`` clicks): at each of its decisions click
    the ``choose(n)``-th of the n legal-move buttons and wait for the next position. With ``secrets``, the page
    after each click and the API ``responses`` received meanwhile (emptied) are checked against the other seats'
    hidden information of that moment. The number of clicks."""
    clicks = 0
    while True:
        page.wait_for_selector("#moves button.move, #result-box:not([hidden])")
        if secrets is not None:
            lines = secrets.fresh()
            bodies = [response.text() for response in responses]
            responses.clear()
            assert_nothing_leaked(lines, [page.content()])
            assert_nothing_leaked(lines, [s for body in bodies for s in _strings(json.loads(body))])
        if page.is_visible("#result-box") or clicks == stop_after:
            return clicks
        status = page.inner_text("#status")
        assert status.endswith(": your move"), status
        ply = page.evaluate("state.ply")
        buttons = page.locator("#moves button.move")
        buttons.nth(choose(buttons.count())).click()
        page.wait_for_function(f"state.over || state.ply > {ply}")
        clicks += 1
        assert clicks < 20000, "the game does not end"


def open_page(driver, server: Server, seat: int, responses: list):
    """Chromium on ``seat``'s page; the API responses it receives are appended to ``responses``."""
    browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    page = browser.new_page(accept_downloads=True, viewport={"width": 1400, "height": 1600})
    page.on("response", lambda response: responses.append(response) if "/api/" in response.url else None)
    page.goto(server.url(seat))
    return browser, page


def download_record(page, path):
    with page.expect_download() as download:
        page.click("#download")
    download.value.save_as(path)
    return path


def test_a_game_played_and_replayed_in_the_browser(tmp_path):
    sync_playwright = _browser_or_skip()
    args = play.build_parser().parse_args(["--game", "catan_card", "--opponents", "random", "--seed", "11"])
    session = GameSession(args, [0])
    secrets = OtherSeatsSecrets(session, 0)
    server = Server(session, "127.0.0.1", 0).start()
    responses: list = []
    try:
        with sync_playwright() as driver:
            browser, page = open_page(driver, server, 0, responses)
            clicks = play_by_clicking(page, lambda _count: 0, secrets, responses)
            assert page.inner_text("#status") == "game over"
            assert page.inner_text("#result").startswith("game over: seat")
            record_length = len(session.env._moves)
            path = download_record(page, tmp_path / "record.json")
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
            # the replay of seat 0's view at the start: still nothing of seat 1's hand from the game
            assert_nothing_leaked({line for line in secrets.lines if "(seat 1)" in line}, [page.content()])
            browser.close()
    finally:
        server.stop()
    assert clicks > 10
    assert sum(line.startswith("your hand (seat 1)") for line in secrets.lines) > 5, \
        "the opponent's hand changed during the game"


def test_the_log_adds_the_new_lines_and_is_drawn_again_for_a_new_game():
    sync_playwright = _browser_or_skip()
    args = play.build_parser().parse_args(["--game", "kingsburg", "--opponents", "random", "--seed", "4"])
    session = GameSession(args, [0])
    server = Server(session, "127.0.0.1", 0).start()
    shown_log = "() => [...document.querySelectorAll('#log li')].map((item) => item.textContent)"
    try:
        with sync_playwright() as driver:
            browser, page = open_page(driver, server, 0, [])
            assert play_by_clicking(page, lambda _count: 0, stop_after=3) == 3
            page.evaluate("document.querySelector('#log li').dataset.mark = 'drawn before'")
            play_by_clicking(page, lambda _count: 0, stop_after=3)
            # the lines shown before are the same elements, not drawn again
            assert page.evaluate("document.querySelector('#log li').dataset.mark") == "drawn before"
            assert page.evaluate(shown_log) == session.state(0)["log"]
            ply = page.evaluate("state.ply")
            page.click("#new-game")
            page.wait_for_function(f"state.ply < {ply}")
            assert page.evaluate(shown_log) == session.state(0)["log"]
            assert page.evaluate("document.querySelectorAll('#log li[data-mark]').length") == 0
            browser.close()
    finally:
        server.stop()


# -- every game, against a checkpoint and the heuristic (-m slow) -----------------------------------
# kingsburg's base game hides nothing but an enemy card peeked at: its modules 2 and 3 (governor cards, army
# tokens committed face down) give its page another seat's hidden information to keep
HIDDEN_RULES = {"kingsburg": {"module_governors": True, "module_army_tokens": True}}


def configured_settings(game: str) -> tuple[int, dict]:
    """The player count and env settings of configs/<game>.yaml (e.g. mythotopia's max_turns: the game has no
    forced end), with the game's HIDDEN_RULES."""
    from agents.training.config import read_yaml

    config = read_yaml(os.path.join(CONFIGS, f"{game}.yaml"))
    return config["num_players"], {**(config.get("env") or {}), **HIDDEN_RULES.get(game, {})}


def tiny_checkpoint(game: str, env: dict, run_dir) -> str:
    """A checkpoint of configs/<game>.yaml with ``env`` trained for 2,048 steps (one PPO update): a policy barely
    trained, but saved, loaded and played as any checkpoint is."""
    from agents.training.config import load_config
    from agents.training.trainer import train

    config = load_config(os.path.join(CONFIGS, f"{game}.yaml"), {
        "env": env, "total_steps": 2048, "n_envs": 2, "vec_env": "dummy", "progress_bar": False,
        "run_dir": str(run_dir), "ppo": {"n_steps": 1024, "batch_size": 256}})
    return str(train(config).final_model)


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["checkpoint", "heuristic"])
@pytest.mark.parametrize("game", envs.names())
def test_a_whole_game_of_every_game_in_the_browser(game, opponent, tmp_path):
    """The human seat plays a whole game by clicking legal-move buttons chosen at random (seeded); the page
    shows the result and every seat's score (a game cut by max_turns too), the downloaded record replays to the
    same end, and no page or response holds another seat's hidden information. A picture of the final page
    is left in tmp_path (<game>_<opponent>.png)."""
    sync_playwright = _browser_or_skip()
    num_players, env = configured_settings(game)
    spec = "heuristic"
    if opponent == "checkpoint":
        spec = "checkpoint=" + tiny_checkpoint(game, env, tmp_path / "run")
    argv = ["--game", game, "--opponents", spec, "--seed", "5", "--num-players", str(num_players)]
    for key, value in env.items():
        argv += ["--env", f"{key}={json.dumps(value)}"]
    session = GameSession(play.build_parser().parse_args(argv), [0])
    secrets = OtherSeatsSecrets(session, 0)
    server = Server(session, "127.0.0.1", 0).start()
    pick = random.Random(0)
    responses: list = []
    try:
        with sync_playwright() as driver:
            browser, page = open_page(driver, server, 0, responses)
            start = time.perf_counter()
            clicks = play_by_clicking(page, pick.randrange, secrets, responses)
            seconds = time.perf_counter() - start
            final = session.env._final
            result = page.inner_text("#result")
            assert page.inner_text("#status") == "game over"
            assert result == session.state(0)["result"]
            assert result.startswith("the game was cut off" if final["outcome"] == "truncated" else "game over: seat")
            rows = [row.split("\t") for row in page.inner_text("#scores").splitlines()]
            assert [float(row[-1]) for row in rows] == [float(s) for s in final["scores"]]
            page.screenshot(path=str(tmp_path / f"{game}_{opponent}.png"), full_page=True)
            record = records.load_record(download_record(page, tmp_path / "record.json"))  # replayed and checked
            browser.close()
    finally:
        server.stop()
    assert record["result"]["scores"] == list(final["scores"]) and len(record["moves"]) == len(session.env._moves)
    assert record["agents"][0] == "human" and clicks == sum(m["seat"] == 0 for m in record["moves"])
    assert secrets.lines, "no other seat had hidden information to keep: the check above checked nothing"
    print(f"\n{game} vs {opponent}: {clicks} clicks, {seconds:.0f} s, {len(secrets.lines)} hidden lines "
          f"checked; {result}")


def test_the_hidden_information_check_finds_another_seats_view_in_a_page():
    session = GameSession(play.build_parser().parse_args(["--game", "catan_card", "--opponents", "random",
                                                           "--seed", "11"]), [0])
    secrets = OtherSeatsSecrets(session, 0)
    state = session.state(0)
    lines = secrets.fresh()
    assert any(line.startswith("your hand (seat 1): ") for line in lines) and secrets.fresh() == set()
    assert_nothing_leaked(lines, [json.dumps(state), f"<pre>{html.escape(state['view'])}</pre>"])
    leaky = f"<pre>{html.escape(session.env.seat_view(1))}</pre>"
    with pytest.raises(AssertionError, match=r"reached the page: .*your hand \(seat 1\)"):
        assert_nothing_leaked(lines, [leaky])
    assert list(_strings({"view": ["a", {"b": "c"}], "n": 1})) == ["view", "a", "b", "c", "n"]


def test_without_chromium_the_browser_test_skips_but_fails_in_ci(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs /usr/bin/chromium"):
        _browser_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="in CI it must run"):
        _browser_or_skip()
