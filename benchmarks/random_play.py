"""Many seeded random games in every action encoding of every game: the check that random masked play never
meets an empty mask (for ``MultiDiscrete``: a part with no legal value), an error or a game that does not end.

Game k of a (game, encoding) pair is seeded k and played at the game's player counts in turn (k modulo their
number), uniformly at random among the mask's legal actions (``MultiDiscrete``: part by part), until the game
ends or its ``max_turns`` cuts it. One JSON line per game goes to ``--out``; a game already there is not played
again, so the command resumes where it stopped and can be run a piece at a time. ``--summary`` prints, per game
and encoding, the games played, how many ended, were cut by ``max_turns`` or failed, and the decisions per game.

    python benchmarks/random_play.py [--games kingsburg,catan_card] [--encodings flat,pointer] [--count 200]
        [--out results/random_play.jsonl] [--summary]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import envs  # noqa: E402
from benchmarks.encodings import legal_count  # noqa: E402


def empty_part(env, mask: np.ndarray) -> bool:
    """Whether the mask leaves no legal action (for ``MultiDiscrete``: no legal value of some part)."""
    if env.codec.discrete:
        return not mask.any()
    sizes = env.action_space(env.agent_selection).nvec
    return any(not part.any() for part in np.split(mask, np.cumsum(sizes)[:-1]))


def play_one(game: str, encoding: str, seed: int) -> dict:
    """One seeded random game; its row: players, decisions, the sum and largest number of legal actions per
    decision (as ``benchmarks/encodings.py`` counts them), how it ended (``ended``, ``cut`` by max_turns,
    ``empty mask`` or ``error`` with the message) and its CPU seconds."""
    counts = envs.spec(game).player_counts
    players = counts[seed % len(counts)]
    row = {"game": game, "encoding": encoding, "seed": seed, "players": players}
    start = time.process_time()
    decisions = legal_sum = legal_max = 0
    try:
        env = envs.make(game, num_players=players, action_encoding=encoding)
        env.reset(seed=seed)
        pick = np.random.default_rng(seed)
        outcome = "cut"
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                outcome = "ended" if env.engine.is_over else "cut"
                env.step(None)
                continue
            mask = obs["action_mask"].view(bool)
            if empty_part(env, mask):
                outcome = f"empty mask at decision {decisions}"
                break
            legal = legal_count(env, obs)
            legal_sum, legal_max = legal_sum + legal, max(legal_max, legal)
            if env.codec.discrete:
                action = int(pick.choice(np.flatnonzero(mask)))
            else:
                action = env.action_space(agent).sample_with(pick, obs["action_mask"])
            env.step(action)
            decisions += 1
    except Exception as error:  # noqa: BLE001 - a failing game is a result to report, with its cause
        outcome = f"error at decision {decisions}: {type(error).__name__}: {error}"
        row["traceback"] = traceback.format_exc(limit=8)
    row.update(outcome=outcome, decisions=decisions, legal_sum=legal_sum, legal_max=legal_max, seconds=round(time.process_time() - start, 3))
    return row


def done_seeds(out: Path) -> set[tuple[str, str, int]]:
    if not out.exists():
        return set()
    rows = (json.loads(line) for line in out.read_text().splitlines() if line.strip())
    return {(row["game"], row["encoding"], row["seed"]) for row in rows}


def summary(out: Path) -> str:
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["game"], row["encoding"]), []).append(row)
    lines = ["| game | encoding | games | ended | cut by max_turns | failed | decisions per game (mean / max) "
             "| legal actions per decision (mean / max) | CPU s per game |", "|---|---|---|---|---|---|---|---|---|"]
    order = lambda key: (envs.names().index(key[0]), envs.encodings(key[0]).index(key[1]))  # noqa: E731
    for (game, encoding), group in sorted(groups.items(), key=lambda item: order(item[0])):
        decisions = [row["decisions"] for row in group]
        failed = [row for row in group if row["outcome"] not in ("ended", "cut")]
        lines.append(f"| {game} | {encoding} | {len(group)} | {sum(row['outcome'] == 'ended' for row in group)} "
                     f"| {sum(row['outcome'] == 'cut' for row in group)} | {len(failed)} "
                     f"| {statistics.fmean(decisions):,.0f} / {max(decisions):,} "
                     f"| {sum(row['legal_sum'] for row in group) / max(1, sum(decisions)):.1f} / "
                     f"{max(row['legal_max'] for row in group):,} "
                     f"| {statistics.fmean(row['seconds'] for row in group):.2f} |")
    failures = [f"- {row['game']} {row['encoding']} seed {row['seed']} ({row['players']} p): {row['outcome']}"
                for row in rows if row["outcome"] not in ("ended", "cut")]
    return "\n".join(lines + (["", "Failures:"] + failures if failures else []))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(envs.names()), help="comma-separated registered games")
    parser.add_argument("--encodings", help="comma-separated encodings (default: all of each game's)")
    parser.add_argument("--count", type=int, default=200, help="seeded games per game and encoding")
    parser.add_argument("--out", default="results/random_play.jsonl", help="JSON lines, one per game; resumed")
    parser.add_argument("--summary", action="store_true", help="only print the table of what --out holds")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if not args.summary:
        games = [game for game in args.games.split(",") if game]
        for game in games:
            if game not in envs.names():
                parser.error(f"unknown game {game!r}; registered: {', '.join(envs.names())}")
        out.parent.mkdir(parents=True, exist_ok=True)
        done = done_seeds(out)
        for game in games:
            encodings = args.encodings.split(",") if args.encodings else envs.encodings(game)
            for encoding in encodings:
                if encoding not in envs.encodings(game):
                    parser.error(f"{game} has no encoding {encoding!r}; it has {', '.join(envs.encodings(game))}")
                for seed in range(args.count):
                    if (game, encoding, seed) in done:
                        continue
                    row = play_one(game, encoding, seed)
                    with out.open("a") as file:
                        file.write(json.dumps(row) + "\n")
                    if row["outcome"] not in ("ended", "cut"):
                        print(f"{game} {encoding} seed {seed}: {row['outcome']}", flush=True)
    if out.exists():
        print(summary(out))
    failed = out.exists() and any(json.loads(line)["outcome"] not in ("ended", "cut")
                                  for line in out.read_text().splitlines() if line.strip())
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
