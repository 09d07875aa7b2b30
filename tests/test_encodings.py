"""The move encodings (envs/core/encodings.py) of every game that registers them: PettingZoo's api_test at every
player count; a flat game replayed in each encoding, move by move, reaches the same states and the same end; random
play never meets an empty mask; each encoding's own rules (the masks, the mapping of illegal combinations, the
pointer's rows) and its errors."""
import copy
import itertools
import json
import pickle

import numpy as np
import pytest

import envs
from envs import IllegalActionError
from envs.core import testing
from envs.core.moves import split_moves

MOVE_ENCODINGS = ("composite", "factored", "factored_independent", "pointer")
GAMES = [game for game in envs.names() if "composite" in envs.encodings(game)]
CASES = [(game, encoding) for game in GAMES for encoding in MOVE_ENCODINGS]
#: (game, encoding) pairs whose whole-game tests other than ``api_test`` are too slow for the default run (they run
#: with ``-m slow``); ``api_test`` runs for every pair by default.
#: seventh_stone's random play in complete moves is mostly move orders (listed by following each on a clone), and
#: its composite mask (973,845 indices) and pointer table (512 rows) are built at every step: together these
#: would add about 30 s (2 workers) to the game's 45 s in the default run.
#: medioevo_universale's whole games in a move encoding take minutes (about 1,400 decisions, each move listed by
#: playing its decisions on clones of a large engine); a mythotopia game takes thousands of moves, each listed the
#: same way: their whole-game tests would add several minutes.
HEAVY: set[tuple[str, str]] = ({("seventh_stone", "composite"), ("seventh_stone", "pointer")}
                               | {(game, encoding) for game in ("medioevo_universale", "mythotopia")
                                  for encoding in MOVE_ENCODINGS})
WHOLE_GAME_CASES = [pytest.param(*case, marks=pytest.mark.slow) if case in HEAVY else case for case in CASES]
#: the game the tests of one encoding's machinery (training, records, tournaments) play: the quickest
LIGHT = "kingsburg"


def random_action(env, obs, pick: np.random.Generator):
    return env.action_space(env.agent_selection).sample_with(pick, obs["action_mask"]) if not env.codec.discrete else \
        int(pick.choice(np.flatnonzero(obs["action_mask"].view(bool))))  # bool: 15x faster on a large mask


