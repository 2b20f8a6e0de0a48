"""The web app under a hall's load: 100 tables, 300 live pages, over loopback.

    .venv/bin/python benchmarks/web.py [--tables 100] [--pace 2.0] [--seconds 30]
        [--threads 64] [--games 12] [--seed 1] [--no-saturation]

It starts ``referee serve`` in a subprocess on a free loopback port with a database in a
temporary directory, creates ``--tables`` games through the API (as the tournament judge), and
opens three live streams per table (``GET /api/v1/games/<g>/stream``: Hera's, Zeus's and the
public page's, each with its own seat), from the table's own loopback address (127.1.x.y: the
table's phones, as on a venue's Wi-Fi, seen apart by the server's per-client limits). Each
table then posts the actions of a game played at a simulated table
(``tests/service_helpers.py``, as in ``benchmarks/referee.py``), one ``POST .../actions`` at a
time, with exponential gaps of mean ``--pace`` seconds (a brisk game). The actions are posted
with the tournament judge's code: the judge states every card, so the referee never has to ask
a seat and every post is one write (the endpoint, its checks and its costs are the players').
Each seat's stream carries the device token its claim returned.

Printed: p50/p99 of the time to post an action (request sent to response read; and the part
spent in the server, from its access log: the app and the service with its synced commit), and
p50/p99 of the time from sending it until the *other* player's stream delivers the new head
(the hera stream for a zeus action and the other way round). Then the pace is raised step by
step (one ``--step-seconds`` run per rate, on the same tables and streams; each table posts
back to back when the rate asks more than it can) until p99 post passes 100 ms, and the
saturation rate (actions per second acknowledged) is printed. A table whose game runs out of
actions stops posting.

The clients are one asyncio loop in this process (raw HTTP/1.1 with keep-alive, chunked SSE),
so the client's own cost stays small next to the server's. Bounded: ``--seconds`` for the paced
run, at most eight saturation steps of ``--step-seconds``. Nothing asserts: the numbers depend
on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
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

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def scripts(games: int, seed: int) -> list[list[dict[str, Any]]]:
    """The actions of ``games`` games played at a simulated table (the judge's log), without
    the starter (the create records it) and without observations."""
    from service_helpers import Table as SimTable
    from service_helpers import make_referee

    out = []
    for i in range(games):
        rng = random.Random(seed + i)
        sim = SimTable(make_referee(seed=seed + i), rng, unknown_draw=0.2, unscanned_play=0.3)
        sim.setup()
        while sim.step():
            pass
        records = sim.records()
        acts = []
        for r in records[1:]:
            if r.kind == "action" and r.body["action"]["do"] != "starter":
                acts.append({"action": r.body["action"], "actor": r.body.get("actor")})
        out.append(acts)
    return out


# ---- a tiny HTTP/1.1 client ----------------------------------------------------------------


KEEP_IDLE = 5.0  # seconds a client keeps an idle connection (the server's keep-alive: 10 s)


class Conn:
    """One keep-alive connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.r, self.w = reader, writer
        self.closing = False  # the server said Connection: close
        self.last = time.monotonic()  # the end of its last answer

    @classmethod
    async def open(cls, port: int, source: str | None = None) -> Conn:
        """A connection from ``source`` (a loopback address: each table's phones have their
        own, as on a venue's Wi-Fi, so the server's per-client limits see them apart)."""
        local = (source, 0) if source else None
        r, w = await asyncio.open_connection(HOST, port, limit=1 << 20, local_addr=local)
        return cls(r, w)

    async def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        data = b"" if body is None else json.dumps(body).encode()
        h = {"Host": f"{HOST}", "Content-Length": str(len(data)), **(headers or {})}
        if body is not None:
            h["Content-Type"] = "application/json"
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
        self.w.write(head.encode() + b"\r\n" + data)
        await self.w.drain()
        status, hdrs = await self._head()
        if hdrs.get("transfer-encoding") == "chunked":
            out = b""
            async for chunk in self.chunks():
                out += chunk
        else:
            out = await self.r.readexactly(int(hdrs.get("content-length", "0")))
        self.closing = hdrs.get("connection", "").lower() == "close"
        self.last = time.monotonic()
        return status, hdrs, out

    def stale(self) -> bool:
        """True when the connection should not carry another request: the server closed it
        or said it would, or it has been idle for :data:`KEEP_IDLE` seconds (half the
        server's keep-alive: a browser too drops an idle connection before the server would,
        rather than race its close)."""
        return self.closing or self.r.at_eof() or time.monotonic() - self.last > KEEP_IDLE

    async def _head(self) -> tuple[int, dict[str, str]]:
        line = await self.r.readline()
        if not line:
            raise ConnectionError("closed")
        status = int(line.split()[1])
        hdrs: dict[str, str] = {}
        while True:
            ln = await self.r.readline()
            if ln in (b"\r\n", b"\n", b""):
                break
            k, _, v = ln.decode().partition(":")
            hdrs[k.strip().lower()] = v.strip()
        return status, hdrs

    async def body(self, hdrs: dict[str, str]) -> Any:
        """An answer's body as it comes: its chunks (``Transfer-Encoding: chunked``), else
        what arrives until the server closes (a live stream the front writes itself)."""
        if hdrs.get("transfer-encoding") == "chunked":
            async for chunk in self.chunks():
                yield chunk
            return
        while data := await self.r.read(1 << 16):
            yield data

    async def chunks(self) -> Any:
        while True:
            size = int((await self.r.readline()).split(b";")[0], 16)
            if size == 0:
                await self.r.readline()
                return
            data = await self.r.readexactly(size)
            await self.r.readexactly(2)
            yield data

    def close(self) -> None:
        self.w.close()


# ---- the load ------------------------------------------------------------------------------


@dataclass
class Table:
    game: str
    codes: dict[str, str]
    script: list[dict[str, Any]]
    source: str | None = None  # the table's phones' address
    at: int = 0
    sent: list[tuple[int, float, str]] = field(default_factory=list)  # (seq, t, other seat)
    heard: dict[str, list[tuple[int, float]]] = field(default_factory=dict)  # seat -> (id, t)

    def latencies(self) -> list[float]:
        """For each acknowledged action: sent until the other player's stream had its head."""
        out = []
        for seq, t0, other in self.sent:
            got = next((t for i, t in self.heard.get(other, []) if i >= seq), None)
            if got is not None:
                out.append(got - t0)
        return out


@dataclass
class Stats:
    post: list[float] = field(default_factory=list)
    update: list[float] = field(default_factory=list)
    errors: dict[int, int] = field(default_factory=dict)
    acked: int = 0


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


async def listen(port: int, t: Table, seat: str, ready: asyncio.Event) -> None:
    """One live page: reads the stream and notes when each head arrived."""
    c = await Conn.open(port, t.source)
    h = {"Accept": "text/event-stream"}
    if seat != "public":
        h["Authorization"] = f"Bearer {t.codes[seat]}"
    c.w.write(
        (
            f"GET /api/v1/games/{t.game}/stream HTTP/1.1\r\nHost: {HOST}\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in h.items())
            + "\r\n"
        ).encode()
    )
    await c.w.drain()
    status, hdrs = await c._head()
    assert status == 200, status
    ready.set()
    buf = ""
    heard = t.heard.setdefault(seat, [])
    try:
        async for chunk in c.body(hdrs):
            now = time.perf_counter()
            buf += chunk.decode()
            while "\n\n" in buf:
                block, buf = buf.split("\n\n", 1)
                m = re.search(r"^id: (\d+)$", block, re.M)
                if m is None:
                    continue
                heard.append((int(m.group(1)), now))
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
        pass
    finally:
        c.close()


async def play(
    port: int, t: Table, stats: Stats, pace: float, until: float, rng: random.Random
) -> None:
    """Posts the table's actions with exponential gaps of mean ``pace`` (0: back to back)."""
    c = await Conn.open(port, t.source)
    auth = {"Authorization": f"Bearer {t.codes['judge']}"}
    try:
        while time.perf_counter() < until and t.at < len(t.script):
            if pace > 0:
                await asyncio.sleep(rng.expovariate(1 / pace))
            if time.perf_counter() >= until:
                break
            step = t.script[t.at]
            other = "zeus" if step["actor"] == "hera" else "hera"
            if c.stale():
                c.close()
                c = await Conn.open(port, t.source)
            t0 = time.perf_counter()
            status, _, body = await c.request(
                "POST", f"/api/v1/games/{t.game}/actions", {"action": step["action"]}, auth
            )
            dt = time.perf_counter() - t0
            t.at += 1
            if status == 200:
                t.sent.append((json.loads(body)["seq"], t0, other))
                stats.post.append(dt)
                stats.acked += 1
            else:
                stats.errors[status] = stats.errors.get(status, 0) + 1
    finally:
        c.close()


def table_source(i: int) -> str:
    """The loopback address of table ``i``'s phones (127.1.x.y)."""
    return f"127.1.{i // 200}.{i % 200 + 1}"


async def claim_seats(
    port: int, source: str, game: str, join: dict[str, str], judge: str
) -> dict[str, str]:
    """Each seat of ``game`` claimed with its join code (``join``: seat -> code) from the
    table's address ``source``, one browser (a claim is a browser's: CSRF token per game);
    returns each seat's device token, and the judge's code as ``judge``."""
    phone = await Conn.open(port, source)
    try:
        _, hdrs, _ = await phone.request("GET", "/api/v1/session")
        cookie = hdrs["set-cookie"].split(";")[0]
        _, hdrs, _ = await phone.request("GET", f"/api/v1/games/{game}", None, {"Cookie": cookie})
        h = {"Cookie": cookie, "X-CSRF-Token": hdrs["x-csrf-token"]}
        codes = {"judge": judge}
        for seat, code in join.items():
            path = f"/api/v1/games/{game}/claim"
            status, _, got = await phone.request("POST", path, {"code": code}, h)
            assert status == 201, got
            codes[seat] = json.loads(got)["token"]
        return codes
    finally:
        phone.close()


async def new_tables(
    port: int, n: int, games: list[list[dict[str, Any]]], judge: str
) -> list[Table]:
    """``n`` games created by the tournament judge (``judge``: his code; the organiser sets up
    the hall's tables, beyond the per-client creation limit), each seat claimed from the
    table's own address (its phones; its device token is its Bearer token); actions are posted
    with the judge's code."""
    c = await Conn.open(port)
    out = []
    for i in range(n):
        status, _, body = await c.request(
            "POST", "/api/v1/games", {}, {"Authorization": f"Bearer {judge}"}
        )
        assert status == 201, body
        b = json.loads(body)
        codes = await claim_seats(port, table_source(i), b["game"], b["codes"], judge)
        out.append(Table(b["game"], codes, games[i % len(games)], table_source(i)))
    c.close()
    return out


async def step(
    port: int, tables: list[Table], pace: float, seconds: float, seed: int
) -> tuple[Stats, float]:
    """Every table posts for ``seconds`` at ``pace``; the streams stay open across steps."""
    stats = Stats()
    for t in tables:
        t.sent = []
    t0 = time.perf_counter()
    until = t0 + seconds
    rng = random.Random(seed)
    players = [play(port, t, stats, pace, until, random.Random(rng.random())) for t in tables]
    await asyncio.gather(*players)
    # a player's last gap may end after the window (then it posts nothing): rate over the window
    elapsed = min(time.perf_counter() - t0, seconds + max(stats.post or [0.0]))
    await asyncio.sleep(1.5)  # the last updates
    for t in tables:
        stats.update += t.latencies()
    return stats, elapsed


async def session(port: int, tables: list[Table], args: argparse.Namespace, log: Any) -> None:
    """Opens the live streams, runs the paced load, then raises the pace (same streams)."""
    readies = []
    listeners = []
    for t in tables:
        for seat in ("hera", "zeus", "public"):
            ev = asyncio.Event()
            readies.append(ev)
            listeners.append(asyncio.create_task(listen(port, t, seat, ev)))
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in readies)), 60)
    await asyncio.sleep(0.5)
    log.posts()
    print(
        f"{len(tables)} tables, {len(listeners)} live streams; one action per {args.pace:g} s "
        f"per table, {args.seconds:g} s:",
        flush=True,
    )
    stats, elapsed = await step(port, tables, args.pace, args.seconds, args.seed)
    report(f"{len(tables) / args.pace:g}/s paced", stats, elapsed, log.posts())
    if not args.no_saturation:
        print("raising the pace until p99 post > 100 ms:", flush=True)
        saturated = None
        for rate in (60, 75, 90, 110, 130, 160, 200, 300):
            s, el = await step(port, tables, len(tables) / rate, args.step_seconds, args.seed)
            report(f"{rate}/s offered", s, el, log.posts())
            if pct(s.post, 99) > 0.100:
                saturated = s.acked / el
                break
        if saturated is None:
            print("p99 post stayed under 100 ms at every rate tried")
        else:
            print(f"saturation: {saturated:.0f} actions/s (p99 post passed 100 ms)")
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)


