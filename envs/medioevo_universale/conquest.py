"""Conquest, plunder and control markers (spec 5.16; G45, G52, G75, G92).

When a player is the only one left with an army in a region after a battle (or takes a region
without a fight), they decide for every building, transport, siege engine and market cube of the
loser there: take it over (needs a free matching ownership marker, G8) or plunder it (50 % of its
price; market cubes 50 fl each). Taking over a military building lets them replace the former
owner's control markers in adjacent regions that no other military building of the former owner
(adjacent to them, G92) can hold. A player who beats an attacker decides over the attacker's
transports left in the region the same way (G75, immediately). Objects of uninvolved players stay.
"""
from __future__ import annotations

from dataclasses import dataclass

from .cards import Resume
from .constants import MILITARY, NUM_UNIT_TYPES, Ctrl, Head, Phase, Stake
from . import changes

NT = NUM_UNIT_TYPES
KEEP = (Head.CTRL, Ctrl.KEEP)
PLUNDER = (Head.CTRL, Ctrl.PLUNDER)
CUBE_PLUNDER = 50  # fl per market cube [SRC]


@dataclass(slots=True)
class Conquest:
    """The take-over / plunder decisions in progress (``engine.conquest``): the winner decides over the items,
    first to last."""
    node: int  # the region (or sea zone) conquered
    winner: int
    loser: int  # the seat beaten there (-1: none); a multi-party war may have beaten more (spec 5.15)
    items: list[tuple[int, int]]  # (Stake, x) still to decide
    marker_owner: int = -1  # Stake.MARKER items: the former owner of the military building just taken


class ConquestMixin:
    def _start_conquest(self, node: int, winner: int, loser: int, buildings: bool,
                        more_losers: list[int] | tuple = ()) -> None:
        """Queue the decisions; ``_end_movement`` runs when they are done. ``more_losers``: the other
        players a multi-party war beat there (spec 5.15); their objects are decided the same way."""
        self.changed(changes.CONQUEST)  # it opens; apply reports every move made while it is open
        if buildings:  # the winner took the region (by battle or takeover)
            self._blood_for_conquest(node, winner)
        items: list[tuple[int, int]] = []
        for beaten in (loser, *more_losers):
            if beaten < 0:
                continue
            if buildings:
                items += [(Stake.BUILDING, cls) for cls in range(3) if self.building_owner_at(node, cls) == beaten]
            items += [(Stake.OBJECT, oid) for oid in self.objects_at(node) if self.objs[oid][0] == beaten
                      and not self.plunder_protected(oid)]  # Diplomat 50 / 51 (cards.py)
        if buildings:
            items += [(Stake.CUBE, g) for g, c in enumerate(self.cubes[node]) if c]
        self.conquest = Conquest(node, winner, loser, items)
        if self._jederzeit_window("any_plunder", Resume.PLUNDER):  # W-ANY: Diplomat 50 / 51 (cards.py)
            return
        self._next_conquest_item()

    def _after_plunder_window(self) -> None:
        """The objects a Diplomat protected in the window before the plunder are not decided over."""
        cq = self.conquest
        cq.items = [item for item in cq.items if item[0] != Stake.OBJECT or not self.plunder_protected(item[1])]
        self._next_conquest_item()

    def _next_conquest_item(self) -> None:
        cq = self.conquest
        while cq.items:
            moves = self.conquest_moves()
            if len(moves) > 1:
                self.actor = cq.winner
                self.phase = Phase.CONQUEST
                return
            self._resolve_conquest_item(moves[0])
        self.conquest = None
        self.entry_battle_over()  # at sea a multi-party war may go on (movement.py)

    def conquest_item(self) -> tuple:
        return self.conquest.items[0]

    def conquest_moves(self) -> list[tuple[int, int]]:
        cq = self.conquest
        w = cq.winner
        kind, x = cq.items[0]
        if kind == Stake.BUILDING:
            level = self.building_level_at(cq.node, x)
            ok = self.markers_allow(w, level)
        elif kind == Stake.OBJECT:
            ok = self.free_slot(w) >= 0 and self.markers_allow(w, self.objs[x][2])
        elif kind == Stake.MARKER:
            ok = self.markers_left[w] > 0
        else:  # Stake.CUBE
            ok = True
        return [KEEP, PLUNDER] if ok else [PLUNDER]

    def _apply_conquest(self, move: tuple[int, int]) -> None:
        self._resolve_conquest_item(move)
        self._next_conquest_item()

    def _resolve_conquest_item(self, move: tuple[int, int]) -> None:
        cq = self.conquest
        node, w = cq.node, cq.winner
        kind, x = cq.items.pop(0)
        # the item's owner: several players may have lost the region (spec 5.15)
        loser = (self.building_owner_at(node, x) if kind == Stake.BUILDING else self.objs[x][0]
                 if kind == Stake.OBJECT else cq.marker_owner if kind == Stake.MARKER else cq.loser)
        keep = move[1] == Ctrl.KEEP
        if not keep and (kind == Stake.BUILDING or kind == Stake.OBJECT):
            self._blood_for_plunder(loser, w)
        if kind == Stake.BUILDING:
            cls = x
            building = self.building_kind_at(node, cls)
            if keep:
                self.changed(changes.BUILDINGS)
                if cls == 0:
                    self.civil_owner[node] = w
                elif cls == MILITARY:
                    self.mil_owner[node] = w
                    cq.marker_owner = loser
                    cq.items[:0] = [(Stake.MARKER, m) for m in self._orphan_markers(node, loser)]
                else:
                    self.cath_owner[node] = w
            else:
                self._bank(w, int(self.plunder_fraction * self.comp.building_cost[building]))  # G45
                self._remove_building(node, cls)
        elif kind == Stake.OBJECT:
            o = self.objs[x]
            if keep:
                self.changed(changes.OBJECTS)
                cargo = self.cargo.get(x)
                if cargo:  # units aboard go back to their owner's supply
                    for t in range(NT):
                        self.unit_supply[o[0]][min(t, 4)] += cargo[t]
                        cargo[t] = 0
                for carried in list(self.aboard.get(x, ())):  # ASSUMPTION: what it carried is plundered
                    self._bank(w, int(self.plunder_fraction * self.vehicle_cost_per_level * self.objs[carried][2]))
                    self._remove_object(carried)
                old = self.slots[o[0]]
                old[old.index(x)] = -1
                o[0] = w
                self.slots[w][self.free_slot(w)] = x
                self.cargo_stopped.pop(x, None)
            else:
                self._bank(w, int(self.plunder_fraction * self.vehicle_cost_per_level * o[2]))
                self._remove_object(x)
        elif kind == Stake.MARKER:
            if self.marker[x] == loser:
                self.changed(changes.MARKERS | changes.SEATS)
                self.marker[x] = -1
                self.markers_left[loser] += 1
                if keep:
                    self.marker[x] = w
                    self.markers_left[w] -= 1
        else:  # Stake.CUBE
            if not keep:
                self.changed(changes.MARKET)
                self.cubes[node][x] = 0
                self.goods_supply[x] += 1
                self._bank(w, CUBE_PLUNDER)

    def _orphan_markers(self, node: int, owner: int) -> list[int]:
        """The former owner's markers next to the taken building that no other of their military
        buildings adjacent to the marker can hold (G92)."""
        if owner < 0:
            return []
        out = []
        for m in self.board.land_adj[node]:
            if self.marker[m] != owner:
                continue
            if any(self.mil_owner[b] == owner and b != node for b in self.board.land_adj[m]):
                continue
            out.append(m)
        return out
