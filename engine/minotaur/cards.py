"""Minotaur Lords cards: the board's six columns, card types, and the owner's deck list.

No card list is in the sources, so none ships (issue 15): the owner types his cards into a
deck-list file, one row per card, for Miron (30), Vess (30) and the bonus deck (24). The
referee knows each card's name, deck, strength, phase, icons, type and whether its text is
active, passive or absent (M12); the words of the text are the owner's and are only shown.
"""

from __future__ import annotations

import csv
import enum
import io
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from engine.errors import CatalogueError
from engine.say import C_, Named

PLAYERS = ("miron", "vess")
DECKS = ("miron", "vess", "bonus")
DECK_SIZES = {"miron": 30, "vess": 30, "bonus": 24}
HAND_SIZE = 6  # a hand change draws back up to six (M1, M16)
MAX_DEITIES = 3  # M9
MAX_SET_ASIDE = 5  # M17
MAX_STRENGTH = 99
MAX_NAME = 40


def opponent(p: str) -> str:
    return "vess" if p == "miron" else "miron"


class Kind(enum.Enum):
    """A column's kind and a card's icons."""

    MILITARY = "military"
    ECONOMIC = "economic"
    RELIGIOUS = "religious"


class Region(enum.Enum):
    UPPER = "upper"
    LOWER = "lower"


@dataclass(frozen=True, order=True)
class Column:
    """One of the six columns: ``upper-military`` … ``lower-religious``."""

    region: Region
    kind: Kind

    @property
    def id(self) -> str:
        return f"{self.region.value}-{self.kind.value}"

    def __str__(self) -> str:
        return self.id

    @property
    def words(self) -> Named:
        """``the upper military column``, said per language in the context ``minotaur column``:
        the words a sentence sets after its own article or preposition ("nella %(column)s")."""
        return _COLUMN_WORDS[self.region.value, self.kind.value]


_COLUMN_WORDS: dict[tuple[str, str], Named] = {
    ("upper", "military"): C_("minotaur column", "the upper military column"),
    ("upper", "economic"): C_("minotaur column", "the upper economic column"),
    ("upper", "religious"): C_("minotaur column", "the upper religious column"),
    ("lower", "military"): C_("minotaur column", "the lower military column"),
    ("lower", "economic"): C_("minotaur column", "the lower economic column"),
    ("lower", "religious"): C_("minotaur column", "the lower religious column"),
}

COLUMNS: tuple[Column, ...] = tuple(Column(r, k) for r in Region for k in Kind)
COLUMN_IDS: dict[str, Column] = {c.id: c for c in COLUMNS}


class CardType(enum.Enum):
    SERVANT = "servant"  # M6
    BUILDING = "building"  # M7: enters with one curse token
    COMMANDER = "commander"  # M8: one per column and side
    DEITY = "deity"  # M9: the centre, at most three, one player's only
    FATE = "fate"  # M9: takes effect, then discarded

    @property
    def in_column(self) -> bool:
        return self in (CardType.SERVANT, CardType.BUILDING, CardType.COMMANDER)


class Text(enum.Enum):
    """A card's text as the referee knows it (M10): active ("Action: …"), passive, or none."""

    ACTIVE = "active"
    PASSIVE = "passive"
    NONE = "none"


class CardJson(TypedDict):
    """A card of a deck list as JSON (:meth:`CardDef.as_json`)."""

    name: str
    deck: str  # miron, vess or bonus
    strength: int
    phase: int  # 0, 1 or 2 (M3)
    icons: list[str]
    type: str
    text: str
    words: NotRequired[str]  # the owner's words for the text (M12)
    back: NotRequired[str]  # M18: "scarab" for a Scarab Lords card


