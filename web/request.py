"""The request's plumbing, for every view: the referee, who is asking, the game or 404,
judge-only and CSRF as decorators, and the words of a refusal.

Who is asking: a seat's join link (:mod:`web.auth`) claims the seat for this browser and leaves
an HttpOnly, SameSite=Strict cookie ``hz_<game>`` holding the browser's own device token (never
the join code; the service keeps only its hash). Every request is checked again on the server:
the cookie's token goes to :meth:`Referee.seat_for_token` (constant-time compare in the
service); a token whose seat moved to another device (approved by the judge) or whose link the
judge reissued opens nothing any more, so the cookie falls back to "public". The cookie's token
rotates as it is used (a new one now and then on a page's reply, :func:`rotates`), so a copied
cookie shows itself: used after the other copy moved on, it holds the seat (no device acts for
it until the judge, or at a table without one the seat's recovery code, settles it; both are
told, :func:`held_seat`). A tournament judge
(``referee serve`` prints his link ``/judge/join/<code>``) holds the cookie ``hzjudge`` and is
the judge of every table; no game has a judge's code of its own. Machine clients claim a seat
with ``POST /api/v1/games/<game>/claim`` (the join code in the body) and send the device token
it returns as ``Authorization: Bearer <token>`` (or the tournament judge's code) instead of a
cookie. A Bearer request is decided by its token alone, whatever cookies it carries; a token
that opens no seat (wrong, moved, reissued, or a join code) is refused with 401
(:class:`web.errors.BadBearer`), never read as the public.

CSRF: every state-changing request (form or API) must carry :func:`csrf_token` for its game, as
the form field ``csrf`` or the header ``X-CSRF-Token``; :func:`check_csrf` refuses otherwise with
403. The token is an HMAC, under the app's ``SECRET_KEY``, of the game and a random per-browser
id kept in the HttpOnly cookie ``hzid``; requests authenticated by an ``Authorization: Bearer``
header need no token (their seat comes from the header, which another site's page cannot set,
and never from a cookie). A request whose ``Origin`` names another site is refused as well.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit

from flask import current_app, g, get_flashed_messages, has_request_context, request
from werkzeug.wrappers import Response

from referee.language import Say
from referee.service import Forbidden, NotFound, Referee, ServiceError, open_referee
from web.errors import BadBearer, CsrfError
from web.i18n import gettext, say

COOKIE_PREFIX = "hz_"
JUDGE_COOKIE = "hzjudge"
BROWSER_COOKIE = "hzid"
CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"
COOKIE_MAX_AGE = 14 * 24 * 3600  # a tournament weekend and then some
# connections a PostgreSQL pool keeps beyond one per worker thread: the live streams' head
# reads and the event loop's own calls take one now and then
POOL_SPARE = 4

_GAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CODE_RE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")

P = ParamSpec("P")
R = TypeVar("R")


# ---- the referee -------------------------------------------------------------------------


def get_referee() -> Referee:
    """The app's referee (``REFEREE``), or one opened on ``REFEREE_DB`` at first use. A request
    reads each game's head and secrets once (:meth:`Referee.pinned`: a page is one snapshot),
    except a live stream, which follows the head."""
    ext = current_app.extensions
    ref = ext.get("referee")
    if ref is None:
        ref = open_db(current_app.config["REFEREE_DB"], current_app.config.get("REFEREE_STATE"))
        ext["referee"] = ref
    assert isinstance(ref, Referee)
    if has_request_context() and "_hz_pin" not in g and not request.path.endswith("/stream"):
        pin = ExitStack()
        pin.enter_context(ref.pinned())
        g._hz_pin = pin
    return ref


def unpin(_error: BaseException | None = None) -> None:
    """The app's teardown hook: the request's look at the store ends with it."""
    pin = g.pop("_hz_pin", None)
    if pin is not None:
        pin.close()


def open_db(db: str, state: str | None = None, threads: int | None = None) -> Referee:
    """A referee over the database ``db`` (a SQLite file or a PostgreSQL URI with its state
    folder ``state``: :mod:`referee.place`), signing with the key kept outside it.
    ``threads``: the server's worker threads (a PostgreSQL pool lends each its connection)."""
    size = None if threads is None else threads + POOL_SPARE
    return open_referee(db, state=state, max_size=size)


# ---- who is asking -----------------------------------------------------------------------


def cookie_name(game: str) -> str:
    """The seat cookie of ``game``."""
    return COOKIE_PREFIX + game


def is_game_id(game: str) -> bool:
    """True for a string that can be a game id (and so a cookie name)."""
    return bool(_GAME_RE.match(game))


