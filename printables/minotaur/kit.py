"""A Minotaur Lords sticker kit: the owner's deck list (:mod:`engine.minotaur.cards`), a face
code for each physical card, and one identical back marker per deck (issue 15).

The kit is saved as ``kit.json`` (format ``minotaur-kit/1``) beside the PDFs; like every
game's kit it holds the secret that tells real codes from fakes, so it stays with the referee.
Serials run 1..n within each deck (miron, vess, bonus) in the deck list's row order, copies
included: each physical card has its own code.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine.errors import CatalogueError, NotationError
from engine.minotaur.cards import DECKS, CardDef, card_from_json
from printables.codes import PayloadError, new_kit_id, new_kit_secret
from printables.kits import MAX_KIT_JSON_BYTES, KitError, PrintOptions
from printables.minotaur.payload import MinotaurFace, minotaur_face_payload, parse_minotaur_face

FORMAT = "minotaur-kit/1"


@dataclass(frozen=True, slots=True)
class MinotaurSticker:
    deck: str
    serial: int
    card: str
    payload: str


@dataclass(frozen=True)
class MinotaurKit:
    """One printed Minotaur Lords kit. Build with :meth:`create`, read with
    :meth:`from_json`."""

    kit_id: str
    secret: str
    created: str
    cards: tuple[CardDef, ...]
    options: PrintOptions = field(default_factory=PrintOptions)

    @classmethod
    def create(cls, cards: Sequence[CardDef], options: PrintOptions | None = None) -> MinotaurKit:
        now = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        return cls(new_kit_id(), new_kit_secret(), now, tuple(cards), options or PrintOptions())

    @property
    def stickers(self) -> list[MinotaurSticker]:
        """One per physical card: decks in order, serials in the deck list's row order."""
        out = []
        for deck in DECKS:
            for serial, c in enumerate((c for c in self.cards if c.deck == deck), start=1):
                payload = minotaur_face_payload(self.kit_id, self.secret, deck, serial)
                out.append(MinotaurSticker(deck, serial, c.name, payload))
        return out

    def card_of(self, face: MinotaurFace) -> str:
        """The card name a checked face code stands for. Raises PayloadError when the kit
        printed no such serial."""
        deck = [c for c in self.cards if c.deck == face.deck]
        if not 1 <= face.serial <= len(deck):
            raise PayloadError(f"code {face.payload}: this kit printed no card {face.serial}")
        return deck[face.serial - 1].name

    def read(self, text: str) -> tuple[MinotaurFace, str]:
        """A decoded QR text as this kit's card: the face and the card's name. Raises
        PayloadError (another game's code, another kit's, a fake, a serial never printed)."""
        face = parse_minotaur_face(text, self.kit_id, self.secret)
        return face, self.card_of(face)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "kit_id": self.kit_id,
            "secret": self.secret,
            "created": self.created,
            "cards": [c.as_json() for c in self.cards],
            "options": {
                "paper": self.options.paper,
                "code_mm": self.options.code_mm,
                "quiet_modules": self.options.quiet_modules,
                "back_marker_mm": self.options.back_marker_mm,
            },
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, raw: object) -> MinotaurKit:
        """Raises KitError naming what is wrong."""
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise KitError(f"not a Minotaur Lords kit file (format {FORMAT})")
        try:
            cards = tuple(card_from_json(c, f"cards[{i}]") for i, c in enumerate(raw["cards"]))
            opts = raw.get("options", {})
            options = PrintOptions(
                paper=str(opts.get("paper", "a4")),
                code_mm=float(opts.get("code_mm", 20.0)),
                quiet_modules=int(opts.get("quiet_modules", 2)),
                back_marker_mm=float(opts.get("back_marker_mm", 18.0)),
            )
            return cls(str(raw["kit_id"]), str(raw["secret"]), str(raw["created"]), cards, options)
        except (KeyError, TypeError, ValueError, NotationError, CatalogueError) as e:
            raise KitError(f"kit file: {e}") from None

    @classmethod
    def loads(cls, text: str) -> MinotaurKit:
        if len(text) > MAX_KIT_JSON_BYTES:
            raise KitError("kit file: larger than a kit can be")
        try:
            return cls.from_json(json.loads(text))
        except json.JSONDecodeError as e:
            raise KitError(f"kit file: not JSON ({e.msg})") from None


def is_minotaur_kit(text: str) -> bool:
    """Whether a kit file's text is a Minotaur Lords kit (without checking it)."""
    return f'"{FORMAT}"' in text[:200]
