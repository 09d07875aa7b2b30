"""Tournaments between agents: pairings, win rates with Wilson intervals, OpenSkill ratings, outputs.

Agents are named by spec: ``random``, ``heuristic``, ``mcts[:N]``, ``pretrained`` (the model in ``models/`` for
the game and player count, ``agents/pretrained.py``), a checkpoint path (``runs/x/final_model.zip``), or
``label=<spec>`` to choose the label shown in tables.

A *pairing* (A, B) is a series of games with A in one seat and B in every other seat (with 2
players: one seat each). A's seat rotates with the game index (game g: seat g mod N) and game g
uses the same seed in every pairing, so all pairings see the same deals. With 2 players one series
gives both directions (B's win rate is A's loss rate), so each unordered pair is played once; with
more players (A, B) and (B, A) are different series and both are played.

A game is a *win* for A when A's final reward is strictly higher than every other seat's (sole
first place); equal best rewards, and games truncated by ``max_turns``, are draws for A.

Ratings are OpenSkill Plackett-Luce ratings fed every game's full placement (one team per seat,
ranked by final reward), in the fixed order the games were played. When one agent holds several
seats of a game its new rating is the mean of the per-seat updates.
"""
from __future__ import annotations

import csv
import functools
import json
import math
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

import agents as agents_pkg
from agents.base import policy_observation
from agents.encoded import playing_in
from agents.base import Agent

BUILTIN_KINDS = ("random", "heuristic")


# -- statistics -------------------------------------------------------------------------------------
def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% for the default z)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def game_seed(seed: int, game_index: int) -> int:
    return int(np.random.SeedSequence([seed, game_index]).generate_state(1, dtype=np.uint64)[0] >> 1)


# -- agents from specs ------------------------------------------------------------------------------
@dataclass(frozen=True)
class AgentSpec:
    label: str
    # random | heuristic | mcts[:N][:heuristic|:guided][:dD] | pretrained (models/, path set by ``resolved``) |
    # checkpoint (SB3 .zip) | rllib (a model directory)
    kind: str
    path: str | None = None

    def metadata(self) -> dict:
        """What a trained model says it was trained for (``{}`` for a built-in agent or an unresolved
        ``pretrained``)."""
        if self.kind == "rllib":
            from agents.rllib_agent import read_rllib_metadata

            return read_rllib_metadata(self.path)
        if self.kind == "checkpoint" or (self.kind == "pretrained" and self.path is not None):
            from agents.ppo import read_checkpoint_metadata

            return read_checkpoint_metadata(self.path)
        return {}

    def resolved(self, game: str, num_players: int) -> "AgentSpec":
        """``pretrained`` with the path of its model for ``game`` at ``num_players`` (CheckpointError naming the
        file and the models that exist if there is none); any other spec as it is."""
        if self.kind != "pretrained":
            return self
        from agents import pretrained

        return AgentSpec(self.label, self.kind, pretrained.find(game, num_players))

    @classmethod
    def parse(cls, text: str) -> "AgentSpec":
        label, _, spec = text.partition("=") if "=" in text else ("", "", text)
        spec = spec.strip()
        if spec in BUILTIN_KINDS or agents_pkg.parse_mcts(spec) is not None:  # ValueError for a bad budget
            return cls(label or spec, spec)
        if spec == "pretrained":  # its model is known once the game and player count are (``resolved``)
            return cls(label or spec, spec)
        if spec.endswith(".zip") or os.path.exists(spec):
            from agents.rllib_agent import is_rllib_model

            if os.path.isdir(spec):
                if is_rllib_model(spec):  # a model of the RLlib backend: final_model/, step_N/ or snapshot_N/
                    return cls(label or _checkpoint_label(spec), "rllib", spec)
                if is_rllib_model(os.path.join(spec, "final_model")):  # an RLlib run directory
                    spec = os.path.join(spec, "final_model")
                    return cls(label or _checkpoint_label(spec), "rllib", spec)
                candidate = os.path.join(spec, "final_model.zip")
                if not os.path.isfile(candidate):
                    raise ValueError(f"agent {text!r}: directory without final_model.zip (SB3) or final_model/ "
                                     "(RLlib)")
                spec = candidate
            return cls(label or _checkpoint_label(spec), "checkpoint", spec)
        raise ValueError(
            f"agent {text!r}: use 'random', 'heuristic', 'mcts', 'mcts:N', 'pretrained', a checkpoint .zip path or a "
            "run directory (optionally as label=spec)"
        )

    def build(self, game: str, num_players: int, env_kwargs: dict | None = None,
              deterministic: bool = True, seed: int | None = None) -> Agent:
        if self.kind == "rllib":
            from agents.rllib_agent import RLlibAgent

            return RLlibAgent(self.path, game=game, num_players=num_players, env_kwargs=env_kwargs,
                              deterministic=deterministic, seed=seed)
        if self.kind == "checkpoint":
            from agents.ppo import PPOAgent

            return PPOAgent(self.path, game=game, num_players=num_players, env_kwargs=env_kwargs,
                            deterministic=deterministic, seed=seed)
        if self.kind == "pretrained":
            return agents_pkg.make_agent(self.kind, game, num_players, seed=seed, env_kwargs=env_kwargs,
                                         deterministic=deterministic)
        return agents_pkg.make_agent(self.kind, game, num_players, seed=seed)


