"""The camera pages (issue 8): card photos from the seat page, and the camera page over the
table, with its confirmations. What the camera reads is :mod:`web.images`.

Hera & Zeus only (the sticker kit, the mat and the proposals are that game's): reached through
its page module (:mod:`web.games.herazeus.page` registers this blueprint, and its seat page links
here), never assumed by the page shell.

Both work as plain forms: a photo is read, remembered for this seat (the session) and shown
for the player to confirm; confirming goes through the same service calls as tapping names.
Nothing is recorded until a person confirms it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from markupsafe import Markup
from werkzeug.wrappers import Response

from referee.jsonin import loads_strict
from referee.service import ServiceError
from web.acting import back, submit
from web.errors import BadImage
from web.games import page_for, seat_title
from web.games.herazeus.images import (
    PHOTO_SESSION,
    PLAYER_SEATS,
    camera_for,
    entry_raw,
    game_kit,
    hand_observation,
    has_kit,
    read_frame,
    read_photo,
    remember_photo,
    remembered,
)
from web.i18n import gettext, lazy_gettext, ngettext, say, script_words
from web.judge import refused
from web.limits import reads_photos
from web.request import csrf_protected, csrf_token, get_referee, refusal, seat_of, with_game
from web.stills import archive, held_stills, save_still
from web.uploads import upload_bytes

bp = Blueprint("camera", __name__)

# what the camera page's script (web/static/camera.js) says, in the page's language
script_words(
    cam_asking=lazy_gettext("Asking for the camera…"),
    cam_on=lazy_gettext("Camera on (%(width)s x %(height)s). Point it at the mat."),
    cam_failed=lazy_gettext(
        "The camera could not start (%(error)s). Allow the camera for this page, or send a "
        "photo below."
    ),
    cam_stopped=lazy_gettext("Camera stopped."),
    cam_device=lazy_gettext("camera %(num)s"),
    cam_taking_still=lazy_gettext("Taking a full-resolution still…"),
    cam_no_still=lazy_gettext("No still could be taken; send a photo below."),
    cam_busy=lazy_gettext("The server is busy; the next frame waits."),
    cam_refused=lazy_gettext("Refused: %(message)s"),
    cam_refused_rule=lazy_gettext("Refused [%(rule)s]: %(message)s"),
    cam_error=lazy_gettext("error %(status)s"),
    cam_no_answer=lazy_gettext("No answer from the server; trying again."),
    cam_no_mat=lazy_gettext("The mat was not found."),
    cam_mat_not_found=lazy_gettext("Mat not found (%(ms)s ms)."),
    cam_pending=lazy_gettext("%(num)s change(s) seen once: checking with the next frame."),
    cam_read=lazy_gettext("Mat read in %(ms)s ms; %(num)s proposal(s)."),
    cam_read_matches=lazy_gettext("Mat read in %(ms)s ms; the table matches the record."),
    cam_mat_alt=lazy_gettext("The mat as the camera read it"),
    cam_framing_no_mat=lazy_gettext("%(width)s x %(height)s: the mat was not found."),
    cam_framing_yes=lazy_gettext(
        "%(width)s x %(height)s: %(least)s px per module at the farthest cell (%(median)s "
        "median); %(needs)s needed: face codes will read."
    ),
    cam_framing_marginal=lazy_gettext(
        "%(width)s x %(height)s: %(least)s px per module at the farthest cell (%(median)s "
        "median); %(needs)s needed: face codes will read only in part."
    ),
    cam_framing_no=lazy_gettext(
        "%(width)s x %(height)s: %(least)s px per module at the farthest cell (%(median)s "
        "median); %(needs)s needed: face codes will not read."
    ),
    cam_fixes=lazy_gettext("How to fix it (%(num)s)"),
    cam_what_changed=lazy_gettext("What changed"),
    cam_matches=lazy_gettext("The table matches the record."),
    cam_sure=lazy_gettext("%(percent)s%% sure"),
    cam_which_card=lazy_gettext("Which card?"),
    cam_not_entered=lazy_gettext("not entered (?)"),
    cam_confirm=lazy_gettext("Confirm"),
    cam_confirms_by=lazy_gettext("%(seat)s confirms this on his own phone."),
    cam_person_decides=lazy_gettext(
        "A person decides what to record: use the table page, or call the judge."
    ),
    cam_recorded=lazy_gettext("Recorded (event %(seq)s)."),
    cam_needs_more=lazy_gettext("The referee needs more: %(message)s Answer on the table page."),
    cam_table_changed=lazy_gettext(
        "The table changed since this picture; the next one will show it."
    ),
)


def _said(e: Exception) -> str:
    """An error's sentence in this request's language (a Say it carries, said again)."""
    return say(e.args[0]) if e.args and isinstance(e.args[0], str) else str(e)


def _back(game: str) -> Response:
    return back(game, "photo")


@bp.post("/g/<game>/photo")
@with_game
@csrf_protected
@reads_photos
def photo(game: str) -> Response:
    """A photo of cards from the seat page: read, remembered for this seat, shown for the
    player to confirm. Records nothing. Raises CsrfError."""
    seat = seat_of(game)
    try:
        cam = camera_for(game)
        data = upload_bytes("photo", int(current_app.config["MAX_CONTENT_LENGTH"]))
        read = read_photo(cam, data)
    except BadImage as e:
        flash(
            gettext(
                "Refused: %(reason)s. Take the photo again, or tap the names.",
                reason=say(e.message),
            ),
            "error",
        )
        return _back(game)
    except ServiceError as e:
        flash(refused(e), "error")
        return _back(game)
    remember_photo(game, seat, read)
    own = [c["name"] for c in read["cards"] if c["own"]]
    others = len(read["cards"]) - len(own)
    parts = [
        ngettext(
            "Read %(num)d of your cards: %(names)s.",
            "Read %(num)d of your cards: %(names)s.",
            len(own),
            names=", ".join(own),
        )
        if own
        else gettext("Read 0 of your cards.")
    ]
    if others:
        parts.append(ngettext("%(num)d of the other deck.", "%(num)d of the other deck.", others))
    if read["refused"]:
        n_refused = len(read["refused"])
        parts.append(ngettext("%(num)d code(s) refused.", "%(num)d code(s) refused.", n_refused))
    parts.append(gettext("Check them below, then confirm."))
    flash(" ".join(parts), "ok" if own else "info")
    return _back(game)


@bp.post("/g/<game>/photo/confirm")
@with_game
@csrf_protected
def photo_confirm(game: str) -> Response:
    """Enters the chosen cards the seat's photos read, as ``use`` says (``deal``, ``redraw``,
    ``draw``, ``hand``), through the same service calls as tapping their names; or forgets
    them (``use=clear``). Raises CsrfError."""
    seat = seat_of(game)
    use = request.form.get("use", "")
    kept = remembered(game, seat)
    if use == "clear" or kept is None:
        session.pop(PHOTO_SESSION, None)
        if use != "clear":
            flash(gettext("Refused: no photo was read for this seat; take one first."), "error")
        return _back(game)
    picked = set(request.form.getlist("pick"))
    chosen = [c for c in kept["cards"] if c["own"] and f"{c['deck']}:{c['serial']}" in picked]
    names = [str(c["name"]) for c in chosen]
    ref = get_referee()
    before = int(ref.head(game)["seq"])
    if use == "hand":
        if not names:
            flash(gettext("Refused: tick the cards to enter."), "error")
            return _back(game)
        try:  # all or nothing: one refused card records none (issue 12)
            ref.observe_all(game, seat, [hand_observation(seat, n) for n in names])
        except ServiceError as e:
            flash(refusal(e, names[0] if len(names) == 1 else ""), "error")
            return _back(game)
        flash(gettext("Recorded in your hand: %(cards)s.", cards=", ".join(names)), "ok")
    else:
        try:
            raw = entry_raw(use, seat, names)
        except ValueError as e:
            flash(gettext("Refused: %(reason)s", reason=_said(e)), "error")
            return _back(game)
        submit(game, seat, raw)
        if int(ref.head(game)["seq"]) == before:
            return _back(game)
    if int(ref.head(game)["seq"]) > before:
        gone = {(c["deck"], c["serial"]) for c in chosen}
        kept["cards"] = [c for c in kept["cards"] if (c["deck"], c["serial"]) not in gone]
        if any(c["own"] for c in kept["cards"]):
            session[PHOTO_SESSION] = kept
        else:  # everything read is entered: the list goes
            session.pop(PHOTO_SESSION, None)
    return _back(game)


def _camera_page(game: str, result: Mapping[str, Any] | None = None, status: int = 200) -> Any:
    seat = seat_of(game)
    ref = get_referee()
    view = ref.view(game, seat)
    pm = page_for(view)
    html = render_template(
        "herazeus/camera.html",
        game=game,
        seat=seat,
        seat_title=seat_title(pm, seat),
        pages=pm,
        head=ref.head(game),
        csrf=csrf_token(game),
        has_kit=has_kit(game),
        keeps=archive() is not None and seat in PLAYER_SEATS,
        held=seat in PLAYER_SEATS and archive() is not None and held_stills().get(game, seat),
        secure=request.is_secure or request.host.split(":")[0] in ("localhost", "127.0.0.1"),
        result=result,
        image=Markup(result["image"]) if result and result.get("image") else None,
        view=view,
    )
    return html, status


@bp.get("/g/<game>/camera")
@with_game
def camera_page(game: str) -> Any:
    """The camera page of a seat or the judge (the public is sent to his table page)."""
    if seat_of(game) == "public":
        flash(
            gettext("The camera page is for the players and the judge: open your join link."),
            "error",
        )
        return back(game)
    return _camera_page(game)


@bp.post("/g/<game>/camera")
@with_game
@csrf_protected
def camera_photo(game: str) -> Any:
    """A photo of the table sent from the camera page without the live camera (plain HTTP or
    no script): read like a frame and shown with its proposals. Records nothing."""
    try:
        cam = camera_for(game)
        data = upload_bytes("frame", int(current_app.config["MAX_CONTENT_LENGTH"]))
        result = read_frame(cam, data)
    except ServiceError as e:
        flash(refused(e), "error")
        return redirect(url_for("camera.camera_page", game=game), 303)
    return _camera_page(game, result)


@bp.post("/g/<game>/camera/confirm")
@with_game
@csrf_protected
def camera_confirm(game: str) -> Response:
    """Confirms one proposal from the camera page without script: the request body it
    carries goes to the service as the API would send it. Raises CsrfError."""
    seat = seat_of(game)
    to_camera = redirect(url_for("camera.camera_page", game=game), 303)
    try:
        body = loads_strict(request.form.get("body", ""), "proposal", max_bytes=4096)
        if not isinstance(body, dict):
            raise ValueError(gettext("proposal: not an object"))
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=_said(e)), "error")
        return to_camera
    endpoint = request.form.get("endpoint", "")
    if endpoint == "actions" and isinstance(body.get("action"), dict):
        action = dict(body["action"])
        card = request.form.get("card", "").strip()
        if action.get("do") == "play" and card:
            action["card"] = card[:40]
        submit(game, seat, action)
    elif endpoint == "observations":
        try:
            get_referee().observe(game, seat, body)
            flash(gettext("Recorded: %(card)s.", card=body.get("card")), "ok")
        except ServiceError as e:
            flash(refused(e), "error")
    else:
        flash(
            gettext("Refused: this proposal is for a person to decide; record it by hand."),
            "error",
        )
    return to_camera


# ---- the club's test photos (issue 38): a still saved with its player's consent -------------


def _to_camera(game: str) -> Response:
    return redirect(url_for("camera.camera_page", game=game), 303)


def _keep_refused(game: str) -> Response | None:
    """The refusal of a save (or of its page) where none may be: the server keeps no test
    photos, or the seat is not a player's (the judge's and the public's stills are not his to
    give). None where it may."""
    if archive() is None:
        flash(
            gettext("Refused: this server keeps no test photos (it was started without --stills)."),
            "error",
        )
        return _to_camera(game) if seat_of(game) != "public" else back(game)
    if seat_of(game) not in PLAYER_SEATS:
        flash(
            gettext("Refused: only a player gives his own stills to the club's test photos."),
            "error",
        )
        return _to_camera(game) if seat_of(game) != "public" else back(game)
    return None


@bp.get("/g/<game>/camera/keep")
@with_game
def keep_page(game: str) -> Any:
    """The player's last still, offered to the club's test photos: the codes the camera read
    in it to tick (none ticked), and the consent (unticked). Only on a server started with
    ``--stills``, only for a player's own still."""
    refused_here = _keep_refused(game)
    if refused_here is not None:
        return refused_here
    seat = seat_of(game)
    held = held_stills().get(game, seat)
    kit = game_kit(game) if held is not None else None
    codes = []
    for text in held.codes if held is not None else ():
        card = kit.card_for(text) if kit is not None else None
        codes.append({"text": text, "name": card.notation(seat) if card is not None else None})
    html = render_template(
        "herazeus/keep.html",
        game=game,
        seat=seat,
        csrf=csrf_token(game),
        held=held is not None,
        codes=codes,
    )
    return html, 200