@dataclass(frozen=True)
class CardDef:
    """One card as its deck list gives it."""

    name: str
    deck: str  # miron, vess or bonus: the deck it was printed for
    strength: int
    phase: int  # 0, 1 or 2 (M3)
    icons: frozenset[Kind]
    type: CardType
    text: Text
    words: str = ""  # the owner's words for the text; never read by the referee (M12)
    back: str = "minotaur"  # M18: "scarab" for a Scarab Lords card

    def fits(self, col: Column) -> bool:
        """Whether the card may be played into ``col`` (M6-M8: one of its icons)."""
        return self.type.in_column and col.kind in self.icons

    def as_json(self) -> CardJson:
        out: CardJson = {
            "name": self.name,
            "deck": self.deck,
            "strength": self.strength,
            "phase": self.phase,
            "icons": [k.value for k in Kind if k in self.icons],
            "type": self.type.value,
            "text": self.text.value,
        }
        if self.words:
            out["words"] = self.words
        if self.back != "minotaur":
            out["back"] = self.back
        return out


class Catalogue:
    """The cards of a game or a ruling file, by name. A name means one card; copies of a card
    share it (several rows with the same name must agree in everything)."""

    def __init__(self, cards: Iterable[CardDef]) -> None:
        self.cards: dict[str, CardDef] = {}
        self.copies: dict[str, int] = {}  # rows per name: the copies the deck list has
        for c in cards:
            old = self.cards.get(c.name)
            if old is not None and old != c:
                raise CatalogueError(f"card {c.name!r} is listed twice with different values")
            self.cards[c.name] = c
            self.copies[c.name] = self.copies.get(c.name, 0) + 1

    def __contains__(self, name: object) -> bool:
        return name in self.cards

    def __getitem__(self, name: str) -> CardDef:
        return self.cards[name]

    def names(self, deck: str | None = None) -> list[str]:
        return sorted(n for n, c in self.cards.items() if deck is None or c.deck == deck)

    def as_json(self) -> list[CardJson]:
        """One entry per card name."""
        return [self.cards[n].as_json() for n in sorted(self.cards)]

    def rows_json(self) -> list[CardJson]:
        """One entry per copy, as the deck list has them (what a ruling file's ``cards``
        holds)."""
        return [self.cards[n].as_json() for n in sorted(self.cards) for _ in range(self.copies[n])]


# ---- one card from JSON (ruling files, create records) --------------------------------------

_CARD_KEYS = {"name", "deck", "strength", "phase", "icons", "type", "text", "words", "back"}


def card_from_json(raw: object, where: str) -> CardDef:
    """A card from its JSON object. Raises NotationError naming ``where``."""
    from engine.errors import NotationError

    if not isinstance(raw, dict):
        raise NotationError(
            "a card is an object with name, deck, strength, phase, icons, type, text", where
        )
    extra = set(raw) - _CARD_KEYS
    if extra:
        raise NotationError(f"unknown key {sorted(extra)[0]!r}", where)
    try:
        return make_card(
            name=raw.get("name"),
            deck=raw.get("deck"),
            strength=raw.get("strength", 0),
            phase=raw.get("phase"),
            icons=raw.get("icons", []),
            type_=raw.get("type"),
            text=raw.get("text", "none"),
            words=raw.get("words", ""),
            back=raw.get("back", "minotaur"),
        )
    except CatalogueError as e:
        raise NotationError(str(e), where) from None


def control_in(s: str) -> str | None:
    """The first control character of ``s`` (Unicode category Cc: NUL, tab, escape, DEL…)
    as ``U+0000``, or None. No printed card holds one; a deck list or a card refuses it."""
    for ch in s:
        if unicodedata.category(ch) == "Cc":
            return f"U+{ord(ch):04X}"
    return None


