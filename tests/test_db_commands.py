"""Where a referee's games live (``--db``: a SQLite file or a PostgreSQL database, and the files
kept outside it) and the database commands: ``referee db upgrade``, ``referee db copy`` (issue
35). Every command that opens a database takes the same ``--db`` and ``--state``."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pg_helpers import Cluster

from referee.place import DEFAULT_SQLITE, ENV_DB, ENV_STATE, default_db, place_of
from referee.service import open_referee
from referee.store import SQLiteStore, StoreError
from web.cli import main

SECRET_WORD = "s3cret-w0rd"


@pytest.fixture(autouse=True)
def own_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes a state folder in the user's home."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state-home"))
    monkeypatch.delenv(ENV_STATE, raising=False)
    monkeypatch.delenv(ENV_DB, raising=False)


# ---- where a database lives -----------------------------------------------------------------


def test_the_database_is_referee_db_when_set_else_a_file_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENV_DB, raising=False)
    assert default_db() == DEFAULT_SQLITE
    monkeypatch.setenv(ENV_DB, "postgresql://league@db.example/league")
    assert default_db() == "postgresql://league@db.example/league"


def test_a_sqlite_file_keeps_its_files_beside_it_and_has_no_state_folder(tmp_path: Path) -> None:
    p = place_of(str(tmp_path / "club.db"))
    assert p.kind == "sqlite"
    assert p.file(".key") == tmp_path / "club.db.key"
    with pytest.raises(ValueError, match="only a PostgreSQL database has a state folder"):
        place_of(str(tmp_path / "club.db"), tmp_path / "state")


def test_a_postgresql_database_keeps_its_files_in_its_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"postgresql://league:{SECRET_WORD}@db.example:5433/league"
    given = place_of(url, tmp_path / "given")
    assert given.kind == "postgresql"
    assert given.file(".key") == (tmp_path / "given" / "referee.key").absolute()
    monkeypatch.setenv(ENV_STATE, str(tmp_path / "env"))
    assert place_of(url).folder == (tmp_path / "env").absolute()
    monkeypatch.delenv(ENV_STATE)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert place_of(url).folder == tmp_path / "xdg" / "referee" / "db.example-5433-league"
    keywords = place_of("host=/run/postgresql dbname=club user=referee")
    assert keywords.folder.name == "run_postgresql-5432-club"


def test_messages_name_a_postgresql_database_without_its_password() -> None:
    p = place_of(f"postgresql://league:{SECRET_WORD}@db.example/league")
    assert SECRET_WORD not in p.name
    assert "league" in p.name


def test_a_malformed_connection_string_is_refused_naming_db() -> None:
    with pytest.raises(ValueError, match="--db"):
        place_of("host=/run/postgresql dbname")


# ---- referee db upgrade ---------------------------------------------------------------------


def test_db_upgrade_applies_the_migrations_once_then_says_it_is_up_to_date(
    pg_cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    dsn = pg_cluster.new_database()
    try:
        from referee.pgstore import PostgresStore

        with pytest.raises(StoreError, match="referee db upgrade"):
            PostgresStore(dsn)
        assert main(["db", "upgrade", "--db", dsn]) == 0
        assert "applied 0001_events" in capsys.readouterr().out
        assert main(["db", "upgrade", "--db", dsn]) == 0
        assert "up to date" in capsys.readouterr().out
    finally:
        pg_cluster.drop_database(dsn)


def test_db_upgrade_of_a_server_that_is_not_there_fails_in_one_line_without_the_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"postgresql://league:{SECRET_WORD}@127.0.0.1:1/league?connect_timeout=2"
    assert main(["db", "upgrade", "--db", url]) == 2
    err = capsys.readouterr().err
    assert "cannot be reached" in err and SECRET_WORD not in err
    assert err.count("\n") == 1


# ---- every command on PostgreSQL ------------------------------------------------------------


def _club(tmp_path: Path) -> Path:
    """A club's SQLite history: a simulated event of six players (its games and its log)."""
    db = tmp_path / "club.sqlite3"
    assert main(["event", "simulate", "--players", "6", "--rounds", "2", "--db", str(db)]) == 0
    return db


