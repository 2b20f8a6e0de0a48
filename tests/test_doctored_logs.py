"""A doctored log gets one line and a non-zero exit, never a traceback (issue 12, finding 7).

``referee replay``, ``verify`` and ``import`` are given a judge's export doctored in many ways:
cut short, reordered, lines that are not JSON, fields missing, of the wrong type or unknown,
unknown kinds, wrong hashes and chains, bad signatures, huge numbers. Each says what is wrong
on one line (naming the record where there is one) and exits non-zero.

Two kinds of doctoring: a log edited by hand (its signatures no longer verify; the commands are
given the head from the score sheet, so a log cut short is caught too), and a log rewritten
and re-signed with a key of the forger's own, whose corrections and actions carry bodies no
referee writes (the signatures verify; the replay must stop at the record).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from service_helpers import SIGNER, make_referee
from test_log_trust import played

from referee.keys import Signer
from referee.log import GENESIS, Header, Record, get_path
from web.cli import main

Line = dict[str, Any]
FORGER = Signer.from_seed("forger")


UNDO = 17  # the judge's undo in test_log_trust.played (the draw after event 15)


@pytest.fixture(scope="module")
def judge_log() -> tuple[Line, list[Line], str]:
    """The judge's export of a played game (actions, a challenge, an undo), and its head."""
    ref = make_referee()
    g = played(ref)
    rows = [json.loads(x) for x in ref.export(g, "judge").splitlines()]
    h = ref.head(g)
    return rows[0], rows[1:], f"{h['seq']}:{h['hash']}"


def dump(head: Line | None, rows: list[Any]) -> str:
    lines = ([head] if head is not None else []) + rows
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines)


# ---- edited by hand -------------------------------------------------------------------------

Edit = Callable[[Line, list[Line]], str]


def _rows(fn: Callable[[list[Line]], object]) -> Edit:
    def edit(head: Line, rows: list[Line]) -> str:
        rows = copy.deepcopy(rows)
        fn(rows)
        return dump(head, rows)

    return edit


def _field(i: int, key: str, value: Any) -> Edit:
    def set_(rows: list[Line]) -> None:
        rows[i][key] = value

    return _rows(set_)


def _drop_field(i: int, key: str) -> Edit:
    return _rows(lambda rows: rows[i].pop(key))


def _body(i: int, **kw: Any) -> Edit:
    return _rows(lambda rows: rows[i]["body"].update(kw))


def _swap(i: int) -> Edit:
    def swap(rows: list[Line]) -> None:
        rows[i], rows[i + 1] = rows[i + 1], rows[i]

    return _rows(swap)


def _text(fn: Callable[[str], str]) -> Edit:
    return lambda head, rows: fn(dump(head, rows))


def _header(**kw: Any) -> Edit:
    return lambda head, rows: dump({**head, **kw}, rows)


