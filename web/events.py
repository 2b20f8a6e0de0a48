"""What the event pages and the event API share (issue 34): the app's :class:`Events`, the
event id check, who a request is at an event (the event-player cookie, a Bearer code), and the
round clock's values (the widget: ``_event_clock.html``, ``static/event-clock.js``).

An event player's personal code (T13: :meth:`Events.register` gives it once) opens his event
page. His link ``/e/<event>/p/<code>`` is a join link: opening it changes nothing, its one
button POSTs, and the browser keeps an HttpOnly, SameSite=Strict cookie ``hze_<event>``
holding the code (the service keeps only its hash, and checks it again on every request); a
script sends the code as ``Authorization: Bearer <code>`` instead. The organiser is the
server's tournament judge (:func:`web.request.is_tournament_judge`).
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

from flask import Blueprint, current_app, g, request
from flask_babel import format_percent, get_locale
from werkzeug.wrappers import Response

from referee.errors import NotFound, ServiceError
from referee.event.log import store_id
from referee.event.service import Events
from referee.event.state import EVENT_ID, EventState, Round, Table
from referee.language import Say
from referee.store import parse_utc
from web.errors import service_error_response
from web.i18n import gettext, lazy_gettext, say, script_words
from web.request import bearer, get_referee, is_tournament_judge, keep_cookie

__all__ = [
    "EVENT_COOKIE_PREFIX",
    "Clock",
    "GameAtEvent",
    "clock_of",
    "event_cookie_name",
    "event_of_game",
    "event_or_404",
    "event_phase",
    "forget_player_cookie",
    "get_events",
    "install",
    "is_organiser",
    "percent",
    "player_code",
    "player_of",
    "refused",
    "set_player_cookie",
    "source_word",
    "sync_now",
]

EVENT_COOKIE_PREFIX = "hze_"
_GAME_AT = re.compile(
    r"^(?P<event>[A-Za-z0-9_-]{1,40})-r(?P<round>[1-9][0-9]{0,3})t(?P<table>[1-9][0-9]{0,4})"
    r"(?:g[23])?$"
)
_guard = threading.Lock()

# the words the event pages' scripts say (static/event-clock.js, static/event-live.js)
script_words(
    event_time_up=lazy_gettext("Time. The round's time is up."),
    event_minute_left=lazy_gettext("1 minute left"),
    event_minutes_left=lazy_gettext("%(num)s minutes left"),
    event_moved=lazy_gettext("The event moved: reload to see it."),
)


# ---- the service ---------------------------------------------------------------------------


def get_events() -> Events:
    """The app's :class:`Events`: one per :class:`~referee.service.Referee` (it holds the
    events' locks and cached folds), listening to the referee's bell so that a game's end is
    recorded in its event as soon as it happens (:meth:`Events.listen`)."""
    ref = get_referee()
    ext = current_app.extensions
    with _guard:
        ev = ext.get("events")
        if not isinstance(ev, Events) or ev.referee is not ref:
            ev = Events(ref)
            ev.listen()
            ext["events"] = ev
    return ev


SYNC_EVERY = 5.0  # seconds: the live poll records the games' results at most this often
_synced: dict[tuple[int, str], float] = {}


def sync_now(event: str, every: float = SYNC_EVERY) -> None:
    """Records the results the event's games reached (:meth:`Events.sync`, T8), at most once
    every ``every`` seconds per event however many pages ask (the pages' live poll: a game
    that ended in another process, or in a request the bell's listener could not see, is
    found within that time). A failure is not the reader's: it is tried again later."""
    ev = get_events()
    key = (id(ev), event)
    now = time.monotonic()
    with _guard:
        if now - _synced.get(key, -every) < every:
            return
        _synced[key] = now
    with contextlib.suppress(ServiceError):
        ev.sync(event)


