"""How fast clients may ask (issues 12, 31 and 33): request rates through Flask-Limiter, and the
cap on idle games.

Rates are counted by Flask-Limiter (a moving window each), keyed by who asks (:func:`who`): a
seat's device (its token for the game in the URL, checked as every request checks it), else the
client's address. The tournament judge (the organiser, who sets up and
watches the whole hall) has no rate limit. Past a limit: 429 ``TooManyRequests`` with
``Retry-After`` (the seconds until the window has room) and a sentence naming the limit; nothing
is done. Each limit is a rate such as ``"20 per second; 300 per minute"`` (Flask-Limiter's
notation, several separated by ``;``); None (``0`` on the command line) is off, the app's
default for each:

- ``RATE_SEAT``: the requests of one seat's device, whatever it asks (``referee serve
  --seat-rate``);
- ``RATE_ADDRESS``: the requests carrying no seat, by address (``--address-rate``: spectators,
  join links, the home page; many phones may share an address behind a venue's router, so it
  is generous);
- ``PHOTO_RATE``: photos of cards sent by one seat (``--photo-rate``), in every game's photo
  forms and ``POST /api/v1/games/<g>/photos`` together: reading one costs the server a core for
  a fraction of a second (a game's live-camera frames have their own bucket
  in its page module);
- game creation, by address: ``CREATE_BURST`` games in any ``CREATE_BURST /
  CREATE_PER_MINUTE`` minutes, so ``CREATE_PER_MINUTE`` a minute on average
  (``--create-burst/--create-per-minute``), and for all addresses together
  ``CREATE_GLOBAL_BURST`` in any ``CREATE_GLOBAL_BURST / CREATE_GLOBAL_PER_MINUTE`` minutes
  (``--create-global-burst/--create-global-per-minute``; issue 31: 100 addresses made 1,000
  games in 18 s). Only games made count: a creation refused for another reason spends nothing.

Where they are counted: in the referee's PostgreSQL database when the app's ``REFEREE`` stands on
a :class:`referee.pgstore.PostgresStore`, one count for every server process on that database
(:mod:`referee.pgrates`; a database fault makes each process count alone until it answers);
else in this process's memory (one process per address: N processes would let a client ask N
times its rate).

The live streams are not counted here: the front and :class:`web.live.StreamGate` cap them.

Then a cap on idle games: while ``IDLE_GAMES_CAP`` games made in the last
``IDLE_EXPIRY_MINUTES`` have had nothing recorded since their creation (no seat taken, no
action: :attr:`referee.store.GameHead.idle`), no other is made (``--idle-games``,
``--idle-expiry``); 503 ``Busy`` with ``Retry-After``, until players join some or the
oldest of them stops counting (the message says when). Games cannot be deleted: an idle game
that counted for ever would lock every player out for good once enough were abandoned, or
made slowly under the global rate. ``IDLE_EXPIRY_MINUTES`` is 60 when not set; None (``0``
on the command line) counts idle games for ever. A game made before its creation time was
kept never counts while they expire. The tournament judge has no cap either.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from flask import Flask, Response, current_app, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from flask_limiter.errors import RateLimitExceeded
from limits import parse_many

from referee import pgrates
from referee.event.state import EVENT_ID
from referee.language import Say, say_n
from referee.pgstore import PostgresStore
from referee.service import Referee
from web.errors import Busy, TooManyRequests, service_error_response
from web.events import player_code, player_of
from web.request import get_referee, is_game_id, is_tournament_judge, seat_of, seat_token

F = TypeVar("F", bound=Callable[..., Any])

PHOTO_VIEWS: set[str] = set()  # the views that read a photo of cards (:func:`reads_photos`)
CREATION_VIEWS: set[str] = set()  # the views that create a game (:func:`creates_games`)
UNCOUNTED = {"static", "live.stream"}  # files, and the streams (capped by the front)


def _name(view: Callable[..., Any]) -> str:
    return f"{view.__module__}.{view.__qualname__}"


def reads_photos(view: F) -> F:
    """Marks a view that reads a photo of cards: ``PHOTO_RATE`` counts its requests."""
    PHOTO_VIEWS.add(_name(view))
    return view


def creates_games(view: F) -> F:
    """Marks a view that creates a game: the creation rates count its successes."""
    CREATION_VIEWS.add(_name(view))
    return view


def _view_in(names: set[str]) -> bool:
    view = current_app.view_functions.get(request.endpoint or "")
    return view is not None and _name(view) in names


def who() -> str:
    """Who asks, for the rates: ``seat <game> <seat>`` for a request carrying the token of a
    seat's device at the game in its URL (a cookie or Bearer token; checked, so a made-up
    token counts as its address), ``seat event <event> <player>`` for a player's personal code
    at the event in its URL (checked the same way), else ``address <ip>``."""
    args = request.view_args or {}
    game = args.get("game")
    if isinstance(game, str) and is_game_id(game) and seat_token(game):
        seat = seat_of(game)  # the view asks the same, once per request (cached)
        if seat != "public":
            return f"seat {game} {seat}"
    event = args.get("event")
    if isinstance(event, str) and EVENT_ID.match(event) and player_code(event):
        # a player at an event (his personal code checked): his own bucket, like a seat's,
        # not his venue's shared address
        player = player_of(event)
        if player is not None:
            return f"seat event {event} {player}"
    return _address()


def _address() -> str:
    return f"address {request.remote_addr or '-'}"


def _everyone() -> str:
    return "everyone"


def rate(value: str | None, flag: str = "rate") -> str | None:
    """``value`` checked as a rate (``"20 per second; 300 per minute"``); None for None, ""
    or "0" (no limit). Raises ValueError naming ``flag`` for anything else."""
    if value is None or value.strip() in ("", "0"):
        return None
    try:
        items = parse_many(value)
    except ValueError:
        items = []
    if not items or any(i.amount < 1 for i in items):
        raise ValueError(
            f"{flag} {value!r}: a rate such as '20 per second' or '20/second; 300/minute' "
            "(a count of at least 1 per second, minute, hour or day; several separated by ';'), "
            "or 0 for none"
        )
    return value


def _window(burst: int, per_minute: float) -> str:
    """``burst`` in any window of ``burst / per_minute`` minutes (``per_minute`` on average)."""
    return f"{burst} per {max(1, round(burst / per_minute * 60))} seconds"


def _wait(limit: RequestLimit) -> float:
    return max(1.0, math.ceil(limit.window[0] - time.time()))


Message = Callable[[RequestLimit, float], str]


def _refuse(message: Message) -> Callable[[RequestLimit], Response]:
    def on_breach(limit: RequestLimit) -> Response:
        wait = _wait(limit)
        return service_error_response(TooManyRequests(message(limit, wait), wait))

    return on_breach


def _per(limit: RequestLimit) -> str:
    item = limit.limit
    unit = item.GRANULARITY.name
    n = item.multiples
    # the rate as configured ("20 per second"): notation, as the operator wrote it, untranslated
    return f"{item.amount} per {unit}" if n == 1 else f"{item.amount} per {n} {unit}s"


def _seconds(wait: float) -> str:
    if float(wait).is_integer():
        return say_n("%(num)d second", "%(num)d seconds", int(wait))
    return Say("%(seconds)s seconds", seconds=f"{wait:g}")


def _seat_message(limit: RequestLimit, wait: float) -> str:
    return Say(
        "this device asked more often than this server lets one seat (%(rate)s); try again in "
        "%(wait)s",
        rate=_per(limit),
        wait=_seconds(wait),
    )


def _address_message(limit: RequestLimit, wait: float) -> str:
    return Say(
        "this address asked more often than this server lets a device without a seat "
        "(%(rate)s); try again in %(wait)s",
        rate=_per(limit),
        wait=_seconds(wait),
    )


def _photo_message(limit: RequestLimit, wait: float) -> str:
    return Say(
        "this seat sent more photos than this server reads for one seat (%(rate)s); try again "
        "in %(wait)s",
        rate=_per(limit),
        wait=_seconds(wait),
    )


def _creation_message(limit: RequestLimit, wait: float) -> str:
    cfg = current_app.config
    return Say(
        "this device has created %(num)s games in a short time; this server lets one device "
        "create %(per_minute)s a minute: try again in %(wait)s",
        num=limit.limit.amount,
        per_minute=f"{float(cfg['CREATE_PER_MINUTE']):g}",
        wait=_seconds(wait),
    )


def _all_message(limit: RequestLimit, wait: float) -> str:
    cfg = current_app.config
    return Say(
        "games are being created on this server faster than its limit for all devices "
        "together (%(per_minute)s a minute, at most %(burst)s back to back): try again in "
        "%(wait)s",
        per_minute=f"{float(cfg['CREATE_GLOBAL_PER_MINUTE']):g}",
        burst=limit.limit.amount,
        wait=_seconds(wait),
    )


def _who_cached() -> str:
    from flask import g

    got = g.get("_rate_who")
    if got is None:
        got = g._rate_who = who()
    return str(got)


def _counted() -> bool:
    """True for a request the seat and address rates count: not the tournament judge's, not a
    file or a live stream."""
    return request.endpoint not in UNCOUNTED and not is_tournament_judge()


def _made(response: Response) -> bool:
    return response.status_code < 400


def install(app: Flask) -> Limiter:
    """The app's Flask-Limiter with the rates of ``app.config`` (see the module's docstring);
    an app without any has none (the limiter is then off)."""
    cfg = app.config
    for name in ("RATE_SEAT", "RATE_ADDRESS", "PHOTO_RATE"):
        cfg[name] = rate(cfg.get(name), name)
    limits: list[ApplicationLimit] = []

    def add(rate_: str | None, scope: str, key: Callable[[], str], **kw: Any) -> None:
        if rate_:
            limits.append(ApplicationLimit(rate_, key_function=key, scope=scope, **kw))

    add(
        cfg["RATE_SEAT"],
        "seat",
        _who_cached,
        exempt_when=lambda: not _counted() or not _who_cached().startswith("seat "),
        on_breach=_refuse(_seat_message),
    )
    add(
        cfg["RATE_ADDRESS"],
        "address",
        _who_cached,
        exempt_when=lambda: not _counted() or not _who_cached().startswith("address "),
        on_breach=_refuse(_address_message),
    )
    add(
        cfg["PHOTO_RATE"],
        "photos",
        _who_cached,
        methods=["POST"],
        exempt_when=lambda: not _view_in(PHOTO_VIEWS) or is_tournament_judge(),
        on_breach=_refuse(_photo_message),
    )
    creations: tuple[tuple[str, str, str, Callable[[], str], Message], ...] = (
        ("CREATE_BURST", "CREATE_PER_MINUTE", "create", _address, _creation_message),
        ("CREATE_GLOBAL_BURST", "CREATE_GLOBAL_PER_MINUTE", "create all", _everyone, _all_message),
    )
    for burst, per_minute, scope, key, message in creations:
        if cfg.get(per_minute):
            add(
                _window(int(cfg.get(burst) or 1), float(cfg[per_minute])),
                scope,
                key,
                methods=["POST"],
                exempt_when=lambda: not _view_in(CREATION_VIEWS) or is_tournament_judge(),
                deduct_when=_made,
                on_breach=_refuse(message),
            )
    limiter = Limiter(
        key_func=_address,
        app=app,
        application_limits=list(limits),
        **_storage(app),
        strategy="moving-window",
        enabled=bool(limits),
    )
    app.register_error_handler(RateLimitExceeded, _rate_limit_exceeded)
    return limiter


def _storage(app: Flask) -> dict[str, Any]:
    """Where the limiter counts: in the referee's PostgreSQL database when its store is a
    :class:`PostgresStore` that may write (one count for every process on it:
    :mod:`referee.pgrates`), else in this process's memory."""
    ref = app.config.get("REFEREE")
    if isinstance(ref, Referee) and isinstance(ref.store, PostgresStore) and not ref.store.readonly:
        return {"storage_uri": f"{pgrates.SCHEME}://", "storage_options": {"store": ref.store}}
    return {"storage_uri": "memory://"}


