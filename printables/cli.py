"""The ``referee kit`` command: writes ``kit.json`` and the PDFs of a sticker kit, for the game
``--game`` names (each game's kit command is its own: :mod:`printables.games`).

    referee kit --out DIR [--decks FILE] [--size MM] [--paper a4|letter] [--game GAME]
                [--lang en|it|fr|de]
    referee kit --template [--game GAME]   print a deck list file to edit

Exit status 0 when the kit was written; 2 with one line on stderr for bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from printables.games import DEFAULT, KIT_COMMANDS
from printables.kits import DEFAULT_CODE_MM, KIT_1080P_MM, fail
from referee.language import DEFAULT as DEFAULT_LANG
from referee.language import LANGUAGES


def cmd_kit(
    args: argparse.Namespace,
    *,
    is_tty: Callable[[], bool] | None = None,
    ask: Callable[[str], str] = input,
) -> int:
    """Runs ``referee kit``. Returns the exit status (0 written, 2 bad input)."""
    if args.template and args.decks:
        return fail(
            "--template prints an empty deck list to fill in; it takes no --decks "
            f"({args.decks}). To print the kit of a deck list, leave out --template"
        )
    command = KIT_COMMANDS[args.game]
    if args.template:
        sys.stdout.write(command.template())
        return 0
    return command.write_kit(args, is_tty, ask)


def _size(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of millimetres") from None
    return v


def add_kit_command(sub: Any) -> None:
    """Registers ``kit`` on the ``referee`` subparsers (``sub`` from ``add_subparsers``)."""
    p = sub.add_parser("kit", help="print a sticker kit: kit.json, face/back stickers, play mat")
    p.add_argument("--out", metavar="DIR", help="directory for kit.json and the PDFs")
    p.add_argument("--decks", metavar="FILE", help="your deck lists (TOML; see --template)")
    p.add_argument(
        "--size",
        type=_size,
        default=DEFAULT_CODE_MM,
        metavar="MM",
        help=f"side of a face QR code in mm (default {DEFAULT_CODE_MM:g})",
    )
    p.add_argument(
        "--for-1080p",
        action="store_true",
        help=f"the preset for a 1080p camera over the whole mat: {KIT_1080P_MM:g} mm face codes "
        "(each covers about a quarter of a card's face; 20 mm needs a 4K camera or a phone's "
        "full-resolution photo)",
    )
    p.add_argument("--paper", choices=["a4", "letter"], default="a4")
    p.add_argument(
        "--lang",
        choices=list(LANGUAGES),
        default=DEFAULT_LANG,
        help="the language of the sheets' headings and instructions (default en); the codes "
        "and card names are the same in every language",
    )
    p.add_argument("--template", action="store_true", help="print a deck list file to edit")
    p.add_argument(
        "--game",
        choices=list(KIT_COMMANDS),
        default=DEFAULT,
        help="the game whose kit to print (--template prints its deck list file to edit; "
        "--decks reads it)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing kit.json in DIR")
    p.set_defaults(func=cmd_kit)
