"""Junk games (issue 31, item 5): the judge's hall with idle games, and creations from many
addresses.

    .venv/bin/python benchmarks/creation.py [--played 20] [--idle 1000] [--addresses 100]
        [--per-address 10] [--repeat 15]

Two runs of ``referee serve`` (its default limits, a subprocess on a free loopback port, a
database in a temporary directory):

1. **The hall.** ``--played`` games with both seats taken (not idle), then the tournament
   judge's hall (``GET /judge``) is read ``--repeat`` times; then ``--idle`` games nobody has
   joined are added to the same database (straight into it, the server stopped), the server is
   started again and the hall read as often. Printed: the first read after the start (cold)
   and the median and worst of the others, with 0 and with ``--idle`` idle games.
2. **The cap's count.** On the hall's database (``--played`` + ``--idle`` games), the store's
   two counts of idle games, run in the process, ``--repeat`` times each: ``Store.idle`` (the
   hall's: every idle game) and ``Store.idle_since`` (the cap's, run by every creation: the
   idle games made in the last hour and the oldest of their creation times). Printed: the
   median and worst.
3. **Creations from many addresses.** A fresh database; ``--addresses`` clients, each from its
   own loopback address (127.0.0.2, 127.0.0.3, ...), each gets a session (``GET
   /api/v1/session``) and posts ``--per-address`` creations (``POST /api/v1/games``) back to
   back, all at once. Printed: the time taken and the answers by status (201 made, 429 a rate,
   503 the cap on games nobody has joined), and the games the database then holds.

Nothing asserts: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.web import HOST, free_port, start_server  # noqa: E402


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def populate(db: Path, played: int, idle: int) -> None:
    """Adds ``played`` games with both seats taken and ``idle`` games nobody joined."""
    from referee.service import open_referee

    ref = open_referee(db)
    try:
        for _ in range(played):
            made = ref.create_game()
            for code in made.codes.values():
                ref.claim(made.game, code)
        for _ in range(idle):
            ref.create_game()
    finally:
        ref.store.close()


def judge_cookie(port: int, db: Path) -> str:
    code = Path(f"{db}.judge").read_text("utf-8").strip()
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.request("GET", f"/judge/join/{code}")
    r = conn.getresponse()
    r.read()
    cookies = [v.split(";", 1)[0] for k, v in r.getheaders() if k.lower() == "set-cookie"]
    conn.close()
    return "; ".join(cookies)


def hall_times(port: int, cookie: str, repeat: int) -> list[float]:
    """Milliseconds per ``GET /judge`` (the first one cold), on one keep-alive connection."""
    conn = http.client.HTTPConnection(HOST, port, timeout=120)
    out: list[float] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        conn.request("GET", "/judge", headers={"Cookie": cookie})
        r = conn.getresponse()
        r.read()
        out.append((time.perf_counter() - t0) * 1000)
        if r.status != 200:
            raise SystemExit(f"GET /judge answered {r.status}")
    conn.close()
    return out


def hall(args: argparse.Namespace, tmp: Path) -> None:
    db = tmp / "hall.sqlite3"
    populate(db, args.played, 0)
    for idle in (0, args.idle):
        if idle:
            populate(db, 0, idle)
        port = free_port()
        proc = start_server(db, port, 64, tmp / "hall.log", "--quiet")
        try:
            times = hall_times(port, judge_cookie(port, db), args.repeat)
        finally:
            stop(proc)
        rest = times[1:] or times
        print(
            f"hall, {args.played} played + {idle:>5} idle games: cold {times[0]:7.1f} ms, "
            f"median {statistics.median(rest):7.1f} ms, worst {max(rest):7.1f} ms"
        )


def count_times(db: Path, repeat: int) -> None:
    """Times the store's idle counts on ``db`` (the cap's and the hall's), in milliseconds."""
    from datetime import UTC, datetime, timedelta

    from referee.store import SQLiteStore, utc_text

    store = SQLiteStore(db, readonly=True)
    try:
        since = utc_text(datetime.now(UTC) - timedelta(minutes=60))
        for name, cap in (("Store.idle (the hall)", False), ("Store.idle_since (the cap)", True)):
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                n = store.idle_since(since)[0] if cap else store.idle()[0]
                times.append((time.perf_counter() - t0) * 1000)
            print(
                f"count, {name:<27} {n:>5} idle: median {statistics.median(times):6.2f} ms, "
                f"worst {max(times):6.2f} ms"
            )
    finally:
        store.close()


def client(
    port: int, address: str, creations: int, counts: collections.Counter[str], lock: threading.Lock
) -> None:
    conn = http.client.HTTPConnection(HOST, port, timeout=60, source_address=(address, 0))
    try:
        conn.request("GET", "/api/v1/session")
        r = conn.getresponse()
        csrf = json.loads(r.read())["csrf"]
        cookie = "; ".join(
            v.split(";", 1)[0] for k, v in r.getheaders() if k.lower() == "set-cookie"
        )
        for _ in range(creations):
            conn.request(
                "POST",
                "/api/v1/games",
                body="{}",
                headers={
                    "Content-Type": "application/json",
                    "X-CSRF-Token": csrf,
                    "Cookie": cookie,
                },
            )
            r = conn.getresponse()
            r.read()
            with lock:
                counts[str(r.status)] += 1
    except (OSError, http.client.HTTPException, ValueError, KeyError) as e:
        with lock:
            counts[f"failed ({type(e).__name__})"] += 1
    finally:
        conn.close()


def creations(args: argparse.Namespace, tmp: Path) -> None:
    db = tmp / "flood.sqlite3"
    port = free_port()
    proc = start_server(db, port, 256, tmp / "flood.log", "--quiet")
    counts: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()
    try:
        threads = [
            threading.Thread(
                target=client,
                args=(port, f"127.0.0.{2 + i}", args.per_address, counts, lock),
            )
            for i in range(args.addresses)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.perf_counter() - t0
    finally:
        stop(proc)
    from referee.store import SQLiteStore

    store = SQLiteStore(db)
    try:
        games = len(store.games())
    finally:
        store.close()
    said = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    print(
        f"creations, {args.addresses} addresses x {args.per_address}: {took:.1f} s; "
        f"answers {said}; {games} games in the database"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--played", type=int, default=20)
    p.add_argument("--idle", type=int, default=1000)
    p.add_argument("--addresses", type=int, default=100)
    p.add_argument("--per-address", type=int, default=10)
    p.add_argument("--repeat", type=int, default=15)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        hall(args, Path(d))
        count_times(Path(d) / "hall.sqlite3", args.repeat)
        creations(args, Path(d))


if __name__ == "__main__":
    main()
