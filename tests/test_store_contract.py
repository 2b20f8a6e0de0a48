"""The store's contract (``referee.store.Store``), the same tests over every store: memory,
SQLite and PostgreSQL (``store_kind``; PostgreSQL on a throwaway cluster, ``tests/pg_helpers.py``).

One append is one transaction; a batch not on the head or a seat's repeated key is refused
with Conflict and writes nothing; what was written reads back the same after a restart; the
listings leave the events' logs out; idle games are those whose head is where their creation
ended. Then what only PostgreSQL has: migrations, two processes' stores racing on one game,
the notification an append sends.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

import pytest
from service_helpers import SIGNER, make_referee

from referee.log import GENESIS, Record, canonical, read_lines, verify
from referee.store import CREATED, CREATED_AT, Conflict, GameHead, Store, StoreError

Open = Callable[[], Store]


def rec(
    game: str,
    seq: int,
    prev: str,
    key: str | None = None,
    seat: str = "hera",
    body: dict[str, object] | None = None,
    sealed: tuple[str, ...] = (),
) -> Record:
    r = Record(
        game, seq, "t", seat, "action", body or {}, (), key, prev, nonce=f"n{seq}", sealed=sealed
    )
    return r.sealed_with(SIGNER.sign)


def chain(game: str, n: int, start: Record | None = None) -> list[Record]:
    """``n`` records of ``game`` after ``start`` (from seq 0 without it)."""
    out: list[Record] = []
    prev, seq = (GENESIS, 0) if start is None else (start.hash, start.seq + 1)
    for i in range(n):
        r = rec(game, seq + i, prev)
        out.append(r)
        prev = r.hash
    return out


# ---- append: one transaction, refused whole ----------------------------------------------------


def test_a_store_refuses_a_stale_seq_or_a_repeated_key(open_store: Open) -> None:
    store = open_store()
    r0 = rec("g", 0, GENESIS)
    store.append([r0])
    r1 = rec("g", 1, r0.hash, key="k")
    store.append([r1])
    with pytest.raises(Conflict):
        store.append([rec("g", 1, r0.hash)])  # a second record 1
    with pytest.raises(Conflict):
        store.append([rec("g", 3, r1.hash)])  # a gap
    with pytest.raises(Conflict):
        store.append([rec("g", 2, r0.hash)])  # not chained to the last record
    with pytest.raises(Conflict) as info:
        store.append([rec("g", 2, r1.hash, key="k")])
    assert info.value.existing == r1
    r2 = rec("g", 2, r1.hash)
    with pytest.raises(Conflict) as info:  # one call, one transaction: all its records or none
        store.append([r2, rec("g", 3, r2.hash, key="k")])
    assert info.value.existing == r1
    assert store.records("g") == [r0, r1]
    assert store.by_key("g", "hera", "k") == r1
    # idempotency keys are per seat: Zeus's "k" is another key than Hera's
    r2z = rec("g", 2, r1.hash, key="k", seat="zeus")
    store.append([r2z])
    assert store.by_key("g", "zeus", "k") == r2z and store.by_key("g", "hera", "k") == r1
    assert store.by_key("g", "judge", "k") is None and store.by_key("other", "hera", "k") is None
    assert store.head("g") == (2, r2z.hash)


def test_a_new_log_starts_at_seq_zero(open_store: Open) -> None:
    store = open_store()
    with pytest.raises(Conflict):
        store.append([rec("g", 1, GENESIS)])
    with pytest.raises(StoreError):
        store.append([])
    assert store.head("g") is None and store.records("g") == [] and store.games() == []


def test_one_append_holds_one_game(open_store: Open) -> None:
    store = open_store()
    with pytest.raises(StoreError):
        store.append([rec("a", 0, GENESIS), rec("b", 0, GENESIS)])
    assert store.games() == []


def test_a_refused_append_stores_none_of_its_secrets(open_store: Open) -> None:
    store = open_store()
    (r0,) = chain("g", 1)
    store.append([r0], {"a": "1"})
    with pytest.raises(Conflict):
        store.append([rec("g", 5, r0.hash)], {"a": "2", "b": "3"})
    assert store.secrets("g") == {"a": "1"}


# ---- reading back ------------------------------------------------------------------------------


def test_records_read_back_by_range_and_as_entries(open_store: Open) -> None:
    store = open_store()
    recs = chain("g", 6)
    store.append(recs[:2])
    store.append(recs[2:])
    assert store.records("g") == recs
    assert store.records("g", after=2) == recs[3:]
    assert store.records("g", after=1, upto=3) == recs[2:4]
    assert store.records("g", upto=0) == recs[:1]
    entries = store.entries("g")
    assert [e.hash for e in entries] == [r.hash for r in recs]
    assert all(e.hash_ok() for e in entries)
    assert [e.record() for e in entries] == recs
    assert store.records("nothing") == [] and list(store.entries("nothing")) == []


def test_sealed_values_and_a_json_line_read_back_the_same(open_store: Open) -> None:
    store = open_store()
    hidden = rec("g", 0, GENESIS, body={"card": "Hydra", "n": 1}, sealed=("body.card",))
    odd = rec("g", 1, hidden.hash, body={"x": math.inf})  # no stored form: kept as a JSON line
    store.append([hidden, odd])
    back = store.records("g")
    assert back[0] == hidden and back[0].hash_ok()
    assert canonical(back[1].to_json()) == canonical(odd.to_json()) and back[1].hash_ok()
    assert [e.hash_ok() for e in store.entries("g")] == [True, True]


def test_what_was_written_is_read_by_the_next_store_on_the_same_data(open_store: Open) -> None:
    first = open_store()
    recs = chain("g", 3)
    first.append(recs, {"code:hera": "h"})
    first.put_secret("g", "kit", "{}")
    again = open_store()
    assert again.records("g") == recs
    assert again.head("g") == (2, recs[-1].hash)
    assert again.secrets("g") == {"code:hera": "h", "kit": "{}"}


def test_secrets_are_set_with_an_append_or_alone_and_look_reads_them_with_the_head(
    open_store: Open,
) -> None:
    store = open_store()
    assert store.look("g") == (None, {})
    recs = chain("g", 2)
    store.append(recs[:1], {"a": "1", "b": "2"})
    store.put_secret("g", "b", "3")  # replaced
    store.append(recs[1:], {"c": "4"})
    assert store.secrets("g") == {"a": "1", "b": "3", "c": "4"}
    assert store.look("g") == ((1, recs[1].hash), {"a": "1", "b": "3", "c": "4"})
    store.put_secret("lonely", "x", "y")  # a secret with no log: no head
    assert store.look("lonely") == (None, {"x": "y"})
    assert store.secrets("nobody") == {}


# ---- listings: games, events' logs, heads, idle games ------------------------------------------

T0 = "2026-01-01T00:00:00.000000+00:00"
T1 = "2026-01-01T01:00:00.000000+00:00"
T2 = "2026-01-01T02:00:00.000000+00:00"


def a_server(store: Store) -> dict[str, list[Record]]:
    """Games whose ids sort differently byte by byte and by a language's collation, idle
    ones, a moved one, an imported one (no creation kept) and an event's log."""
    made = {}
    for game, n, created, at in [
        ("b-idle", 2, 1, T1),  # made at T1, nothing since
        ("B_moved", 3, 1, T0),  # made at T0, one event since
        ("a", 1, 0, T2),  # idle, made at T2
        ("_untimed", 1, 0, None),  # idle, made before times were kept
        ("-imported", 2, None, None),  # imported: never idle
        ("event.cup", 1, 0, T0),  # an event's log (idle as a game would be): in no listing
    ]:
        recs = chain(game, n)
        secrets = {} if created is None else {CREATED: str(created)}
        if at is not None:
            secrets[CREATED_AT] = at
        store.append(recs, secrets)
        made[game] = recs
    return made


