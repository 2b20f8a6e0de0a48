"""Issue 13, item 1: a seat page for one hand. Two phones at 360 x 740 play a short game to its
end through their pages; before every tap, the control to tap already lies inside the
viewport, with no scrolling, and the taps are counted per seat (printed: ``pytest -s``).
Setup (D19) is recorded through the service: the count is of the game's turns."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from browser_helpers import chrome, new_profile, require_browser, serving, take_seat
from service_helpers import make_referee
from test_service import set_up

pytestmark = pytest.mark.browser
require_browser()

from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from referee.service import NeedsInput, Referee  # noqa: E402
from web.app import create_app  # noqa: E402

CEILING = 30.0  # seconds: CI is a busy 2-core machine; every wait is for a condition


@dataclass
class Phone:
    name: str
    d: Chrome
    taps: int = 0
    out_of_reach: list[str] = field(default_factory=list)

    def seq(self) -> int:
        return int(self.d.find_element(By.TAG_NAME, "body").get_attribute("data-seq") or -1)

    def wait(self, cond: Callable[[], bool], what: str) -> None:
        stale = (StaleElementReferenceException, NoSuchElementException)
        try:
            WebDriverWait(self.d, CEILING, 0.05, ignored_exceptions=stale).until(lambda _: cond())
        except Exception:
            raise AssertionError(f"{self.name}: {what} (within {CEILING} s)") from None

    def reach(self, css: str) -> None:
        """The control lies inside the viewport as the page stands: no scrolling needed."""
        self.wait(lambda: bool(self.d.find_elements(By.CSS_SELECTOR, css)), f"{css} shown")
        box = self.d.execute_script(
            "var r = document.querySelector(arguments[0]).getBoundingClientRect();"
            "return [r.top, r.bottom, window.innerHeight, window.scrollY];",
            css,
        )
        if not (box[0] >= 0 and box[1] <= box[2] and box[3] == 0):
            self.out_of_reach.append(f"{css}: {box[0]:.0f}-{box[1]:.0f} of {box[2]} px")

    def tap(self, css: str) -> None:
        self.reach(css)
        self.taps += 1
        self.d.find_element(By.CSS_SELECTOR, css).click()

    def choose(self, css: str, value: str) -> None:
        self.reach(css)
        self.taps += 1
        Select(self.d.find_element(By.CSS_SELECTOR, css)).select_by_value(value)


@pytest.fixture
def phones() -> Iterator[tuple[Referee, str, Phone, Phone]]:
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False}
    profiles = [new_profile("taps-hera"), new_profile("taps-zeus")]
    drivers = [chrome(path) for path in profiles]
    for d in drivers:  # a phone's viewport: 360 x 740 CSS pixels, no browser bars
        d.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True},
        )
    try:
        with serving(create_app(config)) as url:
            created = ref.create_game(profile="rio-grande", starting="hera")
            g = created.game
            set_up(ref, g)
            hera, zeus = Phone("hera", drivers[0]), Phone("zeus", drivers[1])
            for p in (hera, zeus):
                take_seat(p.d, f"{url}/join/{g}/{created.codes[p.name]}")
            yield ref, g, hera, zeus
    finally:
        for d in drivers:
            d.quit()
        for path in profiles:
            shutil.rmtree(path, ignore_errors=True)


def test_every_control_of_a_whole_game_is_in_reach_without_scrolling(
    phones: tuple[Referee, str, Phone, Phone],
) -> None:
    ref, g, hera, zeus = phones

    def settled(*who: Phone) -> None:
        """Each page shows the server's latest event (sent in place, or a live update)."""
        target = int(ref.folded(g).last_seq)
        for p in who or (hera, zeus):
            shown(p, target)

    def shown(p: Phone, target: int) -> None:
        p.wait(lambda: p.seq() >= target, f"the page shows event {target}")

    def act(p: Phone, *taps: str) -> None:
        before = int(ref.folded(g).last_seq)
        for css in taps:
            p.tap(css)
        p.wait(lambda: int(ref.folded(g).last_seq) > before, f"{taps[-1]} is recorded")
        settled()

    def ends(p: Phone) -> None:
        p.wait(lambda: "wins" in p.d.find_element(By.ID, "over").text, "the end is shown")

    def play(p: Phone, card: str, column: int) -> None:
        p.tap(f"#g-play .hand-pick button[data-card='{card}']")  # the card in the hand
        act(p, f"#g-play .columns button[value='{column}']")  # then its column

    settled()
    # Hera's first turn (no challenge yet, D6): draw, play Nemesis into column 2, draw, end
    act(hera, "#g-draw button[type=submit]")
    play(hera, "Nemesis", 2)
    act(hera, "#g-draw button[type=submit]")
    act(hera, "#g-end button")
    # Zeus's first turn: he draws his hostage Argus (named) and plays it to the front of column
    # 1 (another row: under "Another row, or by name"), draws, ends
    zeus.choose("#g-draw select[name=card]", "Argus")
    act(zeus, "#g-draw button[type=submit]")
    zeus.tap("#g-play .hand-pick button[data-card='Argus']")
    zeus.tap("#g-play details.more-play summary")
    zeus.choose("#g-play select[name=position]", "1")
    act(zeus, "#g-play button[name=use]")
    act(zeus, "#g-draw button[type=submit]")
    act(zeus, "#g-end button")
    # Hera's second turn: Pegasus against the hand; Zeus answers which card came out (D2)
    act(
        hera, ".tabbar button[aria-controls='g-pegasus']", "#g-pegasus button[value='pegasus hand']"
    )
    zeus.wait(lambda: bool(zeus.d.find_elements(By.CSS_SELECTOR, "#asked form")), "Zeus is asked")
    zeus.choose("#asked select[name=value]", "Medusa")
    act(zeus, "#asked form button[type=submit]")
    act(hera, "#g-draw button[type=submit]")
    # her Hydra challenges column 1, where Zeus's hostage stands: Hera wins (D11)
    act(
        hera,
        ".tabbar button[aria-controls='g-challenge']",
        "#g-challenge button[value='challenge 1']",
    )
    for p in (hera, zeus):
        ends(p)
    assert ref.folded(g).state.winner is not None and ref.folded(g).state.winner.key == "hera"
    print(f"\ntaps per seat: Hera {hera.taps}, Zeus {zeus.taps}")
    assert hera.out_of_reach == [] and zeus.out_of_reach == [], (
        hera.out_of_reach + zeus.out_of_reach
    )
    assert (hera.taps, zeus.taps) == (10, 10)


