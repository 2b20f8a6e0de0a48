"""How soon another process hears of an append on PostgreSQL (issue 35): LISTEN against polling.

    .venv/bin/python benchmarks/pg_listen.py [--dsn DSN] [--appends 200] [--waits 40]

Two :class:`~referee.pgstore.PostgresStore` on one database stand for two processes. Without
``--dsn`` a throwaway cluster is started (``tests/pg_helpers.py``: PostgreSQL's binaries on this
machine, a Unix socket, ``fsync=off``) with a new upgraded database.

Printed, each as median, p95 and max in milliseconds:

- **append**: ``A.append`` of one record (its transaction, its NOTIFY and the commit);
- **heard**: from just before ``A.append`` until B's listener thread hands the notice on;
- **woken, push**: a waiter of B (:meth:`referee.bell.Bell.wait`, looked at the store already)
  from just before A's append until it returns with the new seq, its bell rung by B's listener
  and its poll the safety net (:data:`~referee.bell.SAFETY_POLL`);
- **woken, poll**: the same with nothing rung, the bell looking every
  :data:`~referee.bell.POLL` seconds (as over a store that does not push, or before issue 35's
  LISTEN).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from referee.bell import POLL, SAFETY_POLL, Bell  # noqa: E402
from referee.keys import Signer  # noqa: E402
from referee.log import GENESIS, Record  # noqa: E402
from referee.pgstore import PostgresStore, upgrade  # noqa: E402

SIGNER = Signer.from_seed("benchmark")


def record(game: str, seq: int, prev: str) -> Record:
    r = Record(game, seq, "t", "hera", "action", {}, (), None, prev, nonce=f"n{seq}")
    return r.sealed_with(SIGNER.sign)


@contextmanager
def database(dsn: str | None) -> Iterator[str]:
    if dsn is not None:
        upgrade(dsn)
        yield dsn
        return
    from pg_helpers import running_cluster

    with running_cluster() as cluster:
        made = cluster.new_database()
        upgrade(made)
        yield made


def line(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return (
        f"{name:<14} n={len(ms):<4} median {statistics.median(ms):7.2f} ms"
        f"   p95 {p95:7.2f} ms   max {ms[-1]:7.2f} ms"
    )


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dsn", default=None, help="a database to use (default: a throwaway one)")
    ap.add_argument("--appends", type=int, default=200)
    ap.add_argument("--waits", type=int, default=40)
    args = ap.parse_args(argv)
    with database(args.dsn) as dsn:
        a, b = PostgresStore(dsn), PostgresStore(dsn)
        try:
            run(a, b, args.appends, args.waits)
        finally:
            a.close()
            b.close()


def run(a: PostgresStore, b: PostgresStore, appends: int, waits: int) -> None:
    heard: dict[tuple[str, int], float] = {}
    arrived = threading.Condition()
    push = Bell(SAFETY_POLL)
    ringing = threading.Event()  # whether B's notices ring the bell (push) or not (poll)

    def on_notice(game: str, seq: int) -> None:
        with arrived:
            heard[(game, seq)] = time.perf_counter()
            arrived.notify_all()
        if ringing.is_set():
            push.ring(game)

    b.listen(on_notice, push.resync)
    prev = GENESIS
    took, late = [], []
    for seq in range(appends):
        r = record("bench", seq, prev)
        t0 = time.perf_counter()
        a.append([r])
        took.append((time.perf_counter() - t0) * 1000)
        with arrived:
            if not arrived.wait_for(functools.partial(heard.__contains__, ("bench", seq)), 10):
                raise SystemExit(f"notice {seq} not heard within 10 s")
            late.append((heard[("bench", seq)] - t0) * 1000)
        prev = r.hash
    print(line("append", took))
    print(line("heard", late))
    ringing.set()
    woken_push, prev = woken(a, b, push, "push", waits, prev, appends)
    ringing.clear()
    woken_poll, _ = woken(a, b, Bell(POLL), "poll", waits, prev, appends + waits)
    print(line("woken, push", woken_push))
    print(line("woken, poll", woken_poll))


def woken(
    a: PostgresStore, b: PostgresStore, bell: Bell, name: str, n: int, prev: str, first: int
) -> tuple[list[float], str]:
    """Milliseconds from just before A's append until B's waiter returned with it, ``n``
    times."""
    out = []
    for seq in range(first, first + n):
        r = record("bench", seq, prev)
        out.append(once(a, b, bell, name, r))
        prev = r.hash
    return out, prev


def once(a: PostgresStore, b: PostgresStore, bell: Bell, name: str, r: Record) -> float:
    looked = threading.Event()
    done: list[float] = []

    def last() -> int:
        h = b.head("bench")
        looked.set()
        return -1 if h is None else h[0]

    def wait() -> None:
        got = bell.wait("bench", r.seq - 1, 10, last)
        done.append(time.perf_counter())
        if got != r.seq:
            raise SystemExit(f"{name}: the waiter returned {got}, not {r.seq}")

    t = threading.Thread(target=wait)
    t.start()
    looked.wait(10)
    t0 = time.perf_counter()
    a.append([r])
    t.join(15)
    return (done[0] - t0) * 1000


if __name__ == "__main__":
    main(sys.argv[1:])
