"""The player's event page (issue 34), for a phone: ``/e/<event>``.

His personal link ``/e/<event>/p/<code>`` behaves like a seat's join link (:mod:`web.auth`):
opening it changes nothing (a chat app's preview bot fetches links too), its one button POSTs,
the browser keeps an HttpOnly, SameSite=Strict cookie ``hze_<event>`` holding his code (checked
by the service on every request, :func:`web.events.player_of`), and the redirect takes the code
out of the address bar (and the access log cuts it, :func:`web.middleware.loggable_path`).

With the cookie, ``/e/<event>`` is his page: the round and its clock (his table's deadline,
extensions included, T6, T7), his table, opponent and side, his seat link to the game (the
game's own join link, :meth:`Events.seat_link`: for him alone, T13), his record and points,
"confirm" or "dispute" when his table's referee-reported result waits (T8), his own penalties
(T11, T13), a drop button (with a confirmation), and the standings. Without it, the public view
(pairings, standings, clock). The page follows the event: ``/e/<event>/head`` answers the
event log's last record number (cheap: the store's head; the games' results are recorded at
most every few seconds per event, :func:`web.events.sync_now`), the page's script asks every
few seconds and reloads its live part when it moved, keeping a half-typed note.

Self-registration from a QR code at the venue: ``/e/<event>/register`` (a name), refused with
the rule when the event does not take it or its registration is closed (T9); a late entry is
told of his losses for the rounds he missed (T9).
"""

from __future__ import annotations

import contextlib
from typing import Any

from flask import Blueprint, flash, jsonify, redirect, render_template, request
from werkzeug.wrappers import Response

from referee.errors import NotFound, Refused, ServiceError
from referee.event.log import store_id
from referee.event.state import EventState
from referee.games import game_named
from referee.language import Say
from web.event_api import event_csrf_key
from web.events import (
    clock_of,
    event_or_404,
    forget_player_cookie,
    get_events,
    install,
    player_of,
    refused,
    set_player_cookie,
    sync_now,
)
from web.i18n import gettext
from web.request import check_csrf, csrf_token, get_referee

bp = Blueprint("eventplayer", __name__)
install(bp)

POLL_MS = 3000  # how often the page asks whether the event moved


def _no_link() -> NotFound:
    return NotFound(
        Say("this personal link opens no player's page: it is mistyped (ask the organiser for it)")
    )


def _sync(event: str) -> None:
    """Records the results the event's games reached (T8) before the page reads it."""
    with contextlib.suppress(ServiceError):
        get_events().sync(event)