def test_landscape_puts_the_drawing_and_the_controls_side_by_side(
    phones: tuple[Referee, str, Phone, Phone],
) -> None:
    _, _, hera, _ = phones
    hera.d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 740, "height": 360, "deviceScaleFactor": 2, "mobile": True},
    )
    hera.d.refresh()
    hera.wait(lambda: bool(hera.d.find_elements(By.CSS_SELECTOR, "#g-draw")), "the actions")
    table, actions = (
        hera.d.execute_script(
            "var r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return [r.left, r.right, r.top];",
            which,
        )
        for which in ("table", "dock")  # the controls are in the dock (issue 31, item 10)
    )
    assert table[1] <= actions[0] + 1  # the drawing on the left, the controls on its right
    assert max(table[2], actions[2]) < 100  # side by side, not one below the other


def test_a_take_back_accepted_then_one_declined_on_two_phones(
    phones: tuple[Referee, str, Phone, Phone],
) -> None:
    """HZ-P14 in the browser: Hera asks to take back her draw, Zeus's phone asks him; accepted,
    both phones say what goes back; asked again and declined, both say the draw stands."""
    ref, g, hera, zeus = phones

    def click(p: Phone, css: str) -> None:
        p.wait(lambda: bool(p.d.find_elements(By.CSS_SELECTOR, css)), f"{css} shown")
        el = p.d.find_element(By.CSS_SELECTOR, css)
        p.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
        el.click()

    def says(p: Phone, words: str) -> None:
        p.wait(lambda: words in p.d.find_element(By.TAG_NAME, "body").text, f"says {words!r}")

    hera.wait(lambda: bool(hera.d.find_elements(By.CSS_SELECTOR, "#g-draw")), "Hera's turn")
    Select(hera.d.find_element(By.CSS_SELECTOR, "#g-draw select[name=card]")).select_by_value(
        "Medusa"
    )
    click(hera, "#g-draw button[type=submit]")
    click(hera, "#takeback-form button")
    click(zeus, "#accept-takeback")
    says(hera, "Taken back: your draw. Put Medusa back on top of your deck.")
    says(zeus, "Taken back: Hera's draw. Hera puts the card back on top of her deck.")
    assert ref.folded(g).state.used == 0
    click(hera, "#g-draw button[type=submit]")
    click(hera, "#takeback-form button")
    click(zeus, "#decline-takeback")
    says(hera, "Zeus declined the take-back: the action stands")
    says(zeus, "You declined the take-back: the action stands")
    assert ref.folded(g).state.used == 1


def test_the_pandora_order_question_reaches_its_owner_and_his_order_is_the_piles(
    phones: tuple[Referee, str, Phone, Phone],
) -> None:
    """D1, HZ-P13 in the browser: Hera's challenge turns up Pandora; her phone asks her the order
    of her Hydra and Nemesis, the default first; she puts Hydra on top, and so the pile is."""
    from test_order_questions import pandora_in_column_1

    ref, _, hera, zeus = phones
    url = hera.d.current_url.split("/g/")[0]
    created = ref.create_game(profile="rio-grande", starting="hera")
    g = pandora_in_column_1(ref, game=created.game)
    for p in (hera, zeus):
        take_seat(p.d, f"{url}/join/{g}/{created.codes[p.name]}")
    with pytest.raises(NeedsInput):
        ref.submit(g, "hera", {"do": "challenge", "column": 1})
    hera.d.refresh()
    hera.wait(lambda: bool(hera.d.find_elements(By.CSS_SELECTOR, ".order-choices")), "asked")
    labels = [b.text for b in hera.d.find_elements(By.CSS_SELECTOR, ".order-choices button")]
    assert labels == ["Keep this order: Hydra, Nemesis (on top: Nemesis)", "Hydra on top"]
    assert not zeus.d.find_elements(By.CSS_SELECTOR, ".order-choices")
    hera.tap(".order-choices button[value='Nemesis,Hydra']")
    hera.wait(lambda: ref.folded(g).question is None, "the answer is recorded")
    assert [c.name for c in ref.folded(g).state.sides[0].discard][-2:] == ["Nemesis", "Hydra"]
