"""The two decks: players, card kinds, the catalogue of printed values, and card identities.

The catalogue is data (``data/<deck>.toml`` beside this module), loaded and validated once.
Values that no
source confirms are marked unconfirmed there; a kit or a ruling file may override strengths and
copies (RULES.md, "The card catalogue").

Raises :class:`engine.herazeus.errors.CatalogueError` when a data file or an override is invalid.
"""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

from engine.herazeus.errors import CatalogueError, NotationError
from engine.herazeus.names import card_name
from engine.say import Say

HAND_LIMIT = 12  # D18
COLUMNS = 3
COLUMN_DEPTH = 4  # D10: a column holds at most four entries, the figure counting as one
DECK_SIZE = 43
UNKNOWN = "?"  # D20: a card the referee does not know


class Player(enum.IntEnum):
    """The two sides. The integer value indexes per-player tuples."""

    HERA = 0
    ZEUS = 1

    @property
    def other(self) -> Player:
        return Player.ZEUS if self is Player.HERA else Player.HERA

    @property
    def key(self) -> str:
        """The lower-case name used in notation and JSON: ``hera`` or ``zeus``."""
        return "hera" if self is Player.HERA else "zeus"

    @property
    def title(self) -> str:
        return "Hera" if self is Player.HERA else "Zeus"

    @classmethod
    def parse(cls, text: str) -> Player:
        """Parses ``hera``/``zeus`` (any case). Raises ValueError otherwise."""
        low = text.lower() if isinstance(text, str) else ""
        if low == "hera":
            return cls.HERA
        if low == "zeus":
            return cls.ZEUS
        raise ValueError(f"not a player: {text!r} (expected 'hera' or 'zeus')")


class Kind(enum.Enum):
    """What a card is, as far as the rules care."""

    PLAIN = "plain"  # a strength and nothing else
    MYTH = "myth"  # a strength and a myth symbol (Amazon/Hero, Pegasus, Pythia, Medusa, Pandora)
    MYTH_ONLY = "myth_only"  # a power only; never on the field (Sirens, Hades, ...)
    HOSTAGE = "hostage"  # Io / Argus: no strength, may be played to the field
    GOD = "god"  # the Hera / Zeus card: a power only, places the figure


@dataclass(frozen=True, slots=True)
class CardInfo:
    """The printed facts of one card name in one deck."""

    name: str
    deck: Player
    kind: Kind
    strength: int | None
    copies: int
    beats_medusa: bool = False
    unconfirmed: frozenset[str] = frozenset()

    @property
    def can_be_played(self) -> bool:
        """D10: any card with a printed strength, and the hostage, may go to the field."""
        return self.kind not in (Kind.MYTH_ONLY, Kind.GOD)

    @property
    def has_myth_symbol(self) -> bool:
        return self.kind in (Kind.MYTH, Kind.MYTH_ONLY, Kind.GOD)


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card as the rules track it: its name and the deck it came from.

    ``origin`` differs from the holder only for a card taken by Sirens (D13). ``name`` is
    ``"?"`` for a card the referee does not know (D20).
    """

    name: str
    origin: Player

    @property
    def is_unknown(self) -> bool:
        return self.name == UNKNOWN

    def notation(self, holder: Player) -> str:
        """The name as written on ``holder``'s side: ``Pegasus/zeus`` when foreign."""
        if self.origin is holder or self.is_unknown:
            return self.name
        return f"{self.name}/{self.origin.key}"

    def __str__(self) -> str:
        return f"{self.name}/{self.origin.key}"


@cache
def card(name: str, origin: Player) -> Card:
    """The interned :class:`Card` for a name and origin (identical objects compare fast)."""
    return Card(name, origin)


def unknown(origin: Player) -> Card:
    return card(UNKNOWN, origin)


HOSTAGE_NAME = {Player.HERA: "Io", Player.ZEUS: "Argus"}
GOD_CARD_NAME = {Player.HERA: "Hera", Player.ZEUS: "Zeus"}
POWERFUL = frozenset({"Nemesis", "Poseidon"})  # the cards Pythia defeats (D3, D12)


