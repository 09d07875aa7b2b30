"""A rule-based Medioevo Universale player that reads only its own observation and mask.

Plan: stay solvent and out of trouble — bid nothing for turn order, keep a moderate tax, never
borrow unless a deficit leaves no cheaper cover, never start a war against a player — and turn the
money into final-scoring awards: technology levels (highest-technology award) and the EP buildings
(cities, castles, cathedrals), while keeping a cash reserve for upkeep and the most-money award.
Every decision it has no rule for gets the cheapest safe answer: ``CTRL(DONE)`` when offered,
otherwise a seeded random legal move.
"""
from __future__ import annotations

import random

import numpy as np

from envs.medioevo_universale import SPEC
from envs.medioevo_universale.constants import PHASE_NAMES
from envs.medioevo_universale.engine import MedioevoConfig
from envs.medioevo_universale.observation import MedioevoEncoder

from ..base import Agent

TAX_RATE = "TAX(30)"
# technology plan: the branches whose design technologies unlock EP buildings, one level per round
TECH_PLAN = ("masonry", "architecture", "religion (")
BUILD_PREFERENCE = ("cathedral", "city", "castle", "town", "fortress", "village", "tower")
MONEY_SCALE = 5000  # encoder: seat money / 5000
CASH_RESERVE = 400  # kept back for upkeep and the most-money award
# cheapest cover of a deficit first: give up a unit, sell a vehicle or building, then borrow
DEFICIT_PREFERENCE = ("UNIT(", "OBJECT(", "BUILD(", "CTRL(TAKE_LOAN)")


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, num_players: int, seed: int | None = None, **config):
        game_config = MedioevoConfig(**{k: v for k, v in config.items() if k != "max_turns"})
        self.codec = SPEC.new_codec(game_config, num_players, "flat")  # the heuristic plays flat indices
        self.encoder = MedioevoEncoder(game_config, num_players)
        self.layout = self.encoder.layout
        self.names = [self.codec.action_name(i) for i in range(self.codec.num_actions)]
        self._random = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._random.seed(seed)

    # ------------------------------------------------------------------------------------------
    def act(self, observation, action_mask) -> int:
        obs = np.asarray(observation)
        legal = [int(i) for i in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        by_name = {self.names[i]: i for i in legal}
        phase_slot = int(np.argmax(obs[self.layout["phase"]]))
        phase = PHASE_NAMES[phase_slot] if phase_slot < len(PHASE_NAMES) else "WAIT"
        money = float(obs[self.layout["seat0_money"]][0]) * MONEY_SCALE

        if phase in ("BID", "TIE_BID", "TAX", "WAR_TURN", "TRADE_TURN"):
            if phase == "TAX" and TAX_RATE in by_name:
                return by_name[TAX_RATE]
            if "CTRL(DONE)" in by_name:
                return by_name["CTRL(DONE)"]
        if phase == "PURCHASE":
            return self._purchase(by_name, money)
        if phase == "DEFICIT":
            for prefix in DEFICIT_PREFERENCE:
                for name, i in by_name.items():
                    if name.startswith(prefix):
                        return i
        if phase == "AFTER_ROUND" and "CTRL(DONE)" in by_name:
            return by_name["CTRL(DONE)"]
        if phase == "CAPITULATION_ANSWER" and "CTRL(REJECT)" in by_name:
            return by_name["CTRL(REJECT)"]
        return self._fallback(by_name, legal)

    def _purchase(self, by_name: dict[str, int], money: float) -> int:
        spendable = money - CASH_RESERVE
        # inside a purchase already chosen: complete it (every offered move leads to a legal purchase)
        if "PURCHASE(TECH)" not in by_name and "CTRL(DONE)" not in by_name:
            return self._complete(by_name)
        for name, i in by_name.items():
            if name.startswith("TECH(") and any(t in name for t in TECH_PLAN):
                return i
        for kind in BUILD_PREFERENCE:
            name = f"BUILD({kind})"
            if name in by_name:
                return by_name[name]
        if spendable >= 100 and "PURCHASE(TECH)" in by_name:
            return by_name["PURCHASE(TECH)"]
        if spendable >= 200 and "PURCHASE(BUILD)" in by_name:
            return by_name["PURCHASE(BUILD)"]
        return by_name.get("CTRL(DONE)", next(iter(by_name.values())))

    def _complete(self, by_name: dict[str, int]) -> int:
        for kind in BUILD_PREFERENCE:
            if f"BUILD({kind})" in by_name:
                return by_name[f"BUILD({kind})"]
        techs = [(name, i) for name, i in by_name.items() if name.startswith("TECH(")]
        if techs:
            planned = [i for name, i in techs if any(t in name for t in TECH_PLAN)]
            return planned[0] if planned else techs[0][1]
        return self._fallback(by_name, list(by_name.values()))

    def _fallback(self, by_name: dict[str, int], legal: list[int]) -> int:
        if "CTRL(DONE)" in by_name:
            return by_name["CTRL(DONE)"]
        safe = [i for name, i in by_name.items() if name != "CTRL(TAKE_LOAN)"]
        return self._random.choice(safe or legal)
