"""The organiser's and the venue's pages of an event (issue 34): the events list and the new
event's form (``/events``), the organiser's console (``/events/<event>``) with every form of the
event's service, the projector page (``/events/<event>/screen``), the printed sheets
(``/events/<event>/pdf/<sheet>``) and the export.

The organiser is the server's tournament judge (:func:`web.request.is_tournament_judge`): the
list, the console, its forms, the sheets and the export are his alone (403 for anyone else).
The projector page is public and shows the public view only (T13: no penalty, no code, no
dispute note, no drop reason). Every form carries the CSRF token; a refusal is flashed with its
rule and writes nothing (the service checks a record whole before it seals it).

Live: both pages long-poll ``/events/<event>/wait?seq=N`` (:meth:`Events.wait`, the ledger's
bell: cheap, one sleeping request a page); a game of the event that ends writes its result into
the event's log (:meth:`Events.listen`), so the pages move when a table does.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    session,
    url_for,
)
from markupsafe import Markup
from werkzeug.wrappers import Response

from printables import event_sheets as sheets
from referee.errors import Forbidden, ServiceError
from referee.event import state as S
from referee.event.clock import remaining_text
from referee.event.service import Events
from referee.event.views import public_view
from referee.games import GAMES
from referee.language import N_, Say
from referee.store import parse_utc
from web import i18n
from web.events import (
    clock_of,
    event_or_404,
    event_phase,
    get_events,
    install,
    refused,
    source_word,
    sync_now,
)
from web.games import served
from web.i18n import gettext, say
from web.links import join_path
from web.present import qr_svg
from web.request import csrf_protected, csrf_token, get_referee, is_tournament_judge
from web.tables import alerts

bp = Blueprint("event_pages", __name__)
install(bp)

REGISTERED = "hz_event_registered"  # the session key of new players' links, shown once
WAIT_SECONDS = 25.0  # the organiser's long-poll's ceiling
POLL_MS = 3000  # the public's pages ask again this often (they never wait on the server)


def organiser() -> None:
    """Refuses anyone but the organiser (the server's tournament judge). Raises Forbidden."""
    if not is_tournament_judge():
        raise Forbidden(Say("only the organiser (the tournament judge) may do this"))


def _now() -> datetime.datetime:
    """The server's clock (the ledger's: the one the deadlines are written by)."""
    now: datetime.datetime = parse_utc(get_referee().ledger.clock.now())
    return now


@contextmanager
def _flash_refusals() -> Iterator[None]:
    """A refused form flashed with its rule (the console is shown again, nothing written)."""
    try:
        yield
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=say(e.args[0] if e.args else e)), "error")
    except ServiceError as e:
        flash(refused(e), "error")


def _text(f: Mapping[str, str], name: str, limit: int = 500) -> str:
    return f.get(name, "").strip()[:limit]


def _int(f: Mapping[str, str], name: str, what: str | None = None) -> int:
    raw = f.get(name, "").strip()
    if not raw.isdigit() or len(raw) > 6:
        raise ValueError(
            Say(
                "%(field)s: a whole number, not %(given)s", field=what or name, given=repr(raw[:20])
            )
        )
    return int(raw)


# ---- the list and the new event ------------------------------------------------------------


def _game_forms() -> list[dict[str, Any]]:
    """Each registered game with its options' fields (its page module's create form, as the
    home page offers it), or none when this server shows no page of it."""
    pages = served()
    out = []
    for name, module in GAMES.items():
        pm = pages.get(name)
        fields = None
        if pm is not None:
            html = render_template(pm.templates["create"], csrf="", **pm.create_context())
            fields = Markup(html)
        out.append({"name": name, "title": pm.title if pm else module.name, "fields": fields})
    return out


