"""The judge's tables in the order he needs them (issue 12: thousands of games, a few real).

Every table is in one state (:func:`table_state`), and the overview lists them state by state:

    alert      held, broken, or an open call or irregularity    the judge is needed
    playing    in play, an event in the last QUIET_AFTER         a table at work
    setup      setting up, an event in the last QUIET_AFTER      most events first
    quiet      not over, nothing for QUIET_AFTER before the hall's latest event (abandoned)
    finished   the game is over

The first two are the tables playing now: the judge's page (``/judge``) shows all of them,
then the others :data:`PAGE_SIZE` at a time (``/judge?page=2``); the API's ``/tables`` lists
them in the same order and takes ``state`` (``active``: alert and playing; ``other``: the rest),
``limit`` and ``offset``. Within a state, the most recent first.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from referee import witnessing
from referee.models import TableRow
from web.i18n import gettext, ngettext, say

QUIET_AFTER = datetime.timedelta(hours=2)
PAGE_SIZE = 50
STATES = ("alert", "playing", "setup", "quiet", "finished")
ACTIVE = ("alert", "playing")


def _time(text: str | None) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def table_state(row: TableRow, now: datetime.datetime) -> str:
    """The state of one table (see the module's table)."""
    if (
        "held" in row
        or row.get("broken")
        or row.get("open_calls")
        or row.get("open_irregularities")
    ):
        return "alert"
    if row.get("phase") == "over" or row.get("winner") or row.get("reason"):
        return "finished"
    last = _time(row.get("last_time"))
    if last is not None and now - last > QUIET_AFTER:
        return "quiet"
    return "setup" if row.get("phase") == "setup" else "playing"


def ordered(rows: Sequence[TableRow]) -> list[tuple[str, TableRow]]:
    """``rows`` with their states, state by state, the most recent (setting up: the most
    events) first within each. "Now" is the latest event of all the tables (no clock is read:
    a hall where nothing happens has no quiet table)."""
    times = [t for t in (_time(r.get("last_time")) for r in rows) if t is not None]
    now = max(times) if times else datetime.datetime.now(datetime.UTC)

    def key(item: tuple[str, TableRow]) -> tuple[int, int, str]:
        state, row = item
        seq = row.get("head", {}).get("seq", 0) if state == "setup" else 0
        return (STATES.index(state), -int(seq), _desc(row.get("last_time") or ""))

    return sorted(((table_state(r, now), r) for r in rows), key=key)


def _desc(text: str) -> str:
    """A key that sorts ISO times newest first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in text)


ANSWER_LATE = datetime.timedelta(minutes=1)  # a question unanswered this long is an alert


def alerts(rows: Sequence[TableRow], now: datetime.datetime) -> list[dict[str, str]]:
    """What needs the judge across the hall, oldest first (issue 13, item 5): each open call
    with its note, each open irregularity, each held or broken record, and each question
    waiting for a player's answer for more than :data:`ANSWER_LATE`. ``now`` is the clock's
    (injected by the caller, so a test needs no sleep). Each ``what`` is said in the request's
    language (English outside a request); what the log stores (a player's note, a problem the
    log recorded in English) goes in as it is, except a device's report of a head, said again
    from its fields (:func:`referee.witnessing.problem`), and the reason a game is held."""
    out: list[dict[str, str]] = []
    for r in rows:
        g = r["game"]
        if "held" in r:
            out.append(
                {"game": g, "time": "", "what": gettext("record held: %(why)s", why=say(r["held"]))}
            )
            continue
        if r.get("broken"):
            broken = gettext("record broken: %(why)s", why=say(r.get("broken")))
            out.append({"game": g, "time": "", "what": broken})
        for c in r.get("calls", []):
            note = str(c.get("body", {}).get("note") or "").strip()
            who = str(c.get("seat", "")).title()
            if note:
                what = gettext("%(seat)s calls the judge: %(note)s", seat=who, note=note)
            else:
                what = gettext("%(seat)s calls the judge", seat=who)
            out.append({"game": g, "time": c.get("time", ""), "what": what, "seq": str(c["seq"])})
        for i in r.get("irregularities", []):
            body = i.get("body", {})
            reported = witnessing.problem(body, str(i.get("seat", "")))
            # else the log's own words
            problem = reported if reported is not None else str(body.get("problem") or i["kind"])
            said = gettext("irregularity: %(problem)s", problem=say(problem))
            out.append({"game": g, "time": i.get("time", ""), "what": said})
        since = _time(r.get("waiting_since"))
        if since is not None and now - since > ANSWER_LATE:
            late = int((now - since).total_seconds() // 60)
            waiting = ngettext(
                "waiting for a player's answer for %(num)d min",
                "waiting for a player's answer for %(num)d min",
                late,
            )
            out.append({"game": g, "time": r.get("waiting_since") or "", "what": waiting})
    return sorted(out, key=lambda a: a["time"])
