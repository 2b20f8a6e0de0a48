"""The camera commands of ``referee``:

    referee scan IMAGE --kit kit.json [--json]            the cards whose codes a photo shows
    referee table IMAGE --kit kit.json [--view V] [--json]  the table a photo of the mat shows

and each game's own (:mod:`vision.games`: a deck check, a framing check).
``scan`` and ``table`` hand the photo to the game whose kit the kit file is (``table --view``:
and the events that explain how it differs from a seat's view, each to confirm). Exit status:
0 when the image was read; 2 with one line on stderr when the kit or the image cannot be
read, when no code of the kit is found, or when every code found is foreign (``table``: when
the mat is not found). Never a traceback for bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

from vision.cli_game import CameraCommands
from vision.games import CAMERA_COMMANDS

# OpenCV and zxing-cpp are imported inside the commands: ``referee rule`` stays quick to start.


def _game(kit: str) -> CameraCommands:
    """The game whose kit the file ``kit`` is (the last game takes a kit file no game claims,
    and names what is wrong with it)."""
    head = ""
    try:
        with open(kit, encoding="utf-8") as f:
            head = f.read(200)
    except (OSError, UnicodeDecodeError):
        pass  # the game's reader names the problem
    return next((g for g in CAMERA_COMMANDS if g.claims(head)), CAMERA_COMMANDS[-1])


def cmd_scan(args: argparse.Namespace) -> int:
    """``referee scan``: the game whose kit ``--kit`` is reads the photo."""
    return _game(args.kit).cmd_scan(args)


def cmd_table(args: argparse.Namespace) -> int:
    """``referee table``: the game whose kit ``--kit`` is reads its mat in the photo."""
    return _game(args.kit).cmd_table(args)


def add_vision_commands(sub: Any) -> None:
    """Adds ``scan`` and every game's camera commands to the ``referee`` subcommands."""
    p = sub.add_parser("scan", help="read the card codes in a photo")
    p.add_argument("image", help="a photo (JPEG, PNG) of one card or a fan of cards")
    p.add_argument("--kit", required=True, help="the kit.json the stickers were printed from")
    p.add_argument("--json", action="store_true", help="print the detections as JSON")
    p.set_defaults(func=cmd_scan)
    p = sub.add_parser("table", help="read the table from a photo of the mat")
    p.add_argument("image", help="a photo of the mat with its four corner markers")
    p.add_argument("--kit", required=True, help="the kit.json of the stickers and mat")
    p.add_argument(
        "--view", help="a seat's view (JSON, as the API gives it): propose the events since"
    )
    p.add_argument("--json", action="store_true", help="print the snapshot as JSON")
    p.set_defaults(func=cmd_table)
    for game in CAMERA_COMMANDS:
        game.add_commands(sub)
