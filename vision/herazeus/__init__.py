"""Hera & Zeus's camera input: from a photo to cards, a table snapshot and proposed events
(issue 8).

A pipeline of pure stages (frame in, data out; the camera and the clock stay outside):

- :mod:`vision.herazeus.cards` (on :mod:`vision.decode`): every face QR code in a photo (zxing-cpp;
a second pass on 2x-upscaled
  crops for small codes), each checked against the kit: a card, or a refusal with its reason.
- :mod:`vision.herazeus.markers`: ArUco markers (mat corners 0-3, backs 10/11), the mat's pose
  (homography from mat mm to image px) and the rectified mat.
- :mod:`vision.herazeus.table`: the table snapshot: per side, column 1-3 and row 1-4, ``empty``,
  ``down`` (deck from the back marker), ``up`` (the card) or ``unknown`` (never a guess).
- :mod:`vision.herazeus.diff`: proposals that explain how a snapshot differs from the referee's
view.
- :mod:`vision.herazeus.deckcheck`: missing, doubled and foreign stickers of a deck.
- :mod:`vision.sources`: image files, uploaded bytes, a webcam, and fakes.
- :mod:`vision.herazeus.kit`: what vision needs of a kit (:func:`vision.herazeus.kit.load_kit`
reads kit.json;
  the kit itself, its errors and the mat are defined once, in :mod:`printables`).
- :mod:`vision.herazeus.synth`: seeded synthetic photos for tests and benchmarks.

Entry points for the web app and the CLI (``kit`` is a :class:`printables.herazeus.kit.Kit` or a
:class:`vision.herazeus.kit.VisionKit`; the image is a BGR ``numpy`` array as OpenCV gives it)::

    from vision.herazeus import read_cards, read_table, propose
    dets = read_cards(image_bgr, kit)        # list[Detection]; d.to_json() for JSON
    snap = read_table(image_bgr, kit)        # Snapshot; snap.to_json(), snap.text()
    proposals = propose(snap, view)          # list of dicts (see vision.herazeus.diff)

``read_cards`` raises :class:`vision.decode.ImageError` for something that is not an image;
``read_table`` also raises :class:`vision.herazeus.markers.MatNotFound` when fewer than two mat
corner
markers are visible; ``propose`` raises :class:`vision.herazeus.diff.ViewError` for a malformed
view. Bytes from an upload become an image through :func:`vision.sources.decode_image` (raises
:class:`vision.sources.SourceError`).

Importing this package does not import OpenCV; the functions below do, on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from printables.herazeus.kit import Kit
    from vision.herazeus.cards import Detection
    from vision.herazeus.kit import VisionKit
    from vision.herazeus.table import Snapshot


def read_cards(image_bgr: Any, kit: Kit | VisionKit) -> list[Detection]:
    """Every face code in a photo, checked against ``kit`` (see :mod:`vision.decode`)."""
    from vision.herazeus.cards import read_cards as _read_cards
    from vision.herazeus.kit import as_vision_kit

    return _read_cards(image_bgr, as_vision_kit(kit))


def read_table(image_bgr: Any, kit: Kit | VisionKit) -> Snapshot:
    """The table snapshot of one frame of the mat (see :mod:`vision.herazeus.table`)."""
    from vision.herazeus.kit import as_vision_kit
    from vision.herazeus.table import read_table as _read_table

    return _read_table(image_bgr, as_vision_kit(kit))


def propose(snapshot: Snapshot, view: Any) -> list[dict[str, Any]]:
    """What explains the difference between a snapshot and a seat's view
    (:mod:`vision.herazeus.diff`)."""
    from vision.herazeus.diff import propose as _propose

    return _propose(snapshot, view)


__all__ = ["propose", "read_cards", "read_table"]