def _checkpoint_label(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return f"{parent}/{stem}" if parent else stem


# -- playing ----------------------------------------------------------------------------------------
@dataclass
class GameRecord:
    seed: int
    seats: list[str]  # agent label per seat
    rewards: list[float]
    scores: list[float] | None
    moves: int
    turns: int | None
    truncated: bool


def play_game(env, seat_agents: Sequence[Agent], seat_labels: Sequence[str], seed: int) -> GameRecord:
    """Play one game of an AEC env to its end with one agent per seat."""
    env.reset(seed=seed)
    raw = env.unwrapped
    possible = list(raw.possible_agents)
    seat_of = {a: i for i, a in enumerate(possible)}
    for seat, agent in enumerate(seat_agents):
        agent.reset(game_seed(seed, seat + 1))
    moves = 0
    while True:
        current = raw.agent_selection
        if raw.terminations[current] or raw.truncations[current]:
            break
        obs = env.observe(current)
        env.step(seat_agents[seat_of[current]].act(policy_observation(obs), obs["action_mask"]))
        moves += 1
    info = raw.infos.get(possible[0], {})
    truncated = any(raw.truncations[a] for a in possible) and not any(raw.terminations[a] for a in possible)
    scores = info.get("scores")
    return GameRecord(
        seed=seed,
        seats=list(seat_labels),
        rewards=[float(raw.rewards[a]) for a in possible],
        scores=[float(s) for s in scores] if scores is not None else None,
        moves=moves,
        turns=info.get("turns"),
        truncated=truncated,
    )


@dataclass
class MatchResult:
    """A's results in a pairing (A in one rotating seat, B in the others)."""

    agent_name: str
    opponent_name: str
    records: list[GameRecord] = field(default_factory=list)
    agent_seats: list[int] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.records)

    def _outcomes(self) -> list[str]:
        out = []
        for record, seat in zip(self.records, self.agent_seats):
            mine = record.rewards[seat]
            best_other = max(r for s, r in enumerate(record.rewards) if s != seat)
            if record.truncated or mine == best_other:
                out.append("draw")
            elif mine > best_other:
                out.append("win")
            else:
                out.append("loss")
        return out

    @property
    def wins(self) -> int:
        return self._outcomes().count("win")

    @property
    def draws(self) -> int:
        return self._outcomes().count("draw")

    @property
    def losses(self) -> int:
        return self._outcomes().count("loss")

    @property
    def opponent_wins(self) -> int:
        """Games some B seat won outright (with 2 players: A's losses)."""
        count = 0
        for record, seat in zip(self.records, self.agent_seats):
            best = max(record.rewards)
            winners = [s for s, r in enumerate(record.rewards) if r == best]
            if not record.truncated and len(winners) == 1 and winners[0] != seat:
                count += 1
        return count

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def win_interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def mean_score(self) -> float | None:
        values = [r.scores[s] for r, s in zip(self.records, self.agent_seats) if r.scores is not None]
        return float(np.mean(values)) if values else None

    @property
    def mean_opponent_score(self) -> float | None:
        values = [
            np.mean([v for i, v in enumerate(r.scores) if i != s])
            for r, s in zip(self.records, self.agent_seats)
            if r.scores is not None
        ]
        return float(np.mean(values)) if values else None

    @property
    def mean_moves(self) -> float:
        return float(np.mean([r.moves for r in self.records])) if self.records else 0.0

    @property
    def mean_turns(self) -> float | None:
        values = [r.turns for r in self.records if r.turns is not None]
        return float(np.mean(values)) if values else None

    def summary(self) -> dict[str, Any]:
        low, high = self.win_interval
        return {
            "agent": self.agent_name,
            "opponent": self.opponent_name,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": self.win_rate,
            "win_rate_ci_low": low,
            "win_rate_ci_high": high,
            "opponent_wins": self.opponent_wins,
            "mean_score": self.mean_score,
            "mean_opponent_score": self.mean_opponent_score,
            "mean_moves": self.mean_moves,
            "mean_turns": self.mean_turns,
        }


