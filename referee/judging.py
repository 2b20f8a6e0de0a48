"""Judging: calls to the judge, and the judge's tools (settle, undo, amend, ruling, reissue).

Corrections are records: nothing is ever deleted from the log. The judge's reasons and notes
are sealed from the players (they see that a correction happened); a player's note to the
judge is sealed from the other player.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from referee.errors import Forbidden, Refused
from referee.fold import Folded
from referee.game import Malformed, Missing, RuleError
from referee.log import Record
from referee.models import RulingResult
from referee.reading import Reading, short
from referee.repository import Draft, Repository
from referee.tables import Tables
from referee.validate import InputError, integer, mapping, text
from referee.views import redact


class Judging:
    """Calls, settling, corrections, rulings and new join codes."""

    def __init__(self, repo: Repository, reading: Reading, tables: Tables) -> None:
        self.repo = repo
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
        with self.repo.lock(game):

            def build(f: Folded) -> list[Draft]:
                if seat not in f.module.players:
                    raise Forbidden("only a player calls the judge")
                return [Draft(seat, "call", {"note": note})]

            recs, after = self.repo.write(game, build)
        return redact(recs[0], seat, after.module)

    def resolve(self, game: str, seat: str, event: int, note: str) -> Record:
        """The judge settles an open irregularity or judge call (the note stays with her)."""
        self.reading.judge_of(game, seat)
        try:
            integer(event, "event", 0, 10**9)
            note = text(note, "note")
        except InputError as e:
            raise Refused(str(e)) from None
        with self.repo.lock(game):

            def build(f: Folded) -> list[Draft]:
                if event not in {r.seq for r in f.open_items()}:
                    raise Refused(f"event {event} is not an open irregularity or judge call")
                return [Draft(seat, "resolve", {"event": event, "note": note})]

            recs, _ = self.repo.write(game, build)
        return recs[0]

    def undo(self, game: str, seat: str, to: int, reason: str) -> Record:
        """The game continues from the state after event ``to``; nothing is deleted. The reason
        is shown to the judge only; players see that a correction happened."""
        self.reading.judge_of(game, seat)
        try:
            integer(to, "to", 0, 10**9)
            reason = text(reason, "reason")
        except InputError as e:
            raise Refused(f"{e}; a correction needs an event and a reason") from None
        with self.repo.lock(game):

            def build(f: Folded) -> list[Draft]:
                if not 0 <= to <= f.last_seq:
                    raise Refused(f"no event {to} (the log ends at {f.last_seq})")
                return [Draft(seat, "undo", {"to": to, "reason": reason})]

            recs, _ = self.repo.write(game, build)
        return recs[0]

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
            raise Refused(f"{e}; a correction needs an event, an action and a reason") from None
        with self.repo.lock(game):

            def build(f: Folded) -> list[Draft]:
                g = f.module
                try:
                    action = g.parse_action(action_raw, "action")
                except Malformed as e:
                    raise Refused(e.reason) from None
                target = self.repo.records(game, after=event - 1, upto=event)
                if not target or target[0].kind != "action":
                    raise Refused(f"event {event} is not an action")
                if not any(s == event for s, _ in (*f.ops, *f.suspended)):
                    raise Refused(
                        f"event {event} is no longer in effect: a judge's undo dropped it"
                    )
                try:
                    g.check(f.state_at(event - 1), action)
                except RuleError as e:
                    raise Refused(f"the amended action is not legal there: {e.reason}") from None
                body = {
                    "event": event,
                    "action": g.action_json(action),
                    "actor": target[0].body.get("actor"),
                    "reason": reason,
                }
                return [Draft(seat, "amend", body)]

            recs, _ = self.repo.write(game, build)
        return recs[0]

    def ruling(
        self, game: str, seat: str, raw: Mapping[str, Any], at: int | None = None
    ) -> RulingResult:
        """The ruling on an action posed on the position after event ``at`` (default: now),
        with its sources and what the other profiles rule; the game is not changed."""
        self.reading.judge_of(game, seat)
        try:
            action_raw = dict(mapping(raw, "action"))
            if at is not None:
                integer(at, "at", 0, 10**9)
        except InputError as e:
            raise Refused(str(e)) from None
        f = self.repo.folded(game)
        g = f.module
        st = f.state if at is None else f.state_at(at)
        if not g.in_play(st):
            raise Refused("the ruling tool poses actions on a position in play, not in setup")
        try:
            action = g.parse_action(action_raw, "action")
            return cast(RulingResult, g.ruling(st, action))
        except Missing as e:
            raise Refused(e.reason, e.rule) from None
        except RuleError as e:
            raise Refused(e.reason) from None

    def reissue(self, game: str, seat: str, target: str) -> str:
        """Revokes ``target``'s join code and returns a new one (a lost phone). Judge only; the
        reissue is recorded (without the code)."""
        self.reading.judge_of(game, seat)
        f = self.repo.folded(game)
        if target not in (*f.module.players, "judge"):
            who = ", ".join(f.module.players)
            raise Refused(f"seat {short(target)!r} has no join code ({who} or judge)")
        code, stored = self.tables.new_code()
        with self.repo.lock(game):
            self.repo.write(
                game, lambda f: [Draft(seat, "reissue", {"seat": target})], {target: stored}
            )
        return code
