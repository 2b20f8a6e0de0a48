"""An acknowledged event is never lost, and a crash never leaves half an action (PRODUCT.md).

A writer process plays games into an SQLite store as fast as it can, through the referee, and
prints each record's number as soon as the referee acknowledged it. The test kills it with
SIGKILL in the middle of that run, then opens the database again, as a restarted server would:
every acknowledged record must be there, the chain must verify, and replaying the log must give
the same game twice and the very events the engine gives for the stored actions.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest
from service_helpers import SIGNER, header, replay_with_engine

from engine.herazeus import legal_actions
from engine.herazeus.state import Phase
from referee.fold import fold
from referee.log import verify
from referee.service import Referee
from referee.store import SQLiteStore

pytestmark = pytest.mark.process  # each test runs a writer process and kills it

WRITER = Path(__file__).with_name("service_helpers.py")
ROOT = Path(__file__).resolve().parent.parent


def run_and_kill(db: Path, seed: int, acks: int, delay: float) -> dict[str, set[int]]:
    """Starts a writer, waits for ``acks`` acknowledgements, waits ``delay`` seconds more while
    it keeps appending, then kills it with SIGKILL. Returns every acknowledged record by game
    (also those printed just before the kill and not yet read)."""
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(db), str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(30, proc.kill)
    watchdog.start()
    acked: dict[str, set[int]] = defaultdict(set)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        n = 0
        while n < acks:
            line = proc.stdout.readline()
            if not line:
                pytest.fail(f"the writer stopped by itself: {proc.stderr.read()[-2000:]}")
            game, seq = line.split()
            acked[game].add(int(seq))
            n += 1
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        for line in proc.stdout.read().splitlines():  # acknowledged before the kill
            if line.count(" ") == 1:
                game, seq = line.split()
                acked[game].add(int(seq))
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    return acked


def check_after_restart(db: Path, acked: dict[str, set[int]]) -> None:
    """What a restarted server finds: every acknowledged record, an intact chain, a log that
    replays to the same game every time and to the events the engine computes."""
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    store = SQLiteStore(db)
    try:
        assert set(acked) <= set(store.games())
        for game in store.games():
            records = store.records(game)
            v = verify(header(game), records, key=SIGNER.fingerprint)
            assert v.ok, v.message()
            stored = {r.seq for r in records}
            missing = acked.get(game, set()) - stored
            assert not missing, f"{game}: acknowledged records lost: {sorted(missing)}"
            # at most the record being written when the process died is beyond the last ack
            if game in acked:
                assert len(records) - 1 <= max(acked[game]) + 1
            first, second = fold(records), fold(records)
            assert first.broken is None and first.state == second.state
            assert first.last_seq == records[-1].seq and first.last_hash == records[-1].hash
            assert replay_with_engine(records) == first.state
    finally:
        store.close()


def test_a_killed_writer_loses_no_acknowledged_event(tmp_path: Path) -> None:
    db = tmp_path / "referee.sqlite3"
    total = 0
    # three crashes into the same database: early in a game, mid-run, and mid-run again after
    # restarting on the database that survived the earlier crashes
    for seed, acks, delay in ((1, 5, 0.0), (2, 150, 0.25), (3, 250, 0.5)):
        acked = run_and_kill(db, seed, acks, delay)
        total += sum(len(s) for s in acked.values())
        check_after_restart(db, acked)
    assert total >= 400


def test_a_restarted_referee_continues_the_interrupted_game(tmp_path: Path) -> None:
    db = tmp_path / "referee.sqlite3"
    acked = run_and_kill(db, 4, 120, 0.007)
    store = SQLiteStore(db)
    try:
        ref = Referee(store, signer=SIGNER)  # the restarted server keeps its key
        continued = 0
        for game in store.games():
            f = ref.folded(game)
            if f.state.phase is not Phase.PLAY:
                continue  # a game the writer finished: nothing to continue
            continued += 1
            last = f.last_seq
            assert last >= max(acked.get(game, {0}))
            action = legal_actions(f.state)[0]
            seat = action.actor(f.state.player).key
            receipt = ref.submit(game, seat, action.to_json(), expected_seq=last)
            assert receipt.seq == last + 1
            records = store.records(game)
            assert verify(header(game), records).ok and records[-1].seq == last + 1
            assert replay_with_engine(records) == ref.folded(game).state
        assert continued, "the writer was killed with no game in play: nothing was continued"
    finally:
        store.close()
