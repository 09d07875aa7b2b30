"""Phase 2 steps 2.2-2.4 (spec 5.4, 5.20) and the last revolt check of the final scoring (6.2).

2.2 Event card: the start player draws the top card and drops one of its three symbols; each
    chosen symbol hits every player with something in the card's area (its land regions and the
    sea zones next to them, G64) on their own d6 roll, in turn order (G66); they distribute the
    points themselves, one at a time.
2.3 Barbarian build-up: the start player spends up to 3 points, each placing a barbarian unit or
    moving a barbarian army to an adjacent region (a battle at once if a player's army is there,
    barbarians attacking, G26; a raid if they are alone).
2.4 Revolts: every player whose tax rate is above the back of the new top event card suffers one
    revolt per step (G27): -1 EP per revolt if their start empire already holds a barbarian army;
    each revolt is a horde in an own region without barbarians, start empire first, fewest own
    units first (the player chooses among equals); on own units it attacks at once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress

from .constants import (
    AR, B_AR, B_CP, B_LI, CA, CP1, HI, LI, NUM_UNIT_TYPES, O_KIND, O_NODE, SIEGE, Ctrl, EventStage, Head, Phase,
)
from . import changes
from .combat import BattleAfter

NT = NUM_UNIT_TYPES
SYMBOL_LIMIT = {"movement": 2, "units": 4, "buildings": 3, "goods": 2}  # d6 results that hit
BARB_UNIT = {LI: B_LI, AR: B_AR, CP1: B_CP}
BUILDUP_NEED = {LI: 0, AR: 2, CP1: 4}  # barbarians already in a region before one of the type may be added


@dataclass(slots=True)
class EventEffect:
    """One chosen symbol of the event card hitting one seat (``engine.ev_effect``, step 2.2): the points of its d6
    roll, which the seat distributes one at a time."""
    symbol: str  # "movement", "units", "buildings" or "goods" (SYMBOL_LIMIT)
    player: int  # the seat hit
    left: int  # points still to distribute
    picked: list[int] = field(default_factory=list)  # "movement": the objects already given a stop marker


@lru_cache(maxsize=None)
def node_moves(num_nodes: int) -> tuple:
    """The move (NODE, n) of every node, each tuple built once."""
    return tuple((Head.NODE, n) for n in range(num_nodes))


class EventsMixin:
    # ------------------------------------------------------------------------ flow ----
    def _after_horde(self) -> None:
        if self.round > 1:
            self._start_event_card()
        else:
            self._start_taxes()

    def _draw_event(self) -> int:
        self.changed(changes.EVENTS)
        if not self.event_deck:  # G69: reshuffle the discards
            pile = self.event_discard
            self.event_deck = [pile[int(i)] for i in self.rng.permutation(len(pile))]
            self.event_discard = []
        card = self.event_deck.pop()
        self.event_discard.append(card)
        return card

    def _start_event_card(self) -> None:
        self.changed(changes.EVENTS)
        self.ev_rolls = []
        self.event_card = self._draw_event()
        self.phase = Phase.EVENT_CHOICE
        self.actor = self.order[0]
        self._card_window("event")  # W-EVENT (cards.py): Pestarzt, Weiser

    def event_choice_moves(self) -> list[tuple[int, int]]:
        return [(Head.EVENT, i) for i in range(3)]

    def _apply_event_choice(self, drop: int) -> None:
        self.changed(changes.EVENTS)
        symbols = self.data.events[self.event_card].symbols
        chosen = [s for i, s in enumerate(symbols) if i != drop]
        self.turn += 1
        self.ev_stage = EventStage.EFFECTS
        self.ev_tasks = [(s, p) for s in chosen for p in self.order if not self.eliminated[p]]
        self._resume_events()

    def _resume_events(self) -> None:
        """Continue phase 2 (or the final revolt check) after a decision or a battle."""
        if self.ev_stage == EventStage.EFFECTS:
            if self.ev_effect is not None and self._effect_step():
                return
            self.changed(changes.EVENTS)
            while self.ev_tasks:
                symbol, p = self.ev_tasks.pop(0)
                if not self._effect_targets(symbol, p):
                    continue
                roll = int(self.rng.integers(1, 7))
                self.ev_rolls.append((symbol, p, roll))
                if roll > SYMBOL_LIMIT[symbol]:
                    continue
                self.ev_effect = EventEffect(symbol, p, roll)
                if self._effect_step():
                    return
            self.ev_stage = EventStage.BUILDUP
            self.buildup_left = 3
            self.actor = self.order[0]
            self.phase = Phase.BUILDUP
            self._open_buildup()
            return
        if self.ev_stage == EventStage.BUILDUP:
            if self.buildup_left > 0:
                self.actor = self.order[0]
                self.phase = Phase.BUILDUP
                self._open_buildup()
                return
            self._start_revolts(final=False)
            return
        if self.ev_stage == EventStage.REVOLTS:
            self._next_revolt()
            return
        raise AssertionError(self.ev_stage)

    # ------------------------------------------------------------------- effects ----
    def _event_area(self) -> tuple[frozenset, frozenset]:
        ev = self.data.events[self.event_card]
        return ev.regions - self.event_protected, ev.seas  # Pestarzt 42 / 43 (cards.py)

    def _effect_targets(self, symbol: str, p: int) -> list[tuple]:
        regions, seas = self._event_area()
        if symbol == "movement":
            picked = self.ev_effect.picked if self.ev_effect is not None else []
            return [((Head.OBJECT, s),) for s, oid in enumerate(self.slots[p])
                    if oid >= 0 and oid not in picked and self.objs[oid][O_KIND] != SIEGE
                    and (self.objs[oid][O_NODE] in regions or self.objs[oid][O_NODE] in seas)]
        if symbol == "units":
            u = self.units[p]
            opts = [((Head.NODE, n), (Head.UNIT, t)) for n in sorted(regions) if self.playable[n]
                    for t in range(NT) if u[n * NT + t]]
            # units aboard galleys in the area's sea zones are hit too (spec 5.4 ASSUMPTION)
            opts += [((Head.OBJECT, s), (Head.UNIT, t)) for s, oid in enumerate(self.slots[p])
                     if oid >= 0 and oid in self.cargo and self.objs[oid][O_NODE] in seas
                     for t in range(NT) if self.cargo[oid][t]]
            return opts
        if symbol == "buildings":
            return [((Head.NODE, n), (Head.BUILD, self.building_kind_at(n, cls))) for n in sorted(regions)
                    if self.playable[n] for cls in range(3) if self.building_owner_at(n, cls) == p]
        if symbol == "goods":
            return [((Head.OBJECT, s), (Head.GOOD, g)) for s, oid in enumerate(self.slots[p])
                    if oid >= 0 and oid in self.goods
                    and (self.objs[oid][O_NODE] in regions or self.objs[oid][O_NODE] in seas)
                    for g, c in enumerate(self.goods[oid]) if c]
        return []

    def _effect_step(self) -> bool:
        """Apply points automatically while there is no real choice; True when a decision is pending."""
        eff = self.ev_effect
        while eff.left > 0:
            opts = self._effect_targets(eff.symbol, eff.player)
            if not opts:
                break
            if eff.symbol == "movement" and len(opts) <= eff.left:
                for opt in opts:
                    self._apply_effect_point(opt)
                break
            if len(opts) == 1:
                self._apply_effect_point(opts[0])
                continue
            self.actor = eff.player
            self.phase = Phase.EVENT_EFFECT
            self._open_tree(opts)
            return True
        self.changed(changes.EVENTS)
        self.ev_effect = None
        return False

    def _apply_effect_point(self, opt: tuple) -> None:
        self.changed(changes.EVENTS)
        eff = self.ev_effect
        p = eff.player
        eff.left -= 1
        if eff.symbol == "movement":
            self.changed(changes.OBJECTS)
            oid = self.slots[p][opt[0][1]]
            eff.picked.append(oid)
            self.objs[oid][4] = 0  # a stop marker: no MP this round
        elif eff.symbol == "units" and opt[0][0] == Head.OBJECT:
            self._damage_aboard(p, self.slots[p][opt[0][1]], opt[1][1])
        elif eff.symbol == "units":
            self._damage_unit(p, opt[0][1], opt[1][1])
        elif eff.symbol == "goods":
            self.changed(changes.OBJECTS)
            oid = self.slots[p][opt[0][1]]
            self.goods[oid][opt[1][1]] -= 1
            self.goods_supply[opt[1][1]] += 1
        else:
            self._damage_building(opt[0][1], opt[1][1])

    def _apply_event_effect(self, opt: tuple) -> None:
        self._apply_effect_point(opt)
        self._resume_events()

    def _damage_aboard(self, p: int, oid: int, t: int) -> None:
        """One damage point to a unit aboard a galley (the normal rules: HI -> LI, CA -> HI)."""
        self.changed(changes.OBJECTS)
        cargo = self.cargo[oid]
        sup = self.unit_supply[p]
        cargo[t] -= 1
        sup[min(t, 4)] += 1
        repl = LI if t == HI and sup[LI] > 0 else -1
        if t == CA:
            repl = HI if sup[HI] > 0 else LI if sup[LI] > 0 else -1
        if repl >= 0:
            sup[repl] -= 1
            cargo[repl] += 1

    def _damage_building(self, node: int, kind: int, points: int = 1) -> None:
        """Damage markers; a building is destroyed when its markers reach its GP (spec 2.6)."""
        self.changed(changes.BUILDINGS)
        cls = (0, 0, 0, 1, 1, 1, 2)[kind]
        dmg = (self.civil_dmg, self.mil_dmg, self.cath_dmg)[cls]
        dmg[node] += points
        if dmg[node] >= self.comp.building_gp[kind]:
            self._remove_building(node, cls)

    # ------------------------------------------------------------------- build-up ----
    def _open_buildup(self) -> None:
        """The build-up decision: DONE, a new barbarian unit (UNIT, NODE) or a barbarian move (NODE, NODE).
        Only its first moves are found here; the options of one are listed once it is chosen
        (``_buildup_part``): listed whole they are about a hundred."""
        self._open_tree([((Head.CTRL, Ctrl.DONE),)], tuple(self._buildup_firsts()))

    def _buildup_firsts(self) -> list[tuple[int, int]]:
        """The first moves of the build-up options but DONE: each starts at least one option."""
        barb, supply = self.barb_total, self.barb_supply
        targets = self._buildup_targets()
        firsts = [(Head.UNIT, t) for t, k in ((LI, B_LI), (AR, B_AR), (CP1, B_CP))
                  if supply[k] > 0 and any(barb[n] >= BUILDUP_NEED[t] for n in targets)]
        barb_nodes, galleys_left = self._barbarian_nodes()
        playable, node_move = self.playable, node_moves(self.board.num_nodes)
        firsts += [node_move[n] for n in barb_nodes if playable[n] and self._barbarian_steps(n, galleys_left)]
        return firsts

    def _buildup_part(self, first: tuple[int, int]) -> list[tuple]:
        """The build-up options that start with ``first``, one of ``_buildup_firsts``."""
        node_move = node_moves(self.board.num_nodes)
        if first[0] == Head.UNIT:
            barb, need = self.barb_total, BUILDUP_NEED[first[1]]
            return [(first, node_move[n]) for n in self._buildup_targets() if barb[n] >= need]
        _, galleys_left = self._barbarian_nodes()
        return [(first, node_move[y]) for y in self._barbarian_steps(first[1], galleys_left)]

    def _buildup_targets(self) -> list[int]:
        """The land regions where a new barbarian unit may be placed, in node order."""
        board = self.board
        control = self._cached_control_map()
        barb, army, land = self.barb_total, self.army, self.land_playable  # land: the nodes of ``land_nodes``
        nodes = range(board.num_nodes)  # the symbol and barbarian nodes are few: found by C scans
        free_symbols = [n for n in compress(nodes, board.barbarian_symbol) if land[n] and control[n] < 0]
        symbol_free = [n for n in free_symbols if not any(a[n] for a in army)]
        targets = {n for n in compress(nodes, barb) if land[n]}.union(symbol_free)
        if not free_symbols:  # every symbol taken: the cheap tests before the object scan of _empty_region
            targets |= {n for n in self.land_nodes if control[n] < 0 and board.empire[n] < 0
                        and self._empty_region(n)}
        return sorted(targets)

    def _barbarian_nodes(self) -> tuple[list[int], int]:
        """The nodes with barbarians (found by a C scan: they are few) and the barbarian galleys left."""
        barb_nodes = list(compress(range(self.board.num_nodes), self.barb_total))
        is_sea = self.board.is_sea
        return barb_nodes, self.barb_galleys - sum([is_sea[n] for n in barb_nodes])

    def _barbarian_steps(self, n: int, galleys_left: int) -> list[int]:
        """Where the barbarians of node n may move in the build-up."""
        board, playable = self.board, self.playable
        if board.is_sea[n]:  # a barbarian galley: on to another sea zone, or landing
            return [y for y in board.sea_adj[n] if playable[y]] + [y for y in board.coast[n] if playable[y]]
        barb = self.barb_total  # overland, or aboard a barbarian galley (G42: at most 4 at once)
        return [y for y in board.land_adj[n] if playable[y]] + [
            y for y in board.coast[n] if (galleys_left > 0 or barb[y]) and playable[y]]

    def _empty_region(self, n: int) -> bool:
        return (not self.barb_total[n] and not any(self.army[q][n] for q in range(self.num_players))
                and not self.objects_at(n) and self.civil[n] == 0 and self.mil[n] == 0 and self.cath_owner[n] < 0)

    def _apply_buildup(self, opt: tuple) -> None:
        head, arg = opt[0]
        if head == Head.CTRL:
            self.changed(changes.EVENTS)
            self.buildup_left = 0
            self.turn += 1
            self._resume_events()
            return
        self.changed(changes.EVENTS)
        self.buildup_left -= 1
        if head == Head.UNIT:
            self.changed(changes.SUPPLY)
            k = BARB_UNIT[arg]
            self.barb_supply[k] -= 1
            self._add_barb(opt[1][1], k, 1)
            self._resume_events()
            return
        self._move_barbarians(arg, opt[1][1])

    def _move_barbarians(self, frm: int, to: int) -> None:
        for k in range(3):
            c = self.barb[frm * 3 + k]
            if c:
                self._add_barb(frm, k, -c)
                self._add_barb(to, k, c)
        self._barbarians_arrive(to)

    def _barbarians_arrive(self, node: int) -> None:
        """G26: a player's army there -> battle at once (barbarians attack); alone -> raid. At sea a
        player's galleys with units aboard fight a naval battle; unmanned ships are destroyed. Several
        players there: one battle after another (spec 5.15, combat.py)."""
        if not self.board.is_sea[node]:
            self._remove_markers(node)
        if self._barbarians_attack(node, -1, BattleAfter.EVENTS):  # every army there, one after another (combat.py)
            return
        self._barbarian_raid(node)
        self._resume_events()

    # -------------------------------------------------------------------- revolts ----
    def _start_revolts(self, final: bool) -> None:
        self.changed(changes.EVENTS)
        self.ev_stage = EventStage.REVOLTS
        self.final_check = final
        if final:
            drawn = self._draw_event() if (self.event_deck or self.event_discard) else -1
            top = self.event_deck[-1] if self.event_deck else drawn  # G53
        else:
            if not self.event_deck:
                self._draw_event()  # reshuffle (G69); the card drawn goes back on top
                self.event_deck.append(self.event_discard.pop())
            top = self.event_deck[-1]
        allowed = self.data.events[top].allowed_tax if top >= 0 else max(self.tax_rates)
        self.allowed_tax = allowed
        self.revolt_queue = []
        for p in self.order:
            if self.eliminated[p] or self.tax_rate[p] <= allowed:
                continue
            count = (self.tax_rate[p] - allowed) // (self.tax_rates[1] - self.tax_rates[0])
            if any(self.barb_total[n] for n in self.home_regions[p]):  # G27: checked once, before
                self._gain_ep(p, -count, "additional_revolt")
            self.revolt_queue += [p] * count
        self._next_revolt()

    def revolt_candidates(self, p: int) -> list[int]:
        eligible = [n for n in self._seat_regions()[p] if not self.barb_total[n]]
        home = [n for n in eligible if self.home_owner[n] == p]
        pool = home or eligible
        if not pool:
            return []
        fewest = min(self.army[p][n] for n in pool)
        return [n for n in pool if self.army[p][n] == fewest]

    def _next_revolt(self) -> None:
        self.changed(changes.EVENTS)
        while self.revolt_queue:
            p = self.revolt_queue[0]
            cands = self.revolt_candidates(p)
            if not cands:
                self.revolt_queue.pop(0)  # surplus revolts are void (G27)
                continue
            if len(cands) > 1:
                self.actor = p
                self.phase = Phase.REVOLT_PLACE
                return
            self.revolt_queue.pop(0)
            if self._place_revolt(p, cands[0]):
                return
        if self.final_check:
            self._final_scoring()
        else:
            self._start_taxes()

    def revolt_moves(self) -> list[tuple[int, int]]:
        return [(Head.NODE, n) for n in self.revolt_candidates(self.actor)]

    def _apply_revolt(self, node: int) -> None:
        self.changed(changes.EVENTS)
        p = self.revolt_queue.pop(0)
        self.turn += 1
        if self._place_revolt(p, node):
            return
        self._next_revolt()

    def _place_revolt(self, p: int, node: int) -> bool:
        """A horde in the region; True when a decision (a battle, a Gesetze relocation) is pending."""
        if self.revolt_relocation_pending(p, node):  # G67: Gesetze (technologies.py)
            return True
        return self._spawn_revolt(p, node)

    def _spawn_revolt(self, p: int, node: int) -> bool:
        self.revolts_placed[p] += 1
        if not self._spawn_horde(node):
            return False
        self._remove_markers(node)
        if self._barbarians_attack(node, p, BattleAfter.EVENTS, invade=True):  # p's army first; the end resumes the revolts
            return True
        self._barbarian_raid(node)
        return False


__all__ = ["EventsMixin"]