def _as_agent(item, label: str | None, game: str, num_players: int, env_kwargs, deterministic: bool) -> tuple[Agent, str]:
    if isinstance(item, Agent):
        return item, label or getattr(item, "name", type(item).__name__)
    spec = item if isinstance(item, AgentSpec) else AgentSpec.parse(str(item))
    return spec.build(game, num_players, env_kwargs, deterministic), label or spec.label


def play_match(
    game: str,
    num_players: int,
    agent,
    opponent,
    games: int,
    seed: int = 0,
    env_kwargs: dict | None = None,
    deterministic: bool = True,
    agent_label: str | None = None,
    opponent_label: str | None = None,
    on_game=None,
    record_games: int = 0,
    on_record=None,
    played: Sequence[tuple[GameRecord, int]] = (),
    on_game_played=None,
) -> MatchResult:
    """Play a pairing: ``agent`` in seat ``g % num_players`` of game g, ``opponent`` in the rest.

    ``agent``/``opponent`` are Agent objects or specs (``"random"``, a checkpoint path, ...). Agents
    built from specs get one object per seat; an Agent object passed in sits in every seat it holds.
    ``on_game(games_played)``, if given, is called after every game (progress); ``on_record(game_index, record)``
    after each of the first ``record_games`` games, with its game record (``envs.core.records``).
    ``played``: the (record, agent's seat) of the pairing's first games, played before (an interrupted pairing):
    they are not played again, which gives the same results, since every game resets its agents with seeds of its
    own; ``on_game_played(game_index, record, seat)`` is called after each game played here (to save it).
    """
    import envs

    env = envs.make(game, num_players=num_players, **(env_kwargs or {}))
    a, a_label = _as_agent(agent, agent_label, game, num_players, env_kwargs, deterministic)
    if isinstance(opponent, Agent):
        others = [opponent] * (num_players - 1)
        b_label = opponent_label or getattr(opponent, "name", type(opponent).__name__)
    else:
        built = [_as_agent(opponent, opponent_label, game, num_players, env_kwargs, deterministic)
                 for _ in range(num_players - 1)]
        others = [agent_ for agent_, _ in built]
        b_label = built[0][1]
    a, others = playing_in(env, a), [playing_in(env, other) for other in others]
    result = MatchResult(a_label, b_label)
    for record, seat in played[:games]:
        result.records.append(record)
        result.agent_seats.append(seat)
    for g in range(len(result.records), games):
        seat = g % num_players
        rest = iter(others)
        seat_agents = [a if s == seat else next(rest) for s in range(num_players)]
        labels = [a_label if s == seat else b_label for s in range(num_players)]
        result.records.append(play_game(env, seat_agents, labels, game_seed(seed, g)))
        result.agent_seats.append(seat)
        if on_game_played is not None:
            on_game_played(g, result.records[-1], seat)
        if on_record is not None and g < record_games:
            on_record(g, env.record(labels))
        if on_game is not None:
            on_game(g + 1)
    return result


# -- tournaments ------------------------------------------------------------------------------------
@dataclass
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """Conservative skill estimate mu - 3 sigma (what OpenSkill ranks by)."""
        return self.mu - 3 * self.sigma


def openskill_ratings(records: Sequence[GameRecord], labels: Sequence[str]) -> dict[str, Rating]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    for record in records:
        teams = [[ratings[label]] for label in record.seats]
        ranks = [-r for r in record.rewards]  # lower rank is better; equal rewards tie
        updated = model.rate(teams, ranks=ranks)
        by_label: dict[str, list] = {}
        for label, team in zip(record.seats, updated):
            by_label.setdefault(label, []).append(team[0])
        for label, new in by_label.items():
            rating = ratings[label]
            rating.mu = float(np.mean([n.mu for n in new]))
            rating.sigma = float(np.mean([n.sigma for n in new]))
    return {label: Rating(r.mu, r.sigma) for label, r in ratings.items()}