@bp.get("/events")
def events_list() -> str:
    """The organiser's events, newest id last, and the new event's form."""
    organiser()
    ev = get_events()
    rows = []
    for eid in ev.events():
        try:
            st = ev.get(eid)
        except ServiceError as e:
            rows.append({"event": eid, "name": eid, "phase": refused(e), "players": 0})
            continue
        s = st.settings
        phase = event_phase(st.phase)
        rows.append({"event": eid, "name": s.name, "phase": phase, "players": len(st.players)})
    return render_template(
        "events.html",
        rows=rows,
        games=_game_forms(),
        csrf=csrf_token(""),
        infractions=S.INFRACTIONS,
    )


@bp.post("/events")
@csrf_protected
def create_event() -> Response:
    """Creates an event from the form: name, game and its options (the game's own create
    fields), format (T1), rounds (blank: the usual count), round minutes (T6), top cut (T10),
    self-registration. A refusal goes back to the form with its rule."""
    organiser()
    f = request.form
    game = f.get("game", "")
    with _flash_refusals():
        if game not in GAMES:
            raise ValueError(Say("game: no game %(name)s", name=repr(game[:40])))
        pm = served().get(game)
        options: dict[str, Any] = {}
        if pm is not None:  # the game's own fields, as its new-game form reads them
            options = dict(pm.create_request(f, request.files).options)
        rounds_raw = f.get("rounds", "").strip()
        minutes_raw = f.get("round_minutes", "").strip() or str(S.DEFAULT_ROUND_MINUTES)
        eid = get_events().create(
            name=_text(f, "name", 80),
            game=game,
            options=options,
            format=f.get("format") or None,
            rounds=_int(f, "rounds", N_("rounds")) if rounds_raw else None,
            round_minutes=_int({"m": minutes_raw}, "m", N_("round minutes")),
            top_cut=_int(f, "top_cut", N_("top cut")) if f.get("top_cut") else 0,
            self_register=f.get("self_register") == "on",
            strict=f.get("strict") == "on",
            hands_public=f.get("hands_public") == "on",
        )
        flash(gettext("Event %(event)s created.", event=eid), "ok")
        return redirect(url_for("event_pages.console", event=eid), 303)
    return redirect(url_for("event_pages.events_list"), 303)


# ---- the console ---------------------------------------------------------------------------


def _names(st: S.EventState) -> dict[str, str]:
    return {p.id: p.name for p in st.players}


def _seat_titles(game: str) -> tuple[str, str]:
    """The game's first and second seat by name (its page module's, else the registry's)."""
    module = GAMES[game]
    pm = served().get(game)
    first, second = module.players[0], module.players[1]
    if pm is not None:
        return pm.seat_title(first), pm.seat_title(second)
    return first.title(), second.title()


def table_state(t: S.Table, now: datetime.datetime) -> str:
    """A table's state on the console: final, disputed, waiting (a result waiting for the
    players' confirmation), time (past its deadline, T6), playing, or paired (not started)."""
    if t.match is not None:
        return "final"
    last = t.results[-1] if t.results else None
    if last is not None and last.disputed:
        return "disputed"
    if last is not None and not last.final:
        return "waiting"
    if t.deadline is None:
        return "paired"
    if now >= parse_utc(t.deadline):
        return "time"
    return "playing"


def _seconds_left(deadline: str | None, now: datetime.datetime) -> int | None:
    if deadline is None:
        return None
    return int((parse_utc(deadline) - now).total_seconds())


def _result_text(res: S.Result, names: Mapping[str, str]) -> str:
    """A game's result on the console: "game 1: Ann wins (her reason; by slip)"."""
    if res.winner is None:
        who = gettext("a draw")
    else:
        who = gettext("%(player)s wins", player=names.get(res.winner, res.winner))
    return gettext(
        "game %(number)s: %(result)s (%(reason)s; by %(source)s)",
        number=res.number,
        result=who,
        reason=say(res.reason).rstrip("."),
        source=source_word(res.source),
    )


