"""Observation fields of the variants (their rules: ``../variants.py``): the empire auction (8.1), blood markers
(8.3) and the purchases behind the screen (8.5), which also hide other seats' purchases in the rest of the
observation (``show_purchase_snapshot``)."""
from __future__ import annotations

import numpy as np

from ...core.encoder import Field
from ..constants import NUM_UNIT_TYPES as NT, NUM_VEHICLE_KINDS, Phase, Stage
from ..data import EMPIRES
from ..variants import BLOOD_MARKERS, EP_BID_MAX


def variant_fields(n: int) -> list[Field]:
    return [
        Field("empire_auction", len(EMPIRES) + 2 + 1 + n * (len(EMPIRES) + 2), "variant 8.1: empires auctioned; "
              "bidding round one-hot (1st, 2nd); tied amount / 10 while tied seats bid again; per relative "
              "seat: last revealed empire one-hot, its bid / 10, bidding again in a tie"),
        Field("my_empire_bid", len(EMPIRES) + 1, "variant 8.1: observer's sealed empire choice one-hot and "
              "bid / 10 (private)"),
        Field("blood", n + 1 + 2, "variant 8.3: blood markers per relative seat / 18, supply / 18, markers "
              "spent this battle round by the attacker and the defender / 10"),
        Field("hidden_purchases", n * (NT + NUM_VEHICLE_KINDS) + n, "variant 8.5: per relative seat the units "
              "per type / 10 and the vehicles per kind / 5 behind the screen (own, or the seat revealing now); "
              "the revealing seat one-hot"),
    ]


def encode_variants(e, seat: int, out, slices: dict, rel: list[int], to_rel: list[int]) -> None:
    """The variants' own fields, written into zeroed fields (``show_purchase_snapshot`` does the rest)."""
    n = e.num_players
    ne = len(EMPIRES)
    if e.auction_round:
        v = out[slices["empire_auction"]]
        for emp in e.auction_empires:
            v[emp] = 1
        v[ne + e.auction_round - 1] = 1
        tied = e.auction_ties[0].seats if e.phase == Phase.EMPIRE_TIE_BID else ()
        if tied:
            v[ne + 2] = e.auction_ties[0].amount / EP_BID_MAX
        for i, p in enumerate(rel):
            k = ne + 3 + i * (ne + 2)
            emp, bid = e.shown_empire_bid[p]
            if emp >= 0:
                v[k + emp] = 1
                v[k + ne] = bid / EP_BID_MAX
            v[k + ne + 1] = p in tied
        mine = out[slices["my_empire_bid"]]
        if e.sealed_empire[seat] >= 0 and e.empire_of[seat] < 0:
            mine[e.sealed_empire[seat]] = 1
        if e.sealed_ep_bid[seat] >= 0 and e.empire_of[seat] < 0:
            mine[ne] = e.sealed_ep_bid[seat] / EP_BID_MAX
    if e.config.blood_markers:
        v = out[slices["blood"]]
        for i, p in enumerate(rel):
            v[i] = e.blood[p] / BLOOD_MARKERS
        v[n] = e.blood_supply / BLOOD_MARKERS
        if e.bt is not None:
            v[n + 1] = min(1.0, e.bt.blood[0] / 10)
            v[n + 2] = min(1.0, e.bt.blood[1] / 10)
    if e.config.hidden_purchases and e.stage == Stage.PURCHASES:
        v = out[slices["hidden_purchases"]]
        width = NT + NUM_VEHICLE_KINDS
        for i, p in enumerate(rel):
            if p != seat and p != e.revealing:
                continue
            for item in e.hidden_bought[p]:
                k = i * width + (item[1] if item[0] == "unit" else NT + item[1])
                v[k] = min(1.0, v[k] + (0.1 if item[0] == "unit" else 0.2))
        if e.revealing >= 0:
            v[n * width + to_rel[e.revealing]] = 1


