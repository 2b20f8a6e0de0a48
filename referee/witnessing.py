"""What a device saw: a seat's phone or the judge's console reports a head the server no longer
serves (issue 31, item 3).

The heads journal (:mod:`referee.anchors`) lives beside the database, so whoever replaces the
database and deletes the journal rolls a game back unseen by the server. The pages keep the
newest head they were shown, per game, in the browser (``web/static/app.js``); when the server
later serves an older head, or another record at a sequence the browser knows, the page stops
acting and reports it here. The report becomes an ``irregularity`` record for the judge (the
same road as a statement against the record): its body says what the device saw and what
it was served, sealed from every seat but the judge's as every irregularity is.

A device's word is not proof (it may report anything), so the report holds nothing and
changes no position: it puts the question in front of the judge, who compares the phones'
heads with the score sheets. The same report twice (the same head seen, still open) is written
once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.say import Say
from referee.errors import Forbidden, Refused
from referee.ledger import Draft, Ledger
from referee.log import Record
from referee.reading import Reading
from referee.validate import InputError, integer
from referee.views import JUDGE, redact

SOURCE = "anchor"
HASH = re.compile(r"^[0-9a-f]{8,64}$")


def _hash(value: Any, name: str) -> str:
    if not isinstance(value, str) or not HASH.match(value):
        raise Refused(
            Say("%(field)s: not a record hash (8 to 64 lowercase hex digits)", field=name)
        )
    return value


def problem(body: Mapping[str, Any], seat: str) -> Say | None:
    """What a device's report of a head says (the irregularity's ``problem``), said again from
    its fields so a page says it in its reader's language; None for another irregularity.
    ``seat`` is the seat that reported it."""
    seen, served = body.get("seen"), body.get("served")
    if body.get("source") != SOURCE or not isinstance(seen, dict) or not isinstance(served, dict):
        return None
    values = {
        "seen": seen.get("seq"),
        "seen_hash": str(seen.get("hash", ""))[:8],
        "served": served.get("seq"),
        "served_hash": str(served.get("hash", ""))[:8],
    }
    seen_seq, served_seq = seen.get("seq"), served.get("seq")
    behind = isinstance(seen_seq, int) and isinstance(served_seq, int) and served_seq < seen_seq
    if seat == JUDGE:
        if behind:
            return Say(
                "the judge's console was shown the record up to event %(seen)s (%(seen_hash)s); "
                "the server now serves it only up to event %(served)s (%(served_hash)s): the "
                "database may have been rolled back or replaced",
                **values,
            )
        return Say(
            "the judge's console was shown event %(seen)s as %(seen_hash)s; the server now "
            "serves %(served_hash)s there: the database may have been replaced",
            **values,
        )
    if behind:
        return Say(
            "%(seat)s's device was shown the record up to event %(seen)s (%(seen_hash)s); the "
            "server now serves it only up to event %(served)s (%(served_hash)s): the database "
            "may have been rolled back or replaced",
            seat=seat.title(),
            **values,
        )
    return Say(
        "%(seat)s's device was shown event %(seen)s as %(seen_hash)s; the server now serves "
        "%(served_hash)s there: the database may have been replaced",
        seat=seat.title(),
        **values,
    )


def report_head(
    ledger: Ledger,
    reading: Reading,
    game: str,
    seat: str,
    seen: tuple[Any, Any],
    served: tuple[Any, Any],
) -> Record:
    """Records that ``seat``'s device saw the head ``seen`` (seq, hash) of ``game`` and was
    later served ``served``, older or different there. Returns the irregularity as ``seat``
    may read it (the open one when the same head was reported already). Raises Forbidden for
    the public (a seat or the judge reports), Refused for a malformed seq or hash, or a
    report that shows no difference."""
    reading.seat_of(game, seat)
    for name, pair in (("seen", seen), ("served", served)):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise Refused(
                Say(
                    "%(field)s: a head as (seq, hash), not %(type)s",
                    field=name,
                    type=type(pair).__name__,
                )
            )
    try:
        seen_seq = integer(seen[0], "seen_seq", 0, 10**9)
        served_seq = integer(served[0], "served_seq", 0, 10**9)
    except InputError as e:
        raise Refused(str(e)) from None
    seen_hash = _hash(seen[1], "seen_hash")
    served_hash = _hash(served[1], "served_hash")
    if served_seq > seen_seq or (served_seq == seen_seq and served_hash == seen_hash):
        raise Refused(
            Say(
                "event %(served)s (%(served_hash)s) is not older than nor different from "
                "event %(seen)s (%(seen_hash)s): nothing to report",
                served=served_seq,
                served_hash=served_hash[:8],
                seen=seen_seq,
                seen_hash=seen_hash[:8],
            )
        )
    seen_head = {"seq": seen_seq, "hash": seen_hash}
    served_head = {"seq": served_seq, "hash": served_hash}
    # the log stores the English words, as it always has; a page says them again from the
    # fields (problem)
    said = problem({"source": SOURCE, "seen": seen_head, "served": served_head}, seat)
    body = {"source": SOURCE, "problem": str(said), "seen": seen_head, "served": served_head}
    with ledger.lock(game):
        f = reading.reader.folded(game)
        if seat not in f.module.players and seat != JUDGE:
            raise Forbidden(Say("only a seat's device or the judge reports what it was shown"))
        for r in f.open_items():
            if r.kind == "irregularity" and r.body.get("seen") == body["seen"]:
                return redact(r, seat, f.module)  # reported already, still open
        recs, after = ledger.write(game, lambda _: [Draft(seat, "irregularity", body)], fresh=f)
    return redact(recs[0], seat, after.module)