def event_or_404(event: str) -> str:
    """``event`` when it names a stored event. Raises NotFound (a malformed id too)."""
    if not isinstance(event, str) or not EVENT_ID.match(event):
        raise NotFound(Say("no event %(event)s", event=repr(str(event)[:40])))
    if get_referee().store.head(store_id(event)) is None:
        raise NotFound(Say("no event %(event)s", event=repr(event)))
    return event


def is_organiser() -> bool:
    """The organiser (and the judge) of every event: the server's tournament judge."""
    return is_tournament_judge()


# ---- the event player ----------------------------------------------------------------------


def event_cookie_name(event: str) -> str:
    """The cookie holding a player's personal code at ``event``."""
    return EVENT_COOKIE_PREFIX + event


def player_code(event: str) -> str | None:
    """The personal code this request carries for ``event``: its Bearer code (unless it is
    the tournament judge's), else its ``hze_<event>`` cookie."""
    code = bearer()
    if code is not None:
        return None if is_tournament_judge() else code
    return request.cookies.get(event_cookie_name(event))


def player_of(event: str) -> str | None:
    """The player this request is at ``event`` (his code checked by the service on every
    request, constant-time), or None. Cached for the request."""
    cache: dict[str, str | None] = g.setdefault("_hz_event_players", {})
    if event in cache:
        return cache[event]
    code = player_code(event)
    who = None
    if code:
        try:
            who = get_events().player_for_code(event, code)
        except ServiceError:
            who = None
    cache[event] = who
    return who


def set_player_cookie(resp: Response, event: str, code: str) -> None:
    """Gives this browser the player's code at ``event`` (HttpOnly, SameSite=Strict)."""
    keep_cookie(resp, event_cookie_name(event), code)


def forget_player_cookie(resp: Response, event: str) -> None:
    resp.delete_cookie(event_cookie_name(event), path="/", samesite="Strict", httponly=True)


# ---- the round clock (T6, T7) --------------------------------------------------------------


@dataclass(frozen=True)
class Clock:
    """The round clock's values for the widget (``_event_clock.html``): the round, when its
    time is up (``deadline``, ISO UTC: start + round minutes; a table's own deadline adds its
    extensions, T7), the server's ``now`` (the page counts from it, not the phone's clock),
    and the extra minutes given to the table shown (0 for the round's own clock)."""

    event: str
    round: int
    started: bool
    deadline: str | None
    now: str
    extended: int = 0
    table: int | None = None

    @property
    def seconds_left(self) -> int | None:
        if self.deadline is None:
            return None
        return int((parse_utc(self.deadline) - parse_utc(self.now)).total_seconds())

    @property
    def text(self) -> str:
        """The time left as the page first shows it ("12:05", "0:00"), before its script; a
        :class:`Say` before the round starts (``|say`` in the template)."""
        left = self.seconds_left
        if left is None:
            return Say("not started") if self.round else Say("no round yet")
        left = max(0, left)
        h, rest = divmod(left, 3600)
        m, s = divmod(rest, 60)
        return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _server_now() -> str:
    """The server's clock (the ledger's), to the millisecond (as a browser's Date.parse reads)."""
    now: datetime = parse_utc(get_referee().ledger.clock.now())
    return now.isoformat(timespec="milliseconds")


def _round_deadline(r: Round, minutes: int) -> str | None:
    if r.started_at is None:
        return None
    start: datetime = parse_utc(r.started_at)
    return (start + timedelta(minutes=minutes)).isoformat(timespec="seconds")


def clock_of(st: EventState, table: int | None = None) -> Clock:
    """The clock of the latest round of ``st`` (of its table ``table`` when given: its own
    deadline, extensions included)."""
    r = st.round
    now = _server_now()
    if r is None:
        return Clock(st.event, 0, False, None, now)
    t: Table | None = None
    if table is not None:
        t = next((x for x in r.tables if x.table == table), None)
    if t is not None:
        extra = sum(e.minutes for e in t.extensions)
        return Clock(st.event, r.number, r.started_at is not None, t.deadline, now, extra, table)
    deadline = _round_deadline(r, st.settings.round_minutes)
    return Clock(st.event, r.number, r.started_at is not None, deadline, now)


