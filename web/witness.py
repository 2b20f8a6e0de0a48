"""``POST /g/<game>/witness``: a page reports a head the server no longer serves (issue 31).

Every seat page and the judge's console keep the newest head they were shown per game, in the
browser (``web/static/app.js``, ``checkChain``). When the server later serves an older head,
or another record at a sequence the browser knows, the page shows an alarm, stops acting and
posts here what it saw (``seen_seq``, ``seen_hash``) and what it was served (``served_seq``,
``served_hash``), with the page's CSRF token. The service records it as an irregularity for
the judge (:mod:`referee.witnessing`); the answer is ``{"event": seq}`` (201), or the usual
error body (403 for the public, 422 for a malformed field).
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request
from werkzeug.wrappers import Response

from web.request import csrf_protected, get_referee, seat_of, with_game

bp = Blueprint("witness", __name__)


def _number(text: str) -> int | str:
    """A form field's whole number; anything else as it came (the service names it)."""
    return int(text) if text.isdigit() and len(text) <= 10 else text


@bp.post("/g/<game>/witness")
@with_game
@csrf_protected
def witness(game: str) -> Response:
    """Records what this device saw against what it was served (see the module)."""
    f = request.form
    seat = seat_of(game)
    r = get_referee().report_head(
        game,
        seat,
        (_number(f.get("seen_seq", "")), f.get("seen_hash", "")),
        (_number(f.get("served_seq", "")), f.get("served_hash", "")),
    )
    resp = jsonify({"event": r.seq})
    resp.status_code = 201
    return resp
