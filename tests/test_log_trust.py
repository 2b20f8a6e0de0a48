"""A log no one can rewrite unnoticed (issue 6, section 3).

Every record's hash is signed with the server's key; a seat's export is a cut of the signed
records that hides only what the rules hide from that seat (D21, D22); the players can write
down the head (``SEQ:HASH``) and the key's fingerprint. So: a re-hashed log fails, a cut that
hides more than the rules allow fails, a log cut short fails against its head, a log signed by
another key fails against the fingerprint, and a game edited inside the database is not served.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from service_helpers import SIGNER, header, make_referee
from test_service import first_turns, new_game

from referee.herazeus.game import may_cut
from referee.keys import Signer
from referee.log import GENESIS, SEALED, Record, commit, read_lines, verify
from referee.service import Held, Referee, Refused, open_referee
from web.cli import main

Line = dict[str, Any]


def played(ref: Referee, game: str = "g1") -> str:
    g = new_game(ref, game=game)
    first_turns(ref, g, hera=["Pythia", "Medusa", "Pandora"], zeus=["Hero", "Hero", "Argus"])
    ref.submit(g, "hera", {"do": "challenge", "column": 2}, key="tap-1")
    ref.submit(g, "hera", {"do": "play", "card": "Medusa", "column": 2})
    played_at = ref.head(g)["seq"]
    ref.submit(g, "hera", {"do": "draw", "card": "Hades"})
    # an undo to the present is refused (HZ-P15): the judge takes back the draw
    ref.undo(g, "judge", played_at, "the draw was a mis-tap")
    return g


@pytest.fixture(scope="module")
def exports() -> dict[str, str]:
    ref = make_referee()
    g = played(ref)
    return {seat: ref.export(g, seat) for seat in ("judge", "hera", "zeus", "public")}


def parts(text: str) -> tuple[Line, list[Line]]:
    rows = [json.loads(x) for x in text.splitlines()]
    return rows[0], rows[1:]


def text_of(head: Line, rows: list[Line]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [head, *rows])


def check(text: str, **kw: Any) -> Any:
    h, records = read_lines(text)
    return verify(h, records, may_cut=may_cut, **kw)


def run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, *args: str
) -> tuple[int, list[str]]:
    """``referee verify ARGS LOG`` on ``text``: the exit status and the lines it printed."""
    path = tmp_path / "log.jsonl"
    path.write_text(text, "utf-8")
    rc = main(["verify", *args, str(path)])
    out = capsys.readouterr()
    printed = (out.out + out.err).strip().splitlines()
    assert "Traceback" not in out.out + out.err
    return rc, printed


def rehashed(
    rows: list[Line],
    at: int,
    edit: Callable[[Line], None],
    signer: Signer,
    start: int | None = None,
) -> list[Line]:
    """The log with record ``at`` edited and every hash from ``start`` (default: ``at``) on
    recomputed and signed by ``signer``: what a dishonest organiser without the server's key
    can do."""
    start = at if start is None else start
    records = [Record.from_json(r) for r in rows]
    out = [r.to_json() for r in records[:start]]
    prev = records[start - 1].hash if start else GENESIS
    for i, r in enumerate(records[start:], start):
        raw = r.to_json()
        if i == at:
            edit(raw)
        raw["prev"] = prev
        fake = Record.from_json(raw).sealed_with(signer.sign)
        out.append(fake.to_json())
        prev = fake.hash
    return out


def drawn_card(rows: list[Line]) -> int:
    return next(
        i
        for i, r in enumerate(rows)
        if r["kind"] == "action"
        and r["body"]["action"]["do"] == "draw"
        and isinstance(r["body"]["action"].get("card"), str)
    )


def _card(raw: Line) -> None:
    raw["body"]["action"]["card"] = "Nemesis"


# ---- a re-hashed log ---------------------------------------------------------------------------


def test_a_rehashed_log_fails_on_its_signature(
    exports: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head, rows = parts(exports["judge"])
    at = drawn_card(rows)
    forged = text_of(head, rehashed(rows, at, _card, Signer.from_seed("organiser")))
    v = check(forged)
    assert not v.ok and v.bad_seq == at and "signature" in v.problem
    rc, printed = run(capsys, tmp_path, forged)
    assert rc == 1 and len(printed) == 1 and f"NOT intact at record {at}" in printed[0]
    with pytest.raises(Refused) as info:
        make_referee().import_log(forged)
    assert "signature" in info.value.message


def test_a_log_resigned_with_another_key_fails_against_the_servers_fingerprint(
    exports: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The organiser re-signs the edited log with a key of his own and puts it in the header:
    the chain holds, but not the fingerprint the players wrote down."""
    head, rows = parts(exports["judge"])
    organiser = Signer.from_seed("organiser")
    forged_rows = rehashed(rows, drawn_card(rows), _card, organiser, start=0)
    forged = text_of(header(head["game"], signer=organiser).to_json(), forged_rows)
    assert check(forged).ok  # a log signed by some key ...
    v = check(forged, key=SIGNER.fingerprint)
    assert not v.ok and organiser.fingerprint in v.message()  # ... but not by this server
    rc, printed = run(capsys, tmp_path, forged, "--key", SIGNER.fingerprint)
    assert rc == 1 and len(printed) == 1 and SIGNER.fingerprint in printed[0]
    rc, printed = run(capsys, tmp_path, exports["judge"], "--key", SIGNER.fingerprint)
    assert rc == 0 and "intact" in printed[0]