def _no_store(body: str, status: int = 200) -> tuple[str, int, dict[str, str]]:
    return body, status, {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


# ---- the personal link ---------------------------------------------------------------------


@bp.get("/e/<event>/p/<code>")
def personal_link(event: str, code: str) -> Response | tuple[str, int, dict[str, str]]:
    """One button ("This is me"); opening the link changes nothing. A browser that holds this
    player's cookie already goes to the page. Raises NotFound for a code that is no player's."""
    event_or_404(event)
    who = get_events().player_for_code(event, code)
    if who is None:
        raise _no_link()
    if player_of(event) == who:
        return _go(f"/e/{event}")
    name = get_events().get(event).player(who).name
    page = render_template(
        "event_join.html",
        event=event,
        title=get_events().get(event).settings.name,
        name=name,
        csrf=csrf_token(event_csrf_key(event)),
    )
    return _no_store(page)


@bp.post("/e/<event>/p/<code>")
def take_personal_link(event: str, code: str) -> Response:
    """Keeps the player's code in this browser (HttpOnly, SameSite=Strict) and leaves for his
    page, the code out of the address bar. Raises NotFound, CsrfError."""
    event_or_404(event)
    check_csrf(event_csrf_key(event))
    if get_events().player_for_code(event, code) is None:
        raise _no_link()
    resp = _go(f"/e/{event}")
    set_player_cookie(resp, event, code)
    return resp


def _go(target: str) -> Response:
    resp = redirect(target, 303)
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


@bp.post("/e/<event>/leave")
def leave(event: str) -> Response:
    """Forgets this browser's player (a borrowed phone)."""
    event_or_404(event)
    check_csrf(event_csrf_key(event))
    resp = _go(f"/e/{event}")
    forget_player_cookie(resp, event)
    return resp


# ---- the page ------------------------------------------------------------------------------


def _side_names(st: EventState) -> tuple[str, str]:
    """The game's first and second seat names, as a player reads them."""
    players = game_named(st.settings.game).players
    return players[0].capitalize(), players[1].capitalize()


def _mine(st: EventState, who: str) -> dict[str, Any]:
    """What his page shows of his own (T13): table, opponent, side, seat link, record,
    points, the result waiting for him, his penalties."""
    ev = get_events()
    pv = ev.player(st.event, who)
    me = pv.me
    names = {p.id: p.name for p in st.players}
    first, second = _side_names(st)
    t = st.table_of(who)
    side = None
    waiting = None
    if t is not None:
        game = t.current_game or (t.games[-1] if t.games else None)
        if game is not None:
            side = first if t.firsts[t.games.index(game)] == who else second
        elif st.round is not None and st.round.started_at is None:
            side = first if t.first == who else second
        if t.results:
            res = t.results[-1]
            if not res.final:
                waiting = {
                    "number": res.number,
                    "winner": None if res.winner is None else names.get(res.winner, res.winner),
                    "me_won": res.winner == who,
                    "draw": res.winner is None,
                    "reason": res.reason,
                    "confirmed": who in res.confirmed,
                    "disputed": bool(res.disputed),
                    "source": res.source,
                }
    row = next((s for s in st.standings if s.player == who), None)
    link = None
    if me.seat_link is not None:
        link = f"/join/{me.seat_link.game}/{me.seat_link.code}"
    return {
        "me": me,
        "opponent": None if me.opponent is None else names.get(me.opponent, me.opponent),
        "side": side,
        "seat_link": link,
        "game": None if me.seat_link is None else me.seat_link.game,
        "points": None if row is None else row.match_points,
        "waiting": waiting,
        "table": t,
        # T10: the higher seed of a top cut's table (its first seat) chooses his side before
        # the round starts
        "choose_side": t is not None
        and st.round is not None
        and st.round.cut
        and st.round.started_at is None
        and not t.side_chosen
        and t.first == who,
    }


def _context(event: str) -> dict[str, Any]:
    ev = get_events()
    _sync(event)
    st = ev.get(event)
    who = player_of(event)
    mine = _mine(st, who) if who is not None else None
    table = None if mine is None or mine["table"] is None else mine["table"].table
    head = st.head
    return {
        "event": event,
        "st": st,
        "view": ev.public(event),
        "mine": mine,
        "who": who,
        "clock": clock_of(st, table),
        "seq": -1 if head is None else head[0],
        "sides": _side_names(st),
        "csrf": csrf_token(event_csrf_key(event)),
        "poll_ms": POLL_MS,
    }


@bp.get("/e/<event>")
def event_page(event: str) -> tuple[str, int, dict[str, str]]:
    """His page with his cookie; the public view without it. ``?part=live``: only the part
    that follows the event (the page's script swaps it in)."""
    event_or_404(event)
    ctx = _context(event)
    if request.args.get("part") == "live":
        return _no_store(render_template("_event_live.html", **ctx))
    return _no_store(render_template("event_player.html", **ctx))


@bp.get("/e/<event>/head")
def event_head(event: str) -> Response:
    """The event log's last record number: the page reloads its live part when it moves."""
    event_or_404(event)
    sync_now(event)
    head = get_referee().store.head(store_id(event))
    resp = jsonify({"seq": -1 if head is None else head[0]})
    resp.headers["Cache-Control"] = "no-store"
    return resp


# ---- his actions ---------------------------------------------------------------------------


def _act(event: str, what: str) -> Response:
    """Runs one of the player's steps; a refusal is flashed with its rule (nothing written)."""
    event_or_404(event)
    check_csrf(event_csrf_key(event))
    who = player_of(event)
    resp = _go(f"/e/{event}")
    if who is None:
        flash(
            gettext("Refused: open your personal link first (the organiser gave it to you)"),
            "error",
        )
        return resp
    ev = get_events()
    try:
        if what == "confirm":
            ev.confirm(event, who)
            flash(gettext("You confirmed the result."), "ok")
        elif what == "dispute":
            note = request.form.get("note", "").strip()
            if not note:
                raise Refused(
                    Say("note: say what is wrong with the result, for the judge (T8)"), "T8"
                )
            ev.dispute(event, who, note[:500])
            flash(gettext("Your dispute is recorded: the judge will come to your table."), "ok")
        elif what == "drop":
            if request.form.get("sure") != "yes":
                raise Refused(Say("drop: tick the box to confirm you leave the event (T9)"), "T9")
            ev.drop(event, who, "the player dropped himself", by=who)
            flash(gettext("You dropped from the event. Your results keep counting (T9)."), "ok")
        elif what == "side":
            t = ev.get(event).table_of(who)
            if t is None:
                raise Refused(Say("side: you play at no table of this round (T10)"), "T10")
            ev.choose_side(event, t.table, request.form.get("seat", ""), by=who)
            flash(gettext("Your choice of side is recorded."), "ok")
        elif what == "checkin":
            ev.check_in(event, who, by=who)
            flash(gettext("You are checked in."), "ok")
    except ServiceError as e:
        flash(refused(e), "error")
    return resp


@bp.post("/e/<event>/confirm")
def confirm(event: str) -> Response:
    return _act(event, "confirm")


@bp.post("/e/<event>/dispute")
def dispute(event: str) -> Response:
    return _act(event, "dispute")


@bp.post("/e/<event>/drop")
def drop(event: str) -> Response:
    return _act(event, "drop")


@bp.post("/e/<event>/side")
def side(event: str) -> Response:
    return _act(event, "side")


@bp.post("/e/<event>/checkin")
def checkin(event: str) -> Response:
    return _act(event, "checkin")


# ---- self-registration (T9) ----------------------------------------------------------------


def _registration_closed(st: EventState) -> str | None:
    """Why this event takes no self-registration now, naming the rule; None when it does."""
    if not st.settings.self_register:
        return Say("this event takes no self-registration: the organiser registers players (T9)")
    if st.over or st.cut is not None:
        return Say("registration is closed: the Swiss rounds are over (T9, T10)")
    return None


@bp.get("/e/<event>/register")
def register_page(event: str) -> tuple[str, int, dict[str, str]]:
    """A name field; refused with the rule when the event does not take it (403)."""
    event_or_404(event)
    st = get_events().get(event)
    closed = _registration_closed(st)
    late = st.round is not None and st.round.started_at is not None
    page = render_template(
        "event_register.html",
        event=event,
        st=st,
        closed=closed,
        late=late,
        csrf=csrf_token(event_csrf_key(event)),
    )
    return _no_store(page, 403 if closed else 200)


@bp.post("/e/<event>/register")
def register(event: str) -> Response | tuple[str, int, dict[str, str]]:
    """Registers the player himself; his browser keeps his code and he is shown his personal
    link, once (to open his page on another phone). A late entry is told of his losses (T9)."""
    event_or_404(event)
    check_csrf(event_csrf_key(event))
    ev = get_events()
    st = ev.get(event)
    closed = _registration_closed(st)
    name = request.form.get("name", "").strip()
    error = closed
    reg = None
    if error is None:
        try:
            reg = ev.register(event, name, by="self")
        except ServiceError as e:
            error = refused(e)
    if reg is None:
        page = render_template(
            "event_register.html",
            event=event,
            st=st,
            closed=closed,
            error=error,
            name=name,
            late=st.round is not None and st.round.started_at is not None,
            csrf=csrf_token(event_csrf_key(event)),
        )
        return _no_store(page, 403 if closed else 422)
    p = ev.get(event).player(reg.player)
    page = render_template(
        "event_registered.html",
        event=event,
        st=ev.get(event),
        player=p,
        link=f"{request.host_url.rstrip('/')}/e/{event}/p/{reg.code}",
        missed=max(0, p.entered_round - 1),
    )
    body, status, headers = _no_store(page, 201)
    resp = Response(body, status, headers, mimetype="text/html")
    set_player_cookie(resp, event, reg.code)
    return resp
