"""Anchors outside the database (issue 12, finding 6).

Whoever can write the database can delete a game's tail, change a record, or store a key of
his own beside a game he re-signed with it. The server trusts only what lives beside its key:
its key file, the heads journal (``DB.heads``) and the tournament's trusted keys
(``DB.trust``). A game that changed under it is held, with the reason, for the judge; an import
checks the head it is given or asks; a seat's cut must hide everything its seat may not see.
"""

from __future__ import annotations

import io
import json
import sqlite3
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from service_helpers import SIGNER, make_referee
from test_log_trust import Line, parts, played, rehashed, tamper, text_of
from web_helpers import JUDGE_CODE, make_app

from referee.anchors import COMPACT_MIN_LINES, HeadJournal, TrustList, trust_path
from referee.keys import Signer
from referee.service import Held, Referee, open_referee
from referee.store import SQLiteStore
from web.cli import main

MALLORY = Signer.from_seed("mallory")  # a key of the attacker's own


def rows_of(db: Path, game: str) -> list[tuple[int, str]]:
    """Each stored record's seq and JSON line, as an export writes it."""
    store = SQLiteStore(str(db), readonly=True)
    try:
        return [(r.seq, json.dumps(r.to_json())) for r in store.records(game)]
    finally:
        store.close()


@pytest.fixture
def server(tmp_path: Path) -> Any:
    """A running server's referee over a database with two played games, ``a`` and ``b``."""
    db = tmp_path / "referee.sqlite3"
    ref = open_referee(db)
    played(ref, "a")
    played(ref, "b")
    assert ref.view("a", "hera").to_json()["game"] == "a"  # served once: the server knows its head
    yield db, ref
    ref.store.close()


def restarted(db: Path) -> Referee:
    return open_referee(db)


def held_for_the_judge(ref: Referee, game: str, *why: str) -> None:
    """``game`` is served to no seat, and the judge's overview says why."""
    for seat in ("hera", "zeus", "public", "judge"):
        with pytest.raises(Held) as info:
            ref.view(game, seat)
        assert repr(game) in info.value.message
    with pytest.raises(Held):
        ref.export(game, "judge")
    with pytest.raises(Held):
        ref.submit(game, "hera", {"do": "draw"})
    reason = {o["game"]: o for o in ref.overview("judge")}[game]["held"]
    for w in why:
        assert w in reason, reason


def served(ref: Referee, game: str) -> None:
    assert ref.view(game, "hera").to_json()["game"] == game
    assert ref.export(game, "judge").count("\n") > 10


# ---- a tail deleted, a record changed -----------------------------------------------------------


def test_a_tail_deleted_while_the_server_runs_is_held_with_the_reason(server: Any) -> None:
    db, ref = server
    last = ref.head("a")["seq"]
    tamper(db, "DELETE FROM events WHERE game=? AND seq>?", "a", last - 3)
    held_for_the_judge(ref, "a", "went backwards", f"event {last - 3}", f"event {last}")
    served(ref, "b")  # the other game is served as before


def test_a_tail_deleted_while_the_server_was_down_is_held_after_the_restart(
    server: Any,
) -> None:
    db, ref = server
    last = ref.head("a")["seq"]
    ref.store.close()
    tamper(db, "DELETE FROM events WHERE game=? AND seq>?", "a", last - 3)
    again = restarted(db)
    try:
        held_for_the_judge(again, "a", "went backwards", "records were deleted")
        served(again, "b")
    finally:
        again.store.close()


def test_a_tail_deleted_and_one_record_left_in_its_place_is_held(server: Any) -> None:
    """The tail is replaced by a record the server never wrote at the head's number (a copy of
    another game's record would not chain: this one is a re-signed one)."""
    db, ref = server
    rows = parts(ref.export("a", "judge"))[1]
    forged = rehashed(rows, len(rows) - 1, lambda r: r["body"].update(to=1), MALLORY)[-1]
    tamper(
        db,
        "UPDATE events SET hash=?, line=? WHERE game=? AND seq=?",
        forged["hash"],
        json.dumps(forged),
        "a",
        forged["seq"],
    )
    held_for_the_judge(ref, "a", f"event {forged['seq']} changed under the server")
    ref.store.close()
    again = restarted(db)
    try:
        held_for_the_judge(again, "a", "changed under the server")
    finally:
        again.store.close()


