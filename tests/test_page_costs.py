"""A page reads only the head it has not seen (issue 32, item 4): the reader keeps each game as
it verified it, by head; what another process appends is checked (its chain link to the last
verified head, its hash, its signature) before it is served.

The counts are SQL statements on the SQLite store (``tests/page_costs.py``); nothing is timed
(``benchmarks/referee.py`` prints the times).
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from page_costs import counting, is_whole_log_read, page_statements, tap_statements, tap_table
from service_helpers import SIGNER, make_referee

from referee.keys import Signer
from referee.ledger import Draft
from referee.service import Held, Referee
from referee.store import SQLiteStore


@pytest.fixture
def table(tmp_path: Path):  # type: ignore[no-untyped-def]
    tt = tap_table(tmp_path / "pages.sqlite3")
    yield tt
    tt.store.close()


@pytest.mark.parametrize("seat", ["hera", "zeus"])
def test_a_seat_page_for_a_head_it_has_seen_sends_at_most_two_statements(table, seat) -> None:  # type: ignore[no-untyped-def]
    sent = page_statements(table, seat)
    assert sent.count <= 2, sent.sql
    assert sent.whole_log_reads == 0, sent.sql


def test_a_taps_round_trip_sends_at_most_ten_statements_and_reads_no_whole_log(table) -> None:  # type: ignore[no-untyped-def]
    before = table.ref.folded(table.game).last_seq
    sent = tap_statements(table)
    assert table.ref.folded(table.game).last_seq == before + 1  # the tap was recorded
    assert sent.count <= 10, sent.sql
    assert sent.whole_log_reads == 0, sent.sql


def test_a_whole_log_read_is_told_from_a_read_of_what_is_new() -> None:
    assert is_whole_log_read("SELECT hash, line FROM events WHERE game='g' ORDER BY seq")
    assert is_whole_log_read(
        "SELECT hash FROM events WHERE game='g' AND seq>-1 AND seq<=4611686018427387904"
        " ORDER BY seq"
    )
    assert not is_whole_log_read(
        "SELECT hash FROM events WHERE game='g' AND seq>41 AND seq<=42 ORDER BY seq"
    )
    assert not is_whole_log_read(
        "SELECT seq, hash FROM events WHERE game='g' ORDER BY seq DESC LIMIT 1"
    )


# ---- what another process appends ---------------------------------------------------------


def served_game(db: Path) -> tuple[Referee, str]:
    """A game on the SQLite file ``db``, verified by its referee (a seat's page was read)."""
    ref = make_referee(SQLiteStore(db), seed=3)
    game = ref.create_game().game
    ref.view(game, "judge")
    return ref, game


def other_process(db: Path, signer: Signer = SIGNER) -> Referee:
    """A second referee on the same file: another process's connection and cache."""
    return (
        make_referee(SQLiteStore(db), seed=11)
        if signer is SIGNER
        else Referee(SQLiteStore(db), signer=signer)
    )


def call(game: str, seat: str = "hera", note: str = "here") -> Draft:
    return Draft(seat, "call", {"note": note})


def test_a_record_another_process_appended_is_read_alone_and_served(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ref, game = served_game(db)
    other = other_process(db)
    other.call_judge(game, "hera", "come")
    assert isinstance(ref.store, SQLiteStore)
    with counting(ref.store) as sent:
        view = ref.view(game, "judge")
    assert view.calls_open == 1 and view.seq == other.folded(game).last_seq
    assert sent.whole_log_reads == 0, sent.sql  # only the new record was read
    assert ref.log(game, "judge")[-1].kind == "call"
    other.store.close()
    ref.store.close()


def test_a_record_signed_by_another_key_behind_the_readers_back_is_held(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ref, game = served_game(db)
    mallory = other_process(db, Signer.from_seed("mallory"))
    f = ref.folded(game)
    forged = mallory.ledger.seal(game, f.last_seq + 1, f.last_hash, call(game), f.module)
    mallory.store.append([forged])  # chains to the verified head, signed by another key
    with pytest.raises(Held, match="signature"):
        ref.view(game, "hera")
    mallory.store.close()
    ref.store.close()


def test_a_doctored_row_appended_by_another_connection_is_held(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ref, game = served_game(db)
    other = other_process(db)
    other.call_judge(game, "hera", "come")  # a genuine record, then its stored bytes edited
    con = sqlite3.connect(db)
    with con:
        (seq,) = con.execute("SELECT MAX(seq) FROM events WHERE game=?", (game,)).fetchone()
        (hashed,) = con.execute(
            "SELECT hashed FROM events WHERE game=? AND seq=?", (game, seq)
        ).fetchone()
        con.execute(
            "UPDATE events SET hashed=? WHERE game=? AND seq=?",
            (bytes(hashed).replace(b'"call"', b'"undo"'), game, seq),
        )
    con.close()
    with pytest.raises(Held):
        ref.view(game, "hera")
    other.store.close()
    ref.store.close()


def test_a_row_that_does_not_chain_to_the_verified_head_is_held(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ref, game = served_game(db)
    other = other_process(db)
    f = ref.folded(game)
    # a record sealed after the head's predecessor, stored as the next one: it chains to
    # another record than the head the reader verified
    stray = other.ledger.seal(game, f.last_seq + 1, "0" * 64, call(game), f.module)
    con = sqlite3.connect(db)
    with con:
        con.execute(
            "INSERT INTO events (game, seq, key, hash, line) VALUES (?, ?, NULL, ?, ?)",
            (game, stray.seq, stray.hash, stray.to_line()),
        )
    con.close()
    with pytest.raises(Held):
        ref.view(game, "hera")
    other.store.close()
    ref.store.close()


def test_the_head_row_rewritten_under_the_reader_is_held(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ref, game = served_game(db)
    con = sqlite3.connect(db)
    with con:
        con.execute(
            "UPDATE events SET hash=? WHERE game=? AND seq=(SELECT MAX(seq) FROM events"
            " WHERE game=?)",
            ("f" * 64, game, game),
        )
    con.close()
    with pytest.raises(Held, match="changed under the server"):
        ref.view(game, "hera")
    ref.store.close()


# ---- one look per request ---------------------------------------------------------------------


def test_a_look_taken_before_another_threads_write_is_read_again_never_held(
    tmp_path: Path,
) -> None:
    db = tmp_path / "g.sqlite3"
    ref, game = served_game(db)
    with ref.pinned():  # one request: its look at the game is taken here
        before = ref.view(game, "judge").seq
        other = threading.Thread(target=ref.call_judge, args=(game, "hera", "come"))
        other.start()  # another request of this server writes meanwhile
        other.join()
        after = ref.view(game, "judge")  # the look is behind the head this server wrote
    assert after.seq == before + 1 and after.calls_open == 1
    assert ref.overview("judge")[0].get("held") is None
    ref.store.close()


def test_inside_one_look_a_write_is_seen_by_the_reads_after_it(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    ref, game = served_game(db)
    with ref.pinned():
        before = ref.view(game, "judge").seq
        ref.call_judge(game, "hera", "come")
        assert ref.view(game, "judge").seq == before + 1
        assert ref.head(game)["seq"] == before + 1
    ref.store.close()
