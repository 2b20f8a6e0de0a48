"""Several ``referee serve`` processes over one database behave as one server (issue 35).

Real servers, real processes, real sockets (tests/served_helpers.py):

- ``--workers 2`` serves from both workers on one port, and a worker killed with SIGKILL is
  started again and serves;
- a process killed with SIGKILL while games are played through both loses no acknowledged
  action and doubles none: each request carries an Idempotency-Key and is sent again on a broken
  connection, and afterwards every game's log verifies and holds each key exactly once, the
  records the game's script makes and no other;
- two servers on one database racing on one game with the same ``If-Match``: exactly one wins,
  the other is answered 409 Stale, and the log verifies.

The library-level races of issue 6 are tests/test_processes.py.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from served_helpers import (
    Player,
    Served,
    Step,
    create_game,
    export,
    head_seq,
    holder_of_connections,
    judge_cookie,
    request,
    script,
    wait_for,
)

from referee.anchors import Anchors
from referee.keys import Signer
from referee.log import verify
from referee.place import place_of
from referee.service import Referee
from web.cli import main

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="--workers needs Linux (SO_REUSEPORT)"
    ),
]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> list[str]:
    """The database every server of a test opens: a SQLite file, or a PostgreSQL database of
    the throwaway cluster with its state folder (the key, the journal, the judge's code)."""
    if request.param == "sqlite":
        return [str(tmp_path / "games.sqlite3")]
    return [str(request.getfixturevalue("pg_dsn")), "--state", str(tmp_path / "state")]


def connections_by_worker(s: Served, n: int) -> dict[int | None, int]:
    """Opens ``n`` connections at once, one request on each (all kept open), and counts them by
    the worker process holding the server's end."""
    import http.client

    conns = []
    try:
        for _ in range(n):
            c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
            c.request("GET", "/api/v1/session")
            r = c.getresponse()
            r.read()
            assert r.status == 200
            conns.append(c)
        ports = [c.sock.getsockname()[1] for c in conns]
        held = holder_of_connections(s.port, ports, s.workers())
        return dict(Counter(held.values()))
    finally:
        for c in conns:
            c.close()


def test_two_workers_both_serve_and_a_killed_one_is_started_again(
    db: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = Served(db, tmp_path, "--workers", "2", "--address-rate", "0", "--demo")
    try:
        assert "2 server processes share port" in s.text
        assert s.text.count("Tournament judge") == 1  # one announcement, by the supervisor
        assert s.text.count("Demo game") == 1
        first = wait_for(lambda: len(s.workers()) == 2 and s.workers(), 30, "two workers")
        by_worker = connections_by_worker(s, 40)
        # the kernel spreads the connections over both workers (40 to one of two: 2^-39)
        assert set(by_worker) == first, by_worker
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        now = wait_for(
            lambda: len(s.workers()) == 2 and victim not in s.workers() and s.workers(),
            60,
            "a new worker in place of the killed one",
        )
        (new,) = now - first
        # the new worker listens on the port too: it is handed connections
        wait_for(lambda: new in connections_by_worker(s, 20), 60, "the new worker serving")
        out = s.text
        assert f"worker 1 (pid {victim}) ended unexpectedly (signal SIGKILL)" in out or (
            f"worker 2 (pid {victim}) ended unexpectedly (signal SIGKILL)" in out
        ), out
        assert f"started again as pid {new}" in out
        assert s.stop() == 0
        assert not (now & s.workers())  # the workers stopped with their supervisor
        assert s.text.rstrip().endswith("stopped")
        capsys.readouterr()
        assert main(["games", "--db", *db]) == 0
        assert len(capsys.readouterr().out.split()) == 1  # the demo game, made once
    finally:
        s.kill()


def test_a_worker_whose_supervisor_was_killed_stops(db: list[str], tmp_path: Path) -> None:
    s = Served(db, tmp_path, "--workers", "2")
    try:
        workers = wait_for(lambda: len(s.workers()) == 2 and s.workers(), 30, "two workers")
        s.proc.kill()  # SIGKILL: the supervisor cannot forward anything
        s.proc.wait()

        def alive() -> set[int]:
            return {p for p in workers if Path(f"/proc/{p}").exists() and not _zombie(p)}

        wait_for(lambda: not alive(), 30, "the orphaned workers stopping by themselves")
    finally:
        s.kill()
        for p in workers if "workers" in locals() else ():
            with _suppress():
                os.kill(p, signal.SIGKILL)


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] == "Z"


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return exc[0] is ProcessLookupError


GAMES = 6
STEPS = 40  # actions after each game's setup


def test_a_process_killed_under_load_loses_no_action_and_doubles_none(
    db: list[str], tmp_path: Path
) -> None:
    s = Served(
        db,
        tmp_path,
        "--workers",
        "2",
        "--seat-rate",
        "0",
        "--address-rate",
        "0",
        "--create-per-minute",
        "0",
        "--create-global-per-minute",
        "0",
    )
    try:
        scripts = [script(seed * 7 + 1, STEPS) for seed in range(GAMES)]
        games = [create_game(s.port) for _ in range(GAMES)]
        players = [Player(s.port, g, tokens) for g, tokens in games]
        created = [head_seq(s.port, g, tokens["hera"]) + 1 for g, tokens in games]
        errors: list[BaseException] = []
        done = threading.Event()

        def play(p: Player, steps: list[Step]) -> None:
            try:
                for i, step in enumerate(steps):
                    p.play(i, step)
            except BaseException as e:
                errors.append(e)

        threads = [
            threading.Thread(target=play, args=(p, sc))
            for p, sc in zip(players, scripts, strict=True)
        ]
        for t in threads:
            t.start()
        total = sum(len(sc) for sc in scripts)
        kills = []

        def answered() -> int:
            return sum(len(p.acked) for p in players)

        # kill a worker twice while the games are played through both: after a third of the
        # requests were answered, and after two thirds (the one with the highest pid: sometimes
        # the restarted one, sometimes the other while the first is still starting, so that
        # for a moment no process listens and every request is refused and sent again)
        for share in (1 / 3, 2 / 3):
            wait_for(lambda: answered() >= total * share or errors, 120, "requests answered")  # noqa: B023
            victim = max(s.workers())
            os.kill(victim, signal.SIGKILL)
            kills.append(victim)
        for t in threads:
            t.join(300)
        done.set()
        assert not errors, errors
        assert all(len(p.acked) == len(sc) for p, sc in zip(players, scripts, strict=True))
        retried = sum(p.retries for p in players)
        print(
            f"\n{total} requests over {GAMES} games, 2 workers killed ({kills}): "
            f"{retried} sent again, {sum(p.replayed for p in players)} of them answered "
            "'already applied (same key)'"
        )
        cookie = judge_cookie(s.port, s.judge_code)
        for (game, _), p, sc, before in zip(games, players, scripts, created, strict=True):
            header, records = export(s.port, game, cookie)
            v = verify(header, records)
            assert v.ok, v.message()
            keys = Counter(r.key for r in records if r.key is not None)
            for _, key, _ in p.acked:
                assert keys[key] == 1, f"{game}: key {key} is in the log {keys[key]} times"
            # the records of the game's creation and seating, then one a step, no other
            assert len(records) == before + len(sc), (len(records), before, len(sc))
            assert sum(keys.values()) == len(sc)
        assert s.stop() == 0
        # and as the next start reads them: every log verified against the heads journal, and
        # the journal covering every head (a worker killed between a write and its journal
        # line must not make the next start refuse the database)
        assert main(["db", "verify", "--db", *db]) == 0
        Served(db, tmp_path).stop()
    finally:
        s.kill()


def test_two_servers_racing_on_one_game_one_wins_the_other_is_stale(
    db: list[str], tmp_path: Path
) -> None:
    a = Served(db, tmp_path, "--seat-rate", "0")
    b = Served(db, tmp_path, "--seat-rate", "0")
    try:
        steps = script(3, 30)
        game, tokens = create_game(a.port)
        before = head_seq(a.port, game, tokens["hera"]) + 1
        pa, pb = Player(a.port, game, tokens, "a"), Player(b.port, game, tokens, "b")
        cookie = judge_cookie(a.port, a.judge_code)
        races = Counter[str]()
        for i, step in enumerate(steps):
            if step.path != "actions" or step.status != 200:
                pa.play(i, step)  # an answer carries no If-Match: played, not raced
                continue
            seq = int(
                request(a.port, "GET", f"/api/v1/games/{game}", headers={"Cookie": cookie}).body[
                    "seq"
                ]
            )
            got = race([(pa, f"a{i}"), (pb, f"b{i}")], step, seq)
            assert sorted(got.values()) == [200, 409], got
            races["a" if got["a"] == 200 else "b"] += 1
        print(f"\nraces won: {dict(races)}")
        assert sum(races.values()) >= 10
        header, records = export(b.port, game, judge_cookie(b.port, b.judge_code))
        assert verify(header, records).ok
        assert len(records) == before + len(steps)  # the winner's record only, each race
        assert main(["db", "verify", "--db", *db]) == 0
    finally:
        a.kill()
        b.kill()


def test_a_worker_killed_between_a_write_and_its_journal_line_does_not_block_the_next_start(
    db: list[str], tmp_path: Path
) -> None:
    s = Served(db, tmp_path, "--workers", "2")
    try:
        game, _ = create_game(s.port)
        # what a worker killed after its commit and before its journal line leaves behind: a
        # record signed with the server's key that the heads journal does not cover
        place = place_of(db[0], db[2] if len(db) > 2 else None)
        signer = Signer.load_or_create(place.file(".key"))
        writer = Referee(place.open_store(), signer=signer, anchors=Anchors.in_memory(signer))
        try:
            writer.call_judge(game, "hera", "the last word of a worker about to die")
        finally:
            writer.store.close()
        victim = max(wait_for(lambda: len(s.workers()) == 2 and s.workers(), 30, "workers"))
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: "1 game verified and anchored" in s.text, 60, "the game anchored")
        assert s.stop() == 0
    finally:
        s.kill()
    again = Served(db, tmp_path)  # not refused: "its heads journal is older than the database"
    try:
        assert again.stop() == 0
    finally:
        again.kill()


