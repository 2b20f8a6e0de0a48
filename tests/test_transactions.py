"""One call, one transaction: every call writes all its records or none (issue 6, section 4).

The lead's findings: ``observe()`` with a contradiction, ``import`` and ``create_game`` made
several writes, and a kill between them left an observation without its irregularity, a game
that verified but blocked its re-import, and a game whose join codes were never returned.

Here a subprocess makes one call over an SQLite file and is killed with SIGKILL *inside* the
store's transaction, at chosen SQL statements (an SQLite trace callback sends the signal as
the statement starts). The database is then opened again, as a restarted server would: the
call's records and secrets are there in full or not at all, the game verifies, and the same
call succeeds when made again. A question asked of a seat (an ``ask`` record) is in the log, so
it survives a restart and another process sees it; and games not touched leave memory.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from service_helpers import Table, make_referee

from engine.herazeus import Player
from referee.log import Entry, Record
from referee.service import NeedsInput, Referee, Refused
from referee.store import CREATED, CREATED_AT, MemoryStore, SQLiteStore, Store

ROOT = Path(__file__).resolve().parent.parent

CHILD = textwrap.dedent(
    """
    import json, os, signal, sys
    sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests"]
    from service_helpers import make_referee
    from referee.store import SQLiteStore

    db, op, kill_at, arg = sys.argv[2], sys.argv[3], int(sys.argv[4]), json.loads(sys.argv[5])
    store = SQLiteStore(db)
    ref = make_referee(store, seed=7)
    if op not in ("create", "import"):
        ref.view(arg["game"], "judge")  # loaded (and verified) before the trace is armed
    writes = 0

    def trace(sql):
        global writes
        if sql.split(None, 1)[0].upper() in ("SAVEPOINT", "INSERT", "RELEASE", "COMMIT"):
            writes += 1
            if writes == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

    store._db().set_trace_callback(trace)
    if op == "create":
        out = ref.create_game(game=arg["game"]).codes
    elif op == "observe":
        out = ref.observe(arg["game"], arg["seat"], arg["obs"]).seq
    elif op == "import":
        out = ref.import_log(arg["text"])
    elif op == "reissue":
        out = ref.reissue(arg["game"], "judge", "hera")
    elif op == "submit":
        out = ref.submit(arg["game"], arg["seat"], arg["action"]).seq
    print(json.dumps({"writes": writes, "out": out}))
    """
)


def call_in_child(tmp: Path, db: Path, op: str, arg: Mapping[str, Any], kill_at: int) -> Any:
    """Runs one service call in a subprocess over ``db``; kills it at the ``kill_at``-th write
    statement of the store's transaction (0: never). Returns its output, or None when killed."""
    script = tmp / "child.py"
    script.write_text(CHILD)
    proc = subprocess.run(
        [sys.executable, str(script), str(ROOT), str(db), op, str(kill_at), json.dumps(arg)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if kill_at:
        assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
        return None
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def copy_db(src: Path, dst: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            shutil.copy(f"{src}{suffix}", f"{dst}{suffix}")
    return dst


def kill_points(n: int) -> list[int]:
    """The write statements to die at: the first row, the middle, and the commit itself."""
    return sorted({k for k in (2, n // 2, n) if 1 <= k <= n})


def game_in_play(db: Path, seed: int = 3) -> Table:
    """A game after setup on an SQLite file, every card named (no unscanned cards)."""
    store = SQLiteStore(db)
    t = Table(make_referee(store, seed=seed), random.Random(seed), game="g")
    t.setup()
    for _ in range(4):
        t.step()
    store.close()
    return t


def restarted(db: Path) -> Referee:
    return make_referee(SQLiteStore(db), seed=11)


def records(db: Path, game: str) -> list[Record]:
    store = SQLiteStore(db, readonly=True)
    try:
        return store.records(game)
    finally:
        store.close()


def all_or_nothing(
    tmp: Path,
    pristine: Path,
    op: str,
    arg: Mapping[str, Any],
    check: Callable[[Path, bool], None],
) -> None:
    """Runs the call once in full (to count its write statements), then once per kill point
    on a fresh copy; ``check(db, done)`` asserts the database holds the whole call (``done``)
    or nothing of it, and the restarted referee serves it."""
    full = copy_db(pristine, tmp / "full.sqlite3")
    out = call_in_child(tmp, full, op, arg, 0)
    check(full, True)
    n = out["writes"]
    assert n >= 2, "the call wrote nothing inside a transaction"  # an INSERT, the COMMIT
    for k in kill_points(n):
        db = copy_db(pristine, tmp / f"kill{k}.sqlite3")
        call_in_child(tmp, db, op, arg, k)
        check(db, False)
    # a restart finishes nothing half-done: the same call made again succeeds, whole
    again = call_in_child(tmp, db, op, arg, 0)
    assert again["writes"] == n
    check(db, True)


@pytest.fixture
def pristine(tmp_path: Path) -> tuple[Path, Table]:
    db = tmp_path / "pristine.sqlite3"
    return db, game_in_play(db)


@pytest.mark.process
def test_create_game_writes_its_records_and_codes_together_or_not_at_all(
    tmp_path: Path, pristine: tuple[Path, Table]
) -> None:
    db0, _ = pristine

    def check(db: Path, done: bool) -> None:
        store = SQLiteStore(db, readonly=True)
        try:
            recs, secrets = store.records("fresh"), store.secrets("fresh")
        finally:
            store.close()
        if not done:  # killed before its commit: no game, no codes, no half game listed
            assert recs == [] and secrets == {}
            assert "fresh" not in restarted(db).games()
            return
        assert [r.kind for r in recs] == ["create", "action"]  # the create and the starter
        # the codes, where the creation ends and when it was made (how long it counts as idle)
        assert set(secrets) == {"hera", "zeus", CREATED, CREATED_AT}
        assert restarted(db).view("fresh", "judge").to_json()["seq"] == 1

    all_or_nothing(tmp_path, db0, "create", {"game": "fresh"}, check)


@pytest.mark.process
def test_an_observation_and_its_irregularity_are_one_record(
    tmp_path: Path, pristine: tuple[Path, Table]
) -> None:
    db0, t = pristine
    hera = Player.HERA
    hand = t.service.sides[hera].hand
    assert not any(c.is_unknown for c in hand)  # every card named: a new name contradicts
    absent = next(c for c in t.truth.sides[hera].deck if c not in hand)
    obs = {"player": "hera", "zone": "hand", "card": absent.notation(hera), "source": "camera"}
    before = len(records(db0, "g"))

    def check(db: Path, done: bool) -> None:
        recs = records(db, "g")
        assert len(recs) == before + (1 if done else 0)
        ref = restarted(db)
        judge = ref.view("g", "judge").to_json()
        if done:
            last = recs[-1]
            assert last.kind == "observation" and last.body["irregularity"]
            assert [i["seq"] for i in judge["open"]] == [last.seq]  # the judge is told
        else:
            assert judge["open"] == []

    all_or_nothing(tmp_path, db0, "observe", {"game": "g", "seat": "hera", "obs": obs}, check)


@pytest.mark.process
def test_an_import_stores_the_whole_log_or_nothing(
    tmp_path: Path, pristine: tuple[Path, Table]
) -> None:
    _, t = pristine
    text = t.ref.export("g", "judge")
    n = len(t.records())
    empty = tmp_path / "empty.sqlite3"
    SQLiteStore(empty).close()

    def check(db: Path, done: bool) -> None:
        recs = records(db, "g")
        assert len(recs) == (n if done else 0)
        if done:
            assert restarted(db).view("g", "judge").to_json()["seq"] == n - 1
        else:  # nothing blocks the import made again
            assert restarted(db).games() == []

    all_or_nothing(tmp_path, empty, "import", {"text": text}, check)


@pytest.mark.process
def test_a_reissued_code_and_its_record_are_written_together(
    tmp_path: Path, pristine: tuple[Path, Table]
) -> None:
    db0, t = pristine
    old = t.codes["hera"]
    before = len(records(db0, "g"))

    def check(db: Path, done: bool) -> None:
        recs = records(db, "g")
        ref = restarted(db)
        if done:
            assert recs[-1].kind == "reissue" and recs[-1].body == {"seat": "hera"}
            assert ref.seat_for_code("g", old) == "public"  # the lost phone opens nothing
        else:
            assert len(recs) == before
            assert ref.seat_for_code("g", old) == "hera"  # nothing revoked half-way

    all_or_nothing(tmp_path, db0, "reissue", {"game": "g"}, check)


@pytest.mark.process
def test_a_submission_is_appended_whole_or_not_at_all(
    tmp_path: Path, pristine: tuple[Path, Table]
) -> None:
    db0, t = pristine
    seat = t.service.player.key
    before = len(records(db0, "g"))

    def check(db: Path, done: bool) -> None:
        recs = records(db, "g")
        assert len(recs) == before + (1 if done else 0)
        assert restarted(db).view("g", "judge").to_json()["seq"] == len(recs) - 1

    all_or_nothing(
        tmp_path,
        db0,
        "submit",
        {"game": "g", "seat": seat, "action": {"do": "draw"}},
        check,
    )


# ---- one call, one append (in process) --------------------------------------------------


class Counting:
    """A store that counts the transactions asked of it (and refuses out-of-band writes)."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.appends: list[list[Record]] = []

    def append(self, records: Sequence[Record], secrets: Mapping[str, str] | None = None) -> None:
        self.appends.append(list(records))
        self.inner.append(records, secrets)

    def put_secret(self, game: str, name: str, value: str) -> None:
        raise AssertionError("a secret written outside a transaction")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_each_call_is_one_append() -> None:
    store = Counting(MemoryStore())
    ref = make_referee(store)
    t = Table(ref, random.Random(5), game="g")
    t.setup()
    for _ in range(30):
        t.step()
    # the create and its starter are one transaction; every other call appends one record
    assert [len(b) for b in store.appends] == [2] + [1] * (len(store.appends) - 1)
    assert sum(map(len, store.appends)) == len(t.records())
    store.appends.clear()
    hand = t.service.sides[Player.HERA].hand
    absent = next(c for c in t.truth.sides[Player.HERA].deck if c not in hand)
    ref.observe(
        "g", "judge", {"player": "hera", "zone": "hand", "card": absent.notation(Player.HERA)}
    )
    ref.reissue("g", "judge", "zeus")
    ref.create_game(game="g2")
    other = make_referee(Counting(MemoryStore()))
    other.import_log(ref.export("g", "judge"))
    assert [len(b) for b in store.appends] == [1, 1, 2]
    assert store.appends[0][0].body["irregularity"]
    assert len(other.store.appends) == 1  # type: ignore[attr-defined]


# ---- a question survives a restart, and every process sees it ----------------------------


class Asked(Exception):
    pass


def stop_at_a_question(db: Path) -> tuple[Table, NeedsInput]:
    """Plays seeded games until the referee records a question for another seat (a Pegasus
    against the hand: the hand's owner states the card drawn, D22), and stops there."""
    for seed in range(40):
        store = SQLiteStore(db)
        ref = make_referee(store, seed=seed)
        met: list[NeedsInput] = []

        def asked(seat: str, e: NeedsInput, raw: Any, met: list[NeedsInput] = met) -> None:
            if e.seq is not None:
                met.append(e)
                raise Asked

        t = Table(ref, random.Random(seed), game=f"q{seed}", on_asked=asked)
        t.setup()
        try:
            while t.step():
                pass
        except Asked:
            store.close()
            return t, met[0]
        store.close()
    raise AssertionError("no seeded game asked another seat")


@pytest.mark.process
def test_a_question_survives_a_restart_and_another_process_sees_it(tmp_path: Path) -> None:
    db = tmp_path / "q.sqlite3"
    t, e = stop_at_a_question(db)
    (seat,) = e.asked
    game = t.game
    records_ = records(db, game)
    assert records_[-1].kind == "ask" and records_[-1].seq == e.seq

    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            f"""
            import json, sys
            sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / "tests")!r}]
            from service_helpers import make_referee
            from referee.store import SQLiteStore
            ref = make_referee(SQLiteStore({str(db)!r}), seed=1)
            print(json.dumps(ref.view({game!r}, {seat!r}).to_json().get("asked")))
            """
        )
    )
    out = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    q = json.loads(out.stdout)
    assert q is not None and q["seq"] == e.seq and q["needs"] == e.needs

    ref = restarted(db)  # a restarted server: the question is still open
    assert ref.view(game, seat).to_json()["asked"]["seq"] == e.seq
    other = "hera" if seat == "zeus" else "zeus"
    with pytest.raises(Refused, match="waiting for") as info:
        ref.submit(game, other, {"do": "end_turn"})
    assert info.value.rule == "HZ-P11"
    assert len(ref.log(game, "judge")) == len(records_)  # the refusal wrote nothing


# ---- games not touched leave memory --------------------------------------------------------


class Loads:
    """A store that counts whole-game reads (a game folded from its log)."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.loads: dict[str, int] = {}

    def entries(self, game: str) -> Sequence[Entry]:
        self.loads[game] = self.loads.get(game, 0) + 1
        return self.inner.entries(game)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_games_not_touched_leave_memory_and_come_back_from_the_log() -> None:
    store = Loads(MemoryStore())
    ref = make_referee(store, seed=4)
    small = Referee(store, ref.ledger.clock, ref.ledger.token, ref.signer, cache_games=3)
    games = [ref.create_game(game=f"g{i}").game for i in range(8)]
    for g in games:
        small.view(g, "judge")
    assert len(small.reader._cache) == 3  # the bound
    loads = dict(store.loads)
    small.view(games[-1], "judge")  # recent: still in memory, not read again
    assert store.loads == loads
    seen = small.view(games[0], "judge")  # the oldest left memory: read again from the log
    assert store.loads[games[0]] == loads[games[0]] + 1
    assert seen.seq == 1 and seen.game == games[0]


def test_a_refused_observation_writes_nothing_and_holds_no_lock(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "r.sqlite3")
    ref = make_referee(store)
    t = Table(ref, random.Random(2), game="g")
    t.setup()
    n = len(t.records())
    with pytest.raises(Refused):
        ref.observe("g", "hera", {"player": "hera", "zone": "hand", "card": "Nobody"})
    assert len(t.records()) == n
    ref.call_judge("g", "hera", "is the store free again?")
    assert len(t.records()) == n + 1


def test_closing_the_store_while_other_threads_read_never_crashes_the_process(
    tmp_path: Path,
) -> None:
    """A server stopping (or a test swapping its database) closes the store while live streams
    still read it: each read ends with a StoreError or an answer, never a crash of sqlite3
    under a statement of another thread (issue 31's swapped database crashed the process)."""
    script = textwrap.dedent(
        f"""
        import threading
        from referee.store import SQLiteStore, StoreError
        from service_helpers import make_referee
        ref = make_referee(SQLiteStore({str(tmp_path / "g.sqlite3")!r}))
        ref.create_game(game="g")
        store = ref.store
        stop = threading.Event()
        errors = []
        def read():
            while not stop.is_set():
                try:
                    store.entries("g"); store.head("g"); store.secrets("g")
                except StoreError:
                    pass
                except Exception as e:
                    errors.append(repr(e))
        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for _ in range(200):
            store.close()
        stop.set()
        for t in threads:
            t.join()
        print("errors", errors[:3])
        """
    )
    tests = Path(__file__).parent
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": f"{tests}:{tests.parent}", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "errors []" in out.stdout, out.stdout
