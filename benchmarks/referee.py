"""Referee service speed: durable appends, replay and export.

    .venv/bin/python benchmarks/referee.py [--games N] [--events N] [--seed N]

Games are first played at a simulated table (``tests/service_helpers.py``: real card names,
unscanned cards, questions, camera observations) into memory; their logs are then submitted
again, record by record, to a fresh referee:

- ``submit (SQLite)``: ``Referee.submit`` / ``observe`` over an SQLite store in a temporary
  directory (WAL, ``synchronous=FULL``: every acknowledged record is committed and synced);
- ``submit (memory)``: the same over the in-memory store (the service's own cost);
- ``append (SQLite)``: the same records appended to the store directly (the storage cost).

Then a long game (``--events`` records: a game, undone by the judge to the end of setup and
played again, as often as needed) is replayed (``fold``), verified and exported, for the judge
and for a player (redacted). Nothing here asserts: the numbers depend on the machine and its
disk (tests never time anything).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the table simulator is a test helper

from service_helpers import Table, make_referee  # noqa: E402

from referee.fold import fold  # noqa: E402
from referee.log import Record, verify  # noqa: E402
from referee.service import Referee  # noqa: E402
from referee.store import MemoryStore, SQLiteStore, Store  # noqa: E402


def played_logs(games: int, seed: int) -> list[list[Record]]:
    """The judge's logs of ``games`` games played at a simulated table."""
    out = []
    for i in range(games):
        rng = random.Random(seed + i)
        ref = make_referee(seed=seed + i)
        t = Table(ref, rng, unknown_draw=0.2, unscanned_play=0.3, omit=0.2, observe=0.2)
        t.setup()
        while t.step():
            pass
        out.append(t.records())
    return out


def resubmit(ref: Referee, records: list[Record], game: str) -> int:
    """Enters a game again from its log, as the seats did; returns the records appended."""
    create = records[0].body
    ref.create_game(
        profile=create["profile"],
        switches=create.get("switches"),
        players=create.get("players"),
        game=game,
    )
    for r in records[1:]:
        if r.kind == "action":
            a = r.body["action"]
            if a["do"] == "starter":  # create_game records the starting player
                continue
            ref.submit(game, r.seat, a)
        elif r.kind == "observation":
            obs = {k: v for k, v in r.body.items() if k not in ("identifies", "face_up")}
            ref.observe(game, r.seat, obs)
    return len(ref.store.records(game))


def timed_submits(logs: list[list[Record]], store: Store) -> tuple[int, float]:
    ref = Referee(store)
    n = 0
    t0 = time.perf_counter()
    for i, records in enumerate(logs):
        n += resubmit(ref, records, f"bench-{i}")
    return n, time.perf_counter() - t0


def timed_appends(logs: list[list[Record]], store: Store) -> tuple[int, float]:
    n = 0
    t0 = time.perf_counter()
    for records in logs:
        for r in records:
            store.append(r)
            n += 1
    return n, time.perf_counter() - t0


def long_game(logs: list[list[Record]], events: int) -> list[Record]:
    """A log of at least ``events`` records: the longest game, undone by the judge to the end
    of setup and entered again, as often as it takes."""
    records = max(logs, key=len)
    ref = make_referee(seed=99)
    game = "long"
    resubmit(ref, records, game)
    setup_end = max(
        r.seq for r in records if r.kind == "action" and r.body["action"]["do"] == "first_row"
    )
    play = [r for r in records if r.seq > setup_end and r.kind in ("action", "observation")]
    while len(ref.store.records(game)) < events:
        ref.undo(game, "judge", setup_end, "the game is replayed from the first rows")
        for r in play:
            if r.kind == "action":
                ref.submit(game, r.seat, r.body["action"])
            else:
                obs = {k: v for k, v in r.body.items() if k not in ("identifies", "face_up")}
                ref.observe(game, r.seat, obs)
    return ref.store.records(game)


def best(fn: object, repeat: int) -> float:
    assert callable(fn)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="games entered again (default 20)")
    ap.add_argument("--events", type=int, default=1500, help="records of the long game")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--repeat", type=int, default=3, help="rounds of replay/export; best counts")
    args = ap.parse_args(argv)
    print(f"referee benchmark, Python {sys.version.split()[0]}")
    logs = played_logs(args.games, args.seed)
    actions = sum(1 for log in logs for r in log if r.kind == "action")
    print(
        f"played         {args.games} games at a simulated table: "
        f"{sum(map(len, logs))} records, {actions} actions"
    )

    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "referee.sqlite3")
        n, secs = timed_submits(logs, store)
        store.close()
        print(
            f"submit (SQLite) {n} records in {secs:.2f} s: {n / secs:,.0f} records/s durable, "
            f"{secs / n * 1e3:.2f} ms each (Referee.submit/observe, synchronous=FULL)"
        )
        store = SQLiteStore(Path(tmp) / "raw.sqlite3")
        n, secs = timed_appends(logs, store)
        store.close()
        print(
            f"append (SQLite) {n} records in {secs:.2f} s: {n / secs:,.0f} records/s durable, "
            f"{secs / n * 1e3:.2f} ms each (store.append alone)"
        )
    n, secs = timed_submits(logs, MemoryStore())
    print(
        f"submit (memory) {n} records in {secs:.2f} s: {n / secs:,.0f} records/s "
        f"(the service without the disk)"
    )

    records = long_game(logs, args.events)
    acts = sum(1 for r in records if r.kind == "action")
    undos = sum(1 for r in records if r.kind == "undo")
    print(f"long game      {len(records)} records ({acts} actions, {undos} judge undos)")
    secs = best(lambda: fold(records), args.repeat)
    print(f"replay (fold)  {secs * 1e3:.1f} ms, {len(records) / secs:,.0f} records/s")
    secs = best(lambda: verify(records), args.repeat)
    print(f"verify         {secs * 1e3:.1f} ms, {len(records) / secs:,.0f} records/s")
    ref = Referee(MemoryStore())
    for r in records:
        ref.store.append(r)
    for seat in ("judge", "hera"):
        text = ref.export("long", seat)
        secs = best(lambda seat=seat: ref.export("long", seat), args.repeat)
        print(
            f"export {seat:<7} {secs * 1e3:.1f} ms, {len(text) / 1e6:.2f} MB, "
            f"{len(records) / secs:,.0f} records/s"
        )
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "export.sqlite3")
        for r in records:
            store.append(r)
        ref = Referee(store)
        secs = best(lambda: ref.export("long", "judge"), args.repeat)
        print(f"export (SQLite) {secs * 1e3:.1f} ms for the judge, read from the database")
        secs = best(lambda: Referee(store).view("long", "judge"), args.repeat)
        print(f"cold view      {secs * 1e3:.1f} ms (a restarted server reads and folds the log)")
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
