"""The JSON API's bodies, in and out: marshmallow schemas at the edge (and the OpenAPI document's
source). Requests are validated here before the service sees them: unknown fields, wrong types,
out-of-range numbers and over-long strings are refused with the field named; the game rules
themselves are the service's (an illegal action is the service's 422 with its rule id).

An action is given either as its JSON object (POSITIONS.md) or as its text form (the strings of a
view's ``legal`` list): :class:`ActionField` takes both, and the API reads a text with the game's
page module (``action_from_text``). The create body's options are the games' own
(``Game.options``), stated here from every registered game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate

from referee.game import AnyGame, Option
from referee.games import DEFAULT, GAMES, WATCHERS, all_players
from referee.language import N_, Say
from referee.validate import MAX_NAME, MAX_SEQ, MAX_TEXT

# Text the service takes (referee.validate.text): no control characters but tab and newline;
# a required text also holds something besides white space. The same patterns check the
# requests here and are stated in the OpenAPI document.
TEXT_PATTERN = r"^[^\x00-\x08\x0b-\x1f]*$"
FILLED_PATTERN = r"^[^\x00-\x08\x0b-\x1f]*[^\x00-\x08\x0b-\x1f\s][^\x00-\x08\x0b-\x1f]*$"
# (marshmallow formats a validator's error into a plain str: these are marked constants, said at
# the edge by their English words; :func:`said_messages`)
_TEXT = validate.Regexp(TEXT_PATTERN, error=N_("control characters are not allowed"))
_FILLED = validate.Regexp(
    FILLED_PATTERN, error=N_("must not be empty and hold no control characters")
)

# Headers the API checks (web.api): the same patterns are stated in the OpenAPI document.
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,100}$"
ETAG_PATTERN = r'^\s*(?:W/)?(?:"(\d{1,12})"|(\d{1,12}))\s*$'
IF_MATCH_PATTERN = r'^\s*(?:\*|(?:W/)?(?:"\d{1,12}"|\d{1,12}))\s*$'
GAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"

NAME = [validate.Length(min=1, max=MAX_NAME), _FILLED]
NOTE = [validate.Length(max=MAX_TEXT), _TEXT]
REASON = [validate.Length(min=1, max=MAX_TEXT), _FILLED]
EVENT = validate.Range(min=0, max=MAX_SEQ)


class _Every:
    """The values of every registered game, read when a value is checked (a game the tests
    register after this module was imported counts too)."""

    def __init__(self, values: Callable[[], Iterable[str]]) -> None:
        self.values = values

    def __contains__(self, value: object) -> bool:
        return value in tuple(self.values())

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self.values()))


PLAYERS: Iterable[str] = _Every(all_players)  # of every game
ZONES: Iterable[str] = _Every(lambda: dict.fromkeys(z for g in GAMES.values() for z in g.zones))
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
        "description": "the action's text form, as the view's 'legal' lists it",
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
        raise ValidationError(Say("nested too deeply"))
    if isinstance(value, str):
        if len(value) > 200:
            raise ValidationError(Say("a string is longer than 200 characters"))
    elif isinstance(value, Mapping):
        if len(value) > 40:
            raise ValidationError(Say("too many keys"))
        for k, v in value.items():
            _bounded_json(k, depth + 1)
            _bounded_json(v, depth + 1)
    elif isinstance(value, list):
        if len(value) > 100:
            raise ValidationError(Say("a list is longer than 100 items"))
        for v in value:
            _bounded_json(v, depth + 1)
    elif not (value is None or isinstance(value, bool | int | float)):
        raise ValidationError(Say("not a JSON value"))


class ActionField(fields.Field):  # type: ignore[type-arg]
    """An action: its JSON object (``{"do": "draw"}``) or its text form (as a view's ``legal``
    lists it). Loads as the JSON object, or as the text, which the API reads with the game's
    page module; the service checks the action."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> dict[str, Any] | str:
        if isinstance(value, str):
            if len(value) > ACTION_TEXT_MAX or not re.match(FILLED_PATTERN, value):
                raise ValidationError(
                    Say(
                        "an action text is 1 to %(max)s characters, not blank, without control "
                        "characters",
                        max=ACTION_TEXT_MAX,
                    )
                )
            return value
        if isinstance(value, Mapping):
            _bounded_json(value)
            if not isinstance(value.get("do"), str):
                raise ValidationError(Say('an action object names its kind in "do"'))
            return dict(value)
        raise ValidationError(
            Say("an action is an object or a text as the view's 'legal' lists it")
        )


