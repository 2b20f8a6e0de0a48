"""``referee scan`` with a Minotaur Lords kit (the shared command, :mod:`vision.cli`, hands it
here): the cards its stickers name."""

from __future__ import annotations

import argparse
from typing import Any

from printables.kits import KitError
from printables.minotaur.kit import is_minotaur_kit
from vision.cli_game import fail as _fail
from vision.cli_game import print_reads


def claims(head: str) -> bool:
    """Whether a kit file (its first characters) is a Minotaur Lords kit."""
    return is_minotaur_kit(head)


def add_commands(sub: Any) -> None:
    """This game adds no camera command beside ``scan``."""


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
