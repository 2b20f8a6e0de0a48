"""The position notation of POSITIONS.md: read (checked) and write (exact round trip).

:func:`read_position` raises :class:`NotationError` naming the offending key for every malformed
input POSITIONS.md lists: an unknown key, card, profile or switch; not exactly three columns; a
column over four entries; more than one figure on a side; a hand over twelve; negative counts
or a deck of more than 43; ``ap`` outside 0-4 or ``used`` above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.herazeus.cards import (
    COLUMN_DEPTH,
    COLUMNS,
    DECK_SIZE,
    HAND_LIMIT,
    Card,
    Catalogue,
    Player,
    default_catalogue,
    parse_card,
    unknown,
)
from engine.herazeus.errors import CatalogueError, NotationError
from engine.herazeus.names import card_name
from engine.herazeus.profiles import Profile, Ruleset, parse_profile, parse_switches
from engine.herazeus.state import FIGURE, GameState, Phase, Side, Slot, slot
from engine.say import Say

POSITION_KEYS = frozenset({"profile", "switches", "catalogue", "turn", "hera", "zeus"})
FILE_KEYS = POSITION_KEYS | {"actions", "id", "source", "note", "expect"}
SIDE_KEYS = frozenset({"hand", "deck", "field", "discard"})
TURN_KEYS = frozenset({"player", "first", "ap", "used"})
MAX_AP = 4  # D7: a turn never has more than four action points


def _is_count(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def read_catalogue(raw: object, where: str = "catalogue") -> Catalogue:
    """Strength overrides ``{"Cyclops": 5}`` on top of the default list."""
    base = default_catalogue()
    if raw is None:
        return base
    if not isinstance(raw, Mapping):
        raise NotationError(Say("must be an object of card names to strengths"), where)
    try:
        return base.with_overrides(strengths=dict(raw))
    except CatalogueError as e:
        raise NotationError(e.args[0] if e.args else str(e), where) from None


def read_ruleset(raw: Mapping[str, Any]) -> Ruleset:
    profile = parse_profile(raw.get("profile", Profile.RIO_GRANDE.value))
    switches = parse_switches(raw.get("switches"))
    return Ruleset.build(profile, switches, read_catalogue(raw.get("catalogue")))


def _card(text: object, holder: Player, cat: Catalogue, where: str) -> Card:
    if not isinstance(text, str) or not text:
        raise NotationError(Say("must be a card name, not %(value)s", value=repr(text)), where)
    return parse_card(cat, text, holder, where)


def _cards(
    raw: object, holder: Player, cat: Catalogue, where: str, allow_unknown: bool
) -> list[Card]:
    if not isinstance(raw, list):
        raise NotationError(Say("must be a list of card names"), where)
    out = []
    for i, t in enumerate(raw):
        c = _card(t, holder, cat, f"{where}[{i}]")
        if c.is_unknown and not allow_unknown:
            raise NotationError(
                Say("cards here are face up and must be named, not '?'"), f"{where}[{i}]"
            )
        out.append(c)
    return out


def _field_entry(text: object, holder: Player, cat: Catalogue, where: str) -> Slot:
    if text == "@":
        return FIGURE
    up = isinstance(text, str) and text.startswith("^")
    body = text[1:] if up and isinstance(text, str) else text
    c = _card(body, holder, cat, where)
    if c.is_unknown and up:
        raise NotationError(Say("a face-up card is always known: write its name after '^'"), where)
    if not c.is_unknown and not cat.info(c.name, c.origin).can_be_played:
        raise NotationError(
            Say("%(card)s never stands on the field (D10)", card=card_name(c.name)), where
        )
    return slot(c, up)


def read_side(raw: object, holder: Player, cat: Catalogue) -> Side:
    w = holder.key
    if not isinstance(raw, Mapping):
        raise NotationError(Say("must be an object with hand, deck, field, discard"), w)
    for k in raw:
        if k not in SIDE_KEYS:
            raise NotationError(
                Say(
                    "unknown key %(value)s (known: %(known)s)",
                    value=repr(k),
                    known=sorted(SIDE_KEYS),
                ),
                w,
            )
    hand = _cards(raw.get("hand", []), holder, cat, f"{w}.hand", allow_unknown=True)
    if len(hand) > HAND_LIMIT:
        raise NotationError(
            Say(
                "holds %(count)s cards; the hand limit is %(limit)s (D18)",
                count=len(hand),
                limit=HAND_LIMIT,
            ),
            f"{w}.hand",
        )
    deck_raw = raw.get("deck", 0)
    if _is_count(deck_raw):
        if not 0 <= deck_raw <= DECK_SIZE:
            raise NotationError(
                Say(
                    "a deck cannot hold %(count)s cards (0 to %(size)s)",
                    count=deck_raw,
                    size=DECK_SIZE,
                ),
                f"{w}.deck",
            )
        deck = [unknown(holder)] * deck_raw
    else:
        if isinstance(deck_raw, list) and len(deck_raw) > DECK_SIZE:
            raise NotationError(
                Say(
                    "lists %(count)s cards; a deck holds at most %(size)s",
                    count=len(deck_raw),
                    size=DECK_SIZE,
                ),
                f"{w}.deck",
            )
        deck = _cards(deck_raw, holder, cat, f"{w}.deck", allow_unknown=True)
        for i, c in enumerate(deck):
            if c.origin is not holder:
                raise NotationError(
                    Say(
                        "a deck holds only its owner's cards, not %(card)s",
                        card=Say("%(card)s/%(deck)s", card=card_name(c.name), deck=c.origin.key),
                    ),
                    f"{w}.deck[{i}]",
                )
    field_raw = raw.get("field", [[], [], []])
    if not isinstance(field_raw, list) or len(field_raw) != COLUMNS:
        n = len(field_raw) if isinstance(field_raw, list) else "no list"
        raise NotationError(
            Say("must be exactly %(columns)s columns, not %(value)s", columns=COLUMNS, value=n),
            f"{w}.field",
        )
    cols: list[tuple[Slot, ...]] = []
    figures = 0
    for ci, col in enumerate(field_raw):
        where = f"{w}.field[{ci}]"
        if not isinstance(col, list):
            raise NotationError(Say("a column must be a list"), where)
        if len(col) > COLUMN_DEPTH:
            raise NotationError(
                Say(
                    "holds %(count)s entries; a column holds at most %(depth)s (D10)",
                    count=len(col),
                    depth=COLUMN_DEPTH,
                ),
                where,
            )
        slots = tuple(_field_entry(t, holder, cat, f"{where}[{i}]") for i, t in enumerate(col))
        for i, s in enumerate(slots):
            if s.is_figure:
                figures += 1
                if i != 0:
                    raise NotationError(
                        Say("the figure stands only at the front of a column (D17)"),
                        f"{where}[{i}]",
                    )
        cols.append(slots)
    if figures > 1:
        raise NotationError(
            Say(
                "%(player)s has %(count)s figures on the field; there is one",
                player=holder.title,
                count=figures,
            ),
            f"{w}.field",
        )
    discard = _cards(raw.get("discard", []), holder, cat, f"{w}.discard", allow_unknown=False)
    return Side(tuple(hand), tuple(deck), (cols[0], cols[1], cols[2]), tuple(discard))


def read_position(raw: object, allowed: frozenset[str] = POSITION_KEYS) -> GameState:
    """A :class:`GameState` in play from the notation. Raises NotationError."""
    if not isinstance(raw, Mapping):
        raise NotationError(Say("a position must be a JSON object"))
    for k in raw:
        if k not in allowed:
            raise NotationError(Say("unknown key %(value)s", value=repr(k)), "position")
    rs = read_ruleset(raw)
    cat = rs.catalogue
    sides = (
        read_side(raw.get("hera"), Player.HERA, cat),
        read_side(raw.get("zeus"), Player.ZEUS, cat),
    )
    turn = raw.get("turn", {})
    if not isinstance(turn, Mapping):
        raise NotationError(Say("must be an object"), "turn")
    for k in turn:
        if k not in TURN_KEYS:
            raise NotationError(
                Say(
                    "unknown key %(value)s (known: %(known)s)",
                    value=repr(k),
                    known=sorted(TURN_KEYS),
                ),
                "turn",
            )
    try:
        player = Player.parse(turn.get("player", "hera"))
    except ValueError as e:
        raise NotationError(str(e), "turn.player") from None
    first = turn.get("first", False)
    if not isinstance(first, bool):
        raise NotationError(
            Say("must be true or false, not %(value)s", value=repr(first)), "turn.first"
        )
    ap = turn.get("ap")
    if ap is None:
        ap = sides[player].action_points()  # D7
    elif not _is_count(ap) or not 0 <= ap <= MAX_AP:
        raise NotationError(
            Say(
                "must be a whole number 0 to %(max)s (D7), not %(value)s",
                max=MAX_AP,
                value=repr(ap),
            ),
            "turn.ap",
        )
    used = turn.get("used", 0)
    if not _is_count(used) or used < 0:
        raise NotationError(
            Say("must be a whole number ≥ 0, not %(value)s", value=repr(used)), "turn.used"
        )
    if used > ap:
        raise NotationError(
            Say("%(used)s points used of %(ap)s: more than the turn has", used=used, ap=ap),
            "turn.used",
        )
    return GameState(
        rs,
        sides,
        phase=Phase.PLAY,
        player=player,
        first=first,
        ap=ap,
        used=used,
        started=(True, True),
    )


def _entry(s: Slot, holder: Player) -> str:
    if s.card is None:
        return "@"
    name = s.card.notation(holder)
    return f"^{name}" if s.up else name


def write_side(side: Side, holder: Player) -> dict[str, Any]:
    deck: int | list[str]
    if all(c.is_unknown for c in side.deck):
        deck = len(side.deck)
    else:
        deck = [c.notation(holder) for c in side.deck]
    return {
        "hand": [c.notation(holder) for c in side.hand],
        "deck": deck,
        "field": [[_entry(s, holder) for s in col] for col in side.field],
        "discard": [c.notation(holder) for c in side.discard],
    }


def catalogue_overrides(cat: Catalogue) -> dict[str, int]:
    """The strengths that differ from the default list (what a position file must carry)."""
    base = default_catalogue()
    out: dict[str, int] = {}
    for p in Player:
        for info in cat.cards(p):
            b = base.info(info.name, p).strength
            if info.strength is not None and info.strength != b:
                out[info.name] = info.strength
    return out


def write_position(st: GameState) -> dict[str, Any]:
    """The notation of ``st`` (POSITIONS.md). ``read_position(write_position(s)) == s`` for any
    state in play."""
    rs = st.ruleset
    out: dict[str, Any] = {"profile": rs.profile.value}
    if rs.overrides:
        out["switches"] = dict(rs.overrides)
    cat = catalogue_overrides(rs.catalogue)
    if cat:
        out["catalogue"] = cat
    out["turn"] = {"player": st.player.key, "first": st.first, "ap": st.ap, "used": st.used}
    out["hera"] = write_side(st.sides[Player.HERA], Player.HERA)
    out["zeus"] = write_side(st.sides[Player.ZEUS], Player.ZEUS)
    return out
