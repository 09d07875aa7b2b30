"""Env steps per second of random masked play, per registered game, as a ratio to connect_four_v3.

Every step counts: ``env.last()`` (observation and mask built), a uniform pick among the legal
actions, ``env.step``. PettingZoo's ``connect_four_v3`` runs in the same process through the same
loop as the yardstick; rounds alternate between the yardstick and each game so that machine noise
hits both alike. Time is this process's CPU time (single-threaded, so equal to wall time on an idle
machine), which keeps the figures steady when other jobs share the cores. The first line says which games run
their compiled build (envs/core/compiled.py); ``TABLETOP_GYM_PURE=1`` measures the pure-Python sources.
Run: ``python benchmarks/throughput.py [--seconds 3] [--rounds 3] [--games a,b]``.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402
from envs.core.compiled import in_use  # noqa: E402


def play_one(env, pick: random.Random, seed: int) -> int:
    """One complete game of random masked play from ``reset(seed=seed)``; returns its number of steps."""
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            action = None
        else:
            legal = obs["action_mask"].nonzero()[0]
            action = int(legal[pick.randrange(legal.size)])
        env.step(action)
        steps += 1
    return steps


def steps_per_second(make_env, seconds: float, seed: int = 0) -> float:
    """Play complete games of random masked play for about ``seconds``; return steps/s."""
    env = make_env()
    pick = random.Random(seed)
    steps = 0
    game = 0
    clock = time.process_time
    start = clock()
    deadline = start + seconds
    while True:
        steps += play_one(env, pick, seed + game)
        game += 1
        if clock() >= deadline:
            return steps / (clock() - start)


def connect_four():
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the median is reported")
    parser.add_argument("--games", default=",".join(envs.names()), help="comma-separated registered games")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)

    games = [g for g in args.games.split(",") if g]
    results = {}
    # the compiled build (scripts/build_compiled.py) runs the same code faster; TABLETOP_GYM_PURE=1 measures the sources
    built = [g for g in games if in_use(f"envs.{g}")]
    print(f"compiled build in use for: {', '.join(built) or 'none'} (envs.core: {'yes' if in_use('envs.core') else 'no'})")
    print(f"{'game':<22}{'players':>8}{'steps/s':>12}{'yardstick':>12}{'ratio':>8}")
    for game in games:
        for n in envs.spec(game).player_counts:
            ours, yard = [], []
            for r in range(args.rounds):
                yard.append(steps_per_second(connect_four, args.seconds, seed=r))
                ours.append(steps_per_second(lambda: envs.make(game, num_players=n), args.seconds, seed=r))
            ratios = [o / y for o, y in zip(ours, yard)]
            ratio = statistics.median(ratios)
            results[f"{game}/{n}"] = {"steps_per_s": statistics.median(ours),
                                      "connect_four_v3_steps_per_s": statistics.median(yard),
                                      "ratio": ratio, "ratios": ratios}
            print(f"{game:<22}{n:>8}{statistics.median(ours):>12.0f}{statistics.median(yard):>12.0f}{ratio:>7.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
