"""``referee kit --game minotaur`` for Minotaur Lords: an empty deck list (CSV) to fill in, and
the kit of the owner's deck list (faces with their own codes, identical backs per deck)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from engine.errors import CatalogueError
from engine.minotaur.cards import MAX_LIST_BYTES, CardDef, parse_deck_list
from engine.minotaur.cards import template as deck_list_template
from printables.codes import PayloadError
from printables.kits import KIT_1080P_MM, KIT_FILE, KitError, PrintOptions, fail, out_dir
from printables.minotaur.kit import MinotaurKit
from referee.validate import InputError, utf8_file

NAME = "minotaur"  # the game's name in the referee (referee.minotaur.game.NAME)


def template() -> str:
    """An empty deck list (CSV) to fill in: 30 + 30 + 24 rows and instructions."""
    return deck_list_template()


def write_kit(
    args: argparse.Namespace, is_tty: Callable[[], bool] | None, ask: Callable[[str], str]
) -> int:
    """``referee kit --game minotaur --decks decks.csv --out DIR``: the kit of the owner's
    deck list (faces with their own codes, identical backs per deck). Exit 0 or 2."""
    if not args.decks:
        return fail(
            "--game minotaur needs --decks FILE: your deck list "
            "(referee kit --game minotaur --template > decks.csv)"
        )
    out = out_dir(args)
    if isinstance(out, int):
        return out
    from printables.minotaur.sheets import write_minotaur_sheets

    try:
        cards = read_deck_list_file(args.decks)
        size = KIT_1080P_MM if args.for_1080p else args.size
        kit = MinotaurKit.create(cards, PrintOptions(paper=args.paper, code_mm=size))
        out.mkdir(parents=True, exist_ok=True)
        pdfs = write_minotaur_sheets(kit, out, getattr(args, "lang", "en"))
        (out / KIT_FILE).write_text(kit.dumps(), "utf-8")
    except (CatalogueError, InputError) as e:
        return fail(f"{args.decks}: {e}")
    except (KitError, PayloadError, ValueError) as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"{e.filename or out}: {e.strerror or e}")
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
