"""Empire-card abilities (spec 2.8) in their timing windows (spec 5.21, 10.4).

The rules let cards be played "at any time"; the engine offers them at windows:

* phase windows - after the event card is drawn (W-EVENT), in phase 3 before the expenses (W-TAX)
  and in phase 7 before the cards are straightened (W-END). Every seat that holds a usable card
  is asked in turn order: activate a card or DONE.
* the own purchase turn (W-PURCHASE): the abilities are options of the purchase menu.
* the own trade turn (W-TRADE): ``CTRL(PLAY_CARD)`` opens a window for the trading seat.
* the W-ANY windows (``_jederzeit_window``) for the cards whose text names no turn of their own: also
  outside the holder's turn, at the moments where their text can take effect (``JEDERZEIT_WINDOWS``).

A window is opened only for seats with at least one usable ability, so the mask never offers an
empty window. An activation is ``CTRL(PLAY_CARD)``, ``CARD(c)``, then the card's targets as
sub-decisions (the shared decision tree of ``economy.py``); choices that depend on a roll or an
amount follow in the CARD_FOLLOW phase. Using an own card rotates it (it is straightened in
phase 7). ``CARD`` of another player's card is the Missionare technology (violet III): 1 violet TP,
a region of the user within distance 3 of one of the holder's regions, each card once per round.

Cards not listed in ``ABILITY_WINDOWS`` have no ability built yet (docs/games/medioevo_universale.md
lists them); they are still used for TP and goals.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .constants import (
    AR, B_AR, B_CP, B_LI, CA, CARAVAN, CIVIL, GALLEY, HI, LI, MERCHANT_SHIP, MILITARY, NUM_COLOURS, NUM_UNIT_TYPES,
    RELIGION_B, SIEGE, VIOLET, WAR_WAGON, Ctrl, Head, Phase, Stage, Stake,
)
from .data import _load
from . import changes
from .combat import BattleAfter, BattleStep

W_EVENT, W_TAX, W_PURCHASE, W_END, W_TRADE_TURN = "event", "tax", "purchase", "end", "trade_turn"
W_ROUND_PRE, W_ATTACK = "card_pre", "card_attack"  # battle windows: BattleStep.ROUND_PRE_WINDOW, ATTACK_WINDOW
W_REACT = "react"  # right after another card's activation: Narr 48 / 49
W_INVADE = "invade"  # an opponent or a revolt attacks the army of the region: Miliz 24
W_MOVE = "move"  # the own completed movement: CTRL(PLAY_CARD) in the MOVE decision
BATTLE_WINDOWS = (W_ROUND_PRE, W_ATTACK)
# W-ANY cards (spec 5.21): offered in the own purchase turn and in phase 7, and, out of turn, at the moments
# where their text can take effect (``_jederzeit_window``, rulebook REICHSKARTEN: "jederzeit ..., auch
# außerhalb deines Zuges"):
W_ANY_BATTLE = "any_battle"  # before each battle round (BattleStep.ANY_BATTLE_WINDOW): Bischof 1, Tempelritter 35
W_ANY_PLUNDER = "any_plunder"  # before a conquest decides over the beaten players' objects: Diplomat 50 / 51
W_ANY_WAR = "any_war"  # at the start of each war cycle of phase 5: Bischof 1 / 3, Intrigant 15, Tempelritter
W_ANY_TRADE = "any_trade"  # at the start of each trade cycle of phase 6: Bischof 2 / 3
JEDERZEIT_WINDOWS = (W_ANY_BATTLE, W_ANY_PLUNDER, W_ANY_WAR, W_ANY_TRADE)
PHASE_WINDOWS = (W_PURCHASE, W_END)
PLAY = (Head.CTRL, Ctrl.PLAY_CARD)
DONE = (Head.CTRL, Ctrl.DONE)
BAN_FIGHT, BAN_TRADE, BAN_MOVE = range(3)  # Bischof 1, 2, 3
MISSIONARIES_LEVEL = 3  # violet III


def _c(card_id: int) -> int:
    return card_id - 1  # CARD head argument


# the cards of ``card_build_cost``, asked for every building option
_ARCHITECT_FL, _ARCHITECT_PERCENT, _STEWARDS = _c(32), _c(33), (_c(69), _c(70))


# card index -> windows where its ability is offered (spec 5.21)
_PRE, _ATT, _TRADE = (W_ROUND_PRE,), (W_ATTACK,), (W_TRADE_TURN,)
_BARD = PHASE_WINDOWS + _TRADE + BATTLE_WINDOWS + (W_EVENT,) + JEDERZEIT_WINDOWS  # wherever a used card's is open
ABILITY_WINDOWS = {
    _c(1): PHASE_WINDOWS + (W_ANY_BATTLE, W_ANY_WAR),  # Bischof: fights
    _c(2): PHASE_WINDOWS + (W_ANY_TRADE,), _c(3): PHASE_WINDOWS + (W_ANY_WAR, W_ANY_TRADE),  # trade, movement
    _c(4): _PRE, _c(5): _ATT, _c(6): (W_MOVE,),  # Kriegsfürst
    _c(7): _PRE, _c(8): _PRE, _c(9): _PRE,  # Armbrustschütze
    _c(10): _PRE, _c(12): _PRE,  # Wissenschaftler
    _c(11): (W_PURCHASE, W_MOVE, W_TRADE_TURN), _c(54): (W_PURCHASE, W_MOVE),  # vehicle properties this round
    _c(13): (W_END,), _c(14): _PRE, _c(15): PHASE_WINDOWS + (W_ANY_WAR,),  # Intrigant (14: battle round 1 only)
    _c(16): _PRE, _c(17): _PRE, _c(18): _PRE,  # Spion ("before a single roll")
    _c(19): _TRADE, _c(20): _TRADE, _c(21): _TRADE,  # Kaufmann
    _c(22): _TRADE, _c(23): _TRADE,  # Steuereintreiber
    _c(24): (W_INVADE,), _c(25): (W_INVADE,), _c(26): (W_INVADE,),  # Miliz
    _c(27): (W_ROUND_PRE, W_ATTACK), _c(28): _PRE, _c(29): _PRE,  # Chirurg
    _c(32): (W_PURCHASE,), _c(33): (W_PURCHASE,),  # Architekt
    _c(34): PHASE_WINDOWS + (W_ANY_WAR,), _c(35): PHASE_WINDOWS + (W_ANY_BATTLE, W_ANY_WAR),  # Tempelritter
    _c(36): PHASE_WINDOWS, _c(37): (W_TAX,), _c(38): (W_TAX,),  # Magnat
    _c(39): _PRE, _c(40): _PRE, _c(41): _PRE,  # Kerkermeister
    _c(42): (W_EVENT,), _c(43): (W_EVENT,),  # Pestarzt
    _c(44): _BARD, _c(45): _BARD,  # Barde
    _c(46): _ATT, _c(47): _ATT,  # Attentäter
    _c(48): (W_REACT,), _c(49): (W_REACT,),  # Narr
    _c(50): PHASE_WINDOWS + (W_ANY_PLUNDER,), _c(51): PHASE_WINDOWS + (W_ANY_PLUNDER,),  # Diplomat
    _c(52): _PRE, _c(53): (W_MOVE,),  # Kanonier
    _c(55): (W_PURCHASE, W_MOVE), _c(56): (W_PURCHASE, W_MOVE),  # Jäger
    _c(57): (W_PURCHASE,), _c(58): (W_PURCHASE,),  # Pirat
    _c(59): (W_PURCHASE,), _c(60): (W_PURCHASE,),  # Prinzessin
    _c(61): (W_EVENT,), _c(62): (W_EVENT,),  # Weiser (G18)
    _c(30): _TRADE, _c(31): _TRADE,  # Verkäufer
    _c(63): _TRADE, _c(64): _TRADE,  # Kameltreiber
    _c(67): _PRE, _c(68): _PRE,  # Heldin
    _c(69): (W_PURCHASE,), _c(70): (W_PURCHASE,),  # Verwalter
    _c(71): (W_PURCHASE,), _c(72): (W_PURCHASE,),  # Mystiker
}
# the cards each W-ANY window offers (``_jederzeit_window`` asks only the seats holding one, or Missionare)
JEDERZEIT_CARDS = {w: frozenset(c for c, ws in ABILITY_WINDOWS.items() if w in ws) for w in JEDERZEIT_WINDOWS}
# never used through another card (Barde, Prinzessin, Missionare): no nesting, and the money lying
# on Magnat 36 belongs to the card's holder (ASSUMPTION)
NOT_BORROWED = frozenset((_c(36), _c(44), _c(45), _c(59), _c(60)))


class Resume:
    """What goes on when a card window closes (``_next_window_seat``): a key of ``CONTINUE``."""
    SAVED = 0  # the decision the window interrupted: the phase and actor saved when it opened
    EXPENSES = 1  # W-TAX: the expenses of phase 3
    END_ROUND = 2  # W-END: the rest of phase 7
    PLUNDER = 3  # W-ANY: the conquest's decisions over the beaten players' objects
    WAR_TURN = 4  # W-ANY: the war cycle's next turn
    TRADE_TURN = 5  # W-ANY: the trade cycle's next turn
    BATTLE = 6  # a battle window (W-ANY, W-ROUND-PRE, W-ATTACK): the battle's next task
    ACTIVATION = 7  # W-REACT: the activation the Narr reactions waited for


# Resume -> the rule it goes on with
CONTINUE = {
    Resume.EXPENSES: lambda e: e._next_expenses(),  # economy.py
    Resume.END_ROUND: lambda e: e._end_round(),  # scoring.py
    Resume.PLUNDER: lambda e: e._after_plunder_window(),  # conquest.py
    Resume.WAR_TURN: lambda e: e._next_war_turn(),  # movement.py
    Resume.TRADE_TURN: lambda e: e._next_trade_turn(),  # trade.py
    Resume.BATTLE: lambda e: e._battle_run(),  # combat.py
    Resume.ACTIVATION: lambda e: e._resolve_activation(),
}


@dataclass(slots=True)
class CardWindow:
    """The open card window (``engine.cw``): the seats it still asks, in turn order, and what follows it."""
    window: str  # W_EVENT, W_TAX, ...
    queue: list[int]  # the seats still to be asked
    resume: int  # Resume
    saved: tuple[int, int] | None = None  # Resume.SAVED: the phase and actor to go back to
    outer: CardWindow | None = None  # the window it opened in (a card's battle, a Narr reaction): open again after it


@dataclass(slots=True)
class CardActivation:
    """The activation whose follow-up decisions (CARD_FOLLOW) are pending (``engine.card_ctx``, set by
    ``_card_effect``, dropped by ``_card_continue``)."""
    player: int  # the seat that played the card
    card: int  # the card (its index, id - 1)
    left: int = 0  # choices left: Intrigant 13 / Pestarzt 42 / Diplomat 50 (1d3), a failed spy 16-18 (1: an own
    # unit leaves), Miliz 25 (the MP its pieces may still spend)
    side: int = -1  # a failed spy 16-18: the player's battle side, which loses the unit
    moved: tuple[int, ...] = ()  # Verkäufer 31: the route stages whose marker was moved (their indices)
    events: list[int] | None = None  # Weiser 61: the event cards drawn to pick one from (None: none, or picked)
    wagon: int = -1  # Miliz 25: the war wagon being loaded (-1: none)
    wagon_cost: int = 0  # Miliz 25: that wagon's MP to the battle region (taken when it drives in)


@dataclass(slots=True)
class WarlordStep:
    """Kriegsfürst 6 in the movement in progress (``engine.warlord_step``; None: not played): armed until the
    carrier steps into another player's region, then that entry (``warlord_entry``), which ``warlord_resume``
    turns into the movement going on."""
    node: int = -1  # the region entered (-1: still armed, no such step yet)
    mp: int = 0  # the carrier's MP before the entry stopped it

    @property
    def armed(self) -> bool:
        """Played, the step into another player's region still to come."""
        return self.node < 0