def make_card(
    *,
    name: object,
    deck: object,
    strength: object,
    phase: object,
    icons: object,
    type_: object,
    text: object,
    words: object = "",
    back: object = "minotaur",
) -> CardDef:
    """A checked card. Raises CatalogueError saying which field is wrong and why."""
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise CatalogueError(f"name: a card's name is 1 to {MAX_NAME} characters")
    name = name.strip()
    bad = control_in(name)
    if bad:
        raise CatalogueError(f"name {name!r}: control character {bad} is not allowed")
    if any(ch in name for ch in '?()[]{}*"'):
        raise CatalogueError(f"name {name!r}: may not contain ? ( ) [ ] {{ }} * or quotes")
    if deck not in DECKS:
        raise CatalogueError(f"deck {str(deck)[:20]!r}: one of {', '.join(DECKS)}")
    if (
        isinstance(strength, bool)
        or not isinstance(strength, int)
        or not 0 <= strength <= MAX_STRENGTH
    ):
        raise CatalogueError(f"strength {str(strength)[:20]!r}: a whole number 0-{MAX_STRENGTH}")
    if isinstance(phase, bool) or phase not in (0, 1, 2):
        raise CatalogueError(f"phase {str(phase)[:20]!r}: 0, 1 or 2 (M3)")
    if not isinstance(icons, (list, tuple, frozenset, set)):
        raise CatalogueError("icons: a list of military, economic, religious")
    kinds: set[Kind] = set()
    for i in icons:
        try:
            kinds.add(Kind(i))
        except ValueError:
            raise CatalogueError(
                f"icon {str(i)[:20]!r}: one of military, economic, religious"
            ) from None
    try:
        ctype = CardType(type_)
    except ValueError:
        raise CatalogueError(
            f"type {str(type_)[:20]!r}: one of {', '.join(t.value for t in CardType)}"
        ) from None
    if ctype.in_column and not kinds:
        raise CatalogueError(f"icons: a {ctype.value} needs at least one icon (M6-M8)")
    if ctype is CardType.FATE and kinds:
        shown = "+".join(k.value for k in Kind if k in kinds)
        raise CatalogueError(
            f"icons {shown!r}: a fate card has no column icons; it is never played into a "
            "column, it takes effect at once and is discarded (M9, ML-P9)"
        )
    try:
        ctext = Text(text)
    except ValueError:
        raise CatalogueError(f"text {str(text)[:20]!r}: active, passive or none (M10)") from None
    if not isinstance(words, str) or len(words) > 500:
        raise CatalogueError("words: the card's text, up to 500 characters")
    bad = control_in(words)
    if bad:
        raise CatalogueError(f"words: control character {bad} is not allowed")
    if back not in ("minotaur", "scarab"):
        raise CatalogueError(f"back {str(back)[:20]!r}: minotaur or scarab (M18)")
    return CardDef(
        name, str(deck), strength, phase, frozenset(kinds), ctype, ctext, words, str(back)
    )


# ---- the deck-list file -------------------------------------------------------------------

FIELDS = ("deck", "name", "strength", "phase", "icons", "type", "text", "words", "back")

INSTRUCTIONS = """\
# Minotaur Lords deck list: one row per card, 30 Miron, 30 Vess and 24 bonus cards.
# The referee ships no card list: type your own cards in from the printed cards.
#
#   deck      miron, vess or bonus (already filled in)
#   name      the card's title as printed (1-40 characters; copies of a card repeat the row)
#   strength  the printed strength, a whole number (0 for a deity or fate without one)
#   phase     0, 1 or 2: the phase the card is played, activated and cured in (M3)
#   icons     the column icons joined by +, e.g. military+economic (may be empty for a
#             deity; always empty for a fate card, which never enters a column, M9)
#   type      servant, building, commander, deity or fate
#   text      active (the text begins "Action:"), passive (any other text) or none (M10)
#   words     optional: the card's text in your words; the referee shows it, never reads it
#   back      optional: scarab for a Scarab Lords card (M18); empty means minotaur
#
# Lines starting with # are ignored. Then give the file to the referee:
#   referee serve, "New game", Minotaur Lords, the deck list.
"""


def template() -> str:
    """An empty deck-list file: the instructions, the header and 30 + 30 + 24 rows."""
    out = io.StringIO()
    out.write(INSTRUCTIONS)
    w = csv.writer(out, lineterminator="\n")
    w.writerow(FIELDS)
    for deck in DECKS:
        for _ in range(DECK_SIZES[deck]):
            w.writerow([deck] + [""] * (len(FIELDS) - 1))
    return out.getvalue()


