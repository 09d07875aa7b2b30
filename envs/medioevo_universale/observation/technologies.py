"""Observation fields of the activation technologies (their rules: ``../technologies.py``): the open window, its
counters and the TP payment in progress, Ernennung's appointments and Kartografie's invaded region (all public)."""
from __future__ import annotations

from ...core.encoder import Field
from ..constants import NUM_UNIT_TYPES as NT
from ..technologies import APPOINTED_TYPES, TechWindow


WINDOW_KINDS = (TechWindow.REVOLT, TechWindow.BATTLE, TechWindow.TAKTIK, TechWindow.MOVE, TechWindow.WAR_TURN,
                TechWindow.TRADE, TechWindow.BUY, TechWindow.SALE)


def technology_fields(num_nodes: int) -> list[Field]:
    return [
        Field("tech_window", len(WINDOW_KINDS), "the open technology activation window one-hot: "
              + ", ".join(WINDOW_KINDS)),
        Field("tech_state", 5, "Erlass: the carrier must move on; the open sale's cubes with Handel / 6; the "
              "open purchase's cubes / 6 and Markt discount / 500; Taktik points left / 20"),
        Field("tp_payment", 7, "the TP cost being paid outside phase 4 per colour / 10, and its fl / 1000"),
        Field("tech_revolt", num_nodes, "the revolt region a Gesetze window may relocate from, one-hot"),
    ]


def technology_sources(e) -> tuple:
    """Everything ``encode_technologies`` reads: the encoder rewrites the fields only when it changed."""
    return e.tech_use, e.trade_bonus, e.movement_locked(), e.tp_payment


def encode_technologies(e, out, slices: dict) -> None:
    """Public: windows, counters and payments are played in the open. Writes into zeroed fields."""
    use = e.tech_use
    if use is not None and use.window in WINDOW_KINDS:  # INVADE: its own field (encode_invasion)
        out[slices["tech_window"]][WINDOW_KINDS.index(use.window)] = 1
        if use.window == TechWindow.REVOLT:
            out[slices["tech_revolt"]][use.context.node] = 1
    tb = e.trade_bonus
    out[slices["tech_state"]] = (float(e.movement_locked()), min(1.0, tb.handel / 6),
                                 min(1.0, tb.bought / 6), min(1.0, tb.discount / 500),
                                 min(1.0, use.context.points / 20) if use is not None else 0.0)
    pay = e.tp_payment
    if pay is not None:
        v = out[slices["tp_payment"]]
        for c, k in pay.costs:
            v[c] = min(1.0, v[c] + k / 10)
        v[6] = min(1.0, pay.fl / 1000)


def appointment_fields() -> list[Field]:
    return [Field("tech_appointed", 2 * NT * len(APPOINTED_TYPES), "Ernennung in the battle in progress: per side "
                  "(attacker, defender) and real unit type, the units counted as LI, HI, AR, CA, captain / 5")]


def appointments_sources(e):
    """What ``encode_appointments`` reads: the battle's appointments and both sides' pieces."""
    bt = e.bt
    if bt is None or not any(bt.appointed or ()):
        return None
    return bt.appointed, e.side_pieces(0), e.side_pieces(1)


def encode_appointments(e, out, slices: dict) -> None:
    """Public: appointments are made in the open."""
    bt = e.bt
    if bt is None or bt.appointed is None:
        return
    v = out[slices["tech_appointed"]]
    for side in (0, 1):
        for a, b, k in e._appointments(side, e.side_pieces(side)):
            i = (side * NT + a) * len(APPOINTED_TYPES) + APPOINTED_TYPES.index(b)
            v[i] = min(1.0, k / 5)


def invasion_fields(num_nodes: int) -> list[Field]:
    return [Field("tech_invaded", num_nodes, "W-INVADE: the region another player's army is about to take over "
                  "or fight in while its controller or an ally of it decides whether Kartografie brings a unit in, "
                  "one-hot")]


def encode_invasion(e, out, slices: dict) -> None:
    """Public: the window is played in the open."""
    use = e.tech_use
    if use is not None and use.window == TechWindow.INVADE:
        out[slices["tech_invaded"]][use.context.node] = 1


__all__ = ["WINDOW_KINDS", "appointment_fields", "appointments_sources", "encode_appointments", "encode_invasion",
           "encode_technologies", "invasion_fields", "technology_fields", "technology_sources"]
