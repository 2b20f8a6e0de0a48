"""Errors to responses, in one place: the status of every refusal, and the Flask error handlers.

The refusals the web app meets, and their statuses (:data:`STATUS`, read through
:func:`status_of`; a class not listed takes its nearest listed base's)::

    ServiceError                400  the service's refusals (referee.service)
    ├── NeedsInput              202  the action waits for an input (needs, asked)
    ├── NotFound                404  no such game, seat or question
    ├── Forbidden               403  this seat may not do that
    │   └── CsrfError           403  no valid CSRF token, or another site's page (web)
    ├── BadBearer               401  a Bearer code that opens no seat (web; WWW-Authenticate)
    ├── Refused                 422  an illegal action or a bad argument, with its rule
    ├── Held                    423  the game's record failed verification
    ├── Stale                   409  the game moved on (If-Match), or the key was used
    ├── Unavailable             503  storage failed; nothing was written
    ├── KeyReused               422  an Idempotency-Key sent again with another request (web)
    ├── NoKit                   409  a game without a sticker kit gets a photo or frame (web)
    ├── TooFast                      frames come too fast (web; ``retry`` seconds)
    │   ├── TooManyFrames       429  this seat sends more than the gate lets through
    │   ├── TooManyRequests     429  this client creates games faster than its limit
    │   └── Busy                503  the server reads other images, or its streams are full
    └── BadImage                422  an upload the camera code cannot read (web; ``field``)
        ├── NoImage             400  no image in the request
        ├── ImageTooLarge       413  above the limit
        └── WrongImageType      415  not a JPEG, PNG or WebP

Every error body is ``{"error", "rule", "message", ...}`` (the class's ``to_json``), as JSON
under ``/api/`` and for clients that ask for JSON, else the ``error.html`` page.

Languages (issue 36): this is the one place a refusal's words are said. ``message`` and every
message under ``fields`` are said in the request's language (``Accept-Language``, or the
``hzlang`` cookie: :func:`web.i18n.select_locale`) by :func:`web.i18n.say`: a
:class:`engine.say.Say` by its template and values, a marked constant by its words, anything
else as it is. ``error``, ``rule``, ``needs``, ``asked``, the field names and every other
machine field are the same in every language; English bodies are what they always were. A 500 is
logged with its traceback; the user sees only that the server failed.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from referee.service import (
    Forbidden,
    Held,
    NeedsInput,
    NotFound,
    Refused,
    ServiceError,
    Stale,
    Unavailable,
)
from web.i18n import gettext, say
from web.middleware import loggable_path

log = logging.getLogger("referee.web")


# ---- the web app's own refusals --------------------------------------------------------------


class CsrfError(Forbidden):
    """A state-changing request without a valid CSRF token (or from another site's page)."""

    def to_json(self) -> dict[str, Any]:
        return {"error": "Csrf", "rule": None, "message": self.message}


class BadBearer(ServiceError):
    """An ``Authorization: Bearer`` code that opens no seat (wrong, or revoked by the judge):
    401, with ``WWW-Authenticate: Bearer`` (set by :func:`web.request.set_cookies`)."""

    def to_json(self) -> dict[str, Any]:
        return {"error": "Unauthorized", "rule": None, "message": self.message}


class KeyReused(ServiceError):
    """An Idempotency-Key sent again with another request than the first."""

    def to_json(self) -> dict[str, Any]:
        return {"error": "IdempotencyKeyReused", "rule": None, "message": self.message}


class NoKit(ServiceError):
    """The game was created without a sticker kit: the camera cannot check its codes."""

    def to_json(self) -> dict[str, Any]:
        return {"error": "NoKit", "rule": None, "message": self.message}


class TooFast(ServiceError):
    """Frames come faster than the server reads them. ``retry`` is the seconds to wait."""

    code: ClassVar[str] = "TooFast"

    def __init__(self, message: str, retry: float) -> None:
        super().__init__(message)
        self.retry = retry

    def to_json(self) -> dict[str, Any]:
        return {"error": self.code, "rule": None, "message": self.message}


class TooManyFrames(TooFast):
    """One seat sends frames faster than its bucket refills."""

    code = "TooManyFrames"


class TooManyRequests(TooFast):
    """One client (address) asks for something faster than its limit (creating games)."""

    code = "TooManyRequests"


class Busy(TooFast):
    """The server reads as many frames as it may at once."""

    code = "Busy"


class BadImage(ServiceError):
    """An upload that is not an image the camera code can read (it does not decode). The
    message names the field; the subclasses say what else was wrong."""

    code: ClassVar[str] = "Invalid"

    def __init__(self, message: str, field: str = "photo") -> None:
        super().__init__(message)
        self.field = field

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.code, "rule": None, "message": self.message}
        if type(self) is BadImage:
            out["fields"] = {self.field: [self.message]}
        return out


