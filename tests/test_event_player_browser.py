"""A player at an event, on his phone (issue 34), in headless Chromium at 360 x 740: he opens
his personal link, presses its one button, sees his table, follows his seat link to his game's
page, sees the round clock there; back on his page the result the referee reported appears by
itself (the page follows the event) without losing his half-typed note, and he confirms it.
Screenshots go to test-artifacts/event-player/."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from browser_helpers import artifacts, chrome, new_profile, require_browser, serving
from service_helpers import make_referee

pytestmark = pytest.mark.browser
require_browser()

from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from referee.event.service import Events, Registration  # noqa: E402
from web.app import create_app  # noqa: E402
from web.events import get_events  # noqa: E402

JUDGE_CODE = "tournament-judge-code-0123456789"


@dataclass
class Venue:
    url: str
    ev: Events
    event: str
    regs: list[Registration]
    phone: Chrome


@pytest.fixture
def venue() -> Iterator[Venue]:
    ref = make_referee()
    app = create_app(
        {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False, "JUDGE_CODE": JUDGE_CODE}
    )
    with app.app_context():
        ev = get_events()
    eid = ev.create(name="Tuesday Cup", game="hera-zeus", seed="0123456789abcdef")
    regs = [ev.register(eid, name) for name in ("Ann Example", "Bob", "Cleo", "Dmitri")]
    ev.pair_next(eid)
    ev.start_round(eid)
    profile = new_profile("event-player")
    phone = chrome(profile)
    try:
        with serving(app) as url:
            yield Venue(url, ev, eid, regs, phone)
    finally:
        phone.quit()
        shutil.rmtree(profile, ignore_errors=True)


def shot(d: Chrome, name: str) -> None:
    out = artifacts("event-player")
    out.mkdir(parents=True, exist_ok=True)
    d.save_screenshot(str(out / f"{name}.png"))


def test_a_player_reaches_his_game_from_his_link_and_confirms_his_result(venue: Venue) -> None:
    d, eid = venue.phone, venue.event
    d.get(f"{venue.url}/e/{eid}/p/{venue.regs[0].code}")
    shot(d, "1-personal-link")
    d.find_element(By.ID, "take-player").click()
    WebDriverWait(d, 30).until(lambda drv: drv.current_url.endswith(f"/e/{eid}"))
    assert venue.regs[0].code not in d.current_url  # out of the address bar
    table = d.find_element(By.ID, "my-table-number").text
    assert table == str(venue.ev.get(eid).table_of("p1").table)  # type: ignore[union-attr]
    assert ":" in d.find_element(By.CSS_SELECTOR, "#event-live .event-clock-left").text
    shot(d, "2-his-page")

    d.find_element(By.ID, "my-seat-link").click()  # the game's own join link
    WebDriverWait(d, 30).until(lambda drv: drv.find_elements(By.ID, "take-seat"))
    d.find_element(By.ID, "take-seat").click()
    WebDriverWait(d, 30).until(lambda drv: drv.find_elements(By.ID, "event-game"))
    clock = d.find_element(By.CSS_SELECTOR, "#event-game .event-clock-left")
    first = clock.text
    WebDriverWait(d, 5).until(lambda _: clock.text != first)  # it counts down by itself
    assert f"table {table}" in d.find_element(By.ID, "event-game").text
    shot(d, "3-his-game-with-the-clock")

    d.get(f"{venue.url}/e/{eid}")
    WebDriverWait(d, 30).until(lambda drv: drv.find_elements(By.ID, "my-record"))
    link = venue.ev.seat_link(eid, "p1")
    assert link is not None
    t = venue.ev.get(eid).table_of("p1")
    assert t is not None
    # the referee reports the game's end (as Events.sync writes it when the game ends)
    h = venue.ev.referee.head(link.game)
    head = f"{h['seq']}:{h['hash']}"
    venue.ev._result(eid, 1, t.table, 1, "p1", "the last card", "referee", "system", head=head)
    WebDriverWait(d, 15).until(lambda drv: drv.find_elements(By.ID, "confirm-result"))
    shot(d, "4-result-waiting")
    note = d.find_element(By.ID, "dispute-note")
    note.send_keys("half a thought")
    venue.ev.check_in(eid, "p2")  # the event moves on: the page follows it
    seq = venue.ev.get(eid).head[0]  # type: ignore[index]
    WebDriverWait(d, 15).until(
        lambda drv: drv.execute_script("return document.body.dataset.eventSeq") == str(seq)
    )
    assert d.find_element(By.ID, "dispute-note").get_attribute("value") == "half a thought"
    d.find_element(By.ID, "confirm-result").click()
    WebDriverWait(d, 30).until(lambda drv: drv.find_elements(By.ID, "result-confirmed"))
    shot(d, "5-confirmed")
    (res,) = venue.ev.get(eid).table_of("p1").results  # type: ignore[union-attr]
    assert res.confirmed == ("p1",)
    logs = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]  # type: ignore[no-untyped-call]
    assert logs == [], logs


def test_the_public_page_and_self_registration_at_360_px(venue: Venue) -> None:
    d = venue.phone
    d.get(f"{venue.url}/e/{venue.event}")
    WebDriverWait(d, 30).until(lambda drv: drv.find_elements(By.ID, "pairings"))
    shot(d, "6-public")
    open_ = venue.ev.create(name="Open Cup", game="hera-zeus", self_register=True)
    d.get(f"{venue.url}/e/{open_}/register")
    d.find_element(By.ID, "name").send_keys("Zed")
    shot(d, "7-register")
    d.find_element(By.ID, "register-me").click()
    WebDriverWait(d, 30).until(lambda drv: drv.find_elements(By.ID, "personal-link"))
    shot(d, "8-registered")
    d.find_element(By.ID, "to-my-page").click()
    WebDriverWait(d, 30).until(lambda drv: drv.find_elements(By.ID, "mine-h"))
    assert d.find_element(By.ID, "mine-h").text == "Zed"


def test_the_clock_speaks_only_at_a_minute_mark(venue: Venue) -> None:
    """The widget counts from the server's deadline and now: 64 s left says nothing at first,
    then "1 minute left" once the minute mark is crossed (its aria-live region)."""
    d = venue.phone
    d.get(f"{venue.url}/e/{venue.event}")
    WebDriverWait(d, 30).until(lambda drv: drv.find_elements(By.ID, "event-clock"))
    # set and read in one script, the clock anchored there (its own tick): a loaded machine
    # cannot let a second pass between them
    first = d.execute_script(
        "var c = document.getElementById('event-clock');"
        "c.setAttribute('data-now', '2030-01-01T00:00:00.000+00:00');"
        "c.setAttribute('data-deadline', '2030-01-01T00:01:04+00:00');"
        "window.hzEventClock.tick();"
        "return [c.querySelector('.event-clock-left').textContent,"
        " c.querySelector('.event-clock-say').textContent];"
    )
    assert first == ["1:04", ""]  # more than a minute left: nothing said
    say = d.find_element(By.CSS_SELECTOR, "#event-clock .event-clock-say")
    left = d.find_element(By.CSS_SELECTOR, "#event-clock .event-clock-left")
    assert say.get_attribute("aria-live") == "polite"
    WebDriverWait(d, 30).until(lambda _: left.text.startswith("0:"))
    assert say.get_attribute("textContent") == "1 minute left"
