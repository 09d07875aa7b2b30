"""A rule-based Catan card game player that reads only its own observation.

Plan: pick the most valuable build it could aim for (improvement > city > settlement > knight >
road), trade toward that build's missing resources, build everything it can in that order, pay with
printed resources when possible, and steal or take free cards whenever offered.
"""
from __future__ import annotations

import random

import numpy as np

from envs.catan_card import SPEC, CatanCardConfig, CatanCardEncoder
from envs.catan_card.data import BUILD_KINDS, IMPROVEMENT_KINDS, RESOURCES, setup_for
from envs.catan_card.engine import PHASE_NAMES

from ..base import Agent

BUILD_PRIORITY = ("improvement", "city", "settlement", "knight", "road")
# 4-VP kinds first, then the ones whose effect helps most against strong opponents
IMPROVEMENT_PRIORITY = ("town_hall", "marketplace", "library", "merchant_guild", "church", "city_castle")


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, num_players: int, seed: int | None = None, **config):
        game_config = CatanCardConfig(**config)
        self.codec = SPEC.new_codec(game_config, num_players, "flat")  # the heuristic plays flat indices
        self.encoder = CatanCardEncoder(game_config, num_players)
        self.layout = self.encoder.layout
        self.costs = {k: np.array(c) for k, c in zip(BUILD_KINDS, setup_for(num_players).costs)}
        self.index = {name: i for i, name in enumerate(self.codec.action_names())}
        self._random = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._random.seed(seed)

    # ------------------------------------------------------------------------------------------
    def act(self, observation, action_mask) -> int:
        raw = self.encoder.unscale(np.asarray(observation))
        L = self.layout
        phase = PHASE_NAMES[int(np.argmax(raw[L["phase"]]))]
        hand = raw[L["my_hand"]]
        legal = {self.codec.action_name(i): i for i in np.flatnonzero(action_mask)}
        need = self._need(raw, hand)
        surplus = hand - need - self._reserved(raw, hand)

        def res_by(score, pool):
            options = [r for r in range(5) if f"RES({RESOURCES[r]})" in legal]
            r = max(options, key=lambda r: (score(r), pool[r] if pool is not None else 0, -r))
            return legal[f"RES({RESOURCES[r]})"]

        if phase in ("BUILD", "TRADE"):
            for name in legal:
                if name.startswith("GUILD_STEAL"):
                    return legal[name]  # a free card
        if phase == "BUILD":
            for kind in BUILD_PRIORITY:
                if f"BUILD({kind})" in legal:
                    return legal[f"BUILD({kind})"]
            return legal["PASS"]
        if phase == "TRADE":
            if need.sum() > 0 and surplus.max() > 0:
                market = raw[L["market"]]
                if "TRADE_MARKET" in legal and (market * (need > 0)).sum() > 0:
                    return legal["TRADE_MARKET"]
                if "TRADE_DRAW_PILE" in legal:
                    return legal["TRADE_DRAW_PILE"]
                opponents = [n for n in legal if n.startswith("TRADE_OPP")]
                if opponents:
                    return legal[opponents[0]]
            return legal["PASS"]
        if phase == "MARKET_TAKE":
            market = raw[L["market"]]
            wanted = [r for r in range(5) if need[r] > 0 and market[r] > 0]
            if wanted and raw[L["batch_cards"]][0] < need.sum() and any(surplus > 0):
                return legal[f"RES({RESOURCES[max(wanted, key=lambda r: need[r])]})"]
            if "PASS" in legal:
                return legal["PASS"]
            return res_by(lambda r: need[r], market)
        if phase in ("MARKET_RETURN", "PLAYER_RETURN", "ROBBER_DISCARD"):
            return res_by(lambda r: surplus[r], hand)
        if phase == "DRAW_PILE_DISCARD":
            if "PASS" in legal and surplus.max() <= 0:
                return legal["PASS"]
            return res_by(lambda r: surplus[r], hand)
        if phase == "PLAYER_TAKE":
            if "USE_LIBRARY" in legal:
                return legal["USE_LIBRARY"]
            if "PASS" in legal and surplus.max() <= 0:
                return legal["PASS"]
            return legal["BLIND_DRAW"]
        if phase in ("LIBRARY_PICK", "MARKET_DAY"):
            return res_by(lambda r: need[r], None)
        if phase == "PAY":
            if "PAY_AS_PRINTED" in legal:
                return legal["PAY_AS_PRINTED"]
            # substitute with the resource we hold most spare of
            subs = [n for n in legal if n.startswith("SUBSTITUTE")]
            return legal[max(subs, key=lambda n: surplus[RESOURCES.index(n.split("3x")[1][:-1])])]
        if phase == "CHOOSE_IMPROVEMENT":
            for kind in IMPROVEMENT_PRIORITY:
                if f"IMPROVEMENT({kind})" in legal:
                    return legal[f"IMPROVEMENT({kind})"]
        if phase == "KNIGHT_DRAW":
            return legal["BLIND_DRAW"]
        if phase == "FATE_FLIP":
            return legal["PASS"]
        return int(self._random.choice(list(legal.values())))

    # ------------------------------------------------------------------------------------------
    def _target(self, raw) -> str:
        L = self.layout
        settlements = raw[L["seat0_settlements"]][0]
        cities = raw[L["seat0_unimproved_cities"]][0]
        owned = [raw[L[f"seat0_owns_{k}"]][0] for k in IMPROVEMENT_KINDS]
        supply_improvements = raw[L["supply_improvements"]]
        built = dict(zip(BUILD_KINDS, raw[L["turn_flags"]][4:]))
        supply_settlements = raw[L["supply_buildings"]][2]
        if cities and any(s > 0 and not o for s, o in zip(supply_improvements, owned)) and not built["improvement"]:
            return "improvement"
        if settlements and not built["city"]:
            return "city"
        if supply_settlements and not built["settlement"]:
            return "settlement"
        return "knight" if not built["knight"] else "road"

    def _need(self, raw, hand) -> np.ndarray:
        return np.maximum(self.costs[self._target(raw)] - hand, 0)

    def _reserved(self, raw, hand) -> np.ndarray:
        """Cards of the hand that the target build will consume (not spare)."""
        return np.minimum(self.costs[self._target(raw)], hand)
