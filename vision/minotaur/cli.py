"""``referee scan`` and ``referee table`` with a Minotaur Lords kit (the shared commands,
:mod:`vision.cli`, hand it here): the cards its stickers name; the table its mat shows, and
with ``--view`` the events since that view, each to confirm."""

from __future__ import annotations

import argparse
import json
from typing import Any

from printables.kits import KitError
from printables.minotaur.kit import is_minotaur_kit
from vision.cli_game import fail as _fail
from vision.cli_game import print_proposals, print_reads, read_view


def claims(head: str) -> bool:
    """Whether a kit file (its first characters) is a Minotaur Lords kit."""
    return is_minotaur_kit(head)


def add_commands(sub: Any) -> None:
    """This game adds no camera command beside the shared ``scan`` and ``table``."""


def cmd_scan(args: argparse.Namespace) -> int:
    """``referee scan`` with a Minotaur Lords kit: the cards its stickers name."""
    try:
        with open(args.kit, encoding="utf-8") as f:
            text = f.read(1_000_000)
    except (OSError, UnicodeDecodeError) as e:
        return _fail(f"{args.kit}: {e}")
    return scan_text(args, text)


def scan_text(args: argparse.Namespace, text: str) -> int:
    """``referee scan`` with a Minotaur Lords kit: the cards its stickers name."""
    from printables.minotaur.kit import MinotaurKit
    from vision.decode import ImageError
    from vision.minotaur.cards import read_minotaur_cards
    from vision.sources import SourceError, read_image_file

    try:
        kit = MinotaurKit.loads(text)
        reads = read_minotaur_cards(read_image_file(args.image), kit)
    except KitError as e:
        return _fail(f"{args.kit}: {e}")
    except (SourceError, ImageError) as e:
        return _fail(str(e))
    return print_reads(
        args.image, reads, args.json, lambda r: f"{r.deck} {r.serial:02d} {r.card}  ({r.payload})"
    )


def cmd_table(args: argparse.Namespace) -> int:
    """``referee table`` with a Minotaur Lords kit: each lane's cards in order and the
    deities (``unknown`` with why, never a guess); with ``--view``, the proposed events."""
    from printables.minotaur.kit import MinotaurKit
    from vision.decode import ImageError
    from vision.minotaur.diff import ViewError, propose
    from vision.minotaur.table import read_table
    from vision.pose import MatNotFound
    from vision.sources import SourceError, read_image_file

    try:
        with open(args.kit, encoding="utf-8") as f:
            kit = MinotaurKit.loads(f.read(1_000_000))
    except (OSError, UnicodeDecodeError) as e:
        return _fail(f"{args.kit}: {e}")
    except KitError as e:
        return _fail(f"{args.kit}: {e}")
    try:
        snap = read_table(read_image_file(args.image), kit)
    except (SourceError, ImageError) as e:
        return _fail(str(e))
    except MatNotFound as e:
        return _fail(f"{args.image}: {e}")
    if getattr(args, "view", None):
        view = read_view(args.view)
        if isinstance(view, str):
            return _fail(view)
        try:
            props = propose(snap, view)
        except ViewError as e:
            return _fail(f"{args.view}: {e}")
        return print_proposals(snap.to_json(), props, args.json)
    if args.json:
        print(json.dumps(snap.to_json(), indent=1))
        return 0
    print(snap.text())
    for payload, why in snap.refused:
        print(f"refused: {payload}: {why}")
    return 0