@dataclass(slots=True)
class PendingActivation:
    """An activation waiting for the Narr reactions (W-REACT, ``engine.card_pending``)."""
    player: int
    card: int
    subs: tuple  # its targets
    cancelled: bool = False  # a Narr cancelled it


@lru_cache(maxsize=None)
def ability_params() -> dict:
    raw = _load("empire_cards.json")["ability_params"]
    return {k: v for k, v in raw.items() if not k.startswith("_")}


class CardsMixin:
    # ------------------------------------------------------------------------ state ----
    def _init_cards(self) -> None:
        nn = self.board.num_nodes
        self.cw: CardWindow | None = None  # the open card window
        self.cw_done: dict[str, int] = {}  # phase window -> round it was last held
        self.card_ctx: CardActivation | None = None  # the activation waiting for a follow-up
        self.card_battle_seat = -1  # the seat whose card (15, 34) started the running battle
        self.card_pending: PendingActivation | None = None  # an activation waiting for the Narr reactions
        self.card_invasion: tuple | None = None  # (region, attacker, defender) of a battle just started
        self.militia_tower: dict[int, tuple[int, int]] = {}  # Miliz 26: region -> (round, seat)
        # Kanonier 53: (siege engine, round); an engine that escorted is stopped for the round (G85),
        # so the pair names one completed movement
        self.escort_free: tuple[int, int] = (-1, -1)
        self.protected_objects: dict[int, int] = {}  # Diplomat 50 / 51: object id -> last round protected
        self.card_bans = [[-1] * nn for _ in range(3)]  # Bischof: round of the ban per node (-1 = none)
        self.event_protected: set = set()  # Pestarzt: regions spared by this round's event
        self.locked_cards: set = set()  # Intrigant 13: stay rotated through the next phase 7
        self.card_money: dict[int, int] = {}  # Magnat 36: money lying on the card
        self.round_effects: dict[int, tuple[int, int]] = {}  # card 37 / 38 / 64 -> (round, seat)
        self.missionary_used: list[set] = [set() for _ in range(self.num_players)]  # per round
        self.cards_played = [0] * 72  # activations per card (statistics)
        # Chirurg 28: units lost under the card, per type, bought back in phase 4 of the given round
        self.buyback = [[0] * 7 for _ in range(self.num_players)]
        self.buyback_round = [0] * self.num_players
        self.route_vehicle_kind = [-1] * self.num_players  # Verkäufer 30: kind of the insured route's vehicle
        # Wissenschaftler 11 / Kanonier 54: vehicle id -> (card, round) of its extra properties
        self.vehicle_cards: dict[int, tuple[int, int]] = {}
        # Kriegsfürst 6: armed for the movement's next step into another player's region, then that entry;
        # warlord_load = (region, units that may still move on)
        self.warlord_step: WarlordStep | None = None
        self.warlord_load: tuple[int, int] | None = None
        self.hunters: dict[int, int] = {}  # Jäger 55 / 56: transport id -> round
        self.hunter_pending = -1  # the region a hunting carrier passes without its entry effect (yet)

    def _cards_reset(self) -> None:
        """The game ends (EP limit) while a card window or activation is open: drop them."""
        self.changed(changes.CARD_EFFECTS)
        self.cw = None
        self.card_ctx = None
        self.card_pending = None
        self.card_battle_seat = -1
        self.card_invasion = None
        self.warlord_step = self.warlord_load = None
        self.hunter_pending = -1

    def _roll_d3(self) -> int:
        return (int(self.rng.integers(1, 7)) + 1) // 2  # spec: 1d6, 1-2 -> 1, 3-4 -> 2, 5-6 -> 3

    def banned(self, kind: int, node: int) -> bool:
        return self.card_bans[kind][node] == self.round

    # ---------------------------------------------------------------- hooks used elsewhere ----
    def _step_banned(self, p: int, x: int, y: int, armed: bool) -> bool:
        """Bischof 3: nobody enters or leaves the region; Bischof 1: no step that starts a fight."""
        if self.card_bans[BAN_MOVE][x] == self.round or self.card_bans[BAN_MOVE][y] == self.round:
            return True
        if armed and self.card_bans[BAN_FIGHT][y] == self.round and not self.board.is_sea[y]:
            return self._opposing_army(p, y) or self.controller(y) < 0  # a fight or barbarian resistance
        return False

    def _interest_relief(self, p: int) -> int:
        used = self.round_effects.get(_c(38))
        return ability_params()["38"]["interest_relief"] if used == (self.round, p) else 0

    def _share_interest(self, p: int) -> int:
        """Magnat 37: half the interest p pays goes to the card's user; returns the amount moved."""
        used = self.round_effects.get(_c(37))
        if used is None or used[0] != self.round or used[1] == p:
            return 0
        share = self.interest_due(p) * ability_params()["37"]["interest_share_percent"] // 100
        if share:
            self._transfer(p, used[1], share)
        return share

    def _straighten_cards(self, p: int) -> None:
        """Phase 7: used cards are straightened, except those locked by Intrigant 13 (once)."""
        self.changed(changes.CARDS)
        keep = [c for c in self.rotated[p] if c in self.locked_cards]
        self.locked_cards.difference_update(keep)
        self.rotated[p] = keep
        self.missionary_used[p] = set()

    def plunder_protected(self, oid: int) -> bool:
        """Diplomat 50 / 51: the object cannot be plundered, taken over or raided this round."""
        return self.protected_objects.get(oid, -1) >= self.round

    def _protectable(self, p: int) -> list[tuple]:
        return [((Head.OBJECT, s),) for s, oid in enumerate(self.slots[p]) if oid >= 0
                and not self.plunder_protected(oid) and self.objs[oid][3] >= 0]

    def _protect_object(self, p: int, slot: int) -> None:
        # played in phase 7 it covers the next round ("for 1 round")
        self.protected_objects[self.slots[p][slot]] = self.round + (self.stage == Stage.END_OF_ROUND)

    def _card_leaves_hand(self, p: int, card: int) -> None:
        """A card claimed for its goal: money lying on Magnat 36 goes back to its holder."""
        self.changed(changes.CARD_EFFECTS)
        money = self.card_money.pop(card, 0)
        if money:
            self._bank(p, money)

    # ----------------------------------------------- Wissenschaftler 11, Kanonier 54 ----
    def _vehicle_card(self, oid: int) -> int:
        """The card (11 or 54) that gives the vehicle extra properties this round, or -1."""
        got = self.vehicle_cards.get(oid)
        return got[0] if got is not None and got[1] == self.round else -1

    def war_kind(self, oid: int) -> int:
        """The kind a vehicle moves as in phase 5: Wissenschaftler 11 makes a caravan a war wagon too."""
        kind = self.objs[oid][1]
        return WAR_WAGON if kind == CARAVAN and self._vehicle_card(oid) == _c(11) else kind

    def trade_kind(self, oid: int) -> int:
        """The kind a vehicle trades as in phase 6: Wissenschaftler 11 makes a war wagon a caravan too."""
        kind = self.objs[oid][1]
        return CARAVAN if kind == WAR_WAGON and self._vehicle_card(oid) == _c(11) else kind

    def unit_capacity(self, oid: int) -> int:
        """Units a vehicle can carry (war wagons and galleys by level; Kanonier 54: a siege engine 3)."""
        o = self.objs[oid]
        if o[1] == SIEGE and self._vehicle_card(oid) == _c(54):
            return ability_params()["54"]["transport_capacity"]
        kind = self.war_kind(oid)
        return self.comp.capacity[kind] * o[2] if kind in (WAR_WAGON, GALLEY) else 0

    def goods_capacity(self, oid: int) -> int:
        kind = self.trade_kind(oid)
        return self.comp.capacity[kind] * self.objs[oid][2] if kind in (CARAVAN, MERCHANT_SHIP) else 0

    def _vehicle_card_targets(self, p: int, c: int, window: str) -> list[tuple]:
        """Own vehicles on land the card can change this round: 11 a caravan or a war wagon (in the
        trade turn only a war wagon: phase 5 is over), 54 a siege engine."""
        if c == _c(54):
            kinds = (SIEGE,)
        else:
            kinds = (WAR_WAGON,) if window == W_TRADE_TURN else (CARAVAN, WAR_WAGON)
        out = []
        for s, oid in enumerate(self.slots[p]):
            if oid < 0 or self._vehicle_card(oid) >= 0:
                continue
            o = self.objs[oid]
            if o[1] in kinds and o[3] >= 0 and not self.board.is_sea[o[3]]:
                out.append(((Head.OBJECT, s),))
        return out

    def _give_vehicle_card(self, p: int, c: int, slot: int) -> None:
        self.changed(changes.OBJECTS | changes.CARD_EFFECTS)
        oid = self.slots[p][slot]
        self.vehicle_cards[oid] = (c, self.round)
        if self.objs[oid][1] == WAR_WAGON:
            self.goods.setdefault(oid, [0] * len(self.goods_supply))
        else:
            self.cargo.setdefault(oid, [0] * NUM_UNIT_TYPES)

    def _vehicle_cards_round_end(self) -> None:
        """The extra properties end with the round. ASSUMPTION: cubes still on a war wagon go back to
        the supply; units still aboard a caravan or siege engine (none: movements end on land) go
        ashore."""
        self.changed(changes.OBJECTS | changes.CARD_EFFECTS)
        for oid in list(self.vehicle_cards):
            o = self.objs.get(oid)
            if o is not None and o[1] == WAR_WAGON:
                for g, k in enumerate(self.goods.pop(oid, ())):
                    self.goods_supply[g] += k
            elif o is not None:
                for t, k in enumerate(self.cargo.pop(oid, ())):
                    if k:
                        self._add_units(o[0], o[3], t, k)
        self.vehicle_cards = {}
        self.hunters = {}  # Jäger 55 / 56 end with the round too

    # ------------------------------------------------------------------ Kriegsfürst 6 ----
    def _foreign_region(self, p: int, y: int) -> bool:
        """A land region of another player (its control or its army) that p cannot pass by treaty."""
        if self.board.is_sea[y] or self.barb_total[y]:
            return False
        if any(self.army[q][y] for q in range(self.num_players) if q != p and not self.may_pass(p, q)):
            return True
        ctrl = self.controller(y)
        return ctrl >= 0 and ctrl != p and not self.may_pass(p, ctrl)

    def _warlord_usable(self, p: int) -> bool:
        """Card 6 in the own movement: a loaded transport that can step into another player's region."""
        c = self.carrier
        if self.warlord_step is not None or c < 0 or c not in self.objs or not sum(self.carrier_cargo()):
            return False
        o = self.objs[c]
        if o[4] < 1:
            return False
        return any(self._foreign_region(p, y) for y in self._step_targets(p, self.war_kind(c), o[3], True, mp=o[4]))

    def warlord_entry(self, p: int, y: int) -> None:
        """Movement hook, before the entry stops the carrier: remember its MP (Kriegsfürst 6)."""
        w = self.warlord_step
        if w is not None and w.armed and self._foreign_region(p, y):
            self.changed(changes.CARD_EFFECTS)
            self.warlord_step = WarlordStep(y, self.objs[self.carrier][4])

    def warlord_resume(self) -> bool:
        """Movement hook where the movement would end: after the entry's takeover or won battle,
        half (rounded up) of the units that entered may move on with the carrier's remaining MP.
        True when the movement goes on. ASSUMPTION: the player picks them by loading them again
        (stopped units of the region, up to that number); the others stay stopped."""
        w = self.warlord_step
        if w is not None or self.warlord_load is not None:
            self.changed(changes.CARD_EFFECTS)
            self.warlord_step = self.warlord_load = None
        if w is None or w.armed:
            return False
        p, y, c = self.mover, w.node, self.carrier
        if (self.bt is not None or c not in self.objs or self.objs[c][0] != p or self.objs[c][3] != y
                or self._opposing_army(p, y)):
            return False
        entered = self.army[p][y]  # the region was another player's: every own unit there came in now
        if not entered:
            return False
        self.changed(changes.OBJECTS)
        self.warlord_load = (y, (entered + 1) // 2)
        self.objs[c][4] = w.mp
        self.actor = p
        self.phase = Phase.MOVE
        return True

    def warlord_loads(self, p: int, node: int, t: int) -> bool:
        """A stopped unit of type t may board again (Kriegsfürst 6)."""
        wl = self.warlord_load
        return wl is not None and wl[0] == node and wl[1] > 0 and self.stopped[p][node * NUM_UNIT_TYPES + t] > 0

    def warlord_board(self, p: int, node: int, t: int) -> None:
        """LOAD hook: a unit without an unstopped twin uses the card's allowance and loses its stop marker."""
        i = node * NUM_UNIT_TYPES + t
        if self.units[p][i] - self.stopped[p][i] <= 0:
            self.changed(changes.UNITS | changes.CARD_EFFECTS)
            self.stopped[p][i] -= 1
            self.warlord_load = (node, self.warlord_load[1] - 1)

    # ------------------------------------------------------------------------ Miliz 25 ----
    def _militia_costs(self, p: int, target: int, budget: int) -> dict[int, int]:
        """Regions from which p's pieces reach ``target`` over land for at most ``budget`` MP (war-wagon
        step costs), crossing only regions p may enter without an entry effect."""
        best = {target: 0}
        frontier = [target]
        while frontier:
            nxt = []
            for y in frontier:
                for x in self.board.land_adj[y]:
                    cost = best[y] + self.step_cost(WAR_WAGON, x, y)
                    if cost > budget or best.get(x, budget + 1) <= cost or not self.playable[x]:
                        continue
                    ctrl = self.controller(x)
                    if (self._opposing_army(p, x) or self._step_banned(p, x, y, True)
                            or not (ctrl == p or self.may_pass(p, ctrl))):
                        continue
                    best[x] = cost
                    nxt.append(x)
            frontier = nxt
        del best[target]
        return best

    def _militia_moves(self, p: int, left: int, wagon: int = -1) -> list[tuple]:
        """Miliz 25 follow-up: a unit without transport (UNIT, NODE of its region), a war wagon
        (OBJECT; then LOAD its cargo one unit at a time, DONE drives in), or DONE. Each piece pays the
        MP of its way. ASSUMPTION: outside its own movement a transport carries nothing, so its cargo
        is loaded in its region first; only unstopped units move."""
        u, st = self.units[p], self.stopped[p]
        if wagon >= 0:
            o = self.objs[wagon]
            base = o[3] * NUM_UNIT_TYPES
            room = self.unit_capacity(wagon) - sum(self.cargo[wagon])
            return [(DONE,)] + [((Head.LOAD, t),) for t in range(NUM_UNIT_TYPES)
                                if room > 0 and u[base + t] - st[base + t] > 0]
        costs = self._militia_costs(p, self.bt.node, left)
        out = []
        for n in sorted(costs):
            out += [((Head.UNIT, t), (Head.NODE, n)) for t in range(NUM_UNIT_TYPES)
                    if u[n * NUM_UNIT_TYPES + t] - st[n * NUM_UNIT_TYPES + t] > 0]
        out += [((Head.OBJECT, s),) for s, oid in enumerate(self.slots[p]) if oid >= 0
                and self.objs[oid][1] == WAR_WAGON and self.objs[oid][3] in costs]
        return [(DONE,)] + out if out else []

    def _militia_apply(self, p: int, opt: tuple) -> bool:
        """Apply a Miliz 25 choice; False when the card's movement is over."""
        ctx = self.card_ctx
        target = self.bt.node
        wagon = ctx.wagon
        if wagon >= 0:
            o = self.objs[wagon]
            if opt[0][0] == Head.LOAD:
                self.changed(changes.OBJECTS)
                self._add_units(p, o[3], opt[0][1], -1)
                self.cargo[wagon][opt[0][1]] += 1
                return True
            self.changed(changes.OBJECTS)
            ctx.left -= ctx.wagon_cost
            o[3] = target
            self._disembark_militia(p, wagon, target)
            ctx.wagon = -1
            return True
        if opt[0] == DONE:
            return False
        if opt[0][0] == Head.OBJECT:
            oid = self.slots[p][opt[0][1]]
            ctx.wagon = oid
            ctx.wagon_cost = self._militia_costs(p, target, ctx.left)[self.objs[oid][3]]  # before loading
            return True
        t, n = opt[0][1], opt[1][1]
        ctx.left -= self._militia_costs(p, target, ctx.left)[n]
        self._add_units(p, n, t, -1)
        self._add_units(p, target, t, 1)
        self.stopped[p][target * NUM_UNIT_TYPES + t] += self.stage == Stage.WAR  # it moved (phase 5)
        return True

    def _disembark_militia(self, p: int, wagon: int, node: int) -> None:
        cargo = self.cargo[wagon]
        for t in range(NUM_UNIT_TYPES):
            k, cargo[t] = cargo[t], 0
            if k:
                self._add_units(p, node, t, k)
                self.stopped[p][node * NUM_UNIT_TYPES + t] += k if self.stage == Stage.WAR else 0

    # ---------------------------------------------------------------------- Jäger 55 / 56 ----
    def _hunter_targets(self, p: int, cid: int) -> list[tuple]:
        """55: one own transport that carries units (OBJECT); 56: every such transport in a region
        (NODE). ASSUMPTION: the phase 5 movement only (trade vehicles keep their G46 limits)."""
        places: dict[int, list[int]] = {}
        for s, oid in enumerate(self.slots[p]):
            if oid >= 0 and self.objs[oid][3] >= 0 and self.hunters.get(oid) != self.round and \
                    self.war_kind(oid) in (WAR_WAGON, GALLEY):
                places.setdefault(self.objs[oid][3], []).append(s)
        if cid == 55:
            return [((Head.OBJECT, s),) for slots in places.values() for s in slots]
        return [((Head.NODE, n),) for n in sorted(places)]

    def _make_hunters(self, p: int, cid: int, target: tuple) -> None:
        self.changed(changes.CARD_EFFECTS)
        if cid == 55:
            oids = [self.slots[p][target[1]]]
        else:
            oids = [oid for oid in self.slots[p] if oid >= 0 and self.objs[oid][3] == target[1]
                    and self.war_kind(oid) in (WAR_WAGON, GALLEY)]
        for oid in oids:
            self.hunters[oid] = self.round

    def _entry_reacts(self, p: int, y: int) -> bool:
        """Would entering y with cargo set off a battle, resistance or a takeover (spec 5.9)?"""
        if self.board.is_sea[y]:
            return self._hostile_galleys(p, y)
        ctrl = self.controller(y)
        return self._opposing_army(p, y) or not (ctrl == p or self.may_pass(p, ctrl))

    def hunter_passes(self, p: int, y: int) -> bool:
        """Movement hook on every step: a hunting carrier with cargo enters y without any reaction;
        the reaction waits for the end of the movement, if it ends there."""
        if self.hunter_pending != -1:
            self.changed(changes.CARD_EFFECTS)
            self.hunter_pending = -1
        c = self.carrier
        if c < 0 or self.hunters.get(c) != self.round or not sum(self.carrier_cargo()):
            return False
        if not self._entry_reacts(p, y):
            return False
        self.changed(changes.CARD_EFFECTS)
        self.hunter_pending = y
        return True

    def hunter_moves(self, p: int) -> list[tuple[int, int]]:
        """In a region passed through: step on or end the movement (then the region reacts); no
        loading, unloading or changing carriers, so no army stands there outside a battle."""
        o = self.objs[self.carrier]
        steps = self._step_targets(p, self.war_kind(self.carrier), o[3], armed=True, mp=o[4]) if o[4] >= 1 else []
        return [DONE] + [(Head.NODE, y) for y in steps]

    def hunter_arrival(self) -> bool:
        """Movement hook where it ends: a movement ending in a region passed through gets that
        region's entry effect now. True when the effect took over (a battle, a takeover, ...)."""
        y = self.hunter_pending
        if y != -1:
            self.changed(changes.CARD_EFFECTS)
            self.hunter_pending = -1
        if (y < 0 or self.carrier not in self.objs or self.objs[self.carrier][3] != y
                or not self._entry_reacts(self.mover, y)):
            return False
        self._entry_effects(self.mover, y)
        return True

    def card_build_cost(self, card: int, fl: int, tp: int) -> tuple[int, int]:
        """Architekt 32 / 33 lower the fl price of one building; Verwalter 69 / 70 build for free."""
        if card == _ARCHITECT_FL:
            return max(0, fl - ability_params()["32"]["discount_fl"]), tp
        if card == _ARCHITECT_PERCENT:
            return fl - fl * ability_params()["33"]["discount_percent"] // 100, tp
        if card in _STEWARDS:
            return 0, 0
        return fl, tp

    # ------------------------------------------------------------------- windows ----
    def _card_window(self, window: str, resume: int = Resume.SAVED) -> bool:
        """Open a phase window for every seat with a usable ability, in turn order. True when one
        opened: the caller stops; when it closes, ``resume`` goes on. Each phase window is held once per
        round."""
        if self.cw_done.get(window) == self.round:
            return False
        self.cw_done[window] = self.round
        if window == W_EVENT:
            if self.event_protected:
                self.changed(changes.CARD_EFFECTS)
            self.event_protected = set()
        seats = self._first_player_asked(window, [q for q in self.order if not self.eliminated[q]])
        if not seats:
            return False
        self._open_card_window(window, seats, resume)
        return True

    def _jederzeit_window(self, window: str, resume: int) -> bool:
        """Rulebook, REICHSKARTEN: "Reichskarten darfst du jederzeit spielen, auch außerhalb deines Zuges."
        The W-ANY cards (spec 5.21: those whose text names no moment of their own) are offered outside their
        holder's turn at the moments where their text can take effect, ``window`` (``JEDERZEIT_WINDOWS``):
        before each battle round, before a conquest decides over the beaten players' objects, at the start of
        each war cycle and of each trade cycle. In turn order, every seat holding such a card (or Missionare)
        that can take effect when its turn in the window comes may play one or pass (DONE); a seat without one
        is not asked, so without holders nothing changes. True when a window opened: ``resume`` goes on
        when it closes."""
        cards, hand, rotated, tech = JEDERZEIT_CARDS[window], self.hand, self.rotated, self.tech
        holders = [q for q in self.order if not self.eliminated[q] and (  # a cheap look first
            tech[q][RELIGION_B] >= MISSIONARIES_LEVEL or any(c in cards and c not in rotated[q] for c in hand[q]))]
        seats = self._first_player_asked(window, holders) if holders else holders
        if not seats:
            return False
        self._open_card_window(window, seats, resume)
        return True

    def _first_player_asked(self, window: str, seats: list[int]) -> list[int]:
        """``seats`` from the first one that can play a card in the window now (the others are asked when their
        turn in the window comes, ``_next_window_seat``: an earlier activation may change what they can play)."""
        while seats and not self._can_play_card(seats[0], window):
            seats.pop(0)
        return seats

    def _open_turn_window(self, p: int, window: str) -> None:
        """``CTRL(PLAY_CARD)`` during an own turn: a window for p alone, then the turn goes on."""
        self._open_card_window(window, [p], Resume.SAVED)

    def _open_card_window(self, window: str, seats: list[int], resume: int) -> None:
        """Every card window opens here: ``seats`` are asked in turn, then ``resume`` goes on (``CONTINUE``). A
        window opened inside another one (a battle a card started, the Narr reactions to an activation) keeps
        it underneath."""
        saved = (self.phase, self.actor) if resume == Resume.SAVED else None
        self.cw = CardWindow(window, seats, resume, saved, self.cw)
        self._next_window_seat()

    def card_turn_moves(self, p: int, window: str) -> list[tuple[int, int]]:
        return [PLAY] if self._can_play_card(p, window) else []

    def _next_window_seat(self) -> None:
        self.changed(changes.CARD_EFFECTS)  # every window opens, goes on and closes here
        cw = self.cw
        while cw.queue:
            p = cw.queue.pop(0)
            opts = self._card_play_options(p, cw.window)
            if opts:
                self.actor = p
                self.phase = Phase.CARD_WINDOW
                self._open_tree([(DONE,)] + opts)
                return
        self.cw = cw.outer
        if cw.resume == Resume.SAVED:
            self.phase, self.actor = cw.saved
        else:
            CONTINUE[cw.resume](self)

    def _apply_card_window(self, opt: tuple) -> None:
        p = self.actor
        if opt[0] == DONE:
            self.turn += 1
            self._next_window_seat()
            return
        if not self._play_card(p, opt[1:]):
            self._card_continue(p)

    def _card_continue(self, p: int) -> None:
        """After an activation (and its follow-up or battle): back to the window or the purchases."""
        self.changed(changes.CARD_EFFECTS)
        self.card_ctx = None
        if self.cw is not None:
            opts = self._card_play_options(p, self.cw.window)
            if opts:
                self.actor = p
                self.phase = Phase.CARD_WINDOW
                self._open_tree([(DONE,)] + opts)
            else:
                self.turn += 1
                self._next_window_seat()
        elif self.stage == Stage.PURCHASES:
            self.actor = p
            self.phase = Phase.PURCHASE
            self._open_tree(self._purchase_options(p))

    # ---------------------------------------------------------------- battle hooks ----
    def _card_flag(self, name: str, side: int, whole_battle: bool = False) -> bool:
        """A battle card's effect on a side: this battle round, or (Heldin) the whole battle."""
        got = self.bt.card_flags.get((name, side))
        return got is not None and (whole_battle or got == self.bt.round)

    def _set_card_flag(self, name: str, side: int) -> None:
        self.bt.card_flags[(name, side)] = self.bt.round

    def _warlord_beats(self, side: int, t: int) -> bool:
        """Kriegsfürst 4: only an opponent with at least as many units of the type stops its ability."""
        count = self.bt.count
        return self._card_flag("warlord", side) and count[1 - side][t] < count[side][t]

    def _archer_hits(self, side: int, shots: int) -> int:
        """1d8 per shot, 1-3 hits. Armbrustschütze 8 lowers every roll by 1 per 2 archers (at most
        3); 9 rerolls each roll once (only misses: a reroll of a hit cannot help)."""
        aim = 0
        if self._card_flag("archer_aim", side):
            aim = min(3, self.fighting_units(side)[AR] // 2)
        reroll = self._card_flag("archer_reroll", side)
        rng = self.rng
        hits = 0
        for _ in range(shots):
            roll = int(rng.integers(1, 9))
            if reroll and roll - aim > 3:
                roll = int(rng.integers(1, 9))
            hits += roll - aim <= 3
        return hits

    def escort_follows(self, oid: int) -> bool:
        """Kanonier 53: the engine follows its war wagon without paying MP during this movement."""
        return self.escort_free == (oid, self.round)

    def _crossbow_shots(self, side: int) -> int:
        """Armbrustschütze 7: 1d3 more archer abilities this battle round, at most one per unit in all
        (an archer may shoot twice). ASSUMPTION: they fire when the side's archers could (the
        opponent has no archers, or the own archer ability is active)."""
        if not self._card_flag("crossbow", side):
            return 0
        bt = self.bt
        if not (bt.active[side][AR] or bt.count[1 - side][AR] == 0):
            return 0
        units = sum(self.fighting_units(side))
        return max(0, min(bt.crossbow[side], units - bt.count[side][AR]))

    def _deferred(self, side: int, points: int) -> int:
        """Chirurg 29: damage from siege engines and archers is assigned only at the end of the battle
        round (after the loss values), so the units still fight in melee. Returns the points due now."""
        if points <= 0 or not self._card_flag("deferred", side):
            return points
        tasks = self.bt.tasks
        tasks.insert(tasks.index((BattleStep.END_ROUND,)), (BattleStep.DAMAGE, side, points, False))
        return 0

    def _surgeon_saves(self, side: int) -> bool:
        """Chirurg 27: the first damage point the side assigns this battle round is ignored."""
        if not self._card_flag("surgeon", side):
            return False
        self.bt.card_flags[("surgeon", side)] = -1  # used up
        return True

    def _dies(self, side: int, t: int) -> bool:
        """Whether one damage point kills the unit (HI and CA step down while the supply allows)."""
        sup = self.unit_supply[self.bt.owners[side]]
        return (self.board.is_sea[self.bt.node] or t not in (HI, CA) or (t == HI and not sup[LI])
                or (t == CA and not sup[HI] and not sup[LI]))

    def _note_loss(self, side: int, t: int, captor: int, dies: bool | None = None) -> None:
        """Chirurg 28: a unit that dies (not captured) this battle round can be bought back next round.
        ``dies``: already known (an appointed unit, Ernennung)."""
        p = self.bt.owners[side]
        if p < 0 or captor >= 0 or not self._card_flag("buyback", side) or not (
                self._dies(side, t) if dies is None else dies):
            return
        if self.buyback_round[p] != self.round + 1:
            self.buyback[p] = [0] * 7
            self.buyback_round[p] = self.round + 1
        self.buyback[p][t] += 1

    def _buyback_options(self, p: int) -> list[tuple]:
        """Phase 4 after a Chirurg 28 round: each lost unit at half its fl price (captains without
        TP), within the unit limit, placed like a bought unit."""
        if self.buyback_round[p] != self.round or self.unit_limit_reached(p):
            return []
        nodes = [n for n in self.land_nodes if self.unit_place_ok(p, n)]
        out = []
        for t, k in enumerate(self.buyback[p]):
            if k and self.unit_supply[p][min(t, 4)] > 0 and self.money[p] >= self.comp.unit_cost[t] // 2:
                out += [(PLAY, (Head.CARD, _c(28)), (Head.UNIT, t), (Head.NODE, n)) for n in nodes]
        return out

    def _buy_back(self, p: int, t: int, node: int) -> None:
        self.changed(changes.SEATS)
        self.buyback[p][t] -= 1
        self._bank(p, -(self.comp.unit_cost[t] // 2))
        self.unit_supply[p][min(t, 4)] -= 1
        self._add_units(p, node, t, 1)
        self.units_bought[p] += 1

    def _hit_captor(self, side: int, t: int) -> int:
        """Who takes a unit of ``side`` that dies from this hit prisoner: the captor of an attack to
        capture, else the enemy whose Kerkermeister 39 is waiting this battle (its one capture)."""
        bt = self.bt
        if bt.captor_now >= 0 or not self._card_flag("jail39", 1 - side, True) or bt.owners[side] < 0:
            return bt.captor_now
        if not self._dies(side, t):
            return -1
        bt.card_flags[("jail39", 1 - side)] = None  # used up
        return bt.owners[1 - side]

    def battle_military_level(self, side: int) -> int:
        """The level of the side's own military building in the battle region; Miliz 26 adds a
        level this round (a tower where there is none, at most III)."""
        node = self.bt.node
        p = self.bt.owners[side]
        if p < 0:
            return 0
        level = self.mil[node] if self.mil_owner[node] == p else 0
        if self.militia_tower.get(node) == (self.round, p):
            level = min(3, level + 1)
        return level

    def _card_protection(self, side: int) -> int:
        """Wissenschaftler 12: the second kind of attack the side's military building protects against."""
        return self.bt.card_protect.get((side, self.bt.round), -1)

    def _siege_shots(self, side: int, oid: int, crew: int) -> int:
        """1d8 per crew unit; Wissenschaftler 10 counts every crew unit twice (this battle round);
        Kanonier 52 adds one crew unit to one engine (this battle)."""
        if self._card_flag("crew_double", side):
            crew *= 2
        return crew + (self.bt.extra_crew == oid)

    def _minus_neutralised(self, side: int, units: list[int]) -> list[int]:
        """Spion 18: neutralised units sit this battle round out (they can still be damaged)."""
        for (s, t, r), k in self.bt.neutral.items():
            if s == side and r == self.bt.round:
                units[t] = max(0, units[t] - k)
        return units

    def _heroine_levels(self, side: int) -> int:
        return self._card_flag("hero67", side, True) + self._card_flag("hero68", side, True) if self.bt else 0

    def _capture_ratio(self, side: int) -> int:
        return 2 if self._card_flag("jail40", side) else 3  # Kerkermeister 40: 2:1 is enough

    def _capture_penalty(self, side: int, av: int) -> int:
        if self._card_flag("jail41", side):
            return max(0, av - 2)  # Kerkermeister 41: -2 instead of halving
        return (av + 1) // 2

    def _battle_card_window(self, window: str) -> bool:
        """W-ROUND-PRE / W-ATTACK: the battle's player sides with a usable card, in turn order
        (ASSUMPTION: only the parties of a battle play battle cards in it); before them, W-ANY for every
        seat (``_jederzeit_window``: Bischof 1, Tempelritter 35). True when one opened."""
        bt = self.bt
        if self.card_invasion is not None:  # this battle is an invasion (W-INVADE for the defender)
            if bt.round == 1 and self.card_invasion == (bt.node, bt.owners[0], bt.owners[1]):
                bt.invaded = bt.owners[1]
            self.card_invasion = None
        if not self.side_size(0) or not self.side_size(1):
            return False
        if window == W_ANY_BATTLE:
            return self._jederzeit_window(window, Resume.BATTLE)
        seats = [q for q in self.order if q in bt.owners and self._can_play_card(q, window)]
        if not seats:
            return False
        self._open_card_window(window, seats, Resume.BATTLE)  # a battle a card started: its window waits underneath
        return True

    def _bishop_may_stop(self) -> bool:
        """Bischof 1 in W-ANY before a battle round: the battle can end after it (``bishop_stops_battle``): a
        land battle between two players whose attacker has a way out (G76, as for a ceasefire). ASSUMPTION:
        barbarians do not withdraw, and no two hostile armies stay in one region outside a battle."""
        bt = self.bt
        return not bt.naval and bt.owners[0] >= 0 and bt.owners[1] >= 0 and bool(self.retreat_destinations())

    def bishop_stops_battle(self) -> bool:
        """Bischof 1: "Laufende Gefechte enden nach der aktuellen Gefechtsrunde." After a battle round in a
        region where no fight may take place this round, the attacker withdraws (``RETREAT_TO``, as after a
        ceasefire: war wagons along, the spec 5.14 follow-up); no way out left: the battle goes on. True
        when the withdrawal is pending."""
        bt = self.bt
        if self.card_bans[BAN_FIGHT][bt.node] != self.round or not self._bishop_may_stop():
            return False
        self._decide(0, Phase.RETREAT_TO)
        return True

    def _invaded(self, node: int, attacker: int, defender: int) -> None:
        """A battle against the army of ``defender`` (a player entering, a revolt): W-INVADE is part
        of the defender's window before battle round 1 (Miliz 24). ASSUMPTION: only entries that start
        a battle open it (a takeover of a region without an army does not)."""
        self.card_invasion = (node, attacker, defender)
        self._start_battle(node, attacker, defender)

    def _invaded_now(self, p: int) -> bool:
        bt = self.bt
        return bt is not None and bt.round == 1 and bt.invaded == p

    def _card_battle_over(self) -> None:
        p, self.card_battle_seat = self.card_battle_seat, -1
        self._card_continue(p)

    # ------------------------------------------------------------------- options ----
    def _card_play_options(self, p: int, window: str) -> list[tuple]:
        """Every complete activation p can make in the window, each starting with PLAY, CARD."""
        opts = []
        for group in self._card_play_groups(p, window):
            opts += group
        return opts

    def _can_play_card(self, p: int, window: str) -> bool:
        """Whether ``_card_play_options`` is not empty: up to the first usable source, a card only asked
        whether it has a choice (``_card_has_choice``)."""
        return any(self._card_play_groups(p, window, probe=True))

    def _card_play_groups(self, p: int, window: str, probe: bool = False):
        """The options of ``_card_play_options``, one list per source (a card, Missionare, ...), lazily.
        With ``probe`` a card's entry is only whether it has a choice."""
        rotated = self.rotated[p]
        invaded = window == W_ROUND_PRE and self._invaded_now(p)
        for c in self.hand[p]:
            if c in rotated:
                continue
            windows = ABILITY_WINDOWS.get(c, ())
            if window in windows:
                w = window
            elif invaded and W_INVADE in windows:
                w = W_INVADE
            else:
                continue
            if probe:
                yield self._card_has_choice(p, c, w, 0)
            else:
                yield [(PLAY, (Head.CARD, c)) + sub for sub in self._card_subs(p, c, w, 0)]
        if self.tech[p][RELIGION_B] >= MISSIONARIES_LEVEL:
            yield [(PLAY,) + sub for sub in self._missionary_options(p, window, 0)]
        if window == W_PURCHASE and self.buyback_round[p] == self.round:
            yield self._buyback_options(p)  # not an activation: the right card 28 gave last round
        if window == W_TRADE_TURN:
            yield self._route_vehicle_options(p)  # not an activation: the route card 30 kept

    def _missionary_options(self, p: int, window: str, extra: int) -> list[tuple]:
        """Missionare (violet III): another player's card for 1 violet TP, each card once per round,
        when a region of p is within distance 3 of one of the holder's regions."""
        par = ability_params()["missionaries"]
        cost_tp = ((VIOLET, par["tp"]),)
        if not self.tp_affordable(p, extra, cost_tp):
            return []
        mine = self.controlled_regions(p)
        dist = self.board.dist
        cost = extra + self.tp_price * self._tp_plan(p, cost_tp, self.tp[p])
        # the violet TP the use takes from the pool is not there for the borrowed ability's costs
        pool = self.tp[p]
        taken = min(pool[VIOLET], par["tp"])
        pool[VIOLET] -= taken
        out = []
        try:
            for q in range(self.num_players):
                if q == p or self.eliminated[q]:
                    continue
                theirs = self.controlled_regions(q)
                if not any(dist[a][b] <= par["distance"] for a in mine for b in theirs):
                    continue
                for c in self.hand[q]:
                    if (c in NOT_BORROWED or c in self.missionary_used[p]
                            or window not in ABILITY_WINDOWS.get(c, ())):
                        continue
                    out += [((Head.CARD, c),) + sub for sub in self._card_subs(p, c, window, cost)]
        finally:
            pool[VIOLET] += taken
        return out

    def _card_has_choice(self, p: int, c: int, window: str, extra: int) -> bool:
        """Whether ``_card_subs(p, c, window, extra)`` is not empty; the costly cards stop at the first choice."""
        cid = c + 1
        if cid in (34, 35):
            return (any(self.unit_supply[p][t] > 0 for t in (LI, HI, AR, CA))
                    and next(self._templar_regions(p, cid, window), None) is not None)
        if cid in (44, 45):
            cost = self._bard_cost(cid, extra)
            return self.money[p] >= cost and any(
                self._card_has_choice(p, t, window, cost) for t in self._borrowable_rotated(window))
        return bool(self._card_subs(p, c, window, extra))

    def _bard_cost(self, cid: int, extra: int) -> int:
        """What p pays before a card borrowed with Barde 44 (free) / 45 (for its price)."""
        return extra + (ability_params()["45"]["cost"] if cid == 45 else 0)

    def _borrowable_rotated(self, window: str):
        """The rotated cards of every seat that Barde 44 / 45 may borrow in the window."""
        for q in range(self.num_players):
            for t in self.rotated[q]:
                if t not in NOT_BORROWED and window in ABILITY_WINDOWS.get(t, ()):
                    yield t

    def _card_subs(self, p: int, c: int, window: str, extra: int) -> list[tuple]:
        """The target choices of card c for p (each a tuple of moves); [] when not usable now.
        ``extra`` is money already committed by the activation (Barde 45, Missionare)."""
        cid = c + 1
        par = ability_params()
        money = self.money[p] - extra
        nodes = self.land_nodes
        if cid in (1, 2, 3):
            kind = cid - 1
            bans = self.card_bans[kind]
            recent = (self.round, self.round - 1)
            if window == W_ANY_BATTLE:  # Bischof 1 on the running battle: it ends after this battle round
                node = self.bt.node
                return [((Head.NODE, node),)] if bans[node] not in recent and self._bishop_may_stop() else []
            return [((Head.NODE, n),) for n in nodes if self.playable[n] and bans[n] not in recent]
        if cid == 13:
            if money < par["13"]["cost"] or not self._lockable_cards(p):
                return []
            return [()]
        if cid == 15:
            if money < par["15"]["cost"] or not self.horde_available():
                return []
            mine = self._seat_regions()[p]
            if not mine:
                return []
            dist = self.board.dist
            reach = par["15"]["distance"]
            nearest = list(map(min, zip(*(dist[m] for m in mine))))  # each node's distance to p's closest region
            return [((Head.NODE, n),) for n in nodes if self.playable[n]
                    and not self.banned(BAN_FIGHT, n) and nearest[n] <= reach]
        if cid in (22, 23):
            return [()] if self._cubes_in_controlled(p) else []
        if cid == 19:
            return [((Head.OBJECT, s), (Head.GOOD, g)) for s, oid in self._traders_of(p)
                    if self._merchant_19_ok(oid) for g, k in enumerate(self.goods[oid]) if k]
        if cid == 20:
            return [()] if self._cheap_sales(p) else []
        if cid == 21:
            if money < par["21"]["price"]:
                return []
            out = []
            for s, oid in self._traders_of(p):
                o = self.objs[oid]
                n = o[3]
                if n < 0 or self.board.is_sea[n] or not self.board.inhabited[n]:
                    continue
                if sum(self.goods[oid]) < self.goods_capacity(oid):
                    out += [((Head.OBJECT, s), (Head.GOOD, g)) for g in range(len(self.goods_supply))
                            if self.goods_supply[g] > 0]
            return out
        if cid == 63:
            return self._camel_moves()
        if cid == 64:
            return [()] if self.route_of(p) is not None and self.round_effects.get(c) != (self.round, p) else []
        if cid == 31:
            return [()] if self._seller_moves(p, ()) else []
        if cid == 30:
            route = self.route_of(p)
            return [()] if route is not None and route.vehicle >= 0 and self.round_effects.get(c) != (
                self.round, p) else []
        if cid in (32, 33):
            return [opt[1:] for opt in self._build_options(p, card=c, reserve=extra)]
        if cid in (34, 35):
            types = [(Head.UNIT, t) for t in (LI, HI, AR, CA) if self.unit_supply[p][t] > 0]
            if not types:  # the region scan only when a unit can be placed
                return []
            return [(unit, (Head.NODE, n)) for n in self._templar_regions(p, cid, window) for unit in types]
        if cid in (24, 25, 26):
            if window != W_INVADE or not self._invaded_now(p):
                return []
            if cid == 25:
                return [()] if self._militia_moves(p, par["25"]["mp"]) else []
            if cid == 26:
                node = self.bt.node
                blocked = self.mil[node] and self.mil_owner[node] != p  # another player's building stands there
                return [] if blocked or self.militia_tower.get(node) == (self.round, p) else [()]
            return [((Head.UNIT, t),) for t in (LI, HI, AR, CA) if self.unit_supply[p][t] > 0]
        if cid in (11, 54):
            return self._vehicle_card_targets(p, c, window)
        if cid == 6:
            return [()] if window == W_MOVE and self._warlord_usable(p) else []
        if cid in (55, 56):
            return self._hunter_targets(p, cid)
        if cid == 53:
            if window != W_MOVE:
                return []
            return [((Head.OBJECT, self.slots[p].index(oid)),) for oid in self.escort
                    if self.objs[oid][0] == p and not self.escort_follows(oid)]
        if cid in (50, 51):
            objs = self._protectable(p) if window != W_ANY_PLUNDER else self._objects_at_stake(p)
            return ([()] if objs else []) if cid == 50 else objs
        if cid == 36:
            deposit = par["36"]["deposit"]
            return [()] if self.card_money.get(c, 0) or money >= deposit else []
        if cid in (37, 38):
            return [()] if extra <= self.money[p] else []
        if cid in (42, 43):
            if self.event_card < 0:
                return []
            regions = self._event_area_unprotected()
            if not regions:
                return []
            return [()] if cid == 42 else [((Head.NODE, n),) for n in sorted(regions)]
        if cid == 44 or cid == 45:
            cost = self._bard_cost(cid, extra)
            if self.money[p] < cost:
                return []
            out = []
            for t in self._borrowable_rotated(window):
                out += [((Head.CARD, t),) + sub for sub in self._card_subs(p, t, window, cost)]
            return out
        if cid in (57, 58):
            if cid == 58:
                return [((Head.COLOUR, k),) for k in range(NUM_COLOURS)]
            return [((Head.COLOUR, a), (Head.COLOUR, b)) for a in range(NUM_COLOURS) for b in range(a, NUM_COLOURS)]
        if cid == 59:
            out = []
            for q in range(self.num_players):
                for t in self.hand[q]:
                    if t in NOT_BORROWED or window not in ABILITY_WINDOWS.get(t, ()):
                        continue
                    subs = self._card_subs(p, t, window, extra)
                    if not subs:
                        continue
                    colours = [()] if len(self.cards[t].tp) <= 1 else [
                        ((Head.COLOUR, alt[0]),) for alt in self.cards[t].tp]
                    out += [((Head.CARD, t),) + col + sub for col in colours for sub in subs]
            return out
        if cid == 60:
            out = []
            for t in self.hand[p]:
                if t == c or t in self.rotated[p] or not self.cards[t].tp:
                    continue
                alts = self.cards[t].tp
                out += [((Head.CARD, t),)] if len(alts) == 1 else [
                    ((Head.CARD, t), (Head.COLOUR, alt[0])) for alt in alts]
            return out
        if cid in (61, 62):
            return [()] if self.event_card >= 0 else []
        if cid in (48, 49):
            pend = self.card_pending
            if window != W_REACT or pend is None or pend.cancelled:
                return []
            return [()] if cid == 49 or money >= par["48"]["cost"] else []
        if window in BATTLE_WINDOWS:
            return self._battle_card_subs(p, cid, money)
        if cid in (69, 70):
            return [((Head.NODE, n),) for n in self._steward_regions(p, CIVIL if cid == 69 else MILITARY)]
        if cid == 71:
            return [()] if sum(self.tp[p]) else []
        if cid == 72:
            return [()] if sum(1 for x in self.tp[p] if x) >= par["72"]["set_colours"] else []
        return []

    def _battle_card_subs(self, p: int, cid: int, money: int) -> list[tuple]:
        """Battle-card targets; ``money``: what p may still spend."""
        bt = self.bt
        par = ability_params()
        if bt is None:
            return []
        mine = [s for s in (0, 1) if bt.owners[s] == p]
        if cid == 4:
            return [()] if any(not self._card_flag("warlord", s) and any(
                self.fighting_units(s)[t] and self.fighting_units(1 - s)[t] for t in (LI, HI, AR, CA)) for s in mine) \
                else []
        if cid == 27:
            return [()] if any(not self._card_flag("surgeon", s) for s in mine) else []
        if cid in (28, 29):
            flag = "buyback" if cid == 28 else "deferred"
            return [()] if any(not self._card_flag(flag, s) for s in mine) else []
        if cid == 12:
            return [((Head.PROTECT, k),) for s in mine if self.mil_owner[bt.node] == p and self.mil[bt.node]
                    and self._card_protection(s) < 0 for k in range(3)]
        if cid in (10, 52):
            engines = [(slot, oid) for slot, oid in enumerate(self.slots[p]) if oid >= 0
                       and self.objs[oid][3] == bt.node and self.objs[oid][1] == SIEGE]
            if not engines or bt.naval:
                return []
            if cid == 10:
                return [()] if any(not self._card_flag("crew_double", s) for s in mine) else []
            return [((Head.OBJECT, slot),) for slot, _ in engines] if bt.extra_crew < 0 else []
        if cid in (14, 16, 17, 18):
            if bt.naval or (cid == 14 and bt.round != 1) or not mine:
                return []
            s = mine[0]
            enemy = bt.owners[1 - s]
            if cid == 14:
                if enemy < 0 or money < par["14"]["cost"]:
                    return []
                u = self.fighting_units(1 - s)
                return [((Head.UNIT, t),) for t in (LI, HI, AR, CA) if u[t] and self.unit_supply[p][t] > 0]
            if cid in (17, 18):
                u = self.side_units(1 - s) if cid == 17 else self.fighting_units(1 - s)
                return [((Head.UNIT, t),) for t in range(7) if u[t]]
            if enemy < 0:
                return []
            return [((Head.OBJECT, slot),) for slot, oid in enumerate(self.slots[enemy]) if oid >= 0
                    and self.objs[oid][3] == bt.node and self._spy_target_ok(oid)]
        if cid == 7:
            return [()] if any(not self._card_flag("crossbow", s) and sum(self.fighting_units(s))
                               > self.fighting_units(s)[AR] for s in mine) else []
        if cid in (8, 9):
            flag, need = ("archer_aim", 2) if cid == 8 else ("archer_reroll", 1)
            return [()] if any(not self._card_flag(flag, s) and self.fighting_units(s)[AR] >= need
                               for s in mine) else []
        if cid in (40, 41):
            flag = "jail40" if cid == 40 else "jail41"
            return [()] if any(not self._card_flag(flag, s) and bt.owners[1 - s] >= 0 for s in mine) else []
        if cid == 39:
            return [()] if any(("jail39", s) not in bt.card_flags and bt.owners[1 - s] >= 0
                               for s in mine) else []
        if cid == 67:  # an army without a captain, whoever's it is
            return [((Head.SIDE, s),) for s in (0, 1) if self.captain_levels(s) == 0 and self.side_size(s)]
        if cid == 68:  # a captain below level III
            return [((Head.SIDE, s),) for s in (0, 1) if not self._card_flag("hero68", s, True) and (
                self.fighting_units(s)[4] + self.fighting_units(s)[5] or self._card_flag("hero67", s, True))]
        if cid == 5:
            return [((Head.SIDE, s),) for s in (0, 1)]
        if cid in (46, 47):
            out = []
            for s in (0, 1):
                for i, v in enumerate(bt.dice[s]):
                    if v <= 1:
                        continue
                    die = (Head.DICE, 1 << i)
                    if cid == 46:
                        out.append(((Head.SIDE, s), die))
                    else:
                        out.append(((Head.SIDE, s), die, DONE))
                        if v >= 3:
                            out.append(((Head.SIDE, s), die, die))
            return out
        return []

    def _spy_target_ok(self, oid: int) -> bool:
        """Spion 16: a war wagon or siege engine whose lost level leaves its cargo room."""
        o = self.objs[oid]
        if o[1] == SIEGE:
            return True
        if o[1] != WAR_WAGON:
            return False
        return o[2] == 1 or sum(self.cargo.get(oid, ())) <= self.comp.capacity[WAR_WAGON] * (o[2] - 1)

    def _remove_battle_unit(self, side: int, t: int) -> None:
        """A unit leaves the battle for good (spy cards): back to its owner's supply."""
        bt = self.bt
        node = bt.node
        q = bt.owners[side]
        if bt.appointed is not None:
            t = self.take_appointed_piece(side, t)  # Ernennung: the piece that counts as t (technologies.py)
        if q < 0:
            self.changed(changes.SUPPLY)
            k = {LI: B_LI, AR: B_AR}.get(t, B_CP)
            self._add_barb(node, k, -1)
            self.barb_supply[k] += 1
            return
        self._add_units(q, node, t, -1)
        self.unit_supply[q][min(t, 4)] += 1
        i = node * 7 + t
        if self.stopped[q][i] > self.units[q][i]:
            self.changed(changes.UNITS)
            self.stopped[q][i] = self.units[q][i]
        crew = bt.crew[side]
        if crew[t] > self.units[q][i]:
            crew[t] = self.units[q][i]

    def _spy_effect(self, p: int, cid: int, subs: tuple) -> bool:
        """Intrigant 14 (a unit defects) and Spion 16 / 17 (1d8: 1-3 success, 7-8 lose an own unit)."""
        bt = self.bt
        par = ability_params()
        side = next(s for s in (0, 1) if bt.owners[s] == p)
        if cid == 14:
            t = subs[0][1]
            self._bank(p, -par["14"]["cost"])
            self._remove_battle_unit(1 - side, t)
            self.unit_supply[p][t] -= 1
            self._add_units(p, bt.node, t, 1)
        else:
            roll = int(self.rng.integers(1, 9))
            if roll <= par[str(cid)]["success_max"]:
                if cid == 17:
                    self._remove_battle_unit(1 - side, subs[0][1])
                elif cid == 18:
                    key = (1 - side, subs[0][1], bt.round)
                    bt.neutral[key] = bt.neutral.get(key, 0) + 1
                else:
                    oid = self.slots[bt.owners[1 - side]][subs[0][1]]
                    o = self.objs[oid]
                    if o[2] == 1 or (o[1] == SIEGE and self.siege_supply[o[2] - 2] <= 0):
                        self._destroy_object(oid)  # ASSUMPTION: no lower figure left -> removed
                    elif o[1] == SIEGE:
                        self.changed(changes.SUPPLY | changes.OBJECTS)
                        self.siege_supply[o[2] - 1] += 1
                        self.siege_supply[o[2] - 2] -= 1
                        o[2] -= 1
                    else:
                        self.changed(changes.OBJECTS)
                        o[2] -= 1
                        o[4] = min(o[4], self.vehicle_mp(o[1], o[2]))
            elif roll >= par[str(cid)]["failure_min"]:
                self.changed(changes.CARD_EFFECTS)
                self.card_ctx.left = 1
                self.card_ctx.side = side
                if self._follow_up():
                    return True
        if not self.side_size(0) or not self.side_size(1):
            bt.tasks = [(BattleStep.END_ROUND,)]  # a side is gone: the battle ends
        return False

    # ------------------------------------------------------------- option helpers ----
    def _lockable_cards(self, p: int) -> list[int]:
        """Intrigant 13: other players' used cards that are not locked yet."""
        return sorted(c for q in range(self.num_players) if q != p for c in self.rotated[q]
                      if c not in self.locked_cards)

    def _cubes_in_controlled(self, p: int) -> int:
        """Steuereintreiber 22 / 23: cubes on other players' trade vehicles in regions p controls."""
        total = 0
        for oid, cubes in self.goods.items():
            o = self.objs[oid]
            if o[0] != p and o[3] >= 0 and self.controller(o[3]) == p:
                total += sum(cubes)
        return total

    def _traders_of(self, p: int) -> list[tuple[int, int]]:
        """(slot, object id) of p's caravans and merchant ships."""
        return [(s, oid) for s, oid in enumerate(self.slots[p]) if oid >= 0 and oid in self.goods]

    def _merchant_19_ok(self, oid: int) -> bool:
        """Kaufmann 19: a barbarian region (also uninhabited) without a barbarian army, and a price
        above 0 (at least 2 colours aboard)."""
        n = self.objs[oid][3]
        return (n >= 0 and not self.board.is_sea[n] and self.board.barbarian_symbol[n] and not self.barb_total[n]
                and sum(1 for k in self.goods[oid] if k) >= 2)

    def _cheap_sales(self, p: int) -> list[tuple]:
        """Kaufmann 20: any cube of p's trade vehicles standing in land regions p does not control."""
        out = []
        for s, oid in self._traders_of(p):
            n = self.objs[oid][3]
            if n >= 0 and not self.board.is_sea[n] and self.controller(n) != p:
                out += [((Head.OBJECT, s), (Head.GOOD, g)) for g, k in enumerate(self.goods[oid]) if k]
        return out

    def _camel_moves(self) -> list[tuple]:
        """Kameltreiber 63: a market cube from an inhabited region to one within distance 3 that
        has that good neither printed nor as a cube (ASSUMPTION: an inhabited land region)."""
        reach = ability_params()["63"]["distance"]
        dist = self.board.dist
        dests = [n for n in self.land_nodes if self.playable[n] and self.board.inhabited[n]]
        out = []
        for a in dests:
            for g, k in enumerate(self.cubes[a]):
                if k:
                    out += [((Head.NODE, a), (Head.GOOD, g), (Head.NODE, b)) for b in dests
                            if b != a and dist[a][b] <= reach and g not in self._present(b)]
        return out

    def _templar_regions(self, p: int, cid: int, window: str):
        """Tempelritter 34: outside the own start empire; 35: where a battle was fought this round, lazily
        in node order. ASSUMPTION: not into regions of other players or with a foreign or barbarian army.
        In W-ANY before a battle round, 35 ("in dem bereits Krieg herrscht") places the unit into the running
        land battle of p, where it joins p's side (as Miliz 24)."""
        if window == W_ANY_BATTLE:
            bt = self.bt
            if cid == 35 and p in bt.owners and not bt.naval:
                yield bt.node
            return
        control = self._cached_control_map()
        if cid == 35:
            playable, is_sea = self.playable, self.board.is_sea
            nodes = sorted(n for n in self.battle_nodes if playable[n] and not is_sea[n])
        elif self.horde_available():
            nodes = self.land_nodes
        else:  # a free region needs the horde's barbarians: only p's own regions are left
            nodes = self._seat_regions()[p]
        if cid == 34:
            home = set(self.home_regions[p])
            fight_bans, now = self.card_bans[BAN_FIGHT], self.round
        others = [self.army[q] for q in range(self.num_players) if q != p]
        playable, barb = self.playable, self.barb_total
        for n in nodes:
            if not playable[n] or barb[n] or control[n] not in (-1, p) or any(a[n] for a in others):
                continue
            if cid == 34 and (n in home or fight_bans[n] == now):
                continue
            yield n

    def _objects_at_stake(self, p: int) -> list[tuple]:
        """Diplomat 50 / 51 in W-ANY before a conquest's plunder: p's objects the conquest will decide over."""
        slots = self.slots[p]
        return [((Head.OBJECT, slots.index(x)),) for kind, x in self.conquest.items
                if kind == Stake.OBJECT and self.objs[x][0] == p and not self.plunder_protected(x)]

    def _steward_regions(self, p: int, cls: int) -> list[int]:
        """Verwalter 69 / 70: raise p's civil (military) building by 1 level when the other class
        stands higher in the same region (ASSUMPTION: in a region p controls)."""
        comp = self.comp
        out = []
        other = MILITARY if cls == CIVIL else CIVIL
        for n in self.land_nodes:
            if self.controller(n) != p or self.building_owner_at(n, cls) != p:
                continue
            level, higher = self.building_level_at(n, cls), self.building_level_at(n, other)
            if not 1 <= level < 3 or higher <= level:
                continue
            cur = self.building_kind_at(n, cls)
            if self.building_supply[cur + 1] > 0 and self.markers_allow(p, comp.building_level[cur + 1],
                                                                      comp.building_level[cur]):
                out.append(n)
        return out

    def _event_area_unprotected(self) -> list[int]:
        ev = self.data.events[self.event_card]
        return [n for n in ev.regions if self.playable[n] and n not in self.event_protected]

    # ------------------------------------------------------------------- effects ----
    def _play_card(self, p: int, opt: tuple) -> bool:
        """Activate ``opt`` = (CARD c, targets...). True when a follow-up decision or a battle is
        pending (it resumes through ``_card_continue``)."""
        c = opt[0][1]
        if c == _c(28) and len(opt) == 3:
            self._buy_back(p, opt[1][1], opt[2][1])  # Chirurg 28: the buy-back, no activation
            return False
        if c == _c(30) and len(opt) == 2:
            self.changed(changes.ROUTES)
            self.route[p].vehicle = self.slots[p][opt[1][1]]  # Verkäufer 30: the new vehicle, no activation
            return False
        self.cards_played[c] += 1
        if c in self.hand[p]:
            self.changed(changes.CARDS)
            self.rotated[p].append(c)
        else:  # Missionare: the holder's card stays as it is
            par = ability_params()["missionaries"]
            self.tp_pay(p, 0, ((VIOLET, par["tp"]),))
            self.missionary_used[p].add(c)
        if c not in (_c(48), _c(49)) and self._react_window(p, c, opt[1:]):
            return True  # the effect waits for the Narr reactions (a Narr itself cannot be cancelled)
        return self._card_effect(p, c, opt[1:])

    def _react_window(self, p: int, c: int, subs: tuple) -> bool:
        """W-REACT: the other seats holding a Narr may cancel the effect, in turn order."""
        self.card_pending = PendingActivation(p, c, subs)
        seats = [q for q in self.order if q != p and not self.eliminated[q] and self._can_play_card(q, W_REACT)]
        if not seats:
            self.card_pending = None
            return False
        self._open_card_window(W_REACT, seats, Resume.ACTIVATION)
        return True

    def _resolve_activation(self) -> None:
        pend, self.card_pending = self.card_pending, None
        p = pend.player
        if pend.cancelled or not self._card_effect(p, pend.card, pend.subs):
            self._card_continue(p)

    def _card_effect(self, p: int, c: int, subs: tuple) -> bool:
        self.changed(changes.CARD_EFFECTS)
        cid = c + 1
        par = ability_params()
        self.card_ctx = CardActivation(p, c)
        if cid in (1, 2, 3):
            self.card_bans[cid - 1][subs[0][1]] = self.round
        elif cid == 13:
            self._bank(p, -par["13"]["cost"])
            self.card_ctx.left = self._roll_d3()
            return self._follow_up()
        elif cid == 15:
            self._bank(p, -par["15"]["cost"])
            node = subs[0][1]
            self._remove_markers(node)
            self._spawn_horde(node)
            self.card_battle_seat = p
            if self._barbarians_attack(node, -1, BattleAfter.CARD):  # every army there, one after another (combat.py)
                return True
            self.card_battle_seat = -1
            self._barbarian_raid(node)
        elif cid in (22, 23):
            self._bank(p, par[str(cid)]["fl_per_cube"] * self._cubes_in_controlled(p))
        elif cid == 19:
            oid = self.slots[p][subs[0][1]]
            colours = sum(1 for k in self.goods[oid] if k)
            self._unload_cube(oid, subs[1][1])
            self._bank(p, par["19"]["fl_per_extra_colour"] * (colours - 1))
        elif cid == 20:
            return self._follow_up()
        elif cid == 21:
            self.changed(changes.OBJECTS)
            oid, g = self.slots[p][subs[0][1]], subs[1][1]
            self.goods_supply[g] -= 1
            self.goods[oid][g] += 1
            self._bank(p, -par["21"]["price"])
        elif cid == 63:
            self.changed(changes.MARKET)
            a, g, b = subs[0][1], subs[1][1], subs[2][1]
            self.cubes[a][g] -= 1
            self.cubes[b][g] += 1
        elif cid == 31:
            self.card_ctx.moved = ()
            return self._follow_up()
        elif cid in (30, 64):
            self.round_effects[c] = (self.round, p)
            if cid == 30:
                self.route_vehicle_kind[p] = self.objs[self.route[p].vehicle][1]
        elif cid in (32, 33):
            self._do_build(p, subs[0][1], subs[1][1], card=c)
            return self.phase == Phase.PLACE_MARKER
        elif cid in (34, 35):
            t, node = subs[0][1], subs[1][1]
            resists = cid == 34 and self.controller(node) < 0  # barbarian resistance (5.20, G34)
            self.unit_supply[p][t] -= 1
            self._add_units(p, node, t, 1)
            if resists:
                self._spawn_horde(node)
                self.battle_after = BattleAfter.CARD
                self.card_battle_seat = p
                self._start_battle(node, p, -1)
                return True
        elif cid == 36:
            money = self.card_money.pop(c, 0)
            if money:
                self._bank(p, money + par["36"]["bonus"])
            else:
                self.card_money[c] = par["36"]["deposit"]
                self._bank(p, -par["36"]["deposit"])
        elif cid in (37, 38):
            self.round_effects[c] = (self.round, p)
        elif cid == 42:
            self.card_ctx.left = self._roll_d3()
            return self._follow_up()
        elif cid == 43:
            self.event_protected.add(subs[0][1])
        elif cid == 50:
            self.card_ctx.left = self._roll_d3()
            return self._follow_up()
        elif cid == 51:
            self._protect_object(p, subs[0][1])
        elif cid == 24:
            t = subs[0][1]
            self.unit_supply[p][t] -= 1
            self._add_units(p, self.bt.node, t, 1)
        elif cid == 26:
            self.militia_tower[self.bt.node] = (self.round, p)
        elif cid == 25:
            self.card_ctx.left = par["25"]["mp"]
            return self._follow_up()
        elif cid == 53:
            self.escort_free = (self.slots[p][subs[0][1]], self.round)
        elif cid in (11, 54):
            self._give_vehicle_card(p, c, subs[0][1])
        elif cid == 6:
            self.warlord_step = WarlordStep()  # armed for the next step into another player's region
        elif cid in (55, 56):
            self._make_hunters(p, cid, subs[0])
        elif cid in (44, 45):
            if cid == 45:
                self._bank(p, -par["45"]["cost"])
            return self._card_effect(p, subs[0][1], subs[1:])
        elif cid in (57, 58):
            for move in subs:
                self.tp[p][move[1]] += par[str(cid)]["tp"] // len(subs)
        elif cid == 59:
            t = subs[0][1]
            rest = subs[1:]
            alts = self.cards[t].tp
            if len(alts) > 1:
                colours, rest = (rest[0][1],), rest[1:]
            else:
                colours = alts[0] if alts else ()
            for k in colours:
                self.tp[p][k] += 1
            return self._card_effect(p, t, rest)
        elif cid == 60:
            self.changed(changes.CARDS)
            t = subs[0][1]
            alts = self.cards[t].tp
            colours = alts[0] if len(alts) == 1 else (subs[1][1],)
            self.rotated[p].append(t)
            for k in colours:
                self.tp[p][k] += par["60"]["tp_factor"]
        elif cid in (48, 49):
            if cid == 48:
                self._bank(p, -par["48"]["cost"])
            self.card_pending.cancelled = True
        elif cid == 61:  # draw 3, keep 1 (ASSUMPTION: always 3; the drawn card is already discarded)
            self.card_ctx.events = [self._draw_event() for _ in range(ability_params()["61"]["draw"])]
            return self._follow_up()
        elif cid == 62:
            self.changed(changes.EVENTS)
            self.event_card = self._draw_event()  # the drawn card is already on the discard pile
        elif cid in (69, 70):
            node = subs[0][1]
            cls = CIVIL if cid == 69 else MILITARY
            self._do_build(p, self.building_kind_at(node, cls) + 1, node, card=c)
            return self.phase == Phase.PLACE_MARKER
        elif cid in (71, 72):
            return self._follow_up()
        elif cid == 12:
            side = next(s for s in (0, 1) if self.bt.owners[s] == p)
            self.bt.card_protect[(side, self.bt.round)] = subs[0][1]
        elif cid == 52:
            self.bt.extra_crew = self.slots[p][subs[0][1]]
        elif cid in (14, 16, 17, 18):
            return self._spy_effect(p, cid, subs)
        elif cid in (4, 8, 9, 10, 27, 28, 29, 39, 40, 41):
            flag = {4: "warlord", 8: "archer_aim", 9: "archer_reroll", 10: "crew_double", 27: "surgeon",
                    28: "buyback", 29: "deferred", 39: "jail39", 40: "jail40", 41: "jail41"}[cid]
            for s in (0, 1):
                if self.bt.owners[s] == p:
                    self._set_card_flag(flag, s)
        elif cid in (67, 68):
            self._set_card_flag("hero67" if cid == 67 else "hero68", subs[0][1])
        elif cid == 7:
            side = next(s for s in (0, 1) if self.bt.owners[s] == p)
            self._set_card_flag("crossbow", side)
            self.bt.crossbow[side] = self._roll_d3()
        elif cid == 5:
            side = subs[0][1]
            self.bt.card_bonus[side] += 2
            self._set_values(side)
        elif cid in (46, 47):
            side, die = subs[0][1], subs[1][1].bit_length() - 1
            dice = self.bt.dice[side]
            dice[die] = max(1, dice[die] - (2 if subs[-1] == subs[1] and len(subs) == 3 else 1))
            self._set_values(side)
        return False

    def _unload_cube(self, oid: int, g: int) -> None:
        self.changed(changes.OBJECTS)
        self.goods[oid][g] -= 1
        self.goods_supply[g] += 1

    def _orphaned_route(self, p: int, route):
        """Verkäufer 30: a route whose vehicle was lost keeps its markers until the end of the round
        (vehicle -1) when the card was played for it this round; otherwise it ends (None)."""
        if route.orphaned == self.round:
            return route
        if self.round_effects.get(_c(30)) == (self.round, p) and route.vehicle >= 0:
            route.vehicle = -1
            route.orphaned = self.round
            return route
        return None

    def _route_vehicle_options(self, p: int) -> list[tuple]:
        """Verkäufer 30: an own trade vehicle of the lost one's kind takes the orphaned route over."""
        route = self.route_of(p)
        if route is None or route.vehicle >= 0:
            return []
        return [(PLAY, (Head.CARD, _c(30)), (Head.OBJECT, s)) for s, oid in self._traders_of(p)
                if self.objs[oid][1] == self.route_vehicle_kind[p] and self.objs[oid][3] >= 0]

    def _seller_moves(self, p: int, moved: tuple) -> list[tuple]:
        """Verkäufer 31: (NODE marker, NODE new place) for each stage marker of p's unfinished route
        not yet moved in this activation. ASSUMPTION: the destination marker stays; a marker keeps
        its side (an established stage stays established, a planned one stays planned); a new place
        is an inhabited region on the route graph of the route's kind, not its start and not already
        holding one of its markers."""
        route = self.route_of(p)
        if route is None:
            return []
        stages = route.stages
        graph = self._route_graph(route.kind)
        free = [n for n in sorted(graph) if graph[n] and n != route.start and n not in stages]
        return [((Head.NODE, a), (Head.NODE, b)) for i, a in enumerate(stages[:-1]) if i not in moved
                for b in free]

    def route_keeps_market_bonus(self, p: int) -> bool:
        """Kameltreiber 64: the route-completing sale also gets the market bonus."""
        return self.round_effects.get(_c(64)) == (self.round, p)

    # ----------------------------------------------------------------- follow-ups ----
    def _follow_up(self) -> bool:
        """Open the CARD_FOLLOW decision; False when there is nothing to choose."""
        opts = self._follow_options()
        if not opts:
            return False
        self.phase = Phase.CARD_FOLLOW
        self.actor = self.card_ctx.player
        self._open_tree(opts)
        return True

    def _follow_options(self) -> list[tuple]:
        ctx = self.card_ctx
        p, cid = ctx.player, ctx.card + 1
        if cid == 13:
            cards = self._lockable_cards(p)
            return [(DONE,)] + [((Head.CARD, c),) for c in cards] if ctx.left > 0 and cards else []
        if cid == 50:
            objs = self._protectable(p)
            return [(DONE,)] + objs if ctx.left > 0 and objs else []
        if cid == 42:
            regions = self._event_area_unprotected()
            return [(DONE,)] + [((Head.NODE, n),) for n in sorted(regions)] if ctx.left > 0 and regions else []
        if cid == 61:
            return [((Head.EVENT, i),) for i in range(len(ctx.events))] if ctx.events is not None else []
        if cid in (16, 17, 18):  # the failed spy: which own unit leaves the battle
            if not ctx.left or self.bt is None:
                return []
            u = self.side_units(ctx.side)
            types = [t for t in range(7) if u[t]]
            if len(types) == 1:
                self.changed(changes.CARD_EFFECTS)
                self._remove_battle_unit(ctx.side, types[0])
                ctx.left = 0
                return []
            return [((Head.UNIT, t),) for t in types]
        if cid == 20:
            sales = self._cheap_sales(p)
            return [(DONE,)] + sales if sales else []
        if cid == 31:
            moves = self._seller_moves(p, ctx.moved)
            return [(DONE,)] + moves if moves else []
        if cid == 25:
            return self._militia_moves(p, ctx.left, ctx.wagon) if self.bt is not None else []
        if cid == 71:
            colours = [k for k in range(NUM_COLOURS) if self.tp[p][k]]
            return [(DONE,)] + [((Head.COLOUR, k),) for k in colours] if colours else []
        if cid == 72:
            size = ability_params()["72"]["set_colours"]
            colours = [k for k in range(NUM_COLOURS) if self.tp[p][k]]
            if len(colours) < size:
                return []
            sets = [()]
            for k in colours:
                sets += [s + (k,) for s in sets if len(s) < size]
            return [(DONE,)] + [tuple((Head.COLOUR, k) for k in s) for s in sets if len(s) == size]
        return []

    def _apply_card_follow(self, opt: tuple) -> None:
        self.changed(changes.CARD_EFFECTS)  # a follow-up decision of the activation in progress (card_ctx, its effects)
        ctx = self.card_ctx
        p, cid = ctx.player, ctx.card + 1
        if cid == 25 and self._militia_apply(p, opt):  # Miliz 25: its own DONE inside a war wagon
            if not self._follow_up():
                self._card_continue(p)
            return
        if opt[0] == DONE:
            self._card_continue(p)
            return
        par = ability_params()
        if cid == 13:
            self.locked_cards.add(opt[0][1])
            ctx.left -= 1
        elif cid == 42:
            self.event_protected.add(opt[0][1])
            ctx.left -= 1
        elif cid == 50:
            self._protect_object(p, opt[0][1])
            ctx.left -= 1
        elif cid == 61:
            self.changed(changes.EVENTS)
            events, ctx.events = ctx.events, None
            self.event_card = events[opt[0][1]]
        elif cid in (16, 17, 18):
            self._remove_battle_unit(ctx.side, opt[0][1])
            ctx.left = 0
            if not self.side_size(0) or not self.side_size(1):
                self.bt.tasks = [(BattleStep.END_ROUND,)]
        elif cid == 31:
            self.changed(changes.ROUTES)
            stages = self.route_of(p).stages
            i = stages.index(opt[0][1])
            stages[i] = opt[1][1]
            ctx.moved += (i,)
        elif cid == 20:
            self._unload_cube(self.slots[p][opt[0][1]], opt[1][1])
            self._bank(p, par["20"]["fl_per_cube"])
        elif cid == 71:
            self.tp[p][opt[0][1]] -= 1
            self._bank(p, par["71"]["fl_per_tp"])
        elif cid == 72:
            for move in opt:
                self.tp[p][move[1]] -= 1
            self._bank(p, par["72"]["fl_per_set"])
        if not self._follow_up():
            self._card_continue(p)


__all__ = ["CardsMixin", "ABILITY_WINDOWS", "CardActivation", "WarlordStep", "ability_params"]