BY_HAND: dict[str, Edit] = {
    "tail cut": _rows(lambda rows: rows.__delitem__(slice(-3, None))),
    "last record cut": _rows(lambda rows: rows.pop()),
    "first record cut": _rows(lambda rows: rows.pop(0)),
    "a record deleted": _rows(lambda rows: rows.pop(7)),
    "a record doubled": _rows(lambda rows: rows.insert(7, rows[7])),
    "two records swapped": _swap(6),
    "truncated mid-line": _text(lambda t: t[: len(t) - 200]),
    "a line that is not JSON": _text(lambda t: t.replace("\n", "\n{not json\n", 3)),
    "a trailing comma": _text(lambda t: t.replace("}\n", "},\n", 4)),
    "a NUL byte": _text(lambda t: t.replace('"draw"', '"dr\\u0000aw"', 1)),
    "duplicate keys": _text(lambda t: t.replace('{"body"', '{"body": {}, "body"', 2)),
    "an array for a record": _text(lambda t: t + "[1, 2, 3]\n"),
    "deep nesting": _text(lambda t: t + "[" * 5000 + "]" * 5000 + "\n"),
    "seq as text": _field(5, "seq", "5"),
    "seq huge": _field(5, "seq", 10**30),
    "seq negative": _field(5, "seq", -1),
    "seq a float": _field(5, "seq", 5.0),
    "seq with 5000 digits": _text(lambda t: t.replace('"seq": 5,', '"seq": ' + "9" * 5000 + ",")),
    "a number too large for a float": _text(lambda t: t.replace('"seq": 5,', '"seq": 1e999,')),
    "body a list": _field(5, "body", [1, 2]),
    "events an object": _field(5, "events", {"kind": "drawn"}),
    "sealed not a list": _field(6, "sealed", "body.action.card"),
    "a missing field": _drop_field(5, "prev"),
    "a missing hash": _drop_field(5, "hash"),
    "an unknown field": _field(5, "extra", 1),
    "an unknown kind": _field(5, "kind", "teleport"),
    "a wrong hash": _field(5, "hash", "0" * 64),
    "a short hash": _field(5, "hash", "abc"),
    "a wrong prev": _field(5, "prev", "f" * 64),
    "a signature removed": _field(5, "sig", ""),
    "a signature of garbage": _field(5, "sig", "!!not base64!!"),
    "another record's signature": _rows(lambda rows: rows[5].update(sig=rows[6]["sig"])),
    "a record of another game": _field(5, "game", "other"),
    "a drawn card changed": _body(6, action={"do": "draw", "card": "Nemesis"}),
    "undo to text": _body(UNDO, to="x"),
    "undo to a later event": _body(UNDO, to=10**9),
    "an undo's reason a number": _body(UNDO, reason=5),
    "a nonce changed": _field(5, "nonce", "0" * 32),
    "a header of another format": _header(format="hz-log/1"),
    "a header with another fingerprint": _header(fingerprint="0000-0000-0000-0000"),
    "a header with another key": _header(
        public_key=FORGER.public_b64, fingerprint=FORGER.fingerprint
    ),
    "a header for no seat": _header(seat="nobody"),
    "no header": lambda head, rows: dump(None, rows),
    "only the header": lambda head, rows: dump(head, []),
    "an empty file": lambda head, rows: "",
    "blank lines only": lambda head, rows: "\n\n\n",
}


# ---- rewritten and re-signed by a forger ----------------------------------------------------


def _exists(raw: Line, path: str) -> bool:
    try:
        get_path(raw, path)
    except KeyError:
        return False
    return True


def resigned(head: Line, rows: list[Line]) -> str:
    """``rows`` chained, hashed and signed again with the forger's key, under his header."""
    out: list[Line] = []
    prev = GENESIS
    for raw in copy.deepcopy(rows):
        raw["prev"] = prev
        raw["sealed"] = [p for p in raw["sealed"] if _exists(raw, p)]
        r = Record.from_json(raw).sealed_with(FORGER.sign)
        out.append(r.to_json())
        prev = r.hash
    h = Header(head["game"], "judge", FORGER.public_b64, FORGER.fingerprint).to_json()
    return dump(h, out)


def _appended(kind: str, body: Any) -> Callable[[list[Line]], None]:
    def add(rows: list[Line]) -> None:
        last = rows[-1]
        rows.append({**copy.deepcopy(last), "seq": last["seq"] + 1, "kind": kind, "body": body})
        rows[-1]["sealed"] = []

    return add


def _in(i: int, **kw: Any) -> Callable[[list[Line]], None]:
    return lambda rows: rows[i]["body"].update(kw)


RESIGNED: dict[str, Callable[[list[Line]], None]] = {
    "undo to text": _in(UNDO, to="x"),
    "undo to null": _in(UNDO, to=None),
    "undo to true": _in(UNDO, to=True),
    "undo to a list": _in(UNDO, to=[3]),
    "undo to a huge number": _in(UNDO, to=10**30),
    "undo to a negative event": _in(UNDO, to=-5),
    "undo to a later event": _in(UNDO, to=UNDO + 1),
    "undo with no event": lambda rows: rows[UNDO]["body"].pop("to"),
    "amend with an action as text": _appended("amend", {"event": 15, "action": "play"}),
    "amend with a null action": _appended("amend", {"event": 15, "action": None}),
    "amend with no action": _appended("amend", {"event": 15, "reason": "x"}),
    "amend with a card of the wrong type": _appended(
        "amend", {"event": 15, "action": {"do": "play", "card": 5, "column": 2}}
    ),
    "amend with a huge column": _appended(
        "amend", {"event": 15, "action": {"do": "play", "card": "Medusa", "column": 10**40}}
    ),
    "amend with an unknown action": _appended("amend", {"event": 15, "action": {"do": "teleport"}}),
    "amend of event text": _appended("amend", {"event": "15", "action": {"do": "end_turn"}}),
    "amend of the create record": _appended("amend", {"event": 0, "action": {"do": "end_turn"}}),
    "amend of a later event": _appended("amend", {"event": 99, "action": {"do": "end_turn"}}),
    "an unknown kind": _appended("teleport", {}),
    "an action as text": _in(6, action="draw"),
    "an action with a list for a card": _in(6, action={"do": "draw", "card": ["x"]}),
    "an action with no do": _in(6, action={"card": "Pythia"}),
    "an illegal action": _in(9, action={"do": "play", "card": "Zeus", "column": 9}),
    "a create of an unknown game": _in(0, game=7),
    "a create with an unknown profile": _in(0, profile=None),
    "a create with switches as a list": _in(0, switches=[1]),
    "a create under other rules": _in(0, rules="hz-engine/0+0000000000000000"),
    "an observation of card 5": _appended(
        "observation", {"player": "hera", "card": 5, "identifies": True}
    ),
}


