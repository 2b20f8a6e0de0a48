"""Several processes over one database behave as one referee (issue 6, section 4).

Found: two processes never forked a chain, but process B kept serving an old head forever (its
cache was never refreshed), and within one process 7.6% of concurrent ``view()`` calls showed a
sequence that did not match the board. Here:

- reads are fresh: a process sees another process's appends before it answers;
- reads are consistent: the board and the ``seq`` of one view come from one head (checked by
  replaying the log to that seq for every view taken while another thread plays);
- racing writers never fork the chain: the loser of a race either succeeds on the new head or
  is told Stale, never a duplicate; one idempotency key is applied once whoever races with it.

Writers are real processes (small scripts run with the test's Python) over one SQLite file.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
import pytest
from service_helpers import Table, header, make_referee

from referee.fold import fold
from referee.herazeus.game import view_for
from referee.log import verify
from referee.store import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent

WORKER = textwrap.dedent(
    """
    import json, sys, time
    sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests"]
    from service_helpers import make_referee
    from referee.service import ServiceError
    from referee.store import SQLiteStore

    db, job = sys.argv[2], json.loads(sys.argv[3])
    ref = make_referee(SQLiteStore(db), seed=job["seed"])
    game = job["game"]
    ref.view(game, "judge")  # loaded and cached before the race
    while time.time() < job["start"]:
        time.sleep(0.001)
    out = []
    for i in range(job["n"]):
        try:
            if job["do"] == "call":
                r = ref.call_judge(game, job["seat"], f"{job['seed']}-{i}")
                out.append(["ok", r.seq])
            else:
                r = ref.submit(game, job["seat"], job["action"], key=job.get("key"),
                               expected_seq=job.get("expected_seq"))
                out.append(["ok", r.seq])
        except ServiceError as e:
            out.append([type(e).__name__, e.message])
    print(json.dumps({"results": out, "seq": ref.view(game, "judge").seq}))
    """
)


def run_workers(tmp: Path, db: Path, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Starts one process per job, all released at the same instant; returns their reports."""
    script = tmp / "worker.py"
    script.write_text(WORKER)
    start = time.time() + 3.0  # after every process has imported and loaded the game
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(ROOT), str(db), json.dumps({**j, "start": start})],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for j in jobs
    ]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr[-2000:]
        out.append(json.loads(stdout))
    return out


@pytest.fixture
def table(tmp_path: Path) -> Table:
    """A game in play on an SQLite file (every card named)."""
    store = SQLiteStore(tmp_path / "shared.sqlite3")
    t = Table(make_referee(store, seed=1), random.Random(1), game="g")
    t.setup()
    return t


def db_of(t: Table) -> Path:
    store = t.ref.store
    assert isinstance(store, SQLiteStore)
    return Path(store.path)


def intact(t: Table) -> None:
    """The shared file holds one chain: numbered 0..n without a gap or a fork, and verified."""
    store = SQLiteStore(db_of(t), readonly=True)
    records = store.records(t.game)
    store.close()
    assert [r.seq for r in records] == list(range(len(records)))
    v = verify(header(t.game), records)
    assert v.ok, v.message()


@pytest.mark.process
def test_a_process_sees_another_process_appends_before_it_answers(
    tmp_path: Path, table: Table
) -> None:
    ref = table.ref
    before = ref.view("g", "judge").to_json()  # process A has the game in memory
    (report,) = run_workers(
        tmp_path, db_of(table), [{"do": "call", "game": "g", "seat": "zeus", "n": 2, "seed": 5}]
    )
    assert [r[0] for r in report["results"]] == ["ok", "ok"]
    after = ref.view("g", "judge").to_json()  # no restart, no reload asked for
    assert after["seq"] == before["seq"] + 2 == report["seq"]
    assert after["calls_open"] == before["calls_open"] + 2
    assert [i["kind"] for i in after["open"]][-2:] == ["call", "call"]
    # and the other way: what this process appends, a new process answers with
    ref.call_judge("g", "hera", "from A")
    (report,) = run_workers(
        tmp_path, db_of(table), [{"do": "call", "game": "g", "seat": "hera", "n": 0, "seed": 6}]
    )
    assert report["seq"] == after["seq"] + 1


