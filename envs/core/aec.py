"""The one AEC adapter: turns any game's (engine, codec, encoder) triple into a PettingZoo AECEnv.

Spaces (per agent, identical for every agent)
    observation_space: Dict(observation=Box(0, 1, (encoder.size,), float32),
                            action_mask=Box(0, 1, (codec.mask_size,), int8), **codec.observation_extras)
    action_space:      codec.action_space: Discrete(codec.num_actions) for ``flat``; the other action
                       encodings are in envs/core/encodings.py (docs/encodings.md)

Agents are ``player_0 .. player_{N-1}``, seat i = ``player_i``. Only the seat the engine names acts;
every other agent observes an all-zero mask. Rewards are 0 until the game ends, then rank-based
(see ``envs.core.rewards``; in a team game every member gets its team's reward). After
``max_turns`` completed player turns without an end, every agent is truncated with reward 0. An
illegal or out-of-range action raises ``IllegalActionError`` and leaves the game unchanged.
``infos[agent]`` is empty until the end, when it holds the final ``scores``, ``turns``, ``outcome`` and
``winners`` (see ``outcome``): a shared win and a truncation both pay 0 with two players, and only
``outcome`` tells them apart.

``record(agents)`` exports the game played since the last ``reset()`` as a game record (``envs.core.records``);
``seat_view(seat)`` is the text one seat may see and ``seat_picture(seat)`` the same as an SVG picture of the
table (``envs.core.picture``). ``render`` shows the public state only: text for ``render_mode="ansi"`` (returned)
and ``"human"`` (printed), the public picture as an (H, W, 3) uint8 array for ``"rgb_array"``.

Misuse: ``step``, ``last``, ``observe``, ``agent_iter`` and ``legal_actions`` before the first ``reset()``
raise ``ResetNeededError``. Once every agent is done and has been stepped out, ``step`` warns and does
nothing and ``last`` raises ``ResetNeededError``, as PettingZoo's order-enforcing wrapper does.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .config import build_config
from .errors import ConfigError, IllegalActionError, ResetNeededError
from .game import GameSpec
from .rewards import rank_rewards, team_rank_rewards

RENDER_MODES = ("ansi", "human", "rgb_array")

#: ``infos[agent]["outcome"]`` at the end of a game
WIN = "win"  # one seat (or team) placed first alone
SHARED_WIN = "shared_win"  # several seats (or teams) placed first equally
TRUNCATED = "truncated"  # cut off after ``max_turns`` turns: nobody placed, every reward 0


def outcome(rewards: list[float], team_of: list[int] | None = None) -> tuple[str, list[int]]:
    """The outcome of a game ended by its rules and its winners, the seats placed first: rank rewards are
    equal exactly for seats (teams) placed equally, and highest for those placed first."""
    best = max(rewards)
    winners = [seat for seat, value in enumerate(rewards) if value == best]
    sides = winners if team_of is None else {team_of[seat] for seat in winners}
    return (WIN if len(sides) == 1 else SHARED_WIN), winners


class TabletopEnv(AECEnv):
    # The adapter's own attributes are slots, which leaves PettingZoo's in the instance dict: CPython 3.11 shares
    # the names of at most 29 instance attributes per class, and past that an instance's attributes (read at
    # every step) move to a plain dict, whose reads cost about twice as much
    __slots__ = ("spec", "num_players", "max_turns", "config", "codec", "action_encoding", "encoder", "_seat_of",
                 "_num_actions", "_discrete", "_index_codec", "_rng", "engine", "_legal", "_start", "_moves",
                 "_final")

    def __init__(
        self,
        spec: GameSpec,
        num_players: int | None = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
        action_encoding: str | None = None,
        **config,
    ):
        super().__init__()
        n = spec.default_players if num_players is None else num_players
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n not in spec.player_counts:
            raise ConfigError(
                f"{spec.name} does not support num_players={num_players!r}; "
                f"supported: {list(spec.player_counts)}"
            )
        # a game without a picture of its table (GameSpec.draw_picture) has no rgb_array mode
        render_modes = tuple(mode for mode in RENDER_MODES if mode != "rgb_array" or spec.draw_picture is not None)
        if render_mode is not None and render_mode not in render_modes:
            raise ConfigError(f"render_mode must be one of {render_modes} or None, got {render_mode!r}")
        max_turns = spec.default_max_turns if max_turns is None else max_turns
        if isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer)) or max_turns < 1:
            raise ConfigError(f"max_turns must be a positive integer, got {max_turns!r}")
        self.spec = spec
        self.num_players = int(n)
        self.max_turns = int(max_turns)
        self.render_mode = render_mode
        self.config = build_config(spec.config_cls, config)
        if spec.check_config is not None:
            spec.check_config(self.config, self.num_players)  # options that depend on the player count
        self.codec = spec.new_codec(self.config, self.num_players, action_encoding)
        self.action_encoding = self.codec.name
        self.encoder = spec.new_encoder(self.config, self.num_players)
        self.metadata = {
            "render_modes": list(render_modes),
            "name": spec.env_name,
            "is_parallelizable": False,
        }
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=self.encoder.low, high=self.encoder.high,
                    shape=(self.encoder.size,), dtype=np.float32,
                ),
                "action_mask": spaces.Box(0, 1, shape=(self.codec.mask_size,), dtype=np.int8),
                **self.codec.observation_extras,
            }
        )
        act_space = self.codec.action_space
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._num_actions = self.codec.num_actions
        # an index action (and, for observe, the two usual entries): the short paths of observe and step
        self._discrete = self.codec.discrete
        self._index_codec = self._discrete and not self.codec.observation_extras
        self._rng: np.random.Generator | None = None
        self.engine = None
        self._legal: list[int] | None = None
        self._start: dict = {}  # how the current game's engine was seeded (records.game_record)
        self._moves: list[tuple[int, int]] = []  # (seat, index) per step of the current game
        self._final: dict | None = None  # the end's infos and rewards, kept after the agents are stepped out
        self.agents: list[str] = []  # filled by reset(); until then every call that plays raises ResetNeededError
        self.agent_selection = None

    # -- spaces ---------------------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- lifecycle ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        # a game reset without a seed continues the stream: its record keeps the generator's state instead
        self._start = ({"seed": int(seed)} if seed is not None
                       else {"seed": None, "rng_state": self._rng.bit_generator.state})
        self._moves = []
        self._final = None
        self.engine = self.spec.new_engine(self.config, self.num_players, self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._legal = None
        self.codec.reset()
        self.agent_selection = self.possible_agents[self.engine.current_player]

    def legal_actions(self) -> list[int]:
        """Legal indices for the agent to move, ascending: a copy, since ``step`` trusts the cached list."""
        if self._legal is None:
            self._legal = self.codec.legal_actions(self._reset_engine("legal_actions"))
        return list(self._legal)

    def _reset_engine(self, called: str):
        if self.engine is None:
            raise ResetNeededError(f"{self.spec.env_name}: call reset() before {called}()")
        return self.engine

    def agent_iter(self, max_iter: int = 2**63):
        self._reset_engine("agent_iter")
        return super().agent_iter(max_iter)

    def observe(self, agent):
        seat = self._seat_of[agent]
        engine = self.engine
        if engine is None:
            self._reset_engine("observe")
        obs = self.encoder.encode(engine, seat)
        if not self._index_codec:
            return self._observe_moves(engine, seat, obs)
        mask = bytearray(self._num_actions)
        if seat == engine.current_player:
            legal = self._legal
            if legal is None:
                legal = self._legal = self.codec.legal_actions(engine)
            for i in legal:
                mask[i] = 1
        # dtype passed positionally: numpy's keyword parsing costs about 0.5 us per call here
        return {"observation": obs, "action_mask": np.frombuffer(mask, np.int8)}

    def _observe_moves(self, engine, seat: int, obs: np.ndarray) -> dict:
        """The observation under a codec with a vector action or its own observation entries."""
        codec = self.codec
        if seat == engine.current_player:
            return {"observation": obs, "action_mask": codec.action_mask(engine), **codec.extras(engine, seat)}
        zeros = {name: np.zeros(space.shape, space.dtype) for name, space in codec.observation_extras.items()}
        return {"observation": obs, "action_mask": np.zeros(codec.mask_size, np.int8), **zeros}

    def last(self, observe: bool = True):
        # AECEnv.last, here so that it runs compiled with the rest of the adapter (it is called at every step)
        agent = self.agent_selection
        if not self.agents:
            self._reset_engine("last")
            raise ResetNeededError(f"{self.spec.env_name}: every agent is done; call reset() to play again")
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def step(self, action) -> None:
        agent = self.agent_selection
        if not self.agents:
            self._reset_engine("step")
            gymnasium.logger.warn("step() called after every agent is terminated or truncated; call reset() first")
            return
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        engine = self.engine
        if self._discrete:
            legal = self._legal
            if legal is None:
                legal = self.codec.legal_actions(engine)
            if type(action) is not int or action not in legal:
                action = self.codec.check(engine, action, legal)  # raises with a message if illegal
        else:
            action = self.codec.check(engine, action)
        self.codec.apply_legal(engine, action)
        self._moves.append((self._seat_of[agent], action))
        self._legal = None
        self._cumulative_rewards[agent] = 0
        if engine.is_over:
            team_of = engine.team_of
            values = (rank_rewards(engine.placement_scores()) if team_of is None
                      else team_rank_rewards(engine.placement_scores(), team_of))
            final = engine.scores()
            result, winners = outcome(values, team_of)
            for a in self.agents:
                seat = self._seat_of[a]
                self.rewards[a] = values[seat]
                self.terminations[a] = True
                self.infos[a] = {"scores": list(final), "turns": engine.turn, "outcome": result,
                                 "winners": list(winners)}
            self._final = {"rewards": list(values), **self.infos[self.agents[0]]}
            self._accumulate_rewards()  # rewards are non-zero only here, at the end
        else:
            if engine.turn >= self.max_turns:
                final = engine.scores()
                for a in self.agents:
                    self.truncations[a] = True
                    self.infos[a] = {"scores": list(final), "turns": engine.turn, "outcome": TRUNCATED,
                                     "winners": []}
                self._final = {"rewards": [0] * self.num_players, **self.infos[self.agents[0]]}
            self.agent_selection = self.possible_agents[engine.current_player]
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' "
                                  "or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return self._draw("render", None).to_rgb_array()
        text = self.engine.render_text() if self.engine is not None else "(not reset)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # -- conveniences ---------------------------------------------------------------------------
    def action_name(self, index) -> str:
        """The readable name of an action index, 0 <= index < the number of actions (or of an action vector)."""
        if not self.codec.discrete:
            if not self.action_spaces[self.possible_agents[0]].contains(np.asarray(index, np.int64)):
                raise IllegalActionError(f"no action {index!r} in {self.action_spaces[self.possible_agents[0]]}")
            return self.codec.action_name(tuple(int(v) for v in index))
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < self._num_actions:
            raise IllegalActionError(f"no action {index!r}: valid indices are 0..{self._num_actions - 1}")
        return self.codec.action_name(int(index))

    def seat_view(self, seat: int) -> str:
        """The state as seat ``seat`` may see it: the public picture and that seat's own hidden information
        (its hand, its sealed choices), never another seat's."""
        engine = self._reset_engine("seat_view")
        seat = self._check_seat(seat)
        view = self.spec.seat_view
        return engine.render_text() if view is None else view(engine, seat)

    def seat_picture(self, seat: int) -> str:
        """The table as seat ``seat`` may see it, as one ``<svg>`` element (no scripts, no external references):
        the picture of ``seat_view``, its own hidden information included and every other seat's left out."""
        self._reset_engine("seat_picture")
        return self._draw("seat_picture", self._check_seat(seat)).to_svg()

    def _draw(self, called: str, seat: int | None):
        engine = self._reset_engine(called)
        if self.spec.draw_picture is None:
            raise NotImplementedError(f"{self.spec.env_name} has no picture of its table")
        picture = self.spec.draw_picture(engine, seat)
        if self._final is not None and self._final["outcome"] == TRUNCATED:
            from .picture import cut_off

            cut_off(picture, engine.current_player,
                    f"cut off after {engine.turn} turns (max_turns {self.max_turns}): no winner, every reward 0")
        return picture

    def _check_seat(self, seat) -> int:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.num_players:
            raise IllegalActionError(f"no seat {seat!r}: seats are 0..{self.num_players - 1}")
        return int(seat)

    def determinized(self, seat: int, rng: np.random.Generator):
        """A copy of the game in which everything seat ``seat`` must not know is sampled again from ``rng``,
        consistent with what it has seen (``GameSpec.determinize``); the game itself is unchanged."""
        engine = self._reset_engine("determinized")
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.num_players:
            raise IllegalActionError(f"no seat {seat!r}: seats are 0..{self.num_players - 1}")
        if self.spec.determinize is None:
            raise ConfigError(f"{self.spec.name} has no determinize: its hidden information cannot be sampled")
        return self.spec.determinize(engine, int(seat), rng)

    def record(self, agents: list[str | None] | None = None) -> dict:
        """The record of the game played since the last ``reset()`` (finished or not), as a JSON-ready dict;
        ``agents`` labels the seats. Format: ``envs.core.records``."""
        from .records import game_record

        self._reset_engine("record")
        return game_record(self, agents)

    @property
    def observation_layout(self):
        return self.encoder.layout

    def __repr__(self) -> str:
        return f"<{self.spec.env_name} num_players={self.num_players}>"
