"""Who is asking: seats by cookie, join links, CSRF tokens.

A seat's secret join code (at least 128 random bits, made by the service) travels once, in the
join link ``/join/<game>/<code>``. That request exchanges it for an HttpOnly, SameSite=Strict
cookie ``hz_<game>`` and redirects to ``/g/<game>``: the secret leaves the address bar, never
reaches a ``Referer`` header (``Referrer-Policy: no-referrer`` everywhere) and never an access log
(:func:`loggable_path` cuts it). Every request is checked again on the server: the cookie's code
goes to :meth:`Referee.seat_for_code` (constant-time compare in the service); a code the judge
revoked (:meth:`Referee.reissue`) opens nothing any more, so the cookie falls back to "public".

A tournament judge (``referee serve`` prints his link ``/judge/join/<code>``) holds the cookie
``hzjudge`` and is the judge of every table. Machine clients may send ``Authorization: Bearer
<code>`` (a seat's join code, or the tournament judge's) instead of a cookie. A Bearer request
is decided by its code alone, whatever cookies it carries; a code that opens no seat (wrong or
revoked) is refused with 401 (:class:`BadBearer`), never read as the public.

CSRF: every state-changing request (form or API) must carry :func:`csrf_token` for its game, as
the form field ``csrf`` or the header ``X-CSRF-Token``; :func:`check_csrf` refuses otherwise with
403. The token is an HMAC, under the app's ``SECRET_KEY``, of the game and a random per-browser
id kept in the HttpOnly cookie ``hzid``; requests authenticated by an ``Authorization: Bearer``
header need no token (their seat comes from the header, which another site's page cannot set,
and never from a cookie). A request whose ``Origin`` names another site is
refused as well.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, current_app, g, redirect, request
from markupsafe import escape
from werkzeug.wrappers import Response

from referee.service import Forbidden, NotFound, ServiceError

bp = Blueprint("auth", __name__)

COOKIE_PREFIX = "hz_"
JUDGE_COOKIE = "hzjudge"
BROWSER_COOKIE = "hzid"
CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"
COOKIE_MAX_AGE = 14 * 24 * 3600  # a tournament weekend and then some
CODES_TTL = 30 * 60  # the creator's page shows the join links for half an hour

_GAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CODE_RE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
_JOIN_RE = re.compile(r"^(/join/[^/?#]+/|/judge/join/)[^/?#]+")


class CsrfError(Forbidden):
    """A state-changing request without a valid CSRF token (or from another site's page)."""

    def to_json(self) -> dict[str, Any]:
        return {"error": "Csrf", "rule": None, "message": self.message}


class BadBearer(ServiceError):
    """An ``Authorization: Bearer`` code that opens no seat (wrong, or revoked by the judge):
    401 with ``WWW-Authenticate: Bearer`` (set by :func:`set_cookies`)."""

    status = 401

    def to_json(self) -> dict[str, Any]:
        return {"error": "Unauthorized", "rule": None, "message": self.message}


def cookie_name(game: str) -> str:
    """The seat cookie of ``game``."""
    return COOKIE_PREFIX + game


def is_game_id(game: str) -> bool:
    """True for a string that can be a game id (and so a cookie name)."""
    return bool(_GAME_RE.match(game))


def loggable_path(path: str) -> str:
    """``path`` as it may appear in a log line: the secret of a join link cut to ``…``."""
    return _JOIN_RE.sub(lambda m: m.group(1) + "…", path)


def _referee() -> Any:
    from web.app import get_referee

    return get_referee()


def _bearer() -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return None


def _seat_for(game: str, code: str | None) -> str:
    if not code or not _CODE_RE.match(code):
        return "public"
    try:
        seat: str = _referee().seat_for_code(game, code)
    except ServiceError:
        return "public"
    return seat


def is_tournament_judge() -> bool:
    """True when the request holds the tournament judge's code: as its Bearer code, or (in a
    request without one) as its cookie."""
    expected = current_app.config.get("JUDGE_CODE")
    if not expected:
        return False
    bearer = _bearer()
    got = bearer if bearer is not None else request.cookies.get(JUDGE_COOKIE)
    return bool(got) and hmac.compare_digest(str(got).encode(), str(expected).encode())


def seat_of(game: str) -> str:
    """The seat this request holds at ``game``: "hera", "zeus", "judge" or "public".

    The code comes from the ``Authorization: Bearer`` header (then cookies are not read), else
    the ``hz_<game>`` cookie; it is checked by the service on every request. The tournament
    judge is the judge everywhere. A cookie with a revoked code is the public; raises BadBearer
    for a Bearer code that opens no seat at ``game``."""
    cache: dict[str, str] = g.setdefault("_hz_seats", {})
    if game in cache:
        return cache[game]
    seat = "public"
    bearer = _bearer()
    if is_game_id(game):
        code = bearer if bearer is not None else request.cookies.get(cookie_name(game))
        seat = _seat_for(game, code)
        if seat == "public" and is_tournament_judge():
            seat = "judge"
    if bearer is not None and seat == "public":
        raise BadBearer("the Bearer code opens no seat at this game (wrong, or reissued)")
    cache[game] = seat
    return seat


def judged_games() -> list[str]:
    """The games this browser judges: every game for the tournament judge, otherwise those
    whose ``hz_<game>`` cookie is a judge's code, or the game whose judge's code is the Bearer
    code. Raises BadBearer for a Bearer code that opens no seat at any game."""
    ref = _referee()
    if is_tournament_judge():
        return list(ref.games())
    bearer = _bearer()
    if bearer is not None:
        seats = {game: _seat_for(game, bearer) for game in ref.games()}
        if all(seat == "public" for seat in seats.values()):
            raise BadBearer("the Bearer code opens no seat on this server (wrong, or reissued)")
        return sorted(game for game, seat in seats.items() if seat == "judge")
    out = []
    for name in request.cookies:
        if name.startswith(COOKIE_PREFIX):
            game = name[len(COOKIE_PREFIX) :]
            if is_game_id(game) and seat_of(game) == "judge":
                out.append(game)
    return sorted(out)


# ---- CSRF --------------------------------------------------------------------------------


def _browser_id() -> str:
    """The per-browser random id behind the CSRF tokens; made (and set as a cookie by the
    app's after_request hook) when the browser has none yet."""
    bid = g.get("_hz_bid")
    if bid is None:
        got = request.cookies.get(BROWSER_COOKIE, "")
        if _CODE_RE.match(got):
            bid = got
        else:
            bid = secrets.token_urlsafe(16)
            g._hz_new_bid = bid
        g._hz_bid = bid
    return str(bid)


def csrf_token(game: str = "") -> str:
    """The token a state-changing request about ``game`` must carry ("" for requests that
    name no game, such as creating one). Stable for one browser and game."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    msg = f"csrf\0{game}\0{_browser_id()}".encode()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()[:32]


def _same_origin() -> bool:
    origin = request.headers.get("Origin")
    if not origin or origin == "null":
        # Chromium sends "Origin: null" on our own form posts under Referrer-Policy:
        # no-referrer; the CSRF token still decides (FRONTEND's browser test found it).
        return True
    return urlsplit(origin).netloc.lower() == request.host.lower()


def check_csrf(game: str = "") -> None:
    """Refuses a state-changing request that does not prove it comes from our own page.

    Raises CsrfError (403) when the ``Origin`` header names another site, or when neither the
    form field ``csrf`` nor the header ``X-CSRF-Token`` holds :func:`csrf_token` of ``game``.
    A request with ``Authorization: Bearer`` passes on the token whatever cookies it carries:
    its seat comes from that header alone (no ambient credential to abuse); raises BadBearer
    when its code opens no seat at ``game``."""
    if not _same_origin():
        raise CsrfError("this request comes from another site's page; it was refused")
    if _bearer() is not None:
        if game:
            seat_of(game)
        return
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.mimetype in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        sent = request.form.get(CSRF_FIELD)
    if not sent or not request.cookies.get(BROWSER_COOKIE):
        raise CsrfError(
            "this request carries no CSRF token (form field 'csrf' or header 'X-CSRF-Token'); "
            "reload the page and try again"
        )
    if not hmac.compare_digest(sent.encode(), csrf_token(game).encode()):
        raise CsrfError("the CSRF token does not match; reload the page and try again")


def _keep_cookie(response: Response, name: str, value: str) -> None:
    """Sets one of the app's cookies: HttpOnly, SameSite=Strict, Secure over HTTPS, kept for
    ``COOKIE_MAX_AGE``."""
    response.set_cookie(
        name,
        value,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="Strict",
        secure=request.is_secure,
        path="/",
    )


def set_cookies(response: Response) -> Response:
    """The app's after_request hook: sets the browser id cookie when this request made one, and
    names the scheme on a 401 (``WWW-Authenticate: Bearer``)."""
    bid = g.get("_hz_new_bid")
    if bid is not None:
        _keep_cookie(response, BROWSER_COOKIE, bid)
    if response.status_code == 401:
        response.headers.setdefault("WWW-Authenticate", 'Bearer realm="referee"')
    return response


# ---- the creator's one-time look at the join codes ---------------------------------------

_created: dict[tuple[str, str], tuple[float, dict[str, str]]] = {}
_created_lock = threading.Lock()


def remember_codes(game: str, codes: dict[str, str]) -> None:
    """Keeps a new game's join codes, in memory only, for the browser that created it, so that
    ``/g/<game>/created`` can show them (for :data:`CODES_TTL` seconds; never logged)."""
    now = time.monotonic()
    with _created_lock:
        for k in [k for k, (t, _) in _created.items() if now - t > CODES_TTL]:
            del _created[k]
        _created[(game, _browser_id())] = (now, dict(codes))


def created_codes(game: str) -> dict[str, str] | None:
    """The join codes of ``game`` when this browser created it recently, else None."""
    with _created_lock:
        hit = _created.get((game, _browser_id()))
    if hit is None or time.monotonic() - hit[0] > CODES_TTL:
        return None
    return dict(hit[1])


def join_path(game: str, code: str) -> str:
    """The join link of a seat (a path; the page or CLI puts the host in front)."""
    return f"/join/{game}/{code}"


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
    seat = _seat_for(game, code) if is_game_id(game) else "public"
    if seat == "public":
        raise NotFound(
            "this join link opens no seat: it is mistyped, or the judge has issued a new one "
            "(ask the judge for the new link)"
        )
    resp = _hop(f"/g/{game}")
    set_seat_cookie(resp, game, code)
    return resp


def set_seat_cookie(resp: Response, game: str, code: str) -> None:
    """Gives this browser the seat that ``code`` opens at ``game`` (HttpOnly, SameSite=Strict,
    Secure over HTTPS)."""
    _keep_cookie(resp, cookie_name(game), code)


@bp.get("/judge/join/<code>")
def join_judge(code: str) -> Response:
    """Exchanges the tournament judge's code for his cookie and leaves for ``/judge``.

    Raises NotFound for a wrong code."""
    expected = current_app.config.get("JUDGE_CODE")
    if not expected or not hmac.compare_digest(code.encode(), str(expected).encode()):
        raise NotFound("this judge link is not valid on this server")
    resp = _hop("/judge")
    _keep_cookie(resp, JUDGE_COOKIE, code)
    return resp


@bp.post("/leave/<game>")
def leave(game: str) -> Response:
    """Forgets this browser's seat at ``game`` (a shared phone). Raises CsrfError."""
    check_csrf(game)
    resp = redirect(f"/g/{game}" if is_game_id(game) else "/", 303)
    resp.delete_cookie(cookie_name(game), path="/", samesite="Strict", httponly=True)
    return resp
