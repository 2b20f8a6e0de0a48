"""Issue 31, item 10: everything a turn allows is in reach without scrolling, at 360 x 740,
320 x 568 and 740 x 360 – the actions, the tabs, End, the take-back and the judge call – and a
phone held sideways shows the drawing and the controls side by side.

"In reach" is what a thumb gets as the page stands: the control's box lies inside the viewport
and nothing (a sticky header, the dock) covers its middle. Setup (D19) is recorded through the
service; the turns are tapped on the pages. ``benchmarks/page_reach.py`` walks a whole game the
same way and prints the taps and the scrolls."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from browser_helpers import chrome, new_profile, require_browser, serving, take_seat
from service_helpers import make_referee
from test_service import HERA_HAND, ZEUS_HAND, ZEUS_ROW, set_up

pytestmark = pytest.mark.browser
require_browser()

from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from referee.service import Referee  # noqa: E402
from web.app import create_app  # noqa: E402

CEILING = 30.0  # seconds: CI is a busy 2-core machine; every wait is for a condition
SIZES = [(360, 740), (320, 568), (740, 360)]
# every control a seat may use at a moment: its actions (tabs and End included), an answer to
# the referee, a take-back to ask or to accept, the judge call
CONTROLS = (
    "#actions button, #actions select, #actions summary, #asked button, #asked select,"
    " #takeback button, #call-form button, #seats .proposal button"
)
# the ones of CONTROLS shown and enabled that a thumb cannot reach as the page stands
OUT_OF_REACH = """
var out = [];
document.querySelectorAll(arguments[0]).forEach(function (el) {
  if (el.disabled || !el.getClientRects().length) { return; }
  var shut = el.closest('details:not([open])');  // a closed disclosure's content is not shown
  if (shut && !(el.tagName === 'SUMMARY' && el.parentNode === shut)) { return; }
  var r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) { return; }
  var inside = r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight + 0.5
    && r.right <= window.innerWidth + 0.5;
  var hit = inside && document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  if (!hit || !(hit === el || el.contains(hit))) {
    out.push((el.textContent.trim() || el.name || el.tagName).slice(0, 40)
      + ' at ' + Math.round(r.top) + '-' + Math.round(r.bottom));
  }
});
return out;
"""


@dataclass
class Phone:
    name: str
    d: Chrome

    def wait(self, cond: Callable[[], bool], what: str) -> None:
        stale = (StaleElementReferenceException, NoSuchElementException)
        try:
            WebDriverWait(self.d, CEILING, 0.05, ignored_exceptions=stale).until(lambda _: cond())
        except Exception:
            raise AssertionError(f"{self.name}: {what} (within {CEILING} s)") from None

    def shows(self, css: str) -> bool:
        return bool(self.d.find_elements(By.CSS_SELECTOR, css))

    def seq(self) -> int:
        return int(self.d.find_element(By.TAG_NAME, "body").get_attribute("data-seq") or -1)

    def out_of_reach(self) -> list[str]:
        return [str(x) for x in self.d.execute_script(OUT_OF_REACH, CONTROLS)]

    def settled(self, css: str, seq: int) -> None:
        """The page shows event ``seq`` and ``css``, and its layout no longer moves."""
        self.wait(lambda: self.seq() >= seq and self.shows(css), f"{css} at event {seq}")
        last: list[object] = [None]

        def still() -> bool:
            now = self.d.execute_script(
                "var d = document.getElementById('dock') || document.body;"
                "return [d.getBoundingClientRect().height, window.scrollY,"
                " document.documentElement.scrollHeight];"
            )
            same, last[0] = now == last[0], now
            return bool(same)

        self.wait(still, "the layout settles")

    def tap(self, css: str) -> None:
        self.wait(lambda: self.shows(css), f"{css} shown")
        self.d.find_element(By.CSS_SELECTOR, css).click()


@pytest.fixture(params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def table(request: pytest.FixtureRequest) -> Iterator[tuple[Referee, str, Phone, Phone]]:
    width, height = request.param
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False}
    profiles = [new_profile("reach-hera"), new_profile("reach-zeus")]
    drivers = [chrome(path) for path in profiles]
    for d in drivers:  # a phone's viewport, no browser bars
        d.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True},
        )
    try:
        with serving(create_app(config)) as url:
            created = ref.create_game(profile="rio-grande", starting="hera")
            hera, zeus = Phone("hera", drivers[0]), Phone("zeus", drivers[1])
            for p in (hera, zeus):
                take_seat(p.d, f"{url}/join/{created.game}/{created.codes[p.name]}")
            yield ref, created.game, hera, zeus
    finally:
        for d in drivers:
            d.quit()
        for path in profiles:
            shutil.rmtree(path, ignore_errors=True)


def test_everything_the_turn_allows_is_in_reach_without_scrolling(
    table: tuple[Referee, str, Phone, Phone],
) -> None:
    ref, g, hera, zeus = table
    set_up(ref, g)

    def last() -> int:
        return int(ref.folded(g).last_seq)

    # Hera's turn begins (D6): Draw, her hand's cards, the columns, End, the judge call
    hera.d.refresh()
    hera.settled("#g-draw button", last())
    assert hera.out_of_reach() == []
    # she draws: the take-back is offered (HZ-P14), and everything is still in reach
    before = last()
    hera.tap("#g-draw button[type=submit]")
    hera.wait(lambda: last() > before, "the draw is recorded")
    hera.settled("#takeback-form button", last())
    assert hera.out_of_reach() == []
    # Zeus, waiting, is asked to accept the take-back: Accept, Decline and the judge call
    before = last()
    hera.tap("#takeback-form button")
    hera.wait(lambda: last() > before, "the take-back is asked")
    zeus.settled("#accept-takeback", last())
    assert zeus.out_of_reach() == []
    for css in ("#accept-takeback", "#decline-takeback", "#call-form button"):
        assert zeus.shows(css), css
    # accepted; Hera plays her card and draws: her points are spent, End is the way on (D7),
    # with the take-back of the draw
    before = last()
    zeus.tap("#accept-takeback")
    zeus.wait(lambda: last() > before, "the take-back is accepted")
    for action in ({"do": "draw"}, {"do": "play", "card": "Nemesis", "column": 2}):
        ref.submit(g, "hera", action)
    before = last()
    hera.settled("#g-draw button", before)
    hera.tap("#g-draw button[type=submit]")
    hera.wait(lambda: last() > before, "the draw is recorded")
    hera.settled("#g-end button", last())
    assert hera.shows("#takeback-form button")
    assert hera.out_of_reach() == []


def test_after_setup_the_page_shows_the_drawing_and_the_turn_from_its_top(
    table: tuple[Referee, str, Phone, Phone],
) -> None:
    """Setup's long forms scrolled the page down; when setup ends, the kept scroll position
    does not leave the turn's controls or the drawing out of sight."""
    ref, g, hera, _ = table
    hera.settled("#deal-form", 0)
    ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": list(HERA_HAND)})
    ref.submit(g, "zeus", {"do": "deal", "player": "zeus", "cards": list(ZEUS_HAND)})
    ref.submit(g, "zeus", {"do": "first_row", "player": "zeus", "cards": list(ZEUS_ROW)})
    hera.settled("#row-form", int(ref.folded(g).last_seq))
    hera.d.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    hera.wait(lambda: hera.d.execute_script("return window.scrollY") > 0, "scrolled down")
    # the last step of setup, sent in place (clicked where it is: the scroll stays as it is)
    hera.d.execute_script("document.querySelector('#row-form button[type=submit]').click()")
    hera.settled("#g-draw button", int(ref.folded(g).last_seq))
    assert hera.out_of_reach() == []
    top = hera.d.execute_script(
        "return document.querySelector('#table svg').getBoundingClientRect().top"
    )
    assert 0 <= top < hera.d.execute_script("return window.innerHeight / 2")


