"""Statistics of every action encoding of every game over seeded random play, and its speed as a ratio to
PettingZoo's connect_four_v3 played in the same process.

Per game, player count and encoding: the size of the action space (the number of indices, or of part values for a
``MultiDiscrete``), the mean and largest number of legal actions per decision (for ``MultiDiscrete``: legal
complete moves for ``factored_independent``, legal values of the part decided for ``factored``), decisions per
complete game, how often the pointer encoding had to leave moves out, and throughput per decision and per
complete game as ratios to connect_four_v3 (its steps and its games). Random play picks uniformly among the
mask's legal actions (``MultiDiscrete``: per part).

    python benchmarks/encodings.py [--games kingsburg] [--players smallest|all] [--seeds 5] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from gymnasium import spaces

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402
from benchmarks.throughput import connect_four  # noqa: E402


def legal_count(env, obs) -> int:
    if env.codec.discrete:
        return int(obs["action_mask"].sum())
    if env.action_encoding == "factored":
        return len(env.codec.legal_actions(env.engine))
    return len(env.codec.legal_moves(env.engine))


def play(env, seed: int, pick: np.random.Generator, counts: list | None = None, cut: list | None = None) -> int:
    """One seeded game of uniform random masked play; returns its number of decisions (steps of the acting seat)."""
    env.reset(seed=seed)
    decisions = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if counts is not None:
            counts.append(legal_count(env, obs))
        if cut is not None and env.action_encoding == "pointer":
            cut.append(len(env.codec.legal_moves(env.engine)) > env.codec.num_actions)
        mask = obs["action_mask"]
        space = env.action_space(agent)
        if isinstance(space, spaces.Discrete):
            action = int(pick.choice(np.flatnonzero(mask.view(bool))))  # bool: 15x faster on a large mask
        else:
            action = space.sample_with(pick, mask)
        env.step(action)
        decisions += 1
    return decisions


def timed(make_env, seeds: range) -> tuple[float, int, int]:
    """CPU seconds, decisions and games of random play over ``seeds``."""
    env = make_env()
    pick = np.random.default_rng(0)
    start = time.process_time()
    decisions = sum(play(env, seed, pick) for seed in seeds)
    return time.process_time() - start, decisions, len(seeds)


def measure(game: str, n: int, encoding: str, seeds: int) -> dict:
    make = lambda: envs.make(game, num_players=n, action_encoding=encoding)  # noqa: E731
    env = make()
    counts: list[int] = []
    cut: list[bool] = []
    pick = np.random.default_rng(1)
    lengths = [play(env, seed, pick, counts, cut) for seed in range(seeds)]
    space = env.action_space(env.possible_agents[0])
    size = int(space.n) if env.codec.discrete else "x".join(str(v) for v in space.nvec)
    # speed: the game's seeded games, then connect_four_v3 for as long, alternately, twice; the medians
    ours, yard = [], []
    for _ in range(2):
        seconds, decisions, games = timed(make, range(seeds))
        ours.append((decisions / seconds, games / seconds))
        c4_seconds, c4_steps, c4_games = 0.0, 0, 0
        c4 = connect_four()
        while c4_seconds < seconds:
            s, d, g = timed(lambda: c4, range(c4_games, c4_games + 20))
            c4_seconds, c4_steps, c4_games = c4_seconds + s, c4_steps + d, c4_games + g
        yard.append((c4_steps / c4_seconds, c4_games / c4_seconds))
    per_decision = statistics.median(o[0] / y[0] for o, y in zip(ours, yard))
    per_game = statistics.median(o[1] / y[1] for o, y in zip(ours, yard))
    return {"game": game, "players": n, "encoding": encoding, "actions": size,
            "observation": int(env.observation_space(env.possible_agents[0])["observation"].shape[0]),
            "legal_mean": statistics.fmean(counts), "legal_max": max(counts),
            "decisions_per_game": statistics.fmean(lengths),
            "pointer_cut": statistics.fmean(cut) if cut else None,
            "ratio_per_decision": per_decision, "ratio_per_game": per_game}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(envs.names()), help="comma-separated registered games")
    parser.add_argument("--players", choices=("smallest", "all"), default="smallest")
    parser.add_argument("--seeds", type=int, default=5, help="seeded games per game, player count and encoding")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    rows = []
    print("| game | players | encoding | actions | legal per decision (mean / max) | decisions per game "
          "| pointer cut | ratio to connect_four_v3 per decision / per game |")
    print("|---|---|---|---|---|---|---|---|")
    for game in (g for g in args.games.split(",") if g):
        counts = envs.spec(game).player_counts
        for n in (counts if args.players == "all" else counts[:1]):
            for encoding in envs.encodings(game):
                row = measure(game, n, encoding, args.seeds)
                rows.append(row)
                cut = "" if row["pointer_cut"] is None else f"{row['pointer_cut']:.1%}"
                print(f"| {game} | {n} | {encoding} | {row['actions']} | {row['legal_mean']:.1f} / "
                      f"{row['legal_max']} | {row['decisions_per_game']:,.0f} | {cut} | "
                      f"{row['ratio_per_decision']:.3f} / {row['ratio_per_game']:.3f} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
