"""What a page and a tap cost the store: the SQL statements they send, counted on SQLite.

Shared by the tests that pin the counts (``tests/test_page_costs.py``) and by
``benchmarks/referee.py``, which prints them. A *tap* is one player's action from his page and
everything it sets off at the table (issue 32, item 4): the form's POST, the redirect's GET of
his own page, the live event the other seat's stream sends (the service calls the stream makes
for a change: :func:`web.live.events` waits, then reads the head), and the other seat's page.

Statements are counted with sqlite3's ``set_trace_callback`` on every connection the store has
open (each thread has its own); a statement is a *whole-log read* when it selects a game's
records from the start (no lower bound on ``seq`` past the create record, no ``LIMIT``).
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask
from service_helpers import Table, make_referee
from web_helpers import Browser, make_app

from engine.herazeus import apply, legal_actions
from engine.herazeus.actions import Draw
from referee.service import Referee
from referee.store import SQLiteStore

_WHOLE = re.compile(r"FROM events WHERE game='[^']*'( AND seq>-1 AND seq<=\d+)? ORDER BY seq$")
_HEAD = "ORDER BY seq DESC LIMIT 1"


def is_whole_log_read(sql: str) -> bool:
    """True for a statement that reads a game's records from the first one on."""
    return bool(_WHOLE.search(sql.strip()))


@dataclass
class Statements:
    """The statements sent while counting, in order."""

    sql: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.sql)

    @property
    def whole_log_reads(self) -> int:
        return sum(1 for s in self.sql if is_whole_log_read(s))

    @property
    def head_reads(self) -> int:
        return sum(1 for s in self.sql if _HEAD in s and s.lstrip().upper().startswith("SELECT"))

    def __str__(self) -> str:
        return (
            f"{self.count} SQL statements ({self.head_reads} read the head, "
            f"{self.whole_log_reads} read the whole log)"
        )


@contextmanager
def counting(store: SQLiteStore) -> Iterator[Statements]:
    """Counts the statements ``store`` sends on any of its connections while the block runs
    (this thread's connection is opened first, so that it is counted too)."""
    store._db()
    out = Statements()
    lock = threading.Lock()

    def note(sql: str) -> None:
        with lock:
            out.sql.append(sql)

    conns = [db for db, _ in list(store._all)]
    for db in conns:
        db.set_trace_callback(note)
    try:
        yield out
    finally:
        for db in conns:
            db.set_trace_callback(None)


@dataclass
class TapTable:
    """A Hera & Zeus game on SQLite, served by the web app, both players' browsers at it,
    played to a point where the player to move may draw."""

    app: Flask
    ref: Referee
    store: SQLiteStore
    table: Table[Referee]
    browsers: dict[str, Browser]
    csrf: dict[str, str]

    @property
    def game(self) -> str:
        return self.table.game

    def page(self, seat: str) -> int:
        """Gets ``seat``'s page; returns the status."""
        return self.browsers[seat].get(f"/g/{self.game}").status_code

    def mover(self) -> str:
        return self.table.truth.player.key

    def tap(self, seq: int) -> None:
        """The player to move draws the card on top of his deck from his page's form (the
        POST and its redirect's GET), then the other seat's stream learns the new head and
        his page is read again. ``seq``: the last event the pages show."""
        seat = self.mover()
        other = next(s for s in self.browsers if s != seat)
        p = self.table.truth.player
        drawn = self.table.truth.sides[p].deck[0].notation(p)
        form = {"csrf": self.csrf[seat], "seq": str(seq), "do": "draw", "card": drawn}
        b = self.browsers[seat]
        posted = b.client.post(f"/g/{self.game}/act", data=form)
        assert posted.status_code == 303, posted.status_code
        assert b.get(posted.headers["Location"]).status_code == 200
        live(self.ref, self.game, seq)
        assert self.page(other) == 200
        draw = next(a for a in legal_actions(self.table.truth) if isinstance(a, Draw))
        self.table.truth = apply(self.table.truth, draw).state

    def move_to_a_draw(self) -> None:
        """Plays on (through the service) until the player to move may draw."""
        while not any(isinstance(a, Draw) for a in legal_actions(self.table.truth)):
            assert self.table.step(), "the game ended before a draw"


def live(ref: Referee, game: str, seen: int) -> None:
    """What a seat's open stream does for one change (:func:`web.live.events`): it wakes, reads
    the game's last number, then the head it sends."""
    ref.wait(game, seen, 0.0)
    ref.head(game)


def tap_table(db: Path, seed: int = 7, steps: int = 12) -> TapTable:
    """A game on the SQLite file ``db``: set up and played ``steps`` actions at a simulated
    table, both players' browsers holding their seats, then on until the player to move may
    draw."""
    store = SQLiteStore(db)
    ref = make_referee(store, seed)
    app = make_app(ref)
    t = Table(ref, random.Random(seed))
    browsers: dict[str, Browser] = {}
    for seat, code in t.codes.items():
        b = Browser(app)
        assert b.join(t.game, code).status_code == 303
        browsers[seat] = b
    t.setup()
    for _ in range(steps):
        assert t.step()
    csrf = {seat: b.csrf(t.game) for seat, b in browsers.items()}
    out = TapTable(app, ref, store, t, browsers, csrf)
    out.move_to_a_draw()
    return out


def page_statements(tt: TapTable, seat: str) -> Statements:
    """The statements of ``seat``'s page for a head it has already been shown."""
    assert tt.page(seat) == 200
    with counting(tt.store) as s:
        assert tt.page(seat) == 200
    return s


def tap_statements(tt: TapTable) -> Statements:
    """The statements of one tap's round trip (:meth:`TapTable.tap`), the pages warm."""
    for seat in tt.browsers:
        assert tt.page(seat) == 200
    seq = tt.ref.folded(tt.game).last_seq
    with counting(tt.store) as s:
        tt.tap(seq)
    return s


def timed(fn: Callable[[], Any], repeat: int) -> float:
    """The best of ``repeat`` runs of ``fn``, in seconds."""
    import time

    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best