class Catalogue:
    """Printed values of both decks, with optional overrides. Immutable once built."""

    __slots__ = ("_by_deck", "_sig", "_strength", "provisional")

    def __init__(self, decks: Mapping[Player, Mapping[str, CardInfo]], provisional: bool) -> None:
        self._by_deck: dict[Player, dict[str, CardInfo]] = {p: dict(decks[p]) for p in Player}
        # name -> strength, for the hot path (both decks share names for shared cards).
        self._strength: dict[str, int | None] = {}
        for p in Player:
            for info in self._by_deck[p].values():
                self._strength[info.name] = info.strength
        self.provisional = provisional
        # What the rules read (not which values are confirmed): equal catalogues rule alike, so
        # a position read back from its notation equals the state it was written from.
        self._sig = tuple(
            (p, i.name, i.kind, i.strength, i.copies, i.beats_medusa)
            for p in Player
            for i in sorted(self._by_deck[p].values(), key=lambda i: i.name)
        )
        for p in Player:
            total = sum(i.copies for i in self._by_deck[p].values())
            if total != DECK_SIZE:
                raise CatalogueError(
                    Say(
                        "%(player)s's deck lists %(count)s cards, not %(size)s",
                        player=p.title,
                        count=total,
                        size=DECK_SIZE,
                    )
                )

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Catalogue) and self._sig == other._sig)

    def __hash__(self) -> int:
        return hash(self._sig)

    def info(self, name: str, deck: Player) -> CardInfo:
        """The card ``name`` of ``deck``. Raises KeyError when the deck has no such card."""
        return self._by_deck[deck][name]

    def has(self, name: str, deck: Player) -> bool:
        return name in self._by_deck[deck]

    def names(self, deck: Player) -> list[str]:
        return list(self._by_deck[deck])

    def cards(self, deck: Player) -> list[CardInfo]:
        return list(self._by_deck[deck].values())

    def strength(self, c: Card) -> int | None:
        return self._strength.get(c.name)

    def kind(self, c: Card) -> Kind:
        return self._by_deck[c.origin][c.name].kind

    def all_names(self) -> frozenset[str]:
        return frozenset(self._strength)

    def deck_list(self, deck: Player) -> list[Card]:
        """Every card of the deck, one entry per copy, in catalogue order."""
        return [card(i.name, deck) for i in self._by_deck[deck].values() for _ in range(i.copies)]

    def with_overrides(
        self,
        strengths: Mapping[str, int] | None = None,
        copies: Mapping[tuple[Player, str], int] | None = None,
        provisional: bool | None = None,
    ) -> Catalogue:
        """A new catalogue with strengths (by name, both decks) and copies replaced.

        Raises CatalogueError for an unknown name, a strength outside 0..7 on a card that has
        none printed, or copies that no longer add up to 43.
        """
        decks = {p: dict(self._by_deck[p]) for p in Player}
        for name, value in (strengths or {}).items():
            found = False
            for p in Player:
                info = decks[p].get(name)
                if info is None:
                    continue
                found = True
                if info.strength is None:
                    raise CatalogueError(
                        Say(
                            "%(card)s has no printed strength; it cannot be overridden",
                            card=card_name(name),
                        )
                    )
                if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 7:
                    raise CatalogueError(
                        Say(
                            "strength of %(card)s must be a whole number 0..7, not %(value)s",
                            card=card_name(name),
                            value=repr(value),
                        )
                    )
                decks[p][name] = replace(
                    info, strength=value, unconfirmed=info.unconfirmed - {"strength"}
                )
            if not found:
                raise CatalogueError(
                    Say("unknown card %(text)s in the catalogue overrides", text=repr(name))
                )
        for (p, name), n in (copies or {}).items():
            info = decks[p].get(name)
            if info is None:
                raise CatalogueError(
                    Say(
                        "%(card)s is not in %(player)s's deck", card=card_name(name), player=p.title
                    )
                )
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise CatalogueError(
                    Say(
                        "copies of %(card)s must be a whole number ≥ 0, not %(value)s",
                        card=card_name(name),
                        value=repr(n),
                    )
                )
            decks[p][name] = replace(info, copies=n, unconfirmed=info.unconfirmed - {"copies"})
        still = any(i.unconfirmed for p in Player for i in decks[p].values())
        return Catalogue(decks, self.provisional and still if provisional is None else provisional)


