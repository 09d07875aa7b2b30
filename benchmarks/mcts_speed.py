"""Time per move of the IS-MCTS agent (agents/mcts.py), per game and budget, as connect_four_v3 steps.

For each game (its default player count, or its smallest with ``--players smallest``) and budget, the agent decides at ``--moves`` decisions of a seeded random
game (every fifth decision with two or more legal actions; the others are played at random); the figure is its mean
CPU time per decision, expressed as the number of ``connect_four_v3`` random-play steps (benchmarks/throughput.py,
the yardstick) that take as long, measured in the same process just before. CPU time keeps the figure steady when
other jobs share the cores.
Run: ``python benchmarks/mcts_speed.py [--budgets 20,100] [--moves 10] [--games a,b] [--players smallest]
[--json FILE]``; ``--budgets baseline`` times each game's two searches of the baseline table
(``agents.mcts.BASELINE_BUDGETS``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import agents  # noqa: E402
import envs  # noqa: E402
from agents.encoded import playing_in  # noqa: E402
from agents.mcts import BASELINE_BUDGETS  # noqa: E402
from benchmarks.throughput import connect_four, steps_per_second  # noqa: E402


def seconds_per_move(game: str, budget: str, moves: int, n: int, seed: int = 0) -> float:
    """Mean CPU seconds of one ``mcts:budget`` decision (``budget`` as in ``100`` or ``20:guided:d5``) over ``moves``
    decisions of a seeded random game of ``n`` players."""
    env = envs.make(game, num_players=n)
    env.reset(seed=seed)
    agent = playing_in(env, agents.make_agent(f"mcts:{budget}", game, n, seed=seed))
    pick = np.random.default_rng(seed)
    times, decisions = [], 0
    while len(times) < moves:
        if env.engine.is_over:
            seed += 1
            env.reset(seed=seed)
        legal = env.legal_actions()
        decisions += 1
        if len(legal) > 1 and decisions % 5 == 0:
            obs = env.observe(env.agent_selection)
            start = time.process_time()
            action = agent.act(obs["observation"], obs["action_mask"])
            times.append(time.process_time() - start)
        else:
            action = int(legal[pick.integers(len(legal))])
        env.step(action)
    return statistics.mean(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budgets", default="20,100", help="comma-separated budgets: what follows 'mcts:' in an "
                                                          "agent's name, as in 20,100,20:guided:d5; 'baseline': "
                                                          "each game's two searches of the baseline table")
    parser.add_argument("--moves", type=int, default=10, help="timed decisions per game and budget")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of the yardstick measurement")
    parser.add_argument("--games", default=",".join(envs.names()), help="comma-separated registered games")
    parser.add_argument("--players", choices=("default", "smallest"), default="default",
                        help="each game's default player count (default) or its smallest")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    if args.budgets == "baseline":
        budgets = {game: [name.removeprefix("mcts:") for name in BASELINE_BUDGETS[game]] for game in games}
    else:
        budgets = {game: [b for b in args.budgets.split(",") if b] for game in games}
    for budget in {b for chosen in budgets.values() for b in chosen}:
        agents.parse_mcts(f"mcts:{budget}")  # a bad name fails before anything is timed
    results = {}
    print(f"{'game':<22}{'players':>8}{'budget':>20}{'connect_four_v3 steps per move':>34}")
    for game in games:
        spec = envs.spec(game)
        n = min(spec.player_counts) if args.players == "smallest" else spec.default_players
        for budget in budgets[game]:
            yardstick = steps_per_second(connect_four, args.seconds)
            per_move = seconds_per_move(game, budget, args.moves, n)
            steps = per_move * yardstick
            results[f"{game}/{n}p/mcts:{budget}"] = {"connect_four_v3_steps_per_move": steps, "players": n,
                                                     "cpu_seconds_per_move": per_move}
            print(f"{game:<22}{n:>8}{budget:>20}{steps:>34.0f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
