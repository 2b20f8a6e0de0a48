"""The JSON API of events (issue 34), under ``/api/v1/events``: what the organiser, a player
and anyone may read and do, over :class:`referee.event.service.Events`.

The routes go through :func:`web.api.route` (so the OpenAPI document states them, and its
contract test calls them) and the same conventions: JSON bodies validated by the schemas below,
errors ``{"error", "rule", "message"}`` (400 malformed, 401 a Bearer code that opens nothing
here, 403 not yours to do, 404 no such event, 409 stale, 422 refused by a rule, naming it).
Every refusal writes nothing (the service checks before it writes).

Who asks (:func:`asker`): the organiser (the server's tournament judge: his code as Bearer, or
his cookie ``hzjudge``; he is the event's judge too), a player (his personal code as Bearer, or
the cookie ``hze_<event>`` his personal link set, :mod:`web.events`), or the public. A POST with
a cookie carries the event's CSRF token (``X-CSRF-Token``: the ``X-CSRF-Token`` header of
``GET /events/<event>``); a Bearer request needs none.

What each sees follows T13: ``GET /events/<event>`` is the public view (no penalty, no code, no
dispute note); ``GET /events/<event>/me`` is the player's own (his seat link, his penalties),
for him alone. Reading an event first records the results its games reached
(:meth:`Events.sync`).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any

import msgspec
from flask import Response, jsonify
from marshmallow import Schema, fields, validate

from referee.errors import Forbidden, NotFound, Refused, ServiceError
from referee.event import state as S
from referee.event.service import Events
from referee.language import Say
from web.api import load_json, schema_instance
from web.api import route as api_route
from web.errors import BadBearer
from web.events import event_or_404, get_events, is_organiser, player_of
from web.i18n import say
from web.request import bearer, check_csrf, csrf_token

EVENTS = ("events",)
PLAYER_PATTERN = S.PLAYER_ID.pattern
EVENT_PATTERN = S.EVENT_ID.pattern
_REASON = [validate.Length(min=1, max=500)]


# ---- bodies and answers --------------------------------------------------------------------


class _Strict(Schema):
    class Meta:
        unknown = "raise"


class EventCreateSchema(_Strict):
    name = fields.String(required=True, validate=validate.Length(min=1, max=80))
    game = fields.String(
        required=True,
        validate=validate.Length(min=1, max=40),
        metadata={"description": "the game's name in the registry (another: 422)"},
    )
    options = fields.Dict(
        load_default=dict,
        metadata={"description": "the game's options, checked by the game's own setup"},
    )
    format = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(S.FORMATS))
    rounds = fields.Integer(
        load_default=None,
        allow_none=True,
        strict=True,
        validate=validate.Range(min=1, max=20),
        metadata={"description": "Swiss rounds; null: the usual count, fixed at round 1"},
    )
    round_minutes = fields.Integer(
        load_default=S.DEFAULT_ROUND_MINUTES,
        strict=True,
        validate=validate.Range(min=10, max=S.MAX_ROUND_MINUTES),
    )
    top_cut = fields.Integer(load_default=0, strict=True, validate=validate.OneOf(S.TOP_CUTS))
    self_register = fields.Boolean(load_default=False)
    strict = fields.Boolean(
        load_default=False,
        metadata={"description": "strict play: the event's games have no guardian"},
    )
    hands_public = fields.Boolean(
        load_default=False,
        metadata={
            "description": "the reviews of the event's games show both players' hands once a "
            "game is over (default false: each player through his own seat)"
        },
    )
    seed = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Regexp(r"^[0-9a-f]{8,64}$"),
        metadata={"description": "hex; drawn at random when absent (T4)"},
    )
    event = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Regexp(EVENT_PATTERN),
        metadata={"description": "the event's id; made up when absent"},
    )


class NameSchema(_Strict):
    name = fields.String(required=True, validate=validate.Length(min=1, max=40))


class DropSchema(_Strict):
    reason = fields.String(load_default="", validate=validate.Length(max=500))


class ReasonSchema(_Strict):
    reason = fields.String(required=True, validate=_REASON)


class SwapSchema(_Strict):
    a = fields.String(required=True, validate=validate.Regexp(PLAYER_PATTERN))
    b = fields.String(required=True, validate=validate.Regexp(PLAYER_PATTERN))
    reason = fields.String(required=True, validate=_REASON)


class ResultSchema(_Strict):
    number = fields.Integer(
        load_default=None,
        allow_none=True,
        strict=True,
        validate=validate.Range(min=1, max=3),
        metadata={"description": "the game of the match (1-3); absent: the one being played"},
    )
    winner = fields.String(
        required=True,
        allow_none=True,
        validate=validate.Regexp(PLAYER_PATTERN),
        metadata={"description": "the winner's player id, or null for a draw"},
    )
    reason = fields.String(load_default="the match slip", validate=validate.Length(max=500))


class CorrectSchema(_Strict):
    number = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=3))
    winner = fields.String(required=True, allow_none=True, validate=validate.Regexp(PLAYER_PATTERN))
    reason = fields.String(
        required=True,
        validate=_REASON,
        metadata={"description": "why (T8): the correction names it"},
    )


class SideSchema(_Strict):
    seat = fields.String(required=True, validate=validate.OneOf(("first", "second")))


class DisputeSchema(_Strict):
    note = fields.String(required=True, validate=validate.Length(min=1, max=500))


class ExtendSchema(_Strict):
    minutes = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=1, max=S.MAX_EXTENSION)
    )
    reason = fields.String(required=True, validate=_REASON)


class PenaltySchema(_Strict):
    player = fields.String(required=True, validate=validate.Regexp(PLAYER_PATTERN))
    infraction = fields.String(required=True, validate=validate.OneOf(S.INFRACTIONS))
    penalty = fields.String(required=True, validate=validate.OneOf(S.PENALTIES))
    reason = fields.String(required=True, validate=_REASON)


class EventItemSchema(Schema):
    event = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True)
    phase = fields.String(required=True)
    round = fields.Integer(required=True)
    self_register = fields.Boolean(required=True)


class EventListSchema(Schema):
    events = fields.List(fields.Nested(EventItemSchema), required=True)


class RegisteredSchema(Schema):
    player = fields.String(required=True)
    name = fields.String(required=True)
    entered_round = fields.Integer(
        required=True,
        metadata={"description": "his first round; a later one: a loss for each missed (T9)"},
    )
    code = fields.String(
        required=True,
        metadata={"description": "his personal code, given once: Bearer code and personal link"},
    )
    link = fields.String(required=True, metadata={"description": "his personal link (a page)"})


# ---- who asks ------------------------------------------------------------------------------


def asker(event: str) -> str:
    """ "organiser", a player id, or "public". Raises BadBearer (401) for a Bearer code that is
    neither the organiser's nor a player's personal code at ``event``."""
    if is_organiser():
        return "organiser"
    p = player_of(event)
    if p is not None:
        return p
    if bearer() is not None:
        raise BadBearer(
            "the Bearer code is neither the organiser's nor a player's personal code at this event"
        )
    return "public"


def _csrf(event: str) -> None:
    """A cookie's POST carries the event's CSRF token; a Bearer one needs none."""
    check_csrf("" if bearer() is not None else event_csrf_key(event))


def event_csrf_key(event: str) -> str:
    """What an event's CSRF token is made for (never a game id: it holds a '.')."""
    return f"event.{event}"


