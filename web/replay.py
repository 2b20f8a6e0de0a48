"""Replay, the offline report and the log export: a game after the fact, cut for the seat
that asks (the judge's is whole)."""

from __future__ import annotations

from flask import Blueprint, render_template, request
from markupsafe import Markup
from werkzeug.wrappers import Response

from web.games import page_for, page_of
from web.middleware import CSP
from web.present import replay_frames
from web.report import render_report, style_source
from web.request import get_referee, seat_of, with_game

bp = Blueprint("replay", __name__)


@bp.get("/g/<game>/replay")
@with_game
def replay(game: str) -> str:
    """One event at a time, with the table after it (``?at=N``; default the last)."""
    ref = get_referee()
    seat = seat_of(game)
    view = ref.view(game, seat)
    pm = page_for(view)
    frames = replay_frames(ref, pm, game, seat)
    at = request.args.get("at", type=int)
    if at is None or not 0 <= at < len(frames):
        at = len(frames) - 1
    fr = frames[at]
    return render_template(
        "replay.html",
        game=game,
        seat=seat,
        at=at,
        last=len(frames) - 1,
        frame=fr,
        svg=Markup(pm.table_svg(fr["view"], seat=seat, tappable=False)),
        citations=pm.citations(fr["rules"]),
        head=ref.head(game),
        players=view.players,
        pages=pm,
    )


@bp.get("/g/<game>/report.html")
@with_game
def report(game: str) -> Response:
    """The offline report: every event with its picture and rules, one self-contained file.
    It opens in the browser (``?download=1``: saved as a file)."""
    ref = get_referee()
    seat = seat_of(game)
    html = render_report(ref, game, seat, fingerprint=ref.fingerprint())
    resp = Response(html, mimetype="text/html")
    # it opens in the browser; ?download=1 saves it as a file
    how = "attachment" if request.args.get("download") else "inline"
    resp.headers["Content-Disposition"] = f'{how}; filename="{game}-{seat}.html"'
    # its inline style sheet, and only it, applies when it opens in the browser
    csp = CSP.replace("style-src 'self'", f"style-src {style_source(page_of(ref, game))}")
    resp.headers["Content-Security-Policy"] = csp
    return resp


@bp.get("/g/<game>/export.jsonl")
@with_game
def export(game: str) -> Response:
    """The log as JSON lines, cut for the seat (the judge's is whole)."""
    seat = seat_of(game)
    text = get_referee().export(game, seat)
    resp = Response(text, mimetype="application/x-ndjson")
    resp.headers["Content-Disposition"] = f'attachment; filename="{game}-{seat}.jsonl"'
    return resp