def test_a_record_changed_in_the_middle_is_held_once_it_is_read(server: Any) -> None:
    db, ref = server
    assert "held" not in {o["game"]: o for o in ref.overview("judge")}["a"]  # a row kept
    # Pythia's name sits in a sealed value: the row keeps it among its opened values
    con = sqlite3.connect(db)
    seq, opened = next(
        (s, o)
        for s, o in con.execute("SELECT seq, opened FROM events WHERE game=?", ("a",))
        if o is not None and b'"Pythia"' in o
    )
    con.close()
    tamper(
        db,
        "UPDATE events SET opened=? WHERE game=? AND seq=?",
        opened.replace(b'"Pythia"', b'"Nemesis"'),
        "a",
        seq,
    )
    with pytest.raises(Held, match=f"event {seq} changed under the server"):
        # a page's log is served as verified at its head (only what is new is read); an export
        # is made of the records stored now: each is checked again (issue 32, item 4)
        ref.export("a", "hera")
    held_for_the_judge(ref, "a", f"event {seq} changed under the server")
    served(ref, "b")


# ---- a key written into the database ------------------------------------------------------------


def resigned_by_mallory(db: Path, game: str) -> None:
    """What an attacker with the database but not the key file can do: rewrite a game (the
    first card Hera drew becomes Nemesis), re-sign every record with his own key, and store
    that key as the game's."""
    rows = [json.loads(ln) for _, ln in rows_of(db, game)]
    at = next(
        i
        for i, r in enumerate(rows)
        if r["kind"] == "action" and r["body"]["action"].get("card") == "Pythia"
    )
    fake = rehashed(rows, at, lambda r: r["body"]["action"].update(card="Nemesis"), MALLORY, 0)
    for r in fake:
        tamper(
            db,
            # written as JSON lines, the form a database from before the stored form keeps
            "UPDATE events SET hash=?, line=?, hashed=NULL, opened=NULL, nonce=NULL, sig=NULL"
            " WHERE game=? AND seq=?",
            r["hash"],
            json.dumps(r),
            game,
            r["seq"],
        )
    tamper(
        db,
        "INSERT OR REPLACE INTO secrets (game, name, value) VALUES (?, 'key:public', ?)",
        game,
        MALLORY.public_b64,
    )


def test_a_game_resigned_with_a_key_written_into_the_database_is_held(server: Any) -> None:
    db, ref = server
    resigned_by_mallory(db, "a")
    held_for_the_judge(ref, "a", "changed under the server")
    ref.store.close()
    again = restarted(db)
    try:
        held_for_the_judge(again, "a", "failed verification")
        with pytest.raises(Held):
            again.export("a", "hera")  # never with the attacker's fingerprint in its header
        served(again, "b")
    finally:
        again.store.close()


def test_a_key_in_the_database_is_refused_without_the_journal_too(server: Any) -> None:
    """Even with the heads journal gone, a key found in the database is not this server's
    and not a trusted one: the game is held, naming that key."""
    db, ref = server
    ref.store.close()
    resigned_by_mallory(db, "a")
    Path(f"{db}.heads").unlink()
    again = restarted(db)
    try:
        held_for_the_judge(again, "a", MALLORY.fingerprint, "does not trust")
        served(again, "b")
    finally:
        again.store.close()


# ---- the heads journal --------------------------------------------------------------------------


def test_the_heads_journal_is_owner_only_with_a_signed_line_a_write(server: Any) -> None:
    db, ref = server
    path = Path(f"{db}.heads")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    lines = path.read_text().splitlines()
    a, b = ref.head("a"), ref.head("b")
    assert 2 < len(lines) < a["seq"] + b["seq"] + 2  # a line a write, not a line a record
    assert all(len(ln.split(" ")) == 5 for ln in lines)
    assert any(ln.startswith(f"a {a['seq']} {a['hash']} {ref.fingerprint()} ") for ln in lines)
    assert lines[-1].startswith(f"b {b['seq']} {b['hash']} ")
    anchor = HeadJournal(ref.signer, path).get("a")  # each line verifies with the server's key
    assert anchor is not None and (anchor.seq, anchor.hash) == (a["seq"], a["hash"])


def test_a_forged_journal_line_moves_no_anchor(tmp_path: Path) -> None:
    path = tmp_path / "x.heads"
    j = HeadJournal(SIGNER, path)
    j.note("g", 5, "ab" * 32, SIGNER.fingerprint)
    with path.open("a") as f:  # the attacker's own line: his key for the game
        f.write(f"g 9 {'cd' * 32} {MALLORY.fingerprint} {MALLORY.sign('x')}\n")
        f.write("torn line\n")
    again = HeadJournal(SIGNER, path)
    a = again.get("g")
    assert a is not None and (a.seq, a.fingerprint) == (5, SIGNER.fingerprint)
    assert again.ignored == 2


