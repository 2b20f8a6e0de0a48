"""What 10,000 idle live streams cost ``referee serve`` (issue 33): its memory, and a plain
request while they are held.

    .venv/bin/python benchmarks/idle_streams.py [--streams 10000] [--requests 50]

It starts ``referee serve`` in a process of its own (as :mod:`benchmarks.web` does: a free
loopback port, a database in a temporary directory), with its stream caps raised to hold them
all (``--stream-slots``, ``--spectator-streams``, ``--streams-per-client``,
``--streams-per-game``: this measures what the streams cost, not the caps), and makes one game.
This process then opens ``--streams`` live streams on it from 100 loopback addresses and holds
them, reading nothing after their first event. Printed: the server's resident memory with no
stream and with them all (and the difference), how long opening them took, and the p50 / p99 /
max of ``--requests`` plain requests (``GET /api/v1/games/<game>``, on a new connection each)
before and while they are held. Nothing asserts: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.attack import memory  # noqa: E402
from benchmarks.web import HOST, Conn, free_port, pct, start_server  # noqa: E402


async def plain(port: int, game: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        c = await Conn.open(port, "127.0.9.1")
        status, _, _ = await c.request("GET", f"/api/v1/games/{game}")
        c.close()
        assert status == 200, status
        out.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(0.02)
    return out


async def hold(port: int, game: str, source: str) -> Conn:
    c = await Conn.open(port, source)
    c.w.write(f"GET /api/v1/games/{game}/stream HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
    await c.w.drain()
    status, _ = await c._head()
    assert status == 200, status
    return c


def line(name: str, ms: list[float]) -> str:
    return f"{name}: p50 {pct(ms, 50):.1f} ms, p99 {pct(ms, 99):.1f} ms, max {max(ms):.1f} ms"


async def session(port: int, pid: int, game: str, args: argparse.Namespace) -> None:
    await asyncio.sleep(1.0)
    before = memory(pid)[0]
    print(line("a plain request, no stream", await plain(port, game, args.requests)), flush=True)
    t0 = time.perf_counter()
    conns: list[Conn] = []
    sources = [f"127.8.{i // 250}.{i % 250 + 1}" for i in range(100)]
    batch = 200
    for i in range(0, args.streams, batch):
        conns += await asyncio.gather(
            *(
                hold(port, game, sources[j % len(sources)])
                for j in range(i, min(i + batch, args.streams))
            )
        )
    opened = time.perf_counter() - t0
    await asyncio.sleep(2.0)
    held = memory(pid)[0]
    print(f"{len(conns)} idle streams opened in {opened:.1f} s", flush=True)
    print(
        line(f"a plain request, {len(conns)} streams held", await plain(port, game, args.requests))
    )
    print(
        f"server memory: {before:.0f} MB with no stream, {held:.0f} MB with {len(conns)} "
        f"({held - before:+.0f} MB, {(held - before) * 1024 / max(1, len(conns)):.1f} kB a stream)",
        flush=True,
    )
    for c in conns:
        c.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--streams", type=int, default=10_000)
    ap.add_argument("--requests", type=int, default=50)
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = args.streams + 1024
    if soft < want:  # this process holds a socket per stream too
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    n = str(args.streams + 100)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        log = Path(tmp) / "server.log"
        caps = ["--stream-slots", n, "--spectator-streams", n, "--streams-per-client", n]
        caps += ["--streams-per-game", n, "--quiet"]
        proc = start_server(Path(tmp) / "bench.sqlite3", port, 64, log, *caps)
        try:
            judge = (Path(tmp) / "bench.sqlite3.judge").read_text().strip()

            async def make() -> str:
                c = await Conn.open(port)
                status, _, body = await c.request(
                    "POST", "/api/v1/games", {}, {"Authorization": f"Bearer {judge}"}
                )
                c.close()
                assert status == 201, body
                return str(json.loads(body)["game"])

            game = asyncio.run(make())
            asyncio.run(session(port, proc.pid, game, args))
        finally:
            proc.terminate()
            proc.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
