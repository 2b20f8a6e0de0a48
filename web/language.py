"""The language picker at the foot of every page (issue 36), and Flask-Babel's installation:
the picker's POST keeps the choice in the ``hzlang`` cookie (:mod:`web.i18n` says how a request's
language is chosen) and goes back to the page it came from, on this site only."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import flask_babel
from flask import Blueprint, Flask, redirect, request
from werkzeug.wrappers import Response

from referee import language
from web.i18n import (
    DEFAULT,
    LANG_COOKIE,
    TRANSLATIONS,
    language_name,
    say,
    seat_cookie,
    select_locale,
    served,
    words_for_scripts,
)
from web.middleware import loggable_path
from web.request import COOKIE_MAX_AGE, csrf_protected, csrf_token, keep_cookie

bp = Blueprint("language", __name__)
# a game's pages: the seat page and the forms under it (a game id is URL-safe base64 or a name)
SEAT_PAGE = re.compile(r"^/g/([A-Za-z0-9_-]{1,64})(?:[/?#]|$)")


def here() -> str:
    """The path (with its query) to come back to after choosing a language: this page for a
    GET, else the home page; and the home page for a join link, whose secret never goes into
    a page (:func:`web.middleware.loggable_path`)."""
    path = request.full_path.rstrip("?") if request.query_string else request.path
    if request.method != "GET" or loggable_path(path) != path:
        return "/"
    return path


def same_site(target: str) -> str:
    """``target`` when it is a path on this site, else "/": never another site (an open
    redirect), neither ``//host``, ``/\\host`` nor ``scheme:``."""
    if not target.startswith("/"):
        return "/"
    parts = urlsplit(target)  # "//host" has a netloc; browsers read "/\\host" as "//host"
    if parts.netloc or any(c in target for c in "\r\n\t\\"):
        return "/"
    return target


@bp.post("/language")
@csrf_protected
def choose() -> Response:
    """The picker's POST: keeps the chosen language (``lang``) in the ``hzlang`` cookie, and,
    chosen on a game's page, as that seat's own language (``hzlang-GAME``, sent with that
    game's pages only); goes back to ``next`` on this site (else home). An unknown language
    clears the choice, so the browser's Accept-Language decides again."""
    lang = request.form.get("lang", "")
    target = same_site(request.form.get("next", "/"))
    resp = redirect(target, 303)
    seat = SEAT_PAGE.match(target)
    if lang in served():
        keep_cookie(resp, LANG_COOKIE, lang)
        if seat:  # the seat's own language, kept with its game's pages only
            resp.set_cookie(
                seat_cookie(seat[1]),
                lang,
                max_age=COOKIE_MAX_AGE,
                httponly=True,
                samesite="Strict",
                secure=request.is_secure,
                path=f"/g/{seat[1]}",
            )
    else:
        resp.delete_cookie(LANG_COOKIE, path="/")
        if seat:
            resp.delete_cookie(seat_cookie(seat[1]), path=f"/g/{seat[1]}")
    return resp


def _page_globals() -> dict[str, Any]:
    return {
        "html_lang": lambda: str(flask_babel.get_locale() or DEFAULT).replace("_", "-"),
        "languages": lambda: [(c, language_name(c)) for c in served()],
        "lang_csrf": lambda: csrf_token(""),
        "lang_next": here,
        "script_words": words_for_scripts,
    }


def install(app: Flask) -> None:
    """Flask-Babel on ``app``, the picker's route, and the templates' ``html_lang()``,
    ``languages()``, ``lang_csrf()`` and ``lang_next()``."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    # a language this app serves beyond the project's (a test's made-up one) is said from the
    # app's own catalogue folder everywhere, the referee's sentences included
    for code in app.config.get("LANGUAGES") or ():
        if code not in language.LANGUAGES:
            language.add_catalogue(code, str(app.config["BABEL_TRANSLATION_DIRECTORIES"]))
    flask_babel.Babel(app, locale_selector=select_locale)
    # {% trans %} blocks are looked up as extracted (babel.cfg: trimmed): lines joined by one space
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.register_blueprint(bp)
    app.context_processor(_page_globals)
    app.add_template_filter(say, "say")
