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
    """The event the page shows, once its script listens to the keys and the swipe."""
    body = d.find_element(By.TAG_NAME, "body")
    if body.get_attribute("data-stepping") != "on":
        return -1
    return int(body.get_attribute("data-review") or -1)


def wait_for_event(d: Chrome, n: int) -> None:
    WebDriverWait(d, 20).until(
        lambda d: at_event(d) == n, f"event {n} never shown: {d.current_url}, at {at_event(d)}"
    )


def swipe(d: Chrome, dx: int) -> None:
    """One finger moved sideways by ``dx`` CSS pixels across the middle of the screen."""
    x, y = 180, 400
    for kind, px in (("touchStart", x), ("touchMove", x + dx // 2), ("touchEnd", x + dx)):
        points = [] if kind == "touchEnd" else [{"x": px, "y": y}]
        d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def what_if_at_a_challenge(d: Chrome, url: str, g: str, at: int) -> None:
    """Opens event ``at`` and taps the last challenge among the actions open there."""
    d.get(f"{url}/g/{g}/review?at={at}")
    links = d.find_elements(By.CSS_SELECTOR, ".open-list a")
    tries = [a for a in links if "challenge" in (a.get_attribute("textContent") or "")]
    assert tries, "a challenge was among the actions open"
    d.execute_script("arguments[0].closest('details').open = true", tries[-1])
    tries[-1].click()
    WebDriverWait(d, 20).until(lambda d: d.find_elements(By.ID, "ruling"))


def test_a_whole_review_walked_on_a_phone_and_a_laptop_with_a_what_if_at_a_challenge(
    phone: Chrome,
) -> None:
    ref = make_referee(seed=37)
    t = played(ref)
    g = t.game
    challenge = challenges(ref, g)[0]
    mover = str(ref.log(g, "judge")[challenge].body.get("actor"))
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False, "JUDGE_CODE": JUDGE_CODE}
    app = create_app(config)
    d = phone
    with serving(app) as url:
        take_seat(d, f"{url}/join/{g}/{t.codes[mover]}")
        head = ref.head(g)  # taking the seat is recorded too
        last = head["seq"]
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
        # "what if" at the challenge: another challenge tried on the table just before it.
        # The player rules from what he knew: a defender face down is a card he never saw
        what_if_at_a_challenge(d, url, g, challenge - 1)
        player_says = d.find_element(By.ID, "ruling").text
        assert "Nothing was recorded" in player_says or "cannot rule without it" in player_says
        # the judge, on the same phone, rules from the whole table
        d.delete_cookie(f"hz_{g}")
        d.get(f"{url}/judge/join/{JUDGE_CODE}")
        what_if_at_a_challenge(d, url, g, challenge - 1)
        assert "Nothing was recorded" in d.find_element(By.ID, "ruling").text
        # typing in the "what if" box does not step
        box = d.find_element(By.ID, "pose")
        box.send_keys(Keys.ARROW_LEFT)
        assert at_event(d) == challenge - 1
        assert axe_violations(d) == []
        # a laptop's window: the judge walks the whole review again, with a "what if" at the
        # challenge, and axe finds nothing there either
        d.set_window_size(1280, 800)
        d.get(f"{url}/g/{g}/review?at=0")
        wait_for_event(d, 0)
        for n in range(1, last + 1):
            d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
            wait_for_event(d, n)
        what_if_at_a_challenge(d, url, g, challenge - 1)
        assert "Nothing was recorded" in d.find_element(By.ID, "ruling").text
        d.get(f"{url}/g/{g}/review?at={challenge}")
        assert axe_violations(d) == []
        assert ref.head(g) == head  # the record was never touched
        logs = d.get_log("browser")  # type: ignore[no-untyped-call]
        assert [e for e in logs if e.get("level") == "SEVERE"] == []
