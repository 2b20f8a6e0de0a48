"""Every Minotaur Lords ruling file in tests/data/minotaur/rulings, through ``referee rule``:
each carries its own card list, a position, actions and what the ruling must say (M1-M18)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.herazeus.errors import NotationError
from engine.minotaur.notation import rule_file
from engine.minotaur.state import Stage
from web.cli import main

RULINGS = Path(__file__).resolve().parent / "data" / "minotaur" / "rulings"
FILES = sorted(RULINGS.glob("*.json"))


def _rule(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = main(["rule", "--json", str(path)])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def _check(expect: dict[str, Any], result: dict[str, Any]) -> None:
    pos = result["position"]
    for key in ("legal", "failed_at", "winner", "reason"):
        if key in expect:
            assert result[key] == expect[key], (key, result["ruling"])
    for r in expect.get("rules_include", []):
        assert r in result["rules"], (r, result["rules"], result["ruling"])
    if "markers" in expect:
        assert pos["markers"] == expect["markers"], result["supremacy"]
    for p, cards in expect.get("hand", {}).items():
        assert Counter(pos[p]["hand"]) == Counter(cards), pos[p]["hand"]
    for p, cards in expect.get("discard", {}).items():
        assert pos[p]["discard"] == cards
    for p, n in expect.get("deck", {}).items():
        deck = pos[p]["deck"]
        assert (deck if isinstance(deck, int) else len(deck)) == n
    for p, cols in expect.get("columns", {}).items():
        for col, cards in cols.items():
            assert pos[p]["columns"].get(col, []) == cards, (p, col)
    for p, cards in expect.get("deities", {}).items():
        assert pos[p]["deities"] == cards
    for k, v in expect.get("turn", {}).items():
        assert pos["turn"].get(k) == v, (k, pos["turn"])
    checks = {c["column"]: [c["miron"], c["vess"]] for c in result["supremacy"]}
    for col, totals in expect.get("supremacy", {}).items():
        assert checks[col] == totals, col
    for k, v in expect.get("over", {}).items():
        assert pos.get("over", {}).get(k) == v
    if "bonus" in expect:
        assert Counter(pos.get("bonus", [])) == Counter(expect["bonus"])


def test_there_are_at_least_forty_rulings_covering_every_m_number() -> None:
    assert len(FILES) >= 40
    cited = set()
    for f in FILES:
        raw = json.loads(f.read_text())
        cited |= {s.strip() for s in raw["source"].split(",")}
    assert {f"M{i}" for i in range(1, 19)} <= cited


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_ruling_file(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = json.loads(path.read_text())
    expect = raw["expect"]
    code, result, err = _rule(path, capsys)
    if "error" in expect:
        assert code == 2 and expect["error"] in err and "Traceback" not in err, err
        assert err.count("\n") == 1
        return
    assert code == 0, err
    _check(expect, result)
    assert result["rules"] and all(r.startswith(("M", "ML-P")) for r in result["rules"])
    assert set(result["citations"]) == {r for r in result["rules"]}


BASE = json.loads(FILES[0].read_text())


def _with(**changes: Any) -> dict[str, Any]:
    raw = {k: v for k, v in BASE.items() if k != "expect"}
    raw.update(changes)
    return raw


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ({"game": "minotaur"}, "cards: missing"),
        (_with(turn={"player": "zeus"}), "turn.player"),
        (_with(turn={"player": "miron", "phase": "3"}), "turn.phase"),
        (_with(markers={"upper-navy": "miron"}), "markers"),
        (
            _with(actions=[{"do": "play", "card": "Zed", "column": "upper-military"}]),
            "actions[0].card",
        ),
        (_with(actions=[{"do": "play", "card": "Guard", "column": "left"}]), "actions[0].column"),
        (_with(actions=[{"do": "fly"}]), "actions[0].do"),
        (_with(miron={"hand": ["Guard"], "deck": -1}), "miron.deck"),
        (
            _with(miron={"columns": {"upper-military": ["Guard*x"]}}),
            "miron.columns.upper-military[0]",
        ),
        (_with(colour="red"), "unknown key 'colour'"),
        (_with(turn={"player": "miron", "phase": [1]}), "turn.phase"),
        (_with(turn={"player": "miron", "taken": [[1]]}), "turn.taken"),
        (_with(turn={"player": "miron", "exercised": [{}]}), "turn.exercised"),
        (_with(actions=[{"do": "pass", "to": [2]}]), "actions[0].to"),
        (
            _with(
                miron={
                    "columns": {
                        "upper-military": [
                            {
                                "card": "Guard",
                                "boosts": [
                                    {"from": "Guard", "side": "miron", "at": [1], "delta": 1}
                                ],
                            }
                        ]
                    }
                }
            ),
            "boosts[0].at",
        ),
    ],
)
def test_a_malformed_file_exits_2_naming_the_input(
    raw: dict[str, Any], names: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    code, _, err = _rule(path, capsys)
    assert code == 2 and names in err and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_deep_nesting_and_huge_numbers_are_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"game": "minotaur", "cards": ' + "[" * 5000 + "]" * 5000 + "}")
    assert _rule(path, capsys)[0] == 2
    path.write_text(json.dumps(_with(miron={"deck": 10**400})))
    assert _rule(path, capsys)[0] == 2


# ---- the unnamed side is the actor's (M1, M12; issue 31 item 14) ------------------------------


def _after_mirons_turn(vess: dict[str, Any], actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Miron ends his turn; then Vess acts (no action names a side or ``by``)."""
    return rule_file(
        _with(
            turn={"player": "miron", "phase": "supremacy", "left_hand": True},
            miron={"hand": ["Guard"], "deck": 5, "columns": {"upper-economic": ["Trader"]}},
            vess=vess,
            actions=[{"do": "end_turn"}, *actions],
        )
    )


