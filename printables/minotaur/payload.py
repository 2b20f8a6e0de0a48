"""What a Minotaur Lords kit's codes say (issue 15): the scheme every kit shares
(:mod:`printables.codes`) under its own magic.

    ML K7QX2 M 07 M4TA   magic ML; deck M (Miron), V (Vess) or B (the bonus deck); serial 01-99

Back markers: one ArUco id per deck, the same on every sleeve back of that deck.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from printables.codes import PayloadError, checks, code_payload

ML_MAGIC = "ML"
ML_DECK_LETTER = {"miron": "M", "vess": "V", "bonus": "B"}
ML_LETTER_DECK = {v: k for k, v in ML_DECK_LETTER.items()}
ML_BACK_MARKER_IDS = {"miron": 12, "vess": 13, "bonus": 14}
_ML_FACE = re.compile(r"^ML([A-Z2-7]{5})([MVB])([0-9]{2})([A-Z2-7]{4})$")


@dataclass(frozen=True, slots=True)
class MinotaurFace:
    """A Minotaur Lords face code read and checked: which physical card of which kit."""

    kit_id: str
    deck: str  # miron, vess or bonus
    serial: int
    payload: str


def minotaur_face_payload(kit_id: str, secret: str, deck: str, serial: int) -> str:
    """The payload printed on the face sticker of card ``serial`` of a Minotaur Lords deck.
    Raises PayloadError for a malformed kit id, an unknown deck or a serial outside 1-99."""
    return code_payload(ML_MAGIC, ML_DECK_LETTER, kit_id, secret, deck, serial)


def parse_minotaur_face(text: str, kit_id: str, secret: str) -> MinotaurFace:
    """Checks a decoded QR text against a Minotaur Lords kit. Raises PayloadError saying why it
    is refused: not a Minotaur Lords code, another kit's, or a failed check."""
    m = _ML_FACE.match(text) if isinstance(text, str) else None
    if m is None:
        shown = text[:40] if isinstance(text, str) else repr(text)
        raise PayloadError(f"not a Minotaur Lords card code: {shown!r}")
    kid, letter, serial, check = m.groups()
    if kid != kit_id:
        raise PayloadError(f"code {text} belongs to kit {kid}, not to this kit ({kit_id})")
    if not checks(secret, text, check):
        raise PayloadError(f"code {text} fails its check value (a misprint or a fake)")
    if int(serial) < 1:
        raise PayloadError(f"code {text} has serial 00, which no kit prints")
    return MinotaurFace(kid, ML_LETTER_DECK[letter], int(serial), text)
