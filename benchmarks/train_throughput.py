"""Training throughput: env steps per second while MaskablePPO trains, a registered game through
``train.py``'s trainer beside PettingZoo's masked-PPO recipe on ``connect_four_v3``, in one run.

An env step is one SB3 timestep, i.e. one decision of the learning policy. In the recipe the single
policy plays both seats, so every move is a step. In train.py the learner holds one seat and the
pool's opponents move inside the step, so one step also carries the opponents' moves in between
(reported separately as game moves per second).

Measured, with the PPO settings of the game's config (learning rate, n_steps, batch size, epochs,
gamma, GAE lambda, clip range, coefficients, network) for all three:
  1. the game through train.py's trainer (its config's n_envs and vector env, opponent pool,
     snapshots; evaluation and checkpoints off);
  2. the recipe with the same number of envs, stepped in-process (DummyVecEnv);
  3. the recipe as published: one env.
The ratio of 1 to 2 compares like with like; 1 to 3 compares with the tutorial as written.

    python benchmarks/train_throughput.py [--game catan_card] [--steps 40960] [--rounds 1] [--json out.json]

The recipe (PettingZoo tutorials/SB3/connect_four) wraps the AEC env in a ``BaseWrapper`` that
returns the observation without its mask, exposes ``action_mask()``, and is passed through
sb3-contrib's ``ActionMasker``. Under gymnasium >= 1.0 ``ActionMasker`` only accepts a
``gymnasium.Env``, so the wrapper here also subclasses ``gymnasium.Env``; nothing else differs.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gymnasium  # noqa: E402
import pettingzoo.utils  # noqa: E402


class RecipeActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """One policy for every seat: a step is the move of whichever agent is to play."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        first = self.possible_agents[0]
        # SB3 wants fixed spaces: the observation part only; the mask travels through action_mask()
        self.observation_space = super().observation_space(first)["observation"]
        self.action_space = super().action_space(first)
        return self.observe(self.agent_selection), {}

    def step(self, action):
        mover = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            self._cumulative_rewards[mover],
            self.terminations[mover],
            self.truncations[mover],
            self.infos[mover],
        )

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def _recipe_env():
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib.common.wrappers import ActionMasker

    env = RecipeActionMaskWrapper(connect_four_v3.env())
    env.reset(seed=0)  # defines the spaces
    return ActionMasker(env, lambda e: e.action_mask())


def ppo_kwargs(config) -> dict:
    import torch.nn as nn

    ppo = config.ppo
    return {
        "learning_rate": ppo.learning_rate, "n_steps": ppo.n_steps, "batch_size": ppo.batch_size,
        "n_epochs": ppo.n_epochs, "gamma": ppo.gamma, "gae_lambda": ppo.gae_lambda, "clip_range": ppo.clip_range,
        "ent_coef": ppo.ent_coef, "vf_coef": ppo.vf_coef, "max_grad_norm": ppo.max_grad_norm,
        "target_kl": ppo.target_kl,
        "policy_kwargs": {"net_arch": list(ppo.net_arch),
                          "activation_fn": {"tanh": nn.Tanh, "relu": nn.ReLU}[ppo.activation]},
    }


def measure_recipe(config, n_envs: int, steps: int) -> dict:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(config.torch_threads)
    venv = DummyVecEnv([_recipe_env for _ in range(n_envs)])
    model = MaskablePPO("MlpPolicy", venv, seed=config.seed, device="cpu", verbose=0, **ppo_kwargs(config))
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default logger leaves an empty dir in /tmp
    start = time.perf_counter()
    model.learn(steps)
    seconds = time.perf_counter() - start
    venv.close()
    return {"steps": int(model.num_timesteps), "seconds": seconds, "steps_per_second": model.num_timesteps / seconds}


def measure_game(config, steps: int) -> dict:
    from agents.training.checkpoints import resolve
    from agents.training.trainer import train
    from agents.training.vec_env import vec_env_kind

    with tempfile.TemporaryDirectory() as run_dir:
        config.run_dir = run_dir
        config.total_steps = steps
        config.progress_bar = False
        config.eval.every_updates = 0
        config.checkpoint.every_updates = 10**9
        result = train(config, log=lambda _text: None)
        moves_per_step = _moves_per_step(os.path.join(run_dir, "tb"))
    out = {
        "steps": result.num_timesteps,
        "seconds": result.seconds,
        "steps_per_second": result.steps_per_second,
        "n_envs": resolve(config)[1],
        "vec_env": vec_env_kind(config),
    }
    if moves_per_step:
        out["game_moves_per_step"] = moves_per_step
        out["game_moves_per_second"] = moves_per_step * result.steps_per_second
    return out


