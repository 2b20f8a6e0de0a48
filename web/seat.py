"""The seat pages: ``/g/<game>`` for whoever the cookie says (a player's seat, the judge's desk
or the public table) and the forms a player posts (an action, an answer, a card seen, a call
for the judge).

HTML first (STYLE.md 13): every page works as plain forms that post to a route here, which calls
the referee service and redirects back (post/redirect/get); the script in ``static/app.js`` only
adds live updates, head tracking and tapping the drawing. Every page is cut for the seat the
request holds (:func:`web.request.seat_of`): what a page shows comes from ``Referee.view`` and
``Referee.log`` for that seat. Refusals are shown on the page they came from with the rule id
and the reason; nothing is changed by a refused request (the service guarantees it).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, flash, render_template, request
from markupsafe import Markup
from werkzeug.wrappers import Response

from engine import Player
from engine.cards import HOSTAGE_NAME
from referee.herazeus import hz_view, side_of
from referee.jsonin import loads_strict
from referee.service import NeedsInput, ServiceError, fill_input
from web.acting import back, forget_own_question, own_question, submit
from web.desk import judge_context
from web.drawing import table_svg
from web.forms import form_action, form_int, parse_answer
from web.images import has_kit, photo_context
from web.present import (
    GROUPS,
    NEEDS_TEXT,
    PROFILE_HELP,
    SEAT_TITLE,
    action_label,
    controls_for,
    describe_record,
    said,
    setup_of,
    taken_names,
)
from web.request import csrf_protected, csrf_token, get_referee, refusal, seat_of, with_game

bp = Blueprint("seat", __name__)

TEMPLATES = {"hera": "seat.html", "zeus": "seat.html", "judge": "judge.html"}


def page_context(game: str, seat: str) -> dict[str, Any]:
    """What the page of ``seat`` at ``game`` shows. Raises NotFound."""
    ref = get_referee()
    view = ref.view(game, seat)
    records = ref.log(game, seat)
    log = [describe_record(r, seat) for r in records]
    ctx: dict[str, Any] = {
        "game": game,
        "seat": seat,
        "seat_title": SEAT_TITLE[seat],
        "view": view,
        "head": ref.head(game),
        "svg": Markup(table_svg(view, seat=seat)),
        "log": list(reversed(log[-40:] if seat != "judge" else log)),
        "csrf": csrf_token(game),
        "players": view.get("players", {}),
        "phase": view.get("phase"),
        "fingerprint": ref.fingerprint() if view.get("phase") == "over" else None,
        "corrections": sum(1 for r in records if r.kind in ("undo", "amend")),
        "profile_help": PROFILE_HELP,
    }
    turn = view.get("turn") or {}
    ctx["points_left"] = int(turn.get("ap", 0)) - int(turn.get("used", 0))
    if seat in ("hera", "zeus"):
        p = Player.parse(seat)
        hz = hz_view(view)
        names = ref.card_names(game)
        mine = side_of(hz, p.key)
        hand = list(mine["hand"])
        held = [*hand, *(x for col in mine["field"] for x in col)]
        ctx.update(
            their_names=names[p.other.key],
            me=p,
            mine=mine,
            theirs=side_of(hz, p.other.key),
            own_names=names[p.key],
            taken_names=taken_names(p, held),
            playable=hz.get("playable", []),
            controls=controls_for(view.get("legal", [])),
            groups=GROUPS,
            label=action_label,
            asked=view.get("asked"),
            need=own_question(game),
            needs_text=NEEDS_TEXT,
            setup=setup_of(hz, p) if view.get("phase") == "setup" else None,
            hostage=HOSTAGE_NAME[p],
            photo=photo_context(game, seat, view, view.get("legal", [])),
            has_kit=has_kit(game),
        )
    elif seat == "judge":
        ctx.update(judge_context(ref, game, view, records))
    return ctx


@bp.get("/g/<game>")
@with_game
def seat_page(game: str) -> str:
    """The page of whoever the cookie says: a player's seat, the judge's desk or the public
    table. Raises NotFound for an unknown game."""
    seat = seat_of(game)
    return render_template(TEMPLATES.get(seat, "public.html"), **page_context(game, seat))


@bp.post("/g/<game>/act")
@with_game
@csrf_protected
def act(game: str) -> Response:
    """Submits the action a seat's form describes. Raises CsrfError, Forbidden."""
    seat = seat_of(game)
    f = request.form
    try:
        if f.get("raw") and f.get("needs"):  # the answer to a question for the submitter
            raw = loads_strict(f["raw"], "raw", max_bytes=8000, max_depth=8)
            if not isinstance(raw, dict):
                raise ValueError("raw: not an action")
            fill_input(raw, f["needs"], parse_answer(f["needs"], f))
        else:
            raw = form_action(f, seat)
    except (ValueError, json.JSONDecodeError) as e:
        flash(f"Refused: {e}", "error")
        return back(game)
    if f.get("cancel"):
        forget_own_question()
        return back(game)
    submit(game, seat, raw)
    return back(game)


@bp.post("/g/<game>/answer")
@with_game
@csrf_protected
def answer(game: str) -> Response:
    """Answers the question the referee asked this seat (``view["asked"]``)."""
    seat = seat_of(game)
    needs = request.form.get("needs", "")
    try:
        value = parse_answer(needs, request.form)
        receipt = get_referee().answer(game, seat, value)
    except ValueError as e:
        flash(f"Refused: {e}", "error")
        return back(game)
    except NeedsInput as e:
        who = " and ".join(SEAT_TITLE.get(s, s) for s in e.asked)
        flash(f"Thank you. Now waiting for {who}: {e.message}", "info")
        return back(game)
    except ServiceError as e:
        flash(refusal(e), "error")
        return back(game)
    flash(said(receipt), "ok")
    return back(game)


@bp.post("/g/<game>/observe")
@with_game
@csrf_protected
def observe(game: str) -> Response:
    """Records a card this seat sees (a scan by hand: tapping its name)."""
    seat = seat_of(game)
    f = request.form
    obs: dict[str, Any] = {
        "player": f.get("player", seat),
        "zone": f.get("zone", "hand"),
        "card": f.get("card", ""),
        "source": "manual",
    }
    if obs["zone"] == "field":
        try:
            obs["column"], obs["position"] = form_int(f, "column"), form_int(f, "position")
        except ValueError as e:
            flash(f"Refused: {e}", "error")
            return back(game)
    try:
        get_referee().observe(game, seat, obs)
        flash(f"Recorded: {obs['card']}.", "ok")
    except ServiceError as e:
        flash(refusal(e), "error")
    return back(game)


@bp.post("/g/<game>/call")
@with_game
@csrf_protected
def call_judge(game: str) -> Response:
    """Calls the judge to the table (with an optional note)."""
    seat = seat_of(game)
    try:
        get_referee().call_judge(game, seat, request.form.get("note", "").strip()[:500])
        flash("The judge has been called to your table.", "ok")
    except ServiceError as e:
        flash(refusal(e), "error")
    return back(game)
