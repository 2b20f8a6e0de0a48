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

from flask import Blueprint, flash, render_template, request, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response

from referee.games import game_named
from referee.jsonin import loads_strict
from referee.language import N_
from referee.log import Record
from referee.models import Caution
from referee.narration import takeback_of
from referee.service import NeedsInput, ServiceError, fill_input
from web.acting import back, forget_own_question, own_question, reason_of, submit, who_and
from web.auth import recovery_words
from web.desk import judge_context
from web.events import event_of_game
from web.games import PageModule, page_for, page_of, seat_title, seats
from web.i18n import gettext, lazy_gettext, say, script_words
from web.present import describe_record, said
from web.request import (
    bearer,
    csrf_protected,
    csrf_token,
    get_referee,
    held_seat,
    refusal,
    seat_of,
    seat_token,
    with_game,
)

bp = Blueprint("seat", __name__)

# the words static/app.js shows on the game's pages (words(key, {name: value}) there)
script_words(
    chain_other_event=lazy_gettext("event %(event)s is not the event this device saw"),
    chain_shorter=lazy_gettext(
        "the log is shorter than this device saw (event %(seen)s, now %(served)s)"
    ),
    chain_alarm=lazy_gettext(
        "Warning: the server shows an older or different record than this device saw: "
        "%(problem)s. This page does nothing more until the judge has looked. %(told)s"
    ),
    chain_accept=lazy_gettext("The judge has looked: go on with this record"),
    judge_being_told=lazy_gettext("The judge is being told."),
    judge_told=lazy_gettext("The judge has been told."),
    judge_not_told=lazy_gettext("The judge could not be told: call the judge."),
    call_the_judge=lazy_gettext("Call the judge."),
    card_chosen=lazy_gettext("%(card)s chosen: tap its place on your side of the table"),
    more_actions=lazy_gettext("more actions"),
    unreachable=lazy_gettext(
        "The referee could not be reached; nothing was sent twice. Check the connection and "
        "try again."
    ),
)
SHOWN = 40  # the records a player's page shows, the latest first
DESK_SHOWN = 200  # the records the judge's desk shows (the replay and the export hold them all)
LIVE_HEADER = "X-Live-Refresh"  # sent by app.js's fetches of a page it parses for live parts


def page_context(game: str, seat: str) -> dict[str, Any]:
    """What the page of ``seat`` at ``game`` shows: the shell's part (status, questions, log,
    the judge's desk) and the game's (its page module's drawing and context). Raises
    NotFound."""
    ref = get_referee()
    view = ref.view(game, seat)
    wire = view.to_json()  # what the templates and the drawing read: the view's JSON
    pm = page_for(view)
    side = request.args.get("side") if seat not in pm.players else None
    side = side if side in pm.players else pm.players[0]
    records = ref.log(game, seat)
    # a page shows the last records only: only those are worded (an undo after one of them is
    # among them, so its mark is found there too), so a page costs the same in a long game
    shown = records[-(DESK_SHOWN if seat == "judge" else SHOWN) :]
    gone = undone_by(shown)
    log = [{**describe_record(pm, r, seat, records), "undone": gone.get(r.seq)} for r in shown]
    ctx: dict[str, Any] = {
        "game": game,
        "seat": seat,
        "seat_title": seat_title(pm, seat),
        "view": view,  # the typed view: the templates read its fields and its board's
        "board": view.board,
        "head": view.head,  # the view's own: the same snapshot as the table
        "svg": Markup(pm.table_svg(wire, seat=seat, side=side) + pm.table_text(wire, seat=seat)),
        "side_choice": side_choice(pm, game, seat, side),
        "log": list(reversed(log)),
        "log_earlier": len(records) - len(shown),  # records not shown (in the replay)
        "csrf": csrf_token(game),
        "players": view.players,
        "phase": view.phase,
        "fingerprint": ref.fingerprint() if view.phase == "over" else None,
        **correction_counts(ref.corrections(game, seat), records),
        **shell_context(pm),
        **pm.common_context(view),
        **seats_context(game, seat),
        "at_event": event_of_game(game),  # a game an event made: its round clock (T6, T7)
    }
    if seat in pm.players:
        ctx.update(
            asked=view.asked or None,
            take_back=ref.take_back_refusal(game, seat) is None,
            put_back=put_back(pm, records, seat),
            need=own_question(game),
            **pm.seat_context(ref, game, seat, view),
        )
    elif seat == "judge":
        ctx.update(judge_context(ref, pm, game, view, records))
        ctx.update(pm.judge_context(ref, game, view))
    return ctx


