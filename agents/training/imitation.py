"""A warm start for self-play: the new policy first imitates the game's heuristic (behaviour cloning).

With the result as its only reward, a policy that starts at random in a long game rarely wins against the
heuristic, and so learns slowly what beats it. ``imitation.decisions > 0`` (docs/training.md) first plays the
heuristic against itself and records every seat's decisions: the observation vector a policy sees, the legal
mask and the heuristic's action. The policy's actor is then trained to pick those actions (cross-entropy over the
masked logits), and its critic to predict each decision's discounted return (the game's result, plus the score
shaping when ``score_reward`` is set), so that PPO starts from a policy about as strong as the heuristic and a
value function that fits it. PPO then trains on from there as usual; the first snapshot of the pool is the
imitating policy. Flat encoding only: the heuristics choose flat actions.

A clone's small errors add up over a long game and lead it into states the heuristic's own games never reach, where
it has learnt nothing (Ross, Gordon & Bagnell 2011). With ``imitation.rounds > 1`` each later round records games
in which the policy cloned so far plays one seat (sampling from its distribution, as PPO's rollouts do) while the
heuristic still names the action for every decision, and clones again on everything recorded (DAgger).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from envs.core.errors import ConfigError


@dataclass
class Decisions:
    """Recorded decisions: observations (float16 to halve the memory), masks, actions and returns."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    games: int


def check_imitation(config) -> None:
    """The settings imitation needs: a heuristic for the game and the flat encoding."""
    import agents

    if config.imitation.decisions <= 0:
        return
    if config.game not in agents.heuristic_games():
        raise ConfigError(f"imitation: {config.game!r} has no heuristic agent to imitate; set imitation.decisions: 0")
    if config.env.get("action_encoding", "flat") != "flat":
        raise ConfigError("imitation: the heuristics choose flat actions, so imitation needs the flat encoding "
                          f"(env.action_encoding is {config.env['action_encoding']!r})")
    if config.backend != "sb3":
        raise ConfigError("imitation: only the sb3 backend imitates the heuristic first; set imitation.decisions: 0")


def record_heuristic_games(game: str, num_players: int, env_kwargs: dict, decisions: int, seed: int,
                           gamma: float, score_reward: float = 0.0,
                           learner: Callable[[np.ndarray, np.ndarray], int] | None = None) -> Decisions:
    """Seeded games of the heuristic in every seat until ``decisions`` decisions are recorded (the last game is
    played to its end, so a few more may be). A decision's return is its seat's discounted reward from that
    decision on: the result at the end (0 for a game cut by ``max_turns``) and, with ``score_reward``, the
    change of the seat's score lead between its decisions (as ``SelfPlayEnv`` pays it). With ``learner``
    (observation vector, mask -> action), game k's seat k mod N plays the learner's actions instead, and its
    decisions are recorded with the action the heuristic names for them."""
    import envs
    from agents import make_agent
    from agents.base import policy_observation

    from .selfplay_env import score_lead

    env = envs.make(game, num_players=num_players, **env_kwargs)
    observations, masks, actions, returns = [], [], [], []
    games = 0
    while len(actions) < decisions:
        game_seed = seed * 100_003 + games
        env.reset(seed=game_seed)
        players = [make_agent("heuristic", game=game, num_players=num_players, seed=game_seed * 31 + seat)
                   for seat in range(num_players)]
        seat_of = {agent: seat for seat, agent in enumerate(env.possible_agents)}
        taken: list[list[int]] = [[] for _ in range(num_players)]  # per seat, its rows in this game
        leads: list[list[float]] = [[] for _ in range(num_players)]
        final = [0.0] * num_players
        learner_seat = games % num_players if learner is not None else None
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                final[seat_of[agent]] = float(reward)  # its reward since its last decision: the result
                env.step(None)
                continue
            seat = seat_of[agent]
            vector, mask = policy_observation(obs), np.asarray(obs["action_mask"], dtype=bool)
            action = int(players[seat].act(vector, obs["action_mask"]))
            taken[seat].append(len(actions))
            leads[seat].append(score_lead(env.unwrapped.engine.scores(), seat))
            observations.append(vector.astype(np.float16))
            masks.append(mask)
            actions.append(action)
            returns.append(0.0)
            env.step(int(learner(vector, mask)) if seat == learner_seat else action)
        games += 1
        scores = env.unwrapped.engine.scores()
        for agent, seat in seat_of.items():
            following, next_lead, reward_at_end = 0.0, score_lead(scores, seat), final[seat]
            for row, lead in zip(reversed(taken[seat]), reversed(leads[seat])):
                reward = score_reward * (next_lead - lead) + reward_at_end
                following = reward + gamma * following
                returns[row] = following
                next_lead, reward_at_end = lead, 0.0
    return Decisions(np.stack(observations), np.stack(masks), np.asarray(actions, dtype=np.int64),
                     np.asarray(returns, dtype=np.float32), games)


