"""The Flask application: one factory, one referee, security headers, errors for people and
for machines.

``create_app(config)`` takes ``REFEREE`` (a :class:`~referee.service.Referee`, e.g. over a
``MemoryStore`` in tests) or ``REFEREE_DB`` (an SQLite file, default ``referee.sqlite3``),
``SECRET_KEY`` (the CSRF tokens' key; random per process when absent: ``referee serve`` keeps one
beside the database so that open pages survive a restart), ``JUDGE_CODE`` (the tournament judge's
code, optional) and ``TESTING``.

Every response carries a Content Security Policy without inline scripts and with
``frame-ancestors 'none'``, ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``
and ``Cache-Control: no-store`` (a page may show one seat's hidden cards; a shared tablet's cache
must not keep it). Request bodies are bounded (``MAX_CONTENT_LENGTH``: the largest photo upload;
the API bounds JSON bodies further). Errors are JSON ``{"error", "rule", "message"}`` under
``/api/`` and the ``error.html`` page elsewhere; a 500 is logged with its traceback, and the
user sees only that the server failed.
"""

from __future__ import annotations

import importlib
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from jinja2 import TemplateNotFound
from markupsafe import escape
from werkzeug.exceptions import HTTPException

from referee.service import (
    Forbidden,
    Held,
    NeedsInput,
    NotFound,
    Referee,
    Refused,
    ServiceError,
    Stale,
    Unavailable,
)
from web import auth

PHOTO_LIMIT = 8 * 1024 * 1024  # one phone photo, generously
JSON_LIMIT = 64 * 1024  # any JSON body of the API (an imported log goes through the CLI)

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "media-src 'self' blob:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

access_log = logging.getLogger("referee.access")
log = logging.getLogger("referee.web")

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The app. Raises ImportError when a blueprint module is broken (never silently)."""
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

    app.register_blueprint(auth.bp)
    for module, prefix in (
        ("web.api", "/api/v1"),
        ("web.live", None),
        ("web.pages", None),
        ("web.camera", None),
    ):
        bp = _blueprint(module)
        if bp is not None:
            app.register_blueprint(bp, url_prefix=prefix)

    app.after_request(auth.set_cookies)
    app.after_request(_security_headers)
    app.register_error_handler(ServiceError, service_error_response)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _server_error)
    if app.config["ACCESS_LOG"]:
        app.wsgi_app = AccessLog(app.wsgi_app)  # type: ignore[method-assign]
    return app


def _blueprint(module: str) -> Any:
    """The ``bp`` of ``module``, or None while that module does not exist yet."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name == module:
            return None
        raise
    return mod.bp


def get_referee() -> Referee:
    """The app's referee, opened on ``REFEREE_DB`` at first use."""
    ext = current_app.extensions
    ref = ext.get("referee")
    if ref is None:
        ref = open_db(current_app.config["REFEREE_DB"])
        ext["referee"] = ref
    assert isinstance(ref, Referee)
    return ref


def open_db(path: str) -> Referee:
    """A referee over the SQLite file ``path`` (with the service's signing key when the service
    offers ``open_referee``)."""
    from referee import service

    opener = getattr(service, "open_referee", None)
    if opener is not None:
        ref = opener(path)
        assert isinstance(ref, Referee)
        return ref
    from referee.store import SQLiteStore

    return Referee(SQLiteStore(path))


# ---- headers -----------------------------------------------------------------------------


def _security_headers(resp: Response) -> Response:
    h = resp.headers
    h.setdefault("Content-Security-Policy", CSP)
    h["X-Content-Type-Options"] = "nosniff"
    h["Referrer-Policy"] = "no-referrer"
    h["X-Frame-Options"] = "DENY"
    h.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    h.setdefault("Permissions-Policy", "camera=(self), microphone=(), geolocation=()")
    if not request.path.startswith("/static/"):
        h.setdefault("Cache-Control", "no-store")
    return resp


# ---- errors ------------------------------------------------------------------------------


def wants_json() -> bool:
    """True for requests that get errors as JSON (the API, and clients that ask for JSON)."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and request.accept_mimetypes["text/html"] == 0


def error_response(
    status: int, code: str, message: str, rule: str | None = None, **extra: Any
) -> Response:
    """The error as JSON ``{"error", "rule", "message", ...}`` or as the error page."""
    if wants_json():
        body = {"error": code, "rule": rule, "message": message, **extra}
        resp = jsonify(body)
        resp.status_code = status
        return resp
    try:
        html = render_template("error.html", status=status, message=message, rule=rule)
    except TemplateNotFound:
        rule_txt = f" ({escape(rule)})" if rule else ""
        html = (
            f'<!doctype html><meta charset="utf-8"><title>{status}</title>'
            f'<h1>{status}</h1><p>{escape(message)}{rule_txt}</p><p><a href="/">Home</a></p>'
        )
    return Response(html, status, mimetype="text/html")


STATUS: dict[type[ServiceError], int] = {
    NotFound: 404,
    Forbidden: 403,
    Refused: 422,
    Stale: 409,
    NeedsInput: 202,
    Held: 423,
    Unavailable: 503,
}  # each service error's status: the one place the domain meets HTTP


def status_of(e: ServiceError) -> int:
    own = getattr(e, "status", None)  # the camera's own refusals carry theirs
    if isinstance(own, int):
        return own
    return next((s for cls, s in STATUS.items() if isinstance(e, cls)), 400)


def service_error_response(e: ServiceError) -> Response:
    """The response for a service refusal (its status, code, rule and message)."""
    body = e.to_json()
    extra = {k: v for k, v in body.items() if k not in ("error", "rule", "message")}
    if isinstance(e, NeedsInput):
        extra.update(needs=e.needs, asked=list(e.asked))
    resp = error_response(status_of(e), str(body.get("error")), e.message, e.rule, **extra)
    return resp


def _http_error(e: HTTPException) -> Response:
    code = (e.name or "Error").replace(" ", "")
    status = e.code or 500
    message = e.description or e.name or "error"
    if status == 413:
        message = "the request body is too large for this server"
    resp = error_response(status, code, message)
    allow = getattr(e, "valid_methods", None)
    if allow:
        resp.headers["Allow"] = ", ".join(allow)
    return resp


def _server_error(e: Exception) -> Response:
    if isinstance(e, HTTPException):  # pragma: no cover - routed to _http_error
        return _http_error(e)
    log.exception("unexpected error on %s %s", request.method, auth.loggable_path(request.path))
    return error_response(
        500, "ServerError", "the server failed on this request; the game is unchanged"
    )


# ---- access log --------------------------------------------------------------------------


class AccessLog:
    """WSGI middleware: one line per request, with join secrets cut from the path and no query
    string (nothing secret travels there, but nothing needs to be logged from it either)."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        t0 = time.perf_counter()

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            path = auth.loggable_path(environ.get("PATH_INFO", ""))
            access_log.info(
                "%s %s %s %s %.1fms",
                environ.get("REMOTE_ADDR", "-"),
                environ.get("REQUEST_METHOD", "-"),
                path,
                status.split(" ", 1)[0],
                (time.perf_counter() - t0) * 1000,
            )
            return start_response(status, headers, exc_info)

        return self.app(environ, start)
