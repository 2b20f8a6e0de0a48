"""Live updates across processes on PostgreSQL (issue 35): every append notifies
``referee_heads``; each store's listener hears it on a connection of its own and its referee
rings its bell, so a wait, or a live page's notifier, in another process wakes at once instead
of at its next look at the store.

Each referee here looks at the store only every :data:`SAFETY` seconds (its bell's ``poll``),
longer than any wait of a test: a waiter that returns before its timeout (:data:`WAIT`) was woken
by a ring. A waiter has looked at the store once before the write it waits for, so a ring, or
its timeout, ends its wait. The listener survives its connection's end (the backend
terminated), connects again and rings every watched game; a payload that is not a notice is
logged and ignored; ``close`` stops the thread. Every other wait of a test ends as soon as its
condition holds, under :data:`CEILING`. The bell alone, and a referee over a memory store that
pushes, run without PostgreSQL."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from service_helpers import make_referee
from test_availability import CEILING, open_stream, status, wait_until

from referee.bell import POLL, SAFETY_POLL, Bell, Pushing
from referee.service import Referee
from referee.store import MemoryStore, SQLiteStore

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SAFETY = 60.0  # the referees' look at the store: longer than any wait below
WAIT = 30.0  # seconds a waiter waits at most: then it looks at the store once more and returns


# ---- the bell alone ---------------------------------------------------------------------------


def test_a_store_that_pushes_makes_polling_a_safety_net_and_the_others_keep_polling(
    tmp_path: Path,
) -> None:
    assert make_referee(MemoryStore()).bell.poll == POLL
    sqlite = SQLiteStore(str(tmp_path / "g.sqlite3"))
    try:
        assert make_referee(sqlite).bell.poll == POLL
    finally:
        sqlite.close()
    assert SAFETY_POLL > POLL


class Pushed(MemoryStore):
    """A memory store that pushes: the test hands it the notices and the reconnections."""

    def listen(self, heard: Callable[[str, int], None], resync: Callable[[], None]) -> None:
        self.heard, self.resync = heard, resync


def test_over_a_store_that_pushes_a_notice_rings_its_game_and_a_resync_the_watched() -> None:
    store = Pushed()
    assert isinstance(store, Pushing) and not isinstance(MemoryStore(), Pushing)
    ref = make_referee(store)
    assert ref.bell.poll == SAFETY_POLL
    rung: list[str] = []
    ref.bell.listen(rung.append)
    store.heard("g", 3)
    ref.bell.watch("w")
    store.resync()
    assert rung == ["g", "w"]


def test_a_listener_that_fails_is_logged_and_the_others_still_hear_the_ring(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bell = Bell()
    rung: list[str] = []

    def failing(game: str) -> None:
        raise RuntimeError("a store fault in a listener")

    bell.listen(failing)
    bell.listen(rung.append)
    with caplog.at_level(logging.ERROR, logger="referee.bell"):
        bell.ring("g")
    assert rung == ["g"]
    assert [r.exc_info is not None for r in caplog.records if r.name == "referee.bell"] == [True]


def test_a_ring_between_a_look_and_the_wait_is_not_lost() -> None:
    bell = Bell(poll=SAFETY)
    seqs = iter([0, 1])

    def last() -> int:  # the store's head; the append and its ring land right after the look
        seq = next(seqs)
        if seq == 0:
            bell.ring("g")
        return seq

    t0 = time.monotonic()
    assert bell.wait("g", 0, WAIT, last) == 1
    assert time.monotonic() - t0 < WAIT, "it looked again at once, not at its timeout"


def test_a_resync_rings_the_games_watched_and_only_those() -> None:
    bell = Bell()
    rung: list[str] = []
    bell.listen(rung.append)
    bell.watch("a")
    bell.watch("b")
    bell.unwatch("b")
    bell.resync()
    assert rung == ["a"] and bell.watched() == ["a"]


# ---- two processes on one database --------------------------------------------------------------


class Waiter:
    """``ref.wait(game, seq, WAIT)`` in a thread; ``looked`` once it read the store's head the
    first time (the write it waits for comes after)."""

    def __init__(self, ref: Referee, game: str, seq: int, monkeypatch: pytest.MonkeyPatch) -> None:
        self.looked = threading.Event()
        self.result: int | None = None
        self.took = 0.0
        real = ref.reader.last_seq

        def last_seq(g: str) -> int:
            seq = real(g)
            self.looked.set()
            return seq

        monkeypatch.setattr(ref.reader, "last_seq", last_seq)

        def run() -> None:
            t0 = time.monotonic()
            self.result = ref.wait(game, seq, WAIT)
            self.took = time.monotonic() - t0

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert self.looked.wait(CEILING), "the waiter looked at the store"

    def woken(self) -> int | None:
        """The seq the wait returned when a ring ended it; None when its timeout did."""
        self.thread.join(WAIT + CEILING)
        assert not self.thread.is_alive()
        return self.result if self.took < WAIT else None


@pytest.fixture
def two(pg_dsn: str) -> Iterator[tuple[Referee, Referee]]:
    """Two referees on one database, each with its own store: two processes but for the
    memory. Each looks at the store only every :data:`SAFETY` seconds."""
    from referee.pgstore import PostgresStore

    a, b = make_referee(PostgresStore(pg_dsn)), make_referee(PostgresStore(pg_dsn), seed=1)
    a.bell.poll = b.bell.poll = SAFETY
    try:
        yield a, b
    finally:
        a.store.close()
        b.store.close()


def listener_of(ref: Referee) -> object:
    from referee.pgstore import Listener, PostgresStore

    store = ref.store
    assert isinstance(store, PostgresStore) and isinstance(store.listener, Listener)
    return store.listener


@pytest.mark.postgres
def test_a_store_that_pushes_polls_only_as_a_safety_net(pg_dsn: str) -> None:
    from referee.pgstore import PostgresStore

    store = PostgresStore(pg_dsn)
    try:
        assert make_referee(store).bell.poll == SAFETY_POLL
    finally:
        store.close()


@pytest.mark.postgres
def test_a_write_through_one_store_wakes_a_wait_on_the_other_at_once(
    two: tuple[Referee, Referee], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = two
    created = a.create_game(game="g1")
    seq = b.head("g1")["seq"]
    before = b.log("g1", "judge")  # verified and kept by b's reader at this head
    waiter = Waiter(b, "g1", seq, monkeypatch)
    assert a.claim("g1", created.codes["hera"]).seat == "hera"
    assert waiter.woken() == b.head("g1")["seq"] > seq, "woken by the notice, not by a look"
    # the reader needs no notice: each read looks at the head and reads what is new
    assert b.log("g1", "judge") == a.log("g1", "judge") != before


@pytest.mark.postgres
def test_the_listener_connects_again_after_its_backend_is_terminated_and_rings_every_watched_game(
    two: tuple[Referee, Referee], pg_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    from referee.pgstore import Listener

    a, b = two
    created = a.create_game(game="g2")
    listener = listener_of(b)
    assert isinstance(listener, Listener)
    old = listener.backend_pid
    assert old is not None and listener.connects == 1
    rung: list[str] = []
    b.bell.listen(rung.append)
    b.bell.watch("quiet")  # a live page follows a game nobody writes: only a resync rings it
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", (old,)).fetchone() == (True,)
    wait_until(lambda: listener.connects == 2, "the listener connected again")
    assert listener.backend_pid not in (None, old)
    wait_until(lambda: "quiet" in rung, "the reconnection rang the watched game")
    # and it hears again: a write through the other store wakes a wait
    seq = b.head("g2")["seq"]
    waiter = Waiter(b, "g2", seq, monkeypatch)
    a.claim("g2", created.codes["zeus"])
    assert waiter.woken() == b.head("g2")["seq"] > seq


@pytest.mark.postgres
def test_a_payload_that_is_not_a_notice_is_logged_and_ignored(
    pg_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    import psycopg

    from referee.pgstore import CHANNEL, Listener, PostgresStore, notice_text

    b = make_referee(PostgresStore(pg_dsn))  # the only listener of the database
    listener = listener_of(b)
    assert isinstance(listener, Listener)
    rung: list[str] = []
    b.bell.listen(rung.append)
    caplog.set_level(logging.WARNING, logger="referee.pgstore")
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for bad in ("nonsense", '{"game": 1, "seq": 2}', '{"game": "g"}'):
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, bad))
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, notice_text("g3", 4)))
    try:
        wait_until(lambda: rung == ["g3"], "the good notice after the bad ones rang its game")
        warned = [r.getMessage() for r in caplog.records if r.name == "referee.pgstore"]
        assert len(warned) == 3 and "not a head notice: 'nonsense'" in warned[0], warned
        assert listener.connects == 1 and listener.alive, "the listener went on as it was"
    finally:
        b.store.close()


@pytest.mark.postgres
def test_close_stops_the_listener_and_its_connection(pg_dsn: str) -> None:
    import psycopg

    from referee.pgstore import APPLICATION_NAME, Listener, PostgresStore

    store = PostgresStore(pg_dsn)
    ref = make_referee(store)
    listener = listener_of(ref)
    assert isinstance(listener, Listener) and listener.alive
    pid = listener.backend_pid
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        named = admin.execute(
            "SELECT application_name FROM pg_stat_activity WHERE pid = %s", (pid,)
        )
        assert named.fetchone() == (APPLICATION_NAME,)  # an administrator sees what it is
    store.close()
    assert not listener.alive
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        wait_until(
            lambda: (
                admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)
                ).fetchone()
                == (0,)
            ),
            "the listening connection is closed",
        )


@pytest.mark.postgres
@pytest.mark.process
def test_the_listener_survives_the_server_restarting_and_rings_every_watched_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pg_helpers import running_cluster, start, stop

    from referee.pgstore import Listener, PostgresStore, upgrade

    with running_cluster() as cluster:  # a cluster of its own: this one stops
        dsn = cluster.new_database()
        upgrade(dsn)
        a, b = make_referee(PostgresStore(dsn)), make_referee(PostgresStore(dsn), seed=1)
        b.bell.poll = SAFETY
        try:
            created = a.create_game(game="g5")
            listener = listener_of(b)
            assert isinstance(listener, Listener)
            rung: list[str] = []
            b.bell.listen(rung.append)
            b.bell.watch("quiet")
            stop(cluster)
            wait_until(lambda: not listener.listening.is_set(), "the listener lost the server")
            assert "quiet" not in rung
            start(cluster)
            wait_until(lambda: listener.connects == 2, "the listener connected again")
            wait_until(lambda: "quiet" in rung, "the reconnection rang the watched game")
            seq = b.head("g5")["seq"]
            waiter = Waiter(b, "g5", seq, monkeypatch)
            a.claim("g5", created.codes["hera"])
            assert waiter.woken() == b.head("g5")["seq"] > seq, "it hears again"
        finally:
            a.store.close()
            b.store.close()


# a writer in a process of its own: claims a seat of the game through its own store and referee
CLAIM = """
import sys
sys.path.insert(0, {tests!r})
from service_helpers import SIGNER
from referee.pgstore import PostgresStore
from referee.service import Referee

