"""Hera & Zeus's camera commands of ``referee`` (``scan`` is the shared command's,
:mod:`vision.cli`, which hands a Hera & Zeus kit to :func:`cmd_scan`):

    referee scan IMAGE --kit kit.json [--json]            the cards whose codes a photo shows
    referee table IMAGE --kit kit.json [--view V] [--json]  the table snapshot of a mat photo
    referee deckcheck IMAGE... --kit kit.json [--deck D]  missing, doubled, foreign stickers
    referee camera-check IMAGE --kit kit.json [--json]     will face codes read at this framing

Exit status: 0 when the image was read; 2 with one line on stderr when the kit or the image
cannot be read, when no code of the kit is found, when every code found is foreign, or when
the mat is not found (camera-check then prints its verdict and the fix, and exits 2). Never a
traceback for bad input.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from printables.herazeus.kit import DECKS, KitError
from vision.cli_game import Propose, answer_table, print_reads
from vision.cli_game import fail as _fail
from vision.herazeus.kit import VisionKit, load_kit

if TYPE_CHECKING:
    from vision.herazeus.cards import Detection

# OpenCV and zxing-cpp are imported inside the commands: ``referee rule`` stays quick to start.


def _kit(path: str) -> VisionKit | str:
    try:
        return load_kit(path)
    except KitError as e:
        return str(e)


def claims(head: str) -> bool:
    """Whether a kit file (its first characters) is this game's: the default kit, any other."""
    return True


def cmd_scan(args: argparse.Namespace) -> int:
    """``referee scan`` with a Hera & Zeus kit: the cards its stickers name."""
    from vision.decode import ImageError
    from vision.herazeus.cards import read_cards
    from vision.sources import SourceError, read_image_file

    kit = _kit(args.kit)
    if isinstance(kit, str):
        return _fail(kit)
    try:
        dets = read_cards(read_image_file(args.image), kit)
    except (SourceError, ImageError) as e:
        return _fail(str(e))
    return print_reads(args.image, dets, args.json, _card_line)


def _card_line(d: Detection) -> str:
    """A card read: its deck, serial and printed name, and the code's text."""
    c = d.card
    return f"{c.deck} {c.serial:02d} {c.name}  ({d.payload})" if c is not None else ""


def cmd_table(args: argparse.Namespace) -> int:
    """``referee table`` with a Hera & Zeus kit: the snapshot, and with ``--view`` the
    proposals that explain how it differs from that view."""
    from vision.herazeus.table import Snapshot, read_table

    kit = _kit(args.kit)
    if isinstance(kit, str):
        return _fail(kit)

    def proposer() -> tuple[Propose[Snapshot], type[Exception]]:
        from vision.herazeus.diff import ViewError, propose

        return propose, ViewError

    def lines(snap: Snapshot) -> list[str]:
        unknown = [c for c in snap.cells.values() if c.state == "unknown"]
        return (
            [snap.text()]
            + [f"refused: {d.refused}" for d in snap.refused]
            + [f"unknown: {c.side} column {c.column} row {c.row}: {c.reason}" for c in unknown]
        )

    return answer_table(args, lambda image: read_table(image, kit), proposer, lines)


def cmd_deckcheck(args: argparse.Namespace) -> int:
    from vision.decode import ImageError
    from vision.herazeus.cards import read_cards
    from vision.herazeus.deckcheck import check_deck
    from vision.sources import SourceError, read_image_file

    kit = _kit(args.kit)
    if isinstance(kit, str):
        return _fail(kit)
    photos: list[Any] = []
    for path in args.images:
        try:
            photos.append(read_cards(read_image_file(path), kit))
        except (SourceError, ImageError) as e:
            return _fail(str(e))
    decks = tuple(args.deck) if args.deck else DECKS
    report = check_deck(photos, kit, decks)
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(report.text())
    return 0


def cmd_camera_check(args: argparse.Namespace) -> int:
    from vision.decode import ImageError
    from vision.herazeus.framing import check_framing
    from vision.sources import SourceError, read_image_file

    kit = _kit(args.kit)
    if isinstance(kit, str):
        return _fail(kit)
    try:
        verdict = check_framing(read_image_file(args.image), kit)
    except (SourceError, ImageError) as e:
        return _fail(str(e))
    if args.json:
        print(json.dumps(verdict.to_json(), indent=1))
    else:
        print(verdict.text())
    return 0 if verdict.found else 2


def add_commands(sub: Any) -> None:
    """Adds ``deckcheck`` and ``camera-check`` (this game's decks and framing) to the
    ``referee`` subcommands (``table`` is the shared command's, :mod:`vision.cli`, which hands
    a Hera & Zeus kit to :func:`cmd_table`)."""
    p = sub.add_parser("deckcheck", help="check a deck's stickers from photos of its cards")
    p.add_argument("images", nargs="+", help="photos of single cards or fans of cards")
    p.add_argument("--kit", required=True, help="the kit.json of the stickers")
    p.add_argument("--deck", action="append", choices=list(DECKS), help="check only this deck")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_deckcheck)

    p = sub.add_parser(
        "camera-check", help="say whether a frame's framing lets face codes read, and the fix"
    )
    p.add_argument("image", help="a still or a camera frame of the mat")
    p.add_argument("--kit", required=True, help="the kit.json of the stickers and mat")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=cmd_camera_check)
