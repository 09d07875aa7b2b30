"""Tournament between agents: every pairing over N games, seats rotated, seeds fixed.

    python evaluate.py --game catan_card --agents runs/catan_card_2p/final_model.zip random heuristic --games 500
    python evaluate.py --game catan_card --num-players 4 --agents ppo=runs/catan_card_4p random heuristic

Agents: random, heuristic, mcts or mcts:N (docs/baselines.md), pretrained (the model shipped in models/ for the game
and player count), a checkpoint .zip, a model directory of the RLlib backend (final_model/, checkpoints/step_N/) or a
run directory of either backend (its final model), each optionally as label=spec. Prints the pairing table (win rate
with a 95% Wilson interval, mean score, mean game length) and OpenSkill ratings, and writes <out>/<stem>.csv, .json
and .png.
Each pairing is saved as it ends (<out>/<stem>.pairings.jsonl) and each game as it ends (<out>/<stem>.games.jsonl);
run the same command again after an interruption and the pairings and games already played are not played again
(every game resets its agents with seeds of its own, so the results are those of an uninterrupted run).
--record DIR saves the game record of every game (with --record-games N, of the first N games of each pairing)
as DIR/<agent>-vs-<opponent>-g<game>.json; replay one with ``python play.py --replay FILE`` (docs/play.md). Without --env, the games use the env
settings the checkpoints were trained with (``max_turns``, options), when they agree.
See docs/training.md for the pairing rule.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# One BLAS thread (unless the variable is set): the policies' matrix products are small, and numpy's OpenBLAS
# otherwise keeps a second thread spinning between them, which takes CPU time from the games whenever every core
# is busy (two runs at once on 2 cores). Set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from envs.core.errors import TabletopError  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="catan_card", help="registered game (default: catan_card)")
    parser.add_argument("--num-players", type=int, help="players per game (default: the checkpoints' player count, else the game's default)")
    parser.add_argument("--agents", nargs="+", required=True, help="two or more agent specs")
    parser.add_argument("--games", type=int, default=200, help="games per pairing (default: 200)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the games (default: 0)")
    parser.add_argument("--stochastic", action="store_true",
                        help="checkpoints sample from their policy instead of taking the best action")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="rule option or max_turns passed to the env, e.g. --env max_turns=500")
    parser.add_argument("--out", default="results", help="output directory (default: results)")
    parser.add_argument("--name", default=None, help="file stem of the outputs (default: <game>_<N>p)")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG")
    parser.add_argument("--record", metavar="DIR", help="save game records (JSON, docs/play.md) in DIR")
    parser.add_argument("--record-games", type=int, metavar="N",
                        help="with --record: only the first N games of each pairing (default: every game)")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import envs
        from agents.training import tournament
        from agents.training.config import parse_assignment
        from envs.core import records

        specs = [tournament.AgentSpec.parse(text) for text in args.agents]
        num_players = args.num_players or trained_num_players(specs) or envs.spec(args.game).default_players
        specs = [spec.resolved(args.game, num_players) for spec in specs]  # pretrained: models/<game>_<N>p.zip
        env_kwargs = (dict(parse_assignment(item) for item in args.env) if args.env
                      else trained_env_settings(specs))
        stem = args.name or f"{args.game}_{num_players}p"
        os.makedirs(args.out, exist_ok=True)
        saved = os.path.join(args.out, f"{stem}.pairings.jsonl")
        settings = {"game": args.game, "num_players": num_players, "agents": [vars(s) for s in specs],
                    "games": args.games, "seed": args.seed, "env": env_kwargs, "deterministic": not args.stochastic}
        finished = tournament.read_pairings(saved, settings)
        if finished:
            print(f"{len(finished)} pairing(s) already played under the same settings ({saved})", file=sys.stderr)
        saved_games = os.path.join(args.out, f"{stem}.games.jsonl")
        partial = tournament.read_games(saved_games, settings)
        ended = {(m.agent_name, m.opponent_name) for m in finished}
        for (agent, opponent), played in partial.items():
            if played and (agent, opponent) not in ended:
                print(f"{agent} vs {opponent}: {len(played)} game(s) already played ({saved_games})", file=sys.stderr)
        every = max(1, args.games // 10)

        def save(match) -> None:
            with open(saved, "a", encoding="utf-8") as handle:
                handle.write(tournament.pairing_line(match, settings) + "\n")

        def save_game(agent: str, opponent: str, game_index: int, record, seat: int) -> None:
            with open(saved_games, "a", encoding="utf-8") as handle:
                handle.write(tournament.game_line(agent, opponent, game_index, record, seat, settings) + "\n")

        def show(pairing: str, played: int) -> None:
            if played % every == 0 or played == args.games:
                print(f"  {pairing}: {played}/{args.games} games", file=sys.stderr)

        if args.record_games is not None and (args.record is None or args.record_games < 0):
            raise ValueError("--record-games N needs --record DIR and N >= 0")
        record_games = 0 if args.record is None else args.games if args.record_games is None else args.record_games

        def save_record(agent_label: str, opponent_label: str, game_index: int, record: dict) -> None:
            name = f"{record_file_part(agent_label)}-vs-{record_file_part(opponent_label)}-g{game_index:04d}.json"
            records.save_record(record, os.path.join(args.record, name))

        start = time.perf_counter()
        result = tournament.run_tournament(
            args.game, num_players, specs, args.games, seed=args.seed, env_kwargs=env_kwargs,
            deterministic=not args.stochastic,
            progress=lambda text: print(f"playing {text} ...", file=sys.stderr),
            finished=finished, on_match=save, on_game=show, record_games=record_games, on_record=save_record,
            partial=partial, on_game_played=save_game,
        )
        seconds = time.perf_counter() - start
    except (TabletopError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    tournament.print_table(result)
    tournament.write_csv(result, os.path.join(args.out, f"{stem}.csv"))
    tournament.write_json(result, os.path.join(args.out, f"{stem}.json"))
    written = [f"{stem}.csv", f"{stem}.json"]
    if not args.no_plot:
        tournament.plot(result, os.path.join(args.out, f"{stem}.png"))
        written.append(f"{stem}.png")
    for path in (saved, saved_games):  # the results are complete in the outputs
        if os.path.isfile(path):
            os.remove(path)
    games = sum(m.games for m in result.matches)
    print(f"{games} games in {seconds:.1f} s; wrote " + ", ".join(os.path.join(args.out, w) for w in written))
    return 0


def record_file_part(label: str) -> str:
    """An agent label as part of a file name (a checkpoint's label holds a slash)."""
    return re.sub(r"[^A-Za-z0-9_.]+", "_", label).strip("_") or "agent"


#: spec kinds that are trained models (a ``pretrained`` spec once resolved: its metadata is read from its file)
TRAINED_KINDS = ("checkpoint", "rllib", "pretrained")


def trained_env_settings(specs) -> dict:
    """The env settings the checkpoints among ``specs`` were trained with; an error if they differ."""
    found = {}
    for spec in specs:
        if spec.kind in TRAINED_KINDS:
            found[spec.label] = dict(spec.metadata().get("env_kwargs") or {})
    distinct = {tuple(sorted(kwargs.items(), key=str)) for kwargs in found.values()}
    if len(distinct) > 1:
        raise ValueError(f"the checkpoints were trained with different env settings {found}; choose with --env")
    settings = dict(next(iter(distinct))) if distinct else {}
    if settings:
        print(f"env settings of the checkpoints' training: {settings} (--env KEY=VALUE to choose others)",
              file=sys.stderr)
    return settings


def trained_num_players(specs) -> int | None:
    """The player count the checkpoints among ``specs`` were trained at (None without checkpoints); an error if
    they differ."""
    found = {spec.label: spec.metadata().get("num_players") for spec in specs if spec.kind in ("checkpoint", "rllib")}
    counts = {n for n in found.values() if n is not None}
    if len(counts) > 1:
        raise ValueError(f"the checkpoints were trained at different player counts {found}; choose with "
                         "--num-players")
    return counts.pop() if counts else None


if __name__ == "__main__":
    sys.exit(main())
