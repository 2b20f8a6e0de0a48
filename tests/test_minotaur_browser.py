"""A whole game of Minotaur Lords through the pages (issue 15, item 5), in headless Chromium:
Miron and Vess each on a 360 x 740 phone, the judge on a 1280 x 800 laptop.

- Miron's phone creates the game from the home page with the owner's deck list (a CSV file);
- both join with their links and enter the cards they hold;
- Miron's first turn takes two phases (M5): phase 0 (four servants into four columns) and the
  supremacy phase, whose check the page shows column by column with both totals (M11);
- Vess changes his hand (M1);
- Miron's turn starts with two columns of three in both regions: he wins (M2), and every
  screen says so.
Screenshots go to ``test-artifacts/minotaur``; axe-core runs on every page shown; no page
scrolls sideways; the console stays free of JavaScript errors.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from browser_helpers import artifacts, require_browser, serving, take_seat
from service_helpers import make_referee

pytestmark = pytest.mark.browser
ARTIFACTS = artifacts("minotaur")
require_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from test_web_browser import JUDGE_CODE, Browser  # noqa: E402

from engine.minotaur.cards import COLUMN_IDS, FIELDS  # noqa: E402
from referee.service import Referee  # noqa: E402
from web.app import create_app  # noqa: E402

MIRON_HAND = ["Scout", "Clerk", "Scout", "Clerk", "Watchman", "Watchman"]


def deck_list() -> str:
    """A deck list of made-up cards: Miron's phase-0 servants fit four columns."""
    rows = [",".join(FIELDS)]

    def add(deck: str, name: str, strength: int, phase: int, icons: str, kind: str) -> None:
        rows.append(f"{deck},{name},{strength},{phase},{icons},{kind},none,,")

    for _ in range(8):
        add("miron", "Scout", 3, 0, "military", "servant")
        add("miron", "Clerk", 3, 0, "economic", "servant")
    for _ in range(14):
        add("miron", "Watchman", 2, 1, "religious", "servant")
    for _ in range(15):
        add("vess", "Porter", 1, 1, "economic", "servant")
        add("vess", "Shrine", 4, 2, "religious", "building")
    for _ in range(24):
        add("bonus", "Relic", 2, 0, "religious", "servant")
    return "\n".join(rows) + "\n"


def _over(b: Browser) -> bool:
    return "Game over" in b.text("main")


def _stands(ref: Referee, game: str, column: str) -> bool:
    return bool(ref.folded(game).state.side("miron").column(COLUMN_IDS[column]))


@pytest.fixture
def server() -> Iterator[tuple[str, Referee]]:
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False, "JUDGE_CODE": JUDGE_CODE}
    with serving(create_app(config)) as url:
        yield url, ref


@pytest.fixture
def people() -> Iterator[dict[str, Browser]]:
    out: dict[str, Browser] = {}
    try:
        for name in ("miron", "vess", "judge"):
            out[name] = Browser(name, ARTIFACTS)
        out["judge"].d.set_window_size(1280, 800)
        yield out
    finally:
        for b in out.values():
            b.close()