def test_the_listings_are_sorted_byte_by_byte_and_leave_event_logs_out(open_store: Open) -> None:
    store = open_store()
    made = a_server(store)
    games = ["-imported", "B_moved", "_untimed", "a", "b-idle"]
    assert store.games() == games == sorted(games)
    assert store.event_logs() == ["event.cup"]
    heads = store.heads()
    assert [h.game for h in heads] == games
    assert heads[1] == GameHead("B_moved", 2, made["B_moved"][-1].hash, 1)
    assert heads[0] == GameHead("-imported", 1, made["-imported"][-1].hash, None)
    assert [h.game for h in store.heads(moved=True)] == ["-imported", "B_moved"]
    assert [h.game for h in heads if h.idle] == ["_untimed", "a", "b-idle"]


def test_idle_games_are_counted_and_paged_without_the_event_logs(open_store: Open) -> None:
    store = open_store()
    a_server(store)
    assert store.idle() == (3, [])
    assert store.idle(2) == (3, ["_untimed", "a"])
    assert store.idle(2, 2) == (3, ["b-idle"])
    assert store.idle(5, 3) == (3, [])


def test_idle_games_are_counted_since_a_time(open_store: Open) -> None:
    store = open_store()
    a_server(store)
    assert store.idle_since(None) == (3, T1)  # the untimed one counts, with no time
    assert store.idle_since(T0) == (2, T1)
    assert store.idle_since(T1) == (2, T1)
    assert store.idle_since("2026-01-01T01:00:00.000001+00:00") == (1, T2)
    assert store.idle_since("2026-01-02T00:00:00.000000+00:00") == (0, None)


