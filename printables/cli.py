"""The ``referee kit`` command: writes ``kit.json`` and the PDFs of a sticker kit.

    referee kit --out DIR [--decks FILE] [--size MM] [--paper a4|letter]
    referee kit --template            print a deck list file to edit (the provisional list)
    referee kit --game minotaur --template
                                      print an empty Minotaur Lords deck list (CSV) to fill in
    referee kit --game minotaur --decks decks.csv --out DIR
                                      its kit: faces and identical backs per deck

Without ``--decks``, the deck lists are asked for card by card when stdin is a terminal, and
otherwise the provisional list is used with a loud warning (the kit says it is provisional).
Exit status 0 when the kit was written; 2 with one line on stderr for bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.errors import CatalogueError
from engine.minotaur.cards import MAX_LIST_BYTES, CardDef, parse_deck_list
from engine.minotaur.cards import template as minotaur_template
from printables.kit import (
    DEFAULT_CODE_MM,
    KIT_FILE,
    Kit,
    KitError,
    PrintOptions,
    ask_decks,
    deck_file_template,
    read_deck_file,
)
from printables.minotaur_kit import MinotaurKit
from printables.payload import PayloadError
from referee.validate import InputError, utf8_file

PROVISIONAL_WARNING = (
    "referee kit: WARNING: PROVISIONAL deck list. The copy counts and some strengths are\n"
    "  guesses (engine/herazeus/data/*.toml), not your cards. Count your decks and run\n"
    "  `referee kit --template > decks.toml`, correct it, then `referee kit --decks decks.toml`."
)


def _fail(message: str) -> int:
    print(f"referee kit: {message}", file=sys.stderr)
    return 2


def _out_dir(args: argparse.Namespace) -> Path | int:
    """The kit's directory, or the exit status of its refusal: none given, or a kit already
    there (a new kit would need new stickers) without ``--force``."""
    if not args.out:
        return _fail("--out DIR is required (where kit.json and the PDFs go)")
    out = Path(args.out)
    if (out / KIT_FILE).exists() and not args.force:
        return _fail(
            f"{out / KIT_FILE} exists; a new kit would need new stickers. "
            "Use another --out, or --force to replace it"
        )
    return out


def cmd_kit(
    args: argparse.Namespace,
    *,
    is_tty: Callable[[], bool] | None = None,
    ask: Callable[[str], str] = input,
) -> int:
    """Runs ``referee kit``. Returns the exit status (0 written, 2 bad input)."""
    if args.template and args.decks:
        return _fail(
            "--template prints an empty deck list to fill in; it takes no --decks "
            f"({args.decks}). To print the kit of a deck list, leave out --template"
        )
    if args.game == "minotaur":
        if args.template:
            sys.stdout.write(minotaur_template())
            return 0
        return minotaur_kit(args)
    if args.template:
        sys.stdout.write(deck_file_template())
        return 0
    out = _out_dir(args)
    if isinstance(out, int):
        return out
    # The PDF side (fpdf2, OpenCV, qrcode) loads only when a kit is printed, not at every
    # `referee` start.
    from printables.sheets import face_layout, mat_tiling, write_sheets

    try:
        size = KIT_1080P_MM if args.for_1080p else args.size
        options = PrintOptions(paper=args.paper, code_mm=size)
        interactive = (is_tty or sys.stdin.isatty)()
        if args.decks:
            kit = Kit.create(read_deck_file(args.decks), provisional=False, options=options)
        elif interactive:
            print("No --decks file: confirm your deck lists card by card.", file=sys.stderr)
            decks = ask_decks(ask, lambda s: print(s, file=sys.stderr))
            kit = Kit.create(decks, provisional=False, options=options)
        else:
            print(PROVISIONAL_WARNING, file=sys.stderr)
            kit = Kit.create(options=options)
        face_layout(kit)  # a size that fits no page fails here, before anything is written
        out.mkdir(parents=True, exist_ok=True)
        pdfs = write_sheets(kit, out)
        (out / KIT_FILE).write_text(kit.dumps(), "utf-8")
    except (KitError, PayloadError, ValueError) as e:
        return _fail(str(e))
    except OSError as e:
        return _fail(f"{out}: cannot write: {e.strerror or e}")
    lay = face_layout(kit)
    tiles = mat_tiling(kit.mat, kit.options.paper)
    print(
        f"Kit {kit.kit_id} written to {out}/ "
        f"({'PROVISIONAL' if kit.provisional else 'confirmed'} deck lists)"
    )
    print(
        f"  {KIT_FILE}: the kit's id, secret and stickers. "
        "Keep it private: it tells real codes from fakes."
    )
    for p in pdfs:
        print(f"  {p.name}")
    if args.for_1080p:
        print(
            f"The 1080p kit: {KIT_1080P_MM:g} mm face codes, which a 1080p camera over the "
            "whole mat reads; each sticker covers about a quarter of a card's face."
        )
    print(
        f"Face codes {kit.options.code_mm:g} mm, {lay.per_page} stickers a page; "
        f"mat {kit.mat.width:g} x {kit.mat.height:g} mm on {tiles.sheets} sheets. "
        "Print test-page.pdf first at 100% and check the 100 mm bars with a ruler."
    )
    return 0


def minotaur_kit(args: argparse.Namespace) -> int:
    """``referee kit --game minotaur --decks decks.csv --out DIR``: the kit of the owner's
    deck list (faces with their own codes, identical backs per deck). Exit 0 or 2."""
    if not args.decks:
        return _fail(
            "--game minotaur needs --decks FILE: your deck list "
            "(referee kit --game minotaur --template > decks.csv)"
        )
    out = _out_dir(args)
    if isinstance(out, int):
        return out
    from printables.sheets import write_minotaur_sheets

    try:
        cards = read_deck_list_file(args.decks)
        size = KIT_1080P_MM if args.for_1080p else args.size
        kit = MinotaurKit.create(cards, PrintOptions(paper=args.paper, code_mm=size))
        out.mkdir(parents=True, exist_ok=True)
        pdfs = write_minotaur_sheets(kit, out)
        (out / KIT_FILE).write_text(kit.dumps(), "utf-8")
    except (CatalogueError, InputError) as e:
        return _fail(f"{args.decks}: {e}")
    except (KitError, PayloadError, ValueError) as e:
        return _fail(str(e))
    except OSError as e:
        return _fail(f"{e.filename or out}: {e.strerror or e}")
    print(f"Minotaur Lords kit {kit.kit_id} written to {out}/ ({len(kit.stickers)} cards)")
    print(f"  {KIT_FILE}: the kit's id, secret and cards. Keep it private.")
    for p in pdfs:
        print(f"  {p.name}")
    return 0


def read_deck_list_file(path: str) -> list[CardDef]:
    """The cards of a Minotaur Lords deck-list file, read by the one reader of deck lists
    (:func:`engine.minotaur.cards.parse_deck_list`, which the API, the home page and
    ``referee serve --demo --deck-list`` use too). Raises InputError (not UTF-8) or
    CatalogueError (a bad row), each naming the line (the caller names the file), or
    OSError."""
    with open(path, "rb") as f:
        data = f.read(MAX_LIST_BYTES + 1)
    return parse_deck_list(utf8_file(data, max_bytes=MAX_LIST_BYTES))


KIT_1080P_MM = 30.0  # face codes a 1080p camera over the whole mat reads (issue 14: 143 of 143)


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
    p.add_argument("--template", action="store_true", help="print a deck list file to edit")
    p.add_argument(
        "--game",
        choices=["hera-zeus", "minotaur"],
        default="hera-zeus",
        help="the game (Minotaur Lords: --template prints its deck-list file, 30 + 30 + 24 "
        "rows; --decks reads it and prints the kit)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing kit.json in DIR")
    p.set_defaults(func=cmd_kit)
