"""Observation fields of diplomacy (its rules: ``../diplomacy.py``): treaties, war declarations, ceasefires and
teams (secret treaties only for their parties), and the offer in progress (its parties only: ``offer_sources``)."""
from __future__ import annotations

from itertools import permutations

from ...core.encoder import Field
from ..diplomacy import MAX_TERM, STATE_TREATIES, TREATY_NAMES


def diplomacy_fields(n: int) -> list:
    """Observation fields (appended by the encoder): public treaties and war states, the observer's
    secret treaties, the offer in progress (its parties only) and the teams."""
    k = len(STATE_TREATIES)
    return [
        Field("treaties", n * n * (k + 1), "per pair of relative seats: each state treaty in force (trade, "
              "right of way, stationing, free trade, non-aggression) as its remaining term (rounds / 12; 1 = until "
              "the game ends), and whether the trade treaty has a sale fee; secret treaties only for their parties"),
        Field("war_declared", n * n, "relative seat i declared war on j this round (war from the next round)"),
        Field("ceasefire", n * n, "relative seats i and j agreed a ceasefire this round"),
        Field("offer", 2 * n + len(TREATY_NAMES) + MAX_TERM + 1 + 4, "the offer in progress, seen by its proposer "
              "and its addressees only: proposer one-hot, addressees (several for a treaty of more parties), kind "
              "one-hot, term one-hot, sale fee, sum paid by the proposer to each addressee / 5000, sum paid by each "
              "addressee / 5000, secret"),
        Field("teams", n * n, "relative seats i and j play in the same team (variant 8.4)"),
    ]


def diplomacy_sources(e, seat: int) -> tuple:
    """Everything ``encode_diplomacy`` reads for ``seat``: the encoder rewrites the fields only when it changed. The
    treaties as tuples: the encoder keeps a copy, which for a record would be a deep copy."""
    treaties = [(t.kind, t.parties, t.until, t.secret, t.fee) for t in e.treaties]
    return treaties, e.round if treaties else 0, e.war_declared, e.ceasefires, e.team_of


def encode_diplomacy(e, seat: int, out, L, rel: list[int], to_rel: list[int], view=None) -> None:
    """The fields treaties, war_declared, ceasefire and teams, written whole; single numbers through ``view``, a
    memoryview of ``out`` (float32), when given (a third of numpy's cost per write)."""
    n = e.num_players
    k = len(STATE_TREATIES)
    if view is None:
        view = memoryview(out)
    treaties, declared_at, ceasefire_at, teams_at = (L[name].start for name in (
        "treaties", "war_declared", "ceasefire", "teams"))
    out[treaties:L["ceasefire"].stop] = 0  # treaties, war_declared and ceasefire follow each other
    row = k + 1
    for t in e.treaties:
        if t.secret and seat not in t.parties:
            continue  # spec 7.1: secret treaties are seen by their parties only
        term = 1.0 if not t.until else min(1.0, (t.until - e.round + 1) / 12)
        kind = STATE_TREATIES.index(t.kind)
        for a, b in permutations(t.parties, 2):  # a treaty of several parties: every pair of them
            at = treaties + (to_rel[a] * n + to_rel[b]) * row
            view[at + kind] = term
            if t.fee:
                view[at + k] = 1.0
    declared = e.war_declared
    for i, p in enumerate(rel):
        row_of_p = declared[p]
        for j, q in enumerate(rel):
            if row_of_p[q] > 0:
                view[declared_at + i * n + j] = 1.0
    if e.ceasefires:  # none most of the time
        for i, p in enumerate(rel):
            for j, q in enumerate(rel):
                view[ceasefire_at + i * n + j] = e.in_ceasefire(p, q) if p != q else 0
    if e.team_of is not None:
        team_of = e.team_of
        for i, p in enumerate(rel):
            for j, q in enumerate(rel):
                view[teams_at + i * n + j] = team_of[p] == team_of[q]
    else:
        out[teams_at:teams_at + n * n] = 0


def offer_sources(e, seat: int) -> tuple | None:
    """What ``encode_offer`` shows ``seat`` of the offer in progress, or None (no offer, or not for ``seat``): an
    offer is seen by its parties only, its proposer and its addressees. Only what the field shows: the offer's
    other fields change at drafting steps."""
    o = e.offer
    if o is None or not (seat == o.proposer or seat == o.addressee or seat in o.also):
        return None
    return (o.proposer, o.addressee, tuple(o.also), o.kind, o.term, o.fee > 0, o.amount, o.payer == o.proposer,
            o.secret)


def encode_offer(sources: tuple, ov, to_rel: list[int]) -> None:
    """The field offer from ``offer_sources`` (not None), written into ``ov`` (a numpy array or a memoryview of
    float32) zeroed before."""
    proposer, addressee, also, kind, term, fee, amount, proposer_pays, secret = sources
    n = len(to_rel)
    ov[to_rel[proposer]] = 1
    for q in (addressee,) + also:
        ov[n + to_rel[q]] = 1
    base = 2 * n
    if kind >= 0:
        ov[base + kind] = 1
    base += len(TREATY_NAMES)
    if term >= 0:
        ov[base + term] = 1
    base += MAX_TERM + 1
    ov[base] = fee
    if amount:
        ov[base + (1 if proposer_pays else 2)] = min(1.0, amount / 5000)
    ov[base + 3] = secret

__all__ = ["diplomacy_fields", "diplomacy_sources", "encode_diplomacy", "encode_offer", "offer_sources"]
