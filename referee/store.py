"""Where logs live: a small storage interface, an SQLite store (default) and an in-memory one.

Appends are atomic and durable in the SQLite store (WAL, ``synchronous=FULL``): when
:meth:`Store.append` returns, the record is on disk. A record whose seq is not the next one
(a stale submission) or whose idempotency key was seen before is refused with
:class:`Conflict`, and nothing is written. A PostgreSQL store can follow the same protocol.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Protocol

from referee.log import Record


class StoreError(Exception):
    """Storage failed or was asked something impossible."""


class Conflict(StoreError):
    """The append was refused: stale seq or a repeated idempotency key. ``existing`` is the
    record already holding that key, when that is the cause."""

    def __init__(self, message: str, existing: Record | None = None) -> None:
        super().__init__(message)
        self.existing = existing


class Store(Protocol):
    def append(self, record: Record) -> None:
        """Appends ``record`` (already sealed). Raises Conflict when ``record.seq`` is not the
        next number of its game or its key was used before."""

    def records(self, game: str, upto: int | None = None) -> list[Record]:
        """The game's records in order (through seq ``upto`` when given)."""

    def games(self) -> list[str]: ...

    def by_key(self, game: str, key: str) -> Record | None: ...

    def put_secret(self, game: str, name: str, value: str) -> None:
        """Stores a secret that is not part of the log (seat join codes)."""

    def secrets(self, game: str) -> dict[str, str]: ...

    def close(self) -> None: ...


class MemoryStore:
    """A store for tests: same contract, nothing durable."""

    def __init__(self) -> None:
        self._logs: dict[str, list[Record]] = {}
        self._secrets: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()

    def append(self, record: Record) -> None:
        with self._lock:
            log = self._logs.setdefault(record.game, [])
            _check_next(log[-1] if log else None, record)
            if record.key is not None:
                hit = next((r for r in log if r.key == record.key), None)
                if hit is not None:
                    raise Conflict(
                        f"key {record.key!r} was already applied as event {hit.seq}", hit
                    )
            log.append(record)

    def records(self, game: str, upto: int | None = None) -> list[Record]:
        log = list(self._logs.get(game, []))
        return log if upto is None else [r for r in log if r.seq <= upto]

    def games(self) -> list[str]:
        return sorted(self._logs)

    def by_key(self, game: str, key: str) -> Record | None:
        return next((r for r in self._logs.get(game, []) if r.key == key), None)

    def put_secret(self, game: str, name: str, value: str) -> None:
        self._secrets.setdefault(game, {})[name] = value

    def secrets(self, game: str) -> dict[str, str]:
        return dict(self._secrets.get(game, {}))

    def close(self) -> None:
        pass


def _check_next(last: Record | None, record: Record) -> None:
    expected = 0 if last is None else last.seq + 1
    if record.seq != expected:
        raise Conflict(
            f"stale submission: event {record.seq} was submitted but the next event is {expected}"
        )
    if last is not None and record.prev != last.hash:
        raise Conflict("stale submission: it does not chain to the last event")


_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    game TEXT NOT NULL,
    seq INTEGER NOT NULL,
    key TEXT,
    line TEXT NOT NULL,
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


class SQLiteStore:
    """The default store: one SQLite file, WAL journal, synchronous writes."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=30
        )
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def append(self, record: Record) -> None:
        line = record.to_line()
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                row = self._db.execute(
                    "SELECT line FROM events WHERE game=? ORDER BY seq DESC LIMIT 1", (record.game,)
                ).fetchone()
                last = Record.from_json(json.loads(row[0])) if row else None
                _check_next(last, record)
                if record.key is not None:
                    hit = self._db.execute(
                        "SELECT line FROM events WHERE game=? AND key=?", (record.game, record.key)
                    ).fetchone()
                    if hit is not None:
                        old = Record.from_json(json.loads(hit[0]))
                        raise Conflict(
                            f"key {record.key!r} was already applied as event {old.seq}", old
                        )
                self._db.execute(
                    "INSERT INTO events (game, seq, key, line) VALUES (?, ?, ?, ?)",
                    (record.game, record.seq, record.key, line),
                )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def records(self, game: str, upto: int | None = None) -> list[Record]:
        with self._lock:
            rows = self._db.execute(
                "SELECT line FROM events WHERE game=? AND seq<=? ORDER BY seq",
                (game, upto if upto is not None else 2**62),
            ).fetchall()
        return [Record.from_json(json.loads(r[0])) for r in rows]

    def games(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT game FROM events ORDER BY game").fetchall()
        return [r[0] for r in rows]

    def by_key(self, game: str, key: str) -> Record | None:
        with self._lock:
            row = self._db.execute(
                "SELECT line FROM events WHERE game=? AND key=?", (game, key)
            ).fetchone()
        return Record.from_json(json.loads(row[0])) if row else None

    def put_secret(self, game: str, name: str, value: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO secrets (game, name, value) VALUES (?, ?, ?)",
                (game, name, value),
            )

    def secrets(self, game: str) -> dict[str, str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name, value FROM secrets WHERE game=?", (game,)
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def close(self) -> None:
        with self._lock:
            self._db.close()
