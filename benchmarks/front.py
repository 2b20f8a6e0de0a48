"""What slow clients and idle streams cost a plain request on the event-driven front (issue 33).

    .venv/bin/python benchmarks/front.py [--streams 1000] [--tricklers 200] [--threads 8]
        [--requests 40]

The server is ``referee serve``'s own (:func:`web.serve.make_server`: hypercorn behind
:mod:`web.front`) with ``--threads`` worker threads, in this process, on a free loopback port;
the app is the tests' (``tests/test_availability.streaming_app``: streams stay silent) with one
game. A plain request is ``GET /api/v1/games/<game>``, answered whole; each line prints the p50
and max of ``--requests`` of them, one after the other:

- alone;
- while ``--tricklers`` connections trickle their headers and as many their bodies (one byte
  every 0.2 s each; header and body deadlines raised to 60 s so they stay);
- while ``--streams`` live streams on the game stay open and idle (and the process's threads);
- during the broadcast of one move to all of them (and how long until every stream had it).

Then the process's peak resident memory (server and clients together: one process). Nothing
here asserts: the numbers depend on the machine (the tests' ceilings are in tests/test_front.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_availability import connect, open_stream, streaming_app  # noqa: E402
from test_front import Dribbler, read_all, serving, timed_request  # noqa: E402
from web_helpers import new_game, referee_of  # noqa: E402


def sample(port: int, path: str, n: int) -> str:
    t = sorted(timed_request(port, path) * 1000 for _ in range(n))
    return f"p50 {statistics.median(t):6.1f} ms, max {t[-1]:6.1f} ms"


def peak_rss() -> str:
    """This process's peak resident memory (Linux), in MB."""
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return "unknown (no /proc)"
    got = {ln.split(":")[0]: ln.split()[1] for ln in lines if ln.startswith("Vm")}
    return f"{int(got.get('VmHWM', 0)) // 1024} MB (now {int(got.get('VmRSS', 0)) // 1024} MB)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--tricklers", type=int, default=200, help="of headers, and of bodies")
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--requests", type=int, default=40, help="plain requests per line")
    args = ap.parse_args()
    n, k = args.streams, args.requests
    caps = n + 10
    app = streaming_app(STREAM_SLOTS=caps, STREAMS_PER_CLIENT=caps, STREAMS_PER_GAME=caps)
    created, _ = new_game(app)
    game = created.game
    path = f"/api/v1/games/{game}"
    with serving(app, threads=args.threads, header_timeout=60.0, request_timeout=60.0) as (
        port,
        _server,
    ):
        print(f"plain request alone:{'':31}{sample(port, path, k)}", flush=True)
        heads = [connect(port) for _ in range(args.tricklers)]
        for s in heads:
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
        bodies = [connect(port) for _ in range(args.tricklers)]
        for s in bodies:
            s.sendall(
                b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b"Content-Length: 5000\r\n\r\n{"
            )
        dribblers = [Dribbler(heads, b"X"), Dribbler(bodies, b" ")]
        label = f"with {args.tricklers} header + {args.tricklers} body tricklers:"
        print(f"{label:51}{sample(port, path, k)}", flush=True)
        for d in dribblers:
            d.stop()
        for s in heads + bodies:
            s.close()
        held, got = [], {}
        t0 = time.monotonic()
        for _ in range(n):
            s, head = open_stream(port, game)
            held.append(s)
            got[s.fileno()] = head
        opened = time.monotonic() - t0
        label = f"with {n} idle streams:"
        print(
            f"{label:51}{sample(port, path, k)} (opened in {opened:.1f} s; "
            f"threads {threading.active_count()})",
            flush=True,
        )
        during: list[str] = []
        th = threading.Thread(target=lambda: during.append(sample(port, path, k)))
        t0 = time.monotonic()
        th.start()
        move = {"do": "deal", "player": "hera", "cards": ["?"] * 9}
        seq = referee_of(app).submit(game, "hera", move).seq
        ok = read_all(held, f"id: {seq}\n".encode(), got)
        reached = time.monotonic() - t0
        th.join()
        label = f"during a broadcast to {n} streams:"
        print(
            f"{label:51}{during[0]} (all {n} had it: {ok}, in {reached:.2f} s)",
            flush=True,
        )
        for s in held:
            s.close()
    print(f"peak resident memory of this process (server and clients): {peak_rss()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
