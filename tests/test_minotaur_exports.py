"""A Minotaur Lords game's exports (issue 31, item 17): the header names the game's own seats.

A game is played through the service over a SQLite database; then ``referee export`` writes
each seat's cut and the judge's log. Each verifies (``referee verify``, ``--redacted`` for a
cut), the judge's imports into another database and replays, and no seat's export shows a
value the rules hide from it (M14, ML-P7): each hidden value is sealed in its copy.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from privacy_property import ServiceDriver
from test_minotaur_privacy import DECKS, _act

from referee.games import game_of
from referee.log import Record, get_path, is_sealed_marker, read_lines
from referee.service import open_referee
from referee.views import cutter
from web.cli import main

SEATS = ("miron", "vess", "public", "judge")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, list[Record]]:
    """A database holding one Minotaur Lords game of 60 random steps: its path, the game, its
    head as ``SEQ:HASH`` and the judge's records."""
    db = tmp_path_factory.mktemp("minotaur-exports") / "games.sqlite3"
    ref = open_referee(db)
    try:
        d = ServiceDriver(ref)
        game = d.create_game(name="minotaur", options={"deck_list": DECKS, "first": "vess"}).game
        rng = random.Random(31)
        for _ in range(60):
            if not _act(d, game, rng):
                break
        h = ref.head(game)
        return db, game, f"{h['seq']}:{h['hash']}", ref.log(game, "judge")
    finally:
        ref.store.close()


def exported(capsys: pytest.CaptureFixture[str], db: Path, game: str, seat: str, tmp: Path) -> Path:
    rc, out, err = run(capsys, "export", "--db", str(db), "--seat", seat, game)
    assert rc == 0 and err == "", err
    path = tmp / f"{seat}.jsonl"
    path.write_text(out, "utf-8")
    return path


@pytest.mark.parametrize("seat", SEATS)
def test_each_seats_export_names_its_seat_and_verifies(
    seat: str,
    played: tuple[Path, str, str, list[Record]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db, game, head, _ = played
    path = exported(capsys, db, game, seat, tmp_path)
    header, _records = read_lines(path.read_text("utf-8"))
    assert header.seat == seat
    redacted = ["--redacted"] if seat != "judge" else []
    rc, out, err = run(capsys, "verify", *redacted, "--head", head, str(path))
    assert rc == 0 and err == "", err
    assert out.startswith(f"{path}: intact: "), out
    assert ("the judge's full log" if seat == "judge" else f"{seat}'s cut") in out


def test_the_judges_export_imports_into_another_database_and_replays(
    played: tuple[Path, str, str, list[Record]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db, game, head, records = played
    path = exported(capsys, db, game, "judge", tmp_path)
    other = tmp_path / "other.sqlite3"
    key = read_lines(path.read_text("utf-8"))[0].fingerprint
    rc, out, err = run(
        capsys, "import", "--db", str(other), "--trust-key", key, "--head", head, str(path)
    )
    assert rc == 0, err
    assert out.startswith(f"imported game {game} ({len(records)} events)")
    rc, out, err = run(capsys, "export", "--db", str(other), game)
    assert rc == 0 and out == path.read_text("utf-8")
    rc, out, err = run(capsys, "replay", "--json", "--key", key, str(path))
    assert rc == 0 and json.loads(out)["game"] == "minotaur", err


def _hidden_values(records: list[Record], seat: str) -> list[tuple[int, str, Any]]:
    """(seq, path, value) of every value the rules hide from ``seat`` in the judge's log."""
    may_cut = cutter(game_of(records[0].body))
    out = []
    for r in records:
        whole = r.to_json()
        for p in sorted(may_cut(r, seat)):
            out.append((r.seq, p, get_path(whole, p)))
    return out


@pytest.mark.parametrize("seat", ("miron", "vess", "public"))
def test_no_seats_export_shows_a_value_hidden_from_it(
    seat: str,
    played: tuple[Path, str, str, list[Record]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every value the rules hide from the seat (the other hand's cards, a card discarded from
    the other hand, a deck's top card, M14) is sealed in its export, where the judge's log
    holds it; and the export is the service's cut for that seat, record by record."""
    db, game, _, records = played
    path = exported(capsys, db, game, seat, tmp_path)
    _, cut = read_lines(path.read_text("utf-8"))
    assert [r.seq for r in cut] == [r.seq for r in records]
    hidden = _hidden_values(records, seat)
    assert len(hidden) >= 10, hidden  # the game hid something from this seat
    for seq, p, value in hidden:
        assert not is_sealed_marker(value), (seq, p)
        assert is_sealed_marker(get_path(cut[seq].to_json(), p)), (seat, seq, p)


def test_a_header_naming_another_games_seat_is_refused_naming_the_games_seats(
    played: tuple[Path, str, str, list[Record]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db, game, _, _ = played
    path = exported(capsys, db, game, "miron", tmp_path)
    head, rest = path.read_text("utf-8").split("\n", 1)
    path.write_text(head.replace('"seat": "miron"', '"seat": "hera"') + "\n" + rest, "utf-8")
    rc, out, err = run(capsys, "verify", "--redacted", str(path))
    assert rc == 2 and out == ""
    assert err == (
        f"referee: {path}: header seat 'hera' is not a seat of Minotaur Lords "
        "(miron, vess, judge, public)\n"
    )


def test_no_game_exports_a_cut_for_a_seat_it_does_not_have(
    played: tuple[Path, str, str, list[Record]], capsys: pytest.CaptureFixture[str]
) -> None:
    db, game, _, _ = played
    rc, out, err = run(capsys, "export", "--db", str(db), "--seat", "hera", game)
    assert rc == 2 and out == ""
    assert err == "referee: unknown seat 'hera' in Minotaur Lords\n"
