"""The judge's tools: settling calls and irregularities, the corrections (undo, amend), a dead
end confirmed, an action recorded for a player, seat links reissued; and all the tables he
judges at a glance (``/judge``). His desk at ``/g/<game>`` is the seat page's (:mod:`web.desk`
says what it shows). Every tool refuses any other seat before the service is asked. The judge
is the server's tournament judge: no game has a judge's code of its own.

At a table without a judge, the players' corrections: one proposes an undo or an amend
(``/g/<game>/propose/<what>``), the other approves or declines it
(``/g/<game>/proposals/<approve|decline>``); the service applies it once both approved.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from referee.service import ServiceError
from web.acting import back, submit
from web.forms import form_int
from web.games import PageModule, Unreadable, page_for, page_of, seat_title, seats
from web.i18n import gettext, say
from web.links import join_path
from web.present import qr_svg
from web.request import (
    csrf_protected,
    get_referee,
    is_game_id,
    is_tournament_judge,
    judge_only,
    seat_of,
    with_game,
)
from web.seat import page_context
from web.tables import ACTIVE, PAGE_SIZE, alerts, ordered


@contextmanager
def _flash_refusals() -> Iterator[None]:
    """A refused form as the page says it, flashed (the page is shown again): an action text
    that does not read, a malformed field, or the service's refusal with its rule."""
    try:
        yield
    except Unreadable as e:
        flash(gettext("Refused: the action does not read: %(why)s", why=_said(e)), "error")
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=_said(e)), "error")
    except ServiceError as e:
        flash(refused(e), "error")


def _said(e: Exception) -> str:
    """An error's sentence in this request's language (a Say it carries, said again)."""
    return say(e.args[0]) if e.args and isinstance(e.args[0], str) else str(e)


def refused(e: ServiceError) -> str:
    """The service's refusal as a page flashes it, in this request's language: ``Refused
    [rule]: message`` (in English the words of :func:`web.request.refusal`)."""
    if e.rule:
        return gettext("Refused [%(rule)s]: %(message)s", rule=e.rule, message=say(e.message))
    return gettext("Refused: %(message)s", message=say(e.message))


bp = Blueprint("judge", __name__)

REISSUED = "hz_reissued"  # the session key of a reissued link, shown once


def _event_of(f: Mapping[str, str], name: str) -> int:
    """The event a correction form names: typed in ``NAME_earlier`` (an event older than the
    desk's list), else chosen in ``NAME``. Raises ValueError naming the field."""
    if f.get(f"{name}_earlier", "").strip():
        return form_int(f, f"{name}_earlier")
    return form_int(f, name)


@bp.post("/g/<game>/judge/<what>")
@with_game
@csrf_protected
@judge_only
def judge_action(game: str, what: str) -> Response:
    """The judge's tools: ``undo``, ``amend``, ``resolve``, ``reissue``, ``act`` (an action for
    a player, in the game's notation), and the game's own (its page module's
    :meth:`~web.games.PageModule.judge_action`, e.g. confirming a declared dead end). Raises
    Forbidden."""
    ref = get_referee()
    f = request.form
    reason = f.get("reason", "").strip()[:500]
    with _flash_refusals():
        if what == "undo":
            rec = ref.undo(game, "judge", _event_of(f, "to"), reason)
            flash(
                gettext("Undone: the game continues after event %(event)s.", event=rec.body["to"]),
                "ok",
            )
        elif what == "amend":
            raw = pages(game).action_from_text(f.get("action", ""))
            event = _event_of(f, "event")
            ref.amend(game, "judge", event, raw, reason)
            flash(gettext("Event %(event)s amended.", event=event), "ok")
        elif what == "act":  # typed, else picked from the legal actions
            typed = f.get("action", "").strip() or f.get("legal", "")
            submit(game, "judge", pages(game).action_from_text(typed))
        elif what == "resolve":
            ref.resolve(game, "judge", form_int(f, "event"), reason)
            flash(gettext("Event %(event)s settled.", event=f.get("event")), "ok")
        elif what == "reissue":
            seat = f.get("seat", "")
            code = ref.reissue(game, "judge", seat)
            url = request.host_url.rstrip("/") + join_path(game, code)
            session[REISSUED] = {"game": game, "seat": seat, "url": url}
            title = seat_title(pages(game), seat)
            flash(
                gettext("A new link for %(seat)s; the old one opens nothing now.", seat=title), "ok"
            )
            # shown at once, with its QR code (issue 13, item 5): the session holds it once
            return redirect(url_for("judge.reissued", game=game), 303)
        else:
            try:
                tool = pages(game).judge_action(what)
            except ServiceError:
                tool = None
            if tool is None:  # no such tool (or no such game)
                abort(404)
            submit(game, "judge", tool)
    return back(game)


@bp.post("/g/<game>/propose/<what>")
@with_game
@csrf_protected
def propose(game: str, what: str) -> Response:
    """A player proposes a correction (``undo`` or ``amend``) at a table without a judge; it
    applies once the other player approves it. Raises Forbidden (the service) at a judged
    table."""
    if what not in ("undo", "amend"):
        abort(404)
    seat = seat_of(game)
    f = request.form
    reason = f.get("reason", "").strip()[:500]
    with _flash_refusals():
        if what == "undo":
            corr = {"kind": "undo", "to": form_int(f, "to"), "reason": reason}
        else:
            raw = pages(game).action_from_text(f.get("action", ""))
            corr = {"kind": "amend", "event": form_int(f, "event"), "action": raw}
            corr["reason"] = reason
        rec = get_referee().propose(game, seat, corr)
        flash(
            gettext(
                "Proposed (event %(event)s): the other player approves it on his phone.",
                event=rec.seq,
            ),
            "ok",
        )
    return back(game)