def test_every_operation_without_a_side_is_the_actors_after_end_turn() -> None:
    vess = {
        "hand": ["Seer", "Acolyte"],
        "deck": ["Shrine", "General"],
        "columns": {"upper-economic": ["Scribe"], "upper-military": ["Spearman"]},
        "deities": ["Moon God"],
    }
    ops: list[dict[str, Any]] = [
        {"op": "draw", "count": 1},
        {"op": "move", "card": "Acolyte", "from": {"zone": "hand"}, "to": {"zone": "discard"}},
        {"op": "curse", "card": "Spearman", "zone": "upper-military"},
        {"op": "cure", "card": "Spearman", "zone": "upper-military"},
        {"op": "strength", "card": "Scribe", "zone": "upper-economic", "delta": 1},
    ]
    out = _after_mirons_turn(
        vess, [{"do": "effect", "card": "Moon God", "column": "centre", "ops": ops}]
    )
    assert out["legal"], out["ruling"]
    pos = out["position"]
    assert Counter(pos["vess"]["hand"]) == Counter(["Seer", "Shrine"])
    assert pos["vess"]["discard"] == ["(Acolyte)"]
    assert pos["miron"]["hand"] == ["Guard"] and pos["miron"]["deck"] == 5
    checks = {c["column"]: (c["miron"], c["vess"]) for c in out["supremacy"]}
    assert checks["upper-economic"] == (2, 3) and checks["upper-military"] == (0, 2)


def test_a_cure_without_a_side_is_of_the_actors_own_card_after_end_turn() -> None:
    out = _after_mirons_turn(
        {"hand": ["Scribe"], "deck": 5, "columns": {"upper-religious": ["Shrine*2"]}},
        [{"do": "pass", "to": "2"}, {"do": "cure", "card": "Shrine", "column": "upper-religious"}],
    )
    assert out["legal"], out["ruling"]
    assert out["position"]["vess"]["columns"]["upper-religious"] == ["Shrine*1"]
    assert "Vess cures his own Shrine" in out["ruling"]


def test_the_first_players_unnamed_side_stays_his_own() -> None:
    out = rule_file(
        _with(
            turn={"player": "miron", "phase": "0"},
            miron={"hand": [], "deck": 5, "columns": {"upper-economic": ["Trader"]}},
            vess={"hand": [], "deck": 5},
            actions=[
                {
                    "do": "effect",
                    "card": "Trader",
                    "column": "upper-economic",
                    "ops": [{"op": "draw", "count": 2}],
                },
            ],
        )
    )
    assert out["legal"] and len(out["position"]["miron"]["hand"]) == 2
    assert out["position"]["vess"]["deck"] == 5


# ---- a building's text does not act as it enters (M7, M10; issue 31 item 15) -----------------

BEACON = {
    "name": "Beacon",
    "deck": "miron",
    "strength": 3,
    "phase": 1,
    "icons": ["military"],
    "type": "building",
    "text": "active",
}


def _beacon(actions: list[dict[str, Any]], **side: Any) -> dict[str, Any]:
    return rule_file(
        _with(
            cards=[*BASE["cards"], BEACON],
            turn={"player": "miron", "phase": "1"},
            miron={"hand": ["Beacon"], "deck": 5, **side},
            vess={"hand": [], "deck": 5},
            actions=actions,
        )
    )


