"""EP during the game, goals of empire cards, the end of the round and the final scoring (spec 4.5,
5.8, 6)."""
from __future__ import annotations

from .cards import Resume
from .constants import (
    CASTLE, CATHEDRAL, CITY, NUM_UNIT_TYPES, O_KIND, O_LEVEL, SIEGE, Phase, Stage,
)
from .data import GOAL_KEYS
from .state import positions
from . import changes

NT = NUM_UNIT_TYPES
AWARDS = ("money", "market", "technology", "rome", "jerusalem", "cathedrals", "cities", "castles",
          "regions", "monopolies", "prisoners", "loans", "goal_tokens")


class ScoringMixin:
    # ---------------------------------------------------------------------------- EP ----
    def _gain_ep(self, p: int, k: int, reason: str) -> None:
        """Every EP change goes through here and is tallied per reason (for the EP invariant)."""
        self.changed(changes.SEATS)
        self.ep[p] += k
        self.ep_events[p][reason] = self.ep_events[p].get(reason, 0) + k
        if self.ep_limit and self.ep[p] >= self.ep_limit:
            self.pending_end = True  # spec 1.5: the turn and the game end at once

    # ------------------------------------------------------------------------- goals ----
    def goal_value(self, p: int, key: int) -> int:
        """The measured quantity of goal template ``key`` for seat p (Appendix C.2): ``GOAL_MEASURES``."""
        return GOAL_MEASURES[key](self, p)

    def goal_met(self, p: int, goal: tuple[int, int]) -> bool:
        key, threshold = goal
        return self.goal_value(p, key) >= threshold

    def _largest_military_chain(self, p: int) -> int:
        control = self._cached_control_map()  # military buildings stand only on land: the owner list is searched whole
        nodes = {n for n in positions(self.mil_owner, p) if control[n] == p}
        best = 0
        seen: set = set()
        for start in nodes:
            if start in seen:
                continue
            stack = [start]
            seen.add(start)
            size = 0
            while stack:
                a = stack.pop()
                size += 1
                for b in self.board.land_adj[a]:
                    if b in nodes and b not in seen:
                        seen.add(b)
                        stack.append(b)
            best = max(best, size)
        return best

    # ------------------------------------------------------------------ end of round ----
    def _end_round(self) -> None:
        """Spec 4.5: stop markers off, cards straightened, tokens flipped back, full MP."""
        self.stage = Stage.END_OF_ROUND
        if self.round >= self.num_rounds:
            self._start_final()
            return
        if self._card_window("end", Resume.END_ROUND):  # W-END (cards.py): Intrigant 13
            return
        self.changed(changes.UNITS | changes.OBJECTS | changes.SEATS)
        for p in range(self.num_players):
            self._straighten_cards(p)  # cards.py: Intrigant 13 locks
            self.tokens_flipped[p] = [0] * 6
            self.loan_taken[p] = 0
            self.loan_repaid[p] = 0
            self.tech_bought[p] = [False] * 6
        for o in self.objs.values():
            o[4] = self.vehicle_mp(o[1], o[2])
            o[5] = False
        for p in range(self.num_players):
            st = self.stopped[p]
            st[:] = [0] * len(st)
        self.cargo_stopped = {}
        self._vehicle_cards_round_end()  # cards.py: Wissenschaftler 11, Kanonier 54
        self.conquered_round = set()
        self.battle_nodes = set()
        self._diplomacy_end_round()
        self.round += 1
        self._start_auction()

    # ----------------------------------------------------------------- final scoring ----
    def _start_final(self) -> None:
        """Spec 6.2 step 1: the last revolt check (with its battles), then the awards."""
        self.final_started = True
        self.pending_end = False
        self._cards_reset()  # cards.py: an open card window or activation is dropped
        self.bt = None
        self.conquest = None
        self.tree = []
        self.stage = Stage.END_OF_ROUND
        self._start_revolts(final=True)

    def _final_scoring(self) -> None:
        """Spec 6.2: the awards are added to the EP; the game is over."""
        breakdown = self.final_awards()
        for a in AWARDS:
            for p in range(self.num_players):
                if breakdown[a][p]:
                    self._gain_ep(p, breakdown[a][p], "final_" + a)
        self.pending_end = False
        self.final_breakdown = breakdown
        self.stage = Stage.OVER
        self.phase = Phase.GAME_OVER
        self.actor = -1

    def final_awards(self) -> dict[str, list[int]]:
        """Spec 6.2 awards per seat, computed from the state (after the last revolt check)."""
        n = self.num_players
        alive = [p for p in range(n) if not self.eliminated[p]]
        breakdown = {a: [0] * n for a in AWARDS}

        def award(name: str, values: dict) -> None:
            # G54: an award needs a count >= 1; ties give 1 EP each instead
            best = max(values.values(), default=0)
            if best <= 0:
                return
            winners = [p for p, v in values.items() if v == best]
            pts = self.award_ep if len(winners) == 1 else self.award_tie_ep
            for p in winners:
                breakdown[name][p] += pts

        award("money", {p: self.net_money(p) for p in alive})
        award("market", {p: self._best_market(p) for p in alive})
        tech_winners = self._technology_award(alive)
        for p in tech_winners:
            breakdown["technology"][p] += self.award_ep if len(tech_winners) == 1 else self.award_tie_ep
        rome = self.special_nodes.get("rome", -1)
        if rome >= 0:
            award("rome", {p: int(self.controller(rome) == p) for p in alive})
        jer = self.special_nodes.get("jerusalem", -1)
        if jer >= 0:
            award("jerusalem", {p: int(self.controller(jer) == p and self.empire_of[p] != self.jerusalem_excluded)
                                for p in alive})
        award("cathedrals", {p: self.count_buildings(p, CATHEDRAL) for p in alive})
        award("cities", {p: self.count_buildings(p, CITY) for p in alive})
        award("castles", {p: self.count_buildings(p, CASTLE) for p in alive})
        award("regions", {p: len(self.controlled_regions(p)) for p in alive})
        for good in range(len(self.comp.goods)):
            producers = [r for r in self.land_nodes if self.board.good[r] == good]
            if not producers:
                continue
            for p in alive:
                if all(self.controller(r) == p for r in producers):
                    breakdown["monopolies"][p] += self.award_ep
        for p in alive:
            held = self.prisoners_of(p)
            for threshold, pts in reversed(self.comp.raw["prisoner_penalty"]):
                if held >= threshold:
                    breakdown["prisoners"][p] += pts
                    break
            breakdown["loans"][p] += self.comp.raw["loan_penalty"][min(self.loans[p], self.max_loans)]
            tokens = sum(self.tokens[p])
            table = self.comp.goal_token_ep
            breakdown["goal_tokens"][p] += table[min(tokens, len(table) - 1)]
        return breakdown

    def prisoners_of(self, p: int) -> int:
        """Own units held prisoner by others."""
        return sum(sum(self.prisoners[c][p]) for c in range(self.num_players))

    def _best_market(self, p: int) -> int:
        """Highest market factor in a region undisputedly held by p (controlled, no foreign army)."""
        best = 0
        for n in self.controlled_regions(p):
            if self.board.inhabited[n]:
                best = max(best, self.market_factor(n))
        return best

    def _technology_award(self, alive: list[int]) -> list[int]:
        """Spec 6.2 / G55: highest level reached; most branches at it; cascade to lower levels."""
        cands = [p for p in alive if max(self.tech[p]) > 0]
        if not cands:
            return []
        top = max(max(self.tech[p]) for p in cands)
        cands = [p for p in cands if max(self.tech[p]) == top]
        for level in range(top, 0, -1):
            counts = {p: sum(1 for lv in self.tech[p] if lv >= level) for p in cands}
            best = max(counts.values())
            cands = [p for p in cands if counts[p] == best]
            if len(cands) == 1:
                break
        return cands

    def placement(self) -> list[float]:
        """Spec 6.2: most EP; then net money; then the earlier position in the last turn order.
        Eliminated players rank last."""
        n = self.num_players
        out = []
        for p in range(n):
            if self.eliminated[p]:
                out.append(-1e12 + self.ep[p])
                continue
            out.append(self.ep[p] * 1e8 + (self.net_money(p) + 1e6) * 10 + (n - self.position[p]))
        return out


