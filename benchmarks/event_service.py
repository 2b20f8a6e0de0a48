"""What a whole event costs through the service (issue 34): ``referee event simulate``'s run on
an SQLite file, then reading the event in a new process (the verified fold, which recomputes
every round's pairing), its export and the export's offline check.

    .venv/bin/python benchmarks/event_service.py [--players 16 64] [--seed bench]

For each ``--players`` count (the usual number of rounds), printed: the seconds of the whole
simulated event (registration, pairings, each round's games created, slip results), of one
cold read of the event, of the export and of its verification, and the export's size. Nothing
asserts: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.event.cli import simulate
from referee.event.export import verify_event_export
from referee.event.service import Events
from referee.service import open_referee


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--seed", default="bench")
    args = ap.parse_args()
    print("players  rounds  games  simulate_s  cold_read_s  export_s  verify_s  export_kB")
    for n in args.players:
        db = Path(tempfile.mkdtemp(prefix="event-bench-")) / "e.sqlite3"
        ref = open_referee(db)
        t0 = time.perf_counter()
        eid = simulate(ref, n, None, f"{args.seed}{n}")
        t1 = time.perf_counter()
        ref.store.close()
        ref = open_referee(db)
        ev = Events(ref)
        st = ev.get(eid)
        t2 = time.perf_counter()
        text = ev.export(eid)
        t3 = time.perf_counter()
        v = verify_event_export(text)
        t4 = time.perf_counter()
        assert v.ok, v.problem
        ref.store.close()
        games = sum(len(t.games) for r in st.rounds for t in r.tables)
        print(
            f"{n:>7}  {len(st.rounds):>6}  {games:>5}  {t1 - t0:>10.2f}  {t2 - t1:>11.2f}  "
            f"{t3 - t2:>8.2f}  {t4 - t3:>8.2f}  {len(text) // 1024:>9}"
        )


if __name__ == "__main__":
    main()
