"""Referee service speed: durable appends, replay and export, and concurrent load.

    .venv/bin/python benchmarks/referee.py [--games N] [--events N] [--seed N]
        [--seconds S] [--concurrency 1,10,100] [--processes 2] [--pace S] [--sync FULL|NORMAL]
        [--only serial|load]

Games are first played at a simulated table (``tests/service_helpers.py``: real card names,
unscanned cards, questions, camera observations) into memory; their logs are then submitted
again, record by record, to a fresh referee (from the judge's seat, which states every card
and is never asked: the cost measured is the service's, not the table's):

- ``submit (SQLite)``: ``Referee.submit`` / ``observe`` over an SQLite store in a temporary
  directory (WAL, ``synchronous=FULL``: every acknowledged record is committed and synced);
- ``submit (memory)``: the same over the in-memory store (the service's own cost);
- ``append (SQLite)``: the same records appended to the store directly (the storage cost).

Then a long game (``--events`` records: a game, undone by the judge to the end of setup and
played again, as often as needed) is replayed (``fold``), verified and exported, for the judge
and for a player (redacted).

Then what the pages cost (issue 32, item 4; ``tests/page_costs.py``), on SQLite through the
Flask test client: the SQL statements of a seat's page for a head it was shown (``page``) and
of one tap's round trip (``tap``: the POST, its redirect, the live event, the other seat's
page), each with how many read the head and how many the whole log; then the time of Hera's
page for a game of about 50 records and for the long game, in one run (``page render``, warm:
a live update re-reads a page at a head the server has read), and their ratio. The cold view
of a 10,000-record game is ``--events 10000``'s ``cold view``.

Load (issue 6, section 4): 1, 10 and 100 concurrent games over one SQLite file, a thread per
game, each entering played games again as fast as it can for ``--seconds``; then the same over
several processes sharing the file; then 100 games at a table's pace (one submission every
``--pace`` seconds per game, the load of a real tournament). For each: p50/p99/max latency of
one write call (``submit`` or ``observe``) and records/s. With every thread writing flat out,
latency is queueing (Little's law: p50 ~ threads / throughput), so the flat-out rows measure
throughput and the paced row measures what a player waits.

Nothing here asserts: the numbers depend on the machine and its disk (tests never time
anything).
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the table simulator is a test helper

from service_helpers import Table, make_referee  # noqa: E402

from referee.fold import fold  # noqa: E402
from referee.keys import Signer  # noqa: E402
from referee.log import Record, verify  # noqa: E402
from referee.service import Created, Referee, ServiceError  # noqa: E402
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


Write = Callable[[], object]


def writes(ref: Referee, records: list[Record], game: str) -> list[Write]:
    """The calls that enter a game again from its log, from the judge's seat (the judge states
    every card, so nothing is asked): the create first, then one call per action or
    observation."""
    create = records[0].body

    def make() -> object:
        return ref.create_game(
            profile=create["profile"],
            switches=create.get("switches"),
            players=create.get("players"),
            game=game,
        )

    out: list[Write] = [make]
    for r in records[1:]:
        if r.kind == "action":
            a = r.body["action"]
            if a["do"] == "starter":  # create_game records the starting player
                continue
            out.append(partial(ref.submit, game, "judge", a))
        elif r.kind == "observation":
            obs = {
                k: v
                for k, v in r.body.items()
                if k not in ("identifies", "irregularity", "face_up")
            }
            out.append(partial(ref.observe, game, "judge", obs))
    return out


def resubmit(ref: Referee, records: list[Record], game: str) -> int:
    """Enters a game again from its log; returns the records appended."""
    for w in writes(ref, records, game):
        w()
    return len(ref.store.records(game))


def timed_submits(logs: list[list[Record]], store: Store) -> tuple[int, float]:
    ref = Referee(store, signer=Signer.from_seed("bench"))
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
            store.append([r])
            n += 1
    return n, time.perf_counter() - t0


def long_game(
    logs: list[list[Record]], events: int, game: str = "long"
) -> tuple[Referee, list[Record], dict[str, str]]:
    """A log of at least ``events`` records: the longest game, undone by the judge to the end
    of setup and entered again, as often as it takes; with the players' join codes."""
    records = max(logs, key=len)
    ref = make_referee(seed=99)
    calls = writes(ref, records, game)
    created = calls[0]()
    assert isinstance(created, Created)
    for w in calls[1:]:
        w()
    setup_end = max(
        r.seq for r in records if r.kind == "action" and r.body["action"]["do"] == "first_row"
    )
    play = [r for r in records if r.seq > setup_end and r.kind in ("action", "observation")]
    while len(ref.store.records(game)) < events:
        ref.undo(game, "judge", setup_end, "the game is replayed from the first rows")
        for r in play:
            if r.kind == "action":
                ref.submit(game, "judge", r.body["action"])
            else:
                obs = {
                    k: v
                    for k, v in r.body.items()
                    if k not in ("identifies", "irregularity", "face_up")
                }
                ref.observe(game, "judge", obs)
    return ref, ref.store.records(game), dict(created.codes)


