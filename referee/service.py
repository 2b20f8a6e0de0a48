"""The referee service: runs games for a physical table, from setup to result.

One :class:`Referee` serves many games over one :class:`~referee.store.Store`. Every change is a
log record appended durably before it is acknowledged; the state is a fold over the log
(:mod:`referee.fold`). Each seat reads only what it may see (:mod:`referee.views`), errors
included: a submission that contradicts what is recorded about cards hidden from the submitter
is not explained to him; it becomes an irregularity for the judge (D20).

Errors (all :class:`ServiceError`): ``NotFound``, ``Forbidden`` (seat may not do that),
``Refused`` (illegal or malformed; carries the rule), ``Stale`` (sequence or key already used),
``NeedsInput`` (an identity or choice is missing; says from whom).
"""

from __future__ import annotations

import json
import secrets as _secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from engine import (
    RULES,
    Action,
    IllegalActionError,
    NeedsInputError,
    NotationError,
    Player,
    apply,
    check,
    legal_actions,
    parse_action,
)
from engine.actions import Deal, DeclareStuck, FirstRow, Redraw, Starter
from engine.game import parse_card_name
from engine.state import Phase
from referee.fold import Folded, FoldError, fold, patch_from_body, ruleset_from_create, step
from referee.log import GENESIS, Record, verify
from referee.store import Conflict, Store
from referee.views import PLAYER_SEATS, SEATS, legal_for, redact, view_for


class ServiceError(Exception):
    """Base of the service's refusals. ``rule`` is the deciding rule id, when one applies."""

    status = 400

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": type(self).__name__, "message": self.message}
        if self.rule:
            out["rule"] = self.rule
        return out


class NotFound(ServiceError):
    status = 404


class Forbidden(ServiceError):
    status = 403


class Refused(ServiceError):
    status = 422


class Stale(ServiceError):
    status = 409

    def __init__(self, message: str, existing_seq: int | None = None) -> None:
        super().__init__(message)
        self.existing_seq = existing_seq


class NeedsInput(ServiceError):
    status = 202

    def __init__(self, message: str, rule: str, needs: str, asked: tuple[str, ...]) -> None:
        super().__init__(message, rule)
        self.needs = needs
        self.asked = asked

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update(needs=self.needs, asked=list(self.asked))
        return out


class Clock(Protocol):
    def now(self) -> str: ...


class SystemClock:
    def now(self) -> str:
        return datetime.now(UTC).isoformat(timespec="microseconds")


class FixedClock:
    """A clock for tests: starts at a fixed instant and ticks one second per reading."""

    def __init__(self, start: str = "2026-01-01T00:00:00+00:00") -> None:
        self._t = datetime.fromisoformat(start)
        self._n = 0

    def now(self) -> str:
        from datetime import timedelta

        self._n += 1
        return (self._t + timedelta(seconds=self._n)).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Created:
    game: str
    codes: dict[str, str]  # seat -> secret join code (hera, zeus, judge)


@dataclass(frozen=True)
class Receipt:
    """What a submitter gets back: the event number, its events as he may see them, the view."""

    seq: int
    events: list[dict[str, Any]]
    view: dict[str, Any]
    rules: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "events": self.events,
            "rules": self.rules,
            "notes": self.notes,
            "view": self.view,
        }


@dataclass
class Pending:
    """An action waiting for an input only another seat can give (D20)."""

    seat: str
    action: dict[str, Any]
    needs: str
    asked: tuple[str, ...]
    key: str | None