def play_flat(game: str, n: int, seed: int, steps: int = 10_000):
    """A seeded random flat game: the engine at its start and the flat decisions taken."""
    env = envs.make(game, num_players=n)
    env.reset(seed=seed)
    start = env.engine.clone()
    pick = np.random.default_rng(seed)
    decisions = []
    for agent in env.agent_iter(steps):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        decisions.append(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
        env.step(decisions[-1])
    return start, decisions, env.engine


@pytest.mark.parametrize("game, encoding", CASES)
def test_api_test_at_every_player_count(game, encoding):
    for n in envs.spec(game).player_counts:
        testing.run_api_test(envs.make(game, num_players=n, action_encoding=encoding), num_cycles=60)


@pytest.mark.parametrize("game, encoding", WHOLE_GAME_CASES)
def test_a_flat_game_replayed_move_by_move_reaches_the_same_end(game, encoding):
    n = envs.spec(game).player_counts[0]
    for seed in range(2):
        start, decisions, flat_end = play_flat(game, n, seed)
        env = envs.make(game, num_players=n, action_encoding=encoding)
        env.reset(seed=seed)
        assert pickle.dumps(env.engine.clone()) == pickle.dumps(start.clone())
        moves = split_moves(start, env.codec.moves_of, decisions)
        assert sum(map(len, moves)) == len(decisions)
        for chain in moves:  # each a legal move, maybe in another order of a set of decisions (may_follow)
            assert env.codec.moves_of.parts_of(chain) in env.codec.legal_moves(env.engine), chain
            for action in _actions(env, chain):
                env.step(action)
        assert env.engine.scores() == flat_end.scores() and env.engine.is_over == flat_end.is_over
        assert pickle.dumps(env.engine) == pickle.dumps(flat_end)


def _actions(env, chain):
    """Play-ready actions for one complete move: for ``factored``, one per step, each read from the mask the
    codec offers after the previous one (so the test follows the codec's own order of parts)."""
    codec = env.codec
    if codec.discrete or env.action_encoding == "factored_independent":
        yield codec.encode(env.engine, chain)
        return
    parts = codec.moves_of.parts_of(chain)
    while True:
        yield codec.step_toward(env.engine, parts)
        if not codec.in_progress():  # the move is played
            return


@pytest.mark.parametrize("game, encoding", WHOLE_GAME_CASES)
def test_random_play_never_meets_an_empty_mask(game, encoding):
    for n in sorted({envs.spec(game).player_counts[0], envs.spec(game).player_counts[-1]}):
        env = envs.make(game, num_players=n, action_encoding=encoding)
        pick = np.random.default_rng(n)
        for seed in range(2):
            env.reset(seed=seed)
            for agent in env.agent_iter(20_000):
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                assert obs["action_mask"].any(), (seed, env.engine.turn)
                env.step(random_action(env, obs, pick))
            assert not env.agents, "the game did not end"


def states_with_several_moves(game: str, encoding: str, count: int = 20):
    """Envs of seeded random games, each stopped at a decision with more than one legal move of several parts."""
    env = envs.make(game, action_encoding=encoding)
    pick = np.random.default_rng(0)
    env.reset(seed=0)
    found = 0
    for agent in env.agent_iter(20_000):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            return
        moves = env.codec.legal_moves(env.engine)
        if len(moves) > 1 and any(len(chain) > 1 for chain in moves.values()):
            yield env, obs
            found += 1
            if found == count:
                return
            obs, _, terminated, truncated, _ = env.last()  # the test may have stepped
            if terminated or truncated:
                return
        env.step(random_action(env, obs, pick))


@pytest.mark.parametrize("game", GAMES)
def test_composite_indices_are_the_legal_moves_exactly(game):
    for env, obs in states_with_several_moves(game, "composite"):
        codec = env.codec
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        assert legal == codec.legal_actions(env.engine)
        assert sorted(codec.decode(env.engine, i) for i in legal) == sorted(codec.legal_moves(env.engine).values())
        chain = codec.decode(env.engine, legal[-1])
        assert codec.action_name(legal[-1]) == codec.parts_name(codec.moves_of.parts_of(chain))


@pytest.mark.parametrize("game", GAMES)
def test_factored_masks_are_exact_given_the_parts_chosen(game):
    checked = 0
    for env, obs in states_with_several_moves(game, "factored"):
        codec, engine = env.codec, env.engine
        moves = codec.legal_moves(engine)
        chosen, part, left = codec._progress(engine)
        heads = np.split(obs["action_mask"], np.cumsum(codec.nvec)[:-1])
        assert set(np.flatnonzero(heads[part])) == {parts[part] for parts in left}
        assert left and all(parts in moves and parts[:part] == tuple(chosen) for parts in left)
        assert obs["substep"][part] == 1 and obs["substep"][:len(codec.nvec)].sum() == 1
        # a value its mask does not allow is refused, with nothing changed
        refused = int(np.flatnonzero(heads[part] == 0)[0])
        action = list(chosen) + [0] * (len(codec.nvec) - len(chosen))
        action[part] = refused
        before = pickle.dumps(engine)
        with pytest.raises(IllegalActionError, match="illegal"):
            env.step(action)
        assert pickle.dumps(engine) == before and codec._progress(engine)[0] == chosen
        # the first part chosen as the value most moves share: the next step's mask allows exactly those moves
        values = [parts[part] for parts in left]
        first = next(parts for parts in left if parts[part] == max(values, key=values.count))
        if part < len(codec.nvec) - 1 and len(set(values)) > 1:
            step = list(first[:part + 1]) + [0] * (len(codec.nvec) - part - 1)
            seat = engine.current_player
            env.step(step)
            if codec._chosen:  # still the same move: the seat decides its next part
                assert engine.current_player == seat
                _, nxt, rest = codec._progress(engine)
                assert all(parts[:part + 1] == first[:part + 1] for parts in rest)
                mask = np.split(env.observe(env.agent_selection)["action_mask"], np.cumsum(codec.nvec)[:-1])[nxt]
                assert set(np.flatnonzero(mask)) == {parts[nxt] for parts in rest}
                checked += 1
    assert checked, "no move with a second part to choose was met"


@pytest.mark.parametrize("game", GAMES)
def test_factored_independent_plays_an_illegal_combination_as_the_nearest_legal_move(game):
    checked = 0
    for env, obs in states_with_several_moves(game, "factored_independent", count=200):
        codec, engine = env.codec, env.engine
        moves = codec.legal_moves(engine)
        heads = [np.flatnonzero(m) for m in np.split(obs["action_mask"], np.cumsum(codec.nvec)[:-1])]
        combo = next((tuple(int(v) for v in combo) for combo in itertools.product(*heads)
                      if tuple(int(v) for v in combo) not in moves), None)
        if combo is None:
            continue

        def leading_agreement(parts):
            return next((p for p, (value, chosen) in enumerate(zip(parts, combo)) if value != chosen), len(parts))

        longest = max(map(leading_agreement, moves))
        expected = next(parts for parts in moves if leading_agreement(parts) == longest)
        assert codec.nearest(engine, combo) == expected
        twin = engine.clone()
        codec.flat.apply_legal(twin, moves[expected][0]) if len(moves[expected]) == 1 else \
            [codec.flat.apply_legal(twin, i) for i in moves[expected]]
        env.step(list(combo))
        assert pickle.dumps(engine) == pickle.dumps(twin)
        checked += 1
        if checked == 3:
            break
    assert checked, "no illegal combination of allowed part values was met"


@pytest.mark.parametrize("game", GAMES)
def test_pointer_rows_show_the_legal_moves_to_the_acting_seat_only(game):
    for env, obs in states_with_several_moves(game, "pointer"):
        codec = env.codec
        rows = codec.rows(env.engine)
        assert obs["action_mask"].sum() == len(rows) and obs["action_mask"][:len(rows)].all()
        for row, (parts, chain) in enumerate(rows):
            assert obs["moves"][row].tolist() == [value + 1 for value in parts]  # 0 stands for no move
            assert codec.decode(env.engine, row) == chain
        assert not obs["moves"][len(rows):].any()
        for other in env.agents:
            if other != env.agent_selection:
                seen = env.observe(other)
                assert not seen["moves"].any() and not seen["action_mask"].any()


def test_a_flat_agent_ends_its_move_where_the_grain_lists_the_move_whole():
    """catan_card, seed 6: a city built by the heuristic turns up the robber raid, and the builder discards. The
    listed moves end with the build (its may_continue is False); the heuristic's own move, played decision by
    decision, ended there too only since play_move asks may_continue (before, it went on into the discard, a move
    no list holds, and its parts raised KeyError)."""
    from agents import make_agent
    from agents.base import policy_observation
    from agents.encoded import playing_in

    seed = 6
    env = envs.make("catan_card", num_players=2, action_encoding="factored")
    env.reset(seed=seed)
    players = [playing_in(env, make_agent(kind, "catan_card", 2, seed=seed)) for kind in ("heuristic", "random")]
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        env.step(players[(seat + seed) % 2].act(policy_observation(obs), obs["action_mask"]))
    assert env.engine.is_over


@pytest.mark.parametrize("copy_env", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))])
def test_a_copy_of_a_factored_env_in_the_middle_of_a_move_plays_on_like_it(copy_env):
    """A copy lists its legal moves afresh: the parts chosen so far must still count (play.py probes moves on
    copies of the env)."""
    env = envs.make(LIGHT, num_players=2, action_encoding="factored")
    env.reset(seed=3)
    pick = np.random.default_rng(0)
    middles = 0
    for _ in range(400):
        if env.engine.is_over:
            break
        if env.codec.in_progress():
            twin = copy_env(env)
            action = env.legal_actions()[int(pick.integers(len(env.legal_actions())))]
            assert twin.legal_actions() == env.legal_actions()
            twin.step(action)
            env.step(action)
            assert np.array_equal(twin.observe(twin.agent_selection)["observation"],
                                  env.observe(env.agent_selection)["observation"])
            middles += 1
            continue
        env.step(env.legal_actions()[int(pick.integers(len(env.legal_actions())))])
    assert middles > 3