@dataclass
class TournamentResult:
    game: str
    num_players: int
    games_per_pairing: int
    seed: int
    labels: list[str]
    matches: list[MatchResult]
    ratings: dict[str, Rating]
    env_kwargs: dict = field(default_factory=dict)
    deterministic: bool = True

    def win_matrix(self) -> np.ndarray:
        """[i, j]: win rate of agent i in its pairing against j (NaN on the diagonal / if not played)."""
        index = {label: i for i, label in enumerate(self.labels)}
        matrix = np.full((len(self.labels), len(self.labels)), np.nan)
        for match in self.matches:
            i, j = index[match.agent_name], index[match.opponent_name]
            matrix[i, j] = match.win_rate
            if self.num_players == 2 and np.isnan(matrix[j, i]):
                matrix[j, i] = match.opponent_wins / match.games if match.games else np.nan
        return matrix

    def rows(self) -> list[dict[str, Any]]:
        """One summary per directed pairing (with 2 players both directions of each series)."""
        rows = [m.summary() for m in self.matches]
        if self.num_players == 2:
            rows += [_mirror(m).summary() for m in self.matches]
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "num_players": self.num_players,
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "deterministic": self.deterministic,
            "env_kwargs": self.env_kwargs,
            "agents": self.labels,
            "pairings": self.rows(),
            "ratings": {
                k: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal} for k, r in self.ratings.items()
            },
            "win_matrix": [[None if np.isnan(v) else float(v) for v in row] for row in self.win_matrix()],
            "games": [
                {"pairing": f"{m.agent_name} vs {m.opponent_name}", "agent_seat": s, **asdict(r)}
                for m in self.matches
                for r, s in zip(m.records, m.agent_seats)
            ],
        }


def _mirror(match: MatchResult) -> MatchResult:
    """The same 2-player series seen from B's side."""
    mirrored = MatchResult(match.opponent_name, match.agent_name, list(match.records))
    mirrored.agent_seats = [1 - s for s in match.agent_seats]
    return mirrored


def _unique_labels(specs: Sequence[AgentSpec]) -> list[AgentSpec]:
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        count = seen.get(spec.label, 0)
        seen[spec.label] = count + 1
        out.append(spec if count == 0 else AgentSpec(f"{spec.label}#{count + 1}", spec.kind, spec.path))
    return out


def run_tournament(
    game: str,
    num_players: int,
    agent_specs: Sequence[str | AgentSpec],
    games: int,
    seed: int = 0,
    env_kwargs: dict | None = None,
    deterministic: bool = True,
    progress=None,
    finished: Sequence[MatchResult] = (),
    on_match=None,
    on_game=None,
    record_games: int = 0,
    on_record=None,
    partial: dict | None = None,
    on_game_played=None,
) -> TournamentResult:
    """Every pairing of the given agents over ``games`` games each (see the module docstring).

    ``finished``: pairings already played (an interrupted tournament, see ``read_pairings``), not played again;
    ``partial``: (agent label, opponent label) -> the (record, seat) of the first games of a pairing cut off by an
    interruption (``read_games``), not played again; ``on_game_played(agent_label, opponent_label, game_index,
    record, seat)`` after every game (to save it, ``game_line``);
    ``on_match(match)`` is called as each pairing ends (to save it), ``on_game(pairing, games_played)`` after
    every game, ``on_record(agent_label, opponent_label, game_index, record)`` with the game record of each of the
    first ``record_games`` games of a pairing."""
    import envs

    spec = envs.spec(game)
    if num_players not in spec.player_counts:
        from envs.core.errors import ConfigError

        raise ConfigError(f"{game} does not support num_players={num_players}; supported: {list(spec.player_counts)}")
    if len(agent_specs) < 2:
        raise ValueError("a tournament needs at least two agents")
    if games < 1:
        raise ValueError(f"games per pairing must be >= 1, got {games}")
    specs = _unique_labels([s if isinstance(s, AgentSpec) else AgentSpec.parse(s) for s in agent_specs])
    for s in specs:  # fail before playing anything if a checkpoint does not fit the game
        s.build(game, num_players, env_kwargs, deterministic)
    pairs = [
        (i, j)
        for i in range(len(specs))
        for j in range(len(specs))
        if i != j and (num_players > 2 or i < j)
    ]
    done = {(m.agent_name, m.opponent_name): m for m in finished}
    matches = []
    for i, j in pairs:
        pairing = f"{specs[i].label} vs {specs[j].label}"
        match = done.get((specs[i].label, specs[j].label))
        if match is None:
            if progress is not None:
                progress(pairing)
            match = play_match(
                game, num_players, specs[i], specs[j], games, seed, env_kwargs, deterministic,
                agent_label=specs[i].label, opponent_label=specs[j].label,
                on_game=None if on_game is None else functools.partial(on_game, pairing),
                record_games=record_games,
                on_record=None if on_record is None else functools.partial(on_record, specs[i].label, specs[j].label),
                played=(partial or {}).get((specs[i].label, specs[j].label), ()),
                on_game_played=None if on_game_played is None else functools.partial(
                    on_game_played, specs[i].label, specs[j].label))
            if on_match is not None:
                on_match(match)
        elif progress is not None:
            progress(f"{pairing} (already played)")
        matches.append(match)
    labels = [s.label for s in specs]
    ratings = openskill_ratings([r for m in matches for r in m.records], labels)
    return TournamentResult(game, num_players, games, seed, labels, matches, ratings, dict(env_kwargs or {}), deterministic)


