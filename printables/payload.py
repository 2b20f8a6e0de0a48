"""What the kit's codes say: face QR payloads, the back markers and the mat's corner markers
(Hera & Zeus; Minotaur Lords's faces and backs at the end, under their own magic).

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

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Literal

MAGIC = "HZ"
BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
KIT_ID_LENGTH = 5
CHECK_LENGTH = 4
PAYLOAD_LENGTH = len(MAGIC) + KIT_ID_LENGTH + 1 + 2 + CHECK_LENGTH  # 14
MAX_SERIAL = 99

# QR parameters for face codes (measured: alphanumeric mode, version 1, level Q).
QR_VERSION = 1
QR_ERROR_CORRECTION = "Q"

# ArUco markers (cv2.aruco.DICT_4X4_50 ids). Corners are listed clockwise from the top left of
# the mat as Hera sees it (Hera's side is the bottom half of the mat).
ARUCO_DICTIONARY = "DICT_4X4_50"
MAT_CORNER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
BACK_MARKER_IDS = {"hera": 10, "zeus": 11}
DECK_LETTER = {"hera": "H", "zeus": "Z"}
LETTER_DECK = {v: k for k, v in DECK_LETTER.items()}

Deck = Literal["hera", "zeus"]

_FACE = re.compile(r"^HZ([A-Z2-7]{5})([HZ])([0-9]{2})([A-Z2-7]{4})$")


class PayloadError(ValueError):
    """A code that is not a face code of this kit; the message says why."""


def new_kit_id() -> str:
    """A fresh random kit id (5 base32 characters, 25 bits)."""
    return "".join(secrets.choice(BASE32) for _ in range(KIT_ID_LENGTH))


def new_kit_secret() -> str:
    """A fresh random kit secret (128 bits, hex). It is kept in ``kit.json`` only."""
    return secrets.token_hex(16)


def _check(secret: str, body: str) -> str:
    mac = hmac.new(bytes.fromhex(secret), body.encode("ascii"), hashlib.sha256).digest()
    return base64.b32encode(mac).decode("ascii")[:CHECK_LENGTH]


def face_payload(kit_id: str, secret: str, deck: Deck, serial: int) -> str:
    """The payload printed on the face sticker of card ``serial`` of ``deck``.

    Raises PayloadError for a malformed kit id, an unknown deck or a serial outside 1-99.
    """
    return _payload(MAGIC, DECK_LETTER, kit_id, secret, deck, serial)


def _payload(
    magic: str, letters: dict[str, str], kit_id: str, secret: str, deck: str, serial: int
) -> str:
    """A face payload under ``magic``: kit id, deck letter, serial, check. Raises
    PayloadError for a malformed kit id, a deck not in ``letters`` or a serial outside 1-99."""
    if not re.fullmatch(r"[A-Z2-7]{5}", kit_id):
        raise PayloadError(f"kit id {kit_id!r} must be 5 characters of A-Z and 2-7")
    if deck not in letters:
        raise PayloadError(f"deck {deck!r} must be one of {', '.join(letters)}")
    if not 1 <= serial <= MAX_SERIAL:
        raise PayloadError(f"serial {serial} must be 1 to {MAX_SERIAL}")
    body = f"{magic}{kit_id}{letters[deck]}{serial:02d}"
    return body + _check(secret, body)


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
    if not hmac.compare_digest(_check(secret, body), check):
        raise PayloadError(f"code {text} fails its check value (a misprint or a fake)")
    n = int(serial)
    if n < 1:
        raise PayloadError(f"code {text} has serial 00, which no kit prints")
    return Face(kid, LETTER_DECK[letter], n, text)  # type: ignore[arg-type]


# ---- Minotaur Lords (issue 15): the same scheme under its own magic ---------------------------
#
#   ML K7QX2 M 07 M4TA   magic ML; deck M (Miron), V (Vess) or B (the bonus deck); serial 01-99
#
# Back markers: one ArUco id per deck, the same on every sleeve back of that deck.

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
    return _payload(ML_MAGIC, ML_DECK_LETTER, kit_id, secret, deck, serial)


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
    if not hmac.compare_digest(_check(secret, text[:-CHECK_LENGTH]), check):
        raise PayloadError(f"code {text} fails its check value (a misprint or a fake)")
    if int(serial) < 1:
        raise PayloadError(f"code {text} has serial 00, which no kit prints")
    return MinotaurFace(kid, ML_LETTER_DECK[letter], int(serial), text)
