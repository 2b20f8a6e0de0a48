"""Issue 34: the organiser's and the venue's pages of an event (web/event_pages.py), through the
Flask test client: each page renders for the organiser (the server's tournament judge); the
public and the players are refused the list, the console, its forms, the sheets and the export
(403); each form writes the record it names and a refused one writes nothing (its rule
flashed); the projector shows the public view only (T13)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from event_helpers import SEED, play_out
from flask import Flask
from games.tiny.game import TINY
from web_helpers import Browser, judge_browser, make_app, referee_of

from referee.event.log import store_id
from referee.event.service import Events
from referee.games import registered
from referee.log import Record
from web.event_pages import match_slips
from web.events import event_cookie_name, get_events
from web.links import join_path


@pytest.fixture
def app() -> Iterator[Flask]:
    with registered(TINY):
        yield make_app()


def events(app: Flask) -> Events:
    with app.app_context():
        return get_events()


class Organiser:
    """The organiser's browser: the judge's link opened, posting the console's forms."""

    def __init__(self, app: Flask) -> None:
        self.b = judge_browser(app)
        page = self.b.get("/events").get_data(as_text=True)
        found = re.search(r'name="csrf" value="([^"]+)"', page)
        assert found is not None
        self.csrf = found.group(1)

    def page(self, path: str) -> str:
        r = self.b.get(path)
        assert r.status_code == 200, (path, r.status_code)
        return html.unescape(r.get_data(as_text=True))

    def do(self, event: str, what: str, **form: Any) -> str:
        """Posts one form of the console; the console it leads back to, as text."""
        r = self.b.client.post(
            f"/events/{event}/do/{what}", data={"csrf": self.csrf, **form}, follow_redirects=True
        )
        assert r.status_code == 200, r.status_code
        return html.unescape(r.get_data(as_text=True))


def new_event(app: Flask, players: int = 8, **settings: Any) -> str:
    ev = events(app)
    eid = ev.create(name="Tuesday Cup", game=TINY.name, options={}, seed=SEED, **settings)
    for i in range(1, players + 1):
        ev.check_in(eid, ev.register(eid, f"Player {i}").player)
    return eid


def log(app: Flask, event: str) -> list[Record]:
    return referee_of(app).store.records(store_id(event))


def playing(app: Flask, players: int = 8) -> str:
    """An event whose round 1 is started."""
    eid = new_event(app, players, rounds=3)
    ev = events(app)
    ev.pair_next(eid)
    ev.start_round(eid)
    return eid


def test_the_organiser_sees_the_list_the_console_the_projector_and_every_sheet(app: Flask) -> None:
    eid = playing(app)
    ev = events(app)
    t = ev.get(eid).round.tables[0]  # type: ignore[union-attr]
    play_out(referee_of(app), t.games[0], TINY.players[0])
    o = Organiser(app)
    assert "Tuesday Cup" in o.page("/events")
    console = o.page(f"/events/{eid}")
    assert 'id="tables"' in console and 'id="registration"' in console
    assert 'data-state="waiting"' in console  # the referee's result waits for the players (T8)
    assert "Player 1" in o.page(f"/events/{eid}/screen")
    for sheet in ("by-name", "by-table", "slips"):
        r = o.b.get(f"/events/{eid}/pdf/{sheet}")
        assert (r.status_code, r.mimetype) == (200, "application/pdf"), sheet
        assert r.data.startswith(b"%PDF")
    r = o.b.get(f"/events/{eid}/export")
    assert r.status_code == 200 and b'"format": "hz-event/1"' in r.data.split(b"\n")[0]


def test_the_judges_page_links_to_the_events(app: Flask) -> None:
    assert 'href="/events"' in Organiser(app).page("/judge")
    assert 'href="/events"' not in Browser(app).get("/judge").get_data(as_text=True)


