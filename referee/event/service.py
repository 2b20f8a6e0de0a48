"""The event service (issue 34): an event's signed log over the referee's store, and its games.

:class:`Events` runs events on one :class:`referee.service.Referee`: it writes each event's own
log (:mod:`referee.event.log`) with the server's key under the store id ``event.<id>``, folds
it (:mod:`referee.event.state`, cached by head), and creates each round's games as ordinary
games of the referee (T14), judged by the server's judge, with the players' names in the seats.

Every method checks its input and the rules before writing: a refusal
(:class:`~referee.errors.Refused`, naming the rule) writes nothing. Every new record is checked
by the same fold that reads the log, on a copy of the state, before it is sealed. Writers of one
event take its lock; another process that appended first makes the store refuse the append
(Conflict), and the records are built again on the new head (as :meth:`Ledger.write` does).

Who writes (a record's ``seat``): ``organiser`` (for now the server's judge login acts as the
organiser: the two are one login), ``judge``, ``system`` (results the referee reported), or a
player id (``p1``...) for his own check-in, drop, confirmation or dispute.

Secrets stay out of the log (T13), in the store's secrets of the event's store id: each
player's personal code (its hash: ``player:<id>``) and each game's join codes
(``code:<game>:<seat>``, encrypted with a pad made from the server's signing key, which is not
in the database: the player reaches only his own, :meth:`Events.seat_link`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets as _secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from engine.say import Say
from referee.anchors import AnchorError
from referee.errors import Forbidden, NotFound, Refused, ServiceError, Stale, Unavailable
from referee.event import state as S
from referee.event.clock import EXTRA_TURNS, extra_turns_left, turns_ended
from referee.event.export import export_event
from referee.event.log import PREFIX, is_event_log, store_id, verify_event_log
from referee.event.standings import Standing
from referee.event.views import (
    PlayerEvent,
    PublicEvent,
    SeatLinkRow,
    player_view,
    public_view,
)
from referee.game import AnyGame, Illegal, Malformed
from referee.games import game_named
from referee.log import GENESIS, Record
from referee.service import Referee
from referee.store import Conflict, Store, StoreError, parse_utc
from referee.tables import code_hash

__all__ = ["Events", "Registration", "SeatLink"]

_log = logging.getLogger(__name__)

_Draft = tuple[str, str, dict[str, Any], str | None]  # seat, kind, body, idempotency key


@dataclass(frozen=True)
class Registration:
    """A new player: his id and his personal code (shown to him once: it opens his event page,
    :meth:`Events.player_for_code`)."""

    player: str
    code: str


@dataclass(frozen=True)
class ExtraTurns:
    """A table past its deadline (T6), counted in its game's record: ``at_time`` the seat whose
    turn it was at the deadline; ``ended`` how many turns have ended since (a turn ends when
    the turn passes to the other seat); ``left`` how many are still to end (the turn at time,
    then two each: :func:`referee.event.clock.extra_turns_left`); ``done`` once none is left."""

    game: str
    at_time: str
    ended: int
    left: int

    @property
    def done(self) -> bool:
        return self.left == 0


@dataclass(frozen=True)
class SeatLink:
    """A player's current game and its join code: for that player only (T13)."""

    game: str
    seat: str
    code: str


