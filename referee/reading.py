"""Read models: what each seat reads of a game, already cut for it.

A seat's view (:class:`referee.models.SeatView`), the judge's overview, the log and its export,
a replay event by event. Everything here reads a folded snapshot and the records; nothing
writes. What a seat may see of the position is the game module's; which records' parts it may
read is :mod:`referee.views`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from typing import Any

from msgspec import UNSET, UnsetType

from referee.bell import Bell
from referee.catalogue import Catalogue
from referee.errors import Forbidden, Held, Refused
from referee.fold import Folded, fold, step
from referee.games import all_seats
from referee.holds import Holds
from referee.log import Record, export_text
from referee.models import (
    GameInfo,
    Head,
    OpenItem,
    Question,
    ReplayStep,
    SeatView,
    TableRow,
    Waiting,
)
from referee.reader import Reader, checked_game_id
from referee.validate import InputError, integer
from referee.views import JUDGE, redact, seats_of


def short(v: Any) -> str:
    """A value quoted in a message: text cut short, anything else by its type."""
    return v[:20] if isinstance(v, str) else f"<{type(v).__name__}>"


def head_of(f: Folded) -> Head:
    return {"seq": f.last_seq, "hash": f.last_hash}


def open_item(r: Record) -> OpenItem:
    return {"seq": r.seq, "kind": r.kind, "seat": r.seat, "time": r.time, "body": dict(r.body)}


class Reading:
    """The read side of the service."""

    def __init__(self, reader: Reader, catalogue: Catalogue, holds: Holds, bell: Bell) -> None:
        self.reader = reader
        self.catalogue = catalogue
        self.holds = holds
        self.bell = bell
        # the overview's row of each game, with the head it was made at: a game whose head
        # has not moved is not folded again (thousands of games stay cheap; issue 12)
        # a game's row, made at (head, the reason it is held for a change under the server)
        self._rows: dict[str, tuple[tuple[tuple[int, str] | None, str | None], TableRow]] = {}
        self._rows_lock = threading.Lock()

    def seat_of(self, game: str, seat: Any) -> str:
        """Checks a seat name and a game id before anything is read. Raises Forbidden for an
        unknown seat, Refused for a malformed game id."""
        if not isinstance(seat, str) or seat not in all_seats():
            raise Forbidden(f"unknown seat {short(seat)!r}")
        checked_game_id(game)
        return seat

    def judge_only(self, seat: str) -> None:
        if seat != JUDGE:
            raise Forbidden("only the judge may do that")

    def judge_of(self, game: str, seat: str) -> None:
        """Checks that ``seat`` is the judge, then the game id. Raises Forbidden or Refused."""
        self.judge_only(seat)
        self.seat_of(game, seat)

    def seat_news(self, game: str, seat: str) -> dict[str, Any]:
        """What waits on ``seat`` besides the play: ``judged`` (the table has a judge), the
        open seat ``requests`` it may approve (the judge's; at a table without one, those for
        the seat itself, never the other player's), the open correction ``proposals`` (at a
        table without a judge, for its players: each record cut for ``seat``, with who
        approved it)."""
        self.seat_of(game, seat)
        f = self.reader.folded(game)
        judged = f.create.get("judged", True) is not False
        players = f.module.players
        requests = [
            {"seq": r.seq, "seat": r.body.get("seat"), "time": r.time}
            for r in f.requests.values()
            if (seat == JUDGE if judged else seat in players and seat == r.body.get("seat"))
        ]
        proposals = []
        if seat in players:  # a take-back at any table; other proposals without a judge
            for p in f.proposals.values():
                if judged and "takeback" not in p.body:
                    continue
                cut = redact(p, seat, f.module)
                proposals.append(
                    {
                        "seq": p.seq,
                        "seat": p.seat,
                        "correction": dict(cut.body.get("correction", {})),
                        "approved": list(f.approvals.get(p.seq, ())),
                        "takeback": p.body.get("takeback"),
                    }
                )
        return {"judged": judged, "requests": requests, "proposals": proposals}

    def head(self, game: str) -> Head:
        f = self.reader.folded(game)
        return head_of(f)

    def game_info(self, game: str) -> GameInfo:
        """Which game ``game`` is and its player seats: what any seat may know (no view is
        built). Raises Refused, NotFound, Held."""
        checked_game_id(game)
        g = self.reader.folded(game).module
        return GameInfo(g.name, g.title, tuple(g.players))

    def card_names(self, game: str) -> dict[str, list[str]]:
        """Each player's deck as printed (the same for every seat)."""
        f = self.reader.folded(game)
        return f.module.card_names(f.rules)

    def view(self, game: str, seat: str) -> SeatView[Any]:
        """The table as ``seat`` sees it, with its legal actions when it may act. Board and
        sequence come from one snapshot."""
        self.seat_of(game, seat)
        return self.seat_view(self.reader.folded(game), seat)

    def seat_view(self, f: Folded, seat: str) -> SeatView[Any]:
        g = f.module
        if seat not in seats_of(g):
            raise Forbidden(f"unknown seat {short(seat)!r} in {g.title}")
        board = g.view(f.state, seat)
        kit = f.create.get("kit")
        legal: list[str] | UnsetType = UNSET
        if f.broken is None and f.question is None:  # a question waits: no action (hold_rule)
            can = f.legal_for(seat)  # worked out once per snapshot
            if can is not None:
                legal = can
        asked: Question | UnsetType = UNSET
        waiting: Waiting | UnsetType = UNSET
        q = f.question
        if q is not None:
            who = [str(a) for a in q.body.get("asked", ())]
            by = str(q.body.get("by"))
            if seat in who or seat in (JUDGE, by):
                told = q.body.get("detail" if seat in who or seat == JUDGE else "reason")
                asked = {
                    "needs": str(q.body.get("needs")),
                    "by": by,
                    "asked": who,
                    "rule": str(q.body.get("rule")),
                    "reason": str(told if told is not None else q.body.get("reason")),
                    "seq": q.seq,
                }
                waiting_action = q.body.get("action", {})
                if isinstance(waiting_action, Mapping):
                    asked.update(g.shown_while_asked(waiting_action))  # type: ignore[typeddict-item]
            else:
                waiting = {"for": who, "needs": str(q.body.get("needs"))}
        judge = seat == JUDGE
        return SeatView(
            game=f.game,
            game_module=g.name,
            seat=seat,
            seq=f.last_seq,
            head=head_of(f),
            players=dict(f.create.get("players", {})),
            kit="kit" if kit or f.create.get("catalogue") else "manual",
            kit_id=kit.get("id") if isinstance(kit, Mapping) else UNSET,
            calls_open=sum(1 for r in f.calls if r.seq not in f.resolved),
            board=board,
            legal=legal,
            asked=asked,
            waiting=waiting,
            irregularities=[r.to_json() for r in f.irregularities] if judge else UNSET,
            open=[open_item(r) for r in f.open_items()] if judge else UNSET,
            broken=f.broken if judge else UNSET,
        )

    def overview(self, seat: str, *, idle: bool = True) -> list[TableRow]:
        """All tables at a glance, for the judge, with the open calls themselves. A game's row
        is made again only when its head moved, or it was held, since the last overview (one
        query for every game's head; no fold, no signature check of a quiet game).
        ``idle=False`` leaves out the games nobody has joined yet (nothing recorded since their
        creation: :attr:`referee.store.GameHead.idle`), so that their number costs nothing
        but that one query (issue 31)."""
        self.judge_only(seat)
        out: list[TableRow] = []
        heads = self.catalogue.heads(moved=not idle)
        if not idle:  # a held game is listed, idle or not: the judge is needed
            listed = {gh.game for gh in heads}
            for game in self.holds.games():
                if game not in listed:
                    out.append(self._row(game))
        for gh in heads:
            game = gh.game
            head = ((gh.seq, gh.hash), self.holds.reason(game))
            with self._rows_lock:
                hit = self._rows.get(game)
            if hit is not None and hit[0] == head:
                out.append(hit[1])
                continue
            row = self._row(game)
            made = row.get("head")
            # kept only when the row was made at the head read above: a row folded while a
            # write landed in between is made again next time instead of standing for it
            if made is None or (made["seq"], made["hash"]) == head[0]:
                with self._rows_lock:
                    self._rows[game] = (head, row)
            out.append(row)
        if idle and len(self._rows) > len(heads):
            with self._rows_lock:
                keep = {gh.game for gh in heads}
                self._rows = {g: r for g, r in self._rows.items() if g in keep}
        return out

    def idle_games(self, seat: str, limit: int, offset: int = 0) -> tuple[int, list[str]]:
        """How many games nobody has joined yet (nothing recorded since their creation), and
        ``limit`` of their ids from ``offset`` (by id), for the judge: one query, no game is
        loaded."""
        self.judge_only(seat)
        try:  # a page's bounds: whole numbers (the fuzz once passed a word and got a TypeError)
            integer(limit, "limit", 0, 10**6)
            integer(offset, "offset", 0, 10**9)
        except InputError as e:
            raise Refused(str(e)) from None
        return self.catalogue.idle(limit, offset)

    def _row(self, game: str) -> TableRow:
        try:
            f = self.reader.folded(game)
        except Held as e:
            return {"game": game, "held": e.message}
        s = f.module.summary(f.state)
        items = f.open_items()
        return {
            "game": game,
            "game_module": f.module.name,
            "players": dict(f.create.get("players", {})),
            "phase": s.phase,
            "turn": dict(s.turn),
            "winner": s.winner,
            "reason": s.reason,
            "open_calls": sum(1 for r in items if r.kind == "call"),
            "open_irregularities": sum(1 for r in items if r.kind != "call"),
            "calls": [open_item(r) for r in items if r.kind == "call"],
            "irregularities": [open_item(r) for r in items if r.kind != "call"],
            "waiting": f.question is not None,
            "waiting_since": f.question.time if f.question is not None else None,
            "broken": f.broken,
            "last_time": f.last_time,
            "head": head_of(f),
        }

    def log(self, game: str, seat: str, upto: int | None = None) -> list[Record]:
        """The game's records as ``seat`` may read them (cut copies for everyone but the
        judge)."""
        self.seat_of(game, seat)
        if upto is not None:
            try:
                integer(upto, "upto", -1, 10**9)
            except InputError as e:
                raise Refused(str(e)) from None
        k = self.reader.known(game)  # verified at the head now; only what is new is checked
        f = k.folded
        if seat not in seats_of(f.module):  # an export's header names one of the game's seats
            raise Forbidden(f"unknown seat {short(seat)!r} in {f.module.title}")
        cut = k.cut(seat)  # cut once per seat and head
        return list(cut) if upto is None else cut[: upto + 1]

    def corrections(self, game: str, seat: str) -> list[Record]:
        """The game's corrections (its undo and amend records) as ``seat`` may read them, in
        order: kept by the fold, so the log is not gone through to count them."""
        self.seat_of(game, seat)
        k = self.reader.known(game)
        if seat not in seats_of(k.folded.module):
            raise Forbidden(f"unknown seat {short(seat)!r} in {k.folded.module.title}")
        cut = k.cut(seat)
        return [cut[r.seq] for r in k.folded.corrections]

    def export(self, game: str, seat: str) -> str:
        """JSON lines: a header (seat, the signing key and its fingerprint), then the records as
        ``seat`` may read them. Verifies with ``referee verify``."""
        self.seat_of(game, seat)
        f = self.reader.folded(game)
        if seat not in seats_of(f.module):  # an export's header names one of the game's seats
            raise Forbidden(f"unknown seat {short(seat)!r} in {f.module.title}")
        # an export is a proof: made of the records stored now, each checked again
        records = [redact(r, seat, f.module) for r in self.reader.verified(game, f)]
        return export_text(self.reader.header(game, seat), records)

    def replay(self, game: str, seat: str) -> list[ReplayStep]:
        """Event by event as ``seat`` may see it: each cut record (JSON), the table after it
        as that seat saw it, and the rules its action applied."""
        self.seat_of(game, seat)
        records = self.reader.verified(game, self.reader.folded(game))
        f = fold(records[:1])
        out: list[ReplayStep] = []
        for i, r in enumerate(records):
            if i:
                step(f, r)
            o = f.outcomes.get(r.seq) if r.kind == "action" else None
            out.append(
                {
                    "record": redact(r, seat, f.module).to_json(),
                    "view": self.seat_view(f, seat),
                    "rules": list(o.rules) if o is not None else [],
                }
            )
        return out

    def wait(self, game: str, seq: int, timeout: float) -> int:
        """Blocks until the game's last seq passes ``seq`` or ``timeout`` seconds pass; returns
        the last seq. Raises Refused for a malformed argument, NotFound or Unavailable."""
        try:
            checked_game_id(game)
            integer(seq, "seq", -1, 10**9)
            if isinstance(timeout, bool) or not isinstance(timeout, int | float):
                raise InputError(
                    f"timeout: must be a number of seconds, not {type(timeout).__name__}"
                )
        except InputError as e:
            raise Refused(str(e)) from None
        t = float(timeout)
        t = 0.0 if math.isnan(t) else min(max(t, 0.0), 600.0)
        return self.bell.wait(game, seq, t, lambda: self.reader.last_seq(game))