def test_the_public_and_a_player_are_refused_the_console_its_forms_the_sheets_and_the_export(
    app: Flask,
) -> None:
    eid = new_event(app, players=0)
    ev = events(app)
    reg = ev.register(eid, "Ann")
    player = Browser(app)
    player.client.set_cookie(event_cookie_name(eid), reg.code)
    public = Browser(app)
    head = referee_of(app).store.head(store_id(eid))
    for b in (public, player):
        csrf = b.csrf()
        for path in (
            "/events",
            f"/events/{eid}",
            f"/events/{eid}/export",
            *(f"/events/{eid}/pdf/{s}" for s in ("by-name", "by-table", "slips", "standings")),
        ):
            assert b.get(path).status_code == 403, path
        for what, form in (("register", {"name": "Eve"}), ("pair", {}), ("checkin", {})):
            r = b.client.post(f"/events/{eid}/do/{what}", data={"csrf": csrf, **form})
            assert r.status_code == 403, what
        r = b.client.post("/events", data={"csrf": csrf, "game": TINY.name, "name": "Mine"})
        assert r.status_code == 403
    assert referee_of(app).store.head(store_id(eid)) == head
    assert ev.events() == [eid]
    assert public.get(f"/events/{eid}/screen").status_code == 200  # the projector is public


def test_the_new_event_form_writes_the_event_with_its_settings(app: Flask) -> None:
    o = Organiser(app)
    form = {
        "csrf": o.csrf,
        "game": TINY.name,
        "name": "Saturday Open",
        "format": "bo3",
        "rounds": "",
        "round_minutes": "40",
        "top_cut": "4",
        "self_register": "on",
    }
    r = o.b.client.post("/events", data=form)
    assert r.status_code == 303
    eid = r.headers["Location"].rsplit("/", 1)[-1]
    s = events(app).get(eid).settings
    assert (s.name, s.game, s.format, s.rounds) == ("Saturday Open", TINY.name, "bo3", None)
    assert (s.round_minutes, s.top_cut, s.self_register) == (40, 4, True)
    assert "Self-registration QR" in o.page(f"/events/{eid}")


def test_a_refused_new_event_is_flashed_with_its_rule_and_makes_no_event(app: Flask) -> None:
    o = Organiser(app)
    form = {"csrf": o.csrf, "game": TINY.name, "name": "Quick", "round_minutes": "5"}
    r = o.b.client.post("/events", data=form, follow_redirects=True)
    assert "Refused [T6]" in html.unescape(r.get_data(as_text=True))
    assert events(app).events() == []
    r = o.b.client.post("/events", data={**form, "game": "chess"}, follow_redirects=True)
    assert "Refused: game: no game 'chess'" in html.unescape(r.get_data(as_text=True))


def test_a_form_without_the_csrf_token_is_refused_and_writes_nothing(app: Flask) -> None:
    eid = new_event(app, players=2)
    o = Organiser(app)
    head = referee_of(app).store.head(store_id(eid))
    r = o.b.client.post(f"/events/{eid}/do/register", data={"name": "Eve"})
    assert r.status_code == 403
    assert referee_of(app).store.head(store_id(eid)) == head


def test_registration_check_in_and_a_drop_write_their_records_and_show_the_link_once(
    app: Flask,
) -> None:
    eid = new_event(app, players=0)
    o = Organiser(app)
    page = o.do(eid, "register", name="Ann Smith")
    (rec,) = [r for r in log(app, eid) if r.kind == "register"]
    assert (rec.seat, rec.body["name"], rec.body["by"]) == ("organiser", "Ann Smith", "organiser")
    link = re.search(rf"http://localhost/e/{eid}/p/([A-Za-z0-9_-]+)", page)
    assert link is not None  # his event page's link, with its QR code, shown this once
    assert events(app).player_for_code(eid, link.group(1)) == rec.body["player"]
    assert link.group(0) not in o.page(f"/events/{eid}")
    o.do(eid, "checkin", player=rec.body["player"])
    o.do(eid, "drop", player=rec.body["player"], reason="went home")
    kinds = [(r.kind, r.seat) for r in log(app, eid)]
    assert kinds[-2:] == [("checkin", "organiser"), ("drop", "organiser")]
    assert log(app, eid)[-1].body["reason"] == "went home"