@pytest.mark.parametrize("seat", ["hera", "zeus"])
def test_sideways_the_drawing_and_the_controls_stand_side_by_side(seat: str) -> None:
    """740 x 360: the whole drawing in sight on the left, every control on its right – for
    Zeus too, whose drawing is turned round (HZ-P10)."""
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False}
    profile = new_profile("reach-side")
    d = chrome(profile)
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 740, "height": 360, "deviceScaleFactor": 2, "mobile": True},
    )
    try:
        with serving(create_app(config)) as url:
            created = ref.create_game(profile="rio-grande", starting=seat)
            set_up(ref, created.game, hera=HERA_HAND, zeus=ZEUS_HAND)
            p = Phone(seat, d)
            take_seat(d, f"{url}/join/{created.game}/{created.codes[seat]}")
            p.settled("#g-draw button", int(ref.folded(created.game).last_seq))
            drawing = d.execute_script(
                "var r = document.querySelector('#table svg').getBoundingClientRect();"
                "return [r.left, r.right, r.top, r.bottom];"
            )
            controls = d.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0]))"
                ".filter(function (el) { return el.getClientRects().length; })"
                ".map(function (el) { return el.getBoundingClientRect().left; });",
                CONTROLS,
            )
            assert controls and min(controls) >= drawing[1] - 1  # the controls on its right
            assert drawing[2] >= 0 and drawing[3] <= 360  # the whole drawing in sight
            assert p.out_of_reach() == []
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_minotaur_lords_board_stays_in_sight_beside_its_dock(size: tuple[int, int]) -> None:
    """The dock is the shell's. Miron's first turn (M5, phase 0) offers more than an upright
    phone's screen holds: the dock then leaves the board in sight above it (and scrolls by
    itself); held sideways the board stands beside it. Nothing covers the board's top."""
    from pathlib import Path

    from engine.minotaur.cards import parse_deck_list

    decks = (Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv").read_text()
    hand = [c.name for c in parse_deck_list(decks) if c.deck == "miron"][:6]
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False}
    profile = new_profile("reach-minotaur")
    d = chrome(profile)
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True},
    )
    try:
        with serving(create_app(config)) as url:
            created = ref.create_game(
                name="minotaur", options={"deck_list": decks, "first": "miron"}
            )
            ref.submit(created.game, "miron", {"do": "hand", "cards": hand})
            p = Phone("miron", d)
            take_seat(d, f"{url}/join/{created.game}/{created.codes['miron']}")
            p.settled("#g-play .hand-pick button", int(ref.folded(created.game).last_seq))
            board_in_sight = d.execute_script(
                "var r = document.querySelector('#table svg').getBoundingClientRect();"
                "var x = (r.left + r.right) / 2, y = r.top + 20;"
                "var hit = document.elementFromPoint(x, y);"
                "return r.top >= 0 && !!hit && !!hit.closest('#table');"
            )
            assert board_in_sight
            assert not p.shows("#dock #table")
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)
