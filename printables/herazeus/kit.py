"""A sticker kit: one owner's two physical decks, each card with its own face code.

A :class:`Kit` holds a kit id and secret (see :mod:`printables.herazeus.payload`), the owner's
deck lists (for every card name its printed strength and number of copies), one :class:`Sticker` per
physical card (serial 1..43 within its deck, in deck-list order), what was printed (paper,
code size) and the mat's geometry. It is saved as ``kit.json``; that file is the only place
the secret lives, so keep it with the referee and never publish it.

The deck lists start from the provisional catalogue (``engine/herazeus/data/*.toml``).
An owner confirms
them with a **deck list file** (TOML, or the same structure in JSON)::

    # decks.toml: every card of both decks; strength only for cards that print one
    [hera]
    Io = { copies = 1 }
    Nemesis = { strength = 7, copies = 2 }
    ...
    [zeus]
    Argus = { copies = 1 }
    ...

Every card name of both decks must be listed (``copies = 0`` for a card the deck lacks), each
deck must total 43 cards (RULES.md, "The card catalogue"), and a card both decks hold must
print the same strength in both. A kit built from such a file is **confirmed** (not
provisional); a kit built from the default list says everywhere that it is provisional.

Errors: :class:`KitError` (a ValueError) names the input and the rule; codes that are not this
kit's raise :class:`printables.herazeus.payload.PayloadError`.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.herazeus.cards import DECK_SIZE, Catalogue, Player, default_catalogue
from printables.herazeus.mat import MatGeometry, parse_mat, standard_mat
from printables.herazeus.payload import (
    DECK_LETTER,
    Deck,
    PayloadError,
    face_payload,
    new_kit_id,
    new_kit_secret,
    parse_face,
)
from printables.kits import (  # shared by every game's kit (re-exported)
    BACK_MARKER_MM,
    DEFAULT_CODE_MM,
    KIT_FILE,
    MAX_KIT_JSON_BYTES,
    QUIET_MODULES,
    KitError,
    PrintOptions,
)

FORMAT = "herazeus-kit/1"
DECKS: tuple[Deck, Deck] = ("hera", "zeus")
MAX_DECK_FILE_BYTES = 64 * 1024
MAX_NAME = 40


@dataclass(frozen=True, slots=True)
class DeckEntry:
    """One card name of a deck as the owner's cards print it."""

    name: str
    strength: int | None
    copies: int


@dataclass(frozen=True, slots=True)
class Sticker:
    """The face sticker of one physical card."""

    deck: Deck
    serial: int
    card: str
    payload: str