@bp.get("/events/<event>")
def console(event: str) -> str:
    """The organiser's console: the round and its clock, registration and check-in, pairing
    and starting, each table's state, results waiting and disputes, extensions, penalties,
    standings, the cut, the printed sheets. Syncs the games' results first."""
    organiser()
    eid = event_or_404(event)
    ev = get_events()
    with _flash_refusals():
        ev.sync(eid)
    st = ev.get(eid)
    now = _now()
    names = _names(st)
    r = st.round
    games = {g for t in (r.tables if r else ()) for g in t.games}
    calls: dict[str, list[dict[str, str]]] = {}
    if games:
        rows = [row for row in get_referee().overview("judge", idle=False) if row["game"] in games]
        for a in alerts(rows, now):
            calls.setdefault(a["game"], []).append(a)
    tables = []
    for t in r.tables if r else ():
        tables.append(
            {
                "t": t,
                "state": table_state(t, now),
                "names": (names[t.first], names[t.second]),
                "results": [_result_text(x, names) for x in t.results],
                "calls": [c for g in t.games for c in calls.get(g, [])],
                "left": None
                if t.deadline is None or t.match is not None
                else remaining_text(_seconds_left(t.deadline, now) or 0),
                "extra": ev.extra_turns(eid, t.table) if r is not None and r.started_at else None,
            }
        )
    base = request.host_url.rstrip("/")
    self_url = base + url_for("eventplayer.register_page", event=eid)
    new_links = [
        {**x, "qr": qr_svg(x["url"])}
        for x in session.pop(REGISTERED, [])
        if isinstance(x, dict) and x.get("event") == eid
    ]
    head = st.head
    return render_template(
        "event_console.html",
        st=st,
        s=st.settings,
        eid=eid,
        names=names,
        round=r,
        tables=tables,
        waiting=[(t, res, _result_text(res, names)) for t, res in st.waiting()],
        clock=clock_of(st),
        sides=_seat_titles(st.settings.game),
        csrf=csrf_token(""),
        self_url=self_url,
        self_qr=qr_svg(self_url) if st.settings.self_register else None,
        new_links=new_links,
        infractions=S.INFRACTIONS,
        penalties=S.PENALTIES,
        seq=-1 if head is None else head[0],
        active=[p for p in st.players if p.dropped_after_round is None],
        standings=st.standings if _finished_rounds(st) else (),
        now=now,
    )


def _finished_rounds(st: S.EventState) -> int:
    """How many Swiss rounds are finished: the standings are shown after the first."""
    return sum(1 for r in st.rounds if r.finished and not r.cut)


def _player_arg(st: S.EventState, f: Mapping[str, str], name: str) -> str:
    pid = f.get(name, "")
    st.player(pid)  # NotFound naming it
    return pid


