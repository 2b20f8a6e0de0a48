"""The JSON API under ``/api/v1``: everything a page does, for machines.

Every endpoint finds the caller's seat on the server (:func:`web.request.seat_of`: cookie or
bearer code) and lets the service decide what that seat may do; the judge's endpoints refuse any
other seat before the service is asked. Every state-changing request needs the CSRF token
(:func:`web.request.check_csrf`). Bodies are JSON (``Content-Type: application/json``, at most
``JSON_LIMIT`` bytes), validated by :mod:`web.schemas`; responses are dumped by them too.

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
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, UnsupportedMediaType

from referee.jsonin import loads_strict
from referee.models import Head
from referee.service import Forbidden, NotFound, Receipt, Referee, ServiceError, Stale
from web import images, schemas
from web.errors import KeyReused, error_response, service_error_response, status_of
from web.links import join_path, remember_codes
from web.request import (
    CSRF_HEADER,
    cookie_name,
    csrf_protected,
    csrf_token,
    get_referee,
    is_tournament_judge,
    judge_only,
    judged_games,
    seat_of,
    set_seat_cookie,
    with_known_game,
)

bp = Blueprint("api", __name__)

REPLIES_PER_SEAT = 64
REPLY_SEATS = 2000
_KEY_RE = re.compile(r"^[\x21-\x7e]{1,100}$")
_ETAG_RE = re.compile(r'^\s*(?:W/)?(?:"(\d{1,12})"|(\d{1,12}))\s*$')


# ---- the route table (also the OpenAPI document's source) ---------------------------------


@dataclass(frozen=True)
class RouteDoc:
    rule: str
    method: str
    summary: str
    body: type[Schema] | None = None
    response: type[Schema] | None = None
    ok: int = 200
    errors: tuple[int, ...] = ()
    seat: str = "any seat"
    content: str = "application/json"
    headers: tuple[str, ...] = ()
    description: str = ""
    tags: tuple[str, ...] = field(default=("games",))
    upload: tuple[str, ...] = ()  # request body media types of an upload (an image)


DOCS: list[RouteDoc] = []


def route(
    rule: str, method: str, summary: str, **doc: Any
) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """Registers a view on the API blueprint and documents it for the OpenAPI document."""

    def deco(fn: Callable[..., Response]) -> Callable[..., Response]:
        d = RouteDoc(rule, method, summary, description=(fn.__doc__ or "").strip(), **doc)
        DOCS.append(d)
        bp.add_url_rule(rule, endpoint=fn.__name__, view_func=fn, methods=[method])
        return fn

    return deco


@bp.errorhandler(ValidationError)
def _invalid(e: ValidationError) -> Response:
    msgs = e.messages if isinstance(e.messages, dict) else {"_schema": e.messages}
    first = next(iter(msgs.items()), ("body", ["invalid"]))
    text = first[1][0] if isinstance(first[1], list) and first[1] else first[1]
    return error_response(
        422, "Invalid", f"the body is not valid: {first[0]}: {text}", None, fields=msgs
    )


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
            raise UnsupportedMediaType("send the body as JSON (Content-Type: application/json)")
        try:
            text = raw.decode("utf-8")
            data = loads_strict(text, "body", max_bytes=limit, max_depth=16)
        except UnicodeDecodeError:
            raise BadRequest("body: not UTF-8 text") from None
        except ValueError as e:  # duplicate keys, NaN, too deep: named in one line
            raise BadRequest(str(e)) from None
    if not isinstance(data, dict):
        raise ValidationError({"_schema": ["the body must be a JSON object"]})
    out: dict[str, Any] = _schema(schema).load(data)
    return out


def _ref() -> Referee:
    return get_referee()


def _seq(game: str) -> int:
    """The game's last event number. Raises NotFound."""
    return int(_ref().head(game)["seq"])


def _head(game: str) -> Head:
    """The log's head ``{"seq", "hash"}``. Raises NotFound."""
    return _ref().head(game)