# -- pairings saved as they end ---------------------------------------------------------------------
def pairing_line(match: MatchResult, settings: dict[str, Any]) -> str:
    """One finished pairing as a line of JSON, with the tournament settings it was played under."""
    return json.dumps({"settings": settings, "agent": match.agent_name, "opponent": match.opponent_name,
                       "agent_seats": match.agent_seats, "records": [asdict(r) for r in match.records]},
                      sort_keys=True, default=str)


def _saved_lines(path: str, settings: dict[str, Any]):
    """The items of the JSON lines in ``path`` saved under ``settings``; a line cut off by an interruption, or
    saved under other settings, is skipped."""
    if not os.path.isfile(path):
        return
    wanted = json.loads(json.dumps(settings, sort_keys=True, default=str))
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                continue
            if item.get("settings") == wanted:
                yield item


def read_pairings(path: str, settings: dict[str, Any]) -> list[MatchResult]:
    """The pairings saved in ``path`` (``pairing_line`` per line) under the same settings."""
    matches = []
    for item in _saved_lines(path, settings):
        match = MatchResult(item["agent"], item["opponent"], [GameRecord(**r) for r in item["records"]])
        match.agent_seats = list(item["agent_seats"])
        matches.append(match)
    return matches


def game_line(agent: str, opponent: str, game_index: int, record: GameRecord, seat: int,
              settings: dict[str, Any]) -> str:
    """One game of a pairing in progress as a line of JSON, with the tournament settings it was played under."""
    return json.dumps({"settings": settings, "agent": agent, "opponent": opponent, "game": game_index, "seat": seat,
                       "record": asdict(record)}, sort_keys=True, default=str)


def read_games(path: str, settings: dict[str, Any]) -> dict[tuple[str, str], list[tuple[GameRecord, int]]]:
    """Per pairing, the (record, agent's seat) of its first games saved in ``path`` (``game_line`` per line) under
    the same settings, in order and without a gap."""
    found: dict[tuple[str, str], dict[int, tuple[GameRecord, int]]] = {}
    for item in _saved_lines(path, settings):
        found.setdefault((item["agent"], item["opponent"]), {})[item["game"]] = (
            GameRecord(**item["record"]), item["seat"])
    partial = {}
    for pairing, games in found.items():
        first = []
        while len(first) in games:
            first.append(games[len(first)])
        partial[pairing] = first
    return partial