@bp.post("/events/<event>/do/<what>")
@csrf_protected
def act(event: str, what: str) -> Response:
    """One of the console's forms (``what``): register, newcode, checkin, drop, pair, repair,
    swap, start, side, extend, time, result, correct, penalty, cut, pair_cut. A refusal is
    flashed with its rule and writes nothing."""
    organiser()
    eid = event_or_404(event)
    ev = get_events()
    f = request.form
    with _flash_refusals():
        st = ev.get(eid)
        if what == "register":
            reg = ev.register(eid, _text(f, "name", 40))
            name = ev.get(eid).player(reg.player).name
            _show_link_once(eid, name, reg.code)
            flash(
                gettext(
                    "%(player)s registered (%(id)s): hand him his link below.",
                    player=name,
                    id=reg.player,
                ),
                "ok",
            )
        elif what == "newcode":  # a lost phone: a new link, the old one opens nothing more
            pid = _player_arg(st, f, "player")
            _show_link_once(eid, st.player(pid).name, ev.new_player_code(eid, pid))
            flash(
                gettext(
                    "A new link for %(player)s; the old one opens nothing now.",
                    player=st.player(pid).name,
                ),
                "ok",
            )
        elif what == "side":  # T10: the higher seed's choice of side in the cut
            table = _int(f, "table")
            ev.choose_side(eid, table, f.get("seat", ""))
            flash(
                gettext("Table %(table)s: the higher seed's side is recorded (T10).", table=table),
                "ok",
            )
        elif what == "checkin":
            ev.check_in(eid, _player_arg(st, f, "player"))
            flash(gettext("%(player)s checked in.", player=st.player(f["player"]).name), "ok")
        elif what == "drop":
            pid = _player_arg(st, f, "player")
            ev.drop(eid, pid, _text(f, "reason"))
            flash(gettext("%(player)s dropped.", player=st.player(pid).name), "ok")
        elif what == "pair":
            rnd = ev.pair_next(eid)
            flash(gettext("Round %(number)s paired.", number=rnd.number), "ok")
        elif what == "repair":
            rnd = ev.repair(eid, _text(f, "reason"))
            flash(gettext("Round %(number)s paired again.", number=rnd.number), "ok")
        elif what == "swap":
            a, b = _player_arg(st, f, "a"), _player_arg(st, f, "b")
            ev.swap(eid, a, b, _text(f, "reason"))
            flash(
                gettext(
                    "%(first)s and %(second)s swapped.",
                    first=st.player(a).name,
                    second=st.player(b).name,
                ),
                "ok",
            )
        elif what == "start":
            rnd = ev.start_round(eid)
            flash(gettext("Round %(number)s started: its games are made.", number=rnd.number), "ok")
        elif what == "extend":
            table = _int(f, "table")
            ev.extend(eid, table, _int(f, "minutes"), _text(f, "reason"))
            flash(gettext("Table %(table)s extended.", table=table), "ok")
        elif what == "time":
            table = _int(f, "table")
            ev.time_result(eid, _int(f, "round"), table)
            flash(
                gettext("Table %(table)s: the open game is a draw at time (T6).", table=table), "ok"
            )
        elif what in ("result", "correct"):
            winner = f.get("winner", "")
            won = None if winner == "draw" else _player_arg(st, f, "winner")
            args = (eid, _int(f, "round"), _int(f, "table"), _int(f, "number"), won)
            if what == "result":
                ev.enter_result(*args, _text(f, "reason") or "slip")
                flash(gettext("The slip's result is recorded."), "ok")
            else:
                ev.correct(*args, _text(f, "reason"))
                flash(gettext("The result is settled."), "ok")
        elif what == "penalty":
            pid = _player_arg(st, f, "player")
            ev.penalty(eid, pid, f.get("infraction", ""), f.get("penalty", ""), _text(f, "reason"))
            flash(gettext("Penalty recorded for %(player)s.", player=st.player(pid).name), "ok")
        elif what == "cut":
            ev.top_cut(eid)
            flash(gettext("The top cut is paired."), "ok")
        elif what == "pair_cut":
            rnd = ev.pair_cut(eid)
            flash(gettext("Round %(number)s (the cut) paired.", number=rnd.number), "ok")
        else:
            abort(404)
    return redirect(url_for("event_pages.console", event=eid) + _anchor(what), 303)


def _show_link_once(eid: str, name: str, code: str) -> None:
    """Keeps a player's personal link for the console's next page only (the service keeps its
    hash, never the code)."""
    url = request.host_url.rstrip("/") + url_for("eventplayer.personal_link", event=eid, code=code)
    shown = [x for x in session.get(REGISTERED, []) if isinstance(x, dict)]
    session[REGISTERED] = [*shown, {"event": eid, "name": name, "url": url}][-8:]


def _anchor(what: str) -> str:
    return {
        "register": "#registration",
        "newcode": "#registration",
        "checkin": "#registration",
        "drop": "#registration",
        "penalty": "#penalties",
    }.get(what, "#round")


# ---- the projector ---------------------------------------------------------------------------