def test_the_heads_journal_is_compacted_at_start(tmp_path: Path) -> None:
    path = tmp_path / "x.heads"
    j = HeadJournal(SIGNER, path)
    for seq in range(COMPACT_MIN_LINES + 10):
        j.note("g", seq, f"{seq:064x}", SIGNER.fingerprint)
    j.note("h", 3, "ef" * 32, SIGNER.fingerprint)
    assert len(path.read_text().splitlines()) == COMPACT_MIN_LINES + 11
    again = HeadJournal(SIGNER, path)
    assert len(path.read_text().splitlines()) == 2  # the last head of each game
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    a = again.get("g")
    assert a is not None and a.seq == COMPACT_MIN_LINES + 9


# ---- import checks the head ---------------------------------------------------------------------


@pytest.fixture
def export_file(tmp_path: Path) -> tuple[Path, str, list[Line], Line]:
    ref = make_referee()
    g = played(ref)
    text = ref.export(g, "judge")
    head, rows = parts(text)
    path = tmp_path / "game.jsonl"
    path.write_text(text, "utf-8")
    h = ref.head(g)
    return path, f"{h['seq']}:{h['hash']}", rows, head


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return rc, out.out, out.err


def imported(db: Path) -> list[str]:
    if not db.exists():
        return []
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute("SELECT DISTINCT game FROM events")]
    finally:
        con.close()


def test_import_refuses_a_log_cut_short_of_its_head(
    export_file: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, at, rows, head = export_file
    short = tmp_path / "short.jsonl"
    short.write_text(text_of(head, rows[:-3]), "utf-8")
    db = tmp_path / "db.sqlite3"
    key = ["--trust-key", SIGNER.fingerprint, "--db", str(db)]
    rc, out, err = run(capsys, "import", *key, "--head", at, str(short))
    assert rc == 2 and "cut short" in err and len(err.splitlines()) == 1 and not out
    assert imported(db) == []
    rc, out, err = run(capsys, "import", *key, "--head", at, str(path))
    assert rc == 0 and "imported game g1" in out and not err
    assert imported(db) == ["g1"]


def test_import_without_a_head_is_refused_unless_confirmed(
    export_file: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _, _, _ = export_file
    db = tmp_path / "db.sqlite3"
    key = ["--trust-key", SIGNER.fingerprint, "--db", str(db)]
    rc, out, err = run(capsys, "import", *key, str(path))  # not a terminal, no --yes
    assert rc == 2 and "unproven" in err and "--yes" in err and len(err.splitlines()) == 1
    assert imported(db) == []
    rc, out, err = run(capsys, "import", *key, "--yes", str(path))
    assert rc == 0 and "imported game g1" in out
    assert "WARNING" in err and "unproven" in err


@pytest.mark.parametrize("answer,stored", [("n\n", False), ("\n", False), ("y\n", True)])
def test_import_without_a_head_asks_at_a_terminal(
    export_file: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
    stored: bool,
) -> None:
    path, _, _, _ = export_file
    db = tmp_path / "db.sqlite3"

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal(answer))
    rc, out, err = run(
        capsys, "import", "--trust-key", SIGNER.fingerprint, "--db", str(db), str(path)
    )
    assert "unproven" in err and "Import it anyway" in out
    assert (rc == 0) is stored and (imported(db) == ["g1"]) is stored


# ---- a cut relabelled ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seat,as_,first", [("hera", "public", 2), ("zeus", "public", 4), ("hera", "zeus", 2)]
)
def test_a_players_cut_relabelled_as_another_seat_fails_naming_the_record_and_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seat: str, as_: str, first: int
) -> None:
    ref = make_referee()
    g = played(ref)
    head, rows = parts(ref.export(g, seat))
    path = tmp_path / "cut.jsonl"
    path.write_text(text_of(head, rows), "utf-8")
    rc, out, _ = run(capsys, "verify", "--redacted", str(path))
    assert rc == 0 and "intact" in out
    path.write_text(text_of({**head, "seat": as_}, rows), "utf-8")
    rc, out, _ = run(capsys, "verify", "--redacted", str(path))
    # the first deal the seat may see and the other may not shows its cards
    assert rc == 1 and f"NOT intact at record {first}: shows 'body.action.cards'" in out
    assert f"which the rules hide from {as_}: this is not {as_}'s cut" in out


# ---- the tournament's trusted keys --------------------------------------------------------------