def correction_counts(corrections: list[Record], records: list[Record]) -> dict[str, int]:
    """How often the record was corrected (``corrections``: its undo and amend records), by
    whom (the status line, issue 31 item 9): by the judge (``corrections``), by a take-back
    both players agreed to (``takebacks``), by a correction both players approved at a table
    without a judge (``agreed``). ``records``: the log they are in."""
    out = {"corrections": 0, "takebacks": 0, "agreed": 0}
    for r in corrections:
        if r.kind not in ("undo", "amend"):
            continue
        if r.seat == "judge":
            out["corrections"] += 1
        elif takeback_of(r, records) is not None:
            out["takebacks"] += 1
        else:
            out["agreed"] += 1
    return out


def undone_by(records: list[Record]) -> dict[int, int]:
    """Which action records a later correction undid or replaced: event -> the correction."""
    live: list[int] = []
    out: dict[int, int] = {}
    for r in records:
        if r.kind == "action":
            live.append(r.seq)
        elif r.kind == "undo" and isinstance(r.body.get("to"), int):
            to = int(r.body["to"])
            for seq in [s for s in live if s > to]:
                out[seq] = r.seq
            live = [s for s in live if s <= to]
        elif r.kind == "amend" and isinstance(r.body.get("event"), int):
            out[int(r.body["event"])] = r.seq
    return out


def put_back(pm: PageModule, records: list[Record], seat: str) -> list[str]:
    """What this seat is told after a correction, until the next action: each action a
    take-back or the judge's undo undid, as this seat reads it, and what to put back
    on the table, the latest first."""
    for i in range(len(records) - 1, 0, -1):
        r = records[i]
        if r.kind == "action":
            return []
        if r.kind == "decline":
            asked = r.body.get("proposal")
            proposal = records[asked] if isinstance(asked, int) and asked < len(records) else None
            if proposal is not None and "takeback" in proposal.body:
                rule = game_named(pm.name).takeback_rule
                if r.seat == seat:
                    return [
                        gettext(
                            "You declined the take-back: the action stands (%(rule)s).", rule=rule
                        )
                    ]
                return [
                    gettext(
                        "%(who)s declined the take-back: the action stands (%(rule)s).",
                        who=seat_title(pm, r.seat),
                        rule=rule,
                    )
                ]
            continue
        if r.kind != "undo":
            continue
        approved = records[i - 1]
        asked = approved.body.get("proposal") if approved.kind == "approve" else None
        proposal = records[asked] if isinstance(asked, int) and asked < len(records) else None
        taken = proposal is not None and "takeback" in proposal.body
        # marked here, said by the page module (its sentence holds it)
        lead = N_("Taken back") if taken else N_("Undone by the judge")
        gone = [seq for seq, by in undone_by(records[: i + 1]).items() if by == r.seq]
        return [pm.put_back_words(records[seq], seat, lead) for seq in sorted(gone, reverse=True)]
    return []


def side_choice(pm: PageModule, game: str, seat: str, side: str) -> list[dict[str, Any]]:
    """The judge's and the public's choice of the side the drawing is seen from (issue 13,
    item 2): a link per player, the chosen one marked; none for a player (he sees his own)."""
    if seat in pm.players:
        return []
    return [
        {
            "title": seat_title(pm, p),
            "url": url_for("seat.seat_page", game=game, side=p),
            "current": p == side,
        }
        for p in pm.players
    ]


def seats_context(game: str, seat: str) -> dict[str, Any]:
    """Who holds the seats: the open requests this seat may approve, the open correction
    proposals (a table without a judge), this browser's own request while it waits, and the
    seat this browser's key opens no more because it is held (two devices used it)."""
    ref = get_referee()
    token = seat_token(game)
    waiting = ref.request_of(game, token) if seat == "public" and token else None
    held = held_seat(game) if seat == "public" else None
    return {"news": ref.seat_news(game, seat), "waiting": waiting, "held": held}


