"""Issue 31, item 10: a whole Hera & Zeus game walked through the two seat pages at three
screen sizes (360 x 740, 320 x 568, 740 x 360), counting per seat the taps and the scrolls
each control needed before it could be tapped, and how many of the controls the moment allows
(the actions, the tabs, End, Take back, Call the judge, an answer) lay outside the viewport.

Setup (D19) is entered on the pages too (the nine names tapped, the first row chosen); the
turns are those of ``tests/test_seat_page_browser.py``, with a take-back asked and accepted
and a judge call. Nothing is reloaded: the pages update in place, keeping their scroll
position, as on a phone. Run from the repository root:

    PYTHONPATH=.:tests .venv/bin/python benchmarks/page_reach.py [--shots DIR]

A select already showing the wanted value is not tapped (a player would leave it); a scroll is
counted each time the control lies outside the viewport as the page stands, with the distance
scrolled ({block: 'center'}, the page or the dock). A control covered by something else (a
sticky header) is out of reach too. "Taps with a control out of reach" counts the taps before
which any enabled, shown control of the seat lay out of reach.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

sys.path[:0] = [
    str(Path(__file__).resolve().parents[1]),
    str(Path(__file__).resolve().parents[1] / "tests"),
]
sys.modules.pop("engine", None)  # benchmarks/engine.py must not shadow the engine package

from browser_helpers import chrome, new_profile, serving, take_seat  # noqa: E402
from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from service_helpers import make_referee  # noqa: E402
from test_service import HERA_HAND, HERA_ROW, ZEUS_HAND, ZEUS_ROW  # noqa: E402

from referee.service import Referee  # noqa: E402
from web.app import create_app  # noqa: E402

SIZES = ((360, 740), (320, 568), (740, 360))
VERBOSE = bool(os.environ.get("REACH_VERBOSE"))
CEILING = 60.0
# the controls a seat may tap at a moment (shown and enabled ones only are counted)
ALLOWED = (
    "#asked button, #asked select, #asked input:not([type=hidden]), #actions button,"
    " #actions select, #actions summary, #takeback button, #call-form button,"
    " #seats .proposal button, #deal-form button[type=submit], #row-form button"
)
# a control is in reach when it lies inside the viewport and nothing (a sticky header, say)
# covers its middle
REACHABLE_JS = """
window.hzReachable = function (el) {
  var r = el.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight + 0.5 || r.left < 0
      || r.right > window.innerWidth + 0.5) { return false; }
  var hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return !!hit && (hit === el || el.contains(hit) || (el.control && hit === el.control));
};
"""
OUT_OF_REACH_JS = """
var out = [];
document.querySelectorAll(arguments[0]).forEach(function (el) {
  if (el.disabled || !el.getClientRects().length) { return; }
  var shut = el.closest('details:not([open])');  // a closed disclosure's content is not shown
  if (shut && !(el.tagName === 'SUMMARY' && el.parentNode === shut)) { return; }
  var r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) { return; }
  if (!window.hzReachable(el)) {
    out.push((el.id || el.name || el.textContent.trim()).slice(0, 30) + '@' + Math.round(r.top));
  }
});
return out;
"""


@dataclass
class Phone:
    name: str
    d: Chrome
    taps: int = 0
    scrolls: int = 0
    scrolled_px: int = 0
    allowed_out: int = 0  # summed over the moments before each tap
    moments: int = 0
    worst: dict[str, int] = field(default_factory=dict)
    at_setup_end: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def counts(self) -> tuple[int, int, int, int, int]:
        return (self.taps, self.scrolls, self.scrolled_px, self.allowed_out, self.moments)

    def wait(self, cond: Callable[[], bool], what: str) -> None:
        stale = (StaleElementReferenceException, NoSuchElementException)
        try:
            WebDriverWait(self.d, CEILING, 0.05, ignored_exceptions=stale).until(lambda _: cond())
        except Exception:
            raise SystemExit(f"{self.name}: {what} (not within {CEILING} s)") from None

    def wait_seq(self, target: int) -> None:
        self.wait(lambda: self.seq() >= target, f"the page shows event {target}")

    def wait_css(self, css: str) -> None:
        self.wait(lambda: bool(self.d.find_elements(By.CSS_SELECTOR, css)), f"{css} shown")

    def seq(self) -> int:
        return int(self.d.find_element(By.TAG_NAME, "body").get_attribute("data-seq") or -1)

    def audit(self, css: str = "") -> None:
        self.d.execute_script(REACHABLE_JS)
        out = self.d.execute_script(OUT_OF_REACH_JS, ALLOWED)
        self.moments += 1
        self.allowed_out += 1 if out else 0
        if out and VERBOSE:
            print(f"  {self.name} before {css}: out of reach: {', '.join(out)}")
        for what in ("Take back", "Call the judge"):
            y = self.d.execute_script(
                "var t = arguments[0];"
                "var b = Array.from(document.querySelectorAll('button')).find(function (b) {"
                "  return b.textContent.trim().indexOf(t) === 0 && b.getClientRects().length; });"
                "return b ? Math.round(b.getBoundingClientRect().bottom) : null;",
                what,
            )
            if y is not None:
                self.worst[what] = max(self.worst.get(what, 0), int(y))

    def reach(self, css: str) -> None:
        self.wait(lambda: bool(self.d.find_elements(By.CSS_SELECTOR, css)), f"{css} shown")
        self.audit(css)
        if not self.d.execute_script(
            "return window.hzReachable(document.querySelector(arguments[0]))", css
        ):
            moved = self.d.execute_script(
                "var el = document.querySelector(arguments[0]);"
                "var y0 = el.getBoundingClientRect().top;"
                "el.scrollIntoView({block: 'center'});"
                "return Math.abs(el.getBoundingClientRect().top - y0);",
                css,
            )
            self.scrolls += 1
            self.scrolled_px += int(moved)

    def tap(self, css: str) -> None:
        self.reach(css)
        self.taps += 1
        for _ in range(20):  # a live update may replace the control as it is tapped
            try:
                self.d.find_element(By.CSS_SELECTOR, css).click()
                return
            except (StaleElementReferenceException, NoSuchElementException):
                self.wait(lambda: bool(self.d.find_elements(By.CSS_SELECTOR, css)), css)
        raise SystemExit(f"{self.name}: {css} kept being replaced")

    def choose(self, css: str, value: str) -> None:
        self.reach(css)
        box = Select(self.d.find_element(By.CSS_SELECTOR, css))
        if box.first_selected_option.get_attribute("value") != value:
            self.taps += 1
            box.select_by_value(value)


def says_wins(p: Phone) -> bool:
    return "wins" in p.d.find_element(By.ID, "over").text


def walk(ref: Referee, url: str, size: tuple[int, int], shots: Path | None) -> list[Phone]:
    w, h = size
    profiles = [new_profile("reach-hera"), new_profile("reach-zeus")]
    drivers = [chrome(p) for p in profiles]
    for d in drivers:
        d.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": True},
        )
    try:
        created = ref.create_game(profile="rio-grande", starting="hera")
        g = created.game
        hera, zeus = Phone("hera", drivers[0]), Phone("zeus", drivers[1])
        for p in (hera, zeus):
            take_seat(p.d, f"{url}/join/{g}/{created.codes[p.name]}")

        def shot(p: Phone, moment: str) -> None:
            if shots is not None:
                shots.mkdir(parents=True, exist_ok=True)
                p.d.save_screenshot(str(shots / f"{w}x{h}-{p.name}-{moment}.png"))

        def last() -> int:
            return int(ref.folded(g).last_seq)

        def settled() -> None:
            target = last()
            for p in (hera, zeus):
                p.wait_seq(target)

        def act(p: Phone, *taps: str) -> None:
            before = last()
            for css in taps:
                p.tap(css)
            p.wait(lambda: last() > before, f"{taps[-1]} is recorded")
            settled()

        # setup (D19): the nine cards tapped by name, then the first row
        for p, hand, row in ((hera, HERA_HAND, HERA_ROW), (zeus, ZEUS_HAND, ZEUS_ROW)):
            p.wait_css("#deal-form")
            shot(p, "setup")
            for n in hand:
                p.tap(f"#deal-form .picker button[data-name='{n}']")
            act(p, "#deal-form button[type=submit]")
            for c, n in enumerate(row, 1):
                p.choose(f"#row-form select[data-column='{c}']", n)
            act(p, "#row-form button[type=submit]")
        for p in (hera, zeus):
            p.at_setup_end = p.counts()
        # Hera's first turn: draw, takes it back (Zeus accepts, HZ-P14), draws again, plays
        # Nemesis into column 2, draws, ends
        shot(hera, "turn")
        shot(zeus, "waiting")
        act(hera, "#g-draw button[type=submit]")
        act(hera, "#takeback-form button")
        shot(zeus, "takeback-asked")
        act(zeus, "#accept-takeback")
        act(hera, "#g-draw button[type=submit]")
        hera.tap("#g-play .hand-pick button[data-card='Nemesis']")
        shot(hera, "card-chosen")
        act(hera, "#g-play .columns button[value='2']")
        act(hera, "#g-draw button[type=submit]")
        act(hera, "#g-end button")
        # Zeus's first turn: draws his hostage Argus, plays it to the front of column 1, calls
        # the judge (a question for the table), draws, ends
        shot(zeus, "turn")
        zeus.choose("#g-draw select[name=card]", "Argus")
        act(zeus, "#g-draw button[type=submit]")
        zeus.tap("#g-play .hand-pick button[data-card='Argus']")
        zeus.tap("#g-play details.more-play summary")
        shot(zeus, "another-row")
        zeus.choose("#g-play select[name=position]", "1")
        act(zeus, "#g-play button[name=use]")
        act(zeus, "#call-form button")
        act(zeus, "#g-draw button[type=submit]")
        shot(zeus, "end-legal")
        act(zeus, "#g-end button")
        # Hera's second turn: Pegasus against the hand; Zeus answers (D2); draws; challenges
        shot(hera, "turn2")
        hera.tap(".tabbar button[aria-controls='g-pegasus']")
        shot(hera, "tab-open")
        act(hera, "#g-pegasus button[value='pegasus hand']")
        zeus.wait(lambda: bool(zeus.d.find_elements(By.CSS_SELECTOR, "#asked form")), "asked")
        shot(zeus, "pegasus-question")
        zeus.choose("#asked select[name=value]", "Medusa")
        act(zeus, "#asked form button[type=submit]")
        shot(hera, "answered")
        act(hera, "#g-draw button[type=submit]")
        shot(hera, "before-challenge")
        act(
            hera,
            ".tabbar button[aria-controls='g-challenge']",
            "#g-challenge button[value='challenge 1']",
        )
        winner = ref.folded(g).state.winner
        assert winner is not None and winner.key == "hera", winner
        for p in (hera, zeus):
            p.wait(partial(says_wins, p), "the end")
            shot(p, "over")
        return [hera, zeus]
    finally:
        for d in drivers:
            d.quit()
        for path in profiles:
            shutil.rmtree(path, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shots", type=Path, help="keep screenshots of a few moments here")
    args = ap.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    ref = make_referee()
    print(
        "size     seat   part    taps  scrolls  px scrolled  taps with a control out of reach"
        "  Take back / Call the judge: lowest bottom edge (px from the viewport's top)"
    )
    with serving(create_app({"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False})) as url:
        for size in SIZES:
            for p in walk(ref, url, size, args.shots):
                end = p.counts()
                parts = (
                    ("setup", p.at_setup_end),
                    ("turns", tuple(b - a for a, b in zip(p.at_setup_end, end, strict=True))),
                )
                for part, (taps, scrolls, px, out, moments) in parts:
                    print(
                        f"{size[0]}x{size[1]:<4} {p.name:6} {part:6} {taps:5} {scrolls:8}"
                        f" {px:12,}  {out:3} of {moments:<3}"
                        + (
                            f"  {p.worst.get('Take back', '-')}"
                            f" / {p.worst.get('Call the judge', '-')}"
                            if part == "turns"
                            else ""
                        )
                    )


if __name__ == "__main__":
    main()
