"""Play a game in the terminal against agents, or step through a game record.

    python play.py --game kingsburg --num-players 3 --seat 0 --opponents runs/kingsburg_3p heuristic
    python play.py --game catan_card --opponents heuristic --record my_game.json
    python play.py --replay my_game.json --seat 1
    python play.py --web --game kingsburg --opponents heuristic      # in the browser: open the address it prints

Opponents: agent specs as in evaluate.py (random, heuristic, mcts or mcts:N, pretrained, a checkpoint .zip or a run
directory, label=spec), one per other seat in seat order, or one for all of them. Your screen shows what your seat may
see: the public board and your own hidden information (``env.seat_view``), never another seat's. Choose a move by its
number or by typing part of its name; ``help`` lists the commands. See docs/play.md.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from typing import TextIO

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from envs.core.errors import TabletopError  # noqa: E402

HUMAN = "human"
HIDDEN_CHOICE = "a hidden choice"  # an opponent's move named instead, where its name would tell hidden information
PLAY_HELP = """\
[bold]commands[/bold]
  a number          play the move with that number in the list
  part of a name    play the one legal move whose name contains it (case ignored; an exact name wins)
  moves             list the legal moves again
  board             draw the position again
  help, ?           this help
  quit              stop the game (saved with --record, as unfinished)"""
REPLAY_HELP = """\
[bold]commands[/bold]
  next, n, Enter    one move forwards
  back, b           one move backwards
  go K, K           to the position after K moves (0 = the start)
  start, end        to the first / last position
  help, ?           this help
  quit, q           stop"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="catan_card", help="registered game (default: catan_card)")
    parser.add_argument("--num-players", type=int, help="players (default: the checkpoints' player count, else the game's default)")
    parser.add_argument("--seat", type=int, nargs="+", default=[0],
                        help="your seat, 0-based (default: 0); with --web, several for people in several tabs; "
                             "with --replay, the seat whose view is shown")
    parser.add_argument("--opponents", nargs="+", default=["heuristic"],
                        help="agent spec per other seat, or one for all (default: heuristic)")
    parser.add_argument("--seed", type=int, help="the game's seed (default: a random one; it decides every hidden card, so it is "
                             "shown at the end, and recorded)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="rule option or max_turns, e.g. --env module_governors=true")
    parser.add_argument("--record", metavar="FILE", help="save the game's record here when it ends or you quit")
    parser.add_argument("--replay", metavar="FILE", help="step through a game record instead of playing")
    parser.add_argument("--width", type=int, help="screen width in columns (default: the terminal's)")
    parser.add_argument("--web", action="store_true", help="play in the browser: serve the game's page")
    parser.add_argument("--host", default="127.0.0.1", help="with --web, the address to serve on (default: "
                                                             "127.0.0.1, this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="with --web, the port (default 8000; 0: a free one)")
    return parser


class Screen:
    """Input and output of a session: ``ask(prompt)`` reads a line (None at the end of the input), ``show``
    prints rich markup. Tests pass a list of lines and read ``text()``."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, width: int | None = None):
        from rich.console import Console

        self._stdin = stdin if stdin is not None else sys.stdin
        self.console = Console(file=stdout if stdout is not None else sys.stdout, width=width, highlight=False,
                               force_terminal=None if stdout is None else False, soft_wrap=False,
                               emoji=False)  # agent names such as mcts:100 hold emoji codes

    def ask(self, prompt: str) -> str | None:
        self.console.print(prompt, end="")
        line = self._stdin.readline()
        if not line:
            self.console.print()
            return None
        if not self._stdin.isatty():  # echo scripted input so that the transcript reads as a session
            self.console.print(line.rstrip("\n"), markup=False, highlight=False)
        return line.strip()

    def show(self, *items, **kwargs) -> None:
        self.console.print(*items, **kwargs)


# -- choosing a move --------------------------------------------------------------------------------
def match_move(text: str, legal: list[int], names: list[str]) -> tuple[int | None, str]:
    """The legal index ``text`` picks (a 1-based number in the list, or part of a name) and an empty message, or
    None and a message saying why not."""
    text = text.strip()
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1], ""
        return None, f"no move {number}: the moves are numbered 1..{len(legal)}"
    wanted = text.lower()
    exact = [i for i, name in zip(legal, names) if name.lower() == wanted]
    if exact:
        return exact[0], ""
    found = [(i, name) for i, name in zip(legal, names) if wanted in name.lower()]
    if len(found) == 1:
        return found[0][0], ""
    if not found:
        return None, f"no legal move matches {text!r}; type a number 1..{len(legal)}, part of a name, or help"
    shown = ", ".join(name for _, name in found[:8]) + (", ..." if len(found) > 8 else "")
    return None, f"{text!r} matches {len(found)} moves ({shown}); type more of the name or its number"


def _moves_table(env, legal: list[int]):
    from rich.table import Table
    from rich.text import Text

    table = Table(title="your legal moves", show_header=False, box=None, padding=(0, 2), min_width=24)
    columns = 3 if len(legal) > 24 else 2 if len(legal) > 8 else 1
    for _ in range(columns):
        table.add_column(justify="right", style="bold")
        table.add_column()
    rows = -(-len(legal) // columns)
    for r in range(rows):
        cells = []
        for c in range(columns):
            k = c * rows + r
            cells += [str(k + 1), Text(env.action_name(legal[k]))] if k < len(legal) else ["", ""]
        table.add_row(*cells)
    return table


def _view_panel(env, seat: int, title: str):
    from rich.panel import Panel
    from rich.text import Text

    return Panel(Text(env.seat_view(seat)), title=title, expand=False)


def result_text(env, labels: list[str]) -> str:
    final = env._final
    if final is None:
        return "the game was stopped before its end"
    scores = ", ".join(f"seat {s} ({labels[s]}) {final['scores'][s]}" for s in range(env.num_players))
    if final["outcome"] == "truncated":
        return f"the game was cut off after {final['turns']} turns (max_turns); scores: {scores}"
    winners = " and ".join(f"seat {s} ({labels[s]})" for s in final["winners"])
    verb = "share the win" if final["outcome"] == "shared_win" else "wins"
    return f"game over: {winners} {verb}; scores: {scores}"


# -- playing ----------------------------------------------------------------------------------------
def play_game(env, seat: int, opponents: dict, labels: list[str], seed: int, screen: Screen) -> bool:
    """Play one game with the human at ``seat`` and ``opponents`` (seat -> Agent) elsewhere; False if the human
    quit before the end."""
    from envs.core.visibility import MoveVisibility

    visibility = MoveVisibility(env)
    start_game(env, opponents, seed)
    # the seed decides every hidden card, so it is told with the result
    screen.show(f"[bold]{env.spec.name}[/bold], {env.num_players} players; you are seat {seat}. "
                "Type help for the commands.")
    while env._final is None:
        agent = env.agent_selection
        to_move = env.possible_agents.index(agent)
        if to_move != seat:
            index = opponent_move(env, opponents[to_move])
            told = HIDDEN_CHOICE if visibility.hidden_from(env, index, [seat]) else env.action_name(index)
            env.step(index)
            screen.show(f"seat {to_move} ({labels[to_move]}): {told}", markup=False)
            continue
        legal = env.legal_actions()
        names = [env.action_name(i) for i in legal]
        screen.show(_view_panel(env, seat, f"your view, seat {seat}"))
        screen.show(_moves_table(env, legal))
        while True:
            line = screen.ask(f"seat {seat}, your move> ")
            if line is None or line.lower() in ("quit", "exit"):
                screen.show("game stopped")
                return False
            if line.lower() in ("help", "?"):
                screen.show(PLAY_HELP)
            elif line.lower() == "moves":
                screen.show(_moves_table(env, legal))
            elif line.lower() == "board":
                screen.show(_view_panel(env, seat, f"your view, seat {seat}"))
            elif not line:
                screen.show("type a move's number or part of its name (help lists the commands)")
            else:
                index, message = match_move(line, legal, names)
                if index is None:
                    screen.show(message, markup=False)
                    continue
                env.step(index)
                screen.show(f"seat {seat} (you): {env.action_name(index)}")
                break
    screen.show(_view_panel(env, seat, "the end"))
    screen.show(f"{result_text(env, labels)} (seed {seed})", markup=False)
    return True


def build_opponents(game: str, num_players: int, human_seats: list[int], texts: list[str], env_kwargs: dict):
    from agents.training.tournament import AgentSpec

    others = [s for s in range(num_players) if s not in human_seats]
    if len(texts) not in (1, len(others)):
        raise ValueError(f"--opponents: give one agent spec for all {len(others)} other seats or one per seat, "
                         f"got {len(texts)}")
    specs = [AgentSpec.parse(t) for t in (texts * len(others) if len(texts) == 1 else texts)]
    agents = {s: spec.build(game, num_players, env_kwargs, deterministic=True) for s, spec in zip(others, specs)}
    labels = [HUMAN if s in human_seats else specs[others.index(s)].label for s in range(num_players)]
    return specs, agents, labels


def start_game(env, opponents: dict, seed: int) -> None:
    """Reset the env and each opponent (seat -> Agent) for the game of ``seed``."""
    env.reset(seed=seed)
    for other, agent in opponents.items():
        agent.reset(seed + other + 1)


def opponent_move(env, agent) -> int:
    """The move ``agent`` chooses for the seat to move, from that seat's observation."""
    from agents.base import policy_observation

    obs = env.observe(env.agent_selection)
    return agent.act(policy_observation(obs), obs["action_mask"])


def new_game(args, human_seats: list[int]):
    """The env, the opponents (seat -> Agent, every seat not in ``human_seats``), the seat labels and the seed of
    a game set up from the command line (``--game --num-players --opponents --env --seed``)."""
    import envs
    from agents.training.config import parse_assignment
    from agents.training.tournament import AgentSpec
    from evaluate import trained_env_settings, trained_num_players

    specs = [AgentSpec.parse(t) for t in args.opponents]
    num_players = args.num_players or trained_num_players(specs) or envs.spec(args.game).default_players
    specs = [spec.resolved(args.game, num_players) for spec in specs]  # pretrained: models/<game>_<N>p.zip
    if args.env:
        env_kwargs = dict(parse_assignment(item) for item in args.env)
    else:
        env_kwargs = trained_env_settings(specs)
    env = envs.make(args.game, num_players=num_players, **env_kwargs)
    for seat in human_seats:
        if isinstance(seat, bool) or not 0 <= seat < num_players:
            raise ValueError(f"--seat must be in 0..{num_players - 1}, got {seat}")
    if len(set(human_seats)) != len(human_seats):
        raise ValueError(f"--seat: each seat once, got {human_seats}")
    from agents.encoded import playing_in

    _, opponents, labels = build_opponents(args.game, num_players, human_seats, args.opponents, env_kwargs)
    # flat agents in a move encoding; a searching agent gets its sampler of the states its seat cannot tell apart
    opponents = {s: playing_in(env, agent) for s, agent in opponents.items()}
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    return env, opponents, labels, seed


def run_play(args, screen: Screen) -> int:
    from envs.core import records

    if len(args.seat) != 1:
        raise ValueError("--seat: one seat in the terminal (several human seats play in the browser, --web)")
    seat = args.seat[0]
    env, opponents, labels, seed = new_game(args, [seat])
    play_game(env, seat, opponents, labels, seed, screen)
    if args.record:
        records.save_record(env.record(labels), args.record)
        screen.show(f"record saved to {args.record}", markup=False)
    return 0


# -- replaying --------------------------------------------------------------------------------------
def show_position(replay, seat: int, screen: Screen) -> None:
    env, record = replay.env, replay.record
    labels = [label or f"seat {s}" for s, label in enumerate(record["agents"])]
    move = replay.last_move()
    header = (f"move {replay.position}/{len(replay)}" + (
        f": seat {move['seat']} ({labels[move['seat']]}) played {move['name']}" if move else ": the start"))
    screen.show(header, markup=False)
    screen.show(_view_panel(env, seat, f"seat {seat}'s view"))
    if replay.position == len(replay):
        screen.show(result_text(env, labels), markup=False)


def run_replay(args, screen: Screen) -> int:
    from envs.core import records

    record = records.read_record(args.replay)
    try:
        replay = records.Replay(record)
    except records.RecordError as exc:
        raise records.RecordError(f"record {args.replay!r}: {exc}") from None
    if len(args.seat) != 1 or not 0 <= args.seat[0] < replay.env.num_players:
        raise ValueError(f"--seat: one seat in 0..{replay.env.num_players - 1}, got {args.seat}")
    seat = args.seat[0]
    screen.show(f"[bold]replay of {record['game']}[/bold], {record['num_players']} players, seed "
                f"{record['seed']}, {len(replay)} moves; agents {record['agents']}. Type help for the commands.")
    replay.goto(0)
    show_position(replay, seat, screen)
    while True:
        line = screen.ask("replay> ")
        if line is None or line.lower() in ("quit", "q", "exit"):
            return 0
        command, _, rest = line.lower().partition(" ")
        target = None
        if command in ("", "next", "n"):
            target = replay.position + 1
        elif command in ("back", "b", "p", "prev"):
            target = replay.position - 1
        elif command == "start":
            target = 0
        elif command == "end":
            target = len(replay)
        elif command in ("go", "g") and rest.strip().isdigit():
            target = int(rest)
        elif command.isdigit() and not rest:
            target = int(command)
        elif command in ("help", "?"):
            screen.show(REPLAY_HELP)
            continue
        else:
            screen.show(f"unknown command {line!r}; type help for the commands", markup=False)
            continue
        if not 0 <= target <= len(replay):
            screen.show(f"no position {target}: positions are 0..{len(replay)} (moves played)")
            continue
        replay.goto(target)
        show_position(replay, seat, screen)


def main(argv=None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    screen = Screen(stdin, stdout, args.width)
    try:
        if args.web:
            from webplay.server import run_web

            return run_web(args)
        return run_replay(args, screen) if args.replay else run_play(args, screen)
    except (TabletopError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
