"""The JSON API under ``/api/v1``: everything a page does, for machines.

Every endpoint finds the caller's seat on the server (:func:`web.request.seat_of`: cookie or
bearer code; a Bearer code that opens no seat is 401) and lets the service decide what that seat
may do; the judge's endpoints refuse any other seat before the body is read. Every
state-changing request needs the CSRF token (:func:`web.request.check_csrf`), except one made with
``Authorization: Bearer``. The OpenAPI document is :mod:`web.openapi`. Bodies are JSON
(``Content-Type: application/json``, at most ``JSON_LIMIT`` bytes), validated by
:mod:`web.schemas`; responses are dumped by them too.

HTTP conventions:

- ``ETag`` is the game's last event number (``"12"``); ``If-None-Match`` on a view gives 304.
- ``If-Match: "12"`` on a submission says which event the client last saw; when the game has
  moved on, 409 ``Stale`` with the current ``seq`` (and ``ETag``), and nothing is recorded.
- ``Idempotency-Key`` (1 to 100 visible ASCII characters) on a POST: a retry of the same request
  (same path, body and ``If-Match``) gets the first answer again (``Idempotent-Replayed: true``)
  and writes nothing; the same key with another request gets 422 ``IdempotencyKeyReused``. The
  answers are kept per seat, the last :data:`REPLIES_PER_SEAT` keys; an older key falls back to
  the service, which refuses it with 409 ``Stale`` naming the event it made.

Errors: ``{"error": code, "rule": id or null, "message": text}``, plus ``fields`` for invalid
bodies, ``needs``/``asked`` for a question (202 ``NeedsInput``: the action waits for an input,
answer it at ``/answer``), ``seq`` for a stale one.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, UnsupportedMediaType

from referee.games import WATCHERS
from referee.jsonin import loads_strict
from referee.language import Say
from referee.service import Forbidden, NotFound, Receipt, Referee, ServiceError, Stale
from web import schemas
from web.errors import KeyReused, error_response, service_error_response, status_of
from web.games import Unreadable, page_module, page_of
from web.i18n import lang, say
from web.limits import check_idle_games, creates_games, reads_photos
from web.links import join_path, remember_codes
from web.openapi import DOCS, RouteDoc
from web.openapi import document as _document
from web.request import (
    CSRF_HEADER,
    bearer,
    csrf_protected,
    csrf_token,
    get_referee,
    has_judge,
    is_tournament_judge,
    judge_only,
    judged_games,
    may_create,
    seat_of,
    seat_token,
    with_known_game,
)
from web.tables import ACTIVE, ordered
from web.uploads import FRAME_LIMIT, upload_bytes

bp = Blueprint("api", __name__)

REPLIES_PER_SEAT = 64
REPLY_SEATS = 2000
_KEY_RE = re.compile(schemas.IDEMPOTENCY_KEY_PATTERN)
_ETAG_RE = re.compile(schemas.ETAG_PATTERN)


# ---- the route table (also the OpenAPI document's source) ---------------------------------


def route(
    rule: str, method: str, summary: str, **doc: Any
) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """Registers a view on the API blueprint and documents it for the OpenAPI document
    (``doc``: the fields of :class:`web.openapi.RouteDoc`)."""

    def deco(fn: Callable[..., Response]) -> Callable[..., Response]:
        d = RouteDoc(rule, method, summary, description=(fn.__doc__ or "").strip(), **doc)
        DOCS.append(d)
        bp.add_url_rule(rule, endpoint=fn.__name__, view_func=fn, methods=[method])
        return fn

    return deco


@bp.errorhandler(ValidationError)
def _invalid(e: ValidationError) -> Response:
    # marshmallow's messages read back as Says (schemas.said_messages), said in the request's
    # language by error_response with the sentence that quotes the first of them
    msgs = schemas.said_messages(
        e.messages if isinstance(e.messages, dict) else {"_schema": e.messages}
    )
    first = next(iter(msgs.items()), ("body", ["invalid"]))
    text = first[1][0] if isinstance(first[1], list) and first[1] else first[1]
    message = Say("the body is not valid: %(field)s: %(problem)s", field=first[0], problem=text)
    return error_response(422, "Invalid", message, None, fields=msgs)


# ---- helpers -------------------------------------------------------------------------------


def _load(schema: type[Schema], required: bool = True) -> dict[str, Any]:
    """The request's JSON body, validated. Raises UnsupportedMediaType (415), BadRequest (400),
    RequestEntityTooLarge (413) or ValidationError (422)."""
    limit = int(current_app.config["JSON_LIMIT"])
    if request.content_length is not None and request.content_length > limit:
        raise RequestEntityTooLarge()
    raw = request.get_data(cache=True)
    if len(raw) > limit:
        raise RequestEntityTooLarge()
    if not raw.strip() and not required:
        data: Any = {}
    else:
        if request.mimetype != "application/json":
            raise UnsupportedMediaType(
                Say("send the body as JSON (Content-Type: application/json)")
            )
        try:
            text = raw.decode("utf-8")
            data = loads_strict(text, "body", max_bytes=limit, max_depth=16)
        except UnicodeDecodeError:
            raise BadRequest(Say("body: not UTF-8 text")) from None
        except ValueError as e:  # duplicate keys, NaN, too deep: named in one line
            raise BadRequest(str(e)) from None
    if not isinstance(data, dict):
        raise ValidationError({"_schema": [Say("the body must be a JSON object")]})
    out: dict[str, Any] = _schema(schema).load(data)
    return out


def _ref() -> Referee:
    return get_referee()


def _seq(game: str) -> int:
    """The game's last event number. Raises NotFound."""
    return int(_ref().head(game)["seq"])