@dataclass(frozen=True)
class Kit:
    """One printed kit. Build with :meth:`create`, read with :meth:`from_json`."""

    kit_id: str
    secret: str
    created: str  # ISO 8601, UTC
    decks: Mapping[Deck, tuple[DeckEntry, ...]]
    provisional: bool
    options: PrintOptions = field(default_factory=PrintOptions)
    mat: MatGeometry = field(default_factory=standard_mat)

    # -- building -------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        decks: Mapping[Deck, tuple[DeckEntry, ...]] | None = None,
        *,
        provisional: bool | None = None,
        options: PrintOptions | None = None,
        kit_id: str | None = None,
        secret: str | None = None,
        now: datetime | None = None,
    ) -> Kit:
        """A new kit with a fresh id and secret. Without ``decks``, the provisional list.

        Raises KitError when a deck list breaks a rule (see :func:`check_decks`).
        """
        if decks is None:
            decks = provisional_decks()
            provisional = True if provisional is None else provisional
        check_decks(decks, "deck list")
        when = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
        return cls(
            kit_id=kit_id or new_kit_id(),
            secret=secret or new_kit_secret(),
            created=when.isoformat().replace("+00:00", "Z"),
            decks={d: tuple(decks[d]) for d in DECKS},
            provisional=bool(provisional),
            options=options or PrintOptions(),
        )

    # -- what it says -----------------------------------------------------------------------

    @property
    def stickers(self) -> tuple[Sticker, ...]:
        """Every face sticker: Hera's 43 then Zeus's 43, serial 1..43 in deck-list order."""
        out: list[Sticker] = []
        for deck in DECKS:
            serial = 0
            for e in self.decks[deck]:
                for _ in range(e.copies):
                    serial += 1
                    out.append(
                        Sticker(
                            deck,
                            serial,
                            e.name,
                            face_payload(self.kit_id, self.secret, deck, serial),
                        )
                    )
        return tuple(out)

    def card_for(self, payload: str) -> tuple[Deck, str, int]:
        """The (deck, card name, serial) a decoded face code names.

        Raises PayloadError for a code that is not a Hera & Zeus code, belongs to another kit,
        fails its check (misprint or fake), or names a serial this kit never printed.
        """
        face = parse_face(payload, self.kit_id, self.secret)
        serial = 0
        for e in self.decks[face.deck]:
            serial += e.copies
            if face.serial <= serial:
                return face.deck, e.name, face.serial
        raise PayloadError(
            f"code {payload} names card {face.serial} of {face.deck.title()}'s deck, "
            f"which this kit does not have ({serial} cards)"
        )

    def catalogue_for_game(self) -> dict[str, Any]:
        """The ``catalogue`` a game created with this kit uses (``Referee.create_game``)."""
        strengths: dict[str, int] = {}
        for deck in DECKS:
            for e in self.decks[deck]:
                if e.strength is not None:
                    strengths[e.name] = e.strength
        return {
            "strengths": strengths,
            "copies": {d: {e.name: e.copies for e in self.decks[d]} for d in DECKS},
            "provisional": self.provisional,
        }

    # -- kit.json ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The ``kit.json`` object (it holds the secret: keep it private)."""
        return {
            "format": FORMAT,
            "kit_id": self.kit_id,
            "secret": self.secret,
            "created": self.created,
            "provisional": self.provisional,
            "decks": {
                d: [
                    {"name": e.name, "strength": e.strength, "copies": e.copies}
                    for e in self.decks[d]
                ]
                for d in DECKS
            },
            "stickers": [
                {"payload": s.payload, "deck": s.deck, "serial": s.serial, "card": s.card}
                for s in self.stickers
            ],
            "print": {
                "paper": self.options.paper,
                "code_mm": self.options.code_mm,
                "quiet_modules": self.options.quiet_modules,
                "back_marker_mm": self.options.back_marker_mm,
                "back_marker_ids": {"hera": 10, "zeus": 11},
            },
            "mat": self.mat.to_json(),
        }

    def dumps(self) -> str:
        """``kit.json`` as text."""
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: object, where: str = "kit.json") -> Kit:
        """Reads a ``kit.json`` object strictly: unknown or missing fields, wrong types, sizes
        out of bounds or stickers that do not match the deck lists raise KitError naming
        ``where`` and the field."""
        if not isinstance(data, dict):
            raise KitError(f"{where}: must be a JSON object")
        _exact(
            data,
            {
                "format",
                "kit_id",
                "secret",
                "created",
                "provisional",
                "decks",
                "stickers",
                "print",
                "mat",
            },
            where,
        )
        if data["format"] != FORMAT:
            raise KitError(f"{where}: format must be {FORMAT!r}, not {data['format']!r}")
        kit_id, secret, created = data["kit_id"], data["secret"], data["created"]
        if not isinstance(kit_id, str) or not re.fullmatch(r"[A-Z2-7]{5}", kit_id):
            raise KitError(f"{where}: kit_id must be 5 characters of A-Z and 2-7")
        if not isinstance(secret, str) or not re.fullmatch(r"[0-9a-f]{32}", secret):
            raise KitError(f"{where}: secret must be 32 lower-case hex digits")
        if not isinstance(created, str) or len(created) > 40:
            raise KitError(f"{where}: created must be an ISO 8601 time")
        try:
            datetime.fromisoformat(created)
        except ValueError:
            raise KitError(f"{where}: created {created!r} is not an ISO 8601 time") from None
        if not isinstance(data["provisional"], bool):
            raise KitError(f"{where}: provisional must be true or false")
        decks = _read_kit_decks(data["decks"], f"{where}: decks")
        opts = _read_print(data["print"], f"{where}: print")
        try:
            mat = parse_mat(data["mat"], f"{where}: mat")
        except ValueError as e:
            raise KitError(str(e)) from None
        kit = cls(kit_id, secret, created, decks, data["provisional"], opts, mat)
        stickers = data["stickers"]
        expected = [
            {"payload": s.payload, "deck": s.deck, "serial": s.serial, "card": s.card}
            for s in kit.stickers
        ]
        if not isinstance(stickers, list) or len(stickers) != len(expected):
            raise KitError(f"{where}: stickers must list the {len(expected)} face stickers")
        for i, (got, want) in enumerate(zip(stickers, expected, strict=True)):
            if got != want:
                raise KitError(
                    f"{where}: stickers[{i}] does not match the kit's id, secret and deck lists "
                    f"(expected {want['payload']}, {want['deck']} {want['serial']} {want['card']})"
                )
        return kit

    @classmethod
    def loads(cls, text: str, where: str = "kit.json") -> Kit:
        """Reads ``kit.json`` text. Raises KitError (too large, not JSON, or see from_json)."""
        if len(text.encode("utf-8", "replace")) > MAX_KIT_JSON_BYTES:
            raise KitError(f"{where}: larger than {MAX_KIT_JSON_BYTES // 1024} kB; not a kit file")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise KitError(f"{where}: not JSON ({e.msg}, line {e.lineno})") from None
        return cls.from_json(data, where)

    @classmethod
    def load(cls, path: str | Path) -> Kit:
        """Reads a ``kit.json`` file. Raises KitError (unreadable, or see loads)."""
        p = Path(path)
        try:
            if p.stat().st_size > MAX_KIT_JSON_BYTES:
                raise KitError(f"{p}: larger than {MAX_KIT_JSON_BYTES // 1024} kB; not a kit file")
            text = p.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise KitError(f"{p}: cannot read: {getattr(e, 'strerror', None) or e}") from None
        return cls.loads(text, str(p))