def shell_context(pm: PageModule) -> dict[str, Any]:
    """What the shell's templates ask of the game: its page module (``pages``), the parts
    its templates fill (``parts``), the seats and their titles, the take-back rule it cites."""
    return {
        "pages": pm,
        "takeback_rule": game_named(pm.name).takeback_rule,
        "parts": pm.templates,
        "seats": seats(pm),
        "title": lambda s: say(seat_title(pm, str(s))),  # "Judge" in the reader's language
        "titles": lambda ss: who_and(pm, ss),
        "question_text": pm.question_text,
    }


def pages_or_refuse(game: str) -> PageModule | None:
    """The page module of ``game`` for a posted form; None, with the refusal
    flashed, when the service refuses (an unknown game)."""
    try:
        return page_of(get_referee(), game)
    except ServiceError as e:
        flash(refusal(e), "error")
        return None


@bp.get("/g/<game>")
@with_game
def seat_page(game: str) -> str:
    """The page of whoever the cookie says: a player's seat, the judge's desk or the public
    table. Raises NotFound for an unknown game."""
    seat = seat_of(game)
    new_recovery_code(game, seat)
    ctx = page_context(game, seat)
    if seat == "judge":
        return render_template("judge.html", **ctx)
    if seat == "public":
        ctx["replaced"] = replaced_note(game, ctx["pages"])
    return render_template("seat.html" if seat in ctx["pages"].players else "public.html", **ctx)


def new_recovery_code(game: str, seat: str) -> None:
    """Shows the device holding a seat its new recovery code, once, when the seat has none (at
    a table without a judge, after a move the device holding the seat approved: the move voided
    the old code, issue 31 item 1). Only on a page the browser shows: never on the live
    updates' fetches (header ``X-Live-Refresh``: that page is parsed for its live parts, and
    dropped when the seat changed), never for a Bearer script (its ``GET`` of the game)."""
    if seat in ("judge", "public") or bearer() is not None or request.headers.get(LIVE_HEADER):
        return
    code = get_referee().issue_recovery(game, seat, seat_token(game))
    if code is not None:
        flash(recovery_words(seat_title(page_of(get_referee(), game), seat), code), "recovery")


def replaced_note(game: str, pm: PageModule) -> str | None:
    """What a phone whose seat link was replaced is told, instead of silently showing the
    public table (issue 13, item 5): which seat, by whom, when, and what to do."""
    token = seat_token(game)
    hit = get_referee().replaced(game, token) if token else None
    if hit is None:
        return None
    seat, r = hit
    values = {"title": seat_title(pm, seat), "time": r.time[11:16], "event": r.seq}
    if r.kind == "reissue":
        return gettext(
            "This phone held %(title)s's seat until the judge reissued %(title)s's link at "
            "%(time)s UTC (event %(event)s). Ask the judge for the new link.",
            **values,
        )
    if r.body.get("recovery"):
        return gettext(
            "This phone held %(title)s's seat until it moved to another device with %(title)s's "
            "recovery code at %(time)s UTC (event %(event)s). If that was not you, open "
            "%(title)s's link again and take the seat back with the code.",
            **values,
        )
    if r.seat == "judge":
        return gettext(
            "This phone held %(title)s's seat until it moved to another device, approved by the "
            "judge at %(time)s UTC (event %(event)s). If that was not you, call the judge.",
            **values,
        )
    return gettext(
        "This phone held %(title)s's seat until it moved to another device, approved on this "
        "phone at %(time)s UTC (event %(event)s). If that was not you, open %(title)s's link "
        "again and take the seat back with its recovery code.",
        **values,
    )


