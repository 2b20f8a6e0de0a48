"""The stored form: the SQLite store keeps each record as the bytes its hash is over (issue 11,
deliverable 5, the fast path).

Loading a game checks every record's hash over those bytes and each sealed value against its
commitment in them, instead of re-serialising the record. So: what is read back is the record
that was written, exactly; any edit of any column of a stored row is caught when the game is
loaded, as an edited JSON line always was; databases written before the stored form keep
working (their rows stay JSON lines, the columns are added when the file is opened for
writing); and msgspec, which reads the stored bytes, reads every text ``canonical`` writes as
the standard library does.
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from service_helpers import SIGNER, Table, make_referee
from test_log_trust import database, held_everywhere, played, tamper

from referee.fold import fold
from referee.log import (
    GENESIS,
    Record,
    canonical,
    parse_canonical,
    read_lines,
    stored_entry,
    stored_form,
    verify,
)
from referee.service import Held, Referee, Unavailable
from referee.store import MemoryStore, SQLiteStore

# ---- msgspec reads what canonical() writes as json does ---------------------------------------


def typed(v: Any) -> Any:
    """``v`` with every scalar's type beside it (so ``1``, ``1.0`` and ``True`` differ, and
    NaN equals NaN): two values are the same JSON value when their ``typed`` trees are equal."""
    if isinstance(v, dict):
        return ("dict", sorted((k, typed(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("list", [typed(x) for x in v])
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else repr(v))
    return (type(v).__name__, v)


TEXT = st.text(st.characters(exclude_categories=["Cs"]))  # lone surrogates are not UTF-8


def json_values(floats: st.SearchStrategy[float]) -> st.SearchStrategy[Any]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()  # big ones too
        | st.integers(min_value=2**63 - 2, max_value=2**70)
        | floats
        | TEXT
        | st.sampled_from(["\x00\x1f\x7f", "\u2028\u2029", "é€𝄞", '"\\/', "\ud7ff\ue000"])
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
        max_leaves=24,
    )


JSON = json_values(st.floats())  # NaN and the infinities too
FINITE = json_values(st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_msgspec_reads_every_canonical_text_as_json_does(value: Any) -> None:
    text = canonical(value)
    assert typed(parse_canonical(text)) == typed(json.loads(text))
    assert canonical(parse_canonical(text)) == text


# ---- a record's stored form ------------------------------------------------------------------

BODY_KEYS = st.sampled_from(["card", "action", "note", "é", "a.b", "x"])


@st.composite
def records(draw: st.DrawFn) -> Record:
    """A signed full record with random body, events and key, and some of its values sealed."""
    body = draw(st.dictionaries(BODY_KEYS.filter(lambda k: "." not in k), FINITE, max_size=4))
    events = draw(st.lists(st.dictionaries(st.sampled_from(["card", "kind"]), FINITE), max_size=3))
    key = draw(st.none() | TEXT)
    paths = [f"body.{k}" for k in body]
    paths += [f"events.{i}.{k}" for i, e in enumerate(events) for k in e]
    if key is not None:
        paths.append("key")
    sealed = tuple(sorted(draw(st.sets(st.sampled_from(paths)))) if paths else ())
    r = Record(
        "g",
        draw(st.integers(0, 10**6)),
        "2026-01-01T00:00:00.000000+00:00",
        draw(st.sampled_from(["hera", "zeus", "judge", "system"])),
        "action",
        body,
        tuple(events),
        key,
        GENESIS,
        "",
        draw(st.text("0123456789abcdef", min_size=64, max_size=64)),
        sealed,
    )
    return r.sealed_with(SIGNER.sign)


def entry_of(r: Record) -> Any:
    form = stored_form(r)
    assert form is not None, "every full record the service writes has a stored form"
    data, opened = form
    return stored_entry(data, opened, r.nonce, r.sig, r.hash)


@settings(max_examples=300, deadline=None)
@given(records())
def test_a_record_read_from_its_stored_form_is_the_record_written(r: Record) -> None:
    e = entry_of(r)
    assert e.hash_ok()
    assert e.record() == r
    assert (e.game, e.seq, e.time, e.kind, e.prev) == (r.game, r.seq, r.time, r.kind, r.prev)
    assert e.body == r.body
    assert e.data == canonical(r.hashed_content())  # the very bytes the hash is over


@settings(max_examples=300, deadline=None)
@given(records(), st.data())
def test_any_byte_changed_in_a_stored_form_fails_its_hash_check(
    r: Record, data: st.DataObject
) -> None:
    form = stored_form(r)
    assert form is not None
    stored, opened = form
    column = data.draw(st.sampled_from(["hashed", "opened"] if opened else ["hashed"]))
    old = stored if column == "hashed" else opened
    assert old is not None
    at = data.draw(st.integers(0, len(old) - 1))
    new = old[:at] + bytes([old[at] ^ data.draw(st.integers(1, 255))]) + old[at + 1 :]
    try:
        e = stored_entry(
            new if column == "hashed" else stored,
            new if column == "opened" else opened,
            r.nonce,
            r.sig,
            r.hash,
        )
    except ValueError:
        return  # not even a record any more: the store calls the row unreadable
    assert not e.hash_ok()


@settings(max_examples=100, deadline=None)
@given(records())
def test_a_changed_nonce_or_swapped_values_fail_the_hash_check(r: Record) -> None:
    form = stored_form(r)
    assert form is not None
    stored, opened = form
    if opened is None:  # nothing sealed: the nonce salts nothing, and the hash still holds
        assert stored_entry(stored, None, "0" * 64, r.sig, r.hash).hash_ok()
        return
    other = ("0" if r.nonce[0] != "0" else "1") + r.nonce[1:]
    assert not stored_entry(stored, opened, other, r.sig, r.hash).hash_ok()
    values = opened.split(b"\n")
    if len(values) > 1 and values[0] != values[1]:
        swapped = b"\n".join([values[1], values[0], *values[2:]])
        assert not stored_entry(stored, swapped, r.nonce, r.sig, r.hash).hash_ok()


def test_a_record_msgspec_cannot_read_is_stored_as_its_json_line(tmp_path: Path) -> None:
    r = Record("g", 0, "t", "system", "create", {"x": math.inf, "y": math.nan}).sealed_with(
        SIGNER.sign
    )
    assert stored_form(r) is None  # canonical() writes Infinity and NaN: not JSON for msgspec
    store = SQLiteStore(tmp_path / "nan.sqlite3")
    try:
        store.append([r])
        (back,) = store.records("g")
        assert canonical(back.to_json()) == canonical(r.to_json()) and back.hash_ok()
    finally:
        store.close()


def test_a_cut_copy_has_no_stored_form_and_stays_a_json_line() -> None:
    ref = make_referee()
    g = played(ref, "cut")
    full = ref.store.records(g)
    sealed = next(r for r in full if r.sealed)
    assert stored_form(sealed) is not None
    assert stored_form(sealed.cut_for(sealed.sealed)) is None


# ---- in the database -------------------------------------------------------------------------


def stored_row(db: Path, game: str, where: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        rows = [dict(r) for r in con.execute("SELECT * FROM events WHERE game=?", (game,))]
    finally:
        con.close()
    return next(r for r in rows if where(r))


def sealed_values(r: dict[str, Any]) -> list[bytes]:
    return list(r["opened"].split(b"\n")) if r["opened"] else []


Pick = Callable[[dict[str, Any], int], bool]  # (row, the head's seq) -> is it the one to edit
Change = Callable[[dict[str, Any]], tuple[str, Any]]  # row -> (column, new value)
EDITS: dict[str, tuple[Pick, Change]] = {
    # the hashed bytes: the time of a record
    "hashed": (
        lambda r, head: r["seq"] == 3,
        lambda r: ("hashed", r["hashed"].replace(b'"time":"2026', b'"time":"2027')),
    ),
    # two sealed values of one record swapped
    "opened swapped": (
        lambda r, head: len(set(sealed_values(r))) > 1,
        lambda r: ("opened", b"\n".join(sealed_values(r)[::-1])),
    ),
    # the secret the salts derive from
    "nonce": (lambda r, head: r["opened"] is not None, lambda r: ("nonce", "0" * 64)),
    # the hash column of a record in the middle
    "hash": (lambda r, head: r["seq"] == 4, lambda r: ("hash", "0" * 64)),
    # the signature of the head
    "sig": (lambda r, head: r["seq"] == head, lambda r: ("sig", SIGNER.sign("0" * 64))),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_any_column_of_a_stored_row_edited_inside_sqlite_is_not_served(
    tmp_path: Path, edit: str
) -> None:
    db, a, _ = database(tmp_path)
    con = sqlite3.connect(db)
    head = con.execute("SELECT max(seq) FROM events WHERE game=?", (a,)).fetchone()[0]
    con.close()
    pick, change = EDITS[edit]
    row = stored_row(db, a, lambda r: r["hashed"] is not None and pick(r, head))
    column, value = change(row)
    assert value != row[column]
    tamper(db, f"UPDATE events SET {column}=? WHERE game=? AND seq=?", value, a, row["seq"])
    held_everywhere(db, a)


def test_a_json_line_beside_a_stored_form_is_not_read(tmp_path: Path) -> None:
    db, a, _ = database(tmp_path)
    row = stored_row(db, a, lambda r: r["seq"] == 2)
    assert row["line"] == "" and row["hashed"] is not None
    ref = make_referee(MemoryStore())
    g = played(ref, a)
    other = json.loads(ref.store.records(g)[2].to_line())
    other["time"] = "2027-01-01T00:00:00.000000+00:00"
    tamper(db, "UPDATE events SET line=? WHERE game=? AND seq=2", json.dumps(other), a)
    restarted = Referee(SQLiteStore(db), signer=SIGNER)
    try:
        with pytest.raises(Unavailable, match="both a JSON line and a stored form"):
            restarted.view(a, "hera")
    finally:
        restarted.store.close()


# ---- a database written before the stored form -----------------------------------------------

OLD_SCHEMA = """
CREATE TABLE events (
    game TEXT NOT NULL,
    seq INTEGER NOT NULL,
    key TEXT,
    hash TEXT NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE UNIQUE INDEX events_key ON events (game, key) WHERE key IS NOT NULL;
CREATE TABLE secrets (
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (game, name)
);
"""


def old_database(tmp_path: Path) -> tuple[Path, Referee, str]:
    """A database as the store wrote it before the stored form (JSON lines), with one game;
    and the in-memory referee that played it."""
    ref = make_referee(seed=7)
    g = played(ref, "old")
    db = tmp_path / "old.sqlite3"
    con = sqlite3.connect(db)
    try:
        con.executescript(OLD_SCHEMA)
        with con:
            for r in ref.store.records(g):
                key = f"{r.seat}:{r.key}" if isinstance(r.key, str) else None
                con.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?)",
                    (r.game, r.seq, key, r.hash, r.to_line()),
                )
            for name, value in ref.store.secrets(g).items():
                con.execute("INSERT INTO secrets VALUES (?, ?, ?)", (g, name, value))
    finally:
        con.close()
    return db, ref, g


def columns(db: Path) -> set[str]:
    con = sqlite3.connect(db)
    try:
        return {r[1] for r in con.execute("PRAGMA table_info(events)")}
    finally:
        con.close()


def test_an_old_database_is_read_as_it_is_and_migrated_when_opened_for_writing(
    tmp_path: Path,
) -> None:
    db, ref, g = old_database(tmp_path)
    ro = SQLiteStore(db, readonly=True)
    try:
        assert ro.records(g) == ref.store.records(g)  # read-only: read as it is, not changed
    finally:
        ro.close()
    assert "hashed" not in columns(db)

    restarted = make_referee(SQLiteStore(db), seed=8)
    try:
        assert {"hashed", "opened", "nonce", "sig"} <= columns(db)  # migrated on open
        assert restarted.view(g, "judge") == ref.view(g, "judge")
        assert restarted.export(g, "hera") == ref.export(g, "hera")
        restarted.submit(g, "hera", {"do": "draw", "card": "Nemesis"})
        want = restarted.view(g, "hera")
        written = restarted.store.records(g)[-1]
    finally:
        restarted.store.close()

    again = make_referee(SQLiteStore(db), seed=9)  # old rows and new ones, loaded together
    try:
        assert again.view(g, "hera") == want
        new = stored_row(db, g, lambda r: r["seq"] == again.head(g)["seq"])
        assert new["line"] == "" and new["hashed"] is not None  # written in the stored form
        assert stored_row(db, g, lambda r: r["seq"] == 0)["hashed"] is None  # left as it was
        text = again.export(g, "judge")
        header, records = read_lines(text)
        assert verify(header, records).ok
        assert records == [*ref.store.records(g), written]
    finally:
        again.store.close()


def test_an_edited_line_in_an_old_database_is_still_not_served(tmp_path: Path) -> None:
    db, _, g = old_database(tmp_path)
    row = stored_row(db, g, lambda r: '"Pythia"' in r["line"])
    tamper(
        db,
        "UPDATE events SET line=? WHERE game=? AND seq=?",
        row["line"].replace('"Pythia"', '"Nemesis"'),
        g,
        row["seq"],
    )
    restarted = make_referee(SQLiteStore(db), seed=8)
    try:
        with pytest.raises(Held, match="does not match its hash"):
            restarted.view(g, "hera")
    finally:
        restarted.store.close()


# ---- the same game, whichever way it was read ------------------------------------------------


def test_a_game_loaded_from_its_stored_form_is_the_game_folded_from_its_records(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "t.sqlite3")
    ref = make_referee(store, seed=3)
    t = Table(ref, random.Random(3), game="t", observe=0.3, unknown_draw=0.3)
    t.setup()
    for _ in range(40):
        t.step()
    ref.undo("t", "judge", ref.head("t")["seq"] - 25, "replayed from here")  # drops actions
    try:
        entries = store.entries("t")
        records = store.records("t")
        assert all(e.hash_ok() for e in entries)
        assert [e.record() for e in entries] == records
        a, b = fold(entries), fold(records)
        assert (a.state, a.ops, a.outcomes, a.last_seq, a.last_hash, a.last_time) == (
            b.state,
            b.ops,
            b.outcomes,
            b.last_seq,
            b.last_hash,
            b.last_time,
        )
        assert (a.question, a.irregularities, a.corrections, a.calls, a.resolved) == (
            b.question,
            b.irregularities,
            b.corrections,
            b.calls,
            b.resolved,
        )
    finally:
        store.close()