def _logs(db: str, state: Path | None = None) -> dict[str, list[tuple[object, ...]]]:
    """Every log of a database as its stored rows."""
    from referee.store import row_of

    ref = open_referee(db, readonly=True, state=state)
    try:
        ids = ref.store.games() + ref.store.event_logs()
        return {sid: [row_of(r) for r in ref.store.records(sid)] for sid in ids}
    finally:
        ref.store.close()


def test_a_club_history_copied_into_postgresql_reads_back_byte_for_byte_and_is_served(
    tmp_path: Path, pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    club = _club(tmp_path)
    capsys.readouterr()
    state = tmp_path / "league-state"
    argv = ["db", "copy", str(club), pg_dsn, "--to-state", str(state), "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    source = _logs(str(club))
    assert f"copied {len(source)} logs" in out and "verified on arrival" in out
    assert _logs(pg_dsn, state) == source
    # the destination signs with the club's key and its journal covers every game: served at once
    assert (state / "referee.key").read_bytes() == Path(f"{club}.key").read_bytes()
    league = open_referee(pg_dsn, state=state)
    try:
        assert league.journal_gap() is None
        game = league.games()[0]
        assert league.head(game)["seq"] == source[game][-1][1]
    finally:
        league.store.close()
    # the other commands read it there too
    assert main(["games", "--db", pg_dsn, "--state", str(state)]) == 0
    assert game in capsys.readouterr().out
    assert main(["export", game, "--db", pg_dsn, "--state", str(state), "--seat", "public"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])
    assert main(["event", "list", "--db", pg_dsn, "--state", str(state)]) == 0
    listed = capsys.readouterr().out
    assert all(sid.removeprefix("event.") in listed for sid in source if sid.startswith("event."))


def test_a_copy_run_again_skips_what_arrived_and_the_way_back_gives_the_same_logs(
    tmp_path: Path, pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    club = _club(tmp_path)
    state = tmp_path / "league-state"
    assert main(["db", "copy", str(club), pg_dsn, "--to-state", str(state), "--quiet"]) == 0
    assert main(["db", "copy", str(club), pg_dsn, "--to-state", str(state), "--quiet"]) == 0
    n = len(_logs(str(club)))
    assert "copied 0 logs (0 records) into" in capsys.readouterr().out.splitlines()[-1]
    back = tmp_path / "back.sqlite3"
    assert main(["db", "copy", pg_dsn, str(back), "--from-state", str(state), "--quiet"]) == 0
    assert _logs(str(back)) == _logs(str(club))
    assert len(_logs(str(back))) == n


def _tamper(db: Path) -> str:
    """Edits one stored record of the first game in place (bytes changed, hash kept)."""
    store = SQLiteStore(db, readonly=True)
    game = store.games()[0]
    store.close()
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT seq, line, hashed FROM events WHERE game = ? AND seq = 1", (game,)
        ).fetchone()
        if row[2] is not None:
            data = bytes(row[2]).replace(b'"', b"'", 1)
            conn.execute("UPDATE events SET hashed = ? WHERE game = ? AND seq = 1", (data, game))
        else:
            conn.execute(
                "UPDATE events SET line = ? WHERE game = ? AND seq = 1",
                (row[1].replace("0", "1", 1), game),
            )
    return game


def test_a_log_that_does_not_verify_at_the_source_is_named_and_nothing_is_copied(
    tmp_path: Path, pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    club = _club(tmp_path)
    game = _tamper(club)
    capsys.readouterr()
    state = tmp_path / "league-state"
    assert main(["db", "copy", str(club), pg_dsn, "--to-state", str(state)]) == 2
    err = capsys.readouterr().err
    assert game in err and "nothing was copied" in err
    assert not (state / "referee.key").exists()  # nothing made at the destination either
    from referee.pgstore import PostgresStore

    store = PostgresStore(pg_dsn)
    try:
        assert store.games() == [] and store.event_logs() == []
    finally:
        store.close()


def test_a_destination_signing_with_another_key_is_refused_and_nothing_is_copied(
    tmp_path: Path, pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    club = _club(tmp_path)
    state = tmp_path / "league-state"
    open_referee(pg_dsn, state=state).store.close()  # the league's own key, made first
    capsys.readouterr()
    assert main(["db", "copy", str(club), pg_dsn, "--to-state", str(state)]) == 2
    err = capsys.readouterr().err
    assert "signs with another key" in err and "nothing was copied" in err
    assert _logs(pg_dsn, state) == {}


def test_a_destination_holding_a_game_with_another_head_is_refused_and_nothing_is_copied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    club = _club(tmp_path)
    other = tmp_path / "other.sqlite3"
    assert main(["db", "copy", str(club), str(other), "--quiet"]) == 0
    longest = _logs(str(club))
    game = max((g for g in longest if not g.startswith("event.")), key=lambda g: len(longest[g]))
    assert len(longest[game]) > 1
    with sqlite3.connect(other) as conn:  # the destination's copy of one game cut short
        conn.execute("DELETE FROM events WHERE game = ? AND seq > 0", (game,))
        conn.execute("DELETE FROM events WHERE game LIKE 'event.%'")
    capsys.readouterr()
    assert main(["db", "copy", str(club), str(other)]) == 2
    err = capsys.readouterr().err
    assert game in err and "another head" in err and "nothing was copied" in err
    store = SQLiteStore(other, readonly=True)
    assert store.event_logs() == []  # the event log it lacked was not copied either
    store.close()


def test_the_source_and_the_destination_must_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    club = _club(tmp_path)
    capsys.readouterr()
    assert main(["db", "copy", str(club), str(club)]) == 2
    assert "the same" in capsys.readouterr().err


# ---- referee serve on PostgreSQL --------------------------------------------------------------


@pytest.mark.process
def test_serve_on_postgresql_keeps_its_files_in_the_state_folder_and_continues_after_a_restart(
    tmp_path: Path, pg_dsn: str
) -> None:
    from test_serve import Server, get, join

    from web import serve

    state = tmp_path / "league-state"
    s = Server(pg_dsn, "--state", str(state), "--demo")  # type: ignore[arg-type]
    try:
        links = dict(re.findall(r"^(Hera|Zeus|Public)\s+(\S+)$", s.text, re.M))
        game = links["Public"].rsplit("/", 1)[1]
        cookie = join(s.port, links["Hera"])
        r = get(s.port, f"/api/v1/games/{game}", cookie)
        assert r.status == 200 and json.loads(r.read())["seat"] == "hera"
        assert s.stop() and s.proc.returncode == 0
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
    assert state.stat().st_mode & 0o077 == 0
    files = serve.private_files(state / "referee", postgres=True)
    assert {f.name for f in files if f.exists()} >= {
        "referee.key",
        "referee.secret",
        "referee.judge",
        "referee.heads",
    }
    for f in files:
        assert not f.exists() or f.stat().st_mode & 0o077 == 0, f
    again = Server(pg_dsn, "--state", str(state))  # type: ignore[arg-type]
    try:
        r = get(again.port, f"/api/v1/games/{game}", cookie)
        assert r.status == 200 and json.loads(r.read())["seat"] == "hera"  # same game, same seat
        again.stop()
    finally:
        if again.proc.poll() is None:
            again.proc.kill()


@pytest.mark.process
def test_serve_on_a_database_without_the_referee_tables_says_to_run_db_upgrade(
    tmp_path: Path, pg_cluster: Cluster
) -> None:
    dsn = pg_cluster.new_database()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "web.cli", "serve", "--db", dsn, "--state", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        pg_cluster.drop_database(dsn)
    assert done.returncode != 0
    assert "referee db upgrade" in done.stderr and "Traceback" not in done.stderr


def test_db_verify_reads_every_log_and_names_the_one_that_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    club = _club(tmp_path)
    n = len(_logs(str(club)))
    capsys.readouterr()
    assert main(["db", "verify", "--db", str(club)]) == 0
    assert f"{n} of {n} logs verify" in capsys.readouterr().out
    game = _tamper(club)
    assert main(["db", "verify", "--db", str(club)]) == 1
    out = capsys.readouterr().out
    assert f"FAILED {game}" in out and f"{n - 1} of {n} logs verify" in out