def bearer() -> str | None:
    """The code of an ``Authorization: Bearer`` header, else None."""
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return None


def seat_for_token(game: str, token: str | None, rotate: bool = False) -> str:
    """The seat whose device holds ``token`` at ``game``; "public" for a malformed, unknown,
    moved or revoked one, and for a held seat's (:func:`held_seat` names it). With ``rotate``
    the token is rotated when due (:meth:`referee.tables.Tables.device`): the reply carries the
    device's new cookie (:func:`set_cookies`)."""
    if not token or not _CODE_RE.match(token):
        return "public"
    try:
        dev = get_referee().device(game, token, rotate=rotate)
    except ServiceError:
        return "public"
    if dev.token is not None:
        g.setdefault("_hz_rotated", {})[game] = dev.token
    if dev.held is not None:
        g.setdefault("_hz_held", {})[game] = dev.held
    return dev.seat


def held_seat(game: str) -> str | None:
    """The seat this request's token belongs to when that seat is held (two devices used its
    key); None otherwise. Known once :func:`seat_of` ran."""
    seat_of(game)
    held: dict[str, str] = g.get("_hz_held", {})
    return held.get(game)


def rotates() -> bool:
    """True when this request may give its device a new seat cookie: a cookie's (a Bearer
    token is the script's to keep), a GET or POST whose reply the browser reads (not the live
    stream's, which stays open)."""
    return (
        bearer() is None
        and request.method in ("GET", "POST")
        and not request.path.endswith("/stream")
    )


def seat_token(game: str) -> str | None:
    """The device token this request carries for ``game``: its Bearer token, else its
    ``hz_<game>`` cookie."""
    code = bearer()
    return code if code is not None else request.cookies.get(cookie_name(game))


def is_tournament_judge() -> bool:
    """True when the request holds the tournament judge's code: as its Bearer code, or (in a
    request without one) as its cookie."""
    expected = current_app.config.get("JUDGE_CODE")
    if not expected:
        return False
    code = bearer()
    got = code if code is not None else request.cookies.get(JUDGE_COOKIE)
    return bool(got) and hmac.compare_digest(str(got).encode(), str(expected).encode())


def has_judge() -> bool:
    """True when this server has a tournament judge (``JUDGE_CODE``): he judges every game it
    creates; without one, a game's players correct it together."""
    return bool(current_app.config.get("JUDGE_CODE"))


def may_create() -> None:
    """Refuses to create a game when the organiser keeps that to himself (``CREATE`` is
    "organiser", ``referee serve --create organiser``) and this request does not hold his
    link's code. Raises Forbidden."""
    if current_app.config.get("CREATE", "anyone") == "organiser" and not is_tournament_judge():
        raise Forbidden(
            Say(
                "only the organiser creates games on this server: open the organiser's link "
                "(the judge's) first, or ask him for a table"
            )
        )


def seat_of(game: str) -> str:
    """The seat this request holds at ``game``: a player's, "judge" or "public".

    The device token comes from the ``Authorization: Bearer`` header (then cookies are not
    read), else the ``hz_<game>`` cookie; it is checked by the service on every request. The
    tournament judge is the judge everywhere. A cookie whose seat moved or was reissued is the
    public; raises BadBearer for a Bearer token that opens no seat at ``game`` (a join code is
    not a token: claim the seat first)."""
    cache: dict[str, str] = g.setdefault("_hz_seats", {})
    if game in cache:
        return cache[game]
    seat = "public"
    code = bearer()
    if is_game_id(game):
        seat = seat_for_token(game, seat_token(game), rotate=rotates())
        if seat == "public" and is_tournament_judge():
            seat = "judge"
    if code is not None and seat == "public" and g.get("_hz_held", {}).get(game):
        raise BadBearer(
            Say(
                "the seat of this Bearer token is held: two devices used its key; the judge (at a "
                "table without one, the seat's recovery code) settles it"
            )
        )
    if code is not None and seat == "public":
        raise BadBearer(
            Say(
                "the Bearer token opens no seat at this game (wrong, moved or reissued; a join "
                "code is not a token: POST /api/v1/games/<game>/claim with it first)"
            )
        )
    cache[game] = seat
    return seat


def judged_games() -> list[str]:
    """The games this request judges: every game for the tournament judge, none for anyone
    else (no game has a judge's code of its own)."""
    if is_tournament_judge():
        return list(get_referee().games())
    return []


# ---- the game or 404 ---------------------------------------------------------------------