def test_a_whole_minotaur_lords_game_through_the_pages(
    server: tuple[str, Referee], people: dict[str, Browser], tmp_path: Path
) -> None:
    base, ref = server
    miron, vess, judge = people["miron"], people["vess"], people["judge"]
    n = iter(range(1, 100))

    def step(name: str, *who: Browser) -> None:
        k = next(n)
        for b in who or (miron, vess):
            b.shot(f"{k:02d}-{name}")

    def live(b: Browser) -> None:
        target = int(ref.folded(game).last_seq)
        b.wait(lambda: b.seq() >= target, f"the page shows event {target} by itself", 20.0)

    # -- Miron's phone creates the game with the deck list --
    listing = tmp_path / "decks.csv"
    listing.write_text(deck_list())
    miron.get(base + "/")
    form = "#new-minotaur"
    miron.d.find_element(By.CSS_SELECTOR, f"{form} input[name=deck_list]").send_keys(str(listing))
    miron.type(f"{form} input[name=miron]", "Ann")
    miron.type(f"{form} input[name=vess]", "Bob")
    step("home", miron)
    miron.press(form, "Create the game")
    miron.wait(lambda: "/created" in miron.d.current_url, "the game is created")
    game = miron.d.current_url.rstrip("/").split("/")[-2]
    links: dict[str, str] = {}
    for _ in ("miron", "vess"):
        for a in miron.d.find_elements(By.CSS_SELECTOR, "a[data-join]"):
            links[str(a.get_attribute("data-join"))] = str(a.get_attribute("href"))
        miron.click("#next-step")
        miron.wait(lambda: f"step={len(links)}" in miron.d.current_url, "the next seat's screen")
    assert set(links) == {"miron", "vess"}
    take_seat(miron.d, links["miron"])
    take_seat(vess.d, links["vess"])
    judge.get(f"{base}/judge/join/{JUDGE_CODE}")
    judge.get(f"{base}/judge?table={game}")
    assert "Miron" in miron.text(".badge") and "Vess" in vess.text(".badge")
    step("joined")

    # -- each enters the cards he holds --
    # a tap per name, as Hera & Zeus's picker: six cards in seven taps (issue 31, item 13)
    for name in MIRON_HAND:
        miron.click(f"#hand-form .picker button[data-name='{name}']")
    chosen = [
        Select(s).first_selected_option.get_attribute("value")
        for s in miron.d.find_elements(By.CSS_SELECTOR, "#hand-form select[name=cards]")
    ]
    assert chosen == MIRON_HAND
    miron.press("#hand-form", "Record my cards")
    miron.wait(lambda: "not entered" not in miron.text("main"), "Miron's hand is recorded")
    for i in range(3):
        vess.select(f"#hand-form select[name=cards]:nth-of-type({i + 1})", "Porter")
    vess.press("#hand-form", "Record my cards")
    vess.wait(lambda: "3 cards of your hand are not entered" in vess.text("main"), "partly")
    step("hands")

    # -- Miron's first turn: phase 0 and the supremacy phase (M5) --
    for card, column in (
        ("Scout", "upper-military"),
        ("Clerk", "upper-economic"),
        ("Scout", "lower-military"),
        ("Clerk", "lower-economic"),
    ):
        miron.click(f"#g-play .hand-pick button[data-card='{card}']")  # two taps: the card
        miron.click(f"#g-play button[data-col='{column}']")
        miron.wait(partial(_stands, ref, game, column), f"{card} stands in {column}")
    step("four-servants")
    live(vess)
    assert "Scout" in vess.text("#table")  # the board is public
    miron.press("#g-pass", "To the supremacy phase")
    miron.wait(lambda: "the supremacy phase" in miron.text(".turn"), "the check ran")
    table = miron.text("#supremacy")
    assert "Upper military" in table and "3" in table, table  # both totals, column by column
    assert "Game over" not in miron.text("main")
    step("supremacy-checked")
    miron.press("#g-end_turn", "End the turn")
    live(vess)
    vess.wait(lambda: "Your turn" in vess.text(".turn"), "Vess's turn")
    step("vess-turn")

    # -- Vess changes his hand (M1) --
    vess.click("#g-change input[value='Porter']")
    vess.press("#g-change", "Discard these and draw back to six")
    for b in (miron, vess):
        live(b)
        b.wait(partial(_over, b), "the game is over")
    assert "Miron" in miron.text("main") and "two of the three columns" in miron.text("main")
    step("miron-wins")
    live(judge)
    judge.wait(lambda: "won" in judge.text("main").lower(), "the judge's console shows the end")
    judge.shot(f"{next(n):02d}-judge-console")
    miron.get(f"{base}/g/{game}/replay")  # every page of the game, checked by axe-core too
    assert "Vess changes his hand" in miron.text("main")  # the last event, in words
    step("replay", miron)
    vess.get(f"{base}/g/{game}/report.html")
    step("report", vess)
    judge.get(f"{base}/g/{game}")
    judge.shot(f"{next(n):02d}-judge-desk")
    st = ref.folded(game).state
    assert st.winner == "miron" and st.reason is not None and st.reason.value == "supremacy"
    for b in (miron, vess, judge):
        b.console()
    errors = [e for b in (miron, vess, judge) for e in b.errors]
    assert not errors, errors
    assert not [x for b in (miron, vess, judge) for x in b.axe], [
        x for b in people.values() for x in b.axe
    ]
    assert not [x for b in (miron, vess) for x in b.sideways]