# -- deck lists ---------------------------------------------------------------------------------


def provisional_decks(cat: Catalogue | None = None) -> dict[Deck, tuple[DeckEntry, ...]]:
    """The deck lists of the provisional catalogue, in its order."""
    cat = cat or default_catalogue()
    return {
        d: tuple(DeckEntry(i.name, i.strength, i.copies) for i in cat.cards(Player.parse(d)))
        for d in DECKS
    }


def check_decks(decks: Mapping[Deck, tuple[DeckEntry, ...]], where: str) -> None:
    """Checks deck lists against the catalogue's card names and RULES.md.

    Raises KitError when a deck is missing, a card name is unknown, listed twice or missing,
    a strength is given to a card that prints none (or is missing or outside 0-7), a shared card
    prints different strengths in the two decks, or a deck does not total 43 cards.
    """
    cat = default_catalogue()
    if set(decks) != set(DECKS):
        raise KitError(f"{where}: must list exactly the decks hera and zeus")
    shared: dict[str, tuple[Deck, int | None]] = {}
    for d in DECKS:
        player = Player.parse(d)
        names = cat.names(player)
        seen: set[str] = set()
        for e in decks[d]:
            w = f"{where}: {d}: {e.name}"
            if not cat.has(e.name, player):
                raise KitError(f"{w}: not a card of {player.title}'s deck ({', '.join(names)})")
            if e.name in seen:
                raise KitError(f"{w}: listed twice")
            seen.add(e.name)
            printed = cat.info(e.name, player).strength is not None
            if printed and (
                e.strength is None or isinstance(e.strength, bool) or not 0 <= e.strength <= 7
            ):
                raise KitError(f"{w}: strength must be a whole number 0-7, not {e.strength!r}")
            if not printed and e.strength is not None:
                raise KitError(f"{w}: this card prints no strength; leave strength out")
            if (
                isinstance(e.copies, bool)
                or not isinstance(e.copies, int)
                or not 0 <= e.copies <= DECK_SIZE
            ):
                raise KitError(
                    f"{w}: copies must be a whole number 0-{DECK_SIZE}, not {e.copies!r}"
                )
            if e.name in shared and shared[e.name][1] != e.strength:
                other, s = shared[e.name]
                raise KitError(
                    f"{w}: strength {e.strength} here but {s} in {other}'s deck; "
                    "a card both decks hold prints the same strength"
                )
            shared[e.name] = (d, e.strength)
        missing = [n for n in names if n not in seen]
        if missing:
            raise KitError(
                f"{where}: {d}: {', '.join(missing)} missing; list every card "
                "(copies = 0 for a card your deck does not have)"
            )
        total = sum(e.copies for e in decks[d])
        if total != DECK_SIZE:
            raise KitError(
                f"{where}: {d}: the deck totals {total} cards, not {DECK_SIZE} (RULES.md: "
                f"43 cards a deck); check the copies"
            )


