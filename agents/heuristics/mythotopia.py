"""A rule-based Mythotopia player that reads only its own observation and mask (plus the static map).

Plan: the game ends only when a leader calls it once 4 VP cards are empty, so the agent empties VP
cards itself and keeps the lead: it ends the game whenever it may; ends wars it wins; builds
(castles, roads and cities, paying the Guilded City / Roadside Inns extra); buys Patronage counters;
invades the weakest reachable neutral (or rival) provinces with all the armies it can play and
reinforces attacks it is not yet winning; places ships towards Master of the Sea; drafts useful
improvements; buys armies; and passes otherwise.
"""
from __future__ import annotations

import random

import numpy as np

from envs.mythotopia import SPEC, MythotopiaConfig, MythotopiaEncoder
from envs.mythotopia import layout as M
from envs.mythotopia.data import NUM_PROVINCES, NUM_SEAS, VP_CARD_NAMES, tables
from envs.mythotopia.encoder import CARD_ZONES, NZ
from envs.mythotopia.engine import Phase

from ..base import Agent

DRAFT_PRIORITY = ("Build", "General", "Quarry", "Gold Mine", "Army", "Market", "Levies", "Farming", "Queen",
                  "Warehouse", "Ship", "Militia", "Providence", "Cavalry", "Limes", "Mercenary")
