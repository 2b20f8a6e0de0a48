"""An event's export (T12): one file with its log, every game's log and the standings; it
verifies offline, recomputing pairings and standings, and a doctored one is refused, naming
what is wrong. Also the ``referee event`` commands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from event_helpers import new_event, play_out, tiny_events
from service_helpers import SIGNER

from referee.event.export import verify_event_export
from referee.event.service import Events
from referee.keys import Signer
from referee.log import Record
from web.cli import main


def played_event(ev: Events) -> str:
    """An 8-player, 2-round event: round 1 from the referee (confirmed), round 2 by slips."""
    eid = new_event(ev, 8, rounds=2)
    ev.pair_next(eid)
    r = ev.start_round(eid)
    for t in r.tables:
        link = ev.seat_link(eid, t.first)
        assert link is not None
        play_out(ev.referee, link.game, link.seat)
    ev.sync(eid)
    for t in r.tables:
        ev.confirm(eid, t.first)
        ev.confirm(eid, t.second)
    ev.drop(eid, "p8", "left")
    r = ev.pair_next(eid)
    ev.start_round(eid)
    for t in r.tables:
        ev.enter_result(eid, 2, t.table, 1, t.second, "slip")
    return eid


@pytest.fixture(scope="module")
def exported() -> Iterator[str]:
    """The export of :func:`played_event`; Tiny Duel stays registered while it is checked."""
    with tiny_events() as ev:
        eid = played_event(ev)
        yield ev.export(eid)


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def text_of(rows: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(r, sort_keys=True) for r in rows) + "\n"


def resealed(rows: list[dict[str, Any]], signer: Signer) -> list[dict[str, Any]]:
    """The rows with every event record re-chained and re-signed by ``signer``."""
    prev = "0" * 64
    out = []
    for row in rows:
        if "record" in row:
            r = Record.from_json(row["record"])
            r = replace(r, prev=prev).sealed_with(signer.sign)
            prev = r.hash
            row = {"record": r.to_json()}
        out.append(row)
    return out


def event_records(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r["record"] for r in rows if "record" in r]


def test_an_exported_event_verifies_offline(exported: str) -> None:
    v = verify_event_export(exported)
    assert v.ok, v.problem
    assert v.games == 7 and v.players == 8 and v.rounds == 2  # round 2: 7 players, a bye
    assert "pairings and standings recomputed" in v.message()


def test_the_export_holds_a_header_the_records_each_game_and_the_standings(exported: str) -> None:
    rows = lines(exported)
    assert rows[0]["format"] == "hz-event/1"
    kinds = [next(iter(r)) for r in rows[1:]]
    assert kinds == sorted(kinds, key=["record", "game", "standings"].index)
    assert rows[-1]["standings"][0]["rank"] == 1
    game = next(r for r in rows if "game" in r)
    assert json.loads(game["log"].splitlines()[0])["format"] == "hz-log/2"


def test_a_result_changed_and_resigned_with_another_key_is_refused(exported: str) -> None:
    rows = lines(exported)
    rec = next(r for r in event_records(rows) if r["kind"] == "result")
    rec["body"]["winner"] = None
    v = verify_event_export(text_of(resealed(rows, Signer.from_seed("mallory"))))
    assert not v.ok and "signature" in v.problem and "event record 0" in v.problem


def test_a_result_edited_without_resigning_is_refused_at_its_record(exported: str) -> None:
    rows = lines(exported)
    rec = next(r for r in event_records(rows) if r["kind"] == "result")
    rec["body"]["winner"] = None
    v = verify_event_export(text_of(rows))
    assert not v.ok and f"event record {rec['seq']}" in v.problem and "edited" in v.problem


def test_a_referee_result_whose_winner_is_not_the_games_is_refused_even_resigned() -> None:
    with tiny_events() as ev:
        eid = new_event(ev, 2)
        ev.pair_next(eid)
        ev.start_round(eid)
        link = ev.seat_link(eid, "p1")
        assert link is not None
        play_out(ev.referee, link.game, link.seat)
        ev.sync(eid)
        rows = lines(ev.export(eid))
        assert verify_event_export(text_of(rows)).ok
        refused_with_another_winner(rows)


def refused_with_another_winner(rows: list[dict[str, Any]]) -> None:
    rec = next(r for r in event_records(rows) if r["kind"] == "result")
    assert rec["body"]["source"] == "referee"
    tables = next(r for r in event_records(rows) if r["kind"] == "pair")["body"]["tables"]
    table = next(t for t in tables if t["table"] == rec["body"]["table"])
    loser = table["second"] if rec["body"]["winner"] == table["first"] else table["first"]
    rec["body"]["winner"] = loser
    v = verify_event_export(text_of(resealed(rows, SIGNER)))
    assert not v.ok and "the event's result names the" in v.problem
    assert "the game's winner is the" in v.problem


def test_a_pairing_edited_even_with_the_servers_key_is_refused_by_the_recomputation(
    exported: str,
) -> None:
    rows = lines(exported)
    pair = next(r for r in event_records(rows) if r["kind"] == "pair")
    t0, t1 = pair["body"]["tables"][:2]
    t0["second"], t1["second"] = t1["second"], t0["second"]
    v = verify_event_export(text_of(resealed(rows, SIGNER)))
    assert not v.ok
    assert f"event record {pair['seq']}" in v.problem and "not the one computed" in v.problem


def test_a_games_record_edited_is_refused_naming_the_game(exported: str) -> None:
    rows = lines(exported)
    game = next(r for r in rows if "game" in r)
    log = game["log"].splitlines()
    rec = json.loads(log[1])
    rec["time"] = "2020-01-01T00:00:00+00:00"
    log[1] = json.dumps(rec, sort_keys=True)
    game["log"] = "\n".join(log) + "\n"
    v = verify_event_export(text_of(rows))
    assert not v.ok and v.problem.startswith(f"game {game['game']}:") and "edited" in v.problem


def test_a_game_removed_is_refused_naming_it(exported: str) -> None:
    rows = lines(exported)
    game = next(r for r in rows if "game" in r)
    v = verify_event_export(text_of([r for r in rows if r is not game]))
    assert not v.ok and f"game {game['game']} of the event is not in the file" in v.problem


def test_a_game_cut_short_of_its_results_head_is_refused(exported: str) -> None:
    rows = lines(exported)
    game = next(r for r in rows if "game" in r)
    game["log"] = "\n".join(game["log"].splitlines()[:-1]) + "\n"
    v = verify_event_export(text_of(rows))
    assert not v.ok and "final head" in v.problem


def test_standings_edited_are_refused_naming_the_row(exported: str) -> None:
    rows = lines(exported)
    st = rows[-1]["standings"]
    st[0]["player"], st[1]["player"] = st[1]["player"], st[0]["player"]
    v = verify_event_export(text_of(rows))
    assert not v.ok and v.problem.startswith("standings: row 1")


def test_a_file_without_its_standings_is_refused(exported: str) -> None:
    v = verify_event_export(text_of(lines(exported)[:-1]))
    assert not v.ok and "no standings" in v.problem


# ---- the commands ----------------------------------------------------------------------------


def test_simulate_then_export_and_verify_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "e.sqlite3"
    out = tmp_path / "e.jsonl"
    assert main(["event", "simulate", "--players", "9", "--seed", "t1", "--db", str(db)]) == 0
    said = capsys.readouterr().out
    assert "9 players, 4 rounds" in said and f"database: {db}" in said
    assert main(["event", "list", "--db", str(db)]) == 0
    eid = capsys.readouterr().out.split()[0]
    assert main(["event", "export", eid, "--db", str(db), "--out", str(out)]) == 0
    assert main(["event", "verify", str(out)]) == 0
    assert "intact" in capsys.readouterr().out
    rows = lines(out.read_text())
    rows[-1]["standings"][0]["points"] += 3
    out.write_text(text_of(rows))
    assert main(["event", "verify", str(out)]) == 1
    assert "NOT intact: standings: row 1" in capsys.readouterr().out
    assert main(["games", "--db", str(db)]) == 0
    assert "event." not in capsys.readouterr().out


def test_verify_of_a_file_that_cannot_be_read_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["event", "verify", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