def _organiser(event: str) -> None:
    who = asker(event)
    _csrf(event)
    if who != "organiser":
        raise Forbidden(Say("only the organiser (the tournament judge) may do this"))


def _organiser_or(event: str, player: str) -> str:
    """The organiser or ``player`` himself: returns who writes ("organiser" or his id)."""
    who = asker(event)
    _csrf(event)
    if who == "organiser":
        return who
    if who == player:
        return who
    raise Forbidden(Say("only the organiser or that player himself may do this"))


def _player_at_table(event: str, table: int) -> str:
    """The player asking, who must play at ``table`` of the latest round (T8)."""
    who = asker(event)
    _csrf(event)
    if who in ("organiser", "public"):
        raise Forbidden(Say("only a player of this table confirms or disputes its result (T8)"))
    st = get_events().get(event)
    t = st.table_of(who)
    if st.round is None or t is None or t.table != table:
        raise Forbidden(
            Say("you do not play at table %(table)s of the latest round (T8)", table=table)
        )
    return who


def _latest(ev: Events, event: str) -> S.Round:
    r = ev.get(event).round
    if r is None:
        raise Refused(Say("no round is paired yet (T4)"), "T4")
    return r


def _round_is_latest(ev: Events, event: str, number: int) -> None:
    r = _latest(ev, event)
    if r.number != number:
        raise Refused(
            Say(
                "round %(number)s is not the latest round (%(latest)s) (T4)",
                number=number,
                latest=r.number,
            ),
            "T4",
        )


