"""The round clock (T6, T7): each table's deadline and time left, and the round's own clock.

Pure and game-neutral: it reads no clock (the caller passes ``now``), stores nothing and knows
no game. Every instant is a timezone-aware UTC ``datetime``.

- A round has one clock, set by the organiser: ``minutes`` from its start (T6; 50 by default
  for a best of one, :data:`DEFAULT_MINUTES`), 10 to 180.
- The judge may give a table extra minutes, each extension 1 to 60 minutes with its reason
  (T7); a table's deadline is the round's plus its extensions.
- A table's phase: "not started" before the round starts; "running" until its deadline;
  "time" from its deadline (the player whose turn it is finishes it, then each player takes
  :data:`EXTRA_TURNS` more turns; a game still without a winner is a draw, T6); "finished"
  once the table's result is in, whatever the time.
- The round's clock: the base deadline (start + minutes), and the round's deadline, the latest
  deadline among the tables still playing (the base deadline when none is).

Bad input raises :class:`ValueError` naming the input and the rule; nothing is computed from
a half-valid input.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

DEFAULT_MINUTES = 50  # T6: a best of one
MIN_ROUND_MINUTES, MAX_ROUND_MINUTES = 10, 180
MIN_EXTENSION, MAX_EXTENSION = 1, 60  # minutes (T7)
EXTRA_TURNS = 2  # T6: at time, the turn is finished, then each player takes two more


class Phase(enum.Enum):
    """Where a table (or the round) stands on the clock."""

    NOT_STARTED = "not started"
    RUNNING = "running"
    TIME = "time"  # past the deadline: the turn finishes, then two more turns each (T6)
    FINISHED = "finished"  # the result is in


@dataclass(frozen=True, slots=True)
class Extension:
    """Extra minutes the judge gave one table, with the reason (T7): "a ruling took time"."""

    minutes: int
    reason: str


@dataclass(frozen=True, slots=True)
class TableState:
    """One table as the clock needs it: its number, its extensions (T7) and whether its result
    is in."""

    number: int
    extensions: tuple[Extension, ...] = ()
    finished: bool = False


@dataclass(frozen=True, slots=True)
class TableClock:
    """One table's clock: its deadline (``None`` while the round has no start), the minutes
    its extensions add, the seconds left until the deadline (negative past it; the whole time,
    extensions included, while the round has no start) and its phase."""

    number: int
    deadline: datetime | None
    extra_minutes: int
    seconds_left: int
    phase: Phase


@dataclass(frozen=True, slots=True)
class RoundClock:
    """The round's clock: the base deadline (start + minutes) and seconds to it, the round's
    deadline (the latest of the tables still playing; the base when none is) and seconds to
    it, the round's phase (finished when every table is; else as its deadline says), and
    each table's clock in table order."""

    base_deadline: datetime | None
    base_seconds_left: int
    deadline: datetime | None
    seconds_left: int
    phase: Phase
    tables: tuple[TableClock, ...]


def _check_utc(what: str, when: datetime) -> None:
    if when.tzinfo is None or when.utcoffset() != timedelta(0):
        raise ValueError(f"{what} {when.isoformat()}: must be a timezone-aware UTC instant")


def check_extension(extension: Extension) -> None:
    """Raises ValueError unless the extension is 1 to 60 whole minutes with a reason (T7)."""
    m = extension.minutes
    if isinstance(m, bool) or not isinstance(m, int) or not MIN_EXTENSION <= m <= MAX_EXTENSION:
        raise ValueError(
            f"extension of {m!r} minutes: must be {MIN_EXTENSION} to {MAX_EXTENSION} whole "
            "minutes (T7)"
        )
    if not extension.reason.strip():
        raise ValueError(f"extension of {m} minutes: an extension needs its reason (T7)")


def check_round_minutes(minutes: int) -> None:
    """Raises ValueError unless the round lasts 10 to 180 whole minutes (T6)."""
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, int)
        or not MIN_ROUND_MINUTES <= minutes <= MAX_ROUND_MINUTES
    ):
        raise ValueError(
            f"round of {minutes!r} minutes: must be {MIN_ROUND_MINUTES} to {MAX_ROUND_MINUTES} "
            "whole minutes (T6)"
        )


