"""Reading Minotaur Lords face stickers in a photo (issue 15): the same decoder, retries and
blur undoing as every game's phone photo (:func:`vision.decode.find_codes`), each code checked
against the Minotaur Lords kit; a code of another kit, another game or a fake is refused with
its reason, never misread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from printables.codes import PayloadError
from printables.minotaur.kit import MinotaurKit
from vision.codebook import codebook
from vision.decode import as_gray, find_codes


@dataclass(frozen=True)
class MinotaurRead:
    """One code in the photo: the card it names (``deck``, ``serial``, ``card``), or why it
    was refused; ``x`` orders the reads left to right; ``matched`` tells a code read by
    matching it against the kit's (:mod:`vision.codebook`), too blurred to decode."""

    payload: str
    x: float
    deck: str | None = None
    serial: int | None = None
    card: str | None = None
    refused: str | None = None
    matched: bool = False

    def to_json(self) -> dict[str, Any]:
        if self.card is None:
            return {"payload": self.payload, "refused": self.refused}
        return {
            "payload": self.payload,
            "deck": self.deck,
            "serial": self.serial,
            "card": self.card,
            "matched": self.matched,
        }


def read_minotaur_cards(image: Any, kit: MinotaurKit) -> list[MinotaurRead]:
    """Every face code in a photo of Minotaur Lords cards, left to right. Raises ImageError for
    something that is not an image."""
    payloads = tuple(s.payload for s in kit.stickers)
    codes, _ = find_codes(as_gray(image), retries=True, book=lambda: codebook(payloads))
    out = []
    for c in codes:
        x = sum(p[0] for p in c.corners) / len(c.corners)
        try:
            face, name = kit.read(c.text)
        except PayloadError as e:
            out.append(MinotaurRead(c.text, x, refused=str(e)))
            continue
        out.append(
            MinotaurRead(c.text, x, face.deck, face.serial, name, matched=c.matched is not None)
        )
    return sorted(out, key=lambda r: r.x)