@pytest.mark.parametrize("game", GAMES)
def test_a_factored_action_of_the_wrong_shape_is_refused(game):
    env = envs.make(game, action_encoding="factored")
    env.reset(seed=0)
    before = pickle.dumps(env.engine)
    for bad in (3, [0], [0] * (len(env.codec.nvec) + 1), "x"):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert pickle.dumps(env.engine) == before


def test_a_composite_space_too_large_to_build_is_refused():
    from envs.core.encodings import COMPOSITE_LIMIT, CompositeCodec
    from envs.core.moves import MoveGrain

    class Wide(MoveGrain):
        max_length = 5

        def continues(self, engine, chain):
            return True

    spec = envs.spec("kingsburg")
    codec = type("WideComposite", (CompositeCodec,), {"flat_codec": spec.codecs[0], "grain": Wide})
    assert 163 ** 5 > COMPOSITE_LIMIT
    with pytest.raises(envs.ConfigError, match="composite actions"):
        codec(spec.config_cls(), 2)


@pytest.mark.parametrize("game, encoding", WHOLE_GAME_CASES)
def test_the_heuristic_plays_the_same_game_in_every_encoding(game, encoding):
    """Heuristics decide flat decisions; in a move encoding they choose a whole move by deciding its decisions on a
    copy (agents/encoded.py): seeded, both seats heuristic, the game ends in the same state as in flat."""
    from agents import make_agent
    from agents.encoded import FlatAgentInMoves

    n = envs.spec(game).player_counts[0]
    ends = []
    for name in ("flat", encoding):
        env = envs.make(game, num_players=n, action_encoding=name)
        env.reset(seed=3)
        seats = [make_agent("heuristic", game, n, seed=seat) for seat in range(n)]
        if name != "flat":
            seats = [FlatAgentInMoves(agent, env) for agent in seats]
        for agent in env.agent_iter(50_000):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            env.step(seats[seat].act(obs["observation"], obs["action_mask"]))
        ends.append(pickle.dumps(env.engine))
    assert ends[0] == ends[1]