# ---- the commands ---------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def commands(path: Path, db: Path, *, head: str | None, key: str | None) -> dict[str, list[str]]:
    at = ["--head", head] if head else []
    trust = ["--trust-key", key] if key else []
    return {
        "replay": ["replay", *at, str(path)],
        "replay --json": ["replay", "--json", *at, str(path)],
        "verify": ["verify", *at, str(path)],
        "import": ["import", "--db", str(db), *trust, *(at or ["--yes"]), str(path)],
    }


def one_line_and_refused(
    name: str, capsys: pytest.CaptureFixture[str], argv: list[str], *, verify_output: bool
) -> None:
    try:
        rc, out, err = run(capsys, argv)
    except BaseException as e:  # pragma: no cover - the failure is reported below
        raise AssertionError(f"{name}: {argv[0]} raised {type(e).__name__}: {e}") from e
    said = (out + err) if verify_output else err
    assert "Traceback" not in out + err, (name, argv[0], err)
    assert rc != 0, (name, argv[0], out, err)
    assert len(said.strip().splitlines()) == 1, (name, argv[0], said)
    if not verify_output:
        assert out == "", (name, argv[0], out)
    assert said.strip().startswith(("referee: ", f"{argv[-1]}: NOT")), (name, said)


@pytest.mark.parametrize("name", sorted(BY_HAND))
def test_a_log_edited_by_hand_is_one_line_and_refused_by_every_command(
    name: str,
    judge_log: tuple[Line, list[Line], str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    head, rows, at = judge_log
    path = tmp_path / "doctored.jsonl"
    path.write_text(BY_HAND[name](head, rows), "utf-8")
    db = tmp_path / "db.sqlite3"
    for cmd, argv in commands(path, db, head=at, key=SIGNER.fingerprint).items():
        one_line_and_refused(name, capsys, argv, verify_output=cmd == "verify")
    assert not db.exists() or "doctored" not in str(list(tmp_path.iterdir()))


@pytest.mark.parametrize("name", sorted(RESIGNED))
def test_a_log_resigned_with_bodies_no_referee_writes_stops_at_the_record(
    name: str,
    judge_log: tuple[Line, list[Line], str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    head, rows = judge_log[0], copy.deepcopy(judge_log[1])
    RESIGNED[name](rows)
    path = tmp_path / "forged.jsonl"
    path.write_text(resigned(head, rows), "utf-8")
    db = tmp_path / "db.sqlite3"
    argvs = commands(path, db, head=None, key=FORGER.fingerprint)
    for cmd in ("replay", "replay --json", "import"):
        one_line_and_refused(name, capsys, argvs[cmd], verify_output=False)
    _, _, err = run(capsys, argvs["replay"])
    assert "event " in err or "record " in err or "rules" in err, err  # names where
    # against the real server's key, each is refused before anything is replayed
    rc, _, err = run(capsys, ["replay", "--key", SIGNER.fingerprint, str(path)])
    assert rc == 2 and "signed by key" in err and len(err.splitlines()) == 1


def test_an_undoctored_log_replays_verifies_and_imports(
    judge_log: tuple[Line, list[Line], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control: the same commands on the log as the server wrote it all succeed."""
    head, rows, at = judge_log
    path = tmp_path / "game.jsonl"
    path.write_text(dump(head, rows), "utf-8")
    for cmd, argv in commands(
        path, tmp_path / "db.sqlite3", head=at, key=SIGNER.fingerprint
    ).items():
        rc, _, err = run(capsys, argv)
        assert rc == 0 and not err, (cmd, err)
    path.write_text(resigned(head, rows), "utf-8")  # re-signed unchanged: a valid log
    rc, _, err = run(capsys, ["replay", str(path)])
    assert rc == 0 and not err
