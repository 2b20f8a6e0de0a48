"""The club's test photos (issue 38, point 5): a still a player's camera took, saved with his
consent to a folder the server was started with, labelled with the codes he confirms it shows.

Off by default: the folder is the app's ``STILLS_DIR`` (``referee serve --stills DIR``). Without
it nothing is held, no page offers to save, and a request to save is refused.

With it, a seat's last still (a full-resolution still of the camera page, or a photo sent to it)
is held in this process's memory for that seat only (:class:`StillHold`: the game and the seat
the session proves; at most :data:`HELD_MAX` seats and :data:`HELD_BYTES`, each for
:data:`HELD_SECONDS`), with the
codes the camera read in it. Nothing is written until the player ticks the consent and the codes
the photo shows; then ``NAME.jpg`` (or ``.png``, as sent, its metadata such as a phone's
location left out) and ``NAME.txt`` (one code a line, the layout ``benchmarks/vision.py
--photos`` scores) are written, the text last, and the held still is forgotten. The label is
what the player confirmed, nothing the server knows of the game: never a card another seat
holds.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from flask import Flask, current_app

from referee.language import Say

STILLS_CONFIG = "STILLS_DIR"
HELD_MAX = 64  # seats whose last still is held at once (about a club night's tables)
HELD_BYTES = 128 * 1024 * 1024  # and their bytes at most: 16 photos at the 8 MB upload limit
HELD_SECONDS = 30 * 60  # a still not saved within half an hour is forgotten
MAX_CODES = 64  # codes one still may be labelled with
MAX_CODE_CHARS = 200  # a code's text in a label file (one line)


@dataclass(frozen=True)
class HeldStill:
    """A seat's last still: its bytes as sent, the codes the camera read in it, and when."""

    data: bytes
    codes: tuple[str, ...]
    at: float


class StillHold:
    """The last still of each (game, seat), in memory, bounded in count and age."""

    def __init__(
        self, most: int = HELD_MAX, seconds: float = HELD_SECONDS, most_bytes: int = HELD_BYTES
    ) -> None:
        self._most = most
        self._most_bytes = most_bytes
        self._seconds = seconds
        self._held: OrderedDict[tuple[str, str], HeldStill] = OrderedDict()
        self._lock = threading.Lock()

    def hold(self, game: str, seat: str, data: bytes, codes: list[str] | tuple[str, ...]) -> None:
        kept = tuple(dict.fromkeys(c for c in codes if c and len(c) <= MAX_CODE_CHARS))
        with self._lock:
            self._held.pop((game, seat), None)
            self._held[(game, seat)] = HeldStill(data, kept[:MAX_CODES], time.monotonic())
            while len(self._held) > self._most or (
                len(self._held) > 1
                and sum(len(h.data) for h in self._held.values()) > self._most_bytes
            ):
                self._held.popitem(last=False)  # the oldest goes first

    def get(self, game: str, seat: str) -> HeldStill | None:
        with self._lock:
            got = self._held.get((game, seat))
            if got is not None and time.monotonic() - got.at > self._seconds:
                del self._held[(game, seat)]
                return None
            return got

    def drop(self, game: str, seat: str) -> None:
        with self._lock:
            self._held.pop((game, seat), None)


def archive() -> Path | None:
    """The folder this server saves test photos to, or None (the default: none)."""
    where = current_app.config.get(STILLS_CONFIG)
    return Path(where) if where else None


def held_stills(app: Flask | None = None) -> StillHold:
    """This app's held stills."""
    app = app or current_app
    hold = app.extensions.get("held_stills")
    if hold is None:
        hold = app.extensions.setdefault("held_stills", StillHold())
    return hold  # type: ignore[no-any-return]


def check_folder(where: str) -> Path:
    """``where`` as the archive folder, made if missing. Raises ValueError naming it when it
    cannot be written to."""
    path = Path(where)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--stills {where}: {e.strerror or e}") from None
    if not path.is_dir() or not os.access(path, os.W_OK):
        raise ValueError(f"--stills {where}: not a folder this server can write to")
    return path


def without_metadata(data: bytes) -> tuple[bytes, str]:
    """The image's bytes without what a camera adds beside the picture (a JPEG's APP1-APP15
    segments and comments: Exif, a phone's location, XMP; a PNG's text and time chunks) and
    its suffix. Raises ValueError for anything but a JPEG or PNG."""
    if data[:3] == b"\xff\xd8\xff":
        return _jpeg_without_metadata(data), ".jpg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png_without_metadata(data), ".png"
    raise ValueError(Say("still: neither a JPEG nor a PNG"))


def _jpeg_without_metadata(data: bytes) -> bytes:
    out = bytearray(data[:2])
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise ValueError(Say("still: a damaged JPEG"))
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte before a marker
            i += 1
            continue
        if marker == 0xDA:  # start of scan: the picture itself, to the end
            out += data[i:]
            return bytes(out)
        size = int.from_bytes(data[i + 2 : i + 4], "big")
        if size < 2 or i + 2 + size > len(data):
            raise ValueError(Say("still: a damaged JPEG"))
        if not (0xE1 <= marker <= 0xEF or marker == 0xFE):  # APP1-APP15 and COM left out
            out += data[i : i + 2 + size]
        i += 2 + size
    raise ValueError(Say("still: a damaged JPEG"))


_PNG_KEPT = {b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP"}


def _png_without_metadata(data: bytes) -> bytes:
    out = bytearray(data[:8])
    i = 8
    while i + 12 <= len(data):
        size = int.from_bytes(data[i : i + 4], "big")
        kind = data[i + 4 : i + 8]
        end = i + 12 + size
        if end > len(data):
            raise ValueError(Say("still: a damaged PNG"))
        if kind in _PNG_KEPT:
            out += data[i:end]
        i = end
        if kind == b"IEND":
            return bytes(out)
    raise ValueError(Say("still: a damaged PNG"))


def save_still(folder: Path, data: bytes, codes: list[str]) -> str:
    """Writes ``NAME.jpg`` (or ``.png``) and ``NAME.txt`` (``codes``, one a line) to
    ``folder``; returns NAME. The picture first, the label last: a folder is scored by its
    labels, so a half-written pair is never counted. Raises ValueError for an image that is
    neither a JPEG nor a PNG, or a code that cannot be a line, OSError when the folder cannot
    be written."""
    for c in codes:
        if not c or "\n" in c or "\r" in c or len(c) > MAX_CODE_CHARS:
            raise ValueError(Say("code %(code)s: not one line of text", code=repr(c[:40])))
    picture, suffix = without_metadata(data)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    name = f"still-{stamp}-{secrets.token_hex(3)}"
    for path, body in (
        (folder / f"{name}{suffix}", picture),
        (folder / f"{name}.txt", "".join(f"{c}\n" for c in codes).encode("utf-8")),
    ):
        part = path.with_name(path.name + ".part")
        part.write_bytes(body)
        os.replace(part, path)
    return name
