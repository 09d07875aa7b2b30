"""Observation field of the multi-party war in progress (spec 5.15; its rules: ``../movement.py``)."""
from __future__ import annotations

from ...core.encoder import Field
from ..constants import Phase


def multi_war_fields(n: int, num_nodes: int) -> list:
    """Observation field (appended by the encoder): the multi-party war in progress (spec 5.15)."""
    return [Field("multi_war", num_nodes + 2 * n + 2, "the multi-party war in progress (spec 5.15): its region "
                  "one-hot, the attacker's relative seat one-hot, the relative seats still to be fought, barbarians "
                  "still to be fought, the attacker is choosing the next opponent now")]


def multi_war_sources(e):
    """What ``encode_multi_war`` reads (public: the armies stand on the board), or None."""
    mw = e.multi_war
    if mw is None:
        return None
    return mw.node, mw.attacker, tuple(mw.left), e.phase == Phase.NEXT_OPPONENT


def encode_multi_war(e, out, slices: dict, to_rel: list[int]) -> None:
    """The field multi_war, written whole."""
    v = out[slices["multi_war"]]
    v[:] = 0
    mw = e.multi_war
    if mw is None:
        return
    n, nn = e.num_players, e.board.num_nodes
    v[mw.node] = 1
    v[nn + to_rel[mw.attacker]] = 1
    for q in mw.left:
        v[nn + n + (to_rel[q] if q >= 0 else n)] = 1
    v[nn + 2 * n + 1] = e.phase == Phase.NEXT_OPPONENT


__all__ = ["encode_multi_war", "multi_war_fields", "multi_war_sources"]
