"""Home and new game: the form that makes a game (one per game this app serves, each with its
page module's fields), and the creator's one look at its seat links, one seat a screen.

Who may create a game is the organiser's choice (``referee serve --create``): anyone on the
network (``CREATE`` "anyone"), or only a browser that opened the organiser's link (the
tournament judge's, ``CREATE`` "organiser")."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response

from referee.service import ServiceError
from web.acting import reason_of
from web.games import default_module, page_for, seat_title, served
from web.i18n import gettext
from web.limits import check_idle_games, creates_games
from web.links import created_codes, join_path, remember_codes
from web.present import qr_svg
from web.request import (
    csrf_protected,
    csrf_token,
    get_referee,
    has_judge,
    may_create,
    refusal,
    with_game,
)

bp = Blueprint("home", __name__)


@bp.get("/")
def home() -> str:
    """The home page: a new game's form for each game this app serves (the game's own
    fields: its options, the players' names, the kit)."""
    csrf = csrf_token("")
    forms = [
        (pm, Markup(render_template(pm.templates["create"], csrf=csrf, **pm.create_context())))
        for pm in served().values()
    ]
    return render_template("home.html", forms=forms, csrf=csrf)


@bp.post("/new")
@csrf_protected
@creates_games
def new_game() -> Response:
    """Creates a game from the home form of the game it names (``game``; default the first
    this app serves). Raises CsrfError; a refused choice goes back to the form with the
    reason. Raises Forbidden when only the organiser creates games, TooManyRequests past this
    client's creation limit (:mod:`web.limits`)."""
    may_create()
    check_idle_games()
    name = request.form.get("game") or default_module().name
    pm = served().get(name)
    if pm is None:
        flash(gettext("Refused: game: no game %(name)s", name=repr(name[:40])), "error")
        return redirect(url_for("home.home"), 303)
    try:
        req = pm.create_request(request.form, request.files)
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=reason_of(e)), "error")
        return redirect(url_for("home.home"), 303)
    try:
        created = get_referee().create_game(
            name=pm.name,
            options=req.options,
            players=req.players,
            kit=req.kit,
            judged=has_judge(),
            strict=request.form.get("strict") == "on",
            hands_public=request.form.get("hands_public") == "1",
        )
    except ServiceError as e:
        flash(refusal(e), "error")
        return redirect(url_for("home.home"), 303)
    remember_codes(created.game, created.codes)
    return redirect(url_for("home.created", game=created.game), 303)


@bp.get("/g/<game>/created")
@with_game
def created(game: str) -> str:
    """The new game's seat links with their QR codes, one seat a screen (``?step=N``), for the
    browser that made it: each player scans his own, the other cannot see it at the same time.
    No judge's link: the server's tournament judge judges every game."""
    codes = created_codes(game)
    view = get_referee().view(game, "public")
    pm = page_for(view)
    base = request.host_url.rstrip("/")
    links = []
    if codes:
        for seat in pm.players:
            url = base + join_path(game, codes[seat])
            title = seat_title(pm, seat)
            links.append({"seat": seat, "title": title, "url": url, "qr": qr_svg(url)})
    try:
        step = max(0, min(int(request.args.get("step", "0")), len(links)))
    except ValueError:
        step = 0
    public = base + url_for("seat.seat_page", game=game)
    return render_template(
        "created.html",
        game=game,
        link=links[step] if step < len(links) else None,
        step=step,
        steps=len(links),
        next_title=links[step + 1]["title"] if step + 1 < len(links) else None,
        codes=bool(codes),
        public=public,
        public_qr=qr_svg(public),
        players=view.players,
        pages=pm,
    )
