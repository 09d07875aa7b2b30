"""Cost of naming opponent moves: ``MoveVisibility.hidden_from`` timed over a seeded random game of each game.

    TABLETOP_GYM_PURE=1 .venv/bin/python -m benchmarks.move_visibility [--moves 200] [--games kingsburg ...] [--samples N]

Per game: the moves timed (every move, asked for viewer seat 0 when another seat moves), the mean and largest
time per call, and the share of those moves hidden from the viewer.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import envs
from envs.core.visibility import MoveVisibility

GAMES = ("catan_card", "kingsburg", "medioevo_universale", "mythotopia", "seventh_stone")


def measure(game: str, moves: int, seed: int = 5, samples: int | None = None) -> dict:
    env = envs.make(game)
    env.reset(seed=seed)
    visibility = MoveVisibility(env) if samples is None else MoveVisibility(env, samples=samples)
    pick = np.random.default_rng(seed)
    times, hidden = [], 0
    while env._final is None and len(times) < moves:
        legal = env.legal_actions()
        index = int(legal[pick.integers(len(legal))])
        if env.possible_agents.index(env.agent_selection) != 0:
            start = time.perf_counter()
            hidden += bool(visibility.hidden_from(env, index, [0]))
            times.append(time.perf_counter() - start)
        env.step(index)
    return {"game": game, "calls": len(times), "mean_ms": 1000 * float(np.mean(times)),
            "max_ms": 1000 * float(np.max(times)), "hidden": hidden / len(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200, help="opponent moves timed per game")
    parser.add_argument("--games", nargs="*", default=GAMES)
    parser.add_argument("--samples", type=int, help="determinizations per viewer and move (0: the real game's "
                                                    "alternatives only); default MoveVisibility's")
    args = parser.parse_args()
    for game in args.games:
        r = measure(game, args.moves, samples=args.samples)
        print(f"{r['game']:22s} calls {r['calls']:4d}  mean {r['mean_ms']:7.1f} ms  max {r['max_ms']:7.1f} ms  "
              f"hidden {r['hidden']:.1%}")


if __name__ == "__main__":
    main()
