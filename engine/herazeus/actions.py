"""Actions: small immutable values with a JSON form (POSITIONS.md) and a text form.

Every action has ``to_json()`` / :func:`parse_action` and ``text()`` / :func:`parse_action_text`;
both round-trip. Card names inside actions are written as their holder writes them
(``Pegasus/zeus`` for a card taken by Sirens). Columns and positions count from 1.

Text form examples::

    draw Cyclops            play Cyclops 2.1          challenge 2 attacker=Giant defender=Hydra
    pegasus hand pick=Medusa place=3                  pegasus field 2
    pythia spy              pythia reveal 1           sirens      hades Pegasus   persephone
    dionysus 1.2>3.1        god 2                     remove-figure               end
    starter hera            deal hera Io,Hydra,...    redraw hera card=Hydra
    redeal hera Hydra,Harpy,... shown=Sirens,Hades    first-row hera Nemesis,Hydra,Harpy

Any action may carry ``by=zeus`` (who acts) and ``order.hera=A,B`` (discard order, D1/D2).
Raises :class:`engine.herazeus.errors.NotationError` for anything malformed.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from engine.herazeus.cards import COLUMN_DEPTH, COLUMNS, Player
from engine.herazeus.errors import NotationError
from engine.say import Say


class ActionKind(enum.Enum):
    DRAW = "draw"
    PLAY = "play"
    CHALLENGE = "challenge"
    PEGASUS_HAND = "pegasus_hand"
    PEGASUS_FIELD = "pegasus_field"
    PEGASUS_OWN_FIGURE = "pegasus_own_figure"
    PYTHIA_SPY = "pythia_spy"
    PYTHIA_REVEAL = "pythia_reveal"
    SIRENS = "sirens"
    HADES = "hades"
    PERSEPHONE = "persephone"
    DIONYSUS = "dionysus"
    GOD = "god"
    REMOVE_FIGURE = "remove_figure"
    END_TURN = "end_turn"
    DECLARE_STUCK = "declare_stuck"  # D8 declared where the referee does not know the hand
    # setup (D19)
    STARTER = "starter"
    DEAL = "deal"
    REDRAW = "redraw"
    REDEAL = "redeal"
    FIRST_ROW = "first_row"


Order = tuple[tuple[Player, tuple[str, ...]], ...]


@dataclass(frozen=True, slots=True)
class Action:
    """Base of all actions. ``by`` is the acting player (None: whoever's turn it is)."""

    kind: ClassVar[ActionKind]
    is_setup: ClassVar[bool] = False

    def actor(self, default: Player) -> Player:
        by: Player | None = getattr(self, "by", None)
        return by if by is not None else default

    def order_for(self, p: Player) -> tuple[str, ...] | None:
        order: Order = getattr(self, "order", ())
        for who, names in order:
            if who is p:
                return names
        return None

    def to_json(self) -> dict[str, Any]:
        out = _json_head(self)
        reveal = _REVEAL_FIELDS.get(self.kind, ())
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None or v == () or f.name in ("by", "order"):
                continue
            if f.name in reveal:  # identities go under "reveal" (POSITIONS.md, D20)
                out.setdefault("reveal", {})[f.name] = _to_jsonable(v)
                continue
            out[f.name] = _to_jsonable(v)
        by: Player | None = getattr(self, "by", None)
        if by is not None:
            out["by"] = by.key
        order: Order = getattr(self, "order", ())
        if order:
            out["order"] = {p.key: list(names) for p, names in order}
        return out

    def text(self) -> str:
        return _to_text(self)

    def __str__(self) -> str:
        return self.text()


# Fields that carry identities of unknown cards; their JSON form is {"reveal": {...}}.
_REVEAL_FIELDS: dict[ActionKind, tuple[str, ...]] = {
    ActionKind.CHALLENGE: ("attacker", "defender"),
    ActionKind.PEGASUS_FIELD: ("target",),
    ActionKind.PYTHIA_SPY: ("hand",),
    ActionKind.PYTHIA_REVEAL: ("cards",),
}


def card_names(a: Action) -> Iterator[tuple[str, str]]:
    """Every card name ``a`` carries, as ``(key, name)`` with the key as the JSON form writes
    it (``card``, ``reveal.defender``, ``cards[2]``, ``order.hera[0]``)."""
    reveal = _REVEAL_FIELDS.get(a.kind, ())
    for f in fields(a):
        v = getattr(a, f.name)
        key = f"reveal.{f.name}" if f.name in reveal else f.name
        if isinstance(v, str):
            yield key, v
        elif f.name == "order":
            for p, names in v:
                for i, t in enumerate(names):
                    yield f"order.{p.key}[{i}]", t
        elif isinstance(v, tuple) and all(isinstance(x, str) for x in v):
            for i, t in enumerate(v):
                yield f"{key}[{i}]", t


def _to_jsonable(v: Any) -> Any:
    if isinstance(v, Player):
        return v.key
    if isinstance(v, tuple):
        return [_to_jsonable(x) for x in v]
    return v


# ---- the actions ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Draw(Action):
    kind: ClassVar[ActionKind] = ActionKind.DRAW
    card: str | None = None
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class Play(Action):
    kind: ClassVar[ActionKind] = ActionKind.PLAY
    card: str = "?"
    column: int = 1
    position: int | None = None  # None: at the back
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class Challenge(Action):
    kind: ClassVar[ActionKind] = ActionKind.CHALLENGE
    column: int = 1
    attacker: str | None = None  # identities when either card is unknown (D20)
    defender: str | None = None
    order: Order = ()
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class PegasusHand(Action):
    kind: ClassVar[ActionKind] = ActionKind.PEGASUS_HAND
    pick: str | None = None
    place: int | None = None
    order: Order = ()
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class PegasusField(Action):
    kind: ClassVar[ActionKind] = ActionKind.PEGASUS_FIELD
    column: int = 1
    target: str | None = None  # identity of an unknown target (D20)
    order: Order = ()
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class PegasusOwnFigure(Action):
    kind: ClassVar[ActionKind] = ActionKind.PEGASUS_OWN_FIGURE
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class PythiaSpy(Action):
    kind: ClassVar[ActionKind] = ActionKind.PYTHIA_SPY
    hand: tuple[str, ...] = ()  # identities of the opponent's unknown hand cards (D20)
    order: Order = ()  # the order the Poseidon and Nemesis found go onto their pile (D12)
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class PythiaReveal(Action):
    kind: ClassVar[ActionKind] = ActionKind.PYTHIA_REVEAL
    column: int = 1
    cards: tuple[str, ...] = ()  # identities of the column's unknown cards, front to back
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class Sirens(Action):
    kind: ClassVar[ActionKind] = ActionKind.SIRENS
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class Hades(Action):
    kind: ClassVar[ActionKind] = ActionKind.HADES
    card: str = "?"
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class Persephone(Action):
    kind: ClassVar[ActionKind] = ActionKind.PERSEPHONE
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class Dionysus(Action):
    kind: ClassVar[ActionKind] = ActionKind.DIONYSUS
    src: tuple[int, int] = (1, 1)
    dst: tuple[int, int] = (1, 1)
    by: Player | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"do": "dionysus", "from": list(self.src), "to": list(self.dst)}
        if self.by is not None:
            out["by"] = self.by.key
        return out


