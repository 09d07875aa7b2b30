"""The picture of each game's table (``env.seat_picture``, ``render_mode="rgb_array"``): valid SVG and a drawn
array, the same public picture from ``render()``, and no other seat's hidden information in a seat's picture
(the scramblers of tests/test_seat_view.py, used as that test uses them)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import envs
from envs.core.picture import Picture
from tests.test_seat_view import OPTIONS, SCRAMBLE

SVG = "{http://www.w3.org/2000/svg}"
# each game at its smallest player count and one other
CASES = [(game, n) for game in sorted(SCRAMBLE)
         for n in (envs.spec(game).player_counts[0], envs.spec(game).player_counts[-1] if game != "medioevo_universale"
                   else 4)]
STEPS, EVERY, ARRAY_EVERY = 200, 10, 4


def _checkpoints(game: str, n: int, render_mode: str | None = None):
    """The env at every EVERY-th step of a seeded random game."""
    env = envs.make(game, num_players=n, render_mode=render_mode, **OPTIONS.get(game, {}))
    env.reset(seed=7)
    pick = np.random.default_rng(3)
    for step in range(STEPS):
        if env.engine.is_over:
            break
        if step % EVERY == 0:
            yield env
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    yield env


@pytest.mark.parametrize("game, n", CASES)
def test_pictures_are_svg_and_drawn_arrays(game, n):
    seen = 0
    for env in _checkpoints(game, n, render_mode="rgb_array"):
        if seen % ARRAY_EVERY == 0:  # an array takes a tenth of a second: every few checkpoints
            public = env.spec.draw_picture(env.engine, None)
            array = env.render()
            assert np.array_equal(array, public.to_rgb_array())
            assert array.dtype == np.uint8 and array.shape == (public.height, public.width, 3)
            colours = (array[..., 0].astype(np.int32) << 16) | (array[..., 1].astype(np.int32) << 8) | array[..., 2]
            assert len(np.unique(colours)) > 10, "a blank picture"
        for seat in range(n):
            svg = env.seat_picture(seat)
            root = ET.fromstring(svg)
            assert root.tag == f"{SVG}svg"
            assert not list(root.iter(f"{SVG}script")) and "href" not in svg
            if seat == seen % n:
                assert svg == env.spec.draw_picture(env.engine, seat).to_svg()
        seen += 1
    assert seen >= 5


@pytest.mark.parametrize("game, n", CASES)
def test_a_picture_never_shows_another_seats_hidden_information(game, n):
    spec = envs.spec(game)
    draw = spec.draw_picture
    rng = np.random.default_rng(0)
    pictures = 0
    for checkpoint, env in enumerate(_checkpoints(game, n)):
        engine = env.engine
        public = draw(engine, None).to_svg()
        for seat in range(n):
            own = draw(engine, seat).to_svg()
            scrambled = SCRAMBLE[game](engine, seat, rng)
            assert draw(scrambled, seat).to_svg() == own, f"seat {seat}'s picture shows another seat's secret"
            if seat == checkpoint % n:  # every seat's secrets in turn, scrambled under the public picture
                assert draw(scrambled, None).to_svg() == public, "the public picture shows a seat's secret"
            pictures += 1
    assert pictures >= 5 * n


def test_a_seats_picture_shows_its_own_hand():
    env = envs.make("catan_card", num_players=2)
    env.reset(seed=3)
    env.engine.hands[0] = [2, 0, 1, 0, 0]
    assert "your hand (seat 0): 3 cards" in env.seat_picture(0)
    assert "your hand" not in env.spec.draw_picture(env.engine, None).to_svg()


def test_seat_picture_refuses_a_bad_seat_and_an_unreset_env():
    env = envs.make("kingsburg")
    with pytest.raises(envs.ResetNeededError, match="reset"):
        env.seat_picture(0)
    env.reset(seed=0)
    with pytest.raises(envs.IllegalActionError, match="seats are 0..1"):
        env.seat_picture(2)
    with pytest.raises(envs.IllegalActionError, match="no seat"):
        env.seat_picture(True)


def test_a_game_without_a_picture_offers_no_rgb_array_mode():
    import dataclasses

    from envs.core.aec import TabletopEnv

    spec = dataclasses.replace(envs.spec("kingsburg"), draw_picture=None)
    assert "rgb_array" not in TabletopEnv(spec).metadata["render_modes"]
    assert "rgb_array" in envs.make("kingsburg").metadata["render_modes"]
    with pytest.raises(envs.ConfigError, match="render_mode"):
        TabletopEnv(spec, render_mode="rgb_array")
    env = TabletopEnv(spec)
    env.reset(seed=0)
    with pytest.raises(NotImplementedError, match="no picture"):
        env.seat_picture(0)


def test_rgb_array_render_before_reset_is_refused():
    env = envs.make("catan_card", render_mode="rgb_array")
    with pytest.raises(envs.ResetNeededError, match="reset"):
        env.render()


def test_svg_escapes_text_and_both_renderings_draw_the_same_shapes():
    picture = Picture(120, 60, background="#ffffff")
    with picture.group('a <tip> & "quote"'):
        picture.rect(10, 10, 40, 20, fill="#ff0000")
        picture.text(60, 40, "x < y & \x01", size=12)
    svg = picture.to_svg()
    root = ET.fromstring(svg)  # escaped: it parses
    assert root.find(f"{SVG}g/{SVG}title").text == 'a <tip> & "quote"'
    assert root.find(f"{SVG}g/{SVG}text").text == "x < y & ?"
    array = picture.to_rgb_array()
    assert array.shape == (60, 120, 3) and tuple(array[20, 30]) == (255, 0, 0) and tuple(array[5, 5]) == (255,) * 3


def test_a_picture_refuses_a_colour_it_cannot_render_alike():
    picture = Picture(10, 10)
    with pytest.raises(ValueError, match="#rrggbb"):
        picture.rect(0, 0, 5, 5, fill="red")
    with pytest.raises(ValueError, match="anchor"):
        picture.text(0, 0, "x", anchor="left")


def test_medioevo_picture_shows_only_the_own_money():
    env = envs.make("medioevo_universale", num_players=3)
    env.reset(seed=2)
    env.engine.money[1] = 4321
    assert "4321" not in env.seat_picture(0) and "4321" not in env.spec.draw_picture(env.engine, None).to_svg()
    assert "your money (seat 1): 4321 fl" in env.seat_picture(1)


def test_medioevo_picture_leaves_the_board_out_while_purchases_are_behind_the_screen():
    from envs.medioevo_universale.view import behind_screen

    env = envs.make("medioevo_universale", num_players=3, hidden_purchases=True)
    env.reset(seed=1)
    assert env.seat_picture(0).count("<circle") > 20  # the map's regions
    pick = np.random.default_rng(0)
    while not behind_screen(env.engine, 0):
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    hidden = env.seat_picture(0)
    assert "the board is hidden while seats" in hidden and "<circle" not in hidden


@pytest.mark.parametrize("game", sorted(SCRAMBLE))
def test_a_game_cut_off_by_max_turns_says_so_in_its_picture(game):
    """The engine knows no max_turns: the env's picture of a truncated game names no seat to move."""
    n = envs.spec(game).player_counts[0]
    env = envs.make(game, num_players=n, max_turns=1, **OPTIONS.get(game, {}))
    env.reset(seed=7)
    pick = np.random.default_rng(3)
    while env._final is None:
        before = env.seat_picture(0)
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    assert env._final["outcome"] == "truncated"
    assert "to move" in before and "game cut off" not in before
    for picture in [env.seat_picture(seat) for seat in range(n)]:
        texts = [t.text or "" for t in ET.fromstring(picture).iter(f"{SVG}text")]
        assert not any("to move" in t for t in texts), game
        assert any("game cut off" in t for t in texts) and any("max_turns 1" in t for t in texts), game
