"""Where a referee's games live: a SQLite file or a PostgreSQL database, and the files kept
outside it (issue 35).

Every command that opens a database takes ``--db``, whose default is the environment's
``REFEREE_DB`` and then ``referee.sqlite3`` (:func:`default_db`). A value starting
``postgresql://`` (or ``postgres://``), or a libpq keyword string (``host=... dbname=...``),
names a PostgreSQL database; anything else is a SQLite file's path.

A database never holds the key that signs it, nor the heads journal that tells when it was
rolled back (:mod:`referee.anchors`). Those live in files:

- beside a SQLite file ``DB``: ``DB.key``, ``DB.heads``, ``DB.trust``, ``DB.judge``,
  ``DB.secret`` and the HTTPS certificate ``DB.cert.pem``/``DB.key.pem``, as always;
- for a PostgreSQL database, in its **state folder**: ``--state DIR``, else the environment's
  ``REFEREE_STATE``, else ``$XDG_STATE_HOME/referee/<host>-<port>-<database>`` (by default
  ``~/.local/state/referee/...``), with the same names after ``referee``:
  ``DIR/referee.key``, ``DIR/referee.heads``... Every process serving one league reads the same
  folder (on one machine, or a copy of it on each), so they sign with one key and share one
  journal. The folder is made owner-only (0700) by the first command that writes there.

:class:`Place` is the parsed value; :meth:`Place.open_store` opens its store. Messages name a
PostgreSQL database by :func:`referee.pgstore.describe` (database, host, port), never with its
password.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from referee.store import Store

ENV_DB = "REFEREE_DB"
"""The environment variable naming the database when ``--db`` is not given."""
ENV_STATE = "REFEREE_STATE"
"""The environment variable naming a PostgreSQL database's state folder."""
DEFAULT_SQLITE = "referee.sqlite3"
"""The database when neither ``--db`` nor ``REFEREE_DB`` names one: a SQLite file here."""
FILES_NAME = "referee"
"""The files of a state folder are ``<folder>/referee.key``, ``referee.heads``..."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_POSTGRES = re.compile(
    r"\s*(postgres(ql)?://|(host|hostaddr|dbname|user|port|service|sslmode)\s*=)", re.I
)


def default_db() -> str:
    """``REFEREE_DB`` when set (and not empty), else :data:`DEFAULT_SQLITE`."""
    return os.environ.get(ENV_DB) or DEFAULT_SQLITE


def is_postgres(db: str | Path) -> bool:
    """True when ``db`` names a PostgreSQL database: a URI (``postgresql://``,
    ``postgres://``) or a libpq keyword string (``host=/run/postgresql dbname=league``)."""
    return isinstance(db, str) and bool(_POSTGRES.match(db))


def state_home() -> Path:
    """``$XDG_STATE_HOME/referee``, by default ``~/.local/state/referee``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "referee"


def default_state(dsn: str) -> Path:
    """The state folder of the PostgreSQL database ``dsn`` when none is given:
    ``state_home()/<host>-<port>-<database>``, in characters safe in a file name (a socket
    folder's slashes become ``_``). Raises ValueError for a malformed ``dsn``."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.Error as e:
        raise ValueError(f"--db: not a PostgreSQL connection string ({e})") from None
    host = str(parts.get("host") or parts.get("hostaddr") or "local")
    port = str(parts.get("port") or 5432)
    name = str(parts.get("dbname") or parts.get("user") or "postgres")
    slug = "-".join(_UNSAFE.sub("_", part).strip("_") or "_" for part in (host, port, name))
    return state_home() / slug


@dataclass(frozen=True, slots=True)
class Place:
    """A database and the files kept outside it.

    ``db``: the value as given (a PostgreSQL URI may hold a password: print :attr:`name`);
    ``kind``: ``"sqlite"`` or ``"postgresql"``; ``files``: the prefix of the files outside the
    database (the SQLite file itself, or ``<state folder>/referee``); ``name``: how messages
    name the database."""

    db: str
    kind: Literal["sqlite", "postgresql"]
    files: Path
    name: str

    @property
    def postgres(self) -> bool:
        return self.kind == "postgresql"

    @property
    def folder(self) -> Path:
        """The folder holding the files outside the database."""
        return self.files.parent

    def file(self, suffix: str) -> Path:
        """One of the files outside the database: ``file(".key")`` is ``<files>.key``."""
        return Path(f"{self.files}{suffix}")

    def prepare(self) -> None:
        """Makes a PostgreSQL database's state folder (owner-only) when it is missing; nothing
        for SQLite (its files sit beside it). Raises OSError."""
        if self.postgres and not self.folder.is_dir():
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)

    def open_store(self, *, readonly: bool = False, max_size: int | None = None) -> Store:
        """The store of this place (``readonly``: never writes, never creates). Raises
        StoreError. ``max_size``: a PostgreSQL pool's largest number of connections."""
        if self.postgres:
            from referee.pgstore import PostgresStore

            size = {} if max_size is None else {"max_size": max_size}
            return PostgresStore(self.db, readonly=readonly, **size)
        from referee.store import SQLiteStore

        return SQLiteStore(self.db, readonly=readonly)


def place_of(db: str | Path, state: str | Path | None = None) -> Place:
    """The place ``db`` names (see the module's docstring). ``state``: a PostgreSQL
    database's state folder (else ``REFEREE_STATE``, else :func:`default_state`); given with a
    SQLite file, it is refused (its files sit beside it). Raises ValueError naming the value."""
    text = str(db)
    if not text.strip():
        raise ValueError("--db is empty: give a SQLite file or a postgresql:// URI")
    if is_postgres(text):
        from referee.pgstore import describe
        from referee.store import StoreError

        try:
            name = describe(text)
        except StoreError as e:
            raise ValueError(f"--db: {e}") from None
        folder = Path(state or os.environ.get(ENV_STATE) or default_state(text)).expanduser()
        return Place(text, "postgresql", folder.absolute() / FILES_NAME, name)
    if state is not None:
        raise ValueError(
            f"--state {state}: only a PostgreSQL database has a state folder; a SQLite "
            f"database's key and journal sit beside it ({text}.key)"
        )
    return Place(text, "sqlite", Path(text), text)


def add_db_options(parser: argparse.ArgumentParser, *, default: str | None = "") -> None:
    """Adds ``--db`` and ``--state`` to a command that opens a database. ``default``: the
    ``--db`` default ("": :func:`default_db`; None: no default, the command decides)."""
    parser.add_argument(
        "--db",
        metavar="DB",
        default=default_db() if default == "" else default,
        help="the database: a SQLite file or a postgresql:// URI (default: $REFEREE_DB, else "
        f"{DEFAULT_SQLITE})",
    )
    parser.add_argument(
        "--state",
        metavar="DIR",
        default=None,
        help="a PostgreSQL database's state folder: its signing key, heads journal, trusted "
        "keys (default: $REFEREE_STATE, else ~/.local/state/referee/HOST-PORT-DATABASE)",
    )