_SCHEMAS: dict[type[Schema], Schema] = {}


def _schema(cls: type[Schema]) -> Schema:
    """One instance per schema class (making one, with its nested schemas, costs more than
    dumping a view)."""
    s = _SCHEMAS.get(cls)
    if s is None:
        s = _SCHEMAS.setdefault(cls, cls())
    return s


def _json(schema: type[Schema], data: Any, status: int = 200, etag: int | None = None) -> Response:
    resp = jsonify(_schema(schema).dump(data))
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
        raise BadRequest('If-Match must be the ETag of the view you saw, e.g. "12"')
    return int(m.group(1) or m.group(2))


def _view(game: str, seat: str) -> dict[str, Any]:
    v = dict(_ref().view(game, seat))
    v.setdefault("head", _head(game))
    v["csrf"] = csrf_token(game)
    return v


def _receipt(game: str, r: Receipt) -> Response:
    body = r.to_json()
    body["view"] = dict(body["view"])
    body["view"].setdefault("head", _head(game))
    body["view"]["csrf"] = csrf_token(game)
    return _json(schemas.ReceiptSchema, body, 200, r.seq)


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
        raise BadRequest("Idempotency-Key must be 1 to 100 visible ASCII characters")
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
                        "this Idempotency-Key was used for another request; use a new key for "
                        "a new request"
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
    errors=(400, 403, 413, 415, 422),
    headers=("X-CSRF-Token",),
)
@csrf_protected
def create_game() -> Response:
    """Returns the three seats' secret join codes and links: hand each to its holder only."""
    body = _load(schemas.CreateGameSchema)
    kit = None
    if body["kit"] is not None:
        if body["catalogue"] is not None:
            raise ValidationError({"kit": ["give a kit or a catalogue, not both"]})
        try:
            kit = images.parse_kit(body["kit"])
        except ValueError as e:
            raise ValidationError({"kit": [str(e)]}) from None
    created = _ref().create_game(
        profile=body["profile"],
        switches=body["switches"],
        players=body["players"],
        starting=body["starting"],
        catalogue=kit.catalogue_for_game() if kit is not None else body["catalogue"],
        kit=kit.to_json() if kit is not None else None,
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
    "/games/<game>",
    "GET",
    "The table as your seat sees it",
    response=schemas.ViewSchema,
    errors=(404,),
    headers=("If-None-Match",),
)
@with_known_game
def view(game: str) -> Response:
    """ETag is the last event's number; If-None-Match with it gives 304."""
    seat = seat_of(game)
    v = _view(game, seat)
    resp = _json(schemas.ViewSchema, v, 200, int(v["seq"]))
    resp.headers[CSRF_HEADER] = v["csrf"]
    resp.make_conditional(request)
    return resp


@route(
    "/games/<game>/actions",
    "POST",
    "Submit an action",
    body=schemas.ActionBodySchema,
    response=schemas.ReceiptSchema,
    errors=(202, 400, 403, 404, 409, 413, 415, 422),
    headers=("X-CSRF-Token", "If-Match", "Idempotency-Key"),
)
@with_known_game
@csrf_protected
def submit(game: str) -> Response:
    """An illegal action is 422 with its rule; 202 NeedsInput when an input is missing (the
    seats named in ``asked`` answer it at /answer); 409 Stale when If-Match is not the last
    event."""
    body = _load(schemas.ActionBodySchema)
    expected = _if_match()
    seat = seat_of(game)

    def call(key: str | None) -> Response:
        r = _ref().submit(game, seat, body["action"], expected_seq=expected, key=key)
        return _receipt(game, r)

    return _once(game, call)