def deck_list_text(cards: Iterable[CardDef]) -> str:
    """A deck-list file holding ``cards`` (what :func:`parse_deck_list` reads back)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(FIELDS)
    for c in cards:
        icons = "+".join(k.value for k in Kind if k in c.icons)
        back = "" if c.back == "minotaur" else c.back
        w.writerow(
            [c.deck, c.name, c.strength, c.phase, icons, c.type.value, c.text.value, c.words, back]
        )
    return out.getvalue()


MAX_LIST_BYTES = 200_000
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _check_controls(no: int, cells: list[str], header: list[str] | None) -> None:
    """Refuses a control character in a row's cells (but the tabs and spaces around a cell,
    which are trimmed), naming the line and the field."""
    for i, cell in enumerate(cells):
        bad = control_in(cell.strip(" \t"))
        if bad is None:
            continue
        if header is None:
            field = "the header"
        elif i < len(header):
            field = header[i]
        else:
            field = f"field {i + 1}"
        raise CatalogueError(f"line {no}: {field}: control character {bad} is not allowed")


def parse_deck_list(text: str, sizes: Mapping[str, int] = DECK_SIZES) -> list[CardDef]:
    """Every card of a deck-list file, in row order: the one reader of deck lists, for the
    command line, the API, the home page and ``referee serve --demo`` alike. Lines end with
    LF, CRLF or CR and are numbered as an editor numbers them. Raises CatalogueError naming
    the row (the file's line number) and the field."""
    if len(text) > MAX_LIST_BYTES:
        raise CatalogueError(f"deck list: over {MAX_LIST_BYTES} characters")
    lines = _LINE_BREAK.split(text)
    rows = []
    for i, line in enumerate(lines):
        if line.lstrip(" \t").startswith("#"):
            bad = control_in(line.replace("\t", " "))
            if bad:
                raise CatalogueError(
                    f"line {i + 1}: a comment: control character {bad} is not allowed"
                )
        elif line.strip(" \t"):
            rows.append((i + 1, line))
    if not rows:
        raise CatalogueError(
            "deck list: no header row (deck,name,strength,phase,icons,type,text,...)"
        )
    header_no, header_line = rows[0]
    header_cells = next(csv.reader([header_line]))
    _check_controls(header_no, header_cells, None)
    header = [h.strip().lower() for h in header_cells]
    missing = [f for f in FIELDS[:7] if f not in header]
    unknown = [h for h in header if h not in FIELDS]
    if missing or unknown:
        what = f"lacks {', '.join(missing)}" if missing else f"has unknown column {unknown[0]!r}"
        raise CatalogueError(f"line {header_no}: the header {what} (columns: {', '.join(FIELDS)})")
    cards: list[CardDef] = []
    for no, line in rows[1:]:
        cells = next(csv.reader([line]))
        _check_controls(no, cells, header)
        if len(cells) > len(header):
            raise CatalogueError(f"line {no}: {len(cells)} fields, the header has {len(header)}")
        row = dict(
            zip(header, [c.strip() for c in cells] + [""] * (len(header) - len(cells)), strict=True)
        )
        try:
            cards.append(_card_of_row(row))
        except CatalogueError as e:
            label = f" ({row.get('deck', '')} {row.get('name', '')!r})" if row.get("name") else ""
            raise CatalogueError(f"line {no}{label}: {e}") from None
    try:
        Catalogue(cards)
    except CatalogueError as e:
        raise CatalogueError(f"deck list: {e}") from None
    for deck, n in sizes.items():
        have = sum(c.deck == deck for c in cards)
        if have != n:
            raise CatalogueError(f"deck list: the {deck} deck has {have} cards; it must have {n}")
    return cards


def _card_of_row(row: Mapping[str, str]) -> CardDef:
    def whole(field: str, default: int | None = None) -> object:
        v = row.get(field, "")
        if v == "" and default is not None:
            return default
        if v == "":
            raise CatalogueError(f"{field} is empty")
        try:
            return int(v)
        except ValueError:
            return v

    if not row.get("name"):
        raise CatalogueError("name is empty (every row is one card)")
    if not row.get("type"):
        raise CatalogueError("type is empty")
    ctype = row["type"].lower()
    no_strength = ctype in ("deity", "fate")
    icons = [
        i.strip().lower() for i in row.get("icons", "").replace("/", "+").split("+") if i.strip()
    ]
    return make_card(
        name=row["name"],
        deck=row.get("deck", "").lower(),
        strength=whole("strength", 0 if no_strength else None),
        phase=whole("phase"),
        icons=icons,
        type_=ctype,
        text=(row.get("text") or "").lower(),
        words=row.get("words", ""),
        back=(row.get("back") or "minotaur").lower(),
    )
