"""What each seat may read of the log: the sealed paths of a record and its cut copies.

Seats: the game's players (``Game.players``), ``judge`` (sees everything) and
``public`` (a spectator at the table). What a seat sees of the *position* is the game module's
(:meth:`referee.game.Game.view`); this module cuts the *records*, for any game: the game says
which parts of a recorded action and of its events a seat may not see (as its rules say),
and the service adds its own: another seat's idempotency key, the judge's reasons and
notes, the exact words of a question for the seat asked, what an observation identified.
:func:`hidden_paths` reads only the parts of a record that no seat's copy hides, so a verifier
can recompute it from a cut copy.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.game import AnyGame
from referee.log import Record

JUDGE = "judge"
PUBLIC = "public"
JUDGE_ONLY_BODY = {"undo": ("reason",), "amend": ("reason",), "resolve": ("note",)}


def seats_of(game: AnyGame) -> tuple[str, ...]:
    """Every seat of a game: its players, the judge, the public."""
    return (*game.players, JUDGE, PUBLIC)


def readers_of(game: AnyGame) -> tuple[str, ...]:
    """The seats that get cut copies of the log."""
    return (*game.players, PUBLIC)


def sees_all(seat: str) -> bool:
    return seat == JUDGE


def hidden_paths(r: Record, seat: str, game: AnyGame) -> set[str]:
    """The paths of record ``r`` that ``seat`` may not see (the game's secrets; judge's notes;
    another seat's idempotency key). Reads only what no copy hides, so it works on a cut copy
    too."""
    if sees_all(seat):
        return set()
    out: set[str] = set()
    if r.key is not None and r.seat != seat:
        out.add("key")  # idempotency keys are per seat
    body = r.body
    if r.kind in ("action", "amend"):
        action = body.get("action", {})
        if isinstance(action, dict):
            actor = str(body.get("actor"))
            out |= {f"body.action.{p}" for p in game.action_hidden(action, actor, seat)}
    elif r.kind == "propose":
        corr = body.get("correction", {})
        action = corr.get("action") if isinstance(corr, dict) else None
        if isinstance(action, dict):
            actor = str(corr.get("actor"))
            hidden = game.action_hidden(action, actor, seat)
            out |= {f"body.correction.action.{p}" for p in hidden}
    elif r.kind == "ask":
        if r.seat != seat and "action" in body:
            out.add("body.action")  # what the submitter stated so far is his until applied
        if "detail" in body and seat not in body.get("asked", ()):
            out.add("body.detail")  # the exact words may count cards hidden from him
    elif r.kind == "observation":
        if body.get("player") != seat and not body.get("face_up"):
            out |= {f"body.{k}" for k in ("card", "identifies") if k in body}
        if "irregularity" in body:
            out.add("body.irregularity")  # for the judge
    elif r.kind == "irregularity":
        out |= {f"body.{k}" for k in body}
    elif r.kind == "call" and r.seat != seat and "note" in body:
        out.add("body.note")
    for k in JUDGE_ONLY_BODY.get(r.kind, ()):
        if k in body:
            out.add(f"body.{k}")
    for i, e in enumerate(r.events):
        out |= {f"events.{i}.{k}" for k in game.event_hidden(e, seat)}
    return out


def sealed_paths(r: Record, game: AnyGame) -> tuple[str, ...]:
    """Every path some seat but the judge may not see: the paths a record seals."""
    out: set[str] = set()
    for seat in readers_of(game):
        out |= hidden_paths(r, seat, game)
    return tuple(sorted(out))


def cutter(game: AnyGame) -> Callable[[Record, str], set[str]]:
    """What a copy for a seat may hide (``may_cut`` for :func:`referee.log.verify`)."""
    return lambda r, seat: hidden_paths(r, seat, game)


def redact(r: Record, seat: str, game: AnyGame) -> Record:
    """The record as ``seat`` may read it: the judge gets it whole; anyone else a cut copy."""
    if sees_all(seat):
        return r
    return r.cut_for(hidden_paths(r, seat, game))