def route(
    rule: str, method: str, summary: str, **doc: Any
) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """:func:`web.api.route` for an event's view, whose refusals' ``message`` is said in the
    request's language (Accept-Language, the language cookie); ``error``, ``rule`` and the
    other fields stay as they are, for machines."""

    def deco(fn: Callable[..., Response]) -> Callable[..., Response]:
        @functools.wraps(fn)
        def said(*args: Any, **kwargs: Any) -> Response:
            try:
                return fn(*args, **kwargs)
            except ServiceError as e:
                e.message = say(e.message)
                raise

        return api_route(rule, method, summary, **doc)(said)

    return deco


def _plain(value: Any) -> Any:
    """A sentence of the views (a :class:`engine.say.Say`, a ``str``) as its English words:
    the JSON's data stays English; its ``message`` alone follows the request's language."""
    if isinstance(value, str):
        return str.__str__(value)
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


_ENCODER = msgspec.json.Encoder(enc_hook=_plain)


def _encode(value: Any) -> bytes:
    return _ENCODER.encode(value)


def _public(event: str, status: int = 200) -> Response:
    ev = get_events()
    _sync(ev, event)
    resp = Response(_encode(ev.public(event)), status, mimetype="application/json")
    resp.headers["X-CSRF-Token"] = csrf_token(event_csrf_key(event))
    return resp


def _sync(ev: Events, event: str) -> None:
    """Records the results the event's games reached (T8); a failure to is not the reader's."""
    with contextlib.suppress(ServiceError):
        ev.sync(event)


def _known(event: str) -> str:
    try:
        return event_or_404(event)
    except NotFound:
        raise NotFound(Say("no event %(event)s", event=repr(event[:40]))) from None


def _json(schema: type[Schema], data: Any, status: int = 200) -> Response:
    resp = jsonify(schema_instance(schema).dump(data))
    resp.status_code = status
    return resp


# ---- reading -------------------------------------------------------------------------------


@route(
    "/events",
    "GET",
    "The events of this server",
    response=EventListSchema,
    access="none",
    tags=EVENTS,
)
def events_list() -> Response:
    """Every event, with its game, phase and latest round."""
    ev = get_events()
    out = []
    for eid in ev.events():
        try:
            st = ev.get(eid)
        except ServiceError:
            continue
        out.append(
            {
                "event": eid,
                "name": st.settings.name,
                "game": st.settings.game,
                "phase": st.phase,
                "round": st.round.number if st.round else 0,
                "self_register": st.settings.self_register,
            }
        )
    return _json(EventListSchema, {"events": out})