PLAY_BEACON = {"do": "play", "card": "Beacon", "column": "upper-military"}
DRAW = [{"op": "draw", "count": 1}]


def test_a_building_with_an_active_text_enters_cursed_and_nothing_is_pending() -> None:
    out = _beacon([PLAY_BEACON])
    assert out["legal"] and out["position"]["miron"]["columns"]["upper-military"] == ["Beacon*1"]
    assert "pending" not in out["position"]["turn"]
    assert {"M7", "M10"} <= set(out["rules"])


@pytest.mark.parametrize("where", [{}, {"column": "upper-military"}], ids=["unnamed", "named"])
def test_its_effect_is_refused_with_or_without_a_column(where: dict[str, str]) -> None:
    out = _beacon([PLAY_BEACON, {"do": "effect", "card": "Beacon", "ops": DRAW, **where}])
    assert (out["legal"], out["failed_at"]) == (False, 1)
    assert "M10" in out["rules"] and "cursed" in out["ruling"]
    assert out["position"]["miron"]["hand"] == []


def test_an_effect_that_discards_its_own_card_ends_its_turn_to_act() -> None:
    """Priest acts when played; its effect discards Priest itself: a second effect recorded
    for it without a column finds no card in play to act (M10, M12)."""
    leave = {
        "op": "move",
        "card": "Priest",
        "from": {"zone": "upper-religious"},
        "to": {"zone": "discard"},
    }
    out = _beacon(
        [
            {"do": "play", "card": "Priest", "column": "upper-religious"},
            {"do": "effect", "card": "Priest", "ops": [leave]},
            {"do": "effect", "card": "Priest", "ops": DRAW},
        ],
        hand=["Priest"],
    )
    assert (out["legal"], out["failed_at"]) == (False, 2), out["ruling"]
    assert "M12" in out["rules"]


# ---- positions no game reaches (issue 31 item 16) ---------------------------------------------


def _row(name: str) -> dict[str, Any]:
    """The card list's row for ``name`` (another copy of it, when added)."""
    return next(c for c in BASE["cards"] if c["name"] == name)


def _position(**changes: Any) -> dict[str, Any]:
    raw = _with(turn={"player": "miron", "phase": "0"}, miron={"deck": 5}, vess={"deck": 5})
    raw.update(changes)
    return raw


def _refused(raw: dict[str, Any]) -> str:
    with pytest.raises(NotationError) as e:
        rule_file(raw)
    return str(e.value)


