"""Home and new game: the form that makes a game, and the creator's one look at its links."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from engine.profiles import PROFILE_DEFAULTS, SWITCH_DECISION, SWITCH_TYPES, Profile
from referee.service import ServiceError
from web.images import parse_kit_upload
from web.links import created_codes, join_path, remember_codes
from web.present import PROFILE_HELP, SEAT_TITLE, SWITCH_HELP, SWITCH_TITLE, qr_svg
from web.request import csrf_protected, csrf_token, get_referee, refusal, with_game

bp = Blueprint("home", __name__)


@bp.get("/")
def home() -> str:
    """The home page: a new game's form (profile, switches, who starts, the kit)."""
    return render_template(
        "home.html",
        profiles=[p.value for p in Profile],
        profile_help=PROFILE_HELP,
        switches=[
            (
                name,
                SWITCH_TITLE[name],
                SWITCH_DECISION[name],
                [(m.value, SWITCH_HELP[name][m.value]) for m in typ],
            )
            for name, typ in SWITCH_TYPES.items()
        ],
        defaults={p.value: PROFILE_DEFAULTS[p].to_json() for p in Profile},
        csrf=csrf_token(""),
    )


@bp.post("/new")
@csrf_protected
def new_game() -> Response:
    """Creates a game from the home form. Raises CsrfError; a refused choice goes back to the
    form with the reason."""
    f = request.form
    switches = {name: f[name] for name in SWITCH_TYPES if f.get(name) and f.get(name) != "default"}
    players = {p: f.get(p, "").strip()[:40] for p in ("hera", "zeus") if f.get(p, "").strip()}
    starting = f.get("starting", "default")
    catalogue = kit_json = None
    kit_file = request.files.get("kit")
    if kit_file is not None and kit_file.filename:
        try:  # the kit (secret included) stays on the server, beside the game
            kit = parse_kit_upload(kit_file.read(1024 * 1024), kit_file.filename[:60])
            catalogue, kit_json = kit.catalogue_for_game(), kit.to_json()
        except ValueError as e:
            flash(f"Refused: the kit file could not be read: {e}", "error")
            return redirect(url_for("home.home"), 303)
    try:
        created = get_referee().create_game(
            profile=f.get("profile", "rio-grande"),
            switches=switches,
            players=players,
            starting=starting if starting in ("hera", "zeus", "table") else None,
            catalogue=catalogue,
            kit=kit_json,
        )
    except ServiceError as e:
        flash(refusal(e), "error")
        return redirect(url_for("home.home"), 303)
    remember_codes(created.game, created.codes)
    return redirect(url_for("home.created", game=created.game), 303)


@bp.get("/g/<game>/created")
@with_game
def created(game: str) -> str:
    """The new game's join links with their QR codes, once, for the browser that made it."""
    codes = created_codes(game)
    base = request.host_url.rstrip("/")
    links = []
    if codes:
        for seat in ("hera", "zeus", "judge"):
            url = base + join_path(game, codes[seat])
            links.append({"seat": seat, "title": SEAT_TITLE[seat], "url": url, "qr": qr_svg(url)})
    public = base + url_for("seat.seat_page", game=game)
    return render_template(
        "created.html",
        game=game,
        links=links,
        public=public,
        public_qr=qr_svg(public),
        players=get_referee().view(game, "public").get("players", {}),
    )
