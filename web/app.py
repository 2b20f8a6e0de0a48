"""The Flask application factory.

``create_app(config)`` takes ``REFEREE`` (a :class:`~referee.service.Referee`, e.g. over a
``MemoryStore`` in tests) or ``REFEREE_DB`` (an SQLite file, default ``referee.sqlite3``),
``SECRET_KEY`` (the CSRF tokens' key; random per process when absent: ``referee serve`` keeps one
beside the database so that open pages survive a restart), ``JUDGE_CODE`` (the tournament judge's
code, optional) and ``TESTING``.

The app is assembled from one blueprint per area (joining a seat, home and new game, the seat
pages, the judge, replay and reports, the JSON API, the live stream), the games' page modules
(:mod:`web.games`: what each game's pages show, and a game's own pages, such as a camera), the
request's plumbing (:mod:`web.request`), the security headers and access log
(:mod:`web.middleware`) and the error handlers (:mod:`web.errors`). Request bodies are bounded
(``MAX_CONTENT_LENGTH``: the largest photo upload; the API bounds JSON bodies further).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

import web.event_api  # its routes join the API's blueprint (issue 34)
import web.player_event
from referee.games import GAMES
from referee.words import head_text, needs_words, plural
from web import (
    api,
    auth,
    errors,
    event_pages,
    home,
    judge,
    language,
    limits,
    live,
    replay,
    review,
    seat,
    witness,
)
from web.games import install
from web.games.installed import PAGE_MODULES
from web.middleware import AccessLog, security_headers
from web.request import page_globals, set_cookies, unpin

PHOTO_LIMIT = 8 * 1024 * 1024  # one phone photo, generously
JSON_LIMIT = 64 * 1024  # any JSON body of the API (an imported log goes through the CLI)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The app, configured by ``config`` (see the module's docstring)."""
    app = Flask(__name__)
    app.config.update(
        REFEREE_DB="referee.sqlite3",
        MAX_CONTENT_LENGTH=PHOTO_LIMIT,
        MAX_FORM_MEMORY_SIZE=512 * 1024,  # per text field of a form (and the parser's buffer)
        MAX_FORM_PARTS=200,
        JSON_LIMIT=JSON_LIMIT,
        JUDGE_CODE=None,
        ACCESS_LOG=True,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
    )
    app.config.update(dict(config or {}))
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secrets.token_hex(32)
    if app.config.get("REFEREE") is not None:
        app.extensions["referee"] = app.config["REFEREE"]

    language.install(app)  # the pages' language (issue 36)
    app.register_blueprint(auth.bp)
    app.register_blueprint(api.bp, url_prefix="/api/v1")
    app.register_blueprint(live.bp)
    app.register_blueprint(home.bp)
    app.register_blueprint(seat.bp)
    app.register_blueprint(judge.bp)
    app.register_blueprint(event_pages.bp)
    app.register_blueprint(replay.bp)
    app.register_blueprint(review.bp)
    app.register_blueprint(witness.bp)
    app.register_blueprint(web.player_event.bp)  # the player's event page (issue 34)
    install(app, PAGE_MODULES)  # each game's pages (and its own blueprints)

    app.context_processor(page_globals)
    app.add_template_filter(lambda h: head_text(h["seq"], h["hash"]), "head")
    app.add_template_filter(plural, "plural")  # {{ n|plural('call') }}: 1 call, 2 calls
    app.add_template_filter(needs_text, "needs")  # {{ q.needs|needs(q.asked) }}: in words
    app.after_request(set_cookies)
    app.after_request(security_headers)
    app.teardown_request(unpin)
    errors.register(app)
    limits.install(app)  # after the error handlers: its 429 replaces theirs
    if app.config["ACCESS_LOG"]:
        app.wsgi_app = AccessLog(app.wsgi_app)  # type: ignore[method-assign]
    hops = int(app.config.get("PROXY_HOPS") or 0)
    if hops < 0:
        raise ValueError(f"PROXY_HOPS {hops}: the proxies trusted in front, 0 or more")
    if hops:  # behind a proxy: its X-Forwarded-* name the client (issue 35; serve --proxy)
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops
        )
    return app


# every registered game's possessives by seat (a seat's name is its game's alone) and the
# words of its questions by their field's head
POSSESSIVES = {s: w for g in GAMES.values() for s, w in g.possessives.items()}
PHRASES = {h: w for g in GAMES.values() for h, w in g.needs_phrases.items()}


def needs_text(needs: str, asked: Sequence[str] = ()) -> str:
    """What a question waits for, in words (:func:`referee.words.needs_words`)."""
    return needs_words(needs, asked, POSSESSIVES, PHRASES)
