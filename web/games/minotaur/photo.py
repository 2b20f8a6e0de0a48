"""A photo of Minotaur Lords cards from a seat page (issue 15): the game's sticker kit reads
the cards in it (:func:`vision.minotaur.read_minotaur_cards`), and the seat page offers them,
already chosen, in the boxes of the cards the player holds; nothing is recorded until he
confirms there."""

from __future__ import annotations

from flask import Blueprint, current_app, flash, session
from werkzeug.wrappers import Response

from printables.kits import KitError
from printables.minotaur.kit import MinotaurKit
from referee.service import ServiceError
from web.acting import back, reason_of
from web.errors import BadImage
from web.i18n import gettext, ngettext, say
from web.limits import reads_photos
from web.request import csrf_protected, get_referee, refusal, seat_of, with_game
from web.uploads import check_image, upload_bytes

bp = Blueprint("minotaur_photo", __name__)
PLAYERS = ("miron", "vess")


def read_key(game: str) -> str:
    """Where a seat's last read cards wait in its session."""
    return f"ml-read-{game}"


@bp.post("/g/<game>/cards-photo")
@with_game
@csrf_protected
@reads_photos
def cards_photo(game: str) -> Response:
    """Reads the cards in a photo for this seat; records nothing. Raises CsrfError."""
    from vision.decode import ImageError
    from vision.minotaur.cards import read_minotaur_cards
    from vision.sources import SourceError, decode_image

    seat = seat_of(game)
    if seat not in PLAYERS:
        flash(gettext("Refused: only a player sends photos of his cards"), "error")
        return back(game)
    try:
        stored = get_referee().kit(game)
        if stored is None:
            flash(
                gettext("Refused: this game was created without a sticker kit: choose the names"),
                "error",
            )
            return back(game, "hand-entry")
        kit = MinotaurKit.from_json(stored)
        data = upload_bytes("photo", int(current_app.config["MAX_CONTENT_LENGTH"]))
        check_image(data, "photo")
        reads = read_minotaur_cards(decode_image(data, "photo"), kit)
    except BadImage as e:
        flash(again(e.message), "error")
        return back(game, "hand-entry")
    except (SourceError, ImageError, KitError) as e:
        flash(again(reason_of(e)), "error")
        return back(game, "hand-entry")
    except ServiceError as e:
        flash(refusal(e), "error")
        return back(game)
    names = [r.card for r in reads if r.card is not None]
    refused = sum(1 for r in reads if r.card is None)
    session[read_key(game)] = names
    flash(read_words(names, refused), "ok" if names else "info")
    return back(game, "hand-entry")


def again(reason: str) -> str:
    """A photo refused, and what to do, in the request's language."""
    return gettext(
        "Refused: %(reason)s. Take the photo again, or choose the names.", reason=say(reason)
    )


def read_words(names: list[str], refused: int) -> str:
    """What a photo gave: the cards read, the codes refused (whole sentences per case)."""
    check = gettext("Check them in the boxes below, then record them.")
    if names and refused:
        read = ngettext(
            "Read %(num)d card: %(names)s; %(refused)s code(s) refused (another kit's, or not a "
            "card code).",
            "Read %(num)d cards: %(names)s; %(refused)s code(s) refused (another kit's, or not a "
            "card code).",
            len(names),
            names=", ".join(names),
            refused=refused,
        )
    elif names:
        read = ngettext(
            "Read %(num)d card: %(names)s.",
            "Read %(num)d cards: %(names)s.",
            len(names),
            names=", ".join(names),
        )
    elif refused:
        read = gettext(
            "Read 0 cards; %(refused)s code(s) refused (another kit's, or not a card code).",
            refused=refused,
        )
    else:
        read = gettext("Read 0 cards.")
    return f"{read} {check}"