# ---- a game of an event (T14) --------------------------------------------------------------


@dataclass(frozen=True)
class GameAtEvent:
    """The event a game was made by, its round and table, and that table's clock."""

    event: str
    name: str
    round: int
    table: int
    clock: Clock
    round_clock: Clock


def event_of_game(game: str) -> GameAtEvent | None:
    """The event, round and table of ``game`` when an event made it (its id is
    ``<event>-r<round>t<table>``, ``g2``/``g3`` for a best of three's later games, T14, and
    the event's round names it); None for any other game."""
    m = _GAME_AT.match(game)
    if m is None:
        return None
    eid = m["event"]
    try:
        if get_referee().store.head(store_id(eid)) is None:
            return None
        st = get_events().get(eid)
    except ServiceError:
        return None
    number, table = int(m["round"]), int(m["table"])
    r = next((x for x in st.rounds if x.number == number), None)
    t = None if r is None else next((x for x in r.tables if x.table == table), None)
    if r is None or t is None or game not in t.games:
        return None
    now = _server_now()
    extra = sum(e.minutes for e in t.extensions)
    started = r.started_at is not None
    whole = _round_deadline(r, st.settings.round_minutes)
    return GameAtEvent(
        eid,
        st.settings.name,
        number,
        table,
        Clock(eid, number, started, t.deadline, now, extra, table),
        Clock(eid, number, started, whole, now),
    )


# ---- the words of the event pages (issue 36) ---------------------------------------------------


def refused(e: ServiceError) -> str:
    """A refusal as the event pages flash it, in the request's language: ``Refused [rule]:
    message`` (the message said by :func:`web.i18n.say`; the rule id unchanged)."""
    if e.rule:
        return gettext("Refused [%(rule)s]: %(reason)s", rule=e.rule, reason=say(e.message))
    return gettext("Refused: %(reason)s", reason=say(e.message))


def event_phase(phase: str) -> str:
    """An event's phase (``registration``, ``paired``, ``playing``, ``finished``) in words."""
    words = {
        "registration": gettext("registration"),
        "paired": gettext("paired, not started"),
        "playing": gettext("playing"),
        "finished": gettext("finished"),
    }
    return words.get(phase, phase)


def source_word(source: str) -> str:
    """Who gave a result (T8): the referee, a slip, the time (T6) or a penalty (T11)."""
    words = {
        "referee": gettext("referee"),
        "slip": gettext("slip"),
        "time": gettext("time"),
        "penalty": gettext("penalty"),
    }
    return words.get(source, source)


def percent(text: str) -> str:
    """A tiebreaker's percentage as the standings write it (``"66.67%"``, two decimals) in the
    request's language (``66,67 %`` in French); anything else unchanged."""
    raw = str(text)
    if not raw.endswith("%"):
        return raw
    try:
        value = Decimal(raw[:-1]) / 100
    except InvalidOperation:
        return raw
    locale = get_locale()
    if locale is None:  # no request: as written
        return raw
    pattern = locale.percent_formats[None].pattern  # fr: "#,##0\u202f%"
    pattern = re.sub(r"0(?=[^0#,.]*$)", "0.00", pattern, count=1)  # two decimals, as written
    return str(format_percent(value, format=pattern))


def said_refusal(e: ServiceError) -> Response:
    """A refusal of the event pages and the event API: its ``message`` in the request's
    language (``error``, ``rule`` and the other fields unchanged)."""
    e.message = say(e.message)
    return service_error_response(e)


def install(bp: Blueprint) -> None:
    """Gives an event blueprint its refusals in the reader's language and its templates the
    event words (``event_phase``, the ``percent`` filter)."""
    bp.register_error_handler(ServiceError, said_refusal)
    bp.add_app_template_global(event_phase, "event_phase")
    bp.add_app_template_filter(percent, "percent")