@bp.post("/g/<game>/proposals/<what>")
@with_game
@csrf_protected
def proposal(game: str, what: str) -> Response:
    """A player approves or declines (``what``) the other's proposed correction (form field
    ``proposal``, its event number)."""
    if what not in ("approve", "decline"):
        abort(404)
    with _flash_refusals():
        proposal = form_int(request.form, "proposal")
        recs = get_referee().approve(game, seat_of(game), proposal, agree=what == "approve")
        if what == "decline":
            flash(gettext("Proposal %(event)s declined.", event=proposal), "ok")
        elif len(recs) > 1:
            flash(
                gettext(
                    "Both players approved: the correction is event %(event)s.",
                    event=recs[-1].seq,
                ),
                "ok",
            )
        else:
            flash(gettext("Proposal %(event)s approved.", event=proposal), "ok")
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
        seat="judge",
        seat_name=seat_title(pages(game), hit["seat"]),
        url=hit["url"],
        qr=qr_svg(hit["url"]),
    )


@bp.get("/judge")
def tables() -> str:
    """All the tables this browser judges, at a glance (each table's players and state in
    its game's words): the tables playing now first, all of them, then the others
    (setting up, quiet, finished) :data:`~web.tables.PAGE_SIZE` at a time (``?page=``), then
    the games nobody has joined yet, counted and listed by id only, as many a page
    (``?idle=``): the page costs the same however many of those there are (issue 31)."""
    ref = get_referee()
    judge = is_tournament_judge()
    rows = ref.overview("judge", idle=False) if judge else []
    listed = ordered(rows)
    active = [(st, r) for st, r in listed if st in ACTIVE]
    others = [(st, r) for st, r in listed if st not in ACTIVE]
    page, pages_count = _page_arg("page", len(others))
    shown = others[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    idle_total, idle_games = 0, list[str]()
    idle_page, idle_pages = _page_arg("idle", 0)
    if judge:  # one query for the count and the page asked; again only for a page past the end
        asked, _ = _page_arg("idle", 10**6 * PAGE_SIZE)
        idle_total, idle_games = ref.idle_games("judge", PAGE_SIZE, (asked - 1) * PAGE_SIZE)
        idle_page, idle_pages = _page_arg("idle", idle_total)
        if idle_page != asked:
            _, idle_games = ref.idle_games("judge", PAGE_SIZE, (idle_page - 1) * PAGE_SIZE)
    words: dict[str, dict[str, str]] = {}
    for _state, t in [*active, *shown]:
        if "held" in t:
            continue
        pm = page_for(t)
        players = t.get("players", {})
        names = [str(players.get(s, title)) for s, title in seats(pm)]
        words[t["game"]] = {
            "versus": functools.reduce(lambda a, b: gettext("%(a)s vs %(b)s", a=a, b=b), names),
            "status": pm.table_status(t),
        }
    now = current_app.config.get("CLOCK", lambda: datetime.datetime.now(datetime.UTC))()
    chosen = request.args.get("table", "")
    desk: dict[str, Any] = {}
    if judge and is_game_id(chosen) and ref.store.head(chosen) is not None:
        desk = console_desk(chosen)
    hall = {
        "alerts": alerts(rows, now),
        "rows": rows or idle_total,
        "active": active,
        "others": shown,
        "others_total": len(others),
        "page": page,
        "pages_count": pages_count,
        "idle_games": idle_games,
        "idle_total": idle_total,
        "idle_page": idle_page,
        "idle_pages": idle_pages,
        "words": words,
        "seat": "judge",
        "head": desk.get("head"),
        "chosen": chosen if desk else None,
        "events_link": judge,  # the organiser's events (issue 34)
    }
    return render_template("tables.html", **{**desk, **hall})


def _page_arg(name: str, total: int) -> tuple[int, int]:
    """The page the query's ``name`` asks for (1 when absent or malformed, the last when past
    it) and how many pages ``total`` rows make."""
    count = max(1, -(-total // PAGE_SIZE))
    raw = request.args.get(name, "1")
    return min(max(1, int(raw) if raw.isdigit() and len(raw) <= 5 else 1), count), count


def console_desk(game: str) -> dict[str, Any]:
    """The desk of ``game`` as the console shows it beside the hall (``/judge?table=``): the
    judge's page context, with the ruling tool, the side links and every form leading back
    to the console."""
    ctx = page_context(game, "judge")
    args = {"table": game}
    side = request.args.get("side")
    if side:
        args["side"] = side
    ctx.update(
        console=True,
        desk_url=url_for("judge.tables"),
        desk_args=args,
        side_choice=[
            {**c, "url": url_for("judge.tables", table=game, side=p)}
            for c, p in zip(ctx["side_choice"], ctx["pages"].players, strict=True)
        ],
    )
    return ctx


def pages(game: str) -> PageModule:
    """The page module of ``game``. Raises NotFound."""
    return page_of(get_referee(), game)
