"""The judge's desk: the open calls and irregularities of a table, the ruling tool, the
corrections (undo, amend), a dead end confirmed, an action recorded for a player, seat links
reissued, and all the tables he judges at a glance (``/judge``).

Everything here comes from the judge's own view (``Referee.view(game, "judge")``: ``open`` lists
the calls and irregularities not settled yet) and the service's judge tools; every tool refuses
any other seat before the service is asked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, flash, render_template, request, session
from werkzeug.wrappers import Response

from engine import NotationError, parse_action_text
from referee.log import Record
from referee.service import Referee, ServiceError
from web.acting import back, submit
from web.forms import form_int
from web.fullstate import starting_seat
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


@dataclass(frozen=True)
class OpenCall:
    """A player's call for the judge, not settled yet."""

    seq: int
    seat: str
    time: str
    note: str


@dataclass(frozen=True)
class OpenIrregularity:
    """An irregularity (e.g. a card seen as another than recorded, D20), not settled yet."""

    seq: int
    seat: str
    time: str
    rule: str | None
    problem: str


def open_items(
    items: Sequence[Mapping[str, Any]],
) -> tuple[list[OpenCall], list[OpenIrregularity]]:
    """The judge view's ``open`` list (``{"seq", "kind", "seat", "time", "body"}``), split into
    calls and irregularities. An irregularity's rule and problem are in its body, or in its
    body's ``irregularity`` when an observation raised it."""
    calls: list[OpenCall] = []
    irregularities: list[OpenIrregularity] = []
    for item in items:
        body: Mapping[str, Any] = item.get("body") or {}
        seq, seat, time = int(item["seq"]), str(item.get("seat")), str(item.get("time", ""))
        if item.get("kind") == "call":
            calls.append(OpenCall(seq, seat, time, str(body.get("note") or "")))
            continue
        inner = body.get("irregularity")
        facts: Mapping[str, Any] = inner if isinstance(inner, Mapping) else body
        rule = facts.get("rule")
        problem = str(facts.get("problem") or "irregularity")
        irregularities.append(
            OpenIrregularity(seq, seat, time, str(rule) if rule else None, problem)
        )
    return calls, irregularities


def judge_context(
    ref: Referee, game: str, view: Mapping[str, Any], records: list[Record]
) -> dict[str, Any]:
    """What the judge's desk shows beyond the table: open calls and irregularities, the
    ruling asked for (``?pose=...&at=...``), the actions he may amend."""
    ruling = None
    pose = request.args.get("pose", "").strip()
    at_text = request.args.get("at", "").strip()
    if pose:
        ruling = rule_on(ref, game, pose, at_text)
    calls, irregularities = open_items(view.get("open", []))
    return {
        "irregularities": irregularities,
        "broken": view.get("broken"),
        "calls": calls,
        "ruling": ruling,
        "pose": pose,
        "pose_at": at_text,
        "actions": [r for r in records if r.kind == "action"],
        "setup_starting": starting_seat(ref, game),
        "legal": view.get("legal", []),
    }


def rule_on(ref: Referee, game: str, pose: str, at_text: str) -> dict[str, Any]:
    """The ruling on an action posed on the position after event ``at`` (default: now),
    without changing the game. Errors come back as ``{"error": ..., "rule": ...}``."""
    try:
        action = parse_action_text(pose)
        at = int(at_text) if at_text else None
    except NotationError as e:
        return {"error": f"the action does not read: {e}"}
    except ValueError:
        return {"error": f"'at' must be an event number, not {at_text!r}"}
    try:
        return dict(ref.ruling(game, "judge", action.to_json(), at=at))
    except ServiceError as e:
        return {"error": e.message, "rule": e.rule}


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
