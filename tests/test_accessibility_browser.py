"""Issue 13, item 8: the checks of "for every player at the table" that axe-core cannot make
(axe itself runs on every page of the whole-game test, tests/test_web_browser.py), in headless
Chromium at 360 x 740: tap targets of 44 px, no sideways scroll at 200% zoom, type that
follows the browser's font size, borders of controls at 3:1, one h1 a page, and the focus and a
half-typed note kept across a live update."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from browser_helpers import axe_violations, chrome, new_profile, require_browser, serving, take_seat
from flask import Flask
from service_helpers import make_referee
from test_service import set_up

pytestmark = pytest.mark.browser
require_browser()

from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from referee.service import Referee  # noqa: E402
from web.app import create_app  # noqa: E402
from web.events import get_events  # noqa: E402

JUDGE_CODE = "tournament-judge-code-0123456789"


@dataclass
class Table:
    url: str
    ref: Referee
    game: str
    hera: Chrome
    judge: Chrome
    links: dict[str, str]  # join links: Hera's (taken), a free seat's, a taken one's unjudged
    event: dict[str, str]  # an event's pages (issue 34): its id, a player's link, its game...

    def pages(self) -> dict[str, tuple[Chrome, str]]:
        g = f"{self.url}/g/{self.game}"
        return {
            "home": (self.judge, f"{self.url}/"),
            "hera's seat": (self.hera, g),
            "the judge's table": (self.judge, g),
            "all tables": (self.judge, f"{self.url}/judge"),
            "the console": (self.judge, f"{self.url}/judge?table={self.game}"),
            "replay": (self.hera, f"{g}/replay"),
            "review": (self.hera, f"{g}/review?at=4"),
            "the judge's review": (self.judge, f"{g}/review?at=4"),  # the open actions
            "a join link's page": (self.judge, self.links["free"]),
            "a held seat's page": (self.judge, self.links["hera"]),
            "a held seat's page without a judge": (self.judge, self.links["taken"]),
            # an event (issue 34): Hera's phone holds its first player's page and seat
            "a player's event page": (self.hera, f"{self.url}/e/{self.event['id']}"),
            "an event's public page": (self.judge, f"{self.url}/e/{self.event['id']}"),
            "a personal link's page": (self.judge, self.event["link"]),
            "self-registration": (self.judge, f"{self.url}/e/{self.event['open']}/register"),
            "a seat at an event's game": (self.hera, f"{self.url}/g/{self.event['game']}"),
        }


@pytest.fixture(scope="module")
def table() -> Iterator[Table]:
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False, "JUDGE_CODE": JUDGE_CODE}
    profiles = [new_profile("a11y-hera"), new_profile("a11y-judge")]
    hera, judge = (chrome(p) for p in profiles)
    try:
        app = create_app(config)
        with serving(app) as url:
            created = ref.create_game(profile="rio-grande", starting="hera")
            g = created.game
            set_up(ref, g)
            take_seat(hera, f"{url}/join/{g}/{created.codes['hera']}")
            judge.get(f"{url}/judge/join/{JUDGE_CODE}")
            other = ref.create_game(judged=False)
            ref.claim(other.game, other.codes["zeus"])
            links = {
                "hera": f"{url}/join/{g}/{created.codes['hera']}",
                "free": f"{url}/join/{other.game}/{other.codes['hera']}",
                "taken": f"{url}/join/{other.game}/{other.codes['zeus']}",
            }
            yield Table(url, ref, g, hera, judge, links, an_event(app, url, hera))
    finally:
        for d in (hera, judge):
            d.quit()
        for p in profiles:
            shutil.rmtree(p, ignore_errors=True)


def an_event(app: Flask, url: str, phone: Chrome) -> dict[str, str]:
    """An event playing round 1 (issue 34): ``phone`` holds its first player's page and his
    seat at his game (set up); its second player's personal link; an event taking
    self-registration."""
    with app.app_context():
        ev = get_events()
    eid = ev.create(
        name="Tuesday Cup",
        game="hera-zeus",
        options={"profile": "rio-grande", "starting": "hera"},
        seed="0123456789abcdef",
    )
    regs = [ev.register(eid, name) for name in ("Ann Example", "Bob", "Cleo", "Dmitri")]
    ev.pair_next(eid)
    ev.start_round(eid)
    phone.get(f"{url}/e/{eid}/p/{regs[0].code}")
    phone.find_element(By.ID, "take-player").click()
    WebDriverWait(phone, 30).until(lambda d: d.current_url.endswith(f"/e/{eid}"))
    open_ = ev.create(name="Open Cup", game="hera-zeus", self_register=True)
    link = ev.seat_link(eid, "p1")
    assert link is not None
    set_up(ev.referee, link.game)
    take_seat(phone, f"{url}/join/{link.game}/{link.code}")  # his seat at his game
    return {"id": eid, "link": f"{url}/e/{eid}/p/{regs[1].code}", "open": open_, "game": link.game}


def settled(d: Chrome, url: str) -> None:
    d.get(url)
    WebDriverWait(d, 30).until(
        lambda _: d.execute_script("return document.readyState") == "complete"
    )


SMALL_TARGETS = """
var out = [];
document.querySelectorAll(
  "button, select, input:not([type=hidden]):not([type=radio]):not([type=checkbox]), "
  + "textarea, summary, a.button, label.choice").forEach(function (el) {
  var r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0 || el.closest(".sr-only")) { return; }
  if (r.height < 43.5 || r.width < 43.5) {
    out.push(el.tagName + (el.id ? "#" + el.id : "") + " '" + (el.textContent || el.name || "")
      .trim().slice(0, 30) + "' " + Math.round(r.width) + "x" + Math.round(r.height));
  }
});
return out;
"""


def test_every_control_is_at_least_44_px_and_there_is_one_h1(table: Table) -> None:
    for name, (d, url) in table.pages().items():
        settled(d, url)
        assert d.execute_script(SMALL_TARGETS) == [], name
        assert len(d.find_elements(By.TAG_NAME, "h1")) == 1, name


def test_axe_core_finds_no_wcag_a_or_aa_violation_on_any_page(table: Table) -> None:
    for name, (d, url) in table.pages().items():
        settled(d, url)
        assert axe_violations(d) == [], name


def test_no_page_scrolls_sideways_at_200_percent_zoom(table: Table) -> None:
    """Zooming a 360 px phone to 200% leaves a layout 180 CSS px wide."""
    for name, (d, url) in table.pages().items():
        d.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 180, "height": 370, "deviceScaleFactor": 4, "mobile": False},
        )
        try:
            settled(d, url)
            wide = d.execute_script(
                "var e = document.documentElement; return [e.scrollWidth, e.clientWidth];"
            )
            culprits = d.execute_script(
                "var w = document.documentElement.clientWidth;"
                "return Array.from(document.querySelectorAll('body *')).filter(function (e) {"
                " var r = e.getBoundingClientRect();"
                " return (r.right > w || e.scrollWidth > e.clientWidth + 1) && r.width > 0; })"
                ".slice(-4).map(function (e) { return e.tagName + '.' + e.className + ' '"
                " + Math.round(e.getBoundingClientRect().right); });"
            )
            assert wide[0] <= wide[1], f"{name}: {wide[0]} px wide in {wide[1]}: {culprits}"
        finally:
            d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_type_follows_the_browsers_font_size(table: Table) -> None:
    d, url = table.pages()["hera's seat"]
    settled(d, url)
    small = d.execute_script("return getComputedStyle(document.body).fontSize")
    d.execute_cdp_cmd("Page.setFontSizes", {"fontSizes": {"standard": 24, "fixed": 20}})
    try:
        settled(d, url)
        assert small == "16px"
        assert d.execute_script("return getComputedStyle(document.body).fontSize") == "24px"
        log = d.execute_script("return getComputedStyle(document.querySelector('.log')).fontSize")
        assert float(log.removesuffix("px")) > 20  # .9rem of 24 px
    finally:
        d.execute_cdp_cmd("Page.setFontSizes", {"fontSizes": {"standard": 16, "fixed": 13}})


def luminance(rgb: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_the_borders_of_controls_stand_out_at_3_to_1(table: Table) -> None:
    """WCAG 1.4.11: inputs, selects and buttons are told from a white page by their border."""
    d, url = table.pages()["hera's seat"]
    settled(d, url)
    borders = d.execute_script(
        "return Array.from(document.querySelectorAll('input:not([type=hidden]), select, button'))"
        ".filter(function (e) { return e.getBoundingClientRect().height > 0; })"
        ".map(function (e) { return [e.outerHTML.slice(0, 60), getComputedStyle(e).borderTopColor,"
        " getComputedStyle(e).backgroundColor]; })"
    )
    assert borders
    for what, border, background in borders:
        lb = luminance(border)
        # against the white page, or against the control's own fill when that is darker
        lw = min(1.0, luminance(background)) if "rgba(0, 0, 0, 0)" not in background else 1.0
        ratio = (max(lb, 1.0) + 0.05) / (min(lb, 1.0) + 0.05)
        assert ratio >= 3 or abs(lb - lw) < 1e-6, f"{what}: border {border} is {ratio:.2f}:1"


def test_a_live_update_keeps_the_focus_and_a_half_typed_note(table: Table) -> None:
    """The judge's page replaces its live sections when Hera acts; the reason the judge is
    typing in one of them keeps its text and his focus, and the news is announced politely."""
    d, url = table.pages()["the judge's table"]
    settled(d, url)
    note = d.find_element(By.CSS_SELECTOR, "#tools input[name=reason]")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", note)
    note.click()
    note.send_keys("the deck was shuffled")
    before = int(d.find_element(By.TAG_NAME, "body").get_attribute("data-seq") or -1)
    table.ref.submit(table.game, "hera", {"do": "draw"})
    WebDriverWait(d, 30, poll_frequency=0.05).until(
        lambda _: int(d.find_element(By.TAG_NAME, "body").get_attribute("data-seq") or -1) > before
    )
    active = d.switch_to.active_element
    assert active.get_attribute("name") == "reason"
    assert active.get_attribute("value") == "the deck was shuffled"
    WebDriverWait(d, 30, poll_frequency=0.05).until(
        lambda _: "draws" in (d.find_element(By.ID, "announce").get_attribute("textContent") or "")
    )
    assert d.find_element(By.ID, "announce").get_attribute("aria-live") == "polite"


def test_axe_core_finds_no_violation_on_the_organisers_pages_and_the_projector(
    table: Table,
) -> None:
    """Issue 34: the events list and the organiser's console on a laptop (1280 x 800), the
    projector page at 1920 x 1080, with an event of four players whose round 1 is playing;
    each with one h1 and the console's controls at least 44 px."""
    from referee.event.service import Events

    ev = Events(table.ref)
    eid = ev.create(name="A11y Cup", game="hera-zeus", options={}, rounds=2, self_register=True)
    for name in ("Ann", "Bob", "Cid", "Dee"):
        ev.check_in(eid, ev.register(eid, name).player)
    ev.pair_next(eid)
    ev.start_round(eid)
    d = table.judge
    pages = {
        "the events list": ((1280, 800), f"{table.url}/events"),
        "the organiser's console": ((1280, 800), f"{table.url}/events/{eid}"),
        "the projector page": ((1920, 1080), f"{table.url}/events/{eid}/screen"),
    }
    try:
        for name, (size, url) in pages.items():
            d.set_window_size(*size)
            settled(d, url)
            d.execute_script("document.querySelectorAll('details').forEach(x => x.open = true)")
            WebDriverWait(d, 30).until(
                lambda _: d.execute_script("return document.getAnimations().length === 0")
            )
            assert axe_violations(d) == [], name
            assert len(d.find_elements(By.TAG_NAME, "h1")) == 1, name
            if name != "the projector page":
                assert d.execute_script(SMALL_TARGETS) == [], name
    finally:
        d.set_window_size(360, 740)