def show_purchase_snapshot(e, seat: int, out, slices: dict, rel: list[int], to_rel: list[int]) -> None:
    """Variant 8.5 over a complete observation: while purchases are behind the screen, the seats that have not
    revealed them are shown as phase 4 began (the encoder applies it to the copy it returns, so its cached
    blocks keep the true state)."""
    if not (e.config.hidden_purchases and e.stage == Stage.PURCHASES):
        return
    snap = e.purchase_snapshot
    secret = {p for p in range(e.num_players) if p != seat and p not in e.revealed_seats}
    if snap is not None and secret:
        _show_snapshot(e, snap, secret, out, slices, rel, to_rel)


def _show_snapshot(e, snap: dict, secret: set, out, slices: dict, rel: list[int], to_rel: list[int]) -> None:
    """8.5: the seats in ``secret`` have not revealed their purchases: show them as phase 4 began."""
    n, nn = e.num_players, e.board.num_nodes
    for i, p in enumerate(rel):
        if p not in secret:
            continue
        pre = f"seat{i}_"
        out[slices[pre + "tech"]] = [x / 4 for x in snap["tech"][p]]
        out[slices[pre + "tech_bought"]] = snap["tech_bought"][p]
        out[slices[pre + "tokens"]] = [min(1.0, x / 12) for x in snap["tokens"][p]]
        out[slices[pre + "tokens_flipped"]] = [min(1.0, x / 12) for x in snap["tokens_flipped"][p]]
        out[slices[pre + "cards"]] = min(1.0, len(snap["hand"][p]) / 10)
        out[slices[pre + "markers_left"]] = snap["markers_left"][p] / 8
        out[slices[pre + "purchases"]] = 0
        out[slices[pre + "capitulated"]] = [min(1.0, x / 10) for x in snap["capitulated"][p]]
        for name in ("hand", "rotated"):
            cards = out[slices[pre + name]]
            cards[:] = 0
            cards[snap[name][p]] = 1
    units = out[slices["node_units"]].reshape(n, nn, NT)
    objects = out[slices["node_objects"]].reshape(n, nn, NUM_VEHICLE_KINDS)
    for i, p in enumerate(rel):
        if p in secret:
            units[i] = np.minimum(1.0, np.asarray(snap["units"][p], dtype=np.float32).reshape(nn, NT) / 10)
            objects[i] = 0
    for owner, kind, level, node in snap["objects"]:
        if owner in secret and node >= 0:
            objects[to_rel[owner], node, kind] = min(1.0, objects[to_rel[owner], node, kind] + level / 9)
    gp = e.comp.building_gp
    bld = out[slices["node_buildings"]].reshape(nn, 6 + 3 * (n + 1))
    markers = out[slices["node_marker"]].reshape(nn, n + 1)
    control = out[slices["node_controller"]].reshape(nn, n + 1)
    now_control = e.control_map()
    for node in e.land_nodes:
        for cls, (level, owner, dmg) in enumerate(snap["buildings"][node]):
            now = (e.building_level_at(node, cls), e.building_owner_at(node, cls),
                   (e.civil_dmg, e.mil_dmg, e.cath_dmg)[cls][node])
            if now != (level, owner, dmg) and (now[1] in secret or owner in secret):
                bld[node, cls] = (level / 3) if cls < 2 else float(level > 0)
                bld[node, 3 + cls] = dmg / gp[(level - 1, 2 + level, 6)[cls]] if level else 0
                one_hot = bld[node, 6 + cls * (n + 1):6 + (cls + 1) * (n + 1)]
                one_hot[:] = 0
                one_hot[0 if owner < 0 else 1 + to_rel[owner]] = 1
        for now, before, rows in ((e.marker[node], snap["marker"][node], markers),
                                  (now_control[node], snap["control"][node], control)):
            if now != before and (now in secret or before in secret):
                rows[node] = 0
                rows[node, 0 if before < 0 else 1 + to_rel[before]] = 1


__all__ = ["encode_variants", "show_purchase_snapshot", "variant_fields"]
