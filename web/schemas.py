"""The JSON API's bodies, in and out: marshmallow schemas at the edge (and the OpenAPI document's
source). Requests are validated here before the service sees them: unknown fields, wrong types,
out-of-range numbers and over-long strings are refused with the field named; the game rules
themselves are the service's (an illegal action is the service's 422 with its rule id).

An action is given either as its JSON object (POSITIONS.md) or as its text form (the strings of a
view's ``legal`` list, e.g. ``"play Cyclops 2"``): :class:`ActionField` reads both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate

from engine.herazeus.actions import parse_action_text
from engine.herazeus.errors import NotationError
from engine.herazeus.profiles import SWITCH_TYPES, Profile
from referee.games import GAMES, all_players
from referee.minotaur.game import PROFILES as MINOTAUR_PROFILES
from referee.validate import MAX_NAME, MAX_SEQ, MAX_TEXT
from web.games.installed import CHANGED, PAGE_MODULES

# Text the service takes (referee.validate.text): no control characters but tab and newline;
# a required text also holds something besides white space. The same patterns check the
# requests here and are stated in the OpenAPI document.
TEXT_PATTERN = r"^[^\x00-\x08\x0b-\x1f]*$"
FILLED_PATTERN = r"^[^\x00-\x08\x0b-\x1f]*[^\x00-\x08\x0b-\x1f\s][^\x00-\x08\x0b-\x1f]*$"
_TEXT = validate.Regexp(TEXT_PATTERN, error="control characters are not allowed")
_FILLED = validate.Regexp(FILLED_PATTERN, error="must not be empty and hold no control characters")

# Headers the API checks (web.api): the same patterns are stated in the OpenAPI document.
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,100}$"
ETAG_PATTERN = r'^\s*(?:W/)?(?:"(\d{1,12})"|(\d{1,12}))\s*$'
IF_MATCH_PATTERN = r'^\s*(?:\*|(?:W/)?(?:"\d{1,12}"|\d{1,12}))\s*$'
GAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"

NAME = [validate.Length(min=1, max=MAX_NAME), _FILLED]
NOTE = [validate.Length(max=MAX_TEXT), _TEXT]
REASON = [validate.Length(min=1, max=MAX_TEXT), _FILLED]
EVENT = validate.Range(min=0, max=MAX_SEQ)


class _Players:
    """The player seats of every registered game, read when a value is checked (a game the
    tests register after this module was imported counts too)."""

    def __contains__(self, seat: object) -> bool:
        return seat in all_players()

    def __iter__(self) -> Iterator[str]:
        return iter(all_players())


PLAYERS: Iterable[str] = _Players()  # of every game
PROFILES = [p.value for p in Profile]
SWITCHES = {name: [str(m.value) for m in typ] for name, typ in SWITCH_TYPES.items()}
ACTION_TEXT_MAX = 500
ACTION_TYPES: list[dict[str, Any]] = [
    {
        "type": "object",
        "required": ["do"],
        "properties": {"do": {"type": "string", "minLength": 1}},
        "maxProperties": 40,
        "description": "the action's JSON object (POSITIONS.md)",
    },
    {
        "type": "string",
        "minLength": 1,
        "maxLength": ACTION_TEXT_MAX,
        "pattern": FILLED_PATTERN,
        "description": "the action's text form, e.g. 'play Cyclops 2'",
    },
]
ANY_VALUE: list[dict[str, Any]] = [  # a bounded JSON value that is not null (AnyJson)
    {"type": "string", "maxLength": 200},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "array", "maxItems": 100},
    {"type": "object", "maxProperties": 40},
]


class Strict(Schema):
    """Refuses unknown fields."""

    class Meta:
        unknown = RAISE


def _bounded_json(value: Any, depth: int = 0) -> None:
    """Raises ValidationError for a value nested deeper than 8 levels or with strings longer
    than 200 characters (an action names cards and numbers, nothing longer)."""
    if depth > 8:
        raise ValidationError("nested too deeply")
    if isinstance(value, str):
        if len(value) > 200:
            raise ValidationError("a string is longer than 200 characters")
    elif isinstance(value, Mapping):
        if len(value) > 40:
            raise ValidationError("too many keys")
        for k, v in value.items():
            _bounded_json(k, depth + 1)
            _bounded_json(v, depth + 1)
    elif isinstance(value, list):
        if len(value) > 100:
            raise ValidationError("a list is longer than 100 items")
        for v in value:
            _bounded_json(v, depth + 1)
    elif not (value is None or isinstance(value, bool | int | float)):
        raise ValidationError("not a JSON value")


class ActionField(fields.Field):  # type: ignore[type-arg]
    """An action: its JSON object (``{"do": "play", "card": "Cyclops", "column": 2}``) or its
    text form (``"play Cyclops 2"``). Loads as the JSON object; the service checks it."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> dict[str, Any]:
        if isinstance(value, str):
            if len(value) > ACTION_TEXT_MAX or not re.match(FILLED_PATTERN, value):
                raise ValidationError(
                    f"an action text is 1 to {ACTION_TEXT_MAX} characters, not blank, "
                    "without control characters"
                )
            try:
                return parse_action_text(value).to_json()
            except NotationError as e:
                raise ValidationError(str(e)) from None
        if isinstance(value, Mapping):
            _bounded_json(value)
            if not isinstance(value.get("do"), str):
                raise ValidationError('an action object names its kind in "do"')
            return dict(value)
        raise ValidationError("an action is an object or a text such as 'play Cyclops 2'")