# -- outputs ----------------------------------------------------------------------------------------
def _fmt(value, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_table(result: TournamentResult, console=None) -> None:
    """The pairing table and the ratings, on the terminal (rich)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    if console is None:
        console = Console()
        if not console.is_terminal:  # piped or captured: do not squeeze the table into 80 columns
            console = Console(width=160)
    title = (
        f"{result.game}, {result.num_players} players, {result.games_per_pairing} games per pairing"
        + ("" if result.num_players == 2 else " (agent in one seat, opponent in all others)")
    )
    table = Table(title=title)
    for name, justify in [("agent", "left"), ("opponent", "left"), ("games", "right"), ("win rate", "right"),
                          ("95% CI", "right"), ("W/D/L", "right"), ("score", "right"),
                          ("opp. score", "right"), ("length", "right")]:
        table.add_column(name, justify=justify)
    for row in result.rows():
        length = row["mean_turns"] if row["mean_turns"] is not None else row["mean_moves"]
        # labels as plain Text, read neither as markup nor as emoji codes (mcts:100:heuristic is no "mcts💯heuristic")
        table.add_row(
            Text(row["agent"]), Text(row["opponent"]), str(row["games"]), f"{row['win_rate']:.3f}",
            f"[{row['win_rate_ci_low']:.3f}, {row['win_rate_ci_high']:.3f}]",
            f"{row['wins']}/{row['draws']}/{row['losses']}", _fmt(row["mean_score"]),
            _fmt(row["mean_opponent_score"]), _fmt(length, 1),
        )
    console.print(table)
    ratings = Table(title="OpenSkill (Plackett-Luce) ratings")
    for name, justify in [("agent", "left"), ("ordinal (mu-3σ)", "right"), ("mu", "right"), ("sigma", "right")]:
        ratings.add_column(name, justify=justify)
    for label, rating in sorted(result.ratings.items(), key=lambda kv: -kv[1].ordinal):
        ratings.add_row(Text(label), f"{rating.ordinal:.2f}", f"{rating.mu:.2f}", f"{rating.sigma:.2f}")
    console.print(ratings)
    length_unit = "turns" if any(m.mean_turns is not None for m in result.matches) else "moves"
    console.print(f"mean length in {length_unit}; a draw is a shared first place or a game cut by max_turns")


def write_csv(result: TournamentResult, path: str) -> None:
    rows = result.rows()
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) + ["agent_ordinal", "opponent_ordinal"])
        writer.writeheader()
        for row in rows:
            writer.writerow({
                **row,
                "agent_ordinal": result.ratings[row["agent"]].ordinal,
                "opponent_ordinal": result.ratings[row["opponent"]].ordinal,
            })


def write_json(result: TournamentResult, path: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(result.to_json(), handle, indent=2)


def plot(result: TournamentResult, path: str) -> None:
    """PNG: the win-rate matrix (row agent's win rate against the column agent) and the ratings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = result.labels
    matrix = result.win_matrix()
    size = max(4.0, 0.9 * len(labels) + 2.5)
    fig, (ax_matrix, ax_rating) = plt.subplots(1, 2, figsize=(2 * size + 1, size), gridspec_kw={"width_ratios": [1.2, 1]})
    image = ax_matrix.imshow(np.ma.masked_invalid(matrix), vmin=0, vmax=1, cmap="RdYlGn")
    ax_matrix.set_xticks(range(len(labels)), labels, rotation=40, ha="right")
    ax_matrix.set_yticks(range(len(labels)), labels)
    ax_matrix.set_xlabel("opponent")
    ax_matrix.set_ylabel("agent")
    ax_matrix.set_title(f"win rate ({result.games_per_pairing} games per pairing)")
    for i in range(len(labels)):
        for j in range(len(labels)):
            if not np.isnan(matrix[i, j]):
                ax_matrix.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=9)
    fig.colorbar(image, ax=ax_matrix, fraction=0.046, pad=0.04)
    order = sorted(labels, key=lambda k: result.ratings[k].mu)
    mus = [result.ratings[k].mu for k in order]
    errors = [3 * result.ratings[k].sigma for k in order]
    ax_rating.barh(range(len(order)), mus, xerr=errors, color="tab:blue", alpha=0.8, capsize=4)
    ax_rating.set_yticks(range(len(order)), order)
    ax_rating.set_xlabel("OpenSkill mu (bars: ±3 sigma)")
    ax_rating.set_title("ratings")
    fig.suptitle(f"{result.game}, {result.num_players} players")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_outputs(result: TournamentResult, out_dir: str, stem: str = "tournament") -> dict[str, str]:
    os.makedirs(out_dir, exist_ok=True)
    paths = {
        "csv": os.path.join(out_dir, f"{stem}.csv"),
        "json": os.path.join(out_dir, f"{stem}.json"),
        "png": os.path.join(out_dir, f"{stem}.png"),
    }
    write_csv(result, paths["csv"])
    write_json(result, paths["json"])
    plot(result, paths["png"])
    return paths
