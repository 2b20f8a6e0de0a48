"""The request rates' counters in PostgreSQL (issue 35): one count for every server process on
one database, where ``memory://`` gives each process its own (N processes behind one address
let a client ask N times its rate).

:class:`PostgresRates` is a storage of the ``limits`` package (the one under Flask-Limiter) for
its moving window (:class:`limits.strategies.MovingWindowRateLimiter`, which the web app uses)
and its fixed window (``incr``/``get``), over the table ``rate_hits`` of
``migrations/postgres/0002_rates.sql`` and through the connection pool of the referee's
:class:`referee.pgstore.PostgresStore` (no second pool). It answers what limits'
``MemoryStorage`` answers for the same hits at the same times: an acquire is refused when
``amount`` more hits would make more than ``limit`` hits at or after ``now - expiry``;
:meth:`~PostgresRates.get_moving_window` counts the hits after ``now - expiry`` and names the
oldest of them (or ``(now, 0)``).

Across processes: an acquire is one call of the SQL function ``rate_acquire``, so one
transaction, which first takes ``pg_advisory_xact_lock(1918989413, hashtext(key))`` (the
two-number form, apart from the one-number locks such as the upgrade's): two processes hitting
one key take turns, and only one of them can take the last slot (two keys whose hashes collide
merely take turns too). The times are the database's clock (``clock_timestamp()``), one clock
for every process whatever the hosts' clocks say; ``clock`` replaces it (the tests' fake
clock). The acquire keeps only its key's hits that can still count; every ``prune_every``
seconds one of a process's calls also deletes every row past its ``expires`` (an index scan).

A database fault never becomes a 500 nor a refusal: the storage **fails over to this process's
own memory** (limits' ``MemoryStorage``, today's behaviour without PostgreSQL) with one logged
warning, for ``retry_after`` seconds, then asks the database again (and logs when it answers).
Failing open entirely would leave a flood unmetered exactly when the server is weakest; a 503
would lock every client out for a fault of the counters alone, though the request itself may
need nothing the database cannot give it (its own store call decides that and says so). While
failed over, each process counts alone, as ``memory://`` does; the hits counted then are not
carried back.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import psycopg
from limits.storage import MemoryStorage, MovingWindowSupport, Storage

from referee.pgstore import PostgresStore

log = logging.getLogger("referee.pgrates")

SCHEME = "referee+postgresql"
"""The storage URI's scheme (``referee+postgresql://``; the store comes as ``store=``)."""

T = TypeVar("T")

_NOW = "COALESCE(%(at)s::float8, extract(epoch FROM clock_timestamp()))"
_WINDOW = (
    f"SELECT c.t, count(h), min(h) FROM (SELECT {_NOW} AS t) c"
    " LEFT JOIN rate_hits r ON r.key = %(k)s"
    " LEFT JOIN LATERAL unnest(r.hits) h ON h > c.t - %(e)s::float8"
    " GROUP BY c.t"
)
_GET = (
    f"SELECT c.t, r.value, r.expires FROM (SELECT {_NOW} AS t) c"
    " LEFT JOIN rate_hits r ON r.key = %(k)s AND r.expires > c.t AND r.value > 0"
)
_PRUNE = f"DELETE FROM rate_hits WHERE expires < {_NOW}"


