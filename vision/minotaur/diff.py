"""Stage: compare a Minotaur Lords table snapshot with the referee's view and propose what
happened (issue 38), as the other game's table camera does for its mat.

Input: a :class:`vision.minotaur.table.MinotaurSnapshot` and a view as
``referee.minotaur.game.view_for(state, seat)`` returns it (per side ``columns``: each column id
to its cards in play order, ``{"card", "curses", ...}``; ``deities``: the same; ``turn.player``).
Output: a list of **proposals**, plain dicts a person confirms; nothing is applied here.

    {
      "kind": "play" | "play_deity" | "removed" | "irregularity",
      "side": "miron" | "vess",
      "column": "upper-military" ... | None,   # None: the deities' place
      "position": 1-n | None,                  # the slot (1 at the centre line)
      "raw": {...} | None,                     # an action for Referee.submit, or None
      "description": a sentence (engine.say.Say) for the person confirming,
      "confidence": 0.0-1.0,
    }

A lane or the deities' place read ``unknown`` matches anything: a hand over the table says
nothing. A lane read with one card more than recorded, at its end, is a card played into that
column (``{"do": "play", "card", "column", "by"}``, M6-M8). A lane with one recorded card
missing, the rest in order, is a card removed (``raw`` None: the person says what removed it).
A deity seen that is not recorded is a deity played (``{"do": "play", "card", "by"}``, with
``"replace"`` when one of the player's three is gone, M9; the opponent's deities gone with it).
A recorded deity gone, nothing new, is a deity removed. Anything else is an irregularity.
Curse tokens are not read (a lane's names are compared).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.minotaur.cards import COLUMNS, PLAYERS
from engine.say import Say
from vision.minotaur.table import CardSeen, MinotaurSnapshot
from vision.proposal import proposal

NOTHING = Say("nothing")  # a lane or the deities' place recorded or seen without a card


class ViewError(ValueError):
    """A view that is not in the shape ``view_for`` returns; the message names the field."""


def _names(entries: object, where: str) -> list[str]:
    if not isinstance(entries, list):
        raise ViewError(f"view: {where} must be a list")
    out = []
    for e in entries:
        name = e.get("card") if isinstance(e, Mapping) else e
        if not isinstance(name, str) or not name:
            raise ViewError(f"view: {where}: an entry names no card")
        out.append(name)
    return out


def _side(view: Mapping[str, Any], side: str) -> tuple[dict[str, list[str]], list[str]]:
    s = view.get(side)
    if not isinstance(s, Mapping) or not isinstance(s.get("columns"), Mapping):
        raise ViewError(f"view: {side}.columns is missing")
    cols = {c.id: _names(s["columns"].get(c.id, []), f"{side}.columns.{c.id}") for c in COLUMNS}
    return cols, _names(s.get("deities", []), f"{side}.deities")


def _owner(card: CardSeen, turn: str | None) -> str | None:
    """Whose a deity seen is: its deck's player; a bonus-deck card (M17), the turn's player."""
    return card.deck if card.deck in PLAYERS else turn


def _lane(side: str, column: str, seen: list[str], recorded: list[str]) -> list[dict[str, Any]]:
    if seen == recorded:
        return []
    col = next(c for c in COLUMNS if c.id == column)
    words = Say("%(column)s on %(side)s's side", column=col.words, side=side.title())
    if len(seen) == len(recorded) + 1 and seen[:-1] == recorded:
        card = seen[-1]
        return [
            proposal(
                "play",
                side,
                column,
                len(seen),
                {"do": "play", "card": card, "column": column, "by": side},
                Say(
                    "%(side)s played %(card)s into %(where)s",
                    side=side.title(),
                    card=card,
                    where=words,
                ),
                0.95,
            )
        ]
    if len(seen) == len(recorded) - 1:
        gone = [p for p in range(len(recorded)) if recorded[:p] + recorded[p + 1 :] == seen]
        if gone:
            p = gone[0]
            return [
                proposal(
                    "removed",
                    side,
                    column,
                    p + 1,
                    None,
                    Say(
                        "%(card)s is no longer in %(where)s: confirm what removed it",
                        card=recorded[p],
                        where=words,
                    ),
                    0.9 / len(gone),
                )
            ]
    return [
        proposal(
            "irregularity",
            side,
            column,
            None,
            None,
            Say(
                "%(where)s: recorded %(recorded)s, seen %(seen)s",
                where=words,
                recorded=", ".join(recorded) or NOTHING,
                seen=", ".join(seen) or NOTHING,
            ),
            0.8,
        )
    ]


def _deities(
    seen: Sequence[CardSeen], recorded: dict[str, list[str]], turn: str | None
) -> list[dict[str, Any]]:
    had: Counter[tuple[str | None, str]] = Counter((s, n) for s in PLAYERS for n in recorded[s])
    now: Counter[tuple[str | None, str]] = Counter((_owner(c, turn), c.card) for c in seen)
    if now == had:
        return []
    new = now - had
    gone = had - now
    if len(list(new.elements())) == 1:
        ((side, card),) = list(new.elements())
        if side is not None:
            other = PLAYERS[1 - PLAYERS.index(side)]
            mine_gone = [n for s, n in gone.elements() if s == side]
            theirs_gone = [n for s, n in gone.elements() if s == other]
            all_theirs = Counter(theirs_gone) == Counter(recorded[other])
            if all_theirs and (not mine_gone or (len(mine_gone) == 1 and len(recorded[side]) == 3)):
                raw: dict[str, Any] = {"do": "play", "card": card, "by": side}
                if mine_gone:
                    raw["replace"] = mine_gone[0]
                return [
                    proposal(
                        "play_deity",
                        side,
                        None,
                        None,
                        raw,
                        Say("%(side)s played the deity %(card)s", side=side.title(), card=card),
                        0.95,
                    )
                ]
    if not new and len(list(gone.elements())) == 1:
        ((whose, card),) = list(gone.elements())
        return [
            proposal(
                "removed",
                str(whose),
                None,
                None,
                None,
                Say("the deity %(card)s is no longer in play: confirm what removed it", card=card),
                0.9,
            )
        ]
    return [
        proposal(
            "irregularity",
            turn or PLAYERS[0],
            None,
            None,
            None,
            Say(
                "the deities: recorded %(recorded)s, seen %(seen)s",
                recorded=", ".join(n for s in PLAYERS for n in recorded[s]) or NOTHING,
                seen=", ".join(c.card for c in seen) or NOTHING,
            ),
            0.8,
        )
    ]


def propose(snapshot: MinotaurSnapshot, view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The proposals that explain how ``snapshot`` differs from ``view`` (empty when they
    agree). Raises ViewError when ``view`` is not in ``view_for``'s shape."""
    t = view.get("turn")
    turn = t.get("player") if isinstance(t, Mapping) and t.get("player") in PLAYERS else None
    props: list[dict[str, Any]] = []
    recorded_gods: dict[str, list[str]] = {}
    for side in PLAYERS:
        cols, gods = _side(view, side)
        recorded_gods[side] = gods
        for c in COLUMNS:
            lane = snapshot.lane(side, c.id)
            if lane.state == "read":
                props += _lane(side, c.id, [x.card for x in lane.cards], cols[c.id])
    if snapshot.deities.state == "read":
        props += _deities(snapshot.deities.cards, recorded_gods, turn)
    return props