@dataclass(frozen=True, slots=True)
class God(Action):
    kind: ClassVar[ActionKind] = ActionKind.GOD
    column: int = 1
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class RemoveFigure(Action):
    kind: ClassVar[ActionKind] = ActionKind.REMOVE_FIGURE
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    kind: ClassVar[ActionKind] = ActionKind.END_TURN
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class DeclareStuck(Action):
    """D8/HZ-P6: the player declares he cannot use his points; a judge confirms it."""

    kind: ClassVar[ActionKind] = ActionKind.DECLARE_STUCK
    by: Player | None = None


@dataclass(frozen=True, slots=True)
class Starter(Action):
    """D19: record the starting player."""

    kind: ClassVar[ActionKind] = ActionKind.STARTER
    is_setup: ClassVar[bool] = True
    player: Player = Player.HERA


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """D19: a player records the nine cards he drew (``?`` for cards not entered)."""

    kind: ClassVar[ActionKind] = ActionKind.DEAL
    is_setup: ClassVar[bool] = True
    player: Player = Player.HERA
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Redraw(Action):
    """D19: the hostage drawn at setup is shown, a replacement drawn, the hostage shuffled back.

    ``card`` is the replacement's identity; ``at`` where the hostage lands in a known deck
    (0 = top), as the shuffle put it.
    """

    kind: ClassVar[ActionKind] = ActionKind.REDRAW
    is_setup: ClassVar[bool] = True
    player: Player = Player.HERA
    card: str | None = None
    at: int | None = None


