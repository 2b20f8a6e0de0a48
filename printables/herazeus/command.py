"""``referee kit`` for Hera & Zeus: the kit of the owner's deck lists (TOML), or the provisional
list with a loud warning; faces, backs, the play mat and a test page."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from printables.codes import PayloadError
from printables.herazeus.kit import Kit, ask_decks, deck_file_template, read_deck_file
from printables.kits import KIT_1080P_MM, KIT_FILE, KitError, PrintOptions, fail, out_dir

NAME = "hera-zeus"  # the game's name in the referee (referee.herazeus.game.NAME)
PROVISIONAL_WARNING = (
    "referee kit: WARNING: PROVISIONAL deck list. The copy counts and some strengths are\n"
    "  guesses (engine/herazeus/data/*.toml), not your cards. Count your decks and run\n"
    "  `referee kit --template > decks.toml`, correct it, then `referee kit --decks decks.toml`."
)


def template() -> str:
    """The deck list file to edit (the provisional list)."""
    return deck_file_template()


def write_kit(
    args: argparse.Namespace, is_tty: Callable[[], bool] | None, ask: Callable[[str], str]
) -> int:
    """Writes the kit. Returns the exit status (0 written, 2 bad input)."""
    out = out_dir(args)
    if isinstance(out, int):
        return out
    # The PDF side (fpdf2, OpenCV, qrcode) loads only when a kit is printed, not at every
    # `referee` start.
    from printables.herazeus.sheets import face_layout, mat_tiling, write_sheets

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
        pdfs = write_sheets(kit, out, getattr(args, "lang", "en"))
        (out / KIT_FILE).write_text(kit.dumps(), "utf-8")
    except (KitError, PayloadError, ValueError) as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"{out}: cannot write: {e.strerror or e}")
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