class AnyJson(fields.Field):  # type: ignore[type-arg]
    """Any bounded JSON value (an answer: a card name, a list of names, a number)."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> Any:
        _bounded_json(value)
        return value


# ---- requests ------------------------------------------------------------------------------


class PlayersSchema(Strict):
    hera = fields.String(validate=NAME, metadata={"description": "Hera's player name"})
    zeus = fields.String(validate=NAME, metadata={"description": "Zeus's player name"})
    miron = fields.String(validate=NAME, metadata={"description": "Miron's (Minotaur Lords)"})
    vess = fields.String(validate=NAME, metadata={"description": "Vess's (Minotaur Lords)"})


class CreateGameSchema(Strict):
    game_module = fields.String(
        load_default="hera-zeus",
        validate=validate.OneOf(GAMES.keys()),  # every registered game, when checked
        metadata={"description": "which game: hera-zeus (default) or minotaur"},
    )
    deck_list = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=60_000),
        metadata={
            "description": "Minotaur Lords: the owner's deck-list file (CSV text, up to 60,000 "
            "characters within the API's 64 KiB body; referee kit --game minotaur --template)"
        },
    )
    profile = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=40),
        metadata={
            "description": "rule profile: Hera & Zeus's "
            "(engine.herazeus.profiles; default rio-grande) "
            "or Minotaur Lords's (basic, advanced); another name is refused (422 Refused)",
            "enum": [*PROFILES, *MINOTAUR_PROFILES],
        },
    )
    switches = fields.Dict(
        keys=fields.String(validate=NAME),
        values=fields.String(validate=NAME),
        load_default=dict,
        validate=validate.Length(max=20),
        metadata={
            "description": "rule switches (name -> value), see RULES.md; another name or "
            "value is refused (422 Refused)",
            "properties": {
                **{n: {"type": "string", "enum": v} for n, v in SWITCHES.items()},
                "scarab_backs": {"type": "string", "enum": ["on", "off"]},  # Minotaur (M18)
            },
            "additionalProperties": False,  # stated last (web.openapi), over the values'
        },
    )
    players = fields.Nested(PlayersSchema, load_default=dict)
    starting = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(["hera", "zeus", "table", "miron", "vess"]),
        metadata={
            "description": "who starts: Hera & Zeus (D19) hera, zeus, 'table' (decided at "
            "the table), or null for the profile's default; Minotaur Lords (M5) miron or vess"
        },
    )
    catalogue = fields.Dict(
        load_default=None,
        allow_none=True,
        metadata={"description": "the sticker kit's card catalogue, when a kit is used"},
    )
    kit = fields.Dict(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "the kit.json of 'referee kit' (stays on the server; the game then "
            "uses its deck list, and photos and frames are read with it)"
        },
    )


class ActionBodySchema(Strict):
    action = ActionField(
        required=True,
        metadata={
            "description": "the action: its JSON object (POSITIONS.md) or its text form, as "
            "listed in the view's 'legal'",
            "anyOf": ACTION_TYPES,
            "example": "draw",
        },
    )


class AnswerSchema(Strict):
    value = AnyJson(
        required=True,
        metadata={
            "description": "what the referee asked for: a card name, a list, a number (not null)",
            "anyOf": ANY_VALUE,
        },
    )


class ObservationSchema(Strict):
    player = fields.String(required=True, validate=validate.OneOf(PLAYERS))
    zone = fields.String(required=True, validate=validate.OneOf(["hand", "field"]))
    column = fields.Integer(validate=validate.Range(1, 3), strict=True)
    position = fields.Integer(validate=validate.Range(1, 4), strict=True)
    card = fields.String(required=True, validate=NAME)
    source = fields.String(
        load_default="manual", validate=[validate.Length(min=1, max=20), _FILLED]
    )


class CallSchema(Strict):
    note = fields.String(load_default="", validate=NOTE)


class ProposalAnswerSchema(Strict):
    """A player's answer to the other's proposal (a take-back, HZ-P14, or a correction at a
    table without a judge)."""

    proposal = fields.Integer(required=True, strict=True, validate=EVENT)
    accept = fields.Boolean(required=True, truthy={True}, falsy={False})


class UndoSchema(Strict):
    to = fields.Integer(required=True, strict=True, validate=EVENT)
    reason = fields.String(required=True, validate=REASON)


class AmendSchema(Strict):
    event = fields.Integer(required=True, strict=True, validate=EVENT)
    action = ActionField(required=True, metadata={"anyOf": ACTION_TYPES, "example": "draw"})
    reason = fields.String(required=True, validate=REASON)


class ResolveSchema(Strict):
    event = fields.Integer(
        required=True,
        strict=True,
        validate=EVENT,
        metadata={"description": "the open irregularity's or judge call's event"},
    )
    note = fields.String(
        required=True,
        validate=REASON,
        metadata={"description": "how the judge settled it (stays on the judge's page)"},
    )


class RulingRequestSchema(Strict):
    action = ActionField(required=True, metadata={"anyOf": ACTION_TYPES, "example": "draw"})
    at = fields.Integer(
        load_default=None,
        allow_none=True,
        strict=True,
        validate=EVENT,
        metadata={"description": "rule on the position after this event (default: now)"},
    )


# ---- responses ----------------------------------------------------------------------------


class HeadSchema(Schema):
    seq = fields.Integer(required=True)
    hash = fields.String(required=True)


class TurnSchema(Schema):
    player = fields.String()
    first = fields.Boolean()
    ap = fields.Integer()
    used = fields.Integer()


class AskedSchema(Schema):
    """The question the referee waits on (D22: a question is a log record)."""

    needs = fields.String()
    by = fields.String(metadata={"description": "the seat whose action waits"})
    asked = fields.List(fields.String(), metadata={"description": "the seats that may answer"})
    rule = fields.String(allow_none=True)
    reason = fields.String(allow_none=True)
    seq = fields.Integer(metadata={"description": "the question's event"})
    pick = fields.String(allow_none=True, metadata={"description": "a drawn card both saw"})


class WaitingSchema(Schema):
    for_ = fields.List(fields.String(), data_key="for")
    needs = fields.String()


class OpenItemSchema(Schema):
    """An open irregularity or judge call (``referee.models.OpenItem``)."""

    seq = fields.Integer()
    kind = fields.String()
    seat = fields.String()
    time = fields.String()
    body = fields.Dict(metadata={"description": "a call's note; an irregularity's problem"})


class SeatViewSchema(Schema):
    """What every game's view holds (``referee.models.SeatView``): the service's facts and the
    game's phase, profile and turn. A game's own keys are its page module's ``view_schema``."""

    game = fields.String()
    game_module = fields.String(metadata={"description": "which game: its module's name"})
    seat = fields.String()
    seq = fields.Integer()
    head = fields.Nested(HeadSchema)
    phase = fields.String()
    profile = fields.String()
    switches = fields.Dict()
    turn = fields.Nested(TurnSchema)
    winner = fields.String(allow_none=True)
    reason = fields.String(allow_none=True)
    players = fields.Dict(keys=fields.String(), values=fields.String())
    kit_id = fields.String(allow_none=True, metadata={"description": "the sticker kit's id"})
    legal = fields.List(fields.String(), metadata={"description": "when this seat may act"})
    kit = fields.String(metadata={"description": "'kit' (sticker kit) or 'manual' entry"})
    asked = fields.Nested(AskedSchema, metadata={"description": "when the referee waits on you"})
    waiting = fields.Nested(WaitingSchema, metadata={"description": "when it waits on another"})
    calls_open = fields.Integer(metadata={"description": "judge calls not yet resolved"})
    irregularities = fields.List(fields.Dict(), metadata={"description": "judge only"})
    open = fields.List(
        fields.Nested(OpenItemSchema), metadata={"description": "judge only: open items"}
    )
    broken = fields.Raw(allow_none=True, metadata={"description": "judge only"})
    csrf = fields.String(metadata={"description": "the token for this game's POST requests"})
    recovery = fields.String(
        metadata={
            "description": "at a table without a judge, the seat's new recovery code, given "
            "once, on its first GET, to a device the seat moved to by approval (the move voided "
            "the old code); absent otherwise"
        },
    )


