"""``referee scan`` and ``referee table`` with a Minotaur Lords kit (the shared commands,
:mod:`vision.cli`, hand it here): the cards its stickers name; the table its mat shows, and
with ``--view`` the events since that view, each to confirm."""

from __future__ import annotations

import argparse
from typing import Any

from printables.kits import KitError
from printables.minotaur.kit import is_minotaur_kit
from vision.cli_game import Propose, answer_table, print_reads
from vision.cli_game import fail as _fail


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
    from vision.minotaur.table import MinotaurSnapshot, read_table

    try:
        with open(args.kit, encoding="utf-8") as f:
            kit = MinotaurKit.loads(f.read(1_000_000))
    except (OSError, UnicodeDecodeError) as e:
        return _fail(f"{args.kit}: {e}")
    except KitError as e:
        return _fail(f"{args.kit}: {e}")

    def proposer() -> tuple[Propose[MinotaurSnapshot], type[Exception]]:
        from vision.minotaur.diff import ViewError, propose

        return propose, ViewError

    def lines(snap: MinotaurSnapshot) -> list[str]:
        return [snap.text()] + [f"refused: {payload}: {why}" for payload, why in snap.refused]

    return answer_table(args, lambda image: read_table(image, kit), proposer, lines)
