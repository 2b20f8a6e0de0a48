"""What a Hera & Zeus kit's codes say: face QR payloads, the back markers and the mat's corner
markers, on the scheme every kit shares (:mod:`printables.codes`).

This module is the one definition both the printer (:mod:`printables`) and the camera
(:mod:`vision`) use. It is pure: no I/O, no image code.

A **face payload** names one physical card of one kit. It is short and upper-case so that it
uses QR's alphanumeric mode and fits version 1 at error-correction level Q (16 characters)::

    HZ K7QX2 H 07 M4TA
    |  |     | |  +-- check: 4 base32 characters of HMAC-SHA256(kit secret, the 10 before it)
    |  |     | +----- serial within the deck, 01-99 (two digits)
    |  |     +------- deck: H (Hera) or Z (Zeus)
    |  +------------- kit id: 5 base32 characters (A-Z, 2-7)
    +---------------- magic: this is a Hera & Zeus kit code

written without spaces: ``HZK7QX2H07M4TA`` (14 characters). A code from another kit (other
kit id), a misprint (check fails) or a hand-typed fake (the check needs the kit's secret, which
never leaves ``kit.json``) is refused by :func:`parse_face` with a reason, never misread.

A **back marker** is the same ArUco marker on every sleeve back of one deck: it says "a Hera
card lies here" and nothing more (a back that identified the card would make a marked deck).
The **mat corners** are four more ArUco markers. All come from OpenCV's ``DICT_4X4_50``.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from typing import Literal

from printables.codes import (
    ARUCO_DICTIONARY,
    BASE32,
    CHECK_LENGTH,
    KIT_ID_LENGTH,
    MAX_SERIAL,
    QR_ERROR_CORRECTION,
    QR_VERSION,
    PayloadError,
    check_value,
    code_payload,
    new_kit_id,
    new_kit_secret,
)

MAGIC = "HZ"
PAYLOAD_LENGTH = len(MAGIC) + KIT_ID_LENGTH + 1 + 2 + CHECK_LENGTH  # 14


# ArUco markers (their ids in codes.ARUCO_DICTIONARY). Corners are listed clockwise from the
# top left of the mat as Hera sees it (Hera's side is the bottom half of the mat).
MAT_CORNER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
BACK_MARKER_IDS = {"hera": 10, "zeus": 11}
DECK_LETTER = {"hera": "H", "zeus": "Z"}
LETTER_DECK = {v: k for k, v in DECK_LETTER.items()}

Deck = Literal["hera", "zeus"]

_FACE = re.compile(r"^HZ([A-Z2-7]{5})([HZ])([0-9]{2})([A-Z2-7]{4})$")


def face_payload(kit_id: str, secret: str, deck: Deck, serial: int) -> str:
    """The payload printed on the face sticker of card ``serial`` of ``deck``.

    Raises PayloadError for a malformed kit id, an unknown deck or a serial outside 1-99.
    """
    return code_payload(MAGIC, DECK_LETTER, kit_id, secret, deck, serial)


@dataclass(frozen=True, slots=True)
class Face:
    """A face code read and checked: which physical card of which kit."""

    kit_id: str
    deck: Deck
    serial: int
    payload: str


def parse_face(text: str, kit_id: str, secret: str) -> Face:
    """Checks a decoded QR text against a kit. Raises PayloadError saying why it is refused:
    not a Hera & Zeus code, a code of another kit, or a failed check (misprint or fake)."""
    if not isinstance(text, str) or not _FACE.match(text):
        shown = text[:40] if isinstance(text, str) else repr(text)
        raise PayloadError(f"not a Hera & Zeus card code: {shown!r}")
    m = _FACE.match(text)
    assert m is not None
    kid, letter, serial, check = m.groups()
    if kid != kit_id:
        raise PayloadError(f"code {text} belongs to kit {kid}, not to this kit ({kit_id})")
    body = text[:-CHECK_LENGTH]
    if not hmac.compare_digest(check_value(secret, body), check):
        raise PayloadError(f"code {text} fails its check value (a misprint or a fake)")
    n = int(serial)
    if n < 1:
        raise PayloadError(f"code {text} has serial 00, which no kit prints")
    return Face(kid, LETTER_DECK[letter], n, text)  # type: ignore[arg-type]


__all__ = [
    "ARUCO_DICTIONARY",
    "BACK_MARKER_IDS",
    "BASE32",
    "CHECK_LENGTH",
    "DECK_LETTER",
    "KIT_ID_LENGTH",
    "LETTER_DECK",
    "MAGIC",
    "MAT_CORNER_IDS",
    "MAX_SERIAL",
    "PAYLOAD_LENGTH",
    "QR_ERROR_CORRECTION",
    "QR_VERSION",
    "Deck",
    "Face",
    "PayloadError",
    "face_payload",
    "new_kit_id",
    "new_kit_secret",
    "parse_face",
]
