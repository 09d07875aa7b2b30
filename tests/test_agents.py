"""Built-in agents: legal moves in every state, and the heuristic's strength against random."""
import numpy as np
import pytest

import agents
import envs


def play(env, players, seed):
    env.reset(seed=seed)
    for p in players:
        p.reset(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        action = players[seat].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1, f"{players[seat].name} chose illegal {env.action_name(action)}"
        env.step(action)
    return sole_winner(env.engine)


def sole_winner(engine) -> int:
    """The seat ranked first alone by the rules' placement, or -1 (tie or no end)."""
    if not engine.is_over:
        return -1
    placement = engine.placement_scores()
    best = max(placement)
    return placement.index(best) if placement.count(best) == 1 else -1


def test_random_agent_picks_only_legal_actions():
    agent = agents.RandomAgent(seed=0)
    mask = np.array([0, 1, 0, 1, 0], dtype=np.int8)
    assert {agent.act(None, mask) for _ in range(50)} == {1, 3}
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(None, np.zeros(3, dtype=np.int8))


def test_make_agent_errors():
    with pytest.raises(ValueError, match="unknown agent kind 'genius'"):
        agents.make_agent("genius", "catan_card", 2)
    with pytest.raises(ValueError, match="no heuristic agent for game 'chess'"):
        agents.make_agent("heuristic", "chess", 2)


@pytest.mark.parametrize("game", envs.names())
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_heuristic_plays_legal_complete_games(game, n):
    if n not in envs.spec(game).player_counts:
        pytest.skip(f"{game} has no {n}-player game")
    env = envs.make(game, num_players=n)
    for seed in range(3):
        players = [agents.make_agent("heuristic", game, n, seed=s) for s in range(n)]
        play(env, players, seed)
        assert env.engine.is_over


@pytest.mark.parametrize("options", [{"optional_knight_draws": True}])
def test_catan_heuristic_with_rule_options(options):
    env = envs.make("catan_card", num_players=3, **options)
    players = [agents.make_agent("heuristic", "catan_card", 3, seed=s, **options) for s in range(3)]
    play(env, players, 0)
    assert env.engine.is_over


def test_catan_heuristic_beats_random_in_two_player_games():
    env = envs.make("catan_card", num_players=2)
    games, wins = 200, 0
    for g in range(games):
        seat = g % 2
        players = [agents.make_agent("heuristic" if s == seat else "random", "catan_card", 2, seed=g + s)
                   for s in range(2)]
        wins += play(env, players, seed=g) == seat
    assert wins / games >= 0.8, f"heuristic won {wins}/{games}"


def test_medioevo_heuristic_beats_random_in_three_player_games():
    """A short check in the default run; the 500-game figure comes from evaluate.py (docs)."""
    env = envs.make("medioevo_universale", num_players=3, num_rounds=8)
    games, wins = 24, 0
    for g in range(games):
        seat = g % 3
        players = [agents.make_agent("heuristic" if s == seat else "random", "medioevo_universale", 3,
                                     seed=g + s, num_rounds=8) for s in range(3)]
        wins += play(env, players, seed=g) == seat
    assert wins / games >= 0.8, f"heuristic won {wins}/{games}"