def test_a_refused_form_is_flashed_with_its_rule_and_writes_nothing(app: Flask) -> None:
    eid = new_event(app, players=4, rounds=2)
    o = Organiser(app)
    o.do(eid, "pair")
    head = referee_of(app).store.head(store_id(eid))
    refusals = [
        ("register", {"name": "player 1"}, "Refused [T9]: name: 'player 1' is registered"),
        ("swap", {"a": "p1", "b": "p2", "reason": ""}, "Refused [T4]: reason: a swap needs"),
        ("repair", {"reason": ""}, "Refused [T4]: reason: a re-pair needs a reason"),
        ("extend", {"table": "1", "minutes": "5", "reason": "x"}, "Refused [T6]: round 1 has not"),
        ("result", {"round": "1", "table": "1", "number": "1", "winner": "p9"}, "no player 'p9'"),
        ("penalty", {"player": "p1", "infraction": "rudeness"}, "Refused [T11]: infraction"),
        ("pair", {}, "Refused [T4]: pair: round 1 has not started"),
    ]
    for what, form, said in refusals:
        page = o.do(eid, what, **form)
        assert 'class="flash error"' in page and said in page, (what, page[-3000:])
        assert referee_of(app).store.head(store_id(eid)) == head, what


def test_pairing_starting_a_slip_an_extension_and_a_penalty_write_their_records(
    app: Flask,
) -> None:
    eid = new_event(app, players=4, rounds=2)
    o = Organiser(app)
    o.do(eid, "pair")
    o.do(eid, "swap", a="p1", b="p2", reason="brothers")
    o.do(eid, "start")
    st = events(app).get(eid)
    r1 = st.round
    assert r1 is not None and r1.started_at is not None and r1.pair_reasons
    t1, t2 = r1.tables
    o.do(eid, "extend", table="1", minutes="4", reason="a long ruling")
    o.do(eid, "result", round="1", table="1", number="1", winner=t1.first, reason="slip")
    o.do(
        eid, "penalty", player=t2.first, infraction="tardiness", penalty="game loss", reason="late"
    )
    written = [(r.kind, r.seat) for r in log(app, eid)][-7:]
    assert written == [
        ("pair", "organiser"),
        ("swap", "organiser"),
        ("start", "organiser"),
        ("extend", "judge"),
        ("result", "judge"),  # the slip (T8)
        ("penalty", "judge"),
        ("result", "judge"),  # the game loss ends his game (T11)
    ]
    st = events(app).get(eid)
    r1 = st.round
    assert r1 is not None
    t1, t2 = r1.tables
    assert t1.extensions[0].minutes == 4 and t1.match is not None  # a slip is final (T8)
    assert t2.results[0].source == "penalty" and t2.results[0].winner == t2.second  # T11
    console = o.page(f"/events/{eid}")
    assert "+4 min: a long ruling" in console
    assert "game loss for tardiness (round 1): late" in console


def test_a_disputed_result_is_settled_by_the_judge_with_who_and_why(app: Flask) -> None:
    eid = playing(app, players=2)
    ev = events(app)
    t = ev.get(eid).round.tables[0]  # type: ignore[union-attr]
    play_out(referee_of(app), t.games[0], TINY.players[0])
    ev.sync(eid)
    ev.dispute(eid, t.second, "he played a card twice")
    o = Organiser(app)
    console = o.page(f"/events/{eid}")
    assert 'data-state="disputed"' in console and "he played a card twice" in console
    page = o.do(eid, "correct", round="1", table="1", number="1", winner=t.second, reason="seen")
    rec = log(app, eid)[-1]
    assert (rec.kind, rec.seat, rec.body["winner"], rec.body["reason"]) == (
        "correct",
        "judge",
        t.second,
        "seen",
    )
    assert 'data-state="final"' in page


def test_the_projector_shows_no_penalty_no_code_no_dispute_note_and_no_drop_reason(
    app: Flask,
) -> None:
    """T13: pairings, results and standings are public; penalties, codes, a dispute's note and
    a drop's reason are not."""
    ev = events(app)
    eid = ev.create(name="Cup", game=TINY.name, options={}, seed=SEED, rounds=2)
    codes = [ev.register(eid, f"Player {i}").code for i in range(1, 7)]
    ev.pair_next(eid)
    ev.start_round(eid)
    r = ev.get(eid).round
    assert r is not None
    t1, t2, _ = r.tables
    links = [ev.seat_link(eid, p) for t in r.tables for p in t.players]
    join = [x.code for x in links if x is not None]
    assert len(join) == 6
    play_out(referee_of(app), t1.games[0], TINY.players[0])
    ev.sync(eid)
    ev.dispute(eid, t1.second, "SECRET-NOTE")
    ev.penalty(eid, t2.first, "marked cards", "warning", "SECRET-PENALTY")
    ev.drop(eid, t2.second, "SECRET-DROP")
    screen = html.unescape(Browser(app).get(f"/events/{eid}/screen").get_data(as_text=True))
    assert "Player 1" in screen and "Round 1" in screen
    for secret in ("SECRET-NOTE", "SECRET-PENALTY", "SECRET-DROP", "warning", *codes, *join):
        assert secret not in screen, secret
    assert "<form" not in screen and "<button" not in screen  # no controls