class NoImage(BadImage):
    """The request carries no image."""

    code = "BadRequest"


class ImageTooLarge(BadImage):
    """The image is larger than the limit."""

    code = "RequestEntityTooLarge"


class WrongImageType(BadImage):
    """The image is not a JPEG, PNG or WebP."""

    code = "UnsupportedMediaType"


# ---- the statuses --------------------------------------------------------------------------

STATUS: dict[type[ServiceError], int] = {
    ServiceError: 400,
    NeedsInput: 202,
    NotFound: 404,
    Forbidden: 403,
    BadBearer: 401,
    Refused: 422,
    Held: 423,
    Stale: 409,
    Unavailable: 503,
    KeyReused: 422,
    NoKit: 409,
    TooManyFrames: 429,
    TooManyRequests: 429,
    Busy: 503,
    BadImage: 422,
    NoImage: 400,
    ImageTooLarge: 413,
    WrongImageType: 415,
}


def status_of(e: ServiceError) -> int:
    """The HTTP status of a refusal: its class's in :data:`STATUS`, else its nearest base's."""
    for cls in type(e).__mro__:
        status = STATUS.get(cls)
        if status is not None:
            return status
    return 400  # pragma: no cover - ServiceError is in the table


# ---- responses -----------------------------------------------------------------------------


def wants_json() -> bool:
    """True for requests that get errors as JSON (the API, and clients that ask for JSON)."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and request.accept_mimetypes["text/html"] == 0


def error_response(
    status: int, code: str, message: str, rule: str | None = None, **extra: Any
) -> Response:
    """The error as JSON ``{"error", "rule", "message", ...}`` or as the error page.
    ``message`` (a Say, a marked constant, or words already in the request's language) and the
    messages of ``fields`` are said in the request's language here."""
    message = say(message)
    if "fields" in extra:
        extra["fields"] = said_fields(extra["fields"])
    if wants_json():
        body = {"error": code, "rule": rule, "message": message, **extra}
        resp = jsonify(body)
        resp.status_code = status
        return resp
    html = render_template("error.html", status=status, message=message, rule=rule)
    return Response(html, status, mimetype="text/html")


def said_fields(messages: Any) -> Any:
    """A validation error's messages by field (nested dicts and lists), each said in the
    request's language; the field names as they are."""
    if isinstance(messages, dict):
        return {k: said_fields(v) for k, v in messages.items()}
    if isinstance(messages, list | tuple):
        return [said_fields(v) for v in messages]
    return say(messages) if isinstance(messages, str) else messages


def service_error_response(e: ServiceError) -> Response:
    """The response for a refusal: its status (:func:`status_of`), code, rule and message,
    with the fields its ``to_json`` adds (``needs``/``asked``, ``seq``, ``fields``)."""
    body = e.to_json()
    extra = {k: v for k, v in body.items() if k not in ("error", "rule", "message")}
    if isinstance(e, NeedsInput):
        extra.update(needs=e.needs, asked=list(e.asked))
    resp = error_response(status_of(e), str(body.get("error")), e.message, e.rule, **extra)
    if isinstance(e, TooFast):
        resp.headers["Retry-After"] = str(max(1, round(e.retry)))
    return resp


def http_messages() -> dict[int, str]:
    """The page's words for the HTTP errors raised with werkzeug's own description, in the
    request's language (werkzeug's are English only)."""
    return {
        400: gettext("the request is not one this server understands"),
        403: gettext("you may not open this page"),
        404: gettext("there is no such page here; check the address"),
        405: gettext("this page does not accept that method"),
        413: gettext("the request body is too large for this server"),
    }


def _http_error(e: HTTPException) -> Response:
    code = (e.name or "Error").replace(" ", "")
    status = e.code or 500
    message = e.description or e.name or "error"
    if status == 413 or e.description == type(e).description:
        message = http_messages().get(status, message)
    resp = error_response(status, code, message)
    if isinstance(e, MethodNotAllowed) and e.valid_methods:
        resp.headers["Allow"] = ", ".join(e.valid_methods)
    return resp


def _server_error(e: Exception) -> Response:
    if isinstance(e, HTTPException):  # pragma: no cover - routed to _http_error
        return _http_error(e)
    log.exception("unexpected error on %s %s", request.method, loggable_path(request.path))
    return error_response(
        500, "ServerError", gettext("the server failed on this request; the game is unchanged")
    )


def register(app: Flask) -> None:
    """Installs the error handlers on ``app``."""
    app.register_error_handler(ServiceError, service_error_response)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _server_error)