def race(players: list[tuple[Player, str]], step: Step, seq: int) -> dict[str, int]:
    """Each player sends ``step`` with ``If-Match: seq`` and its own Idempotency-Key, all
    released at one instant; the status each got, by key. A 409 must be Stale at seq + 1."""
    go = threading.Barrier(len(players))
    got: dict[str, int] = {}
    bad: list[object] = []

    def send(p: Player, key: str) -> None:
        go.wait()
        r = p.post(
            step.seat, "actions", step.body, {"If-Match": f'"{seq}"', "Idempotency-Key": key}
        )
        got[key[0]] = r.status
        if r.status == 409 and (r.body["error"] != "Stale" or r.body["seq"] != seq + 1):
            bad.append(r.body)

    ts = [threading.Thread(target=send, args=pk) for pk in players]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert not bad, bad
    return got


def test_workers_is_refused_out_of_range(tmp_path: Path) -> None:
    import subprocess

    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "web.cli",
            "serve",
            "--db",
            str(tmp_path / "g.sqlite3"),
            "--workers",
            "0",
            "--no-qr",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert r.returncode != 0
    assert "--workers 0: from 1 to 64" in r.stderr


def test_a_workers_command_line_carries_the_options_but_not_the_database() -> None:
    from web.cli import build_parser
    from web.serve import add_serve_command
    from web.workers import worker_command, worker_env

    dsn = "postgresql://referee:s3cret@db.example/league"
    argv = ["serve", "--db", dsn, "--workers", "3", "--demo", "--seat-rate", "0", "--https"]
    args = build_parser().parse_args([*argv, "--port", "8100", "--quiet"])
    import argparse

    serve = add_serve_command(argparse.ArgumentParser().add_subparsers())
    cmd = worker_command(serve, args, 8100, 4242, None)
    assert "s3cret" not in " ".join(cmd)  # a command line is shown to every user
    assert worker_env(args)["REFEREE_DB"] == dsn
    assert cmd[cmd.index("--seat-rate") + 1] == "0" and "--https" in cmd and "--quiet" in cmd
    assert cmd[cmd.index("--worker-of") + 1] == "4242" and cmd[cmd.index("--port") + 1] == "8100"
    assert "--demo" not in cmd and "--workers" not in cmd and "--db" not in cmd
    again = build_parser().parse_args(cmd[cmd.index("serve") :])  # a worker parses it back
    assert again.worker_of == 4242 and again.seat_rate == "0" and again.workers == 1