def test_trust_add_list_remove(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], export_file: Any
) -> None:
    path, at, _, _ = export_file
    db = tmp_path / "db.sqlite3"
    other = tmp_path / "other.key"
    Signer.load_or_create(other)  # another hall's server key file
    rc, out, err = run(capsys, "trust", "add", "hall-2", str(path), "--db", str(db))  # an export
    assert rc == 0 and SIGNER.fingerprint in out and not err
    rc, out, err = run(capsys, "trust", "add", "hall-3", str(other), "--db", str(db))  # a key file
    assert rc == 0
    rc, out, err = run(capsys, "trust", "add", "hall-4", "1a2b-3c4d-5e6f-7a8b", "--db", str(db))
    assert rc == 0
    assert stat.S_IMODE(trust_path(db).stat().st_mode) == 0o600
    rc, out, err = run(capsys, "trust", "list", "--db", str(db))
    assert rc == 0 and [ln.split()[0] for ln in out.splitlines()] == ["hall-2", "hall-3", "hall-4"]
    assert SIGNER.fingerprint in out and "fingerprint only" in out
    for bad in (
        ["hall-2", "1111-2222-3333-4444"],  # a name in use
        ["hall-5", str(path)],  # a key trusted already
        ["no spaces", "1111-2222-3333-4444"],
        ["hall-6", "not-a-fingerprint"],
    ):
        rc, out, err = run(capsys, "trust", "add", *bad, "--db", str(db))
        assert rc == 2 and len(err.splitlines()) == 1 and not out, bad
    # a log signed by a trusted key is imported without --trust-key
    rc, out, err = run(capsys, "import", "--head", at, "--db", str(db), str(path))
    assert rc == 0 and "imported game g1" in out
    ref = open_referee(db)
    try:
        served(ref, "g1")  # and served after a restart, by the key it was imported with
    finally:
        ref.store.close()
    rc, out, err = run(capsys, "trust", "remove", "hall-2", "--db", str(db))
    assert rc == 0 and "hall-2" in out
    assert "hall-2" not in TrustList(trust_path(db)).keys
    rc, out, err = run(capsys, "trust", "remove", "hall-2", "--db", str(db))
    assert rc == 2 and "no trusted key named 'hall-2'" in err
    rc, out, err = run(capsys, "import", "--head", at, "--db", str(db), str(path))
    assert rc == 2 and "nor by a trusted key" in err  # no longer trusted


def test_the_judges_tables_page_shows_why_a_game_is_held(server: Any) -> None:
    db, ref = server
    app = make_app(ref)
    judge = app.test_client()
    assert judge.get(f"/judge/join/{JUDGE_CODE}").status_code in (302, 303)
    page = judge.get("/judge").get_data(as_text=True)
    assert "held:" not in page
    last = ref.head("a")["seq"]
    tamper(db, "DELETE FROM events WHERE game=? AND seq>?", "a", last - 2)
    page = judge.get("/judge").get_data(as_text=True)
    assert "held:" in page and "the log went backwards" in page and f"event {last - 2}" in page
    assert app.test_client().get("/g/a").status_code == 423  # and served to nobody
    assert app.test_client().get("/g/b").status_code == 200


def test_a_game_from_before_the_journal_is_anchored_when_first_read(server: Any) -> None:
    db, ref = server
    ref.store.close()
    Path(f"{db}.heads").unlink()  # a database from before the journal
    again = restarted(db)
    try:
        served(again, "a")
    finally:
        again.store.close()
    last = rows_of(db, "a")[-1][0]
    tamper(db, "DELETE FROM events WHERE game=? AND seq=?", "a", last)
    again = restarted(db)
    try:
        held_for_the_judge(again, "a", "went backwards")
    finally:
        again.store.close()


def test_several_processes_share_one_journal_and_a_compaction_loses_no_line_of_theirs(
    tmp_path: Path,
) -> None:
    """Issue 35: the processes serving one database append to one journal while another one
    starts and compacts it; every head noted is in the journal read afterwards (without the
    journal's file lock, lines appended to the old file during a rename are lost)."""
    import threading

    path = tmp_path / "db.heads"
    writer = HeadJournal(SIGNER, path)
    for n in range(COMPACT_MIN_LINES + 10):  # enough lines that each start compacts
        writer.note("old", n, f"{n:064x}", SIGNER.fingerprint)
    stop = threading.Event()

    def start_again_and_again() -> None:
        while not stop.is_set():
            HeadJournal(SIGNER, path)  # compacts at start

    starter = threading.Thread(target=start_again_and_again)
    starter.start()
    try:
        for n in range(400):
            writer.note(f"g{n}", n + 1, f"{n:064x}", SIGNER.fingerprint)
    finally:
        stop.set()
        starter.join()
    read = HeadJournal(SIGNER, path)
    missing = [n for n in range(400) if read.get(f"g{n}") is None]
    assert missing == []
    assert read.ignored == 0


def test_a_referee_in_memory_writes_no_key_or_journal_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store in memory lasts as long as the process, and so do its key and anchors: nothing
    named after ":memory:" appears in the folder it was opened from."""
    monkeypatch.chdir(tmp_path)
    referee = open_referee(":memory:")
    referee.store.close()
    assert list(tmp_path.iterdir()) == []