_SCHEMAS: dict[type[Schema], Schema] = {}


def _schema(cls: type[Schema]) -> Schema:
    """One instance per schema class (making one, with its nested schemas, costs more than
    dumping a view)."""
    s = _SCHEMAS.get(cls)
    if s is None:
        s = _SCHEMAS.setdefault(cls, cls())
    return s


# what the events' API (web.event_api) shares: the body's loading and the schemas' instances
load_json = _load
schema_instance = _schema

WATCHERS.append(_SCHEMAS.clear)  # a game registered or gone: its create body (web.schemas)


def _json(schema: type[Schema], data: Any, status: int = 200, etag: int | None = None) -> Response:
    resp = jsonify(_schema(schema).dump(data))
    resp.status_code = status
    if etag is not None:
        resp.set_etag(str(etag))
    return resp


def _typed(body: dict[str, Any], status: int = 200, etag: int | None = None) -> Response:
    """A typed value's JSON (a view, a receipt, a ruling: :mod:`referee.models`), written
    whole: its schema is generated from its type (:func:`web.openapi.typed_components`)."""
    resp = jsonify(body)
    resp.status_code = status
    if etag is not None:
        resp.set_etag(str(etag))
    return resp


def _if_match() -> int | None:
    """The expected event number from ``If-Match``; None when absent or ``*``. Raises
    BadRequest for anything else."""
    value = request.headers.get("If-Match")
    if value is None or value.strip() == "*":
        return None
    m = _ETAG_RE.match(value)
    if m is None:
        raise BadRequest(Say('If-Match must be the ETag of the view you saw, e.g. "12"'))
    return int(m.group(1) or m.group(2))


def _view(game: str, seat: str) -> dict[str, Any]:
    v = _ref().view(game, seat).to_json()  # it carries its head, from the same snapshot
    v["csrf"] = csrf_token(game)
    return v


def _receipt(game: str, r: Receipt) -> Response:
    body = r.to_json()
    body["view"]["csrf"] = csrf_token(game)
    return _typed(body, 200, r.seq)


def _record(game: str, seat: str, rec: Any, status: int = 201) -> Response:
    resp = jsonify(rec.to_json())  # cut for the seat by the service, whole: it still verifies
    resp.status_code = status
    resp.set_etag(str(_seq(game)))
    return resp