def _moves_per_step(tb_dir: str) -> float | None:
    """Mean game moves (all seats) per learner step, from the run's TensorBoard scalars."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(tb_dir)
    events.Reload()
    tags = events.Tags().get("scalars", [])
    if "selfplay/game_moves" not in tags or "rollout/ep_len_mean" not in tags:
        return None
    moves = [s.value for s in events.Scalars("selfplay/game_moves")]
    lengths = [s.value for s in events.Scalars("rollout/ep_len_mean")]
    return statistics.mean(moves) / statistics.mean(lengths)


def main(argv=None) -> int:
    from agents.training.config import default_config_path, load_config

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="catan_card", help="registered game (default: catan_card)")
    parser.add_argument("--config", help="config whose PPO settings all runs use (default: configs/<game>.yaml)")
    parser.add_argument("--steps", type=int, default=40_960, help="env steps per measurement (default: 40960)")
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds; medians are reported")
    parser.add_argument("--skip-single-env", action="store_true", help="skip the slow one-env recipe run")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    config_path = args.config or default_config_path(args.game, os.path.join(root, "configs"))
    config = load_config(config_path, {"game": args.game})
    rows: dict[str, list[dict]] = {"game": [], "recipe_same_envs": [], "recipe_one_env": []}
    for round_index in range(args.rounds):
        print(f"round {round_index + 1}/{args.rounds}: {args.game} through train.py ...", file=sys.stderr)
        game = measure_game(load_config(config_path, {"game": args.game}), args.steps)
        rows["game"].append(game)
        print(f"round {round_index + 1}/{args.rounds}: connect_four_v3 recipe, {game['n_envs']} envs ...", file=sys.stderr)
        rows["recipe_same_envs"].append(measure_recipe(config, game["n_envs"], args.steps))
        if not args.skip_single_env:
            print(f"round {round_index + 1}/{args.rounds}: connect_four_v3 recipe, 1 env ...", file=sys.stderr)
            rows["recipe_one_env"].append(measure_recipe(config, 1, args.steps))

    def median(name: str, key: str = "steps_per_second") -> float | None:
        values = [r[key] for r in rows[name] if key in r]
        return statistics.median(values) if values else None

    game_rate, same_rate, one_rate = median("game"), median("recipe_same_envs"), median("recipe_one_env")
    n_envs, vec_env = rows["game"][0]["n_envs"], rows["game"][0]["vec_env"]
    ppo = config.ppo
    print(f"PPO settings (from {config_path or 'defaults'}): n_steps={ppo.n_steps} batch_size={ppo.batch_size} "
          f"n_epochs={ppo.n_epochs} lr={ppo.learning_rate} gamma={ppo.gamma} net={ppo.net_arch} {ppo.activation}; "
          f"torch threads {config.torch_threads}; {args.steps} steps per run, median of {args.rounds}")
    print(f"{'run':<52} {'env steps/s':>12}")
    print(f"{f'{args.game} via train.py ({n_envs} envs, {vec_env})':<52} {game_rate:>12,.0f}")
    moves = median("game", "game_moves_per_second")
    if moves:
        print(f"{'  (game moves/s, all seats, estimated)':<52} {moves:>12,.0f}")
    print(f"{f'connect_four_v3 recipe ({n_envs} envs, dummy)':<52} {same_rate:>12,.0f}")
    if one_rate:
        print(f"{'connect_four_v3 recipe as published (1 env)':<52} {one_rate:>12,.0f}")
    print(f"ratio {args.game} / recipe with the same envs: {game_rate / same_rate:.2f}")
    if one_rate:
        print(f"ratio {args.game} / recipe as published:       {game_rate / one_rate:.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"game": args.game, "config": config_path, "steps": args.steps, "runs": rows,
                       "median_steps_per_second": {"game": game_rate, "recipe_same_envs": same_rate,
                                                   "recipe_one_env": one_rate}}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
