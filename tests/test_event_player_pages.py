"""The player's event page (issue 34, web/player_event.py): his personal link behaves like a
seat's join link, his page shows only his own part (T13), self-registration (T9), and the round
clock on the pages of an event's games (T6, T7)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from event_helpers import SEED, play_out
from flask import Flask
from flask.testing import FlaskClient
from games.tiny.game import TINY
from web_helpers import make_app, new_game, referee_of

from referee.event.log import store_id
from referee.event.service import Events, Registration
from referee.games import registered
from web.events import get_events


@pytest.fixture
def app() -> Iterator[Flask]:
    with registered(TINY):
        yield make_app()


def events(app: Flask) -> Events:
    with app.app_context():
        return get_events()


def event(
    app: Flask, players: int = 4, start: bool = True, **kw: object
) -> tuple[str, list[Registration]]:
    ev = events(app)
    eid = ev.create(name="Tuesday Cup", game=TINY.name, seed=SEED, **kw)  # type: ignore[arg-type]
    regs = [ev.register(eid, f"Player {i}") for i in range(1, players + 1)]
    if start:
        ev.pair_next(eid)
        ev.start_round(eid)
    return eid, regs


def records(app: Flask, eid: str) -> int:
    return len(referee_of(app).store.records(store_id(eid)))


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m is not None
    return m.group(1)


def as_player(app: Flask, eid: str, code: str) -> FlaskClient:
    c = app.test_client()
    page = c.get(f"/e/{eid}/p/{code}")
    r = c.post(f"/e/{eid}/p/{code}", data={"csrf": csrf_of(page.get_data(as_text=True))})
    assert r.status_code == 303 and r.headers["Location"] == f"/e/{eid}"
    return c


# ---- the personal link -------------------------------------------------------------------


def test_opening_a_personal_link_changes_nothing_and_sets_no_player_cookie(app: Flask) -> None:
    eid, regs = event(app)
    before = records(app, eid)
    c = app.test_client()
    r = c.get(f"/e/{eid}/p/{regs[0].code}")
    assert r.status_code == 200 and "I am Player 1" in r.get_data(as_text=True)
    assert c.get_cookie(f"hze_{eid}") is None
    assert records(app, eid) == before


def test_its_button_keeps_the_code_in_an_httponly_strict_cookie_and_leaves_the_address(
    app: Flask,
) -> None:
    eid, regs = event(app)
    c = app.test_client()
    page = c.get(f"/e/{eid}/p/{regs[0].code}").get_data(as_text=True)
    r = c.post(f"/e/{eid}/p/{regs[0].code}", data={"csrf": csrf_of(page)})
    assert r.status_code == 303 and regs[0].code not in r.headers["Location"]
    (cookie,) = [h for h in r.headers.getlist("Set-Cookie") if h.startswith(f"hze_{eid}=")]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


def test_a_wrong_personal_link_is_404(app: Flask) -> None:
    eid, _ = event(app)
    assert app.test_client().get(f"/e/{eid}/p/{'x' * 32}").status_code == 404


def test_the_links_button_needs_the_csrf_token(app: Flask) -> None:
    eid, regs = event(app)
    r = app.test_client().post(f"/e/{eid}/p/{regs[0].code}", data={"csrf": "0" * 32})
    assert r.status_code == 403


# ---- what each sees (T13) ----------------------------------------------------------------


def test_his_page_shows_his_table_opponent_side_and_seat_link(app: Flask) -> None:
    eid, regs = event(app)
    c = as_player(app, eid, regs[0].code)
    html = c.get(f"/e/{eid}").get_data(as_text=True)
    link = events(app).seat_link(eid, "p1")
    assert link is not None
    assert f'href="/join/{link.game}/{link.code}"' in html
    assert 'id="my-table-number"' in html and 'id="my-opponent"' in html
    assert re.search(r'id="my-side">(East|West)<', html)
    assert 'class="event-clock' in html


def test_the_public_page_and_another_players_show_no_seat_link_or_penalty(app: Flask) -> None:
    eid, regs = event(app)
    ev = events(app)
    ev.penalty(eid, "p1", "tardiness", "warning", "came late to the table")
    link = ev.seat_link(eid, "p1")
    assert link is not None
    public = app.test_client().get(f"/e/{eid}").get_data(as_text=True)
    theirs = as_player(app, eid, regs[1].code).get(f"/e/{eid}").get_data(as_text=True)
    mine = as_player(app, eid, regs[0].code).get(f"/e/{eid}").get_data(as_text=True)
    for html in (public, theirs):
        assert link.code not in html and "came late" not in html and "tardiness" not in html
    assert link.code in mine and "came late to the table" in mine


def test_the_public_page_shows_pairings_standings_and_the_clock(app: Flask) -> None:
    eid, _ = event(app)
    html = app.test_client().get(f"/e/{eid}").get_data(as_text=True)
    assert 'id="pairings"' in html and 'id="standings"' in html and 'class="event-clock' in html
    assert 'id="my-seat-link"' not in html


# ---- his steps (T8, T9) ------------------------------------------------------------------


def test_he_confirms_the_result_the_referee_reported_from_his_page(app: Flask) -> None:
    eid, regs = event(app, 2)
    ev = events(app)
    link = ev.seat_link(eid, "p1")
    assert link is not None
    play_out(referee_of(app), link.game, link.seat)
    c = as_player(app, eid, regs[0].code)
    html = c.get(f"/e/{eid}").get_data(as_text=True)
    assert 'id="confirm-result"' in html and "you won" in html
    r = c.post(f"/e/{eid}/confirm", data={"csrf": csrf_of(html)})
    assert r.status_code == 303
    (res,) = ev.get(eid).rounds[0].tables[0].results
    assert res.confirmed == ("p1",)
    assert 'id="result-confirmed"' in c.get(f"/e/{eid}").get_data(as_text=True)


def test_a_dispute_without_a_note_is_refused_and_writes_nothing(app: Flask) -> None:
    eid, regs = event(app, 2)
    ev = events(app)
    link = ev.seat_link(eid, "p1")
    assert link is not None
    play_out(referee_of(app), link.game, link.seat)
    c = as_player(app, eid, regs[1].code)
    html = c.get(f"/e/{eid}").get_data(as_text=True)
    before = records(app, eid)
    c.post(f"/e/{eid}/dispute", data={"csrf": csrf_of(html), "note": "  "})
    assert records(app, eid) == before
    assert "Refused [T8]" in c.get(f"/e/{eid}").get_data(as_text=True)
    c.post(f"/e/{eid}/dispute", data={"csrf": csrf_of(html), "note": "a card was misread"})
    (res,) = ev.get(eid).rounds[0].tables[0].results
    assert res.disputed == ("p2: a card was misread",)


def test_dropping_needs_the_confirmation_box(app: Flask) -> None:
    eid, regs = event(app, 4, start=False)
    c = as_player(app, eid, regs[0].code)
    html = c.get(f"/e/{eid}").get_data(as_text=True)
    before = records(app, eid)
    c.post(f"/e/{eid}/drop", data={"csrf": csrf_of(html)})
    assert records(app, eid) == before
    c.post(f"/e/{eid}/drop", data={"csrf": csrf_of(html), "sure": "yes"})
    assert events(app).get(eid).player("p1").dropped_after_round == 0


def test_the_head_moves_when_a_result_comes_in(app: Flask) -> None:
    eid, _ = event(app, 2)
    c = app.test_client()
    was = c.get(f"/e/{eid}/head").json["seq"]  # type: ignore[index]
    events(app).enter_result(eid, 1, 1, 1, "p2", "the match slip")
    assert c.get(f"/e/{eid}/head").json["seq"] > was  # type: ignore[index]


# ---- self-registration (T9) --------------------------------------------------------------


def test_registration_is_refused_with_the_rule_where_the_event_does_not_take_it(
    app: Flask,
) -> None:
    eid, _ = event(app, 2, start=False)
    c = app.test_client()
    r = c.get(f"/e/{eid}/register")
    assert r.status_code == 403 and "T9" in r.get_data(as_text=True)
    before = records(app, eid)
    token = c.get(f"/api/v1/events/{eid}").headers["X-CSRF-Token"]
    r = c.post(f"/e/{eid}/register", data={"csrf": token, "name": "Zed"})
    assert r.status_code == 403 and "T9" in r.get_data(as_text=True)
    assert records(app, eid) == before


def test_a_player_registers_himself_and_his_phone_keeps_his_page(app: Flask) -> None:
    eid, _ = event(app, 2, start=False, self_register=True)
    c = app.test_client()
    page = c.get(f"/e/{eid}/register").get_data(as_text=True)
    r = c.post(f"/e/{eid}/register", data={"csrf": csrf_of(page), "name": "Zed"})
    assert r.status_code == 201 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert f"/e/{eid}/p/" in html and "late-entry" not in html
    assert "Zed" in c.get(f"/e/{eid}").get_data(as_text=True).split('id="mine-h">')[1][:20]


def test_a_late_entry_is_told_of_his_losses(app: Flask) -> None:
    eid, _ = event(app, 2, self_register=True)
    c = app.test_client()
    page = c.get(f"/e/{eid}/register").get_data(as_text=True)
    assert "counts as a match lost (T9)" in page
    r = c.post(f"/e/{eid}/register", data={"csrf": csrf_of(page), "name": "Zed"})
    assert r.status_code == 201 and "count" in r.get_data(as_text=True)
    assert events(app).get(eid).player("p3").entered_round == 2


# ---- the clock on an event's game pages (T6, T7) -----------------------------------------


def test_an_events_game_page_shows_the_tables_clock_with_its_extension(app: Flask) -> None:
    ev = events(app)  # a game with pages of its own (Tiny Duel has none)
    eid = ev.create(name="Sunday Cup", game="hera-zeus", seed=SEED)
    for name in ("Ann", "Bob"):
        ev.register(eid, name)
    ev.pair_next(eid)
    ev.start_round(eid)
    ev.extend(eid, 1, 5, "a judge call")
    game = ev.get(eid).rounds[0].tables[0].games[0]
    html = app.test_client().get(f"/g/{game}").get_data(as_text=True)
    assert 'id="event-game"' in html and "round 1 · table 1" in html
    assert "+5 min" in html
    deadline = ev.get(eid).rounds[0].tables[0].deadline
    assert f'data-deadline="{deadline}"' in html


def test_a_game_no_event_made_shows_no_clock(app: Flask) -> None:
    created, _ = new_game(app)
    ref = referee_of(app)  # nor one whose id only looks like an event's game
    lookalike = ref.create_game(game="nocup-r1t1").game
    for game in (created.game, lookalike):
        r = app.test_client().get(f"/g/{game}")
        assert r.status_code == 200
        html = r.get_data(as_text=True)
        assert "event-game" not in html and "event-clock" not in html


def test_the_live_poll_finds_a_game_that_ended_where_the_bell_was_not_heard(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Events, "listen", lambda self: None)  # another process's game, say
    eid, _ = event(app, 2)
    ev = events(app)
    link = ev.seat_link(eid, "p1")
    assert link is not None
    c = app.test_client()
    was = c.get(f"/e/{eid}/head").json["seq"]  # type: ignore[index]
    play_out(referee_of(app), link.game, link.seat)
    monkeypatch.setattr("web.events.sync_now.__defaults__", (0.0,))
    assert c.get(f"/e/{eid}/head").json["seq"] > was  # type: ignore[index]
    (res,) = ev.get(eid).rounds[0].tables[0].results
    assert res.source == "referee" and res.winner == "p1"


def test_the_higher_seed_chooses_his_side_of_a_top_cut_table_on_his_page(app: Flask) -> None:
    """T10: only the higher seed is offered the choice, before the start, once."""
    eid, regs = event(app, 4, rounds=1, top_cut=4)
    ev = events(app)
    for t in ev.get(eid).rounds[0].tables:
        ev.enter_result(eid, 1, t.table, 1, t.first, "slip")
    ev.pair_cut(eid)
    t = ev.get(eid).rounds[-1].tables[0]
    code = {r.player: r.code for r in regs}
    lower = as_player(app, eid, code[t.second])
    assert 'id="choose-side"' not in lower.get(f"/e/{eid}").get_data(as_text=True)
    higher = as_player(app, eid, code[t.first])
    html = higher.get(f"/e/{eid}").get_data(as_text=True)
    assert 'id="choose-side"' in html and "higher seed" in html
    r = higher.post(f"/e/{eid}/side", data={"csrf": csrf_of(html), "seat": "second"})
    assert r.status_code == 303
    now = ev.get(eid).rounds[-1].tables[0]
    assert (now.first, now.second, now.side_chosen) == (t.second, t.first, True)
    assert 'id="choose-side"' not in higher.get(f"/e/{eid}").get_data(as_text=True)
