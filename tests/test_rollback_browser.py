"""Issue 31, item 3, in a browser: a seat page remembers the newest head it was shown; the
database is swapped for an older copy (its journal deleted, the server started with
``--accept-missing-journal``); the reloaded page shows an alarm, refuses to act and tells the
judge, and the judge's console, which saw the newer head too, raises the same alarm."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import chrome, new_profile, require_browser
from test_rollback import Rollback, journal_check
from web_helpers import JUDGE_CODE, make_app

pytestmark = pytest.mark.browser
require_browser()

from selenium.webdriver import Chrome  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from referee.models import OpenItem  # noqa: E402
from referee.service import Referee, open_referee  # noqa: E402

CEILING = 30.0  # seconds: CI is a busy 2-core machine; every wait is for a condition


class Swappable:
    """A WSGI app whose app can be replaced while it serves (a restarted server, same port:
    the browser's storage is per origin)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: Any, start_response: Any) -> Any:
        return self.app(environ, start_response)


@pytest.fixture(autouse=True)
def no_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cookie keeps the token the fixture rotated to: this file is about the heads."""
    monkeypatch.setattr("referee.tables.ROTATE_AFTER", 1e9)


@pytest.fixture
def site() -> Iterator[tuple[str, Swappable]]:
    from werkzeug.serving import make_server

    holder = Swappable(None)
    srv = make_server("127.0.0.1", 0, holder, threaded=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}", holder
    finally:
        srv.shutdown()


def wait(d: Chrome, cond: Callable[[], bool], what: str) -> None:
    try:
        WebDriverWait(d, CEILING, 0.05).until(lambda _: cond())
    except Exception:
        raise AssertionError(f"{what} (within {CEILING} s)") from None


def alarm_shown(d: Chrome) -> bool:
    return bool(
        d.execute_script(
            "var w = document.getElementById('chain-warning');"
            "return !!w && !w.hidden && w.getAttribute('role') === 'alert'"
            " && w.textContent.indexOf('older or different record') >= 0;"
        )
    )


def acting_controls(d: Chrome) -> list[bool]:
    """Whether each visible control of the page's forms is disabled."""
    found = d.execute_script(
        "var out = [];"
        "document.querySelectorAll('form[method=post]').forEach(function (f) {"
        "  f.querySelectorAll('button, input, select, textarea').forEach(function (el) {"
        "    if (el.type !== 'hidden') { out.push(el.disabled); } }); });"
        "return out;"
    )
    return [bool(x) for x in found]


def heras_page(d: Chrome, base: str, r: Rollback) -> tuple[int, str]:
    """Hera's phone opens her seat page at the newest head and remembers it; returns that
    head's seq and the script that reads what the browser keeps."""
    d.get(base + "/")
    d.add_cookie({"name": f"hz_{r.game}", "value": str(r.hera), "path": "/"})
    d.get(f"{base}/g/{r.game}")
    newest = int(r.newest["seq"])
    stored = f"return window.localStorage.getItem('hz-heads-{r.game}') || '';"
    wait(d, lambda: f'"{newest}"' in d.execute_script(stored), "the head is remembered")
    return newest, stored


def reports(ref: Referee, game: str) -> list[OpenItem]:
    return [i for i in ref.view(game, "judge").open or [] if i["kind"] == "irregularity"]


def test_a_seat_page_served_an_older_record_raises_the_alarm_and_stops(
    tmp_path: Path, site: tuple[str, Swappable]
) -> None:
    base, holder = site
    r = Rollback(tmp_path)
    ref = open_referee(r.db)
    holder.app = make_app(ref, ACCESS_LOG=False)
    d = chrome(new_profile("rollback"))
    try:
        newest, stored = heras_page(d, base, r)
        body = d.find_element(By.TAG_NAME, "body")
        assert body.get_attribute("data-seat") == "hera"
        assert body.get_attribute("data-seq") == str(newest)
        assert not alarm_shown(d) and not any(acting_controls(d))

        # the server stops; an older copy of the database replaces its file, the journal is
        # deleted; it starts again with the explicit option
        ref.store.close()
        r.roll_back()
        ref = open_referee(r.db)
        said = journal_check(ref, r.db, accept=True)
        holder.app = make_app(ref, ACCESS_LOG=False, JOURNAL_ACCEPTED=said)
        assert ref.head(r.game)["seq"] < newest

        d.refresh()
        wait(d, lambda: alarm_shown(d), "the alarm is shown")
        controls = acting_controls(d)
        assert controls and all(controls), "every control that acts is off"
        wait(
            d,
            lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-alarm") == "reported",
            "the judge is told",
        )
        found = reports(ref, r.game)
        assert [i["seat"] for i in found] == ["hera"]
        assert f"up to event {newest}" in found[0]["body"]["problem"]
        assert "The judge has been told." in d.find_element(By.ID, "chain-warning").text

        # the judge's console in a browser that saw the newer head: the same alarm, the same
        # report (not a second one), and the start over a missing journal is shown
        d.get(f"{base}/judge/join/{JUDGE_CODE}")
        d.get(f"{base}/judge?table={r.game}")
        wait(d, lambda: alarm_shown(d), "the console's alarm is shown")
        controls = acting_controls(d)
        assert controls and all(controls)
        assert "--accept-missing-journal" in d.find_element(By.ID, "journal-accepted").text
        wait(
            d,
            lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-alarm") == "reported",
            "the console's report is answered",
        )
        assert len(reports(ref, r.game)) == 1

        # the judge has looked: this device takes the record served, and acts again
        d.find_element(By.ID, "chain-accept").click()
        wait(
            d,
            lambda: not alarm_shown(d) and bool(acting_controls(d)) and not any(acting_controls(d)),
            "the page acts again once the record served is taken",
        )
        assert f'"{ref.head(r.game)["seq"]}"' in d.execute_script(stored)
    finally:
        d.quit()
        ref.store.close()


def test_another_record_at_a_sequence_the_page_saw_raises_the_alarm(
    tmp_path: Path, site: tuple[str, Swappable]
) -> None:
    base, holder = site
    r = Rollback(tmp_path)
    ref = open_referee(r.db)
    holder.app = make_app(ref, ACCESS_LOG=False)
    d = chrome(new_profile("rewritten"))
    try:
        newest, _ = heras_page(d, base, r)
        # rolled back, then written on to the same length: the same numbers, other records
        ref.store.close()
        r.roll_back()
        ref = open_referee(r.db)
        said = journal_check(ref, r.db, accept=True)
        while ref.head(r.game)["seq"] < newest:
            ref.call_judge(r.game, "zeus", "written after the rollback")
        assert ref.head(r.game)["seq"] == newest and ref.head(r.game)["hash"] != r.newest["hash"]
        holder.app = make_app(ref, ACCESS_LOG=False, JOURNAL_ACCEPTED=said)
        d.refresh()
        wait(d, lambda: alarm_shown(d), "the alarm is shown")
        assert "is not the event this device saw" in d.find_element(By.ID, "chain-warning").text
        controls = acting_controls(d)
        assert controls and all(controls)
        wait(
            d,
            lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-alarm") == "reported",
            "the judge is told",
        )
        found = reports(ref, r.game)
        assert [i["seat"] for i in found] == ["hera"]
        assert "the database may have been replaced" in found[0]["body"]["problem"]
    finally:
        d.quit()
        ref.store.close()