@bp.get("/events/<event>/screen")
def screen(event: str) -> str:
    """The projector page (public): the round clock, pairings by table and by name (paged),
    standings after the last finished round. The public view only (T13)."""
    eid = event_or_404(event)
    ev = get_events()
    with suppress(ServiceError):  # the public page shows what is written, come what may
        ev.sync(eid)
    st = ev.get(eid)
    pub = public_view(st)
    r = pub.pairings[-1] if pub.pairings else None
    by_name: list[dict[str, Any]] = []
    if r is not None:
        for t in r.tables:
            for i, (pid, opp) in enumerate(((t.first, t.second), (t.second, t.first))):
                by_name.append(
                    {
                        "name": t.names[i],
                        "table": t.table,
                        "opponent": t.names[1 - i],
                        "side": _seat_titles(pub.game)[i],
                        "pid": pid,
                        "opp": opp,
                    }
                )
        if r.bye is not None:
            name = next(p.name for p in pub.players if p.player == r.bye)
            by_name.append({"name": name, "table": None, "opponent": None, "side": N_("bye")})
    by_name.sort(key=lambda x: str(x["name"]).casefold())
    return render_template(
        "event_screen.html",
        pub=pub,
        eid=eid,
        round=r,
        by_name=by_name,
        clock=clock_of(st),
        sides=_seat_titles(pub.game),
        seq=-1 if st.head is None else st.head[0],
        standings=pub.standings if _finished_rounds(st) else [],
    )


@bp.get("/events/<event>/wait")
def wait(event: str) -> Response:
    """A page's live update, as JSON: the event log's last record number and ``next_ms``, when
    to ask again. The organiser's console waits (at most 25 s, ``EVENT_WAIT_SECONDS``) for the
    log to pass ``seq``; anyone else (the projector is public) is answered at once and asks
    again in :data:`POLL_MS`: a waiting request holds one of the server's worker threads, and
    the public must never be able to hold them all (issue 33)."""
    eid = event_or_404(event)
    raw = request.args.get("seq", "-1")
    seq = int(raw) if raw.lstrip("-").isdigit() and len(raw) < 10 else -1
    sync_now(eid)  # a game that ended unheard by the bell is recorded (throttled per event)
    if is_tournament_judge():
        ceiling = float(current_app.config.get("EVENT_WAIT_SECONDS", WAIT_SECONDS))
        return jsonify({"seq": get_events().wait(eid, seq, ceiling), "next_ms": 0})
    head = get_events().get(eid).head
    return jsonify({"seq": -1 if head is None else head[0], "next_ms": POLL_MS})


# ---- printed sheets and the export ----------------------------------------------------------


def _latest_round(st: S.EventState) -> S.Round:
    if st.round is None:
        raise ValueError(Say("the event has no round paired yet"))
    return st.round


def pairings_sheet(st: S.EventState, printed: datetime.datetime) -> sheets.PairingsSheet:
    """The latest round's pairings as the printed sheets take them: points before the round
    (the standings after the final rounds), side counts so far (T5)."""
    r = _latest_round(st)
    names = _names(st)
    points = {s.player: s.match_points for s in st.standings}

    def line(pid: str) -> sheets.SeatLine:
        first, second = st.sides.get(pid, (0, 0))
        return sheets.SeatLine(names[pid], points.get(pid, 0), first, second)

    return sheets.PairingsSheet(
        event=st.settings.name,
        round=r.number,
        sides=_seat_titles(st.settings.game),
        tables=tuple(sheets.PairedTable(t.table, line(t.first), line(t.second)) for t in r.tables),
        bye=None if r.bye is None else line(r.bye),
        printed=printed,
    )


