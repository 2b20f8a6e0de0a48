"""The service's own records in words for a person (a correction, a call, a question, a seat,
a take-back): the pages' log lines and `referee replay`'s trace say them the same way. What a
game's own records and events say is its module's (``Game.event_text``, the page module's
``describe_record``)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.say import Say
from referee.game import AnyGame, Malformed
from referee.games import game_of
from referee.log import Record
from referee.words import possessive


def title_of(seat: object) -> str:
    """A seat as a person reads it: ``judge`` is "Judge" (never the lowercase id in prose),
    said in the reader's language (a :class:`Say`); a player's seat is his name (data)."""
    if seat == "judge":
        return Say("Judge")
    if seat == "public":
        return Say("Public")
    return str(seat).capitalize()


def who_and(seats: Sequence[object]) -> Say | str:
    """Seats joined for a sentence: "A", "A and B" (said in the reader's language)."""
    names = [title_of(s) for s in seats]
    if not names:
        return ""
    out: Say | str = names[-1]
    for name in reversed(names[:-1]):
        out = Say("%(first)s and %(second)s", first=name, second=out)
    return out


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


def took_back(r: Record, proposal: Record, records: Sequence[Record]) -> Say:
    """An accepted take-back in words: "X took back his last card (Y agreed) [RULE]."."""
    who = proposal.seat
    action = _earlier(records, proposal.body.get("takeback"))
    raw = action.body.get("action") if action is not None else None
    do = raw.get("do") if isinstance(raw, dict) else None
    values = {
        "who": title_of(who),
        "whose": whose(who, records),  # English's "his"/"her"; the other languages need none
        "other": title_of(r.seat),
        "rule": takeback_cite(records),
    }
    if do == "play":
        return Say("%(who)s took back %(whose)s last card (%(other)s agreed)%(rule)s.", **values)
    if do == "draw":
        return Say("%(who)s took back %(whose)s last draw (%(other)s agreed)%(rule)s.", **values)
    return Say("%(who)s took back %(whose)s last action (%(other)s agreed)%(rule)s.", **values)


def record_words(r: Record, judge: bool = False, records: Sequence[Record] = ()) -> str:
    """A record of the service's own (a correction, a call, a question, a seat), in words for
    a person: the pages' log lines and `referee replay`'s trace. ``judge``: the reader may
    read an irregularity's problem. ``records``: the log as the reader holds it (from the
    create record on), which tells a take-back from the judge's correction. The words are a
    :class:`Say` (English as a string; said in the reader's language by the pages)."""
    body = r.body
    takeback = takeback_of(r, records)
    by = title_of(r.seat)
    if r.kind == "undo":
        if takeback is not None:
            return took_back(r, takeback, records)
        # r.seat: the judge, or the last of both players to approve at a table without a judge
        if r.seat == "judge":
            return Say(
                "The judge corrected the record: the game continues after event %(event)s.",
                event=body.get("to"),
            )
        return Say(
            "The players corrected the record: the game continues after event %(event)s.",
            event=body.get("to"),
        )
    if r.kind == "amend":
        if r.seat != "judge":
            return Say(
                "The players corrected the record: event %(event)s was amended.",
                event=body.get("event"),
            )
        return Say(
            "The judge corrected the record: event %(event)s was amended.", event=body.get("event")
        )
    if r.kind == "irregularity":
        if judge:
            problem = body.get("problem")
            return Say("irregularity") if problem is None else str(problem)
        return Say("An irregularity was recorded for the judge.")
    if r.kind in ("call", "judge_call"):
        return Say("The judge was called to the table.")
    if r.kind == "resolve":
        return Say("The judge settled a call or an irregularity.")
    seat = title_of(body.get("seat", ""))
    if r.kind == "claim":
        return Say("%(seat)s's seat was taken by a device (its join link was opened).", seat=seat)
    if r.kind == "request":
        return Say("Another device asked for %(seat)s's seat.", seat=seat)
    if r.kind == "move" and body.get("recovery"):
        return Say("%(seat)s's seat moved to another device with its recovery code.", seat=seat)
    if r.kind == "move":
        return Say(
            "%(seat)s's seat moved to the device that asked for it (event %(event)s).",
            seat=seat,
            event=body.get("request"),
        )
    if r.kind == "ask":
        asked = body.get("asked")
        who = who_and(asked) if isinstance(asked, list) else ""
        rule = f" [{body.get('rule')}]" if body.get("rule") else ""
        # the reason as the log keeps it (plain words: the record stores text, not a Say)
        why = str(body.get("reason") or "").rstrip(". ")
        rule = "" if str(body.get("rule")) in (why or "an answer is needed") else rule
        values = {"who": who or Say("a player"), "rule": rule}
        if not why:
            return Say(
                "The referee waits for %(who)s to answer: an answer is needed%(rule)s.", **values
            )
        return Say("The referee waits for %(who)s to answer: %(why)s%(rule)s.", why=why, **values)
    if r.kind == "reissue":
        return Say("The judge gave %(seat)s a new seat link; the old one opens nothing.", seat=seat)
    if r.kind == "propose" and "takeback" in body:
        return Say(
            "%(who)s asked to take back %(whose)s last action (event %(event)s)%(rule)s.",
            who=by,
            whose=whose(r.seat, records),
            event=body.get("takeback"),
            rule=takeback_cite(records),
        )
    if r.kind == "propose":
        corr = body.get("correction", {})
        what = corr.get("kind") if isinstance(corr, dict) else None
        if what == "undo":
            return Say("%(who)s proposed an undo; it applies when both players approve it.", who=by)
        if what == "amend":
            return Say(
                "%(who)s proposed an amend; it applies when both players approve it.", who=by
            )
        return Say(
            "%(who)s proposed a correction; it applies when both players approve it.", who=by
        )
    if r.kind in ("approve", "decline") and takeback is not None:
        if r.kind == "approve":
            return Say(
                "%(who)s agreed to the take-back%(rule)s.", who=by, rule=takeback_cite(records)
            )
        return Say(
            "%(who)s declined the take-back: the action stands%(rule)s.",
            who=by,
            rule=takeback_cite(records),
        )
    if r.kind == "approve":
        return Say(
            "%(who)s approved the correction proposed at event %(event)s.",
            who=by,
            event=body.get("proposal"),
        )
    if r.kind == "decline":
        return Say(
            "%(who)s declined the correction proposed at event %(event)s.",
            who=by,
            event=body.get("proposal"),
        )
    return r.kind.replace("_", " ")
