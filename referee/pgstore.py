"""The PostgreSQL store (issue 35): the :class:`referee.store.Store` contract on a real
database, for several server processes sharing one league.

psycopg 3 with a psycopg-pool connection pool, no ORM: the SQL is here and in numbered
migration files (``referee/migrations/postgres/NNNN_name.sql``), which :func:`upgrade` applies
in order, once each, noting them in ``schema_version`` (``referee db upgrade`` will call it).
A :class:`PostgresStore` refuses a database whose schema is older or newer than this code.

The tables and the stored form are the SQLite store's (``events``, ``secrets``; see
:mod:`referee.store`), so a log reads back the same and moves between the two unchanged.
:meth:`PostgresStore.append` is one transaction with the SQLite store's refusals: a batch not
on the game's head is a :class:`Conflict`, a seat's repeated idempotency key a Conflict naming
the record that holds it (``existing``). Two processes appending to one game at once both pass
the head check; the unique index on (game, seq) then makes the second wait for the first and
fail, and the store reads again to say which refusal it is (another writer was first, or the
key is now taken), as the SQLite store would have said had it waited its turn.

Every committed append notifies :data:`CHANNEL` (one channel for every game: a channel name is
at most 63 bytes, a game id up to 64) with :func:`notice_text` (the store id and its new head
seq); :func:`parse_notice` reads it. The notification leaves with the commit and only with it.
:meth:`PostgresStore.listen` hears them (:class:`Listener`: one daemon thread per store, on a
connection of its own, made again with backoff when it drops, then a resync): the referee rings
its bell for every game another process appended to (:class:`referee.bell.Pushing`).

Storage faults (no server, a refused login, a pool with no free connection in time, a full
disk) raise :class:`StoreError` with one sentence naming the database, never its password.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from importlib import resources
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from referee.log import Entry, Record, stored_entry
from referee.store import (
    CREATED,
    CREATED_AT,
    EVENT_PREFIX,
    ROW,
    Conflict,
    GameHead,
    StoreError,
    check_batch,
    created_seq,
    entry_of,
    key_id,
    row_of,
)

CHANNEL = "referee_heads"
"""The channel every append notifies, with :func:`notice_text` as its payload."""

LISTEN_TICK = 0.5  # seconds the listener waits for a notice before it looks at its stop flag
LISTEN_ALIVE = 15.0  # seconds without a notice after which the listener checks its connection
RECONNECT_FIRST = 0.1  # seconds before the listener's first attempt to connect again
RECONNECT_MAX = 5.0  # the longest wait between two attempts (doubling from RECONNECT_FIRST)
APPLICATION_NAME = "referee-listen"  # the listening session, as pg_stat_activity names it

log = logging.getLogger("referee.pgstore")

_UPGRADE_LOCK = 0x7265_6665_7265_6531  # pg_advisory_xact_lock's key: one upgrade at a time
_MIGRATION = re.compile(r"(\d{4})_([a-z0-9_]+)\.sql")
_NOT_EVENT = EVENT_PREFIX + "%"  # LIKE pattern of the event logs' store ids ('.' is literal)

_Conn = psycopg.Connection[tuple[Any, ...]]
_READ_ONLY = "-c default_transaction_read_only=on"


def notice_text(game: str, seq: int) -> str:
    """The payload of an append's notification: the store id and the head seq it wrote."""
    return json.dumps({"game": game, "seq": seq}, separators=(",", ":"))


def parse_notice(payload: str) -> tuple[str, int]:
    """``(game, seq)`` from a notification's payload. Raises ValueError for anything else."""
    try:
        data = json.loads(payload)
        game, seq = data["game"], data["seq"]
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"not a head notice: {payload!r} ({e})") from None
    if not isinstance(game, str) or not isinstance(seq, int) or isinstance(seq, bool):
        raise ValueError(f"not a head notice: {payload!r}")
    return game, seq


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered SQL file of ``referee/migrations/postgres``."""

    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """The migration files in order (``0001_events.sql`` is version 1). Raises StoreError when
    their numbers are not 1, 2, 3... (a file missing or numbered twice)."""
    folder = resources.files("referee").joinpath("migrations", "postgres")
    found = []
    for f in folder.iterdir():
        m = _MIGRATION.fullmatch(f.name)
        if m is not None:
            found.append(Migration(int(m[1]), m[2], f.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise StoreError(
            f"the PostgreSQL migrations are numbered {[m.version for m in found]}, not 1, 2, 3..."
        )
    return found


def latest_version() -> int:
    """The schema version this code reads and writes: the last migration's."""
    return len(migrations())