# ----------------------------------------------------------------------- goal measures ----
# One function (engine, seat) per goal template of GOAL_KEYS, in its order (Appendix C.2). Buildings stand only on
# the playable land: the owner lists are searched whole, in C.
def _own_objects(e, p: int) -> list:
    objs = e.objs
    return [objs[oid] for oid in e.own_objects(p)]


def _colours_on_vehicle(e, p: int) -> int:
    goods = e.goods
    return max([sum([1 for c in goods[oid] if c]) for oid in e.own_objects(p) if oid in goods] or [0])


def _market_factor(e, p: int) -> int:
    inhabited = e.board.inhabited
    return max([e.market_factor(n) for n in e._seat_regions()[p] if inhabited[n]] or [0])


_MEASURES = {
    "control_regions": lambda e, p: len(e._seat_regions()[p]),
    "inhabited_outside_home": lambda e, p: sum([1 for n in e._seat_regions()[p]
                                                if e.board.inhabited[n] and e.home_owner[n] != p]),
    "civil_buildings": lambda e, p: e.civil_owner.count(p),
    "civil_levels": lambda e, p: sum([e.civil[n] for n in positions(e.civil_owner, p)]),
    "cathedrals": lambda e, p: e.cath_owner.count(p),
    "military_buildings": lambda e, p: e.mil_owner.count(p),
    "military_levels": lambda e, p: sum([e.mil[n] for n in positions(e.mil_owner, p)]),
    "tech_levels": lambda e, p: sum(e.tech[p]),
    "tech_branch_level": lambda e, p: max(e.tech[p]),
    "branches_level1": lambda e, p: sum([1 for lv in e.tech[p] if lv >= 1]),
    "transports": lambda e, p: sum([1 for o in _own_objects(e, p) if o[O_KIND] != SIEGE]),
    "transport_levels": lambda e, p: sum([o[O_LEVEL] for o in _own_objects(e, p) if o[O_KIND] != SIEGE]),
    "siege_levels": lambda e, p: sum([o[O_LEVEL] for o in _own_objects(e, p) if o[O_KIND] == SIEGE]),
    "units_on_board": lambda e, p: e.total_units(p),
    "captain_levels": lambda e, p: (sum(e.units[p][4::NT]) + 2 * sum(e.units[p][5::NT])
                                    + 3 * sum(e.units[p][6::NT])),  # CP1, CP2, CP3 of every node
    "net_money": lambda e, p: e.money[p] - e.loan_amount * e.loans[p],
    "colours_on_vehicle": _colours_on_vehicle,
    "market_factor": _market_factor,
    "route_stages": lambda e, p: e.stat_route_stages[p],
    "barbarian_armies_destroyed": lambda e, p: e.stat_barbarians_destroyed[p],
    "inhabited_conquered": lambda e, p: e.stat_conquered[p],
    "military_chain": lambda e, p: e._largest_military_chain(p),
    "foreign_home_regions": lambda e, p: sum([1 for n in e._seat_regions()[p] if e.home_owner[n] not in (-1, p)]),
    "cards_held": lambda e, p: len(e.hand[p]),
}
GOAL_MEASURES = tuple(_MEASURES[name] for name in GOAL_KEYS)
assert len(_MEASURES) == len(GOAL_KEYS)
