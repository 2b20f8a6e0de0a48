"""End to end in headless Chromium (Debian's chromium and chromium-driver, driven by Selenium):
Hera, Zeus and the judge, each in his own browser at 360 x 740, create a game, set it up and
play it to a win through the pages only.

The game, with the referee's decks unseen (D20) as at a real table:
- setup (D19): Hera taps her nine names, Zeus chooses his from the boxes; both lay first rows;
- Hera's first turn: ending the turn with points left is refused with its rule (D7); she draws
  a card and enters the wrong name; the judge amends it with a reason (the players see that a
  correction happened, not the reason); she draws twice more and ends;
- Zeus's first turn: he draws his hostage Argus and plays it, by tapping the drawing, to the
  front of column 1; draws; ends;
- Hera's second turn: Pegasus against Zeus's hand (D2): Zeus's page asks him which card came
  out (Medusa: discarded); Hera challenges column 1 and wins on the hostage (D11);
- the replay page steps back and forth through the result, by buttons and arrow keys.

Every page is checked for JavaScript errors in the browser console; a screenshot of every step
goes to ``test-artifacts/browser`` (``HZ_ARTIFACTS`` moves it). Without chromium or
chromedriver the test is skipped with the reason, except under ``CI``, where it fails.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    artifacts,
    axe_violations,
    chrome,
    new_profile,
    require_browser,
    serving,
    take_seat,
)
from service_helpers import make_referee

pytestmark = pytest.mark.browser
ARTIFACTS = artifacts("browser")
require_browser()

from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from referee.service import Referee  # noqa: E402
from web.app import create_app  # noqa: E402

HERA_HAND = ["Hydra", "Harpy", "Furies", "Pegasus", "Nemesis", "Artemis", "Amazon", "Sirens"]
HERA_HAND.append("Hades")
ZEUS_HAND = ["Cyclops", "Giant", "Centaur", "Pegasus", "Poseidon", "Apollo", "Hero", "Pythia"]
ZEUS_HAND.append("Medusa")


# ---- the server and the browsers ----------------------------------------------------------

JUDGE_CODE = "tournament-judge-code-0123456789"


@pytest.fixture
def server() -> Iterator[tuple[str, Referee]]:
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False, "JUDGE_CODE": JUDGE_CODE}
    with serving(create_app(config)) as url:
        yield url, ref


class Browser:
    """One person's browser: its own profile directory (its own cookies), 360 x 740."""

    def __init__(self, name: str, shots: Path) -> None:
        self.name = name
        self.shots = shots
        self.profile = new_profile(name)
        self.d: Chrome = chrome(self.profile)
        self.d.implicitly_wait(0)
        self.errors: list[str] = []
        self.sideways: list[str] = []
        self.axe: list[str] = []  # WCAG 2.1 A/AA violations axe-core found (issue 13, item 8)

    def too_wide(self, step: str) -> list[str]:
        """Issue 13, item 8: no page scrolls sideways on a 360 px phone."""
        wide = self.d.execute_script(
            "var d = document.documentElement; return [d.scrollWidth, d.clientWidth,"
            " Array.from(document.querySelectorAll('body *')).filter(function (e) {"
            "  var r = e.getBoundingClientRect(); return r.right > d.clientWidth + 1; })"
            " .slice(0, 3).map(function (e) { return e.tagName + '.' + e.className; })];"
        )
        if int(wide[0]) <= int(wide[1]):
            return []
        return [f"{self.name} at {step}: {wide[0]} px wide in {wide[1]} ({wide[2]})"]

    def close(self) -> None:
        self.d.quit()
        shutil.rmtree(self.profile, ignore_errors=True)

    # reading
    def console(self) -> None:
        """Collects JavaScript errors from the console (asserted at the end)."""
        # selenium's get_log has no annotations
        for entry in self.d.get_log("browser"):  # type: ignore[no-untyped-call]
            if entry.get("level") == "SEVERE":
                self.errors.append(f"{self.name}: {entry.get('message')}")

    def text(self, css: str = "body") -> str:
        """The element's text; the live update may swap it out while it is read."""
        for _ in range(20):
            try:
                return str(self.d.find_element(By.CSS_SELECTOR, css).text)
            except (StaleElementReferenceException, NoSuchElementException):
                time.sleep(0.05)
        return ""

    def seq(self) -> int:
        return int(self.d.find_element(By.TAG_NAME, "body").get_attribute("data-seq") or -1)

    def shot(self, step: str) -> None:
        self.console()
        if not step.startswith("FAILED"):
            self.sideways.extend(self.too_wide(step))
            self.axe.extend(f"{self.name} at {step}: {v}" for v in axe_violations(self.d))
        self.shots.mkdir(parents=True, exist_ok=True)
        self.d.save_screenshot(str(self.shots / f"{step}-{self.name}.png"))
        # a full-length picture too: a phone scrolls
        self.d.execute_script("window.scrollTo(0, 0)")
        h = int(self.d.execute_script("return document.documentElement.scrollHeight"))
        self.d.set_window_size(360, min(max(h, 740), 6000))
        self.d.save_screenshot(str(self.shots / f"{step}-{self.name}-full.png"))
        self.d.set_window_size(360, 740)

    # acting
    def get(self, url: str) -> None:
        self.d.get(url)
        self.console()

    def retry(self, fn: Callable[[], Any], *also: type[Exception]) -> Any:
        """Runs ``fn`` again when a live update swapped the element out under it (or raised
        one of ``also`` while the page was being redrawn), for up to 10 s."""
        deadline = time.monotonic() + 10.0
        caught: tuple[type[Exception], ...] = (StaleElementReferenceException, *also)
        while time.monotonic() < deadline:
            try:
                return fn()
            except caught:
                time.sleep(0.05)
        return fn()

    def click(self, css: str) -> None:
        def go() -> None:
            el = self.d.find_element(By.CSS_SELECTOR, css)
            self.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
            el.click()

        self.retry(go)

    def press(self, form: str, value: str) -> None:
        """Clicks the submit button of ``form`` whose value (or text) is ``value``."""

        def go() -> None:
            for b in self.d.find_elements(By.CSS_SELECTOR, f"{form} button"):
                if b.get_attribute("value") == value or b.text.strip() == value:
                    self.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", b)
                    b.click()
                    return
            raise AssertionError(f"{self.name}: no button {value!r} in {form}")

        self.retry(go)

    def select(self, css: str, value: str) -> None:
        # a live update may redraw the form between finding the select and its options: the
        # option is then looked for again in the new one
        self.retry(
            lambda: Select(self.d.find_element(By.CSS_SELECTOR, css)).select_by_value(value),
            NoSuchElementException,
        )

    def type(self, css: str, text: str) -> None:
        self.retry(lambda: self.d.find_element(By.CSS_SELECTOR, css).send_keys(text))

    def wait(self, cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
        try:
            stale = (StaleElementReferenceException, NoSuchElementException)  # live swaps
            WebDriverWait(self.d, timeout, poll_frequency=0.05, ignored_exceptions=stale).until(
                lambda _: cond()
            )
        except Exception:
            self.shot(f"FAILED-{what.replace(' ', '-')}")
            raise AssertionError(
                f"{self.name}: {what} (within {timeout} s); console: {self.errors}; {self.where()}"
            ) from None

    def where(self) -> str:
        """What the page was when a wait gave up (the CI keeps no screenshot for us to see):
        its address, its title and the start of its text."""
        try:
            said = " ".join(self.text("body").split())[:600]
            return f"at {self.d.current_url} ({self.d.title!r}): {said!r}"
        except Exception as e:  # the browser itself is gone: say so, not a second traceback
            return f"the page could not be read ({type(e).__name__})"


@pytest.fixture
def browsers(request: pytest.FixtureRequest) -> Iterator[dict[str, Browser]]:
    out: dict[str, Browser] = {}
    try:
        for name in ("hera", "zeus", "judge"):
            out[name] = Browser(name, ARTIFACTS)
        yield out
    finally:
        for b in out.values():
            b.close()


# ---- the game --------------------------------------------------------------------------------


def test_a_whole_game_through_the_pages(
    server: tuple[str, Referee], browsers: dict[str, Browser]
) -> None:
    base, ref = server
    hera, zeus, judge = browsers["hera"], browsers["zeus"], browsers["judge"]
    n = iter(range(1, 100))

    def step(name: str, *who: Browser) -> None:
        k = next(n)
        for b in who or (hera, zeus, judge):
            b.shot(f"{k:02d}-{name}")

    def server_seq() -> int:
        return int(ref.folded(game).last_seq)

    def live(b: Browser) -> None:
        """The page has the server's latest event without a reload (live update)."""
        target = server_seq()
        # a generous ceiling: CI is a busy 2-core machine; the test never reloads the page
        # (a form is sent in place: the server may already be further on when this is read)
        b.wait(lambda: b.seq() >= target, f"the page shows event {target} by itself", 20.0)

    # -- new game (Hera's phone creates it) --
    hera.get(base + "/")
    hera.d.find_element(By.NAME, "hera").send_keys("Ann")
    hera.d.find_element(By.NAME, "zeus").send_keys("Bob")
    step("home", hera)
    hera.click("#create")
    hera.wait(lambda: "/created" in hera.d.current_url, "the game is created")
    step("created", hera)
    game = hera.d.current_url.rstrip("/").split("/")[-2]
    links: dict[str, str] = {}
    for seat in ("hera", "zeus"):  # one seat a screen: each scans his own, no judge's link
        shown = {
            str(a.get_attribute("data-join")): str(a.get_attribute("href"))
            for a in hera.d.find_elements(By.CSS_SELECTOR, "a[data-join]")
        }
        assert set(shown) == {seat}, shown
        links.update(shown)
        hera.click("#next-step")
        hera.wait(lambda: f"step={len(links)}" in hera.d.current_url, "the next seat's screen")
    assert not hera.d.find_elements(By.CSS_SELECTOR, "a[data-join]")
    take_seat(hera.d, links["hera"])  # the link's page, then its one button
    take_seat(zeus.d, links["zeus"])
    judge.get(links["hera"])  # a second phone opening Hera's link: the seat is hers already
    judge.wait(lambda: "already held" in judge.text("main"), "a held seat is not handed over")
    judge.console()
    # the page's status (the reason phrase is optional in HTTP/1.1: hypercorn sends none)
    assert all("status of 409 (" in e for e in judge.errors), judge.errors
    judge.errors.clear()
    judge.get(f"{base}/judge/join/{JUDGE_CODE}")  # the server's tournament judge
    judge.get(f"{base}/g/{game}")
    for b in (hera, zeus, judge):  # the secret has left the address bar
        assert b.d.current_url == f"{base}/g/{game}", b.d.current_url
    assert "Hera" in hera.text(".badge") and "Zeus" in zeus.text(".badge")
    step("joined")

    # -- setup: nine cards by tapping names (Hera) and by the boxes (Zeus), first rows --
    for name in HERA_HAND:
        hera.click(f".picker button[data-name='{name}']")
    step("hera-taps-nine", hera)
    hera.press("#deal-form", "Record my nine cards")
    for i, name in enumerate(ZEUS_HAND):
        zeus.select(f"#deal-form select:nth-of-type({i + 1})", name)
    zeus.press("#deal-form", "Record my nine cards")
    for b, row in ((hera, ("Hydra", "Harpy", "Furies")), (zeus, ("Cyclops", "Giant", "Centaur"))):
        b.wait(lambda: bool(b.d.find_elements(By.ID, "row-form")), "the first-row step")  # noqa: B023 (waited for at once)
        for col, name in enumerate(row, 1):
            b.select(f"#row-form select[data-column='{col}']", name)
        step(f"{b.name}-first-row", b)
        b.press("#row-form", "Lay my first row")
    hera.wait(lambda: "Your turn" in hera.text("#status"), "Hera's turn begins")
    live(zeus)
    assert "3 of 3" in hera.text("#status")
    assert "Hydra" in hera.text("#table") and "Cyclops" not in hera.text("#table")
    step("play-begins")

    # -- Hera's first turn: an illegal end of turn, a mis-scan corrected by the judge --
    hera.press("#g-end-early", "end")
    hera.wait(lambda: bool(hera.d.find_elements(By.CSS_SELECTOR, ".flash.error")), "refusal")
    refusal = hera.text(".flash.error")
    assert "[D7]" in refusal and "point" in refusal, refusal
    step("illegal-end-refused", hera)

    hera.select("#g-draw select[name=card]", "Nemesis")
    hera.press("#g-draw", "Draw (1 point)")
    hera.wait(lambda: "2 of 3" in hera.text("#status"), "the draw is recorded")
    drew = server_seq()
    live(zeus)
    live(judge)
    assert "Nemesis" not in zeus.text("body")  # a drawn card is the drawer's secret
    judge.select("#amend-form select[name=event]", str(drew))
    judge.type("#amend-form input[name=action]", "draw Artemis")
    judge.type("#amend-form input[name=reason]", "Ann scanned the card under it")
    judge.press("#amend-form", "Amend")
    judge.wait(lambda: "amended" in judge.text("main"), "the amendment is recorded")
    step("judge-amends", judge)
    live(hera)
    hera.wait(lambda: "Artemis" in hera.text("#table"), "Hera's hand shows the amended card")
    assert "corrected the record" in hera.text("#status")
    assert "scanned the card under it" not in hera.text("body")  # the reason stays with the judge
    assert "scanned the card under it" in judge.text("#log")
    step("correction-seen", hera)
    for _ in range(2):
        before = server_seq()
        hera.press("#g-draw", "Draw (1 point)")
        hera.wait(lambda: server_seq() > before, "a draw")  # noqa: B023 (waited for at once)
    hera.wait(lambda: bool(hera.d.find_elements(By.CSS_SELECTOR, "#g-end")), "end button")
    before = server_seq()
    hera.press("#g-end", "end")
    hera.wait(lambda: server_seq() > before, "the end of Hera's turn")  # before Zeus looks

    # -- Zeus's first turn: draw Argus, play it by tapping the front of column 1 --
    live(zeus)
    assert "Your turn" in zeus.text("#status")
    zeus.select("#g-draw select[name=card]", "Argus")
    zeus.press("#g-draw", "Draw (1 point)")
    zeus.wait(lambda: "2 of 3" in zeus.text("#status"), "Zeus's draw")
    # two taps: the card in the hand, then its place on the drawing
    zeus.click("#g-play .hand-pick button[data-card='Argus']")
    step("zeus-taps-argus", zeus)
    zeus.click("svg.table [data-side='zeus'][data-column='1'][data-position='1']")
    zeus.wait(lambda: "1 of 3" in zeus.text("#status"), "Argus is played")
    zeus.press("#g-draw", "Draw (1 point)")
    zeus.wait(lambda: bool(zeus.d.find_elements(By.CSS_SELECTOR, "#g-end")), "end button")
    before = server_seq()
    zeus.press("#g-end", "end")
    zeus.wait(lambda: server_seq() > before, "the end of Zeus's turn")  # before Hera looks
    live(hera)
    step("hera-second-turn")

    # -- Hera's second turn: Pegasus against the hand asks Zeus; then the hostage --
    hera.click(".tabbar button[aria-controls='g-pegasus']")  # the less frequent actions: a tab
    hera.press("#g-pegasus", "pegasus hand")
    live(zeus)
    zeus.wait(lambda: bool(zeus.d.find_elements(By.CSS_SELECTOR, "#asked form")), "Zeus is asked")
    assert "Pegasus" in zeus.text("#asked")
    step("pegasus-asks-zeus", hera, zeus)
    zeus.select("#asked select[name=value]", "Medusa")
    zeus.press("#asked form", "Answer")
    live(hera)
    hera.wait(lambda: "2 of 3" in hera.text("#status"), "the Pegasus is done")
    assert "Medusa" in hera.text("#log")
    step("pegasus-done", hera, zeus)
    hera.click(".tabbar button[aria-controls='g-challenge']")
    hera.press("#g-challenge", "challenge 1")
    hera.wait(lambda: "wins" in hera.text("#over"), "the game ends")
    for b in (zeus, judge):
        live(b)
    over = hera.text("#over")
    assert "Hera" in over and "wins" in over and "D11" in over, over
    f = ref.folded(game)
    assert f"{f.last_seq}:{f.last_hash[:8]}" in over  # as `referee verify --head` reads it
    zeus.wait(lambda: "wins" in zeus.text("#over"), "Zeus's page announces the end")
    step("hera-wins")

    # -- the replay steps through the result --
    hera.get(f"{base}/g/{game}/replay")
    last = server_seq()
    assert f"Event {last} of {last}" in hera.text("#at")
    hera.click("#prev")
    hera.wait(lambda: f"Event {last - 1} of" in hera.text("#at"), "a step back")
    step("replay-back", hera)
    hera.d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    hera.wait(lambda: f"Event {last - 2} of" in hera.text("#at"), "an arrow key step back")
    hera.click("#first")
    hera.wait(lambda: "Event 0 of" in hera.text("#at"), "the first event")
    hera.d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    hera.wait(lambda: "Event 1 of" in hera.text("#at"), "an arrow key step forward")
    step("replay", hera)
    judge.get(f"{base}/judge")
    assert game in judge.text("main")
    step("judge-tables", judge)
    hera.get(f"{base}/g/{game}/report.html")
    hera.wait(lambda: "Hera wins" in hera.text("body") or "wins" in hera.text("body"), "report")
    step("report", hera)
    hera.get(f"{base}/g/{game}/camera")
    step("camera", hera)
    hera.get(f"{base}/g/nosuchgame")
    step("not-found", hera)
    hera.errors = [e for e in hera.errors if "nosuchgame" not in e]  # the 404 itself

    # -- the judge reissues Zeus's link: shown at once with its QR code; the old phone is told --
    judge.get(f"{base}/g/{game}")
    judge.select("#reissue-form select[name=seat]", "zeus")
    judge.press("#reissue-form", "Make the new link (the old one stops working)")
    judge.wait(lambda: "New link for Zeus" in judge.text("body"), "the new link is shown")
    assert judge.d.find_elements(By.CSS_SELECTOR, ".qr svg")
    step("reissued", judge)
    zeus.wait(lambda: "This phone held Zeus's seat" in zeus.text("body"), "the old phone is told")
    step("old-phone-told", zeus)

    for b in (hera, zeus, judge):
        b.console()
    errors = [e for b in (hera, zeus, judge) for e in b.errors]
    assert not errors, errors
    sideways = [e for b in (hera, zeus, judge) for e in b.sideways]
    assert not sideways, sideways
    violations = [e for b in (hera, zeus, judge) for e in b.axe]
    assert not violations, "\n".join(violations)