@route(
    "/events",
    "POST",
    "Create an event",
    body=EventCreateSchema,
    response="PublicEvent",
    ok=201,
    errors=(400, 401, 403, 413, 415, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    replies=("Location", "X-CSRF-Token"),
    tags=EVENTS,
)
def event_create() -> Response:
    """The organiser creates an event (T1, T4, T6, T10): its game and the game's options
    (checked by the game's own setup), format, rounds, round minutes, top cut, whether players
    may register themselves. The answer is its public view."""
    if not is_organiser():
        if bearer() is not None:
            raise BadBearer("the Bearer code is not the organiser's")
        check_csrf("")
        raise Forbidden(Say("only the organiser (the tournament judge) creates events"))
    check_csrf("")
    body = load_json(EventCreateSchema)
    eid = get_events().create(**body)
    resp = _public(eid, 201)
    resp.headers["Location"] = f"/api/v1/events/{eid}"
    return resp


@route(
    "/events/<event>",
    "GET",
    "The event as anyone sees it (T13)",
    response="PublicEvent",
    errors=(401, 404, 503),
    access="event any",
    replies=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_view(event: str) -> Response:
    """Pairings, results, standings with each tiebreaker (T3), the clocks (each table's
    deadline with its extensions, T6, T7). No penalty, code or dispute note (T13). Its
    X-CSRF-Token header is the token of this event's POSTs made with a cookie."""
    _known(event)
    asker(event)
    return _public(event)


@route(
    "/events/<event>/me",
    "GET",
    "The event as you, a player, see it (T13)",
    response="PlayerEvent",
    errors=(401, 403, 404, 503),
    access="event player",
    replies=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_me(event: str) -> Response:
    """Your table, opponent, side, record, rank, your own penalties (T11) and your seat link
    (the join link of your game: for you alone, T13), beside the public view."""
    _known(event)
    who = asker(event)
    if who in ("organiser", "public"):
        raise Forbidden(
            Say("only a player of this event has a view of his own (his personal code)")
        )
    ev = get_events()
    _sync(ev, event)
    resp = Response(_encode(ev.player(event, who)), mimetype="application/json")
    resp.headers["X-CSRF-Token"] = csrf_token(event_csrf_key(event))
    return resp


@route(
    "/events/<event>/export",
    "GET",
    "The event's export file (hz-event/1, T12)",
    content="application/x-ndjson",
    errors=(401, 403, 404, 503),
    access="organiser",
    replies=("Content-Disposition",),
    tags=EVENTS,
)
def event_export(event: str) -> Response:
    """JSON lines: the event's signed records, each game's full log, the standings; checked
    offline by ``referee event verify``."""
    _known(event)
    if asker(event) != "organiser":
        raise Forbidden(Say("only the organiser exports the event"))
    text = get_events().export(event)
    resp = Response(text, mimetype="application/x-ndjson")
    resp.headers["Content-Disposition"] = f'attachment; filename="event-{event}.jsonl"'
    return resp


# ---- players -------------------------------------------------------------------------------


@route(
    "/events/<event>/players",
    "POST",
    "Register a player (the organiser; or himself when the event allows it)",
    body=NameSchema,
    response=RegisteredSchema,
    ok=201,
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="event any",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_register(event: str) -> Response:
    """The organiser registers a player; anyone registers himself when the event takes
    self-registration (refused otherwise, T9). A late entry takes a loss for each round he
    missed (T9). The answer holds his personal code, once."""
    _known(event)
    who = asker(event)
    _csrf(event)
    ev = get_events()
    by = "organiser" if who == "organiser" else "self"
    if by == "self" and not ev.get(event).settings.self_register:
        raise Refused(
            Say("this event takes no self-registration: the organiser registers (T9)"), "T9"
        )
    body = load_json(NameSchema)
    reg = ev.register(event, body["name"], by=by)
    p = ev.get(event).player(reg.player)
    out = {
        "player": reg.player,
        "name": p.name,
        "entered_round": p.entered_round,
        "code": reg.code,
        "link": f"/e/{event}/p/{reg.code}",
    }
    return _json(RegisteredSchema, out, 201)


@route(
    "/events/<event>/players/<player>/code",
    "POST",
    "A new personal code for a player who lost his phone (the organiser)",
    response=RegisteredSchema,
    errors=(401, 403, 404, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_new_code(event: str, player: str) -> Response:
    """The old code opens nothing any more; the answer holds the new one, once."""
    _known(event)
    _organiser(event)
    ev = get_events()
    code = ev.new_player_code(event, player)
    p = ev.get(event).player(player)
    out = {
        "player": player,
        "name": p.name,
        "entered_round": p.entered_round,
        "code": code,
        "link": f"/e/{event}/p/{code}",
    }
    return _json(RegisteredSchema, out)


@route(
    "/events/<event>/players/<player>/checkin",
    "POST",
    "Check a player in (the organiser, or the player himself)",
    response="PublicEvent",
    errors=(401, 403, 404, 422, 503),
    access="event player",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_checkin(event: str, player: str) -> Response:
    """Once; not after a drop."""
    _known(event)
    by = _organiser_or(event, player)
    get_events().check_in(event, player, by=by)
    return _public(event)


@route(
    "/events/<event>/players/<player>/drop",
    "POST",
    "Drop a player (the organiser, or the player himself)",
    body=DropSchema,
    body_optional=True,
    response="PublicEvent",
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="event player",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_drop(event: str, player: str) -> Response:
    """He is in no round after the latest started one; his results keep counting for his
    opponents (T9)."""
    _known(event)
    by = _organiser_or(event, player)
    body = load_json(DropSchema, required=False)
    get_events().drop(event, player, body.get("reason", ""), by=by)
    return _public(event)


# ---- rounds --------------------------------------------------------------------------------


@route(
    "/events/<event>/rounds",
    "POST",
    "Pair the next round (T4, T5; after the Swiss rounds, the top cut's, T10)",
    response="PublicEvent",
    ok=201,
    errors=(401, 403, 404, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_pair(event: str) -> Response:
    """Refused while the latest round is unfinished (T8) or not started (T4)."""
    _known(event)
    _organiser(event)
    ev = get_events()
    st = ev.get(event)
    if st.settings.top_cut and (st.over or st.cut is not None):
        ev.pair_cut(event)
    else:
        ev.pair_next(event)
    return _public(event, 201)


@route(
    "/events/<event>/rounds/<int:number>/repair",
    "POST",
    "Pair the latest round again before it starts (a reason, T4)",
    body=ReasonSchema,
    response="PublicEvent",
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_repair(event: str, number: int) -> Response:
    """After a drop or a late entry; refused once the round started."""
    _known(event)
    _organiser(event)
    body = load_json(ReasonSchema)
    ev = get_events()
    _round_is_latest(ev, event, number)
    ev.repair(event, body["reason"])
    return _public(event)


@route(
    "/events/<event>/rounds/<int:number>/swap",
    "POST",
    "Exchange two players of the latest round before it starts (a reason, T4)",
    body=SwapSchema,
    response="PublicEvent",
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_swap(event: str, number: int) -> Response:
    """Refused once the round started."""
    _known(event)
    _organiser(event)
    body = load_json(SwapSchema)
    ev = get_events()
    _round_is_latest(ev, event, number)
    ev.swap(event, body["a"], body["b"], body["reason"])
    return _public(event)


@route(
    "/events/<event>/rounds/<int:number>/start",
    "POST",
    "Start the latest round: its games are made, its clock runs (T6, T14)",
    response="PublicEvent",
    errors=(401, 403, 404, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_start(event: str, number: int) -> Response:
    """Each table's game is made, the players' names in its seats; each player reaches his
    own seat through his event page (``/me``'s seat link)."""
    _known(event)
    _organiser(event)
    ev = get_events()
    _round_is_latest(ev, event, number)
    ev.start_round(event)
    return _public(event)


# ---- tables of the latest round ------------------------------------------------------------


@route(
    "/events/<event>/tables/<int:table>/side",
    "POST",
    "Choose a top cut table's side before the round starts (its higher seed, or the "
    "organiser for him, T10)",
    body=SideSchema,
    response="PublicEvent",
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="event player",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_side(event: str, table: int) -> Response:
    """The higher seed sits first until he chooses; once per table (T10)."""
    _known(event)
    if asker(event) == "public":
        _csrf(event)
        raise Forbidden(Say("only the table's higher seed or the organiser chooses its side (T10)"))
    _csrf(event)  # before anything is read of the event
    ev = get_events()
    r = _latest(ev, event)
    t = next((x for x in r.tables if x.table == table), None)
    if t is None:
        raise Refused(
            Say(
                "table: round %(number)s has no table %(table)s (T10)", number=r.number, table=table
            ),
            "T10",
        )
    by = _organiser_or(event, t.first)
    body = load_json(SideSchema)
    ev.choose_side(event, table, body["seat"], by=by)
    return _public(event)


@route(
    "/events/<event>/tables/<int:table>/result",
    "POST",
    "Enter a game's result from the match slip (the organiser, T8)",
    body=ResultSchema,
    response="PublicEvent",
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_result(event: str, table: int) -> Response:
    """For the latest round; ``number`` defaults to the game being played. Final at once
    (T8)."""
    _known(event)
    _organiser(event)
    body = load_json(ResultSchema)
    ev = get_events()
    r = _latest(ev, event)
    t = next((x for x in r.tables if x.table == table), None)
    if t is None:
        raise Refused(
            Say(
                "table: round %(number)s has no table %(table)s (T8)", number=r.number, table=table
            ),
            "T8",
        )
    number = body["number"] if body["number"] is not None else len(t.results) + 1
    ev.enter_result(event, r.number, table, number, body["winner"], body["reason"], by="judge")
    return _public(event)


@route(
    "/events/<event>/tables/<int:table>/confirm",
    "POST",
    "Confirm your table's result the referee reported (a player of the table, T8)",
    response="PublicEvent",
    errors=(401, 403, 404, 422, 503),
    access="event player",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_confirm(event: str, table: int) -> Response:
    """A double tap records once."""
    _known(event)
    who = _player_at_table(event, table)
    get_events().confirm(event, who)
    return _public(event)


@route(
    "/events/<event>/tables/<int:table>/dispute",
    "POST",
    "Dispute your table's result (a player of the table, T8): it waits for the judge",
    body=DisputeSchema,
    response="PublicEvent",
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="event player",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_dispute(event: str, table: int) -> Response:
    """The note is for the judge (never in the public view, T13)."""
    _known(event)
    who = _player_at_table(event, table)
    body = load_json(DisputeSchema)
    get_events().dispute(event, who, body["note"])
    return _public(event)


@route(
    "/events/<event>/tables/<int:table>/correct",
    "POST",
    "Correct or settle a game's result, naming why (the judge, T8)",
    body=CorrectSchema,
    response="PublicEvent",
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_correct(event: str, table: int) -> Response:
    """Final at once; ends a dispute. The record says the judge corrected it and why."""
    _known(event)
    _organiser(event)
    body = load_json(CorrectSchema)
    ev = get_events()
    r = _latest(ev, event)
    ev.correct(event, r.number, table, body["number"], body["winner"], body["reason"])
    return _public(event)


@route(
    "/events/<event>/tables/<int:table>/extend",
    "POST",
    "Give a table extra minutes, with a reason (the judge, T7)",
    body=ExtendSchema,
    response="PublicEvent",
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_extend(event: str, table: int) -> Response:
    """While the match is on; the table's deadline moves (every clock shows it)."""
    _known(event)
    _organiser(event)
    body = load_json(ExtendSchema)
    get_events().extend(event, table, body["minutes"], body["reason"])
    return _public(event)


@route(
    "/events/<event>/tables/<int:table>/time",
    "POST",
    "Record the open game at a table as a draw at time (the judge, T6)",
    response="PublicEvent",
    errors=(401, 403, 404, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_time(event: str, table: int) -> Response:
    """Refused before the table's deadline (its extensions included)."""
    _known(event)
    _organiser(event)
    ev = get_events()
    r = _latest(ev, event)
    ev.time_result(event, r.number, table)
    return _public(event)


@route(
    "/events/<event>/penalties",
    "POST",
    "Record a penalty (the judge, T11)",
    body=PenaltySchema,
    response="PublicEvent",
    ok=201,
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
    access="organiser",
    headers=("X-CSRF-Token",),
    tags=EVENTS,
)
def event_penalty(event: str) -> Response:
    """A game loss ends his game being played, a match loss his match, a disqualification
    drops him. The penalty is seen by the judge, the organiser and him only (T13): the answer
    is the public view, where it shows as the judge's result."""
    _known(event)
    _organiser(event)
    body = load_json(PenaltySchema)
    get_events().penalty(event, body["player"], body["infraction"], body["penalty"], body["reason"])
    return _public(event, 201)
