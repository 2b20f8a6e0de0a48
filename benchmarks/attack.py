"""The hall under attack (issue 12): 100 tables play while 500 hostile connections try to stop
the server.

    .venv/bin/python benchmarks/attack.py [--tables 100] [--pace 2.0] [--seconds 25]
        [--hostile 500] [--attackers 100] [--threads 64] [--seed 1]

It starts ``referee serve`` with its default limits (as :mod:`benchmarks.web` does: a
subprocess on a free loopback port, a database in a temporary directory), creates ``--tables``
games as the tournament judge and opens three live streams per table from the table's own
loopback address. Each table posts its game's actions with exponential gaps of mean ``--pace``
seconds, once for ``--seconds`` without an attack, then again for ``--seconds`` while the
attack runs, on the same tables and streams.

The attack comes from ``--attackers`` loopback addresses (127.66.0.x; the standard run is 100, an
attacker with many devices or a botnet; 4 is one attacker with a few) and holds ``--hostile``
connections, in these shares:

- 40 % **idle streams**: open a live stream and read nothing of it, forever; a refused one
  (503) asks again after 5 s, ignoring Retry-After.
- 30 % **slowloris**: send a request line and then one header byte a second, never ending the
  headers; when cut, connect again after a second.
- 20 % **open-close churn**: open a stream, read its first bytes, close, every 2.5 s.
- 10 % **uploads**: alternately a decompression bomb (a 14000 × 14000 PNG of ~190 kB) and a
  1 MP photo of noise, to a kit game of the attacker's own, one every 2 s each.

Both runs post with the same gaps between actions (the same seed), so their rates compare like
with like. Printed for each run: the players' post p50/p99 (request sent to answer read) and the
other seat's stream p50/p99 (sent until the other player's stream brought the new head), the
attack's counts (streams admitted and refused, slowloris connections cut, churn, uploads by
status) and the server's resident memory (now and peak); then each figure without and with the
attack and their ratio, and whether issue 33's targets are met. Bounded: two runs of ``--seconds``
plus the setup, a few minutes on a small machine. Nothing asserts: the numbers depend on the
machine.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import random
import re
import struct
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.web import (  # noqa: E402
    HOST,
    Conn,
    ServerLog,
    Table,
    free_port,
    listen,
    new_tables,
    report,
    scripts,
    start_server,
    step,
)

Counts = collections.Counter[str]


def bomb_png(width: int = 14000, height: int = 14000) -> bytes:
    """A small PNG whose header declares ``width`` × ``height`` pixels (compressed zeros)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    comp = zlib.compressobj(9)
    row = b"\x00" * (1 + 3 * width)
    data = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def noise_jpeg(width: int = 1280, height: int = 800) -> bytes:
    import cv2
    import numpy as np

    img = np.random.default_rng(1).integers(0, 255, (height, width, 3), dtype=np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return bytes(buf.tobytes())


async def _read_head(c: Conn) -> int:
    status, _ = await c._head()
    return status


async def idle_stream(port: int, game: str, source: str, counts: Counts) -> None:
    """Holds a live stream open and reads nothing; asks again 5 s after a refusal."""
    while True:
        c = None
        try:
            c = await Conn.open(port, source)
            c.w.write(f"GET /api/v1/games/{game}/stream HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
            await c.w.drain()
            status = await asyncio.wait_for(_read_head(c), 30)
            if status == 200:
                counts["stream admitted"] += 1
                while await c.r.read(1 << 16):  # hold it; the server ends it after 5 minutes
                    await asyncio.sleep(30)
            else:
                counts[f"stream refused {status}"] += 1
        except (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            counts["stream error"] += 1
        finally:
            if c is not None:
                c.close()
        await asyncio.sleep(5.0)


async def slowloris(port: int, source: str, counts: Counts) -> None:
    """A request whose headers never end: one byte a second."""
    while True:
        c = None
        try:
            c = await Conn.open(port, source)
            c.w.write(f"GET / HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: ".encode())
            await c.w.drain()
            counts["slowloris opened"] += 1
            while True:
                try:
                    await asyncio.wait_for(c.r.read(4096), 1.0)
                except TimeoutError:
                    c.w.write(b"x")
                    await c.w.drain()
                    continue
                counts["slowloris cut"] += 1  # the server answered (408) or closed
                break
        except (OSError, ConnectionError):
            counts["slowloris cut"] += 1
        finally:
            if c is not None:
                c.close()
        await asyncio.sleep(1.0)


async def churn(port: int, game: str, source: str, counts: Counts) -> None:
    """Opens a stream, reads its first bytes, closes it; again every 2.5 s."""
    while True:
        c = None
        try:
            c = await Conn.open(port, source)
            c.w.write(f"GET /api/v1/games/{game}/stream HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
            await c.w.drain()
            await asyncio.wait_for(c.r.read(256), 10)
            counts["churn"] += 1
        except (OSError, ConnectionError, TimeoutError):
            counts["churn error"] += 1
        finally:
            if c is not None:
                c.close()
        await asyncio.sleep(2.5)


async def uploads(
    port: int, game: str, code: str, source: str, images: list[bytes], counts: Counts
) -> None:
    """Alternately a bomb and a photo of noise, one every 2 s."""
    i = 0
    while True:
        c = None
        data = images[i % len(images)]
        kind = "bomb" if i % len(images) == 0 else "photo"
        i += 1
        try:
            c = await Conn.open(port, source)
            head = (
                f"POST /api/v1/games/{game}/photos HTTP/1.1\r\nHost: {HOST}\r\n"
                f"Authorization: Bearer {code}\r\nContent-Type: image/"
                f"{'png' if kind == 'bomb' else 'jpeg'}\r\nContent-Length: {len(data)}\r\n"
                "Connection: close\r\n\r\n"
            )
            c.w.write(head.encode() + data)
            await c.w.drain()
            status = await asyncio.wait_for(_read_head(c), 60)
            counts[f"upload {kind} {status}"] += 1
        except (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            counts[f"upload {kind} error"] += 1
        finally:
            if c is not None:
                c.close()
        await asyncio.sleep(2.0)


@dataclass(frozen=True)
class Plan:
    """The attack: where, against which games, from which addresses, how many of each kind."""

    port: int
    game: str  # the attacker's own kit game, for the uploads
    code: str  # his device token there
    victims: list[str]
    sources: list[str]
    shares: dict[str, int]
    images: list[bytes]
    seed: int


def attack_process(
    plan: Plan, *, seconds: float, out: multiprocessing.Queue[dict[str, int]]
) -> None:
    """The attack for ``seconds``, in a process of its own; its counts are put on ``out``."""
    counts = asyncio.run(attack(plan, seconds))
    out.put(dict(counts))


async def attack(plan: Plan, seconds: float) -> Counts:
    port, game, code, victims = plan.port, plan.game, plan.code, plan.victims
    sources, shares, images, seed = plan.sources, plan.shares, plan.images, plan.seed
    counts: Counts = collections.Counter()
    rng = random.Random(seed)
    tasks: list[asyncio.Task[None]] = []
    for i in range(shares["idle"]):
        src = sources[i % len(sources)]
        tasks.append(asyncio.create_task(idle_stream(port, rng.choice(victims), src, counts)))
    for i in range(shares["slow"]):
        tasks.append(asyncio.create_task(slowloris(port, sources[i % len(sources)], counts)))
    for i in range(shares["churn"]):
        src = sources[i % len(sources)]
        tasks.append(asyncio.create_task(churn(port, rng.choice(victims), src, counts)))
    for i in range(shares["upload"]):
        src = sources[i % len(sources)]
        tasks.append(asyncio.create_task(uploads(port, game, code, src, images, counts)))
    await asyncio.sleep(seconds)
    for _ in range(5):  # a cancel can be lost inside wait_for (Python 3.11): ask again
        for task in tasks:
            task.cancel()
        _, pending = await asyncio.wait(tasks, timeout=2.0)
        if not pending:
            break
    return counts


async def attacker_game(port: int, source: str) -> tuple[str, str]:
    """A game with a sticker kit, created by the attacker (within his creation limit); the
    device token of Hera's seat, which he claimed."""
    from datetime import UTC, datetime

    from printables.herazeus.kit import Kit

    kit = Kit.create(kit_id="ATKQZ", secret="7a" * 16, now=datetime(2025, 1, 1, tzinfo=UTC))
    c = await Conn.open(port, source)
    status, hdrs, body = await c.request("GET", "/api/v1/session")
    cookie = hdrs["set-cookie"].split(";")[0]
    token = json.loads(body)["csrf"]
    status, _, body = await c.request(
        "POST",
        "/api/v1/games",
        {"kit": kit.to_json()},
        {"Cookie": cookie, "X-CSRF-Token": token},
    )
    assert status == 201, body
    b = json.loads(body)
    game = str(b["game"])
    _, hdrs, _ = await c.request("GET", f"/api/v1/games/{game}", None, {"Cookie": cookie})
    status, _, got = await c.request(
        "POST",
        f"/api/v1/games/{game}/claim",
        {"code": b["codes"]["hera"]},
        {"Cookie": cookie, "X-CSRF-Token": hdrs["x-csrf-token"]},
    )
    c.close()
    assert status == 201, got
    return game, str(json.loads(got)["token"])


def memory(pid: int) -> tuple[float, float]:
    """The server's resident memory now and at its peak, in MB (Linux)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan"), float("nan")
    got = {ln.split(":")[0]: ln.split()[1] for ln in text.splitlines() if ln.startswith("Vm")}
    return int(got.get("VmRSS", 0)) / 1024, int(got.get("VmHWM", 0)) / 1024


async def session(
    port: int, pid: int, tables: list[Table], args: argparse.Namespace, log: ServerLog
) -> None:
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
        f"per table, {args.seconds:g} s per run; server memory {memory(pid)[0]:.0f} MB",
        flush=True,
    )
    quiet, quiet_el = await step(port, tables, args.pace, args.seconds, args.seed)
    report("no attack", quiet, quiet_el, log.posts())

    sources = [f"127.66.0.{i + 1}" for i in range(max(1, args.attackers))]
    game, code = await attacker_game(port, sources[0])
    images = [bomb_png(), noise_jpeg()]
    print(f"  the bomb: {len(images[0]) // 1024} kB declaring 14000 × 14000 pixels", flush=True)
    n = args.hostile
    shares = {"idle": n * 40 // 100, "slow": n * 30 // 100, "churn": n * 20 // 100}
    shares["upload"] = n - sum(shares.values())
    for kind in shares:  # --only: the other kinds' connections are left out
        if args.only and kind not in args.only.split(","):
            shares[kind] = 0
    n = sum(shares.values())
    victims = [t.game for t in tables]
    # the attacker is another program: its own process and event loop, so that the players'
    # figures are the server's and not a shared client loop's
    ctx = multiprocessing.get_context("spawn")
    report_q: multiprocessing.Queue[dict[str, int]] = ctx.Queue()
    attacker = ctx.Process(
        target=attack_process,
        args=(Plan(port, game, code, victims, sources, shares, images, args.seed),),
        kwargs={"seconds": 5.0 + args.seconds + 1.0, "out": report_q},
        daemon=True,
    )
    attacker.start()
    print(
        f"attack: {n} hostile connections from {len(sources)} addresses "
        f"({shares['idle']} idle streams, {shares['slow']} slowloris, {shares['churn']} "
        f"open-close churn, {shares['upload']} uploads), another process; 5 s to build up",
        flush=True,
    )
    await asyncio.sleep(5.0)
    peak_before = memory(pid)
    # the same gaps between actions as the run without (same seed): like for like
    hostile, el = await step(port, tables, args.pace, args.seconds, args.seed)
    report("under attack", hostile, el, log.posts())
    now, peak = memory(pid)
    counts: dict[str, int] = await asyncio.get_running_loop().run_in_executor(
        None, report_q.get, True, 60.0
    )
    attacker.join(10)
    print("  attack counts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(
        f"  server memory: {now:.0f} MB now, peak {peak:.0f} MB "
        f"(peak before the attack ran: {peak_before[1]:.0f} MB)",
        flush=True,
    )
    ms = 1000
    post = (_p99(quiet.post) * ms, _p99(hostile.post) * ms)
    update = (_p99(quiet.update) * ms, _p99(hostile.update) * ms)
    rate = (quiet.acked / quiet_el, hostile.acked / el)
    share = rate[1] / rate[0] if rate[0] else float("nan")
    print(
        f"summary ({len(sources)} addresses, {n} hostile connections): players' post p99 "
        f"{post[0]:.1f} ms without the attack, {post[1]:.1f} ms with it "
        f"(x{post[1] / post[0]:.1f}); other seat's update p99 {update[0]:.1f} ms without, "
        f"{update[1]:.1f} ms with (x{update[1] / update[0]:.1f}); actions/s {rate[0]:.1f} "
        f"without, {rate[1]:.1f} with ({share:.1%}); errors {dict(hostile.errors) or 'none'}",
        flush=True,
    )
    met = {
        "post p99 <= 100 ms under attack": post[1] <= 100,
        "update p99 <= 1 s under attack": update[1] <= 1000,
        "actions/s >= 95% of the run without": share >= 0.95,
    }
    print(
        "targets (issue 33): "
        + "; ".join(f"{k}: {'met' if v else 'NOT met'}" for k, v in met.items())
    )
    cuts = collections.Counter(
        " ".join(ln.split()[2:5]) + (" (a player)" if " 127.1." in ln else "")
        for ln in log.path.read_text().splitlines()
        if "a connection of" in ln
    )
    print(
        "  the server cut or closed: " + (", ".join(f"{k} {v}" for k, v in cuts.items()) or "none")
    )
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)


def _p99(xs: list[float]) -> float:
    from benchmarks.web import pct

    return pct(xs, 99)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--pace", type=float, default=2.0, help="mean seconds between actions")
    ap.add_argument("--seconds", type=float, default=25.0, help="each run, without and with")
    ap.add_argument("--hostile", type=int, default=500, help="hostile connections")
    ap.add_argument(
        "--attackers",
        type=int,
        default=100,
        help="the attacker's addresses (100: the standard run)",
    )
    ap.add_argument("--threads", type=int, default=64)
    ap.add_argument("--log", default="", help="keep the server's log in this file")
    ap.add_argument(
        "--only", default="", help="some kinds of the attack only: idle,slow,churn,upload"
    )
    ap.add_argument("--games", type=int, default=8, help="distinct played games to post")
    ap.add_argument("--seed", type=int, default=1)
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
            judge = (Path(tmp) / "bench.sqlite3.judge").read_text().strip()
            t0 = time.perf_counter()
            tables = asyncio.run(new_tables(port, args.tables, games, judge))
            print(f"  {len(tables)} tables created in {time.perf_counter() - t0:.1f} s")
            asyncio.run(session(port, proc.pid, tables, args, server))
        except BaseException:
            text = log.read_text()
            print(
                "the server's log, its warnings and errors:\n"
                + "\n".join(
                    ln for ln in text.splitlines() if not re.search(r" (GET|POST|HEAD) /", ln)
                )[-5000:]
            )
            raise
        finally:
            if args.log:  # the server's access log, to look at afterwards
                Path(args.log).write_text(log.read_text())
            proc.terminate()
            try:
                proc.wait(10)
            except Exception:
                proc.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