def test_import_refuses_a_log_signed_by_another_key_unless_that_key_is_named(
    exports: dict[str, str],
) -> None:
    """A forger can sign an edited log with a key of his own: this server imports only logs it
    signed itself, or a log whose key the judge names (--trust-key), as from another server."""
    head, rows = parts(exports["judge"])
    organiser = Signer.from_seed("organiser")
    forged_rows = rehashed(rows, drawn_card(rows), _card, organiser, start=0)
    forged = text_of(header(head["game"], signer=organiser).to_json(), forged_rows)
    with pytest.raises(Refused) as info:
        make_referee().import_log(forged)
    assert organiser.fingerprint in info.value.message and "--trust-key" in info.value.message
    assert make_referee().import_log(forged, trust_key=organiser.fingerprint) == head["game"]


# ---- cuts that hide more than the rules ---------------------------------------------------------


def test_a_record_emptied_in_a_cut_fails_at_that_record(exports: dict[str, str]) -> None:
    head, rows = parts(exports["hera"])
    for i in (0, 5, len(rows) - 1):
        changed = [dict(r) for r in rows]
        changed[i]["body"] = {}
        changed[i]["events"] = []
        v = check(text_of(head, changed))
        assert not v.ok and v.bad_seq == i, v.message()


def seal(row: Line, path: str) -> Line:
    """``row`` (a cut copy) with the shown sealed value at ``path`` replaced by its own
    commitment and declared cut: the hash still matches, only the rules can object."""
    out: Line = json.loads(json.dumps(row))
    cur: Any = out
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    for k in keys[:-1]:
        cur = cur[k]
    salt = out["salts"].pop(path)
    cur[keys[-1]] = {SEALED: commit(salt, cur[keys[-1]])}
    out["cut"] = sorted([*out["cut"], path])
    return out