def _rate_limit_exceeded(e: RateLimitExceeded) -> Response:
    if isinstance(e.response, Response):
        return e.response
    return service_error_response(TooManyRequests(e.description or Say("too many requests"), 1.0))


IDLE_RETRY = 60.0  # seconds a client refused by the idle-games cap is asked to wait, at most
IDLE_EXPIRY_MINUTES = 60.0  # how long an idle game counts against the cap, unless configured


def _check_idle(cap: int, expiry_minutes: float | None) -> None:
    """Raises Busy when ``cap`` games made in the last ``expiry_minutes`` (None or 0: ever)
    are idle, saying when the oldest of them stops counting."""
    within = timedelta(minutes=float(expiry_minutes)) if expiry_minutes else None
    idle = get_referee().idle_count(within)
    if idle.count < cap:
        return
    held = say_n(
        "%(num)d game nobody has joined yet", "%(num)d games nobody has joined yet", idle.count
    )
    wait = idle.frees_in
    if within is None or idle.frees_at is None or wait is None:
        raise Busy(
            Say(
                "this server holds %(held)s, its limit on idle games (%(cap)s): no game is made "
                "until players join some; try again later or ask the organiser",
                held=held,
                cap=cap,
            ),
            IDLE_RETRY,
        )
    minutes = max(1, math.ceil(wait / 60))
    raise Busy(
        Say(
            "this server holds %(held)s (made in the last %(expiry)s minutes), its limit on idle "
            "games (%(cap)s): no game is made until fewer are, as players join them or they stop "
            "counting (the oldest at %(time)s UTC, in at most %(minutes)s); try again then or "
            "ask the organiser",
            held=held,
            expiry=f"{float(expiry_minutes or 0):g}",
            cap=cap,
            time=f"{idle.frees_at:%H:%M}",
            minutes=say_n("%(num)d minute", "%(num)d minutes", minutes),
        ),
        min(IDLE_RETRY, max(1.0, math.ceil(wait))),
    )


def check_idle_games() -> None:
    """Raises Busy (503) when the server holds as many idle games as it may; the tournament
    judge has no cap. (The creation rates are counted before the view, by the limiter.)"""
    cap = current_app.config.get("IDLE_GAMES_CAP")
    if cap and not is_tournament_judge():
        _check_idle(int(cap), current_app.config.get("IDLE_EXPIRY_MINUTES", IDLE_EXPIRY_MINUTES))