def view_schema(parts: Iterable[type[Schema]]) -> type[Schema]:
    """The table as the requesting seat may see it: the shell's keys and each game's own
    (``parts``: the installed page modules' ``view_schema``; a key two games share must have
    one shape)."""
    return type(
        "ViewSchema",
        (SeatViewSchema, *parts),
        {"__doc__": "The table as the requesting seat may see it (``Referee.view``)."},
    )


ViewSchema = view_schema(pm.view_schema for pm in PAGE_MODULES)


BUILT_IN_VIEW = dict(ViewSchema._declared_fields)


def _refresh_view() -> None:
    """:data:`ViewSchema`'s keys again from the page modules installed now (a game's page
    module was registered after import, or left: the tests' third game)."""
    merged = dict(BUILT_IN_VIEW)
    for pm in PAGE_MODULES:
        for k, v in pm.view_schema._declared_fields.items():
            merged.setdefault(k, v)
    ViewSchema._declared_fields.clear()
    ViewSchema._declared_fields.update(merged)


CHANGED.append(_refresh_view)


class ReceiptSchema(Schema):
    seq = fields.Integer(required=True)
    events = fields.List(fields.Dict(), required=True)
    rules = fields.List(fields.String())
    notes = fields.List(fields.String())
    view = fields.Nested(ViewSchema)
    replayed = fields.Boolean(metadata={"description": "true for a retried Idempotency-Key"})