# ---- idempotency ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    digest: str
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]


class Replies:
    """The answers given to requests with an Idempotency-Key: per (game, seat) the last
    :data:`REPLIES_PER_SEAT`, for at most :data:`REPLY_SEATS` seats (least recently used go)."""

    def __init__(self) -> None:
        self._seats: OrderedDict[tuple[str, str], OrderedDict[str, Reply]] = OrderedDict()
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def lock(self, game: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(game, threading.Lock())

    def get(self, game: str, seat: str, key: str) -> Reply | None:
        with self._guard:
            keys = self._seats.get((game, seat))
            return None if keys is None else keys.get(key)

    def put(self, game: str, seat: str, key: str, reply: Reply) -> None:
        with self._guard:
            keys = self._seats.setdefault((game, seat), OrderedDict())
            self._seats.move_to_end((game, seat))
            keys[key] = reply
            while len(keys) > REPLIES_PER_SEAT:
                keys.popitem(last=False)
            while len(self._seats) > REPLY_SEATS:
                self._seats.popitem(last=False)


def _replies() -> Replies:
    r = current_app.extensions.get("hz_replies")
    if r is None:
        r = current_app.extensions.setdefault("hz_replies", Replies())
    assert isinstance(r, Replies)
    return r


def _once(game: str, call: Callable[[str | None], Response]) -> Response:
    """Runs ``call(key)`` at most once per Idempotency-Key and seat; see the module docstring.
    Service refusals become responses here, so that a retry gets them again."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return _answer(game, call, None)
    if not _KEY_RE.match(key):
        raise BadRequest(Say("Idempotency-Key must be 1 to 100 visible ASCII characters"))
    seat = seat_of(game)
    h = hashlib.sha256()
    for part in (request.method, request.path, request.headers.get("If-Match", "")):
        h.update(part.encode() + b"\0")
    h.update(request.get_data(cache=True))
    digest = h.hexdigest()
    replies = _replies()
    with replies.lock(game):
        hit = replies.get(game, seat, key)
        if hit is not None:
            if hit.digest != digest:
                return service_error_response(
                    KeyReused(
                        Say(
                            "this Idempotency-Key was used for another request; use a new key for "
                            "a new request"
                        )
                    )
                )
            resp = Response(hit.body, hit.status, mimetype="application/json")
            for k, v in hit.headers:
                resp.headers[k] = v
            resp.headers["Idempotent-Replayed"] = "true"
            return resp
        resp = _answer(game, call, key)
        if resp.status_code < 500:
            kept = tuple((k, v) for k, v in resp.headers.items() if k in ("ETag", "Location"))
            replies.put(game, seat, key, Reply(digest, resp.status_code, resp.get_data(), kept))
        return resp


def _answer(game: str, call: Callable[[str | None], Response], key: str | None) -> Response:
    try:
        return call(key)
    except Stale as e:
        if e.existing_seq is not None:  # the key was used before (and has left our cache)
            return service_error_response(e)
        seq = _seq(game)
        resp = error_response(status_of(e), "Stale", e.message, e.rule, seq=seq)
        resp.set_etag(str(seq))
        return resp
    except ServiceError as e:
        return service_error_response(e)


# ---- endpoints -----------------------------------------------------------------------------


@route(
    "/session",
    "GET",
    "The CSRF token for creating a game",
    response=schemas.SessionSchema,
    access="none",
    tags=("session",),
)
def session() -> Response:
    """Sets the browser-id cookie when missing; send the token as X-CSRF-Token on POST /games."""
    return _json(schemas.SessionSchema, {"csrf": csrf_token("")})


@route(
    "/games",
    "POST",
    "Create a game",
    body=schemas.CreateGameSchema,
    response=schemas.CreatedSchema,
    ok=201,
    errors=(400, 403, 413, 415, 422, 429, 503),
    access="none",
    headers=("X-CSRF-Token",),
    etag=True,
    replies=("Location",),
)
@csrf_protected
@creates_games
def create_game() -> Response:
    """Returns the players' secret join codes and links: hand each to its holder only (no
    judge's code: the server's tournament judge judges every game). 403 when the organiser
    keeps creating games to himself (``referee serve --create organiser``) and the request
    does not carry his code; one client may create a few games a minute (429 with
    Retry-After past it)."""
    may_create()
    check_idle_games()
    body = _load(schemas.CreateGameSchema)
    req = page_module(body["game_module"]).api_request(body)
    created = _ref().create_game(
        name=body["game_module"],
        options=req.options,
        players=req.players,
        kit=req.kit,
        judged=has_judge(),
        strict=body["strict"],
        hands_public=bool(body["hands_public"]),
    )
    remember_codes(created.game, created.codes)
    base = request.host_url.rstrip("/")
    out = {
        "game": created.game,
        "codes": created.codes,
        "links": {s: base + join_path(created.game, c) for s, c in created.codes.items()},
        "public": f"{base}/g/{created.game}",
        "csrf": csrf_token(created.game),
    }
    resp = _json(schemas.CreatedSchema, out, 201, _seq(created.game))
    resp.headers["Location"] = f"/api/v1/games/{created.game}"
    return resp


@route(
    "/games/<game>/claim",
    "POST",
    "Claim a seat with its join code (the reply's token is your Bearer token)",
    body=schemas.ClaimBodySchema,
    response=schemas.ClaimSchema,
    ok=201,
    errors=(400, 401, 403, 404, 409, 415, 422, 423, 503),
    access="none",
    headers=("X-CSRF-Token",),
)
@with_known_game
@csrf_protected
def claim(game: str) -> Response:
    """A join code opens its seat once, for one device: 201 with a device token (send it as
    ``Authorization: Bearer``; the join code itself is never a Bearer token). 409 "this seat is
    already held" when another device holds it; with ``"ask": true``, 201 with ``held`` and
    ``request``: a request the judge (at a table without one, the device holding the seat)
    approves, after which the token opens the seat. At a table without a judge the reply that
    takes a seat carries its ``recovery`` code, once. 404 for a code that opens no seat. It
    carries the game's
    CSRF token, the ``X-CSRF-Token`` of ``GET /api/v1/games/<game>`` (a script keeps that
    response's cookie)."""
    body = _load(schemas.ClaimBodySchema)
    c = _ref().claim(game, body["code"], seat_token(game), ask=body["ask"])
    out = {
        "seat": c.seat,
        "token": c.token,
        "held": c.held,
        "request": c.request,
        "recovery": c.recovery,
    }
    if c.held and c.request is None:
        return error_response(409, "SeatHeld", "this seat is already held by another device", None)
    return _json(schemas.ClaimSchema, out, 201)


@route(
    "/games/<game>",
    "GET",
    "The table as your seat sees it",
    response="View",
    errors=(304, 401, 404, 423, 503),
    headers=("If-None-Match",),
    etag=True,
    replies=("X-CSRF-Token",),
)
@with_known_game
def view(game: str) -> Response:
    """ETag is the last event's number; If-None-Match with it gives 304. At a table without a
    judge, the first GET by a device the seat moved to by approval carries the seat's new
    ``recovery`` code, once (the move voided the old one)."""
    seat = seat_of(game)
    v = _view(game, seat)
    code = None
    if seat not in ("judge", "public") and bearer() is not None:  # a browser: on its page
        code = _ref().issue_recovery(game, seat, seat_token(game))
    if code is not None:
        v["recovery"] = code
    resp = _typed(v, 200, int(v["seq"]))
    resp.headers[CSRF_HEADER] = v["csrf"]
    if code is None:  # a new code is never answered by a 304: it is given this once
        resp.make_conditional(request)
    return resp


@route(
    "/games/<game>/actions",
    "POST",
    "Submit an action",
    body=schemas.ActionBodySchema,
    response="Receipt",
    errors=(202, 400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="seat",
    headers=("X-CSRF-Token", "If-Match", "Idempotency-Key"),
    etag=True,
)
@with_known_game
@csrf_protected
def submit(game: str) -> Response:
    """An illegal action is 422 with its rule; 202 NeedsInput when an input is missing (the
    seats named in ``asked`` answer it at /answer); 409 Stale when If-Match is not the last
    event."""
    seat = seat_of(game)
    if seat == "public":
        raise Forbidden(Say("the public seat cannot act"))
    body = _load(schemas.ActionBodySchema)
    expected = _if_match()

    def call(key: str | None) -> Response:
        r = _ref().submit(game, seat, _action(game, body["action"]), expected_seq=expected, key=key)
        return _receipt(game, r)

    return _once(game, call)


@route(
    "/games/<game>/guard",
    "POST",
    "The guardian's warnings on an action, before you submit it",
    body=schemas.ActionBodySchema,
    response="Warnings",
    errors=(400, 401, 403, 404, 413, 415, 422, 423, 503),
    access="seat",
    headers=("X-CSRF-Token",),
    etag=True,
)
@with_known_game
@csrf_protected
def guard(game: str) -> Response:
    """Records nothing. ``warnings``: what the action would cost you (a move that loses at
    once, a card you will have to discard), each with its rule, its sentence in your
    language and the legal actions that avoid it, worked out from the table as your seat
    sees it. Always empty at a strict table (the organiser turned the guardian off), for the
    judge and the public, and for an action you may not submit (``/actions`` says why)."""
    seat = seat_of(game)
    body = _load(schemas.ActionBodySchema)
    cautions = _ref().guard(game, seat, _action(game, body["action"]))
    return _typed({"warnings": [c.to_json(say) for c in cautions]}, 200, _seq(game))


@route(
    "/games/<game>/answer",
    "POST",
    "Answer what the referee asks of your seat",
    body=schemas.AnswerSchema,
    response="Receipt",
    errors=(202, 400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="seat",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    etag=True,
)
@with_known_game
@csrf_protected
def answer(game: str) -> Response:
    """Gives the input named by the view's ``asked.needs``; 404 when nothing waits on you."""
    seat = seat_of(game)
    if seat == "public":
        raise Forbidden(Say("the public seat answers nothing"))
    body = _load(schemas.AnswerSchema)

    def call(key: str | None) -> Response:
        return _receipt(game, _ref().answer(game, seat, body["value"], key=key))

    return _once(game, call)


@route(
    "/games/<game>/observations",
    "POST",
    "Report a card seen at the table",
    body=schemas.ObservationSchema,
    response=schemas.RecordSchema,
    ok=201,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="seat",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    etag=True,
)
@with_known_game
@csrf_protected
def observe(game: str) -> Response:
    """A card recorded as another becomes an irregularity for the judge."""
    seat = seat_of(game)
    if seat == "public":
        raise Forbidden(Say("the public seat cannot report observations"))
    body = _load(schemas.ObservationSchema)

    def call(key: str | None) -> Response:
        return _record(game, seat, _ref().observe(game, seat, body))

    return _once(game, call)


@route(
    "/games/<game>/calls",
    "POST",
    "Call the judge",
    body=schemas.CallSchema,
    response=schemas.RecordSchema,
    ok=201,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="player",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    etag=True,
    body_optional=True,
)
@with_known_game
@csrf_protected
def call_judge(game: str) -> Response:
    """A player asks for the judge; the note is optional."""
    seat = seat_of(game)
    if seat not in _ref().game_info(game).players:
        raise Forbidden(Say("the %(seat)s seat cannot call the judge; a player can", seat=seat))
    body = _load(schemas.CallSchema, required=False)

    def call(key: str | None) -> Response:
        return _record(game, seat, _ref().call_judge(game, seat, body["note"]))

    return _once(game, call)


@route(
    "/games/<game>/takeback",
    "POST",
    "Ask to take back your own last action (the game's take-back rule)",
    response=schemas.RecordSchema,
    ok=201,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="player",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    etag=True,
)
@with_known_game
@csrf_protected
def take_back(game: str) -> Response:
    """A take-back proposal: the other player accepts or declines it (``/proposals``); any
    action closes it. Refused (naming the game's take-back rule) once the opponent acted, for an
    action that
    turned up a hidden card, or one that waits for an answer."""
    seat = seat_of(game)
    if seat not in _ref().game_info(game).players:
        raise Forbidden(
            Say("the %(seat)s seat cannot take back an action; a player can", seat=seat)
        )

    def call(key: str | None) -> Response:
        return _record(game, seat, _ref().take_back(game, seat))

    return _once(game, call)


@route(
    "/games/<game>/proposals",
    "POST",
    "Accept or decline the other player's proposal",
    body=schemas.ProposalAnswerSchema,
    response=schemas.RecordsSchema,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="player",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    etag=True,
)
@with_known_game
@csrf_protected
def answer_proposal(game: str) -> Response:
    """Accepted, the correction is written with the acceptance (a take-back, at any
    table; an undo or amend at a table without a judge once both players approved)."""
    seat = seat_of(game)
    if seat not in _ref().game_info(game).players:
        raise Forbidden(Say("the %(seat)s seat cannot answer a proposal; a player can", seat=seat))
    body = _load(schemas.ProposalAnswerSchema)

    def call(key: str | None) -> Response:
        recs = _ref().approve(game, seat, body["proposal"], agree=body["accept"])
        resp = jsonify({"records": [r.to_json() for r in recs]})
        resp.set_etag(str(_seq(game)))
        return resp

    return _once(game, call)


@route(
    "/games/<game>/undo",
    "POST",
    "Judge: continue from the position after an event",
    body=schemas.UndoSchema,
    response=schemas.RecordSchema,
    ok=201,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="judge",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    etag=True,
    tags=("judge",),
)
@with_known_game
@csrf_protected
@judge_only
def undo(game: str) -> Response:
    """Nothing is deleted: the undo is an event with the judge's reason."""
    body = _load(schemas.UndoSchema)

    def call(key: str | None) -> Response:
        return _record(game, "judge", _ref().undo(game, "judge", body["to"], body["reason"]))

    return _once(game, call)


@route(
    "/games/<game>/amend",
    "POST",
    "Judge: replace an event's action",
    body=schemas.AmendSchema,
    response=schemas.RecordSchema,
    ok=201,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="judge",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    etag=True,
    tags=("judge",),
)
@with_known_game
@csrf_protected
@judge_only
def amend(game: str) -> Response:
    """The amended action must be legal on the position before that event."""
    body = _load(schemas.AmendSchema)

    def call(key: str | None) -> Response:
        rec = _ref().amend(
            game, "judge", body["event"], _action(game, body["action"]), body["reason"]
        )
        return _record(game, "judge", rec)

    return _once(game, call)


@route(
    "/games/<game>/resolve",
    "POST",
    "Judge: resolve an irregularity or a judge call",
    body=schemas.ResolveSchema,
    response=schemas.RecordSchema,
    ok=201,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="judge",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    etag=True,
    tags=("judge",),
)
@with_known_game
@csrf_protected
@judge_only
def resolve(game: str) -> Response:
    """The judge's note stays on the judge's page."""
    body = _load(schemas.ResolveSchema)

    def call(key: str | None) -> Response:
        rec = _ref().resolve(game, "judge", body["event"], body["note"])
        return _record(game, "judge", rec)

    return _once(game, call)


@route(
    "/games/<game>/ruling",
    "POST",
    "Judge: rule on an action without changing the game",
    body=schemas.RulingRequestSchema,
    response="Ruling",
    errors=(400, 401, 403, 404, 413, 415, 422, 423, 503),
    access="judge",
    headers=("X-CSRF-Token",),
    etag=True,
    tags=("judge",),
)
@with_known_game
@csrf_protected
@judge_only
def ruling(game: str) -> Response:
    """Poses the action on the position after event ``at`` (default: now); records nothing."""
    body = _load(schemas.RulingRequestSchema)
    out = _ref().ruling(game, "judge", _action(game, body["action"]), at=body["at"], lang=lang())
    return _typed(out.to_json(), 200, _seq(game))


@route(
    "/games/<game>/seats/<seat>/reissue",
    "POST",
    "Judge: revoke a seat's join link and issue a new one",
    response=schemas.ReissuedSchema,
    errors=(401, 403, 404, 423, 503),
    access="judge",
    headers=("X-CSRF-Token",),
    tags=("judge",),
)
@with_known_game
@csrf_protected
@judge_only
def reissue(game: str, seat: str) -> Response:
    """The old link opens nothing any more and the seat is free for the first device that
    opens the new one (a lost phone). A game has no judge's link to reissue."""
    seats = _ref().game_info(game).players
    if seat not in seats:
        raise NotFound(
            Say("no seat %(name)s (seats: %(seats)s)", name=repr(seat[:20]), seats=list(seats))
        )
    code = _ref().reissue(game, "judge", seat)
    base = request.host_url.rstrip("/")
    return _json(
        schemas.ReissuedSchema,
        {"seat": seat, "code": code, "link": base + join_path(game, code)},
    )


def _query_int(name: str, low: int, high: int, default: int | None) -> int | None:
    """The query parameter ``name`` as a whole number from ``low`` to ``high``, or
    ``default`` when absent. Raises ValidationError naming it."""
    raw = request.args.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or len(raw) > 10 or not low <= int(raw) <= high:
        raise BadRequest(
            Say(
                "%(name)s: a whole number from %(low)s to %(high)s, not %(given)s",
                name=name,
                low=low,
                high=high,
                given=repr(raw[:20]),
            )
        )
    return int(raw)


@route(
    "/tables",
    "GET",
    "Judge: all the tables you judge, at a glance",
    response="Tables",
    errors=(400, 401, 403, 503),
    access="judge",
    tags=("judge",),
    query=("state", "limit", "offset"),
)
def tables() -> Response:
    """Every table for the tournament judge; otherwise those you hold a judge link for. The
    tables playing now come first (an open call or irregularity, then in play), then those
    setting up, quiet for two hours, and finished; the most recent first in each."""
    games = set(judged_games())
    if not games and not is_tournament_judge():
        raise Forbidden(Say("only a judge sees the tables; open your judge link first"))
    state = request.args.get("state", "all")
    if state not in ("all", "active", "other"):
        raise BadRequest(Say("state: all, active or other, not %(given)s", given=repr(state[:20])))
    limit = _query_int("limit", 1, 10_000, None)
    offset = _query_int("offset", 0, 10**9, 0) or 0
    listed = ordered([r for r in _ref().overview("judge") if r.get("game") in games])
    rows = [r for st, r in listed if state == "all" or (st in ACTIVE) == (state == "active")][
        offset : None if limit is None else offset + limit
    ]
    return _typed({"tables": rows})


@route(
    "/games/<game>/log",
    "GET",
    "The game's log as your seat may read it",
    response=schemas.LogSchema,
    errors=(401, 404, 423, 503),
    etag=True,
)
@with_known_game
def game_log(game: str) -> Response:
    """Hidden cards are cut for every seat but the judge (records marked ``redacted``)."""
    seat = seat_of(game)
    records = [r.to_json() for r in _ref().log(game, seat)]
    return _json(schemas.LogSchema, {"game": game, "records": records}, 200, _seq(game))


@route(
    "/games/<game>/export",
    "GET",
    "The log as JSON lines (a file)",
    errors=(401, 404, 423, 503),
    content="application/x-ndjson",
    etag=True,
    replies=("Content-Disposition",),
)
@with_known_game
def export(game: str) -> Response:
    """The judge's export is the whole log (``referee verify`` checks it); anyone else's is
    redacted."""
    seat = seat_of(game)
    text = _ref().export(game, seat)
    resp = Response(text, 200, mimetype="application/x-ndjson")
    resp.headers["Content-Disposition"] = f'attachment; filename="{game}-{seat}.jsonl"'
    resp.set_etag(str(_seq(game)))
    return resp


@route(
    "/games/<game>/photos",
    "POST",
    "Read the cards in a photo",
    response=schemas.PhotoSchema,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 503),
    access="seat",
    headers=("X-CSRF-Token",),
    upload="photo",
)
@with_known_game
@csrf_protected
@reads_photos
def photo(game: str) -> Response:
    """The photo (multipart field 'photo', or the whole body as image/jpeg, image/png or
    image/webp) is read with the game's sticker kit. Records nothing: enter the cards with
    /actions (the deal, a draw) or /observations (``source: camera``). ``cards`` lists every
    checked code (``own``: your deck, the cards you may enter; ``name``: as you write it);
    ``refused`` the codes of another kit, misprints and fakes with the reason. 409 NoKit for
    a game created without a kit; 403 for the public seat."""
    pm = page_of(_ref(), game)
    data = upload_bytes("photo", int(current_app.config["MAX_CONTENT_LENGTH"]))
    return _json(schemas.PhotoSchema, pm.read_photo(game, data))


@route(
    "/games/<game>/frames",
    "POST",
    "Read one camera frame of the mat: snapshot, proposals, annotated mat",
    response=schemas.FrameSchema,
    errors=(400, 401, 403, 404, 409, 413, 415, 422, 423, 429, 503),
    access="seat",
    headers=("X-CSRF-Token",),
    etag=True,
    upload="frame",
    query=("still",),
)
@with_known_game
@csrf_protected
def frame(game: str) -> Response:
    """The frame (an image/jpeg body, or multipart field 'frame', at most 4 MB) is read with
    the game's kit; proposals are computed against your seat's view at ``seq``. Each proposal's
    ``confirm`` says how to record it: POST ``body`` to /games/{game}/``endpoint`` (with
    ``If-Match: seq``); nothing is recorded here. ``image`` (the rectified mat with what was
    read drawn over it, a JPEG data URL) goes to you only. ``found: false`` with a message when
    the mat is not in the frame. A change is proposed once two frames from your seat saw it
    on the same view, none between them reading its column otherwise (``pending`` counts the
    changes seen once so far): a hand passing over the table proposes nothing, and up to 3
    frames in a row in which a hand hides the column (or the mat) neither count nor reset;
    ``?still=1`` (a full-resolution still) is read at once. ``framing`` says whether face
    codes read at this framing (the pixels per module at the farthest cell and the median one)
    and how to fix it. 429 when a seat sends frames faster than 2 a second (3 at once), 503
    while the server reads other frames (both with Retry-After)."""
    still = request.args.get("still") == "1"
    pm = page_of(_ref(), game)
    limit = int(current_app.config["MAX_CONTENT_LENGTH"]) if still else FRAME_LIMIT
    data = upload_bytes("frame", limit)
    out = pm.read_frame(game, data, live=not still)
    return _json(schemas.FrameSchema, out, 200, out["seq"])


@route(
    "/openapi.json",
    "GET",
    "This API's OpenAPI 3 document",
    access="none",
    tags=("session",),
)
def openapi() -> Response:
    """Generated from the marshmallow schemas and the route table."""
    return jsonify(openapi_document())


def _action(game: str, action: dict[str, Any] | str) -> dict[str, Any]:
    """An action body's action as its JSON object: a text is read by the game's page module.
    Raises ValidationError naming the field for a text that is no action of the game."""
    if isinstance(action, dict):
        return action
    try:
        return page_of(_ref(), game).action_from_text(action)
    except Unreadable as e:
        raise ValidationError({"action": [e.args[0] if e.args else str(e)]}) from None


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3 document of this API (:func:`web.openapi.document`)."""
    return _document()