@dataclass(frozen=True, slots=True)
class Redeal(Action):
    """D19: a hand with fewer than three cards with a printed strength is shown, shuffled into
    the deck, and nine cards are drawn again.

    ``cards`` are the nine new cards (``?`` for cards not entered), as in :class:`Deal`.
    ``shown`` names, in hand order, the old hand's cards the referee does not know (the hand is
    shown to both players). ``deck`` is needed only when the referee knows the deck's order (a
    simulation): the deck as the shuffle left it after the nine were drawn, top first.
    """

    kind: ClassVar[ActionKind] = ActionKind.REDEAL
    is_setup: ClassVar[bool] = True
    player: Player = Player.HERA
    cards: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FirstRow(Action):
    """D19: three cards from the hand, face down, one per column (left to right)."""

    kind: ClassVar[ActionKind] = ActionKind.FIRST_ROW
    is_setup: ClassVar[bool] = True
    player: Player = Player.HERA
    cards: tuple[str, ...] = ()


# ---- JSON ----------------------------------------------------------------------------------


def _json_head(a: Action) -> dict[str, Any]:
    k = a.kind
    if k is ActionKind.PEGASUS_HAND:
        return {"do": "pegasus", "target": "hand"}
    if k is ActionKind.PEGASUS_FIELD:
        return {"do": "pegasus", "target": "field"}
    if k is ActionKind.PEGASUS_OWN_FIGURE:
        return {"do": "pegasus", "target": "own_figure"}
    if k is ActionKind.PYTHIA_SPY:
        return {"do": "pythia", "mode": "spy"}
    if k is ActionKind.PYTHIA_REVEAL:
        return {"do": "pythia", "mode": "reveal"}
    return {"do": k.value}


class _Reader:
    """Checked access to one action's JSON object; every error names the key."""

    def __init__(self, raw: Mapping[str, Any], where: str) -> None:
        self.raw = raw
        self.where = where
        self.used: set[str] = {"do"}

    def _get(self, key: str) -> Any:
        self.used.add(key)
        return self.raw.get(key)

    def column(self, key: str = "column", required: bool = True) -> int | None:
        v = self._get(key)
        if v is None and not required:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= COLUMNS:
            raise NotationError(
                Say(
                    "must be a column 1..%(columns)s, not %(value)s", columns=COLUMNS, value=repr(v)
                ),
                f"{self.where}.{key}",
            )
        return v

    def position(self, key: str) -> int | None:
        v = self._get(key)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= COLUMN_DEPTH:
            raise NotationError(
                Say(
                    "must be a position 1..%(depth)s, not %(value)s",
                    depth=COLUMN_DEPTH,
                    value=repr(v),
                ),
                f"{self.where}.{key}",
            )
        return v

    def place(self, key: str) -> tuple[int, int]:
        v = self._get(key)
        ok = (
            isinstance(v, list)
            and len(v) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
            and 1 <= v[0] <= COLUMNS
            and 1 <= v[1] <= COLUMN_DEPTH
        )
        if not ok:
            raise NotationError(
                Say(
                    "must be [column 1..%(columns)s, position 1..%(depth)s], not %(value)s",
                    columns=COLUMNS,
                    depth=COLUMN_DEPTH,
                    value=repr(v),
                ),
                f"{self.where}.{key}",
            )
        return (v[0], v[1])

    def name(self, key: str, required: bool) -> str | None:
        v = self._get(key)
        if v is None and not required:
            return None
        if not isinstance(v, str) or not v:
            raise NotationError(
                Say("must be a card name, not %(value)s", value=repr(v)), f"{self.where}.{key}"
            )
        return v

    def names(self, key: str, raw: Any = None) -> tuple[str, ...]:
        v = self._get(key) if raw is None else raw
        if v is None:
            return ()
        if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
            raise NotationError(
                Say("must be a list of card names, not %(value)s", value=repr(v)),
                f"{self.where}.{key}",
            )
        return tuple(v)

    def int_or_none(self, key: str) -> int | None:
        v = self._get(key)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise NotationError(
                Say("must be a whole number ≥ 0, not %(value)s", value=repr(v)),
                f"{self.where}.{key}",
            )
        return v

    def player(self, key: str, required: bool) -> Player | None:
        v = self._get(key)
        if v is None and not required:
            return None
        try:
            return Player.parse(v)
        except ValueError:
            raise NotationError(
                Say("must be 'hera' or 'zeus', not %(value)s", value=repr(v)),
                f"{self.where}.{key}",
            ) from None

    def order(self) -> Order:
        v = self._get("order")
        if v is None:
            return ()
        if not isinstance(v, Mapping):
            raise NotationError(Say("must be an object {player: [cards]}"), f"{self.where}.order")
        out = []
        for k, names in v.items():
            try:
                p = Player.parse(k)
            except ValueError:
                raise NotationError(
                    Say("unknown player %(value)s", value=repr(k)), f"{self.where}.order"
                ) from None
            out.append((p, self.names(f"order.{k}", names if names is not None else [])))
        out.sort(key=lambda x: x[0])
        return tuple(out)

    def reveal(self, allowed: tuple[str, ...]) -> Mapping[str, Any]:
        v = self._get("reveal")
        if v is None:
            return {}
        if not isinstance(v, Mapping):
            raise NotationError(Say("must be an object"), f"{self.where}.reveal")
        for k in v:
            if k not in allowed:
                raise NotationError(
                    Say(
                        "unknown key %(value)s (allowed: %(allowed)s)",
                        value=repr(k),
                        allowed=list(allowed),
                    ),
                    f"{self.where}.reveal",
                )
        return v

    def finish(self, extra: tuple[str, ...] = ()) -> None:
        allowed = self.used | {"by", "id", "note"} | set(extra)
        for k in self.raw:
            if k not in allowed:
                raise NotationError(Say("unknown key %(value)s", value=repr(k)), self.where)


