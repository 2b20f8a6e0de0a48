"""The service's own records in words for a person (a correction, a call, a question, a seat,
a take-back): the pages' log lines and `referee replay`'s trace say them the same way. What a
game's own records and events say is its module's (``Game.event_text``, the page module's
``describe_record``)."""

from __future__ import annotations

from collections.abc import Sequence

from referee.game import AnyGame, Malformed
from referee.games import game_of
from referee.log import Record
from referee.words import possessive


def title_of(seat: object) -> str:
    """A seat as a person reads it: ``judge`` is "Judge" (never the lowercase id in prose)."""
    return str(seat).capitalize()


def _earlier(records: Sequence[Record], seq: object) -> Record | None:
    """The record at event ``seq`` of ``records`` (a log as its reader holds it, numbered from
    the create record), None when it is not there."""
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < len(records):
        return None
    r = records[seq]
    return r if r.seq == seq else None


def game_of_log(records: Sequence[Record]) -> AnyGame | None:
    """The game ``records`` (a log from its create record on) are of; None when they do not
    say which game."""
    if not records or records[0].kind != "create":
        return None
    try:
        return game_of(records[0].body)
    except Malformed:
        return None


def takeback_cite(records: Sequence[Record]) -> str:
    """The take-back rule of the game of ``records``, cited at the end of a sentence
    (" [RULE]"); "" when they do not say which game."""
    g = game_of_log(records)
    return f" [{g.takeback_rule}]" if g is not None else ""


def whose(seat: str, records: Sequence[Record]) -> str:
    """A seat's possessive in the game of ``records``."""
    g = game_of_log(records)
    return possessive(seat, g.possessives) if g is not None else possessive(seat)


def takeback_of(r: Record, records: Sequence[Record]) -> Record | None:
    """The take-back proposal an ``approve``, ``decline`` or ``undo`` record answers or
    carries out, None for any other record (an undo of the judge's, say)."""
    if r.kind in ("approve", "decline"):
        p = _earlier(records, r.body.get("proposal"))
    elif r.kind == "undo" and r.seq >= 1:
        approved = _earlier(records, r.seq - 1)
        asked = approved.body.get("proposal") if approved and approved.kind == "approve" else None
        p = _earlier(records, asked)
    else:
        return None
    return p if p is not None and p.kind == "propose" and "takeback" in p.body else None


def took_back(r: Record, proposal: Record, records: Sequence[Record]) -> str:
    """An accepted take-back in words: "X took back his last card (Y agreed) [RULE]."."""
    who = proposal.seat
    action = _earlier(records, proposal.body.get("takeback"))
    raw = action.body.get("action") if action is not None else None
    do = raw.get("do") if isinstance(raw, dict) else None
    what = {"play": "card", "draw": "draw"}.get(str(do), "action")
    return (
        f"{title_of(who)} took back {whose(who, records)} last {what} "
        f"({title_of(r.seat)} agreed){takeback_cite(records)}."
    )


def record_words(r: Record, judge: bool = False, records: Sequence[Record] = ()) -> str:
    """A record of the service's own (a correction, a call, a question, a seat), in words for
    a person: the pages' log lines and `referee replay`'s trace. ``judge``: the reader may
    read an irregularity's problem. ``records``: the log as the reader holds it (from the
    create record on), which tells a take-back from the judge's correction."""
    body = r.body
    takeback = takeback_of(r, records)
    if r.kind == "undo":
        if takeback is not None:
            return took_back(r, takeback, records)
        # r.seat: the judge, or the last of both players to approve at a table without a judge
        by = "The judge" if r.seat == "judge" else "The players"
        return f"{by} corrected the record: the game continues after event {body.get('to')}."
    if r.kind == "amend":
        if r.seat != "judge":
            return f"The players corrected the record: event {body.get('event')} was amended."
        return f"The judge corrected the record: event {body.get('event')} was amended."
    if r.kind == "irregularity":
        if judge:
            return str(body.get("problem", "irregularity"))
        return "An irregularity was recorded for the judge."
    if r.kind in ("call", "judge_call"):
        return "The judge was called to the table."
    if r.kind == "resolve":
        return "The judge settled a call or an irregularity."
    seat = title_of(body.get("seat", ""))
    if r.kind == "claim":
        return f"{seat}'s seat was taken by a device (its join link was opened)."
    if r.kind == "request":
        return f"Another device asked for {seat}'s seat."
    if r.kind == "move" and body.get("recovery"):
        return f"{seat}'s seat moved to another device with its recovery code."
    if r.kind == "move":
        return f"{seat}'s seat moved to the device that asked for it (event {body.get('request')})."
    if r.kind == "ask":
        asked = body.get("asked")
        who = " and ".join(title_of(a) for a in asked) if isinstance(asked, list) else ""
        rule = f" [{body.get('rule')}]" if body.get("rule") else ""
        why = str(body.get("reason") or "an answer is needed").rstrip(". ")
        rule = "" if str(body.get("rule")) in why else rule
        return f"The referee waits for {who or 'a player'} to answer: {why}{rule}."
    if r.kind == "reissue":
        return f"The judge gave {seat} a new seat link; the old one opens nothing."
    if r.kind == "propose" and "takeback" in body:
        who = r.seat
        return (
            f"{title_of(who)} asked to take back {whose(who, records)} last action "
            f"(event {body.get('takeback')}){takeback_cite(records)}."
        )
    if r.kind == "propose":
        corr = body.get("correction", {})
        what = corr.get("kind") if isinstance(corr, dict) else None
        words = {"undo": "an undo", "amend": "an amend"}.get(str(what), "a correction")
        return f"{title_of(r.seat)} proposed {words}; it applies when both players approve it."
    if r.kind in ("approve", "decline") and takeback is not None:
        if r.kind == "approve":
            return f"{title_of(r.seat)} agreed to the take-back{takeback_cite(records)}."
        return (
            f"{title_of(r.seat)} declined the take-back: the action stands{takeback_cite(records)}."
        )
    if r.kind == "approve":
        return (
            f"{title_of(r.seat)} approved the correction proposed at event {body.get('proposal')}."
        )
    if r.kind == "decline":
        return (
            f"{title_of(r.seat)} declined the correction proposed at event {body.get('proposal')}."
        )
    return r.kind.replace("_", " ")
