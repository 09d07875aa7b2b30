"""Setup S0-S10 (spec section 3): empires, starting transports, village, army, cards, goal tokens."""
from __future__ import annotations

from .constants import (
    AR, GALLEY, MERCHANT_SHIP, NUM_UNIT_TYPES, Head, Phase, VILLAGE,
)
from .data import EMPIRES, STARTING_KITS, connected_empire_sets, playable_nodes
from . import changes

NT = NUM_UNIT_TYPES
_SHIPS = (MERCHANT_SHIP, GALLEY)


class SetupMixin:
    # ------------------------------------------------------------------- S1 empires ----
    def _assign_random_empires(self) -> None:
        sets = connected_empire_sets(self.num_players)
        chosen = sets[int(self.rng.integers(len(sets)))]
        perm = self.rng.permutation(len(chosen))
        self.empire_of = [chosen[int(i)] for i in perm]
        self._after_empires()

    def empire_pick_moves(self) -> list[tuple[int, int]]:
        """G3: a pick must keep a connected set of the required size reachable."""
        taken = {e for e in self.empire_of if e >= 0}
        moves = []
        for e in range(len(EMPIRES)):
            if e in taken:
                continue
            want = taken | {e}
            if any(want <= set(s) for s in connected_empire_sets(self.num_players)):
                moves.append((Head.EMPIRE, e))
        return moves

    def _after_empires(self) -> None:
        self.changed(changes.SUPPLY | changes.BUILDINGS)
        board = self.board
        chosen = tuple(sorted(self.empire_of))
        play = playable_nodes(chosen)
        self.playable = [i in play for i in range(board.num_nodes)]
        self.land_playable = [self.playable[i] and not board.is_sea[i] for i in range(board.num_nodes)]
        self.land_nodes = [i for i in range(board.num_nodes) if self.playable[i] and not board.is_sea[i]]
        self.home_owner = [-1] * board.num_nodes
        for p, e in enumerate(self.empire_of):
            for n in board.empire_regions(e):
                self.home_owner[n] = p
        self.home_regions = [[n for n in board.empire_regions(e)] for e in self.empire_of]
        self._forget_control()
        # S6: one barbarian LI on every playable barbarian-symbol region (order does not matter)
        for n in self.land_nodes:
            if board.barbarian_symbol[n] and self.barb_supply[0] > 0:
                self._add_barb(n, 0, 1)
                self.barb_supply[0] -= 1
        self.queue = list(range(self.num_players))
        self.phase = Phase.KIT
        self.actor = self.queue.pop(0)

    # ---------------------------------------------------------------- S2 transports ----
    def kit_moves(self) -> list[tuple[int, int]]:
        has_port = any(self.board.port[n] for n in self.home_regions[self.actor])
        moves = []
        for i, kit in enumerate(STARTING_KITS):
            if not has_port and any(k in _SHIPS for k, _ in kit):
                continue
            need = [0, 0, 0, 0]
            for k, _ in kit:
                need[k] += 1
            if all(need[k] <= self.vehicle_supply[k] for k in range(4)):
                moves.append((Head.KIT, i))
        return moves

    def _apply_kit(self, kit_index: int) -> None:
        self.changed(changes.SUPPLY)
        p = self.actor
        for kind, level in STARTING_KITS[kit_index]:
            self.vehicle_supply[kind] -= 1
            self.kit[p].append((kind, level))
        self.turn += 1
        if self.queue:
            self.actor = self.queue.pop(0)
        else:
            self._start_auction()

    # -------------------------------------------------------- S4-S5 village and army ----
    def _start_setup_placements(self) -> None:
        self.queue = list(self.order)
        self.phase = Phase.VILLAGE
        self.actor = self.queue.pop(0)

    def village_moves(self) -> list[tuple[int, int]]:
        p = self.actor
        return [(Head.NODE, n) for n in self.home_regions[p]
                if self.playable[n] and self.board.inhabited[n] and self.civil[n] == 0]

    def _apply_village(self, node: int) -> None:
        self.changed(changes.SUPPLY | changes.BUILDINGS)
        p = self.actor
        self.civil[node] = 1
        self.civil_owner[node] = p
        self.building_supply[VILLAGE] -= 1
        if self.queue:
            self.actor = self.queue.pop(0)
        else:
            self.queue = list(self.order)
            self.actor = self.queue.pop(0)
            self.phase = Phase.PLACE_ARCHER

    def placement_moves(self) -> list[tuple[int, int]]:
        p = self.actor
        home = [n for n in self.home_regions[p] if self.playable[n]]
        if self.phase == Phase.PLACE_TRANSPORT and self.kit[p][0][0] in _SHIPS:
            home = [n for n in home if self.board.port[n]]
        return [(Head.NODE, n) for n in home]

    def _apply_placement(self, node: int) -> None:
        p = self.actor
        if self.phase == Phase.PLACE_ARCHER:
            self._add_units(p, node, AR, 1)
            self.unit_supply[p][AR] -= 1
            self.phase = Phase.PLACE_TRANSPORT
            return
        kind, level = self.kit[p].pop(0)
        self._new_object(p, kind, level, node)
        if self.kit[p]:
            return
        self.turn += 1
        if self.queue:
            self.actor = self.queue.pop(0)
            self.phase = Phase.PLACE_ARCHER
        else:
            self.queue = list(self.order)
            self._setup_next_card_draw()

    # ------------------------------------------------------------ S7 empire cards ----
    def _setup_next_card_draw(self) -> None:
        if not self.queue:
            self.queue = list(self.order)
            self.phase = Phase.GOAL_TOKEN
            self.actor = self.queue.pop(0)
            return
        self.actor = self.queue.pop(0)
        k = min(self.comp.raw["setup_card_draw"], len(self.deck))
        if k == 0:
            self._setup_next_card_draw()
            return
        self.changed(changes.CARDS)
        self.drawn = [self.deck.pop() for _ in range(k)]
        self.phase = Phase.KEEP_CARD

    def _setup_card_kept(self, card: int) -> None:
        """S7: keep one; the others are shuffled back into the deck."""
        self.changed(changes.CARDS)
        self.deck.extend(c for c in self.drawn if c != card)
        self.drawn = []
        self.deck[:] = [self.deck[i] for i in self.rng.permutation(len(self.deck))]
        self._setup_next_card_draw()

    # -------------------------------------------------------------- S8 goal token ----
    def goal_token_moves(self) -> list[tuple[int, int]]:
        return [(Head.COLOUR, c) for c in range(6) if self.token_supply[c] > 0]

    def _apply_goal_token(self, colour: int) -> None:
        self.changed(changes.SUPPLY | changes.SEATS)
        p = self.actor
        self.token_supply[colour] -= 1
        self.tokens[p][colour] += 1
        self.turn += 1
        if self.queue:
            self.actor = self.queue.pop(0)
        else:
            self.setup_done = True
            self._start_events()

    # ------------------------------------------------------------------ objects ----
    def _new_object(self, p: int, kind: int, level: int, node: int) -> int:
        self.changed(changes.OBJECTS)
        oid = self.next_obj
        self.next_obj += 1
        self.objs[oid] = [p, kind, level, node, self.vehicle_mp(kind, level), False]
        self.slots[p][self.free_slot(p)] = oid
        if kind in (2, 3):  # war wagons and galleys carry units
            self.cargo[oid] = [0] * NT
        elif kind in (0, 1):  # caravans and merchant ships carry goods cubes
            self.goods[oid] = [0] * len(self.goods_supply)
        return oid

    def _remove_object(self, oid: int) -> None:
        """Back to the supply (the figure; a siege engine's figure is per level). Units aboard go
        down with it, back to their owner's supply."""
        self.changed(changes.SUPPLY | changes.OBJECTS)
        for carried in self.aboard.pop(oid, []):  # objects aboard a lost galley are lost with it
            self.carried_by.pop(carried, None)
            self._remove_object(carried)
        galley = self.carried_by.pop(oid, None)
        if galley is not None:
            self.aboard[galley].remove(oid)
        o = self.objs.pop(oid)
        p, kind, level = o[0], o[1], o[2]
        cargo = self.cargo.pop(oid, None)
        if cargo:
            for t in range(NT):
                self.unit_supply[p][min(t, 4)] += cargo[t]
        self.cargo_stopped.pop(oid, None)
        goods = self.goods.pop(oid, None)
        if goods:
            for g, c in enumerate(goods):
                self.goods_supply[g] += c
        slots = self.slots[p]
        slots[slots.index(oid)] = -1
        if kind == 4:
            self.siege_supply[level - 1] += 1
        else:
            self.vehicle_supply[kind] += 1


__all__ = ["SetupMixin"]
