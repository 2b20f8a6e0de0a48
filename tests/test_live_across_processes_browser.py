"""Issue 35: a move played through one server process reaches a page served by another within
1 s.

Two separate ``referee serve`` processes, A and B, on two ports over one database (a SQLite file,
or a PostgreSQL database with its state folder). Hera's seat page is open in headless Chromium
on B; Zeus claimed his seat through A's API, and Hera's device token is the page's cookie. The
game is then played through A's JSON API, request by request, and for each the test measures
the time from A's reply to the moment B's page shows the new event (its ``body[data-seq]``,
stamped by a MutationObserver in the page, on the same machine's clock). Each wait is for a
condition with a generous ceiling; the 1 s is the issue's product requirement, asserted on the
slowest move and printed with the others."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest
from browser_helpers import chrome, new_profile, require_browser, take_seat
from served_helpers import Player, Served, head_seq, request, script

pytestmark = [pytest.mark.browser, pytest.mark.process]
require_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CEILING = 60.0  # seconds a condition may take on a busy 2-core machine
WITHIN = 1.0  # seconds: the requirement for a live update across processes
MOVES = 12  # requests played and measured

# Stamps the wall-clock time (ms) at which the page's body first shows each event number.
OBSERVE = """
window.hzShown = {};
var stamp = function () { window.hzShown[document.body.getAttribute('data-seq')] = Date.now(); };
stamp();
new MutationObserver(stamp).observe(document.body, {attributes: true,
    attributeFilter: ['data-seq']});
window.hzNotReloaded = true;
"""


def shown(seq: int) -> Callable[[WebDriver], float | Literal[False]]:
    """When the page first showed event ``seq`` (ms since the epoch); False before."""

    def check(d: WebDriver) -> float | Literal[False]:
        t = d.execute_script("return window.hzShown && window.hzShown[arguments[0]];", str(seq))
        return float(t) if t else False

    return check


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> list[str]:
    if request.param == "sqlite":
        return [str(tmp_path / "games.sqlite3")]
    return [str(request.getfixturevalue("pg_dsn")), "--state", str(tmp_path / "state")]


def test_a_move_played_on_one_process_shows_on_a_page_of_another_within_a_second(
    db: list[str], tmp_path: Path
) -> None:
    limits = ("--seat-rate", "0", "--address-rate", "0")
    a = Served(db, tmp_path, *limits)
    b = Served(db, tmp_path, *limits)
    profile = new_profile("across")
    d = chrome(profile)
    try:
        s = request(a.port, "GET", "/api/v1/session")
        cookie = "; ".join(s.cookies)
        created = request(
            a.port,
            "POST",
            "/api/v1/games",
            {"game_module": "hera-zeus", "profile": "rio-grande"},
            {"X-CSRF-Token": s.body["csrf"], "Cookie": cookie},
        )
        assert created.status == 201, created.body
        game, codes = created.body["game"], created.body["codes"]
        view = request(a.port, "GET", f"/api/v1/games/{game}", headers={"Cookie": cookie})
        zeus = request(
            a.port,
            "POST",
            f"/api/v1/games/{game}/claim",
            {"code": codes["zeus"]},
            {"X-CSRF-Token": view.headers["x-csrf-token"], "Cookie": cookie},
        )
        assert zeus.status == 201, zeus.body
        # Hera's seat is taken by the browser, on B
        take_seat(d, f"http://127.0.0.1:{b.port}/join/{game}/{codes['hera']}", CEILING)
        hera = d.get_cookie(f"hz_{game}")
        assert hera is not None
        tokens = {"hera": str(hera["value"]), "zeus": str(zeus.body["token"])}
        d.execute_script(OBSERVE)
        player = Player(a.port, game, tokens)  # every move through A
        latencies = []
        for i, step in enumerate(script(5, MOVES)[:MOVES]):
            player.play(i, step)
            replied = time.time()
            seq = head_seq(a.port, game, tokens["zeus"])
            stamped = WebDriverWait(d, CEILING, 0.05).until(
                shown(seq), f"B's page showing event {seq}"
            )
            latencies.append(max(0.0, stamped / 1000 - replied))
            body = d.find_element(By.TAG_NAME, "body")
            assert body.get_attribute("data-seq") == str(seq)
        assert d.execute_script("return window.hzNotReloaded === true;"), "the page reloaded"
        ms = ", ".join(f"{x * 1000:.0f}" for x in latencies)
        kind = "PostgreSQL" if "--state" in db else "SQLite"
        print(f"\non {kind}, from A's reply to B's page showing it, ms: {ms}")
        slowest, median = max(latencies), sorted(latencies)[MOVES // 2]
        print(f"slowest {slowest * 1000:.0f} ms, median {median * 1000:.0f} ms")
        assert max(latencies) < WITHIN, latencies
        player.close()
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)
        a.kill()
        b.kill()