def parse_deck_file(text: str, where: str) -> dict[Deck, tuple[DeckEntry, ...]]:
    """Reads a deck list file (TOML, or JSON when ``where`` ends in ``.json``).

    Raises KitError for a file too large, not TOML/JSON, of the wrong shape, or whose lists
    break a rule of :func:`check_decks`.
    """
    if len(text.encode("utf-8", "replace")) > MAX_DECK_FILE_BYTES:
        raise KitError(f"{where}: larger than {MAX_DECK_FILE_BYTES // 1024} kB; not a deck list")
    try:
        data: object = json.loads(text) if where.lower().endswith(".json") else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        raise KitError(f"{where}: cannot parse: {e}") from None
    if not isinstance(data, dict):
        raise KitError(f"{where}: must be a table with [hera] and [zeus]")
    _exact(data, set(DECKS), where)
    out: dict[Deck, tuple[DeckEntry, ...]] = {}
    for d in DECKS:
        table = data[d]
        if not isinstance(table, dict):
            raise KitError(f"{where}: [{d}] must be a table of card = {{ copies = N, ... }}")
        entries: list[DeckEntry] = []
        for name, v in table.items():
            w = f"{where}: {d}: {str(name)[:MAX_NAME]}"
            if isinstance(v, int) and not isinstance(v, bool):
                v = {"copies": v}  # Io = 1 is short for Io = { copies = 1 }
            if not isinstance(v, dict):
                raise KitError(f"{w}: must be {{ copies = N }} or {{ strength = S, copies = N }}")
            extra = set(v) - {"strength", "copies"}
            if extra:
                raise KitError(f"{w}: unknown field(s) {', '.join(sorted(map(repr, extra)))}")
            if "copies" not in v:
                raise KitError(f"{w}: copies missing")
            entries.append(DeckEntry(str(name), v.get("strength"), v["copies"]))
        out[d] = tuple(_catalogue_order(d, entries))
    check_decks(out, where)
    return out