class Events:
    """Events over one referee: create, register, pair, start, results, standings, export.
    Make one per :class:`Referee` (it holds the events' locks and their cached folds); several
    processes over one database are safe (the store refuses a stale append)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._cache: dict[str, tuple[tuple[int, str], S.Work]] = {}
        self._turns: dict[tuple[str, str], tuple[int, ExtraTurns | None]] = {}

    # ---- reading -----------------------------------------------------------------------------

    @property
    def _store(self) -> Store:
        return self.referee.store

    def events(self) -> list[str]:
        """The ids of every event in the store, sorted."""
        try:
            ids = self._store.event_logs()
        except StoreError as e:
            raise Unavailable(str(e)) from None
        return [i[len(PREFIX) :] for i in ids if is_event_log(i)]

    def get(self, event: str) -> S.EventState:
        """The event as its log says (verified, cached by head). Raises NotFound."""
        return S.freeze(self._work(_event_id(event)))

    def public(self, event: str) -> PublicEvent:
        """The event as anyone may see it (T13, :func:`referee.event.views.public_view`)."""
        return public_view(self.get(event))

    def player(self, event: str, player: str) -> PlayerEvent:
        """The event as ``player`` sees it: the public view, his own table, record, penalties
        and seat link (T13, :func:`referee.event.views.player_view`)."""
        link = self.seat_link(event, player)
        row = None if link is None else SeatLinkRow(game=link.game, seat=link.seat, code=link.code)
        return player_view(self.get(event), player, row)

    def standings(self, event: str) -> tuple[Standing, ...]:
        """T3 standings after the final rounds, best first, each tiebreaker's value included."""
        return self.get(event).standings

    def player_for_code(self, event: str, code: str) -> str | None:
        """The player whose personal code ``code`` is, or None (constant-time compares)."""
        if not isinstance(code, str) or not 1 <= len(code) <= 200:
            return None
        h = code_hash(code)
        found = None
        for name, value in sorted(self._secrets(_event_id(event)).items()):
            if name.startswith("player:") and _secrets.compare_digest(value, h):
                found = name.removeprefix("player:")
        return found

    def seat_link(self, event: str, player: str) -> SeatLink | None:
        """The join code of ``player``'s current game (T13: give it to him only), or None when
        he has no game being played."""
        st = self.get(event)
        st.player(player)
        t = st.table_of(player)
        if t is None or t.current_game is None:
            return None
        game = t.current_game
        first = t.firsts[t.games.index(game)]
        module = game_named(st.settings.game)
        seat = module.players[0] if first == player else module.players[1]
        stored = self._secrets(st.event).get(f"code:{game}:{seat}")
        code = self._open_code(game, seat, stored) if stored else None
        return SeatLink(game, seat, code) if code else None

    def deadline(self, event: str, table: int) -> str | None:
        """When table ``table`` of the round being played is out of time (T6, T7), ISO UTC."""
        st = self.get(event)
        r = st.round
        if r is None:
            return None
        return _table_in(r, table).deadline

    # ---- organising ----------------------------------------------------------------------------

    def create(
        self,
        *,
        name: str,
        game: str,
        options: Mapping[str, Any] | None = None,
        format: str | None = None,
        rounds: int | None = None,
        round_minutes: int = S.DEFAULT_ROUND_MINUTES,
        top_cut: int = 0,
        seed: str | None = None,
        self_register: bool = False,
        event: str | None = None,
        strict: bool = False,
        hands_public: bool = False,
    ) -> str:
        """A new event (T1, T4, T6, T10); returns its id. ``options``: the game's options,
        checked by the game's own setup (no game is made). ``format``: bo1 or bo3 (T1; a game
        whose own rules play the match, e.g. a best of three kept by the game, fixes it).
        ``rounds``: None for the usual count, fixed when round 1 is paired. ``seed``: hex,
        drawn at random when None (recorded, T4). ``strict``: strict play, the event's games
        without the guardian (issue 37). ``hands_public``: the reviews of the event's games
        show both hands once a game is over (issue 37; private by default). Raises Refused
        naming the input."""
        try:
            module = game_named(game)
        except Malformed as e:
            raise Refused(e.reason, "T12") from None
        opts = {} if options is None else dict(options) if isinstance(options, Mapping) else None
        if opts is None:
            raise Refused(Say("options: the game's options are an object"), "T12")
        _check_options(module, opts)
        in_game = _match_in_game(module, opts)
        if in_game is not None:
            if format not in (None, in_game):
                raise Refused(
                    Say(
                        "format: %(title)s with these options is %(in_game)s by its own rules (T1)",
                        title=module.title,
                        in_game=in_game,
                    ),
                    "T1",
                )
            format = in_game
        fmt = format or "bo1"
        eid = event if event is not None else self.referee.ledger.token()[:10]
        eid = eid.replace("_", "x").replace("-", "y") if event is None else eid
        body = {
            "event": eid,
            "name": name if isinstance(name, str) else "",
            "game": module.name,
            "options": opts,
            "format": fmt,
            "rounds": rounds,
            "round_minutes": round_minutes,
            "top_cut": top_cut,
            "seed": seed if seed is not None else _secrets.token_hex(16),
            "self_register": bool(self_register),
            "match_in_game": in_game is not None,
        }
        if strict:
            body["strict"] = True
        if hands_public:
            body["hands_public"] = True
        if not isinstance(eid, str) or not S.EVENT_ID.match(eid):
            raise Refused(Say("event: an event id is 1-40 letters, digits, '-' or '_'"), "T12")
        w = S.Work()
        S.step(w, "organiser", "event", body, "")
        sid = store_id(eid)
        with self._lock(sid):
            if self._store.head(sid) is not None:
                raise Refused(Say("event %(eid)s exists already", eid=repr(eid)), "T12")
            self._append(sid, [self._seal(sid, 0, GENESIS, ("organiser", "event", body, None))])
        self.referee.bell.ring(sid)
        return eid

    def register(self, event: str, name: str, by: str = "organiser") -> Registration:
        """Registers a player by ``name`` (1-40 characters, unique ignoring case) by the
        organiser, or ``by="self"`` (when the event takes self-registration). A player
        registered before the latest round starts is in it (re-pair it before it starts);
        after round k started he enters round k+1 and takes a loss for each round he missed
        (T9). Returns his id and personal code."""
        if by not in ("organiser", "judge", "self"):
            raise Refused(Say("by: organiser or self (T9)"), "T9")
        code = self.referee.ledger.token()

        def build(w: S.Work) -> list[_Draft]:
            pid = f"p{len(w.players) + 1}"
            body = {
                "player": pid,
                "name": name,
                "by": "self" if by == "self" else "organiser",
                "entered_round": S.next_round_in(w),
            }
            seat = pid if by == "self" else "judge" if by == "judge" else "organiser"
            return [(seat, "register", body, None)]

        recs = self._write(
            event, build, lambda recs: {f"player:{recs[0].body['player']}": code_hash(code)}
        )
        return Registration(str(recs[0].body["player"]), code)

    def new_player_code(self, event: str, player: str, by: str = "organiser") -> str:
        """A new personal code for ``player`` (a lost phone); his old one opens nothing more.
        Organiser or judge only; nothing is recorded in the log (no code ever is)."""
        _staff(by)
        st = self.get(event)
        st.player(player)
        code = self.referee.ledger.token()
        try:
            self._store.put_secret(store_id(st.event), f"player:{player}", code_hash(code))
        except StoreError as e:
            raise Unavailable(str(e)) from None
        return code

    def check_in(self, event: str, player: str, by: str = "organiser") -> Record:
        """Checks ``player`` in (by himself, his id as ``by``, or the organiser)."""
        _who(by)
        return self._one(event, by, "checkin", {"player": player})

    def drop(self, event: str, player: str, reason: str = "", by: str = "organiser") -> Record:
        """Drops ``player`` (T9): he is in no round after the latest started one (a round
        paired but not started must be re-paired before it starts); his results keep
        counting."""
        _who(by)

        def build(w: S.Work) -> list[_Draft]:
            p = w.players.get(player)
            after = S.next_round_in(w) - 1
            if p is not None:
                after = max(after, p.entered_round - 1)
            return [(by, "drop", {"player": player, "after_round": after, "reason": reason}, None)]

        return self._write(event, build)[0]

    def pair_next(self, event: str, by: str = "organiser") -> S.Round:
        """Pairs the next round from the standings and the seed (T4, T5); round 1 also fixes
        the number of rounds when it was not given. Refused while a round is unfinished."""
        _staff(by)

        def build(w: S.Work) -> list[_Draft]:
            number = w.rounds[-1].number + 1 if w.rounds else 1
            return [(by, "pair", self._pair_body(w, number, None), None)]

        self._write(event, build)
        r = self.get(event).round
        assert r is not None
        return r

    def repair(self, event: str, reason: str, by: str = "organiser") -> S.Round:
        """Pairs the latest round again before it starts (after a drop or a late entry), with a
        reason (T4)."""
        _staff(by)

        def build(w: S.Work) -> list[_Draft]:
            if not w.rounds:
                raise Refused(Say("repair: no round is paired yet (T4)"), "T4")
            number = w.rounds[-1].number
            return [(by, "pair", self._pair_body(w, number, reason), None)]

        self._write(event, build)
        r = self.get(event).round
        assert r is not None
        return r

    def swap(self, event: str, a: str, b: str, reason: str, by: str = "organiser") -> S.Round:
        """Exchanges players ``a`` and ``b`` in the latest round before it starts (T4)."""
        _staff(by)

        def build(w: S.Work) -> list[_Draft]:
            if not w.rounds:
                raise Refused(Say("swap: no round is paired yet (T4)"), "T4")
            body = {"round": w.rounds[-1].number, "a": a, "b": b, "reason": reason}
            return [(by, "swap", body, None)]

        self._write(event, build)
        r = self.get(event).round
        assert r is not None
        return r

    def choose_side(self, event: str, table: int, seat: str, by: str = "organiser") -> S.Round:
        """T10: the higher seed of ``table`` in the top cut's round not yet started chooses the
        ``"first"`` or ``"second"`` seat (``by``: himself, or the organiser for him)."""

        def build(w: S.Work) -> list[_Draft]:
            if not w.rounds:
                raise Refused(Say("side: no round is paired yet (T10)"), "T10")
            body = {"round": w.rounds[-1].number, "table": table, "seat": seat}
            return [(by, "side", body, None)]

        self._write(event, build)
        r = self.get(event).round
        assert r is not None
        return r

    def start_round(self, event: str, by: str = "organiser") -> S.Round:
        """Starts the latest paired round: creates each table's game (T14), ids
        ``<event>-r<round>t<table>``, the players' names in the seats, the join codes kept as
        the event's secrets (T13); then records ``start`` (the round's clock starts, T6). Safe
        to retry after a crash midway: games made already are reused (their seats reissued
        when their codes were not kept)."""
        _staff(by)
        eid = _event_id(event)
        sid = store_id(eid)
        with self._lock(sid):
            w = self._work(eid).copy()
            if not w.rounds:
                raise Refused(Say("start: no round is paired yet (T4)"), "T4")
            r = w.rounds[-1]
            if r.started_at is not None:
                raise Refused(
                    Say("start: round %(number)s has started already (T6)", number=r.number), "T6"
                )
            s = w.settings
            assert s is not None
            games = {t.table: S.game_id(eid, r.number, t.table, 1) for t in r.tables}
            body = {"round": r.number, "games": {str(k): v for k, v in games.items()}}
            S.step(
                w.copy(), by, "start", body, "2000-01-01T00:00:00+00:00"
            )  # refused: nothing made
            for t in r.tables:
                self._make_game(s, games[t.table], t.first, t.second)
        self._write(eid, lambda w: [(by, "start", body, f"start:{r.number}")])
        out = self.get(eid).round
        assert out is not None
        return out

    def extend(
        self, event: str, table: int, minutes: int, reason: str, by: str = "judge"
    ) -> S.Table:
        """Gives a table of the round being played extra minutes, with a reason (T7)."""
        _staff(by)

        def build(w: S.Work) -> list[_Draft]:
            number = _latest_number(w)
            body = {"round": number, "table": table, "minutes": minutes, "reason": reason}
            return [(by, "extend", body, None)]

        self._write(event, build)
        return self._table_now(event, table)

    # ---- results ---------------------------------------------------------------------------

    def sync(self, event: str) -> list[Record]:
        """Writes a ``result`` (source referee, with the game's final head) for each game of
        the round being played that ended in the referee and has none yet (T8); makes the next
        game of a best of three. Idempotent. Returns the records written."""
        st = self.get(event)
        r = st.round
        if r is None or r.started_at is None:
            return []
        module = game_named(st.settings.game)
        out: list[Record] = []
        for t in r.tables:
            game = t.current_game
            if game is None or t.match is not None:
                continue
            try:
                f = self.referee.folded(game)
            except ServiceError:
                continue
            summ = module.summary(f.state)
            ended = summ.winner is not None or (
                summ.reason is not None and not module.in_play(f.state)
            )
            if not ended:
                out += self._draw_at_time(st.event, r.number, t, f"{f.last_seq}:{f.last_hash}")
                continue
            n = t.games.index(game)
            first = t.firsts[n]
            second = t.second if first == t.first else t.first
            winner = None
            if summ.winner is not None:
                winner = first if summ.winner == module.players[0] else second
            reason = module.reason_text(summ.reason) or str(summ.reason or "the game ended")
            head = f"{f.last_seq}:{f.last_hash}"
            number = n + 1
            try:
                out += self._result(
                    st.event,
                    r.number,
                    t.table,
                    number,
                    winner,
                    reason,
                    "referee",
                    "system",
                    head=head,
                    key=f"result:{r.number}:{t.table}:{number}",
                )
            except (Stale, Refused):  # written meanwhile (a slip, a penalty): nothing to add
                continue
        return out

    def _draw_at_time(self, event: str, round: int, t: S.Table, head: str) -> list[Record]:
        """The draw the referee records by itself once a table's extra turns are played and
        its game has no winner (T6), naming the game's head; nothing before."""
        game = t.current_game
        if t.deadline is None or game is None:
            return []
        if parse_utc(self.referee.ledger.clock.now()) < parse_utc(t.deadline):
            return []
        x = self._counted(game, t.deadline)
        if x is None or not x.done:
            return []
        number = t.games.index(game) + 1
        try:
            return self._result(
                event,
                round,
                t.table,
                number,
                None,
                f"a draw at time: the turn at time and {EXTRA_TURNS} more each were played (T6)",
                "time",
                "system",
                head=head,
                key=f"time:{round}:{t.table}:{number}",
                ends_match=True,
            )
        except (Stale, Refused):  # written meanwhile
            return []

    def extra_turns(self, event: str, table: int) -> ExtraTurns | None:
        """The extra turns at ``table`` of the round being played (T6), counted from its
        game's record: None before the table's deadline (its extensions included, T7), when its
        match has its result, or when the game's record cannot be read."""
        st = self.get(event)
        r = st.round
        if r is None or r.started_at is None:
            return None
        t = _table_in(r, table)
        if t.deadline is None or t.match is not None or t.current_game is None:
            return None
        if parse_utc(self.referee.ledger.clock.now()) < parse_utc(t.deadline):
            return None
        return self._counted(t.current_game, t.deadline)

    def _counted(self, game: str, deadline: str) -> ExtraTurns | None:
        """The turns ended in ``game`` since ``deadline`` (cached by the game's head)."""
        try:
            head = self.referee.head(game)
        except ServiceError:
            return None
        seq = int(head["seq"])
        with self._guard:
            hit = self._turns.get((game, deadline))
        if hit is not None and hit[0] == seq:
            return hit[1]
        try:
            steps = self.referee.replay(game, "judge")
        except ServiceError:
            return None
        turns = [
            (parse_utc(str(s["record"]["time"])), str(s["view"].turn["player"]))
            for s in steps
            if s["view"].turn and isinstance(s["view"].turn.get("player"), str)
        ]
        at_time, ended = turns_ended(turns, parse_utc(deadline))
        out = None if at_time is None else ExtraTurns(game, at_time, ended, extra_turns_left(ended))
        with self._guard:
            self._turns[(game, deadline)] = (seq, out)
        return out

    def confirm(self, event: str, player: str, key: str | None = None) -> Record:
        """``player`` confirms the results the referee reported at his table that he has not
        confirmed yet (T8: each game of a best of three); returns his confirmation of the
        latest. A double tap (the same ``key``, or nothing left to confirm) writes nothing and
        returns the same record."""
        eid = _event_id(event)
        sid = store_id(eid)

        def latest_key(w: S.Work) -> str:
            t, latest = _own_result(w, player)
            return f"confirm:{_latest_number(w)}:{t.table}:{latest.number}"

        def build(w: S.Work) -> list[_Draft]:
            t, _latest = _own_result(w, player)
            number = _latest_number(w)
            todo = [
                x
                for x in t.results
                if x.source == "referee" and player not in x.confirmed and not x.settled
            ]
            if not todo:
                if self._store.by_key(sid, player, latest_key(w)) is not None:
                    return []
                raise Refused(
                    Say("confirm: %(player)s has no result to confirm (T8)", player=player), "T8"
                )
            out: list[_Draft] = []
            for i, x in enumerate(todo):
                body = {"round": number, "table": t.table, "number": x.number}
                own = f"confirm:{number}:{t.table}:{x.number}"
                # the caller's key on the first: a double tap with it finds the first record
                out.append((player, "confirm", body, key if key and i == 0 else own))
            return out

        recs = self._write(eid, build, idempotent=True)
        done = self._store.by_key(sid, player, latest_key(self._work(eid)))
        if done is None:  # the latest was confirmed under the caller's key
            return recs[-1]
        return done

    def dispute(self, event: str, player: str, note: str, key: str | None = None) -> Record:
        """``player`` disputes his table's latest result: it waits for the judge (T8)."""

        def build(w: S.Work) -> list[_Draft]:
            t, res = _own_result(w, player)
            body = {
                "round": _latest_number(w),
                "table": t.table,
                "number": res.number,
                "note": note,
            }
            return [(player, "dispute", body, key)]

        return self._write(event, build, idempotent=True)[0]

    def enter_result(
        self,
        event: str,
        round: int,
        table: int,
        number: int,
        winner: str | None,
        reason: str,
        by: str = "judge",
        key: str | None = None,
    ) -> list[Record]:
        """The judge enters a game's result from the match slip (T8): ``winner`` a player id
        of the table, or None for a draw."""
        _staff(by)
        return self._result(event, round, table, number, winner, reason, "slip", by, key=key)

    def correct(
        self,
        event: str,
        round: int,
        table: int,
        number: int,
        winner: str | None,
        reason: str,
        by: str = "judge",
    ) -> Record:
        """The judge corrects or settles a game's result (a dispute included), naming why
        (T8). The result is final at once."""
        if by != "judge":
            raise Refused(Say("by: the judge corrects a result (T8)"), "T8")

        def build(w: S.Work) -> list[_Draft]:
            body: dict[str, Any] = {
                "round": round,
                "table": table,
                "number": number,
                "winner": winner,
                "reason": reason,
            }
            s = w.settings
            assert s is not None
            probe = w.copy()
            S.step(probe, by, "correct", body, "2000-01-01T00:00:00+00:00")
            r = next(x for x in probe.rounds if x.number == round)
            t = next(x for x in r.tables if x.table == table)
            if len(t.games) == len(t.results) and not S.match_over(s, t):
                # a best of three the correction reopened: its next game (T1)
                body["next_game"] = S.game_id(s.event, round, table, len(t.results) + 1)
            return [(by, "correct", body, None)]

        recs = self._write(event, build)
        self._make_next_games(event)
        return recs[0]

    def time_result(self, event: str, round: int, table: int, by: str = "judge") -> list[Record]:
        """At time, after the extra turns (T6): the judge records the game still open at
        ``table`` as a draw; the match ends on the games played. Refused before the table's
        deadline (its extensions included)."""
        _staff(by)
        st = self.get(event)
        r = next((x for x in st.rounds if x.number == round), None)
        if r is None:
            raise Refused(Say("round: no round %(round)s (T6)", round=round), "T6")
        t = _table_in(r, table)
        if t.deadline is not None:
            now = parse_utc(self.referee.ledger.clock.now())
            if now < parse_utc(t.deadline):
                raise Refused(
                    Say(
                        "time: table %(table)s's time is up at %(deadline)s, not yet (T6)",
                        table=table,
                        deadline=t.deadline,
                    ),
                    "T6",
                )
        number = len(t.results) + 1
        return self._result(
            event,
            round,
            table,
            number,
            None,
            "a draw at time, after the extra turns (T6)",
            "time",
            by,
            ends_match=True,
        )

    def penalty(
        self, event: str, player: str, infraction: str, penalty: str, reason: str, by: str = "judge"
    ) -> list[Record]:
        """A penalty (T11). A game loss ends his game being played as a loss, a match loss his
        match, a disqualification drops him (his match being played is lost too)."""
        if by != "judge":
            raise Refused(Say("by: the judge records penalties (T11)"), "T11")

        def build(w: S.Work) -> list[_Draft]:
            body = {
                "player": player,
                "infraction": infraction,
                "penalty": penalty,
                "reason": reason,
            }
            drafts: list[_Draft] = [(by, "penalty", body, None)]
            if penalty in ("game loss", "match loss", "disqualification") and w.rounds:
                r = w.rounds[-1]
                t = next((x for x in r.tables if player in x.players_), None)
                s = w.settings
                assert s is not None
                if t is not None and r.started_at is not None and not S.match_over(s, t):
                    other = t.second if player == t.first else t.first
                    res: dict[str, Any] = {
                        "round": r.number,
                        "table": t.table,
                        "number": len(t.results) + 1,
                        "winner": other,
                        # the penalty itself is for the judge, the organiser and him (T13)
                        "reason": "ended by the judge (T11)",
                        "source": "penalty",
                        "ends_match": penalty != "game loss",
                    }
                    after = S.WTable(t.table, t.first, t.second, results=[*t.results])
                    after.results.append(
                        S.WResult(0, other, "", "penalty", by, None, "", res["ends_match"])
                    )
                    if not S.match_over(s, after):
                        res["next_game"] = S.game_id(s.event, r.number, t.table, len(t.results) + 2)
                    drafts.append((by, "result", res, None))
            return drafts

        recs = self._write(event, build)
        self._make_next_games(event)
        return recs

    def top_cut(self, event: str, by: str = "organiser") -> S.Cut:
        """Pairs the top cut's first round from the final standings (T10), the higher seed in
        the first seat, and records it (``cut``); start it with :meth:`start_round`. Refused
        before the Swiss rounds are over or when the event has no top cut."""
        self.pair_cut(event, by)
        cut = self.get(event).cut
        assert cut is not None
        return cut

    def pair_cut(self, event: str, by: str = "organiser") -> S.Round:
        """Pairs the top cut's next round (T10): its first from the standings, each later one
        from the winners of the one before (a drawn match is settled by the judge first,
        :meth:`correct`). Start it with :meth:`start_round`; the final's winner is
        ``EventState.champion``."""
        _staff(by)

        def build(w: S.Work) -> list[_Draft]:
            tables = S.cut_tables(w)
            s = w.settings
            assert s is not None
            body = {
                "round": w.rounds[-1].number + 1 if w.rounds else 1,
                "size": s.top_cut,
                "tables": [{"table": n, "first": a, "second": b} for n, a, b in tables],
            }
            return [(by, "cut", body, None)]

        self._write(event, build)
        r = self.get(event).round
        assert r is not None
        return r

    def export(self, event: str) -> str:
        """The event's export file (T12): :mod:`referee.event.export`, docs/events.md."""
        return export_event(self.referee, self.get(event))

    def wait(self, event: str, seq: int, timeout: float) -> int:
        """Blocks until the event's log passes record ``seq`` or ``timeout`` seconds pass (a
        page's live update, as :meth:`Referee.wait` for a game); returns its last record's
        number (-1: no such event)."""
        sid = store_id(_event_id(event))

        def last() -> int:
            head = self._store.head(sid)
            return -1 if head is None else head[0]

        return self.referee.bell.wait(sid, seq, max(0.0, min(float(timeout), 60.0)), last)

    def listen(self) -> None:
        """Syncs an event's results whenever one of its games records something (the ledger's
        bell). Optional: the pages call :meth:`sync` themselves."""

        def heard(game: str) -> None:
            if is_event_log(game) or "-r" not in game:
                return
            eid = game.rsplit("-r", 1)[0]
            if self._store.head(store_id(eid)) is None:
                return
            with contextlib.suppress(ServiceError):
                self.sync(eid)

        self.referee.bell.listen(heard)

    # ---- inside ------------------------------------------------------------------------------

    def _lock(self, sid: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(sid, threading.Lock())

    def _secrets(self, eid: str) -> dict[str, str]:
        try:
            out: dict[str, str] = self._store.secrets(store_id(eid))
            return out
        except StoreError as e:
            raise Unavailable(str(e)) from None

    def _work(self, eid: str) -> S.Work:
        """The event's working state, verified: chain, signatures, fold; cached by head; a
        head behind the one the journal noted is a rolled-back log."""
        sid = store_id(eid)
        try:
            head = self._store.head(sid)
        except StoreError as e:
            raise Unavailable(str(e)) from None
        if head is None:
            raise NotFound(Say("no event %(eid)s", eid=repr(eid)))
        anchor = self.referee.reader.anchors.journal.get(sid)
        if anchor is not None and (
            anchor.seq > head[0] or (anchor.seq == head[0] and anchor.hash != head[1])
        ):
            raise Unavailable(
                f"event {eid!r}: its log ends at record {head[0]}, before the head {anchor.seq} "
                "this server wrote: the database was rolled back (T12)"
            )
        hit = self._cache.get(sid)
        if hit is not None and hit[0] == head:
            return hit[1]
        try:
            entries = self._store.entries(sid)
        except StoreError as e:
            raise Unavailable(str(e)) from None
        check = verify_event_log(eid, self.referee.signer.public_b64, entries, check_pairings=False)
        if not check.ok or check.work is None:
            raise Unavailable(f"event {eid!r}: record {check.bad_seq}: {check.problem} (T12)")
        w = check.work
        self._cache[sid] = ((w.seq, w.hash), w)
        return w

    def _seal(self, sid: str, seq: int, prev: str, d: _Draft) -> Record:
        seat, kind, body, key = d
        led = self.referee.ledger
        r = Record(
            sid,
            seq,
            led.clock.now(),
            seat,
            kind,
            body,
            (),
            key,
            prev,
            "",
            led.token() + led.token(),
        )
        return r.sealed_with(led.signer.sign)

    def _append(
        self, sid: str, recs: list[Record], secrets: Mapping[str, str] | None = None
    ) -> None:
        """Appends (raises Conflict, StoreError) and notes the new head in the heads journal
        (:mod:`referee.anchors`), so a rolled-back event log is found like a game's. A journal
        that cannot be written is logged: the records are stored already."""
        self._store.append(recs, secrets)
        last = recs[-1]
        try:
            self.referee.reader.anchors.journal.note(
                sid, last.seq, last.hash, self.referee.signer.fingerprint
            )
        except AnchorError as e:
            _log.error("%s", e)

    def _write(
        self,
        event: str,
        build: Callable[[S.Work], list[_Draft]],
        secrets: Callable[[list[Record]], Mapping[str, str]] | None = None,
        idempotent: bool = False,
    ) -> list[Record]:
        """Builds records on the event's state, checks each with the fold on a copy, seals and
        appends them in one transaction; again on the new head when another writer appended
        first. Raises Refused (nothing written), NotFound, Unavailable; an idempotency key used
        before returns the record that holds it (``idempotent``) or raises Stale."""
        eid = _event_id(event)
        sid = store_id(eid)
        with self._lock(sid):
            for _ in range(5):
                w = self._work(eid)
                drafts = build(w)
                if not drafts:  # nothing to write (a double tap found its record)
                    return []
                seat, _kind, _body, key = drafts[0]
                if idempotent and key is not None:
                    try:
                        done = self._store.by_key(sid, seat, key)
                    except StoreError as e:
                        raise Unavailable(str(e)) from None
                    if done is not None:  # a double tap: the record it made already
                        return [done]
                probe = w.copy()
                recs: list[Record] = []
                seq, prev = w.seq, w.hash
                for d in drafts:
                    seq += 1
                    r = self._seal(sid, seq, prev, d)
                    S.step(probe, r.seat, r.kind, r.body, r.time)
                    probe.seq, probe.hash = r.seq, r.hash
                    recs.append(r)
                    prev = r.hash
                try:
                    self._append(sid, recs, secrets(recs) if secrets else None)
                except Conflict as e:
                    if e.existing is not None:
                        if idempotent:
                            return [e.existing]
                        raise Stale(
                            Say(
                                "already recorded as record %(seq)s (same key)", seq=e.existing.seq
                            ),
                            e.existing.seq,
                        ) from None
                    continue
                except StoreError as e:
                    raise Unavailable(str(e)) from None
                self._cache[sid] = ((probe.seq, probe.hash), probe)
                self.referee.bell.ring(sid)  # whoever waits on the event (:meth:`wait`)
                return recs
        raise Stale(Say("the event kept changing under this request; reload and try again"))

    def _one(self, event: str, seat: str, kind: str, body: dict[str, Any]) -> Record:
        return self._write(event, lambda w: [(seat, kind, body, None)])[0]

    def _pair_body(self, w: S.Work, number: int, reason: str | None) -> dict[str, Any]:
        s = w.settings
        assert s is not None
        if w.cut is not None:
            raise Refused(
                Say("pair: the Swiss rounds are over; the top cut is paired (T10)"), "T10"
            )
        probe = w.copy()
        body: dict[str, Any] = {"round": number, "seed": s.seed}
        if reason is not None:
            if probe.rounds and probe.rounds[-1].number == number:
                if probe.rounds[-1].started_at is not None:
                    raise Refused(
                        Say("repair: round %(number)s has started (T4)", number=number), "T4"
                    )
                probe.rounds.pop()
            body["reason"] = reason
        elif number == 1 and s.rounds is None:
            rounds = S.usual_rounds(len(S.active_in(probe, 1)))
            body["rounds"] = rounds
            probe.settings = replace(s, rounds=rounds)
        if number > 1 and reason is None and probe.rounds:
            last = probe.rounds[-1]
            if last.started_at is None:
                raise Refused(
                    Say("pair: round %(number)s has not started (T4)", number=last.number), "T4"
                )
            if not all(S.match_of(s, t) is not None for t in last.tables):
                raise Refused(
                    Say(
                        "pair: round %(number)s is unfinished; pair the next one when every "
                        "result of it is final (T8)",
                        number=last.number,
                    ),
                    "T8",
                )
        pairing = S.compute_pairing(probe, number)
        body["tables"] = [
            {"table": t.number, "first": t.first, "second": t.second} for t in pairing.tables
        ]
        body["bye"] = pairing.bye
        return body

    def _make_game(self, s: S.Settings, gid: str, first: str, second: str) -> None:
        """Creates (or finds, after a crash) the game ``gid`` and keeps its join codes."""
        sid = store_id(s.event)
        module = game_named(s.game)
        kept = self._store.secrets(sid)
        names = {p.id: p.name for p in self._players(s.event)}
        if not self.referee.reader.exists(gid):
            created = self.referee.create_game(
                name=s.game,
                options=dict(s.options),
                players={module.players[0]: names[first], module.players[1]: names[second]},
                game=gid,
                strict=s.strict,
                hands_public=s.hands_public,
            )
            codes = created.codes
        else:
            codes = {}
            for seat in module.players:
                if f"code:{gid}:{seat}" not in kept:
                    codes[seat] = self.referee.reissue(gid, "judge", seat)
        for seat, code in codes.items():
            self._store.put_secret(sid, f"code:{gid}:{seat}", self._seal_code(gid, seat, code))

    def _pad(self, game: str, seat: str, nonce: str) -> bytes:
        """A one-time pad only this server can make: a hash of its (deterministic, Ed25519)
        signature over the game, the seat and a fresh nonce."""
        label = hashlib.sha256(f"event-join-code/{game}/{seat}/{nonce}".encode()).hexdigest()
        return hashlib.sha512(self.referee.signer.sign(label).encode()).digest()

    def _seal_code(self, game: str, seat: str, code: str) -> str:
        """A join code as the event keeps it (T13): encrypted with a pad made from the server's
        key, which is not in the database, so a stolen database opens no seat."""
        raw = code.encode()
        nonce = _secrets.token_hex(8)
        pad = self._pad(game, seat, nonce)
        if len(raw) > len(pad):
            raise Refused(Say("a join code longer than the event can keep"))
        return nonce + ":" + bytes(a ^ b for a, b in zip(raw, pad, strict=False)).hex()

    def _open_code(self, game: str, seat: str, stored: str) -> str | None:
        nonce, _, data = stored.partition(":")
        try:
            raw = bytes.fromhex(data)
            pad = self._pad(game, seat, nonce)
            return bytes(a ^ b for a, b in zip(raw, pad, strict=False)).decode()
        except ValueError:
            return None

    def _players(self, eid: str) -> list[S.WPlayer]:
        return list(self._work(eid).players.values())

    def _make_next_games(self, event: str) -> None:
        """Makes the next game of each best-of-three table whose result asked for one."""
        st = self.get(event)
        r = st.round
        if r is None or r.started_at is None:
            return
        for t in r.tables:
            if t.current_game is not None and not self.referee.reader.exists(t.current_game):
                n = t.games.index(t.current_game)
                first = t.firsts[n]
                second = t.second if first == t.first else t.first
                self._make_game(st.settings, t.current_game, first, second)

    def _result(
        self,
        event: str,
        round: int,
        table: int,
        number: int,
        winner: str | None,
        reason: str,
        source: str,
        by: str,
        *,
        head: str | None = None,
        key: str | None = None,
        ends_match: bool = False,
    ) -> list[Record]:
        def build(w: S.Work) -> list[_Draft]:
            s = w.settings
            assert s is not None
            body: dict[str, Any] = {
                "round": round,
                "table": table,
                "number": number,
                "winner": winner,
                "reason": reason,
                "source": source,
            }
            if head is not None:
                body["head"] = head
            if ends_match:
                body["ends_match"] = True
            r = next((x for x in w.rounds if x.number == round), None)
            t = next((x for x in r.tables if x.table == table), None) if r else None
            if t is not None and s.games_per_match > 1:
                after = S.WTable(t.table, t.first, t.second, results=[*t.results])
                after.results.append(
                    S.WResult(number, winner, reason, source, by, head, "", ends_match)
                )
                after.results[-1].ends_match = ends_match or source == "time"
                if not S.match_over(s, after):
                    body["next_game"] = S.game_id(s.event, round, table, number + 1)
            return [(by, "result", body, key)]

        recs = self._write(event, build, idempotent=key is not None)
        self._make_next_games(event)
        return recs

    def _table_now(self, event: str, table: int) -> S.Table:
        r = self.get(event).round
        assert r is not None
        return _table_in(r, table)


# ---- helpers -------------------------------------------------------------------------------


def _event_id(event: Any) -> str:
    if not isinstance(event, str) or not S.EVENT_ID.match(event):
        raise Refused(Say("event: an event id is 1-40 letters, digits, '-' or '_'"), "T12")
    return event


def _who(by: Any) -> None:
    if by in S.WRITERS or (isinstance(by, str) and S.PLAYER_ID.match(by)):
        return
    raise Refused(Say("by: organiser, judge, system or a player id"), "T12")


def _staff(by: Any) -> None:
    if by not in ("organiser", "judge"):
        raise Forbidden(Say("by: only the organiser or the judge may do this"))


def _latest_number(w: S.Work) -> int:
    if not w.rounds:
        raise Refused(Say("no round is paired yet (T4)"), "T4")
    return w.rounds[-1].number


def _table_in(r: S.Round, table: int) -> S.Table:
    for t in r.tables:
        if t.table == table:
            return t
    raise Refused(
        Say(
            "table: round %(number)s has no table %(table)s (T8)",
            number=r.number,
            table=str(table)[:10],
        ),
        "T8",
    )


def _own_result(w: S.Work, player: str) -> tuple[S.WTable, S.WResult]:
    if player not in w.players:
        raise Refused(
            Say("player: no player %(player)s in this event (T8)", player=repr(str(player)[:20])),
            "T8",
        )
    if not w.rounds:
        raise Refused(Say("no round is paired yet (T8)"), "T8")
    r = w.rounds[-1]
    t = next((x for x in r.tables if player in x.players_), None)
    if t is None or not t.results:
        raise Refused(
            Say(
                "%(player)s has no result to confirm or dispute in round %(number)s (T8)",
                player=player,
                number=r.number,
            ),
            "T8",
        )
    return t, t.results[-1]


def _check_options(module: AnyGame, opts: dict[str, Any]) -> None:
    """The game's options, checked by the game's own setup (no game is made)."""
    try:
        module.setup(dict(opts), {})
    except Illegal as e:
        raise Refused(Say("options: %(reason)s", reason=e.reason), e.rule) from None
    except Malformed as e:
        raise Refused(Say("options: %(reason)s", reason=e.reason)) from None
    except ServiceError:
        raise
    except Exception as e:  # a game's own rule error
        reason = getattr(e, "reason", None) or str(e)
        raise Refused(Say("options: %(reason)s", reason=reason)) from None


def _match_in_game(module: AnyGame, opts: Mapping[str, Any]) -> str | None:
    """The format the game's own rules fix for these options (its ``match_format``), when
    the game itself plays the whole match in one log; else None."""
    ask = getattr(module, "match_format", None)
    if ask is None:
        return None
    got = ask(opts)
    return got if got in S.FORMATS else None


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
