"""The baseline table of docs/baselines.md, in one command: a round robin per game and player count.

    python scripts/baselines.py                                   # every game: hours of CPU
    python scripts/baselines.py --games kingsburg --players 2 --games-per-pairing 20

For each game at its smallest player count and at 4 (medioevo_universale: 3 and 5), random, heuristic, the game's
smaller and larger search (agents.mcts.BASELINE_BUDGETS) and pretrained (the model in models/, left out with a
note when there is none) play a round robin through
evaluate.py (its pairings, seeds and outputs; <out>/<game>_<N>p.json). The section of docs/baselines.md between
the baselines markers is then written again from every finished setup in <out>: each pairing's wins, draws, losses
and win rate with its 95% Wilson interval, each agent's OpenSkill ordinal, the pretrained model's training budget
(its sidecar) and the evaluate.py command of the setup. The rest of the doc is left as it is.

Resuming: a setup whose outputs exist under the same settings (game, players, agents, games per pairing, seed, and
the pretrained model's file) is not played again, and an interrupted setup goes on from its last finished pairing
(evaluate.py's own resume): run the same command again. A setup not played yet is listed as such. The same
settings give the same table.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from envs.core.errors import TabletopError  # noqa: E402

BEGIN = "<!-- baselines:begin -->"
END = "<!-- baselines:end -->"
#: the agents of every round robin; "mcts-budgets" stands for the game's two searches (agents.mcts.BASELINE_BUDGETS)
DEFAULT_AGENTS = ("random", "heuristic", "mcts-budgets", "pretrained")
DEFAULT_DOC = os.path.join(ROOT, "docs", "baselines.md")
#: player counts other than (smallest, 4): medioevo_universale's smallest is 3, so 4 would be next to it
PLAYER_COUNTS = {"medioevo_universale": (3, 5)}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", metavar="GAME", help="only these games (default: every game)")
    parser.add_argument("--players", nargs="+", type=int, metavar="N",
                        help="only these player counts among each game's two (default: both)")
    parser.add_argument("--games-per-pairing", type=int, default=100, help="games per pairing (default: 100)")
    parser.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS),
                        help=f"the agents of every round robin (default: {' '.join(DEFAULT_AGENTS)})")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the games (default: 0)")
    parser.add_argument("--out", default=os.path.join("results", "baselines"),
                        help="evaluate.py's output directory (default: results/baselines)")
    parser.add_argument("--doc", default=DEFAULT_DOC, help="the doc whose marked section is written "
                                                          "(default: docs/baselines.md)")
    return parser


def setups() -> list[tuple[str, int]]:
    """(game, player count) of the table, in order: every game at its smallest count and at 4 (PLAYER_COUNTS)."""
    import envs

    found = []
    for game in envs.names():
        counts = envs.spec(game).player_counts
        for n in PLAYER_COUNTS.get(game, (min(counts), 4)):
            if n in counts:
                found.append((game, n))
    return found


def _stem(game: str, num_players: int) -> str:
    return f"{game}_{num_players}p"


def _file_hash(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def plan(game: str, num_players: int, agents: list[str], games: int, seed: int) -> dict:
    """What one setup plays: its agents (pretrained only if its model exists, else a note), the evaluate.py
    arguments and the settings its outputs must match to be reused."""
    from agents import pretrained

    model = pretrained.model_path(game, num_players)
    from agents.mcts import BASELINE_BUDGETS

    playing, note = [], None
    for agent in agents:
        playing += BASELINE_BUDGETS[game] if agent == "mcts-budgets" else [agent]
    if "pretrained" in playing and not os.path.isfile(model):
        playing.remove("pretrained")
        note = f"no pretrained model ({pretrained.model_name(game, num_players)}.zip in models/): not played"
    arguments = ["--game", game, "--num-players", str(num_players), "--agents", *playing, "--games", str(games),
                 "--seed", str(seed)]
    settings = {"arguments": arguments,
                "model_sha256": _file_hash(model) if "pretrained" in playing else None}
    return {"game": game, "num_players": num_players, "agents": playing, "note": note, "arguments": arguments,
            "settings": settings}


def _settings_file(out: str, game: str, num_players: int) -> str:
    return os.path.join(out, f"{_stem(game, num_players)}.baseline.json")


def finished(out: str, setup: dict) -> dict | None:
    """The saved outcome of ``setup`` (evaluate.py's JSON and the code version it was played with) if it was played
    under the same settings, else None."""
    game, n = setup["game"], setup["num_players"]
    results = os.path.join(out, f"{_stem(game, n)}.json")
    try:
        with open(_settings_file(out, game, n), encoding="utf-8") as handle:
            saved = json.load(handle)
        with open(results, encoding="utf-8") as handle:
            result = json.load(handle)
    except (OSError, json.JSONDecodeError):
        return None
    if saved.get("settings") != setup["settings"]:
        return None
    return {"result": result, "code_version": saved.get("code_version")}


def play(out: str, setup: dict) -> None:
    """Play one setup through evaluate.py (which resumes an interrupted one) and note its settings."""
    import evaluate
    from agents.training.checkpoints import code_version

    if len(setup["agents"]) < 2:
        raise ValueError(f"{setup['game']} at {setup['num_players']} players: fewer than two agents to play")
    name = _stem(setup["game"], setup["num_players"])
    status = evaluate.main([*setup["arguments"], "--out", out, "--name", name, "--no-plot"])
    if status != 0:
        raise ValueError(f"evaluate.py stopped on {name} (exit code {status})")
    with open(_settings_file(out, setup["game"], setup["num_players"]), "w", encoding="utf-8") as handle:
        json.dump({"settings": setup["settings"], "code_version": code_version()}, handle, indent=2)


# -- the doc's section ------------------------------------------------------------------------------
def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "an unknown time"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def _short(version: str) -> str:
    """A code version (a git commit, perhaps ``+local changes``) with the commit cut to 10 digits."""
    commit, plus, rest = version.partition("+")
    return commit[:10] + plus + rest


def _budget(game: str, num_players: int) -> str:
    from agents import pretrained

    info = pretrained.read_sidecar(game, num_players)
    name = f"`models/{pretrained.model_name(game, num_players)}.zip`"
    if info is None:
        return f"pretrained: {name}, without a sidecar (how it was trained is unknown)."
    steps = info.get("total_steps")
    parts = [f"pretrained: {name}, trained {steps:,} steps" if steps is not None else f"pretrained: {name}",
             f"in {_duration(info.get('wall_seconds'))}"]
    if info.get("training_command"):
        parts.append(f"by `{info['training_command']}`")
    details = [f"seed {info.get('seed')}"]
    if info.get("git_commit"):
        details.append(f"code {_short(info['git_commit'])}")
    return " ".join(parts) + f" ({', '.join(details)})."


def section(chosen: list[dict], outcomes: dict[tuple[str, int], dict], games: int, seed: int,
            agents: list[str]) -> str:
    """The generated part of the doc, from the finished setups' outcomes."""
    command = ["python", "scripts/baselines.py", "--games-per-pairing", str(games), "--seed", str(seed)]
    if list(agents) != list(DEFAULT_AGENTS):
        command += ["--agents", *agents]
    lines = [f"Made by `{shlex.join(command)}`. Win rates count sole first places; W / D / L are the first "
             "agent's wins, draws and losses, with its win rate and 95% Wilson interval; with 2 players each pairing "
             "is one series, with more the first agent holds one seat and the second all the others. The OpenSkill "
             "ordinal is mu − 3 sigma.", ""]
    missing = []
    for setup in chosen:
        game, n = setup["game"], setup["num_players"]
        outcome = outcomes.get((game, n))
        if outcome is None:
            missing.append(f"{game} at {n} players")
            continue
        result = outcome["result"]
        lines += [f"### {game}, {n} players", "",
                  f"`{shlex.join(['python', 'evaluate.py', *setup['arguments'], '--no-plot'])}`"
                  + (f", code {_short(outcome['code_version'])}" if outcome.get("code_version") else ""), ""]
        if setup["note"]:
            lines += [setup["note"].capitalize() + ".", ""]
        if "pretrained" in setup["agents"]:
            lines += [_budget(game, n), ""]
        if result.get("env_kwargs"):
            lines += [f"Env settings (the pretrained model's training): `{json.dumps(result['env_kwargs'])}`.", ""]
        order = {label: i for i, label in enumerate(result["agents"])}
        lines += ["| agent | opponent | games | W / D / L | win rate [95% interval] |", "|---|---|---|---|---|"]
        for row in result["pairings"]:
            if n == 2 and order[row["agent"]] > order[row["opponent"]]:
                continue  # the mirror of a series already listed
            lines.append(f"| `{row['agent']}` | `{row['opponent']}` | {row['games']} | "
                         f"{row['wins']} / {row['draws']} / {row['losses']} | {row['win_rate']:.2f} "
                         f"[{row['win_rate_ci_low']:.2f}, {row['win_rate_ci_high']:.2f}] |")
        lines += ["", "| agent | OpenSkill ordinal | mu | sigma |", "|---|---|---|---|"]
        for label, rating in sorted(result["ratings"].items(), key=lambda item: -item[1]["ordinal"]):
            lines.append(f"| `{label}` | {rating['ordinal']:.2f} | {rating['mu']:.2f} | {rating['sigma']:.2f} |")
        lines.append("")
    if missing:
        lines += [f"Not played yet at these settings: {', '.join(missing)}.", ""]
    return "\n".join(lines)


def _marked(doc: str) -> tuple[str, int, int]:
    """The doc's text and where its marked section starts and ends; ValueError if it has none."""
    with open(doc, encoding="utf-8") as handle:
        content = handle.read()
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{doc}: no {BEGIN} ... {END} section to write the table into")
    return content, start, end


def write_section(doc: str, text: str) -> None:
    """Replace what lies between the markers of ``doc`` with ``text``; the rest of the file is kept byte for
    byte."""
    content, start, end = _marked(doc)
    new = content[:start + len(BEGIN)] + "\n" + text.rstrip("\n") + "\n" + content[end:]
    with open(doc, "w", encoding="utf-8") as handle:
        handle.write(new)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import envs

        for game in args.games or []:
            envs.spec(game)  # ConfigError naming the games for an unknown one
        if args.games_per_pairing < 1:
            raise ValueError(f"--games-per-pairing must be >= 1, got {args.games_per_pairing}")
        chosen = [plan(game, n, args.agents, args.games_per_pairing, args.seed) for game, n in setups()]
        selected = [s for s in chosen if (not args.games or s["game"] in args.games)
                    and (not args.players or s["num_players"] in args.players)]
        if not selected:
            raise ValueError(f"no setup among {[(s['game'], s['num_players']) for s in chosen]} matches --games "
                             f"{args.games} --players {args.players}")
        _marked(args.doc)  # before hours of play, not after
        os.makedirs(args.out, exist_ok=True)
        outcomes = {}
        for setup in chosen:
            key = (setup["game"], setup["num_players"])
            if setup in selected and finished(args.out, setup) is None:
                if setup["note"]:
                    print(f"{key[0]} at {key[1]} players: {setup['note']}", file=sys.stderr)
                play(args.out, setup)
            elif setup in selected:
                print(f"{key[0]} at {key[1]} players: already played under the same settings", file=sys.stderr)
            done = finished(args.out, setup)
            if done is not None:
                outcomes[key] = done
        write_section(args.doc, section(chosen, outcomes, args.games_per_pairing, args.seed, args.agents))
    except (TabletopError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote the table of {len(outcomes)} setup(s) into {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