def parse_action(raw: Any, where: str = "action") -> Action:
    """Reads one action in the JSON form of POSITIONS.md. Raises NotationError."""
    if not isinstance(raw, Mapping):
        raise NotationError(Say("must be an object with a 'do' key"), where)
    do = raw.get("do")
    r = _Reader(raw, where)
    by = r.player("by", required=False)
    a: Action
    if do == "draw":
        a = Draw(card=r.name("card", False), by=by)
    elif do == "play":
        a = Play(
            card=r.name("card", True) or "?",
            column=r.column() or 1,
            position=r.position("position"),
            by=by,
        )
    elif do == "challenge":
        rv = r.reveal(("attacker", "defender"))
        a = Challenge(
            column=r.column() or 1,
            attacker=_reveal_name(rv, "attacker", where),
            defender=_reveal_name(rv, "defender", where),
            order=r.order(),
            by=by,
        )
    elif do == "pegasus":
        target = r._get("target")
        if target == "hand":
            a = PegasusHand(
                pick=r.name("pick", False),
                place=r.column("place", required=False),
                order=r.order(),
                by=by,
            )
        elif target == "field":
            rv = r.reveal(("target",))
            a = PegasusField(
                column=r.column() or 1,
                target=_reveal_name(rv, "target", where),
                order=r.order(),
                by=by,
            )
        elif target == "own_figure":
            a = PegasusOwnFigure(by=by)
        else:
            raise NotationError(
                Say("must be 'hand', 'field' or 'own_figure', not %(value)s", value=repr(target)),
                f"{where}.target",
            )
    elif do == "pythia":
        mode = r._get("mode")
        if mode == "spy":
            rv = r.reveal(("hand",))
            hand = r.names("reveal.hand", rv.get("hand", []))
            a = PythiaSpy(hand=hand, order=r.order(), by=by)
        elif mode == "reveal":
            rv = r.reveal(("cards",))
            a = PythiaReveal(
                column=r.column() or 1, cards=r.names("reveal.cards", rv.get("cards", [])), by=by
            )
        else:
            raise NotationError(
                Say("must be 'spy' or 'reveal', not %(value)s", value=repr(mode)), f"{where}.mode"
            )
    elif do == "sirens":
        a = Sirens(by=by)
    elif do == "hades":
        a = Hades(card=r.name("card", True) or "?", by=by)
    elif do == "persephone":
        a = Persephone(by=by)
    elif do == "dionysus":
        a = Dionysus(src=r.place("from"), dst=r.place("to"), by=by)
    elif do == "god":
        a = God(column=r.column() or 1, by=by)
    elif do == "remove_figure":
        a = RemoveFigure(by=by)
    elif do == "end_turn":
        a = EndTurn(by=by)
    elif do == "declare_stuck":
        a = DeclareStuck(by=by)
    elif do == "starter":
        a = Starter(player=r.player("player", True) or Player.HERA)
    elif do == "deal":
        a = Deal(player=r.player("player", True) or Player.HERA, cards=r.names("cards"))
    elif do == "redraw":
        a = Redraw(
            player=r.player("player", True) or Player.HERA,
            card=r.name("card", False),
            at=r.int_or_none("at"),
        )
    elif do == "redeal":
        a = Redeal(
            player=r.player("player", True) or Player.HERA,
            cards=r.names("cards"),
            shown=r.names("shown"),
            deck=r.names("deck"),
        )
    elif do == "first_row":
        a = FirstRow(player=r.player("player", True) or Player.HERA, cards=r.names("cards"))
    else:
        known = ", ".join(
            sorted(
                {
                    "draw",
                    "play",
                    "challenge",
                    "pegasus",
                    "pythia",
                    "sirens",
                    "hades",
                    "persephone",
                    "dionysus",
                    "god",
                    "remove_figure",
                    "end_turn",
                    "declare_stuck",
                    "starter",
                    "deal",
                    "redraw",
                    "redeal",
                    "first_row",
                }
            )
        )
        raise NotationError(
            Say("unknown action %(value)s (known: %(known)s)", value=repr(do), known=known),
            f"{where}.do",
        )
    r.finish()
    return a


