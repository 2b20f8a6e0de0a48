"""The cluster load test of issue 35: 1,000 tables on one PostgreSQL, served by 1 process and
then by 4, over loopback, in one run.

    .venv/bin/python benchmarks/cluster.py [--tables 1000] [--pace 2.0] [--seconds 30]
        [--processes 1,4] [--form workers|separate] [--threads 64] [--games 12] [--seed 1]
        [--quick]

It starts a throwaway PostgreSQL cluster (``tests/pg_helpers.py``'s ``running_cluster``: Unix
socket only, ``fsync=off``), and for each count of ``--processes`` makes a new database (``referee
db upgrade``) and a new state folder, and serves them:

- ``--form workers`` (the default): one ``referee serve --workers N`` (N processes on one port,
  the kernel spreading the connections over them by ``SO_REUSEPORT``; a table's connections land
  on the workers at random, so with 4 about three updates in four cross processes);
- ``--form separate``: N ``referee serve`` processes on N ports, the same ``--db`` and ``--state``
  (the "one process per port behind a proxy" form), table ``i`` posting to process ``i mod N`` and
  its two seats' streams on process ``i + 1 mod N``: with N > 1 every update crosses processes.

Then it plays the scenario of :mod:`benchmarks.web` (its client, its tables and its measures, so
the figures compare): ``--tables`` games created by the tournament judge, each seat claimed from
the table's own loopback address (127.1.x.y), a live stream per seat (``GET
/api/v1/games/<g>/stream`` with the seat's device token; 2 per table, no public page), and each
table posting the actions of a game played at a simulated table with the judge's code, one
``POST .../actions`` at a time, with exponential gaps of mean ``--pace`` seconds, for
``--seconds``. The client is one asyncio loop in this process (raw HTTP/1.1, keep-alive, chunked
SSE).

Printed for each configuration: the tables made and the streams held, actions acknowledged per
second, p50/p99 post (request sent to response read) and p50/p99 update (the POST sent until
the *other* seat's stream delivers the new head, :meth:`benchmarks.web.Table.latencies`: the
same definition as ``benchmarks/web.py``), and the errors: posts answered otherwise than 200,
streams that failed to open or ended early, and acknowledged actions whose update the other
seat's stream never delivered (within 3 s of the end). Exit status 1 when any configuration had
an error (the smoke test, ``tests/test_bench_cluster.py``, runs ``--quick``). Nothing else
asserts: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.web import (  # noqa: E402
    HOST,
    Conn,
    Stats,
    Table,
    claim_seats,
    free_port,
    listen,
    pct,
    play,
    scripts,
    table_source,
)

START_WITHIN = 120.0  # seconds a server may take to be ready on a busy 2-core machine
LAST_UPDATES = 3.0  # seconds the streams get, after the last post, to deliver its update


@dataclass
class Outcome:
    """One configuration's figures."""

    name: str
    tables: int = 0
    streams: int = 0  # streams open when the posting began
    ended: int = 0  # streams that ended (or failed) while the tables posted
    stream_errors: int = 0  # streams that failed to open
    stats: Stats = field(default_factory=Stats)
    missed: int = 0  # acknowledged actions whose update the other seat never heard
    elapsed: float = 0.0

    @property
    def errors(self) -> int:
        posts = sum(self.stats.errors.values())
        return posts + self.stream_errors + self.ended + self.missed

    def line(self) -> str:
        s, ms = self.stats, 1000
        rate = s.acked / self.elapsed if self.elapsed else 0.0
        return (
            f"{self.name}: {self.tables} tables, {self.streams} streams held | "
            f"{s.acked} actions {rate:.1f}/s | post p50 {pct(s.post, 50) * ms:.1f} ms "
            f"p99 {pct(s.post, 99) * ms:.1f} ms | update p50 {pct(s.update, 50) * ms:.1f} ms "
            f"p99 {pct(s.update, 99) * ms:.1f} ms | errors {self.errors} (posts "
            f"{dict(s.errors) or 0}, streams not opened {self.stream_errors}, ended "
            f"{self.ended}, updates missed {self.missed})"
        )


# ---- the servers ---------------------------------------------------------------------------


def referee_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "web.cli", *args]


