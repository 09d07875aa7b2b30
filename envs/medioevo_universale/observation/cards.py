"""Observation fields of the empire cards (their rules: ``../cards.py``): the effects in force, the open card
window, the cards' movement and vehicle properties (all public), and the event cards Weiser 61 drew (its chooser
only)."""
from __future__ import annotations

from ...core.encoder import Field
from ..cards import JEDERZEIT_WINDOWS, W_TRADE_TURN, Resume, _c, ability_params
from ..constants import NUM_SLOTS, Phase, Stage


SYMBOLS = ("movement", "units", "buildings", "goods")


def card_choice_sources(e, seat: int):
    """What ``encode_card_choice`` shows ``seat`` (None: nothing); the encoder rewrites the field when it changed."""
    ctx = e.card_ctx
    if ctx is None or e.phase != Phase.CARD_FOLLOW or e.actor != seat:
        return None
    return ctx.events


def encode_card_choice(e, seat: int, v) -> None:
    """The observation's ``my_card_choice`` field: the event cards Weiser 61 drew (chooser only)."""
    ctx = e.card_ctx
    if ctx is None or e.phase != Phase.CARD_FOLLOW or e.actor != seat or ctx.events is None:
        return
    nn = e.board.num_nodes
    for i, ev_id in enumerate(ctx.events):
        ev = e.data.events[ev_id]
        base = i * (12 + nn)
        for j, sym in enumerate(ev.symbols):
            v[base + 4 * j + SYMBOLS.index(sym)] = 1
        for n in ev.regions | ev.seas:
            v[base + 12 + n] = 1


def card_effects_sources(e, seat: int) -> tuple:
    """Everything ``encode_card_effects`` reads for ``seat``: the encoder rewrites the field only when it changed."""
    cw = e.cw
    follow = e.card_ctx if e.phase == Phase.CARD_FOLLOW else None
    return (e.round, e.card_bans, e.event_protected if e.stage == Stage.EVENTS else None, e.locked_cards, follow,
            e.card_money.get(_c(36), 0), e.round_effects.get(_c(37)), e.round_effects.get(_c(38)),
            None if cw is None else (cw.resume == Resume.SAVED and cw.window == W_TRADE_TURN, cw.window))


def encode_card_effects(e, seat: int, v) -> None:
    """The observation's ``card_effects`` field (encoder.py), written into a zeroed ``v``; everything in it is
    public."""
    nn = e.board.num_nodes
    r = e.round
    for kind in range(3):
        bans = e.card_bans[kind]
        if r in bans:  # a scan at C speed first: bans are rare
            for n in range(nn):
                if bans[n] == r:
                    v[kind * nn + n] = 1
    if e.stage == Stage.EVENTS:
        for n in e.event_protected:
            v[3 * nn + n] = 1
    base = 4 * nn
    for c in e.locked_cards:
        v[base + c] = 1
    if e.card_ctx is not None and e.phase == Phase.CARD_FOLLOW:
        v[base + 72 + e.card_ctx.card] = 1
    base += 144
    v[base] = e.card_money.get(_c(36), 0) / ability_params()["36"]["deposit"]
    for i, card in enumerate((_c(37), _c(38))):
        used = e.round_effects.get(card)
        if used is not None and used[0] == r:
            v[base + 1 + 2 * i + (used[1] != seat)] = 1
    if e.card_ctx is not None and e.phase == Phase.CARD_FOLLOW:
        v[base + 5] = min(1.0, e.card_ctx.left / 3)
    if e.cw is not None:
        v[base + 6 + (e.cw.resume == Resume.SAVED and e.cw.window == W_TRADE_TURN)] = 1


def card_window_fields() -> list:
    """The observation field of the W-ANY windows (appended at the end of the layout)."""
    return [Field("card_window", len(JEDERZEIT_WINDOWS), "the open card window is a W-ANY window (cards playable "
                  "at any time, also outside the own turn): before a battle round, before a conquest's plunder, "
                  "at the start of a war cycle, at the start of a trade cycle (public)")]


def encode_card_window(e, v) -> None:
    """The ``card_window`` field, written into a zeroed ``v`` (its sources are part of ``card_effects_sources``)."""
    cw = e.cw
    if cw is not None and cw.window in JEDERZEIT_WINDOWS:
        v[JEDERZEIT_WINDOWS.index(cw.window)] = 1


def card_move_fields(n: int) -> list:
    """Observation fields (appended at the end of the layout) of the movement and vehicle cards."""
    return [
        Field("card_vehicles", n * NUM_SLOTS * 3, "per relative seat and ownership slot: the vehicle has a "
              "card's extra properties this round: Wissenschaftler 11 (caravan <-> war wagon), Kanonier 54 "
              "(siege engine carries 3), Jäger 55 / 56 (passes regions without reactions)"),
        Field("card_movement", 4, "the movement in progress: Kriegsfürst 6 armed; units that may still move on "
              "after its entry (or board again after a won battle: Kartografie) / 9; the carrier stands in a "
              "region it passes without reaction (Jäger); Miliz 25: a war wagon is being loaded"),
    ]


def card_moves_sources(e) -> tuple:
    """Everything ``encode_card_moves`` reads (the slots only while a vehicle has a card's property)."""
    ctx = e.card_ctx
    return (e.vehicle_cards, e.hunters, e.round, e.slots if e.vehicle_cards or e.hunters else None,
            e.warlord_step, e.warlord_load, e.hunter_pending, ctx.wagon if ctx is not None else -1)


def encode_card_moves(e, out, slices: dict, rel: list[int]) -> None:
    """Public: the cards were played in the open."""
    v = out[slices["card_vehicles"]]
    for i, p in enumerate(rel):
        for s, oid in enumerate(e.slots[p]):
            if oid < 0:
                continue
            base = (i * NUM_SLOTS + s) * 3
            card = e._vehicle_card(oid)
            v[base] = card == _c(11)
            v[base + 1] = card == _c(54)
            v[base + 2] = e.hunters.get(oid) == e.round
    m = out[slices["card_movement"]]
    m[0] = e.warlord_step is not None
    m[1] = min(1.0, e.warlord_load[1] / 9) if e.warlord_load is not None else 0.0
    m[2] = e.hunter_pending >= 0
    ctx = e.card_ctx
    m[3] = ctx is not None and ctx.wagon >= 0


__all__ = ["card_choice_sources", "card_effects_sources", "card_move_fields", "card_moves_sources",
           "card_window_fields", "encode_card_choice", "encode_card_effects", "encode_card_moves",
           "encode_card_window"]