class AnyJson(fields.Field):  # type: ignore[type-arg]
    """Any bounded JSON value (an answer: a card name, a list of names, a number)."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> Any:
        _bounded_json(value)
        return value


# ---- marshmallow's own messages, in the reader's language ------------------------------------
#
# Translated at the edge, not per field: marshmallow formats its messages (str.format, the values
# filled in) before anyone sees them, and giving every field of every schema (some built per game
# at start-up) its own error_messages would repeat these sentences everywhere and miss the
# validators' own. So each message marshmallow can give our schemas is written here once as a
# template (``%(name)s``), and :func:`said_messages` reads a message back into a Say with its
# values (the choices, the bounds: data, kept as they are). A message matched by none stays as
# it is (a marked constant of ours is still said by its words; anything else stays English).

MARSHMALLOW: tuple[str, ...] = (
    N_("Missing data for required field."),
    N_("Field may not be null."),
    N_("Invalid value."),
    N_("Invalid input."),
    N_("Unknown field."),
    N_("Invalid input type."),
    N_("Invalid type."),
    N_("Not a valid string."),
    N_("Not a valid utf-8 string."),
    N_("Not a valid integer."),
    N_("Not a valid number."),
    N_("Number too large."),
    N_("Not a valid boolean."),
    N_("Not a valid mapping type."),
    N_("Not a valid list."),
    N_("String does not match expected pattern."),
    N_("Shorter than minimum length %(min)s."),
    N_("Longer than maximum length %(max)s."),
    N_("Length must be between %(min)s and %(max)s."),
    N_("Length must be %(equal)s."),
    N_("Must be one of: %(choices)s."),
    N_("Must be greater than or equal to %(min)s."),
    N_("Must be greater than %(min)s."),
    N_("Must be less than or equal to %(max)s."),
    N_("Must be less than %(max)s."),
    N_("Must be greater than or equal to %(min)s and less than or equal to %(max)s."),
    N_("Must be greater than %(min)s and less than %(max)s."),
)


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"%\((\w+)\)s", template)
    out = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
    )
    return re.compile(out)


_PATTERNS = [(t, _pattern(t)) for t in MARSHMALLOW]


def said_message(message: Any) -> Any:
    """One marshmallow message as a Say (its template and values) when it is one of
    :data:`MARSHMALLOW`; else the message as it is (a Say of ours stays one)."""
    if isinstance(message, Say) or not isinstance(message, str):
        return message
    for template, pattern in _PATTERNS:
        m = pattern.fullmatch(message)
        if m:
            return Say(template, **m.groupdict())
    return message


def said_messages(messages: Any) -> Any:
    """A ValidationError's ``messages`` (nested dicts and lists of messages, keyed by field
    names) with every message read by :func:`said_message`; keys unchanged."""
    if isinstance(messages, Mapping):
        return {k: said_messages(v) for k, v in messages.items()}
    if isinstance(messages, list | tuple):
        return [said_messages(v) for v in messages]
    return said_message(messages)


# ---- requests ------------------------------------------------------------------------------


def _players() -> dict[str, fields.Field]:  # type: ignore[type-arg]
    """A name field for each player seat of every registered game."""
    out: dict[str, fields.Field] = {}  # type: ignore[type-arg]
    for g in GAMES.values():
        for p in g.players:
            desc = f"{p.capitalize()}'s player name ({g.title})"
            out.setdefault(p, fields.String(validate=NAME, metadata={"description": desc}))
    return out


PlayersSchema = Strict.from_dict(_players(), name="PlayersSchema")


def _option_field(name: str, found: list[tuple[AnyGame, Option]]) -> fields.Field:  # type: ignore[type-arg]
    """The create body's field ``name``: the option of that name of each game that has one
    (the same kind in each), described game by game."""
    kinds = {o.kind for _, o in found}
    if len(kinds) != 1:
        raise ValueError(f"option {name!r} is of kinds {sorted(kinds)} in different games")
    kind = kinds.pop()
    desc = "; ".join(f"{g.title}: {o.description}" for g, o in found)
    if kind == "text":
        size = validate.Length(max=max(o.max_len for _, o in found))
        return fields.String(
            load_default=None, allow_none=True, validate=size, metadata={"description": desc}
        )
    if kind == "choice":
        values = list(dict.fromkeys(c for _, o in found for c in o.choices))
        if all(o.checked for _, o in found):
            return fields.String(
                load_default=None,
                allow_none=True,
                validate=validate.OneOf(values),
                metadata={"description": desc},
            )
        return fields.String(
            load_default=None,
            allow_none=True,
            validate=validate.Length(min=1, max=40),
            metadata={"description": f"{desc}; another is refused (422 Refused)", "enum": values},
        )
    if kind == "switches":
        props = {
            n: {"type": "string", "enum": list(v)} for _, o in found for n, v in o.switches.items()
        }
        return fields.Dict(
            keys=fields.String(validate=NAME),
            values=fields.String(validate=NAME),
            load_default=dict,
            validate=validate.Length(max=20),
            metadata={
                "description": f"{desc}; another name or value is refused (422 Refused)",
                "properties": props,
                "additionalProperties": False,  # stated last (web.openapi), over the values'
            },
        )
    return fields.Dict(load_default=None, allow_none=True, metadata={"description": desc})


def _create_fields() -> dict[str, fields.Field]:  # type: ignore[type-arg]
    by_name: dict[str, list[tuple[AnyGame, Option]]] = {}
    for g in GAMES.values():
        for o in g.options:
            by_name.setdefault(o.name, []).append((g, o))
    return {
        "game_module": fields.String(
            load_default=DEFAULT,
            validate=validate.OneOf(sorted(GAMES)),
            metadata={"description": f"which game: {', '.join(GAMES)} (default {DEFAULT})"},
        ),
        "players": fields.Nested(PlayersSchema, load_default=dict),
        **{name: _option_field(name, found) for name, found in by_name.items()},
        "kit": fields.Dict(
            load_default=None,
            allow_none=True,
            metadata={
                "description": "the kit.json of 'referee kit' for the game (stays on the "
                "server; the game then uses its cards, and photos are read with it)"
            },
        ),
        "strict": fields.Boolean(
            load_default=False,
            metadata={
                "description": "a strict table (tournament play): no guardian warns its "
                "players before a move that loses (default false: casual, the guardian on)"
            },
        ),
        "hands_public": fields.Boolean(
            load_default=False,
            metadata={
                "description": "the review shows both players' hands once the game is over "
                "(default false: each player studies the game through his own seat only)"
            },
        ),
    }


CreateGameSchema = Strict.from_dict(_create_fields(), name="CreateGameSchema")


def _rebuild_create() -> None:
    """The create body's fields again from the games registered now (a game the tests register
    for a while): the classes stay, so every reference to them reads the new fields."""
    for schema, built in ((PlayersSchema, _players()), (CreateGameSchema, _create_fields())):
        schema._declared_fields.clear()
        schema._declared_fields.update(built)


WATCHERS.append(_rebuild_create)


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
    zone = fields.String(required=True, validate=validate.OneOf(ZONES))
    column = fields.Integer(validate=validate.Range(1, 3), strict=True)
    position = fields.Integer(validate=validate.Range(1, 4), strict=True)
    card = fields.String(required=True, validate=NAME)
    source = fields.String(
        load_default="manual", validate=[validate.Length(min=1, max=20), _FILLED]
    )


class CallSchema(Strict):
    note = fields.String(load_default="", validate=NOTE)


class ProposalAnswerSchema(Strict):
    """A player's answer to the other's proposal (a take-back, or a correction at a
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


# A seat's view, a receipt, a ruling and the judge's overview are the service's typed values
# (referee.models, each game's board view and ruling result): their schemas are generated from
# those types (web.openapi.typed_components), not written here a second time.


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
