"""What the shell's pages show, made from what the service gives a seat: log lines, what a
receipt says, replay frames and QR codes. Pure functions of service values (no request, no
hidden state); what a game's records and events say is its page module's
(:meth:`web.games.PageModule.describe_record`).
"""

from __future__ import annotations

import io
from typing import Any

from markupsafe import Markup

from referee.log import Record
from referee.service import Receipt, Referee
from web.games import PageModule, page_for, seat_title


def _service_line(r: Record, judge: bool) -> str:
    """A record of the service's own (a correction, a call, an irregularity), in words."""
    body = r.body
    if r.kind == "undo":
        return f"The judge corrected the record: the game continues after event {body.get('to')}."
    if r.kind == "amend":
        return f"The judge corrected the record: event {body.get('event')} was amended."
    if r.kind == "irregularity":
        if judge:
            return str(body.get("problem", "irregularity"))
        return "An irregularity was recorded for the judge."
    if r.kind in ("call", "judge_call"):
        return "The judge was called to the table."
    if r.kind == "resolve":
        return "The judge settled a call or an irregularity."
    seat = str(body.get("seat", ""))
    if r.kind == "claim":
        return f"The {seat} seat was taken by a device (its join link was opened)."
    if r.kind == "request":
        return f"Another device asked for the {seat} seat."
    if r.kind == "move":
        return (
            f"The {seat} seat moved to the device that asked for it (event {body.get('request')})."
        )
    if r.kind == "ask":
        asked = body.get("asked")
        who = " and ".join(str(a).capitalize() for a in asked) if isinstance(asked, list) else ""
        rule = f" [{body.get('rule')}]" if body.get("rule") else ""
        why = str(body.get("reason") or "an answer is needed").rstrip(". ")
        rule = "" if rule.strip() in why else rule
        return f"The referee waits for {who or 'a player'} to answer: {why}{rule}."
    if r.kind == "reissue":
        return f"The judge issued a new link for the {seat} seat; the old one opens nothing."
    if r.kind == "propose":
        corr = body.get("correction", {})
        what = corr.get("kind") if isinstance(corr, dict) else None
        return f"A correction ({what}) was proposed; it applies when both players approve it."
    if r.kind in ("approve", "decline"):
        return f"Proposal {body.get('proposal')} was {r.kind}d."
    return r.kind.replace("_", " ")


def describe_record(pm: PageModule, r: Record, seat: str) -> dict[str, Any]:
    """One log line for a page: time, who, what (cut for ``seat``; the judge's reasons and
    notes only for the judge). The game's records are worded by its page module ``pm``."""
    judge = seat == "judge"
    body = r.body
    lines = pm.describe_record(r, seat)
    if lines is None:
        lines = [_service_line(r, judge)]
    if judge:
        reason = body.get("reason") or body.get("note")
        if reason and r.kind not in ("irregularity", "ask"):  # an ask's reason is its line
            lines.append(f"Reason: {reason}")
    return {
        "seq": r.seq,
        "time": r.time[11:19] if len(r.time) >= 19 else r.time,
        "stamp": r.time,
        "seat": seat_title(pm, r.seat),
        "kind": r.kind,
        "text": " ".join(lines),
        "hash": r.hash,
    }


def said(receipt: Receipt) -> str:
    """What a receipt's events say, in words ("Recorded." when they say nothing)."""
    return " ".join(page_for(receipt.view).describe_events(receipt.events)) or "Recorded."


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
    return [
        {
            "record": describe_record(pm, Record.from_json(s["record"]), seat),
            "view": s["view"],
            "rules": s["rules"],
        }
        for s in ref.replay(game, seat)
    ]
