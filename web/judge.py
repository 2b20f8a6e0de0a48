"""The judge's tools: settling calls and irregularities, the corrections (undo, amend), a dead
end confirmed, an action recorded for a player, seat links reissued; and all the tables he
judges at a glance (``/judge``). His desk at ``/g/<game>`` is the seat page's (:mod:`web.desk`
says what it shows). Every tool refuses any other seat before the service is asked.
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, render_template, request, session
from werkzeug.wrappers import Response

from engine import NotationError, parse_action_text
from referee.service import ServiceError
from web.acting import back, submit
from web.forms import form_int
from web.links import join_path
from web.present import SEAT_TITLE, qr_svg
from web.request import (
    csrf_protected,
    get_referee,
    judge_only,
    judged_games,
    refusal,
    with_game,
)

bp = Blueprint("judge", __name__)

REISSUED = "hz_reissued"  # the session key of a reissued link, shown once


@bp.post("/g/<game>/judge/<what>")
@with_game
@csrf_protected
@judge_only
def judge_action(game: str, what: str) -> Response:
    """The judge's tools: ``undo``, ``amend``, ``stuck`` (confirm a declared dead end, D8),
    ``resolve``, ``reissue``, ``act`` (an action for a player, as text). Raises Forbidden."""
    ref = get_referee()
    f = request.form
    reason = f.get("reason", "").strip()[:500]
    try:
        if what == "undo":
            rec = ref.undo(game, "judge", form_int(f, "to"), reason)
            flash(f"Undone: the game continues after event {rec.body['to']}.", "ok")
        elif what == "amend":
            raw = parse_action_text(f.get("action", "")).to_json()
            ref.amend(game, "judge", form_int(f, "event"), raw, reason)
            flash(f"Event {f.get('event')} amended.", "ok")
        elif what == "stuck":
            submit(game, "judge", {"do": "declare_stuck"})
        elif what == "act":
            submit(game, "judge", parse_action_text(f.get("action", "")).to_json())
        elif what == "resolve":
            ref.resolve(game, "judge", form_int(f, "event"), reason)
            flash(f"Event {f.get('event')} settled.", "ok")
        elif what == "reissue":
            seat = f.get("seat", "")
            code = ref.reissue(game, "judge", seat)
            url = request.host_url.rstrip("/") + join_path(game, code)
            session[REISSUED] = {"game": game, "seat": seat, "url": url}
            flash(
                f"A new link for {SEAT_TITLE.get(seat, seat)}; the old one opens nothing now.", "ok"
            )
        else:
            abort(404)
    except NotationError as e:
        flash(f"Refused: the action does not read: {e}", "error")
    except ValueError as e:
        flash(f"Refused: {e}", "error")
    except ServiceError as e:
        flash(refusal(e), "error")
    return back(game)


@bp.get("/g/<game>/reissued")
@with_game
@judge_only
def reissued(game: str) -> str:
    """The reissued link, once, with its QR code (for the judge only)."""
    hit = session.pop(REISSUED, None)
    if not isinstance(hit, dict) or hit.get("game") != game:
        abort(404)
    return render_template(
        "reissued.html",
        game=game,
        seat=SEAT_TITLE.get(hit["seat"], hit["seat"]),
        url=hit["url"],
        qr=qr_svg(hit["url"]),
    )


@bp.get("/judge")
def tables() -> str:
    """All the tables this browser judges, at a glance."""
    games = judged_games()
    by_game = {t["game"]: t for t in get_referee().overview("judge")}
    rows = [by_game[g] for g in games if g in by_game]
    return render_template("tables.html", rows=rows, seat="judge", head=None)
