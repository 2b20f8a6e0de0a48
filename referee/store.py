"""Where logs live: a small storage interface, an SQLite store (default) and an in-memory one.

One call to :meth:`Store.append` is one transaction: all its records (and the secrets that go
with them) are written, or none. In the SQLite store the write is durable when the call returns
(WAL, ``synchronous=FULL``). Records whose first seq is not the next one (a stale submission, or
another process wrote first) or whose idempotency key that seat used before are refused with
:class:`Conflict`, and nothing is written. Each thread has its own SQLite connection, so reads
never wait for writes (WAL) and writes to different games wait only on SQLite's own write lock.

Storage faults (a full disk, a read-only file, a database locked too long, a file that is not a
database) raise :class:`StoreError` with one sentence; nothing is half written.

**The stored form.** The SQLite store keeps each record as the exact bytes its hash is over
(``hashed``), its sealed values (``opened``), its nonce and its signature
(:class:`referee.log.Stored`), so loading a game checks each hash over the stored bytes instead
of rebuilding and re-serialising every record. Rows written before that form (a JSON ``line``)
are read as before; opening a database for writing adds the columns by itself (nothing else
changes: the old rows stay as they are, and the log and its exports are the same).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from referee.log import Entry, Record, stored_entry, stored_form

MMAP_BYTES = 256 * 1024 * 1024  # how much of an SQLite file each connection maps for reading

log = logging.getLogger("referee.store")


class StoreError(Exception):
    """Storage failed or was asked something impossible. The message is one sentence."""


class Conflict(StoreError):
    """The append was refused: stale seq or a repeated idempotency key. ``existing`` is the
    record already holding that key, when that is the cause."""

    def __init__(self, message: str, existing: Record | None = None) -> None:
        super().__init__(message)
        self.existing = existing


def key_id(r: Record) -> str | None:
    """The stored idempotency key: per seat (another seat's same key is another key)."""
    return f"{r.seat}:{r.key}" if isinstance(r.key, str) else None


EVENT_PREFIX = "event."
"""Store ids starting so hold an event's log (:mod:`referee.event.log`), not a game: a '.' is
in no game id. Every listing of games leaves them out."""

CREATED = "created"  # a game's secret: the seq its creation's records end at (issue 31)
# a game's secret, written with CREATED: when the creation was recorded (:func:`utc_text`); an
# idle game counts against the server's cap on idle games for a while after it (issue 31)
CREATED_AT = "created_at"


def parse_utc(value: str) -> datetime:
    """A time from ISO 8601 text (a record's time, a clock's reading), in UTC; a time without
    an offset is taken as UTC. Raises ValueError for text that is not a time."""
    return _as_utc(datetime.fromisoformat(value))


def _as_utc(t: datetime) -> datetime:
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def utc_text(t: datetime) -> str:
    """A time as the store keeps it (:data:`CREATED_AT`): UTC, ISO 8601 to the microsecond,
    one width for every time, so that the order of the texts is the order of the times (the
    store compares them as text)."""
    return _as_utc(t).isoformat(timespec="microseconds")


@dataclass(frozen=True, slots=True)
class GameHead:
    """A game at a glance, from one query over every game: its head and, for a game made by
    this server, the seq its creation's records ended at (``created``; None for an imported
    game or one made before it was kept). A game whose head is still ``created`` has had
    nothing recorded since it was made: no seat taken, no action (it is *idle*)."""

    game: str
    seq: int
    hash: str
    created: int | None

    @property
    def idle(self) -> bool:
        return self.created is not None and self.seq <= self.created


def created_seq(value: object) -> int | None:
    """The :data:`CREATED` secret as a seq; None when there is none or it is not a number."""
    try:
        return int(str(value)) if value is not None else None
    except ValueError:
        return None


class Store(Protocol):
    def append(self, records: Sequence[Record], secrets: Mapping[str, str] | None = None) -> None:
        """Appends ``records`` (sealed, one game, consecutive) and stores ``secrets`` (name ->
        value) for that game, in one transaction. Raises Conflict when the first seq is not the
        next number of its game or a key was used before by that seat; StoreError on a fault."""

    def records(self, game: str, after: int = -1, upto: int | None = None) -> list[Record]:
        """The game's records in order, from seq ``after + 1`` (through ``upto`` when given)."""

    def entries(self, game: str) -> Sequence[Entry]:
        """The game's whole log, in order, for loading it: each entry checks its own hash
        (cheaply, where the store kept the bytes that were hashed) and gives its record on
        demand. Raises StoreError for an unreadable row."""

    def head(self, game: str) -> tuple[int, str] | None:
        """The game's last (seq, hash), or None when there is no such game."""

    def look(self, game: str) -> tuple[tuple[int, str] | None, dict[str, str]]:
        """The game's head (:meth:`head`) and its secrets (:meth:`secrets`), in one read: what
        a page needs of the store when the game's records are known already."""

    def games(self) -> list[str]:
        """Every game's id, sorted; never an event's log (:data:`EVENT_PREFIX`)."""

    def event_logs(self) -> list[str]:
        """The store ids of the events' logs (``event.<id>``, issue 34), sorted."""

    def heads(self, moved: bool = False) -> list[GameHead]:
        """Every game's head (and where its creation ended), by game id, in one read; never an
        event log's; ``moved``: only the games that are not idle."""

    def idle(self, limit: int = 0, offset: int = 0) -> tuple[int, list[str]]:
        """How many games are idle, and the ids of ``limit`` of them from ``offset`` (by id),
        in one read that builds nothing for the others."""

    def idle_since(self, since: str | None) -> tuple[int, str | None]:
        """How many games are idle, counting only those whose creation was recorded at or
        after ``since`` (a :func:`utc_text` time; a game without a :data:`CREATED_AT` then does
        not count; None: every idle game counts), and the earliest creation time among those
        counted (None when none has one). One read that builds nothing for a game."""

    def by_key(self, game: str, seat: str, key: str) -> Record | None: ...

    def put_secret(self, game: str, name: str, value: str) -> None:
        """Stores a value that is not part of the log (hashed join codes, a game's key)."""

    def secrets(self, game: str) -> dict[str, str]: ...

    def close(self) -> None: ...


def check_batch(last: tuple[int, str] | None, records: Sequence[Record]) -> None:
    """Checks that ``records`` continue the log whose head is ``last`` (None: a new log starts
    at 0). Raises StoreError for an empty batch or one of several games, Conflict for a batch
    that is not numbered from the next seq or does not chain to the head."""
    if not records:
        raise StoreError("nothing to append")
    game = records[0].game
    expected, prev = (0, None) if last is None else (last[0] + 1, last[1])
    for r in records:
        if r.game != game:
            raise StoreError("one append holds the records of one game")
        if r.seq != expected:
            raise Conflict(
                f"stale submission: event {r.seq} was submitted but the next event is {expected}"
            )
        if prev is not None and r.prev != prev:
            raise Conflict("stale submission: it does not chain to the last event")
        expected, prev = r.seq + 1, r.hash


class MemoryStore:
    """A store for tests: same contract, nothing durable."""

    def __init__(self) -> None:
        self._logs: dict[str, list[Record]] = {}
        self._secrets: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()

    def append(self, records: Sequence[Record], secrets: Mapping[str, str] | None = None) -> None:
        with self._lock:
            log = self._logs.get(records[0].game, []) if records else []
            check_batch((log[-1].seq, log[-1].hash) if log else None, records)
            seen = {key_id(r): r for r in log if key_id(r) is not None}
            for r in records:
                k = key_id(r)
                if k is not None and k in seen:
                    raise Conflict(
                        f"key {r.key!r} was already applied as event {seen[k].seq}", seen[k]
                    )
                if k is not None:
                    seen[k] = r
            self._logs.setdefault(records[0].game, []).extend(records)
            if secrets:
                self._secrets.setdefault(records[0].game, {}).update(secrets)

    def records(self, game: str, after: int = -1, upto: int | None = None) -> list[Record]:
        with self._lock:
            log = list(self._logs.get(game, []))
        return [r for r in log if r.seq > after and (upto is None or r.seq <= upto)]

    def entries(self, game: str) -> Sequence[Entry]:
        return self.records(game)

    def head(self, game: str) -> tuple[int, str] | None:
        with self._lock:
            log = self._logs.get(game)
            return (log[-1].seq, log[-1].hash) if log else None

    def look(self, game: str) -> tuple[tuple[int, str] | None, dict[str, str]]:
        with self._lock:
            log = self._logs.get(game)
            head = (log[-1].seq, log[-1].hash) if log else None
            return head, dict(self._secrets.get(game, {}))

    def games(self) -> list[str]:
        with self._lock:
            return sorted(g for g in self._logs if not g.startswith(EVENT_PREFIX))

    def event_logs(self) -> list[str]:
        with self._lock:
            return sorted(g for g in self._logs if g.startswith(EVENT_PREFIX))

    def heads(self, moved: bool = False) -> list[GameHead]:
        with self._lock:
            out = [
                GameHead(
                    g, log[-1].seq, log[-1].hash, created_seq(self._secrets.get(g, {}).get(CREATED))
                )
                for g, log in sorted(self._logs.items())
                if log and not g.startswith(EVENT_PREFIX)
            ]
        return [gh for gh in out if not gh.idle] if moved else out

    def idle(self, limit: int = 0, offset: int = 0) -> tuple[int, list[str]]:
        games = [gh.game for gh in self.heads() if gh.idle]
        return len(games), games[offset : offset + limit]

    def idle_since(self, since: str | None) -> tuple[int, str | None]:
        idle = {gh.game for gh in self.heads() if gh.idle}
        with self._lock:
            times = [self._secrets.get(g, {}).get(CREATED_AT) for g in idle]
        counted = [t for t in times if since is None or (t is not None and t >= since)]
        return len(counted), min((t for t in counted if t is not None), default=None)

    def by_key(self, game: str, seat: str, key: str) -> Record | None:
        with self._lock:
            return next((r for r in self._logs.get(game, []) if key_id(r) == f"{seat}:{key}"), None)

    def put_secret(self, game: str, name: str, value: str) -> None:
        with self._lock:
            self._secrets.setdefault(game, {})[name] = value

    def secrets(self, game: str) -> dict[str, str]:
        with self._lock:
            return dict(self._secrets.get(game, {}))

    def close(self) -> None:
        pass


_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    game TEXT NOT NULL,
    seq INTEGER NOT NULL,
    key TEXT,
    hash TEXT NOT NULL,
    line TEXT NOT NULL,
    hashed BLOB,
    opened BLOB,
    nonce TEXT,
    sig TEXT,
    PRIMARY KEY (game, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS events_key ON events (game, key) WHERE key IS NOT NULL;
CREATE TABLE IF NOT EXISTS secrets (
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (game, name)
);
"""


# The stored form's columns (see the module's docstring), added to a database made before them.
# ``ROW``: the columns :func:`entry_of` reads back (the PostgreSQL store's too).
# A row in the stored form has ``hashed`` and an empty ``line``; an older row has its JSON line.
_STORED_COLUMNS = {"hashed": "BLOB", "opened": "BLOB", "nonce": "TEXT", "sig": "TEXT"}
ROW = "hash, line, hashed, opened, nonce, sig"
_OLD_ROW = "hash, line, NULL, NULL, NULL, NULL"


def _columns(db: sqlite3.Connection) -> set[str]:
    return {str(r[1]) for r in db.execute("PRAGMA table_info(events)").fetchall()}


def _migrate(db: sqlite3.Connection) -> None:
    """Adds the stored form's columns to an events table made before them (in one
    transaction; another process migrating at the same time waits, then finds them)."""
    if _STORED_COLUMNS.keys() <= _columns(db):
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        have = _columns(db)
        for name, typ in _STORED_COLUMNS.items():
            if name not in have:
                db.execute(f"ALTER TABLE events ADD COLUMN {name} {typ}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        raise


def row_of(r: Record) -> tuple[object, ...]:
    """The row of a record: in the stored form where it has one, else as its JSON line."""
    form = stored_form(r)
    if form is None:
        return (r.game, r.seq, key_id(r), r.hash, r.to_line(), None, None, None, None)
    data, opened = form
    return (r.game, r.seq, key_id(r), r.hash, "", data, opened, r.nonce, r.sig)


def entry_of(row: tuple[Any, ...]) -> Entry:
    """A row read back (``ROW``'s columns): its stored form, or its JSON line. Raises
    ValueError or TypeError when it is neither. (A column of another type than was written
    fails the entry's hash check.)"""
    hash_, line, data, opened, nonce, sig = row
    if data is None:
        return Record.from_json(json.loads(str(line)))
    if line != "":
        raise ValueError("the row holds both a JSON line and a stored form")
    return stored_entry(data, opened, nonce, sig, hash_)


def _fault(e: sqlite3.Error, path: str) -> StoreError:
    text = str(e).lower()
    if "full" in text:
        why = "the disk is full"
    elif "readonly" in text or "read-only" in text:
        why = "the database file is read-only"
    elif "locked" in text or "busy" in text:
        why = "the database stayed locked by another process"
    elif "not a database" in text or "malformed" in text or "corrupt" in text:
        why = "the file is not a referee database (or it is damaged)"
    elif "unable to open" in text:
        why = "the database file cannot be opened"
    else:
        why = f"the database failed ({e})"
    return StoreError(f"{path}: {why}; nothing was written")


class _Job:
    """One queued append of the group commit."""

    __slots__ = ("done", "error", "records", "rows", "secrets")

    def __init__(self, records: Sequence[Record], secrets: Mapping[str, str] | None) -> None:
        self.records = records
        self.rows = [row_of(r) for r in records]  # serialised before the writer's turn
        self.secrets = secrets
        self.done = False
        self.error: StoreError | None = None


def tighten(path: Path) -> None:
    """Makes a file holding secrets or hidden cards readable by its owner only (0600), with a
    warning when it was open to others; a file that does not exist is left alone."""
    try:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            os.chmod(path, 0o600)
            log.warning("%s was readable by others (mode %o); now 0600", path, mode)
    except FileNotFoundError:
        return
    except OSError as e:
        log.warning("%s may be readable by others and could not be tightened: %s", path, e)


class SQLiteStore:
    """The default store: one SQLite file, WAL journal, synchronous writes, a connection per
    thread. ``readonly=True`` opens an existing file for reading only and never creates one.

    Raises StoreError when the file cannot be opened or is not a database."""

    def __init__(self, path: str | Path, *, readonly: bool = False, sync: str = "FULL") -> None:
        self.path = str(path)
        self.readonly = readonly
        self._sync = sync if sync in ("FULL", "NORMAL") else "FULL"
        p = Path(self.path)
        if self.path != ":memory:":
            if p.is_dir():
                raise StoreError(f"{self.path}: is a directory, not a database file")
            if readonly and not p.exists():
                raise StoreError(f"{self.path}: no such database")
            if not readonly and not p.parent.exists():
                raise StoreError(f"{self.path}: the folder {p.parent} does not exist")
            if not readonly and not p.exists():
                # hidden cards, salts and kit secrets: readable by the owner only (SQLite makes
                # the -wal and -shm files with the database file's mode)
                with contextlib.suppress(FileExistsError):
                    os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        self._local = threading.local()
        # every thread's connection with the lock held while it runs a statement: ``close``
        # takes each lock, so a connection is never closed under a statement of another
        # thread (sqlite3 would crash the process: a live stream's read during a stop)
        self._all: list[tuple[sqlite3.Connection, threading.Lock]] = []
        self._guard = threading.Lock()
        # group commit: appends queue here; one thread at a time (holding _writer) commits
        # every queued append in one transaction (one sync), each inside its own savepoint
        self._queue: list[_Job] = []
        self._writer = threading.Lock()
        db = self._db()  # open now, so a bad file fails here
        if not readonly:
            try:
                db.executescript(_SCHEMA)
                _migrate(db)
            except sqlite3.Error as e:
                raise _fault(e, self.path) from None
            if self.path != ":memory:":
                for f in (p, Path(f"{p}-wal"), Path(f"{p}-shm")):
                    tighten(f)
        try:
            # a read-only database made before the stored form has its JSON lines only
            self._row = ROW if _STORED_COLUMNS.keys() <= _columns(db) else _OLD_ROW
        except sqlite3.Error as e:
            raise _fault(e, self.path) from None

    def _db(self) -> sqlite3.Connection:
        return self._conn()[0]

    def _conn(self) -> tuple[sqlite3.Connection, threading.Lock]:
        """This thread's connection (opened on first use) and the lock it runs under."""
        local = self._local  # once: ``close`` replaces it
        db: sqlite3.Connection | None = getattr(local, "db", None)
        if db is not None:
            busy: threading.Lock = local.busy
            return db, busy
        try:
            if self.readonly:
                uri = f"file:{Path(self.path).resolve().as_posix()}?mode=ro"
                db = sqlite3.connect(
                    uri, uri=True, isolation_level=None, check_same_thread=False, timeout=10
                )
            else:
                db = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False, timeout=10
                )
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(f"PRAGMA synchronous={self._sync}")
            # reads map the file instead of copying it page by page (a long game's rows are
            # read about twice as fast); a size bounds the mapping, not the file
            db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as e:
            raise _fault(e, self.path) from None
        busy = threading.Lock()
        local.db, local.busy = db, busy
        with self._guard:
            self._all.append((db, busy))
        return db, busy

    def append(self, records: Sequence[Record], secrets: Mapping[str, str] | None = None) -> None:
        """Appends in one transaction (see :class:`Store`). Appends from several threads at
        once share one commit (group commit): the first to get the writer's turn commits all
        that queued, each in its own savepoint, so one that fails (a Conflict) leaves the
        others whole, and a commit that fails writes none of them."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only; nothing was written")
        job = _Job(records, secrets)
        with self._guard:
            self._queue.append(job)
        with self._writer:
            if not job.done:
                with self._guard:
                    batch, self._queue = self._queue, []
                self._commit(batch)
        if job.error is not None:
            raise job.error

    def _commit(self, batch: list[_Job]) -> None:
        db, busy = self._conn()
        with busy:
            self._commit_on(db, batch)

    def _commit_on(self, db: sqlite3.Connection, batch: list[_Job]) -> None:
        alone = len(batch) == 1  # one append: its own transaction is its savepoint
        try:
            try:
                db.execute("BEGIN IMMEDIATE")
                for job in batch:
                    if not alone:
                        db.execute("SAVEPOINT job")
                    try:
                        self._insert(db, job.records, job.rows, job.secrets)
                    except (StoreError, sqlite3.IntegrityError) as e:
                        db.execute("ROLLBACK" if alone else "ROLLBACK TO job")
                        job.error = (
                            e
                            if isinstance(e, StoreError)
                            else Conflict("stale submission: another writer appended first")
                        )
                    if alone:
                        if job.error is None:
                            db.execute("COMMIT")
                        return
                    db.execute("RELEASE job")
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            fault = _fault(e, self.path)
            for job in batch:
                job.error = fault
        except BaseException:
            for job in batch:
                job.error = StoreError(
                    f"{self.path}: the write was interrupted; nothing was written"
                )
            raise
        finally:
            for job in batch:
                job.done = True

    def _insert(
        self,
        db: sqlite3.Connection,
        records: Sequence[Record],
        rows: list[tuple[object, ...]],
        secrets: Mapping[str, str] | None,
    ) -> None:
        """One append's checks and rows, inside the open transaction. Raises Conflict,
        StoreError or sqlite3.Error."""
        game = records[0].game if records else ""
        row = db.execute(
            "SELECT seq, hash FROM events WHERE game=? ORDER BY seq DESC LIMIT 1", (game,)
        ).fetchone()
        check_batch((row[0], row[1]) if row else None, records)
        for r, new in zip(records, rows, strict=True):
            k = new[2]
            if k is None:
                continue
            hit = db.execute(
                f"SELECT {self._row} FROM events WHERE game=? AND key=?", (r.game, k)
            ).fetchone()
            if hit is not None:
                old = self._record(game, hit)
                raise Conflict(f"key {r.key!r} was already applied as event {old.seq}", old)
        db.executemany(
            "INSERT INTO events (game, seq, key, hash, line, hashed, opened, nonce, sig) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        for name, value in (secrets or {}).items():
            db.execute(
                "INSERT OR REPLACE INTO secrets (game, name, value) VALUES (?, ?, ?)",
                (game, name, value),
            )

    def _query(self, sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        try:
            db, busy = self._conn()
            with busy:
                return db.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise _fault(e, self.path) from None

    def _unreadable(self, game: str, e: Exception) -> StoreError:
        return StoreError(f"{self.path}: game {game!r} holds an unreadable record ({e})")

    def _record(self, game: str, row: tuple[Any, ...]) -> Record:
        """The record of a row (``ROW``'s columns). Raises StoreError when it is unreadable."""
        try:
            return entry_of(row).record()
        except (ValueError, TypeError) as e:
            raise self._unreadable(game, e) from None

    def records(self, game: str, after: int = -1, upto: int | None = None) -> list[Record]:
        rows = self._query(
            f"SELECT {self._row} FROM events WHERE game=? AND seq>? AND seq<=? ORDER BY seq",
            (game, after, upto if upto is not None else 2**62),
        )
        return [self._record(game, row) for row in rows]

    def entries(self, game: str) -> list[Entry]:
        rows = self._query(f"SELECT {self._row} FROM events WHERE game=? ORDER BY seq", (game,))
        out: list[Entry] = []
        add = out.append
        try:
            for row in rows:  # the load's hot loop: entry_of, inlined for the stored form
                hash_, line, data, opened, nonce, sig = row
                if data is not None and line == "":
                    add(stored_entry(data, opened, nonce, sig, hash_))
                else:
                    add(entry_of(row))
        except (ValueError, TypeError) as e:
            raise self._unreadable(game, e) from None
        return out

    def head(self, game: str) -> tuple[int, str] | None:
        rows = self._query(
            "SELECT seq, hash FROM events WHERE game=? ORDER BY seq DESC LIMIT 1", (game,)
        )
        return (int(str(rows[0][0])), str(rows[0][1])) if rows else None

    def look(self, game: str) -> tuple[tuple[int, str] | None, dict[str, str]]:
        rows = self._query(
            "SELECT 0, seq, hash FROM (SELECT seq, hash FROM events WHERE game=?"
            " ORDER BY seq DESC LIMIT 1)"
            " UNION ALL SELECT 1, name, value FROM secrets WHERE game=?",
            (game, game),
        )
        head = next(((int(str(a)), str(b)) for k, a, b in rows if k == 0), None)
        return head, {str(a): str(b) for k, a, b in rows if k == 1}

    def games(self) -> list[str]:
        return [
            str(r[0])
            for r in self._query(
                "SELECT DISTINCT game FROM events WHERE game NOT LIKE 'event.%' ORDER BY game", ()
            )
        ]

    def event_logs(self) -> list[str]:
        return [
            str(r[0])
            for r in self._query(
                "SELECT DISTINCT game FROM events WHERE game LIKE 'event.%' ORDER BY game", ()
            )
        ]

    def heads(self, moved: bool = False) -> list[GameHead]:
        rows = self._query(
            "SELECT e.game, e.seq, e.hash, s.value FROM events e"
            " JOIN (SELECT game, MAX(seq) AS last FROM events"
            " WHERE game NOT LIKE 'event.%' GROUP BY game) h"
            " ON e.game = h.game AND e.seq = h.last"
            " LEFT JOIN secrets s ON s.game = e.game AND s.name = ?"
            + (" WHERE s.value IS NULL OR e.seq > CAST(s.value AS INTEGER)" if moved else "")
            + " ORDER BY e.game",
            (CREATED,),
        )
        return [GameHead(str(g), int(q), str(h), created_seq(c)) for g, q, h, c in rows]

    _IDLE = (
        " FROM secrets s WHERE s.name = ? AND s.game NOT LIKE 'event.%' AND NOT EXISTS"
        " (SELECT 1 FROM events e WHERE e.game = s.game AND e.seq > CAST(s.value AS INTEGER))"
    )

    def idle(self, limit: int = 0, offset: int = 0) -> tuple[int, list[str]]:
        total = int(self._query("SELECT COUNT(*)" + self._IDLE, (CREATED,))[0][0])
        if limit <= 0:
            return total, []
        rows = self._query(
            "SELECT s.game" + self._IDLE + " ORDER BY s.game LIMIT ? OFFSET ?",
            (CREATED, limit, offset),
        )
        return total, [str(r[0]) for r in rows]

    def idle_since(self, since: str | None) -> tuple[int, str | None]:
        # one read: the CREATED rows, each with its game's CREATED_AT (by the secrets' primary
        # key) and a look for one event past the creation (by the events' primary key)
        row = self._query(
            "SELECT COUNT(*), MIN(t.value) FROM secrets s"
            " LEFT JOIN secrets t ON t.game = s.game AND t.name = ?"
            " WHERE s.name = ? AND s.game NOT LIKE 'event.%' AND NOT EXISTS (SELECT 1 FROM events e"
            " WHERE e.game = s.game AND e.seq > CAST(s.value AS INTEGER))"
            + ("" if since is None else " AND t.value >= ?"),
            (CREATED_AT, CREATED) + (() if since is None else (since,)),
        )[0]
        return int(row[0]), None if row[1] is None else str(row[1])

    def by_key(self, game: str, seat: str, key: str) -> Record | None:
        rows = self._query(
            f"SELECT {self._row} FROM events WHERE game=? AND key=?", (game, f"{seat}:{key}")
        )
        return self._record(game, rows[0]) if rows else None

    def put_secret(self, game: str, name: str, value: str) -> None:
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only; nothing was written")
        try:
            db, busy = self._conn()
            with busy:
                db.execute(
                    "INSERT OR REPLACE INTO secrets (game, name, value) VALUES (?, ?, ?)",
                    (game, name, value),
                )
        except sqlite3.Error as e:
            raise _fault(e, self.path) from None

    def secrets(self, game: str) -> dict[str, str]:
        rows = self._query("SELECT name, value FROM secrets WHERE game=?", (game,))
        return {str(r[0]): str(r[1]) for r in rows}

    def close(self) -> None:
        with self._guard:
            for db, busy in self._all:
                with busy, contextlib.suppress(sqlite3.Error):
                    db.close()
            self._all.clear()
        self._local = threading.local()
