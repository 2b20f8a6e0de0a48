"""Stage: check a deck's stickers before a game, from photos of single cards or of fans.

Every face code read is checked against the kit (:func:`vision.decode.read_cards`); the
report lists the kit's stickers that were never seen (**missing**), a sticker seen at two
places of one photo (**doubled**: two physical cards carry the same code), stickers seen in
several photos (**repeated**: scanned twice, or doubled; a person looks), and codes that are
not this kit's (**foreign**, with the reason). Pure: detections in, a report out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from printables.herazeus.kit import DECKS
from printables.herazeus.payload import Deck
from vision.herazeus.cards import Detection
from vision.herazeus.kit import CardRef, KitLike


@dataclass(frozen=True)
class DeckReport:
    """What a deck check found. ``complete`` is True when every sticker of the checked decks
    was seen once and nothing doubled or foreign turned up."""

    decks: tuple[Deck, ...]
    seen: dict[str, CardRef]
    missing: list[CardRef]
    doubled: list[CardRef]
    repeated: list[tuple[CardRef, int]]
    foreign: list[tuple[str, str]]  # (payload, reason)

    @property
    def complete(self) -> bool:
        return not (self.missing or self.doubled or self.foreign)

    def to_json(self) -> dict[str, Any]:
        return {
            "decks": list(self.decks),
            "complete": self.complete,
            "seen": len(self.seen),
            "missing": [c.to_json() for c in self.missing],
            "doubled": [c.to_json() for c in self.doubled],
            "repeated": [{**c.to_json(), "photos": n} for c, n in self.repeated],
            "foreign": [{"payload": p, "reason": r} for p, r in self.foreign],
        }

    def text(self) -> str:
        def cards(cs: Iterable[CardRef]) -> str:
            return ", ".join(f"{c.deck} {c.serial:02d} {c.name}" for c in cs)

        decks = " and ".join(d.title() for d in self.decks)
        lines = [f"{decks}: {len(self.seen)} stickers seen"]
        if self.missing:
            lines.append(f"missing ({len(self.missing)}): {cards(self.missing)}")
        if self.doubled:
            lines.append(f"doubled (two cards, one code): {cards(self.doubled)}")
        if self.repeated:
            lines.append(
                "seen in several photos (scanned twice, or doubled): "
                + ", ".join(f"{c.deck} {c.serial:02d} {c.name} x{n}" for c, n in self.repeated)
            )
        for p, r in self.foreign:
            lines.append(f"foreign: {r}" if p in r else f"foreign: {p}: {r}")
        if self.complete:
            lines.append("complete: every sticker seen, none doubled or foreign")
        return "\n".join(lines)


def check_deck(
    photos: Iterable[Sequence[Detection]],
    kit: KitLike,
    decks: Sequence[Deck] = DECKS,
    all_cards: Iterable[CardRef] | None = None,
) -> DeckReport:
    """The deck check over the detections of each photo. ``all_cards`` is every sticker of
    the kit (default: taken from a kit with a ``cards`` mapping). Raises ValueError for an
    unknown deck name or a kit that cannot list its stickers."""
    for deck in decks:
        if deck not in DECKS:
            raise ValueError(f"deck {deck!r} must be hera or zeus")
    if all_cards is None:
        cards_map = getattr(kit, "cards", None)
        if cards_map is None:
            raise ValueError("the kit does not list its stickers; pass all_cards")
        all_cards = cards_map.values()
    wanted = sorted((c for c in all_cards if c.deck in decks), key=lambda c: (c.deck, c.serial))
    seen: dict[str, CardRef] = {}
    photos_of: Counter[str] = Counter()
    doubled: dict[str, CardRef] = {}
    foreign: dict[str, str] = {}
    for dets in photos:
        here: Counter[str] = Counter()
        for d in dets:
            if d.card is None:
                foreign.setdefault(d.payload, d.refused or "not this kit's code")
                continue
            if d.card.deck not in decks:
                continue
            here[d.payload] += 1
            seen[d.payload] = d.card
        for p, n in here.items():
            photos_of[p] += 1
            if n > 1:
                doubled[p] = seen[p]
    seen_cards = set(seen.values())
    missing = [c for c in wanted if c not in seen_cards]
    repeated = sorted(
        ((seen[p], n) for p, n in photos_of.items() if n > 1 and p not in doubled),
        key=lambda x: (x[0].deck, x[0].serial),
    )
    return DeckReport(
        tuple(decks),
        seen,
        missing,
        sorted(doubled.values(), key=lambda c: (c.deck, c.serial)),
        repeated,
        sorted(foreign.items()),
    )
