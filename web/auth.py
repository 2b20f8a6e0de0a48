"""Joining a seat: a join link's page takes its seat for one browser; a second browser asks
for it; the judge (at a table without one, the device holding it, or the seat's recovery code)
moves it; leaving a shared phone.

A seat's secret join code travels in the join link ``/join/<game>/<code>``. Opening it changes
nothing (a chat app's preview bot fetches links too): it shows one large "Take <seat>'s seat"
button, a POST to the same address. The first browser that presses it claims the seat (a public
``claim`` record) and gets an HttpOnly, SameSite=Strict cookie ``hz_<game>`` holding a device
token of its own (the service keeps only its hash; the join code is never in a cookie), then is
redirected to ``/g/<game>``: the code leaves the address bar, never reaches a ``Referer`` header
(``Referrer-Policy: no-referrer`` everywhere) and never an access log
(:func:`web.middleware.loggable_path` cuts it). At a table without a judge that page shows the
seat's recovery code, once. Another browser opening the same link gets "this seat is already
held" (409) and a button to ask for it (the same POST with ``ask``: a ``request`` record; its
cookie then holds the token the seat moves to once approved). The judge approves on his page
(``POST /g/<game>/seats/approve``: a ``move`` record); at a table without one only the device
holding the seat approves, never the other player, or anyone types the seat's recovery code
(``POST /g/<game>/seats/recover``). Who a cookie makes the request is decided on every request
by :func:`web.request.seat_of`.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, current_app, flash, redirect, render_template, request
from markupsafe import Markup, escape
from werkzeug.wrappers import Response

from referee.language import Say
from referee.service import NotFound, ServiceError
from web.forms import form_int
from web.games import page_for, seat_title
from web.i18n import gettext, say
from web.request import (
    JUDGE_COOKIE,
    cookie_name,
    csrf_protected,
    csrf_token,
    get_referee,
    is_game_id,
    keep_cookie,
    refusal,
    seat_of,
    set_seat_cookie,
    with_game,
)

bp = Blueprint("auth", __name__)


# ---- the exchange --------------------------------------------------------------------------


def _hop(target: str) -> Response:
    """Redirects to ``target``. A join link opened from another site's page (a chat app in the
    browser) would not carry the fresh SameSite=Strict cookie across a plain redirect, so that
    case gets a tiny page that refreshes to the target from our own origin instead."""
    if request.headers.get("Sec-Fetch-Site") == "cross-site":
        t = escape(target)
        body = (
            '<!doctype html><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="0;url={t}">'
            f'<title>Joining…</title><p><a href="{t}">Continue to the table</a></p>'
        )
        resp = Response(body, 200, mimetype="text/html")
    else:
        resp = redirect(target, 303)
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


def _no_seat() -> NotFound:
    return NotFound(
        Say(
            "this join link opens no seat: it is mistyped, or the judge has issued a new one "
            "(ask the judge for the new link)"
        )
    )


def _title(game: str, seat: str) -> str:
    """A seat's name as the game's pages write it (``PageModule.seat_title``)."""
    return seat_title(page_for(get_referee().view(game, "public")), seat)


def _held_page(game: str, code: str, seat: str) -> tuple[str, int, dict[str, str]]:
    """The "already held" page (409), with a button to ask for the seat (and, at a table
    without a judge, the recovery code's form)."""
    page = render_template(
        "held.html",
        game=game,
        code=code,
        seat=_title(game, seat),
        judged=get_referee().seat_news(game, "public")["judged"],
        csrf=csrf_token(game),
    )
    return page, 409, {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


@bp.get("/join/<game>/<code>")
def join(game: str, code: str) -> Response | tuple[str, int, dict[str, str]]:
    """The page of a join link: one large "Take <seat>'s seat" button (a POST). Opening the
    link changes nothing (a chat app's preview bot fetches it too); a seat this browser holds
    already leaves for the game's page, a seat another device holds gets the "already held"
    page (409), with a button to ask for it.

    Raises NotFound for a code that opens no seat (unknown, mistyped or revoked)."""
    if not is_game_id(game):
        raise _no_seat()
    seat, state = get_referee().peek(game, code, request.cookies.get(cookie_name(game)))
    if state in ("mine", "asked"):
        return _hop(f"/g/{game}")
    if state == "held":
        return _held_page(game, code, seat)
    page = render_template("join.html", game=game, title=_title(game, seat), csrf=csrf_token(game))
    return page, 200, {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


@bp.post("/join/<game>/<code>")
@csrf_protected
def take(game: str, code: str) -> Response | tuple[str, int, dict[str, str]]:
    """Takes the seat of a join link for this browser (its cookie holds a device token of its
    own) and leaves for the game's page; at a table without a judge the seat's recovery code
    is shown there, once. A seat another device holds gets the "already held" page (409);
    with the form field ``ask`` this browser asks for it instead (a ``request`` record: its
    cookie then holds the token the seat moves to once the judge, or at a table without one
    the device holding the seat, approves). Raises NotFound, CsrfError."""
    if not is_game_id(game):
        raise _no_seat()
    ask = bool(request.form.get("ask"))
    claim = get_referee().claim(game, code, request.cookies.get(cookie_name(game)), ask=ask)
    if claim.held and claim.request is None:
        return _held_page(game, code, claim.seat)
    resp = redirect(f"/g/{game}", 303)
    resp.headers["Cache-Control"] = "no-store"
    if claim.token is not None:
        set_seat_cookie(resp, game, claim.token)
    if claim.recovery is not None:
        flash(recovery_words(_title(game, claim.seat), claim.recovery), "recovery")
    return resp


def recovery_words(title: str, code: str) -> Markup:
    """What the phone that took a seat at a table without a judge is told, once: the code on
    a line of its own."""
    words = gettext(
        '%(title)s\'s recovery code: <strong class="code">%(code)s</strong> Write it down now, '
        "or print this page: it is shown only once. Typed on any phone, it moves %(title)s's "
        "seat to that phone (a lost phone, or a copied key). Never show it to the other player."
    )
    return Markup(words) % {"title": title, "code": code}


@bp.post("/g/<game>/seats/recover")
@with_game
@csrf_protected
def recover(game: str) -> Response:
    """Moves a seat to this browser with the seat's recovery code (form field ``recovery``;
    a table without a judge): a lost phone, or a seat held because two devices used its key.
    The code typed stops working: this browser is shown the seat's new one, once."""
    token = request.cookies.get(cookie_name(game))
    resp = redirect(f"/g/{game}", 303)
    resp.headers["Cache-Control"] = "no-store"
    try:
        claim = get_referee().recover(game, request.form.get("recovery", ""), token)
    except ServiceError as e:
        flash(refusal(e), "error")
        return resp
    title = _title(game, claim.seat)
    flash(
        gettext("%(title)s's seat is on this phone now (its recovery code moved it).", title=title),
        "ok",
    )
    if claim.recovery is not None:  # the code typed works no more: this phone's new one, once
        flash(recovery_words(title, claim.recovery), "recovery")
    if claim.token is not None:
        set_seat_cookie(resp, game, claim.token)
    return resp


@bp.post("/g/<game>/seats/approve")
@with_game
@csrf_protected
def approve(game: str) -> Response:
    """Approves a request for a seat (form field ``request``, its event number): the seat moves
    to the browser that asked. The judge's, or at a table without one the seat's own device's
    (never the other player's)."""
    try:
        rec = get_referee().approve_seat(game, seat_of(game), form_int(request.form, "request"))
        title = _title(game, str(rec.body.get("seat")))
        flash(gettext("%(title)s's seat moved to the device that asked for it.", title=title), "ok")
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=say(e)), "error")
    except ServiceError as e:
        flash(refusal(e), "error")
    return redirect(f"/g/{game}", 303)


@bp.get("/judge/join/<code>")
def join_judge(code: str) -> Response:
    """Exchanges the tournament judge's code for his cookie and leaves for ``/judge``.

    Raises NotFound for a wrong code."""
    expected = current_app.config.get("JUDGE_CODE")
    if not expected or not hmac.compare_digest(code.encode(), str(expected).encode()):
        raise NotFound(Say("this judge link is not valid on this server"))
    resp = _hop("/judge")
    keep_cookie(resp, JUDGE_COOKIE, code)
    return resp


@bp.post("/leave/<game>")
@csrf_protected
def leave(game: str) -> Response:
    """Forgets this browser's seat at ``game`` (a shared phone). Raises CsrfError."""
    resp = redirect(f"/g/{game}" if is_game_id(game) else "/", 303)
    resp.delete_cookie(cookie_name(game), path="/", samesite="Strict", httponly=True)
    return resp
