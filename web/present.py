"""What the shell's pages show, made from what the service gives a seat: log lines, what a
receipt says, replay frames and QR codes. Functions of service values (no hidden state), said
in the request's language (English outside a request); what a game's records and events say
is its page module's (:meth:`web.games.PageModule.describe_record`).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from referee.games import GAMES
from referee.language import DEFAULT, Say
from referee.log import Record
from referee.narration import record_words, who_and
from referee.service import Receipt, Referee
from referee.words import needs_words
from web.games import PageModule, page_for, seat_title
from web.i18n import gettext, lang, lazy_gettext, say

# the seat of the records no seat makes (the create record), said like a seat's title
SYSTEM = lazy_gettext("system")


def describe_record(
    pm: PageModule, r: Record, seat: str, records: Sequence[Record] = ()
) -> dict[str, Any]:
    """One log line for a page: time, who, what (cut for ``seat``; the judge's reasons and
    notes only for the judge). The game's records are worded by its page module ``pm``;
    ``records``, the log as ``seat`` holds it, tells a take-back from a judge's correction."""
    judge = seat == "judge"
    body = r.body
    lines = pm.describe_record(r, seat)
    if lines is None:
        lines = [record_words(r, judge, records)]
        if r.kind == "ask" and lang() != DEFAULT:  # its stored reason is English words
            lines = [asked_words(r)]
    if judge:
        reason = body.get("reason") or body.get("note")
        if reason and r.kind not in ("irregularity", "ask"):  # an ask's reason is its line
            lines.append(gettext("Reason: %(reason)s", reason=reason))
    return {
        "seq": r.seq,
        "time": r.time[11:19] if len(r.time) >= 19 else r.time,
        "stamp": r.time,
        "seat": say(seat_title(pm, r.seat)),  # "Judge" said in the reader's language
        "kind": r.kind,
        "text": " ".join(say(line) for line in lines),  # in the reader's language
        "hash": r.hash,
    }


def asked_words(r: Record) -> Say:
    """A question's log line said from its fields (who is asked, what for, the rule), for a
    reader of another language than the English words the record keeps."""
    body = r.body
    asked = [str(a) for a in body.get("asked") or []]
    phrases = {h: w for g in GAMES.values() for h, w in g.needs_phrases.items()}
    possessives = {s: w for g in GAMES.values() for s, w in g.possessives.items()}
    what = needs_words(str(body.get("needs") or ""), asked, possessives, phrases)
    who = who_and(asked) if asked else Say("a player")
    rule = f" [{body.get('rule')}]" if body.get("rule") else ""
    why = Say("%(who)s must give %(what)s", who=who, what=what)
    return Say(
        "The referee waits for %(who)s to answer: %(why)s%(rule)s.", who=who, why=why, rule=rule
    )


def said(receipt: Receipt) -> str:
    """What a receipt's events say, in words, in the request's language ("Recorded." when
    they say nothing)."""
    lines = page_for(receipt.view).describe_events(receipt.events)
    return " ".join(say(line) for line in lines) or gettext("Recorded.")


def qr_svg(data: str) -> Markup:
    """A QR code of ``data`` as inline SVG markup (made here, no network)."""
    import qrcode  # type: ignore[import-untyped]
    import qrcode.image.svg  # type: ignore[import-untyped]

    img = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, box_size=8, border=2)
    buf = io.BytesIO()
    img.save(buf)
    text = buf.getvalue().decode("utf-8")
    start = text.find("<svg")
    return Markup(text[start:])


def replay_frames(ref: Referee, pm: PageModule, game: str, seat: str) -> list[dict[str, Any]]:
    """Every event of ``game`` as ``seat`` may read it, with the table as that seat saw it
    right after the event (``Referee.replay``: folded on the server from the full log, each
    picture drawn from that seat's view, so nothing hidden from the seat leaves)."""
    records: list[Record] = []
    frames: list[dict[str, Any]] = []
    for s in ref.replay(game, seat):
        records.append(Record.from_json(s["record"]))
        frames.append(
            {
                "record": describe_record(pm, records[-1], seat, records),
                "view": s["view"].to_json(),  # the drawing reads the view's JSON
                "rules": s["rules"],
            }
        )
    return frames
