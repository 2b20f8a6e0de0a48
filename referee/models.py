"""What the service returns: one typed definition of each value that crosses into the pages,
the API and the CLI. The API's schemas of a seat's view, a receipt and a ruling are generated
from these (:mod:`web.openapi`, ``msgspec.json.schema_components``): there is no second
definition of the same shape.

A seat's view (:class:`SeatView`) is a frozen msgspec ``Struct``: the service's part (seat,
head, questions, calls, the judge's corrections) and the game's own typed board view in one
field, ``board`` (a :class:`Board`: phase, whose turn, the outcome, and the game's own keys,
in the game's module). A ruling (:class:`Ruling`) carries the game's
own typed ``result``. Their JSON (:meth:`SeatView.to_json`) is the API's wire form, the
board's keys beside the service's. Everything in a view is already cut for its seat.

The small parts (``Head``, ``Question``...) are ``TypedDict``s: JSON as they are, checked by
mypy where they are built and read, and read by msgspec for the schema.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, NotRequired, TypedDict, TypeVar

import msgspec
from msgspec import UNSET, UnsetType


class Head(TypedDict):
    """The game's last record: what the players write down to verify an export."""

    seq: int
    hash: str


def _plain(obj: Any) -> Any:
    """A sentence that can be said again (``engine.say.Say``, ``Named``: ``str`` subclasses,
    which msgspec does not encode) as its English words."""
    if isinstance(obj, str):
        return str.__str__(obj)
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


class Turn(TypedDict):
    """Whose turn it is; a game's own turn (its :class:`Board`'s ``turn``) adds its counts."""

    player: str
    first: bool


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


class Board(msgspec.Struct, frozen=True, kw_only=True):
    """What a game says of the position for one seat: what every game has (the phase, whose
    turn, the outcome: ``winner`` and ``reason``, None while it is open), and in a game's
    subclass its own keys (its sides, counts, profile...), cut for the seat."""

    phase: str
    turn: Turn
    winner: str | None
    reason: str | None


B = TypeVar("B", bound=Board)
R = TypeVar("R")


class SeatView(msgspec.Struct, Generic[B], frozen=True, kw_only=True):
    """The table as one seat may see it: the service's facts and the game's ``board``. A field
    left :data:`msgspec.UNSET` is not in the JSON: ``legal`` when the seat may act,
    ``asked``/``waiting`` while a question is open, ``kit_id`` at a kit's table, the judge's
    fields for the judge only."""

    game: str
    game_module: str  # which game this is: the name of its module (``Game.name``)
    seat: str
    seq: int
    head: Head
    players: dict[str, str]
    kit: str  # "kit" (cards carry stickers) or "manual"
    calls_open: int
    board: B
    kit_id: str | UnsetType | None = UNSET
    legal: list[str] | UnsetType = UNSET
    asked: Question | UnsetType = UNSET
    waiting: Waiting | UnsetType = UNSET
    irregularities: list[dict[str, Any]] | UnsetType = UNSET  # judge: every one, settled or not
    open: list[OpenItem] | UnsetType = UNSET  # judge: irregularities and calls not yet settled
    broken: str | UnsetType | None = UNSET  # judge: why the record is held after a correction

    # the parts every game's board has, read through the view
    @property
    def phase(self) -> str:
        return self.board.phase

    @property
    def turn(self) -> Turn:
        return self.board.turn

    @property
    def winner(self) -> str | None:
        return self.board.winner

    @property
    def reason(self) -> str | None:
        return self.board.reason

    def to_json(self) -> dict[str, Any]:
        """The view's JSON, as the API and the pages send it: the board's keys beside the
        service's (one flat object; a key left unset is absent)."""
        out: dict[str, Any] = msgspec.to_builtins(self, enc_hook=_plain)
        out.update(out.pop("board"))
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any], board: type[B]) -> SeatView[B]:
        """A view read back from its JSON (:meth:`to_json`; an API client's), its board as
        ``board``; keys neither has (the web's ``csrf``) are left out. Raises
        msgspec.ValidationError naming the field that does not fit."""
        own = set(cls.__struct_fields__)
        shared = {k: v for k, v in raw.items() if k in own}
        shared["board"] = {k: v for k, v in raw.items() if k not in own}
        return msgspec.convert(shared, SeatView[board])  # type: ignore[valid-type]


class ProfileVerdict(msgspec.Struct, frozen=True, kw_only=True):
    """What a ruling finds under one rule profile."""

    legal: bool
    failed_at: int | None
    winner: str | None
    reason: str | None
    rules: list[str]


class Ruling(msgspec.Struct, Generic[R], frozen=True, kw_only=True):
    """The ruling tool's answer on a posed action (the game is not changed): ``legal``, the
    ``rules`` applied, the ``ruling`` in words, the rules cited (id -> citation), what the
    other profiles rule, and the game's own ``result``."""

    legal: bool
    rules: list[str]
    ruling: str
    citations: dict[str, str]
    other_profiles: dict[str, ProfileVerdict]
    result: R

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self, enc_hook=_plain)
        return out


class Caution(msgspec.Struct, frozen=True, kw_only=True):
    """The guardian's warning on an action before it is confirmed (issue 37): the ``rule`` it
    would fall under, the ``text`` for the player (an :class:`engine.say.Say`, said in the
    reader's language at the edge) and the legal ``alternatives`` that avoid it, in the
    game's notation (as its legal list writes them). Computed by the game from the position
    as the acting seat sees it (``Game.guard``), never from a card hidden from him."""

    rule: str
    text: str
    alternatives: list[str]

    def to_json(self, said: Callable[[str], str] = str.__str__) -> dict[str, Any]:
        """Its JSON, the text said by ``said`` (the request's language; English by default)."""
        return {"rule": self.rule, "text": said(self.text), "alternatives": list(self.alternatives)}


class ReplayStep(TypedDict):
    """One record of a replay as a seat may see it, the table after it, its action's rules."""

    record: dict[str, Any]
    view: SeatView[Any]
    rules: list[str]


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


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """What a submitter gets back: the event number, its events as he may see them, the
    rules the action applied and the game's notes, and the view after it."""

    seq: int
    events: list[dict[str, Any]]
    view: SeatView[Any]
    rules: list[str] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The receipt's JSON, its view as :meth:`SeatView.to_json` writes it."""
        return {
            "seq": self.seq,
            "events": self.events,
            "rules": self.rules,
            "notes": self.notes,
            "view": self.view.to_json(),
        }


@dataclass(frozen=True)
class GameInfo:
    """Which game a table plays: its module's name (a view's ``game_module``), its title and
    its player seats in order (``judge`` and ``public`` are the service's)."""

    module: str
    title: str
    players: tuple[str, ...]
