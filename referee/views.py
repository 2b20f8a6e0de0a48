"""What each seat may see: ``view_for`` on the state, ``project`` for deciding as a seat, and
the log's sealed paths cut per seat.

Seats: ``hera`` and ``zeus`` (the players), ``judge`` (sees everything), ``public`` (a spectator
at the table). A player sees his own hand and his own face-down cards (he may look at them any
time), every face-up card, deck sizes, and the backs of the opponent's cards: a back tells only
its deck, which is how a Sirens card is recognised (D13). Discard piles follow D21: everyone
sees each pile's top card and height; only its owner looks through it (and the judge). What
Pythia's spy showed is in that player's log, not in the current state (D12).

Deciding as a seat (D22): a player's submission is checked against :func:`project`, the state
with every card hidden from him made unknown, so a refusal can never depend on a card he cannot
see. Log records are cut per seat by :func:`hidden_paths`, which reads only the parts of a
record that no seat's copy hides, so a verifier can recompute it from a cut copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine import Action, GameState, Player
from engine.actions import PegasusHand
from engine.cards import Card, unknown
from engine.state import Slot, slot
from referee.log import Record

SEATS = ("hera", "zeus", "judge", "public")
PLAYER_SEATS = ("hera", "zeus")
READERS = ("hera", "zeus", "public")  # the seats that get cut copies of the log
PRIVATE_CARD_ACTIONS = frozenset({"draw", "play", "hades"})  # the card is the actor's secret
PRIVATE_LIST_ACTIONS = frozenset({"deal", "first_row", "redeal"})
JUDGE_ONLY_BODY = {"undo": ("reason",), "amend": ("reason",), "resolve": ("note",)}


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
    out: dict[str, Any] = {
        "hand": [c.notation(holder) if open_ else back(c, holder) for c in side.hand],
        "hand_size": len(side.hand),
        "deck": len(side.deck),
        "field": [[_slot_view(s, holder, open_) for s in col] for col in side.field],
        "discard_top": side.discard[-1].notation(holder) if side.discard else None,
        "discard_height": len(side.discard),
        "figure": "field" if side.has_figure() else "supply",
    }
    if open_:  # D21: only the owner (and the judge) looks through a pile
        out["discard"] = [c.notation(holder) for c in side.discard]
    return out


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


def project(st: GameState, seat: str) -> GameState:
    """The state as ``seat`` knows it: every card hidden from him unknown (D22). The judge's
    projection is the state itself. Piles stay whole: every card on them was seen face up.
    Decks are unknown to everyone and stay as they are (the referee does not know them either,
    or knows them only in a simulation)."""
    if sees_all(seat):
        return st
    sides = list(st.sides)
    for p in (Player.HERA, Player.ZEUS):
        if seat == p.key:
            continue
        side = st.sides[p]
        hand = tuple(unknown(c.origin) for c in side.hand)
        fld = tuple(
            tuple(s if s.card is None or s.up else slot(unknown(s.card.origin), False) for s in col)
            for col in side.field
        )
        deck = tuple(unknown(c.origin) for c in side.deck)
        sides[p] = side.evolve(hand=hand, field=fld, deck=deck)
    return st.evolve(sides=(sides[0], sides[1]))


def legal_for(actions: Iterable[Action], seat: str) -> list[str]:
    """The legal actions as text. A player draws blind (D2): one ``pegasus hand`` that names
    nothing of the opponent's hand."""
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


def _action_hidden(a: Mapping[str, Any], actor: str, seat: str, base: str) -> set[str]:
    """The paths of an action (at ``base``) hidden from ``seat``."""
    if seat == actor or sees_all(seat) or not isinstance(a, Mapping):
        return set()
    do = a.get("do")
    out: set[str] = set()
    if do in PRIVATE_CARD_ACTIONS and "card" in a:
        out.add(f"{base}.card")
    if do in PRIVATE_LIST_ACTIONS and a.get("player") != seat and "cards" in a:
        out.add(f"{base}.cards")
    if do == "redeal" and a.get("player") != seat and "deck" in a:
        out.add(f"{base}.deck")  # the shown old hand stays visible: both players saw it (D19)
    if do == "redraw" and a.get("player") != seat and "card" in a:
        out.add(f"{base}.card")
    if do == "pythia" and a.get("mode") == "spy" and seat not in PLAYER_SEATS and "reveal" in a:
        out.add(f"{base}.reveal")
    return out


def hidden_paths(r: Record, seat: str) -> set[str]:
    """The paths of record ``r`` that ``seat`` may not see (D21, D22; judge's notes; another
    seat's idempotency key). Reads only what no copy hides, so it works on a cut copy too."""
    if sees_all(seat):
        return set()
    out: set[str] = set()
    if r.key is not None and r.seat != seat:
        out.add("key")  # idempotency keys are per seat
    body = r.body
    if r.kind in ("action", "amend"):
        out |= _action_hidden(body.get("action", {}), str(body.get("actor")), seat, "body.action")
    elif r.kind == "ask":
        if r.seat != seat and "action" in body:
            out.add("body.action")  # what the submitter stated so far is his until applied
        if "detail" in body and seat not in body.get("asked", ()):
            out.add("body.detail")  # the engine's exact words may count hidden cards (D22)
    elif r.kind == "observation":
        if body.get("player") != seat and not body.get("face_up"):
            out |= {f"body.{k}" for k in ("card", "identifies") if k in body}
        if "irregularity" in body:
            out.add("body.irregularity")  # for the judge (D20)
    elif r.kind == "irregularity":
        out |= {f"body.{k}" for k in body}
    elif r.kind == "call" and r.seat != seat and "note" in body:
        out.add("body.note")
    for k in JUDGE_ONLY_BODY.get(r.kind, ()):
        if k in body:
            out.add(f"body.{k}")
    for i, e in enumerate(r.events):
        if not _event_visible(e, seat):
            out |= {f"events.{i}.{k}" for k in ("card", "cards", "hand") if k in e}
    return out


def sealed_paths(r: Record) -> tuple[str, ...]:
    """Every path some non-judge seat may not see: the paths a record seals."""
    out: set[str] = set()
    for seat in READERS:
        out |= hidden_paths(r, seat)
    return tuple(sorted(out))


def may_cut(r: Record, seat: str) -> set[str]:
    """What a copy for ``seat`` may hide (for :func:`referee.log.verify`)."""
    return hidden_paths(r, seat)


def redact(r: Record, seat: str) -> Record:
    """The record as ``seat`` may read it: the judge gets it whole; anyone else a cut copy."""
    if sees_all(seat):
        return r
    return r.cut_for(hidden_paths(r, seat))