def test_a_tournament_in_a_move_encoding_plays_the_flat_agents_through_their_moves():
    from agents.training import tournament

    results = [tournament.play_match(LIGHT, 2, "heuristic", "random", games=2,
                                     env_kwargs={"action_encoding": encoding})
               for encoding in ("flat", "composite")]
    assert [r.rewards for r in results[0].records] == [r.rewards for r in results[1].records]


def test_an_agent_of_one_move_encoding_is_refused_in_another():
    from agents import RandomAgent
    from agents.encoded import playing_in

    agent = RandomAgent(0)
    agent.encoding = "pointer"
    with pytest.raises(envs.ConfigError, match="'pointer' encoding and cannot play"):
        playing_in(envs.make(LIGHT, action_encoding="composite"), agent)


@pytest.mark.parametrize("encoding", [pytest.param(e, marks=pytest.mark.slow) if e in ("composite", "factored_independent")
                                      else e for e in MOVE_ENCODINGS])  # Discrete and MultiDiscrete: one of each by default
def test_training_in_an_encoding_gives_a_model_that_plays_in_it(encoding, tmp_path):
    """A short run in each move encoding (pool: snapshots, random and heuristic opponents, the flat ones playing
    through their moves) gives a checkpoint that plays a tournament in that encoding."""
    from agents.ppo import PPOAgent
    from agents.training import tournament
    from agents.training.config import load_config
    from agents.training.trainer import train

    game = LIGHT
    config = load_config(None, {
        "game": game, "total_steps": 128, "n_envs": 2, "vec_env": "dummy", "progress_bar": False,
        "run_dir": str(tmp_path), "env": {"action_encoding": encoding},
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "pool": {"snapshot_every_updates": 1, "weights": {"latest": 0.4, "random": 0.3, "heuristic": 0.3}},
        "eval": {"every_updates": 1, "games": 2},
    })
    result = train(config)
    agent = PPOAgent(result.final_model, game=game, num_players=2, env_kwargs={"action_encoding": encoding})
    assert agent.encoding == encoding
    from agents.pointer_policy import PointerPolicy
    assert isinstance(agent._loaded.policy, PointerPolicy) == (encoding == "pointer")
    outcome = tournament.run_tournament(game, 2, [result.final_model, "heuristic"], games=2, seed=0,
                                        env_kwargs={"action_encoding": encoding})
    assert sum(m.games for m in outcome.matches) == 2