def describe(dsn: str) -> str:
    """A connection string as messages name it: database, user and host, never a password.
    Raises StoreError for a string that is not a PostgreSQL connection string."""
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.Error as e:
        raise StoreError(f"not a PostgreSQL connection string ({e})") from None
    db = parts.get("dbname") or parts.get("user") or "postgres"
    host = str(parts.get("host") or "the local socket")
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"PostgreSQL database {db} on {host}{port}"


_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)
"""


def upgrade(dsn: str) -> list[Migration]:
    """Brings the database ``dsn`` names to :func:`latest_version`: every migration not yet
    applied, in order, in one transaction (all or none), each noted in ``schema_version``.
    Two upgrades at once take turns. Returns the migrations applied (none when it was up to
    date). Raises StoreError when the database cannot be reached, a migration fails, or its
    schema is newer than this code."""
    name = describe(dsn)
    wanted = migrations()
    try:
        with psycopg.connect(dsn, autocommit=True) as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_UPGRADE_LOCK,))
            conn.execute(_VERSION_TABLE)
            done = {int(v) for (v,) in conn.execute("SELECT version FROM schema_version")}
            if done and max(done) > len(wanted):
                raise StoreError(
                    f"{name}: its schema is version {max(done)}, newer than this referee's "
                    f"{len(wanted)}; upgrade the referee"
                )
            applied = []
            for m in wanted:
                if m.version in done:
                    continue
                conn.execute(m.sql)  # a script: several statements, no parameters
                conn.execute(
                    "INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                    (m.version, m.name),
                )
                applied.append(m)
    except psycopg.Error as e:
        raise _fault(e, name, "nothing was changed") from None
    return applied


def _fault(e: psycopg.Error, name: str, after: str = "nothing was written") -> StoreError:
    if isinstance(e, PoolTimeout):
        why = "no database connection came free in time"
    elif isinstance(e, pg_errors.DiskFull):
        why = "the database's disk is full"
    elif isinstance(e, pg_errors.ReadOnlySqlTransaction):
        why = "the database is read-only"
    elif isinstance(e, pg_errors.UndefinedTable):
        why = "it has no referee tables (run `referee db upgrade`)"
    elif isinstance(e, psycopg.OperationalError):
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        why = f"the database cannot be reached ({first})"
    else:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        why = f"the database failed ({first})"
    return StoreError(f"{name}: {why}; {after}")


# CREATED as a seq in SQL (NULL when it is not a number, as :func:`created_seq` says)
_CREATED_SEQ = "(CASE WHEN s.value ~ '^-?[0-9]{1,18}$' THEN s.value::bigint END)"
_IDLE = (
    " FROM secrets s WHERE s.name = %s AND s.game NOT LIKE %s"
    f" AND {_CREATED_SEQ} IS NOT NULL AND NOT EXISTS"
    f" (SELECT 1 FROM events e WHERE e.game = s.game AND e.seq > {_CREATED_SEQ})"
)
_INSERT = (
    "INSERT INTO events (game, seq, key, hash, line, hashed, opened, nonce, sig)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_PUT_SECRET = (
    "INSERT INTO secrets (game, name, value) VALUES (%s, %s, %s)"
    " ON CONFLICT (game, name) DO UPDATE SET value = EXCLUDED.value"
)


def _check_schema(conn: _Conn, name: str) -> None:
    """Raises StoreError unless the database's schema is :func:`latest_version` (psycopg.Error
    when the database fails)."""
    want = latest_version()
    try:
        with conn.transaction():
            row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    except pg_errors.UndefinedTable:
        row = None
    have = int(row[0]) if row is not None and row[0] is not None else 0
    if have != want:
        raise StoreError(
            f"{name}: its schema is version {have}, this referee's is {want}; "
            + ("run `referee db upgrade`" if have < want else "upgrade the referee")
        )


Heard = Callable[[str, int], None]
Resync = Callable[[], None]


class Listener:
    """LISTENs on :data:`CHANNEL` in one daemon thread, on a connection of its own (never the
    pool's: a pooled connection is lent to others, and a listening one must stay), autocommit.

    Each notice is handed to every ``heard(game, seq)`` added (:meth:`add`); a payload that is
    not a notice (:func:`parse_notice`) is logged and ignored. The notices of this process's
    own appends are handed on too (ringing a bell twice is harmless, and an append made without
    ringing is heard). When the connection drops (the server restarted, the backend was
    terminated, the network failed) the thread connects again, waiting
    :data:`RECONNECT_FIRST` seconds, then twice as long each time up to :data:`RECONNECT_MAX`,
    and once it LISTENs again calls every ``resync()``: notices sent while it was away are
    lost. It calls them after its first LISTEN too (an append between the caller's look and
    that LISTEN would be lost otherwise). A callback that raises is logged; the thread goes on.
    :meth:`close` stops it within :data:`LISTEN_TICK` seconds and a connection attempt's."""

    def __init__(self, dsn: str, name: str, connect_timeout: int = 5) -> None:
        self.dsn, self.name = dsn, name
        self.connect_timeout = connect_timeout
        self.connects = 0  # LISTENs in place so far (1 + reconnections)
        self.listening = threading.Event()  # set while a connection LISTENs
        self._callbacks: list[tuple[Heard, Resync]] = []
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._pid: int | None = None
        self._thread = threading.Thread(target=self._run, name="referee-listen", daemon=True)

    @property
    def backend_pid(self) -> int | None:
        """The server process of the listening connection (None while not connected)."""
        return self._pid

    def add(self, heard: Heard, resync: Resync) -> None:
        """Hands the notices to ``heard`` and the reconnections to ``resync`` from now on."""
        with self._guard:
            self._callbacks.append((heard, resync))

    def start(self, wait: float = 0.0) -> bool:
        """Starts the thread (once) and waits up to ``wait`` seconds for its first LISTEN.
        Returns whether it LISTENs."""
        with self._guard:
            if not self._thread.is_alive() and not self._stop.is_set():
                self._thread.start()
        return self.listening.wait(wait)

    def close(self) -> None:
        """Stops the thread and closes its connection (within about :data:`LISTEN_TICK`)."""
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(LISTEN_TICK + self.connect_timeout + 1)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        delay = RECONNECT_FIRST
        while not self._stop.is_set():
            try:
                with psycopg.connect(
                    self.dsn,
                    autocommit=True,
                    connect_timeout=self.connect_timeout,
                    application_name=APPLICATION_NAME,
                ) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._pid = conn.info.backend_pid
                    self.connects += 1
                    self.listening.set()
                    delay = RECONNECT_FIRST
                    if self.connects > 1:
                        log.info("%s: listening again; the watched games look again", self.name)
                    self._resync()
                    self._listen(conn)
            except psycopg.Error as e:
                if not self._stop.is_set():
                    log.warning(
                        "%s: not listening (%s); again in %.1fs", self.name, _first(e), delay
                    )
            except Exception:  # never the end of the thread: log, wait, connect again
                log.exception("%s: the listener failed; again in %.1fs", self.name, delay)
            finally:
                self.listening.clear()
                self._pid = None
            self._stop.wait(delay)
            delay = min(delay * 2, RECONNECT_MAX)

    def _listen(self, conn: _Conn) -> None:
        """Hands on the notices until :meth:`close`. Raises psycopg.Error when the connection
        fails."""
        quiet_since = time.monotonic()
        while not self._stop.is_set():
            for n in conn.notifies(timeout=LISTEN_TICK):
                quiet_since = time.monotonic()
                self._heard(n.payload)
                if self._stop.is_set():  # a steady stream of notices: still stop in time
                    return
            if time.monotonic() - quiet_since > LISTEN_ALIVE:
                conn.execute("SELECT 1")  # a connection gone silently fails here
                quiet_since = time.monotonic()

    def _heard(self, payload: str) -> None:
        try:
            game, seq = parse_notice(payload)
        except ValueError as e:
            log.warning("%s: ignored on %s: %s", self.name, CHANNEL, e)
            return
        with self._guard:
            callbacks = list(self._callbacks)
        for heard, _ in callbacks:
            try:
                heard(game, seq)
            except Exception:
                log.exception("%s: a listener failed on game %s", self.name, game)

    def _resync(self) -> None:
        with self._guard:
            callbacks = list(self._callbacks)
        for _, resync in callbacks:
            try:
                resync()
            except Exception:
                log.exception("%s: a listener failed to resync", self.name)


def _first(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


class PostgresStore:
    """The store on PostgreSQL: a pool of ``min_size`` to ``max_size`` connections to the
    database ``dsn`` names (a libpq connection string or a ``postgresql://`` URI), each in
    autocommit, an append its own transaction. ``timeout``: how long a call waits for a free
    connection (and the first connections to open).

    Raises StoreError when the database cannot be reached or its schema is not this code's
    (:func:`upgrade` brings it there)."""

    def __init__(
        self,
        dsn: str,
        *,
        min_size: int = 1,
        max_size: int = 8,
        timeout: float = 10.0,
        readonly: bool = False,
    ) -> None:
        self.name = describe(dsn)
        self.readonly = readonly
        self._dsn, self._timeout = dsn, timeout
        self._listener: Listener | None = None
        self._closed = False
        self._guard = threading.Lock()
        try:  # one connection first: its error says why (the pool's would say "timed out")
            with psycopg.connect(dsn, connect_timeout=max(1, round(timeout))) as conn:
                _check_schema(conn, self.name)
        except psycopg.Error as e:
            raise _fault(e, self.name, "nothing was read") from None
        self._pool: ConnectionPool[_Conn] = ConnectionPool(
            dsn,
            min_size=min_size,
            max_size=max(max_size, min_size),
            # read-only: every transaction of the pool's sessions is, so the server refuses a write
            kwargs={"autocommit": True, **({"options": _READ_ONLY} if readonly else {})},
            timeout=timeout,
            open=False,
            name="referee",
            # a connection is checked before it is lent (one round trip): after the server
            # restarts, the first call gets a new connection instead of failing on a dead one
            check=ConnectionPool.check_connection,
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
        except psycopg.Error as e:
            self._pool.close()
            raise _fault(e, self.name, "nothing was read") from None

    def connection(self, timeout: float | None = None) -> AbstractContextManager[_Conn]:
        """A connection of the store's pool for the block (in autocommit), for the other
        tables of the same database (the rates' counters: :mod:`referee.pgrates`), waiting at
        most ``timeout`` seconds (default: the store's) for one to come free. Raises
        psycopg.Error (a PoolTimeout when none came free) for the caller to name."""
        return self._pool.connection(timeout=timeout)

    # ---- writing --------------------------------------------------------------------------

    def append(self, records: Sequence[Record], secrets: Mapping[str, str] | None = None) -> None:
        """Appends in one transaction and notifies :data:`CHANNEL` (see :class:`Store`).
        Raises Conflict or StoreError; nothing is written then."""
        if not records:
            raise StoreError("nothing to append")
        self._writable()
        rows = [row_of(r) for r in records]
        try:
            with self._pool.connection() as conn:
                try:
                    with conn.transaction():
                        self._insert(conn, records, rows, secrets)
                except pg_errors.UniqueViolation:
                    raise self._lost_race(conn, records) from None
        except psycopg.Error as e:
            raise _fault(e, self.name) from None

    def _insert(
        self,
        conn: _Conn,
        records: Sequence[Record],
        rows: list[tuple[object, ...]],
        secrets: Mapping[str, str] | None,
    ) -> None:
        """One append's checks, rows and notification, inside its transaction. Raises
        Conflict, StoreError or psycopg.Error (a UniqueViolation when another writer won)."""
        game = records[0].game
        head = conn.execute(
            "SELECT seq, hash FROM events WHERE game = %s ORDER BY seq DESC LIMIT 1", (game,)
        ).fetchone()
        check_batch((int(head[0]), str(head[1])) if head else None, records)
        used = self._holders(conn, game, records)
        if used is not None:
            raise used
        with conn.cursor() as cur:
            cur.executemany(_INSERT, rows)
            if secrets:
                cur.executemany(_PUT_SECRET, [(game, n, v) for n, v in secrets.items()])
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, notice_text(game, records[-1].seq)))

    def _holders(self, conn: _Conn, game: str, records: Sequence[Record]) -> Conflict | None:
        """The refusal for the first of ``records`` whose key its seat used before, if any."""
        keys = [k for k in (key_id(r) for r in records) if k is not None]
        if not keys:
            return None
        hits = {
            str(row[0]): row[1:]
            for row in conn.execute(
                f"SELECT key, {ROW} FROM events WHERE game = %s AND key = ANY(%s)", (game, keys)
            ).fetchall()
        }
        for r in records:
            k = key_id(r)
            if k is not None and k in hits:
                old = self._record(game, hits[k])
                return Conflict(f"key {r.key!r} was already applied as event {old.seq}", old)
        return None

    def _lost_race(self, conn: _Conn, records: Sequence[Record]) -> Conflict:
        """The refusal of an append that another writer beat to its seq or key: the key's
        holder when the key is now taken, else a stale submission."""
        used = self._holders(conn, records[0].game, records)
        return used or Conflict("stale submission: another writer appended first")

    def _writable(self) -> None:
        if self.readonly:
            raise StoreError(f"{self.name}: opened read-only; nothing was written")

    def put_secret(self, game: str, name: str, value: str) -> None:
        self._writable()
        try:
            with self._pool.connection() as conn:
                conn.execute(_PUT_SECRET, (game, name, value))
        except psycopg.Error as e:
            raise _fault(e, self.name) from None

    # ---- reading --------------------------------------------------------------------------

    def _query(self, sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        try:
            with self._pool.connection() as conn:
                return conn.execute(sql, args).fetchall()
        except psycopg.Error as e:
            raise _fault(e, self.name, "nothing was read") from None

    def _record(self, game: str, row: tuple[Any, ...]) -> Record:
        """The record of a row (``ROW``'s columns). Raises StoreError when it is unreadable."""
        try:
            return entry_of(row).record()
        except (ValueError, TypeError) as e:
            raise StoreError(
                f"{self.name}: game {game!r} holds an unreadable record ({e})"
            ) from None

    def records(self, game: str, after: int = -1, upto: int | None = None) -> list[Record]:
        rows = self._query(
            f"SELECT {ROW} FROM events WHERE game = %s AND seq > %s AND seq <= %s ORDER BY seq",
            (game, after, upto if upto is not None else 2**62),
        )
        return [self._record(game, row) for row in rows]

    def entries(self, game: str) -> list[Entry]:
        rows = self._query(f"SELECT {ROW} FROM events WHERE game = %s ORDER BY seq", (game,))
        out: list[Entry] = []
        try:
            for row in rows:
                hash_, line, data, opened, nonce, sig = row
                if data is not None and line == "":
                    out.append(stored_entry(data, opened, nonce, sig, hash_))
                else:
                    out.append(entry_of(row))
        except (ValueError, TypeError) as e:
            raise StoreError(
                f"{self.name}: game {game!r} holds an unreadable record ({e})"
            ) from None
        return out

    def head(self, game: str) -> tuple[int, str] | None:
        rows = self._query(
            "SELECT seq, hash FROM events WHERE game = %s ORDER BY seq DESC LIMIT 1", (game,)
        )
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def look(self, game: str) -> tuple[tuple[int, str] | None, dict[str, str]]:
        rows = self._query(
            "SELECT 0, seq::text, hash FROM (SELECT seq, hash FROM events WHERE game = %s"
            " ORDER BY seq DESC LIMIT 1) h"
            " UNION ALL SELECT 1, name, value FROM secrets WHERE game = %s",
            (game, game),
        )
        head = next(((int(a), str(b)) for k, a, b in rows if k == 0), None)
        return head, {str(a): str(b) for k, a, b in rows if k == 1}

    def games(self) -> list[str]:
        rows = self._query(
            "SELECT DISTINCT game FROM events WHERE game NOT LIKE %s ORDER BY game", (_NOT_EVENT,)
        )
        return [str(r[0]) for r in rows]

    def event_logs(self) -> list[str]:
        rows = self._query(
            "SELECT DISTINCT game FROM events WHERE game LIKE %s ORDER BY game", (_NOT_EVENT,)
        )
        return [str(r[0]) for r in rows]

    def heads(self, moved: bool = False) -> list[GameHead]:
        rows = self._query(
            "SELECT e.game, e.seq, e.hash, s.value FROM events e"
            " JOIN (SELECT game, MAX(seq) AS last FROM events"
            " WHERE game NOT LIKE %s GROUP BY game) h"
            " ON e.game = h.game AND e.seq = h.last"
            " LEFT JOIN secrets s ON s.game = e.game AND s.name = %s"
            + (f" WHERE {_CREATED_SEQ} IS NULL OR e.seq > {_CREATED_SEQ}" if moved else "")
            + " ORDER BY e.game",
            (_NOT_EVENT, CREATED),
        )
        return [GameHead(str(g), int(q), str(h), created_seq(c)) for g, q, h, c in rows]

    def idle(self, limit: int = 0, offset: int = 0) -> tuple[int, list[str]]:
        total = int(self._query("SELECT COUNT(*)" + _IDLE, (CREATED, _NOT_EVENT))[0][0])
        if limit <= 0:
            return total, []
        rows = self._query(
            "SELECT s.game" + _IDLE + " ORDER BY s.game LIMIT %s OFFSET %s",
            (CREATED, _NOT_EVENT, limit, offset),
        )
        return total, [str(r[0]) for r in rows]

    def idle_since(self, since: str | None) -> tuple[int, str | None]:
        row = self._query(
            "SELECT COUNT(*), MIN(t.value) FROM secrets s"
            " LEFT JOIN secrets t ON t.game = s.game AND t.name = %s"
            " WHERE s.name = %s AND s.game NOT LIKE %s"
            f" AND {_CREATED_SEQ} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM events e"
            f" WHERE e.game = s.game AND e.seq > {_CREATED_SEQ})"
            + ("" if since is None else " AND t.value >= %s"),
            (CREATED_AT, CREATED, _NOT_EVENT) + (() if since is None else (since,)),
        )[0]
        return int(row[0]), None if row[1] is None else str(row[1])

    def by_key(self, game: str, seat: str, key: str) -> Record | None:
        rows = self._query(
            f"SELECT {ROW} FROM events WHERE game = %s AND key = %s", (game, f"{seat}:{key}")
        )
        return self._record(game, rows[0]) if rows else None

    def secrets(self, game: str) -> dict[str, str]:
        rows = self._query("SELECT name, value FROM secrets WHERE game = %s", (game,))
        return {str(r[0]): str(r[1]) for r in rows}

    # ---- news of other processes ----------------------------------------------------------

    def listen(self, heard: Heard, resync: Resync) -> None:
        """Calls ``heard(game, seq)`` for every append committed to the database, by any
        process (this one's too), and ``resync()`` once the listening connection LISTENs, first
        and after each reconnection (notices may have been missed meanwhile): in this store's
        one :class:`Listener` thread, started by the first call, which waits up to the store's
        ``timeout`` for the first LISTEN. :meth:`close` stops it (:class:`referee.bell.Pushing`).
        """
        with self._guard:
            if self._closed:
                raise StoreError(f"{self.name}: the store is closed; nothing can listen")
            if self._listener is None:
                self._listener = Listener(
                    self._dsn, self.name, connect_timeout=max(1, round(self._timeout))
                )
            listener = self._listener
        listener.add(heard, resync)
        if not listener.start(wait=self._timeout):
            log.warning("%s: not listening yet; it keeps trying", self.name)

    @property
    def listener(self) -> Listener | None:
        """The listener thread, once :meth:`listen` started it."""
        return self._listener

    def close(self) -> None:
        with self._guard:
            self._closed = True
        if self._listener is not None:
            self._listener.close()
        self._pool.close()