def test_match_slips_give_each_seat_its_own_join_link(app: Flask) -> None:
    eid = playing(app, players=4)
    ev = events(app)
    st = ev.get(eid)
    with app.test_request_context():
        slips = match_slips(ev, st, "http://hall")
    assert len(slips) == 2
    for slip, t in zip(slips, st.round.tables, strict=True):  # type: ignore[union-attr]
        for seat, pid in ((slip.first, t.first), (slip.second, t.second)):
            link = ev.seat_link(eid, pid)
            assert link is not None
            assert seat.join_url == "http://hall" + join_path(link.game, link.code)
            assert seat.player == st.player(pid).name


def test_the_wait_answers_the_events_last_record(app: Flask) -> None:
    eid = new_event(app, players=2)
    last = log(app, eid)[-1].seq
    r = Browser(app).get(f"/events/{eid}/wait?seq=-1")
    assert r.get_json() == {"seq": last, "next_ms": 3000}
    assert Browser(app).get("/events/no-such/wait?seq=0").status_code == 404


def test_the_publics_wait_never_holds_a_worker_thread(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The projector is public: its poll is answered at once, even on the current record, and
    says when to ask again; only the organiser's console waits on the server (issue 33: the
    public must never be able to hold the server's threads)."""
    eid = new_event(app, players=2)
    last = log(app, eid)[-1].seq
    waited: list[float] = []
    real = events(app).wait

    def spy(event: str, seq: int, timeout: float) -> int:
        waited.append(timeout)
        return real(event, seq, 0)

    monkeypatch.setattr(events(app), "wait", spy)
    r = Browser(app).get(f"/events/{eid}/wait?seq={last}")
    assert r.get_json() == {"seq": last, "next_ms": 3000} and waited == []
    r = Organiser(app).b.get(f"/events/{eid}/wait?seq={last}")
    assert r.get_json() == {"seq": last, "next_ms": 0} and waited == [25.0]


def test_the_standings_sheet_prints_once_a_round_is_finished(app: Flask) -> None:
    eid = playing(app, players=4)
    ev = events(app)
    o = Organiser(app)
    page = html.unescape(
        o.b.get(f"/events/{eid}/pdf/standings", follow_redirects=True).get_data(as_text=True)
    )
    assert "Refused: standings: no round is finished yet (T3)" in page
    for t in ev.get(eid).round.tables:  # type: ignore[union-attr]
        ev.enter_result(eid, 1, t.table, 1, t.first, "slip")
    r = o.b.get(f"/events/{eid}/pdf/standings")
    assert (r.status_code, r.mimetype) == (200, "application/pdf")


def test_a_long_pairing_is_paged_on_the_projector_a_page_at_a_time(app: Flask) -> None:
    """30 players: 15 tables by table (two pages of 12), 30 names (three pages); the pages
    take turns (event-live.js)."""
    eid = playing(app, players=30)
    screen = Browser(app).get(f"/events/{eid}/screen").get_data(as_text=True)
    labels = re.findall(r'<section class="page" data-page aria-label="([^"]+)"', screen)
    assert labels == [
        "Pairings by table, page 1 of 2",
        "Pairings by table, page 2 of 2",
        "Pairings by name, page 1 of 3",
        "Pairings by name, page 2 of 3",
        "Pairings by name, page 3 of 3",
    ]


def test_a_judge_call_at_a_table_of_the_round_shows_on_the_console(app: Flask) -> None:
    eid = playing(app, players=4)
    t = events(app).get(eid).round.tables[1]  # type: ignore[union-attr]
    referee_of(app).call_judge(t.games[0], TINY.players[0], "a card fell on the floor")
    console = Organiser(app).page(f"/events/{eid}")
    row = console[console.index('id="table-2"') : console.index('id="table-2"') + 2500]
    assert "calls the judge: a card fell on the floor" in row
    assert f'href="/judge?table={t.games[0]}"' in row


def test_at_time_the_console_offers_the_draw_and_records_it(app: Flask) -> None:
    """T6: past a table's deadline its state is "time" and the judge records the open game as
    a draw; before it, the console offers no such button."""
    eid = playing(app, players=2)
    o = Organiser(app)
    assert 'data-state="playing"' in o.page(f"/events/{eid}")
    assert "Draw at time" not in o.page(f"/events/{eid}")
    referee_of(app).ledger.clock.advance(51 * 60)  # type: ignore[attr-defined]
    at_time = o.page(f"/events/{eid}")
    assert 'data-state="time"' in at_time
    # the referee counts the turns still to end in the game's own record (T6)
    assert "5 turns to end before a draw" in at_time
    page = o.do(eid, "time", round="1", table="1")
    (res,) = events(app).get(eid).round.tables[0].results  # type: ignore[union-attr]
    assert (res.winner, res.source) == (None, "time") and 'data-state="final"' in page


def test_a_re_pair_before_the_start_and_the_top_cut_from_the_console(app: Flask) -> None:
    eid = new_event(app, players=4, rounds=2, top_cut=4)
    ev = events(app)
    o = Organiser(app)
    o.do(eid, "pair")
    page = o.do(eid, "repair", reason="a player came late")
    assert "a player came late" in page and log(app, eid)[-1].body["reason"] == "a player came late"
    for _ in range(2):
        if ev.get(eid).round.started_at is None:  # type: ignore[union-attr]
            o.do(eid, "start")
        for t in ev.get(eid).round.tables:  # type: ignore[union-attr]
            ev.enter_result(eid, ev.get(eid).round.number, t.table, 1, t.first, "slip")  # type: ignore[union-attr]
        if not ev.get(eid).over:
            o.do(eid, "pair")
    assert 'id="pair-cut"' in o.page(f"/events/{eid}")
    page = o.do(eid, "cut")
    cut = ev.get(eid).cut
    assert cut is not None and cut.size == 4 and 'id="cut-list"' in page
    assert [(c.higher_seed, c.lower_seed) for c in cut.pairings] == [(1, 4), (2, 3)]  # T10
    assert 'id="cut-sides"' in page  # the higher seed chooses his side before the start
    page = o.do(eid, "side", table="1", seat="second")
    assert "Table 1: the higher seed's side is recorded (T10)." in page, page[-4000:]
    first = ev.get(eid).round.tables[0].first  # type: ignore[union-attr]
    assert first == cut.pairings[0].lower  # the higher seed took the second seat


def test_the_new_event_form_takes_the_games_own_options(app: Flask) -> None:
    """The game's fields are its new-game form's (web/home.py): a profile chosen there is the
    event's option (checked by the game's own setup when the event is created)."""
    o = Organiser(app)
    page = o.page("/events")
    form = page[page.index('id="new-event-hera-zeus"') :]
    form = form[: form.index("</form>")]
    profiles = re.findall(r'name="profile" value="([^"]+)"', form)
    assert len(profiles) > 1
    data = {"csrf": o.csrf, "game": "hera-zeus", "name": "Hera Open", "profile": profiles[-1]}
    r = o.b.client.post("/events", data=data)
    assert r.status_code == 303, r.headers
    eid = r.headers["Location"].rsplit("/", 1)[-1]
    assert events(app).get(eid).settings.options["profile"] == profiles[-1]


def test_a_late_entry_is_noted_on_the_console(app: Flask) -> None:
    """T9: registered once round 1 has started, he enters round 2 with a loss for round 1."""
    eid = playing(app, players=4)
    page = Organiser(app).do(eid, "register", name="Late Larry")
    row = page[page.index("Late Larry <small") :][:400]
    assert "late entry: from round 2, a loss for each round missed" in row


def test_a_new_link_for_a_lost_phone_is_shown_once_and_the_old_one_opens_nothing(
    app: Flask,
) -> None:
    eid = new_event(app, players=0)
    ev = events(app)
    old = ev.register(eid, "Ann")
    page = Organiser(app).do(eid, "newcode", player=old.player)
    link = re.search(rf"/e/{eid}/p/([A-Za-z0-9_-]+)", page)
    assert link is not None and "A new link for Ann; the old one opens nothing now." in page
    assert ev.player_for_code(eid, link.group(1)) == old.player
    assert ev.player_for_code(eid, old.code) is None
