"""Behaviour fingerprint of one game: a hash of everything an agent sees over seeded random games.

Hashes every observation of the seat to move (and, every 7th step, of another seat), every mask, reward,
termination and info, over ``--games`` seeded random games per player count, once with the default config and
once per ``--config`` given (JSON). Speed work must leave it unchanged: run it before and after a change (or with
``TABLETOP_GYM_PURE=1`` against the compiled build) and compare the printed line.
Run: ``python benchmarks/fingerprint.py medioevo_universale --games 10 --config '{"terrain": true}'``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402


def play(game: str, num_players: int, seed: int, config: dict) -> tuple[bytes, int]:
    h = hashlib.sha256()
    env = envs.make(game, num_players=num_players, **config)
    env.reset(seed=seed)
    pick = random.Random(1000 * num_players + seed)
    steps = 0
    for agent in env.agent_iter(max_iter=200_000):
        obs, reward, term, trunc, info = env.last()
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        h.update(repr((agent, reward, term, trunc, sorted(info.items()))).encode())
        if steps % 7 == 0 and num_players > 1:
            seat = env.possible_agents.index(agent)
            other = env.observe(env.possible_agents[(seat + 1 + steps % (num_players - 1)) % num_players])
            h.update(other["observation"].tobytes())
            h.update(other["action_mask"].tobytes())
        env.step(None if term or trunc else int(pick.choice(list(obs["action_mask"].nonzero()[0]))))
        steps += 1
    return h.digest(), steps


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=envs.names())
    parser.add_argument("--games", type=int, default=10, help="seeded games per player count and config")
    parser.add_argument("--config", action="append", default=[], type=json.loads,
                        help="a further config as JSON (repeatable); the default config is always played")
    args = parser.parse_args(argv)
    total, steps, start = hashlib.sha256(), 0, time.process_time()
    for config in [{}] + args.config:
        played_at = []
        for n in envs.spec(args.game).player_counts:
            for seed in range(args.games):
                try:
                    digest, played = play(args.game, n, seed, config)
                except envs.ConfigError:  # a variant not defined for this player count
                    break
                total.update(digest)
                steps += played
            else:
                played_at.append(n)
        if not played_at:  # a fingerprint that silently left a config out would prove nothing about it
            parser.error(f"config {json.dumps(config)} is not valid at any player count of {args.game}")
    print(total.hexdigest(), steps, f"{time.process_time() - start:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