@route(
    "/games/<game>/answer",
    "POST",
    "Answer what the referee asks of your seat",
    body=schemas.AnswerSchema,
    response=schemas.ReceiptSchema,
    errors=(202, 400, 403, 404, 409, 413, 415, 422),
    headers=("X-CSRF-Token", "Idempotency-Key"),
)
@with_known_game
@csrf_protected
def answer(game: str) -> Response:
    """Gives the input named by the view's ``asked.needs``; 404 when nothing waits on you."""
    body = _load(schemas.AnswerSchema)
    seat = seat_of(game)
    if seat == "public":
        raise Forbidden("the public seat answers nothing")

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
    errors=(400, 403, 404, 413, 415, 422),
    headers=("X-CSRF-Token", "Idempotency-Key"),
)
@with_known_game
@csrf_protected
def observe(game: str) -> Response:
    """A card recorded as another becomes an irregularity for the judge (D20)."""
    body = _load(schemas.ObservationSchema)
    seat = seat_of(game)

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
    errors=(400, 403, 404, 413, 415, 422),
    headers=("X-CSRF-Token", "Idempotency-Key"),
)
@with_known_game
@csrf_protected
def call_judge(game: str) -> Response:
    """A player (or the judge) asks for the judge; the note is optional."""
    body = _load(schemas.CallSchema, required=False)
    seat = seat_of(game)
    if seat == "public":
        raise Forbidden("the public seat cannot call the judge; a player can")

    def call(key: str | None) -> Response:
        return _record(game, seat, _ref().call_judge(game, seat, body["note"]))

    return _once(game, call)


@route(
    "/games/<game>/undo",
    "POST",
    "Judge: continue from the position after an event",
    body=schemas.UndoSchema,
    response=schemas.RecordSchema,
    ok=201,
    errors=(400, 403, 404, 413, 415, 422),
    seat="judge",
    headers=("X-CSRF-Token", "Idempotency-Key"),
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
    errors=(400, 403, 404, 413, 415, 422),
    seat="judge",
    headers=("X-CSRF-Token", "Idempotency-Key"),
    tags=("judge",),
)
@with_known_game
@csrf_protected
@judge_only
def amend(game: str) -> Response:
    """The amended action must be legal on the position before that event."""
    body = _load(schemas.AmendSchema)

    def call(key: str | None) -> Response:
        rec = _ref().amend(game, "judge", body["event"], body["action"], body["reason"])
        return _record(game, "judge", rec)

    return _once(game, call)


@route(
    "/games/<game>/resolve",
    "POST",
    "Judge: resolve an irregularity or a judge call",
    body=schemas.ResolveSchema,
    response=schemas.RecordSchema,
    ok=201,
    errors=(400, 403, 404, 413, 415, 422),
    seat="judge",
    headers=("X-CSRF-Token", "Idempotency-Key"),
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
    response=schemas.RulingSchema,
    errors=(400, 403, 404, 413, 415, 422),
    seat="judge",
    headers=("X-CSRF-Token",),
    tags=("judge",),
)
@with_known_game
@csrf_protected
@judge_only
def ruling(game: str) -> Response:
    """Poses the action on the position after event ``at`` (default: now); records nothing."""
    body = _load(schemas.RulingRequestSchema)
    out = _ref().ruling(game, "judge", body["action"], at=body["at"])
    return _json(schemas.RulingSchema, out, 200, _seq(game))


@route(
    "/games/<game>/seats/<seat>/reissue",
    "POST",
    "Judge: revoke a seat's join link and issue a new one",
    response=schemas.ReissuedSchema,
    errors=(403, 404),
    seat="judge",
    headers=("X-CSRF-Token",),
    tags=("judge",),
)
@with_known_game
@csrf_protected
@judge_only
def reissue(game: str, seat: str) -> Response:
    """The old link and every cookie made from it open nothing any more (a lost phone)."""
    if seat not in ("hera", "zeus", "judge"):
        raise NotFound(f"no seat {seat[:20]!r} (seats: hera, zeus, judge)")
    holder_cookie = request.cookies.get(cookie_name(game))
    own = seat == "judge" and holder_cookie is not None and not is_tournament_judge()
    code = _ref().reissue(game, "judge", seat)
    base = request.host_url.rstrip("/")
    resp = _json(
        schemas.ReissuedSchema,
        {"seat": seat, "code": code, "link": base + join_path(game, code)},
    )
    if own:  # the judge revoked his own link: this browser keeps the judge's seat
        set_seat_cookie(resp, game, code)
    return resp