@pytest.mark.process
def test_racing_processes_append_to_one_chain_without_a_fork(tmp_path: Path, table: Table) -> None:
    seq0 = table.seq
    jobs = [
        {"do": "call", "game": "g", "seat": s, "n": 15, "seed": i}
        for i, s in enumerate(["hera", "zeus", "hera", "zeus"])
    ]
    reports = run_workers(tmp_path, db_of(table), jobs)
    results = [r for rep in reports for r in rep["results"]]
    oks = [seq for kind, seq in results if kind == "ok"]
    # a loser of a race builds again on the new head, or is told Stale; nothing else
    assert {kind for kind, _ in results} <= {"ok", "Stale"}
    assert len(oks) == len(set(oks))  # no two calls acknowledged with one number
    intact(table)
    records = table.ref.log("g", "judge")
    assert len(records) == seq0 + 1 + len(oks)
    calls = [r for r in records if r.kind == "call"]
    assert sorted(r.seq for r in calls) == sorted(oks)
    assert len({r.body["note"] for r in calls}) == len(calls)  # each call recorded once


@pytest.mark.process
def test_one_key_raced_by_several_processes_is_applied_once(tmp_path: Path, table: Table) -> None:
    seat = table.service.player.key
    before = table.seq
    job = {"do": "submit", "game": "g", "seat": seat, "action": {"do": "draw"}, "n": 1}
    reports = run_workers(
        tmp_path, db_of(table), [{**job, "seed": i, "key": "tap-once"} for i in range(4)]
    )
    kinds = Counter(rep["results"][0][0] for rep in reports)
    assert kinds == {"ok": 1, "Stale": 3}
    intact(table)
    records = table.ref.log("g", "judge")
    assert len(records) == before + 2
    assert sum(1 for r in records if r.key == "tap-once") == 1


@pytest.mark.process
def test_of_submissions_made_on_one_seen_event_one_wins_the_rest_are_stale(
    tmp_path: Path, table: Table
) -> None:
    seat = table.service.player.key
    before = table.seq
    job = {"do": "submit", "game": "g", "seat": seat, "action": {"do": "draw"}, "n": 1}
    reports = run_workers(
        tmp_path,
        db_of(table),
        [{**job, "seed": i, "key": f"k{i}", "expected_seq": before} for i in range(4)],
    )
    kinds = Counter(rep["results"][0][0] for rep in reports)
    assert kinds == {"ok": 1, "Stale": 3}
    intact(table)
    assert len(table.ref.log("g", "judge")) == before + 2


def test_every_view_shows_the_board_of_its_own_seq_while_another_thread_plays(
    table: Table,
) -> None:
    ref = table.ref
    seen: list[tuple[str, Mapping[str, Any]]] = []
    done = threading.Event()
    errors: list[BaseException] = []

    def read(seat: str) -> None:
        try:
            while not done.is_set():
                seen.append((seat, ref.view("g", seat).to_json()))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    readers = [threading.Thread(target=read, args=(s,)) for s in ("judge", "hera", "zeus")]
    for r in readers:
        r.start()
    try:
        for _ in range(60):
            if not table.step():
                break
    finally:
        done.set()
        for r in readers:
            r.join()
    assert not errors, errors
    records = table.records()
    seqs = {v["seq"] for _, v in seen}
    assert len(seqs) > 5, "the readers did not overlap the writer"
    boards = {s: fold(records[: s + 1]).state for s in seqs}
    for seat, v in seen:
        expected = msgspec.to_builtins(view_for(boards[v["seq"]], seat))
        got = {k: v[k] for k in expected}
        assert got == expected, f"{seat}'s view at event {v['seq']} shows another board"
        assert v["head"] == {"seq": v["seq"], "hash": records[v["seq"]].hash}
