"""What rotating the seat cookie costs (issue 31, item 4): a seat page's request checks its
device token on every request and now and then rotates it (a write of two secrets).

    .venv/bin/python benchmarks/seat_tokens.py [--games 50] [--requests 2000] [--seed 1]

On a SQLite database in a temporary directory (as ``referee serve`` keeps it: WAL,
``synchronous=FULL``), ``--games`` games each with both seats taken. Printed, per request, the
p50/p99 of the token check alone (no rotation due: a read), of a check that rotates the token
(due: the read and two secret writes), and of the first use of a new token (it marks it used:
one write). A phone rotates at most once every ``ROTATE_AFTER`` seconds (30), so the rotating kind
is at most one request in that many seconds per phone. Nothing asserts: the numbers depend on
the machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # not benchmarks/referee.py

from referee.service import open_referee
from referee.tables import ROTATE_AFTER


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def line(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100)
    return f"{name:<34} p50 {q[49]:7.3f} ms   p99 {q[98]:7.3f} ms   ({len(ms)} requests)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    clock = [1_000_000.0]
    with tempfile.TemporaryDirectory() as d:
        ref = open_referee(Path(d) / "hall.db")
        ref.tables.now = lambda: clock[0]  # type: ignore[method-assign]
        tokens: dict[tuple[str, str], str] = {}
        for _ in range(args.games):
            c = ref.create_game()
            for seat, code in c.codes.items():
                claim = ref.claim(c.game, code)
                assert claim.token is not None
                tokens[(c.game, seat)] = claim.token
        keys = list(tokens)
        for k in keys:  # each token's first use rotates it; the next marks it used
            tokens[k] = ref.device(k[0], tokens[k], rotate=True).token or tokens[k]
            ref.device(k[0], tokens[k], rotate=True)
        read: list[float] = []
        rotate: list[float] = []
        first: list[float] = []
        for _ in range(args.requests):
            k = rng.choice(keys)
            read.append(timed(partial(ref.device, k[0], tokens[k], rotate=True)))
        clock[0] += ROTATE_AFTER + 1
        for _ in range(args.requests):
            k = rng.choice(keys)
            box: list[str | None] = [None]

            def rotating(k: tuple[str, str] = k, box: list[str | None] = box) -> None:
                box[0] = ref.device(k[0], tokens[k], rotate=True).token

            def use(k: tuple[str, str] = k) -> None:
                ref.device(k[0], tokens[k], rotate=True)

            rotate.append(timed(rotating))
            if box[0] is not None:
                tokens[k] = box[0]
                first.append(timed(use))
            clock[0] += ROTATE_AFTER + 1
        print(f"{args.games} games, {len(keys)} seats, SQLite (WAL, synchronous=FULL)")
        print(line("token check (no rotation due)", read))
        print(line("token check that rotates", rotate))
        print(line("first use of a new token", first))


if __name__ == "__main__":
    main()