class RecordSchema(Schema):
    """A log record as the requesting seat may read it: the log's own JSON form
    (``Record.to_json``, docs/service.md), passed through whole so that it still verifies."""

    class Meta:
        unknown = INCLUDE

    game = fields.String()
    seq = fields.Integer()
    time = fields.String()
    seat = fields.String()
    kind = fields.String()
    body = fields.Dict()
    events = fields.List(fields.Dict())
    hash = fields.String()


class LogSchema(Schema):
    game = fields.String()
    records = fields.List(
        fields.Dict(), metadata={"description": "the records (see Record), oldest first"}
    )


class RecordsSchema(Schema):
    records = fields.List(
        fields.Dict(), metadata={"description": "the records written (see Record), in order"}
    )


class CreatedSchema(Schema):
    game = fields.String(required=True)
    codes = fields.Dict(
        keys=fields.String(), values=fields.String(), metadata={"description": "seat -> code"}
    )
    links = fields.Dict(
        keys=fields.String(), values=fields.String(), metadata={"description": "seat -> link"}
    )
    public = fields.String(metadata={"description": "the public page"})
    csrf = fields.String()


class SessionSchema(Schema):
    csrf = fields.String(metadata={"description": "the token for POST /games"})


class ClaimBodySchema(Schema):
    code = fields.String(required=True, metadata={"description": "the seat's join code"})
    ask = fields.Boolean(
        load_default=False,
        metadata={"description": "ask for the seat when another device holds it"},
    )


class ClaimSchema(Schema):
    seat = fields.String()
    token = fields.String(
        allow_none=True,
        metadata={"description": "this device's token: send it as Authorization: Bearer"},
    )
    held = fields.Boolean(metadata={"description": "another device holds the seat"})
    request = fields.Integer(
        allow_none=True, metadata={"description": "the event of this device's open request"}
    )
    recovery = fields.String(
        allow_none=True,
        metadata={
            "description": "at a table without a judge, the seat's recovery code, given once "
            "to the device that took the seat (it moves the seat back to whoever types it)"
        },
    )


class ReissuedSchema(Schema):
    seat = fields.String()
    code = fields.String()
    link = fields.String()


class TableSchema(Schema):
    game = fields.String()
    game_module = fields.String(metadata={"description": "which game: its module's name"})
    players = fields.Dict()
    phase = fields.String()
    turn = fields.Nested(TurnSchema)
    winner = fields.String(allow_none=True)
    reason = fields.String(allow_none=True)
    open_calls = fields.Integer()
    open_irregularities = fields.Integer()
    calls = fields.List(
        fields.Nested(OpenItemSchema), metadata={"description": "the open judge calls"}
    )
    irregularities = fields.List(
        fields.Nested(OpenItemSchema), metadata={"description": "the open irregularities"}
    )
    waiting = fields.Boolean()
    waiting_since = fields.String(
        allow_none=True, metadata={"description": "when the open question was asked"}
    )
    broken = fields.Raw(allow_none=True)
    held = fields.String(metadata={"description": "why the record is held, when it is"})
    last_time = fields.String(allow_none=True)
    head = fields.Nested(HeadSchema)