def test_a_game_moved_on_from_its_creation_is_no_longer_idle(open_store: Open) -> None:
    store = open_store()
    made = a_server(store)
    store.append(chain("a", 1, made["a"][-1]))
    assert store.idle(9) == (2, ["_untimed", "b-idle"])
    assert [h.game for h in store.heads(moved=True)] == ["-imported", "B_moved", "a"]


# ---- the service on a store --------------------------------------------------------------------


def test_a_game_played_is_reloaded_from_the_store_and_its_log_verifies(open_store: Open) -> None:
    ref = make_referee(open_store(), seed=3)
    created = ref.create_game(game="pg1")
    ref.claim("pg1", created.codes["hera"])
    before = ref.log("pg1", "judge")
    again = make_referee(open_store(), seed=4)
    assert again.games() == ["pg1"]
    assert again.log("pg1", "judge") == before
    again.claim("pg1", created.codes["zeus"])  # written on the reloaded game's head
    header, records = read_lines(again.export("pg1", "judge"))
    assert records[: len(before)] == before and len(records) == len(before) + 1
    assert verify(header, records, key=SIGNER.fingerprint).ok


# ---- PostgreSQL only ---------------------------------------------------------------------------


@pytest.mark.postgres
def test_an_upgrade_applies_each_migration_once(pg_dsn: str) -> None:
    import psycopg

    from referee.pgstore import latest_version, migrations, upgrade

    assert upgrade(pg_dsn) == []  # the fixture upgraded it already
    assert [m.version for m in migrations()] == list(range(1, latest_version() + 1))
    with psycopg.connect(pg_dsn) as conn:
        rows = conn.execute("SELECT version, name FROM schema_version ORDER BY version").fetchall()
    assert rows == [(m.version, m.name) for m in migrations()]


@pytest.mark.postgres
def test_a_database_not_upgraded_is_refused_with_what_to_do(pg_cluster: object) -> None:
    from pg_helpers import Cluster

    from referee.pgstore import PostgresStore, latest_version, upgrade

    assert isinstance(pg_cluster, Cluster)
    dsn = pg_cluster.new_database()
    try:
        with pytest.raises(StoreError, match="referee db upgrade"):
            PostgresStore(dsn)
        assert [m.version for m in upgrade(dsn)] == list(range(1, latest_version() + 1))
        PostgresStore(dsn).close()
    finally:
        pg_cluster.drop_database(dsn)


@pytest.mark.postgres
def test_an_unreachable_database_is_one_sentence_without_the_password(pg_cluster: object) -> None:
    from pg_helpers import Cluster

    from referee.pgstore import PostgresStore

    assert isinstance(pg_cluster, Cluster)
    dsn = pg_cluster.dsn("no_such_db") + " password=hunter2"
    with pytest.raises(StoreError) as info:
        PostgresStore(dsn, timeout=2)
    assert "no_such_db" in str(info.value) and "hunter2" not in str(info.value)