def game_or_404(game: str) -> str:
    """``game`` when it can be a game id. Raises NotFound."""
    if not is_game_id(game):
        raise NotFound(Say("no game %(name)s", name=repr(game[:64])))
    return game


def known_game_or_404(game: str) -> str:
    """``game`` when it names a stored game. Raises NotFound (or Held, Unavailable)."""
    get_referee().head(game_or_404(game))
    return game


# ---- CSRF --------------------------------------------------------------------------------


def browser_id() -> str:
    """The per-browser random id behind the CSRF tokens; made (and set as a cookie by
    :func:`set_cookies`) when the browser has none yet."""
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
    msg = f"csrf\0{game}\0{browser_id()}".encode()
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
        raise CsrfError(Say("this request comes from another site's page; it was refused"))
    if bearer() is not None:
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
            Say(
                "this request carries no CSRF token (form field 'csrf' or header 'X-CSRF-Token'); "
                "reload the page and try again"
            )
        )
    if not hmac.compare_digest(sent.encode(), csrf_token(game).encode()):
        raise CsrfError(Say("the CSRF token does not match; reload the page and try again"))


# ---- cookies -----------------------------------------------------------------------------


def keep_cookie(response: Response, name: str, value: str) -> None:
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


def set_seat_cookie(resp: Response, game: str, token: str) -> None:
    """Gives this browser its device ``token`` at ``game`` (HttpOnly, SameSite=Strict, Secure
    over HTTPS): the seat it holds, or the request it waits on."""
    keep_cookie(resp, cookie_name(game), token)


def set_cookies(response: Response) -> Response:
    """The app's after_request hook: sets the browser id cookie when this request made one,
    a seat cookie its token's rotation renewed, and names the scheme on a 401
    (``WWW-Authenticate: Bearer``)."""
    bid = g.get("_hz_new_bid")
    if bid is not None:
        keep_cookie(response, BROWSER_COOKIE, bid)
    set_here = " ".join(response.headers.getlist("Set-Cookie"))
    for game, token in g.get("_hz_rotated", {}).items():
        if f"{cookie_name(game)}=" not in set_here:  # a join or a leave set its own
            set_seat_cookie(response, game, token)
    if response.status_code == 401:
        response.headers.setdefault("WWW-Authenticate", 'Bearer realm="referee"')
    return response


# ---- decorators --------------------------------------------------------------------------


def with_game(view: Callable[P, R]) -> Callable[P, R]:
    """The view's ``game`` must be able to name a game. Raises NotFound."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        game_or_404(str(kwargs["game"]))
        return view(*args, **kwargs)

    return wrapper


def with_known_game(view: Callable[P, R]) -> Callable[P, R]:
    """The view's ``game`` must name a stored game. Raises NotFound."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        known_game_or_404(str(kwargs["game"]))
        return view(*args, **kwargs)

    return wrapper


def csrf_protected(view: Callable[P, R]) -> Callable[P, R]:
    """The request must carry the CSRF token of the view's ``game`` (of "" when it names
    none). Raises CsrfError."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        check_csrf(str(kwargs.get("game", "")))
        return view(*args, **kwargs)

    return wrapper


def judge_only(view: Callable[P, R]) -> Callable[P, R]:
    """Only the judge of the view's ``game`` may call it. Raises Forbidden."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if seat_of(str(kwargs["game"])) != "judge":
            raise Forbidden(Say("only the judge may do this"))
        return view(*args, **kwargs)

    return wrapper


# ---- words for people --------------------------------------------------------------------


def refusal(e: ServiceError, about: str = "") -> str:
    """A refusal as a page says it, in the request's language: ``Refused [rule]: about:
    message`` (the message, a Say, said in that language too; ``about`` as given)."""
    reason = say(e.message)
    if e.rule and about:
        return gettext(
            "Refused [%(rule)s]: %(about)s: %(reason)s", rule=e.rule, about=about, reason=reason
        )
    if e.rule:
        return gettext("Refused [%(rule)s]: %(reason)s", rule=e.rule, reason=reason)
    if about:
        return gettext("Refused: %(about)s: %(reason)s", about=about, reason=reason)
    return gettext("Refused: %(reason)s", reason=reason)


def page_globals() -> dict[str, Any]:
    """What every template may call: ``messages()`` (the flashed messages with categories)."""
    return {
        "messages": lambda: get_flashed_messages(with_categories=True),
        # the judge's pages say the server was started over a missing journal (issue 31)
        "journal_accepted": lambda: current_app.config.get("JOURNAL_ACCEPTED"),
    }
