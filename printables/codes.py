"""What every kit's codes share: a face payload is a magic (the game's), a kit id, a deck letter,
a two-digit serial and a check value (HMAC-SHA256 under the kit's secret), short and upper-case
so that it uses QR's alphanumeric mode and fits version 1 at error-correction level Q. Each
game's payload module (its magic, deck letters and back markers) builds on these. Pure: no I/O,
no image code.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
KIT_ID_LENGTH = 5
CHECK_LENGTH = 4
MAX_SERIAL = 99

# QR parameters for face codes (measured: alphanumeric mode, version 1, level Q).
QR_VERSION = 1
QR_ERROR_CORRECTION = "Q"

# ArUco markers (back markers, mat corners) come from cv2.aruco.DICT_4X4_50.
ARUCO_DICTIONARY = "DICT_4X4_50"


class PayloadError(ValueError):
    """A code that is not a face code of this kit; the message says why."""


def new_kit_id() -> str:
    """A fresh random kit id (5 base32 characters, 25 bits)."""
    return "".join(secrets.choice(BASE32) for _ in range(KIT_ID_LENGTH))


def new_kit_secret() -> str:
    """A fresh random kit secret (128 bits, hex). It is kept in ``kit.json`` only."""
    return secrets.token_hex(16)


def check_value(secret: str, body: str) -> str:
    """The check characters of a payload's ``body`` under the kit's ``secret``."""
    mac = hmac.new(bytes.fromhex(secret), body.encode("ascii"), hashlib.sha256).digest()
    return base64.b32encode(mac).decode("ascii")[:CHECK_LENGTH]


def checks(secret: str, text: str, check: str) -> bool:
    """Whether ``check`` is the check value of payload ``text`` (compared in constant time)."""
    return hmac.compare_digest(check_value(secret, text[:-CHECK_LENGTH]), check)


def code_payload(
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
    return body + check_value(secret, body)
