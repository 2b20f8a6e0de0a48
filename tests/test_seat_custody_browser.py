"""Issue 31, item 1, in a real browser: a seat's recovery code changes with its device, and the
new phone sees the new one. The phone waiting for a seat reloads itself when the holder
approves (its live page notices the move) and shows the seat's new code, once; a phone that
types the code is shown the seat's new one. Every wait is for a condition, with a generous
ceiling."""

from __future__ import annotations

import re
import shutil

import pytest
from browser_helpers import chrome, new_profile, require_browser, serving, take_seat
from service_helpers import make_referee

pytestmark = pytest.mark.browser
require_browser()

from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from referee.tables import recovery_hash  # noqa: E402
from web.app import create_app  # noqa: E402

CEILING = 60.0  # seconds: CI is a busy 2-core machine
CODE = re.compile(r"[A-Z0-9]{4}(?:-[A-Z0-9]{4}){3}")


def shown_code(d: Chrome) -> str | None:
    """The recovery code the page shows in its "recovery" flash, if any."""
    for el in d.find_elements(By.CSS_SELECTOR, "#flashes .flash.recovery .code"):
        m = CODE.fullmatch(el.text.strip())
        if m:
            return m.group(0)
    return None


def wait_for(d: Chrome, cond: object, what: str) -> None:
    stale = (StaleElementReferenceException, NoSuchElementException)
    try:
        WebDriverWait(d, CEILING, 0.1, ignored_exceptions=stale).until(cond)  # type: ignore[arg-type]
    except Exception:
        raise AssertionError(f"{what} (within {CEILING} s)") from None


def test_the_phone_a_seat_moves_to_is_shown_the_new_code_and_the_old_one_is_refused() -> None:
    ref = make_referee()
    config = {"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False, "JUDGE_CODE": None}
    profiles = [new_profile("custody-first"), new_profile("custody-second")]
    first, second = (chrome(p) for p in profiles)
    try:
        with serving(create_app(config)) as url:
            created = ref.create_game(judged=False, starting="hera")
            g, link = created.game, f"{url}/join/{created.game}/{created.codes['hera']}"
            take_seat(first, link)
            old = shown_code(first)
            assert old is not None, "the phone that took the seat is shown its code"
            second.get(link)  # held: it asks for the seat and waits on the table's page
            second.find_element(By.CSS_SELECTOR, "#ask-form button").click()
            wait_for(second, lambda d: "/g/" in d.current_url, "the asking phone waits")
            wait_for(
                second,
                lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-seat='public']"),
                "the waiting page is shown",
            )
            request = ref.log(g, "public")[-1]
            assert request.kind == "request"
            ref.approve_seat(g, "hera", request.seq)  # the first phone approves
            wait_for(
                second,
                lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-seat='hera']"),
                "the seat's page on the phone it moved to",
            )
            wait_for(second, lambda d: shown_code(d) is not None, "the new code is shown")
            new = shown_code(second)
            assert new is not None and new != old
            assert recovery_hash(new) in ref.store.secrets(g).values()
            # the code the first phone saw moves nothing any more (its link's page: held)
            moves = len(ref.log(g, "public"))
            first.get(link)
            box = first.find_element(By.CSS_SELECTOR, "#recover-form input[name=recovery]")
            box.send_keys(old)
            box.submit()
            wait_for(
                first,
                lambda d: (
                    "not the recovery code of a seat" in d.find_element(By.ID, "flashes").text
                ),
                "the old code is refused in words",
            )
            assert len(ref.log(g, "public")) == moves
            second.refresh()
            wait_for(
                second,
                lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-seat='hera']"),
                "the seat stays on the phone it moved to",
            )
            assert shown_code(second) is None  # shown once
            # the new code, typed on the first phone, moves the seat and shows a newer one
            first.get(link)
            box = first.find_element(By.CSS_SELECTOR, "#recover-form input[name=recovery]")
            box.send_keys(new)
            box.submit()
            wait_for(
                first,
                lambda d: d.find_elements(By.CSS_SELECTOR, "body[data-seat='hera']"),
                "the seat moves with the new code",
            )
            wait_for(first, lambda d: shown_code(d) is not None, "the newer code is shown")
            assert shown_code(first) not in (old, new)
    finally:
        for d in (first, second):
            d.quit()
        for path in profiles:
            shutil.rmtree(path, ignore_errors=True)