def race(stores: list[Store], batches: list[list[Record]]) -> list[BaseException | None]:
    """Each store appends its batch at the same moment, on its own thread; what each raised."""
    barrier = threading.Barrier(len(stores))
    results: list[BaseException | None] = [None] * len(stores)

    def go(i: int) -> None:
        barrier.wait()
        try:
            stores[i].append(batches[i])
        except BaseException as e:
            results[i] = e

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


@pytest.mark.postgres
def test_two_stores_racing_on_one_game_let_exactly_one_append_win(pg_dsn: str) -> None:
    from referee.pgstore import PostgresStore

    a, b = PostgresStore(pg_dsn), PostgresStore(pg_dsn)
    try:
        (head,) = chain("g", 1)
        a.append([head])
        for n in range(20):
            # both build the next record on the same head with their own content; every other
            # round with the same key (the loser then learns who holds it, or that it lost)
            key = f"tap{n}" if n % 2 else None
            mine = [rec("g", head.seq + 1, head.hash, key, body={"by": who}) for who in "ab"]
            results = race([a, b], [[mine[0]], [mine[1]]])
            won = [i for i in (0, 1) if results[i] is None]
            assert len(won) == 1, results
            lost = results[1 - won[0]]
            assert isinstance(lost, Conflict), lost
            assert lost.existing is None or lost.existing == mine[won[0]]
            assert b.records("g", after=head.seq) == [mine[won[0]]]
            head = mine[won[0]]
        assert b.head("g") == (20, head.hash)
    finally:
        a.close()
        b.close()


@pytest.mark.postgres
def test_a_connection_the_server_dropped_is_replaced_before_the_next_call(pg_dsn: str) -> None:
    """The server restarted (or an administrator ended the referee's sessions): the pool's
    idle connections are dead; the next call gets a live one instead of failing."""
    import psycopg

    from referee.pgstore import PostgresStore

    store = PostgresStore(pg_dsn, min_size=2, max_size=2)
    try:
        (first,) = chain("g", 1)
        store.append([first])
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        assert ended is not None and ended[0] >= 1
        assert store.head("g") == (0, first.hash)
        assert store.records("g") == [first]
    finally:
        store.close()


@pytest.mark.postgres
def test_a_committed_append_notifies_its_game_and_its_head(pg_dsn: str) -> None:
    import psycopg

    from referee.pgstore import CHANNEL, PostgresStore, parse_notice

    store = PostgresStore(pg_dsn)
    try:
        with psycopg.connect(pg_dsn, autocommit=True) as listener:
            listener.execute(f"LISTEN {CHANNEL}")
            recs = chain("g7", 3)
            store.append(recs[:2])
            with pytest.raises(Conflict):
                store.append(recs[:1])  # refused: no notice
            store.append(recs[2:])
            got = [parse_notice(n.payload) for n in listener.notifies(timeout=5, stop_after=2)]
        assert got == [("g7", 1), ("g7", 2)]
    finally:
        store.close()


def test_a_notice_reads_back_and_nothing_else_does() -> None:
    pytest.importorskip("psycopg")
    from referee.pgstore import notice_text, parse_notice

    assert parse_notice(notice_text("event.cup", 12)) == ("event.cup", 12)
    for bad in ("", "12", '{"game": "g"}', '{"game": 1, "seq": 2}', '{"game": "g", "seq": true}'):
        with pytest.raises(ValueError):
            parse_notice(bad)


@pytest.mark.parametrize(("ci", "outcome"), [("", "skipped"), ("true", "failed")])
def test_without_postgresql_its_tests_skip_except_under_ci(
    monkeypatch: pytest.MonkeyPatch, ci: str, outcome: str
) -> None:
    import pg_helpers

    monkeypatch.setattr(pg_helpers, "find_bin", lambda: None)
    monkeypatch.setenv("CI", ci)
    kind = pytest.skip.Exception if outcome == "skipped" else pytest.fail.Exception
    with pytest.raises(kind, match="apt-get install postgresql"):
        pg_helpers.require_postgres()
