"""A rule-based Kingsburg player that reads only its own observation, its mask and the game data.

Plan: place dice on the most valuable free advisor per player die spent, take the goods that the
next affordable building needs, build the building with the most VP (battle strength breaks ties),
recruit just enough soldiers to beat the expected enemy, and take every free conversion or VP.
"""
from __future__ import annotations

import random

import numpy as np

from envs.kingsburg import SPEC, KingsburgConfig, KingsburgEncoder
from envs.kingsburg.data import NUM_COLS, NUM_SLOTS, tables
from envs.kingsburg.engine import DECISION_NAMES, RECRUIT_PAYMENTS

from ..base import Agent

# rough worth of each advisor's reward (index = rank): goods ~1, VP ~1.3, +2 token ~0.7, soldier ~0.6
ADVISOR_VALUE = (0, 1.3, 1.0, 1.0, 1.0, 0.7, 1.0, 1.7, 2.0, 2.0, 1.5, 2.0, 2.7, 3.0, 2.0, 3.0, 4.0, 6.0, 3.6)
GOVERNOR_PREFERENCE = ("miner", "tax_collector", "preacher", "prince", "magician", "thief")


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, num_players: int, seed: int | None = None, **config):
        game_config = KingsburgConfig(**config)
        self.num_players = num_players
        self.codec = SPEC.new_codec(game_config, num_players, "flat")  # the heuristic plays flat indices
        self.encoder = KingsburgEncoder(game_config, num_players)
        self.layout = self.encoder.layout
        self.tables = tables(game_config.module_more_buildings)
        self.market_slot = next(b.slot for b in self.tables.buildings if b and b.effect == "market")  # C-II
        self.names = self.codec.action_names()
        self._random = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._random.seed(seed)

    # ------------------------------------------------------------------------------------------
    def act(self, observation, action_mask) -> int:
        raw = self.encoder.unscale(np.asarray(observation))
        L = self.layout
        legal = [int(i) for i in np.flatnonzero(action_mask)]
        names = {self.names[i]: i for i in legal}
        decision = DECISION_NAMES[int(np.argmax(raw[L["decision"]]))]
        goods = raw[L["seat0_goods"]].astype(int)
        built = raw[L["seat0_buildings"]].astype(bool)

        if decision == "DICE":
            return self._place_dice(raw, legal)
        if decision == "MODIFIERS":
            return self._modifiers(raw, legal)
        if decision == "PICK_GOOD":
            wanted = self._wanted_goods(goods, built)
            for g in wanted:
                name = f"GOOD({('gold', 'wood', 'stone')[g]})"
                if name in names:
                    return names[name]
            return legal[0]
        if decision in ("BUILD", "ENVOY_BUILD", "FREE_BUILD"):
            return self._build(built, names)
        if decision == "RECRUIT":
            return self._recruit(raw, goods, built, names)
        if decision in ("ALCHEMIST", "TOWN_HALL"):
            if "PAY_PLUS2" in names:
                return names["PAY_PLUS2"]
            payable = [(goods[g], g) for g in range(3) if f"GOOD({('gold', 'wood', 'stone')[g]})" in names]
            if payable:
                return names[f"GOOD({('gold', 'wood', 'stone')[max(payable)[1]]})"]
            return names["PASS"]
        if decision in ("SMUGGLER", "CONVERSION", "FARMS_DIE", "PRINCE"):
            return names.get("YES", legal[0])
        if decision == "REROLL":
            dice = self._dice(raw)
            total = sum(v for v, _ in dice)
            if "CHAPEL(reroll all)" in names and total <= 7:
                return names["CHAPEL(reroll all)"]
            if "STATUE(player die)" in names and dice and dice[0][0] <= 3:
                return names["STATUE(player die)"]
            return names["PASS"]
        if decision == "ARMY_TOKEN":
            tokens = [n for n in names if n.startswith("ARMY_TOKEN")]
            tokens.sort(key=lambda n: int(n[len("ARMY_TOKEN("):-1]))
            return names[tokens[len(tokens) // 2]]
        if decision == "GOVERNOR":
            hand = np.flatnonzero(raw[L["my_governor_hand"]])
            ids = [self.tables.governors[g].id for g in hand]
            best = min(range(len(ids)), key=lambda i: GOVERNOR_PREFERENCE.index(ids[i])
                       if ids[i] in GOVERNOR_PREFERENCE else 99)
            return names.get(f"GOVERNOR(card {best + 1})", legal[0])
        return self._random.choice(legal)

    # ------------------------------------------------------------------------------------------
    def _dice(self, raw) -> list[tuple[int, bool]]:
        """My dice as (value, is_player_die), slot order P0..P2, B0..B3 (absent dice skipped)."""
        L = self.layout
        player = raw[L["seat0_player_dice"]]
        bonus = raw[L["seat0_bonus_dice"]]
        dice = []
        for i in range(3):
            onehot = player[7 * i:7 * i + 6]
            if onehot.any():
                dice.append((int(np.argmax(onehot)) + 1, True))
        for i in range(4):
            if bonus[8 * i]:
                dice.append((int(np.argmax(bonus[8 * i + 1:8 * i + 7])) + 1, False))
        return dice

    def _free_ranks(self, raw) -> list[bool]:
        L = self.layout
        taken = raw[L["neutral_advisors"]].copy()
        for i in range(self.num_players):
            taken |= raw[L[f"seat{i}_advisors"]]
        return [True] + [not t for t in taken]

    def _market_usable(self, raw) -> bool:
        """The Market is built and not used this season: a die sum may reach one rank higher or lower (spec 2.4
        C-II)."""
        L = self.layout
        return bool(raw[L["seat0_buildings"]][self.market_slot]) and not raw[L["seat0_flags"]][1]

    def _place_dice(self, raw, legal: list[int]) -> int:
        L = self.layout
        player = raw[L["seat0_player_dice"]]
        bonus = raw[L["seat0_bonus_dice"]]
        pvals = [int(np.argmax(player[7 * i:7 * i + 6])) + 1 for i in range(3)]
        bvals = [int(np.argmax(bonus[8 * i + 1:8 * i + 7])) + 1 if bonus[8 * i] else 0 for i in range(4)]
        free = self._free_ranks(raw)
        plus2 = raw[L["seat0_plus2"]][0] > 0 and not raw[L["seat0_flags"]][0]
        market = self._market_usable(raw)
        offsets = {0} | ({2} if plus2 else set())
        if market:
            offsets |= {o + m for o in offsets for m in (-1, 1)}
        best, best_score = legal[0], 0.0  # PASS scores 0
        for index in legal:
            name = self.names[index]
            if not name.startswith("DICE("):
                continue
            arg = index - self.names.index("DICE(P0)")
            pm, bm = (arg >> 4) + 1, arg & 15
            used = sum(pm >> i & 1 for i in range(3))
            total = sum(pvals[i] for i in range(3) if pm >> i & 1) + sum(bvals[i] for i in range(4) if bm >> i & 1)
            value = max((ADVISOR_VALUE[total + o] for o in offsets if 1 <= total + o <= 18 and free[total + o]),
                        default=1.0)  # occupied targets need the envoy: value it as a plain reward
            score = value / used
            if score > best_score:
                best, best_score = index, score
        return best

    def _modifiers(self, raw, legal: list[int]) -> int:
        total = int(raw[self.layout["pending_dice"]][7])
        first = self.names.index("MODIFIERS(plus2=0,market=-1,envoy=0)")

        def score(index):
            arg = index - first
            plus, rest = divmod(arg, 6)
            market = rest // 2 - 1
            target = total + 2 * plus + market
            return ADVISOR_VALUE[target] - 0.3 * plus - 0.1 * abs(market) - 0.5 * (rest & 1)

        return max(legal, key=score)

    def _next_slots(self, built) -> list[int]:
        """The next building of every row in play (its slot)."""
        slots = []
        for r in self.tables.rows:
            c = sum(built[r * NUM_COLS:(r + 1) * NUM_COLS])
            if c < NUM_COLS:
                slots.append(r * NUM_COLS + int(c))
        return slots

    def _wanted_goods(self, goods, built) -> list[int]:
        """Goods ordered by how much they help toward the cheapest-to-finish valuable building."""
        best, best_key = None, None
        for slot in self._next_slots(built):
            b = self.tables.buildings[slot]
            missing = sum(max(0, c - g) for c, g in zip(b.cost, goods))
            key = (missing - 0.3 * b.vp, slot)
            if best_key is None or key < best_key:
                best, best_key = b, key
        if best is None:
            return [0, 1, 2]
        deficit = [max(0, c - g) for c, g in zip(best.cost, goods)]
        return sorted(range(3), key=lambda g: (-deficit[g], goods[g]))

    def _build(self, built, names) -> int:
        options = []
        for name, index in names.items():
            if name.startswith("BUILD(row "):
                row = "ABCDEFG".index(name[len("BUILD(row "):-1])
                c = int(sum(built[row * NUM_COLS:(row + 1) * NUM_COLS]))
                b = self.tables.buildings[row * NUM_COLS + c]
                options.append((b.vp + 1.5 * max(b.strength, 0) + (1 if b.effect else 0), index))
        if options:
            return max(options)[1]
        return names["PASS"]

    def _strength(self, raw, built) -> int:
        strength = int(raw[self.layout["seat0_soldiers"]][0])
        for slot in range(NUM_SLOTS):
            if built[slot]:
                strength += self.tables.buildings[slot].strength
        return strength

    def _recruit(self, raw, goods, built, names) -> int:
        L = self.layout
        lo, hi = raw[L["enemy_back"]]
        enemy = int(raw[L["enemy_strength"]][0]) if raw[L["enemy_known"]][0] else int(hi)
        expected_aid = 2 if not raw[L["modules"]][2] else 1
        if self._strength(raw, built) + expected_aid > enemy:
            return names["PASS"]
        have = list(goods) + [int(raw[L["seat0_plus2"]][0])]
        options = []
        for name, index in names.items():
            if name.startswith("RECRUIT("):
                pay = RECRUIT_PAYMENTS[int(index - self.names.index("RECRUIT(GG)"))]
                options.append((sum(h - p for h, p in zip(have, pay) if p) - sum(pay), index))
        return max(options)[1] if options else names["PASS"]

