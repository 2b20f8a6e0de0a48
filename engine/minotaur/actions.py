"""Minotaur Lords actions: small immutable values with a JSON form (docs/minotaur.md).

Every action may say ``"by"``: the player it is for (by default the turn's player). Effects
(M12) are plain operations on the table that name the card whose text caused them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.errors import NotationError
from engine.minotaur.cards import COLUMN_IDS, MAX_NAME, PLAYERS
from engine.minotaur.state import Phase
from engine.say import Say

ZONES = ("hand", "deck", "deck-bottom", "discard", "centre", *COLUMN_IDS)
SELF = "self"  # a side not named: the action's player, resolved when it is applied
MAX_LIST = 40
MAX_OPS = 20


@dataclass(frozen=True)
class Place:
    """A zone of one side: ``hand``, ``deck`` (its top), ``deck-bottom``, ``discard``,
    ``centre`` (the deities) or a column id."""

    side: str
    zone: str

    @property
    def in_play(self) -> bool:
        return self.zone == "centre" or self.zone in COLUMN_IDS

    def as_json(self) -> dict[str, str]:
        return {"zone": self.zone} if self.side == SELF else {"side": self.side, "zone": self.zone}


# ---- operations of an effect (M12) ---------------------------------------------------------


@dataclass(frozen=True)
class Move:
    card: str | None  # None: a hidden card the referee does not know (a deck's top)
    src: Place
    dst: Place


@dataclass(frozen=True)
class Curse:
    card: str
    at: Place
    cure: bool = False  # True: one token removed


@dataclass(frozen=True)
class Draw:
    side: str
    count: int
    cards: tuple[str, ...] | None = None  # the cards drawn, when told


@dataclass(frozen=True)
class Strength:
    card: str
    at: Place
    delta: int


Op = Move | Curse | Draw | Strength


# ---- actions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeHand:
    discard: tuple[str, ...]
    draws: tuple[str, ...] | None = None
    by: str | None = None


@dataclass(frozen=True)
class Play:
    card: str
    column: str | None = None  # None for a deity or a fate card
    replace: str | None = None  # a fourth deity: which of the three goes (M9)
    by: str | None = None


@dataclass(frozen=True)
class Activate:
    card: str
    at: str = "centre"  # a column id, or centre for a deity
    by: str | None = None


@dataclass(frozen=True)
class Cure:
    card: str
    at: Place
    by: str | None = None


@dataclass(frozen=True)
class Pass:
    to: Phase | None = None  # None: the next phase
    by: str | None = None


@dataclass(frozen=True)
class Exercise:
    column: str
    target: tuple[str, str] | None = None  # religious: (card, column) of the opponent's
    draw: str | None = None  # economic: the card drawn, when told
    by: str | None = None


@dataclass(frozen=True)
class Effect:
    card: str
    ops: tuple[Op, ...]
    at: str | None = None  # where the card stands (a column or centre); None: the pending one
    by: str | None = None
    # the cards that leave a hand unnamed ("?") in ``ops``, stated by that hand's holder
    hand_cards: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def hand_cards_of(self, side: str) -> tuple[str, ...] | None:
        return next((names for p, names in self.hand_cards if p == side), None)


@dataclass(frozen=True)
class EndTurn:
    discard: str | None = None  # M4: the card discarded when none left the hand this turn
    by: str | None = None


@dataclass(frozen=True)
class Hand:
    """The holder names unknown cards of his own hand (ML-P7): the referee learns them."""

    cards: tuple[str, ...]
    by: str | None = None


@dataclass(frozen=True)
class SetAside:
    cards: tuple[str, ...]
    by: str | None = None


@dataclass(frozen=True)
class Take:
    cards: tuple[str, ...]
    by: str | None = None


Action = (
    ChangeHand
    | Play
    | Activate
    | Cure
    | Pass
    | Exercise
    | Effect
    | EndTurn
    | SetAside
    | Take
    | Hand
)

_KEYS: dict[str, set[str]] = {
    "change_hand": {"discard", "draw"},
    "play": {"card", "column", "replace"},
    "activate": {"card", "column"},
    "cure": {"card", "column", "side"},
    "pass": {"to"},
    "exercise": {"column", "target", "card"},
    "effect": {"card", "column", "ops", "hand_cards"},
    "end_turn": {"discard"},
    "set_aside": {"cards"},
    "hand": {"cards"},
    "take": {"cards"},
}


def _name(v: object, where: str) -> str:
    if not isinstance(v, str) or not v or len(v) > MAX_NAME:
        raise NotationError(Say("a card name (1-40 characters)"), where)
    return v


def _names(v: object, where: str) -> tuple[str, ...]:
    if not isinstance(v, list) or len(v) > MAX_LIST:
        raise NotationError(Say("a list of up to %(most)s card names", most=MAX_LIST), where)
    return tuple(_name(x, f"{where}[{i}]") for i, x in enumerate(v))


def _column(v: object, where: str) -> str:
    if not isinstance(v, str) or v not in COLUMN_IDS:
        raise NotationError(
            Say(
                "%(got)s is not a column (%(columns)s)",
                got=repr(str(v)[:40]),
                columns=tuple(COLUMN_IDS),
            ),
            where,
        )
    return v


def _player(v: object, where: str) -> str:
    if v not in PLAYERS and v != SELF:
        raise NotationError(
            Say("%(got)s is not a player (miron or vess)", got=repr(str(v)[:20])), where
        )
    return str(v)


def _int(v: object, where: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise NotationError(Say("a whole number %(lo)s to %(hi)s", lo=lo, hi=hi), where)
    return v


def _place(v: object, where: str, actor: str) -> Place:
    if not isinstance(v, dict) or set(v) - {"side", "zone"}:
        raise NotationError(Say('a place {"side": ..., "zone": ...}'), where)
    side = _player(v.get("side", actor), f"{where}.side")
    zone = v.get("zone")
    if zone not in ZONES:
        raise NotationError(
            Say("%(got)s is not a zone (%(zones)s)", got=repr(str(zone)[:30]), zones=tuple(ZONES)),
            f"{where}.zone",
        )
    return Place(side, str(zone))


def parse_op(raw: object, where: str, actor: str) -> Op:
    if not isinstance(raw, dict):
        raise NotationError(Say("an operation object"), where)
    kind = raw.get("op")
    keys = {
        "move": {"op", "card", "from", "to"},
        "curse": {"op", "card", "side", "zone"},
        "cure": {"op", "card", "side", "zone"},
        "draw": {"op", "side", "count", "cards"},
        "strength": {"op", "card", "side", "zone", "delta"},
    }.get(kind if isinstance(kind, str) else "")
    if keys is None:
        raise NotationError(
            Say(
                "%(got)s is not an operation (move, curse, cure, draw, strength)",
                got=repr(str(kind)[:20]),
            ),
            f"{where}.op",
        )
    extra = set(raw) - keys
    if extra:
        raise NotationError(Say("unknown key %(key)s", key=repr(sorted(extra)[0])), where)
    if kind == "move":
        card = raw.get("card")
        return Move(
            None if card is None or card == "?" else _name(card, f"{where}.card"),
            _place(raw.get("from"), f"{where}.from", actor),
            _place(raw.get("to"), f"{where}.to", actor),
        )
    if kind == "draw":
        cards = raw.get("cards")
        return Draw(
            _player(raw.get("side", actor), f"{where}.side"),
            _int(raw.get("count", 1), f"{where}.count", 1, 10),
            None if cards is None else _names(cards, f"{where}.cards"),
        )
    at = _place({"side": raw.get("side", actor), "zone": raw.get("zone")}, where, actor)
    if not at.in_play:
        raise NotationError(Say("a card in play: a column or centre"), f"{where}.zone")
    card = _name(raw.get("card"), f"{where}.card")
    if kind == "strength":
        return Strength(card, at, _int(raw.get("delta"), f"{where}.delta", -99, 99))
    return Curse(card, at, cure=kind == "cure")


def parse_action(raw: object, where: str, turn_player: str | None = None) -> Action:
    """An action from its JSON. Raises NotationError naming ``where``."""
    if not isinstance(raw, dict):
        raise NotationError(Say('an action is an object with "do"'), where)
    do = raw.get("do")
    keys = _KEYS.get(do if isinstance(do, str) else "")
    if keys is None:
        raise NotationError(
            Say(
                "%(got)s is not an action (%(actions)s)",
                got=repr(str(do)[:30]),
                actions=tuple(_KEYS),
            ),
            f"{where}.do",
        )
    extra = set(raw) - keys - {"do", "by"}
    if extra:
        raise NotationError(Say("unknown key %(key)s", key=repr(sorted(extra)[0])), where)
    by = None if "by" not in raw else _player(raw["by"], f"{where}.by")
    actor = by or turn_player or SELF
    w = where
    if do == "change_hand":
        draws = raw.get("draw")
        return ChangeHand(
            _names(raw.get("discard"), f"{w}.discard"),
            None if draws is None else _names(draws, f"{w}.draw"),
            by,
        )
    if do == "play":
        col = raw.get("column")
        rep = raw.get("replace")
        return Play(
            _name(raw.get("card"), f"{w}.card"),
            None if col is None else _column(col, f"{w}.column"),
            None if rep is None else _name(rep, f"{w}.replace"),
            by,
        )
    if do == "activate":
        col = raw.get("column")
        return Activate(
            _name(raw.get("card"), f"{w}.card"),
            "centre" if col is None else _column(col, f"{w}.column"),
            by,
        )
    if do == "cure":
        col = raw.get("column")
        zone = "centre" if col is None else _column(col, f"{w}.column")
        return Cure(
            _name(raw.get("card"), f"{w}.card"),
            Place(_player(raw.get("side", actor), f"{w}.side"), zone),
            by,
        )
    if do == "pass":
        to = raw.get("to")
        if to is not None and not (isinstance(to, str) and to in {p.value for p in Phase}):
            raise NotationError(
                Say("%(got)s is not a phase (0, 1, 2, supremacy)", got=repr(str(to)[:20])),
                f"{w}.to",
            )
        return Pass(None if to is None else Phase(to), by)
    if do == "exercise":
        t = raw.get("target")
        target = None
        if t is not None:
            if not isinstance(t, dict) or set(t) - {"card", "column"}:
                raise NotationError(Say('a target {"card": ..., "column": ...}'), f"{w}.target")
            target = (
                _name(t.get("card"), f"{w}.target.card"),
                _column(t.get("column"), f"{w}.target.column"),
            )
        d = raw.get("card")
        return Exercise(
            _column(raw.get("column"), f"{w}.column"),
            target,
            None if d is None else _name(d, f"{w}.card"),
            by,
        )
    if do == "effect":
        ops = raw.get("ops")
        if not isinstance(ops, list) or not 1 <= len(ops) <= MAX_OPS:
            raise NotationError(Say("a list of 1 to %(most)s operations", most=MAX_OPS), f"{w}.ops")
        col = raw.get("column")
        at = None if col is None else ("centre" if col == "centre" else _column(col, f"{w}.column"))
        hc = raw.get("hand_cards", {})
        if not isinstance(hc, dict) or set(hc) - set(PLAYERS):
            raise NotationError(Say('{"miron": [names], "vess": [names]}'), f"{w}.hand_cards")
        return Effect(
            _name(raw.get("card"), f"{w}.card"),
            tuple(parse_op(o, f"{w}.ops[{i}]", actor) for i, o in enumerate(ops)),
            at,
            by,
            tuple((p, _names(hc[p], f"{w}.hand_cards.{p}")) for p in PLAYERS if p in hc),
        )
    if do == "end_turn":
        d = raw.get("discard")
        return EndTurn(None if d is None else _name(d, f"{w}.discard"), by)
    if do == "set_aside":
        return SetAside(_names(raw.get("cards"), f"{w}.cards"), by)
    if do == "hand":
        return Hand(_names(raw.get("cards"), f"{w}.cards"), by)
    return Take(_names(raw.get("cards"), f"{w}.cards"), by)


def op_json(op: Op) -> dict[str, Any]:
    if isinstance(op, Move):
        return {
            "op": "move",
            "card": op.card or "?",
            "from": op.src.as_json(),
            "to": op.dst.as_json(),
        }
    if isinstance(op, Draw):
        out: dict[str, Any] = {"op": "draw", "count": op.count}
        if op.side != SELF:
            out["side"] = op.side
        if op.cards is not None:
            out["cards"] = list(op.cards)
        return out
    if isinstance(op, Strength):
        return {"op": "strength", "card": op.card, **op.at.as_json(), "delta": op.delta}
    return {"op": "cure" if op.cure else "curse", "card": op.card, **op.at.as_json()}


def action_json(a: Action) -> dict[str, Any]:
    """The JSON form of an action (parse_action reads it back)."""
    out: dict[str, Any]
    if isinstance(a, ChangeHand):
        out = {"do": "change_hand", "discard": list(a.discard)}
        if a.draws is not None:
            out["draw"] = list(a.draws)
    elif isinstance(a, Play):
        out = {"do": "play", "card": a.card}
        if a.column:
            out["column"] = a.column
        if a.replace:
            out["replace"] = a.replace
    elif isinstance(a, Activate):
        out = {"do": "activate", "card": a.card}
        if a.at != "centre":
            out["column"] = a.at
    elif isinstance(a, Cure):
        out = {"do": "cure", "card": a.card, **({} if a.at.side == SELF else {"side": a.at.side})}
        if a.at.zone != "centre":
            out["column"] = a.at.zone
    elif isinstance(a, Pass):
        out = {"do": "pass"}
        if a.to is not None:
            out["to"] = a.to.value
    elif isinstance(a, Exercise):
        out = {"do": "exercise", "column": a.column}
        if a.target:
            out["target"] = {"card": a.target[0], "column": a.target[1]}
        if a.draw:
            out["card"] = a.draw
    elif isinstance(a, Effect):
        out = {"do": "effect", "card": a.card, "ops": [op_json(o) for o in a.ops]}
        if a.at:
            out["column"] = a.at
        if a.hand_cards:
            out["hand_cards"] = {p: list(names) for p, names in a.hand_cards}
    elif isinstance(a, EndTurn):
        out = {"do": "end_turn"}
        if a.discard:
            out["discard"] = a.discard
    elif isinstance(a, SetAside):
        out = {"do": "set_aside", "cards": list(a.cards)}
    elif isinstance(a, Hand):
        out = {"do": "hand", "cards": list(a.cards)}
    elif isinstance(a, Take):
        out = {"do": "take", "cards": list(a.cards)}
    if a.by:
        out["by"] = a.by
    return out


def _own(p: Place, actor: str) -> Place:
    return Place(actor, p.zone) if p.side == SELF else p


def resolve_self(a: Action, actor: str) -> Action:
    """``a`` with every side left unnamed (:data:`SELF`) made ``actor``'s."""
    if isinstance(a, Cure):
        return replace(a, at=_own(a.at, actor))
    if not isinstance(a, Effect):
        return a
    ops: list[Op] = []
    for op in a.ops:
        if isinstance(op, Move):
            ops.append(replace(op, src=_own(op.src, actor), dst=_own(op.dst, actor)))
        elif isinstance(op, Draw):
            ops.append(replace(op, side=actor if op.side == SELF else op.side))
        else:
            ops.append(replace(op, at=_own(op.at, actor)))
    return replace(a, ops=tuple(ops))
