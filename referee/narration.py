"""The service's own records in words for a person (a correction, a call, a question, a seat,
a take-back): the pages' log lines and `referee replay`'s trace say them the same way. What a
game's own records and events say is its module's (``Game.event_text``, the page module's
``describe_record``)."""

from __future__ import annotations

from referee.log import Record


def record_words(r: Record, judge: bool = False) -> str:
    """A record of the service's own (a correction, a call, a question, a seat), in words for
    a person: the pages' log lines and `referee replay`'s trace. ``judge``: the reader may
    read an irregularity's problem."""
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
    if r.kind == "move" and body.get("recovery"):
        return f"The {seat} seat moved to another device with its recovery code."
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
    if r.kind == "propose" and "takeback" in body:
        who = r.seat.capitalize()
        return f"{who} asked to take back event {body.get('takeback')} (HZ-P14)."
    if r.kind == "propose":
        corr = body.get("correction", {})
        what = corr.get("kind") if isinstance(corr, dict) else None
        return f"A correction ({what}) was proposed; it applies when both players approve it."
    if r.kind in ("approve", "decline"):
        return f"Proposal {body.get('proposal')} was {r.kind}d."
    return r.kind.replace("_", " ")