def start_server(
    db: Path, port: int, threads: int, log: Path, *extra: str
) -> subprocess.Popen[str]:
    """``referee serve`` on ``port`` (with the ``extra`` flags), its output (the access log)
    into ``log``."""
    cmd = [
        sys.executable,
        "-c",
        "import sys; from web.cli import main; sys.exit(main(sys.argv[1:]))",
        "serve",
        "--db",
        str(db),
        "--host",
        HOST,
        "--port",
        str(port),
        "--threads",
        str(threads),
        "--no-qr",
        *extra,
    ]
    out = log.open("w")
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        if "\nready\n" in log.read_text():
            return proc
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start:\n" + log.read_text())


class ServerLog:
    """The server side of each post, from its access log (time until the response started)."""

    LINE = re.compile(r"POST /api/v1/games/\S+/actions 200 ([\d.]+)ms")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def posts(self) -> list[float]:
        with self.path.open() as f:
            f.seek(self.offset)
            text = f.read()
            self.offset = f.tell()
        return [float(m.group(1)) / 1000 for m in self.LINE.finditer(text)]


def report(name: str, stats: Stats, elapsed: float, server: list[float]) -> None:
    ms = 1000
    print(
        f"{name:>14}: {stats.acked:5d} actions {stats.acked / elapsed:6.1f}/s | post p50 "
        f"{pct(stats.post, 50) * ms:5.1f} ms p99 {pct(stats.post, 99) * ms:6.1f} ms (in the "
        f"server p50 {pct(server, 50) * ms:5.1f} p99 {pct(server, 99) * ms:6.1f}) | other seat's "
        f"stream p50 {pct(stats.update, 50) * ms:5.1f} ms p99 {pct(stats.update, 99) * ms:6.1f} ms"
        + (f" | errors {stats.errors}" if stats.errors else ""),
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--pace", type=float, default=2.0, help="mean seconds between actions")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--step-seconds", type=float, default=10.0)
    ap.add_argument("--threads", type=int, default=64)
    ap.add_argument("--games", type=int, default=12, help="distinct played games to post")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-saturation", action="store_true")
    args = ap.parse_args()

    print(f"playing {args.games} games at a simulated table ...", flush=True)
    games = scripts(args.games, args.seed)
    print(f"  {sum(map(len, games))} actions; {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        log = Path(tmp) / "server.log"
        proc = start_server(Path(tmp) / "bench.sqlite3", port, args.threads, log)
        server = ServerLog(log)
        try:
            judge = (Path(tmp) / "bench.sqlite3.judge").read_text("utf-8").strip()
            tables = asyncio.run(new_tables(port, args.tables, games, judge))
            asyncio.run(session(port, tables, args, server))
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
