"""The camera commands of ``referee``:

    referee scan IMAGE --kit kit.json [--json]            the cards whose codes a photo shows

and each game's own (:mod:`vision.games`: a mat's table snapshot, a deck check, a framing check).
``scan`` hands the photo to the game whose kit the kit file is. Exit status: 0 when the image
was read; 2 with one line on stderr when the kit or the image cannot be read, when no code of
the kit is found, or when every code found is foreign. Never a traceback for bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

from vision.games import CAMERA_COMMANDS

# OpenCV and zxing-cpp are imported inside the commands: ``referee rule`` stays quick to start.


def cmd_scan(args: argparse.Namespace) -> int:
    """``referee scan``: the game whose kit ``--kit`` is reads the photo (the last game takes
    a kit file no game claims, and names what is wrong with it)."""
    head = ""
    try:
        with open(args.kit, encoding="utf-8") as f:
            head = f.read(200)
    except (OSError, UnicodeDecodeError):
        pass  # the game's reader names the problem
    game = next((g for g in CAMERA_COMMANDS if g.claims(head)), CAMERA_COMMANDS[-1])
    return game.cmd_scan(args)


def add_vision_commands(sub: Any) -> None:
    """Adds ``scan`` and every game's camera commands to the ``referee`` subcommands."""
    p = sub.add_parser("scan", help="read the card codes in a photo")
    p.add_argument("image", help="a photo (JPEG, PNG) of one card or a fan of cards")
    p.add_argument("--kit", required=True, help="the kit.json the stickers were printed from")
    p.add_argument("--json", action="store_true", help="print the detections as JSON")
    p.set_defaults(func=cmd_scan)
    for game in CAMERA_COMMANDS:
        game.add_commands(sub)