@pytest.mark.parametrize(
    ("changes", "field", "rule"),
    [
        (
            {"miron": {"deities": ["Oracle"]}, "vess": {"deities": ["Sky God"]}},
            "vess.deities",
            "M9",
        ),
        (
            {"miron": {"columns": {"upper-military": ["Captain", "Guard", "Captain"]}}},
            "miron.columns.upper-military[2]",
            "M8",
        ),
        (
            {"vess": {"columns": {"lower-religious": ["Sun God"]}}},
            "vess.columns.lower-religious[0]",
            "M9",
        ),
        (
            {"vess": {"columns": {"upper-military": ["Plague"]}}},
            "vess.columns.upper-military[0]",
            "M9",
        ),
        ({"miron": {"deities": ["Guard"]}}, "miron.deities[0]", "M9"),
        (
            {"miron": {"columns": {"upper-military": ["Spearman"]}}},
            "miron.columns.upper-military[0]",
            "M6",
        ),
        ({"vess": {"hand": ["Scribe", "Fort"]}}, "vess.hand[1]", "ML-P8"),
        ({"vess": {"deck": ["Scribe", "Guard"]}}, "vess.deck[1]", "ML-P8"),
        ({"miron": {"discard": ["?Relic"]}}, "miron.discard[0]", "ML-P8"),
        ({"miron": {"hand": ["Fort"], "discard": ["Fort"]}}, "miron.discard[0]", "ML-P6"),
        (
            {
                "miron": {"hand": ["Priest"]},
                "turn": {"player": "miron", "phase": "1", "pending": "Priest"},
            },
            "turn.pending",
            "M10",
        ),
        (
            {
                "miron": {"columns": {"upper-military": ["Fort"]}},
                "turn": {"player": "miron", "phase": "1", "pending": "Fort"},
            },
            "turn.pending",
            "M10",
        ),
        (
            {
                "vess": {"columns": {"upper-religious": ["Seer"]}},
                "turn": {"player": "miron", "phase": "2", "pending": "Seer"},
            },
            "turn.pending",
            "M12",
        ),
        (
            {
                "miron": {"columns": {"upper-religious": ["Priest"]}},
                "turn": {"player": "miron", "phase": "2", "pending": "Priest"},
            },
            "turn.pending",
            "M3",
        ),
        ({"turn": {"player": "miron", "phase": "2", "checked": True}}, "turn.checked", "M11"),
        (
            {"turn": {"player": "miron", "phase": "supremacy", "exercised": ["lower-economic"]}},
            "turn.exercised[0]",
            "M11",
        ),
        (
            {
                "markers": {"lower-economic": "miron"},
                "turn": {"player": "miron", "phase": "2", "exercised": ["lower-economic"]},
            },
            "turn.exercised[0]",
            "M11",
        ),
        (
            {
                "markers": {"lower-economic": "miron"},
                "turn": {
                    "player": "miron",
                    "phase": "supremacy",
                    "exercised": ["lower-economic", "lower-economic"],
                },
            },
            "turn.exercised[1]",
            "M11",
        ),
    ],
    ids=[
        "deities-both-sides",
        "two-commanders",
        "deity-in-column",
        "fate-in-column",
        "servant-in-centre",
        "opponents-card-in-column",
        "opponents-card-in-hand",
        "opponents-card-in-deck",
        "bonus-card-in-basic-game",
        "more-copies",
        "pending-in-hand",
        "pending-without-active-text",
        "pending-of-the-opponent",
        "pending-in-another-phase",
        "checked-before-supremacy",
        "exercised-not-held",
        "exercised-before-the-check",
        "exercised-twice",
    ],
)
def test_an_impossible_position_is_refused_naming_the_field_and_rule(
    changes: dict[str, Any], field: str, rule: str
) -> None:
    message = _refused(_position(**changes))
    assert message.startswith(f"{field}: ") and f"{rule}" in message, message
    assert "\n" not in message


def test_possible_positions_are_read() -> None:
    """The same shapes, reachable: copies the card list has, deities on one side, a building's
    curse, a pending card in play, a fate card pending on its pile, a checked supremacy phase
    with a held column exercised, and another deck's card in an advanced game."""
    ok = [
        _position(miron={"hand": ["Guard"], "columns": {"upper-military": ["Guard"]}}),
        _position(miron={"deities": ["Oracle", "Harvest"]}, vess={"columns": {}}),
        _position(
            cards=[*BASE["cards"], _row("Captain")],
            miron={"columns": {"upper-military": ["Captain"], "lower-military": ["Captain"]}},
        ),
        _position(
            miron={"columns": {"upper-religious": ["Priest"]}},
            turn={"player": "miron", "phase": "1", "used": 1, "pending": "Priest"},
        ),
        _position(
            miron={"discard": ["Storm"]},
            turn={"player": "miron", "phase": "1", "used": 1, "pending": "Storm"},
        ),
        _position(
            markers={"lower-economic": "miron"},
            turn={"player": "miron", "phase": "supremacy", "exercised": ["lower-economic"]},
        ),
        _position(
            match={"advanced": True}, miron={"hand": ["Spearman", "Relic"]}, bonus=["Beetle"]
        ),
    ]
    for raw in ok:
        assert rule_file({**raw, "actions": []})["legal"]


def test_the_engine_keeps_every_position_it_reaches_possible() -> None:
    """Self-play, effects included: every state the rules reach reads back (M8, M9, ML-P8)."""
    import random

    from engine.minotaur.cards import parse_deck_list
    from engine.minotaur.notation import position_json, read_position
    from engine.minotaur.simulate import play_random, random_start

    cards = parse_deck_list((RULINGS.parent / "decks.csv").read_text())
    for seed in range(12):
        rng = random.Random(seed)
        st = random_start(rng, cards, advanced=seed % 3 == 0)
        read_position(position_json(st))
        for step in play_random(rng, st, max_actions=150):
            if step.outcome.state.stage is Stage.PLAY:  # a position is one of a game in play
                read_position(position_json(step.outcome.state))