@bp.post("/g/<game>/act")
@with_game
@csrf_protected
def act(game: str) -> Response:
    """Submits the action a seat's form describes. Raises CsrfError, Forbidden."""
    seat = seat_of(game)
    f = request.form
    if f.get("cancel"):  # before the answer is read: an empty one must not keep the question
        forget_own_question()
        return back(game)
    pm = pages_or_refuse(game)
    if pm is None:
        return back(game)
    try:
        if f.get("confirmed"):  # the player confirmed an action the guardian warned of
            raw = loads_strict(f["confirmed"], "confirmed", max_bytes=8000, max_depth=8)
            if not isinstance(raw, dict):
                raise ValueError("confirmed: not an action")
        elif f.get("raw") and f.get("needs"):  # the answer to a question for the submitter
            raw = loads_strict(f["raw"], "raw", max_bytes=8000, max_depth=8)
            if not isinstance(raw, dict):
                raise ValueError("raw: not an action")
            fill_input(raw, f["needs"], pm.parse_answer(f["needs"], f))
        else:
            raw = pm.form_action(f, seat)
    except (ValueError, json.JSONDecodeError) as e:
        flash(gettext("Refused: %(reason)s", reason=reason_of(e)), "error")
        return back(game)
    if not f.get("confirmed"):
        try:
            cautions = get_referee().guard(game, seat, raw)
        except ServiceError:  # the submission below says why
            cautions = []
        if cautions:
            return confirm_page(game, seat, pm, raw, cautions)
    submit(game, seat, raw)
    return back(game)


def confirm_page(
    game: str, seat: str, pm: PageModule, raw: dict[str, Any], cautions: list[Caution]
) -> Response:
    """The guardian's confirmation step (issue 37): what the action would do, in the seat's
    language, the legal actions that avoid it (each a form that submits it, guarded again)
    and a form that confirms the action as it was. Plain forms: no script needed."""

    def label(text: str) -> str:
        try:
            return pm.action_words(pm.action_from_text(text))
        except Exception:  # a label only: the form still carries the action itself
            return text

    warned = [
        {
            "rule": c.rule,
            "text": say(c.text),
            "alternatives": [{"action": a, "label": label(a)} for a in c.alternatives],
        }
        for c in cautions
    ]
    page = render_template(
        "guard.html",
        table=game,
        seat=seat,
        seat_title=seat_title(pm, seat),
        pages=pm,
        csrf=csrf_token(game),
        seq=request.form.get("seq", ""),
        action=json.dumps(raw, separators=(",", ":"), ensure_ascii=False),
        summary=pm.action_words(raw),
        cautions=warned,
    )
    return Response(page, 200, mimetype="text/html")


@bp.post("/g/<game>/answer")
@with_game
@csrf_protected
def answer(game: str) -> Response:
    """Answers the question the referee asked this seat (``view["asked"]``)."""
    seat = seat_of(game)
    needs = request.form.get("needs", "")
    ref = get_referee()
    pm = pages_or_refuse(game)
    if pm is None:
        return back(game)
    try:
        value = pm.parse_answer(needs, request.form)
        receipt = ref.answer(game, seat, value)
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=reason_of(e)), "error")
        return back(game)
    except NeedsInput as e:
        flash(
            gettext(
                "Thank you. Now waiting for %(who)s: %(question)s [%(rule)s]",
                who=who_and(pm, e.asked),
                question=say(e.message),
                rule=e.rule,
            ),
            "info",
        )
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
    ref = get_referee()
    pm = pages_or_refuse(game)
    if pm is None:
        return back(game)
    try:
        obs = pm.form_observation(request.form, seat)
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=reason_of(e)), "error")
        return back(game)
    try:
        ref.observe(game, seat, obs)
        flash(gettext("Recorded: %(card)s.", card=obs["card"]), "ok")
    except ServiceError as e:
        flash(refusal(e), "error")
    return back(game)


@bp.post("/g/<game>/takeback")
@with_game
@csrf_protected
def take_back(game: str) -> Response:
    """Asks to take back this seat's own last action (the game's take-back rule); the other
    player accepts or declines it on his page."""
    seat = seat_of(game)
    pm = pages_or_refuse(game)
    if pm is None:
        return back(game)
    try:
        get_referee().take_back(game, seat)
    except ServiceError as e:
        flash(refusal(e), "error")
        return back(game)
    other = " or ".join(seat_title(pm, s) for s in pm.players if s != seat)  # a two-seat game
    flash(
        gettext(
            "You asked to take back your last action; %(other)s accepts or declines.", other=other
        ),
        "info",
    )
    return back(game)


@bp.post("/g/<game>/call")
@with_game
@csrf_protected
def call_judge(game: str) -> Response:
    """Calls the judge to the table (with an optional note)."""
    seat = seat_of(game)
    try:
        get_referee().call_judge(game, seat, request.form.get("note", "").strip()[:500])
        flash(gettext("The judge has been called to your table."), "ok")
    except ServiceError as e:
        flash(refusal(e), "error")
    return back(game)
