"""Rate-limit acquires per second (issue 35): counted in PostgreSQL (``referee.pgrates``) and in
this process's memory (limits' ``MemoryStorage``, what ``memory://`` gives).

    .venv/bin/python benchmarks/pg_rates.py [--seconds 3] [--threads 1,8] [--dsn DSN]

Each run acquires entries of ``"300 per minute"`` through limits' moving-window limiter for
``--seconds``, from each number of ``--threads`` (one storage shared by the threads, as a
server's requests share it), once on a single key (one seat asking as fast as it can: every
acquire waits for the one before on the key's lock; past the first 300, refusals, which write
nothing) and once on a thousand keys (a hall's seats). Printed: acquires a second and the mean
latency of one. Without ``--dsn`` it makes a throwaway cluster as the tests do
(``tests/pg_helpers.py``: ``fsync=off``, a Unix socket), so the figures are the database's work
and a round trip, not a disk's. Nothing asserts: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from limits import parse
from limits.storage import MemoryStorage, Storage
from limits.strategies import MovingWindowRateLimiter

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the package, not benchmarks/referee.py

from referee.pgrates import PostgresRates  # noqa: E402
from referee.pgstore import PostgresStore, describe, upgrade  # noqa: E402

LIMIT = parse("300 per minute")


def run(storage: Storage, threads: int, keys: int, seconds: float) -> tuple[int, float]:
    """(acquires made, seconds taken) by ``threads`` threads for ``seconds``."""
    limiter = MovingWindowRateLimiter(storage)
    storage.reset()
    counts = [0] * threads
    start = threading.Barrier(threads + 1)
    stop = time.perf_counter() + seconds + 0.05

    def work(n: int) -> None:
        start.wait()
        i = n
        while time.perf_counter() < stop:
            limiter.hit(LIMIT, f"seat g{i % keys}")
            counts[n] += 1
            i += threads

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    start.wait()
    began = time.perf_counter()
    for w in workers:
        w.join()
    return sum(counts), time.perf_counter() - began


@contextmanager
def database(dsn: str | None) -> Iterator[str]:
    if dsn:
        yield dsn
        return
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_helpers import running_cluster

    with running_cluster() as cluster:
        yield cluster.new_database()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--threads", default="1,8", help="comma-separated thread counts")
    parser.add_argument("--dsn", help="an upgraded-or-empty database (default: a throwaway one)")
    args = parser.parse_args()
    counts = [int(t) for t in args.threads.split(",")]
    with database(args.dsn) as dsn:
        upgrade(dsn)
        store = PostgresStore(dsn, max_size=max(counts))
        try:
            storages: list[tuple[str, Storage]] = [
                ("memory", MemoryStorage()),
                ("postgresql", PostgresRates(store=store)),
            ]
            print(f"rate acquires ({LIMIT}) on {describe(dsn)}, {args.seconds:g} s each")
            for name, storage in storages:
                for threads in counts:
                    for keys in (1, 1000):
                        n, took = run(storage, threads, keys, args.seconds)
                        print(
                            f"{name:>10}  {threads:>2} thread{'s' if threads > 1 else ' '}  "
                            f"{keys:>4} key{'s' if keys > 1 else ' '}  {n / took:>9,.0f} acquires/s"
                            f"  {took / n * threads * 1000:7.3f} ms each"
                        )
        finally:
            store.close()


if __name__ == "__main__":
    main()