def match_slips(ev: Events, st: S.EventState, base: str) -> list[sheets.MatchSlip]:
    """A slip per table of the round being played, each seat with its own join link (the
    game's join codes: the organiser's to hand out, T13). Before the round starts there are
    no games, so no links: a slip needs the round started."""
    r = _latest_round(st)
    if r.started_at is None:
        raise ValueError(
            Say(
                "round %(number)s: start it first (its games make the slips' links)",
                number=r.number,
            )
        )
    names = _names(st)
    sides = _seat_titles(st.settings.game)
    out = []
    for t in r.tables:
        seats = []
        for pid, side in ((t.first, sides[0]), (t.second, sides[1])):
            link = ev.seat_link(st.event, pid)
            url = "" if link is None else base + join_path(link.game, link.code)
            if link is not None:
                first = t.firsts[t.games.index(link.game)] if link.game in t.games else t.first
                mine = 0 if first == pid else 1
                side = sides[mine]
            seats.append(sheets.SlipSeat(names[pid], side, url or base + "/"))
        out.append(
            sheets.MatchSlip(
                event=st.settings.name,
                round=r.number,
                table=t.table,
                first=seats[0],
                second=seats[1],
                best_of=st.settings.games_per_match,
            )
        )
    return out


def standings_sheet(st: S.EventState, printed: datetime.datetime) -> sheets.StandingsSheet:
    """The standings after the last finished round, with each tiebreaker (T3)."""
    names = _names(st)
    done = [r.number for r in st.rounds if r.finished and not r.cut]
    if not done:
        raise ValueError(Say("standings: no round is finished yet (T3)"))
    rows = tuple(
        sheets.StandingLine(
            s.rank,
            names[s.player],
            s.match_points,
            s.record.wins,
            s.record.losses,
            s.record.draws,
            s.omw_text,
            s.gw_text,
            s.ogw_text,
            s.dropped,
        )
        for s in st.standings
    )
    return sheets.StandingsSheet(st.settings.name, max(done, default=0), rows, printed)


PDFS = ("by-name", "by-table", "slips", "standings")


@bp.get("/events/<event>/pdf/<sheet>")
def pdf(event: str, sheet: str) -> Response:
    """A printed sheet of the event (organiser only): ``by-name``, ``by-table``, ``slips``,
    ``standings``. A sheet that cannot be printed yet is flashed on the console."""
    organiser()
    eid = event_or_404(event)
    if sheet not in PDFS:
        abort(404)
    ev = get_events()
    st = ev.get(eid)
    printed = _now().replace(microsecond=0)
    base = request.host_url.rstrip("/")
    try:
        lang = i18n.lang()  # the organiser's page language (issue 36)
        if sheet == "by-name":
            data = sheets.pairings_by_name_pdf(pairings_sheet(st, printed), lang=lang)
        elif sheet == "by-table":
            data = sheets.pairings_by_table_pdf(pairings_sheet(st, printed), lang=lang)
        elif sheet == "slips":
            data = sheets.match_slips_pdf(match_slips(ev, st, base), printed, lang=lang)
        else:
            data = sheets.standings_pdf(standings_sheet(st, printed), lang=lang)
    except ServiceError as e:
        flash(gettext("Refused: %(reason)s", reason=say(e.message)), "error")
        return redirect(url_for("event_pages.console", event=eid), 303)
    except ValueError as e:
        flash(gettext("Refused: %(reason)s", reason=say(e.args[0] if e.args else e)), "error")
        return redirect(url_for("event_pages.console", event=eid), 303)
    name = f"{eid}-{sheet}.pdf"
    return send_file(io.BytesIO(data), mimetype="application/pdf", download_name=name)


@bp.get("/events/<event>/export")
def export(event: str) -> Response:
    """The event's export file (T12, ``hz-event/1``), as a download (organiser only)."""
    organiser()
    eid = event_or_404(event)
    text = get_events().export(eid)
    return send_file(
        io.BytesIO(text.encode()),
        mimetype="application/x-ndjson",
        as_attachment=True,
        download_name=f"{eid}.hz-event.jsonl",
    )
