"""What each seat may see: ``view_for`` on the state, ``redact`` on log records.

Seats: ``hera`` and ``zeus`` (the players), ``judge`` (sees everything), ``public`` (a spectator
at the table). A player sees his own hand and his own face-down cards (he may look at them any
time), every face-up card and discard pile, deck sizes, and the backs of the opponent's cards:
a back tells only its deck, which is how a Sirens card is recognised (D13). What Pythia's spy
showed is in that player's log, not in the current state (D12).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from engine import Action, GameState, Player
from engine.actions import PegasusHand
from engine.cards import Card
from engine.state import Slot
from referee.log import Record

SEATS = ("hera", "zeus", "judge", "public")
PLAYER_SEATS = ("hera", "zeus")
PRIVATE_CARD_ACTIONS = frozenset({"draw", "play", "hades"})  # the card is the actor's secret
PRIVATE_LIST_ACTIONS = frozenset({"deal", "first_row"})


def sees_all(seat: str) -> bool:
    return seat == "judge"


def back(c: Card, holder: Player) -> str:
    """What the back of a card tells: ``?`` for the holder's own deck, ``?/hera`` for another."""
    return "?" if c.origin is holder else f"?/{c.origin.key}"


def _slot_view(s: Slot, holder: Player, open_: bool) -> str:
    if s.card is None:
        return "@"
    if s.up:
        return "^" + s.card.notation(holder)
    return s.card.notation(holder) if open_ else back(s.card, holder)


def side_view(st: GameState, holder: Player, seat: str) -> dict[str, Any]:
    side = st.sides[holder]
    open_ = sees_all(seat) or seat == holder.key
    return {
        "hand": [c.notation(holder) if open_ else back(c, holder) for c in side.hand],
        "hand_size": len(side.hand),
        "deck": len(side.deck),
        "field": [[_slot_view(s, holder, open_) for s in col] for col in side.field],
        "discard": [c.notation(holder) for c in side.discard],
        "figure": "field" if side.has_figure() else "supply",
    }


def view_for(st: GameState, seat: str) -> dict[str, Any]:
    """The position as ``seat`` may see it. Raises ValueError for an unknown seat."""
    if seat not in SEATS:
        raise ValueError(f"unknown seat {seat!r} (seats: {', '.join(SEATS)})")
    rs = st.ruleset
    return {
        "seat": seat,
        "phase": st.phase.value,
        "profile": rs.profile.value,
        "switches": rs.switches.to_json(),
        "turn": {"player": st.player.key, "first": st.first, "ap": st.ap, "used": st.used},
        "winner": st.winner.key if st.winner is not None else None,
        "reason": st.reason.value if st.reason is not None else None,
        "hera": side_view(st, Player.HERA, seat),
        "zeus": side_view(st, Player.ZEUS, seat),
        "provisional_catalogue": rs.catalogue.provisional,
    }


def legal_for(actions: Iterable[Action], seat: str) -> list[str]:
    """The legal actions as ``seat`` may read them. The engine lists a Pegasus against the hand
    once per card the opponent holds (with its column); a player draws blind (D2), so he gets
    one ``pegasus hand`` that names nothing of the opponent's hand."""
    out: list[str] = []
    for a in actions:
        if isinstance(a, PegasusHand) and not sees_all(seat):
            a = PegasusHand(by=a.by)
        text = a.text()
        if text not in out:
            out.append(text)
    return out


# ---- the log, cut for a seat -------------------------------------------------------------


def _event_visible(e: Mapping[str, Any], seat: str) -> bool:
    if sees_all(seat) or e.get("public", True):
        return True
    if e.get("kind") == "shown":
        return seat in (e.get("player"), e.get("to"))
    return e.get("player") == seat


def _mask_event(e: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in e.items() if k not in ("card", "cards")}
    out["masked"] = True
    return out


def _redact_action(a: Mapping[str, Any], actor: str, seat: str) -> tuple[dict[str, Any], bool]:
    """The action as ``seat`` may read it, and whether anything was cut."""
    out = copy.deepcopy(dict(a))
    do = out.get("do")
    cut = False
    if seat == actor or sees_all(seat):
        return out, False
    if do in PRIVATE_CARD_ACTIONS and "card" in out:
        del out["card"]
        cut = True
    if do in PRIVATE_LIST_ACTIONS and out.get("player") != seat and "cards" in out:
        out["cards"] = ["?"] * len(out["cards"])
        cut = True
    if do == "redraw" and out.get("player") != seat and "card" in out:
        del out["card"]
        cut = True
    if do == "pythia" and out.get("mode") == "spy" and seat not in PLAYER_SEATS and "reveal" in out:
        del out["reveal"]
        cut = True
    return out, cut


def redact(r: Record, seat: str) -> Record:
    """The record as ``seat`` may read it. The judge gets it whole; otherwise anything hidden
    from the seat is cut and the record is marked redacted (its nonce dropped)."""
    if sees_all(seat):
        return r
    cut = False
    body: dict[str, Any] = dict(r.body)
    if r.kind == "action" or r.kind == "amend":
        body["action"], cut = _redact_action(
            r.body.get("action", {}), str(r.body.get("actor")), seat
        )
    elif r.kind == "observation":
        if r.body.get("player") != seat and not r.body.get("face_up"):
            for k in ("card", "recorded"):
                if k in body:
                    del body[k]
                    cut = True
    elif r.kind == "irregularity":
        body = {"note": "an irregularity was recorded for the judge"}
        cut = True
    events = []
    for e in r.events:
        if _event_visible(e, seat):
            events.append(e)
        else:
            events.append(_mask_event(e))
            cut = True
    if not cut:
        return r
    return Record(
        r.game,
        r.seq,
        r.time,
        r.seat,
        r.kind,
        body,
        tuple(events),
        r.key,
        r.prev,
        r.hash,
        "",
        redacted=True,
    )
