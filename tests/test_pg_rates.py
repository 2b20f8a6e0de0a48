"""Rate limits that hold across server processes (issue 35): the request rates counted in the
referee's PostgreSQL database (``referee.pgrates.PostgresRates``), one count for every process.

It decides as limits' own memory storage decides, hit for hit, on a fake clock; two storages
on one database (two processes) share one count; many threads racing on one key never pass its
limit; two apps on one database (two processes) refuse a seat on one for what it spent on the
other; a database fault makes a process count alone, never a 500.
"""

from __future__ import annotations

import logging
import re
import threading
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, Storage
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter, RateLimiter
from service_helpers import make_referee
from web_helpers import Browser, make_app, new_game

from referee.pgrates import PostgresRates
from referee.pgstore import PostgresStore

pytestmark = pytest.mark.postgres

LIMITS = [parse("2 per 3 seconds"), parse("3 per 5 seconds")]


class Clock:
    """A fake clock, in seconds since 1970, moved by hand."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class SteadyMemory(MemoryStorage):
    """limits' memory storage without its background expiry (a timer thread on the real clock):
    on a fake clock it then answers by its hits alone, as it does on the real clock save at the
    exact instant a hit leaves the window."""

    def __init__(self) -> None:
        super().__init__()
        self.timer.cancel()

    def _MemoryStorage__schedule_expiry(self) -> None:
        pass


@pytest.fixture
def store(pg_dsn: str) -> Iterator[PostgresStore]:
    s = PostgresStore(pg_dsn)
    yield s
    s.close()


def rates_of(store: PostgresStore, **kw: Any) -> PostgresRates:
    return PostgresRates(store=store, **kw)


# ---- the same decisions as the memory storage ----------------------------------------------

Op = tuple[str, int, str, int]  # (what, which limit, who, cost or seconds to wait)

ops = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from(["hit", "hit", "test", "stats"]),
            st.integers(0, len(LIMITS) - 1),
            st.sampled_from(["a", "b"]),
            st.integers(1, 2),
        ),
        st.tuples(st.just("wait"), st.just(0), st.just(""), st.sampled_from([1, 2, 3, 5])),
        st.tuples(st.just("clear"), st.integers(0, len(LIMITS) - 1), st.just("a"), st.just(0)),
    ),
    max_size=40,
)


def answers(limiter: RateLimiter, storage: Storage, clock: Clock, run: list[Op]) -> list[Any]:
    """What ``limiter`` over ``storage`` answers along ``run`` (the reset time of a window
    with nothing in it left out: the memory storage then names a stale hit or now)."""
    out: list[Any] = []
    for what, i, who, n in run:
        item: RateLimitItem = LIMITS[i]
        if what == "wait":
            clock.now += n
        elif what == "hit":
            out.append(("hit", limiter.hit(item, who, cost=n)))
        elif what == "test":
            out.append(("test", limiter.test(item, who, cost=n)))
        elif what == "clear":
            storage.clear(item.key_for(who))
        else:
            reset, remaining = limiter.get_window_stats(item, who)
            out.append(("stats", remaining, reset if remaining < item.amount else None))
    return out


def hits(*steps: str) -> list[Op]:
    """A run from steps such as ``"hit a 2"`` (limit 0, who, cost), ``"wait 3"``, ``"stats a"``,
    ``"test a 1"``, ``"clear a"``."""
    run: list[Op] = []
    for step in steps:
        what, *rest = step.split()
        if what == "wait":
            run.append(("wait", 0, "", int(rest[0])))
        else:
            run.append((what, 0, rest[0], int(rest[1]) if len(rest) > 1 else 1))
    return run


CASES = {  # limit 0: 2 per 3 seconds
    "a full window refuses": hits("hit a 1", "hit a 1", "hit a 1", "stats a"),
    "a hit exactly one window old still counts": hits("hit a 2", "wait 3", "hit a 1"),
    "a hit one window old is not in the stats": hits("hit a 2", "wait 3", "stats a", "test a"),
    "a cost above the limit is refused": hits("hit a 3", "stats a"),
    "a cost that does not fit is refused whole": hits("hit a 1", "hit a 2", "hit a 1"),
    "the window slides hit by hit": hits(
        "hit a 1", "wait 1", "hit a 1", "wait 1", "hit a 1", "wait 2", "hit a 1", "hit a 1"
    ),
    "each caller its own window": hits("hit a 2", "hit b 2", "hit a 1", "stats b"),
    "a cleared key starts again": hits("hit a 2", "clear a", "hit a 2", "stats a"),
}


@pytest.mark.parametrize("strategy", [MovingWindowRateLimiter, FixedWindowRateLimiter])
@pytest.mark.parametrize("run", CASES.values(), ids=CASES.keys())
def test_the_storage_decides_as_the_memory_storage_in_each_case(
    store: PostgresStore,
    monkeypatch: pytest.MonkeyPatch,
    strategy: type[RateLimiter],
    run: list[Op],
) -> None:
    clock = Clock()
    monkeypatch.setattr("limits.storage.memory.time", types.SimpleNamespace(time=clock))
    memory = SteadyMemory()
    expected = answers(strategy(memory), memory, clock, run)
    clock.now = 1_000_000.0
    rates = rates_of(store, clock=clock)
    assert answers(strategy(rates), rates, clock, run) == expected


@pytest.mark.parametrize("strategy", [MovingWindowRateLimiter, FixedWindowRateLimiter])
def test_the_storage_decides_as_limits_memory_storage_does(
    store: PostgresStore, monkeypatch: pytest.MonkeyPatch, strategy: type[RateLimiter]
) -> None:
    clock = Clock()
    monkeypatch.setattr("limits.storage.memory.time", types.SimpleNamespace(time=clock))
    rates = rates_of(store, clock=clock)

    @settings(
        max_examples=300,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(run=ops)
    def same(run: list[Op]) -> None:
        rates.reset()
        memory = SteadyMemory()
        clock.now = 1_000_000.0
        expected = answers(strategy(memory), memory, clock, run)
        clock.now = 1_000_000.0
        assert answers(strategy(rates), rates, clock, run) == expected

    same()


# ---- one count for every process -----------------------------------------------------------


def test_two_processes_on_one_database_share_one_count(pg_dsn: str) -> None:
    first, second = PostgresStore(pg_dsn), PostgresStore(pg_dsn)
    try:
        a, b = MovingWindowRateLimiter(rates_of(first)), MovingWindowRateLimiter(rates_of(second))
        five = parse("5 per minute")
        for _ in range(3):
            assert a.hit(five, "seat g hera")
        assert b.get_window_stats(five, "seat g hera").remaining == 2
        assert b.hit(five, "seat g hera") and a.hit(five, "seat g hera")
        assert not b.hit(five, "seat g hera")  # the first and second spent five together
        assert not a.test(five, "seat g hera")
        assert b.hit(five, "seat g zeus")  # another seat: its own window
    finally:
        first.close()
        second.close()


def test_many_threads_in_two_processes_never_pass_the_limit(pg_dsn: str) -> None:
    stores = [PostgresStore(pg_dsn, max_size=4), PostgresStore(pg_dsn, max_size=4)]
    try:
        limiters = [MovingWindowRateLimiter(rates_of(s)) for s in stores]
        limit, threads, each = parse("30 per minute"), 12, 8
        start = threading.Barrier(threads)
        passed: list[bool] = []
        lock = threading.Lock()

        def hammer(n: int) -> None:
            limiter = limiters[n % 2]
            start.wait(timeout=60)
            got = [limiter.hit(limit, "address 10.0.0.1") for _ in range(each)]
            with lock:
                passed.extend(got)

        workers = [threading.Thread(target=hammer, args=(n,)) for n in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=120)
        assert len(passed) == threads * each
        assert passed.count(True) == 30
    finally:
        for s in stores:
            s.close()


def test_the_acquire_keeps_only_the_hits_that_count_and_the_prune_drops_dead_keys(
    store: PostgresStore,
) -> None:
    clock = Clock()
    rates = rates_of(store, clock=clock)
    for _ in range(3):
        assert rates.acquire_entry("busy", 5, 10)
    assert rates.acquire_entry("idle", 5, 10)
    clock.now += 11
    assert rates.acquire_entry("busy", 5, 10)  # the three old hits are dropped by this one
    with store.connection() as conn:
        kept = conn.execute("SELECT cardinality(hits) FROM rate_hits WHERE key = 'busy'")
        assert kept.fetchone() == (1,)
    assert rates.prune() == 1  # "idle": nothing in it counts any more
    with store.connection() as conn:
        keys = conn.execute("SELECT key FROM rate_hits").fetchall()
    assert keys == [("busy",)]
    assert rates.get_moving_window("busy", 5, 10) == (clock.now, 1)


def test_the_counters_table_is_unlogged(store: PostgresStore) -> None:
    with store.connection() as conn:
        row = conn.execute("SELECT relpersistence FROM pg_class WHERE relname = 'rate_hits'")
        assert row.fetchone() == ("u",)


# ---- a database fault ----------------------------------------------------------------------


def test_a_database_fault_makes_the_process_count_alone_and_says_so(
    store: PostgresStore, caplog: pytest.LogCaptureFixture
) -> None:
    rates = rates_of(store, retry_after=0.0)
    assert rates.acquire_entry("k", 2, 60)
    with store.connection() as conn:
        conn.execute("ALTER TABLE rate_hits RENAME TO rate_hits_away")
    with caplog.at_level(logging.WARNING, logger="referee.pgrates"):
        assert rates.acquire_entry("k", 2, 60)  # in memory now: a count of its own
        assert rates.acquire_entry("k", 2, 60)
        assert not rates.acquire_entry("k", 2, 60)
    assert any("counts the rates alone" in r.getMessage() for r in caplog.records)
    assert "password" not in caplog.text
    with store.connection() as conn:
        conn.execute("ALTER TABLE rate_hits_away RENAME TO rate_hits")
    assert rates.acquire_entry("k", 2, 60)  # the database again: its count was one
    assert not rates.acquire_entry("k", 2, 60)


def test_the_storage_needs_the_store() -> None:
    with pytest.raises(ValueError, match="PostgresStore as store="):
        PostgresRates("referee+postgresql://")


# ---- two apps (two processes) on one database ----------------------------------------------


Apps = Callable[..., Flask]


@pytest.fixture
def pg_app(pg_dsn: str) -> Iterator[Apps]:
    """Makes an app over its own PostgresStore on the test's database (a server process of its
    own); their stores are closed after."""
    stores: list[PostgresStore] = []

    def new(**config: Any) -> Flask:
        stores.append(PostgresStore(pg_dsn))
        return make_app(make_referee(stores[-1]), **config)

    yield new
    for s in stores:
        s.close()


def test_a_seat_that_spent_its_rate_on_one_process_is_refused_on_the_other(pg_app: Apps) -> None:
    app_a = pg_app(RATE_SEAT="5 per minute", RATE_ADDRESS="1000 per minute")
    app_b = pg_app(RATE_SEAT="5 per minute", RATE_ADDRESS="1000 per minute")
    created, on_a = new_game(app_a)
    game = created.game
    hera_b, zeus_b = Browser(app_b), Browser(app_b)  # the same devices, through process B
    for seat, b in (("hera", hera_b), ("zeus", zeus_b)):
        cookie = on_a[seat].client.get_cookie(f"hz_{game}")
        assert cookie is not None
        b.client.set_cookie(f"hz_{game}", cookie.value)
    for _ in range(3):
        assert on_a["hera"].get(f"/api/v1/games/{game}").status_code == 200
    for _ in range(2):
        assert hera_b.get(f"/api/v1/games/{game}").status_code == 200
    r = hera_b.get(f"/api/v1/games/{game}")
    assert r.status_code == 429 and "one seat" in str(r.json)
    assert on_a["hera"].get(f"/api/v1/games/{game}").status_code == 429
    assert zeus_b.get(f"/api/v1/games/{game}").status_code == 200  # his own window


def test_a_database_fault_under_the_app_is_no_500(pg_app: Apps, pg_dsn: str) -> None:
    app = pg_app(RATE_SEAT="3 per minute", RATE_ADDRESS="1000 per minute")
    created, b = new_game(app)
    game = created.game
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("ALTER TABLE rate_hits RENAME TO rate_hits_away")
    got = [b["hera"].get(f"/api/v1/games/{game}").status_code for _ in range(4)]
    assert got == [200, 200, 200, 429]  # counted in this process's memory meanwhile


@pytest.mark.process
def test_two_referee_serve_processes_on_one_database_count_a_seat_once(
    tmp_path: Path, pg_dsn: str
) -> None:
    from test_serve import Server, get, join

    state = ["--state", str(tmp_path / "league"), "--seat-rate", "5 per minute"]
    a = Server(pg_dsn, *state, "--demo")  # type: ignore[arg-type]
    b: Server | None = None
    try:
        b = Server(pg_dsn, *state)  # type: ignore[arg-type]
        links = dict(re.findall(r"^(Hera|Zeus|Public)\s+(\S+)$", a.text, re.M))
        game = links["Public"].rsplit("/", 1)[1]
        hera = join(a.port, links["Hera"])
        seen = [get(a.port, f"/api/v1/games/{game}", hera).status for _ in range(3)]
        seen += [get(b.port, f"/api/v1/games/{game}", hera).status for _ in range(2)]
        assert seen == [200] * 5
        assert get(b.port, f"/api/v1/games/{game}", hera).status == 429
        assert get(a.port, f"/api/v1/games/{game}", hera).status == 429
    finally:
        for s in (a, b):
            if s is not None and s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait(timeout=20)