store = PostgresStore(sys.argv[1])
try:
    print(Referee(store, signer=SIGNER).claim(sys.argv[2], sys.argv[3]).seat)
finally:
    store.close()
"""


@pytest.mark.postgres
@pytest.mark.process
def test_a_write_by_another_process_wakes_a_wait_at_once(
    two: tuple[Referee, Referee], pg_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = two
    created = a.create_game(game="g4")
    seq = b.head("g4")["seq"]
    waiter = Waiter(b, "g4", seq, monkeypatch)
    done = subprocess.run(
        [sys.executable, "-c", CLAIM.format(tests=str(TESTS)), pg_dsn, "g4", created.codes["hera"]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 0 and done.stdout.strip() == "hera", done.stderr
    assert waiter.woken() == b.head("g4")["seq"] > seq, "woken by the other process's notice"


@pytest.mark.postgres
@pytest.mark.process
def test_a_write_through_another_store_reaches_the_live_streams(pg_dsn: str) -> None:
    from test_front import read_all, serving
    from web_helpers import make_app, new_game

    from referee.pgstore import PostgresStore

    ours = make_referee(PostgresStore(pg_dsn))
    ours.bell.poll = SAFETY  # the front's notifier looks this seldom: the notice must wake it
    other = make_referee(PostgresStore(pg_dsn), seed=7)
    app = make_app(ours, SSE_SECONDS=120.0, SSE_HEARTBEAT=60.0, ACCESS_LOG=False)
    created, _ = new_game(app)
    try:
        with serving(app) as (port, server):
            s, head = open_stream(port, created.game)
            got = {s.fileno(): head}
            try:
                assert status(head) == 200
                assert read_all([s], b"event: head", got)
                wait_until(lambda: created.game in ours.bell.watched(), "the notifier runs")
                action = {"do": "deal", "player": "hera", "cards": ["?"] * 9}
                seq = other.submit(created.game, "hera", action).seq
                assert read_all([s], f"id: {seq}\n".encode(), got), (
                    "the stream is told the other store's write"
                )
            finally:
                s.close()
            wait_until(lambda: not server.front.hub.notifiers, "the notifier ends")
        assert ours.bell.watched() == [], "an ended notifier is no longer watched"
    finally:
        ours.store.close()
        other.store.close()


def test_a_read_only_referee_a_commands_opens_no_listening_connection(
    pg_dsn: str, tmp_path: Path
) -> None:
    from referee.service import open_referee

    open_referee(pg_dsn, state=tmp_path).store.close()  # the key, made once
    ref = open_referee(pg_dsn, state=tmp_path, readonly=True)
    try:
        assert getattr(ref.store, "listener", None) is None
    finally:
        ref.store.close()
    ref = open_referee(pg_dsn, state=tmp_path)
    try:
        assert getattr(ref.store, "listener", None) is not None
    finally:
        ref.store.close()
