"""Issue 13's "before" figure: the same short game as ``tests/test_seat_page_browser.py``
(Hera 10 taps, Zeus 10, no scroll), played on the seat pages as they were before issue 13
(commit 3fb2528), counting the taps and the scrolls each needed to bring its control into the
360 x 740 viewport. It imports the old code, so run it against a checkout of that commit:

    git worktree add /tmp/before 3fb2528
    cp benchmarks/taps_before.py /tmp/before/ && cd /tmp/before
    PYTHONPATH=.:tests /path/to/.venv/bin/python taps_before.py

(copied out of ``benchmarks/``, whose ``engine.py`` would shadow the engine package).
Measured on 2026-11-24: Hera 9 taps and 9 scrolls (2,664 px), Zeus 9 taps and 7 scrolls
(1,123 px). The same game on the new pages: Hera 10 taps, Zeus 10, no scroll (one more tap for
each: the tab of the rarer actions, and the "Another row" disclosure).

A select already showing the wanted value is not tapped (a player would leave it); a scroll is
counted each time the control lies outside the viewport, with the distance scrolled.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from functools import partial

from browser_helpers import chrome, new_profile, serving, take_seat
from selenium.webdriver import Chrome
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from service_helpers import make_referee
from test_service import HERA_HAND, HERA_ROW, ZEUS_HAND, ZEUS_ROW

from web.app import create_app


@dataclass
class Phone:
    name: str
    d: Chrome
    taps: int = 0
    scrolls: int = 0
    scrolled_px: int = 0

    def reach(self, css: str) -> None:
        WebDriverWait(self.d, 30).until(lambda _: self.d.find_elements(By.CSS_SELECTOR, css))
        top, bottom, height = self.d.execute_script(
            "var r = document.querySelector(arguments[0]).getBoundingClientRect();"
            "return [r.top, r.bottom, window.innerHeight];",
            css,
        )
        if top < 0 or bottom > height:
            self.scrolls += 1
            self.scrolled_px += int(bottom - height if bottom > height else -top)
            self.d.execute_script(
                "document.querySelector(arguments[0]).scrollIntoView({block: 'nearest'})", css
            )

    def tap(self, css: str) -> None:
        self.reach(css)
        self.taps += 1
        self.d.find_element(By.CSS_SELECTOR, css).click()

    def choose(self, css: str, value: str) -> None:
        self.reach(css)
        box = Select(self.d.find_element(By.CSS_SELECTOR, css))
        if box.first_selected_option.get_attribute("value") != value:
            self.taps += 1
            box.select_by_value(value)


def shows(p: Phone, target: int) -> bool:
    """The page shows event ``target`` or a later one."""
    seq = p.d.find_element(By.TAG_NAME, "body").get_attribute("data-seq")
    return int(seq or -1) >= target


def main() -> None:
    ref = make_referee()
    profiles = [new_profile("before-hera"), new_profile("before-zeus")]
    drivers = [chrome(p) for p in profiles]
    for d in drivers:
        d.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True},
        )
    try:
        with serving(create_app({"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False})) as url:
            created = ref.create_game(profile="rio-grande", starting="hera")
            g = created.game
            for seat, cards, row in (("hera", HERA_HAND, HERA_ROW), ("zeus", ZEUS_HAND, ZEUS_ROW)):
                ref.submit(g, seat, {"do": "deal", "player": seat, "cards": list(cards)})
                ref.submit(g, seat, {"do": "first_row", "player": seat, "cards": list(row)})
            hera, zeus = Phone("hera", drivers[0]), Phone("zeus", drivers[1])
            for p in (hera, zeus):
                take_seat(p.d, f"{url}/join/{g}/{created.codes[p.name]}")

            def settled() -> None:
                target = ref.folded(g).last_seq
                for p in (hera, zeus):
                    p.d.get(p.d.current_url.split("#")[0])  # the old page reloads at the top
                    WebDriverWait(p.d, 30).until(partial(lambda p, _: shows(p, target), p))

            def act(p: Phone, css: str) -> None:
                before = ref.folded(g).last_seq
                p.tap(css)
                WebDriverWait(p.d, 30).until(lambda _: ref.folded(g).last_seq > before)
                settled()

            settled()
            act(hera, "#g-draw button[type=submit]")
            hera.choose("#g-play select[name=card]", "Nemesis")
            hera.choose("#g-play select[name=column]", "2")
            act(hera, "#g-play button[type=submit]")
            act(hera, "#g-draw button[type=submit]")
            act(hera, "#g-end button")
            zeus.choose("#g-draw select[name=card]", "Argus")
            act(zeus, "#g-draw button[type=submit]")
            zeus.choose("#g-play select[name=card]", "Argus")
            zeus.choose("#g-play select[name=column]", "1")
            zeus.choose("#g-play select[name=position]", "1")
            act(zeus, "#g-play button[type=submit]")
            act(zeus, "#g-draw button[type=submit]")
            act(zeus, "#g-end button")
            act(hera, "#g-pegasus button[value='pegasus hand']")
            zeus.choose("#asked select[name=value]", "Medusa")
            act(zeus, "#asked button[type=submit]")
            act(hera, "#g-draw button[type=submit]")
            act(hera, "#g-challenge button[value='challenge 1']")
            winner = ref.folded(g).state.winner
            assert winner is not None and winner.key == "hera", winner
            for p in (hera, zeus):
                print(f"{p.name}: {p.taps} taps, {p.scrolls} scrolls, {p.scrolled_px} px scrolled")
    finally:
        for d in drivers:
            d.quit()
        for path in profiles:
            shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    main()