class TablesSchema(Schema):
    tables = fields.List(fields.Nested(TableSchema))


class RulingSchema(Schema):
    legal = fields.Boolean()
    rules = fields.List(fields.Raw())
    ruling = fields.String()
    citations = fields.List(fields.Raw(), metadata={"description": "the rules, cited"})
    other_profiles = fields.Raw()
    result = fields.Raw()


class CardReadSchema(Schema):
    """A checked face code: the physical card it names."""

    name = fields.String(metadata={"description": "the card as your seat writes it"})
    card = fields.String(metadata={"description": "the card's name"})
    deck = fields.String(metadata={"description": "the deck the sticker belongs to"})
    serial = fields.Integer(metadata={"description": "the sticker's number in its deck"})
    own = fields.Boolean(metadata={"description": "a card of your deck (one you may enter)"})
    confidence = fields.Float()
    payload = fields.String()
    corners = fields.List(fields.List(fields.Float()))
    upscaled = fields.Boolean()
    matched = fields.Boolean(
        metadata={
            "description": "read by matching it against the kit's own codes, too blurred to "
            "decode; its confidence is the match score"
        }
    )


class RefusedCodeSchema(Schema):
    """A code that is not a card of this game's kit."""

    payload = fields.String()
    reason = fields.String()
    corners = fields.List(fields.List(fields.Float()))


class PhotoSchema(Schema):
    cards = fields.List(fields.Nested(CardReadSchema))
    refused = fields.List(fields.Nested(RefusedCodeSchema))
    ms = fields.Float(metadata={"description": "time spent reading, in milliseconds"})


class ConfirmSchema(Schema):
    endpoint = fields.String(
        allow_none=True,
        metadata={"description": "'actions' or 'observations'; null: a person decides"},
    )
    body = fields.Dict(allow_none=True, metadata={"description": "the request body to POST"})
    choices = fields.List(
        fields.String(), metadata={"description": "cards you may name for a play ('?': none)"}
    )
    by = fields.String(
        allow_none=True, metadata={"description": "the player who confirms it on his own page"}
    )


class ProposalSchema(Schema):
    kind = fields.String()
    side = fields.String()
    column = fields.Integer()
    position = fields.Integer()
    raw = fields.Dict(allow_none=True)
    description = fields.String()
    confidence = fields.Float()
    confirm = fields.Nested(ConfirmSchema)


class FrameSchema(Schema):
    found = fields.Boolean(metadata={"description": "false when the mat is not in the frame"})
    message = fields.String(metadata={"description": "why the mat was not found"})
    seq = fields.Integer(metadata={"description": "the view the proposals were computed on"})
    snapshot = fields.Dict(
        metadata={"description": "per side, 3 columns of 4 cells: empty, down, up, unknown"}
    )
    table = fields.String(metadata={"description": "the snapshot drawn as text"})
    proposals = fields.List(fields.Nested(ProposalSchema))
    pending = fields.Integer(
        metadata={"description": "changes seen in this frame only: proposed once seen again"}
    )
    image = fields.String(metadata={"description": "the annotated mat, a JPEG data URL"})
    framing = fields.Dict(
        metadata={
            "description": "will face codes read at this framing: px per module (farthest "
            "cell, median), faces yes/marginal/no, backs, and the fixes in words"
        }
    )
    ms = fields.Float(metadata={"description": "time spent reading, in milliseconds"})


class ErrorSchema(Schema):
    error = fields.String(required=True, metadata={"description": "the error's code"})
    rule = fields.String(allow_none=True, metadata={"description": "the deciding rule id"})
    message = fields.String(required=True)
    fields_ = fields.Dict(data_key="fields", metadata={"description": "per-field problems"})
    needs = fields.String(metadata={"description": "NeedsInput: what is missing"})
    asked = fields.List(fields.String(), metadata={"description": "NeedsInput: who may answer"})
    seq = fields.Integer(
        metadata={"description": "Stale: the game's current event; NeedsInput: the question's"}
    )
    existing_seq = fields.Integer(
        metadata={"description": "Stale: the event this Idempotency-Key made before"}
    )
