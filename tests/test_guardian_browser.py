"""The guardian's confirmation page in headless Chromium (issue 37): a phone at 360 px presses a
warned action (Minotaur Lords, passing on while no card has left the hand: M4), reads the
warning, and takes a way out; axe-core finds nothing on the page, every control is 44 px, one
heading, nothing scrolls sideways."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from browser_helpers import axe_violations, chrome, new_profile, require_browser, serving, take_seat
from service_helpers import make_referee

from engine.minotaur.cards import parse_deck_list

pytestmark = pytest.mark.browser
require_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from web.app import create_app  # noqa: E402

DECKS = (Path(__file__).resolve().parent / "data" / "minotaur" / "decks.csv").read_text()
MIRON = [c.name for c in parse_deck_list(DECKS) if c.deck == "miron"]
PASS_ON = json.dumps({"do": "pass", "to": "supremacy"}, separators=(",", ":"))
SMALL = """
var out = [];
document.querySelectorAll("button, a.button").forEach(function (el) {
  var r = el.getBoundingClientRect();
  if (r.height < 43.5 || r.width < 43.5) { out.push(el.textContent.trim().slice(0, 30)); }
});
return out;
"""


def test_the_confirmation_page_is_accessible_and_its_way_out_plays() -> None:
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False}
    profile = new_profile("guardian")
    d = chrome(profile)
    try:
        with serving(create_app(config)) as url:
            created = ref.create_game(
                name="minotaur", options={"deck_list": DECKS, "first": "miron"}
            )
            g = created.game
            ref.submit(g, "miron", {"do": "hand", "cards": MIRON[:6], "by": "miron"})
            take_seat(d, f"{url}/join/{g}/{created.codes['miron']}")
            d.find_element(By.CSS_SELECTOR, f"button[name=action][value='{PASS_ON}']").click()
            WebDriverWait(d, 30).until(lambda _: d.find_elements(By.ID, "guard-title"))
            assert "[M4]" in d.find_element(By.CSS_SELECTOR, ".caution").text
            assert axe_violations(d) == []
            assert d.execute_script(SMALL) == []
            assert len(d.find_elements(By.TAG_NAME, "h1")) == 1
            assert d.execute_script("return document.documentElement.scrollWidth") <= 360
            seq = ref.folded(g).last_seq
            play = "//ul[@class='alternatives']//form[input[contains(@value, '\"play\"')]]//button"
            d.find_element(By.XPATH, play).click()  # a way out: he plays a card
            WebDriverWait(d, 30).until(lambda _: ref.folded(g).last_seq > seq)
            assert ref.folded(g).state.turn.left_hand  # a card left his hand: no discard due
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)