def _set_path(raw: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    cur = raw
    for p in parts[:-1]:
        nxt = cur.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[p] = nxt
        cur = nxt
    cur[parts[-1]] = value


def _settled(f: Folded) -> None:
    """Raises Refused while a correction has left the record broken: nothing more is recorded
    on it until the judge settles it (an undo, or an amend of the event that no longer applies).
    """
    if f.broken is not None:
        raise Refused(
            "the record is held: after a correction an earlier event no longer applies; the "
            "judge must settle it first (undo, or amend that event)"
        )


class Referee:
    """Games, seats and the log over one store. Thread-safe: one lock per game."""

    def __init__(
        self, store: Store, clock: Clock | None = None, token: Callable[[], str] | None = None
    ) -> None:
        self.store = store
        self.clock = clock or SystemClock()
        self.token = token or (lambda: _secrets.token_urlsafe(16))
        self._locks: dict[str, threading.Lock] = {}
        self._cache: dict[str, Folded] = {}
        self._pending: dict[str, Pending] = {}
        self._guard = threading.Lock()

    # ---- plumbing ------------------------------------------------------------------------

    def _lock(self, game: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(game, threading.Lock())

    def folded(self, game: str) -> Folded:
        f = self._cache.get(game)
        if f is None:
            records = self.store.records(game)
            if not records:
                raise NotFound(f"no game {game!r}")
            try:
                f = fold(records)
            except FoldError as e:
                raise ServiceError(f"game {game!r} cannot be replayed: {e}") from None
            self._cache[game] = f
        return f

    def _append(
        self,
        game: str,
        seat: str,
        kind: str,
        body: Mapping[str, Any],
        events: tuple[Mapping[str, Any], ...] = (),
        key: str | None = None,
    ) -> Record:
        f = self._cache.get(game)
        last_seq, last_hash = (f.last_seq, f.last_hash) if f else (-1, GENESIS)
        if f is None and kind != "create":
            f = self.folded(game)
            last_seq, last_hash = f.last_seq, f.last_hash
        rec = Record(
            game,
            last_seq + 1,
            self.clock.now(),
            seat,
            kind,
            dict(body),
            events,
            key,
            last_hash,
            "",
            self.token(),
        ).sealed()
        try:
            self.store.append(rec)
        except Conflict as e:
            self._cache.pop(game, None)
            raise Stale(str(e), e.existing.seq if e.existing else None) from None
        cached = self._cache.get(game)
        if cached is not None:
            try:
                step(cached, rec)
            except FoldError:
                self._cache.pop(game, None)
        return rec

    # ---- games ---------------------------------------------------------------------------

    def create_game(
        self,
        *,
        profile: str = "rio-grande",
        switches: Mapping[str, str] | None = None,
        players: Mapping[str, str] | None = None,
        starting: str | None = None,
        catalogue: Mapping[str, Any] | None = None,
        game: str | None = None,
    ) -> Created:
        """Starts a game in setup. Raises Refused for a bad profile, switch, player or kit."""
        body: dict[str, Any] = {
            "profile": profile,
            "switches": dict(switches or {}),
            "players": {"hera": "Hera", "zeus": "Zeus", **dict(players or {})},
        }
        if catalogue:
            body["catalogue"] = dict(catalogue)
        try:
            rs = ruleset_from_create(body)
        except NotationError as e:
            raise Refused(str(e)) from None
        if starting is not None:
            try:
                st = Player.parse(starting)
            except ValueError as e:
                raise Refused(str(e), "D19") from None
            fixed = rs.fixed_starting_player()
            if fixed is not None and st is not fixed:
                raise Refused(f"under the {profile} profile {fixed.title} always starts", "D19")
        gid = game or self.token()[:10]
        if self.store.records(gid, 0):
            raise Refused(f"game {gid!r} exists already")
        codes = {s: self.token() for s in ("hera", "zeus", "judge")}
        for s, c in codes.items():  # codes first: a crash after them leaves no unjoinable game
            self.store.put_secret(gid, s, c)
        self._append(gid, "system", "create", body)
        fixed = rs.fixed_starting_player()
        first = starting or (fixed.key if fixed else "hera")  # D19: Hera by default
        self.submit(gid, "judge", {"do": "starter", "player": first})
        return Created(gid, codes)

    def seat_for_code(self, game: str, code: str) -> str:
        """The seat a join code opens; anyone without one is the public."""
        for seat, c in self.store.secrets(game).items():
            if _secrets.compare_digest(c, code):
                return seat
        return "public"

    def games(self) -> list[str]:
        return self.store.games()

    # ---- reading -------------------------------------------------------------------------

    def view(self, game: str, seat: str) -> dict[str, Any]:
        """The table as ``seat`` sees it, with its legal actions when it is to act."""
        if seat not in SEATS:
            raise Forbidden(f"unknown seat {seat!r}")
        f = self.folded(game)
        st = f.state
        out = view_for(st, seat)
        out["game"] = game
        out["seq"] = f.last_seq
        out["players"] = dict(f.create.get("players", {}))
        if st.phase is Phase.PLAY and seat in (st.player.key, "judge"):
            out["legal"] = legal_for(legal_actions(st), seat)
        pend = self._pending.get(game)
        if pend is not None and (seat in pend.asked or seat == "judge"):
            out["asked"] = {"needs": pend.needs, "by": pend.seat}
        if seat == "judge":
            out["irregularities"] = [r.to_json() for r in f.irregularities]
            out["broken"] = f.broken
        return out

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]:
        """The game's records as ``seat`` may read them."""
        if seat not in SEATS:
            raise Forbidden(f"unknown seat {seat!r}")
        records = self.store.records(game, upto)
        if not records:
            raise NotFound(f"no game {game!r}")
        return [redact(r, seat) for r in records]

    def export(self, game: str, seat: str) -> str:
        """JSON lines: the whole log for the judge, a redacted one for anyone else."""
        return "".join(r.to_line() + "\n" for r in self.log(game, seat))

    def import_log(self, lines: list[Record]) -> str:
        """Stores a complete, verified log (a judge's export). Raises Refused otherwise."""
        v = verify(lines)
        if not v.ok:
            raise Refused(f"the log does not verify: {v.message()}")
        try:
            fold(lines)
        except FoldError as e:
            raise Refused(f"the log cannot be replayed: {e}") from None
        gid = lines[0].game
        if self.store.records(gid, 0):
            raise Refused(f"game {gid!r} exists already")
        for r in lines:
            self.store.append(r)
        return gid

    # ---- acting --------------------------------------------------------------------------

    def submit(
        self,
        game: str,
        seat: str,
        raw: Mapping[str, Any],
        *,
        expected_seq: int | None = None,
        key: str | None = None,
    ) -> Receipt:
        """Applies one action for ``seat``. ``expected_seq`` is the last event the client saw;
        ``key`` an idempotency key. Raises a ServiceError; on any error nothing is recorded
        (but a contradiction is recorded as an irregularity for the judge)."""
        with self._lock(game):
            return self._submit(game, seat, dict(raw), expected_seq, key)

    def _submit(
        self,
        game: str,
        seat: str,
        raw: dict[str, Any],
        expected_seq: int | None,
        key: str | None,
        reader: str | None = None,
    ) -> Receipt:
        """Applies ``raw`` for ``seat``; the receipt is cut for ``reader`` (default: ``seat``),
        who is the seat that supplied the last input when the action was pending."""
        if seat not in SEATS or seat == "public":
            raise Forbidden(f"the {seat} seat cannot act")
        f = self.folded(game)
        if key is not None:
            hit = self.store.by_key(game, key)
            if hit is not None:
                raise Stale(f"already applied as event {hit.seq} (same key {key!r})", hit.seq)
        if expected_seq is not None and expected_seq != f.last_seq:
            raise Stale(
                f"stale: you saw event {expected_seq}, the game is at event "
                f"{f.last_seq}; reload and try again"
            )
        _settled(f)
        try:
            action = parse_action(raw, "action")
        except NotationError as e:
            raise Refused(str(e)) from None
        st = f.state
        actor = self._actor(st, action, seat)
        try:
            out = apply(st, action)
        except NeedsInputError as e:
            asked = tuple(e.asked) or (actor.key,)
            if reader is not None or any(a != seat for a in asked):
                # a completed input is kept even when the next question is for the submitter
                self._pending[game] = Pending(seat, raw, e.needs, asked, key)
            raise NeedsInput(e.reason, e.rule, e.needs, asked) from None
        except IllegalActionError as e:
            if e.rule == "D20":
                self._contradiction(game, seat, raw, e)
                raise Refused(
                    "this does not match what the referee recorded; the judge has "
                    "been called to settle it",
                    "D20",
                ) from None
            raise Refused(f"{e.reason}", e.rule) from None
        except NotationError as e:
            raise Refused(str(e)) from None
        self._pending.pop(game, None)
        body = {"action": action.to_json(), "actor": actor.key}
        events = tuple(e.to_json() for e in out.events)
        rec = self._append(game, seat, "action", body, events, key)
        reader = reader or seat
        return Receipt(
            rec.seq,
            [dict(ev) for ev in redact(rec, reader).events],
            self.view(game, reader),
            list(out.rules),
            list(out.notes),
        )

    def _actor(self, st: Any, action: Action, seat: str) -> Player:
        if isinstance(action, Starter):
            if seat not in ("judge", *PLAYER_SEATS):
                raise Forbidden("only the players or the judge choose the starting player")
            return action.player
        if isinstance(action, Deal | FirstRow | Redraw):
            if seat not in ("judge", action.player.key):
                raise Forbidden(
                    f"only {action.player.title}'s seat records {action.player.title}'s cards"
                )
            return action.player
        if isinstance(action, DeclareStuck) and seat != "judge":
            raise Forbidden(
                "a player declares at the table that he cannot use his points; the "
                "judge confirms it from the judge's seat (D8, HZ-P6)",
                "D8",
            )
        actor = action.actor(st.player)
        if seat != "judge" and seat != actor.key:
            raise Forbidden(
                f"it is {st.player.title}'s turn; the {seat} seat cannot act for {actor.title}",
                "HZ-TURN",
            )
        return actor

    def supply(self, game: str, seat: str, value: Any, *, key: str | None = None) -> Receipt:
        """Gives the input a pending action waits for (an identity or a choice) and applies it
        on behalf of the seat that started it. The receipt is cut for ``seat`` (the supplier).
        When the action then needs another input, it stays pending with this one filled in.
        Raises NotFound when nothing waits on ``seat``."""
        with self._lock(game):
            pend = self._pending.get(game)
            if pend is None or (seat not in pend.asked and seat != "judge"):
                raise NotFound("nothing is waiting for this seat's input")
            raw = json.loads(json.dumps(pend.action))
            _set_path(raw, pend.needs, value)
            self._pending.pop(game, None)
            return self._submit(game, pend.seat, raw, None, key or pend.key, reader=seat)

    def _contradiction(
        self, game: str, seat: str, raw: Mapping[str, Any], e: IllegalActionError
    ) -> None:
        self._append(
            game,
            seat,
            "irregularity",
            {"source": "input", "action": dict(raw), "rule": e.rule, "problem": e.reason},
        )

    def observe(self, game: str, seat: str, obs: Mapping[str, Any]) -> Record:
        """Records what a scan or a person saw: ``{"player", "zone": "hand"|"field", "column",
        "position", "card", "source"}``. An unknown card is identified by it; a card recorded
        as another raises an irregularity for the judge, and history stays as it was (D20)."""
        with self._lock(game):
            if seat not in SEATS or seat == "public":
                raise Forbidden(f"the {seat} seat cannot report observations")
            f = self.folded(game)
            _settled(f)
            st = f.state
            try:
                who = Player.parse(str(obs.get("player")))
                c = parse_card_name(str(obs.get("card")), who, st, "card")
            except (ValueError, NotationError) as e:
                raise Refused(f"observation: {e}") from None
            zone = obs.get("zone")
            body: dict[str, Any] = {
                "player": who.key,
                "zone": zone,
                "card": c.notation(who),
                "source": str(obs.get("source", "manual")),
            }
            side = st.sides[who]
            face_up = False
            if zone == "field":
                col, pos = obs.get("column"), obs.get("position")
                if not (
                    isinstance(col, int)
                    and isinstance(pos, int)
                    and 1 <= col <= 3
                    and 1 <= pos <= len(side.field[col - 1])
                ):
                    raise Refused("observation: no card at that column and position")
                s = side.field[col - 1][pos - 1]
                if s.card is None:
                    raise Refused("observation: the figure stands there, not a card")
                face_up = s.up
                body.update(column=col, position=pos, face_up=face_up)
                if seat not in ("judge", who.key) and not face_up:
                    raise Forbidden("only its owner or the judge may report a face-down card")
                recorded = s.card
            elif zone == "hand":
                if seat not in ("judge", who.key):
                    raise Forbidden("only its owner or the judge may report a hand card")
                if c in side.hand:
                    recorded = c
                elif any(x.is_unknown for x in side.hand):
                    recorded = next(x for x in side.hand if x.is_unknown)
                else:
                    recorded = None  # not in the hand as recorded
            else:
                raise Refused("observation: zone must be 'hand' or 'field'")
            if recorded is not None and recorded.is_unknown:
                body["identifies"] = True
                patch_from_body(st, body)  # validates
                return self._append(game, seat, "observation", body)
            rec = self._append(game, seat, "observation", body)
            if recorded != c:
                was = recorded.notation(who) if recorded is not None else "not in the hand"
                self._append(
                    game,
                    seat,
                    "irregularity",
                    {
                        "source": "observation",
                        "observation": rec.seq,
                        "rule": "D20",
                        "recorded": was,
                        "seen": c.notation(who),
                        "problem": f"{who.title}'s card was recorded as {was} but seen "
                        f"as {c.notation(who)}",
                    },
                )
            return rec

    # ---- the judge -----------------------------------------------------------------------

    def _judge(self, seat: str) -> None:
        if seat != "judge":
            raise Forbidden("only the judge corrects the record")

    def undo(self, game: str, seat: str, to: int, reason: str) -> Record:
        """The game continues from the state after event ``to``; nothing is deleted."""
        self._judge(seat)
        if not reason.strip():
            raise Refused("a correction needs a reason")
        with self._lock(game):
            f = self.folded(game)
            if not 0 <= to <= f.last_seq:
                raise Refused(f"no event {to} (the log ends at {f.last_seq})")
            return self._append(game, seat, "undo", {"to": to, "reason": reason})

    def amend(
        self, game: str, seat: str, event: int, raw: Mapping[str, Any], reason: str
    ) -> Record:
        """Replaces the action of event ``event`` (e.g. a card identity) and replays after it."""
        self._judge(seat)
        if not reason.strip():
            raise Refused("a correction needs a reason")
        with self._lock(game):
            records = self.store.records(game)
            target = next((r for r in records if r.seq == event and r.kind == "action"), None)
            if target is None:
                raise Refused(f"event {event} is not an action")
            try:
                action = parse_action(dict(raw), "action")
            except NotationError as e:
                raise Refused(str(e)) from None
            f = self.folded(game)
            if not any(s == event for s, _ in (*f.ops, *f.suspended)):
                raise Refused(f"event {event} is no longer in effect: a judge's undo dropped it")
            before = f.state_at(event - 1)
            try:
                check(before, action)
            except (IllegalActionError, NeedsInputError, NotationError) as e:
                raise Refused(f"the amended action is not legal there: {e}") from None
            return self._append(
                game,
                seat,
                "amend",
                {
                    "event": event,
                    "action": action.to_json(),
                    "actor": target.body.get("actor"),
                    "reason": reason,
                },
            )

    def ruling_rules(self, ids: list[str]) -> list[str]:
        return [RULES[i].citation() for i in ids if i in RULES]
