"""Issue 33, item 5: a page's live stream reconnects after a server restart.

Hera's seat page is open in headless Chromium (360 x 740) on ``referee serve``'s own server
(:func:`web.serve.make_server`) over a SQLite file. The server stops completely (its port
refuses connections, and the page is seen trying it), then a new server, a new app from the
same configuration, starts on the same port over the same file, as a restart would. Zeus then
acts through the JSON API with the Bearer token he claimed before the restart, and the open
page shows the new head without being reloaded: its EventSource reconnected by itself. Every
wait is for a condition, with a generous ceiling (a busy 2-core machine)."""

from __future__ import annotations

import http.cookiejar
import json
import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import chrome, new_profile, require_browser, take_seat
from test_service import ZEUS_HAND, ZEUS_ROW

pytestmark = pytest.mark.browser
require_browser()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from referee.service import Referee  # noqa: E402
from web import serve  # noqa: E402
from web.app import create_app  # noqa: E402
from web.front import Server  # noqa: E402
from web.request import open_db  # noqa: E402

CEILING = 60.0  # seconds: every wait is for a condition; CI is a busy 2-core machine
HOST = "127.0.0.1"
# The one console error the restart may cause, Chromium's line for the page's EventSource
# trying the stopped server: "<stream URL> - Failed to load resource: net::ERR_CONNECTION_REFUSED"
# (source "network"). A stream cut as the server stops would be another error: the server's
# stop ends every stream cleanly first (web.front.Server).
REFUSED = "Failed to load resource: net::ERR_CONNECTION_REFUSED"


def until(what: str, cond: Callable[[], bool], ceiling: float = CEILING) -> None:
    """Waits for ``cond`` (polled every 0.1 s), at most ``ceiling`` seconds."""
    deadline = time.monotonic() + ceiling
    pause = threading.Event()  # never set: a pause between two looks
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {ceiling:g} s")
        pause.wait(0.1)


@contextmanager
def server(db: Path, port: int) -> Iterator[tuple[Server, Referee]]:
    """``referee serve``'s server on ``port`` over the database file ``db``: a new referee and
    a new app from the same configuration each time (the keys beside the file are kept), as a
    restart makes them. Stopped completely, its store closed, on leaving."""
    ref = open_db(str(db))
    app = create_app(
        {
            "REFEREE": ref,
            "REFEREE_DB": str(db),
            "SECRET_KEY": serve.secret_key(db),
            "JUDGE_CODE": serve.judge_code(db),
            "ACCESS_LOG": False,
        }
    )
    srv = serve.make_server(app, HOST, port, 16)
    assert isinstance(srv, Server)
    srv.prepare()
    t = threading.Thread(target=srv.serve, name=f"server-{port}", daemon=True)
    t.start()
    try:
        yield srv, ref
    finally:
        srv.stop()
        t.join(30)
        ref.store.close()


def refused(port: int) -> bool:
    """True when nothing listens on ``port`` any more."""
    try:
        with socket.create_connection((HOST, port), timeout=2):
            return False
    except ConnectionRefusedError:
        return True


def claim_by_api(base: str, game: str, code: str) -> str:
    """A machine client claims a seat with its join code: the game's CSRF token and cookie
    from ``GET /api/v1/games/<game>``, then ``POST .../claim``. Returns the Bearer token."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    with opener.open(f"{base}/api/v1/games/{game}", timeout=CEILING) as r:
        csrf = r.headers["X-CSRF-Token"]
    req = urllib.request.Request(
        f"{base}/api/v1/games/{game}/claim",
        data=json.dumps({"code": code}).encode(),
        headers={"Content-Type": "application/json", "X-CSRF-Token": csrf},
        method="POST",
    )
    with opener.open(req, timeout=CEILING) as r:
        assert r.status == 201
        return str(json.load(r)["token"])


def act_by_api(base: str, game: str, token: str, action: dict[str, Any]) -> None:
    req = urllib.request.Request(
        f"{base}/api/v1/games/{game}/actions",
        data=json.dumps({"action": action}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=CEILING) as r:
        assert r.status in (200, 201), r.status


def shown_seq(d: WebDriver) -> int:
    return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-seq") or -1)


def test_a_seat_pages_live_stream_reconnects_after_a_server_restart(tmp_path: Path) -> None:
    db = tmp_path / "referee.sqlite3"
    port = serve.free_port(HOST)
    base = f"http://{HOST}:{port}"
    stream_url = ""
    profile = new_profile("reconnect")
    d = chrome(profile)
    log: list[dict[str, Any]] = []

    def expected(e: dict[str, Any]) -> bool:
        return e.get("source") == "network" and e.get("message") == f"{stream_url} - {REFUSED}"

    def console() -> list[dict[str, Any]]:
        log.extend(d.get_log("browser"))  # type: ignore[no-untyped-call]
        return log

    try:
        with server(db, port) as (srv, ref):
            created = ref.create_game(profile="rio-grande", starting="hera")
            g = created.game
            stream_url = f"{base}/api/v1/games/{g}/stream"
            take_seat(d, f"{base}/join/{g}/{created.codes['hera']}", CEILING)
            zeus = claim_by_api(base, g, created.codes["zeus"])
            until("the page's live stream is open", lambda: srv.front.streams >= 1)
            WebDriverWait(d, CEILING).until(lambda _: shown_seq(d) == int(ref.head(g)["seq"]))
            d.execute_script("window.hzNotReloaded = true;")  # a reload would lose it
        assert refused(port), "the first server still listens"
        until(
            "the page tries the stopped server (its stream refused)",
            lambda: any(expected(e) for e in console()),
        )

        with server(db, port) as (srv, ref):
            until("the page's live stream is open again", lambda: srv.front.streams >= 1)
            before = int(ref.head(g)["seq"])
            assert shown_seq(d) == before
            act_by_api(base, g, zeus, {"do": "deal", "player": "zeus", "cards": list(ZEUS_HAND)})
            act_by_api(
                base, g, zeus, {"do": "first_row", "player": "zeus", "cards": list(ZEUS_ROW)}
            )
            target = int(ref.head(g)["seq"])
            assert target > before
            WebDriverWait(d, CEILING, 0.1).until(
                lambda _: shown_seq(d) == target,
                f"the open page shows event {target} after the restart",
            )
            assert d.execute_script("return window.hzNotReloaded === true;"), "page reloaded"

        errors = [
            str(e.get("message"))
            for e in console()
            if e.get("level") == "SEVERE" and not expected(e)
        ]
        assert errors == [], errors
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)
