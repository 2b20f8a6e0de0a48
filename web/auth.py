"""Joining a seat: join links exchanged for cookies, and leaving a shared phone.

A seat's secret join code travels once, in the join link ``/join/<game>/<code>``. That request
exchanges it for an HttpOnly, SameSite=Strict cookie ``hz_<game>`` and redirects to
``/g/<game>``: the secret leaves the address bar, never reaches a ``Referer`` header
(``Referrer-Policy: no-referrer`` everywhere) and never an access log
(:func:`web.middleware.loggable_path` cuts it). Who a cookie makes the request is decided on every
request by :func:`web.request.seat_of`.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, current_app, redirect, request
from markupsafe import escape
from werkzeug.wrappers import Response

from referee.service import NotFound
from web.request import (
    JUDGE_COOKIE,
    cookie_name,
    csrf_protected,
    is_game_id,
    keep_cookie,
    seat_for_code,
    set_seat_cookie,
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


@bp.get("/join/<game>/<code>")
def join(game: str, code: str) -> Response:
    """Exchanges a seat's join code for its cookie and leaves for the game's page.

    Raises NotFound for a code that opens no seat (unknown, mistyped or revoked)."""
    seat = seat_for_code(game, code) if is_game_id(game) else "public"
    if seat == "public":
        raise NotFound(
            "this join link opens no seat: it is mistyped, or the judge has issued a new one "
            "(ask the judge for the new link)"
        )
    resp = _hop(f"/g/{game}")
    set_seat_cookie(resp, game, code)
    return resp


@bp.get("/judge/join/<code>")
def join_judge(code: str) -> Response:
    """Exchanges the tournament judge's code for his cookie and leaves for ``/judge``.

    Raises NotFound for a wrong code."""
    expected = current_app.config.get("JUDGE_CODE")
    if not expected or not hmac.compare_digest(code.encode(), str(expected).encode()):
        raise NotFound("this judge link is not valid on this server")
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