@route(
    "/tables",
    "GET",
    "Judge: all the tables you judge, at a glance",
    response=schemas.TablesSchema,
    errors=(403,),
    seat="judge",
    tags=("judge",),
)
def tables() -> Response:
    """Every table for the tournament judge; otherwise those you hold a judge link for."""
    games = set(judged_games())
    if not games and not is_tournament_judge():
        raise Forbidden("only a judge sees the tables; open your judge link first")
    rows = [r for r in _ref().overview("judge") if r.get("game") in games]
    return _json(schemas.TablesSchema, {"tables": rows})


@route(
    "/games/<game>/log",
    "GET",
    "The game's log as your seat may read it",
    response=schemas.LogSchema,
    errors=(404,),
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
    errors=(404,),
    content="application/x-ndjson",
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
    errors=(400, 403, 404, 409, 413, 415, 422),
    headers=("X-CSRF-Token",),
    upload=("multipart/form-data", "image/jpeg", "image/png", "image/webp"),
)
@with_known_game
@csrf_protected
def photo(game: str) -> Response:
    """The photo (multipart field 'photo', or the whole body as image/jpeg, image/png or
    image/webp) is read with the game's sticker kit. Records nothing: enter the cards with
    /actions (the deal, a draw) or /observations (``source: camera``). ``cards`` lists every
    checked code (``own``: your deck, the cards you may enter; ``name``: as you write it);
    ``refused`` the codes of another kit, misprints and fakes with the reason. 409 NoKit for
    a game created without a kit; 403 for the public seat."""
    data = images.upload_bytes("photo", int(current_app.config["MAX_CONTENT_LENGTH"]))
    return _json(schemas.PhotoSchema, images.read_photo(game, data))


@route(
    "/games/<game>/frames",
    "POST",
    "Read one camera frame of the mat: snapshot, proposals, annotated mat",
    response=schemas.FrameSchema,
    errors=(400, 403, 404, 409, 413, 415, 422, 429, 503),
    headers=("X-CSRF-Token",),
    upload=("image/jpeg", "image/png", "image/webp", "multipart/form-data"),
)
@with_known_game
@csrf_protected
def frame(game: str) -> Response:
    """The frame (an image/jpeg body, or multipart field 'frame', at most 4 MB) is read with
    the game's kit; proposals are computed against your seat's view at ``seq``. Each proposal's
    ``confirm`` says how to record it: POST ``body`` to /games/{game}/``endpoint`` (with
    ``If-Match: seq``); nothing is recorded here. ``image`` (the rectified mat with what was
    read drawn over it, a JPEG data URL) goes to you only. ``found: false`` with a message when
    the mat is not in the frame. 429 when a seat sends frames faster than 2 a second (3 at
    once), 503 while the server reads other frames (both with Retry-After)."""
    data = images.upload_bytes("frame", images.FRAME_LIMIT)
    out = images.read_frame(game, data)
    return _json(schemas.FrameSchema, out, 200, out["seq"])


@route(
    "/openapi.json",
    "GET",
    "This API's OpenAPI 3 document",
    tags=("session",),
)
def openapi() -> Response:
    """Generated from the marshmallow schemas and the route table."""
    return jsonify(openapi_document())


