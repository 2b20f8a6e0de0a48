"""Judging: calls to the judge, and the judge's tools (settle, undo, amend, ruling, reissue,
a seat moved to another device); at a table without a judge, corrections both players approve.

Corrections are records: nothing is ever deleted from the log. The judge's reasons and notes
are sealed from the players (they see that a correction happened); a player's note to the
judge is sealed from the other player.

**A table without a judge** (created with ``judged=False``): a player *proposes* an undo or an
amend (a ``propose`` record), the other player *approves* it (an ``approve`` record, followed
in the same transaction by the ``undo`` or ``amend`` itself) or *declines* it (``decline``).
A seat request there is approved by the other player (``move``). At a judged table only the
judge corrects and moves seats.

**A take-back** (the game's ``takeback_rule``, any table): a player asks to take back his own
last action while the opponent has not acted since (a ``propose`` record of an undo, marked
``takeback``); the other
player accepts (``approve``, then the ``undo`` in the same transaction) or declines
(``decline``). It lapses when anyone acts. An action that turned up a card hidden from its
player (the game says which: ``Game.take_back_refusal``) or that a question completed stands
(the game's ``answered_rule``): only the judge corrects it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.say import Say
from referee.errors import Forbidden, Refused
from referee.fold import Folded
from referee.game import AnyGame, Malformed, Missing, RuleError
from referee.ledger import Draft, Ledger
from referee.log import Record
from referee.models import Ruling
from referee.reader import Reader
from referee.reading import Reading, short
from referee.tables import (
    DEVICE,
    LINEAGE,
    PENDING,
    PENDING_LINEAGE,
    RECOVERY,
    REPLACED,
    ROTATION,
    Tables,
    is_judged,
)
from referee.validate import InputError, integer, mapping, text
from referee.views import JUDGE, redact


class Judging:
    """Calls, settling, corrections, rulings and new join codes."""

    def __init__(self, ledger: Ledger, reader: Reader, reading: Reading, tables: Tables) -> None:
        self.ledger = ledger
        self.reader = reader
        self.reading = reading
        self.tables = tables

    def call_judge(self, game: str, seat: str, note: str = "") -> Record:
        """A player calls the judge to the table (the note is for the judge). Returns the record
        as the caller may read it."""
        self.reading.seat_of(game, seat)
        try:
            note = text(note, "note", required=False)
        except InputError as e:
            raise Refused(str(e)) from None
        with self.ledger.lock(game):

            def build(f: Folded) -> list[Draft]:
                if seat not in f.module.players:
                    raise Forbidden(Say("only a player calls the judge"))
                return [Draft(seat, "call", {"note": note})]

            recs, after = self.ledger.write(game, build)
        return redact(recs[0], seat, after.module)

    def resolve(self, game: str, seat: str, event: int, note: str) -> Record:
        """The judge settles an open irregularity or judge call (the note stays with her)."""
        self.reading.judge_of(game, seat)
        try:
            integer(event, "event", 0, 10**9)
            note = text(note, "note")
        except InputError as e:
            raise Refused(str(e)) from None
        with self.ledger.lock(game):

            def build(f: Folded) -> list[Draft]:
                if event not in {r.seq for r in f.open_items()}:
                    raise Refused(
                        Say(
                            "event %(event)s is not an open irregularity or judge call", event=event
                        )
                    )
                held = next((s for s, r in f.held.items() if r.seq == event), None)
                if held is not None:
                    raise Refused(
                        Say(
                            "event %(event)s holds the %(seat)s seat (two devices used its "
                            "key): settle it with a new link for %(seat)s (reissue) or by "
                            "moving the seat to one device's request; that closes it",
                            event=event,
                            seat=held,
                        )
                    )
                return [Draft(seat, "resolve", {"event": event, "note": note})]

            recs, _ = self.ledger.write(game, build)
        return recs[0]

    def undo(self, game: str, seat: str, to: int, reason: str) -> Record:
        """The game continues from the state after event ``to``; nothing is deleted. The reason
        is shown to the judge only; players see that a correction happened."""
        self.reading.judge_of(game, seat)
        try:
            integer(to, "to", 0, 10**9)
            reason = text(reason, "reason")
        except InputError as e:
            raise Refused(
                Say("%(problem)s; a correction needs an event and a reason", problem=_why(e))
            ) from None
        with self.ledger.lock(game):
            recs, _ = self.ledger.write(
                game, lambda f: [Draft(seat, "undo", self._undo_body(f, to, reason))]
            )
        return recs[0]

    def _undo_body(self, f: Folded, to: int, reason: str) -> dict[str, Any]:
        if not 0 <= to <= f.last_seq:
            raise Refused(
                Say("no event %(event)s (the log ends at %(last)s)", event=to, last=f.last_seq)
            )
        if not changes_anything(f, to):
            raise Refused(
                Say(
                    "an undo to event %(event)s changes nothing: no action after it is in "
                    "effect, so the game would continue from the position it is in now; choose "
                    "the event before the action to take back",
                    event=to,
                ),
                f.module.undo_rule,
            )
        return {"to": to, "reason": reason}

    def amend(
        self, game: str, seat: str, event: int, raw: Mapping[str, Any], reason: str
    ) -> Record:
        """Replaces the action of event ``event`` (e.g. a card identity) and replays after it."""
        self.reading.judge_of(game, seat)
        try:
            integer(event, "event", 0, 10**9)
            action_raw = dict(mapping(raw, "action"))
            reason = text(reason, "reason")
        except InputError as e:
            raise Refused(
                Say(
                    "%(problem)s; a correction needs an event, an action and a reason",
                    problem=_why(e),
                )
            ) from None
        with self.ledger.lock(game):

            def build(f: Folded) -> list[Draft]:
                return [Draft(seat, "amend", self._amend_body(f, event, action_raw, reason))]

            recs, _ = self.ledger.write(game, build)
        return recs[0]

    def _amend_body(
        self, f: Folded, event: int, action_raw: Mapping[str, Any], reason: str
    ) -> dict[str, Any]:
        g = f.module
        try:
            action = g.parse_action(action_raw, "action")
        except Malformed as e:
            raise Refused(e.reason) from None
        target = self.reader.records(f.game, after=event - 1, upto=event)
        if not target or target[0].kind != "action":
            raise Refused(Say("event %(event)s is not an action", event=event))
        if not any(s == event for s, _ in (*f.ops, *f.suspended)):
            raise Refused(
                Say(
                    "event %(event)s is no longer in effect: a judge's undo dropped it", event=event
                )
            )
        try:
            g.check(f.state_at(event - 1), action)
        except RuleError as e:
            raise Refused(
                Say("the amended action is not legal there: %(reason)s", reason=e.reason)
            ) from None
        return {
            "event": event,
            "action": g.action_json(action),
            "actor": target[0].body.get("actor"),
            "reason": reason,
        }

    def ruling(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        at: int | None = None,
        lang: str = "en",
    ) -> Ruling[Any]:
        """The ruling on an action posed on the position after event ``at`` (default: now),
        with its sources and what the other profiles rule, its words in ``lang``; the game is
        not changed."""
        self.reading.judge_of(game, seat)
        try:
            action_raw = dict(mapping(raw, "action"))
            if at is not None:
                integer(at, "at", 0, 10**9)
        except InputError as e:
            raise Refused(str(e)) from None
        f = self.reader.folded(game)
        return rule_on(f.module, f.state if at is None else f.state_at(at), action_raw, lang)

    def reissue(self, game: str, seat: str, target: str) -> str:
        """Revokes player ``target``'s join code and returns a new one (a lost phone, a leaked
        link); the seat is free again, for the first device that opens the new link. Judge
        only; the reissue is recorded (without the code). A game has no judge's code to
        reissue (the server's judge judges it)."""
        self.reading.judge_of(game, seat)
        f = self.reader.folded(game)
        if target not in f.module.players:
            raise Refused(
                Say(
                    "seat %(seat)s has no join code (%(seats)s)",
                    seat=repr(short(target)),
                    seats=_either(list(f.module.players)),
                )
            )
        code, stored = self.tables.new_code()
        with self.ledger.lock(game):
            self.ledger.write(
                game,
                lambda f: [Draft(seat, "reissue", {"seat": target})],
                {
                    target: stored,
                    f"{DEVICE}{target}": "",
                    f"{LINEAGE}{target}": "",
                    f"{ROTATION}{target}": "",
                    **self._replaced(game, target),
                },
            )
        return code

    def _replaced(self, game: str, target: str) -> dict[str, str]:
        """The secret that lets the device holding ``target`` now be told, later, that its
        token was replaced (nothing when no device holds the seat)."""
        held = self.reader.secrets(game).get(f"{DEVICE}{target}", "")
        return {f"{REPLACED}{held}": target} if held else {}

    # ---- seats moved to another device -------------------------------------------------

    def approve_seat(self, game: str, seat: str, request: int) -> Record:
        """Gives a seat to the device that requested it (event ``request``): the judge's to
        approve, or at a table without a judge the device's holding that seat (never the other
        player's: the seat's hand would be his to read; a lost phone is settled with the seat's
        recovery code, :meth:`referee.tables.Tables.recover`). The device holding the seat
        until now holds nothing any more. Raises Forbidden, Refused."""
        self.reading.seat_of(game, seat)
        try:
            integer(request, "request", 0, 10**9)
        except InputError as e:
            raise Refused(str(e)) from None
        with self.ledger.lock(game):
            f0 = self.reader.folded(game)
            asked = f0.requests.get(request)
            if asked is None:
                raise Refused(
                    Say("event %(event)s is not an open request for a seat", event=request)
                )
            target = str(asked.body.get("seat"))
            device = str(asked.body.get("device"))
            if is_judged(f0.create):
                if seat != "judge":
                    raise Forbidden(Say("the judge approves a seat's move to another device"))
            elif seat != target:
                # the other player's approval never moves a seat: he would read the hand
                raise Forbidden(
                    Say(
                        "at a table without a judge, only the device holding the %(seat)s seat "
                        "approves its move (or the seat's recovery code moves it); the other "
                        "player's approval never moves a seat",
                        seat=target,
                    )
                )
            stored = self.reader.secrets(game)
            pending = stored.get(f"{PENDING}{device}", "")
            lineage = stored.get(f"{PENDING_LINEAGE}{device}", "")

            def build(f: Folded) -> list[Draft]:
                if request not in f.requests:
                    raise Refused(
                        Say("event %(event)s is not an open request for a seat", event=request)
                    )
                body = {"seat": target, "device": device, "request": request}
                return [Draft(seat, "move", body)]

            secrets = {
                f"{DEVICE}{target}": pending,
                f"{LINEAGE}{target}": lineage,
                f"{ROTATION}{target}": "",
                f"{PENDING}{device}": "",
                f"{PENDING_LINEAGE}{device}": "",
                **self._replaced(game, target),
            }
            if not is_judged(f0.create):
                # the old recovery code stops working with the move (the device that approved
                # it saw the code): the new holder is given a new one on its next page
                # (Tables.issue_recovery; issue 31 item 1)
                secrets[f"{RECOVERY}{target}"] = ""
            recs, _ = self.ledger.write(game, build, secrets, fresh=f0)
        return recs[0]

    # ---- corrections at a table without a judge ------------------------------------------

    def _player_at_unjudged(self, f: Folded, seat: str) -> None:
        if is_judged(f.create):
            raise Forbidden(Say("the judge makes corrections at this table: call the judge"))
        if seat not in f.module.players:
            raise Forbidden(Say("at a table without a judge, the players make corrections"))

    def propose(self, game: str, seat: str, correction: Mapping[str, Any]) -> Record:
        """A player proposes a correction (``{"kind": "undo", "to", "reason"}`` or ``{"kind":
        "amend", "event", "action", "reason"}``) at a table without a judge; it applies when
        the other player approves it. Raises Forbidden at a judged table, Refused for a
        correction that would be refused to the judge."""
        self.reading.seat_of(game, seat)
        try:
            c = mapping(correction, "correction")
            kind = c.get("kind")
            if kind not in ("undo", "amend"):
                raise InputError(Say("correction.kind: 'undo' or 'amend'"))
            reason = text(c.get("reason", ""), "reason")
            number = integer(c.get("to" if kind == "undo" else "event"), "event", 0, 10**9)
            raw = dict(mapping(c.get("action"), "action")) if kind == "amend" else {}
        except InputError as e:
            raise Refused(
                Say("%(problem)s; a correction needs an event and a reason", problem=_why(e))
            ) from None
        with self.ledger.lock(game):

            def build(f: Folded) -> list[Draft]:
                self._player_at_unjudged(f, seat)
                if kind == "undo":
                    body = self._undo_body(f, number, reason)
                else:
                    body = self._amend_body(f, number, raw, reason)
                return [Draft(seat, "propose", {"correction": {"kind": kind, **body}})]

            recs, after = self.ledger.write(game, build)
        return redact(recs[0], seat, after.module)

    def take_back_refusal(self, f: Folded, seat: str) -> tuple[Record | None, str | None]:
        """The action ``seat`` may take back now, or why not (the game's take-back rule)."""
        g = f.module
        if seat not in g.players:
            return None, Say("only a player takes back his own action")
        if f.question is not None:
            return (
                None,
                Say(
                    "an action waiting for an answer stands (%(rule)s); call the judge",
                    rule=g.answered_rule,
                ),
            )
        last = f.last_move  # kept by the fold: the whole log is not read again
        if last is None or last.kind != "action":
            return None, Say("there is no action of yours to take back since the last correction")
        action = last.body.get("action")
        if last.seat != seat or last.body.get("actor") != seat or not isinstance(action, dict):
            return None, Say("only your own last action, before your opponent acts, is taken back")
        why = g.take_back_refusal(action)
        if why is not None:
            return None, why
        return last, None

    def take_back(self, game: str, seat: str) -> Record:
        """Asks to take back ``seat``'s own last action (the game's take-back rule): a
        take-back proposal the other player accepts or declines. Raises Forbidden, Refused
        (naming that rule)."""
        self.reading.seat_of(game, seat)
        with self.ledger.lock(game):

            def build(f: Folded) -> list[Draft]:
                last, why = self.take_back_refusal(f, seat)
                if last is None:
                    raise Refused(Say("no take-back: %(why)s", why=why), f.module.takeback_rule)
                body = {"kind": "undo", "to": last.seq - 1, "reason": "take-back"}
                return [Draft(seat, "propose", {"correction": body, "takeback": last.seq})]

            recs, after = self.ledger.write(game, build)
        return redact(recs[0], seat, after.module)

    def approve(self, game: str, seat: str, proposal: int, agree: bool = True) -> list[Record]:
        """The other player approves (or, ``agree=False``, declines) an open proposal. Once
        every player approved, its correction is written in the same transaction. Returns the
        records written, as ``seat`` may read them. Raises Forbidden, Refused."""
        self.reading.seat_of(game, seat)
        try:
            integer(proposal, "proposal", 0, 10**9)
        except InputError as e:
            raise Refused(str(e)) from None
        with self.ledger.lock(game):

            def build(f: Folded) -> list[Draft]:
                p = f.proposals.get(proposal)
                if p is None:  # never made, settled, or lapsed when the table moved on
                    raise Refused(Say("event %(event)s is not an open proposal", event=proposal))
                if "takeback" in p.body:
                    if seat not in f.module.players or seat == p.seat:
                        raise Forbidden(Say("the other player accepts or declines a take-back"))
                else:
                    self._player_at_unjudged(f, seat)
                if not agree:
                    return [Draft(seat, "decline", {"proposal": proposal})]
                if seat in f.approvals.get(proposal, ()):
                    raise Refused(Say("you approved proposal %(event)s already", event=proposal))
                out = [Draft(seat, "approve", {"proposal": proposal})]
                done = set(f.approvals.get(proposal, ())) | {seat}
                if done >= set(f.module.players):
                    corr = dict(p.body["correction"])
                    kind = corr.pop("kind")
                    out.append(Draft(seat, str(kind), corr))
                return out

            recs, after = self.ledger.write(game, build)
        return [redact(r, seat, after.module) for r in recs]


def _why(e: Exception) -> str:
    """An error's sentence as it came (a Say it carries stays one, to be said again)."""
    return e.args[0] if e.args and isinstance(e.args[0], str) else str(e)


def _either(seats: list[str]) -> str:
    """Seats named as alternatives: "one or the other" (a Say per pair)."""
    out = seats[0] if seats else ""
    for s in seats[1:]:
        out = Say("%(first)s or %(second)s", first=out, second=s)
    return out


def changes_anything(f: Folded, to: int) -> bool:
    """Whether continuing from the position after event ``to`` changes the game (the game's
    ``undo_rule``): an
    action or a card's identity in effect after it, one kept aside by a broken replay, an open
    question (a correction withdraws it) or a record held broken."""
    return (
        f.question is not None
        or f.broken is not None
        or any(seq > to for seq, _ in (*f.ops, *f.suspended))
    )


def rule_on(
    g: AnyGame, st: Any, action_raw: dict[str, Any], lang: str, seat: str = JUDGE
) -> Ruling[Any]:
    """The ruling on ``action_raw`` posed on the position ``st``, on the table as ``seat``
    knew it (the judge: all of it), its words in ``lang``; nothing is written. Raises Refused
    (a position not in play, an action that does not read, or one that needs a value hidden
    from the seat, with its rule)."""
    if not g.in_play(st):
        raise Refused(Say("the ruling tool poses actions on a position in play, not in setup"))
    if seat != JUDGE:
        st = g.project(st, seat)  # only what he knew then
    try:
        action = g.parse_action(action_raw, "action")
        return g.ruling(st, action, lang)
    except Missing as e:
        raise Refused(e.reason, e.rule) from None
    except RuleError as e:
        raise Refused(e.reason) from None
