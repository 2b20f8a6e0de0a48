"""The camera commands of ``referee``:

    referee scan IMAGE --kit kit.json [--json]            the cards whose codes a photo shows
    referee table IMAGE --kit kit.json [--json]           the table snapshot of a mat photo
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
import sys
from typing import Any

from printables.herazeus.kit import DECKS, KitError
from vision.kit import VisionKit, load_kit

# OpenCV and zxing-cpp are imported inside the commands: ``referee rule`` stays quick to start.


def _fail(message: str) -> int:
    print(f"referee: {message}", file=sys.stderr)
    return 2


def _kit(path: str) -> VisionKit | str:
    try:
        return load_kit(path)
    except KitError as e:
        return str(e)


def cmd_scan_minotaur(args: argparse.Namespace, text: str) -> int:
    """``referee scan`` with a Minotaur Lords kit: the cards its stickers name."""
    from printables.minotaur.kit import MinotaurKit
    from vision.decode import ImageError
    from vision.minotaur import read_minotaur_cards
    from vision.sources import SourceError, read_image_file

    try:
        kit = MinotaurKit.loads(text)
        reads = read_minotaur_cards(read_image_file(args.image), kit)
    except KitError as e:
        return _fail(f"{args.kit}: {e}")
    except (SourceError, ImageError) as e:
        return _fail(str(e))
    if not reads:
        return _fail(f"{args.image}: no card code found")
    if all(r.card is None for r in reads):
        return _fail(f"{args.image}: {reads[0].refused}")
    if args.json:
        print(json.dumps([r.to_json() for r in reads], indent=1))
        return 0
    for r in reads:
        if r.card is not None:
            print(f"{r.deck} {r.serial:02d} {r.card}  ({r.payload})")
        else:
            print(f"refused: {r.refused}")
    return 0


def cmd_scan(args: argparse.Namespace) -> int:
    from printables.minotaur.kit import is_minotaur_kit
    from vision.decode import ImageError, read_cards
    from vision.sources import SourceError, read_image_file

    try:
        with open(args.kit, encoding="utf-8") as f:
            head = f.read(200)
        if is_minotaur_kit(head):
            with open(args.kit, encoding="utf-8") as f:
                return cmd_scan_minotaur(args, f.read(1_000_000))
    except (OSError, UnicodeDecodeError):
        pass  # load_kit below names the problem
    kit = _kit(args.kit)
    if isinstance(kit, str):
        return _fail(kit)
    try:
        dets = read_cards(read_image_file(args.image), kit)
    except (SourceError, ImageError) as e:
        return _fail(str(e))
    if not dets:
        return _fail(f"{args.image}: no card code found")
    if all(d.card is None for d in dets):
        return _fail(f"{args.image}: {dets[0].refused}")
    if args.json:
        print(json.dumps([d.to_json() for d in dets], indent=1))
        return 0
    for d in dets:
        if d.card is not None:
            print(f"{d.card.deck} {d.card.serial:02d} {d.card.name}  ({d.payload})")
        else:
            print(f"refused: {d.refused}")
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    from vision.decode import ImageError
    from vision.markers import MatNotFound
    from vision.sources import SourceError, read_image_file
    from vision.table import read_table

    kit = _kit(args.kit)
    if isinstance(kit, str):
        return _fail(kit)
    try:
        snap = read_table(read_image_file(args.image), kit)
    except (SourceError, ImageError) as e:
        return _fail(str(e))
    except MatNotFound as e:
        return _fail(f"{args.image}: {e}")
    if args.json:
        print(json.dumps(snap.to_json(), indent=1))
        return 0
    print(snap.text())
    for d in snap.refused:
        print(f"refused: {d.refused}")
    unknown = [c for c in snap.cells.values() if c.state == "unknown"]
    for c in unknown:
        print(f"unknown: {c.side} column {c.column} row {c.row}: {c.reason}")
    return 0


def cmd_deckcheck(args: argparse.Namespace) -> int:
    from vision.deckcheck import check_deck
    from vision.decode import ImageError, read_cards
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
    from vision.framing import check_framing
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


def add_vision_commands(sub: Any) -> None:
    """Adds ``scan``, ``table``, ``deckcheck`` and ``camera-check`` to the ``referee``
    subcommands."""
    p = sub.add_parser("scan", help="read the card codes in a photo")
    p.add_argument("image", help="a photo (JPEG, PNG) of one card or a fan of cards")
    p.add_argument("--kit", required=True, help="the kit.json the stickers were printed from")
    p.add_argument("--json", action="store_true", help="print the detections as JSON")
    p.set_defaults(func=cmd_scan)

    p = sub.add_parser("table", help="read the table from a photo of the mat")
    p.add_argument("image", help="a photo of the mat with its four corner markers")
    p.add_argument("--kit", required=True, help="the kit.json of the stickers and mat")
    p.add_argument("--json", action="store_true", help="print the snapshot as JSON")
    p.set_defaults(func=cmd_table)

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