@bp.post("/g/<game>/camera/keep")
@with_game
@csrf_protected
def keep_still(game: str) -> Response:
    """Saves the player's last still, with the codes he ticks as its label, to the club's test
    photos, when he ticked the consent; or forgets it (``use=forget``). Writes nothing
    otherwise. Raises CsrfError."""
    refused_here = _keep_refused(game)
    if refused_here is not None:
        return refused_here
    seat = seat_of(game)
    hold = held_stills()
    to_keep = redirect(url_for("camera.keep_page", game=game), 303)
    if request.form.get("use") == "forget":
        hold.drop(game, seat)
        flash(gettext("Forgotten: the still was not saved."), "ok")
        return _to_camera(game)
    held = hold.get(game, seat)
    if held is None:
        flash(
            gettext(
                "Refused: no still of yours waits to be saved; take a full-resolution still "
                "on the camera page first."
            ),
            "error",
        )
        return _to_camera(game)
    if request.form.get("consent") != "yes":
        flash(gettext("Nothing saved: tick the consent to save this still."), "info")
        return to_keep
    ticked = request.form.getlist("code")
    for text in ticked:
        if text not in held.codes:
            flash(
                gettext("Refused: the code %(code)s was not read in this still.", code=text[:40]),
                "error",
            )
            return to_keep
    if not ticked:
        flash(gettext("Refused: tick the codes this still shows (none is ticked)."), "error")
        return to_keep
    folder = archive()
    assert folder is not None  # _keep_refused
    try:
        name = save_still(folder, held.data, [c for c in held.codes if c in set(ticked)])
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=_said(e)), "error")
        return to_keep
    except OSError as e:
        flash(
            gettext(
                "The test photo could not be written (%(error)s); tell the organiser.",
                error=e.strerror or type(e).__name__,
            ),
            "error",
        )
        return to_keep
    hold.drop(game, seat)
    flash(
        ngettext(
            "Saved to the club's test photos as %(name)s, with %(num)d code.",
            "Saved to the club's test photos as %(name)s, with %(num)d codes.",
            len(ticked),
            name=name,
        ),
        "ok",
    )
    return _to_camera(game)
