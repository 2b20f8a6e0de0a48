"""What the service returns: one typed definition of each value that crosses into the pages,
the API and the CLI (the marshmallow schemas in ``web/schemas.py`` follow these).

Views and table rows are ``TypedDict``s: JSON-ready as they are, checked by mypy where they are
read. A seat's view holds the service's part (below) and the game's part (its board, its
module's own); everything in it is already cut for that seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NotRequired, TypedDict


class Head(TypedDict):
    """The game's last record: what the players write down to verify an export."""

    seq: int
    hash: str


class Turn(TypedDict):
    """Whose turn it is, and the game's own counts (action points, say)."""

    player: str
    first: NotRequired[bool]
    ap: NotRequired[int]
    used: NotRequired[int]


class Question(TypedDict):
    """The open question, as a seat concerned by it reads it (the seat asked, the judge, or
    the seat whose action waits on it)."""

    needs: str  # the dotted path of the value asked for, in the action
    by: str  # the seat whose action waits
    asked: list[str]  # the seats that may give it
    rule: str
    reason: str  # worded for the reader (never a count of cards hidden from him)
    seq: int  # the question's record
    pick: NotRequired[Any]  # what both saw at the table (a card drawn at the table)


Waiting = TypedDict("Waiting", {"for": list[str], "needs": str})
"""What a seat not concerned by the open question learns: whom the table waits for."""


class OpenItem(TypedDict):
    """An open irregularity or judge call (for the judge)."""

    seq: int
    kind: str  # "call", "observation" (with an irregularity) or "irregularity"
    seat: str
    time: str
    body: dict[str, Any]


class SeatView(TypedDict):
    """The table as one seat may see it: the game's position (``phase``, ``turn`` and the
    game's own keys) with the service's facts. Keys marked NotRequired appear when they
    apply: ``legal`` when the seat may act, ``asked``/``waiting`` while a question is open,
    the judge's keys for the judge only."""

    game: str
    game_module: str  # which game this is: the name of its module (``Game.name``)
    seat: str
    seq: int
    head: Head
    players: dict[str, str]
    kit: str  # "kit" (cards carry stickers) or "manual"
    kit_id: NotRequired[str | None]
    phase: str
    profile: str
    switches: dict[str, Any]
    turn: Turn
    winner: str | None
    reason: str | None
    legal: NotRequired[list[str]]
    asked: NotRequired[Question]
    waiting: NotRequired[Waiting]
    calls_open: int
    irregularities: NotRequired[list[dict[str, Any]]]  # judge: every one, settled or not
    open: NotRequired[list[OpenItem]]  # judge: irregularities and calls not yet settled
    broken: NotRequired[str | None]  # judge: why the record is held after a correction


class TableRow(TypedDict):
    """One table in the judge's overview. ``held`` alone (with ``game``) when the game's record
    failed verification."""

    game: str
    held: NotRequired[str]
    game_module: NotRequired[str]
    players: NotRequired[dict[str, str]]
    phase: NotRequired[str]
    turn: NotRequired[dict[str, Any]]
    winner: NotRequired[str | None]
    reason: NotRequired[str | None]
    open_calls: NotRequired[int]
    open_irregularities: NotRequired[int]
    calls: NotRequired[list[OpenItem]]  # the open calls themselves, with their notes
    irregularities: NotRequired[list[OpenItem]]  # the open irregularities themselves
    waiting: NotRequired[bool]
    waiting_since: NotRequired[str | None]  # when the open question was asked
    broken: NotRequired[str | None]
    last_time: NotRequired[str]
    head: NotRequired[Head]


class RulingResult(TypedDict):
    """The ruling tool's answer on a posed action (the game is not changed)."""

    legal: bool
    rules: list[str]
    ruling: str
    citations: list[Any]
    other_profiles: dict[str, Any]
    result: dict[str, Any]


class ReplayStep(TypedDict):
    """One record of a replay as a seat may see it, the table after it, its action's rules."""

    record: dict[str, Any]
    view: SeatView
    rules: list[str]


@dataclass(frozen=True)
class Created:
    game: str
    codes: dict[str, str]  # player seat -> secret join code (no judge's: the server's judges)


@dataclass(frozen=True)
class IdleCount:
    """The games nobody has joined yet (nothing recorded since their creation), as the cap on
    idle games counts them (issue 31): ``count``; ``now``, the referee's clock when they were
    counted; ``frees_at``, when the oldest of them stops counting (None when none is counted,
    or when they count for ever)."""

    count: int
    now: datetime
    frees_at: datetime | None = None

    @property
    def frees_in(self) -> float | None:
        """Seconds from ``now`` until the oldest counted game stops counting, or None."""
        if self.frees_at is None:
            return None
        return max(0.0, (self.frees_at - self.now).total_seconds())


@dataclass(frozen=True)
class Claim:
    """What opening a join link gave this device: ``seat``; ``token`` (the device's own
    secret, for its cookie or as a Bearer token; None when the seat is held by another
    device); ``held`` (True when it is); ``request`` (the seq of this device's request for a
    held seat, while it waits for approval); ``recovery`` (at a table without a judge, the
    seat's recovery code, given once to the device that just took the seat: it moves the seat
    back to whoever holds it, :meth:`referee.tables.Tables.recover`)."""

    seat: str
    token: str | None
    held: bool = False
    request: int | None = None
    recovery: str | None = None


@dataclass(frozen=True)
class Device:
    """What a device token opens now (:meth:`referee.tables.Tables.device`): ``seat`` (a
    player's, or "public"); ``token`` (the token the device holds from now on, when it was
    rotated by this use, else None); ``held`` (the seat whose key this token is, when that seat
    is held because two devices used its key: the token opens nothing until it is settled)."""

    seat: str
    token: str | None = None
    held: str | None = None


@dataclass(frozen=True)
class Receipt:
    """What a submitter gets back: the event number, its events as he may see them, the view."""

    seq: int
    events: list[dict[str, Any]]
    view: SeatView
    rules: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "events": self.events,
            "rules": self.rules,
            "notes": self.notes,
            "view": self.view,
        }


@dataclass(frozen=True)
class GameInfo:
    """Which game a table plays: its module's name (a view's ``game_module``), its title and
    its player seats in order (``judge`` and ``public`` are the service's)."""

    module: str
    title: str
    players: tuple[str, ...]
