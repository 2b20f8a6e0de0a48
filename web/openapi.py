"""The JSON API's OpenAPI 3 document, made from the same definitions the server runs on.

Each endpoint of :mod:`web.api` registers a :class:`RouteDoc` (its request and response schemas
from :mod:`web.schemas`, the seats that may call it, the statuses and headers it can answer
with); :func:`document` turns them into the document served at ``/api/v1/openapi.json``. A
seat's view, a receipt and a ruling are the service's typed values (:mod:`referee.models`, each
game's board view and ruling result): their schemas are generated from those types
(:func:`typed_components`), never written a second time. The
header patterns are the ones :mod:`web.api` checks with (``schemas.*_PATTERN``), the body
constraints the marshmallow validators themselves (apispec reads them), and the games' create
options come from the games (``Game.options``), so the document cannot promise what the server
refuses.

Seats: ``Authorization: Bearer <join code>`` (a seat's join code, or the tournament judge's code)
or the cookie a join link sets (``hz_<game>``, ``hzjudge``). A Bearer request is decided by its
code alone: cookies carry no authority beside it, so it needs no CSRF token, and a code that opens
no seat is 401 (``WWW-Authenticate: Bearer``). Without a credential the caller is the public.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec
from marshmallow import Schema, fields

from referee.games import GAMES
from referee.models import Caution, Receipt, Ruling, SeatView, TableRow
from web import schemas

Access = Literal["none", "any", "seat", "player", "judge", "organiser", "event player", "event any"]


@dataclass(frozen=True)
class RouteDoc:
    """One endpoint as the document states it.

    ``access``: who may call it — "none" (no seat involved), "any" (every seat, the public
    too), "seat" (a player or the judge), "player" (a player seat of the game), "judge"; of an
    event (issue 34, :mod:`web.event_api`): "organiser" (the tournament judge), "event player"
    (a player of the event by his personal code, or the organiser where the summary says so),
    "event any" (anyone; the public without a credential).
    ``errors``: every other status it answers with. ``headers``: request headers it reads;
    ``etag``: the success response carries the game's ``ETag``; ``replies``: the success
    headers besides it."""

    rule: str
    method: str
    summary: str
    body: type[Schema] | None = None
    response: type[Schema] | str | None = None  # a str: a component of typed_components()
    ok: int = 200
    errors: tuple[int, ...] = ()
    access: Access = "any"
    content: str = "application/json"
    headers: tuple[str, ...] = ()
    replies: tuple[str, ...] = ()
    etag: bool = False
    description: str = ""
    tags: tuple[str, ...] = field(default=("games",))
    upload: str = ""  # the multipart field of an image upload ("photo", "frame")
    body_optional: bool = False
    query: tuple[str, ...] = ()  # query parameters it reads (:data:`_QUERY_IN`)


DOCS: list[RouteDoc] = []

IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp")

# A player of each game the referee runs, by seat ("A or B; C or D").
PLAYER_TITLES = "; ".join(" or ".join(p.capitalize() for p in g.players) for g in GAMES.values())
_SEAT_TEXT: dict[Access, str] = {
    "none": "No seat: anyone may call it.",
    "any": "Any seat; without a credential you are the public.",
    "seat": "A player or the judge (the public is refused with 403).",
    "player": f"{PLAYER_TITLES} (the judge and the public are refused with 403).",
    "judge": "The judge of this game or the tournament judge (anyone else: 403).",
    "organiser": "The organiser of events: the tournament judge, his code as Bearer or his "
    "cookie (anyone else: 403).",
    "event player": "A player of this event: his personal code as Bearer, or the cookie "
    "hze_{event} his personal link sets; the organiser too where the summary says so (anyone "
    "else: 403).",
    "event any": "Anyone; a player (his personal code) or the organiser by their credential; "
    "without one you are the public.",
}

_STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "NeedsInput: the action waits for an input (see needs, asked); answer it at /answer",
    304: "Not Modified: If-None-Match holds the current ETag",
    400: "Malformed request: JSON, a header (If-Match, Idempotency-Key), a missing upload",
    401: "Unauthorized: the Bearer code opens no seat here (wrong or revoked)",
    403: "Forbidden: your seat may not do this, or the CSRF token is missing or wrong, or the "
    "request comes from another site's page",
    404: "No such game or seat, or no open question for your seat",
    409: "Stale: If-Match is not the last event (seq: the current one; ETag), or the "
    "Idempotency-Key made an event already; NoKit: the game has no sticker kit",
    413: "Body too large",
    415: "Wrong Content-Type",
    422: "Invalid body (fields: per-field problems), refused by the rules (rule: the deciding "
    "rule), or an Idempotency-Key reused for another request",
    423: "Held: the game's record failed verification; it is not served until the judge settles it",
    429: "Too many frames from this seat, or too many games created by this client (Retry-After)",
    503: "Unavailable: storage failed and nothing was written, or busy reading other images, "
    "or the server's live streams are full (Retry-After)",
}

# query parameters: what each means and its form
_QUERY_IN: dict[str, tuple[str, dict[str, Any]]] = {
    "state": (
        "which tables: all (the default), active (an open call or irregularity, or in play) "
        "or other (setting up, quiet, finished)",
        {"type": "string", "enum": ["all", "active", "other"]},
    ),
    "limit": ("at most this many tables", {"type": "integer", "minimum": 1, "maximum": 10000}),
    "offset": (
        "skip this many tables first",
        {"type": "integer", "minimum": 0, "maximum": 10**9},
    ),
    "still": (
        "1: a full-resolution still (up to the body limit), read at once; otherwise a live "
        "frame (at most 4 MB), whose changes are proposed once two frames saw them, none "
        "between them contradicting them",
        {"type": "string", "enum": ["0", "1"]},
    ),
}

# the answers that say how long to wait (Retry-After) besides a frame's: (method, rule)
_RETRY_AFTER = {
    ("POST", "/games"),
    ("GET", "/games/<game>/stream"),
    ("POST", "/games/<game>/photos"),
}

# request headers the API reads: what each means and the form the server checks
_HEADER_IN: dict[str, tuple[str, dict[str, Any]]] = {
    "X-CSRF-Token": (
        "the CSRF token (GET /session, a view's csrf or its X-CSRF-Token header); needed "
        "with the seat cookie, not with Authorization: Bearer",
        {"type": "string"},
    ),
    "If-Match": (
        'the ETag (event number) of the view you acted on, e.g. "12"; "*" or none: any. '
        "Another value is 400; a past event is 409 Stale",
        {"type": "string", "pattern": schemas.IF_MATCH_PATTERN},
    ),
    "Idempotency-Key": (
        "a unique key per request (1 to 100 visible ASCII characters; another form is 400): "
        "a retry of the same request gets the first answer (Idempotent-Replayed: true) and "
        "writes nothing; the key with another request is 422",
        {
            "type": "string",
            "minLength": 1,
            "maxLength": 100,
            "pattern": schemas.IDEMPOTENCY_KEY_PATTERN,
        },
    ),
    "If-None-Match": ("the ETag you hold: 304 when it is current", {"type": "string"}),
    "Last-Event-ID": (
        "the last event number received (digits; anything else is ignored)",
        {"type": "string"},
    ),
}

# response headers: what each means
_HEADER_OUT: dict[str, tuple[str, dict[str, Any]]] = {
    "ETag": ('the game\'s last event number, e.g. "12"', {"type": "string"}),
    "X-CSRF-Token": ("the CSRF token for this game's POST requests", {"type": "string"}),
    "Location": ("the new game's address", {"type": "string"}),
    "Idempotent-Replayed": (
        '"true" when this is the answer given before to the same Idempotency-Key',
        {"type": "string", "enum": ["true"]},
    ),
    "Retry-After": (
        "seconds to wait before asking again (the next frame, game or stream)",
        {"type": "integer", "minimum": 1},
    ),
    "WWW-Authenticate": ('"Bearer": the scheme this API takes', {"type": "string"}),
    "Content-Disposition": ("attachment; the file's name", {"type": "string"}),
}

SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "a seat's join code, or the tournament judge's code. Decides the seat "
        "alone (cookies are ignored beside it), needs no CSRF token; a code that opens no "
        "seat here is 401",
    },
    "seatCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": "hz_{game}",
        "description": "the seat cookie a join link /join/{game}/{code} sets (HttpOnly, "
        "SameSite=Strict); a POST with it needs X-CSRF-Token. A revoked code reads as the "
        "public",
    },
    "judgeCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": "hzjudge",
        "description": "the tournament judge's cookie (/judge/join/{code}); judge of every table",
    },
    "eventCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": "hze_{event}",
        "description": "an event player's cookie, set by his personal link /e/{event}/p/{code} "
        "(HttpOnly, SameSite=Strict); a POST with it needs X-CSRF-Token",
    },
}

_CREDENTIALS: list[dict[str, list[str]]] = [
    {"bearer": []},
    {"seatCookie": []},
    {"judgeCookie": []},
]


_EVENT_CREDENTIALS: list[dict[str, list[str]]] = [
    {"bearer": []},
    {"eventCookie": []},
    {"judgeCookie": []},
]


def _security(access: Access) -> list[dict[str, list[str]]]:
    if access == "none":
        return []
    if access == "organiser":
        return [{"bearer": []}, {"judgeCookie": []}]
    if access == "event player":
        return list(_EVENT_CREDENTIALS)
    if access == "event any":
        return [{}, *_EVENT_CREDENTIALS]
    if access == "any":
        return [{}, *_CREDENTIALS]  # without a credential: the public seat
    return list(_CREDENTIALS)


# response headers sent with every answer of their status (the others only sometimes: a
# replay's Idempotent-Replayed, a Stale 409's ETag, a frame's Retry-After when it is busy)
_ALWAYS = ("ETag", "X-CSRF-Token", "Location", "Content-Disposition", "WWW-Authenticate")


def _header(
    name: str, table: dict[str, tuple[str, dict[str, Any]]], *, always: bool = False
) -> dict[str, Any]:
    text, schema = table[name]
    out: dict[str, Any] = {"description": text, "schema": schema}
    if always:
        out["required"] = True
    return out


def _path_parameters(path: str) -> list[dict[str, Any]]:
    out = []
    for name in re.findall(r"{(\w+)}", path):
        schema: dict[str, Any] = {"type": "string"}
        text = ""
        if name == "game":
            schema = {"type": "string", "pattern": schemas.GAME_PATTERN}
            text = "the game's id (another form is 404)"
        elif name == "seat":
            schema = {"type": "string", "enum": [*schemas.PLAYERS, "judge"]}
            text = "the seat (another name is 404)"
        elif name == "event":
            schema = {"type": "string", "pattern": r"^[A-Za-z0-9_-]{1,40}$"}
            text = "the event's id (another form is 404)"
        elif name == "player":
            schema = {"type": "string", "pattern": r"^p[1-9][0-9]{0,3}$"}
            text = "a player's id in the event (p1, p2...)"
        elif name in ("number", "table"):
            schema = {"type": "string", "pattern": r"^[0-9]{1,9}$"}
            text = f"the {'round' if name == 'number' else 'table'}'s number (digits; else 404)"
        out.append(
            {"name": name, "in": "path", "required": True, "schema": schema, "description": text}
        )
    return out


def _upload(part: str) -> dict[str, Any]:
    binary = {"type": "string", "format": "binary", "minLength": 1}  # empty: 400
    multipart = {
        "schema": {
            "type": "object",
            "required": [part],
            "properties": {
                part: binary,
                "csrf": {"type": "string", "description": "the CSRF token, as a form field"},
            },
        },
        "encoding": {part: {"contentType": ", ".join(IMAGE_TYPES)}},
    }
    content: dict[str, Any] = {t: {"schema": binary} for t in IMAGE_TYPES}
    content["multipart/form-data"] = multipart
    return {
        "required": True,
        "description": f"the image: the whole body as {', '.join(IMAGE_TYPES)}, or the "
        f"multipart field {part!r} (a file part) with one of those types; not empty (400), "
        "at most 4 MB for a frame and 8 MB for a photo (413)",
        "content": content,
    }


EVENT_STREAM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "one server-sent event of the text/event-stream (web.live): the stream "
    "opens with 'retry: 2000', then sends an event 'head' at once (unless Last-Event-ID is "
    "current) and one per change, ': heartbeat' comment lines in between; it ends after 5 "
    "minutes",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["head"]},
        "id": {"type": "string", "pattern": r"^[0-9]+$", "description": "the head's seq"},
        "data": {
            "type": "string",
            "description": 'the log\'s head as JSON (Head): {"seq": 12, "hash": "ab12..."}',
        },
        "retry": {"type": "integer", "description": "milliseconds before reconnecting"},
    },
    "example": {"event": "head", "id": "12", "data": '{"seq": 12, "hash": "ab12"}'},
}


def _responses(d: RouteDoc) -> dict[str, Any]:
    ok_headers = list(d.replies)
    if d.etag:
        ok_headers.insert(0, "ETag")
    if "Idempotency-Key" in d.headers:
        ok_headers.append("Idempotent-Replayed")
    if isinstance(d.response, str):
        ok_schema: Any = {"$ref": REF + d.response}
    elif d.response is not None:
        ok_schema = d.response
    elif d.content == "text/event-stream":
        ok_schema = EVENT_STREAM_SCHEMA
    else:
        ok_schema = {"type": "string"}
    ok: dict[str, Any] = {
        "description": _STATUS_TEXT[d.ok],
        "content": {d.content: {"schema": ok_schema}},
    }
    if ok_headers:
        ok["headers"] = {h: _header(h, _HEADER_OUT, always=h in _ALWAYS) for h in ok_headers}
    out: dict[str, Any] = {str(d.ok): ok}
    for code in sorted(d.errors):
        if code == 304:  # no body
            out[str(code)] = {
                "description": _STATUS_TEXT[code],
                "headers": {"ETag": _header("ETag", _HEADER_OUT)},
            }
            continue
        headers: dict[str, Any] = {}
        if code == 401:
            headers["WWW-Authenticate"] = _header("WWW-Authenticate", _HEADER_OUT, always=True)
        if code == 409 and d.etag:  # Stale: the current event
            headers["ETag"] = _header("ETag", _HEADER_OUT)
        if code in (429, 503) and (d.upload == "frame" or (d.method, d.rule) in _RETRY_AFTER):
            headers["Retry-After"] = _header("Retry-After", _HEADER_OUT)
        if code in (202, 403, 404, 409, 422) and "Idempotency-Key" in d.headers:
            headers["Idempotent-Replayed"] = _header("Idempotent-Replayed", _HEADER_OUT)
        resp: dict[str, Any] = {
            "description": _STATUS_TEXT[code],
            "content": {"application/json": {"schema": "Error"}},
        }
        if headers:
            resp["headers"] = headers
        out[str(code)] = resp
    return out


def _operation(d: RouteDoc, path: str) -> dict[str, Any]:
    params = _path_parameters(path)
    for h in d.headers:
        text, schema = _HEADER_IN[h]
        params.append(
            {"name": h, "in": "header", "required": False, "schema": schema, "description": text}
        )
    for q in d.query:
        text, schema = _QUERY_IN[q]
        params.append(
            {"name": q, "in": "query", "required": False, "schema": schema, "description": text}
        )
    op: dict[str, Any] = {
        "summary": d.summary,
        "description": (d.description + "\n\nSeat: " + _SEAT_TEXT[d.access]).strip(),
        "operationId": d.method.lower() + "_" + re.sub(r"\W+", "_", path).strip("_"),
        "tags": list(d.tags),
        "parameters": params,
        "security": _security(d.access),
        "responses": _responses(d),
    }
    if d.body is not None:
        op["requestBody"] = {
            "required": not d.body_optional,
            "content": {"application/json": {"schema": d.body}},
        }
    elif d.upload:
        op["requestBody"] = _upload(d.upload)
    return op


def _dict_properties(converter: Any, field: Any, ret: dict[str, Any], **_: Any) -> dict[str, Any]:
    """apispec reads a Length on a Dict field as a string's length and writes a Dict's
    ``additionalProperties`` over its metadata: state both as the field means them."""
    if isinstance(field, fields.Dict):
        for length, count in (("minLength", "minProperties"), ("maxLength", "maxProperties")):
            if length in ret:
                ret[count] = ret.pop(length)
        if "additionalProperties" in field.metadata:
            ret["additionalProperties"] = field.metadata["additionalProperties"]
    return {}


REF = "#/components/schemas/"

# What the web adds to a seat's view (web.api): the token for the page's POSTs, and once, to a
# seat's new holder at a table without a judge, its recovery code (issue 31); to a receipt,
# whether it answers a retried Idempotency-Key.
VIEW_WEB: dict[str, Any] = {
    "csrf": {"type": "string", "description": "the token for this game's POST requests"},
    "recovery": {
        "type": "string",
        "description": "at a table without a judge, the seat's new recovery code, given once, "
        "on its first GET, to a device the seat moved to by approval (the move voided the old "
        "code); absent otherwise",
    },
}
RECEIPT_WEB: dict[str, Any] = {
    "replayed": {"type": "boolean", "description": "true for a retried Idempotency-Key"},
}


def _openapi30(node: Any) -> Any:
    """JSON Schema as OpenAPI 3.0 writes it: ``anyOf [X, null]`` is X with ``nullable``."""
    if isinstance(node, list):
        return [_openapi30(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _openapi30(v) for k, v in node.items()}
    options = out.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [o for o in options if o != {"type": "null"}]
        del out["anyOf"]
        if len(rest) == 1 and "$ref" not in rest[0]:
            out.update(rest[0])
        elif len(rest) == 1:
            out["allOf"] = rest
        else:
            out["anyOf"] = rest
        out["nullable"] = True
    return out


def _flat_view(view: dict[str, Any], board: dict[str, Any], title: str) -> dict[str, Any]:
    """A seat's view as its JSON is written (:meth:`referee.models.SeatView.to_json`): the
    board's keys beside the service's."""
    props = {k: v for k, v in view["properties"].items() if k != "board"}
    props.update(board["properties"])
    props.update(VIEW_WEB)
    required = [k for k in view.get("required", []) if k != "board"]
    required += board.get("required", [])
    return {
        "type": "object",
        "description": f"The table as the requesting seat may see it, at a {title} table: "
        + " ".join((view.get("description") or "").split()),
        "properties": props,
        "required": required,
    }


def typed_components() -> dict[str, dict[str, Any]]:
    """The schemas of a seat's view (``View``), a receipt (``Receipt``), a ruling (``Ruling``)
    and the judge's overview (``Tables``), generated from the service's types and every
    registered game's board view and ruling result (``msgspec.json.schema_components``), with
    the parts they name."""
    games = list(GAMES.values())
    views = [SeatView[g.board_type] for g in games]  # type: ignore[name-defined]
    rulings = [Ruling[g.result_type] for g in games]  # type: ignore[name-defined]
    tops, parts = msgspec.json.schema_components(
        [*views, *rulings, TableRow], ref_template=REF + "{name}"
    )
    out: dict[str, dict[str, Any]] = {}
    flat = []
    for g, top in zip(games, tops[: len(games)], strict=True):
        view = parts.pop(top["$ref"].removeprefix(REF))
        board = parts.pop(g.board_type.__name__)
        name = g.board_type.__name__ + "View"
        out[name] = _flat_view(view, board, g.title)
        flat.append({"$ref": REF + name})
    out.update(parts)
    out["View"] = {
        "description": "The table as the requesting seat may see it (Referee.view): one "
        "registered game's view",
        "anyOf": flat,
    }
    out["Ruling"] = {
        "description": " ".join((Ruling.__doc__ or "").split()),
        "anyOf": tops[len(games) : 2 * len(games)],
    }
    out["Tables"] = {
        "type": "object",
        "description": "every table at a glance (the judge's overview)",
        "properties": {"tables": {"type": "array", "items": tops[-1]}},
        "required": ["tables"],
    }
    (caution,), cautions = msgspec.json.schema_components([Caution], ref_template=REF + "{name}")
    out.update(cautions)
    out["Warnings"] = {
        "type": "object",
        "description": "the guardian's warnings on an action before it is submitted (issue 37)",
        "properties": {"warnings": {"type": "array", "items": caution}},
        "required": ["warnings"],
    }
    out.update(event_components())
    (receipt,), whole = msgspec.json.schema_components([Receipt], ref_template=REF + "{name}")
    shape = dict(whole[receipt["$ref"].removeprefix(REF)])
    shape["properties"] = {**shape["properties"], "view": {"$ref": REF + "View"}}
    shape["properties"].update(RECEIPT_WEB)
    out["Receipt"] = shape
    return {k: _openapi30(v) for k, v in out.items()}


def _event_name(name: str) -> str:
    """An event view's part in the document: ``Event...`` (the games' parts have the same
    class names: TableRow)."""
    return name if name.endswith("Event") else "Event" + name


def _renamed(node: Any) -> Any:
    if isinstance(node, list):
        return [_renamed(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _renamed(v) for k, v in node.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(REF):
        out["$ref"] = REF + _event_name(ref.removeprefix(REF))
    return out


def event_components() -> dict[str, dict[str, Any]]:
    """The schemas of an event's public view (``PublicEvent``) and a player's
    (``PlayerEvent``), generated from their types (:mod:`referee.event.views`, T13)."""
    from referee.event.views import PlayerEvent, PublicEvent

    _, parts = msgspec.json.schema_components(
        [PublicEvent, PlayerEvent], ref_template=REF + "{name}"
    )
    return {_event_name(k): _renamed(v) for k, v in parts.items()}


def document() -> dict[str, Any]:
    """The OpenAPI 3 document of this API, from :data:`DOCS` and :mod:`web.schemas`."""
    from apispec import APISpec
    from apispec.ext.marshmallow import MarshmallowPlugin

    plugin = MarshmallowPlugin()
    spec = APISpec(
        title=f"{' / '.join(g.title for g in GAMES.values())} referee",
        version="1",
        openapi_version="3.0.3",
        plugins=[plugin],
        info={"description": (__doc__ or "").split("\n\n", 2)[2].strip()},
        servers=[{"url": "/api/v1"}],
    )
    assert plugin.converter is not None
    plugin.converter.add_attribute_function(_dict_properties)  # type: ignore[no-untyped-call]
    spec.components.schema("Error", schema=schemas.ErrorSchema)
    for name, typed in typed_components().items():
        spec.components.schema(name, typed)
    for name, scheme in SECURITY_SCHEMES.items():
        spec.components.security_scheme(name, scheme)
    paths: dict[str, dict[str, Any]] = {}
    for d in DOCS:
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", d.rule)
        paths.setdefault(path, {})[d.method.lower()] = _operation(d, path)
    for path, ops in paths.items():
        spec.path(path=path, operations=ops)
    return spec.to_dict()


# The live stream is served by web.live (its own blueprint) under the API's prefix.
DOCS.append(
    RouteDoc(
        "/games/<game>/stream",
        "GET",
        "Live updates (server-sent events)",
        errors=(401, 404, 423, 503),
        content="text/event-stream",
        headers=("Last-Event-ID",),
        description="Each event (type 'head', id = seq) carries the new head {seq, hash} of the "
        "log; fetch the view again when it comes. A comment line every 15 s keeps the "
        "connection open; the server closes the stream after 5 minutes and the browser's "
        "EventSource reconnects (retry 2 s), resuming after Last-Event-ID. Streams are "
        "bounded per server, per client address and per game: past a cap, 503 with "
        "Retry-After (HEAD on the same URL answers 200 when a stream would be admitted).",
    )
)