def sampling_learner(policy, seed: int) -> Callable[[np.ndarray, np.ndarray], int]:
    """The policy as a player for ``record_heuristic_games``: an action drawn from its masked distribution by a
    generator of its own (the global torch and numpy generators, which training seeds, are left alone)."""
    import torch

    rng = np.random.default_rng(seed)

    def act(vector: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            observation = torch.as_tensor(vector[None].astype(np.float32))
            probs = policy.get_distribution(observation, action_masks=mask[None]).distribution.probs[0].numpy()
        probs = probs.astype(np.float64) * mask
        return int(rng.choice(len(probs), p=probs / probs.sum()))

    return act


def merge(first: Decisions, second: Decisions) -> Decisions:
    """Both recordings in one."""
    return Decisions(np.concatenate([first.observations, second.observations]),
                     np.concatenate([first.masks, second.masks]), np.concatenate([first.actions, second.actions]),
                     np.concatenate([first.returns, second.returns]), first.games + second.games)


def balance_weights(actions: np.ndarray, balance: float) -> np.ndarray:
    """Per decision, ``(decisions taking its action)^-balance``, scaled to a mean of 1 (all 1 for ``balance`` 0)."""
    _, inverse, counts = np.unique(actions, return_inverse=True, return_counts=True)
    weights = counts[inverse.reshape(-1)].astype(np.float64) ** -balance
    return (weights / weights.mean()).astype(np.float32)


def clone_heuristic(policy, data: Decisions, epochs: int, batch_size: int, learning_rate: float, vf_coef: float,
                    seed: int, log: Callable[[str], None], balance: float = 0.0) -> dict[str, float]:
    """Train ``policy`` (an SB3 maskable actor-critic) on ``data`` for ``epochs`` passes: cross-entropy of the
    heuristic's actions under the masked logits (each decision weighted by ``balance_weights``) plus ``vf_coef``
    times the critic's squared error. Returns the last epoch's mean loss, the actor's agreement with the heuristic
    and the critic's error."""
    import torch

    weights = torch.as_tensor(balance_weights(data.actions, balance))
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    order = np.random.default_rng(seed)
    count = len(data.actions)
    policy.set_training_mode(True)
    summary: dict[str, float] = {}
    for epoch in range(epochs):
        losses, value_errors = [], []
        permutation = order.permutation(count)
        for start in range(0, count, batch_size):
            rows = permutation[start:start + batch_size]
            observations = torch.as_tensor(data.observations[rows].astype(np.float32))
            values, log_prob, _ = policy.evaluate_actions(observations, torch.as_tensor(data.actions[rows]),
                                                          action_masks=data.masks[rows])
            value_error = torch.nn.functional.mse_loss(values.flatten(), torch.as_tensor(data.returns[rows]))
            loss = -(weights[torch.as_tensor(rows)] * log_prob).mean() + vf_coef * value_error
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(float(loss.detach()))
            value_errors.append(float(value_error.detach()))
        summary = {"loss": float(np.mean(losses)), "agreement": agreement(policy, data, permutation[:AGREEMENT_SAMPLE]),
                   "value_error": float(np.mean(value_errors))}
        log(f"imitation: epoch {epoch + 1}/{epochs}: loss {summary['loss']:.3f}, agreement with the heuristic "
            f"{summary['agreement']:.3f}, value error {summary['value_error']:.3f}")
    policy.set_training_mode(False)
    return summary


AGREEMENT_SAMPLE = 4096  # decisions on which an epoch's agreement is measured


def agreement(policy, data: Decisions, rows: np.ndarray | None = None) -> float:
    """The share of the decisions ``rows`` (default all) on which the policy's most likely action is the
    heuristic's."""
    import torch

    rows = np.arange(len(data.actions)) if rows is None else rows
    same = 0
    with torch.no_grad():
        for start in range(0, len(rows), 1024):
            part = rows[start:start + 1024]
            observations = torch.as_tensor(data.observations[part].astype(np.float32))
            probs = policy.get_distribution(observations, action_masks=data.masks[part]).distribution.probs
            same += int((probs.argmax(dim=1) == torch.as_tensor(data.actions[part])).sum())
    return same / max(1, len(rows))