def read_deck_file(path: str | Path) -> dict[Deck, tuple[DeckEntry, ...]]:
    """Reads a deck list file from disk. Raises KitError (unreadable, or see parse_deck_file)."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_DECK_FILE_BYTES:
            raise KitError(f"{p}: larger than {MAX_DECK_FILE_BYTES // 1024} kB; not a deck list")
        text = p.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise KitError(f"{p}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    return parse_deck_file(text, str(p))


def deck_file_template(decks: Mapping[Deck, tuple[DeckEntry, ...]] | None = None) -> str:
    """A deck list file to edit, filled with ``decks`` (default: the provisional list)."""
    decks = decks or provisional_decks()
    lines = [
        "# Hera & Zeus deck list for `referee kit --decks FILE`.",
        "# Count YOUR cards and correct every line: copies of each card, and the strength",
        "# printed in its corners (only for cards that print one). Each deck totals 43.",
        "# Keep a line with copies = 0 for a card your deck does not have.",
    ]
    for d in DECKS:
        lines += ["", f"[{d}]"]
        for e in decks[d]:
            if e.strength is None:
                lines.append(f"{e.name} = {{ copies = {e.copies} }}")
            else:
                lines.append(f"{e.name} = {{ strength = {e.strength}, copies = {e.copies} }}")
    return "\n".join(lines) + "\n"


def ask_decks(
    ask: Callable[[str], str], say: Callable[[str], None]
) -> dict[Deck, tuple[DeckEntry, ...]]:
    """Asks for every card's strength and copies, starting from the provisional list; Enter
    keeps the value shown. A deck that does not total 43 is asked again.

    Raises KitError only if ``ask`` does (e.g. EOFError is turned into KitError).
    """
    start = provisional_decks()
    cat = default_catalogue()
    out: dict[Deck, tuple[DeckEntry, ...]] = {}
    strengths: dict[str, int | None] = {}
    for d in DECKS:
        player = Player.parse(d)
        while True:
            say(f"{player.title}'s deck (Enter keeps the value in brackets):")
            entries: list[DeckEntry] = []
            for e in start[d]:
                strength = e.strength
                if cat.info(e.name, player).strength is not None:
                    if e.name in strengths:
                        strength = strengths[e.name]  # a shared card: asked once
                    else:
                        strength = _ask_int(
                            ask, say, f"  {e.name}: printed strength", e.strength or 0, 7
                        )
                copies = _ask_int(ask, say, f"  {e.name}: copies", e.copies, DECK_SIZE)
                entries.append(DeckEntry(e.name, strength, copies))
            total = sum(e.copies for e in entries)
            if total == DECK_SIZE:
                break
            say(f"  {player.title}'s deck totals {total} cards, not {DECK_SIZE}; once more.")
            start = {**start, d: tuple(entries)}
        for e in entries:
            strengths.setdefault(e.name, e.strength)
        out[d] = tuple(entries)
    check_decks(out, "deck list")
    return out


def _ask_int(
    ask: Callable[[str], str], say: Callable[[str], None], prompt: str, default: int, top: int
) -> int:
    while True:
        try:
            raw = ask(f"{prompt} [{default}]: ").strip()
        except EOFError:
            raise KitError("deck list: input ended before every card was confirmed") from None
        if not raw:
            return default
        if raw.isdigit() and 0 <= int(raw) <= top:
            return int(raw)
        say(f"    {raw!r}: a whole number 0-{top}, please")


def _catalogue_order(d: Deck, entries: list[DeckEntry]) -> list[DeckEntry]:
    order = {n: i for i, n in enumerate(default_catalogue().names(Player.parse(d)))}
    return sorted(entries, key=lambda e: order.get(e.name, len(order)))


def _read_kit_decks(raw: object, where: str) -> dict[Deck, tuple[DeckEntry, ...]]:
    if not isinstance(raw, dict):
        raise KitError(f"{where}: must be an object with hera and zeus")
    _exact(raw, set(DECKS), where)
    out: dict[Deck, tuple[DeckEntry, ...]] = {}
    for d in DECKS:
        rows = raw[d]
        if not isinstance(rows, list) or len(rows) > 64:
            raise KitError(f"{where}.{d}: must be a list of cards")
        entries: list[DeckEntry] = []
        for i, r in enumerate(rows):
            w = f"{where}.{d}[{i}]"
            if not isinstance(r, dict):
                raise KitError(f"{w}: must be an object")
            _exact(r, {"name", "strength", "copies"}, w)
            if not isinstance(r["name"], str) or len(r["name"]) > MAX_NAME:
                raise KitError(f"{w}.name: must be a card name")
            if r["strength"] is not None and (
                isinstance(r["strength"], bool) or not isinstance(r["strength"], int)
            ):
                raise KitError(f"{w}.strength: must be a whole number or null")
            entries.append(DeckEntry(r["name"], r["strength"], r["copies"]))
        out[d] = tuple(entries)
    check_decks(out, where)
    return out


def _read_print(raw: object, where: str) -> PrintOptions:
    if not isinstance(raw, dict):
        raise KitError(f"{where}: must be an object")
    _exact(raw, {"paper", "code_mm", "quiet_modules", "back_marker_mm", "back_marker_ids"}, where)
    if raw["back_marker_ids"] != {"hera": 10, "zeus": 11}:
        raise KitError(f"{where}: back_marker_ids must be hera 10, zeus 11")
    for k in ("code_mm", "back_marker_mm"):
        if isinstance(raw[k], bool) or not isinstance(raw[k], int | float):
            raise KitError(f"{where}: {k} must be a number of millimetres")
    if isinstance(raw["quiet_modules"], bool) or not isinstance(raw["quiet_modules"], int):
        raise KitError(f"{where}: quiet_modules must be a whole number")
    try:
        return PrintOptions(
            str(raw["paper"]),
            float(raw["code_mm"]),
            raw["quiet_modules"],
            float(raw["back_marker_mm"]),
        )
    except KitError as e:
        raise KitError(f"{where}: {e}") from None


def _exact(obj: Mapping[str, Any], expected: set[str], where: str) -> None:
    extra = sorted(str(k)[:MAX_NAME] for k in set(obj) - expected)
    missing = sorted(expected - set(obj))
    if extra:
        raise KitError(f"{where}: unknown field(s) {', '.join(map(repr, extra))}")
    if missing:
        raise KitError(f"{where}: missing field(s) {', '.join(map(repr, missing))}")


__all__ = [
    "BACK_MARKER_MM",
    "DECKS",
    "DECK_LETTER",
    "DEFAULT_CODE_MM",
    "KIT_FILE",
    "MAX_KIT_JSON_BYTES",
    "QUIET_MODULES",
    "DeckEntry",
    "Kit",
    "KitError",
    "PrintOptions",
    "Sticker",
    "ask_decks",
    "check_decks",
    "deck_file_template",
    "parse_deck_file",
    "provisional_decks",
    "read_deck_file",
]
