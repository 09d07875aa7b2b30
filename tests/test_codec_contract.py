"""The action-codec contract (envs/core/codec.py), the same for every game and encoding: codecs registered by
name with ``flat`` first, chosen by ``make(..., action_encoding=...)``; ``decode`` and ``encode`` inverse
to each other on every legal index; ``apply_legal`` plays the index's move."""
import inspect

import numpy as np
import pytest

import envs
from envs import ConfigError
from envs.core.codec import ActionCodec

GAMES = envs.names()
CASES = [(game, encoding) for game in GAMES for encoding in envs.encodings(game)]
#: the move encodings list each state's moves by playing their decisions on engine clones, several times a step
#: here (the env, the twin): kingsburg's (the lightest game) check the shared code in the default run, the other
#: games' run with ``-m slow`` (medioevo_universale's take minutes each); tests/test_encodings.py checks every
#: game's indices, masks and api_test in the default run
SLOW = {(game, encoding) for game in GAMES if game != "kingsburg" for encoding in envs.encodings(game)[1:]}


@pytest.mark.parametrize("game", GAMES)
def test_flat_is_the_first_and_default_encoding(game):
    assert envs.encodings(game)[0] == "flat"
    env = envs.make(game)
    assert env.action_encoding == "flat" and env.codec.name == "flat"
    assert envs.make(game, action_encoding="flat").action_space("player_0") == env.action_space("player_0")


@pytest.mark.parametrize("game", GAMES)
def test_an_unknown_encoding_is_refused_with_the_valid_ones(game):
    with pytest.raises(ConfigError, match=r"no action encoding 'nope'.*flat"):
        envs.make(game, action_encoding="nope")


@pytest.mark.parametrize("game, encoding", CASES)
def test_every_codec_keeps_the_one_signature(game, encoding):
    spec = envs.spec(game)
    codec = spec.new_codec(spec.config_cls(), spec.default_players, encoding)
    assert isinstance(codec, ActionCodec) and codec.name == encoding
    for method in ("legal_actions", "decode", "encode", "apply_legal"):
        base = list(inspect.signature(getattr(ActionCodec, method)).parameters)
        assert list(inspect.signature(getattr(type(codec), method)).parameters) == base, method


@pytest.mark.parametrize("game, encoding", [pytest.param(*case, marks=pytest.mark.slow) if case in SLOW else case
                                            for case in CASES])
def test_decode_and_encode_are_inverse_on_every_legal_index(game, encoding):
    for n in sorted({envs.spec(game).player_counts[0], envs.spec(game).player_counts[-1]}):
        env = envs.make(game, num_players=n, action_encoding=encoding)
        env.reset(seed=n)
        codec, engine, pick = env.codec, env.engine, np.random.default_rng(n)
        fresh = envs.spec(game).new_encoder(env.config, n)  # its caches apart from the env's
        for _ in range(300):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            legal = env.legal_actions()
            for index in legal:
                assert codec.encode(engine, codec.decode(engine, index)) == index
            chosen = legal[int(pick.integers(len(legal)))]
            if encoding == "factored":  # a move over several steps: the codec holds the parts chosen so far
                env.step(chosen)
                continue
            twin = engine.clone()
            codec.apply_legal(twin, chosen)  # what the env's step plays, on a copy
            env.step(chosen)
            assert twin.current_player == engine.current_player and twin.is_over == engine.is_over
            if not engine.is_over:
                assert codec.legal_actions(twin) == codec.legal_actions(engine)
                seat = engine.current_player
                assert np.array_equal(fresh.encode(twin, seat), fresh.encode(engine, seat))