@pytest.mark.parametrize(
    ("op", "rule"),
    [
        (
            {
                "op": "move",
                "card": "Spearman",
                "from": {"side": "vess", "zone": "upper-military"},
                "to": {"side": "miron", "zone": "upper-military"},
            },
            "ML-P8",
        ),
        (
            {
                "op": "move",
                "card": "?",
                "from": {"side": "vess", "zone": "deck"},
                "to": {"side": "miron", "zone": "hand"},
            },
            "ML-P8",
        ),
        (
            {
                "op": "move",
                "card": "Captain",
                "from": {"zone": "discard"},
                "to": {"zone": "upper-military"},
            },
            "M8",
        ),
    ],
    ids=["opponents-servant-taken-over", "opponents-deck-top-to-my-hand", "second-commander"],
)
def test_a_text_cannot_make_an_impossible_position(op: dict[str, Any], rule: str) -> None:
    out = rule_file(
        _position(
            turn={"player": "miron", "phase": "0"},
            miron={
                "discard": ["Captain"],
                "columns": {"upper-military": ["Captain"], "upper-economic": ["Trader"]},
            },
            vess={"deck": 5, "columns": {"upper-military": ["Spearman"]}},
            cards=[*BASE["cards"], _row("Captain")],
            actions=[{"do": "effect", "card": "Trader", "column": "upper-economic", "ops": [op]}],
        )
    )
    assert (out["legal"], out["failed_at"], out["rules"]) == (False, 0, [rule]), out["ruling"]


def test_a_first_player_past_his_two_phases_is_refused_the_exercise_by_m5() -> None:
    out = rule_file(
        _position(
            markers={"upper-military": "miron"},
            turn={"player": "miron", "first": True, "phase": "0", "left_hand": True},
            miron={"hand": ["Guard", "Archer"], "deck": 5},
            actions=[
                {"do": "play", "card": "Guard", "column": "lower-military"},
                {"do": "pass"},
                {"do": "play", "card": "Archer", "column": "lower-economic"},
                {"do": "pass", "to": "supremacy"},
                {"do": "exercise", "column": "upper-military"},
            ],
        )
    )
    assert (out["legal"], out["failed_at"]) == (False, 4), out["ruling"]
    assert "(M5)" in out["ruling"] and "(M11)" not in out["ruling"]


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ("Minotaur", "game: unknown game 'Minotaur': the games are hera-zeus, minotaur"),
        ("minotaur lords", "game: unknown game 'minotaur lords': the games are"),
        (7, "game: unknown game '7'"),
        (None, 'game: missing: a Minotaur Lords file (it has \'cards\') says "game": "minotaur"'),
    ],
)
def test_the_game_key_is_named_in_its_message(
    game: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = {k: v for k, v in _position().items() if k != "game"}
    if game is not None:
        raw["game"] = game
    path = tmp_path / "game.json"
    path.write_text(json.dumps(raw))
    code, _, err = _rule(path, capsys)
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert "unknown key" not in err


def test_a_hera_and_zeus_file_may_name_its_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hz.json"
    path.write_text(
        json.dumps({"game": "hera-zeus", "turn": {"player": "hera"}, "hera": {}, "zeus": {}})
    )
    code, result, err = _rule(path, capsys)
    assert code == 0 and result["legal"], err


def test_a_ruling_file_goes_to_the_game_it_names_among_the_services() -> None:
    from referee.games import DEFAULT, GAMES
    from referee.rulings import game_of_file

    for name, game in GAMES.items():
        assert game_of_file(json.dumps({"game": name}), "f.json", GAMES, DEFAULT) is game


def test_the_services_stored_action_keeps_the_side_unnamed_for_its_actor() -> None:
    """The live path (referee/minotaur/game.py) parses each action as it comes and stores it with
    the side still unnamed, so a replay resolves it for the player acting then (M1, M12)."""
    from engine.minotaur.notation import read_position
    from referee.minotaur.game import MINOTAUR

    raw = _position(
        turn={"player": "miron", "phase": "supremacy", "left_hand": True},
        miron={"hand": [], "deck": 5},
        vess={"hand": [], "deck": 5, "columns": {"upper-religious": ["Shrine*1"]}},
    )
    st = read_position(
        {k: v for k, v in raw.items() if k not in ("actions", "id", "source", "note")}
    )
    st = MINOTAUR.apply(st, MINOTAUR.parse_action({"do": "end_turn"}, "action")).state
    st = MINOTAUR.apply(st, MINOTAUR.parse_action({"do": "pass", "to": "2"}, "action")).state
    cure = MINOTAUR.parse_action(
        {"do": "cure", "card": "Shrine", "column": "upper-religious"}, "action"
    )
    assert "side" not in MINOTAUR.action_json(cure)
    after = MINOTAUR.apply(st, cure).state
    assert after.side("vess").columns[2][0].curses == 0
    assert MINOTAUR.ruling(st, cure).legal