def _pointer_policy(size: int, rows: int, parts: list[int]):
    from gymnasium import spaces

    from agents.pointer_policy import PointerPolicy

    return PointerPolicy(spaces.Box(0, 1, (size + rows * len(parts),)), spaces.Discrete(rows), lambda _: 1e-3,
                         rows=rows, parts=parts, net_arch=[8])


def test_the_pointer_policy_scores_a_move_by_its_parts_not_its_row():
    import torch

    size, rows, parts = 5, 4, [3, 4]
    policy = _pointer_policy(size, rows, parts)
    observation = torch.rand(1, size)
    table = torch.tensor([[[1.0, 2.0], [3.0, 1.0], [2.0, 4.0], [0.0, 0.0]]])  # three moves, then no move
    swapped = table[:, [2, 1, 0, 3]]
    with torch.no_grad():
        logits = policy.get_distribution(torch.cat((observation, table.reshape(1, -1)), 1)).distribution.logits
        moved = policy.get_distribution(torch.cat((observation, swapped.reshape(1, -1)), 1)).distribution.logits
    assert torch.allclose(logits[0, [2, 1, 0, 3]], moved[0], atol=1e-6)
    assert not torch.allclose(logits[0, 0], logits[0, 2])


def test_the_pointer_policy_scores_a_move_as_a_one_hot_of_its_parts_would():
    """A move's score: the score layer of the activated sum of the state's half of the hidden layer and a learned
    vector per part value, which is a linear layer of the parts one-hot; rows without a move are not scored."""
    import torch

    size, rows, parts = 6, 5, [3, 4, 2]
    policy = _pointer_policy(size, rows, parts)
    network = policy.mlp_extractor
    observation = torch.rand(2, size)
    table = torch.zeros(2, rows, len(parts))
    table[0, :3] = torch.tensor([[1.0, 4.0, 2.0], [3.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    table[1, :1] = torch.tensor([[3.0, 3.0, 1.0]])
    with torch.no_grad():
        logits = network.forward_actor(torch.cat((observation, table.reshape(2, -1)), 1))
        one_hot = torch.zeros(2, rows, sum(parts))
        offsets = [0, 3, 7]
        for sample, count in ((0, 3), (1, 1)):
            for row in range(count):
                for part, value in enumerate(table[sample, row].long().tolist()):
                    one_hot[sample, row, offsets[part] + value - 1] = 1.0
        state = network.embed(observation)
        hidden = torch.tanh(network.state_half(state).unsqueeze(1) + one_hot @ network.part_values.weight)
        whole = network.score(hidden).squeeze(-1)
    for sample, count in ((0, 3), (1, 1)):
        assert torch.allclose(logits[sample, :count], whole[sample, :count], atol=1e-6)
        assert not logits[sample, count:].any()


@pytest.mark.parametrize("game", ["seventh_stone", "mythotopia"])
def test_the_study_keeps_the_games_ppo_settings_with_the_mlp_policy(game, tmp_path):
    """A study run trains with its game's config (seventh_stone's learning rate 1e-4, mythotopia's relu), the MLP
    policy in place of mythotopia's entity policy."""
    import argparse

    from agents.training.config import load_config
    from benchmarks import encoding_study

    own = load_config(f"configs/{game}.yaml", {"game": game}).ppo
    args = argparse.Namespace(steps=64, eval_every=1, eval_games=2, n_envs=None)
    ppo = encoding_study.study_config(game, "pointer", 0, str(tmp_path), args).ppo
    assert ppo.policy == "mlp"
    assert (ppo.learning_rate, ppo.net_arch, ppo.activation, ppo.gamma) == (own.learning_rate, own.net_arch,
                                                                            own.activation, own.gamma)


@pytest.mark.slow
def test_the_study_trains_each_encoding_resumes_and_writes_its_table(tmp_path):
    """benchmarks/encoding_study.py at a toy budget: a run per encoding and seed, a second call plays nothing
    again, the table has a row per encoding and the learning curves a PNG."""
    from benchmarks import encoding_study

    args = ["--games", LIGHT, "--encodings", "flat,composite", "--seeds", "1", "--steps", "64",
            "--eval-every", "1", "--eval-games", "2", "--n-envs", "2", "--out", str(tmp_path)]
    assert encoding_study.main(args) == 0
    table = (tmp_path / "results.md").read_text()
    assert f"| {LIGHT} | flat |" in table and f"| {LIGHT} | composite |" in table
    assert (tmp_path / f"{LIGHT}.png").is_file()
    model = tmp_path / LIGHT / "composite" / "seed0" / "final_model.zip"
    stamp = model.stat().st_mtime
    assert encoding_study.main(args) == 0
    assert model.stat().st_mtime == stamp  # finished runs are not trained again


def test_the_study_reports_a_run_too_large_to_train_and_goes_on(tmp_path, capsys):
    """seventh_stone's composite encoding (973,845 actions) is refused by train's memory check: the study says so in
    its table, once for all seeds, instead of being killed by the system."""
    from benchmarks import encoding_study

    args = ["--games", "seventh_stone", "--encodings", "composite", "--seeds", "2", "--steps", "64",
            "--out", str(tmp_path)]
    assert encoding_study.main(args) == 0
    assert capsys.readouterr().out.count("not trained") == 2  # seed 0's refusal, then the table's row
    assert "| seventh_stone | composite | 0 | — | not trained: needs at least " in (tmp_path / "results.md").read_text()
    assert not (tmp_path / "seventh_stone" / "composite" / "seed0").exists()


@pytest.mark.parametrize("game", GAMES)
def test_the_study_trains_every_encoding_of_a_game_from_scratch(game, tmp_path):
    """The study's config of every encoding passes train.py's checks: a game's config may imitate the heuristic
    (flat only), which the study turns off for every encoding alike."""
    import argparse

    from agents.training.config import check_game
    from benchmarks import encoding_study

    args = argparse.Namespace(steps=64, eval_every=1, eval_games=2, n_envs=None)
    for encoding in envs.encodings(game):
        config = encoding_study.study_config(game, encoding, 0, str(tmp_path / encoding), args)
        check_game(config)
        assert config.imitation.decisions == 0 and config.env["action_encoding"] == encoding


@pytest.mark.parametrize("encoding", MOVE_ENCODINGS)
def test_a_game_record_in_a_move_encoding_replays(encoding):
    from envs.core import records

    env = envs.make(LIGHT, action_encoding=encoding)
    pick = np.random.default_rng(0)
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else random_action(env, obs, pick))
    record = json.loads(records.dumps_record(env.record()))
    assert records.check_record(record).engine.scores() == env.engine.scores()
    record["moves"][3]["index"] = [10 ** 6] * 2 if not env.codec.discrete else 10 ** 6
    with pytest.raises(records.RecordError):
        records.check_record(record)


@pytest.mark.parametrize("encoding", ["factored", "factored_independent"])
def test_seeded_random_play_repeats_in_a_multi_discrete_encoding(encoding):
    """Random play drawn from a seeded generator (``sample_with``) repeats, whatever was sampled before; an action
    space's own ``sample`` would draw from a generator seeded by the OS."""
    def decisions():
        env = envs.make("kingsburg", action_encoding=encoding)
        env.reset(seed=3)
        pick, taken = np.random.default_rng(3), []
        for _ in env.agent_iter(300):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            action = env.action_space(env.agent_selection).sample_with(pick, obs["action_mask"])
            heads = np.split(obs["action_mask"], np.cumsum(env.codec.nvec)[:-1])
            assert all(head[value] or not head.any() for head, value in zip(heads, action))
            taken.append(tuple(int(v) for v in action))
            env.step(action)
        return taken

    first = decisions()
    assert len(first) > 50 and first == decisions()
