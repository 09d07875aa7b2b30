"""The optional rules of spec section 8 [SRC "Spielvarianten"] and the G87 alternative, each a config
option that is off by default (the team game 8.4 lives with diplomacy).

* 8.1 ``empire_auction``: S1 draws the connected empire set as usual; the seats then win their
  empires with sealed (empire, 0-10 EP) pairs. The highest bid for a wanted empire wins it and loses
  the bid in EP; tied highest bidders bid again at once (at least the tied amount, at most
  ``auction_tie_rounds`` times, then a random draw, as G25). The seats still without an empire bid
  once more for the empires left; what is left after the 2nd bidding round is dealt at random.
  Finally every EP marker moves up by the same amount so that the lowest stands on the starting EP.
* 8.2 ``terrain``: entering a land region costs its terrain's MP (plus 1 across a river) for war
  wagons, siege engines and caravans; ships pay 1 MP as before, the castle rule's step stays free.
  Units cost upkeep by the region they stand in (units at sea: 20 fl, ASSUMPTION); transports and
  siege engines stay at 20 fl. The tables and each region's terrain are in ``data/map.json``.
* 8.3 ``blood_markers``: a seat gets 1 of the 18 markers when another seat (not barbarians) plunders
  one of its buildings or transports, or conquers (by battle or takeover) a region of its start empire.
  In a battle round, before its roll, a side holding markers may spend them one at a time (+1 attack
  each for that round).
* 8.5 ``hidden_purchases``: the demand is always made. New units (also ransomed and redeployed ones)
  and new transports and siege engines are bought without a place and stay behind the screen; at
  the end of phase 4 each seat in turn order reveals them and places them one by one. The other
  purchases take effect for the buyer at once, but the observation shows the other seats that
  buyer's part of the board and tableau as it was when the first purchase turn began, until its reveal.
* G87 ``captains_per_unit``: a captain's "enable own" / "cancel enemy" choice concerns one unit of
  the type, not the whole type: the number of units using an ability is counted per slot.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from .constants import (
    AR, BLUE, CA, CP1, GALLEY, GREEN, HI, LI, MERCHANT_SHIP, O_NODE, RED, SIEGE, Ctrl, Head, Phase, Purchase,
)
from .data import DATA_DIR, connected_empire_sets
from . import changes
from .combat import BattleStep

DONE = (Head.CTRL, Ctrl.DONE)
EP_BID_MAX = 10  # [SRC] 8.1: bids of 0 to 10 EP
EMPIRE_BIDDING_ROUNDS = 2  # [SRC] 8.1: what is left after the 2nd bidding round is dealt at random
BLOOD_MARKERS = 18  # [SRC] component list: 18 Blutmarken
ABIL = (AR, LI, HI, CA)  # ability types in the CAPTAIN head's order
_SHIPS = (GALLEY, MERCHANT_SHIP)
_HIDDEN_CATEGORIES = (Purchase.UNIT, Purchase.VEHICLE, Purchase.RANSOM, Purchase.REDEPLOY)


@lru_cache(maxsize=1)
def terrain_rules() -> tuple[dict, int, dict, int, frozenset]:
    """(MP to enter per terrain, river MP, unit upkeep per terrain, upkeep at sea, river edges by name)."""
    with open(DATA_DIR / "map.json", encoding="utf-8") as fh:
        raw = json.load(fh)
    rules = raw["terrain_rules"]
    rivers = frozenset((e["a"], e["b"]) for e in raw["edges"] if e.get("river"))
    return (rules["mp_to_enter"], rules["river_crossing_mp"], rules["unit_upkeep"],
            rules["unit_upkeep_at_sea"], rivers | frozenset((b, a) for a, b in rivers))


@dataclass(slots=True)
class AuctionTie:
    """8.1 (G25): the highest bidders tied for an empire, who bid again at once (``engine.auction_ties``)."""
    empire: int
    seats: list[int]  # the tied bidders, in seat order
    amount: int  # the tied bid: the least they may bid again
    rounds: int = 0  # extra bidding rounds held so far (``auction_tie_rounds`` at most, then a random draw)


class VariantsMixin:
    def _init_variants(self) -> None:
        n, board = self.num_players, self.board
        self.blood = [0] * n
        self.blood_supply = BLOOD_MARKERS
        self.hidden_bought: list[list[tuple]] = [[] for _ in range(n)]  # ("unit", t) / ("vehicle", kind, level)
        self.revealing = -1  # the seat revealing and placing its hidden purchases
        self.reveal_queue: list[int] = []
        self.revealed_seats: set = set()
        self.purchase_snapshot: dict | None = None  # what the others saw when phase 4 began
        self.auction_empires: list[int] = []  # the empire set being auctioned (8.1)
        self.auction_round = 0  # 1 or 2 while bidding, 0 otherwise
        self.sealed_empire = [-1] * n  # sealed empire choice
        self.sealed_ep_bid = [-1] * n  # sealed EP bid
        self.shown_empire_bid = [[-1, -1] for _ in range(n)]  # last revealed (empire, bid) per seat
        self.auction_ties: list[AuctionTie] = []  # in empire order
        if self.config.terrain:
            mp, river_mp, upkeep, at_sea, rivers = terrain_rules()
            self.enter_mp = [1 if board.is_sea[i] else mp[board.terrain[i]] for i in range(board.num_nodes)]
            self.river_mp = river_mp
            self.rivers = {(board.index(a), board.index(b)) for a, b in rivers}
            inhabited = upkeep["inhabited"]
            self.unit_upkeep_at = [at_sea if board.is_sea[i] else inhabited if board.inhabited[i]
                                   else upkeep.get(board.terrain[i], upkeep["other"])
                                   for i in range(board.num_nodes)]

    # ------------------------------------------------------------- 8.1 empire auction ----
    def _start_empire_auction(self) -> None:
        sets = connected_empire_sets(self.num_players)
        self.auction_empires = list(sets[int(self.rng.integers(len(sets)))])
        self.auction_round = 1
        self._open_empire_bidding()

    def _open_empire_bidding(self) -> None:
        self.changed(changes.VARIANTS)
        bidders = [p for p in range(self.num_players) if self.empire_of[p] < 0]
        for p in bidders:
            self.sealed_empire[p] = self.sealed_ep_bid[p] = -1
        self.queue = bidders
        self.phase = Phase.EMPIRE_BID
        self.actor = self.queue.pop(0)

    def empire_bid_moves(self) -> list[tuple[int, int]]:
        if self.phase == Phase.EMPIRE_TIE_BID:  # bidding goes on: at least the tied amount
            return [(Head.EP_BID, b) for b in range(self.auction_ties[0].amount, EP_BID_MAX + 1)]
        if self.sealed_empire[self.actor] < 0:
            return [(Head.EMPIRE, e) for e in self.auction_empires if e not in self.empire_of]
        return [(Head.EP_BID, b) for b in range(EP_BID_MAX + 1)]

    def _apply_empire_bid(self, move: tuple[int, int]) -> None:
        head, arg = move
        p = self.actor
        if head == Head.EMPIRE:
            self.changed(changes.VARIANTS)
            self.sealed_empire[p] = arg
            return
        self.changed(changes.VARIANTS)
        self.sealed_ep_bid[p] = arg
        self.turn += 1
        if self.queue:
            self.actor = self.queue.pop(0)
        elif self.phase == Phase.EMPIRE_TIE_BID:
            self._settle_empire_tie()
        else:
            self._reveal_empire_bids()

    def _reveal_empire_bids(self) -> None:
        self.changed(changes.VARIANTS)
        wanted: dict[int, list[int]] = {}
        for p in range(self.num_players):
            if self.empire_of[p] < 0:
                self.shown_empire_bid[p] = [self.sealed_empire[p], self.sealed_ep_bid[p]]
                wanted.setdefault(self.sealed_empire[p], []).append(p)
        self.auction_ties = []
        for e in sorted(wanted):
            top = max(self.sealed_ep_bid[p] for p in wanted[e])
            best = [p for p in wanted[e] if self.sealed_ep_bid[p] == top]
            if len(best) == 1:
                self._award_empire(best[0], e, top)
            else:
                self.auction_ties.append(AuctionTie(e, best, top))
        self._next_empire_tie()

    def _next_empire_tie(self) -> None:
        self.changed(changes.VARIANTS)
        while self.auction_ties:
            tie = self.auction_ties[0]
            if tie.amount >= EP_BID_MAX or tie.rounds >= self.max_tie_rounds:
                seats = tie.seats
                self._award_empire(seats[int(self.rng.integers(len(seats)))], tie.empire, tie.amount)
                self.auction_ties.pop(0)
                continue
            for p in tie.seats:
                self.sealed_ep_bid[p] = -1
            self.queue = list(tie.seats)
            self.phase = Phase.EMPIRE_TIE_BID
            self.actor = self.queue.pop(0)
            return
        self._empire_bidding_done()

    def _settle_empire_tie(self) -> None:
        self.changed(changes.VARIANTS)
        tie = self.auction_ties[0]
        tie.rounds += 1
        for p in tie.seats:
            self.shown_empire_bid[p][1] = self.sealed_ep_bid[p]
        top = max(self.sealed_ep_bid[p] for p in tie.seats)
        best = [p for p in tie.seats if self.sealed_ep_bid[p] == top]
        if len(best) == 1:
            self._award_empire(best[0], tie.empire, top)
            self.auction_ties.pop(0)
        else:
            tie.seats, tie.amount = best, top
        self._next_empire_tie()

    def _award_empire(self, p: int, e: int, bid: int) -> None:
        self.changed(changes.SEATS)
        self.empire_of[p] = e
        self._auction_ep(p, -bid)

    def _auction_ep(self, p: int, k: int) -> None:
        """Tallied like every EP change; the EP limit counts from round 1 on, not in the setup."""
        if k:
            self.changed(changes.SEATS)
            self.ep[p] += k
            self.ep_events[p]["empire_auction"] = self.ep_events[p].get("empire_auction", 0) + k

    def _empire_bidding_done(self) -> None:
        left = [p for p in range(self.num_players) if self.empire_of[p] < 0]
        if left and self.auction_round < EMPIRE_BIDDING_ROUNDS:
            self.changed(changes.VARIANTS)
            self.auction_round += 1
            self._open_empire_bidding()
            return
        self.changed(changes.SEATS | changes.VARIANTS)
        free = [e for e in self.auction_empires if e not in self.empire_of]
        for p, i in zip(left, self.rng.permutation(len(free))):
            self.empire_of[p] = free[int(i)]
        shift = self.comp.raw["starting_ep"] - min(self.ep)  # the lowest EP marker on the start space
        for p in range(self.num_players):
            self._auction_ep(p, shift)
        self.auction_round = 0
        self._after_empires()

    # ------------------------------------------------------------------ 8.2 terrain ----
    def step_cost(self, kind: int, x: int, y: int) -> int:
        """MP to move from node x into node y (1 without the terrain variant, for ships and into seas)."""
        if not self.config.terrain or kind in _SHIPS or self.board.is_sea[y] or x < 0:
            return 1
        return self.enter_mp[y] + (self.river_mp if (x, y) in self.rivers else 0)

    def terrain_upkeep(self, p: int) -> int:
        """8.2: units by the region they stand in (aboard: the carrier's node); objects at the flat rate."""
        at = self.unit_upkeep_at
        army = self.army[p]
        total = sum(at[i] * army[i] for i in range(len(army)) if army[i])
        for oid in self.own_objects(p):
            cargo = self.cargo.get(oid)
            if cargo and sum(cargo):
                total += at[self.objs[oid][O_NODE]] * sum(cargo)
        return total + self.upkeep_per_item * len(self.own_objects(p))

    # ------------------------------------------------------------- 8.3 blood markers ----
    def _gain_blood(self, p: int) -> None:
        if self.config.blood_markers and p >= 0 and self.blood_supply > 0:
            self.changed(changes.VARIANTS)
            self.blood[p] += 1
            self.blood_supply -= 1

    def _blood_for_plunder(self, victim: int, plunderer: int) -> None:
        if victim >= 0 and plunderer >= 0 and victim != plunderer:
            self._gain_blood(victim)

    def _blood_for_conquest(self, node: int, winner: int) -> None:
        home = self.home_owner[node]
        if winner >= 0 and home >= 0 and home != winner:
            self._gain_blood(home)

    def _add_blood_tasks(self) -> None:
        """Each side may spend markers before its roll (after its LI sacrifices)."""
        tasks = self.bt.tasks
        for side in (0, 1):
            tasks.insert(tasks.index((BattleStep.ROLL, side)), (BattleStep.BLOOD, side))

    def _blood_task(self, side: int) -> bool:
        p = self.side_owner(side)
        if p < 0 or not self.blood[p] or not self.side_size(side) or not self.side_size(1 - side):
            return False
        self.bt.blood_side = side
        self._decide(side, Phase.BLOOD_SPEND)
        return True

    def blood_moves(self) -> list[tuple[int, int]]:
        return [DONE, (Head.CTRL, Ctrl.SPEND_BLOOD)]

    def _apply_blood(self, move: tuple[int, int]) -> None:
        p = self.actor
        if move == (Head.CTRL, Ctrl.SPEND_BLOOD):
            self.changed(changes.VARIANTS)
            self.blood[p] -= 1
            self.blood_supply += 1
            self.bt.blood[self.bt.blood_side] += 1
            if self.blood[p]:
                return
        self._battle_run()

    # ------------------------------------------------------------ 8.5 hidden purchases ----
    def _hide_placements(self, p: int, opts: list[tuple]) -> list[tuple]:
        """Units and vehicles are bought without a place; one must exist now (the battles of phase 5
        have not started, so it is still there at the reveal unless a stationing treaty ended)."""
        vehicles_pending = sum(1 for item in self.hidden_bought[p] if item[0] == "vehicle")
        free_slots = sum(1 for oid in self.slots[p] if oid < 0)
        out, seen = [], set()
        for opt in opts:
            if opt[0][0] == Head.PURCHASE and opt[0][1] in _HIDDEN_CATEGORIES:
                if opt[0][1] == Purchase.VEHICLE and free_slots <= vehicles_pending:
                    continue
                opt = opt[:2]
                if opt in seen:
                    continue
                seen.add(opt)
            out.append(opt)
        return out

    def _buy_hidden(self, p: int, cat: int, opt: tuple) -> None:
        """Pay and take the piece behind the screen (the same prices and supplies as an open purchase)."""
        comp = self.comp
        if cat == Purchase.VEHICLE:
            self.changed(changes.SUPPLY | changes.VARIANTS)
            kind, lvl = divmod(opt[1][1], 3)
            self._pay(p, self.vehicle_cost_per_level * (lvl + 1), GREEN if kind == SIEGE else BLUE, lvl + 1)
            if kind == SIEGE:
                self.siege_supply[lvl] -= 1
            else:
                self.vehicle_supply[kind] -= 1
            self.hidden_bought[p].append(("vehicle", kind, lvl + 1))
            return
        self.changed(changes.SEATS | changes.VARIANTS)
        t = opt[1][1]
        if cat == Purchase.UNIT:
            if t >= CP1:
                self._pay(p, comp.unit_cost[t], RED, t - CP1 + 1)
                self.unit_supply[p][4] -= 1
            else:
                self._bank(p, -comp.unit_cost[t])
                self.unit_supply[p][t] -= 1
        elif cat == Purchase.RANSOM:
            captor = self._ransom_captor(p, t)
            self.prisoners[captor][p][t] -= 1
            self._transfer(p, captor, 2 * comp.unit_cost[t])
        else:  # REDEPLOY
            self.changed(changes.UNITS)
            self.capitulated[p][t] -= 1
        self.units_bought[p] += 1
        self.hidden_bought[p].append(("unit", t))

    def hidden_levels(self, p: int) -> list[int]:
        """Ownership-marker levels the vehicles behind p's screen will need."""
        levels = [0, 0, 0]
        for item in self.hidden_bought[p]:
            if item[0] == "vehicle":
                levels[item[2] - 1] += 1
        return levels

    def _snapshot_public(self) -> None:
        """At the first purchase turn: the public state the other seats keep seeing of a seat until
        it reveals (technologies, cards, tokens, buildings, control markers, units, transports)."""
        self.changed(changes.VARIANTS)
        self.purchase_snapshot = {
            "tech": [list(x) for x in self.tech], "tech_bought": [list(x) for x in self.tech_bought],
            "tokens": [list(x) for x in self.tokens], "tokens_flipped": [list(x) for x in self.tokens_flipped],
            "hand": [list(x) for x in self.hand], "rotated": [list(x) for x in self.rotated],
            "markers_left": list(self.markers_left), "capitulated": [list(x) for x in self.capitulated],
            "buildings": [[(self.building_level_at(n, cls), self.building_owner_at(n, cls),
                            (self.civil_dmg, self.mil_dmg, self.cath_dmg)[cls][n]) for cls in range(3)]
                          for n in range(self.board.num_nodes)],
            "marker": list(self.marker), "control": self.control_map(),
            "units": [list(u) for u in self.units],  # captain upgrades change units on the board
            "objects": [(o[0], o[1], o[2], o[3]) for o in self.objs.values()],  # vehicle upgrades
        }
        self.revealed_seats = set()

    def _start_reveal(self) -> None:
        self.reveal_queue = [p for p in self.order if not self.eliminated[p]]
        self._next_reveal()

    def _next_reveal(self) -> None:
        self.changed(changes.VARIANTS)
        while True:
            p = self.revealing
            if p >= 0 and self.hidden_bought[p]:
                moves = self.hidden_place_moves()
                if len(moves) > 1:
                    self.actor = p
                    self.phase = Phase.HIDDEN_PLACE
                    return
                if moves:
                    self._place_hidden(p, moves[0][1])  # forced
                else:
                    self._return_hidden(p)
                continue
            if not self.reveal_queue:
                self.revealing = -1
                self.purchase_snapshot = None
                self._start_war()
                return
            self.revealing = self.reveal_queue.pop(0)
            self.revealed_seats.add(self.revealing)

    def hidden_place_moves(self) -> list[tuple[int, int]]:
        p = self.revealing
        item = self.hidden_bought[p][0]
        if item[0] == "unit":
            return [(Head.NODE, n) for n in self.land_nodes if self.unit_place_ok(p, n)]
        return [(Head.NODE, n) for n in self.land_nodes if self.vehicle_place_ok(p, item[1], n)]

    def _apply_hidden_place(self, move: tuple[int, int]) -> None:
        self._place_hidden(self.actor, move[1])
        self.turn += 1
        self._next_reveal()

    def _return_hidden(self, p: int) -> None:
        """No place left (a stationing treaty ended during phase 4): the piece goes back to the supply."""
        self.changed(changes.VARIANTS)
        item = self.hidden_bought[p].pop(0)
        if item[0] == "unit":
            self.unit_supply[p][min(item[1], 4)] += 1
        elif item[1] == SIEGE:
            self.changed(changes.SUPPLY)
            self.siege_supply[item[2] - 1] += 1
        else:
            self.changed(changes.SUPPLY)
            self.vehicle_supply[item[1]] += 1

    def _place_hidden(self, p: int, node: int) -> None:
        self.changed(changes.VARIANTS)
        item = self.hidden_bought[p].pop(0)
        if item[0] == "unit":
            self._add_units(p, node, item[1], 1)
        else:
            self._new_object(p, item[1], item[2], node)

    # ---------------------------------------------------------------- G87 per unit ----
    def _per_unit_abilities(self) -> None:
        """G87 literal reading: each "enable own" slot lets one more unit of a blocked type use its
        ability, each "cancel enemy" slot stops one unit; ``count`` becomes the number of users."""
        bt = self.bt
        count = [list(bt.count[0]), list(bt.count[1])]
        # unblocked: the opponent has none of the type, or Kriegsfürst 4 (cards.py) lifts the block
        unblocked = [{t: count[1 - s][t] == 0 or self._warlord_beats(s, t) for t in ABIL} for s in (0, 1)]
        for s in (0, 1):
            o = 1 - s
            for i, t in enumerate(ABIL):
                enables = sum(1 for mode, j in bt.cap[s] if mode == 1 and j == i)
                cancels = sum(1 for mode, j in bt.cap[o] if mode == 2 and j == i)
                users = count[s][t] if unblocked[s][t] else min(count[s][t], enables)
                users = max(0, users - cancels)
                if bt.naval and t in (HI, CA):
                    users = 0
                bt.count[s][t] = users
                bt.active[s][t] = users > 0

    def sacrifices_left(self, side: int) -> int:
        """LI the side may still sacrifice this round (per unit: only the LI using their ability)."""
        li = self.unappointed_pieces(side)[LI]  # Ernennung: LI appointed to or from another type are not sacrificed
        if self.config.captains_per_unit:
            return min(li, max(0, self.bt.count[side][LI] - self.bt.sac[side]))
        return li


__all__ = ["AuctionTie", "VariantsMixin", "EP_BID_MAX", "BLOOD_MARKERS"]
