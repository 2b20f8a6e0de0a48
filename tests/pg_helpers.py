"""A throwaway PostgreSQL cluster for the store's tests (issue 35), with no server of the
machine's own and nothing downloaded.

:func:`running_cluster` finds ``initdb`` and ``pg_ctl`` (on the PATH, in ``/usr/local/bin``, or
in Debian's ``/usr/lib/postgresql/<version>/bin``, the newest first), makes a cluster in a new
temporary folder, starts it listening on a Unix socket in that folder only (no TCP port, so no
port to race for) with ``fsync=off``, and removes it all at the end. ``initdb`` refuses to run
as root, as CI runs: then every PostgreSQL program runs as the ``postgres`` user (made with
``useradd`` when missing), through ``runuser`` (or ``su``), and the folder is handed to it.

Where the binaries or a user to run them are missing, :func:`require_postgres` skips the test
with the reason, except under ``CI``, where it fails (``.ci/run`` installs Debian's
``postgresql`` package when ``initdb`` is missing): the PostgreSQL tests may never be skipped
in CI. The fixtures (``pg_cluster``, session-wide, and ``pg_dsn``, a fresh upgraded database per
test) are registered in ``conftest.py``.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import in_ci

USER = "postgres"  # the user the cluster runs as when the tests run as root
PORT = 5432  # names the socket file only: the cluster listens on no TCP port
_names = itertools.count(1)


def find_bin() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``, or None."""
    candidates: list[Path] = []
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    candidates.append(Path("/usr/local/bin"))
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = [p for p in debian.iterdir() if p.name.isdigit()]
        candidates += [p / "bin" for p in sorted(versions, key=lambda p: -int(p.name))]
    for folder in candidates:
        if all((folder / tool).exists() for tool in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _as_user() -> list[str] | str:
    """The prefix that runs a program as a user ``initdb`` accepts (empty when this process
    is not root), or why there is none."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(USER)
    except KeyError:
        made = subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home", USER],
            capture_output=True,
            text=True,
        )
        if made.returncode != 0:
            return f"no {USER} user to run initdb as, and useradd failed: {made.stderr.strip()}"
    if shutil.which("runuser"):
        return ["runuser", "-u", USER, "--"]
    if shutil.which("su"):
        return ["su", "-s", "/bin/sh", USER, "-c", '"$0" "$@"']
    return f"running as root with neither runuser nor su to run initdb as {USER}"


def _missing() -> str | None:
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg or psycopg-pool is not installed (pip install -e .)"
    if find_bin() is None:
        return "no PostgreSQL binaries (initdb, pg_ctl); apt-get install postgresql"
    how = _as_user()
    return how if isinstance(how, str) else None


def require_postgres() -> None:
    """Skips the calling test with the reason, or fails it under CI."""
    why = _missing()
    if why is None:
        return
    if in_ci():
        pytest.fail(f"the PostgreSQL tests must run in CI: {why}", pytrace=False)
    pytest.skip(why)


@dataclass(frozen=True)
class Cluster:
    """A running throwaway cluster: its folder, the socket's folder, and how to reach it."""

    root: Path
    socket: Path

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host={self.socket} port={PORT} user={USER} dbname={dbname}"

    def new_database(self) -> str:
        """A new empty database's connection string (``referee_<n>``)."""
        import psycopg

        name = f"referee_{next(_names)}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.dsn(name)

    def drop_database(self, dsn: str) -> None:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict

        name = str(conninfo_to_dict(dsn)["dbname"])
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _run(prefix: list[str], argv: list[str], cwd: Path) -> None:
    done = subprocess.run(
        [*prefix, *argv], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{Path(argv[0]).name} failed ({done.returncode}): {done.stderr.strip()[-2000:]}"
        )


def _start(prefix: list[str], pg_ctl: str, root: Path, socket: Path) -> None:
    options = (
        f"-p {PORT} -c listen_addresses='' -c unix_socket_directories={socket}"
        " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    )
    log = str(root / "log")
    _run(
        prefix,
        [pg_ctl, "-D", str(root / "data"), "-l", log, "-w", "-t", "60", "-o", options, "start"],
        root,
    )


def stop(cluster: Cluster) -> None:
    """Stops the cluster's server (every session ends; nothing connects until :func:`start`)."""
    folder, prefix = find_bin(), _as_user()
    assert folder is not None and isinstance(prefix, list)
    pg_ctl = str(folder / "pg_ctl")
    _run(
        prefix, [pg_ctl, "-D", str(cluster.root / "data"), "-m", "fast", "-w", "stop"], cluster.root
    )


def start(cluster: Cluster) -> None:
    """Starts the cluster's server again after :func:`stop`."""
    folder, prefix = find_bin(), _as_user()
    assert folder is not None and isinstance(prefix, list)
    _start(prefix, str(folder / "pg_ctl"), cluster.root, cluster.socket)


@contextmanager
def running_cluster() -> Iterator[Cluster]:
    """A new cluster, running while the block runs; stopped and removed after. Skips or fails
    (under CI) first when it cannot be made."""
    require_postgres()
    folder = find_bin()
    prefix = _as_user()
    assert folder is not None and isinstance(prefix, list)
    # /tmp: a folder the postgres user can reach (a root-only TMPDIR would not be)
    root = Path(tempfile.mkdtemp(prefix="referee-pg-", dir="/tmp" if prefix else None))
    data, socket = root / "data", root / "socket"
    socket.mkdir()
    if prefix:
        user = pwd.getpwnam(USER)
        for p in (root, socket):
            os.chown(p, user.pw_uid, user.pw_gid)
    pg_ctl = str(folder / "pg_ctl")
    try:
        _run(
            prefix,
            [
                str(folder / "initdb"),
                "-D",
                str(data),
                "-U",
                USER,
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
            root,
        )
        _start(prefix, pg_ctl, root, socket)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    try:
        yield Cluster(root, socket)
    finally:
        try:
            _run(prefix, [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"], root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