def _load_deck(player: Player) -> tuple[dict[str, CardInfo], bool]:
    text = (
        resources.files("engine.herazeus").joinpath("data", f"{player.key}.toml").read_text("utf-8")
    )
    data = tomllib.loads(text)
    if data.get("deck") != player.key:
        raise CatalogueError(f"{player.key}.toml does not describe {player.title}'s deck")
    out: dict[str, CardInfo] = {}
    any_unconfirmed = False
    for row in data.get("card", []):
        name = row["name"]
        kind = Kind(row["kind"])
        strength = row.get("strength")
        has_strength = kind in (Kind.PLAIN, Kind.MYTH)
        if has_strength != (strength is not None):
            raise CatalogueError(
                f"{player.key}.toml: {name} of kind {kind.value} has strength {strength}"
            )
        if strength is not None and not 0 <= strength <= 7:
            raise CatalogueError(f"{player.key}.toml: {name} strength {strength} outside 0..7")
        if name in out:
            raise CatalogueError(f"{player.key}.toml: {name} listed twice")
        unconfirmed = frozenset(row.get("unconfirmed", ()))
        any_unconfirmed = any_unconfirmed or bool(unconfirmed)
        out[name] = CardInfo(
            name=name,
            deck=player,
            kind=kind,
            strength=strength,
            copies=int(row["copies"]),
            beats_medusa=bool(row.get("beats_medusa", False)),
            unconfirmed=unconfirmed,
        )
    for required, kind in ((HOSTAGE_NAME[player], Kind.HOSTAGE), (GOD_CARD_NAME[player], Kind.GOD)):
        if required not in out or out[required].kind is not kind:
            raise CatalogueError(f"{player.key}.toml must list {required} as {kind.value}")
    return out, any_unconfirmed


@cache
def default_catalogue() -> Catalogue:
    """The project's default list. It is provisional: see the data files' headers."""
    decks: dict[Player, Mapping[str, CardInfo]] = {}
    provisional = False
    for p in Player:
        decks[p], unconfirmed = _load_deck(p)
        provisional = provisional or unconfirmed
    return Catalogue(decks, provisional)


def deck_of_name(name: str) -> list[Player]:
    """The decks that hold a card of this name (both for shared cards)."""
    cat = default_catalogue()
    return [p for p in Player if cat.has(name, p)]


def parse_card(cat: Catalogue, text: str, holder: Player, where: str | None = None) -> Card:
    """Reads ``Name`` (holder's own card), ``Name/zeus`` (a card of that deck) or ``?``.

    Raises NotationError for a name no deck has, or one the named deck does not hold.
    """
    if text == UNKNOWN:
        return unknown(holder)
    name, sep, deck = text.partition("/")
    origin = holder
    if sep:
        try:
            origin = Player.parse(deck)
        except ValueError:
            raise NotationError(
                Say("unknown deck %(deck)s in card %(text)s", deck=repr(deck), text=repr(text)),
                where,
            ) from None
    if not cat.has(name, origin):
        if name in cat.all_names():
            other = origin.other
            said = (
                Say(
                    "%(card)s is not a card of %(player)s's deck; a card of %(other)s's deck "
                    "taken by Sirens is written %(written)s",
                    card=card_name(name),
                    player=origin.title,
                    other=other.title,
                    written="/".join((name, other.key)),
                )
                if cat.has(name, other)
                else Say(
                    "%(card)s is not a card of %(player)s's deck",
                    card=card_name(name),
                    player=origin.title,
                )
            )
            raise NotationError(said, where)
        raise NotationError(Say("unknown card %(text)s", text=repr(text)), where)
    return card(name, origin)


def said_card(c: Card, holder: Player) -> str:
    """A card as ``holder``'s side writes it (:meth:`Card.notation`), its name said per
    language: ``Pegasus``, or ``Pegasus/zeus`` for a card of the other deck."""
    if c.origin is holder or c.is_unknown:
        return card_name(c.name)
    return Say("%(card)s/%(deck)s", card=card_name(c.name), deck=c.origin.key)


def written(text: str, c: Card, holder: Player) -> str:
    """What a player wrote for ``c`` (``text``), said per language when it is exactly the
    card's notation; else (another spelling) his words as written."""
    said = said_card(c, holder)
    return said if said == text else text
