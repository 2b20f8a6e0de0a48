"""Issue 37, part 2, in headless Chromium: a player walks the whole review of a finished game
at 360 x 740 with the arrow keys and a swipe, lands on an event from a link (``#N``), plays a
"what if" at a challenge that leaves the log as it was, and axe-core finds nothing, at 360 x 740
and at 1280 x 800."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from browser_helpers import axe_violations, chrome, new_profile, require_browser, serving, take_seat
from service_helpers import make_referee
from test_review import challenges, played

pytestmark = pytest.mark.browser
require_browser()

from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from web.app import create_app  # noqa: E402

JUDGE_CODE = "tournament-judge-code-0123456789"


@pytest.fixture
def phone() -> Iterator[Chrome]:
    profile = new_profile("review")
    d = chrome(profile)
    try:
        yield d
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def at_event(d: Chrome) -> int:
    return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-review") or -1)


def wait_for_event(d: Chrome, n: int) -> None:
    WebDriverWait(d, 20).until(lambda d: at_event(d) == n)


def swipe(d: Chrome, dx: int) -> None:
    """One finger moved sideways by ``dx`` CSS pixels across the middle of the screen."""
    x, y = 180, 400
    for kind, px in (("touchStart", x), ("touchMove", x + dx // 2), ("touchEnd", x + dx)):
        points = [] if kind == "touchEnd" else [{"x": px, "y": y}]
        d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def test_a_whole_review_walked_on_a_phone_with_a_what_if_at_a_challenge(phone: Chrome) -> None:
    ref = make_referee(seed=37)
    t = played(ref)
    g = t.game
    last = ref.folded(g).last_seq
    challenge = challenges(ref, g)[0]
    mover = str(ref.log(g, "judge")[challenge].body.get("actor"))
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False, "JUDGE_CODE": JUDGE_CODE}
    app = create_app(config)
    d = phone
    with serving(app) as url:
        take_seat(d, f"{url}/join/{g}/{t.codes[mover]}")
        head = ref.head(g)
        # a shared link to an event lands on it
        d.get(f"{url}/g/{g}/review#3")
        wait_for_event(d, 3)
        assert "at=3" in d.current_url
        assert axe_violations(d) == []
        # a swipe from right to left is the next event, and back
        swipe(d, -150)
        wait_for_event(d, 4)
        swipe(d, 150)
        wait_for_event(d, 3)
        # the arrow keys walk every event to the end
        for n in range(4, last + 1):
            d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
            wait_for_event(d, n)
            assert d.execute_script("return document.documentElement.scrollWidth") <= 360
        assert not d.find_elements(By.ID, "next")
        d.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
        wait_for_event(d, 0)
        # "what if" at the challenge: another action tried on the table just before it
        d.get(f"{url}/g/{g}/review?at={challenge - 1}")
        tries = [
            a for a in d.find_elements(By.CSS_SELECTOR, ".open-list a") if "challenge" in a.text
        ]
        assert tries, "the challenge was among the actions open"
        d.execute_script("arguments[0].closest('details').open = true", tries[-1])
        tries[-1].click()
        WebDriverWait(d, 20).until(lambda d: d.find_elements(By.ID, "ruling"))
        ruling = d.find_element(By.ID, "ruling").text
        assert "Nothing was recorded" in ruling
        # typing in the "what if" box does not step
        box = d.find_element(By.ID, "pose")
        box.send_keys(Keys.ARROW_LEFT)
        assert at_event(d) == challenge - 1
        assert axe_violations(d) == []
        # a laptop's window: the same page, nothing for axe either
        d.set_window_size(1280, 800)
        d.get(f"{url}/g/{g}/review?at={challenge}")
        assert axe_violations(d) == []
        assert ref.head(g) == head  # the record was never touched
        errors = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]
        assert errors == []
