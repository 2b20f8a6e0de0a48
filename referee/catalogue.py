"""The catalogue: every game at a glance, from one read of the store (no game is loaded): the
games, their heads, the idle ones (nothing recorded since their creation), and those the heads
journal does not cover."""

from __future__ import annotations

from contextlib import suppress
from datetime import timedelta
from functools import partial

from referee.anchors import Anchors
from referee.ledger import Clock
from referee.models import IdleCount
from referee.reader import store_call
from referee.store import GameHead, Store, parse_utc, utc_text


class Catalogue:
    """Reads over every game of one store."""

    def __init__(self, store: Store, anchors: Anchors, clock: Clock) -> None:
        self.store = store
        self.anchors = anchors
        self.clock = clock

    def games(self) -> list[str]:
        out: list[str] = store_call(self.store.games)
        return out

    def heads(self, moved: bool = False) -> list[GameHead]:
        """Every game's head and where its creation ended (one read of the store);
        ``moved``: only the games that are not idle."""
        out: list[GameHead] = store_call(lambda: self.store.heads(moved))
        return out

    def idle(self, limit: int = 0, offset: int = 0) -> tuple[int, list[str]]:
        """How many games are idle, and ``limit`` of their ids from ``offset``."""
        out: tuple[int, list[str]] = store_call(lambda: self.store.idle(limit, offset))
        return out

    def unanchored(self) -> list[GameHead]:
        """The games whose stored head the heads journal does not cover: no line for the game,
        or a line before its head (the journal is missing, or older than the database)."""
        out = []
        for gh in self.heads():
            a = self.anchors.journal.get(gh.game)
            if a is None or a.seq < gh.seq:
                out.append(gh)
        return out

    def behind(self) -> list[tuple[str, int, int | None]]:
        """The logs the database holds short of the heads journal: ``(store id, the journal's
        seq, the stored head's seq or None when the database lacks it)``, by store id. A
        database restored from before the journal's last lines (a dump, a point in time) has
        them: the ones it holds are held when read (they went backwards); the ones it lacks
        would otherwise be named by nothing."""
        stored = {gh.game: gh.seq for gh in self.heads()}
        out: list[tuple[str, int, int | None]] = []
        for game, a in sorted(self.anchors.journal.known().items()):
            if game in stored:
                seq: int | None = stored[game]
            else:  # an event log (not listed with the games), or a game the database lacks
                head = store_call(partial(self.store.head, game))
                seq = None if head is None else int(head[0])
            if seq is None or seq < a.seq:
                out.append((game, a.seq, seq))
        return out

    def idle_count(self, within: timedelta | None = None) -> IdleCount:
        """The games nobody has joined yet (nothing recorded since their creation), counting
        only those created within ``within`` of the clock's now (a game whose creation time
        was not kept then does not count; None: every one counts), and when the oldest of
        them stops counting. One read of the store; no game is loaded."""
        now = parse_utc(self.clock.now())
        since = None if within is None else utc_text(now - within)
        count, oldest = store_call(lambda: self.store.idle_since(since))
        frees_at = None
        if within is not None and oldest is not None:
            with suppress(ValueError):  # a time written by hand: no date to give
                frees_at = parse_utc(oldest) + within
        return IdleCount(int(count), now, frees_at)