def test_a_cut_hiding_a_value_the_rules_show_fails_naming_the_record(
    exports: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hera's export with one of her own drawn cards hidden from her: the record still hashes
    (a commitment stands where the value was), but the rules do not hide it from Hera."""
    head, rows = parts(exports["hera"])
    at = drawn_card(rows)
    changed = [*rows[:at], seal(rows[at], "body.action.card"), *rows[at + 1 :]]
    assert Record.from_json(changed[at]).compute_hash() == rows[at]["hash"]
    v = check(text_of(head, changed))
    assert not v.ok and v.bad_seq == at and "body.action.card" in v.problem
    rc, printed = run(capsys, tmp_path, text_of(head, changed), "--redacted")
    assert rc == 1 and len(printed) == 1 and f"NOT intact at record {at}" in printed[0]


def test_every_record_cut_as_for_the_public_is_not_heras_cut(exports: dict[str, str]) -> None:
    """The public's export relabelled as Hera's: it hides Hera's own cards from her."""
    head, rows = parts(exports["public"])
    v = check(text_of({**head, "seat": "hera"}, rows))
    assert not v.ok and "the rules do not hide from hera" in v.problem
    assert check(exports["public"]).ok


def test_each_seats_untouched_export_verifies_as_its_cut(
    exports: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for seat in ("hera", "zeus", "public"):
        _, rows = parts(exports[seat])
        last = f"{rows[-1]['seq']}:{rows[-1]['hash']}"
        rc, printed = run(
            capsys,
            tmp_path,
            exports[seat],
            "--redacted",
            "--key",
            SIGNER.fingerprint,
            "--head",
            last,
        )
        assert rc == 0 and len(printed) == 1 and f"{seat}'s cut" in printed[0]


# ---- a log cut short -----------------------------------------------------------------------------


def test_a_truncated_log_fails_against_its_head(
    exports: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head, rows = parts(exports["judge"])
    last = f"{rows[-1]['seq']}:{rows[-1]['hash'][:10]}"
    rc, printed = run(capsys, tmp_path, exports["judge"], "--head", last)
    assert rc == 0 and len(printed) == 1
    assert f"head {last[:-2]}" in printed[0]  # the head written as --head reads it
    rc, printed = run(capsys, tmp_path, text_of(head, rows[:-2]), "--head", last)
    assert rc == 1 and len(printed) == 1 and "cut short" in printed[0]
    short = f"{rows[-3]['seq']}:{rows[-3]['hash'][:8]}"
    assert f"ends at {short}, before the head {last[:-2]}" in printed[0]
    rc, printed = run(capsys, tmp_path, text_of(head, rows[:-2]))
    assert rc == 0 and any("--head" in line for line in printed)  # it says what it cannot know


# ---- strict lines ----------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["unknown field", "duplicate key", "header field"])
def test_a_line_with_unknown_fields_or_duplicate_keys_is_refused(
    exports: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    lines = exports["judge"].splitlines()
    if how == "unknown field":
        raw = json.loads(lines[3])
        raw["redacted"] = True
        lines[3] = json.dumps(raw)
        want = "line 4"
    elif how == "duplicate key":
        lines[3] = lines[3][:-1] + ', "seat": "judge"}'
        want = "line 4"
    else:
        raw = json.loads(lines[0])
        raw["note"] = "signed by the judge"
        lines[0] = json.dumps(raw)
        want = "line 1"
    text = "\n".join(lines) + "\n"
    with pytest.raises(ValueError, match=want):
        read_lines(text)
    rc, printed = run(capsys, tmp_path, text)
    assert rc == 2 and len(printed) == 1 and want in printed[0]
    with pytest.raises(Refused):
        make_referee().import_log(text)


def test_the_cli_says_one_line_for_a_missing_or_binary_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(tmp_path / "nope.jsonl")]) == 2
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00garbage")
    assert main(["verify", str(tmp_path / "bin")]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 2
    assert "Traceback" not in out.err


# ---- inside the database ----------------------------------------------------------------------


def database(tmp_path: Path) -> tuple[Path, str, str]:
    db = tmp_path / "referee.sqlite3"
    ref = open_referee(db)
    try:
        a, b = played(ref, "a"), played(ref, "b")
    finally:
        ref.store.close()
    return db, a, b


def tamper(db: Path, sql: str, *args: Any) -> None:
    con = sqlite3.connect(db)
    try:
        with con:
            con.execute(sql, args)
    finally:
        con.close()


def held_everywhere(db: Path, game: str) -> None:
    """A restarted server does not serve ``game`` to anyone but tells the judge why."""
    ref = open_referee(db)
    try:
        for seat in ("hera", "zeus", "public"):
            with pytest.raises(Held) as info:
                ref.view(game, seat)
            assert repr(game) in info.value.message  # names the game held
        with pytest.raises(Held):
            ref.submit(game, "hera", {"do": "draw"})
        with pytest.raises(Held):
            ref.export(game, "hera")
        held = {o["game"]: o for o in ref.overview("judge")}
        assert "failed verification" in held[game]["held"]
    finally:
        ref.store.close()


def test_games_swapped_inside_sqlite_are_not_served(tmp_path: Path) -> None:
    db, a, b = database(tmp_path)
    for old, new in ((a, "swap"), (b, a), ("swap", b)):  # every record of a under b and back
        tamper(db, "UPDATE events SET game=? WHERE game=?", new, old)
    held_everywhere(db, a)
    held_everywhere(db, b)


def test_a_line_edited_inside_sqlite_is_not_served(tmp_path: Path) -> None:
    db, a, b = database(tmp_path)
    con = sqlite3.connect(db)
    # Pythia's name sits in a sealed value: the row keeps it among its opened values
    seq, opened = next(
        (s, o)
        for s, o in con.execute("SELECT seq, opened FROM events WHERE game=?", (a,))
        if o is not None and b'"Pythia"' in o
    )
    con.close()
    tamper(
        db,
        "UPDATE events SET opened=? WHERE game=? AND seq=?",
        opened.replace(b'"Pythia"', b'"Nemesis"'),
        a,
        seq,
    )
    held_everywhere(db, a)
    ref = open_referee(db)
    try:
        assert ref.view(b, "hera").to_json()["game"] == b  # the other game is served as before
    finally:
        ref.store.close()


def test_a_game_signed_by_another_server_key_is_not_served(tmp_path: Path) -> None:
    db, a, _ = database(tmp_path)
    Path(f"{db}.key").unlink()  # the server starts with a new key: the old signatures fail
    held_everywhere(db, a)
