"""Stage: the face codes of a photo checked against a Hera & Zeus kit: every text read goes
through :func:`printables.herazeus.payload.parse_face`, so a code of another kit, a misprint or
a hand-typed fake is *refused with a reason*, never taken for a card.

Pure: arrays in, :class:`Detection` values out. Nothing here opens a file or a camera.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from printables.herazeus.payload import PayloadError, parse_face
from vision.codebook import codebook
from vision.decode import Point, Quad, RawCode, as_gray, find_codes
from vision.herazeus.kit import CardRef, KitLike


@dataclass(frozen=True, slots=True)
class Detection:
    """A face code found in an image.

    ``card`` is the kit's card when the code passed its check; otherwise ``card`` is None and
    ``refused`` says why (another kit, failed check, not a Hera & Zeus code, no such sticker).
    ``confidence`` is 1.0 for a checked card: the QR's own error correction decoded it and the
    kit's check value matched, so a wrong identity needs a forged 20-bit HMAC. A refused code
    has confidence 0.0 as a card. ``upscaled`` tells that the second pass found it.
    ``matched`` tells a code too blurred to decode that was read by matching it against every
    code of the kit (:mod:`vision.codebook`): its confidence is the match score, at least
    :data:`vision.codebook.MIN_SCORE` with a clear lead over any other code of the kit, or
    :data:`vision.codebook.WIDE_SCORE` with a lead no other square reaches.
    """

    payload: str
    corners: Quad
    card: CardRef | None
    refused: str | None
    confidence: float
    upscaled: bool = False
    matched: bool = False

    @property
    def centre(self) -> Point:
        return RawCode(self.payload, self.corners).centre

    @property
    def is_card(self) -> bool:
        return self.card is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "payload": self.payload,
            "card": self.card.to_json() if self.card else None,
            "refused": self.refused,
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "confidence": self.confidence,
            "upscaled": self.upscaled,
            "matched": self.matched,
        }


def check_code(code: RawCode, kit: KitLike, upscaled: bool = False) -> Detection:
    """A decoded code checked against the kit: a card, or a refusal with its reason."""
    try:
        parse_face(code.text, kit.kit_id, kit.secret)
    except PayloadError as e:
        return Detection(code.text, code.corners, None, str(e), 0.0, upscaled)
    card = kit.card_for(code.text)
    if card is None:
        return Detection(
            code.text,
            code.corners,
            None,
            f"code {code.text} passes the kit's check but the kit lists no such sticker",
            0.0,
            upscaled,
        )
    if code.matched is not None:
        return Detection(code.text, code.corners, card, None, code.matched, upscaled, True)
    return Detection(code.text, code.corners, card, None, 1.0, upscaled)


def read_cards(image: Any, kit: KitLike, second_pass: bool = True) -> list[Detection]:
    """Every face code in a photo (one card held under the phone, or a fan of cards), checked
    against ``kit``; refused codes are included with their reason. Sorted left to right.
    Raises ImageError for something that is not an image."""
    gray = as_gray(image)
    codes, _ = find_codes(
        gray, second_pass, retries=second_pass, book=lambda: codebook(kit.payloads)
    )
    dets = [check_code(c, kit) for c in codes]
    return sorted(dets, key=lambda d: (d.centre[0], d.centre[1]))
