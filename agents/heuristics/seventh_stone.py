"""A rule-based Seventh Stone player that reads only its own observation and mask.

Plan: tear stones come cheapest from temples (1 TS each) and the tournament (1 TS every third
year), so it places its capital near temples, spends its budget on cavalry and melee units plus a
tournament bid, marches whole armies toward the nearest temple or weak enemy field, attacks only
with a clear majority, overruns whenever allowed, and always uses its walls and combat stones.
Casualties: mercenaries first, then supporting cavalry, then units in the field.
"""
from __future__ import annotations

import random
from collections import deque

import numpy as np

from envs.seventh_stone import SPEC, Phase, SeventhStoneConfig, SeventhStoneEncoder
from envs.seventh_stone.data import GRID, NUM_CELLS
from envs.seventh_stone.engine import KINDS, PHASE_NAMES, TEAR_KIND as TEAR, validate_config

from ..base import Agent

WATER, PLAIN, FOREST, MOUNTAIN, TEMPLE, DESERT, VOLCANO = 1, 2, 3, 4, 5, 6, 7
LAND = (PLAIN, FOREST, MOUNTAIN, TEMPLE, DESERT)


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, num_players: int, seed: int | None = None, **config):
        game_config = SeventhStoneConfig(**config)
        validate_config(game_config, num_players)
        self.n = num_players
        self.codec = SPEC.new_codec(game_config, num_players, "flat")  # the heuristic plays flat indices
        self.encoder = SeventhStoneEncoder(game_config, num_players)
        self.layout = self.encoder.layout
        self.names = self.codec.action_names()
        self.index = {name: i for i, name in enumerate(self.names)}
        self.dyn = self.encoder.per_cell_dynamic
        n = num_players
        self.army_off = 7 + 2 * n
        self.conf_off = self.army_off + 8 * n
        self._random = random.Random(seed)
        self._dist_key = None
        self._dist: dict[int, list[int]] = {}
        self._unit_max = 4
        self._banned: set[int] = set()  # move sources taken back by UNDO in this movement phase
        self._last_source = -1
        self._undo_steps = 0

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._random.seed(seed)

    # ------------------------------------------------------------------------ board reading ----
    def _read(self, obs):
        raw = self.encoder.unscale(np.asarray(obs))
        L = self.layout
        static = raw[L["cell_static"]].reshape(NUM_CELLS, -1)
        terrain = static[:, :8].argmax(axis=1)
        dyn = raw[L["cell_dynamic"]].reshape(NUM_CELLS, self.dyn)
        return raw, terrain, dyn

    def _distances(self, terrain) -> None:
        key = terrain.tobytes()
        if key == self._dist_key:
            return
        self._dist_key = key
        self._dist = {}
        land = [t in LAND for t in terrain]
        for src in range(NUM_CELLS):
            if not land[src]:
                continue
            d = [99] * NUM_CELLS
            d[src] = 0
            q = deque([src])
            while q:
                c = q.popleft()
                r, col = divmod(c, GRID)
                for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    rr, cc = r + dr, col + dc
                    if 0 <= rr < GRID and 0 <= cc < GRID:
                        nb = rr * GRID + cc
                        if land[nb] and d[nb] == 99:
                            d[nb] = d[c] + 1
                            q.append(nb)
            self._dist[src] = d

    def _units(self, dyn, cell: int, rel: int) -> int:
        base = self.army_off + 8 * rel
        return int(dyn[cell, base] + dyn[cell, base + 1])

    def _enemy_units(self, dyn, cell: int) -> int:
        return sum(self._units(dyn, cell, r) for r in range(1, self.n))

    def _value(self, terrain, dyn, cell: int, strength: int) -> float:
        """How much I want one of my armies (of `strength` units) to stand on `cell`."""
        ctrl = dyn[cell, 1:1 + self.n]
        mine = ctrl[0] == 1
        capital = dyn[cell, 1 + self.n] == 1
        enemy = self._enemy_units(dyn, cell)
        if capital and not mine:
            guard = 4
            return 30.0 if strength >= 2 * (enemy + guard) or strength >= enemy + guard + 3 else -100.0
        if enemy:
            return 8.0 if strength >= 2 * enemy else (-100.0 if strength <= enemy else 2.0)
        if terrain[cell] == TEMPLE:
            return 4.0 if mine else 20.0
        if terrain[cell] in (PLAIN, FOREST, MOUNTAIN):
            return 0.5 if mine else (6.0 if ctrl.any() else 4.0)
        return 0.0

    def _target_score(self, terrain, dyn, cell: int, strength: int) -> float:
        """Value of standing here now plus what lies near it."""
        here = self._value(terrain, dyn, cell, strength)
        d = self._dist.get(cell)
        if d is None:
            return here
        best = 0.0
        for c in range(NUM_CELLS):
            if d[c] < 99 and c != cell:
                v = self._value(terrain, dyn, c, strength)
                if v > 0:
                    best = max(best, v / (1.0 + d[c]))
        return here + best

    # --------------------------------------------------------------------------- decisions ----
    def act(self, observation, action_mask) -> int:
        legal_idx = np.flatnonzero(action_mask)
        legal = {self.names[i]: int(i) for i in legal_idx}
        raw, terrain, dyn = self._read(observation)
        self._distances(terrain)
        L = self.layout
        self._unit_max = int(raw[L["unit_max"]][0])
        phase = int(np.argmax(raw[L["phase"]]))
        name = PHASE_NAMES[phase] if phase < len(PHASE_NAMES) else ""
        if not name.startswith("MOVE_"):
            self._banned.clear()
            self._last_source = -1
        choice = _CHOICES.get(phase)
        if choice is not None:
            picked = choice(self, raw, terrain, dyn, legal)
            if picked is not None:
                return picked
        return int(legal_idx[self._random.randrange(len(legal_idx))])

    def _cells_of(self, legal: dict, prefix: str) -> list[tuple[int, int]]:
        out = []
        for name, i in legal.items():
            if name.startswith(prefix + "(r"):
                r, c = name[len(prefix) + 2:-1].split("c")
                out.append(((int(r) - 1) * GRID + int(c) - 1, i))
        return out

    def _setup_capital(self, raw, terrain, dyn, legal):
        best = None
        for cell, i in self._cells_of(legal, "CELL"):
            d = self._dist.get(cell, [99] * NUM_CELLS)
            score = sum(1.0 / (1 + d[c]) for c in range(NUM_CELLS) if terrain[c] == TEMPLE and d[c] < 99)
            if best is None or score > best[0]:
                best = (score, i)
        return best[1] if best else None

    def _alloc(self, raw, terrain, dyn, legal):
        L = self.layout
        budget = int(raw[L["seat0_budget"]][0])
        mine = raw[L["my_allocation"]]
        # capacity for new units this year: 2 per ready barracks on my fields, 4 at my capitals
        cap = 0
        for c in range(NUM_CELLS):
            if dyn[c, 1] == 1:
                cap += 4 if dyn[c, 1 + self.n] else 2 * int(dyn[c, 2 + 2 * self.n])
        tourn = budget // 5
        merc = budget // 10
        equip = 2 if budget >= 12 else 0
        move = 1 if budget >= 8 else 0
        building = 1 if budget >= 24 else 0
        rest = budget - tourn - merc - equip - move - 4 * building
        units = max(0, min(cap, rest // 2))
        cav = units // 2
        melee = units - cav
        target = [building, melee, 0, cav, merc, equip, move, tourn]
        fields = ("building", "melee", "ranged", "cavalry", "bid_mercenaries", "bid_equipment", "bid_movement",
                  "bid_tournament")
        for f, want in enumerate(target):
            gap = want - int(mine[f])
            if gap >= 5 and f"ALLOC+5({fields[f]})" in legal:
                return legal[f"ALLOC+5({fields[f]})"]
            if gap >= 1 and f"ALLOC+1({fields[f]})" in legal:
                return legal[f"ALLOC+1({fields[f]})"]
        return legal.get("DONE")

    def _draft_pick(self, raw, terrain, dyn, legal):
        L = self.layout
        kinds = raw[L["offer_kind"]].reshape(4, -1).argmax(axis=1)
        best = None
        for name, i in legal.items():
            slot = int(name[7:-1])
            k = int(kinds[slot])
            eff = KINDS[k].effect
            score = 100 if k == TEAR else {6: 5, 4: 4, 5: 4, 3: 3, 8: 3}.get(eff, 1)
            if best is None or score > best[0]:
                best = (score, i)
        return best[1]

    def _draft_discard(self, raw, terrain, dyn, legal):
        L = self.layout
        kinds = raw[L["offer_kind"]].reshape(4, -1).argmax(axis=1)
        for name, i in legal.items():  # never throw the tear stone away
            if int(kinds[int(name[7:-1])]) != TEAR:
                return i
        return None

    def _order_pick(self, raw, terrain, dyn, legal):
        return max(legal.values())  # the last free position: move after the others

    def _place_item(self, raw, terrain, dyn, legal):
        for item in ("cavalry", "melee", "ranged", "mercenary", "barracks"):
            if f"ITEM({item})" in legal:
                return legal[f"ITEM({item})"]
        for name, i in legal.items():
            if name.startswith("ITEM(stone:"):
                return i
        if "ITEM(manufactory)" in legal:
            return legal["ITEM(manufactory)"]
        return legal.get("DONE")

    def _place_cell(self, raw, terrain, dyn, legal):
        best = None
        for cell, i in self._cells_of(legal, "CELL"):
            score = self._target_score(terrain, dyn, cell, 6)
            if best is None or score > best[0]:
                best = (score, i)
        return best[1] if best else None

    def _place_replace(self, raw, terrain, dyn, legal):
        return legal.get("CHOICE(0)")

    def _move_select(self, raw, terrain, dyn, legal):
        undo_steps = int(raw[self.layout["movement"]][0])
        if self._last_source >= 0 and undo_steps <= self._undo_steps:
            self._banned.add(self._last_source)  # that move order was taken back (a forced UNDO)
        self._last_source = -1
        if "DONE" not in legal and "UNDO" in legal:
            return legal["UNDO"]
        for cell, i in self._cells_of(legal, "OVERRUN"):
            return i
        best = None
        for cell, i in self._cells_of(legal, "CELL"):
            if cell in self._banned:
                continue
            base = self.army_off
            movable = int(dyn[cell, base + 6])
            if movable == 0:
                continue
            strength = self._units(dyn, cell, 0)
            stay = self._target_score(terrain, dyn, cell, strength)
            d = self._dist.get(cell)
            if d is None:
                continue
            reach = 2 if dyn[cell, base + 4] else 1
            go = max((self._target_score(terrain, dyn, c, strength) for c in range(NUM_CELLS)
                      if 0 < d[c] <= reach and self._fits(dyn, c, cell)), default=-1e9)
            gain = go - stay
            if gain > 0.5 and (best is None or gain > best[0]):
                best = (gain, i, cell)
        if best is not None:
            self._last_source = best[2]
            self._undo_steps = undo_steps
            return best[1]
        return legal.get("DONE", legal.get("UNDO"))

    def _fits(self, dyn, dest: int, src: int) -> bool:
        """My army from src can stand on dest at the end of the phase (no second own army type there)."""
        base = self.army_off
        if self._units(dyn, dest, 0) == 0:
            return True
        return all(dyn[dest, base + 2 + t] == dyn[src, base + 2 + t] for t in range(3)) and \
            self._units(dyn, dest, 0) + self._units(dyn, src, 0) <= self._unit_max

    def _move_count_mil(self, raw, terrain, dyn, legal):
        return max(legal.values())

    def _move_take_stone(self, raw, terrain, dyn, legal):
        return legal.get("YES")

    def _move_dest(self, raw, terrain, dyn, legal):
        L = self.layout
        src = int(np.argmax(raw[L["selected_cell"]]))
        counts = raw[L["selected_counts"]]
        strength = int(counts[1] + counts[2])
        best = None
        for cell, i in self._cells_of(legal, "CELL"):
            score = self._target_score(terrain, dyn, cell, strength)
            if not self._fits(dyn, cell, src):
                score -= 1000
            if best is None or score > best[0]:
                best = (score, i)
        return best[1]

    def _keep_stone(self, raw, terrain, dyn, legal):
        return min(legal.values())

    def _post_overrun(self, raw, terrain, dyn, legal):
        for cell, i in self._cells_of(legal, "OVERRUN"):
            return i
        return legal.get("DONE")

    def _support_army(self, raw, terrain, dyn, legal):
        cells = self._cells_of(legal, "CELL")
        return cells[0][1] if cells else legal.get("DONE")

    def _support_target(self, raw, terrain, dyn, legal):
        for cell, i in self._cells_of(legal, "CELL"):
            if self._units(dyn, cell, 0) > 0:
                return i
        return legal.get("DONE")

    def _use_equipment(self, raw, terrain, dyn, legal):
        return legal.get("YES")

    def _casualty(self, raw, terrain, dyn, legal):
        L = self.layout
        fight_cell = int(np.argmax(raw[L["fight_cell"]]))
        mercs = self._cells_of(legal, "CASUALTY_MERC")
        if mercs:
            return mercs[0][1]
        cells = self._cells_of(legal, "CELL")
        support = [i for c, i in cells if c != fight_cell]
        if support:
            return support[0]
        return cells[0][1] if cells else None

    def _dice_alloc(self, raw, terrain, dyn, legal):
        """All dice at the opponent with the most units in the field (city guard included)."""
        L = self.layout
        fight_cell = int(np.argmax(raw[L["fight_cell"]]))
        units = [self._units(dyn, fight_cell, rel) for rel in range(self.n)]
        controller = dyn[fight_cell, 1:1 + self.n]
        if controller.any():
            units[int(np.argmax(controller))] += int(raw[L["fight"]][5])
        target = int(np.argmax(raw[L["dice_alloc"]][3:]))
        strongest = max(range(1, self.n), key=lambda rel: units[rel])
        counts = [int(name[7:-1]) for name in legal if name.startswith("AMOUNT(")]
        return legal[f"AMOUNT({max(counts) if target == strongest else 0})"]

    def _disband(self, raw, terrain, dyn, legal):
        cells = self._cells_of(legal, "CELL")
        best = max(cells, key=lambda ci: self._units(dyn, ci[0], 0))
        return best[1]


# the choice for each decision kind; the others (and an unusable choice) pick at random
_CHOICES = {
    Phase.SETUP_CAPITAL: HeuristicAgent._setup_capital,
    Phase.SETUP_BARRACKS: HeuristicAgent._setup_capital,  # the same choice as the capital's
    Phase.ALLOC: HeuristicAgent._alloc,
    Phase.DRAFT_PICK: HeuristicAgent._draft_pick,
    Phase.DRAFT_DISCARD: HeuristicAgent._draft_discard,
    Phase.ORDER_PICK: HeuristicAgent._order_pick,
    Phase.PLACE_ITEM: HeuristicAgent._place_item,
    Phase.PLACE_CELL: HeuristicAgent._place_cell,
    Phase.PLACE_REPLACE: HeuristicAgent._place_replace,
    Phase.MOVE_SELECT: HeuristicAgent._move_select,
    Phase.MOVE_COUNT_MIL: HeuristicAgent._move_count_mil,
    Phase.MOVE_COUNT_MERC: HeuristicAgent._move_count_mil,
    Phase.MOVE_TAKE_STONE: HeuristicAgent._move_take_stone,
    Phase.MOVE_DEST: HeuristicAgent._move_dest,
    Phase.KEEP_STONE: HeuristicAgent._keep_stone,
    Phase.POST_OVERRUN: HeuristicAgent._post_overrun,
    Phase.SUPPORT_ARMY: HeuristicAgent._support_army,
    Phase.SUPPORT_TARGET: HeuristicAgent._support_target,
    Phase.USE_EQUIPMENT: HeuristicAgent._use_equipment,
    Phase.USE_WALL: HeuristicAgent._use_equipment,
    Phase.CASUALTY: HeuristicAgent._casualty,
    Phase.DICE_ALLOC: HeuristicAgent._dice_alloc,
    Phase.DISBAND: HeuristicAgent._disband,
}

__all__ = ["HeuristicAgent", "Phase"]