def upgrade(dsn: str, state: Path) -> None:
    done = subprocess.run(
        referee_cmd("db", "upgrade", "--db", dsn, "--state", str(state)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise SystemExit(f"referee db upgrade failed:\n{done.stdout}{done.stderr}")


class Server:
    """``referee serve`` over ``dsn`` and ``state`` on a free loopback port, its output (no
    access log) in a file."""

    def __init__(self, dsn: str, state: Path, tmp: Path, threads: int, *extra: str) -> None:
        self.port = free_port()
        self.out = tmp / f"serve-{self.port}.out"
        caps = ["--stream-slots", "20000", "--spectator-streams", "20000"]
        cmd = referee_cmd("serve", "--db", dsn, "--state", str(state), "--host", HOST)
        cmd += ["--port", str(self.port), "--threads", str(threads), "--no-qr", "--quiet"]
        with self.out.open("w") as f:
            self.proc = subprocess.Popen(
                [*cmd, *caps, *extra],
                stdout=f,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=ROOT,
            )
        deadline = time.monotonic() + START_WITHIN
        while time.monotonic() < deadline and self.proc.poll() is None:
            if "\nready\n" in self.out.read_text(errors="replace"):
                return
            time.sleep(0.1)
        self.stop()
        raise SystemExit("the server did not start:\n" + self.out.read_text(errors="replace"))

    def stop(self) -> None:
        """SIGTERM (a supervisor passes it to its workers), then SIGKILL after 30 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start(
    dsn: str, state: Path, tmp: Path, n: int, form: str, threads: int
) -> tuple[list[Server], list[int]]:
    """The servers of one configuration and the ports the tables use: one ``--workers n``
    supervisor (one port), or ``n`` processes on ``n`` ports (the first started alone: it makes
    the state folder's files the others read)."""
    if form == "workers":
        s = Server(dsn, state, tmp, threads, "--workers", str(n))
        return [s], [s.port]
    servers = [Server(dsn, state, tmp, threads)]
    servers += [Server(dsn, state, tmp, threads) for _ in range(n - 1)]
    return servers, [s.port for s in servers]


# ---- the load ------------------------------------------------------------------------------


async def new_table(
    i: int, post_port: int, seat_port: int, script: list[dict[str, Any]], judge: str
) -> Table:
    """Table ``i``'s game, created by the tournament judge on ``post_port``, its seats claimed
    from the table's own address on ``seat_port`` (as :func:`benchmarks.web.new_tables`)."""
    c = await Conn.open(post_port)
    try:
        status, _, body = await c.request(
            "POST", "/api/v1/games", {}, {"Authorization": f"Bearer {judge}"}
        )
    finally:
        c.close()
    assert status == 201, body
    b = json.loads(body)
    codes = await claim_seats(seat_port, table_source(i), b["game"], b["codes"], judge)
    return Table(b["game"], codes, script, table_source(i))


def ports_of(i: int, ports: list[int]) -> tuple[int, int]:
    """Table ``i``'s posting port and its seats' port: different processes when there are
    several ports."""
    return ports[i % len(ports)], ports[(i + 1) % len(ports)]


async def scenario(
    name: str, ports: list[int], judge: str, games: list[list[dict[str, Any]]], args: Any
) -> Outcome:
    out = Outcome(name)
    t0 = time.perf_counter()
    tables: list[Table] = []
    posting: list[int] = []
    batch = 16  # tables set up at once
    for start_at in range(0, args.tables, batch):
        idx = range(start_at, min(start_at + batch, args.tables))
        made = await asyncio.gather(
            *(new_table(i, *ports_of(i, ports), games[i % len(games)], judge) for i in idx)
        )
        tables += made
        posting += [ports_of(i, ports)[0] for i in idx]
    out.tables = len(tables)
    print(f"  {len(tables)} tables made in {time.perf_counter() - t0:.1f} s", flush=True)

    t0 = time.perf_counter()
    listeners: list[asyncio.Task[None]] = []
    readies: list[asyncio.Event] = []
    for i, t in enumerate(tables):
        for seat in ("hera", "zeus"):
            ev = asyncio.Event()
            readies.append(ev)
            listeners.append(asyncio.create_task(listen(ports_of(i, ports)[1], t, seat, ev)))
    waits = [asyncio.create_task(e.wait()) for e in readies]
    deadline = time.monotonic() + 60 + args.tables * 0.05
    while time.monotonic() < deadline:
        if all(e.is_set() or task.done() for e, task in zip(readies, listeners, strict=True)):
            break
        await asyncio.sleep(0.1)
    for w in waits:
        w.cancel()
    out.stream_errors = sum(not e.is_set() for e in readies)
    out.streams = sum(
        e.is_set() and not task.done() for e, task in zip(readies, listeners, strict=True)
    )
    print(
        f"  {out.streams} streams opened in {time.perf_counter() - t0:.1f} s; posting for "
        f"{args.seconds:g} s, one action per {args.pace:g} s per table "
        f"({len(tables) / args.pace:.0f}/s offered)",
        flush=True,
    )
    await asyncio.sleep(0.5)

    stats = out.stats
    t0 = time.perf_counter()
    until = t0 + args.seconds
    rng = random.Random(args.seed)
    await asyncio.gather(
        *(
            play(port, t, stats, args.pace, until, random.Random(rng.random()))
            for port, t in zip(posting, tables, strict=True)
        )
    )
    out.elapsed = min(time.perf_counter() - t0, args.seconds + max(stats.post or [0.0]))
    heard_by = time.monotonic() + LAST_UPDATES  # the last updates, as soon as all are heard
    while time.monotonic() < heard_by and any(len(t.latencies()) < len(t.sent) for t in tables):
        await asyncio.sleep(0.05)
    out.ended = sum(task.done() for e, task in zip(readies, listeners, strict=True) if e.is_set())
    for t in tables:
        got = t.latencies()
        stats.update += got
        out.missed += len(t.sent) - len(got)
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)
    return out


def run_config(
    cluster: Any, tmp: Path, n: int, games: list[list[dict[str, Any]]], args: Any
) -> Outcome:
    dsn = cluster.new_database()
    state = tmp / f"state-{n}"
    upgrade(dsn, state)
    form = args.form if n > 1 else "workers"
    name = f"{n} process{'es' if n > 1 else ''}" + (f" ({form})" if n > 1 else "")
    print(f"{name}:", flush=True)
    servers, ports = start(dsn, state, tmp, n, form, args.threads)
    try:
        judge = (state / "referee.judge").read_text("utf-8").strip()
        return asyncio.run(scenario(name, ports, judge, games, args))
    finally:
        for s in reversed(servers):
            s.stop()
        cluster.drop_database(dsn)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--pace", type=float, default=2.0, help="mean seconds between actions")
    ap.add_argument("--seconds", type=float, default=30.0, help="how long the tables post")
    ap.add_argument("--processes", default="1,4", help="process counts, comma-separated")
    ap.add_argument("--form", choices=("workers", "separate"), default="workers")
    ap.add_argument("--threads", type=int, default=64, help="worker threads per process")
    ap.add_argument("--games", type=int, default=12, help="distinct played games to post")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--quick",
        action="store_true",
        help="a smoke test: 4 tables, 1.5 s, pace 0.2 s, 2 games, 1 and 2 processes",
    )
    args = ap.parse_args(argv)
    if args.quick:
        args.tables, args.seconds, args.pace, args.games = 4, 1.5, 0.2, 2
        args.processes, args.threads = "1,2", 8
    try:
        counts = [int(x) for x in args.processes.split(",")]
    except ValueError:
        raise SystemExit(f"--processes {args.processes}: counts separated by commas") from None
    if args.tables < 1 or any(c < 1 for c in counts):
        raise SystemExit("--tables and every --processes count must be at least 1")

    import pg_helpers

    why = pg_helpers._missing()
    if why is not None:
        raise SystemExit(f"benchmarks/cluster.py needs PostgreSQL: {why}")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4 * args.tables + 1024  # two streams, a posting and a setup connection per table
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))

    print(f"playing {args.games} games at a simulated table ...", flush=True)
    games = scripts(args.games, args.seed)
    print(
        f"  {sum(map(len, games))} actions; {os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d')}",
        flush=True,
    )
    outcomes = []
    with tempfile.TemporaryDirectory() as tmp, pg_helpers.running_cluster() as cluster:
        for n in counts:
            outcomes.append(run_config(cluster, Path(tmp), n, games, args))
            print("  " + outcomes[-1].line(), flush=True)
    print("summary:")
    for o in outcomes:
        print("  " + o.line())
    return 1 if any(o.errors for o in outcomes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