def short_game(
    logs: list[list[Record]], events: int, game: str = "short"
) -> tuple[Referee, dict[str, str]]:
    """The longest game entered again until it holds ``events`` records (or ends); with the
    players' join codes."""
    ref = make_referee(seed=98)
    calls = writes(ref, max(logs, key=len), game)
    created = calls[0]()
    assert isinstance(created, Created)
    for w in calls[1:]:
        if len(ref.store.records(game)) >= events:
            break
        w()
    return ref, dict(created.codes)


def best(
    fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times)


def paused(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` run with Python's cyclic garbage collector paused (as the reader reads a
    game: a collection would walk this process's whole heap, the played games included)."""

    def run() -> object:
        was = gc.isenabled()
        gc.disable()
        try:
            return fn()
        finally:
            if was:
                gc.enable()

    return run


# ---- load --------------------------------------------------------------------------------


@dataclass
class Load:
    latencies: list[float]  # seconds, one per write call
    records: int
    seconds: float
    errors: int


def _drive(
    ref: Referee,
    logs: list[list[Record]],
    name: str,
    seconds: float,
    pace: float,
    rng: random.Random,
    start: threading.Barrier | None,
) -> tuple[list[float], int]:
    """One table: enters played games again, one after another, under fresh ids, until
    ``seconds`` pass; one write call every ``pace`` seconds (0: as fast as it can). Returns
    the latencies of the write calls and the errors met."""
    lat: list[float] = []
    errors = 0
    if start is not None:
        start.wait()
    deadline = time.perf_counter() + seconds
    if pace:
        time.sleep(rng.uniform(0, pace))  # the tables do not move in step
    n = 0
    while time.perf_counter() < deadline:
        calls = writes(ref, rng.choice(logs), f"{name}-{n}")
        n += 1
        for w in calls:
            t0 = time.perf_counter()
            if t0 >= deadline:
                break
            try:
                w()
            except ServiceError:
                errors += 1
                break
            t1 = time.perf_counter()
            lat.append(t1 - t0)
            if pace:
                time.sleep(max(0.0, pace - (t1 - t0)) * rng.uniform(0.5, 1.5))
    return lat, errors


def run_threads(
    db: str,
    logs: list[list[Record]],
    games: int,
    seconds: float,
    pace: float,
    sync: str,
    prefix: str = "t",
) -> Load:
    """``games`` threads over one referee and one SQLite file, a game each."""
    store = SQLiteStore(db, sync=sync)
    ref = Referee(store, signer=Signer.from_seed("bench"))
    before = sum(len(store.records(g)) for g in store.games())
    results: list[tuple[list[float], int]] = [([], 0)] * games
    start = threading.Barrier(games + 1)

    def run(i: int) -> None:
        rng = random.Random(f"{prefix}{i}")
        results[i] = _drive(ref, logs, f"{prefix}{games}x{i}", seconds, pace, rng, start)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(games)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    secs = time.perf_counter() - t0
    after = sum(len(store.records(g)) for g in store.games())
    store.close()
    lat = [x for r in results for x in r[0]]
    return Load(lat, after - before, secs, sum(r[1] for r in results))


def stored(db: str) -> int:
    """Records in the database, all games."""
    store = SQLiteStore(db, readonly=True)
    try:
        return sum(len(store.records(g)) for g in store.games())
    finally:
        store.close()


def _process(args: tuple[str, list[list[Record]], int, float, float, str, str]) -> Load:
    db, logs, games, seconds, pace, sync, prefix = args
    return run_threads(db, logs, games, seconds, pace, sync, prefix)


def run_processes(
    db: str, logs: list[list[Record]], procs: int, games: int, seconds: float, sync: str
) -> Load:
    """``procs`` processes over one SQLite file, ``games`` threads (a game each) in each."""
    ctx = multiprocessing.get_context("spawn")
    before = stored(db)
    with ctx.Pool(procs) as pool:
        t0 = time.perf_counter()
        out = pool.map(
            _process, [(db, logs, games, seconds, 0.0, sync, f"p{i}-") for i in range(procs)]
        )
        secs = time.perf_counter() - t0
    lat = [x for r in out for x in r.latencies]
    return Load(
        lat,
        stored(db) - before,  # each process sees the other's games: count once, here
        min(secs, max(r.seconds for r in out)),
        sum(r.errors for r in out),
    )


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def report(label: str, load: Load) -> None:
    lat = load.latencies
    print(
        f"{label:<34} p50 {percentile(lat, 0.5) * 1e3:7.1f} ms  "
        f"p99 {percentile(lat, 0.99) * 1e3:7.1f} ms  max {max(lat, default=0) * 1e3:7.1f} ms  "
        f"{load.records / load.seconds:6,.0f} records/s  ({len(lat)} writes"
        + (f", {load.errors} refused" if load.errors else "")
        + ")",
        flush=True,
    )


def load_section(logs: list[list[Record]], args: argparse.Namespace) -> None:
    print(
        f"load: {args.seconds:g} s each, SQLite synchronous={args.sync}, latency of one "
        "write call (submit/observe)"
    )
    levels = [int(x) for x in args.concurrency.split(",") if x.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "load.sqlite3")
        for n in levels:
            report(
                f"{n:>3} games, 1 process, flat out",
                run_threads(db, logs, n, args.seconds, 0.0, args.sync, f"t{n}-"),
            )
        top = max(levels)
        if args.processes > 1:
            per = max(1, top // args.processes)
            report(
                f"{per * args.processes:>3} games, {args.processes} processes, flat out",
                run_processes(db, logs, args.processes, per, args.seconds, args.sync),
            )
        if args.pace > 0:
            report(
                f"{top:>3} games, 1 process, 1 write/{args.pace:g} s",
                run_threads(db, logs, top, args.seconds, args.pace, args.sync, f"paced{top}-"),
            )


def serial_section(logs: list[list[Record]], args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "referee.sqlite3", sync=args.sync)
        n, secs = timed_submits(logs, store)
        store.close()
        print(
            f"submit (SQLite) {n} records in {secs:.2f} s: {n / secs:,.0f} records/s durable, "
            f"{secs / n * 1e3:.2f} ms each (Referee.submit/observe, synchronous={args.sync})"
        )
        store = SQLiteStore(Path(tmp) / "raw.sqlite3", sync=args.sync)
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

    ref, records, codes = long_game(logs, args.events)
    acts = sum(1 for r in records if r.kind == "action")
    undos = sum(1 for r in records if r.kind == "undo")
    print(f"long game      {len(records)} records ({acts} actions, {undos} judge undos)")
    secs = best(lambda: fold(records), args.repeat)
    print(f"replay (fold)  {secs * 1e3:.1f} ms, {len(records) / secs:,.0f} records/s")
    header = ref.reader.header("long", "judge")
    secs = best(lambda: verify(header, records), args.repeat)
    print(f"verify         {secs * 1e3:.1f} ms, {len(records) / secs:,.0f} records/s")
    for seat in ("judge", "hera"):
        text = ref.export("long", seat)
        secs = best(partial(ref.export, "long", seat), args.repeat)
        print(
            f"export {seat:<7} {secs * 1e3:.1f} ms, {len(text) / 1e6:.2f} MB, "
            f"{len(records) / secs:,.0f} records/s"
        )
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "export.sqlite3", sync=args.sync)
        store.append(records)
        sref = Referee(store, signer=ref.signer)
        secs = best(lambda: sref.export("long", "judge"), args.repeat)
        print(f"export (SQLite) {secs * 1e3:.1f} ms for the judge, read from the database")
        secs = best(lambda: Referee(store, signer=ref.signer).view("long", "judge"), args.repeat)
        cpu = best(
            lambda: Referee(store, signer=ref.signer).view("long", "judge"),
            args.repeat,
            time.process_time,
        )
        print(
            f"cold view      {secs * 1e3:.1f} ms, {cpu * 1e3:.1f} ms of CPU (a restarted server "
            "reads, verifies and folds the log; on a shared machine the CPU time is the steadier)"
        )
        # the parts as the load runs them: with the cyclic collector paused
        read = best(paused(lambda: store.entries("long")), args.repeat)
        entries = store.entries("long")
        chain = best(paused(lambda: [e.hash_ok() for e in entries]), args.repeat)
        folding = best(paused(lambda: fold(entries)), args.repeat)
        print(
            f"  of which     read {read * 1e3:.1f} ms (rows to stored entries), hash chain "
            f"{chain * 1e3:.1f} ms (every hash over the stored bytes, every sealed value against "
            f"its commitment), fold {folding * 1e3:.1f} ms; the rest is the head's signature, "
            "the view and the collector"
        )
        full = best(paused(lambda: [r.compute_hash() for r in records]), args.repeat)
        print(
            f"  (re-serialising every record to check its hash, as before the stored form: "
            f"{full * 1e3:.1f} ms)"
        )
        store.close()
    runs, statements, heads = costs_per_action(logs)
    print(
        f"per action     the rules run {runs} times, {statements} SQL statements "
        f"({heads} read the head): one accepted action on SQLite"
    )
    pages_section(logs, args, ref, codes)


def pages_section(
    logs: list[list[Record]], args: argparse.Namespace, long_ref: Referee, codes: dict[str, str]
) -> None:
    """What the pages cost (issue 32, item 4): the SQL statements of a seat's page for a head
    it was shown and of one tap's round trip (``tests/page_costs.py``), on SQLite through the
    Flask test client; then the time of a player's page for a short and for the long game, in
    one run (the pages warm: a live update re-reads a page at a head the server has read)."""
    from page_costs import page_statements, tap_statements, tap_table

    with tempfile.TemporaryDirectory() as tmp:
        tt = tap_table(Path(tmp) / "pages.sqlite3")
        for seat in ("hera", "zeus"):
            print(f"page {seat:<9} {page_statements(tt, seat)}: a page for a head already seen")
        print(
            f"tap            {tap_statements(tt)}: one tap's round trip (the POST, its "
            "redirect, the live event, the other seat's page)"
        )
        tt.store.close()
    short, short_codes = short_game(logs, 50)
    renders = []
    for ref, game, game_codes in ((short, "short", short_codes), (long_ref, "long", codes)):
        with tempfile.TemporaryDirectory() as tmp:
            n, secs, desk = page_time(
                ref, game, game_codes, Path(tmp) / "page.sqlite3", args.repeat
            )
        renders.append((secs, desk))
        print(f"page render    {secs * 1e3:.1f} ms, Hera's page of a {n:,}-record game (warm)")
        print(f"desk render    {desk * 1e3:.1f} ms, the judge's desk of that game (warm)")
    print(f"  long / short {renders[1][0] / renders[0][0]:.2f}x (Hera's page)")
    print(f"  long / short {renders[1][1] / renders[0][1]:.2f}x (the judge's desk)")


def page_time(
    ref: Referee, game: str, codes: dict[str, str], db: Path, repeat: int
) -> tuple[int, float, float]:
    """The best times of Hera's page and of the judge's desk of ``game`` (copied from ``ref``
    into the SQLite file ``db``, Hera's browser holding her seat), with the records the game
    holds then."""
    from web_helpers import Browser, judge_browser, make_app

    store = SQLiteStore(db)
    store.append(ref.store.records(game), ref.store.secrets(game))
    served = Referee(store, signer=ref.signer)
    app = make_app(served)
    b = Browser(app)
    assert b.join(game, codes["hera"]).status_code == 303
    page = partial(b.get, f"/g/{game}")
    assert page().status_code == 200
    secs = best(page, max(repeat, 5))
    desk = partial(judge_browser(app).get, f"/g/{game}")
    assert desk().status_code == 200
    desk_secs = best(desk, max(repeat, 5))
    n = len(store.records(game))
    store.close()
    return n, secs, desk_secs


def costs_per_action(logs: list[list[Record]]) -> tuple[int, int, int]:
    """What one accepted action costs: how often the rules engine runs (its one entry point,
    ``engine.herazeus.game._resolve``) and the SQL statements the store sends, counted on a game of
    ``logs`` entered again on SQLite."""
    import engine.herazeus.game as rules

    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "costs.sqlite3")
        ref = Referee(store, signer=Signer.generate())
        game = "costs"
        played = min(logs, key=len)
        at = next(
            (
                i
                for i, r in enumerate(played)
                if i > len(played) // 2 and r.kind == "action" and r.seat in ("hera", "zeus")
            ),
            None,
        )
        if at is None:
            raise SystemExit("costs per action: the shortest game has no player's action left")
        resubmit(ref, played[:at], game)
        seat, action = played[at].seat, played[at].body["action"]
        ref.view(game, "judge")  # warm: the cost of a load is measured above
        statements: list[str] = []
        store._db().set_trace_callback(statements.append)
        real = rules._resolve
        runs = 0

        def counted(*a: Any, **kw: Any) -> Any:
            nonlocal runs
            runs += 1
            return real(*a, **kw)

        rules._resolve = counted
        try:
            ref.submit(game, seat, action)  # a player's: checked on his projection first
        finally:
            rules._resolve = real
            store._db().set_trace_callback(None)
            store.close()
    heads = sum(1 for s in statements if "ORDER BY seq DESC LIMIT 1" in s)
    return runs, len(statements), heads


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="games played first (default 20)")
    ap.add_argument("--events", type=int, default=1500, help="records of the long game")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--repeat", type=int, default=3, help="rounds of replay/export; best counts")
    ap.add_argument("--seconds", type=float, default=5.0, help="length of each load run")
    ap.add_argument("--concurrency", default="1,10,100", help="games at once (threads)")
    ap.add_argument("--processes", type=int, default=2, help="processes of the shared-file run")
    ap.add_argument("--pace", type=float, default=1.0, help="seconds between a table's writes")
    ap.add_argument("--sync", choices=["FULL", "NORMAL"], default="FULL")
    ap.add_argument("--only", choices=["serial", "load"], help="run one part only")
    args = ap.parse_args(argv)
    print(f"referee benchmark, Python {sys.version.split()[0]}")
    logs = played_logs(args.games, args.seed)
    actions = sum(1 for log in logs for r in log if r.kind == "action")
    print(
        f"played         {args.games} games at a simulated table: "
        f"{sum(map(len, logs))} records, {actions} actions"
    )
    if args.only != "load":
        serial_section(logs, args)
    if args.only != "serial":
        load_section(logs, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