class PostgresRates(Storage, MovingWindowSupport):
    """The rate counters of ``store``'s database (see the module's docstring).

    ``clock``: seconds since 1970 for every hit (None: the database's clock). ``timeout``:
    how long a call waits for one of the store's connections before it fails over to memory.
    ``prune_every``: seconds between this process's global prunes. ``retry_after``: seconds
    counted in memory after a fault before the database is asked again.

    Raises ValueError when ``store`` is missing (a ``referee+postgresql://`` URI alone names
    no database: the store brings it)."""

    STORAGE_SCHEME = [SCHEME]  # noqa: RUF012 (limits reads it from the class body)

    def __init__(
        self,
        uri: str | None = None,
        wrap_exceptions: bool = False,
        *,
        store: PostgresStore | None = None,
        clock: Callable[[], float] | None = None,
        timeout: float = 2.0,
        prune_every: float = 60.0,
        retry_after: float = 5.0,
        **options: float | str | bool,
    ) -> None:
        if store is None:
            raise ValueError(
                f"{SCHEME}:// counts in the referee's PostgreSQL database: pass its "
                "PostgresStore as store="
            )
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.store = store
        self.clock = clock
        self.timeout = timeout
        self.prune_every = prune_every
        self.retry_after = retry_after
        self._lock = threading.Lock()
        self._next_prune = time.monotonic() + prune_every
        self._down_until: float | None = None  # monotonic time to ask the database again
        self._memory: MemoryStorage | None = None

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return psycopg.Error

    # ---- the database, or this process's memory when it fails ------------------------------

    def _args(self, key: str, **more: Any) -> dict[str, Any]:
        return {"k": key, "at": self.clock() if self.clock is not None else None, **more}

    def _fallback(self) -> MemoryStorage:
        with self._lock:
            if self._memory is None:
                self._memory = MemoryStorage()
            return self._memory

    def is_failed_over(self) -> bool:
        """True while this process counts in its own memory after a database fault."""
        down = self._down_until
        return down is not None and time.monotonic() < down

    def _ask(self, work: Callable[[psycopg.Connection[Any]], T], memory: Callable[[], T]) -> T:
        """``work`` on one of the store's connections; ``memory``'s answer while the database
        fails (a warning when it starts failing, a note when it answers again)."""
        if self.is_failed_over():
            return memory()
        try:
            with self.store.connection(self.timeout) as conn:
                answer = work(conn)
                self._maybe_prune(conn)
        except psycopg.Error as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            if self._down_until is None:
                log.warning(
                    "rate limits: %s failed (%s); this process counts the rates alone, in its "
                    "memory, asking the database again every %g s",
                    self.store.name,
                    first,
                    self.retry_after,
                )
            self._down_until = time.monotonic() + self.retry_after
            return memory()
        if self._down_until is not None:
            self._down_until = None
            log.warning("rate limits: %s answers again; counted there", self.store.name)
        return answer

    def _maybe_prune(self, conn: psycopg.Connection[Any]) -> None:
        now = time.monotonic()
        with self._lock:
            if now < self._next_prune:
                return
            self._next_prune = now + self.prune_every
        try:  # the answer stands: a prune that fails is tried again next time
            conn.execute(_PRUNE, self._args(""))
        except psycopg.Error as e:
            log.warning("rate limits: pruning %s failed (%s)", self.store.name, e)

    def prune(self) -> int:
        """Deletes every key's row that answers nothing any more; returns how many. Raises
        psycopg.Error when the database fails."""
        with self.store.connection(self.timeout) as conn:
            return conn.execute(_PRUNE, self._args("")).rowcount

    # ---- the moving window -----------------------------------------------------------------

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        """Takes ``amount`` hits of ``key``'s window of ``expiry`` seconds unless that makes
        more than ``limit``; True when taken."""
        if amount > limit:
            return False

        def work(conn: psycopg.Connection[Any]) -> bool:
            row = conn.execute(
                "SELECT rate_acquire(%(k)s, %(n)s::int, %(e)s::float8, %(a)s::int, %(at)s)",
                self._args(key, n=limit, e=expiry, a=amount),
            ).fetchone()
            return bool(row and row[0])

        return self._ask(work, lambda: self._fallback().acquire_entry(key, limit, expiry, amount))

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        """``(the oldest hit counted, how many)`` in ``key``'s last ``expiry`` seconds, or
        ``(now, 0)``."""

        def work(conn: psycopg.Connection[Any]) -> tuple[float, int]:
            row = conn.execute(_WINDOW, self._args(key, e=expiry)).fetchone()
            assert row is not None
            now, count, oldest = row
            return (float(oldest), int(count)) if count else (float(now), 0)

        return self._ask(work, lambda: self._fallback().get_moving_window(key, limit, expiry))

    # ---- the fixed window ------------------------------------------------------------------

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        def work(conn: psycopg.Connection[Any]) -> int:
            row = conn.execute(
                "SELECT rate_incr(%(k)s, %(e)s::float8, %(a)s::int, %(at)s)",
                self._args(key, e=expiry, a=amount),
            ).fetchone()
            assert row is not None
            return int(row[0])

        return self._ask(work, lambda: self._fallback().incr(key, expiry, amount))

    def _counter(self, key: str) -> tuple[float, int, float | None]:
        def work(conn: psycopg.Connection[Any]) -> tuple[float, int, float | None]:
            row = conn.execute(_GET, self._args(key)).fetchone()
            assert row is not None
            now, value, expires = row
            if value is None:
                return float(now), 0, None
            return float(now), int(value), float(expires)

        def memory() -> tuple[float, int, float | None]:
            m = self._fallback()
            value = m.get(key)
            return time.time(), value, m.get_expiry(key) if value else None

        return self._ask(work, memory)

    def get(self, key: str) -> int:
        return self._counter(key)[1]

    def get_expiry(self, key: str) -> float:
        now, _, expires = self._counter(key)
        return expires if expires is not None else now

    # ---- the whole storage -----------------------------------------------------------------

    def check(self) -> bool:
        try:
            with self.store.connection(self.timeout) as conn:
                conn.execute("SELECT 1 FROM rate_hits LIMIT 1")
        except psycopg.Error:
            return False
        return True

    def clear(self, key: str) -> None:
        def work(conn: psycopg.Connection[Any]) -> None:
            conn.execute("DELETE FROM rate_hits WHERE key = %s", (key,))

        self._ask(work, lambda: self._fallback().clear(key))

    def reset(self) -> int | None:
        def work(conn: psycopg.Connection[Any]) -> int:
            return conn.execute("DELETE FROM rate_hits").rowcount

        return self._ask(work, lambda: self._fallback().reset())
