"""`referee rule [--json] FILE`: exit 0 with a ruling; exit 2 with one line on stderr for bad
input, never a traceback (POSITIONS.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from helpers import position

from web.cli import main

RESULT_KEYS = {"legal", "failed_at", "winner", "reason", "rules", "ruling", "position"}


def write(tmp_path: Path, raw: Any, name: str = "case.json") -> Path:
    path = tmp_path / name
    path.write_text(raw if isinstance(raw, str) else json.dumps(raw), "utf-8")
    return path


def rule_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["rule", "--json", str(path)]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    result: dict[str, Any] = json.loads(out.out)
    return result


def test_rule_on_a_shipped_example_reads_aloud(
    examples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rule", str(examples_dir / "medusa-and-the-figure.json")]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    assert out.out.startswith("Ruling under the rio-grande profile: NOT LEGAL at action 2")
    assert "D11" in out.out


def test_rule_json_on_a_shipped_example_prints_the_result_object(
    examples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = rule_json(examples_dir / "medusa-and-the-figure.json", capsys)
    assert set(result) >= RESULT_KEYS
    assert (result["legal"], result["failed_at"], result["winner"]) == (False, 1, None)
    assert result["rules"] == ["D11"]
    # the position before the refused action: Hera's Hydra fell to Medusa
    assert result["position"]["hera"]["field"][0] == []
    assert result["position"]["zeus"]["field"][0] == ["^Medusa", "Cyclops"]


def test_rule_json_pegasus_against_pandora_costs_zeus_his_own_hostage(
    examples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = rule_json(examples_dir / "pegasus-against-pandora.json", capsys)
    assert (result["legal"], result["winner"], result["reason"]) == (
        True,
        "hera",
        "pandora_own_hostage",
    )
    assert {"D5", "D1"} <= set(result["rules"])
    assert isinstance(result["ruling"], str) and "Hera wins" in result["ruling"]


def test_rule_json_names_the_other_profiles_when_they_rule_differently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = position(
        catalogue={"Pythia": 4},
        zeus_field=[["Centaur"], ["Pythia"], ["Giant"]],
        hera_field=[["Furies"], ["Pegasus"], ["Harpy"]],
    ) | {"actions": [{"do": "challenge", "column": 2}]}
    result = rule_json(write(tmp_path, raw), capsys)
    assert result["position"]["hera"]["field"][1] == []
    assert "translations" in result["others"]
    assert "translations" in result["ruling"]


def test_rule_reads_from_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    raw = position() | {"actions": [{"do": "draw"}]}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(raw)))
    assert main(["rule", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["position"]["turn"]["used"] == 1


def bad(**changes: Any) -> dict[str, Any]:
    raw = position() | {"actions": [{"do": "draw"}]}
    for key, value in changes.items():
        where = raw
        *path, last = key.split("__")
        for k in path:
            where = where[k]
        where[last] = value
    return raw


MALFORMED: dict[str, Any] = {
    "not-json": "{ this is not json",
    "not-an-object": "[1, 2, 3]",
    "unknown-key": bad(verdict="guilty"),
    "unknown-card": bad(hera__hand=["Minotaur"]),
    "unknown-profile": bad(profile="hellenic"),
    "unknown-switch": bad(switches={"medusa_scope": "both"}),
    "two-columns": bad(hera__field=[["Furies"], ["Hydra"]]),
    "five-entries": bad(zeus__field=[["Giant"] * 5, [], []]),
    "two-figures": bad(hera__field=[["@"], ["@", "Hydra"], []]),
    "hand-over-12": bad(hera__hand=["Furies"] * 13),
    "negative-deck": bad(zeus__deck=-3),
    "used-over-ap": bad(turn={"player": "hera", "ap": 2, "used": 3}),
    "bad-action": bad(actions=[{"do": "fly"}]),
    "bad-column": bad(actions=[{"do": "challenge", "column": 7}]),
    "needs-reveal": bad(hera__field=[["?"], [], []], actions=[{"do": "challenge", "column": 1}]),
    "needs-pick": bad(
        hera__hand=["Pegasus"],
        zeus__hand=["?"],
        actions=[{"do": "pegasus", "target": "hand", "pick": "?"}],
    ),
    "unknown-action-name": bad(actions=[{"do": "play", "card": "Minotaur", "column": 1}]),
    "unknown-name-in-an-action-never-reached": bad(
        actions=[{"do": "hades", "card": "Cerberus", "by": "zeus"}]
    ),
    "ap-over-4": bad(turn={"player": "hera", "ap": 5}),
    "deck-over-43": bad(hera__deck=44),
}

# Inputs built to exhaust time or memory (POSITIONS.md: the answer comes within a second, in
# bounded memory), as text so that nothing here is parsed before the referee sees it.
_OK = json.dumps(position() | {"actions": [{"do": "draw"}]})
HOSTILE: dict[str, str] = {
    "deep-nesting": _OK[:-1] + ', "note": ' + "[" * 200_000 + "]" * 200_000 + "}",
    "deep-objects": _OK[:-1] + ', "note": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}",
    "deck-2^31": _OK.replace('"deck": 20', f'"deck": {2**31}', 1),
    "deck-2^63": _OK.replace('"deck": 20', f'"deck": {2**63}', 1),
    "int-of-4301-digits": _OK.replace('"deck": 20', '"deck": ' + "7" * 4301, 1),
    "int-of-a-million-digits": _OK[:-1] + ', "note": ' + "7" * 900_000 + "}",
    "megabytes-of-text": _OK[:-1] + ', "note": "' + "x" * 3_000_000 + '"}',
    "megabytes-of-spaces": " " * 5_000_000 + _OK,
    "duplicate-key": _OK[:-1] + ', "turn": {"player": "zeus"}}',
    "nan": _OK.replace('"deck": 20', '"deck": NaN', 1),
    "infinity": _OK.replace('"deck": 20', '"deck": 1e999', 1),
    "lone-surrogate": _OK[:-1] + ', "note": "\\ud800"}',
    "too-many-actions": json.dumps(position() | {"actions": [{"do": "end_turn"}] * 1001}),
}


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_malformed_input_exits_2_with_one_line_on_stderr(
    raw: Any, as_json: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, raw)
    argv = ["rule", "--json", str(path)] if as_json else ["rule", str(path)]
    assert main(argv) == 2
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.splitlines()
    assert len(lines) == 1, out.err
    assert lines[0].startswith("referee: ")
    assert str(path) in lines[0]
    assert "Traceback" not in out.err


def test_needs_input_names_the_action_and_what_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, MALFORMED["needs-reveal"])
    assert main(["rule", str(path)]) == 2
    assert "actions[0].reveal.attacker" in capsys.readouterr().err


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", str(tmp_path / "nowhere.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee: ") and len(err.splitlines()) == 1


def test_an_illegal_action_is_a_ruling_not_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = position(hera_deck=0) | {"actions": [{"do": "draw"}, {"do": "end_turn"}]}
    result = rule_json(write(tmp_path, raw), capsys)
    assert (result["legal"], result["failed_at"]) == (False, 0)
    assert result["rules"] == ["D18"]
    assert result["position"]["turn"]["used"] == 0  # nothing of the refused action applied


def test_actions_after_the_game_ended_are_not_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = position(zeus_field=[["Centaur"], ["Argus"], ["Giant"]]) | {
        "actions": [{"do": "challenge", "column": 2}, {"do": "draw"}, {"do": "fly"}]
    }
    # the file is still read as a whole: a malformed later action is malformed input
    assert main(["rule", "--json", str(write(tmp_path, raw))]) == 2
    capsys.readouterr()
    raw["actions"] = [{"do": "challenge", "column": 2}, {"do": "draw"}]
    result = rule_json(write(tmp_path, raw, "ok.json"), capsys)
    assert (result["legal"], result["winner"], result["reason"]) == (
        True,
        "hera",
        "hostage_challenged",
    )
    assert result["position"]["turn"]["used"] == 1


@pytest.mark.process
def test_the_installed_command_never_shows_a_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, MALFORMED["two-figures"])
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from web.cli import main; sys.exit(main())",
            "rule",
            "--json",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.splitlines()) == 1
    assert run.stderr.startswith("referee: ") and "Traceback" not in run.stderr


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_input_is_refused_in_one_line_in_bounded_memory(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, text)
    code = main(["rule", "--json", str(path)])  # how fast: timed by hand, not asserted here
    out = capsys.readouterr()
    assert code == 2
    assert out.out == ""
    lines = out.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"referee: {path}: "), out.err[:300]
    assert len(lines[0]) <= 500
    tracemalloc.start()  # again, measuring memory (tracing slows every allocation down)
    try:
        assert main(["rule", "--json", str(path)]) == 2
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    capsys.readouterr()
    assert peak < 40_000_000, f"{peak:,} bytes"


def test_hostile_input_on_stdin_is_refused_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"[" * 3_000_000)))
    assert main(["rule", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee: -: too large: more than 1,000,000 bytes")


def test_an_oversized_file_names_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rule", str(write(tmp_path, HOSTILE["megabytes-of-text"]))]) == 2
    assert "too large: more than 1,000,000 bytes" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "phrase"),
    [
        ("deep-nesting", "nested more than 16 levels deep"),
        ("deck-2^63", "hera.deck: a deck cannot hold 9223372036854775808 cards (0 to 43)"),
        ("int-of-4301-digits", "an integer of 4301 digits"),
        ("duplicate-key", "duplicate key 'turn'"),
        ("nan", "NaN is not a JSON number"),
        ("lone-surrogate", "lone surrogate"),
        ("too-many-actions", "at most 1000"),
    ],
)
def test_hostile_input_says_what_is_wrong(
    name: str, phrase: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rule", str(write(tmp_path, HOSTILE[name]))]) == 2
    assert phrase in capsys.readouterr().err


def test_a_file_that_is_not_utf8_or_a_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"note": "caf\xe9"}')
    assert main(["rule", str(path)]) == 2
    assert capsys.readouterr().err == f"referee: {path}: not UTF-8 text\n"
    assert main(["rule", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"referee: {tmp_path}: cannot read") and len(err.splitlines()) == 1


def test_a_file_name_with_a_line_break_still_gives_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "{ not json", "two\nlines.json")
    assert main(["rule", str(path)]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_a_long_legal_file_is_ruled_quickly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two Hades pass each other back and forth: every action is legal, none ends the game, and
    # with empty decks D8 must look at the other actions after each one.
    turn = [{"do": "hades", "card": "Hades"}] * 3 + [{"do": "end_turn"}]
    raw = position(
        hera_hand=["Hades", "Pegasus", "Pythia", "Dionysus", "Hydra", "Harpy", "Amazon"],
        hera_deck=0,
        hera_discard=["Hades"],
        zeus_hand=["Hades", "Pegasus", "Pythia", "Dionysus", "Cyclops", "Giant", "Hero"],
        zeus_deck=0,
        zeus_discard=["Hades"],
    ) | {"actions": (turn * 250)[:1000]}
    result = rule_json(write(tmp_path, raw), capsys)
    assert (result["legal"], result["winner"]) == (True, None)


def test_a_dionysus_that_does_not_move_the_card_cites_d16(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = position(hera_hand=["Dionysus"], hera_field=[["Furies", "Hydra"], [], []]) | {
        "actions": [{"do": "dionysus", "from": [1, 2], "to": [1, 2]}]
    }
    result = rule_json(write(tmp_path, raw), capsys)
    assert (result["legal"], result["failed_at"]) == (False, 0)
    assert result["rules"] == ["D16", "HZ-P1"]
    assert "[D16, HZ-P1]" in result["ruling"]