def round_clock(
    start: datetime | None, minutes: int, tables: Sequence[TableState], now: datetime
) -> RoundClock:
    """The round's clock at ``now`` for a round that started at ``start`` (``None``: not yet)
    and lasts ``minutes``, with its ``tables``.

    Raises ValueError for round minutes outside 10-180, an extension outside 1-60 minutes or
    without a reason (T7), a table number below 1 or given twice, an instant that is not
    timezone-aware UTC.
    """
    check_round_minutes(minutes)
    _check_utc("now", now)
    if start is not None:
        _check_utc("start", start)
    numbers = [t.number for t in tables]
    for t in tables:
        if t.number < 1 or numbers.count(t.number) > 1:
            raise ValueError(f"table {t.number}: table numbers must be 1 or more, each given once")
        for e in t.extensions:
            check_extension(e)
    base = None if start is None else start + timedelta(minutes=minutes)
    clocks = tuple(
        _table_clock(t, base, minutes, start, now) for t in sorted(tables, key=lambda t: t.number)
    )
    playing = [c for c in clocks if c.phase is not Phase.FINISHED]
    if base is None:
        longest = max((c.extra_minutes for c in playing), default=0)
        deadline, left = None, (minutes + longest) * 60
    else:
        deadline = max((c.deadline for c in playing if c.deadline is not None), default=base)
        left = _seconds(deadline - now)
    phase = Phase.FINISHED if clocks and not playing else _phase(start, deadline, now)
    base_left = minutes * 60 if base is None else _seconds(base - now)
    return RoundClock(base, base_left, deadline, left, phase, clocks)


def _table_clock(
    table: TableState, base: datetime | None, minutes: int, start: datetime | None, now: datetime
) -> TableClock:
    extra = sum(e.minutes for e in table.extensions)
    if base is None:
        deadline, left = None, (minutes + extra) * 60
    else:
        deadline = base + timedelta(minutes=extra)
        left = _seconds(deadline - now)
    phase = Phase.FINISHED if table.finished else _phase(start, deadline, now)
    return TableClock(table.number, deadline, extra, left, phase)


def _phase(start: datetime | None, deadline: datetime | None, now: datetime) -> Phase:
    if start is None or deadline is None or now < start:
        return Phase.NOT_STARTED
    return Phase.RUNNING if now < deadline else Phase.TIME


def _seconds(delta: timedelta) -> int:
    """Whole seconds left, counted up as countdown clocks do (0.4 s left shows 1 s)."""
    return math.ceil(delta.total_seconds())


def remaining_text(seconds: int) -> str:
    """Seconds left as a clock shows them: "12:34", "0:05", past time "-0:45"; minutes are
    not folded into hours ("125:00")."""
    sign = "-" if seconds < 0 else ""
    m, s = divmod(abs(seconds), 60)
    return f"{sign}{m}:{s:02d}"


def turns_ended(
    turns: Iterable[tuple[datetime, str]], deadline: datetime
) -> tuple[str | None, int]:
    """T6 counted in a game's record: ``turns`` is, record by record in order, when it was
    written and whose turn it was after it. Returns the seat whose turn it was at
    ``deadline`` (the last record written by then; the first one after it when none was) and
    how many turns have ended since: a turn ends when the turn passes to the other seat, as
    it does in the games the referee runs, whose players take turns."""
    at_time: str | None = None
    current: str | None = None
    ended = 0
    for when, player in turns:
        if at_time is None or when <= deadline:
            at_time = current = player
        elif player != current:
            ended += 1
            current = player
    return at_time, ended


def extra_turns_left(ended: int) -> int:
    """Turns still to end at a table past its time (T6): the turn at time, then
    :data:`EXTRA_TURNS` each; 0 once they are played."""
    return max(0, 1 + 2 * EXTRA_TURNS - ended)