RESERVE_CARDS = ("Quarry", "Gold Mine", "Levies", "Farming", "Queen", "Warehouse", "Cavalry", "Limes")
FREE_ACTIONS = ("MILITIA", "PROVIDENCE", "PHILOSOPHER")


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, num_players: int, seed: int | None = None, **config):
        cfg = MythotopiaConfig(**config)
        self.n = num_players
        self.codec = SPEC.new_codec(cfg, num_players, "flat")  # the heuristic plays flat indices
        self.encoder = MythotopiaEncoder(cfg, num_players)
        self.L = self.encoder.layout
        self.T = tables(cfg.fifth_starting_card)
        self.per_prov = self.encoder.per_prov
        self.card_short = [nm.split("(")[0] for nm in self.T.card_names]
        self._random = random.Random(seed)
        self.vp_index = {nm: i for i, nm in enumerate(VP_CARD_NAMES)}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._random.seed(seed)

    # ------------------------------------------------------------------------ reading ----
    def _read(self, observation):
        raw = self.encoder.unscale(np.asarray(observation))
        L, n = self.L, self.n
        self.raw = raw
        self.phase = int(np.argmax(raw[L["phase"]]))  # a Phase; the last slot: not my decision
        prov = raw[L["provinces"]].reshape(NUM_PROVINCES, self.per_prov)
        self.owner = np.argmax(prov[:, :n + 1], axis=1) - 1  # -1 neutral, else relative seat
        k = n + 5
        self.castle = prov[:, k]
        self.dragon = prov[:, k + 1]
        self.rune = prov[:, k + 2]
        self.settle = np.argmax(prov[:, n + 1:n + 5], axis=1)
        self.armies = prov[:, k + 3:k + 3 + n]
        self.mercs = prov[:, k + 3 + n:k + 3 + 2 * n]
        self.war = prov[:, k + 3 + 2 * n]
        ships = raw[L["ships"]].reshape(NUM_SEAS, n)
        self.ships = ships
        vp = raw[L["vp_cards"]].reshape(len(VP_CARD_NAMES), 5)
        self.vp_in_play = vp[:, 0]
        self.vp_left = vp[:, 2:].sum(axis=1)
        cards = raw[L["cards"]].reshape(-1, NZ + n + 1)
        mine = cards[:, NZ + 1] == 1
        self.hand = set(np.flatnonzero(mine & (cards[:, CARD_ZONES.index("hand")] == 1)).tolist())
        self.reserve = set(np.flatnonzero(mine & (cards[:, CARD_ZONES.index("reserve")] == 1)).tolist())
        self.display = set(np.flatnonzero(cards[:, CARD_ZONES.index("display")] == 1).tolist())
        self.scores = [int(raw[L[f"seat{i}"]][0]) for i in range(n)]

    def vp_open(self, name: str) -> bool:
        k = self.vp_index[name]
        return bool(self.vp_in_play[k]) and self.vp_left[k] > 0

    def strength(self, p: int, q: int) -> int:
        """Rough military strength of relative seat q (-1 neutral) in province p."""
        T = self.T
        if q < 0:
            return T.strength[p] + 4 * int(self.dragon[p])
        ms = int(self.armies[p, q] + self.mercs[p, q])
        ms += sum(int(self.ships[s, q]) for s in T.province_seas[p])
        if self.owner[p] == q:
            ms += 2 * int(self.castle[p]) + int(T.rugged[p])
        return ms

    def winning(self, p: int) -> bool:
        mine = self.strength(p, 0)
        others = [self.strength(p, int(self.owner[p]))] if self.owner[p] != 0 else []
        others += [self.strength(p, q) for q in range(1, self.n) if self.armies[p, q] and q != self.owner[p]]
        return all(mine > o for o in others)

    # ------------------------------------------------------------------------- acting ----
    def act(self, observation, action_mask) -> int:
        self._read(observation)
        legal = [int(i) for i in np.flatnonzero(action_mask)]
        names = {self.codec.action_name(i): i for i in legal}
        choice = self.CHOICES.get(self.phase)
        pick = choice(self, legal, names) if choice else None
        if pick is None or pick not in legal:
            pick = self._fallback(legal, names)
        return pick

    def _fallback(self, legal, names):
        for nm in ("DONE", "PASS", "END_TURN"):
            if nm in names:
                return names[nm]
        return legal[0]

    def _choose(self, legal, names):
        has = lambda v: v in names  # noqa: E731
        if has("END_GAME"):
            return names["END_GAME"]
        if has("END_WAR") and any(self.war[p] and self.winning(p) for p in range(NUM_PROVINCES)):
            return names["END_WAR"]
        for nm in FREE_ACTIONS:
            if has(nm):
                return names[nm]
        if has("END_TURN"):
            return names["END_TURN"]
        if has("BUILD"):
            return names["BUILD"]
        if has("PATRONAGE"):
            return names["PATRONAGE"]
        if has("PLACE_ARMIES") and any(self.armies[p, 0] and self.owner[p] != 0 and not self.winning(p)
                                       for p in range(NUM_PROVINCES)):
            return names["PLACE_ARMIES"]
        me = self.raw[self.L["seat0"]]
        villages, armies, ships_general = me[4], me[9], me[13]
        if has("INVADE") and armies >= 3 and villages > 0:
            return names["INVADE"]
        if has("DRAFT") and any(self.card_short[c] in DRAFT_PRIORITY[:8] for c in self.display):
            return names["DRAFT"]
        if has("RESERVE") and any(self.card_short[c] in RESERVE_CARDS for c in self.hand):
            return names["RESERVE"]
        if has("PLACE_SHIPS") and self.vp_open("Master of the Sea"):
            return names["PLACE_SHIPS"]
        if has("BUY") and (armies < 4 or (self.vp_open("Master of the Sea") and ships_general)):
            return names["BUY"]
        if has("INVADE") and villages > 0:
            return names["INVADE"]
        if has("DISCARD") and self.hand:
            return names["DISCARD"]  # cycle the deck: unplayed cards would stay in hand forever
        return names.get("PASS", legal[0])

    def _discard_cards(self, legal, names):
        for i in legal:
            if M.CARD <= i < M.MODE and i - M.CARD in self.hand:
                return i
        return names.get("DONE", legal[0])

    def _build_type(self, legal, names):
        order = []
        if self.vp_open("Roadside Inns"):
            order.append(2)
        if self.vp_open("Guilded City"):
            order.append(0)
        if self.vp_open("Castle"):
            order.append(1)
        if self.vp_open("Roads"):
            order.append(2)
        if self.vp_open("City"):
            order.append(0)
        order += [1, 2, 0]
        for t in order:
            if M.OPTION + t in legal:
                return M.OPTION + t
        return None

    def _build_extra(self, legal, names):
        return M.OPTION + 1

    def _inv_target(self, legal, names):
        def score(i):
            p = i - M.PROVINCE
            owner = int(self.owner[p])
            s = self.strength(p, owner) - self.strength(p, 0)
            # VP cards that still hold counters make some targets worth more
            if self.rune[p] and self.vp_open("Runestones"):
                s -= 3
            if self.dragon[p] and self.vp_open("Here be Dragons"):
                s -= 5
            if owner > 0:
                s += -2 if self.vp_open("Spoils of War") else 1
                if self.settle[p] == 3 and self.vp_open("Citadel"):
                    s -= 4
            if self.T.island[p] and self.vp_open("Lord of the Isles"):
                s -= 2
            return (s, p)
        return min((i for i in legal if M.PROVINCE <= i < M.SEA), key=score, default=None)

    def _inv_route(self, legal, names):
        return legal[0]

    def _army_cards(self, legal, names):
        cards = [i for i in legal if M.CARD <= i < M.MODE]
        if cards:
            return cards[0]
        if M.MODE_CONVERT in legal:
            return M.MODE_CONVERT
        return names.get("DONE")

    def _place_prov(self, legal, names):
        cands = [i for i in legal if self.owner[i - M.PROVINCE] != 0 and not self.winning(i - M.PROVINCE)]
        return cands[0] if cands else legal[0]

    def _endwar_prov(self, legal, names):
        for i in legal:
            if self.winning(i - M.PROVINCE):
                return i
        return legal[0]

    def _draft_card(self, legal, names):
        best, key = None, None
        for i in legal:
            nm = self.card_short[i - M.CARD]
            rank = DRAFT_PRIORITY.index(nm) if nm in DRAFT_PRIORITY else len(DRAFT_PRIORITY)
            if key is None or rank < key:
                best, key = i, rank
        return best

    def _reserve_cards(self, legal, names):
        for i in legal:
            if M.CARD <= i < M.MODE and self.card_short[i - M.CARD] in RESERVE_CARDS:
                return i
        return names.get("DONE", legal[0])

    def _buy_armies(self, legal, names):
        return max(i for i in legal if M.NUMBER <= i < M.PLAYER)

    def _buy_ships(self, legal, names):
        if self.vp_open("Master of the Sea"):
            return max(i for i in legal if M.NUMBER <= i < M.PLAYER)
        return min(i for i in legal if M.NUMBER <= i < M.PLAYER)

    def _ship_cards(self, legal, names):
        cards = [i for i in legal if M.CARD <= i < M.MODE]
        return cards[0] if cards else names.get("DONE")

    def _ship_sea(self, legal, names):
        empty = [i for i in legal if self.ships[i - M.SEA, 0] == 0]
        return empty[0] if empty else legal[0]

    def _pay(self, legal, names):
        cards = [i for i in legal if M.CARD <= i < M.MODE]
        # pay with the card least useful otherwise: province cards of sites, then others
        return cards[-1] if cards else legal[0]

    def _alch_opt(self, legal, names):
        return legal[-1]

    def _setup_citadel(self, legal, names):
        return max(legal, key=lambda i: (self.T.rugged[i - M.PROVINCE], -i))

    def _setup_discard(self, legal, names):
        return max(legal, key=lambda i: (-self.T.strength[i - M.PROVINCE], i))

    def _scribe_source(self, legal, names):
        # from the VP card (OPTION 0): emptied cards bring the end of the game, which this agent
        # calls as soon as it may; the spare stock would keep the card open for the others
        return names.get("OPTION(0)", legal[0])

    # the decision states with a rule of this agent's own; every other one takes _fallback
    CHOICES = {
        Phase.CHOOSE: _choose,
        Phase.DISCARD_CARDS: _discard_cards,
        Phase.BUILD_TYPE: _build_type,
        Phase.BUILD_EXTRA: _build_extra,
        Phase.INV_TARGET: _inv_target,
        Phase.INV_ROUTE: _inv_route,
        Phase.ARMY_CARDS: _army_cards,
        Phase.PLACE_PROV: _place_prov,
        Phase.ENDWAR_PROV: _endwar_prov,
        Phase.DRAFT_CARD: _draft_card,
        Phase.RESERVE_CARDS: _reserve_cards,
        Phase.BUY_ARMIES: _buy_armies,
        Phase.BUY_SHIPS: _buy_ships,
        Phase.SHIP_CARDS: _ship_cards,
        Phase.SHIP_SEA: _ship_sea,
        Phase.PAY: _pay,
        Phase.ALCH_OPT: _alch_opt,
        Phase.SETUP_CITADEL: _setup_citadel,
        Phase.SETUP_DISCARD: _setup_discard,
        Phase.SCRIBE_SOURCE: _scribe_source,
    }