def _reveal_name(rv: Mapping[str, Any], key: str, where: str) -> str | None:
    v = rv.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or not v:
        raise NotationError(
            Say("must be a card name, not %(value)s", value=repr(v)), f"{where}.reveal.{key}"
        )
    return v


# ---- text ----------------------------------------------------------------------------------


def _to_text(a: Action) -> str:
    head = _json_head(a)
    words: list[str] = [
        {
            "end_turn": "end",
            "remove_figure": "remove-figure",
            "first_row": "first-row",
            "declare_stuck": "declare-stuck",
        }.get(head["do"], head["do"])
    ]
    if "target" in head:
        words.append(head["target"].replace("_", "-"))
    if "mode" in head:
        words.append(head["mode"])
    if isinstance(a, Draw) and a.card:
        words.append(a.card)
    elif isinstance(a, Play):
        words += [a.card, f"{a.column}.{a.position}" if a.position else str(a.column)]
    elif isinstance(a, Challenge):
        words.append(str(a.column))
        words += [f"{k}={v}" for k, v in (("attacker", a.attacker), ("defender", a.defender)) if v]
    elif isinstance(a, PegasusHand):
        if a.pick:
            words.append(f"pick={a.pick}")
        if a.place:
            words.append(f"place={a.place}")
    elif isinstance(a, PegasusField):
        words.append(str(a.column))
        if a.target:
            words.append(f"target={a.target}")
    elif isinstance(a, PythiaSpy) and a.hand:
        words.append("hand=" + ",".join(a.hand))
    elif isinstance(a, PythiaReveal):
        words.append(str(a.column))
        if a.cards:
            words.append("cards=" + ",".join(a.cards))
    elif isinstance(a, Hades):
        words.append(a.card)
    elif isinstance(a, Dionysus):
        words.append(f"{a.src[0]}.{a.src[1]}>{a.dst[0]}.{a.dst[1]}")
    elif isinstance(a, God):
        words.append(str(a.column))
    elif isinstance(a, Starter):
        words.append(a.player.key)
    elif isinstance(a, Deal | FirstRow | Redeal):
        words += [a.player.key, ",".join(a.cards) if a.cards else "-"]
        if isinstance(a, Redeal):
            words += [f"{k}={','.join(v)}" for k, v in (("shown", a.shown), ("deck", a.deck)) if v]
    elif isinstance(a, Redraw):
        words.append(a.player.key)
        if a.card:
            words.append(f"card={a.card}")
        if a.at is not None:
            words.append(f"at={a.at}")
    for p, names in getattr(a, "order", ()):
        words.append(f"order.{p.key}=" + (",".join(names) if names else "-"))
    by = getattr(a, "by", None)
    if by is not None:
        words.append(f"by={by.key}")
    return " ".join(words)


