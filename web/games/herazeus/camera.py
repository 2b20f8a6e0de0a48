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
    camera_for,
    entry_raw,
    hand_observation,
    has_kit,
    read_frame,
    read_photo,
    remember_photo,
    remembered,
)
from web.limits import reads_photos
from web.request import csrf_protected, csrf_token, get_referee, refusal, seat_of, with_game
from web.uploads import upload_bytes

bp = Blueprint("camera", __name__)


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
        flash(f"Refused: {e.message}. Take the photo again, or tap the names.", "error")
        return _back(game)
    except ServiceError as e:
        flash(refusal(e), "error")
        return _back(game)
    remember_photo(game, seat, read)
    own = [c["name"] for c in read["cards"] if c["own"]]
    others = len(read["cards"]) - len(own)
    parts = [f"Read {len(own)} of your cards" + (f": {', '.join(own)}" if own else "")]
    if others:
        parts.append(f"{others} of the other deck")
    if read["refused"]:
        parts.append(f"{len(read['refused'])} code(s) refused")
    flash(". ".join(parts) + ". Check them below, then confirm.", "ok" if own else "info")
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
            flash("Refused: no photo was read for this seat; take one first.", "error")
        return _back(game)
    picked = set(request.form.getlist("pick"))
    chosen = [c for c in kept["cards"] if c["own"] and f"{c['deck']}:{c['serial']}" in picked]
    names = [str(c["name"]) for c in chosen]
    ref = get_referee()
    before = int(ref.head(game)["seq"])
    if use == "hand":
        if not names:
            flash("Refused: tick the cards to enter.", "error")
            return _back(game)
        try:  # all or nothing: one refused card records none (issue 12)
            ref.observe_all(game, seat, [hand_observation(seat, n) for n in names])
        except ServiceError as e:
            flash(refusal(e, names[0] if len(names) == 1 else ""), "error")
            return _back(game)
        flash(f"Recorded in your hand: {', '.join(names)}.", "ok")
    else:
        try:
            raw = entry_raw(use, seat, names)
        except ValueError as e:
            flash(f"Refused: {e}", "error")
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
        flash("The camera page is for the players and the judge: open your join link.", "error")
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
        flash(refusal(e), "error")
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
            raise ValueError("proposal: not an object")
    except ValueError as e:
        flash(f"Refused: {e}", "error")
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
            flash(f"Recorded: {body.get('card')}.", "ok")
        except ServiceError as e:
            flash(refusal(e), "error")
    else:
        flash("Refused: this proposal is for a person to decide; record it by hand.", "error")
    return to_camera