# The live stream is served by web.live (its own blueprint) under the same prefix.
DOCS.append(
    RouteDoc(
        "/games/<game>/stream",
        "GET",
        "Live updates (server-sent events)",
        errors=(404,),
        content="text/event-stream",
        headers=("Last-Event-ID",),
        description="Each event (type 'head', id = seq) carries the new head {seq, hash} of the "
        "log; fetch the view again when it comes. A comment line every 15 s keeps the "
        "connection open; the server closes the stream after 5 minutes and the browser's "
        "EventSource reconnects (retry 2 s), resuming after Last-Event-ID.",
    )
)

_STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "NeedsInput: the action waits for an input (see needs, asked)",
    304: "Not modified (If-None-Match matched the ETag)",
    400: "Malformed request (JSON, header)",
    403: "Forbidden: your seat may not do this, or the CSRF token is missing",
    404: "No such game, seat or pending question",
    409: "Stale: If-Match is not the last event (seq: the current one), or the key was used; "
    "NoKit: the game has no sticker kit (photos, frames)",
    413: "Body too large",
    415: "Wrong Content-Type",
    422: "Invalid body, illegal action (with its rule), or an Idempotency-Key reused",
    429: "Too many frames from this seat (Retry-After)",
    503: "Busy reading other frames (Retry-After)",
}

_HEADER_DOC = {
    "X-CSRF-Token": "the CSRF token (from GET /session or a view's csrf)",
    "If-Match": "the ETag (event number) of the view you acted on",
    "Idempotency-Key": "a unique key per request: a retry gets the first answer",
    "If-None-Match": "the ETag you hold",
    "Last-Event-ID": "the last event number received",
}


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3 document of this API, from :data:`DOCS` and :mod:`web.schemas`."""
    from apispec import APISpec
    from apispec.ext.marshmallow import MarshmallowPlugin

    spec = APISpec(
        title="Hera & Zeus referee",
        version="1",
        openapi_version="3.0.3",
        plugins=[MarshmallowPlugin()],
        info={
            "description": "The referee's JSON API. Seats are cookies made from join links "
            "(or 'Authorization: Bearer <join code>'). Errors: {error, rule, message}."
        },
        servers=[{"url": "/api/v1"}],
    )
    spec.components.schema("Error", schema=schemas.ErrorSchema)
    paths: dict[str, dict[str, Any]] = {}
    for d in DOCS:
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", d.rule)
        params: list[dict[str, Any]] = [
            {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
            for n in re.findall(r"{(\w+)}", path)
        ]
        params += [
            {
                "name": h,
                "in": "header",
                "required": False,
                "schema": {"type": "string"},
                "description": _HEADER_DOC.get(h, ""),
            }
            for h in d.headers
        ]
        op: dict[str, Any] = {
            "summary": d.summary,
            "description": d.description + f"\n\nSeat: {d.seat}.",
            "operationId": d.method.lower() + "_" + re.sub(r"\W+", "_", path).strip("_"),
            "tags": list(d.tags),
            "parameters": params,
        }
        if d.body is not None:
            op["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": d.body}},
            }
        elif d.upload:
            binary = {"type": "string", "format": "binary"}
            op["requestBody"] = {
                "required": True,
                "content": {
                    t: {
                        "schema": {
                            "type": "object",
                            "properties": {"photo": binary, "frame": binary},
                        }
                    }
                    if t == "multipart/form-data"
                    else {"schema": binary}
                    for t in d.upload
                },
            }
        ok_content: dict[str, Any]
        if d.response is not None:
            ok_content = {d.content: {"schema": d.response}}
        else:
            ok_content = {d.content: {"schema": {"type": "string"}}}
        responses: dict[str, Any] = {
            str(d.ok): {"description": _STATUS_TEXT.get(d.ok, "OK"), "content": ok_content}
        }
        for code in d.errors:
            responses[str(code)] = {
                "description": _STATUS_TEXT.get(code, "error"),
                "content": {"application/json": {"schema": "Error"}},
            }
        op["responses"] = responses
        paths.setdefault(path, {})[d.method.lower()] = op
    for path, ops in paths.items():
        spec.path(path=path, operations=ops)
    return spec.to_dict()