def parse_action_text(text: str) -> Action:
    """Reads the text form (see the module docstring). Raises NotationError."""
    words = text.split()
    if not words:
        raise NotationError(Say("empty action"), "action")
    kw: dict[str, str] = {}
    pos: list[str] = []
    for w in words[1:]:
        if "=" in w:
            k, _, v = w.partition("=")
            kw[k] = v
        else:
            pos.append(w)
    head = words[0]
    raw: dict[str, Any] = {}

    def need(n: int) -> None:
        if len(pos) < n:
            raise NotationError(
                Say(
                    "'%(word)s' needs %(count)s more word(s): %(text)s",
                    word=head,
                    count=n,
                    text=repr(text),
                ),
                "action",
            )

    def num(s: str) -> int:
        try:
            return int(s)
        except ValueError:
            raise NotationError(
                Say("not a number: %(value)s in %(text)s", value=repr(s), text=repr(text)),
                "action",
            ) from None

    def lst(s: str) -> list[str]:
        return [] if s == "-" else [x for x in s.split(",") if x]

    def cp(s: str) -> list[int]:
        c, _, p = s.partition(".")
        return [num(c), num(p)] if p else [num(c)]

    if head == "draw":
        raw = {"do": "draw"}
        if pos:
            raw["card"] = pos[0]
    elif head == "play":
        need(2)
        raw = {"do": "play", "card": pos[0], "column": cp(pos[1])[0]}
        if len(cp(pos[1])) == 2:
            raw["position"] = cp(pos[1])[1]
    elif head == "challenge":
        need(1)
        raw = {"do": "challenge", "column": num(pos[0])}
        rv = {k: kw.pop(k) for k in ("attacker", "defender") if k in kw}
        if rv:
            raw["reveal"] = rv
    elif head == "pegasus":
        need(1)
        target = pos[0].replace("-", "_")
        raw = {"do": "pegasus", "target": target}
        if target == "hand":
            if "pick" in kw:
                raw["pick"] = kw.pop("pick")
            if "place" in kw:
                raw["place"] = num(kw.pop("place"))
        elif target == "field":
            need(2)
            raw["column"] = num(pos[1])
            if "target" in kw:
                raw["reveal"] = {"target": kw.pop("target")}
    elif head == "pythia":
        need(1)
        raw = {"do": "pythia", "mode": pos[0]}
        if pos[0] == "spy" and "hand" in kw:
            raw["reveal"] = {"hand": lst(kw.pop("hand"))}
        if pos[0] == "reveal":
            need(2)
            raw["column"] = num(pos[1])
            if "cards" in kw:
                raw["reveal"] = {"cards": lst(kw.pop("cards"))}
    elif head in ("sirens", "persephone"):
        raw = {"do": head}
    elif head == "hades":
        need(1)
        raw = {"do": "hades", "card": pos[0]}
    elif head == "dionysus":
        need(1)
        a, _, b = pos[0].partition(">")
        raw = {"do": "dionysus", "from": cp(a), "to": cp(b)}
    elif head == "god":
        need(1)
        raw = {"do": "god", "column": num(pos[0])}
    elif head == "remove-figure":
        raw = {"do": "remove_figure"}
    elif head == "end":
        raw = {"do": "end_turn"}
    elif head == "declare-stuck":
        raw = {"do": "declare_stuck"}
    elif head == "starter":
        need(1)
        raw = {"do": "starter", "player": pos[0]}
    elif head in ("deal", "first-row", "redeal"):
        need(2)
        raw = {"do": head.replace("-", "_"), "player": pos[0], "cards": lst(pos[1])}
        if head == "redeal":
            raw.update({k: lst(kw.pop(k)) for k in ("shown", "deck") if k in kw})
    elif head == "redraw":
        need(1)
        raw = {"do": "redraw", "player": pos[0]}
        if "card" in kw:
            raw["card"] = kw.pop("card")
        if "at" in kw:
            raw["at"] = num(kw.pop("at"))
    else:
        raise NotationError(Say("unknown action %(value)s", value=repr(head)), "action")
    order = {k.partition(".")[2]: lst(kw.pop(k)) for k in list(kw) if k.startswith("order.")}
    if order:
        raw["order"] = order
    if "by" in kw:
        raw["by"] = kw.pop("by")
    if kw:
        raise NotationError(
            Say(
                "unknown option(s) %(options)s in %(text)s",
                options=sorted(kw),
                text=repr(text),
            ),
            "action",
        )
    return parse_action(raw, "action")
