"""The camera in headless Chromium (Debian's chromium and chromium-driver, through Selenium),
at 360 x 740, with a fake camera: Chromium plays an MJPEG file made from a synthetic photo of
the kit's mat (``--use-fake-device-for-media-stream``, ``--use-file-for-fake-video-capture``).

- Hera's seat page, in setup: she sends a photo of four of her cards through the file input,
  the page lists them with their confidence (and the foreign code it refused), and one tap
  records them as her deal (the other five not entered).
- Hera's camera page, in play (http://127.0.0.1 is a secure context, as HTTPS would be): she
  starts the camera, the page shows the annotated mat and proposes her play into column 2; she
  names the card and confirms; the referee records the play. No JavaScript error on any page.

Screenshots go to ``test-artifacts/camera`` (``HZ_ARTIFACTS`` moves it). Without chromium or
chromedriver the test is skipped with the reason, except under ``CI``, where it fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import artifacts, chrome, new_profile, require_browser, serving, take_seat

pytestmark = pytest.mark.browser
ARTIFACTS = artifacts("camera")
require_browser()

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from service_helpers import make_referee  # noqa: E402
from test_web_camera import (  # noqa: E402
    FIRST_ROWS,
    HERA_DEAL,
    KIT,
    ZEUS_DEAL,
    cards_photo,
    mat_picture,
)

from referee.herazeus.game import hz_board  # noqa: E402
from referee.service import Referee  # noqa: E402
from web.app import create_app  # noqa: E402


@pytest.fixture
def server() -> Iterator[tuple[str, Referee]]:
    ref = make_referee()
    with serving(create_app({"REFEREE": ref, "TESTING": True, "ACCESS_LOG": False})) as url:
        yield url, ref


def fake_camera_file(directory: Path) -> Path:
    """An MJPEG file (JPEG frames back to back) of the mat as a 1080p landscape camera sees
    it: the first rows face down and one more Hera card in column 2."""
    layout = {**FIRST_ROWS, ("hera", 2, 2): {"state": "down", "deck": "hera"}}
    top = cv2.imdecode(np.frombuffer(mat_picture(layout), np.uint8), cv2.IMREAD_COLOR)
    assert top is not None
    pic = cv2.rotate(top, cv2.ROTATE_90_CLOCKWISE)
    frame = np.full((1080, 1920, 3), (90, 120, 140), np.uint8)
    k = min(1880 / pic.shape[1], 1040 / pic.shape[0])
    small = cv2.resize(pic, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    y, x = (1080 - small.shape[0]) // 2, (1920 - small.shape[1]) // 2
    frame[y : y + small.shape[0], x : x + small.shape[1]] = small
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    path = directory / "mat.mjpeg"
    path.write_bytes(bytes(buf.tobytes()) * 10)
    return path


def browser(camera_file: Path) -> WebDriver:
    d: WebDriver = chrome(
        new_profile("camera"),
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-video-capture={camera_file}",
    )
    return d


def wait(d: WebDriver, cond: Callable[[WebDriver], Any], timeout: float = 20.0) -> Any:
    """Waits for ``cond``; an element the live update swapped out while it was read is read
    again on the next poll."""
    stale = (StaleElementReferenceException, NoSuchElementException)
    return WebDriverWait(d, timeout, poll_frequency=0.1, ignored_exceptions=stale).until(cond)


def shot(d: WebDriver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    height = d.execute_script("return document.documentElement.scrollHeight")
    d.set_window_size(360, min(4000, max(740, int(height))))
    d.save_screenshot(str(ARTIFACTS / f"{name}.png"))
    d.set_window_size(360, 740)


def tap(d: WebDriver, css: str) -> None:
    """Scrolled into sight first: the seat page's dock (issue 31, item 10) covers the bottom of
    the viewport, and what lies behind it is reached by scrolling, as a thumb would."""
    el = d.find_element(By.CSS_SELECTOR, css)
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def no_js_errors(d: WebDriver) -> None:
    bad = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]  # type: ignore[attr-defined]
    assert not bad, bad


def test_photo_entry_and_the_live_camera_in_chromium(
    server: tuple[str, Referee], tmp_path: Path
) -> None:
    url, ref = server
    d = browser(fake_camera_file(tmp_path))
    try:
        # -- a photo of cards on the seat page, confirmed as the deal --
        setup = ref.create_game(catalogue=KIT.catalogue_for_game(), kit=KIT.to_json())
        take_seat(d, f"{url}/join/{setup.game}/{setup.codes['hera']}")
        wait(d, lambda d: d.find_elements(By.ID, "photo-form"))
        photo = tmp_path / "cards.jpg"
        shown = [("hera", x) for x in ("Hydra", "Harpy", "Amazon", "Sirens")]
        photo.write_bytes(cards_photo(shown, foreign=1))
        d.find_element(By.CSS_SELECTOR, "#photo-form input[type=file]").send_keys(str(photo))
        tap(d, "#photo-form button[type=submit]")
        wait(d, lambda d: d.find_elements(By.ID, "photo-read"))
        read = d.find_element(By.ID, "photo-read").text
        for name in ("Hydra", "Harpy", "Amazon", "Sirens"):
            assert name in read
        assert "refused" in read
        shot(d, "1-seat-photo-read")
        no_js_errors(d)
        tap(d, "#photo-read button[value=deal]")
        wait(d, lambda d: "Amazon" in d.find_element(By.CSS_SELECTOR, "p.hand").text)
        hand = hz_board(ref.view(setup.game, "hera")).hera["hand"]
        assert sorted(hand) == sorted(["Hydra", "Harpy", "Amazon", "Sirens", *["?"] * 5])
        shot(d, "2-seat-deal-recorded")

        # -- the camera page over a game in play --
        play = ref.create_game(catalogue=KIT.catalogue_for_game(), kit=KIT.to_json())
        g = play.game
        ref.submit(g, "hera", {"do": "deal", "player": "hera", "cards": HERA_DEAL})
        ref.submit(g, "zeus", {"do": "deal", "player": "zeus", "cards": ZEUS_DEAL})
        ref.submit(g, "hera", {"do": "first_row", "player": "hera", "cards": HERA_DEAL[:3]})
        ref.submit(g, "zeus", {"do": "first_row", "player": "zeus", "cards": ZEUS_DEAL[:3]})
        take_seat(d, f"{url}/join/{g}/{play.codes['hera']}")
        wait(d, lambda d: d.find_elements(By.ID, "camera-link"))
        tap(d, "#camera-link")
        wait(d, lambda d: d.find_element(By.ID, "live").is_displayed())
        assert not d.find_element(By.ID, "cam-insecure").is_displayed()
        d.find_element(By.ID, "cam-start").click()
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#proposals li.kind-play"), 40)
        # the framing, live (issue 14): px per module at the farthest cell, and the fixes
        framing = d.find_element(By.ID, "cam-framing").text
        assert "px per module at the farthest cell" in framing, framing
        mat = d.find_element(By.ID, "cam-mat")
        assert str(mat.get_attribute("src")).startswith("data:image/jpeg;base64,")
        assert d.execute_script("return arguments[0].naturalWidth", mat) > 0
        shot(d, "3-camera-proposals")
        n = len(ref.log(g, "judge"))

        def tap_confirm(d: WebDriver) -> bool:
            """Names Hydra and confirms the play at position 2 (the list may be redrawn by
            a newer frame between two steps: then it tries again)."""
            try:
                items = d.find_elements(By.CSS_SELECTOR, "#proposals li.kind-play")
                target = next(li for li in items if "position 2" in li.text)
                Select(target.find_element(By.TAG_NAME, "select")).select_by_value("Hydra")
                target.find_element(By.CSS_SELECTOR, "button.primary").click()
                return True
            except (StaleElementReferenceException, StopIteration):
                return False

        wait(d, tap_confirm)
        deadline = time.monotonic() + 20
        while len(ref.log(g, "judge")) == n and time.monotonic() < deadline:
            time.sleep(0.1)
        assert hz_board(ref.view(g, "hera")).hera["field"][1] == ["Artemis", "Hydra"]
        wait(d, lambda d: "matches the record" in d.find_element(By.ID, "proposals").text, 30)
        shot(d, "4-camera-confirmed")
        stop = d.find_element(By.ID, "cam-stop")
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", stop)
        stop.click()
        wait(d, lambda d: d.find_element(By.ID, "cam-start").is_displayed())
        no_js_errors(d)
    finally:
        d.quit()
