"""Diplomacy (spec 5.19, 10.5; G24, G35, G46, G50, G71) and the team game (variant 8.4).

Negotiation is a typed-offer protocol (spec 10.5). Diplomacy windows open at the start of the
purchase phase and of the war phase: every seat in turn order that can offer something gets one
diplomacy turn (``diplomacy_offers`` offers, default 1; DONE ends it). An offer is built as
sub-decisions: ``PLAYER(+k)`` (the addressee, relative seat) -> ``TREATY(kind)`` -> for a state
treaty ``DURATION(term)``, before which ``PLAYER(+k)`` adds a further party (while a seat can join) ->
for a trade treaty ``CTRL(SALE_FEE)`` or ``CTRL(DONE)`` -> a one-off payment
``CTRL(DONE)`` (none), ``CTRL(PAY)`` (the proposer pays each addressee) or ``CTRL(DEMAND)`` (each
addressee pays), then ``COIN`` by ``COIN`` and ``CTRL(DONE)`` -> for a state treaty ``CTRL(SECRET)`` or
``CTRL(DONE)`` (public). The addressees answer at once, in the order chosen, with ``CTRL(ACCEPT)``
(only if it can pay a demanded sum) or ``CTRL(REJECT)``; one rejection ends the offer; payments are
transferred when the last one accepted.

* Treaties of several parties (rulebook C: "Staatsvertrag: Ein formaler Vertrag zwischen 2 oder mehr
  Spielern"; "Nichtangriffspakt: 2 oder mehr Spieler"): a state treaty binds every pair of its parties
  as a treaty between the two would; it ends for all of them at the end of its term, when one party
  breaches it ("Der Vertrag endet dann sofort", the breaker loses 2 EP once), or early when all its
  parties agree (an offer to end it goes to every other party). Ceasefire, peace, payments and prisoner
  release stay between two seats ("gegenseitige Übereinkunft ... zwischen den Partnern").

* Declaration of war (unilateral, no answer): war from the next round; it breaks every treaty
  between the two seats, -2 EP per treaty for the declarer. Attacking before that is an undeclared
  act of war (G50: -3 EP, ``movement._act_of_war``), and any act of war also breaks every treaty
  with the victim (-2 EP each, ASSUMPTION: a war cannot coexist with treaties).
* Ceasefire (while at war or with a declaration pending): no attacks between the two until the end
  of the round (the mask forbids them). Peace ends the war state and pending declarations.
* State treaties (mutual, ASSUMPTION: both parties get the right; only when not at war and no
  declaration is pending; at most one of each kind per pair): trade (trade in the partner's regions,
  optionally 50 fl per sale action to the host, as in the source's example), right of way (armies,
  military transports and siege engines move through the partner's regions as normal moves, G35),
  stationing (buy units, war wagons, galleys and siege engines in the partner's regions), free trade
  (buy caravans and merchant ships there), non-aggression. ASSUMPTION: stationed armies may also move
  through the partner's regions like right of way (otherwise they could only stand still or attack).
  The term is 1-5 rounds (the current round counts as the first) or until the game ends; a treaty
  may be secret (only its parties see it).
* Ending a state treaty early by agreement (spec 5.19 "at any time if all parties agree"): ``TREATY(k)``
  of a kind already in force between the two is an offer to end it (to every other party of it); then
  the payment steps, no term, fee or secrecy. On acceptance it ends like a treaty whose term is over
  (no breach).
* Payment only; prisoner release (all prisoners the two hold of each other go home).
* DW-BATTLE (spec 10.5): between the rounds of a battle of two players at war, each party in turn
  order may offer the other a ceasefire (with the payment steps). It stops the battle; on land the
  attacker's army leaves as in a retreat, at sea both fleets stay (ASSUMPTIONS, ``battle_diplomacy``).
* Breaches are detected automatically (G71, no votes): the only breaches the engine lets happen are
  attacking a treaty partner and declaring war on one; each broken treaty costs the breaker 2 EP.
  Fees and payments are paid automatically, so they cannot be broken.
* Control (G24): a treaty guest's army (right of way or stationing) leaves the region's control
  with its host. Guests leave (their units there go back to the supply, ASSUMPTION) when the treaty
  that allowed them ends. Barbarians arriving there fight the host and its guests one after another
  (``combat._barbarians_attack``); an army entering fights every army it may not pass (spec 5.15).
* Not built: defence and attack pacts with lent units (G71; the TREATY head reserves their slots).

Team game (variant 8.4, option ``teams``): the team score is the sum of its members' EP and every
member gets the team's placement (``team_placement``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import permutations

from ..core.errors import ConfigError
from .constants import COINS, NUM_UNIT_TYPES, Ctrl, DiplomacyWindow, Head, Phase, coin_moves
from . import changes
from .combat import BattleStep

NT = NUM_UNIT_TYPES
DONE = (Head.CTRL, Ctrl.DONE)
MAX_OPPONENTS = 5  # PLAYER head: +1 .. +5, the same size for every player count
MAX_TERM = 5  # DURATION head: 1 .. 5 rounds, then "until the game ends"
UNTIL_END = MAX_TERM  # the DURATION index meaning "until the game ends"
SALE_FEE_FL = 50  # [SRC] treaty example: 50 fl per sale action to the host
DEMAND_CEILING = 10_000  # fl: the largest one-off sum a proposer may ask for (the addressee's cash is hidden)
BREACH_EP = -2



def team_of_seats(teams, num_players: int) -> list[int] | None:
    """Variant 8.4 (team game): the team index of every seat, or None without teams. ``teams`` is the option:
    None, "pairs" (seats 0+1, 2+3, ...) or teams of seats that split the seats exactly once (ConfigError if not)."""
    n = num_players
    if teams is None:
        return None
    if teams == "pairs":
        if n % 2:
            raise ConfigError(f"teams='pairs' needs an even number of players, got {n}")
        teams = [(i, i + 1) for i in range(0, n, 2)]
    seats = sorted(s for team in teams for s in team)
    if seats != list(range(n)):
        raise ConfigError(f"teams must split the seats 0..{n - 1} exactly once, got {teams!r}")
    team_of = [0] * n
    for k, team in enumerate(teams):
        for s in team:
            team_of[s] = k
    return team_of

class Treaty:
    DECLARE_WAR = 0
    CEASEFIRE = 1
    PEACE = 2
    TRADE = 3
    RIGHT_OF_WAY = 4
    STATIONING = 5
    FREE_TRADE = 6
    NON_AGGRESSION = 7
    DEFENCE_PACT = 8  # reserved: not built (G71)
    ATTACK_PACT = 9  # reserved: not built (G71)
    PAYMENT = 10
    PRISONER_RELEASE = 11


TREATY_NAMES = ("declare_war", "ceasefire", "peace", "trade", "right_of_way", "stationing", "free_trade",
                "non_aggression", "defence_pact", "attack_pact", "payment", "prisoner_release")
STATE_TREATIES = (Treaty.TRADE, Treaty.RIGHT_OF_WAY, Treaty.STATIONING, Treaty.FREE_TRADE, Treaty.NON_AGGRESSION)
GUEST_TREATIES = (Treaty.RIGHT_OF_WAY, Treaty.STATIONING)  # treaties that let an army stand in the partner's region


class OfferStep:
    """The sub-decision of an offer in progress (``Offer.step``), in the order the module docstring gives."""
    KIND = 0  # TREATY(kind)
    TERM = 1  # a state treaty: DURATION(term), or PLAYER(+k) for one more party first
    FEE = 2  # a trade treaty: CTRL(SALE_FEE) or CTRL(DONE)
    PAYMENT = 3  # CTRL(DONE) (none), CTRL(PAY) or CTRL(DEMAND)
    AMOUNT = 4  # COIN by COIN, then CTRL(DONE)
    SECRET = 5  # a state treaty: CTRL(SECRET) or CTRL(DONE) (public)
    ANSWER = 6  # sent: the addressees answer (Phase.OFFER_ANSWER)


@dataclass(slots=True)
class Offer:
    """The offer being drafted or answered (``engine.offer``, spec 10.5)."""
    proposer: int
    addressee: int  # the first addressee (the PLAYER chosen first)
    also: list[int] = field(default_factory=list)  # further addressees: the other parties of a treaty of several
    kind: int = -1  # Treaty; -1 while to be chosen
    term: int = -1  # a state treaty's DURATION index (UNTIL_END: until the game ends); -1: none
    fee: int = 0  # a trade treaty's fee per sale action (SALE_FEE_FL or 0)
    payer: int = -1  # the one-off payment: the proposer (to each addressee) or the first addressee (each addressee
    # pays the proposer); -1: none
    amount: int = 0  # fl of the one-off payment, to or from each addressee
    secret: bool = False
    step: int = OfferStep.KIND
    ending: bool = False  # an offer to end a state treaty in force early, by agreement of all its parties
    waiting: list[int] = field(default_factory=list)  # once sent: the addressees still to answer, in order


@dataclass(slots=True)
class StateTreaty:
    """A state treaty in force (``engine.treaties``; rulebook C: "Staatsvertrag: Ein formaler Vertrag zwischen 2
    oder mehr Spielern"): it binds every pair of its parties."""
    kind: int  # Treaty: one of STATE_TREATIES
    parties: tuple[int, ...]  # the proposer, then the addressees
    until: int  # the last round of its term; 0: until the game ends
    secret: bool  # seen by its parties only (spec 7.1)
    fee: int  # a trade treaty's fee per sale action, paid to the host (SALE_FEE_FL or 0)


class DiplomacyMixin:
    # ------------------------------------------------------------------------ state ----
    def _init_diplomacy(self) -> None:
        n = self.num_players
        self.treaties: list[StateTreaty] = []
        self.treaty_kinds: dict[tuple[int, int], set] = {}  # (a, b) and (b, a) -> kinds in force (index)
        self.guest_treaties = False  # a right-of-way or stationing treaty is in force (control needs treaties)
        self.war_declared = [[0] * n for _ in range(n)]  # round of p's declaration on q, 0 = none
        self.ceasefires: set = set()  # (a, b) with a < b: no fighting until the end of the round
        self.offer: Offer | None = None  # the offer being drafted or answered
        self.dip_queue: list[int] = []
        self.dip_window = DiplomacyWindow.NONE  # the window open, if any
        self.dip_done: tuple = ()  # (round, window) of the last window opened
        self.offers_left = 0
        self.team_of = team_of_seats(self.config.teams, n)

    # ----------------------------------------------------------------- queries ----
    def has_treaty(self, p: int, q: int, kind: int) -> bool:
        kinds = self.treaty_kinds.get((p, q))
        return kinds is not None and kind in kinds

    def allied(self, p: int, q: int) -> bool:
        """G46: any state treaty in force between p and q."""
        return bool(self.treaty_kinds.get((p, q)))

    def may_pass(self, p: int, q: int) -> bool:
        """Right of way (or stationing) between p and q: entering q's regions and q's armies is a
        normal move (G35), never an attack."""
        return q >= 0 and self._guest_allowed(p, q)

    def in_ceasefire(self, p: int, q: int) -> bool:
        ceasefires = self.ceasefires  # usually empty: the observation asks for every pair of seats
        return bool(ceasefires) and q >= 0 and ((p, q) if p < q else (q, p)) in ceasefires

    def peaceful(self, p: int, q: int) -> bool:
        """Galleys of q are no threat to p at sea: a treaty or a ceasefire between them."""
        return self.allied(p, q) or self.in_ceasefire(p, q)

    def _guest_allowed(self, guest: int, host: int) -> bool:
        kinds = self.treaty_kinds.get((guest, host))
        return kinds is not None and (Treaty.RIGHT_OF_WAY in kinds or Treaty.STATIONING in kinds)

    def _treaty_controller(self, node: int) -> int:
        """Spec 5.2 with treaty guests (G24): the host keeps control while its guests stand there.
        Called by ``controller`` only while some guest treaty is in force."""
        present = [p for p in range(self.num_players) if self.army[p][node]]
        m = self.marker[node]
        base = m if m >= 0 else self.home_owner[node]
        if not present:
            return base
        hosts = ([base] if base >= 0 else []) + [p for p in present if p != base]
        for h in hosts:
            if all(p == h or self._guest_allowed(p, h) for p in present):
                return h
        return -1  # two players' armies without a treaty between them: contested

    def hostile_sides(self, node: int) -> int:
        """Parties in a land region that would fight each other (treaty guests side with their host)."""
        c = self.controller(node)
        sides = set()
        for p in range(self.num_players):
            if self.army[p][node]:
                sides.add(c if c >= 0 and (p == c or self._guest_allowed(p, c)) else p)
        return len(sides) + (1 if self.barb_total[node] else 0)

    def _may_place(self, p: int, node: int, kind: int) -> bool:
        """Purchases are placed in own regions, or in a partner's with a stationing / free-trade treaty
        where no other guest's army stands that p may not pass (it would face p outside a battle)."""
        c = self.controller(node)
        return c == p or (c >= 0 and self.has_treaty(p, c, kind) and not self._opposing_army(p, node))

    def _placement_regions(self, p: int, kind: int) -> list[int]:
        """The land regions where ``_may_place(p, region, kind)`` holds, in node order. Without such a
        partner this is p's shared list of ``_seat_regions``: callers must not change it."""
        regions = self._seat_regions()
        # the treaty index holds only the pairs with a treaty: usually none, so no test per seat
        partners = [q for (a, q), kinds in self.treaty_kinds.items() if a == p != q and kind in kinds]
        if not partners:
            return regions[p]
        # ``_opposing_army(p, n)`` with the seats p may not pass found once
        army, barb = self.army, self.barb_total
        foes = [army[q] for q in range(self.num_players) if q != p and not self.may_pass(p, q)]
        return sorted(regions[p] + [n for q in partners for n in regions[q]
                                    if not barb[n] and not any(a[n] for a in foes)])

    def _armed_entry_ok(self, p: int, y: int) -> bool:
        """Whether an army of p may enter land region y: battles against every army there that is not a
        right-of-way partner's (spec 5.15: one after another, movement.py), a takeover, or a normal move
        through a right-of-way partner's region; never an attack on a ceasefire partner, nor an entry
        that would leave p's army beside one (ASSUMPTION: "allenfalls durch Staatsverträge gebunden"), nor a
        battle against a guest army in the region of a ceasefire partner (the conquest would take it from
        that partner, ``region_conquered`` in movement.py)."""
        if self.barb_total[y]:
            return True
        others = [q for q in range(self.num_players) if q != p and self.army[q][y]]
        foes = [q for q in others if not self.may_pass(p, q)]
        c = self.controller(y)
        if foes:
            attacked = foes if c < 0 or self.may_pass(p, c) else foes + [c]  # c: see the docstring
            return not any(self.in_ceasefire(p, q) for q in attacked)
        if c < 0 or c == p or self.may_pass(p, c):
            return True
        return not others and not self.in_ceasefire(p, c)  # a takeover attacks c

    def _blocking_army(self, p: int, node: int) -> bool:
        """G46: an army a trade vehicle of p cannot enter or trade beside (not own, not an ally's)."""
        if self.barb_total[node]:
            return True
        army = self.army
        return any(army[q][node] and q != p and not self.allied(p, q) for q in range(self.num_players))

    # ------------------------------------------------------------- treaty changes ----
    def _refresh_treaty_index(self) -> None:
        index: dict[tuple[int, int], set] = {}
        guests = False
        for t in self.treaties:
            for a, b in permutations(t.parties, 2):  # a treaty of several parties binds every pair of them
                index.setdefault((a, b), set()).add(t.kind)
            guests = guests or t.kind in GUEST_TREATIES
        self.treaty_kinds = index
        self.guest_treaties = guests
        # guests leave control with their host (G24): only a region with an army can change hands
        for node, armies in enumerate(zip(*self.army)):
            if any(armies):
                self._forget_control(node)

    def _end_treaties(self, ended: list[StateTreaty], breaker: int = -1) -> None:
        """Treaties end (term over, breach, war). The breaker loses 2 EP per treaty; guests whose
        presence an ended treaty allowed leave the host's regions."""
        if not ended:
            return
        self.changed(changes.DIPLOMACY)
        guests = []
        for t in ended:
            if t.kind in GUEST_TREATIES:
                for g, h in permutations(t.parties, 2):
                    guests += [(g, h, node) for node in self.land_nodes
                               if self.army[g][node] and self.controller(node) == h]
        for t in ended:
            self.treaties.remove(t)
            if breaker >= 0:
                self._gain_ep(breaker, BREACH_EP, "treaty_breach")
        self._refresh_treaty_index()
        for g, h, node in guests:
            if self.army[g][node] and not self._guest_allowed(g, h):
                self._withdraw_army(g, node)

    def _break_all_treaties(self, p: int, q: int) -> None:
        """War between p and q: every treaty between them is broken by p (spec 5.19); a treaty of more parties
        ends for all of them ("Der Vertrag endet dann sofort")."""
        self._end_treaties([t for t in self.treaties if p in t.parties and q in t.parties], breaker=p)

    def _withdraw_army(self, p: int, node: int) -> None:
        """The army goes back to its owner's supply (spec 5.17 removal)."""
        for t in range(NT):
            k = self.units[p][node * NT + t]
            if k:
                self._add_units(p, node, t, -k)
                self.unit_supply[p][min(t, 4)] += k

    def _charge_sale_fee(self, p: int, node: int) -> None:
        """[SRC] example: a trade treaty may cost 50 fl per sale action, paid to the host."""
        host = self.controller(node)
        if host < 0 or host == p:
            return
        for t in self.treaties:
            if t.kind == Treaty.TRADE and t.fee and p in t.parties and host in t.parties:
                self._transfer(p, host, min(t.fee, self.money[p]))
                return

    def _war_breaks_treaties(self, p: int, q: int) -> None:
        """Hook of ``_act_of_war``: the attacker breaks every treaty with the victim."""
        self.changed(changes.DIPLOMACY)
        self.war_declared[p][q] = self.war_declared[q][p] = 0
        self._break_all_treaties(p, q)

    def _diplomacy_end_round(self) -> None:
        """Spec 5.19: ceasefires end; declarations take effect; treaties whose term is over end, and so do
        those of an eliminated seat, unless two of their parties are still in the game."""
        self.changed(changes.DIPLOMACY)
        self.ceasefires = set()
        n = self.num_players
        for p in range(n):
            for q in range(n):
                if self.war_declared[p][q]:
                    self.changed(changes.WAR)
                    self.war_declared[p][q] = 0
                    self.at_war[p][q] = self.at_war[q][p] = True
        over = [t for t in self.treaties if (t.until and t.until <= self.round)
                or sum(not self.eliminated[s] for s in t.parties) < 2]
        self._end_treaties(over)
        left = [i for i, t in enumerate(self.treaties) if any(self.eliminated[s] for s in t.parties)]
        for i in left:  # a treaty of several parties goes on between those still in the game
            t = self.treaties[i]
            self.treaties[i] = replace(t, parties=tuple(s for s in t.parties if not self.eliminated[s]))
        if left:
            self._refresh_treaty_index()

    # -------------------------------------------------------------------- windows ----
    def _diplomacy_window(self, window: int) -> bool:
        """Open the window once per round and phase; True while it holds a decision."""
        if not self.config.diplomacy_offers or self.dip_done == (self.round, window):
            return False
        self.dip_done = (self.round, window)
        self.dip_window = window
        self.dip_queue = [p for p in self.order if not self.eliminated[p]]
        return self._next_diplomat()

    def _next_diplomat(self) -> bool:
        while self.dip_queue:
            p = self.dip_queue.pop(0)
            if self._offer_partners(p):
                self.actor = p
                self.phase = Phase.DIPLOMACY
                self.offers_left = self.config.diplomacy_offers
                return True
        return False

    def _close_diplomacy_turn(self) -> None:
        self.turn += 1
        if self._next_diplomat():
            return
        window, self.dip_window = self.dip_window, DiplomacyWindow.NONE
        if window == DiplomacyWindow.BATTLE:
            self._battle_run()  # its END_ROUND sees whether a ceasefire stopped the battle
        elif window == DiplomacyWindow.PURCHASES:
            self._start_purchases()
        else:
            self._start_war()

    def _offer_partners(self, p: int) -> list[int]:
        if self.dip_window == DiplomacyWindow.BATTLE:  # DW-BATTLE: only the other party, when a ceasefire is possible
            return [q for q in range(self.num_players) if q != p and self._offer_kinds(p, q)]
        # otherwise ``_offer_kinds`` holds PAYMENT for every seat still in the game and nothing for another
        return [q for q in range(self.num_players) if q != p and not self.eliminated[q]]

    def _offer_kinds(self, p: int, q: int) -> list[int]:
        if self.eliminated[q]:
            return []
        if self.dip_window == DiplomacyWindow.BATTLE:  # DW-BATTLE: only a ceasefire, only with the other party
            return [Treaty.CEASEFIRE] if q in self.bt.owners and self._battle_ceasefire_possible() else []
        war = self.at_war[p][q]
        declared = self.war_declared[p][q] or self.war_declared[q][p]
        kinds = []
        if not war and not declared:
            kinds.append(Treaty.DECLARE_WAR)
            kinds += list(STATE_TREATIES)  # a kind in force: an offer to end it early by agreement
        else:
            if not self.in_ceasefire(p, q):
                kinds.append(Treaty.CEASEFIRE)
            kinds.append(Treaty.PEACE)
        kinds.append(Treaty.PAYMENT)
        if any(self.prisoners[p][q]) or any(self.prisoners[q][p]):
            kinds.append(Treaty.PRISONER_RELEASE)
        return sorted(kinds)

    # ------------------------------------------------------------- DW-BATTLE ----
    def battle_diplomacy(self) -> bool:
        """Spec 10.5 DW-BATTLE, between two battle rounds of a battle of two players: each party in turn
        order may offer the other a ceasefire (capitulation is the attacker's AFTER_ROUND choice). A
        ceasefire ends the fighting (spec 5.19: "Beendet alle Kämpfe zwischen den Partnern bis zum Ende
        der Spielrunde"). On land (ASSUMPTION) the attacker's army then leaves the region as in a retreat
        (``RETREAT_TO`` a G76 destination, war wagons along, spec 5.14 follow-up), so no two hostile armies
        stay in one region; the ceasefire is offered only when such a destination exists. At sea
        (ASSUMPTION; the rulebook has no retreat at sea) the battle just ends: the crews go back aboard, a
        galley that lost all its units rolls to sink (SEEKRIEG), and both fleets stay in the sea zone as
        ceasefire partners' galleys may (``peaceful``); the attacker's movement ends there, or a multi-party
        war goes on with its next opponent (spec 5.15). True when the run stops here: a decision is
        pending or the battle is over."""
        bt = self.bt
        att, dfn = bt.owners
        if self.in_ceasefire(att, dfn) and att >= 0:  # agreed in this window
            if bt.naval:
                bt.tasks = []
                self._end_battle()
                return True
            if self.retreat_destinations():
                self._decide(0, Phase.RETREAT_TO)  # the attacker withdraws
                return True
        if bt.dip_round == bt.round or not self._battle_ceasefire_possible():
            return False
        bt.dip_round = bt.round
        self._push((BattleStep.END_ROUND,))  # run again when the window closes
        self.dip_window = DiplomacyWindow.BATTLE
        self.dip_queue = [p for p in self.order if p in (att, dfn)]
        self._next_diplomat()  # the first party can offer the ceasefire just found possible
        return True

    def _battle_ceasefire_possible(self) -> bool:
        bt = self.bt
        att, dfn = bt.owners
        if not self.config.diplomacy_offers or att < 0 or dfn < 0 or self.in_ceasefire(att, dfn):
            return False
        at_war = self.at_war[att][dfn] or self.war_declared[att][dfn] or self.war_declared[dfn][att]
        return bool(at_war) and (bt.naval or bool(self.retreat_destinations()))

    # --------------------------------------------------------------------- moves ----
    def diplomacy_moves(self) -> list[tuple[int, int]]:
        p = self.actor
        n = self.num_players
        if self.phase == Phase.DIPLOMACY:
            return [DONE] + [(Head.PLAYER, (q - p) % n - 1) for q in sorted(self._offer_partners(p),
                                                                            key=lambda q: (q - p) % n)]
        o = self.offer
        if self.phase == Phase.OFFER_ANSWER:
            if o.amount and o.payer != o.proposer and self.money[p] < o.amount:
                return [(Head.CTRL, Ctrl.REJECT)]
            return [(Head.CTRL, Ctrl.ACCEPT), (Head.CTRL, Ctrl.REJECT)]
        step = o.step
        if step == OfferStep.KIND:
            return [(Head.TREATY, k) for k in self._offer_kinds(p, o.addressee)]
        if step == OfferStep.TERM:  # or one more party first (a treaty of several parties)
            return [(Head.DURATION, d) for d in range(MAX_TERM + 1)] + [
                (Head.PLAYER, (q - p) % n - 1) for q in sorted(self._joinable(o), key=lambda q: (q - p) % n)]
        if step == OfferStep.FEE:
            return [DONE, (Head.CTRL, Ctrl.SALE_FEE)]
        if step == OfferStep.PAYMENT:
            moves = [] if o.kind == Treaty.PAYMENT else [DONE]
            if self.money[p] >= 1 + len(o.also):  # at least 1 fl to each addressee
                moves.append((Head.CTRL, Ctrl.PAY))
            return moves + [(Head.CTRL, Ctrl.DEMAND)]
        if step == OfferStep.AMOUNT:
            limit = self.money[p] // (1 + len(o.also)) if o.payer == p else DEMAND_CEILING  # to each addressee
            moves = [DONE] if o.amount else []
            return moves + coin_moves(o.amount, limit)
        return [DONE, (Head.CTRL, Ctrl.SECRET)]  # OfferStep.SECRET

    def _apply_diplomacy(self, move: tuple[int, int]) -> None:
        head, arg = move
        p = self.actor
        if self.phase == Phase.DIPLOMACY:
            if head == Head.CTRL:
                self._close_diplomacy_turn()
                return
            q = (p + arg + 1) % self.num_players
            self.offer = Offer(p, q)
            self.phase = Phase.OFFER
            return
        o = self.offer
        if self.phase == Phase.OFFER_ANSWER:
            if arg == Ctrl.ACCEPT:
                o.waiting.pop(0)
                if o.waiting:  # a treaty of several parties: every addressee must agree
                    self.actor = o.waiting[0]
                    return
                self._conclude(o)
            self._after_offer()
            return
        step = o.step
        if step == OfferStep.KIND:
            o.kind = arg
            if arg == Treaty.DECLARE_WAR:
                self._declare_war(p, o.addressee)
                self._after_offer()
                return
            o.ending = arg in STATE_TREATIES and self.has_treaty(p, o.addressee, arg)
            if o.ending:  # "falls alle beteiligten Spieler dem zustimmen": every party of that treaty
                parties = self._treaty_of(arg, p, o.addressee).parties
                o.also = [r for r in parties if r not in (p, o.addressee) and not self.eliminated[r]]
            o.step = OfferStep.TERM if arg in STATE_TREATIES and not o.ending else OfferStep.PAYMENT
        elif step == OfferStep.TERM and head == Head.PLAYER:
            o.also.append((p + arg + 1) % self.num_players)
        elif step == OfferStep.TERM:
            o.term = arg
            o.step = OfferStep.FEE if o.kind == Treaty.TRADE else OfferStep.PAYMENT
        elif step == OfferStep.FEE:
            o.fee = SALE_FEE_FL if arg == Ctrl.SALE_FEE else 0
            o.step = OfferStep.PAYMENT
        elif step == OfferStep.PAYMENT:
            if head == Head.CTRL and arg in (Ctrl.PAY, Ctrl.DEMAND):
                o.payer = p if arg == Ctrl.PAY else o.addressee
                o.step = OfferStep.AMOUNT
            else:
                self._offer_drafted(o)
        elif step == OfferStep.AMOUNT:
            if head == Head.COIN:
                o.amount += COINS[arg]
            else:
                self._offer_drafted(o)
        else:  # OfferStep.SECRET
            o.secret = arg == Ctrl.SECRET
            self._send_offer(o)

    def _offer_drafted(self, o: Offer) -> None:
        if o.kind in STATE_TREATIES and not o.ending:
            o.step = OfferStep.SECRET
        else:
            self._send_offer(o)

    def _send_offer(self, o: Offer) -> None:
        o.step = OfferStep.ANSWER
        o.waiting = [o.addressee] + o.also  # they answer in this order
        self.actor = o.addressee
        self.phase = Phase.OFFER_ANSWER

    def _joinable(self, o: Offer) -> list[int]:
        """Seats that may join the state treaty being drafted as further parties (rulebook: "Ein formaler
        Vertrag zwischen 2 oder mehr Spielern"): in the game, at peace with every party so far (no war, no
        declaration pending), and without a treaty of that kind with any of them (one of each kind per pair)."""
        parties = [o.proposer, o.addressee] + o.also
        kind = o.kind
        return [r for r in range(self.num_players) if r not in parties and not self.eliminated[r] and not any(
            self.at_war[x][r] or self.war_declared[x][r] or self.war_declared[r][x] or self.has_treaty(x, r, kind)
            for x in parties)]

    def _treaty_of(self, kind: int, p: int, q: int) -> StateTreaty:
        return next(t for t in self.treaties if t.kind == kind and p in t.parties and q in t.parties)

    def _after_offer(self) -> None:
        p = self.offer.proposer
        self.offer = None
        self.actor = p
        self.offers_left -= 1
        if self.offers_left > 0 and self._offer_partners(p):
            self.phase = Phase.DIPLOMACY
            return
        self._close_diplomacy_turn()

    def _declare_war(self, p: int, q: int) -> None:
        """Spec 5.19: war from the next round; every treaty between them is broken by p."""
        self.changed(changes.DIPLOMACY)
        self.war_declared[p][q] = self.round
        self._break_all_treaties(p, q)

    def _conclude(self, o: Offer) -> None:
        p, q, kind = o.proposer, o.addressee, o.kind
        if o.amount:  # the proposer pays each addressee, or each addressee pays the proposer
            for r in [q] + o.also:
                if o.payer == p:
                    self._transfer(p, r, o.amount)
                else:
                    self._transfer(r, p, o.amount)
        if kind == Treaty.CEASEFIRE:
            self.changed(changes.DIPLOMACY)
            self.ceasefires.add((min(p, q), max(p, q)))
        elif kind == Treaty.PEACE:
            self.changed(changes.WAR | changes.DIPLOMACY)
            self.at_war[p][q] = self.at_war[q][p] = False
            self.war_declared[p][q] = self.war_declared[q][p] = 0
        elif kind == Treaty.PRISONER_RELEASE:
            for captor, owner in ((p, q), (q, p)):
                for t in range(NT):
                    k = self.prisoners[captor][owner][t]
                    if k:
                        self.prisoners[captor][owner][t] = 0
                        self.unit_supply[owner][min(t, 4)] += k
        elif o.ending:  # all parties agree: it ends like a treaty whose term is over
            self._end_treaties([self._treaty_of(kind, p, q)])
        elif kind in STATE_TREATIES:
            self.changed(changes.DIPLOMACY)
            until = 0 if o.term == UNTIL_END else self.round + o.term  # term index 0 = 1 round
            self.treaties.append(StateTreaty(kind, (p, q, *o.also), until, o.secret, o.fee))
            self._refresh_treaty_index()

    # ------------------------------------------------------------------ team game ----
    def team_placement(self) -> list[float]:
        """Variant 8.4: team score = the sum of its members' EP; ties: the team's net money, then its
        best turn-order position. Every member gets the team's value."""
        n = self.num_players
        ep: dict[int, int] = {}
        money: dict[int, int] = {}
        pos: dict[int, int] = {}
        for p in range(n):
            k = self.team_of[p]
            ep[k] = ep.get(k, 0) + self.ep[p]
            money[k] = money.get(k, 0) + self.net_money(p)
            pos[k] = min(pos.get(k, n), self.position[p])
        return [ep[k] * 1e8 + (money[k] + 1e6) * 10 + (n - pos[k]) for k in (self.team_of[p] for p in range(n))]


__all__ = ["DiplomacyMixin", "MAX_OPPONENTS", "MAX_TERM", "Offer", "OfferStep", "StateTreaty", "TREATY_NAMES", "Treaty"]
